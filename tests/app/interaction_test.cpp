// Interaction features: undo/redo history, slider nudges, the sweep player, colormaps, scaled and
// per-panel screenshots on the command line, and the session's look fields.
#include <gtest/gtest.h>

#include <stb_image.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <mutex>
#include <condition_variable>
#include <optional>
#include <filesystem>
#include <fstream>
#include <string>
#include <chrono>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "xvfb_display.hpp"
#include "headless_support.hpp"
#include "frame/app.hpp"
#include "export/png.hpp"
#include "frame/offscreen_app.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/pointer_gestures.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/softmax.hpp"
#include "state/presets.hpp"
#include "platform/frame_settle.hpp"
#include "platform/offscreen.hpp"
#include "platform/window.hpp"
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>
#include <imgui_internal.h>  // the open popup stack: is a menu still drawn?
#include "state/sweep.hpp"
#include "plot/color.hpp"
#include "state/history.hpp"
#include "state/nudge.hpp"
#include "state/session.hpp"
#include "state/sweep_player.hpp"

namespace {

namespace fs = std::filesystem;
namespace plot = smlab::plot;
using smlab::Params;
using smlab::Snapshot;
using namespace smlab::app;

Params with_temperature(double temperature) {
  Params params;
  params.temperature = temperature;
  return params;
}

// [SECTION] History

TEST(History, AWholeDragIsOneEntry) {
  History history;
  history.reset(with_temperature(1.0));
  // Twenty frames of a drag: the value moves every frame while the slider is held.
  for (int frame = 1; frame <= 20; ++frame) history.observe(with_temperature(1.0 + 0.1 * frame), true);
  EXPECT_EQ(history.undo_size(), 0u) << "nothing is recorded while the slider is held";
  history.observe(with_temperature(3.0), false);  // released
  history.observe(with_temperature(3.0), false);  // later frames without change
  EXPECT_EQ(history.undo_size(), 1u);
  const auto undone = history.undo();
  ASSERT_TRUE(undone);
  EXPECT_EQ(undone->temperature, 1.0) << "undo returns to the value before the drag, not a frame inside it";
}

TEST(History, UndoAndRedoWalkBackAndForthInOrder) {
  History history;
  history.reset(with_temperature(1.0));
  for (double t : {2.0, 3.0, 4.0}) history.observe(with_temperature(t), false);
  ASSERT_EQ(history.undo_size(), 3u);
  std::vector<double> seen;
  while (auto state = history.undo()) seen.push_back(state->temperature);
  EXPECT_EQ(seen, (std::vector<double>{3.0, 2.0, 1.0}));
  EXPECT_FALSE(history.undo());
  seen.clear();
  while (auto state = history.redo()) seen.push_back(state->temperature);
  EXPECT_EQ(seen, (std::vector<double>{2.0, 3.0, 4.0}));
  EXPECT_FALSE(history.can_redo());
}

TEST(History, ShowingAnUndoneStateRecordsNothingAndANewEditDropsRedo) {
  History history;
  history.reset(with_temperature(1.0));
  history.observe(with_temperature(2.0), false);
  history.observe(with_temperature(3.0), false);
  const auto shown = history.undo();
  ASSERT_TRUE(shown);
  history.observe(*shown, false);  // the app shows the undone state on the next frame
  EXPECT_EQ(history.undo_size(), 1u);
  EXPECT_EQ(history.redo_size(), 1u);
  history.observe(with_temperature(7.0), false);  // a new edit
  EXPECT_FALSE(history.can_redo());
  EXPECT_EQ(history.undo()->temperature, 2.0);
}

TEST(History, IsBoundedAndDropsTheOldestSteps) {
  History history(5);
  history.reset(with_temperature(1.0));
  for (int step = 2; step <= 20; ++step) history.observe(with_temperature(step), false);
  EXPECT_EQ(history.undo_size(), 5u);
  double oldest = 0.0;
  while (auto state = history.undo()) oldest = state->temperature;
  EXPECT_EQ(oldest, 15.0) << "the five newest steps lead back to 15";
}

TEST(History, CustomScoresAndPresetsAreStepsLikeSliders) {
  History history;
  Params params;
  history.reset(params);
  params.scores = {1.0, 2.0, 3.0};
  history.observe(params, false);
  Params preset;
  preset.temperature = 0.1;
  preset.key_dim = 512;
  history.observe(preset, false);
  EXPECT_EQ(history.undo()->scores, (std::vector<double>{1.0, 2.0, 3.0}));
  EXPECT_TRUE(history.undo()->scores.empty());
}

// [SECTION] Nudges

TEST(Nudge, EveryKeyStaysInRangeAfterManyNotchesEitherWay) {
  for (const SliderNotch& notch : slider_notches()) {
    for (int direction : {+1, -1}) {
      Params params;
      // The seed's range (2^53) is too long to walk: start a few notches from its end. So is the
      // training lab's step goal (0 to 100000, an integer: a notch is one step).
      params.seed = direction > 0 ? smlab::ParamLimits::seed_max - 25 : 25;
      params.training.steps = direction > 0 ? smlab::TrainingLimits::steps_max - 25 : 25;
      for (int press = 0; press < 1000; ++press) nudge_param(params, notch.key, direction * big_notch);
      EXPECT_TRUE(smlab::validate(params).ok()) << notch.key << " direction " << direction;
      // At the end of the range a further nudge changes nothing.
      Params again = params;
      EXPECT_FALSE(nudge_param(again, notch.key, direction))
          << notch.key << " " << *smlab::get_param(params, notch.key);
    }
  }
}

TEST(Nudge, LogSlidersMultiplyIntegerSlidersStepByOne) {
  Params params;
  ASSERT_TRUE(nudge_param(params, "temperature", 1));
  EXPECT_NEAR(params.temperature, log_notch_factor, 1e-12);
  ASSERT_TRUE(nudge_param(params, "temperature", -20));
  EXPECT_NEAR(params.temperature, 0.1 * log_notch_factor, 1e-12) << "20 notches are one decade";
  ASSERT_TRUE(nudge_param(params, "d_k", 1));
  EXPECT_EQ(params.key_dim, 65);
  ASSERT_TRUE(nudge_param(params, "d_k", -big_notch));
  EXPECT_EQ(params.key_dim, 55);
  Params linear;
  ASSERT_TRUE(nudge_param(linear, "nudge", 3));
  EXPECT_DOUBLE_EQ(linear.nudge, 0.15);
}

TEST(Nudge, RowIsBoundedBySequenceLengthAndAmplitudeLeavesZero) {
  Params params;
  params.seq_len = 4;
  params.row = 3;
  EXPECT_FALSE(nudge_param(params, "row", 1)) << "row stays below L";
  EXPECT_EQ(params.row, 3);
  params.pe_amplitude = 0.0;
  ASSERT_TRUE(nudge_param(params, "pe_amplitude", 1));
  EXPECT_GT(params.pe_amplitude, 0.0);
  ASSERT_TRUE(nudge_param(params, "pe_amplitude", -1));
  EXPECT_EQ(params.pe_amplitude, 0.0);
  EXPECT_FALSE(nudge_param(params, "scores", 1)) << "not a slider";
}

// [SECTION] Sweep player

SweepSpec spec_of(const std::string& text) {
  auto parsed = parse_sweep(text, Params{});
  EXPECT_TRUE(parsed) << text;
  return parsed ? *parsed : SweepSpec{};
}

TEST(SweepPlayer, LogSweepStartsAtFromReachesToAndPassesTheGeometricMean) {
  SweepPlayer player;
  player.start(spec_of("temperature=0.05:20:log"), 4.0);
  EXPECT_EQ(player.advance(0.0), "0.050000000000000003");  // FROM exactly
  EXPECT_NEAR(std::stod(player.advance(2.0)), std::sqrt(0.05 * 20.0), 1e-9) << "halfway in log space";
  EXPECT_EQ(std::stod(player.advance(2.0)), 20.0) << "TO exactly after one pass";
}

TEST(SweepPlayer, LinearSweepBouncesBackAndLoops) {
  SweepPlayer player;
  player.start(spec_of("nudge=-2:2"), 2.0);
  EXPECT_DOUBLE_EQ(std::stod(player.advance(1.0)), 0.0);  // halfway up
  EXPECT_DOUBLE_EQ(std::stod(player.advance(1.5)), 1.0);  // 2.5 s: TO at 2 s, a quarter of the way back
  EXPECT_DOUBLE_EQ(player.position(), 0.75);
  EXPECT_DOUBLE_EQ(std::stod(player.advance(1.5)), -2.0);  // 4 s: back at FROM
  EXPECT_DOUBLE_EQ(std::stod(player.advance(0.5)), -1.0);  // and going up again
}

TEST(SweepPlayer, IntegerKeysAreRoundedAndStayInRange) {
  SweepPlayer player;
  player.start(spec_of("d_k=1:4096:log"), 1.0);
  for (int frame = 0; frame < 200; ++frame) {
    const std::string value = player.advance(0.037);
    EXPECT_EQ(value.find('.'), std::string::npos) << value;
    Params params;
    EXPECT_TRUE(smlab::set_param(params, "d_k", value).ok()) << value;
  }
}

TEST(SweepPlayer, SettingsTextParsesBackToTheSameSpec) {
  SweepSettings settings;
  settings.key = "gamma";
  settings.from = 0.5;
  settings.to = 40.0;
  settings.logarithmic = true;
  const SweepSpec spec = spec_of(sweep_text(settings));
  EXPECT_EQ(spec.key, "gamma");
  EXPECT_EQ(spec.from, 0.5);
  EXPECT_EQ(spec.to, 40.0);
  EXPECT_TRUE(spec.logarithmic);
}

// [SECTION] Colormaps

TEST(Colormap, SequentialMapsRiseInLuminanceFromDarkToBright) {
  using smlab::plot::Colormap;
  for (Colormap colormap : {Colormap::Viridis, Colormap::Cividis, Colormap::Magma, Colormap::Greys}) {
    const float low = smlab::plot::relative_luminance(smlab::plot::sample(colormap, 0.0));
    const float high = smlab::plot::relative_luminance(smlab::plot::sample(colormap, 1.0));
    EXPECT_LT(low, 0.05f) << smlab::plot::name(colormap) << " starts dark";
    EXPECT_GT(high, 0.6f) << smlab::plot::name(colormap) << " ends bright";
    float previous = -1.0f;
    for (int step = 0; step <= 256; ++step) {
      const float luminance = smlab::plot::relative_luminance(smlab::plot::sample(colormap, step / 256.0));
      EXPECT_GE(luminance, previous - 1e-4f) << smlab::plot::name(colormap) << " at t=" << step / 256.0;
      previous = luminance;
    }
  }
}

TEST(Colormap, UserChoiceReplacesSequentialMapsButNotTheDivergingOne) {
  using smlab::plot::Colormap;
  using smlab::plot::resolve_colormap;
  EXPECT_EQ(resolve_colormap(Colormap::Viridis, Colormap::Magma), Colormap::Magma);
  EXPECT_EQ(resolve_colormap(Colormap::Diverging, Colormap::Magma), Colormap::Diverging);
  EXPECT_EQ(resolve_colormap(Colormap::Viridis, std::nullopt), Colormap::Viridis);
  EXPECT_EQ(smlab::plot::sample(Colormap::Greys, 0.0), smlab::plot::Color::from_hex(0x000000));
  EXPECT_EQ(smlab::plot::sample(Colormap::Greys, 1.0), smlab::plot::Color::from_hex(0xFFFFFF));
}

// [SECTION] Session

TEST(SessionLook, ThemeFontScaleAndColormapRoundTripAndAreOptional) {
  Session session;
  session.theme = "projector";
  session.font_scale = 1.75f;
  session.colormap = "cividis";
  const smlab::Result<Session> loaded = parse_session(serialize_session(session));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(*loaded, session);

  const smlab::Result<Session> bare = parse_session(R"({"version": 1})");
  ASSERT_TRUE(bare) << bare.error().message;
  EXPECT_FALSE(bare->theme);
  EXPECT_FALSE(bare->font_scale);
  EXPECT_FALSE(bare->colormap);
}

TEST(SessionLook, BadLookFieldsAreOneLineNamingTheField) {
  for (const std::string& bad :
       {std::string(R"({"version": 1, "theme": "neon"})"), std::string(R"({"version": 1, "colormap": "jet"})"),
        std::string(R"({"version": 1, "colormap": 3})"), std::string(R"({"version": 1, "font_scale": 7})"),
        std::string(R"({"version": 1, "font_scale": "2"})")}) {
    const smlab::Result<Session> loaded = parse_session(bad);
    EXPECT_FALSE(loaded) << bad;
    EXPECT_EQ(loaded.error().message.find('\n'), std::string::npos) << loaded.error().message;
    const bool names_field = loaded.error().message.find("theme") != std::string::npos ||
                             loaded.error().message.find("colormap") != std::string::npos ||
                             loaded.error().message.find("font_scale") != std::string::npos;
    EXPECT_TRUE(names_field) << loaded.error().message;
  }
}

// [SECTION] Command line: --scale, --panel, --colormap

class ScaledShots : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = smlab::cli_test::fresh_test_dir("interaction"); }
  void TearDown() override { fs::remove_all(dir_); }
  smlab::cli_test::Outcome run(const std::vector<std::string>& args) {
    return smlab::cli_test::run_program(SMLAB_BINARY, args, dir_, "env -u DISPLAY");
  }
  static bool png_size(const fs::path& path, int& width, int& height) {
    int channels = 0;
    unsigned char* pixels = stbi_load(path.string().c_str(), &width, &height, &channels, 4);
    if (pixels == nullptr) return false;
    stbi_image_free(pixels);
    return true;
  }
  fs::path dir_;
};

