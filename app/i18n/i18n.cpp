// The string catalogue behind tr(): two tables, the current language, and the misses.
#include "i18n/i18n.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <mutex>
#include <utility>

namespace smlab::i18n {
namespace {

constexpr std::uintmax_t table_max_bytes = 1 << 20;
constexpr int table_max_depth = 2;              // one flat object
constexpr std::size_t table_max_keys = 10'000;  // a table has about 400

struct Catalogue {
  Table english;
  Table chinese;
  Language current = Language::English;
  std::mutex missing_mutex;
  std::vector<std::string> missing;
};

Catalogue& catalogue() {
  static Catalogue instance;
  return instance;
}

TableResult table_failure(std::string message) {
  TableResult result;
  result.error = std::move(message);
  return result;
}

// "{N}" at text[at] (N of one or two digits): N and the index of the closing brace.
std::optional<std::pair<int, std::size_t>> placeholder_at(std::string_view text, std::size_t at) {
  if (text[at] != '{') return std::nullopt;
  const std::size_t close = text.find('}', at);
  if (close == std::string_view::npos || close == at + 1 || close - at > 3) return std::nullopt;
  int index = 0;
  for (std::size_t j = at + 1; j < close; ++j) {
    if (text[j] < '0' || text[j] > '9') return std::nullopt;
    index = index * 10 + (text[j] - '0');
  }
  return std::pair{index, close};
}

void record_missing(std::string_view key) {
  Catalogue& c = catalogue();
  const std::lock_guard lock(c.missing_mutex);
  if (std::find(c.missing.begin(), c.missing.end(), key) == c.missing.end()) c.missing.emplace_back(key);
}

}  // namespace

std::optional<Language> parse_language(std::string_view code) {
  if (code == "en" || code == "en-US" || code == "en-GB") return Language::English;
  if (code == "zh-CN" || code == "zh" || code == "zh_CN") return Language::Chinese;
  return std::nullopt;
}

const char* language_code(Language language) { return language == Language::Chinese ? "zh-CN" : "en"; }

const char* language_name(Language language) { return language == Language::Chinese ? "简体中文" : "English"; }

std::string language_codes() { return "en, zh-CN"; }

TableResult parse_table(std::string_view json_text) {
  if (json_text.size() > table_max_bytes) return table_failure("larger than 1 MB");
  if (auto problem = app::json_text_problem(json_text, table_max_depth, table_max_keys)) return table_failure(*problem);
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(json_text);
  } catch (const nlohmann::json::parse_error& e) {
    return table_failure(app::json_syntax_error(json_text, e.byte));
  } catch (const nlohmann::json::out_of_range& e) {
    // "number overflow parsing '1e999'": the lexer has checked the token is a number.
    const std::string what = e.what();
    return table_failure(std::string("not valid JSON: ") +
                         what.substr(what.find("] ") == std::string::npos ? 0 : what.find("] ") + 2, 80));
  } catch (const nlohmann::json::exception&) {
    return table_failure("not valid JSON");
  }
  if (!document.is_object()) return table_failure("expected one JSON object of \"key\": \"text\" pairs");
  TableResult result;
  for (const auto& [key, value] : document.items()) {
    if (key.rfind("_comment", 0) == 0) continue;
    if (!value.is_string()) return table_failure("the value of \"" + key.substr(0, 60) + "\" is not a string");
    if (value.get_ref<const std::string&>().size() > 4096)
      return table_failure("the value of \"" + key.substr(0, 60) + "\" is longer than 4096 bytes");
    result.table.emplace(key, value.get<std::string>());
  }
  return result;
}

TableResult load_table(const std::filesystem::path& file) {
  const app::TextFile text = app::read_text_file(file, table_max_bytes);
  if (text.status == app::TextFile::Status::unreadable)
    return table_failure(app::cannot_read("'" + file.string() + "'", text));
  if (text.status == app::TextFile::Status::too_large)
    return table_failure("'" + file.string() + "' is larger than 1 MB");
  TableResult result = parse_table(text.text);
  if (!result.error.empty()) result.error = "'" + file.string() + "': " + result.error;
  return result;
}

