// The offscreen surface's context in a browser: the page's one WebGL 2 context (the window's), in
// which the surface is a framebuffer object with an ImGui context of its own: PNG and GIF exports
// render there. (offscreen.cpp holds what the desktop shares.)
#include "platform/offscreen.hpp"

#include <emscripten/html5.h>
#include <imgui.h>

#include <string>

namespace smlab::platform {

Result<void> Offscreen::open_context() {
  if (emscripten_webgl_get_current_context() == 0)
    return Error::no_graphics("no WebGL 2 context (the page's canvas comes first)");
  egl_context_ = this;  // set up: ~Offscreen releases the framebuffer and ImGui context
  return {};
}

void Offscreen::close_context() { (void)egl_display_; }  // the context is the page's

bool Offscreen::make_current() const {
  ImGui::SetCurrentContext(imgui_context_);
  return true;  // one WebGL context: begin_frame and end_frame bind this surface's framebuffer
}

std::string Offscreen::context_error() { return {}; }

}  // namespace smlab::platform
