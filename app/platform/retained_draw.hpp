// Drawing a frame into a framebuffer that still holds the frame before, repainting only what
// changed (docs/ARCHITECTURE.md, "Partial redraw"). On a software rasteriser (llvmpipe, the
// browser's SwiftShader) a frame's cost is its fragments, and most of a dashboard's pixels (axes,
// tick labels, controls) are the same from one frame of a drag to the next.
//
// The pixels are the same as a full redraw's: the damaged rectangles are cleared and every
// triangle that touches them is drawn again, in order, scissored to them (platform/damage.hpp says
// why the rest cannot differ). Internal to platform/.
#pragma once

#include <glad/gl.h>
#include <imgui.h>

#include "platform/damage.hpp"
#include "platform/surface.hpp"

namespace smlab::platform::detail {

class RetainedDraw {
 public:
  // Draws `draw_data` into the bound draw framebuffer, which must hold what the previous draw()
  // left there (else invalidate() first). Returns the damage it repainted.
  const Damage& draw(ImDrawData* draw_data, PixelSize framebuffer, const ImVec4& clear_color);
  // The framebuffer's contents are gone or changed behind our back: the next draw() repaints all.
  void invalidate() { tracker_.invalidate(); }

 private:
  DamageTracker tracker_;
  Damage none_;
};

// A framebuffer that a Window draws into with RetainedDraw and copies to the screen each frame
// (the window's own back buffer is not kept between swaps).
class RetainedTarget {
 public:
  RetainedTarget() = default;
  ~RetainedTarget();
  RetainedTarget(const RetainedTarget&) = delete;
  RetainedTarget& operator=(const RetainedTarget&) = delete;

  // Draws the frame into the target (resized to `framebuffer` when needed) and copies it to the
  // default framebuffer. Returns false, leaving the default framebuffer alone, when the target
  // cannot be made; the caller then draws the whole frame itself.
  bool draw_and_present(ImDrawData* draw_data, PixelSize framebuffer, const ImVec4& clear_color);
  void release();  // deletes the GL objects (the context must be current)
  // The default framebuffer keeps its contents between frames (a canvas with
  // preserveDrawingBuffer): draw into it, with no framebuffer of our own and no copy.
  void draw_in_place(bool in_place) {
    in_place_ = in_place;
    draw_.invalidate();
  }

 private:
  bool ensure(PixelSize framebuffer);
  RetainedDraw draw_;
  GLuint framebuffer_ = 0, color_ = 0;
  PixelSize size_;
  bool failed_ = false;
  bool in_place_ = false;
  bool blit_checked_ = false;
};

}  // namespace smlab::platform::detail
