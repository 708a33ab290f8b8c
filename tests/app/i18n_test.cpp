// Languages: both string tables hold the same keys with the same placeholders and
// printf conversions, every key the code names exists, every view renders in English and in
// Chinese without a missing key, the Chinese atlas has a glyph for every character of zh-CN.json,
// and --lang / session "lang" take only the allowed values.
#include <gtest/gtest.h>

#include "cli_support.hpp"

#include <imgui.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <unistd.h>
#include <vector>

#include "frame/app.hpp"
#include "export/plot_export.hpp"
#include "i18n/i18n.hpp"
#include "lessons/lessons.hpp"
#include "panels/labs.hpp"
#include "platform/offscreen.hpp"
#include "smlab/evaluate.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;
using i18n::Language;

// Every test in app_tests sees the real tables (lab plots built in-process carry their text).
class CatalogueEnvironment : public ::testing::Environment {
 public:
  void SetUp() override {
    const Result<void> loaded = i18n::load_catalogue(find_assets_dir());
    ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  }
};
[[maybe_unused]] const auto* const catalogue_environment =
    ::testing::AddGlobalTestEnvironment(new CatalogueEnvironment);

i18n::Table load(const char* name) {
  const i18n::TableResult result = i18n::load_table(find_assets_dir() / "i18n" / name);
  EXPECT_TRUE(result.ok()) << result.error().message;
  return result.ok() ? *result : i18n::Table{};
}

// "%.4f", "%d", "%zu", "%%": the printf conversions of a text, in order (read-outs and slider
// formats come from the tables, so a translation must keep them exactly).
// Scanned by hand: std::regex trips a false -Wmaybe-uninitialized in GCC 12's <regex> under the
// sanitizer build's -Werror.
std::vector<std::string> conversions(const std::string& text) {
  const auto is_digit = [](char c) { return c >= '0' && c <= '9'; };
  std::vector<std::string> found;
  for (std::size_t start = 0; start < text.size(); ++start) {
    if (text[start] != '%') continue;
    std::size_t i = start + 1;
    while (i < text.size() && std::string_view("-+#0").find(text[i]) != std::string_view::npos) ++i;
    while (i < text.size() && is_digit(text[i])) ++i;
    if (i + 1 < text.size() && text[i] == '.' && is_digit(text[i + 1])) {
      ++i;
      while (i < text.size() && is_digit(text[i])) ++i;
    }
    for (std::string_view length : {"hh", "ll", "h", "l", "z", "j", "t", "L"})
      if (text.compare(i, length.size(), length) == 0) {
        i += length.size();
        break;
      }
    if (i < text.size() && std::string_view("diouxXeEfFgGaAcspn%").find(text[i]) != std::string_view::npos) {
      found.push_back(text.substr(start, i + 1 - start));
      start = i;
    }
  }
  return found;
}

// The quoted GUI keys on a line ("controls.temperature", …): each key and where its quote opens.
std::vector<std::pair<std::size_t, std::string>> key_literals(const std::string& line) {
  const auto key_char = [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-';
  };
  std::vector<std::pair<std::size_t, std::string>> found;
  for (std::size_t quote = line.find('"'); quote != std::string::npos; quote = line.find('"', quote + 1)) {
    for (std::string_view prefix : {"app.", "controls.", "dashboard.", "lab.", "plot.", "common."}) {
      if (line.compare(quote + 1, prefix.size(), prefix) != 0) continue;
      std::size_t end = quote + 1 + prefix.size();
      while (end < line.size() && key_char(line[end])) ++end;
      if (end > quote + 1 + prefix.size() && end < line.size() && line[end] == '"') {
        found.emplace_back(quote, line.substr(quote + 1, end - quote - 1));
        quote = end;
      }
      break;
    }
  }
  return found;
}

