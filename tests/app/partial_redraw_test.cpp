// Partial redraw (platform/retained_draw.hpp, platform/damage.hpp): a frame that repaints only what
// changed must be, pixel for pixel, the frame a whole redraw gives. The app is driven through what a
// user does between frames (a drag, hovering the maps, a menu, another view, language, theme, font
// size, a resize), and after every frame the kept framebuffer is compared with a whole redraw of the
// same draw data. A second part checks the damage itself on hand-made draw data.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>
#include <string>

#include "frame/app.hpp"
#include "platform/damage.hpp"
#include "platform/offscreen.hpp"

#include <imgui.h>

namespace {

using namespace smlab::app;
using smlab::Params;
using smlab::platform::Damage;
using smlab::platform::DamageTracker;
using smlab::platform::PixelRect;

// [SECTION] The app, frame by frame

class PartialRedraw : public ::testing::Test {
 protected:
  // The app on a 1280×720 layout at `scale` framebuffer pixels per unit (the scissors' arithmetic
  // differs from scale 1 when it is not a power of two).
  void start(float scale) {
    ::unsetenv("DISPLAY");
    smlab::platform::OffscreenOptions options;
    options.width = 1280;
    options.height = 720;
    options.framebuffer_scale = scale;
    auto created = smlab::platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created);
    AppOptions app_options;
    app_options.refine_trials = headless_refine_trials(app_options.params.seq_len);
    app_ = std::make_unique<App>(*surface_, app_options);
    app_->wait_for_snapshot();
  }
  // One frame, then the kept framebuffer against a whole redraw of the same draw data.
  void frame_and_compare(const std::string& what) {
    app_->frame();
    const smlab::Image kept = surface_->capture();
    const smlab::Image whole = surface_->capture_whole_redraw();
    ASSERT_FALSE(kept.pixels.empty()) << what;
    ASSERT_EQ(kept.width, whole.width) << what;
    ASSERT_EQ(kept.height, whole.height) << what;
    std::size_t differing = 0, first = kept.pixels.size();
    for (std::size_t at = 0; at < kept.pixels.size(); ++at) {
      if (kept.pixels[at] != whole.pixels[at]) {
        ++differing;
        first = std::min(first, at);
      }
    }
    const Damage* damage = surface_->last_damage();
    ASSERT_NE(damage, nullptr) << what;
    if (!damage->full && damage->fraction > 0.0) ++partial_frames_;
    if (!damage->full && damage->fraction == 0.0) ++unchanged_frames_;
    const std::size_t pixel = first / smlab::Image::kChannels;
    EXPECT_EQ(differing, 0u) << what << ": first differing pixel at (" << pixel % static_cast<std::size_t>(kept.width)
                             << ", " << pixel / static_cast<std::size_t>(kept.width) << "), damage "
                             << (damage->full ? "full" : std::to_string(damage->fraction));
  }
  void move_mouse(float x, float y) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().MousePos = ImVec2(x, y);
  }
  // `steps` frames of a temperature drag from `from`, `by` a frame: bars, markers, the maps'
  // textures and the read-out change every frame.
  void drag_temperature(int steps, double from, double by) {
    for (int step = 0; step < steps; ++step) {
      Params params = app_->ui().params;
      params.temperature = from + by * step;
      ASSERT_TRUE(apply_params(app_->ui(), params));
      frame_and_compare("temperature " + std::to_string(params.temperature));
    }
  }
  // The mouse across the window on a grid, a frame at each point: hover highlights and the maps'
  // tooltips come and go.
  void sweep_mouse(ImVec2 first, ImVec2 step) {
    for (float y = first.y; y < 700.0f; y += step.y) {
      for (float x = first.x; x < 1260.0f; x += step.x) {
        move_mouse(x, y);
        frame_and_compare("mouse at " + std::to_string(x) + ", " + std::to_string(y));
      }
    }
  }
  void mouse_button(bool down) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().MouseDown[0] = down;
  }
  std::unique_ptr<smlab::platform::Offscreen> surface_;
  std::unique_ptr<App> app_;
  int partial_frames_ = 0, unchanged_frames_ = 0;
};

