// Tests for the platform layer and the file exporters: headless EGL rendering with no display,
// render scale and resizing, fonts, atomic file writes and PNG round trips.
//
// [SECTION] Helpers (environment, probe scene, temporary directories)
// [SECTION] Offscreen rendering
// [SECTION] Fonts
// [SECTION] Window without a display
// [SECTION] The window's key queue
// [SECTION] Atomic file writes
// [SECTION] PNG and screenshot naming

#include <glad/gl.h>

#include "platform/gl_check.hpp"
#include "files/atomic_file.hpp"
#include "export/png.hpp"
#include "platform/fonts.hpp"
#include "platform/key_queue.hpp"
#include "platform/offscreen.hpp"
#include "platform/window.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <gtest/gtest.h>
#include <imgui.h>
#include <stb_image.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <sstream>
#include <string>
#include <grp.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;
using smlab::Image;
using smlab::Rgba8;
using smlab::platform::Offscreen;
using smlab::platform::OffscreenOptions;

// ---------------------------------------------------------------------------------------------
// [SECTION] Helpers (environment, probe scene, temporary directories)
// ---------------------------------------------------------------------------------------------

// Sets (or, with nullopt, unsets) an environment variable for one test and restores it afterwards.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) {
      old_value_ = old;
    }
    if (value) {
      ::setenv(name, value->c_str(), 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_value_) {
      ::setenv(name_, old_value_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_value_;
};

// The probe scene: one ImGui window with text and a filled rectangle at fixed display coordinates.
const ImVec2 kProbeRectMin{100.0f, 120.0f};
const ImVec2 kProbeRectMax{220.0f, 180.0f};
constexpr Rgba8 kProbeColor{230, 40, 200, 255};
// Clear colour chosen so that float -> 8-bit conversion is exact: 0.2, 0.4, 0.6 x 255 = 51, 102, 153.
constexpr Rgba8 kClearColor{51, 102, 153, 255};

void draw_probe_scene() {
  ImGui::SetNextWindowPos(ImVec2(40.0f, 30.0f), ImGuiCond_Always);
  ImGui::SetNextWindowSize(ImVec2(400.0f, 240.0f), ImGuiCond_Always);
  ImGui::Begin("Probe");
  ImGui::TextUnformatted("softmax(x / T): the probe window");
  ImGui::GetWindowDrawList()->AddRectFilled(kProbeRectMin, kProbeRectMax,
                                            IM_COL32(kProbeColor.r, kProbeColor.g, kProbeColor.b, kProbeColor.a));
  ImGui::End();
}

// Renders `frames` frames of the probe scene (the first frame lays windows out) and captures the last.
Image render_probe(smlab::platform::Surface& surface, int frames = 2) {
  surface.set_clear_color(ImVec4(0.2f, 0.4f, 0.6f, 1.0f));
  for (int frame = 0; frame < frames; ++frame) {
    if (!surface.begin_frame()) {
      return {};
    }
    draw_probe_scene();
    surface.end_frame();
  }
  return surface.capture();
}

std::unique_ptr<Offscreen> make_offscreen(const OffscreenOptions& options) {
  auto created = Offscreen::create(options);
  EXPECT_TRUE(created) << "Offscreen::create(" << options.width << "x" << options.height << " @"
                       << options.framebuffer_scale << ") failed: " << created.error().message;
  return created ? std::move(*created) : nullptr;
}

std::string describe(Rgba8 color) {
  std::ostringstream text;
  text << "(" << int{color.r} << ", " << int{color.g} << ", " << int{color.b} << ", " << int{color.a} << ")";
  return text.str();
}

std::size_t count_distinct_colors(const Image& image) {
  std::set<std::uint32_t> colors;
  for (std::size_t offset = 0; offset + 3 < image.pixels.size(); offset += 4) {
    colors.insert(static_cast<std::uint32_t>(image.pixels[offset]) << 24U |
                  static_cast<std::uint32_t>(image.pixels[offset + 1]) << 16U |
                  static_cast<std::uint32_t>(image.pixels[offset + 2]) << 8U | image.pixels[offset + 3]);
  }
  return colors.size();
}

// A fresh directory under the test temp dir, removed (after restoring write permission) at the end.
class TempDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::path(::testing::TempDir()) / "smlab-platform-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr) << "mkdtemp(" << pattern << ")";
    dir_ = pattern;
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(dir_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(dir_, ignored);
  }

  // Names of everything in `directory` (to prove no temporary file was left behind).
  static std::vector<std::string> entries_of(const fs::path& directory) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(directory)) {
      names.push_back(entry.path().filename().string());
    }
    return names;
  }

  static std::string read_text(const fs::path& path) {
    std::ifstream stream(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>()};
  }

  fs::path dir_;
};

// ---------------------------------------------------------------------------------------------
// [SECTION] Offscreen rendering
// ---------------------------------------------------------------------------------------------

