// Presets and sessions: every shipped preset passes the one validation, --preset and
// --list-presets work, and a session saved and loaded comes back exactly, while every kind of bad
// session file gives one line naming the field and changes nothing.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli_support.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "state/presets.hpp"
#include "state/session.hpp"

namespace {

namespace fs = std::filesystem;
using smlab::Params;
using smlab::app::Session;
using smlab::cli_test::Outcome;
using smlab::cli_test::read_all;
using smlab::cli_test::shell_quote;

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = smlab::cli_test::fresh_test_dir("session"); }
  void TearDown() override { fs::remove_all(dir_); }

  Outcome run(const std::vector<std::string>& args) const {
    return smlab::cli_test::run_program(SMLAB_BINARY, args, dir_);
  }

  fs::path dir_;
};

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == std::string::npos; }

// ---- presets ----

TEST(Presets, ShippedFileHasTheClassicExamplesAndEveryEntryIsValid) {
  const auto file = smlab::app::find_assets_dir() / "presets.json";
  const smlab::app::PresetList list = smlab::app::load_presets(file);
  ASSERT_TRUE(list.ok()) << list.error().message;
  for (const char* name : {"softmax-123", "close-scores", "large-scores", "two-scores", "symmetric",
                           "large-dk-unscaled", "large-dk-scaled"})
    EXPECT_NE(smlab::app::find_preset(list, name), nullptr) << name << " missing from " << file;
  for (const auto& preset : *list) {
    EXPECT_TRUE(smlab::validate(preset.params).ok()) << preset.name;
    // The stored Params are exactly the defaults with the preset's settings applied by set_param.
    Params expected;
    for (const auto& [key, value] : preset.settings)
      ASSERT_TRUE(smlab::set_param(expected, key, value).ok()) << preset.name << ": " << key << "=" << value;
    EXPECT_EQ(preset.params, expected) << preset.name;
    EXPECT_FALSE(preset.title.empty()) << preset.name;
  }
  const auto* large = smlab::app::find_preset(list, "large-scores");
  ASSERT_NE(large, nullptr);
  EXPECT_EQ(large->params.scores, (std::vector<double>{1000, 1001, 1002}));
}

TEST(Presets, InvalidEntriesAreRejectedWithOneLineNamingPresetAndKey) {
  struct Case {
    const char* json;
    const char* needle;
  };
  const Case cases[] = {
      {R"({"presets": [{"name": "hot", "title": "t", "set": {"temperature": "1000"}}]})", "preset 'hot': temperature"},
      {R"({"presets": [{"name": "k", "title": "t", "set": {"bogus": "1"}}]})", "bogus"},
      {R"({"presets": [{"name": "a", "title": "t", "set": {}}, {"name": "a", "title": "t", "set": {}}]})", "twice"},
      {R"({"presets": [{"name": "v", "title": "t", "view": "nowhere", "set": {}}]})", "view"},
      {R"({"presets": [{"name": "bad name!", "title": "t", "set": {}}]})", "name"},
      {R"({"presets": [{"name": "s", "title": "t", "set": {"scores": [1, 2]}}]})", "scores"},
      {R"({"presets": )", "JSON"},
  };
  for (const Case& c : cases) {
    const auto list = smlab::app::parse_presets(c.json);
    ASSERT_FALSE(list.ok()) << c.json;
    EXPECT_TRUE(one_line(list.error().message)) << c.json << "\n" << list.error().message;
    EXPECT_NE(list.error().message.find(c.needle), std::string::npos) << c.json << "\n" << list.error().message;
  }
}

TEST_F(TempDir, MissingPresetsFileIsOneClearMessage) {
  const auto list = smlab::app::load_presets(dir_ / "presets.json");
  ASSERT_FALSE(list.ok());
  EXPECT_TRUE(one_line(list.error().message)) << list.error().message;
  EXPECT_NE(list.error().message.find("presets.json"), std::string::npos) << list.error().message;
  // An installed file that did not load is a file error (exit 3), as main has always reported it.
  EXPECT_EQ(smlab::exit_code(list.error().kind), 3);
}