// Decodes UTF-8 into code points (the tables are valid UTF-8: nlohmann::json checked it).
std::set<unsigned> code_points(const std::string& text) {
  std::set<unsigned> points;
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const int length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
    unsigned point = length == 1 ? byte : byte & (0x7F >> length);
    for (int k = 1; k < length && i + static_cast<std::size_t>(k) < text.size(); ++k)
      point = (point << 6) | (static_cast<unsigned char>(text[i + static_cast<std::size_t>(k)]) & 0x3F);
    points.insert(point);
    i += static_cast<std::size_t>(length);
  }
  return points;
}

class Languages : public ::testing::Test {
 protected:
  void SetUp() override { i18n::clear_missing_keys(); }
  void TearDown() override { i18n::clear_missing_keys(); }
};

TEST_F(Languages, BothTablesParseAndHoldTheSameKeys) {
  const i18n::Table english = load("en.json"), chinese = load("zh-CN.json");
  ASSERT_GT(english.size(), 200u) << "en.json looks truncated";
  for (const auto& [key, text] : english) EXPECT_TRUE(chinese.contains(key)) << "zh-CN.json lacks " << key;
  for (const auto& [key, text] : chinese) EXPECT_TRUE(english.contains(key)) << "en.json lacks " << key;
}

// A table that cannot be read is a file error (exit 3); one that reads but is not a flat object of
// strings is bad content (exit 2). Both messages name the file.
TEST_F(Languages, TableErrorsSayWhetherTheFileOrItsContentIsAtFault) {
  const fs::path missing = fs::temp_directory_path() / "smlab-no-such-table.json";
  const i18n::TableResult unreadable = i18n::load_table(missing);
  ASSERT_FALSE(unreadable.ok());
  EXPECT_EQ(smlab::exit_code(unreadable.error().kind), 3) << unreadable.error().message;
  EXPECT_NE(unreadable.error().message.find(missing.string()), std::string::npos) << unreadable.error().message;
  const i18n::TableResult nested = i18n::parse_table(R"({"a": {"b": "c"}})");
  ASSERT_FALSE(nested.ok());
  EXPECT_EQ(smlab::exit_code(nested.error().kind), 2) << nested.error().message;
}

TEST_F(Languages, TranslationsKeepPlaceholdersAndConversions) {
  const i18n::Table english = load("en.json"), chinese = load("zh-CN.json");
  for (const auto& [key, text] : english) {
    EXPECT_FALSE(text.empty()) << key << " is empty in en.json";
    const auto found = chinese.find(key);
    if (found == chinese.end()) continue;  // reported by BothTablesParseAndHoldTheSameKeys
    EXPECT_FALSE(found->second.empty()) << key << " is empty in zh-CN.json";
    EXPECT_EQ(i18n::placeholders(text), i18n::placeholders(found->second))
        << key << ": \"" << text << "\" vs \"" << found->second << "\"";
    // No value is a printf format: numbers go in through {0}, {1}, formatted by the program.
    EXPECT_TRUE(conversions(text).empty()) << key << " in en.json holds a printf conversion: \"" << text << "\"";
    EXPECT_TRUE(conversions(found->second).empty())
        << key << " in zh-CN.json holds a printf conversion: \"" << found->second << "\"";
  }
}

TEST_F(Languages, ConversionCheckCatchesADroppedConversion) {
  // The check above must be able to fail: a translation that loses a %d differs.
  EXPECT_NE(conversions("row %d"), conversions("第行"));
  EXPECT_EQ(conversions("entropy %.4f nats (%.3f)"), (std::vector<std::string>{"%.4f", "%.3f"}));
}