TEST_F(ScaledShots, ScaleTwoHasExactlyTwiceThePixelsPerSide) {
  const fs::path one = dir_ / "one.png", two = dir_ / "two.png";
  const auto r1 = run({"--screenshot", one.string(), "--size", "800x450", "--scale", "1"});
  const auto r2 = run({"--screenshot", two.string(), "--size", "800x450", "--scale", "2"});
  ASSERT_EQ(r1.exit_code, 0) << r1.err;
  ASSERT_EQ(r2.exit_code, 0) << r2.err;
  int w1 = 0, h1 = 0, w2 = 0, h2 = 0;
  ASSERT_TRUE(png_size(one, w1, h1));
  ASSERT_TRUE(png_size(two, w2, h2));
  EXPECT_EQ(w1, 800);
  EXPECT_EQ(h1, 450);
  EXPECT_EQ(w2, 2 * w1);
  EXPECT_EQ(h2, 2 * h1);
}

TEST_F(ScaledShots, PanelCropsToOnePlotOfPlausibleSize) {
  const fs::path out = dir_ / "panel.png";
  const auto r = run({"--screenshot", out.string(), "--size", "1600x900", "--scale", "2", "--panel", "distribution"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int width = 0, height = 0;
  ASSERT_TRUE(png_size(out, width, height));
  // The distribution plot is one of four cells right of the control column: well under half the
  // window each way, and far more than a sliver.
  EXPECT_GT(width, 2 * 300);
  EXPECT_LT(width, 2 * 800);
  EXPECT_GT(height, 2 * 250);
  EXPECT_LT(height, 2 * 450);
}

TEST_F(ScaledShots, BadScaleOrPanelExitTwoWithOneLineNamingTheValue) {
  const fs::path out = dir_ / "bad.png";
  const auto scale = run({"--screenshot", out.string(), "--scale", "3"});
  EXPECT_EQ(scale.exit_code, 2);
  EXPECT_NE(scale.err.find("'3'"), std::string::npos) << scale.err;
  EXPECT_NE(scale.err.find("1, 2 or 4"), std::string::npos) << scale.err;
  EXPECT_EQ(scale.err.find('\n'), scale.err.size() - 1) << scale.err;

  const auto panel = run({"--screenshot", out.string(), "--size", "800x450", "--panel", "nosuchplot"});
  EXPECT_EQ(panel.exit_code, 2);
  EXPECT_NE(panel.err.find("nosuchplot"), std::string::npos) << panel.err;
  EXPECT_NE(panel.err.find("distribution"), std::string::npos) << "lists what is allowed: " << panel.err;
  EXPECT_EQ(panel.err.find('\n'), panel.err.size() - 1) << panel.err;
  EXPECT_FALSE(fs::exists(out)) << "nothing written for a bad panel";

  const auto colormap = run({"--screenshot", out.string(), "--colormap", "jet"});
  EXPECT_EQ(colormap.exit_code, 2);
  EXPECT_NE(colormap.err.find("jet"), std::string::npos) << colormap.err;
}

TEST_F(ScaledShots, ColormapChangesTheHeatmapPixels) {
  const fs::path viridis = dir_ / "viridis.png", greys = dir_ / "greys.png";
  ASSERT_EQ(run({"--screenshot", viridis.string(), "--size", "1600x900", "--panel", "attention_scaled"}).exit_code, 0);
  ASSERT_EQ(
      run({"--screenshot", greys.string(), "--size", "1600x900", "--panel", "attention_scaled", "--colormap", "greys"})
          .exit_code,
      0);
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(greys.string().c_str(), &width, &height, &channels, 4);
  ASSERT_NE(pixels, nullptr);
  // Greys: every heatmap pixel has r == g == b; count strongly coloured pixels (viridis has many).
  auto coloured = [](const unsigned char* data, int count) {
    int n = 0;
    for (int i = 0; i < count; ++i) {
      const int r = data[4 * i], g = data[4 * i + 1], b = data[4 * i + 2];
      if (std::abs(r - g) > 40 || std::abs(g - b) > 40) ++n;
    }
    return n;
  };
  const int grey_coloured = coloured(pixels, width * height);
  stbi_image_free(pixels);
  pixels = stbi_load(viridis.string().c_str(), &width, &height, &channels, 4);
  ASSERT_NE(pixels, nullptr);
  const int viridis_coloured = coloured(pixels, width * height);
  stbi_image_free(pixels);
  EXPECT_GT(viridis_coloured, 1000);
  EXPECT_LT(grey_coloured, viridis_coloured / 10);
}

TEST_F(ScaledShots, SvgExportUsesTheColormapForAttentionButKeepsTheJacobianDiverging) {
  const fs::path svg = dir_ / "svg";
  const auto r = run({"--export-svg", svg.string(), "--colormap", "greys"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string attention = smlab::cli_test::read_all(svg / "dashboard-attention-scaled.svg");
  const std::string jacobian = smlab::cli_test::read_all(svg / "gradients-jacobian.svg");
  ASSERT_FALSE(attention.empty());
  ASSERT_FALSE(jacobian.empty());
  EXPECT_NE(attention.find("stop-color=\"#000000\""), std::string::npos) << "greys starts at black";
  EXPECT_EQ(attention.find("stop-color=\"#440154\""), std::string::npos) << "no viridis left";
  EXPECT_EQ(jacobian.find("stop-color=\"#000000\""), std::string::npos) << "signed data stays diverging";
}

// [SECTION] The window's frame loop (offscreen): keys, sweep, GUI exports

class Window : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("DISPLAY");
    dir_ = fs::temp_directory_path() / ("smlab-interaction-app-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    smlab::platform::OffscreenOptions options;
    options.width = 1280;
    options.height = 720;
    auto created = smlab::platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created);
    AppOptions app_options;
    app_options.refine_trials = headless_refine_trials(app_options.params.seq_len);
    app_options.screenshot_dir = dir_.string();
    app_ = std::make_unique<App>(*surface_, app_options);
    app_->wait_for_snapshot();
    app_->frame();
  }
  void TearDown() override {
    app_.reset();
    surface_.reset();
    fs::remove_all(dir_);
  }
  // One frame with `keys` held (GLFW key codes; the offscreen surface has no keyboard of its own).
  void frame_with_keys(std::initializer_list<int> keys, bool ctrl = false, bool shift = false) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGuiIO& io = ImGui::GetIO();
    for (int key : keys) io.KeysDown[key] = true;
    io.KeyCtrl = ctrl;
    io.KeyShift = shift;
    app_->frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    for (int key : keys) io.KeysDown[key] = false;
    io.KeyCtrl = io.KeyShift = false;
    app_->frame();  // keys released
  }
  std::vector<fs::path> files_with(const std::string& extension) const {
    std::vector<fs::path> found;
    if (!fs::exists(dir_)) return found;
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.path().extension() == extension) found.push_back(entry.path());
    return found;
  }
  fs::path dir_;
  std::unique_ptr<smlab::platform::Offscreen> surface_;
  std::unique_ptr<App> app_;
};