TEST_F(PartialRedraw, EveryFrameEqualsAWholeRedrawWhateverTheUserDoes) {
  start(1.0f);
  frame_and_compare("first frame");
  ASSERT_NO_FATAL_FAILURE(drag_temperature(24, 0.2, 0.15));
  for (int frame = 0; frame < 3; ++frame) frame_and_compare("at rest");
  // The row and d_k (a new map every change), and scaling off.
  for (const auto& [key, value] : {std::pair<std::string, int>{"row", 3}, {"row", 9}, {"d_k", 16}, {"d_k", 256}}) {
    Params params = app_->ui().params;
    (key == "row" ? params.row : params.key_dim) = value;
    ASSERT_TRUE(apply_params(app_->ui(), params));
    app_->wait_for_snapshot();
    frame_and_compare(key + " " + std::to_string(value));
    frame_and_compare(key + " " + std::to_string(value) + ", next frame");
  }
  Params unscaled = app_->ui().params;
  unscaled.scaled = !unscaled.scaled;
  ASSERT_TRUE(apply_params(app_->ui(), unscaled));
  app_->wait_for_snapshot();
  frame_and_compare("scaling toggled");
  sweep_mouse(ImVec2(40.0f, 60.0f), ImVec2(131.0f, 47.0f));
  // A menu opened over the plots, then closed.
  move_mouse(30.0f, 20.0f);
  frame_and_compare("over File");
  mouse_button(true);
  frame_and_compare("File pressed");
  mouse_button(false);
  frame_and_compare("File menu open");
  move_mouse(700.0f, 600.0f);
  frame_and_compare("File menu, mouse away");
  mouse_button(true);
  frame_and_compare("click outside the menu");
  mouse_button(false);
  for (int frame = 0; frame < 3; ++frame) frame_and_compare("menu closed");
  // Another view, the language, the theme (a new clear colour) and the font size (a new atlas).
  app_->ui().view = smlab::View::normalizers;
  for (int frame = 0; frame < 4; ++frame) frame_and_compare("normalizers lab");
  app_->ui().view = smlab::View::dashboard;
  for (int frame = 0; frame < 3; ++frame) frame_and_compare("dashboard again");
  app_->ui().language = smlab::i18n::Language::Chinese;
  for (int frame = 0; frame < 4; ++frame) frame_and_compare("zh-CN");
  app_->ui().theme = Theme::light;
  for (int frame = 0; frame < 3; ++frame) frame_and_compare("light theme");
  app_->ui().font_scale = 1.5f;
  for (int frame = 0; frame < 4; ++frame) frame_and_compare("font scale 1.5");
  // A resize: a new framebuffer, which keeps nothing.
  ASSERT_TRUE(surface_->resize(1024, 768).ok());
  for (int frame = 0; frame < 3; ++frame) frame_and_compare("resized to 1024x768");
  ASSERT_NO_FATAL_FAILURE(drag_temperature(6, 2.0, -0.3));
  // The checks above ran on repaints of part of the frame, not only on whole ones.
  EXPECT_GE(partial_frames_, 30);
  EXPECT_GE(unchanged_frames_, 1);
}

TEST_F(PartialRedraw, AtAFramebufferScaleOfOneAndAHalfToo) {
  start(1.5f);
  frame_and_compare("first frame");
  ASSERT_NO_FATAL_FAILURE(drag_temperature(12, 0.3, 0.25));
  sweep_mouse(ImVec2(50.0f, 70.0f), ImVec2(173.0f, 89.0f));
  EXPECT_GE(partial_frames_, 20);
}

// [SECTION] The damage, on hand-made draw data