TEST(Offscreen, RendersImGuiWithoutAnyDisplay) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  ScopedEnv no_wayland("WAYLAND_DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 640, .height = 400});
  ASSERT_NE(surface, nullptr);

  const Image image = render_probe(*surface);
  ASSERT_EQ(image.width, 640);
  ASSERT_EQ(image.height, 400);
  ASSERT_TRUE(image.well_formed());
  EXPECT_EQ(surface->framebuffer_size(), (smlab::platform::PixelSize{640, 400}));

  // Window background, title bar, text and the rectangle: far more than one colour.
  EXPECT_GT(count_distinct_colors(image), 4U);
  // The rectangle is where it was drawn (top row first: y grows downwards like ImGui's).
  const int centre_x = static_cast<int>((kProbeRectMin.x + kProbeRectMax.x) / 2);
  const int centre_y = static_cast<int>((kProbeRectMin.y + kProbeRectMax.y) / 2);
  EXPECT_EQ(image.pixel(centre_x, centre_y), kProbeColor)
      << "at (" << centre_x << ", " << centre_y << "): " << describe(image.pixel(centre_x, centre_y));
  EXPECT_EQ(image.pixel(static_cast<int>(kProbeRectMin.x) + 1, static_cast<int>(kProbeRectMin.y) + 1), kProbeColor);
  EXPECT_EQ(image.pixel(static_cast<int>(kProbeRectMax.x) - 2, static_cast<int>(kProbeRectMax.y) - 2), kProbeColor);
  // Outside every window the clear colour shows.
  EXPECT_EQ(image.pixel(600, 380), kClearColor) << describe(image.pixel(600, 380));
  EXPECT_EQ(image.pixel(5, 5), kClearColor) << describe(image.pixel(5, 5));
}

// Threads of this process, from /proc/self/task.
std::size_t thread_count() {
  return static_cast<std::size_t>(std::distance(fs::directory_iterator("/proc/self/task"), fs::directory_iterator()));
}

// Offscreens share one EGL display: one that outlives another keeps rendering, and when the last
// goes the display is terminated, so the driver's threads (llvmpipe's rasterizer and disk-cache
// threads) end too. Left running at process exit, LeakSanitizer's tracer crashed on them in CI.
TEST(Offscreen, OverlappingSurfacesShareTheDisplayAndTheLastOneEndsTheDriverThreads) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  const std::size_t before = thread_count();
  auto first = make_offscreen({.width = 320, .height = 240});
  ASSERT_NE(first, nullptr);
  const Image first_image = render_probe(*first);
  auto second = make_offscreen({.width = 320, .height = 240});
  ASSERT_NE(second, nullptr);
  EXPECT_GT(thread_count(), before) << "the driver started no threads: this test checks nothing here";
  first.reset();  // the second still has its display
  EXPECT_EQ(render_probe(*second).pixels, first_image.pixels);
  second.reset();
  EXPECT_EQ(thread_count(), before) << "driver threads outlive the last Offscreen";
  auto again = make_offscreen({.width = 320, .height = 240});  // the display initialises again
  ASSERT_NE(again, nullptr);
  EXPECT_EQ(render_probe(*again).pixels, first_image.pixels);
}

// Where EGL lacks Mesa's surfaceless platform (some GPU drivers), an EGL device is opened instead
// (EGL_EXT_platform_device). SMLAB_EGL_PLATFORM=device forces that path here, where Mesa offers
// both: the probe must render pixel for pixel as on the surfaceless display.
TEST(Offscreen, AnEglDeviceRendersTheSameAsTheSurfacelessDisplay) {
  Image surfaceless;
  {
    ScopedEnv only_surfaceless("SMLAB_EGL_PLATFORM", "surfaceless");
    auto surface = make_offscreen({.width = 320, .height = 200});
    ASSERT_NE(surface, nullptr);
    surfaceless = render_probe(*surface);
  }
  ScopedEnv only_device("SMLAB_EGL_PLATFORM", "device");
  auto surface = make_offscreen({.width = 320, .height = 200});
  ASSERT_NE(surface, nullptr);
  const Image device = render_probe(*surface);
  ASSERT_TRUE(device.well_formed());
  EXPECT_GT(count_distinct_colors(device), 4U);
  EXPECT_TRUE(device.pixels == surfaceless.pixels) << "the EGL device's frame differs from the surfaceless one";
}

TEST(Offscreen, AnUnknownEglPlatformChoiceIsAOneLineError) {
  ScopedEnv glx("SMLAB_EGL_PLATFORM", "glx");
  const auto created = Offscreen::create({.width = 64, .height = 64});
  EXPECT_FALSE(created);
  EXPECT_EQ(created.error().message,
            "no headless graphics: SMLAB_EGL_PLATFORM='glx' is not allowed: auto, surfaceless or device");
}

