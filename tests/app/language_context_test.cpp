// Language belongs to whoever draws ("Globals"): two Apps in one process, drawn
// alternately in different languages, each draw in their own; an export in another language
// (a zh-CN PNG or SVG while the window is English, a window's own PNG export) changes no App's
// language; i18n::Use is per thread and nests.
#include <gtest/gtest.h>

#include <imgui.h>
#include <imgui_internal.h>  // ImGuiContext::TabBars: the labels the last frame gave the view tabs

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <set>
#include <string>
#include <thread>
#include <unistd.h>

#include "frame/app.hpp"
#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "platform/offscreen.hpp"
#include "export/plot_export.hpp"
#include "headless_support.hpp"
#include "frame/offscreen_app.hpp"
#include "smlab/evaluate.hpp"
#include "state/presets.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;
using i18n::Language;

// The view tabs' labels ("title###name") as `surface`'s App drew them in its last frame.
std::set<std::string> drawn_tab_labels(const platform::Surface& surface) {
  std::set<std::string> labels;
  ImGuiContext* context = surface.imgui_context();
  for (int n = 0; n < context->TabBars.GetMapSize(); ++n)
    if (ImGuiTabBar* bar = context->TabBars.TryGetMapData(n))
      for (const ImGuiTabItem& tab : bar->Tabs) labels.insert(bar->GetTabName(&tab));
  return labels;
}

// The labels every view tab has in `language`, straight from the table file (not through tr()).
std::set<std::string> expected_tab_labels(Language language) {
  const i18n::TableResult table =
      i18n::load_table(find_assets_dir() / "i18n" / (language == Language::Chinese ? "zh-CN.json" : "en.json"));
  if (!table.ok()) {
    ADD_FAILURE() << table.error().message;
    return {};
  }
  std::set<std::string> labels;
  for (const ViewInfo& info : all_views()) {
    const LabDefinition* lab = lab_definition(info.view);
    const auto found = table->find(lab != nullptr ? lab->title_key : "dashboard.title");
    EXPECT_NE(found, table->end()) << info.name;
    if (found != table->end()) labels.insert(found->second + "###" + std::string(info.name));
  }
  return labels;
}

class LanguageContext : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("DISPLAY");
    ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());
    english_ = expected_tab_labels(Language::English);
    chinese_ = expected_tab_labels(Language::Chinese);
    ASSERT_EQ(english_.size(), all_views().size());
    ASSERT_EQ(chinese_.size(), all_views().size());
    ASSERT_NE(english_, chinese_) << "the check below could not tell the languages apart";
  }
  static std::unique_ptr<platform::Offscreen> surface() {
    platform::OffscreenOptions options;
    options.width = 1024;
    options.height = 640;
    auto created = platform::Offscreen::create(options);
    EXPECT_TRUE(created) << created.error().message;
    return created ? std::move(*created) : nullptr;
  }
  static AppOptions options(Language language) {
    AppOptions options;
    options.language = language;
    options.params.seq_len = 8;
    options.refine_trials = 50;
    return options;
  }
  std::set<std::string> english_, chinese_;
};

TEST_F(LanguageContext, TwoAppsDrawnAlternatelyEachDrawInTheirOwnLanguage) {
  auto english_surface = surface(), chinese_surface = surface();
  ASSERT_TRUE(english_surface && chinese_surface);
  App english(*english_surface, options(Language::English));
  App chinese(*chinese_surface, options(Language::Chinese));  // made second: the newest language
  ASSERT_TRUE(chinese.language_warning().empty()) << chinese.language_warning();
  english.wait_for_snapshot();
  chinese.wait_for_snapshot();
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(english.frame());
    EXPECT_EQ(drawn_tab_labels(*english_surface), english_) << "round " << round << ": the English App";
    ASSERT_TRUE(chinese.frame());
    EXPECT_EQ(drawn_tab_labels(*chinese_surface), chinese_) << "round " << round << ": the Chinese App";
  }
  // One switches at run time (its language combo): the other stays as it was.
  english.ui().language = Language::Chinese;
  chinese.ui().language = Language::English;
  for (int round = 0; round < 2; ++round) {
    ASSERT_TRUE(chinese.frame());
    ASSERT_TRUE(english.frame());
  }
  EXPECT_EQ(drawn_tab_labels(*english_surface), chinese_) << "the first App, switched to Chinese";
  EXPECT_EQ(drawn_tab_labels(*chinese_surface), english_) << "the second App, switched to English";
}