// A frame of quads (two triangles each) on one clip rectangle and texture.
struct Quads {
  ImDrawList list{nullptr};
  ImDrawList* lists[1] = {&list};
  ImDrawData data;
  explicit Quads(ImVec2 size) {
    data.Valid = true;
    data.CmdListsCount = 1;
    data.CmdLists = lists;
    data.DisplaySize = size;
    data.FramebufferScale = ImVec2(1.0f, 1.0f);
  }
  void add(ImVec2 min, ImVec2 max, ImU32 colour, ImTextureID texture = nullptr, ImVec4 clip = {0, 0, 10000, 10000}) {
    ImDrawCmd command;
    command.ClipRect = clip;
    command.TextureId = texture;
    command.VtxOffset = 0;
    command.IdxOffset = static_cast<unsigned int>(list.IdxBuffer.Size);
    command.ElemCount = 6;
    const auto base = static_cast<ImDrawIdx>(list.VtxBuffer.Size);
    for (const ImVec2 corner : {min, ImVec2(max.x, min.y), max, ImVec2(min.x, max.y)}) {
      list.VtxBuffer.push_back(ImDrawVert{corner, ImVec2(0, 0), colour});
    }
    for (const int index : {0, 1, 2, 0, 2, 3}) list.IdxBuffer.push_back(static_cast<ImDrawIdx>(base + index));
    list.CmdBuffer.push_back(command);
    data.TotalIdxCount = list.IdxBuffer.Size;
    data.TotalVtxCount = list.VtxBuffer.Size;
  }
};

constexpr smlab::platform::PixelSize kSize{320, 240};
const ImVec4 kClear{0.1f, 0.1f, 0.1f, 1.0f};

bool covers(const Damage& damage, int x, int y) {
  for (const PixelRect& rect : damage.rects)
    if (x >= rect.x0 && x < rect.x1 && y >= rect.y0 && y < rect.y1) return true;
  return false;
}

TEST(Damage, TheFirstFrameIsWholeAndTheSameFrameAgainIsNothing) {
  DamageTracker tracker;
  Quads frame(ImVec2(320, 240));
  frame.add(ImVec2(10, 10), ImVec2(100, 50), IM_COL32(255, 0, 0, 255));
  EXPECT_TRUE(tracker.update(frame.data, kSize, kClear).full);
  const Damage& again = tracker.update(frame.data, kSize, kClear);
  EXPECT_FALSE(again.full);
  EXPECT_TRUE(again.rects.empty());
  EXPECT_EQ(again.fraction, 0.0);
  EXPECT_EQ(tracker.filtered(frame.data), nullptr) << "nothing to repaint";
}

TEST(Damage, AMovedQuadDamagesWhereItWasAndWhereItIsAndNothingElse) {
  DamageTracker tracker;
  Quads before(ImVec2(320, 240)), after(ImVec2(320, 240));
  before.add(ImVec2(0, 0), ImVec2(320, 240), IM_COL32(20, 20, 20, 255));  // a background
  before.add(ImVec2(40, 40), ImVec2(60, 60), IM_COL32(255, 0, 0, 255));
  before.add(ImVec2(200, 150), ImVec2(230, 170), IM_COL32(0, 255, 0, 255));
  after.add(ImVec2(0, 0), ImVec2(320, 240), IM_COL32(20, 20, 20, 255));
  after.add(ImVec2(40, 100), ImVec2(60, 120), IM_COL32(255, 0, 0, 255));  // moved down
  after.add(ImVec2(200, 150), ImVec2(230, 170), IM_COL32(0, 255, 0, 255));
  (void)tracker.update(before.data, kSize, kClear);
  const Damage& damage = tracker.update(after.data, kSize, kClear);
  ASSERT_FALSE(damage.full);
  EXPECT_TRUE(covers(damage, 50, 50)) << "where the quad was";
  EXPECT_TRUE(covers(damage, 50, 110)) << "where it is";
  EXPECT_FALSE(covers(damage, 215, 160)) << "the quad that did not change";
  EXPECT_FALSE(covers(damage, 300, 10));
  EXPECT_LT(damage.fraction, 0.1);
  // The repaint, rectangle by rectangle: the background in both (where the quad was, where it is),
  // the moved quad only where it is, after the background; the quad that did not move in neither.
  ImDrawData* repaint = tracker.filtered(after.data);
  ASSERT_NE(repaint, nullptr);
  ASSERT_EQ(repaint->CmdListsCount, 1);
  const ImDrawList& list = *repaint->CmdLists[0];
  ASSERT_EQ(damage.rects.size(), 2u);
  ASSERT_EQ(list.CmdBuffer.Size, 3);
  for (const ImDrawCmd& command : list.CmdBuffer) EXPECT_EQ(command.ElemCount, 6u);
  EXPECT_EQ(list.VtxBuffer[list.IdxBuffer[list.CmdBuffer[0].IdxOffset]].pos.y, 0.0f) << "the background";
  EXPECT_EQ(list.VtxBuffer[list.IdxBuffer[list.CmdBuffer[1].IdxOffset]].pos.y, 0.0f) << "the background";
  EXPECT_EQ(list.VtxBuffer[list.IdxBuffer[list.CmdBuffer[2].IdxOffset]].pos.y, 100.0f) << "the moved quad, last";
}