TEST_F(TempDir, PresetFlagSetsTheParamsAndSetStillAppliesOnTop) {
  const Outcome list = run({"--list-presets"});
  EXPECT_EQ(list.exit_code, 0) << list.err;
  EXPECT_NE(list.out.find("large-dk-unscaled"), std::string::npos) << list.out;

  const Outcome exported =
      run({"--preset", "two-scores", "--set", "temperature=25", "--export-csv", (dir_ / "csv").string()});
  ASSERT_EQ(exported.exit_code, 0) << exported.err;
  const std::string distribution = read_all(dir_ / "csv" / "distribution.csv");
  // Two scores 200 and 250 at T = 25: logits 8 and 10.
  EXPECT_NE(distribution.find("200"), std::string::npos) << distribution;
  EXPECT_NE(distribution.find("250"), std::string::npos) << distribution;
  EXPECT_NE(distribution.find(",10,"), std::string::npos) << distribution;

  const Outcome unknown = run({"--preset", "nope", "--screenshot", (dir_ / "x.png").string()});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err.find('\n'), unknown.err.size() - 1) << unknown.err;
  EXPECT_NE(unknown.err.find("softmax-123"), std::string::npos) << "should list the allowed names: " << unknown.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.png"));
}

// ---- sessions ----

Session odd_session() {
  Session session;
  const double inf = std::numeric_limits<double>::infinity();
  session.params.temperature = 0.1;
  session.params.score_scale = 0.30000000000000004;
  session.params.key_dim = 4096;
  session.params.seq_len = 300;
  session.params.row = 299;
  session.params.seed = smlab::ParamLimits::seed_max;
  session.params.scaled = false;
  session.params.scores = {0.1, 1e-300, -inf, 5e-324, -0.0, 1.7976931348623157e308, -2.5};
  session.params.alpha = 1.0000000000000002;
  session.params.format = smlab::Format::bf16;
  session.params.gamma = 99.99999999999999;
  session.params.qk_norm = 0.1;
  session.params.pe_amplitude = 0.0;
  session.params.heads = 16;
  session.params.causal = true;
  session.params.nudge = -3.0;
  session.view = smlab::View::attention_variants;
  session.screenshot_dir = "/tmp/shots \"quoted\" ünïcode";
  return session;
}

std::string describe(const Params& params) {
  std::string text;
  for (const auto& key : smlab::param_keys())
    text += std::string(key.name) + "=" + smlab::get_param(params, key.name).value_or("?") + " ";
  return text;
}

TEST(Session, SerialiseThenParseRoundTripsEveryKeyExactly) {
  const Session original = odd_session();
  ASSERT_TRUE(smlab::validate(original.params).ok()) << smlab::validate(original.params).error().message;
  const std::string text = smlab::app::serialize_session(original);
  const auto loaded = smlab::app::parse_session(text);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message << "\n" << text;
  EXPECT_EQ(loaded->params, original.params)
      << "wrote: " << describe(original.params) << "\nread:  " << describe(loaded->params);
  // Bit-exact, not just ==: -0.0 and the smallest subnormal survive.
  ASSERT_EQ(loaded->params.scores.size(), original.params.scores.size());
  for (std::size_t i = 0; i < original.params.scores.size(); ++i)
    EXPECT_EQ(std::signbit(loaded->params.scores[i]), std::signbit(original.params.scores[i])) << i;
  EXPECT_EQ(loaded->view, original.view);
  EXPECT_EQ(loaded->screenshot_dir, original.screenshot_dir);
  // Every key is in the file, and the text is stable.
  for (const auto& key : smlab::param_keys())
    EXPECT_NE(text.find("\"" + std::string(key.name) + "\""), std::string::npos) << key.name << "\n" << text;
  EXPECT_EQ(smlab::app::serialize_session(*loaded), text);
}