TEST_F(Window, CtrlZUndoesAndCtrlYRedoesAnEdit) {
  Params edited = app_->ui().params;
  edited.temperature = 0.25;
  ASSERT_TRUE(apply_params(app_->ui(), edited));
  app_->frame();  // recorded as one step
  frame_with_keys({GLFW_KEY_Z}, true);
  EXPECT_EQ(app_->ui().params.temperature, 1.0);
  frame_with_keys({GLFW_KEY_Y}, true);
  EXPECT_EQ(app_->ui().params.temperature, 0.25);
  frame_with_keys({GLFW_KEY_Z}, true);
  frame_with_keys({GLFW_KEY_Z}, true, true);  // Ctrl+Shift+Z redoes too
  EXPECT_EQ(app_->ui().params.temperature, 0.25);
}

// A slow frame (the recompute of the step undone, a loaded machine) counts as holding the key past
// ImGui's repeat delay: holding Ctrl+Z or Ctrl+Y for a second is still one step each way.
TEST_F(Window, HoldingCtrlZOrCtrlYIsOneStepAPress) {
  for (const double temperature : {0.25, 0.5, 2.0}) {
    Params edited = app_->ui().params;
    edited.temperature = temperature;
    ASSERT_TRUE(apply_params(app_->ui(), edited));
    app_->frame();  // each its own step
  }
  const auto hold = [&](int key, int frames) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGuiIO& io = ImGui::GetIO();
    io.KeysDown[key] = true;
    io.KeyCtrl = true;
    for (int frame = 0; frame < frames; ++frame) app_->frame();  // 1/60 s each offscreen
    ImGui::SetCurrentContext(surface_->imgui_context());
    io.KeysDown[key] = false;
    io.KeyCtrl = false;
    app_->frame();
  };
  const int second = 60;
  ASSERT_GT(second / 60.0, ImGui::GetIO().KeyRepeatDelay) << "held past the repeat delay";
  hold(GLFW_KEY_Z, second);
  EXPECT_EQ(app_->ui().params.temperature, 0.5) << "Ctrl+Z held for a second undoes one step (2 -> 0.5)";
  hold(GLFW_KEY_Z, second);
  EXPECT_EQ(app_->ui().params.temperature, 0.25);
  hold(GLFW_KEY_Y, second);
  EXPECT_EQ(app_->ui().params.temperature, 0.5) << "Ctrl+Y held for a second redoes one step";
}

TEST_F(Window, ArrowsNudgeTheSliderUnderTheMouseOnly) {
  frame_with_keys({GLFW_KEY_RIGHT});
  EXPECT_EQ(app_->ui().params.temperature, 1.0) << "no slider hovered: arrows are left to others";
  app_->ui().interaction.nudge_key = "temperature";  // what hovering the slider records
  ImGui::SetCurrentContext(surface_->imgui_context());
  ImGui::GetIO().KeysDown[GLFW_KEY_RIGHT] = true;
  app_->frame();
  ImGui::GetIO().KeysDown[GLFW_KEY_RIGHT] = false;
  EXPECT_TRUE(app_->ui().interaction.arrows_taken);
  EXPECT_NEAR(app_->ui().params.temperature, log_notch_factor, 1e-12);
}

TEST_F(Window, WithALessonOpenArrowsNudgeAHoveredSliderAndOtherwiseTurnThePage) {
  UiState& ui = app_->ui();
  ui.lessons = load_lessons(find_assets_dir() / "lessons");
  ASSERT_FALSE(ui.lessons.lessons.empty()) << (ui.lessons.error ? ui.lessons.error->message : "");
  ASSERT_GE(ui.lessons.lessons[0].steps.size(), 2u);
  ASSERT_TRUE(open_lesson_step(ui, 0, 0, false));
  app_->frame();
  ASSERT_TRUE(ui.lesson.open);
  const Params before = ui.params;
  ui.interaction.nudge_key = "temperature";  // the mouse is over the temperature slider
  ImGui::SetCurrentContext(surface_->imgui_context());
  ImGui::GetIO().KeysDown[GLFW_KEY_RIGHT] = true;
  app_->frame();
  ImGui::GetIO().KeysDown[GLFW_KEY_RIGHT] = false;
  EXPECT_EQ(ui.lesson.open->step, 0u) << "the nudge took the key; the lesson stays on its step";
  EXPECT_NEAR(ui.params.temperature, before.temperature * log_notch_factor, 1e-9);
  app_->frame();
  ui.interaction.nudge_key.clear();  // the mouse left the slider
  ui.interaction.nudge_key_this_frame.clear();
  frame_with_keys({GLFW_KEY_RIGHT});
  ASSERT_TRUE(ui.lesson.open);
  EXPECT_EQ(ui.lesson.open->step, 1u) << "no slider under the mouse: Right turns the page";
}

TEST_F(Window, AtRestTheWindowMaySleepAndAnythingThatMovesKeepsItAwake) {
  for (int frame = 0; frame < 3; ++frame) app_->frame();
  EXPECT_LT(app_->idle_wait_seconds(), 0.0) << "nothing moves: sleep until an event";

  Params edited = app_->ui().params;
  edited.temperature = 0.5;
  ASSERT_TRUE(apply_params(app_->ui(), edited));
  EXPECT_EQ(app_->idle_wait_seconds(), 0.0) << "a recompute to submit";
  app_->wait_for_snapshot();
  app_->frame();
  EXPECT_LT(app_->idle_wait_seconds(), 0.0);

  // A toast: drawn at once (a report made after a frame was drawn, as a finished export's, must not
  // wait on the screen for its fade: the window showed a GIF's row at 98 % for 4 s after the file
  // was saved), then sleep until it starts to fade, draw while it fades, then sleep again.
  // Offscreen time is frames / 60.
  app_->report("Saved /tmp/x.png", false);
  EXPECT_EQ(app_->idle_wait_seconds(), 0.0) << "a toast not yet on the screen";
  app_->frame();
  EXPECT_EQ(app_->idle_wait_seconds(), 0.0) << "an auto-sized window shows on its second frame";
  app_->frame();
  const double until_fade = app_->idle_wait_seconds();
  EXPECT_GT(until_fade, 2.0);
  EXPECT_LE(until_fade, 3.0);
  for (int frame = 0; frame < 200; ++frame) app_->frame();  // 3.3 s: fading
  EXPECT_GT(app_->idle_wait_seconds(), 0.0);
  EXPECT_LT(app_->idle_wait_seconds(), 0.05);
  for (int frame = 0; frame < 60; ++frame) app_->frame();  // 4.3 s: gone
  EXPECT_LT(app_->idle_wait_seconds(), 0.0);
  EXPECT_EQ(app_->ui().status, "Saved /tmp/x.png") << "the status line keeps it";

  // The lesson launcher's Start: a request carried out after the controls' edit, then a glide.
  UiState& ui = app_->ui();
  ui.lessons = load_lessons(find_assets_dir() / "lessons");
  ASSERT_FALSE(ui.lessons.lessons.empty()) << (ui.lessons.error ? ui.lessons.error->message : "");
  ui.lesson_view.start_requested = 0;
  EXPECT_EQ(app_->idle_wait_seconds(), 0.0);
  app_->frame();
  ASSERT_TRUE(ui.lesson.open);
  EXPECT_TRUE(ui.lesson.animating);
  EXPECT_EQ(app_->idle_wait_seconds(), 0.0) << "a lesson glide";
  for (int frame = 0; frame < 40 && ui.lesson.animating; ++frame) app_->frame();
  EXPECT_FALSE(ui.lesson.animating);
  EXPECT_EQ(ui.params, ui.lessons.lessons[0].steps[0].params) << "step 1's own Params after the glide";
}

