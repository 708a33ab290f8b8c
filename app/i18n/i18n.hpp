// User-visible strings: one table per language (assets/i18n/en.json, assets/i18n/zh-CN.json), looked
// up by key at run time. English is the fallback for a key missing in the current language; a key
// missing in both is shown as the key itself and recorded, so tests can fail on it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "smlab/error.hpp"

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

// A table, or the Error of one line that refused it.
using TableResult = Result<Table>;

// Parses one table: a flat JSON object whose values are all strings ("_comment" keys are skipped).
// Anything else is an Error::usage.
TableResult parse_table(std::string_view json_text);
// Reads `file` (at most 1 MB) and parses it. A missing or unreadable file is an Error::file naming
// it; a file too large or with bad content an Error::usage naming it.
TableResult load_table(const std::filesystem::path& file);

// The catalogue: both tables, loaded once at start-up and read-only afterwards, so any thread may
// read it. Which language a text is looked up in is not part of it: that belongs to whoever draws
// (an App's UiState::language, an export's options) and is handed to tr() through i18n::Use below.

// Loads <assets>/i18n/en.json and zh-CN.json and installs them as the catalogue, or says in one line
// which file is missing or bad: without English nothing is installed (tr() then shows keys), a bad
// Chinese table only disables Chinese (English is installed). Either way the run goes on: callers
// show the line as a warning.
Result<void> load_catalogue(const std::filesystem::path& assets_dir);
// Installs tables directly (tests, and load_catalogue). Start-up only: no other thread may be
// reading the catalogue, and every pointer tr() handed out from the previous tables is invalid.
void install(Table english, Table chinese);

// Whether an English table is installed (tr() otherwise answers every key with the key itself).
bool has_catalogue();
// Whether a Chinese table is installed (whether Chinese can be shown at all).
bool has_chinese();

// The language tr(), find(), format(), slider_format() and label() answer in on this thread, for
// one scope: the way ImGui::SetCurrentContext names the context ImGui's calls work on. Established
// by whoever owns a language at its entry points: App::frame() and the App's other text-making
// calls (the App's language), each export (the language it was given; English for CSV, whose
// series names are a contract). Scopes nest and each restores the one before; other threads are
// never affected (the evaluator's worker has no scope and makes no text). Chinese without a
// Chinese table answers in English key by key.
class Use {
 public:
  explicit Use(Language language);
  ~Use();
  Use(const Use&) = delete;
  Use& operator=(const Use&) = delete;

 private:
  Language previous_;
  bool previous_active_;
};

// This thread's language: the innermost Use's, English outside any Use (counted: see below).
Language language();
// How many look-ups (tr, find, format, label, slider_format, language) were made, on any thread,
// outside every Use since the last clear: they answer in English. Drawing code and exports always
// run inside one, so tests check this stays 0 while Apps and exports work.
std::uint64_t reads_outside_use();
void clear_reads_outside_use();

// Every text of one language's table run together: the font code builds its glyph ranges from it.
std::string all_text(Language language);

// The text for `key` in this thread's language (Use), else English, else the key itself (recorded
// as missing). The pointer stays valid until the next install().
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