// A class saved with the session (File → Save session… while hosting) comes back as it was written;
// its fields are checked when the class is reopened (tests/classroom: ClassRecord).
TEST(Session, AHostedClassRoundTripsAsItsRecord) {
  Session original = odd_session();
  original.class_record = R"({"code":"K7P2QX","port":8080,"questions":[{"answers":[[[1,2,0.5]]]}]})";
  const std::string text = smlab::app::serialize_session(original);
  const auto loaded = smlab::app::parse_session(text);
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  EXPECT_EQ(nlohmann::json::parse(loaded->class_record), nlohmann::json::parse(original.class_record));
  EXPECT_EQ(smlab::app::serialize_session(*loaded), text);
  EXPECT_EQ(smlab::app::serialize_session(odd_session()).find("\"class\""), std::string::npos)
      << "no class hosted: no field";
}

TEST(Session, DefaultsRoundTripAndMissingKeysMeanDefaults) {
  const auto defaults = smlab::app::parse_session(smlab::app::serialize_session(Session{}));
  ASSERT_TRUE(defaults) << defaults.error().message;
  EXPECT_EQ(*defaults, Session{});
  const auto sparse = smlab::app::parse_session(R"({"version": 1, "params": {"temperature": 0.5}})");
  ASSERT_TRUE(sparse) << sparse.error().message;
  Params expected;
  expected.temperature = 0.5;
  EXPECT_EQ(sparse->params, expected);
}

// A key with an escaped newline or other control character (found by fuzz_session) is named in
// the message without breaking it into two lines; a long UTF-8 name is cut at a character boundary.
TEST(Session, FieldNamesWithControlCharactersOrLongUtf8StayOneValidLine) {
  const auto newline = smlab::app::parse_session(R"({"version": 1, "params": {"a\\\nb\u0007c": 1}})");
  ASSERT_FALSE(newline);
  EXPECT_EQ(newline.error().message.find('\n'), std::string::npos) << newline.error().message;
  EXPECT_EQ(newline.error().message.find('\a'), std::string::npos) << newline.error().message;
  EXPECT_NE(newline.error().message.find("a\\?b?c"), std::string::npos) << newline.error().message;
  std::string wide;
  for (int k = 0; k < 30; ++k) wide += "温";  // 90 bytes
  const auto long_name = smlab::app::parse_session("{\"version\": 1, \"" + wide + "\": 1}");
  ASSERT_FALSE(long_name);
  const std::string& error = long_name.error().message;
  EXPECT_NE(error.find("温温温"), std::string::npos) << error;
  EXPECT_NE(error.find("…"), std::string::npos) << error;
  // Every "温" in the message is whole: its 3 bytes are E6 B8 A9, so no E6 or B8 stands alone.
  std::size_t count = 0;
  for (std::size_t at = error.find("温"); at != std::string::npos; at = error.find("温", at + 3)) ++count;
  EXPECT_EQ(count, 13u) << error;  // 40 bytes hold 13 whole characters
}