// Every key literal the GUI code names ("controls.temperature", "lab.heads.sharp", …) is in the
// English table: keys reached only from a tooltip or a rare branch cannot hide from the render test.
TEST_F(Languages, EveryKeyInTheSourceIsInTheTables) {
  const i18n::Table english = load("en.json");
  const fs::path app_dir = fs::path(SMLAB_SOURCE_DIR) / "app";
  ASSERT_TRUE(fs::is_directory(app_dir)) << app_dir;
  int keys_seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(app_dir)) {
    if (entry.path().extension() != ".cpp" && entry.path().extension() != ".hpp") continue;
    std::ifstream source(entry.path());
    for (std::string line; std::getline(source, line);) {
      if (line.rfind("#include", 0) == 0) continue;
      const std::size_t comment = line.find("//");
      for (const auto& [position, key] : key_literals(line)) {
        if (comment != std::string::npos && position > comment) break;
        if (key.back() == '.') continue;  // a prefix built on, e.g. "controls.preset." + name
        ++keys_seen;
        EXPECT_TRUE(english.contains(key)) << key << " (" << entry.path().filename().string() << ") is not in en.json";
      }
    }
  }
  EXPECT_GT(keys_seen, 200);
}

TEST_F(Languages, MissingKeyIsRecordedAndShownAsItself) {
  EXPECT_STREQ(i18n::tr("no.such.key"), "no.such.key");
  EXPECT_EQ(i18n::missing_keys(), std::vector<std::string>{"no.such.key"});
  EXPECT_EQ(i18n::find("no.such.other.key"), nullptr);
  EXPECT_EQ(i18n::missing_keys().size(), 1u) << "find() must not record";
}

TEST_F(Languages, FormatFillsPlaceholdersInEitherOrder) {
  ASSERT_TRUE(i18n::has_chinese());
  const i18n::Use chinese(Language::Chinese);
  // zh-CN puts {1} before {0} here: the arguments follow the numbers, not the positions.
  const std::string text = i18n::format("lab.temperature.nudge.title", {"3", "7", "0.5"});
  EXPECT_NE(text.find("键 3"), std::string::npos) << text;
  EXPECT_NE(text.find("键 7"), std::string::npos) << text;
  EXPECT_LT(text.find("0.5"), text.find("键 3")) << text;
}

// Table texts are input, never a format: slider_format doubles every '%' of the text and puts the
// program's own conversion at {0}; format() copies '%' through untouched. Both languages.
TEST_F(Languages, TableTextWithPercentSignsIsNeverExpanded) {
  const std::string hostile = "%n %s %x %.99999f {0} 100%";
  i18n::install({{"hostile.key", hostile}}, {{"hostile.key", "中文 " + hostile}});
  for (const Language language : {Language::English, Language::Chinese}) {
    const i18n::Use use(language);
    const std::string prefix = language == Language::Chinese ? "中文 " : "";
    const std::string safe = i18n::slider_format("hostile.key", "%d");
    EXPECT_EQ(safe, prefix + "%%n %%s %%x %%.99999f %d 100%%");
    char shown[256];
    std::snprintf(shown, sizeof shown, safe.c_str(), 7);  // what ImGui does with a slider's format
    EXPECT_EQ(std::string(shown), prefix + "%n %s %x %.99999f 7 100%");
    EXPECT_EQ(i18n::format("hostile.key", {"1.5"}), prefix + "%n %s %x %.99999f 1.5 100%");
  }
  ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());
}

