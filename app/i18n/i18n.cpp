// The string catalogue behind tr(): two read-only tables, each thread's language (i18n::Use), and
// the misses.
#include "i18n/i18n.hpp"
#include "files/json_parse.hpp"
#include "files/text_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>
#include <utility>

namespace smlab::i18n {
namespace {

constexpr std::uintmax_t table_max_bytes = 1 << 20;
constexpr int table_max_depth = 2;              // one flat object
constexpr std::size_t table_max_keys = 10'000;  // a table has about 400

// The tables: built whole by install(), never changed afterwards (concurrent reads are safe).
struct Tables {
  Table english;
  Table chinese;
};

// The installed tables (never null after the first call); install() replaces them at start-up.
std::unique_ptr<const Tables>& installed() {
  static std::unique_ptr<const Tables> instance = std::make_unique<const Tables>();
  return instance;
}

const Tables& tables() { return *installed(); }

// Keys neither table has. Their text (the key itself) lives here, in a node-based set, so the
// pointer tr() returns for one stays valid for the whole run while the tables stay read-only.
struct Misses {
  std::mutex mutex;
  std::vector<std::string> order;            // first seen first; cleared by tests
  std::set<std::string, std::less<>> texts;  // never shrinks: tr() handed out pointers
};

Misses& misses() {
  static Misses instance;
  return instance;
}

// This thread's language and whether a Use set it (outside one: English, and counted).
thread_local Language current_language = Language::English;
thread_local bool inside_use = false;
std::atomic<std::uint64_t> outside_reads{0};

Language read_language() {
  if (!inside_use) outside_reads.fetch_add(1, std::memory_order_relaxed);
  return current_language;
}

TableResult table_failure(std::string message) { return Error::usage(std::move(message)); }

// Library decision: the "{N}" placeholders are ours, not libfmt-dev's (fmt 9.1 does
// positional arguments, and header-only it would build for the page too). slider_format turns a
// translation's {0} into an ImGui printf conversion with every '%' escaped, which is no fmt
// operation, so this scan stays either way, and format() is the same scan with the arguments put
// in. fmt would give the translators' files a second syntax (literal braces doubled) and every
// label a throwing path on a malformed table (fmt::format_error), where this scan leaves a brace
// that is not a placeholder as text.
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

// Records `key` as missing and returns its text (the key itself), valid for the whole run.
const char* record_missing(std::string_view key) {
  Misses& m = misses();
  const std::lock_guard lock(m.mutex);
  if (std::find(m.order.begin(), m.order.end(), key) == m.order.end()) m.order.emplace_back(key);
  auto found = m.texts.find(key);
  if (found == m.texts.end()) found = m.texts.emplace(key).first;
  return found->c_str();
}

// The text for `key` in `language`, else English, else null.
const char* look_up(std::string_view key, Language language) {
  const Tables& t = tables();
  if (language == Language::Chinese) {
    if (const auto found = t.chinese.find(key); found != t.chinese.end()) return found->second.c_str();
  }
  if (const auto found = t.english.find(key); found != t.english.end()) return found->second.c_str();
  return nullptr;
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
  Result<nlohmann::json> parsed =
      app::parse_json<nlohmann::json>(json_text, "", {table_max_bytes, table_max_depth, table_max_keys});
  if (!parsed) return parsed.error();
  nlohmann::json& document = *parsed;
  if (!document.is_object()) return table_failure("expected one JSON object of \"key\": \"text\" pairs");
  Table table;
  for (const auto& [key, value] : document.items()) {
    if (key.rfind("_comment", 0) == 0) continue;
    if (!value.is_string()) return table_failure("the value of \"" + key.substr(0, 60) + "\" is not a string");
    if (value.get_ref<const std::string&>().size() > 4096)
      return table_failure("the value of \"" + key.substr(0, 60) + "\" is longer than 4096 bytes");
    table.emplace(key, value.get<std::string>());
  }
  return table;
}

TableResult load_table(const std::filesystem::path& file) {
  const app::TextFile text = app::read_text_file(file, table_max_bytes);
  if (text.status == app::TextFile::Status::unreadable)
    return Error::file(app::cannot_read("'" + file.string() + "'", text));
  if (text.status == app::TextFile::Status::too_large)
    return table_failure("'" + file.string() + "' is larger than 1 MB");
  TableResult result = parse_table(text.text);
  if (!result.ok()) return Error{result.error().kind, "'" + file.string() + "': " + result.error().message};
  return result;
}

Result<void> load_catalogue(const std::filesystem::path& assets_dir) {
  TableResult english = load_table(assets_dir / "i18n" / "en.json");
  if (!english.ok()) return english.error();
  TableResult chinese = load_table(assets_dir / "i18n" / "zh-CN.json");
  install(std::move(*english), chinese.ok() ? std::move(*chinese) : Table{});
  if (!chinese.ok()) return Error{chinese.error().kind, chinese.error().message + " (Chinese is unavailable)"};
  return {};
}

void install(Table english, Table chinese) {
  installed() = std::make_unique<const Tables>(Tables{std::move(english), std::move(chinese)});
}

Use::Use(Language language) : previous_(current_language), previous_active_(inside_use) {
  current_language = language;
  inside_use = true;
}

Use::~Use() {
  current_language = previous_;
  inside_use = previous_active_;
}

Language language() { return read_language(); }

std::uint64_t reads_outside_use() { return outside_reads.load(std::memory_order_relaxed); }

void clear_reads_outside_use() { outside_reads.store(0, std::memory_order_relaxed); }

bool has_catalogue() { return !tables().english.empty(); }

bool has_chinese() { return !tables().chinese.empty(); }

std::string all_text(Language language) {
  const Tables& t = tables();
  std::string out;
  for (const auto& [key, text] : language == Language::Chinese ? t.chinese : t.english) out += text;
  return out;
}

const char* find(std::string_view key) { return look_up(key, read_language()); }

const char* tr(std::string_view key) {
  if (const char* text = look_up(key, read_language())) return text;
  return record_missing(key);
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
  Misses& m = misses();
  const std::lock_guard lock(m.mutex);
  return m.order;
}

void clear_missing_keys() {
  Misses& m = misses();
  const std::lock_guard lock(m.mutex);
  m.order.clear();
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
