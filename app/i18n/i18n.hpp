// User-visible strings: one table per language (assets/i18n/en.json, assets/i18n/zh-CN.json), looked
// up by key at run time. English is the fallback for a key missing in the current language; a key
// missing in both is shown as the key itself and recorded, so tests can fail on it.
#pragma once

#include <cstddef>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace smlab::i18n {

enum class Language { English, Chinese };

// "en" → English, "zh-CN" (also "zh", "zh_CN") → Chinese; anything else is nullopt.
std::optional<Language> parse_language(std::string_view code);
// "en" / "zh-CN": what --lang and session files take.
const char* language_code(Language language);
// "English" / "简体中文": how the language names itself in the language menu.
const char* language_name(Language language);
// "en, zh-CN" for error messages.
std::string language_codes();

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const noexcept { return std::hash<std::string_view>{}(text); }
};

// key → text. Keys are dotted lower-case names ("controls.temperature").
using Table = std::unordered_map<std::string, std::string, StringHash, std::equal_to<>>;

struct TableResult {
  Table table;
  std::string error;  // one line; set when the text is not a flat JSON object of strings
};

// Parses one table: a flat JSON object whose values are all strings ("_comment" keys are skipped).
TableResult parse_table(std::string_view json_text);
// Reads `file` (at most 1 MB) and parses it; a missing or unreadable file is an error naming it.
TableResult load_table(const std::filesystem::path& file);

// Loads <assets>/i18n/en.json and zh-CN.json into the process-wide catalogue. Returns "" or one
// line naming the file and problem; English must load, a broken Chinese table only disables Chinese.
std::string load_catalogue(const std::filesystem::path& assets_dir);
// Installs tables directly (tests, and load_catalogue).
void install(Table english, Table chinese);

// The language tr() answers in. set_language(Chinese) fails (returns false) when no Chinese table
// is installed.
bool set_language(Language language);
Language language();
// Whether an English table is installed (tr() otherwise answers every key with the key itself).
bool has_catalogue();
// Whether a Chinese table is installed (set_language(Chinese) can succeed).
bool has_chinese();

// Switches the language for one scope and back: exports whose text is a contract (CSV series
// names) build their plots in English whatever the window shows.
class ScopedLanguage {
 public:
  explicit ScopedLanguage(Language language) : previous_(i18n::language()) { set_language(language); }
  ~ScopedLanguage() { set_language(previous_); }
  ScopedLanguage(const ScopedLanguage&) = delete;
  ScopedLanguage& operator=(const ScopedLanguage&) = delete;

 private:
  Language previous_;
};

// Every text of one language's table run together: the font code builds its glyph ranges from it.
std::string all_text(Language language);

// The text for `key` in the current language, else English, else the key itself (recorded as
// missing). The pointer stays valid until the next install().
const char* tr(std::string_view key);
// The text for `key` like tr(), or null when neither table has it (not recorded as missing): for
// optional texts such as a preset's translated title.
const char* find(std::string_view key);
// tr(key) with "{0}", "{1}", … replaced by `arguments`.
std::string format(std::string_view key, std::initializer_list<std::string_view> arguments);
// tr(key) as a printf format that is safe to hand to ImGui (a slider's display format): every '%'
// of the table's text doubled, and its first "{0}" replaced by `conversion`, a program literal
// such as "%d". A table's text is input (a file users edit) and never becomes a format itself.
std::string slider_format(std::string_view key, std::string_view conversion);
// `value` with `decimals` digits after the point ("0.2500"): numbers the tables' {0} receive.
std::string fixed(double value, int decimals);
// "translated text###id": an ImGui label whose ID does not change with the language.
std::string label(std::string_view key, std::string_view id);

// Keys asked for through tr() that neither table has, in the order first seen (tests check empty).
std::vector<std::string> missing_keys();
void clear_missing_keys();

// The placeholders "{0}", "{1}", … that `text` uses, sorted and unique (completeness tests).
std::vector<int> placeholders(std::string_view text);

}  // namespace smlab::i18n
