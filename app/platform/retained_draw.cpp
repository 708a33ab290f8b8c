// Partial redraw into a retained framebuffer (platform/retained_draw.hpp).
#include "platform/retained_draw.hpp"

#include <imgui_impl_opengl3.h>

#include "platform/gl_check.hpp"
#include "platform/gl_common.hpp"

namespace smlab::platform::detail {

const Damage& RetainedDraw::draw(ImDrawData* draw_data, PixelSize framebuffer, const ImVec4& clear_color) {
  if (draw_data == nullptr) {
    tracker_.invalidate();
    clear_and_draw(nullptr, framebuffer, clear_color);
    none_ = Damage{};
    return none_;
  }
  const Damage& damage = tracker_.update(*draw_data, framebuffer, clear_color);
  if (damage.full) {
    clear_and_draw(draw_data, framebuffer, clear_color);
    return damage;
  }
  ImDrawData* repaint = tracker_.filtered(*draw_data);
  if (repaint == nullptr) {
    return damage;  // nothing changed: the framebuffer already holds this frame
  }
  glViewport(0, 0, framebuffer.width, framebuffer.height);
  glEnable(GL_SCISSOR_TEST);
  glClearColor(clear_color.x, clear_color.y, clear_color.z, clear_color.w);
  for (const PixelRect& rect : damage.rects) {
    glScissor(rect.x0, framebuffer.height - rect.y1, rect.x1 - rect.x0, rect.y1 - rect.y0);  // GL's origin: bottom left
    glClear(GL_COLOR_BUFFER_BIT);
  }
  glDisable(GL_SCISSOR_TEST);
  ImGui_ImplOpenGL3_RenderDrawData(repaint);  // restores the scissor test to off
  check_gl_errors("repainting a frame's damage");
  return damage;
}

RetainedTarget::~RetainedTarget() = default;  // GL objects go with the context (release() first when it lives on)

void RetainedTarget::release() {
  if (framebuffer_ != 0) glDeleteFramebuffers(1, &framebuffer_);
  if (color_ != 0) glDeleteRenderbuffers(1, &color_);
  framebuffer_ = color_ = 0;
  size_ = {};
  draw_.invalidate();
}

bool RetainedTarget::ensure(PixelSize framebuffer) {
  if (framebuffer_ != 0 && framebuffer.width == size_.width && framebuffer.height == size_.height) return true;
  if (failed_ && framebuffer.width == size_.width && framebuffer.height == size_.height) return false;
  release();
  size_ = framebuffer;
  failed_ = true;
  if (framebuffer.width <= 0 || framebuffer.height <= 0) return false;
  const ColorFramebuffer made = make_color_framebuffer(framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (!made.ok()) return false;  // failed_: not tried again until the size changes
  framebuffer_ = made.framebuffer;
  color_ = made.renderbuffer;
  failed_ = false;
  blit_checked_ = false;
  return true;
}

bool RetainedTarget::draw_and_present(ImDrawData* draw_data, PixelSize framebuffer, const ImVec4& clear_color) {
  if (in_place_) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    draw_.draw(draw_data, framebuffer, clear_color);
    return true;
  }
  if (!ensure(framebuffer)) {
    return false;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  draw_.draw(draw_data, framebuffer, clear_color);
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_);
  glBindFramebuffer(GL_DRAW_FRAMEBUFFER, 0);
  if (!blit_checked_) {
    while (glGetError() != GL_NO_ERROR) {
    }
  }
  glBlitFramebuffer(0, 0, framebuffer.width, framebuffer.height, 0, 0, framebuffer.width, framebuffer.height,
                    GL_COLOR_BUFFER_BIT, GL_NEAREST);
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
  if (!blit_checked_) {
    // Once per target (an error query stalls a browser's GL): a window's framebuffer that refuses
    // the copy (a multisampled one, say) gets whole frames drawn into it from now on.
    blit_checked_ = true;
    if (glGetError() != GL_NO_ERROR) {
      release();
      size_ = framebuffer;
      failed_ = true;
      return false;
    }
  }
  check_gl_errors("copying the retained frame to the window");
  return true;
}

}  // namespace smlab::platform::detail
