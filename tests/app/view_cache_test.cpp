// The shown view's plots are built once per Snapshot, not per frame: frames where
// nothing changed build nothing, and a new Snapshot, colour-scale choice, language or pin builds
// the view again (ViewCache::builds, through App::view_builds). Headless EGL, as render_test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "frame/app.hpp"
#include "panels/labs.hpp"
#include "platform/offscreen.hpp"
#include "smlab/evaluate.hpp"

namespace smlab::app {
namespace {

class ViewBuilds : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("DISPLAY");
    platform::OffscreenOptions options;
    options.width = 1280;
    options.height = 720;
    auto created = platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created);
  }

  // Until everything submitted (the Snapshot and its d_k refinement) is drawn.
  static void settle(App& app) {
    for (int round = 0; round < 3; ++round) {
      app.wait_for_snapshot();
      app.frame();
    }
  }

  // Builds during `frames` frames with no input: must be none.
  static std::uint64_t builds_over(App& app, int frames) {
    const std::uint64_t before = app.view_builds();
    for (int frame = 0; frame < frames; ++frame) app.frame();
    return app.view_builds() - before;
  }

  static AppOptions options_for(View view) {
    AppOptions options;
    options.params.temperature = 0.5;
    options.params.seq_len = 24;
    options.view = view;
    options.refine_trials = headless_refine_trials(options.params.seq_len);
    return options;
  }

  std::unique_ptr<platform::Offscreen> surface_;
};

TEST_F(ViewBuilds, DashboardIsBuiltOnceAndRebuiltOnlyWhenItsInputsChange) {
  App app(*surface_, options_for(View::dashboard));
  settle(app);
  ASSERT_GE(app.view_builds(), 1u) << "the dashboard was drawn, so it was built";
  ASSERT_EQ(app.ui().placed_plots.size(), 6u);
  EXPECT_EQ(builds_over(app, 5), 0u) << "frames where nothing changed rebuilt the dashboard";
  EXPECT_EQ(app.ui().placed_plots.size(), 6u) << "the cached plots are still drawn";

  // A new Snapshot (another temperature): built again, then left alone.
  Params colder = app.ui().params;
  colder.temperature = 0.1;
  ASSERT_TRUE(apply_params(app.ui(), colder));
  std::uint64_t before = app.view_builds();
  settle(app);
  EXPECT_GT(app.view_builds(), before) << "a new Snapshot did not rebuild the dashboard";
  EXPECT_EQ(app.shown_params().temperature, 0.1);
  EXPECT_EQ(builds_over(app, 3), 0u);

  // Another colour-scale choice for the attention maps: rebuilt once.
  const bool was_fixed =
      app.ui().interaction.color_scales.scale("dashboard/attention", plot::ColorScale::Auto) == plot::ColorScale::Fixed;
  app.ui().interaction.color_scales.chosen["dashboard/attention"] =
      was_fixed ? plot::ColorScale::Auto : plot::ColorScale::Fixed;
  before = app.view_builds();
  app.frame();
  app.frame();
  EXPECT_EQ(app.view_builds(), before + 1) << "a colour-scale choice rebuilds the view once";
  EXPECT_EQ(builds_over(app, 3), 0u);

  // Another language (labels are baked into the plots): rebuilt once.
  app.ui().language = i18n::Language::Chinese;
  before = app.view_builds();
  app.frame();
  app.frame();
  EXPECT_EQ(app.view_builds(), before + 1) << "a language change rebuilds the view once";
  EXPECT_EQ(builds_over(app, 3), 0u);
  app.ui().language = i18n::Language::English;
  app.frame();

  // A pin (its ghosts are drawn in the dashboard's plots): rebuilt, and a sixth plus one map.
  Params hot = app.ui().params;
  hot.temperature = 2.0;
  ASSERT_TRUE(add_pin(app.ui().pins, hot).ok());
  before = app.view_builds();
  app.frame();
  EXPECT_GT(app.view_builds(), before) << "a new pin did not rebuild the dashboard";
  EXPECT_EQ(app.ui().placed_plots.size(), 7u) << "the pin's map is drawn beside the live ones";
  EXPECT_EQ(builds_over(app, 3), 0u);
}

// A pin's map past 64² cells (which the grid does not paint cell by cell) gets a texture from the
// build, as the live maps have: it used to show "no texture". Its cells are the pin's Snapshot's.
TEST_F(ViewBuilds, APinsMapHasATextureAtAnyLength) {
  AppOptions options = options_for(View::dashboard);
  options.params.seq_len = 128;
  Params warm = options.params;
  warm.temperature = 2.0;
  options.pins = {{"warm", warm}};
  App app(*surface_, options);
  settle(app);
  ASSERT_NE(app.shown_view(), nullptr);
  const NamedPlot* pin_map = nullptr;
  for (const NamedPlot& named : app.shown_view()->plots)
    if (named.name == "pin-1") pin_map = &named;
  ASSERT_NE(pin_map, nullptr) << "the pin's map is in the dashboard's view";
  ASSERT_TRUE(pin_map->plot.heatmap.has_value());
  EXPECT_EQ(pin_map->plot.heatmap->rows, 128);
  EXPECT_NE(pin_map->plot.heatmap->texture, 0u) << "the pin's map is drawn without a texture";
  EXPECT_EQ(builds_over(app, 3), 0u) << "the pin's texture is made once, not every frame";
}

TEST_F(ViewBuilds, LabIsBuiltOnceAndRebuiltOnANewSnapshotOrView) {
  App app(*surface_, options_for(View::heads));
  settle(app);
  ASSERT_GE(app.view_builds(), 1u);
  ASSERT_FALSE(app.ui().placed_plots.empty());
  EXPECT_EQ(builds_over(app, 5), 0u) << "frames where nothing changed rebuilt the heads lab";

  Params more_heads = app.ui().params;
  more_heads.heads = app.ui().params.heads == 2 ? 3 : 2;
  ASSERT_TRUE(apply_params(app.ui(), more_heads));
  std::uint64_t before = app.view_builds();
  settle(app);
  EXPECT_GT(app.view_builds(), before) << "a new Snapshot did not rebuild the lab";
  EXPECT_EQ(builds_over(app, 3), 0u);

  app.ui().view = View::gradients;
  app.ui().select_view_tab = true;  // as --view does: the tab bar follows ui.view
  before = app.view_builds();
  settle(app);
  EXPECT_GT(app.view_builds(), before) << "another view was not built";
  EXPECT_EQ(builds_over(app, 3), 0u);
}

}  // namespace
}  // namespace smlab::app