// The check must see a real error: binding a texture name that was never generated is
// GL_INVALID_OPERATION in a core profile. Release builds compile the check out (then skip).
TEST(GlChecks, AProvokedErrorIsReportedAndCounted) {
  if (!smlab::platform::gl_checks_enabled()) GTEST_SKIP() << "GL checks are compiled out of this build type";
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 64, .height = 64});
  ASSERT_NE(surface, nullptr);
  render_probe(*surface);
  smlab::platform::check_gl_errors("test setup");
  const std::uint64_t before = smlab::platform::gl_error_count();
  glBindTexture(GL_TEXTURE_2D, 0x7FFFFFFF);
  smlab::platform::check_gl_errors("binding a texture name never generated");
  EXPECT_EQ(smlab::platform::gl_error_count(), before + 1);
  smlab::platform::check_gl_errors("nothing since");
  EXPECT_EQ(smlab::platform::gl_error_count(), before + 1);
}

TEST(Offscreen, ScaleTwoRendersTheSameLayoutAtTwiceThePixels) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 640, .height = 400, .framebuffer_scale = 2.0f});
  ASSERT_NE(surface, nullptr);
  EXPECT_FLOAT_EQ(surface->framebuffer_scale(), 2.0f);

  const Image image = render_probe(*surface);
  ASSERT_EQ(image.width, 1280);
  ASSERT_EQ(image.height, 800);
  // Display coordinates map to twice the pixel coordinates.
  const int scaled_min_x = static_cast<int>(2 * kProbeRectMin.x);
  const int scaled_min_y = static_cast<int>(2 * kProbeRectMin.y);
  const int scaled_max_x = static_cast<int>(2 * kProbeRectMax.x);
  const int scaled_max_y = static_cast<int>(2 * kProbeRectMax.y);
  EXPECT_EQ(image.pixel(scaled_min_x + 1, scaled_min_y + 1), kProbeColor);
  EXPECT_EQ(image.pixel(scaled_max_x - 2, scaled_max_y - 2), kProbeColor);
  EXPECT_NE(image.pixel(scaled_max_x + 2, scaled_max_y + 2), kProbeColor);
  EXPECT_EQ(image.pixel(1270, 790), kClearColor) << describe(image.pixel(1270, 790));
}

TEST(Offscreen, NonIntegerScaleFillsTheWholeFramebuffer) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  // 1600 x 2.4 = 3840 (a 4K-wide export): the backend's viewport must cover the last column too.
  auto surface = make_offscreen({.width = 1600, .height = 900, .framebuffer_scale = 2.4f});
  ASSERT_NE(surface, nullptr);
  ASSERT_EQ(surface->framebuffer_size(), (smlab::platform::PixelSize{3840, 2160}));
  surface->set_clear_color(ImVec4(0.2f, 0.4f, 0.6f, 1.0f));
  ASSERT_TRUE(surface->begin_frame());
  ImGui::GetForegroundDrawList()->AddRectFilled(ImVec2(0, 0), ImVec2(1600, 900), IM_COL32(230, 40, 200, 255));
  surface->end_frame();
  const Image image = surface->capture();
  ASSERT_EQ(image.width, 3840);
  EXPECT_EQ(image.pixel(3839, 2159), kProbeColor) << describe(image.pixel(3839, 2159));
  EXPECT_EQ(image.pixel(0, 0), kProbeColor) << describe(image.pixel(0, 0));
}

TEST(Offscreen, ResizeChangesTheCaptureSizeAndRejectsBadSizes) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 640, .height = 400});
  ASSERT_NE(surface, nullptr);
  const auto resized = surface->resize(320, 200, 1.5f);
  ASSERT_TRUE(resized.ok()) << resized.error().message;
  EXPECT_EQ(surface->layout_size(), (smlab::platform::PixelSize{320, 200}));
  const Image image = render_probe(*surface);
  EXPECT_EQ(image.width, 480);
  EXPECT_EQ(image.height, 300);

  for (const auto& [width, height, scale] : {std::tuple{0, 200, 1.0f}, std::tuple{320, -1, 1.0f},
                                             std::tuple{320, 200, 0.0f}, std::tuple{100000, 10, 1.0f}}) {
    const auto refused = surface->resize(width, height, scale);
    ASSERT_FALSE(refused.ok()) << "resize(" << width << ", " << height << ", " << scale << ") should fail";
    // A size this GL cannot give is a usage error (--scale too large: exit 2), not a missing context.
    EXPECT_EQ(smlab::exit_code(refused.error().kind), 2) << refused.error().message;
    EXPECT_EQ(surface->framebuffer_size(), (smlab::platform::PixelSize{480, 300}))
        << "a failed resize(" << width << ", " << height << ", " << scale << ") must keep the old size";
  }
}

TEST(Offscreen, CaptureIsEmptyBeforeTheFirstFrameAndInsideAFrame) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 64, .height = 32});
  ASSERT_NE(surface, nullptr);
  EXPECT_TRUE(surface->capture().empty());
  ASSERT_TRUE(surface->begin_frame());
  EXPECT_TRUE(surface->capture().empty());
  surface->end_frame();
  EXPECT_EQ(surface->capture().width, 64);
}