TEST(Session, BadFilesGiveOneLineNamingTheFieldAndNoSession) {
  struct Case {
    std::string json;
    std::string needle;
  };
  const std::string valid = smlab::app::serialize_session(odd_session());
  std::vector<Case> cases = {
      {valid.substr(0, valid.size() / 2), "JSON"},
      {"", "JSON"},
      {"[1, 2]", "object"},
      {R"({"params": {}})", "version"},
      {R"({"version": 2})", "version"},
      {R"({"version": "1"})", "version"},
      {R"({"version": 1, "params": []})", "params"},
      {R"({"version": 1, "params": {"temperature": [1]}})", "params.temperature"},
      {R"({"version": 1, "params": {"temperature": "1000"}})", "temperature"},
      {R"({"version": 1, "params": {"temperature": "abc"}})", "temperature"},
      {R"({"version": 1, "params": {"row": "20"}})", "row"},
      {R"({"version": 1, "params": {"scores": "1, nan"}})", "scores"},
      {R"({"version": 1, "params": {"bogus": "1"}})", "params.bogus"},
      {R"({"version": 1, "view": "nowhere"})", "view"},
      {R"({"version": 1, "view": 3})", "view"},
      {R"({"version": 1, "screenshot_dir": false})", "screenshot_dir"},
      {R"({"version": 1, "class": [1]})", "class"},
      {R"({"version": 1, "class": "K7P2QX"})", "class"},
      {std::string(100000, '[') + std::string(100000, ']'), "nests"},
      {R"({"version": 1, "x": ")" + std::string(smlab::app::session_max_bytes, 'a') + "\"}", "4 MB"},
  };
  for (const Case& c : cases) {
    const auto loaded = smlab::app::parse_session(c.json);
    const std::string shown = c.json.substr(0, 120);
    EXPECT_FALSE(loaded.ok()) << shown;
    EXPECT_TRUE(one_line(loaded.error().message)) << shown << "\n" << loaded.error().message;
    EXPECT_NE(loaded.error().message.find(c.needle), std::string::npos)
        << shown << "\nerror: " << loaded.error().message;
    EXPECT_EQ(loaded.error().kind, smlab::Error::Kind::usage) << shown << ": bad content is exit 2";
  }
}

// The kind decides the exit code (smlab::exit_code): a session that cannot be read is a file error
// (exit 3); one that reads but is bad or too large is a usage error (exit 2). Both name the path.
TEST_F(TempDir, UnreadableSessionIsAFileErrorAndBadContentAUsageError) {
  const auto folder = smlab::app::load_session(dir_);
  ASSERT_FALSE(folder.ok());
  EXPECT_EQ(folder.error().kind, smlab::Error::Kind::file) << folder.error().message;
  EXPECT_EQ(smlab::exit_code(folder.error().kind), 3);
  EXPECT_EQ(folder.error().message, "cannot read session '" + dir_.string() + "': is a directory");
  const fs::path bad = dir_ / "bad.json";
  std::ofstream(bad) << R"({"version": 1, "view": 3})";
  const auto content = smlab::app::load_session(bad);
  ASSERT_FALSE(content.ok());
  EXPECT_EQ(content.error().kind, smlab::Error::Kind::usage) << content.error().message;
  EXPECT_EQ(smlab::exit_code(content.error().kind), 2);
  EXPECT_EQ(content.error().message.rfind("'" + bad.string() + "': session field 'view'", 0), 0u)
      << content.error().message;
}

TEST_F(TempDir, SaveIsAtomicAndNeverOverwritesUnlessAsked) {
  const fs::path file = dir_ / "session.json";
  ASSERT_TRUE(smlab::app::save_session(file, odd_session(), false).ok());
  const std::string first = read_all(file);
  const auto refused = smlab::app::save_session(file, Session{}, false);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(read_all(file), first) << "an existing session was replaced without overwrite";
  ASSERT_TRUE(smlab::app::save_session(file, Session{}, true).ok());
  const auto loaded = smlab::app::load_session(file);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(*loaded, Session{});
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_TRUE(entry.path().filename() == "session.json" || entry.path().filename() == "stdout" ||
                entry.path().filename() == "stderr")
        << "left behind: " << entry.path();
}