TEST_F(Window, PlayingASweepMovesTheValueInsideItsRangeAndPauseKeepsIt) {
  InteractionUi& state = app_->ui().interaction;
  state.sweep = SweepSettings{};
  state.sweep.key = "score_scale";
  state.sweep.from = 0.5;
  state.sweep.to = 8.0;
  state.sweep.seconds_per_pass = 0.5;  // 30 frames at the offscreen 1/60 s
  state.commands.push(Command::toggle_sweep);
  std::vector<double> seen;
  for (int frame = 0; frame < 45; ++frame) {
    app_->frame();
    seen.push_back(app_->ui().params.score_scale);
  }
  EXPECT_TRUE(state.sweep_playing);
  const auto [low, high] = std::minmax_element(seen.begin(), seen.end());
  EXPECT_GE(*low, 0.5);
  EXPECT_LE(*high, 8.0);
  EXPECT_GT(*high, 7.0) << "reached TO";
  EXPECT_LT(seen.back(), *high) << "and came back";
  state.commands.push(Command::toggle_sweep);
  app_->frame();
  const double paused = app_->ui().params.score_scale;
  for (int frame = 0; frame < 5; ++frame) app_->frame();
  EXPECT_FALSE(state.sweep_playing);
  EXPECT_EQ(app_->ui().params.score_scale, paused);
  // The whole animation is one undo step.
  frame_with_keys({GLFW_KEY_Z}, true);
  EXPECT_EQ(app_->ui().params.score_scale, 1.0);
}

TEST_F(Window, ExportPngAtTwiceTheWindowAndOfOnePanel) {
  InteractionUi& state = app_->ui().interaction;
  state.export_scale_index = 1;  // 2x
  state.commands.push(Command::export_png);
  app_->frame();
  ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));
  auto pngs = files_with(".png");
  ASSERT_EQ(pngs.size(), 1u) << app_->ui().status;
  int width = 0, height = 0, channels = 0;
  unsigned char* pixels = stbi_load(pngs[0].string().c_str(), &width, &height, &channels, 4);
  ASSERT_NE(pixels, nullptr);
  stbi_image_free(pixels);
  EXPECT_EQ(width, 2560);
  EXPECT_EQ(height, 1440);

  state.export_target = "dashboard/gradient";
  state.commands.push(Command::export_png);
  app_->frame();
  ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));
  pngs = files_with(".png");
  ASSERT_EQ(pngs.size(), 2u) << "a second export is a new file: " << app_->ui().status;
  for (const fs::path& png : pngs) {
    pixels = stbi_load(png.string().c_str(), &width, &height, &channels, 4);
    ASSERT_NE(pixels, nullptr);
    stbi_image_free(pixels);
    if (width == 2560) continue;
    EXPECT_LT(width, 2560 / 2);
    EXPECT_GT(width, 2 * 200);
    // Rendered a step a window frame and written on a thread of its own, the file holds the bytes
    // of the whole render at once (render_scaled_screenshot, what the export did in one frame).
    AppOptions same;
    same.refine_trials = headless_refine_trials(same.params.seq_len);
    same.screenshot_dir = dir_.string();
    const ScaledShot whole = render_scaled_screenshot(same, 1280, 720, 2.0f, 1.0f, "dashboard/gradient");
    ASSERT_TRUE(whole.ok()) << whole.error().message;
    const std::vector<std::uint8_t> encoded = smlab::exporting::encode_png(*whole);
    const std::string expected(encoded.begin(), encoded.end()), written = smlab::cli_test::read_all(png);
    EXPECT_TRUE(written == expected) << png << ": " << written.size() << " bytes, the whole render's PNG "
                                     << expected.size();
  }
}

TEST_F(Window, RecordGifTakesManyWindowFramesAndWritesANewFile) {
  InteractionUi& state = app_->ui().interaction;
  state.sweep = SweepSettings{};
  state.sweep.gif_frames = 4;
  state.commands.push(Command::record_gif);
  app_->frame();
  ASSERT_TRUE(state.gif_recording) << state.sweep_error << app_->ui().status;
  int window_frames = 0;
  // The recording polls its copy's evaluator, whose refinement starts 200 ms after a value is set:
  // how many window frames it takes depends on how fast they are (under a millisecond here, alone),
  // so they are spaced, and the bound (30 s) only stops a recording that never ends.
  while (state.gif_recording && window_frames < 15000) {
    app_->frame();  // the window keeps drawing while the GIF is made
    ++window_frames;
    if (state.gif_recording) std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_FALSE(state.gif_recording);
  EXPECT_EQ(app_->idle_wait_seconds(), 0.0) << "the frame that ended the recording still drew its row: draw again";
  EXPECT_GE(window_frames, 4) << "one GIF frame per window frame at most";
  const auto gifs = files_with(".gif");
  ASSERT_EQ(gifs.size(), 1u) << app_->ui().status;
  const std::string bytes = smlab::cli_test::read_all(gifs[0]);
  EXPECT_EQ(bytes.substr(0, 6), "GIF89a");
  // One graphic control extension (the frame delay) per frame, counted by walking the GIF's blocks
  // (searching the bytes also finds 21 F9 04 inside compressed pixels, depending on the picture).
  const auto byte_at = [&](std::size_t at) { return at < bytes.size() ? static_cast<unsigned char>(bytes[at]) : 0u; };
  const auto skip_sub_blocks = [&](std::size_t at) {
    while (at < bytes.size() && byte_at(at) != 0) at += 1 + byte_at(at);
    return at + 1;
  };
  std::size_t at = 13;  // header and logical screen descriptor
  if (byte_at(10) & 0x80) at += 3u * (1u << ((byte_at(10) & 7) + 1));
  int frames = 0;
  while (at < bytes.size() && byte_at(at) != 0x3B) {
    if (byte_at(at) == 0x21) {
      if (byte_at(at + 1) == 0xF9) ++frames;
      at = skip_sub_blocks(at + 2);
    } else if (byte_at(at) == 0x2C) {
      const unsigned flags = byte_at(at + 9);
      at += 10;
      if (flags & 0x80) at += 3u * (1u << ((flags & 7) + 1));
      at = skip_sub_blocks(at + 1);  // after the LZW minimum code size
    } else {
      ADD_FAILURE() << "unexpected GIF block 0x" << std::hex << byte_at(at) << " at " << std::dec << at;
      break;
    }
  }
  EXPECT_EQ(frames, 4);
  EXPECT_EQ(app_->ui().params.temperature, 1.0) << "recording leaves the window's Params alone";
}

// A GIF recording has a row beside the other background work, and its Cancel ends it with no file.
TEST_F(Window, CancellingAGifRecordingLeavesNoFile) {
  InteractionUi& state = app_->ui().interaction;
  state.sweep = SweepSettings{};
  state.sweep.gif_frames = 40;
  state.commands.push(Command::record_gif);
  app_->frame();
  ASSERT_TRUE(state.gif_recording) << state.sweep_error << app_->ui().status;
  for (int frame = 0; frame < 3; ++frame) app_->frame();
  const std::vector<App::ShownJob> rows = app_->background_progress();
  ASSERT_EQ(rows.size(), 1u);
  ASSERT_EQ(rows[0].kind, App::ShownJob::Kind::gif);
  app_->cancel_background(rows[0]);  // what its Cancel button does
  app_->frame();
  EXPECT_FALSE(state.gif_recording);
  EXPECT_NE(app_->ui().status.find("GIF recording cancelled"), std::string::npos) << app_->ui().status;
  for (int frame = 0; frame < 3; ++frame) app_->frame();
  EXPECT_TRUE(files_with(".gif").empty());
  EXPECT_TRUE(app_->background_progress().empty());
}

// [SECTION] Settling after an input: a click acts and is drawn with the mouse still

TEST(FrameSettle, DrawsAtLeastThreeFramesThenUntilAFrameRepeatsTheOneBefore) {
  smlab::platform::FrameSettle settle;
  for (int frame = 0; frame < 40; ++frame) settle.frame_drawn(7);
  EXPECT_TRUE(settle.may_sleep()) << "nothing happened: sleep";
  settle.input();
  for (int frame = 0; frame < 3; ++frame) {
    EXPECT_FALSE(settle.may_sleep()) << "frame " << frame << " after an input, picture unchanged";
    settle.frame_drawn(7);
  }
  EXPECT_TRUE(settle.may_sleep()) << "three frames drawn the same: settled";
  settle.input();
  std::uint64_t picture = 100;
  int frames = 0;
  for (; frames < 20 && !settle.may_sleep(); ++frames) settle.frame_drawn(frames < 6 ? ++picture : picture);
  EXPECT_EQ(frames, 7) << "drawn while frames 1-6 changed, then one frame that repeated the sixth";
  settle.input();
  for (frames = 0; frames < 100 && !settle.may_sleep(); ++frames) settle.frame_drawn(++picture);
  EXPECT_EQ(frames, smlab::platform::FrameSettle::max_frames) << "a picture that changes every frame stops at the cap";
}

bool any_popup_open() { return GImGui->OpenPopupStack.Size > 0; }

// The window's loop after an input, emulated offscreen: frames while the App asks for them
// (idle_wait_seconds() == 0: a button held, a recompute) or FrameSettle says the picture has not
// settled; then it would sleep until the next event. Returns the frames drawn.
int frames_until_sleep(App& app, smlab::platform::Offscreen& surface, smlab::platform::FrameSettle& settle) {
  int frames = 0;
  for (; frames < 200; ++frames) {
    ImGui::SetCurrentContext(surface.imgui_context());
    if (frames > 0 && settle.may_sleep() && app.idle_wait_seconds() != 0.0) break;
    app.frame();
    ImGui::SetCurrentContext(surface.imgui_context());
    settle.frame_drawn(smlab::platform::draw_data_fingerprint(*ImGui::GetDrawData()));
  }
  return frames;
}

// With the mouse held still after a click, File → Export PNG wrote no file, the menu
// stayed drawn and no toast appeared until the mouse moved (the window counted its settling
// frames only from a wake-up, not from a button released while frames ran). A click on the menu
// item, mouse then still: within three frames of the release the menu is gone and the export under
// way; it renders a step a frame and writes its file on a thread of its own, and until then the
// window never sleeps waiting for an input (the thread's end wakes it); then the file is there and
// the status line names it.
TEST_F(Window, AClickOnExportPngActsAndIsDrawnWithTheMouseStill) {
  smlab::platform::FrameSettle settle;
  ImGui::SetCurrentContext(surface_->imgui_context());
  ImGuiIO& io = ImGui::GetIO();
  const auto click = [&](ImVec2 at) {
    io.MousePos = at;  // moved there: an input
    settle.input();
    frames_until_sleep(*app_, *surface_, settle);
    io.MouseDown[0] = true;
    settle.input();
    frames_until_sleep(*app_, *surface_, settle);
    io.MouseDown[0] = false;  // released; the mouse stays where it is
    settle.input();
  };
  click(ImVec2(30.0f, 20.0f));  // File, in the control column's menu bar
  frames_until_sleep(*app_, *surface_, settle);
  ASSERT_TRUE(any_popup_open()) << "the File menu did not open at (30, 20)";
  click(ImVec2(150.0f, 135.0f));  // File → Export PNG
  const auto started = [&] { return !any_popup_open() && (app_->exporting() || !files_with(".png").empty()); };
  int frames = 0;
  for (; frames < 3 && !started(); ++frames) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ASSERT_FALSE(settle.may_sleep()) << "the window would sleep " << frames << " frames after the release, with "
                                     << "the menu " << (any_popup_open() ? "open" : "closed");
    app_->frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    settle.frame_drawn(smlab::platform::draw_data_fingerprint(*ImGui::GetDrawData()));
  }
  EXPECT_TRUE(started()) << "3 frames after the release: menu " << (any_popup_open() ? "open" : "closed")
                         << ", no export running; status: " << app_->ui().status;
  for (int frame = 0; frame < 6000 && app_->exporting(); ++frame) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ASSERT_GE(app_->idle_wait_seconds(), 0.0) << "the window would sleep until an input with the export running";
    app_->frame();
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  EXPECT_EQ(files_with(".png").size(), 1u) << "status: " << app_->ui().status;
  EXPECT_NE(app_->ui().status.find(dir_.string()), std::string::npos)
      << "the toast names the file: " << app_->ui().status;
}