TEST(Offscreen, TimeAdvancesOneSixtiethPerFrameAndCloseEndsTheLoop) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 64, .height = 32});
  ASSERT_NE(surface, nullptr);
  for (int frame = 0; frame < 30; ++frame) {
    ASSERT_TRUE(surface->begin_frame());
    EXPECT_FLOAT_EQ(ImGui::GetIO().DeltaTime, 1.0f / 60.0f);
    surface->end_frame();
  }
  EXPECT_DOUBLE_EQ(surface->time_seconds(), 0.5);
  surface->request_close();
  EXPECT_FALSE(surface->begin_frame());
}

TEST(Offscreen, TwoSurfacesAlternatingFramesKeepTheirOwnContent) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto first = make_offscreen({.width = 200, .height = 100});
  auto second = make_offscreen({.width = 300, .height = 150});
  ASSERT_NE(first, nullptr);
  ASSERT_NE(second, nullptr);
  first->set_clear_color(ImVec4(1.0f, 0.0f, 0.0f, 1.0f));
  second->set_clear_color(ImVec4(0.0f, 0.0f, 1.0f, 1.0f));
  for (int frame = 0; frame < 3; ++frame) {
    for (auto* surface : {first.get(), second.get()}) {
      ASSERT_TRUE(surface->begin_frame());
      ImGui::Text("frame %d", frame);
      surface->end_frame();
    }
  }
  const Image red = first->capture();
  const Image blue = second->capture();
  ASSERT_EQ(red.width, 200);
  ASSERT_EQ(blue.width, 300);
  // (5, 5) is outside ImGui's implicit "Debug" window (placed at 60, 60), so it shows the clear colour.
  EXPECT_EQ(red.pixel(5, 5), (Rgba8{255, 0, 0, 255})) << describe(red.pixel(5, 5));
  EXPECT_EQ(blue.pixel(5, 5), (Rgba8{0, 0, 255, 255})) << describe(blue.pixel(5, 5));
  EXPECT_GT(count_distinct_colors(red), 2U) << "the text window should have been drawn too";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Fonts
// ---------------------------------------------------------------------------------------------

TEST(Fonts, MissingFontFallsBackToTheBuiltInFontWithAWarning) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 320, .height = 200});
  ASSERT_NE(surface, nullptr);
  const std::string missing = "/nonexistent/smlab/NoSuchFont.ttf";
  const auto fonts = smlab::platform::load_ui_fonts(
      ImGui::GetIO(), {.merge_chinese = true, .latin_font_path = missing, .chinese_font_path = missing});
  EXPECT_NE(fonts.font, nullptr);
  EXPECT_NE(fonts.warning.find(missing), std::string::npos) << fonts.warning;
  EXPECT_NE(fonts.warning.find("Chinese"), std::string::npos) << fonts.warning;
  const Image image = render_probe(*surface);
  EXPECT_GT(count_distinct_colors(image), 4U);
}

TEST(Fonts, NonFontFileIsRefusedNotAsserted) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 320, .height = 200});
  ASSERT_NE(surface, nullptr);
  // Any file that is not TrueType: this test's own executable will do.
  const std::string not_a_font = fs::read_symlink("/proc/self/exe").string();
  const auto fonts = smlab::platform::load_ui_fonts(ImGui::GetIO(), {.latin_font_path = not_a_font});
  EXPECT_NE(fonts.warning.find("not a TrueType"), std::string::npos) << fonts.warning;
  EXPECT_FALSE(render_probe(*surface).empty());
}

TEST(Fonts, DejaVuWithChineseLoadsWithoutWarningsAndReachesTheNextFrame) {
  if (!fs::exists(smlab::platform::kDejaVuSansPath) || !fs::exists(smlab::platform::kWqyMicroHeiPath)) {
    GTEST_SKIP() << "fonts-dejavu-core or fonts-wqy-microhei not installed";
  }
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 320, .height = 200, .framebuffer_scale = 2.0f});
  ASSERT_NE(surface, nullptr);
  ASSERT_FALSE(render_probe(*surface).empty());  // the built-in atlas is on the GPU; now replace it
  const auto fonts = smlab::platform::load_ui_fonts(
      ImGui::GetIO(), {.pixel_size = 18.0f, .framebuffer_scale = surface->framebuffer_scale(), .merge_chinese = true});
  EXPECT_TRUE(fonts.warning.empty()) << fonts.warning;
  EXPECT_FLOAT_EQ(ImGui::GetIO().FontGlobalScale, 0.5f);
  ASSERT_TRUE(surface->begin_frame());
  EXPECT_TRUE(ImGui::GetIO().Fonts->IsBuilt());
  EXPECT_NE(ImGui::GetFont()->FindGlyphNoFallback(0x6E29), nullptr) << "U+6E29 (温) should be merged in";
  EXPECT_NE(ImGui::GetFont()->FindGlyphNoFallback(0x221A), nullptr) << "U+221A (√) should come from DejaVu";
  ImGui::TextUnformatted("温度 T = 0.5, √d_k");
  EXPECT_NEAR(ImGui::GetFontSize(), 18.0f, 0.01f);  // rasterised at 36 px, laid out at 18
  surface->end_frame();
  EXPECT_EQ(surface->capture().width, 640);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Window without a display