// No printf-style ImGui call in app/ takes its format from anywhere but a string literal: the
// Text family's format argument is a literal, and no slider, drag or input gets tr()/format()
// text as its display format (i18n::slider_format is the safe way).
TEST_F(Languages, NoImGuiFormatArgumentComesFromATable) {
  const fs::path app_dir = fs::path(SMLAB_SOURCE_DIR) / "app";
  int calls_seen = 0;
  for (const auto& entry : fs::recursive_directory_iterator(app_dir)) {
    if (entry.path().extension() != ".cpp") continue;
    const std::string source = cli_test::read_all(entry.path());
    for (std::string_view name :
         {"Text(", "TextColored(", "TextDisabled(", "TextWrapped(", "LabelText(", "BulletText(", "SetTooltip(",
          "SliderInt(", "SliderFloat(", "SliderScalar(", "DragInt(", "DragFloat(", "DragScalar(", "InputInt(",
          "InputFloat(", "InputDouble(", "InputScalar(", "TreeNode("}) {
      const std::string call = "ImGui::" + std::string(name);
      for (std::size_t at = source.find(call); at != std::string::npos; at = source.find(call, at + 1)) {
        // The argument list up to the matching parenthesis.
        std::size_t end = at + call.size();
        for (int depth = 1; end < source.size() && depth > 0; ++end)
          depth += source[end] == '(' ? 1 : source[end] == ')' ? -1 : 0;
        const std::string arguments = source.substr(at + call.size(), end - at - call.size());
        const std::string where = entry.path().filename().string() + ": " + call + arguments.substr(0, 80);
        ++calls_seen;
        const bool text_family = name.rfind("Slider", 0) != 0 && name.rfind("Drag", 0) != 0 &&
                                 name.rfind("Input", 0) != 0 && name != "TreeNode(";
        if (text_family) {
          // The format: the first argument (TextColored and LabelText: the second).
          std::size_t start = 0;
          if (name == "TextColored(" || name == "LabelText(") {
            int depth = 0;
            for (; start < arguments.size(); ++start) {
              depth += arguments[start] == '(' || arguments[start] == '['   ? 1
                       : arguments[start] == ')' || arguments[start] == ']' ? -1
                                                                            : 0;
              if (depth == 0 && arguments[start] == ',') break;
            }
            ++start;
          }
          while (start < arguments.size() && (arguments[start] == ' ' || arguments[start] == '\n')) ++start;
          EXPECT_EQ(arguments[start], '"') << "format is not a string literal: " << where;
        } else {
          // Past the label, no table text.
          const std::size_t after_label =
              arguments.find("c_str(),") != std::string::npos ? arguments.find("c_str(),") : arguments.find(',');
          const std::string rest = arguments.substr(after_label == std::string::npos ? arguments.size() : after_label);
          // A call of tr( or format( itself, not of c_str( or slider_format(.
          const auto calls = [&](std::string_view function) {
            for (std::size_t hit = rest.find(function); hit != std::string::npos; hit = rest.find(function, hit + 1)) {
              const char before = hit == 0 ? ' ' : rest[hit - 1];
              if (!std::isalnum(static_cast<unsigned char>(before)) && before != '_') return true;
            }
            return false;
          };
          EXPECT_FALSE(calls("tr(")) << "table text as a format: " << where;
          EXPECT_FALSE(calls("format(")) << "table text as a format: " << where;
        }
      }
    }
  }
  EXPECT_GT(calls_seen, 50);
}

// Every value of both tables replaced by printf bait ("%n" writes memory, ten "%s" read wild
// pointers, "%x" prints the stack): every view still renders in both languages, which it could
// not if any table text reached printf (glibc aborts on "%n" in a writable format).
class HostileCatalogue : public ::testing::TestWithParam<Language> {
 protected:
  void TearDown() override {
    ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());
    i18n::clear_missing_keys();
  }
};

TEST_P(HostileCatalogue, EveryViewRendersWithPrintfBaitInEveryString) {
  ::unsetenv("DISPLAY");
  const std::string bait = "%n%s%s%s%s%s%s%s%s%s%s%x%x%x%x%d%.99999f {0} {1} %% ";
  i18n::Table english = load("en.json"), chinese = load("zh-CN.json");
  for (auto& [key, text] : english) text = bait + key;  // the key keeps ImGui labels distinct
  for (auto& [key, text] : chinese) text = bait + key;
  i18n::install(std::move(english), std::move(chinese));
  auto created = platform::Offscreen::create({});
  ASSERT_TRUE(created) << created.error().message;
  AppOptions options;
  options.language = GetParam();
  options.params.seq_len = 8;
  options.refine_trials = 50;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  App app(**created, options);
  for (const ViewInfo& info : all_views()) {
    app.ui().view = info.view;
    app.ui().select_view_tab = true;
    app.wait_for_snapshot();
    for (int frame = 0; frame < 2; ++frame) ASSERT_TRUE(app.frame()) << info.name;
    EXPECT_FALSE(app.ui().placed_plots.empty()) << info.name << " drew no plots";
  }
  // The dashboard's read-outs and the row slider are drawn with the bait too.
  const i18n::Use language(app.language());
  EXPECT_NE(i18n::format("controls.readout.entropy", {"0.5", "1.0"}).find("%n%s"), std::string::npos);
}