// [SECTION] The window's details: screenshots, layers, the menu strip, file exports, the lock

// Clicks at `at` offscreen: a frame with the button down, one with it up, then frames to settle.
void click_at(App& app, smlab::platform::Offscreen& surface, ImVec2 at, int settle_frames = 3) {
  ImGui::SetCurrentContext(surface.imgui_context());
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = at;
  app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
  io.MouseDown[0] = true;
  app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
  io.MouseDown[0] = false;
  for (int frame = 0; frame < settle_frames; ++frame) app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
}

// File → Screenshot saved the File menu in the picture. The capture waits for a frame
// that draws no menu: the saved image is the window as it looks once the menu has closed.
TEST_F(Window, FileScreenshotSavesThePictureWithoutTheMenu) {
  click_at(*app_, *surface_, ImVec2(30.0f, 20.0f), 2);  // File
  ASSERT_TRUE(any_popup_open()) << "the File menu did not open";
  click_at(*app_, *surface_, ImVec2(120.0f, 114.0f), 3);                // File → Screenshot
  ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));  // written on a thread of its own
  EXPECT_FALSE(any_popup_open());
  const auto pngs = files_with(".png");
  ASSERT_EQ(pngs.size(), 1u) << app_->ui().status;
  int width = 0, height = 0, channels = 0;
  unsigned char* saved = stbi_load(pngs[0].string().c_str(), &width, &height, &channels, 4);
  ASSERT_NE(saved, nullptr);
  // Where the open menu was drawn (under "File", over the control column's first rows), the saved
  // picture shows what is there with the menu closed: a frame drawn now (the mouse moved off the
  // slider it rests on, whose hover colour the saved frame, the first after the menu, lacks).
  ImGui::GetIO().MousePos = ImVec2(700.0f, 600.0f);
  for (int frame = 0; frame < 2; ++frame) app_->frame();
  const smlab::Image now = surface_->capture();
  ASSERT_EQ(now.width, width);
  int differing = 0;
  for (int y = 32; y < 190; ++y)
    for (int x = 10; x < 370; ++x) {
      const auto* pixel = saved + 4 * (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + x);
      const smlab::Rgba8 drawn = now.pixel(x, y);
      differing += std::abs(pixel[0] - drawn.r) + std::abs(pixel[1] - drawn.g) + std::abs(pixel[2] - drawn.b) > 30;
    }
  stbi_image_free(saved);
  EXPECT_LT(differing, 50) << differing << " pixels of the menu's area differ from the window with the menu closed";
}

// The lesson's orange highlight was drawn over the Import dialog and over toasts (it went
// to the foreground draw list). It now goes into the plot's own window: every window drawn above
// the plots — a toast here — covers it.
TEST_F(Window, AToastIsDrawnAboveTheLessonHighlight) {
  UiState& ui = app_->ui();
  ui.lessons = load_lessons(find_assets_dir() / "lessons");
  const auto scaling = find_lesson(ui.lessons, "scaling");
  ASSERT_TRUE(scaling);
  ASSERT_TRUE(open_lesson_step(ui, *scaling, 5, false));  // scaling:6, the dashboard's maps framed
  app_->wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app_->frame();
  app_->report(std::string(150, 'x'), false);  // a long toast: it spans the content's width
  for (int frame = 0; frame < 3; ++frame) app_->frame();
  ImGui::SetCurrentContext(surface_->imgui_context());
  const ImGuiWindow* toast = ImGui::FindWindowByName("##toast");
  ASSERT_NE(toast, nullptr);
  const smlab::Image image = surface_->capture();
  int framed_outside = 0, framed_inside = 0;
  const auto amber = [](smlab::Rgba8 p) { return p.r > 230 && p.g > 150 && p.g < 200 && p.b < 40; };
  for (int y = 0; y < image.height; ++y)
    for (int x = 0; x < image.width; ++x) {
      const bool inside = x >= toast->Pos.x + 4 && x < toast->Pos.x + toast->Size.x - 4 && y >= toast->Pos.y + 4 &&
                          y < toast->Pos.y + toast->Size.y - 4;
      if (amber(image.pixel(x, y))) ++(inside ? framed_inside : framed_outside);
    }
  EXPECT_GT(framed_outside, 200) << "the highlight frame is drawn";
  EXPECT_EQ(framed_inside, 0) << "highlight pixels inside the toast at " << toast->Pos.x << "," << toast->Pos.y << " "
                              << toast->Size.x << "x" << toast->Size.y;
}

// Hiding the control column (Ctrl+B) hid the File/Edit/View menus with it. They stay, in
// a strip left of the » button.
TEST_F(Window, TheMenusStayWhenTheControlColumnIsHidden) {
  app_->ui().controls_shown = false;
  app_->frame();
  click_at(*app_, *surface_, ImVec2(24.0f, 20.0f), 2);
  EXPECT_TRUE(any_popup_open()) << "no menu opened at the top left with the column hidden";
  EXPECT_FALSE(app_->ui().controls_shown) << "the click opened a menu, not the column";
}

// Escape closes an open combo's list, as it closes the dialogs: the next click, aimed at the
// Lessons combo below, opens that combo instead of picking a preset from the list drawn over it.
// Menus close the same way; an Escape that closes a menu leaves the open lesson open.
TEST_F(Window, EscapeClosesAnOpenComboOrMenuAndNothingElse) {
  UiState& ui = app_->ui();
  ui.lessons = load_lessons(find_assets_dir() / "lessons");  // the Lessons combo lists them
  ASSERT_FALSE(ui.lessons.lessons.empty()) << (ui.lessons.error ? ui.lessons.error->message : "");
  ui.presets = load_presets(find_assets_dir() / "presets.json");  // and the Presets combo these
  ASSERT_TRUE(ui.presets && !ui.presets->empty());
  app_->frame();
  const Params before = ui.params;
  click_at(*app_, *surface_, ImVec2(150.0f, 451.0f), 2);  // the Presets combo
  ASSERT_TRUE(any_popup_open()) << "the Presets combo did not open at (150, 451)";
  frame_with_keys({GLFW_KEY_ESCAPE});
  EXPECT_FALSE(any_popup_open()) << "Escape left the Presets list open";
  click_at(*app_, *surface_, ImVec2(150.0f, 507.0f), 2);  // the Lessons combo, under the Presets list
  EXPECT_EQ(ui.params, before) << "the click picked a preset from a list Escape should have closed";
  EXPECT_TRUE(any_popup_open()) << "the click opened the Lessons combo";
  frame_with_keys({GLFW_KEY_ESCAPE});
  EXPECT_FALSE(any_popup_open());

  ASSERT_TRUE(open_lesson_step(ui, 0, 0, false));
  ui.lesson_view.controls_shown = true;  // the column beside the lesson: its menus at the top left
  for (int frame = 0; frame < 3; ++frame) app_->frame();
  click_at(*app_, *surface_, ImVec2(30.0f, 20.0f), 2);  // File
  ASSERT_TRUE(any_popup_open()) << "the File menu did not open";
  frame_with_keys({GLFW_KEY_ESCAPE});
  EXPECT_FALSE(any_popup_open()) << "Escape left the File menu open";
  EXPECT_NE(current_step(ui), nullptr) << "the Escape that closed the menu closed the lesson too";
}