TEST(Damage, TwoOverlappingQuadsThatSwapOrderDamageEverything) {
  DamageTracker tracker;
  Quads before(ImVec2(320, 240)), after(ImVec2(320, 240));
  before.add(ImVec2(10, 10), ImVec2(80, 80), IM_COL32(255, 0, 0, 255));
  before.add(ImVec2(40, 40), ImVec2(120, 120), IM_COL32(0, 0, 255, 255));
  after.add(ImVec2(40, 40), ImVec2(120, 120), IM_COL32(0, 0, 255, 255));
  after.add(ImVec2(10, 10), ImVec2(80, 80), IM_COL32(255, 0, 0, 255));  // now on top
  (void)tracker.update(before.data, kSize, kClear);
  EXPECT_TRUE(tracker.update(after.data, kSize, kClear).full) << "the same triangles in another order blend otherwise";
}

TEST(Damage, ANewTextureUploadDamagesTheQuadsThatSampleIt) {
  DamageTracker tracker;
  auto* texture = reinterpret_cast<ImTextureID>(std::uintptr_t{0x5e11});
  Quads frame(ImVec2(320, 240));
  frame.add(ImVec2(100, 100), ImVec2(200, 200), IM_COL32_WHITE, texture);
  frame.add(ImVec2(0, 0), ImVec2(30, 30), IM_COL32_WHITE);
  (void)tracker.update(frame.data, kSize, kClear);
  smlab::platform::note_texture_upload(texture);
  const Damage& damage = tracker.update(frame.data, kSize, kClear);
  ASSERT_FALSE(damage.full);
  EXPECT_TRUE(covers(damage, 150, 150));
  EXPECT_FALSE(covers(damage, 15, 15));
}

TEST(Damage, AClippedAwayChangeDamagesNothingAndAClipChangeDamagesItsQuad) {
  DamageTracker tracker;
  const ImVec4 clip{0, 0, 100, 100};
  Quads before(ImVec2(320, 240)), hidden_change(ImVec2(320, 240)), new_clip(ImVec2(320, 240));
  before.add(ImVec2(150, 150), ImVec2(200, 200), IM_COL32(255, 0, 0, 255), nullptr, clip);
  hidden_change.add(ImVec2(150, 150), ImVec2(210, 210), IM_COL32(0, 255, 0, 255), nullptr, clip);
  new_clip.add(ImVec2(150, 150), ImVec2(210, 210), IM_COL32(0, 255, 0, 255), nullptr, ImVec4(0, 0, 300, 300));
  (void)tracker.update(before.data, kSize, kClear);
  const Damage& hidden = tracker.update(hidden_change.data, kSize, kClear);
  EXPECT_FALSE(hidden.full);
  EXPECT_TRUE(hidden.rects.empty()) << "outside its clip rectangle a triangle draws nothing";
  const Damage& unclipped = tracker.update(new_clip.data, kSize, kClear);
  ASSERT_FALSE(unclipped.full);
  EXPECT_TRUE(covers(unclipped, 180, 180));
}