INSTANTIATE_TEST_SUITE_P(BothLanguages, HostileCatalogue, ::testing::Values(Language::English, Language::Chinese),
                         [](const ::testing::TestParamInfo<Language>& info) {
                           return std::string(info.param == Language::Chinese ? "Chinese" : "English");
                         });

// One headless surface per language; every view drawn, then no key may be missing.
class LanguageViews : public ::testing::TestWithParam<Language> {
 protected:
  void TearDown() override { i18n::clear_missing_keys(); }
};

TEST_P(LanguageViews, EveryViewRendersWithNoMissingKey) {
  ::unsetenv("DISPLAY");
  auto created = platform::Offscreen::create({});
  ASSERT_TRUE(created) << created.error().message;
  i18n::clear_missing_keys();
  i18n::clear_reads_outside_use();
  AppOptions options;
  options.language = GetParam();
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  App app(**created, options);
  ASSERT_EQ(app.language(), GetParam()) << app.language_warning();
  for (const ViewInfo& info : all_views()) {
    app.ui().view = info.view;
    app.ui().select_view_tab = true;
    app.wait_for_snapshot();
    for (int frame = 0; frame < 2; ++frame) app.frame();
    EXPECT_FALSE(app.ui().placed_plots.empty()) << info.name << " drew no plots";
  }
  // The session popup and a lab with many heads (its extra notes) have their own strings too.
  app.ui().params.heads = 12;
  app.ui().params.seq_len = 300;
  app.ui().view = View::heads;
  app.ui().select_view_tab = true;
  app.wait_for_snapshot();
  app.frame();
  EXPECT_TRUE(i18n::missing_keys().empty()) << "first missing: " << i18n::missing_keys().front();
  // Every text was looked up in a language someone chose (the App's, in its frames), none in a
  // default: not on this thread between frames, not on the evaluator's worker.
  EXPECT_EQ(i18n::reads_outside_use(), 0u);
}

INSTANTIATE_TEST_SUITE_P(BothLanguages, LanguageViews, ::testing::Values(Language::English, Language::Chinese),
                         [](const ::testing::TestParamInfo<Language>& info) {
                           return std::string(info.param == Language::Chinese ? "Chinese" : "English");
                         });