// Two Apps on two surfaces (the window's and an export's) have GL contexts of their own, whose
// texture names coincide (both made the same textures in the same order). An App's work between
// frames (wait_for_snapshot uploads its new maps) once went into whichever context was current: the
// other App's maps showed its data. Each App's maps stay its own, whichever context was current.
TEST(BackgroundRenders, AnAppsMapsGoIntoItsOwnSurfaceWhicheverContextIsCurrent) {
  ::unsetenv("DISPLAY");
  smlab::platform::OffscreenOptions options;
  options.width = 1280;
  options.height = 960;  // both attention maps in view
  auto window_surface = smlab::platform::Offscreen::create(options);
  auto export_surface = smlab::platform::Offscreen::create(options);
  ASSERT_TRUE(window_surface && export_surface);
  AppOptions app_options;
  app_options.refine_trials = headless_refine_trials(app_options.params.seq_len);
  App window(**window_surface, app_options), copy(**export_surface, app_options);
  for (App* app : {&window, &copy}) {
    app->wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app->frame();
  }
  const smlab::Image before = (*window_surface)->capture();
  std::vector<PlacedPlot> maps;
  for (const PlacedPlot& placed : window.ui().placed_plots)
    if (placed.name.starts_with("dashboard/attention_")) maps.push_back(placed);
  ASSERT_EQ(maps.size(), 2u);
  Params colder = copy.ui().params;
  colder.temperature = 0.05;  // one-hot rows: maps unlike the window's
  ASSERT_TRUE(apply_params(copy.ui(), colder));
  window.frame();            // the window's context is current now
  copy.wait_for_snapshot();  // the copy's new maps uploaded between frames
  window.frame();
  for (const smlab::Image& now : {(*window_surface)->capture(), (*window_surface)->capture_whole_redraw()}) {
    int changed = 0;
    for (const PlacedPlot& map : maps)
      changed += smlab::app::test_support::differing_pixels(
          before, now, map.min, ImVec2(std::min(map.max.x, 1280.0f), std::min(map.max.y, 960.0f)));
    EXPECT_EQ(changed, 0) << "the window's maps show the other App's data";
  }
}

// A GIF is recorded by an App of its own on an offscreen surface, driven from the window's frames.
// That App once uploaded its maps while the window's GL context was current, into the window's
// textures of the same names: the window's maps followed the GIF's sweep and kept its last frame.
// Neither the window's picture nor its textures (a whole redraw from them) may change while a GIF
// is recorded, nor after it, nor for a PNG export made offscreen.
TEST(BackgroundRenders, RecordingAGifOrExportingAPngLeavesTheWindowsMapsAlone) {
  ::unsetenv("DISPLAY");
  const fs::path dir = fs::temp_directory_path() / ("smlab-background-renders-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  smlab::platform::OffscreenOptions options;
  options.width = 1280;
  options.height = 960;  // both attention maps in view
  auto created = smlab::platform::Offscreen::create(options);
  ASSERT_TRUE(created) << created.error().message;
  smlab::platform::Offscreen& surface = **created;
  {
    AppOptions app_options;
    app_options.refine_trials = headless_refine_trials(app_options.params.seq_len);
    app_options.screenshot_dir = dir.string();
    App app(surface, app_options);
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();
    const smlab::Image before = surface.capture();
    std::vector<PlacedPlot> maps;
    for (const PlacedPlot& placed : app.ui().placed_plots)
      if (placed.name.starts_with("dashboard/attention_")) maps.push_back(placed);
    ASSERT_EQ(maps.size(), 2u) << "the dashboard's two attention maps";
    // Pixels of the maps (as far as their windows show them) that differ from `before`.
    const auto changed_in_maps = [&](const smlab::Image& now) {
      int changed = 0, seen = 0;
      for (const PlacedPlot& map : maps)
        for (int y = static_cast<int>(std::max(map.min.y, map.clip_min.y));
             y < static_cast<int>(std::min(map.max.y, map.clip_max.y)); ++y)
          for (int x = static_cast<int>(std::max(map.min.x, map.clip_min.x));
               x < static_cast<int>(std::min(map.max.x, map.clip_max.x)); ++x) {
            const smlab::Rgba8 p = before.pixel(x, y), q = now.pixel(x, y);
            changed += std::abs(p.r - q.r) + std::abs(p.g - q.g) + std::abs(p.b - q.b) > 0;
            ++seen;
          }
      EXPECT_GT(seen, 40000) << "the maps are in view";
      return changed;
    };

    InteractionUi& state = app.ui().interaction;
    state.sweep = SweepSettings{};  // temperature 0.05 → 20: one-hot to uniform maps
    state.sweep.gif_frames = 3;
    state.commands.push(Command::record_gif);
    app.frame();
    ASSERT_TRUE(state.gif_recording) << state.sweep_error << app.ui().status;
    int window_frames = 0, most_changed = 0;
    while (state.gif_recording && window_frames < 15000) {  // spaced and bounded as above
      app.frame();
      ++window_frames;
      most_changed = std::max(most_changed, changed_in_maps(surface.capture()));
      if (state.gif_recording) std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    ASSERT_FALSE(state.gif_recording) << app.ui().status;
    EXPECT_EQ(most_changed, 0) << "map pixels of the window changed while the GIF was recorded";
    EXPECT_EQ(changed_in_maps(surface.capture_whole_redraw()), 0) << "the window's map textures after the GIF";

    state.export_scale_index = 1;
    state.commands.push(Command::export_png);
    app.frame();
    while (app.exporting()) {  // the copy renders a step a window frame: the window's maps each time
      app.frame();
      most_changed = std::max(most_changed, changed_in_maps(surface.capture()));
    }
    EXPECT_EQ(most_changed, 0) << "map pixels of the window changed while the PNG was exported";
    EXPECT_FALSE(app.ui().status_is_error) << app.ui().status;
    EXPECT_EQ(changed_in_maps(surface.capture()), 0) << "after a 2x PNG export";
    EXPECT_EQ(changed_in_maps(surface.capture_whole_redraw()), 0) << "the window's map textures after a PNG export";
    std::size_t files = 0;
    for (const auto& entry : fs::directory_iterator(dir)) files += entry.path().extension() != ".tmp";
    EXPECT_EQ(files, 2u) << "one GIF and one PNG";
  }
  fs::remove_all(dir);
}

std::vector<std::string> sorted_names(const fs::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// The desktop window had no Export CSV / Export SVG (the web page has). File → Export CSV
// and Export SVG write what --export-csv and --export-svg write for the shown state, into a new
// folder, and the toast names it.
TEST_F(Window, ExportCsvAndSvgWriteWhatTheCommandLineWritesIntoANewFolder) {
  Params edited = app_->ui().params;
  edited.temperature = 0.5;
  edited.seq_len = 8;
  ASSERT_TRUE(apply_params(app_->ui(), edited));
  app_->frame();
  for (const bool svg : {false, true}) {
    app_->ui().interaction.commands.push(svg ? Command::export_svg : Command::export_csv);
    app_->frame();
    ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));
    const std::string kind = svg ? "svg" : "csv";
    std::vector<fs::path> folders;
    for (const auto& entry : fs::directory_iterator(dir_))
      if (entry.is_directory() && entry.path().filename().string().ends_with("-" + kind))
        folders.push_back(entry.path());
    ASSERT_EQ(folders.size(), 1u) << app_->ui().status;
    EXPECT_NE(app_->ui().status.find(folders[0].string()), std::string::npos) << "the toast names the folder";
    const fs::path cli = dir_ / ("cli-" + kind);
    const smlab::cli_test::Outcome made = smlab::cli_test::run_program(
        SMLAB_BINARY, {"--set", "temperature=0.5", "--set", "seq_len=8", "--export-" + kind, cli.string()}, dir_,
        "env -u DISPLAY");
    ASSERT_EQ(made.exit_code, 0) << made.err;
    const std::vector<std::string> ours = sorted_names(folders[0]), theirs = sorted_names(cli);
    std::vector<std::string> only_ours, only_theirs;
    std::set_difference(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(only_ours));
    std::set_difference(theirs.begin(), theirs.end(), ours.begin(), ours.end(), std::back_inserter(only_theirs));
    ASSERT_TRUE(only_ours.empty() && only_theirs.empty())
        << kind << ": " << only_ours.size()
        << " files only from the menu (first: " << (only_ours.empty() ? "" : only_ours[0]) << "), "
        << only_theirs.size() << " only from the command line (first: " << (only_theirs.empty() ? "" : only_theirs[0])
        << ")";
    for (const std::string& name : sorted_names(cli))
      EXPECT_EQ(smlab::cli_test::read_all(folders[0] / name), smlab::cli_test::read_all(cli / name)) << name;
  }
}

// The window's exports ran in the frame that asked for them: Export CSV froze the window for 3.5-7 s,
// a 4x PNG for ~10 s. Now the frames go on while an export is made (held here on its thread), it
// shows a row with its stage and a Cancel button, and a cancelled export leaves no file or folder,
// whether it was cancelled while its files were being made or while a PNG was still rendering.
TEST_F(Window, ExportsRunWhileTheWindowDrawsShowProgressAndCancelLeavesNothing) {
  std::mutex mutex;
  std::condition_variable signal;
  bool reached = false, released = false;
  app_->set_export_hook_for_testing([&] {
    std::unique_lock lock(mutex);
    reached = true;
    signal.notify_all();
    signal.wait(lock, [&] { return released; });
  });
  const auto reached_now = [&] {
    const std::lock_guard lock(mutex);
    return reached;
  };
  const auto release = [&] {
    const std::lock_guard lock(mutex);
    released = true;
    signal.notify_all();
  };
  for (const Command command : {Command::export_csv, Command::export_svg, Command::export_png, Command::screenshot}) {
    const int asked = static_cast<int>(command);
    {
      const std::lock_guard lock(mutex);
      reached = released = false;
    }
    app_->ui().interaction.commands.push(command);
    int frames = 0;
    for (; frames < 6000 && !reached_now(); ++frames) {
      ASSERT_TRUE(app_->frame());
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    ASSERT_TRUE(reached_now()) << "command " << asked << ": the export never reached its files";
    // The export is held on its thread: the window draws on, and after a moment shows its row.
    for (int frame = 0; frame < 40; ++frame) ASSERT_TRUE(app_->frame());
    EXPECT_TRUE(app_->exporting());
    const std::vector<App::ShownJob> rows = app_->background_progress();
    ASSERT_EQ(rows.size(), 1u) << "command " << asked;
    EXPECT_EQ(rows[0].kind, App::ShownJob::Kind::file_export);
    EXPECT_FALSE(rows[0].progress.stage.empty());
    app_->cancel_background(rows[0]);  // what its Cancel button does: acted on after the frame
    ASSERT_TRUE(app_->frame());
    release();
    ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));
    EXPECT_NE(app_->ui().status.find("export cancelled"), std::string::npos) << app_->ui().status;
    EXPECT_TRUE(!fs::exists(dir_) || fs::is_empty(dir_))
        << "command " << asked << ": a cancelled export left " << (fs::exists(dir_) ? sorted_names(dir_).front() : "");
  }
  // A PNG cancelled while its copy renders offscreen (no thread yet).
  app_->set_export_hook_for_testing({});
  app_->ui().interaction.commands.push(Command::export_png);
  app_->frame();
  ASSERT_TRUE(app_->exporting());
  app_->cancel_export(0);
  ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));
  EXPECT_NE(app_->ui().status.find("export cancelled"), std::string::npos) << app_->ui().status;
  EXPECT_TRUE(!fs::exists(dir_) || fs::is_empty(dir_));
}