TEST_F(LanguageContext, ExportsInAnotherLanguageLeaveTheWindowsLanguageAlone) {
  auto window_surface = surface();
  ASSERT_TRUE(window_surface);
  App window(*window_surface, options(Language::English));
  window.wait_for_snapshot();
  ASSERT_TRUE(window.frame());
  ASSERT_EQ(drawn_tab_labels(*window_surface), english_);

  // A zh-CN PNG of the same state (what --screenshot --lang zh-CN renders), made while the English
  // window is open: the window's next frame is English.
  const ScaledShot shot = render_scaled_screenshot(options(Language::Chinese), 640, 400, 1.0f, 1.0f, "");
  ASSERT_TRUE(shot.ok()) << shot.error().message;
  ImGui::SetCurrentContext(window_surface->imgui_context());
  ASSERT_TRUE(window.frame());
  EXPECT_EQ(drawn_tab_labels(*window_surface), english_) << "after a zh-CN PNG export";

  // The window's own PNG export (the Export PNG button) renders a copy in the window's language and
  // leaves the window in it: a Chinese window here.
  const fs::path dir = fs::temp_directory_path() / ("smlab-language-context-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  {
    auto chinese_surface = surface();
    ASSERT_TRUE(chinese_surface);
    AppOptions chinese_options = options(Language::Chinese);
    chinese_options.screenshot_dir = dir.string();
    App chinese(*chinese_surface, chinese_options);
    chinese.wait_for_snapshot();
    ASSERT_TRUE(chinese.frame());
    chinese.ui().interaction.commands.push(Command::export_png);
    ASSERT_TRUE(chinese.frame());                               // exports after it is rendered
    ASSERT_TRUE(test_support::frames_until_exported(chinese));  // a step a frame, then written
    ASSERT_TRUE(chinese.frame());
    EXPECT_EQ(drawn_tab_labels(*chinese_surface), chinese_) << "after its own PNG export";
    EXPECT_FALSE(fs::is_empty(dir)) << "no PNG was saved: " << chinese.ui().status;
    ASSERT_TRUE(window.frame());
    EXPECT_EQ(drawn_tab_labels(*window_surface), english_) << "after the Chinese App's export";
  }
  fs::remove_all(dir);
}

// The SVG export takes its language as an argument: a zh-CN set of files while this thread draws
// in English, and English CSV series while it draws in Chinese; the thread's language is kept.
TEST_F(LanguageContext, SvgExportTakesItsLanguageAndKeepsTheCallers) {
  EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  evaluate_options.dk_trials = 64;
  const Snapshot snapshot = *evaluate(Params{}, evaluate_options);
  const fs::path dir = fs::temp_directory_path() / ("smlab-language-svg-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "zh");
  fs::create_directories(dir / "en");
  const i18n::Use english(Language::English);
  ASSERT_TRUE(exporting::export_svg(snapshot, dir / "zh", false, plot::light_style(), Language::Chinese).ok());
  EXPECT_EQ(i18n::language(), Language::English);
  ASSERT_TRUE(exporting::export_svg(snapshot, dir / "en", false, plot::light_style(), Language::English).ok());
  std::string chinese_svg, english_svg;
  for (const auto& entry : fs::directory_iterator(dir / "zh")) {
    std::ifstream in(entry.path());
    chinese_svg.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  for (const auto& entry : fs::directory_iterator(dir / "en")) {
    std::ifstream in(entry.path());
    english_svg.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const i18n::TableResult zh = i18n::load_table(find_assets_dir() / "i18n" / "zh-CN.json");
  ASSERT_TRUE(zh.ok()) << zh.error().message;
  const std::string& title = zh->at("plot.entropy_t.title");
  EXPECT_NE(chinese_svg.find(title), std::string::npos) << "the zh-CN SVGs lack " << title;
  EXPECT_EQ(english_svg.find(title), std::string::npos) << "the English SVGs hold " << title;
  fs::remove_all(dir);
}

TEST_F(LanguageContext, UseIsPerThreadAndNests) {
  i18n::clear_reads_outside_use();
  {
    const i18n::Use chinese(Language::Chinese);
    EXPECT_EQ(i18n::language(), Language::Chinese);
    {
      const i18n::Use english(Language::English);
      EXPECT_STREQ(i18n::tr("controls.temperature"), "temperature");
    }
    EXPECT_EQ(i18n::language(), Language::Chinese) << "an inner Use restores the outer one";
    EXPECT_STRNE(i18n::tr("controls.temperature"), "temperature");
    // Another thread is not inside this thread's Use: English, and counted as an implicit read.
    Language seen = Language::Chinese;
    std::thread([&seen] { seen = i18n::language(); }).join();
    EXPECT_EQ(seen, Language::English);
    EXPECT_EQ(i18n::reads_outside_use(), 1u);
  }
  i18n::clear_reads_outside_use();
}

}  // namespace
}  // namespace smlab::app