TEST_F(TempDir, LoadFlagUsesTheSessionAndRejectsBadFilesWithExitCodes) {
  const fs::path file = dir_ / "session.json";
  Session session;
  session.params.scores = {200, 250};
  session.params.temperature = 25;
  ASSERT_TRUE(smlab::app::save_session(file, session, false).ok());
  const Outcome loaded = run({"--load", file.string(), "--export-csv", (dir_ / "csv").string()});
  ASSERT_EQ(loaded.exit_code, 0) << loaded.err;
  EXPECT_NE(read_all(dir_ / "csv" / "distribution.csv").find("250"), std::string::npos);

  std::ofstream(dir_ / "bad.json") << R"({"version": 1, "params": {"d_k": "0"}})";
  const Outcome bad = run({"--load", (dir_ / "bad.json").string(), "--screenshot", (dir_ / "x.png").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
  EXPECT_NE(bad.err.find("d_k"), std::string::npos) << bad.err;

  const Outcome missing = run({"--load", (dir_ / "none.json").string(), "--screenshot", (dir_ / "x.png").string()});
  EXPECT_EQ(missing.exit_code, 3) << missing.err;
  EXPECT_EQ(missing.err.find('\n'), missing.err.size() - 1) << missing.err;
  EXPECT_FALSE(fs::exists(dir_ / "x.png"));
}

// ---- the window's autosave (state/session.hpp [SECTION] autosave) ----

TEST(Autosave, SavedOnAPlainStartOrWhenTheWindowChangedSomething) {
  Session start;
  Session changed = start;
  changed.params.temperature = 0.5;
  EXPECT_TRUE(smlab::app::should_autosave(true, start, start)) << "a plain start always saves";
  EXPECT_FALSE(smlab::app::should_autosave(false, start, start)) << "--set and nothing changed: keep the autosave";
  EXPECT_TRUE(smlab::app::should_autosave(false, start, changed)) << "--set, then an edit in the window";
  Session relooked = start;
  relooked.theme = "projector";
  EXPECT_TRUE(smlab::app::should_autosave(false, start, relooked)) << "the look is part of the session";
}

TEST_F(TempDir, ARefusedAutosaveIsBackedUpBeforeItIsReplaced) {
  const fs::path file = dir_ / "session.json";
  const std::string garbage = R"({"version": 2, "params": {"temperature": "3"}})"
                              "\n";
  std::ofstream(file) << garbage;
  const auto now = std::chrono::system_clock::time_point{} + std::chrono::hours(24 * 365 * 56);
  fs::path backup;
  ASSERT_TRUE(smlab::app::write_autosave(file, odd_session(), true, now, &backup).ok());
  ASSERT_FALSE(backup.empty()) << "a session the app refuses was replaced without a backup";
  EXPECT_EQ(backup.parent_path(), dir_);
  EXPECT_EQ(backup.filename().string().rfind("session.json.bad-", 0), 0u) << backup;
  EXPECT_EQ(read_all(backup), garbage) << "the backup holds the refused file's bytes";
  const auto loaded = smlab::app::load_session(file);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(*loaded, odd_session());

  // A second backup in the same second gets its own name; a good file is not backed up.
  std::ofstream(file) << "not json";
  fs::path second;
  ASSERT_TRUE(smlab::app::write_autosave(file, Session{}, true, now, &second).ok());
  EXPECT_NE(second, backup);
  EXPECT_EQ(read_all(second), "not json");
  fs::path none;
  ASSERT_TRUE(smlab::app::write_autosave(file, Session{}, true, now, &none).ok());
  EXPECT_TRUE(none.empty()) << "a readable session needs no backup: " << none;
  // Told not to (the start-up already made one), it only saves.
  std::ofstream(file) << "not json";
  fs::path skipped;
  ASSERT_TRUE(smlab::app::write_autosave(file, Session{}, false, now, &skipped).ok());
  EXPECT_TRUE(skipped.empty());
}

TEST_F(TempDir, ASymlinkedAutosaveIsWrittenThroughToItsTarget) {
  fs::create_directories(dir_ / "dotfiles");
  fs::create_directories(dir_ / "config");
  const fs::path target = dir_ / "dotfiles" / "softmax.json";
  std::ofstream(target) << "{}";
  const fs::path link = dir_ / "config" / "session.json";
  fs::create_symlink("../dotfiles/softmax.json", link);
  const fs::path chained = dir_ / "config" / "chained.json";
  fs::create_symlink("session.json", chained);  // a link to the link

  EXPECT_EQ(*smlab::app::resolve_write_target(chained), dir_ / "config" / ".." / "dotfiles" / "softmax.json");
  ASSERT_TRUE(smlab::app::write_autosave(chained, odd_session(), false, std::chrono::system_clock::now()).ok());
  EXPECT_TRUE(fs::is_symlink(link)) << "the link was replaced by a regular file";
  EXPECT_TRUE(fs::is_symlink(chained));
  const auto loaded = smlab::app::load_session(target);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(*loaded, odd_session());

  // A dangling link whose folder exists: the target is created. One into a directory: refused.
  const fs::path dangling = dir_ / "config" / "dangling.json";
  fs::create_symlink("../dotfiles/new.json", dangling);
  ASSERT_TRUE(smlab::app::write_autosave(dangling, Session{}, false, std::chrono::system_clock::now()).ok());
  EXPECT_TRUE(fs::is_symlink(dangling));
  EXPECT_TRUE(fs::is_regular_file(dir_ / "dotfiles" / "new.json"));
  const fs::path to_folder = dir_ / "config" / "folder.json";
  fs::create_symlink("../dotfiles", to_folder);
  const auto refused = smlab::app::write_autosave(to_folder, Session{}, false, std::chrono::system_clock::now());
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(one_line(refused.error().message)) << refused.error().message;
  EXPECT_NE(refused.error().message.find("not a regular file"), std::string::npos) << refused.error().message;
  EXPECT_TRUE(fs::is_symlink(to_folder));
  // A loop is an error, not a hang.
  fs::create_symlink("loop-b.json", dir_ / "config" / "loop-a.json");
  fs::create_symlink("loop-a.json", dir_ / "config" / "loop-b.json");
  EXPECT_FALSE(smlab::app::resolve_write_target(dir_ / "config" / "loop-a.json").ok());
}

}  // namespace

// The heatmaps' fixed/auto colour scales travel in the session; bad names and values
// are refused with one line naming them.
TEST(Session, ColorScalesRoundTripAndBadEntriesAreRefused) {
  Session original;
  original.color_scales = std::map<std::string, smlab::plot::ColorScale, std::less<>>{
      {"gradients/jacobian", smlab::plot::ColorScale::Auto}, {"dashboard/attention", smlab::plot::ColorScale::Fixed}};
  const std::string text = smlab::app::serialize_session(original);
  EXPECT_NE(text.find("\"gradients/jacobian\": \"auto\""), std::string::npos) << text;
  const auto loaded = smlab::app::parse_session(text);
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(loaded->color_scales, original.color_scales);
  const auto absent = smlab::app::parse_session(R"({"version": 1})");
  ASSERT_TRUE(absent) << absent.error().message;
  EXPECT_FALSE(absent->color_scales.has_value());  // absent: the app keeps its choices
  for (const auto& [json, phrase] : std::vector<std::pair<std::string, std::string>>{
           {R"({"version": 1, "color_scales": {"gradients/jacobian": "vivid"}})", "allowed \"fixed\" or \"auto\""},
           {R"({"version": 1, "color_scales": {"Bad Key": "auto"}})", "heatmap name 'Bad Key'"},
           {R"({"version": 1, "color_scales": ["auto"]})", "is not an object"},
           {R"({"version": 1, "color_scales": {"a": 1}})", "allowed \"fixed\" or \"auto\""}}) {
    const auto refused = smlab::app::parse_session(json);
    EXPECT_FALSE(refused) << json;
    EXPECT_NE(refused.error().message.find(phrase), std::string::npos) << refused.error().message;
    EXPECT_EQ(refused.error().message.find('\n'), std::string::npos) << refused.error().message;
  }
}
