// Headless rendering of the dashboard (EGL, no display): the image has the asked
// size, none of the four plot areas is blank, and moving the temperature changes
// the distribution and the heatmaps.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <set>

#include "frame/app.hpp"
#include "panels/panels.hpp"
#include "platform/offscreen.hpp"

namespace smlab::app {
namespace {

struct Region {
  int x0, y0, x1, y1;
};

Region region_of(ImVec2 min, ImVec2 max) {
  return {static_cast<int>(min.x), static_cast<int>(min.y), static_cast<int>(max.x), static_cast<int>(max.y)};
}

// Distinct colours in a region, and the standard deviation of its luminance: a
// blank (single-colour) panel has 1 colour and deviation 0.
struct Content {
  std::size_t colours = 0;
  double luminance_deviation = 0.0;
};

Content content_of(const Image& image, Region r) {
  std::set<std::uint32_t> colours;
  double sum = 0, sum_sq = 0;
  int count = 0;
  for (int y = r.y0; y < r.y1; ++y)
    for (int x = r.x0; x < r.x1; ++x) {
      const Rgba8 p = image.pixel(x, y);
      colours.insert(static_cast<std::uint32_t>(p.r) << 16 | static_cast<std::uint32_t>(p.g) << 8 | p.b);
      const double luminance = 0.2126 * p.r + 0.7152 * p.g + 0.0722 * p.b;
      sum += luminance;
      sum_sq += luminance * luminance;
      ++count;
    }
  const double mean = sum / count;
  return {colours.size(), std::sqrt(std::max(0.0, sum_sq / count - mean * mean))};
}

// Fraction of pixels that differ between two renders inside a region.
double changed_fraction(const Image& a, const Image& b, Region r) {
  int changed = 0, total = 0;
  for (int y = r.y0; y < r.y1; ++y)
    for (int x = r.x0; x < r.x1; ++x, ++total) changed += !(a.pixel(x, y) == b.pixel(x, y));
  return static_cast<double>(changed) / total;
}

class Render : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("DISPLAY");
    platform::OffscreenOptions options;
    options.width = 1600;
    options.height = 900;
    auto created = platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created);
  }

  Image render(App& app) {
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();
    return surface_->capture();
  }

  std::unique_ptr<platform::Offscreen> surface_;
};

TEST_F(Render, DashboardHasSizeAndFourNonBlankPlots) {
  AppOptions options;
  options.params.temperature = 0.3;
  options.params.key_dim = 64;
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  App app(*surface_, options);
  const Image image = render(app);
  ASSERT_EQ(image.width, 1600);
  ASSERT_EQ(image.height, 900);
  const DashboardLayout layout = dashboard_layout(ImVec2(1600, 900), 1.0f);
  ASSERT_EQ(app.ui().placed_plots.size(), 6u);
  for (const PlacedPlot& placed : app.ui().placed_plots) {
    const Content c = content_of(image, region_of(placed.min, placed.max));
    EXPECT_GT(c.colours, 20u) << placed.name << " looks blank";
    EXPECT_GT(c.luminance_deviation, 5.0) << placed.name << " looks blank";
  }
  const Content controls = content_of(image, region_of(layout.controls_min, layout.controls_max));
  EXPECT_GT(controls.colours, 10u) << "control column looks blank";
}

TEST_F(Render, TemperatureChangesDistributionAndHeatmaps) {
  AppOptions options;
  options.params.temperature = 1.0;
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  App app(*surface_, options);
  const Image warm = render(app);
  Params colder = app.ui().params;
  colder.temperature = 0.05;
  ASSERT_TRUE(apply_params(app.ui(), colder));
  const Image cold = render(app);
  const auto region = [&](std::string_view name) {
    for (const PlacedPlot& placed : app.ui().placed_plots)
      if (placed.name == name) return region_of(placed.min, placed.max);
    ADD_FAILURE() << name << " not placed";
    return Region{0, 0, 1, 1};
  };
  const double distribution = changed_fraction(warm, cold, region("dashboard/distribution"));
  const double attention = changed_fraction(warm, cold, region("dashboard/attention_scaled"));
  EXPECT_GT(distribution, 0.01) << "distribution did not change with T";
  EXPECT_GT(attention, 0.05) << "heatmaps did not change with T";
}

}  // namespace
}  // namespace smlab::app