std::string load_catalogue(const std::filesystem::path& assets_dir) {
  TableResult english = load_table(assets_dir / "i18n" / "en.json");
  if (!english.error.empty()) return english.error;
  TableResult chinese = load_table(assets_dir / "i18n" / "zh-CN.json");
  install(std::move(english.table), std::move(chinese.table));
  return chinese.error.empty() ? std::string{} : chinese.error + " (Chinese is unavailable)";
}

void install(Table english, Table chinese) {
  Catalogue& c = catalogue();
  c.english = std::move(english);
  c.chinese = std::move(chinese);
  if (c.chinese.empty()) c.current = Language::English;
}

bool set_language(Language language) {
  Catalogue& c = catalogue();
  if (language == Language::Chinese && c.chinese.empty()) return false;
  c.current = language;
  return true;
}

Language language() { return catalogue().current; }

bool has_catalogue() { return !catalogue().english.empty(); }

bool has_chinese() { return !catalogue().chinese.empty(); }

std::string all_text(Language language) {
  const Catalogue& c = catalogue();
  std::string out;
  for (const auto& [key, text] : language == Language::Chinese ? c.chinese : c.english) out += text;
  return out;
}

const char* find(std::string_view key) {
  Catalogue& c = catalogue();
  if (c.current == Language::Chinese) {
    if (const auto found = c.chinese.find(key); found != c.chinese.end()) return found->second.c_str();
  }
  if (const auto found = c.english.find(key); found != c.english.end()) return found->second.c_str();
  return nullptr;
}

const char* tr(std::string_view key) {
  Catalogue& c = catalogue();
  if (c.current == Language::Chinese) {
    if (const auto found = c.chinese.find(key); found != c.chinese.end()) return found->second.c_str();
  }
  if (const auto found = c.english.find(key); found != c.english.end()) return found->second.c_str();
  record_missing(key);
  // The key itself, kept alive in the English table so the pointer stays valid.
  return c.english.emplace(std::string(key), std::string(key)).first->second.c_str();
}

std::string format(std::string_view key, std::initializer_list<std::string_view> arguments) {
  const std::string_view text = tr(key);
  std::string out;
  out.reserve(text.size() + 16);
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (const auto placeholder = placeholder_at(text, i)) {
      const auto [index, close] = *placeholder;
      if (static_cast<std::size_t>(index) < arguments.size()) out.append(*(arguments.begin() + index));
      i = close;
      continue;
    }
    out.push_back(text[i]);
  }
  return out;
}

std::string slider_format(std::string_view key, std::string_view conversion) {
  const std::string_view text = tr(key);
  std::string out;
  bool converted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (const auto placeholder = placeholder_at(text, i)) {
      if (placeholder->first == 0 && !converted) {  // one value: one conversion, at the first {0}
        out.append(conversion);
        converted = true;
      }
      i = placeholder->second;
      continue;
    }
    if (text[i] == '%') out.push_back('%');
    out.push_back(text[i]);
  }
  if (!converted) out.append(conversion.empty() ? "" : std::string(" ").append(conversion));
  return out;
}

std::string fixed(double value, int decimals) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", std::clamp(decimals, 0, 17), value);
  return buffer;
}

std::string label(std::string_view key, std::string_view id) {
  std::string out = tr(key);
  out.append("###");
  out.append(id);
  return out;
}

std::vector<std::string> missing_keys() {
  Catalogue& c = catalogue();
  const std::lock_guard lock(c.missing_mutex);
  return c.missing;
}

void clear_missing_keys() {
  Catalogue& c = catalogue();
  const std::lock_guard lock(c.missing_mutex);
  c.missing.clear();
}

std::vector<int> placeholders(std::string_view text) {
  std::vector<int> found;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (const auto placeholder = placeholder_at(text, i)) found.push_back(placeholder->first);
  std::sort(found.begin(), found.end());
  found.erase(std::unique(found.begin(), found.end()), found.end());
  return found;
}

}  // namespace smlab::i18n