TEST(Damage, ANewSizeClearColourOrCallbackOrInvalidateDamagesEverything) {
  DamageTracker tracker;
  Quads frame(ImVec2(320, 240));
  frame.add(ImVec2(10, 10), ImVec2(20, 20), IM_COL32_WHITE);
  (void)tracker.update(frame.data, kSize, kClear);
  EXPECT_TRUE(tracker.update(frame.data, {321, 240}, kClear).full);
  EXPECT_TRUE(tracker.update(frame.data, {320, 240}, kClear).full);
  EXPECT_TRUE(tracker.update(frame.data, kSize, ImVec4(1, 1, 1, 1)).full);
  EXPECT_FALSE(tracker.update(frame.data, kSize, ImVec4(1, 1, 1, 1)).full);
  tracker.invalidate();
  EXPECT_TRUE(tracker.update(frame.data, kSize, ImVec4(1, 1, 1, 1)).full);
  ImDrawCmd callback;
  callback.UserCallback = [](const ImDrawList*, const ImDrawCmd*) {};
  frame.list.CmdBuffer.push_back(callback);
  EXPECT_TRUE(tracker.update(frame.data, kSize, ImVec4(1, 1, 1, 1)).full) << "what a callback draws is unknown";
}

// What ImGui's OpenGL3 backend (1.86) hands glScissor for a clip rectangle, in top-left pixel
// bounds: its float arithmetic, then truncation.
PixelRect scissor_of(const ImVec4& clip, ImVec2 scale, int framebuffer_height) {
  const float x0 = clip.x * scale.x, y0 = clip.y * scale.y, x1 = clip.z * scale.x, y1 = clip.w * scale.y;
  const int x = static_cast<int>(x0), width = static_cast<int>(x1 - x0), height = static_cast<int>(y1 - y0);
  const int y = static_cast<int>(static_cast<float>(framebuffer_height) - y1);
  return {x, framebuffer_height - y - height, x + width, framebuffer_height - y};
}

// Each repaint command's scissor is exactly its original scissor cut to one damaged rectangle, at
// scales whose products round (1.5, 1.25) as well as exact ones, with clip edges between pixels.
TEST(Damage, EachRepaintScissorIsTheCommandsScissorCutToADamagedRectangle) {
  for (const float scale : {1.0f, 1.25f, 1.5f, 2.0f}) {
    const smlab::platform::PixelSize size{static_cast<int>(320 * scale), static_cast<int>(240 * scale)};
    DamageTracker tracker;
    const ImVec4 clip{3.3f, 7.6f, 250.7f, 201.2f};
    Quads before(ImVec2(320, 240)), after(ImVec2(320, 240));
    for (Quads* frame : {&before, &after}) {
      frame->data.FramebufferScale = ImVec2(scale, scale);
      frame->add(ImVec2(0, 0), ImVec2(320, 240), IM_COL32(20, 20, 20, 255), nullptr, clip);
    }
    before.add(ImVec2(1, 1), ImVec2(40, 30), IM_COL32(255, 0, 0, 255), nullptr, clip);
    after.add(ImVec2(200, 180), ImVec2(260, 230), IM_COL32(255, 0, 0, 255), nullptr, clip);
    (void)tracker.update(before.data, size, kClear);
    const Damage& damage = tracker.update(after.data, size, kClear);
    ASSERT_FALSE(damage.full) << scale;
    ImDrawData* repaint = tracker.filtered(after.data);
    ASSERT_NE(repaint, nullptr) << scale;
    const PixelRect original = scissor_of(clip, ImVec2(scale, scale), size.height);
    std::vector<PixelRect> expected;
    for (const PixelRect& rect : damage.rects) {
      const PixelRect cut{std::max(original.x0, rect.x0), std::max(original.y0, rect.y0),
                          std::min(original.x1, rect.x1), std::min(original.y1, rect.y1)};
      if (cut.x1 > cut.x0 && cut.y1 > cut.y0) expected.push_back(cut);
    }
    std::vector<PixelRect> got;
    for (const ImDrawCmd& command : repaint->CmdLists[0]->CmdBuffer) {
      const PixelRect scissor = scissor_of(command.ClipRect, ImVec2(scale, scale), size.height);
      if (got.empty() || !(got.back() == scissor)) got.push_back(scissor);
    }
    EXPECT_EQ(got, expected) << "at scale " << scale;
    EXPECT_FALSE(expected.empty());
  }
}

}  // namespace