// ---------------------------------------------------------------------------------------------

TEST(Window, NoDisplayIsAnErrorValueNotACrash) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  const auto created = smlab::platform::Window::create();
  ASSERT_FALSE(created);
  EXPECT_EQ(smlab::exit_code(created.error().kind), 4) << "no display is no graphics context";
  EXPECT_NE(created.error().message.find("DISPLAY"), std::string::npos) << created.error().message;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] The window's key queue
// ---------------------------------------------------------------------------------------------

namespace key_queue {

using smlab::platform::QueuedKey;

QueuedKey down(int key) { return {key, 0, GLFW_PRESS, 0, 0}; }
QueuedKey up(int key) { return {key, 0, GLFW_RELEASE, 0, 0}; }

// A press as Dear ImGui 1.86 reads it: the key went down since the frame before, and the
// modifiers that were down at that frame's NewFrame.
struct Press {
  int key = 0;
  bool ctrl = false, shift = false;
  friend bool operator==(const Press&, const Press&) = default;
};

std::ostream& operator<<(std::ostream& out, const Press& press) {
  return out << (press.ctrl ? "Ctrl+" : "") << (press.shift ? "Shift+" : "") << press.key;
}

// The window's loop over `polls` (the batches glfwPollEvents delivers, one before each frame):
// each frame feeds keys_for_one_frame of the queue into the key state, then ImGui reads it once.
std::vector<Press> presses_read(const std::vector<std::vector<QueuedKey>>& polls) {
  std::deque<QueuedKey> queue;
  std::set<int> held, held_before;
  std::vector<Press> presses;
  for (std::size_t frame = 0; frame < 100 && (frame < polls.size() || !queue.empty()); ++frame) {
    if (frame < polls.size()) queue.insert(queue.end(), polls[frame].begin(), polls[frame].end());
    const std::size_t count = smlab::platform::keys_for_one_frame(queue);
    EXPECT_TRUE(count > 0 || queue.empty()) << "a frame took nothing from a queue of " << queue.size();
    for (std::size_t k = 0; k < count; ++k) {
      const QueuedKey event = queue.front();
      queue.pop_front();
      if (event.action == GLFW_PRESS)
        held.insert(event.key);
      else
        held.erase(event.key);
    }
    const bool ctrl = held.count(GLFW_KEY_LEFT_CONTROL) > 0, shift = held.count(GLFW_KEY_LEFT_SHIFT) > 0;
    for (const int key : held)
      if (held_before.count(key) == 0 && !smlab::platform::is_modifier_key(key)) presses.push_back({key, ctrl, shift});
    held_before = held;
  }
  return presses;
}

// Every way to deliver `events` in consecutive batches: bit k of `cuts` ends a batch after event k.
std::vector<std::vector<QueuedKey>> batches(const std::vector<QueuedKey>& events, unsigned cuts) {
  std::vector<std::vector<QueuedKey>> polls(1);
  for (std::size_t k = 0; k < events.size(); ++k) {
    polls.back().push_back(events[k]);
    if (k + 1 < events.size() && ((cuts >> k) & 1u) != 0) polls.emplace_back();
  }
  return polls;
}

void expect_read_as(const std::vector<QueuedKey>& events, const std::vector<Press>& expected) {
  const unsigned splits = 1u << (events.size() - 1);
  for (unsigned cuts = 0; cuts < splits; ++cuts) {
    const auto polls = batches(events, cuts);
    EXPECT_EQ(presses_read(polls), expected)
        << "delivered in " << polls.size() << " batches (cuts 0x" << std::hex << cuts << std::dec << ")";
  }
}

}  // namespace key_queue

// `xdotool key ctrl+z` (and remote desktops, macro keys) send Ctrl↓ Z↓ Ctrl↑ Z↑ at once. However
// they fall into polls, the window reads one Ctrl+Z: Ctrl↑ never joins Z↓'s frame.
TEST(KeyQueue, AChordSentAtOnceIsOneChordHoweverItIsBatched) {
  using namespace key_queue;
  expect_read_as({down(GLFW_KEY_LEFT_CONTROL), down(GLFW_KEY_Z), up(GLFW_KEY_LEFT_CONTROL), up(GLFW_KEY_Z)},
                 {{GLFW_KEY_Z, true, false}});
}