TEST_F(Window, AnExportThatCannotBeWrittenLeavesNoFolderAndSaysWhy) {
  fs::create_directories(dir_);
  const fs::path blocker = dir_ / "not-a-folder";
  std::ofstream(blocker) << "a file where the folder should be\n";
  app_->ui().screenshot_dir = blocker.string();
  app_->ui().interaction.commands.push(Command::export_csv);
  app_->frame();
  ASSERT_TRUE(smlab::app::test_support::frames_until_exported(*app_));
  EXPECT_TRUE(app_->ui().status_is_error) << app_->ui().status;
  EXPECT_NE(app_->ui().status.find("not-a-folder"), std::string::npos) << app_->ui().status;
  EXPECT_EQ(sorted_names(dir_), std::vector<std::string>{"not-a-folder"});
}

// Two windows on one home overwrote each other's session. The first holds the lock;
// the second finds it taken (and who holds it) and must not write; once the first is gone, the
// next window holds it.
TEST(SessionLock, OneWindowHoldsTheAutosaveAndASecondIsToldWho) {
  const fs::path dir = fs::temp_directory_path() / ("smlab-session-lock-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path autosave = dir / "session.json";
  {
    SessionLock first(autosave);
    ASSERT_EQ(first.state(), SessionLock::State::held) << first.problem();
    SessionLock second(autosave);
    EXPECT_EQ(second.state(), SessionLock::State::taken);
    EXPECT_NE(second.problem().find("process " + std::to_string(::getpid())), std::string::npos) << second.problem();
    EXPECT_NE(second.problem().find(autosave.string()), std::string::npos) << second.problem();
  }
  SessionLock later(autosave);
  EXPECT_EQ(later.state(), SessionLock::State::held) << "released with the first window";
  // A link planted where the lock file goes is not followed: no lock, the target untouched.
  const fs::path other = dir / "other.json";
  fs::create_symlink(dir / "target", other.string() + ".lock");
  SessionLock linked(other);
  EXPECT_EQ(linked.state(), SessionLock::State::failed);
  EXPECT_FALSE(fs::exists(dir / "target"));
  fs::remove_all(dir);
}

// [SECTION] Touching the plots: one pointer path, hit-tested against the plot descriptions

const PlacedPlot* placed_named(const FrameReport& report, const std::string& name) {
  for (const PlacedPlot& placed : report.placed_plots)
    if (placed.name == name) return &placed;
  return nullptr;
}

// A point of `placed` (display units) where hit_test says `accept`: a scan of the plot in 2 px steps,
// laid out at the size its text was drawn (a grid may draw it smaller than the UI font).
std::optional<ImVec2> find_point(const App& app, const PlacedPlot& placed, const plot::Style& style,
                                 const std::function<bool(const plot::Hit&)>& accept) {
  const LabView* view = app.shown_view();
  if (view == nullptr) return std::nullopt;
  const std::string name = placed.name.substr(placed.name.find('/') + 1);
  for (const NamedPlot& named : view->plots) {
    if (named.name != name) continue;
    const ImVec2 size(placed.max.x - placed.min.x, placed.max.y - placed.min.y);
    for (float y = 2.0f; y < size.y; y += 2.0f)
      for (float x = 2.0f; x < size.x; x += 2.0f)
        if (accept(plot::hit_test(named.plot, size, style, ImVec2(x, y), placed.font_size)))
          return ImVec2(placed.min.x + x, placed.min.y + y);
  }
  return std::nullopt;
}

class Touch : public Window {
 protected:
  void SetUp() override {
    Window::SetUp();
    app_->wait_for_snapshot();
    for (int frame = 0; frame < 2; ++frame) app_->frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    style_ = app_->plot_style();  // the style the plots were drawn in: the same layout to hit-test
  }
  // One press, moves through `path`, release — through the same path a browser's touch takes.
  void gesture(std::initializer_list<ImVec2> path) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    const LabView* view = app_->shown_view();
    ASSERT_NE(view, nullptr);
    UiState& ui = app_->ui();
    bool first = true;
    for (const ImVec2 point : path) {
      feed_pointer(ui, {first ? PointerEvent::Phase::press : PointerEvent::Phase::move, point}, "dashboard",
                   view->plots, style_, app_->latest_snapshot());
      first = false;
    }
    ASSERT_TRUE(ui.gesture.active()) << "no gesture started at the press";
    feed_pointer(ui, {PointerEvent::Phase::release, *path.begin()}, "dashboard", view->plots, style_,
                 app_->latest_snapshot());
    EXPECT_FALSE(ui.gesture.active());
    app_->frame();  // the gesture ends: one undo step
  }
  plot::Style style_;
};

// Dragging bar k of the distribution to a height gives key k that weight: its score (now a custom
// score vector, also in the score field) moves, every other score stays. Undo takes the drag back
// as one step.
TEST_F(Touch, DraggingADistributionBarSetsThatKeysWeightThroughItsScore) {
  UiState& ui = app_->ui();
  const Params before = ui.params;
  const PlacedPlot* distribution = placed_named(ui, "dashboard/distribution");
  ASSERT_NE(distribution, nullptr);
  const auto on_bar = find_point(*app_, *distribution, style_,
                                 [](const plot::Hit& hit) { return hit.in_data_area && hit.bar_index == 3; });
  ASSERT_TRUE(on_bar) << "no point of the distribution plot lies over bar 3";
  const auto at_six_tenths = find_point(*app_, *distribution, style_, [&](const plot::Hit& hit) {
    return hit.in_data_area && hit.bar_index == 3 && std::abs(hit.y - 0.6) < 0.01;
  });
  ASSERT_TRUE(at_six_tenths);
  gesture({*on_bar, ImVec2(on_bar->x, on_bar->y - 10.0f), *at_six_tenths});
  ASSERT_EQ(ui.params.scores.size(), static_cast<std::size_t>(before.seq_len)) << "the row became custom scores";
  EXPECT_EQ(ui.scores_text, smlab::format_scores(ui.params.scores));
  std::vector<double> row, editable;
  smlab::selected_row_scores(row, editable, before);
  for (std::size_t j = 0; j < editable.size(); ++j)
    if (j != 3) {
      EXPECT_EQ(ui.params.scores[j], editable[j]) << "score " << j << " moved";
    }
  std::vector<double> weights(ui.params.scores.size()), logits(ui.params.scores.size());
  for (std::size_t j = 0; j < logits.size(); ++j) logits[j] = ui.params.scores[j] * ui.params.score_scale;
  ASSERT_TRUE(smlab::softmax(weights, logits, ui.params.temperature));
  EXPECT_NEAR(weights[3], 0.6, 0.012) << "key 3's weight follows the pointer to 0.6";
  frame_with_keys({GLFW_KEY_Z}, true);
  EXPECT_EQ(ui.params, before) << "one undo takes the whole drag back";
}

TEST_F(Touch, PressingAHeatmapCellMakesItsRowTheShownRow) {
  UiState& ui = app_->ui();
  const PlacedPlot* map = placed_named(ui, "dashboard/attention_unscaled");
  ASSERT_NE(map, nullptr);
  const auto cell = find_point(*app_, *map, style_, [](const plot::Hit& hit) { return hit.heatmap_row == 11; });
  ASSERT_TRUE(cell);
  gesture({*cell});
  EXPECT_EQ(ui.params.row, 11);
}