// Chinese is not boxes: after switching at run time, the atlas has a real glyph (not the
// fallback) for every code point of every zh-CN string, and English text still renders.
TEST_F(Languages, SwitchingToChineseAtRunTimeLoadsEveryGlyph) {
  ::unsetenv("DISPLAY");
  auto created = platform::Offscreen::create({});
  ASSERT_TRUE(created) << created.error().message;
  AppOptions options;
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  options.lessons = load_lessons(find_assets_dir() / "lessons");  // as main.cpp gives them
  App app(**created, options);
  app.wait_for_snapshot();
  app.frame();
  ASSERT_NE(app.ui_font(), nullptr);
  EXPECT_EQ(app.ui_font()->FindGlyphNoFallback(0x7A97), nullptr) << "窗 in the English atlas: CJK is always merged";
  for (const unsigned point : code_points(i18n::language_name(Language::Chinese)))  // the combo's "简体中文"
    EXPECT_NE(app.ui_font()->FindGlyphNoFallback(static_cast<ImWchar>(point)), nullptr) << std::hex << point;
  ASSERT_TRUE(app.ui().chinese_available.ok()) << app.ui().chinese_available.error().message;

  app.ui().language = Language::Chinese;  // what the combo does
  app.frame();
  app.frame();
  EXPECT_EQ(app.language(), Language::Chinese);
  const std::string chinese_text = i18n::all_text(Language::Chinese);
  int missing = 0;
  for (const unsigned point : code_points(chinese_text)) {
    if (point < 0x20 || point == '\n') continue;
    if (app.ui_font()->FindGlyphNoFallback(static_cast<ImWchar>(point)) == nullptr && ++missing <= 10)
      ADD_FAILURE() << "no glyph for U+" << std::hex << point;
  }
  EXPECT_EQ(missing, 0);
  // The lessons' own Chinese text (assets/lessons/*.json) is drawn with the same atlas.
  int lesson_points = 0;
  for (const auto& entry : fs::directory_iterator(find_assets_dir() / "lessons")) {
    if (entry.path().extension() != ".json") continue;
    for (const unsigned point : code_points(cli_test::read_all(entry.path()))) {
      if (point < 0x2E80) continue;
      ++lesson_points;
      if (app.ui_font()->FindGlyphNoFallback(static_cast<ImWchar>(point)) == nullptr && ++missing <= 10)
        ADD_FAILURE() << "no glyph for U+" << std::hex << point << " of " << entry.path().filename();
    }
  }
  EXPECT_EQ(missing, 0);
  EXPECT_GT(lesson_points, 0) << "no Chinese lesson text found";

  // At 3× the atlas keeps only the characters the app shows (no common set): still every one.
  app.ui().font_scale = 3.0f;
  app.frame();
  app.frame();
  for (const unsigned point : code_points(chinese_text))
    if (point >= 0x20 && app.ui_font()->FindGlyphNoFallback(static_cast<ImWchar>(point)) == nullptr && ++missing <= 10)
      ADD_FAILURE() << "at 3×, no glyph for U+" << std::hex << point;
  EXPECT_EQ(missing, 0);
  app.ui().font_scale = 1.0f;
  EXPECT_TRUE(i18n::missing_keys().empty()) << i18n::missing_keys().front();

  app.ui().language = Language::English;
  app.frame();
  EXPECT_EQ(app.language(), Language::English);
  const i18n::Use language(app.language());
  EXPECT_STREQ(i18n::tr("controls.temperature"), "temperature");
}

TEST_F(Languages, MissingChineseFontFallsBackToEnglishWithOneMessage) {
  ::unsetenv("DISPLAY");
  ::setenv("SOFTMAX_LAB_CJK_FONT", "/nonexistent/wqy-microhei.ttc", 1);
  auto created = platform::Offscreen::create({});
  ASSERT_TRUE(created) << created.error().message;
  AppOptions options;
  options.language = Language::Chinese;
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  {
    App app(**created, options);
    EXPECT_EQ(app.language(), Language::English);
    EXPECT_NE(app.language_warning().find("fonts-wqy-microhei"), std::string::npos) << app.language_warning();
    EXPECT_EQ(app.language_warning().find('\n'), std::string::npos) << app.language_warning();
    EXPECT_FALSE(app.ui().chinese_available.ok());
    app.wait_for_snapshot();
    app.ui().language = Language::Chinese;  // a stale combo choice cannot switch either
    app.frame();
    app.frame();
    EXPECT_EQ(app.language(), Language::English);
    EXPECT_TRUE(i18n::missing_keys().empty());
  }
  ::unsetenv("SOFTMAX_LAB_CJK_FONT");
}

