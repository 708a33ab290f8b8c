// libFuzzer target for the string tables (assets/i18n/*.json, files users edit and share): parse_table
// never crashes, an error is one line, and no text of a loaded table is ever expanded as a printf
// format: every '%' it holds comes out of format() and of a slider format (after printf) unchanged.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_support.hpp"
#include "i18n/i18n.hpp"

using smlab::fuzz::require;

namespace {

std::size_t percent_signs(std::string_view text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '%'));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  smlab::i18n::TableResult result = smlab::i18n::parse_table(text);
  if (!result.ok()) {
    // A refused table leaves nothing behind (a Result holds no Table then), and its message is one line.
    smlab::fuzz::require_one_line_error(result.error().message);
    return 0;
  }
  std::vector<std::pair<std::string, std::string>> entries(result->begin(), result->end());
  smlab::i18n::install(*result, *result);
  for (const smlab::i18n::Language language : {smlab::i18n::Language::English, smlab::i18n::Language::Chinese}) {
    const smlab::i18n::Use use(language);
    for (const auto& [key, value] : entries) {
      // format(): the arguments hold no '%', so every '%' of the result is one of the text's.
      const std::string formatted = smlab::i18n::format(key, {"1.5", "2"});
      require(percent_signs(formatted) == percent_signs(value));
      // slider_format(): printf must turn it back into the text's own '%' signs plus the number.
      const std::string slider = smlab::i18n::slider_format(key, "%d");
      std::vector<char> shown(slider.size() + 32);
      const int length = std::snprintf(shown.data(), shown.size(), slider.c_str(), 7);
      require(length >= 0 && static_cast<std::size_t>(length) < shown.size());
      require(percent_signs(std::string_view(shown.data(), static_cast<std::size_t>(length))) == percent_signs(value));
    }
  }
  return 0;
}