TEST(KeyQueue, ChordsBackToBackKeepTheirOwnModifiers) {
  using namespace key_queue;
  expect_read_as({down(GLFW_KEY_LEFT_CONTROL), down(GLFW_KEY_LEFT_SHIFT), down(GLFW_KEY_Z), up(GLFW_KEY_LEFT_SHIFT),
                  up(GLFW_KEY_LEFT_CONTROL), up(GLFW_KEY_Z), down(GLFW_KEY_LEFT_CONTROL), down(GLFW_KEY_Y),
                  up(GLFW_KEY_LEFT_CONTROL), up(GLFW_KEY_Y), down(GLFW_KEY_O), up(GLFW_KEY_O)},
                 {{GLFW_KEY_Z, true, true}, {GLFW_KEY_Y, true, false}, {GLFW_KEY_O, false, false}});
}

TEST(KeyQueue, AKeyPressedBeforeItsModifierIsAPlainPress) {
  using namespace key_queue;
  expect_read_as({down(GLFW_KEY_Z), down(GLFW_KEY_LEFT_CONTROL), up(GLFW_KEY_Z), up(GLFW_KEY_LEFT_CONTROL)},
                 {{GLFW_KEY_Z, false, false}});
}

// A presentation clicker taps faster than frames: every tap is read, none twice.
TEST(KeyQueue, TapsWithinOneFrameAreEachRead) {
  using namespace key_queue;
  expect_read_as(
      {down(GLFW_KEY_PAGE_DOWN), up(GLFW_KEY_PAGE_DOWN), down(GLFW_KEY_PAGE_DOWN), up(GLFW_KEY_PAGE_DOWN),
       down(GLFW_KEY_PAGE_DOWN), up(GLFW_KEY_PAGE_DOWN)},
      {{GLFW_KEY_PAGE_DOWN, false, false}, {GLFW_KEY_PAGE_DOWN, false, false}, {GLFW_KEY_PAGE_DOWN, false, false}});
}

// Typed characters travel with the keys around them, in order, and never hold the queue.
TEST(KeyQueue, CharactersGoWithTheirKeysInOrder) {
  const std::deque<smlab::platform::QueuedKey> queue = {
      {GLFW_KEY_A, 0, GLFW_PRESS, 0, 0}, {-1, 0, 0, 0, 'a'}, {GLFW_KEY_A, 0, GLFW_RELEASE, 0, 0}};
  EXPECT_EQ(smlab::platform::keys_for_one_frame(queue), 2u) << "a↓ and its character; a↑ the frame after";
  EXPECT_EQ(smlab::platform::keys_for_one_frame({{-1, 0, 0, 0, 'x'}, {-1, 0, 0, 0, 'y'}}), 2u);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Atomic file writes
// ---------------------------------------------------------------------------------------------

using AtomicFile = TempDirTest;

// write_file_atomically's outcome as seen by an unprivileged user: in this process when it is not
// root, else in a child that drops to nobody (65534) first and reports back through a pipe.
struct WriteOutcome {
  bool ok = false;
  std::string message;
};
WriteOutcome write_as_unprivileged_user(const fs::path& target, const std::string& content) {
  if (::geteuid() != 0) {
    const auto written = smlab::files::write_file_atomically(target, content);
    return {written.ok(), written.ok() ? std::string() : written.error().message};
  }
  int channel[2];
  if (::pipe(channel) != 0) return {false, "pipe failed"};
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(channel[0]);
    const gid_t nobody = 65534;
    if (::setgroups(0, nullptr) != 0 || ::setresgid(nobody, nobody, nobody) != 0 ||
        ::setresuid(nobody, nobody, nobody) != 0)
      ::_exit(2);
    const auto written = smlab::files::write_file_atomically(target, content);
    const std::string message = written.ok() ? std::string() : written.error().message;
    const ssize_t sent = ::write(channel[1], message.data(), message.size());
    ::_exit(sent == static_cast<ssize_t>(message.size()) && written.ok() ? 0 : 1);
  }
  ::close(channel[1]);
  std::string message;
  char buffer[512];
  for (ssize_t got; (got = ::read(channel[0], buffer, sizeof buffer)) > 0;) message.append(buffer, got);
  ::close(channel[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) == 2) return {false, "could not drop to the user nobody"};
  return {WEXITSTATUS(status) == 0, message};
}

TEST_F(AtomicFile, WritesANewFileAndLeavesNothingElse) {
  const fs::path target = dir_ / "numbers.csv";
  const auto error = smlab::files::write_file_atomically(target, "index,probability\n0,0.09\n");
  ASSERT_TRUE(error.ok()) << error.error().message;
  EXPECT_EQ(read_text(target), "index,probability\n0,0.09\n");
  EXPECT_EQ(entries_of(dir_), std::vector<std::string>{"numbers.csv"});
}