TEST_F(Languages, LabCsvSeriesStayEnglishWhenChineseIsShown) {
  Params params;
  EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  evaluate_options.dk_trials = 64;
  const Snapshot snapshot = *evaluate(params, evaluate_options);
  const fs::path english_dir = fs::temp_directory_path() / ("smlab-i18n-en-" + std::to_string(::getpid()));
  const fs::path chinese_dir = fs::temp_directory_path() / ("smlab-i18n-zh-" + std::to_string(::getpid()));
  fs::remove_all(english_dir);
  fs::remove_all(chinese_dir);
  fs::create_directories(english_dir);
  fs::create_directories(chinese_dir);
  ASSERT_TRUE(exporting::export_lab_csv(snapshot, english_dir, false).ok());
  {
    const i18n::Use chinese(Language::Chinese);  // what a Chinese window's thread draws in
    ASSERT_TRUE(exporting::export_lab_csv(snapshot, chinese_dir, false).ok());
    EXPECT_EQ(i18n::language(), Language::Chinese) << "the export must restore the language";
  }
  const std::string stability = cli_test::read_all(chinese_dir / "stability-weights.csv");
  EXPECT_NE(stability.find("naive,bar"), std::string::npos) << stability.substr(0, 200);
  for (const auto& entry : fs::directory_iterator(english_dir))
    EXPECT_EQ(cli_test::read_all(entry.path()), cli_test::read_all(chinese_dir / entry.path().filename()))
        << entry.path().filename();
  fs::remove_all(english_dir);
  fs::remove_all(chinese_dir);
}

TEST_F(Languages, SessionLangRoundTripsAndIsValidated) {
  Session session;
  session.language = Language::Chinese;
  const std::string text = serialize_session(session);
  EXPECT_NE(text.find("\"lang\": \"zh-CN\""), std::string::npos) << text;
  const smlab::Result<Session> loaded = parse_session(text);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->language, std::optional<Language>(Language::Chinese));
  EXPECT_EQ(*loaded, session);

  const smlab::Result<Session> absent = parse_session(R"({"version": 1})");
  ASSERT_TRUE(absent) << absent.error().message;
  EXPECT_FALSE(absent->language.has_value());

  for (const char* bad : {R"({"version": 1, "lang": "fr"})", R"({"version": 1, "lang": 3})"}) {
    const smlab::Result<Session> rejected = parse_session(bad);
    EXPECT_FALSE(rejected) << bad;
    EXPECT_NE(rejected.error().message.find("'lang'"), std::string::npos) << rejected.error().message;
    EXPECT_NE(rejected.error().message.find("en, zh-CN"), std::string::npos) << rejected.error().message;
    EXPECT_EQ(rejected.error().message.find('\n'), std::string::npos) << rejected.error().message;
  }
}

class LanguageCli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("smlab-i18n-cli-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  cli_test::Outcome run(const std::vector<std::string>& args, const std::string& before = "env -u DISPLAY") {
    return cli_test::run_program(SMLAB_BINARY, args, dir_, before);
  }
  fs::path dir_;
};

TEST_F(LanguageCli, ChineseScreenshotExitsZero) {
  const fs::path png = dir_ / "zh.png";
  const cli_test::Outcome r = run({"--lang", "zh-CN", "--screenshot", png.string(), "--size", "800x600"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;  // no font or table warning
  EXPECT_GT(fs::file_size(png), 1000u);
}

TEST_F(LanguageCli, BadLangExitsTwoWithOneLine) {
  const cli_test::Outcome r = run({"--lang", "fr", "--screenshot", (dir_ / "x.png").string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("'fr'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("en, zh-CN"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.png"));
}

TEST_F(LanguageCli, MissingFontStillRendersWithOneMessage) {
  const fs::path png = dir_ / "fallback.png";
  const cli_test::Outcome r = run({"--lang", "zh-CN", "--screenshot", png.string(), "--size", "800x600"},
                                  "env -u DISPLAY SOFTMAX_LAB_CJK_FONT=/nonexistent/font.ttc");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(png));
  EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << r.err;
  EXPECT_NE(r.err.find("fonts-wqy-microhei"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace smlab::app
