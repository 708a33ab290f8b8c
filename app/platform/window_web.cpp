// The window in a browser (app/web/): emscripten's GLFW 3.2 on the page's canvas, a WebGL 2
// context, full screen through the page (Fullscreen API), no monitors to fit, no waiting (the
// page's main loop runs frames). (window.cpp holds what the desktop shares; window_backend.hpp
// says what each platform gives.)
#include "platform/window.hpp"
#include "platform/window_backend.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <emscripten/html5.h>

#include <optional>
#include <string>
#include <utility>

namespace smlab::platform {
namespace detail {

std::string last_window_error() { return "the browser offers no WebGL 2 context"; }

std::pair<int, int> fit_window_size(int width, int height) { return {width, height}; }  // the page sizes the canvas

// An opaque canvas without depth or stencil buffers: with alpha the browser blends the whole canvas
// over the page on every frame, and on a CPU rasteriser (SwiftShader) more frames miss their vsync
// (docs/PERFORMANCE.md, "What the missed vsyncs are"). ImGui uses neither buffer.
void set_platform_window_hints() {
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
}

void set_swap_interval(bool) {}  // the page's main loop (emscripten_set_main_loop) paces frames

// The page makes the canvas's context with a kept drawing buffer (app/web/page.js): then the frame
// is kept in the canvas itself.
std::optional<bool> surface_keeps_frame() {
  EmscriptenWebGLContextAttributes attributes;
  const EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = emscripten_webgl_get_current_context();
  if (context == 0 || emscripten_webgl_get_context_attributes(context, &attributes) != EMSCRIPTEN_RESULT_SUCCESS)
    return std::nullopt;
  return attributes.preserveDrawingBuffer != 0;
}

// One WebGL context: an Offscreen (exports) leaves its framebuffer bound.
void release_other_surfaces() { glBindFramebuffer(GL_FRAMEBUFFER, 0); }

void read_back_buffer() {}  // WebGL 2 draws to and reads from the canvas's back buffer already

}  // namespace detail

void Window::wait_for_events(double) {}  // the browser calls each frame; nothing may block

float Window::content_scale() const { return 1.0f; }  // the canvas is sized in CSS pixels

void Window::hide() {}  // the page owns its canvas

void Window::toggle_fullscreen() {
  if (is_fullscreen()) {
    emscripten_exit_fullscreen();
  } else {
    EmscriptenFullscreenStrategy strategy{};
    strategy.scaleMode = EMSCRIPTEN_FULLSCREEN_SCALE_STRETCH;
    strategy.canvasResolutionScaleMode = EMSCRIPTEN_FULLSCREEN_CANVAS_SCALE_STDDEF;
    strategy.filteringMode = EMSCRIPTEN_FULLSCREEN_FILTERING_DEFAULT;
    emscripten_request_fullscreen_strategy("#canvas", 1, &strategy);
  }
  (void)windowed_x_, (void)windowed_y_, (void)windowed_width_, (void)windowed_height_;  // the page restores the size
}

bool Window::is_fullscreen() const {
  EmscriptenFullscreenChangeEvent status{};
  return emscripten_get_fullscreen_status(&status) == EMSCRIPTEN_RESULT_SUCCESS && status.isFullscreen;
}

}  // namespace smlab::platform
