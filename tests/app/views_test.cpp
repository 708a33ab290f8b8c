// Every view (dashboard and labs) renders headless with none of its plots blank,
// and every lab's CSV from the command line equals the core's numbers for the
// same Params, computed here in-process.
#include <gtest/gtest.h>

#include "platform/gl_check.hpp"
#include "cli_support.hpp"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>

#include "frame/app.hpp"
#include "lessons/lessons.hpp"
#include "export/plot_export.hpp"
#include "panels/labs.hpp"
#include "platform/offscreen.hpp"
#include "smlab/evaluate.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;
using cli_test::read_all;

// Distinct colours and luminance spread inside [min, max): a blank (one-colour)
// region has 1 colour and spread 0.
struct Content {
  std::size_t colours = 0;
  double luminance_deviation = 0.0;
};

Content content_of(const Image& image, ImVec2 min, ImVec2 max) {
  std::set<std::uint32_t> colours;
  double sum = 0, sum_sq = 0;
  int count = 0;
  const int x0 = std::max(0, static_cast<int>(min.x)), y0 = std::max(0, static_cast<int>(min.y));
  const int x1 = std::min(image.width, static_cast<int>(max.x)), y1 = std::min(image.height, static_cast<int>(max.y));
  for (int y = y0; y < y1; ++y)
    for (int x = x0; x < x1; ++x) {
      const Rgba8 p = image.pixel(x, y);
      colours.insert(static_cast<std::uint32_t>(p.r) << 16 | static_cast<std::uint32_t>(p.g) << 8 | p.b);
      const double luminance = 0.2126 * p.r + 0.7152 * p.g + 0.0722 * p.b;
      sum += luminance;
      sum_sq += luminance * luminance;
      ++count;
    }
  if (count == 0) return {};
  const double mean = sum / count;
  return {colours.size(), std::sqrt(std::max(0.0, sum_sq / count - mean * mean))};
}

class Views : public ::testing::TestWithParam<View> {};

TEST_P(Views, RendersWithNoBlankPlot) {
  ::unsetenv("DISPLAY");
  // Counted only where checks are compiled in (Debug, and the sanitizer stage of `make test`).
  const std::uint64_t gl_errors_before = platform::gl_error_count();
  auto created = platform::Offscreen::create({});
  ASSERT_TRUE(created) << created.error().message;
  AppOptions options;
  options.view = GetParam();
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  App app(**created, options);
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  const Image image = (*created)->capture();
  const std::string view_name(view_info(GetParam()).name);
  const auto& placed = app.ui().placed_plots;
  ASSERT_FALSE(placed.empty()) << view_name << " drew no plots";
  for (const PlacedPlot& plot : placed) {
    EXPECT_EQ(plot.name.rfind(view_name + "/", 0), 0u) << plot.name << " drawn on the " << view_name << " view";
    EXPECT_GT(plot.max.x - plot.min.x, 100.0f) << plot.name << " is too narrow to read";
    EXPECT_GT(plot.max.y - plot.min.y, 100.0f) << plot.name << " is too short to read";
    const Content content = content_of(image, plot.min, plot.max);
    EXPECT_GT(content.colours, 8u) << plot.name << " looks blank";
    EXPECT_GT(content.luminance_deviation, 4.0) << plot.name << " looks blank";
  }
  EXPECT_EQ(platform::gl_error_count(), gl_errors_before) << view_name << " raised GL errors (see stderr)";
}

INSTANTIATE_TEST_SUITE_P(AllViews, Views,
                         ::testing::Values(View::dashboard, View::normalizers, View::stability, View::temperature,
                                           View::scaling, View::gradients, View::attention_variants, View::positions,
                                           View::heads),
                         [](const ::testing::TestParamInfo<View>& info) {
                           std::string name(view_info(info.param).name);
                           for (char& c : name) c = (c == '-') ? '_' : c;
                           return name;
                         });

// The command line (another process) and the core in this process agree byte for
// byte on every lab's numbers: the export is the core's result, nothing else.
TEST(LabCsv, CommandLineExportEqualsCoreNumbers) {
  const fs::path dir = fs::temp_directory_path() / ("smlab-labcsv-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const std::string command = std::string("'") + SMLAB_BINARY + "' --export-csv '" + dir.string() +
                              "' --set temperature=0.7 --set seq_len=24 --set heads=3 >/dev/null";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;

  Params params;
  ASSERT_TRUE(set_param(params, "temperature", "0.7").ok());
  ASSERT_TRUE(set_param(params, "seq_len", "24").ok());
  ASSERT_TRUE(set_param(params, "heads", "3").ok());
  EvaluateOptions options;
  options.all_labs = true;
  options.dk_trials = headless_refine_trials(params.seq_len);
  const Snapshot snapshot = *evaluate(params, options);
  int compared = 0;
  for (const ViewInfo& info : all_views()) {
    const LabDefinition* lab = lab_definition(info.view);
    if (lab == nullptr) continue;
    const LabView view = lab->build(LabInputs{snapshot, snapshot.dk_sweep, nullptr});
    EXPECT_FALSE(view.plots.empty()) << info.name << " has no plots";
    EXPECT_FALSE(view.explanation.empty()) << info.name << " has no explanation";
    for (const NamedPlot& named : view.plots) {
      const fs::path file = dir / (std::string(info.name) + "-" + named.name + ".csv");
      ASSERT_TRUE(fs::exists(file)) << file;
      EXPECT_EQ(read_all(file), exporting::plot_to_csv(named.plot)) << file;
      ++compared;
    }
  }
  EXPECT_GE(compared, 8);
  fs::remove_all(dir);
}

// The registry: each view with numbers of its own (core's table) has exactly one app row and
// the other way round, and evaluate() fills exactly the shown view's slot of Snapshot::labs.
TEST(LabRegistry, CoreAndAppRowsMatchAndEachViewGetsItsOwnResult) {
  std::set<View> app_views;
  for (const LabDefinition* lab : lab_definitions()) {
    EXPECT_TRUE(app_views.insert(lab->view).second) << view_info(lab->view).name << " is registered twice";
    EXPECT_EQ(lab_definition(lab->view), lab);
    EXPECT_NE(view_info(lab->view).evaluate, nullptr) << view_info(lab->view).name << " has no core evaluator";
    EXPECT_FALSE(lesson_panels(lab->view).empty()) << view_info(lab->view).name << " has no lesson panels";
  }
  Params params;
  params.seq_len = 12;
  for (const ViewInfo& info : all_views()) {
    EXPECT_EQ(info.evaluate != nullptr, app_views.count(info.view) == 1) << info.name;
    EvaluateOptions options;
    options.view = info.view;
    options.dk_trials = 4;
    const Snapshot snapshot = *evaluate(params, options);
    EXPECT_TRUE(lab_ready(snapshot, info.view)) << info.name;
    for (const ViewInfo& other : all_views()) {
      if (other.view != info.view) {
        EXPECT_FALSE(snapshot.labs.has(other.view)) << info.name << " also filled " << other.name;
      }
    }
  }
}

}  // namespace
}  // namespace smlab::app