TEST_F(AtomicFile, ExistingFileIsNotOverwrittenByDefault) {
  const fs::path target = dir_ / "keep.txt";
  ASSERT_TRUE(smlab::files::write_file_atomically(target, "original").ok());
  const auto error = smlab::files::write_file_atomically(target, "replacement");
  ASSERT_FALSE(error.ok()) << "second write to " << target << " should have been refused";
  EXPECT_NE(error.error().message.find(target.string()), std::string::npos) << error.error().message;
  EXPECT_EQ(read_text(target), "original");
  EXPECT_EQ(entries_of(dir_), std::vector<std::string>{"keep.txt"});
}

TEST_F(AtomicFile, OverwriteReplacesTheContentAndKeepsPermissions) {
  const fs::path target = dir_ / "replace.txt";
  ASSERT_TRUE(smlab::files::write_file_atomically(target, "old content that is longer").ok());
  fs::permissions(target, fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  const auto error = smlab::files::write_file_atomically(target, "new", /*overwrite=*/true);
  ASSERT_TRUE(error.ok()) << error.error().message;
  EXPECT_EQ(read_text(target), "new");
  EXPECT_EQ(fs::status(target).permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write | fs::perms::group_read);
  EXPECT_EQ(entries_of(dir_), std::vector<std::string>{"replace.txt"});
}

TEST_F(AtomicFile, BinaryBytesArriveUnchanged) {
  const fs::path target = dir_ / "bytes.bin";
  std::vector<std::uint8_t> bytes(70000);
  for (std::size_t index = 0; index < bytes.size(); ++index) {
    bytes[index] = static_cast<std::uint8_t>(index * 131U % 256U);
  }
  ASSERT_TRUE(smlab::files::write_file_atomically(target, bytes).ok());
  const std::string text = read_text(target);
  ASSERT_EQ(text.size(), bytes.size());
  const auto same_byte = [](std::uint8_t expected, char actual) {
    return expected == static_cast<std::uint8_t>(actual);
  };
  EXPECT_TRUE(std::equal(bytes.begin(), bytes.end(), text.begin(), same_byte));
}

TEST_F(AtomicFile, MissingDirectoryFailsNamingThePath) {
  const fs::path target = dir_ / "no" / "such" / "dir" / "out.png";
  const auto error = smlab::files::write_file_atomically(target, "x");
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().message.find(target.string()), std::string::npos) << error.error().message;
  EXPECT_NE(error.error().message.find("No such file or directory"), std::string::npos) << error.error().message;
  EXPECT_EQ(smlab::exit_code(error.error().kind), 3) << "a file that cannot be written is a file error";
  EXPECT_TRUE(entries_of(dir_).empty());
}

// Root ignores permission bits, so as root (CI) the write runs in a child process that has dropped
// to the user nobody, for whom a 0555 folder is as read-only as it is to its owner otherwise.
TEST_F(AtomicFile, ReadOnlyDirectoryFailsAndLeavesNoTemporaryFile) {
  const fs::path locked = dir_ / "locked";
  fs::create_directory(locked);
  ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);  // nobody must reach the folder to be refused by it
  ASSERT_EQ(::chmod(locked.c_str(), 0555), 0);
  const fs::path target = locked / "out.csv";
  const auto outcome = write_as_unprivileged_user(target, "x");
  ::chmod(locked.c_str(), 0755);
  ASSERT_FALSE(outcome.ok) << "writing into a 0555 directory should fail";
  EXPECT_NE(outcome.message.find(target.string()), std::string::npos) << outcome.message;
  EXPECT_NE(outcome.message.find("Permission denied"), std::string::npos) << outcome.message;
  EXPECT_TRUE(entries_of(locked).empty());
}

TEST_F(AtomicFile, TargetThatIsADirectoryFails) {
  const fs::path target = dir_ / "a-directory";
  fs::create_directory(target);
  EXPECT_FALSE(smlab::files::write_file_atomically(target, "x", /*overwrite=*/true).ok());
  EXPECT_EQ(entries_of(dir_), std::vector<std::string>{"a-directory"});
}

TEST_F(AtomicFile, EnsureDirectoryCreatesParentsAndReportsObstacles) {
  const fs::path nested = dir_ / "a" / "b" / "c";
  const auto error = smlab::files::ensure_directory(nested);
  ASSERT_TRUE(error.ok()) << error.error().message;
  EXPECT_TRUE(fs::is_directory(nested));
  EXPECT_TRUE(smlab::files::ensure_directory(nested).ok()) << "an existing directory is fine";

  const fs::path file = dir_ / "plain-file";
  ASSERT_TRUE(smlab::files::write_file_atomically(file, "x").ok());
  const auto blocked = smlab::files::ensure_directory(file / "sub");
  ASSERT_FALSE(blocked.ok());
  EXPECT_NE(blocked.error().message.find((file / "sub").string()), std::string::npos) << blocked.error().message;
  EXPECT_FALSE(smlab::files::ensure_directory(file).ok()) << "a file is not a directory";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] PNG and screenshot naming
// ---------------------------------------------------------------------------------------------

using Png = TempDirTest;

