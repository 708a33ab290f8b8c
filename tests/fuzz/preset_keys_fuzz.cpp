// libFuzzer target for presets files with huge key counts (a shared presets.json is input): the
// fuzzer's bytes choose how many presets and how many keys per "set" object (up to 200,000, far
// beyond -max_len), and the key names. parse_presets must answer fast (libFuzzer's -timeout
// catches a quadratic parse), refuse an object of more than 1024 keys in one line, and list names
// in an error message of bounded length.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "state/presets.hpp"

using smlab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const std::size_t presets = (static_cast<std::size_t>(data[0]) << 6 | data[1] >> 2) % 20'000;  // 0 to 19,999
  const std::size_t keys = (static_cast<std::size_t>(data[2]) << 10 | static_cast<std::size_t>(data[3]) << 2) % 200'000;
  const std::string_view names(reinterpret_cast<const char*>(data + 4), size - 4);
  std::string text = "{\"presets\": [";
  std::size_t most_keys = 0;
  for (std::size_t p = 0; p < presets && text.size() < (1u << 20); ++p) {
    text += (p ? ",{" : "{");
    text += "\"name\": \"p" + std::to_string(p) + "\", \"title\": \"t\", \"set\": {";
    // The first preset gets the huge key count; the others a few real keys.
    const std::size_t count = p == 0 ? keys : 2;
    for (std::size_t k = 0; k < count && text.size() < (1u << 20); ++k) {
      const char c = names.empty() ? 'k' : names[k % names.size()];
      const bool printable = c >= 'a' && c <= 'z';
      text += (k ? ",\"" : "\"") + std::string(1, printable ? c : 'k') + std::to_string(k) + "\": 1";
      most_keys = std::max(most_keys, k + 1);
    }
    text += "}}";
  }
  text += "]}";
  const smlab::app::PresetList list = smlab::app::parse_presets(text);
  if (text.size() > (1u << 20)) {
    require(!list.ok());
  } else if (most_keys > 1024) {
    require(!list.ok() && list.error().message.find("more than 1024 keys") != std::string::npos);
  }
  if (!list.ok()) smlab::fuzz::require_one_line_error(list.error().message);
  require(smlab::app::preset_names(list).size() < 1000);
  return 0;
}