TEST_F(Touch, DraggingTheLivePointOnEntropyVersusTSetsT) {
  UiState& ui = app_->ui();
  const PlacedPlot* entropy = placed_named(ui, "dashboard/entropy_t");
  ASSERT_NE(entropy, nullptr);
  const auto point = find_point(*app_, *entropy, style_, [](const plot::Hit& hit) { return hit.scatter_series == 0; });
  ASSERT_TRUE(point) << "the live point (T, H) is not on the plot";
  const auto at_tenth = find_point(*app_, *entropy, style_,
                                   [](const plot::Hit& hit) { return std::abs(std::log10(hit.x) + 1.0) < 0.02; });
  ASSERT_TRUE(at_tenth);
  gesture({*point, ImVec2(at_tenth->x, point->y)});
  EXPECT_NEAR(std::log10(ui.params.temperature), -1.0, 0.03) << "T = " << ui.params.temperature;
}

TEST_F(Touch, DraggingALivePointAlongTheParabolaMovesTSoThatKeysWeightFollows) {
  UiState& ui = app_->ui();
  const PlacedPlot* parabola = placed_named(ui, "dashboard/gradient");
  ASSERT_NE(parabola, nullptr);
  const Snapshot* snap = app_->latest_snapshot();
  ASSERT_NE(snap, nullptr);
  const int top = snap->argmax;
  const auto point = find_point(*app_, *parabola, style_, [&](const plot::Hit& hit) {
    return hit.scatter_series == 0 && hit.scatter_index == top;
  });
  ASSERT_TRUE(point);
  double lowest = 1e9, highest = -1e9;
  const auto at_point_eight = find_point(*app_, *parabola, style_, [&](const plot::Hit& hit) {
    lowest = std::min(lowest, hit.x);
    highest = std::max(highest, hit.x);
    return std::abs(hit.x - 0.8) < 0.006;
  });
  ASSERT_TRUE(at_point_eight) << "x from " << lowest << " to " << highest;
  // The scores copied first: the gesture's recompute replaces (and frees) the snapshot `snap` points at.
  const std::vector<double> scores = snap->scores;
  gesture({*point, ImVec2(at_point_eight->x, point->y)});
  std::vector<double> weights(scores.size());
  ASSERT_TRUE(smlab::softmax(weights, scores, ui.params.temperature));
  EXPECT_NEAR(weights[static_cast<std::size_t>(top)], 0.8, 0.01) << "T = " << ui.params.temperature;
}

// The weight of a key that is not the largest rises and then falls with T: of the two temperatures
// that give a weight, the one nearer the current T.
TEST(TouchTemperature, ForAWeightIsTheNearestOfTheTwoThatGiveIt) {
  // Key 1's weight: 0 as T → 0, 1/3 as T → ∞, and about 0.39 near T = 10 between: 0.35 twice.
  const std::vector<double> logits{2.0, 0.0, -10.0};
  std::vector<double> weights(logits.size());
  for (const double current : {1.0, 80.0}) {
    const double t = temperature_for_weight(logits, 1, 0.35, current);
    ASSERT_TRUE(smlab::softmax(weights, logits, t));
    EXPECT_NEAR(weights[1], 0.35, 0.005) << "from T = " << current;
    EXPECT_EQ(t < 10.0, current < 10.0) << "from T = " << current << " the nearer solution, not " << t;
  }
  const double top = temperature_for_weight(logits, 0, 0.5, 1.0);
  ASSERT_TRUE(smlab::softmax(weights, logits, top));
  EXPECT_NEAR(weights[0], 0.5, 0.005);
}

// The mouse feeds the same path: a press on a heatmap cell with the real button state.
TEST_F(Touch, TheMouseFeedsTheSamePath) {
  UiState& ui = app_->ui();
  const PlacedPlot* map = placed_named(ui, "dashboard/attention_scaled");
  ASSERT_NE(map, nullptr);
  // A row whose cell the window shows (at 1280x720 the map's lower rows lie below the fold): 6, or
  // the nearest above it that is in view.
  std::optional<ImVec2> cell;
  int row = 6;
  for (; row >= 1 && !cell; --row) {
    const auto found = find_point(*app_, *map, style_, [row](const plot::Hit& hit) { return hit.heatmap_row == row; });
    if (found && found->y < map->clip_max.y - 1.0f && found->y > map->clip_min.y + 1.0f) cell = found;
  }
  ++row;
  ASSERT_TRUE(cell) << "no row of the map is in view: clip " << map->clip_min.y << "-" << map->clip_max.y;
  click_at(*app_, *surface_, *cell, 3);
  EXPECT_EQ(ui.params.row, row) << "clicked at " << cell->x << "," << cell->y;
  EXPECT_FALSE(ui.gesture.active()) << "released";
}

// The exports run beside a real GLFW window: an offscreen context is created and destroyed while
// the window's stays usable. The test brings its own display (Xvfb, a test dependency), so it runs
// wherever the suite runs; only a machine without Xvfb installed skips it.
TEST(RealWindow, PngExportAndGifRecordingRunBesideTheWindow) {
  auto xvfb = smlab::test::XvfbDisplay::start();
  if (!xvfb) GTEST_SKIP() << "/usr/bin/Xvfb is missing or did not start (make deps-test installs xvfb)";
  smlab::platform::WindowOptions window_options;
  window_options.width = 960;
  window_options.height = 540;
  auto created = smlab::platform::Window::create(window_options);
  ASSERT_TRUE(created) << created.error().message;
  const fs::path dir = fs::temp_directory_path() / ("smlab-interaction-window-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  {
    AppOptions options;
    options.screenshot_dir = dir.string();
    App app(**created, options);
    app.frame();
    app.ui().interaction.export_scale_index = 1;
    app.ui().interaction.commands.push(Command::export_png);
    app.ui().interaction.sweep.gif_frames = 3;
    app.ui().interaction.commands.push(Command::record_gif);
    // The recording polls its evaluator between window frames, so how many frames it takes depends
    // on the machine's load: the bound only stops a recording that never ends.
    for (int frame = 0; frame < 20000 && (frame < 3 || app.ui().interaction.gif_recording || app.exporting()); ++frame)
      ASSERT_TRUE(app.frame());
    EXPECT_FALSE(app.ui().interaction.gif_recording);
    const smlab::Image after = (*created)->capture();
    EXPECT_GT(after.width, 0) << "the window still renders after the offscreen exports";
  }
  int pngs = 0, gifs = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    pngs += entry.path().extension() == ".png";
    gifs += entry.path().extension() == ".gif";
  }
  EXPECT_EQ(pngs, 1);
  EXPECT_EQ(gifs, 1);
  fs::remove_all(dir);
}

// A lab's slider records its key on hover like the dashboard's: moving the mouse down the control
// column of the normalizers lab finds the α slider, and Right then nudges α by one notch. The
// surface is tall so the lab's controls are on screen without scrolling.
TEST(LabNudge, HoveringALabSliderMakesArrowsNudgeItsKey) {
  ::unsetenv("DISPLAY");
  smlab::platform::OffscreenOptions options;
  options.width = 1280;
  options.height = 2000;
  auto created = smlab::platform::Offscreen::create(options);
  ASSERT_TRUE(created) << created.error().message;
  AppOptions app_options;
  app_options.view = smlab::View::normalizers;
  app_options.refine_trials = headless_refine_trials(app_options.params.seq_len);
  App app(**created, app_options);
  app.wait_for_snapshot();
  app.frame();
  ImGui::SetCurrentContext((*created)->imgui_context());
  ImGuiIO& io = ImGui::GetIO();
  bool found = false;
  for (float y = 40.0f; y < 1990.0f && !found; y += 6.0f) {
    io.MousePos = ImVec2(90.0f, y);
    app.frame();
    ImGui::SetCurrentContext((*created)->imgui_context());
    found = app.ui().interaction.nudge_key == "alpha";
  }
  ASSERT_TRUE(found) << "no point of the control column hovered the α slider";
  const double before = app.ui().params.alpha;
  io.KeysDown[GLFW_KEY_RIGHT] = true;
  app.frame();
  ImGui::SetCurrentContext((*created)->imgui_context());
  io.KeysDown[GLFW_KEY_RIGHT] = false;
  EXPECT_NEAR(app.ui().params.alpha, std::min(before + 0.01, 2.0), 1e-12);
}

}  // namespace

namespace {

// The command queue: asking twice before the App ran a command is asking once, taking one command
// leaves the others queued in their order, and an empty queue says so (the idle wait reads it).
TEST(CommandQueue, TakeRemovesEveryCopyOfOneCommandAndKeepsTheRest) {
  CommandQueue queue;
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.take(Command::export_csv));
  queue.push(Command::export_csv);
  queue.push(Command::screenshot);
  queue.push(Command::export_csv);
  queue.push(Command::quit);
  EXPECT_TRUE(queue.contains(Command::export_csv));
  EXPECT_TRUE(queue.take(Command::export_csv));
  EXPECT_FALSE(queue.contains(Command::export_csv));
  EXPECT_FALSE(queue.take(Command::export_csv));
  EXPECT_TRUE(queue.contains(Command::screenshot));
  EXPECT_TRUE(queue.contains(Command::quit));
  EXPECT_TRUE(queue.take(Command::quit));
  EXPECT_TRUE(queue.take(Command::screenshot));
  EXPECT_TRUE(queue.empty());
}

}  // namespace