// Decodes a PNG file with stb_image into RGBA8.
Image decode_png(const fs::path& path) {
  Image image;
  int channels_in_file = 0;
  stbi_uc* data = stbi_load(path.c_str(), &image.width, &image.height, &channels_in_file, Image::kChannels);
  if (data == nullptr) {
    return {};
  }
  image.pixels.assign(data, data + static_cast<std::size_t>(image.width) * image.height * Image::kChannels);
  stbi_image_free(data);
  return image;
}

TEST_F(Png, SyntheticImageRoundTripsExactly) {
  Image image{.width = 37, .height = 19, .pixels = {}};  // odd sizes catch stride mistakes
  for (int y = 0; y < image.height; ++y) {
    for (int x = 0; x < image.width; ++x) {
      image.pixels.insert(image.pixels.end(),
                          {static_cast<std::uint8_t>(x * 7), static_cast<std::uint8_t>(y * 13),
                           static_cast<std::uint8_t>((x + y) * 3), static_cast<std::uint8_t>(255 - x)});
    }
  }
  const fs::path target = dir_ / "synthetic.png";
  const auto error = smlab::exporting::write_png(target, image);
  ASSERT_TRUE(error.ok()) << error.error().message;
  const Image decoded = decode_png(target);
  EXPECT_EQ(decoded.width, image.width);
  EXPECT_EQ(decoded.height, image.height);
  EXPECT_EQ(decoded.pixels, image.pixels);
}

TEST_F(Png, OffscreenCaptureRoundTripsExactly) {
  ScopedEnv no_display("DISPLAY", std::nullopt);
  auto surface = make_offscreen({.width = 320, .height = 200});
  ASSERT_NE(surface, nullptr);
  const Image image = render_probe(*surface);
  ASSERT_FALSE(image.empty());
  const fs::path target = dir_ / "capture.png";
  ASSERT_TRUE(smlab::exporting::write_png(target, image).ok());
  const Image decoded = decode_png(target);
  EXPECT_EQ(decoded.width, 320);
  EXPECT_EQ(decoded.height, 200);
  EXPECT_EQ(decoded.pixels, image.pixels);
}

TEST_F(Png, MalformedImageIsRefusedAndWritesNothing) {
  const Image wrong_size{.width = 4, .height = 4, .pixels = std::vector<std::uint8_t>(10)};
  const fs::path target = dir_ / "bad.png";
  const auto error = smlab::exporting::write_png(target, wrong_size);
  ASSERT_FALSE(error.ok());
  EXPECT_NE(error.error().message.find(target.string()), std::string::npos) << error.error().message;
  EXPECT_FALSE(smlab::exporting::write_png(dir_ / "empty.png", Image{}).ok());
  EXPECT_TRUE(entries_of(dir_).empty());
}

TEST(ScreenshotNames, TimestampIsLocalTimeWithDashes) {
  ScopedEnv utc("TZ", "UTC");
  ::tzset();
  const auto now = std::chrono::system_clock::from_time_t(1795642803);  // 2026-11-25 21:40:03 UTC
  EXPECT_EQ(smlab::exporting::timestamped_name("softmax-lab", now), "softmax-lab-2026-11-25_21-40-03.png");
  EXPECT_EQ(smlab::exporting::timestamped_name("sweep", now, ".gif"), "sweep-2026-11-25_21-40-03.gif");
}

TEST(ScreenshotNames, DirectoryPrefersXdgPicturesThenHome) {
  {
    ScopedEnv pictures("XDG_PICTURES_DIR", "/srv/pictures");
    EXPECT_EQ(smlab::exporting::default_screenshot_dir(), fs::path("/srv/pictures/softmax-lab"));
  }
  ScopedEnv no_pictures("XDG_PICTURES_DIR", std::nullopt);
  ScopedEnv home("HOME", "/home/student");
  EXPECT_EQ(smlab::exporting::default_screenshot_dir(), fs::path("/home/student/Pictures/softmax-lab"));
}

TEST_F(Png, SaveScreenshotCreatesTheFolderAndNeverOverwrites) {
  ScopedEnv utc("TZ", "UTC");
  ::tzset();
  const auto now = std::chrono::system_clock::from_time_t(1795642803);
  const Image image{.width = 2, .height = 1, .pixels = {1, 2, 3, 255, 4, 5, 6, 255}};
  const fs::path folder = dir_ / "Pictures" / "softmax-lab";
  const auto first = smlab::exporting::save_screenshot(image, folder, now);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(*first, folder / "softmax-lab-2026-11-25_21-40-03.png");
  const auto second = smlab::exporting::save_screenshot(image, folder, now);
  ASSERT_TRUE(second.ok()) << second.error().message;
  EXPECT_EQ(*second, folder / "softmax-lab-2026-11-25_21-40-03-2.png");
  EXPECT_EQ(decode_png(*second).pixels, image.pixels);
}

}  // namespace
