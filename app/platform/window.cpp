// GLFW window surface: context creation, the per-frame sequence, capture, full screen and teardown.
//
// [SECTION] Index
//   [SECTION] Small helpers: GLFW errors, monitors
//   [SECTION] Process-wide state: waking from other threads, the drop target
//   [SECTION] Dropped files
//   [SECTION] Creating the window: GLFW, context, ImGui backends, callbacks
//   [SECTION] Teardown and the current context
//   [SECTION] Beginning a frame and feeding keys
//   [SECTION] Waiting for events and waking
//   [SECTION] Ending a frame and reading it back
//   [SECTION] Sizes, clock, close
//   [SECTION] Full screen
#include "platform/window.hpp"

#include "platform/gl_common.hpp"
#include "platform/retained_draw.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#ifdef __EMSCRIPTEN__
// In a browser (app/web/): emscripten's GLFW 3.2 on the page's canvas, a WebGL 2 context, full screen
// through the page (Fullscreen API), no monitors to fit, no waiting (the page's main loop runs frames).
#include <emscripten/html5.h>
#else
#include <EGL/egl.h>
#endif

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <mutex>
#include <utility>
#include <vector>

namespace smlab::platform {
namespace {

// [SECTION] Small helpers: GLFW errors, monitors

// GLFW's description of its most recent error (GLFW 3.3 keeps it per thread; no callback needed).
std::string last_glfw_error() {
#ifdef __EMSCRIPTEN__
  return "the browser offers no WebGL 2 context";
#else
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR || description == nullptr) {
    return "unknown GLFW error";
  }
  return description;
#endif
}

// The requested size, shrunk to 90% of the primary monitor's work area (the rest is left for
// decorations and panels) in screen units, because GLFW_SCALE_TO_MONITOR multiplies it by the
// monitor's content scale afterwards.
std::pair<int, int> fit_to_primary_monitor(int width, int height) {
#ifdef __EMSCRIPTEN__
  return {width, height};  // the page sizes the canvas
#else
  GLFWmonitor* monitor = glfwGetPrimaryMonitor();
  if (monitor == nullptr) {
    return {width, height};
  }
  int area_x = 0, area_y = 0, area_width = 0, area_height = 0;
  glfwGetMonitorWorkarea(monitor, &area_x, &area_y, &area_width, &area_height);
  float scale_x = 1.0f, scale_y = 1.0f;
  glfwGetMonitorContentScale(monitor, &scale_x, &scale_y);
  if (area_width <= 0 || area_height <= 0 || scale_x <= 0.0f || scale_y <= 0.0f) {
    return {width, height};
  }
  const int max_width = static_cast<int>(0.9f * static_cast<float>(area_width) / scale_x);
  const int max_height = static_cast<int>(0.9f * static_cast<float>(area_height) / scale_y);
  return {std::clamp(width, 1, std::max(1, max_width)), std::clamp(height, 1, std::max(1, max_height))};
#endif
}

// The monitor whose area contains the window's centre; the primary monitor if none does.
#ifndef __EMSCRIPTEN__
GLFWmonitor* monitor_under_centre_of(GLFWwindow* window) {
  int x = 0, y = 0, width = 0, height = 0;
  glfwGetWindowPos(window, &x, &y);
  glfwGetWindowSize(window, &width, &height);
  const int centre_x = x + width / 2;
  const int centre_y = y + height / 2;
  int count = 0;
  GLFWmonitor** monitors = glfwGetMonitors(&count);
  for (int index = 0; index < count; ++index) {
    const GLFWvidmode* mode = glfwGetVideoMode(monitors[index]);
    if (mode == nullptr) {
      continue;
    }
    int monitor_x = 0, monitor_y = 0;
    glfwGetMonitorPos(monitors[index], &monitor_x, &monitor_y);
    if (centre_x >= monitor_x && centre_x < monitor_x + mode->width && centre_y >= monitor_y &&
        centre_y < monitor_y + mode->height) {
      return monitors[index];
    }
  }
  return glfwGetPrimaryMonitor();
}
#endif

// [SECTION] Process-wide state: waking from other threads, the drop target

// Whether a Window's GLFW is up, for wake() from other threads; set after glfwInit and cleared
// before glfwTerminate under the mutex.
std::mutex wake_mutex;
bool glfw_ready_for_wake = false;
// The one Window (only one may exist): where GLFW's drop callback, which gets no context, delivers.
Window* drop_target = nullptr;

}  // namespace

// [SECTION] Dropped files

void Window::on_drop(GLFWwindow* window, int count, const char** paths) {
  if (drop_target == nullptr || drop_target->window_ != window) return;
  for (int i = 0; i < count && drop_target->dropped_paths_.size() < 64; ++i)
    if (paths[i] != nullptr) drop_target->dropped_paths_.emplace_back(paths[i]);
}

std::vector<std::string> Window::take_dropped_paths() { return std::exchange(dropped_paths_, {}); }

// [SECTION] Creating the window: GLFW, context, ImGui backends, callbacks

Created<Window> Window::create(const WindowOptions& options) {
  // Each step records what it set up, so an early return lets ~Window undo exactly that much.
  std::unique_ptr<Window> window(new Window());
  auto failure = [](std::string reason) -> Created<Window> { return Error::no_graphics(std::move(reason)); };

  if (glfwInit() != GLFW_TRUE) {
    return failure("cannot open a window: " + last_glfw_error());
  }
  window->glfw_initialised_ = true;
  {
    const std::lock_guard lock(wake_mutex);
    glfw_ready_for_wake = true;
  }

  glfwWindowHint(GLFW_CONTEXT_VERSION_MAJOR, 3);
  glfwWindowHint(GLFW_CONTEXT_VERSION_MINOR, 3);
  glfwWindowHint(GLFW_OPENGL_PROFILE, GLFW_OPENGL_CORE_PROFILE);
  glfwWindowHint(GLFW_OPENGL_FORWARD_COMPAT, GLFW_TRUE);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
#ifndef __EMSCRIPTEN__
  // On a HiDPI monitor the window gets content-scale times more pixels, so the UI keeps its physical size.
  glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE);
#else
  // An opaque canvas without depth or stencil buffers: with alpha the browser blends the whole canvas
  // over the page on every frame, and on a CPU rasteriser (SwiftShader) more frames miss their vsync
  // (docs/PERFORMANCE.md, "What the missed vsyncs are"). ImGui uses neither buffer.
  glfwWindowHint(GLFW_ALPHA_BITS, 0);
  glfwWindowHint(GLFW_DEPTH_BITS, 0);
  glfwWindowHint(GLFW_STENCIL_BITS, 0);
#endif
  const auto [width, height] = fit_to_primary_monitor(std::max(1, options.width), std::max(1, options.height));
  window->window_ = glfwCreateWindow(width, height, options.title.c_str(), nullptr, nullptr);
  if (window->window_ == nullptr) {
    return failure("cannot create an OpenGL 3.3 core window: " + last_glfw_error());
  }

  glfwMakeContextCurrent(window->window_);
#ifndef __EMSCRIPTEN__  // the page's main loop (emscripten_set_main_loop) paces frames
  glfwSwapInterval(options.vsync ? 1 : 0);
#endif
  if (Result<void> loaded = detail::load_gl(glfwGetProcAddress); !loaded.ok()) {
    return failure("window: " + loaded.error().message);
  }

  window->imgui_ini_path_ = options.imgui_ini_path;
  window->imgui_context_ =
      detail::create_imgui_context(window->imgui_ini_path_.empty() ? nullptr : window->imgui_ini_path_.c_str());
  glfwSetWindowUserPointer(window->window_, window.get());
  // Installed before the backend, which chains to them: each input restarts the settling frames.
  glfwSetMouseButtonCallback(window->window_, &Window::on_mouse_button);
  glfwSetScrollCallback(window->window_, &Window::on_scroll);
  glfwSetWindowFocusCallback(window->window_, &Window::on_focus);
  glfwSetCursorEnterCallback(window->window_, &Window::on_cursor_enter);
  glfwSetCursorPosCallback(window->window_, &Window::on_cursor_move);
  glfwSetFramebufferSizeCallback(window->window_, &Window::on_resize);
  glfwSetWindowRefreshCallback(window->window_, &Window::on_refresh);
  // install_callbacks = true: the backend chains to any GLFW callbacks installed before it.
  if (!ImGui_ImplGlfw_InitForOpenGL(window->window_, true)) {
    return failure("window: Dear ImGui's GLFW backend failed to initialise");
  }
  window->glfw_backend_ready_ = true;
  // Replaces the backend's key callback (ImGui_ImplGlfw_Shutdown puts the one before it back).
  glfwSetKeyCallback(window->window_, &Window::on_key);
  glfwSetCharCallback(window->window_, &Window::on_char);
  if (!ImGui_ImplOpenGL3_Init(detail::kGlslVersion)) {
    return failure("window: Dear ImGui's OpenGL3 backend failed to initialise");
  }
  window->opengl3_backend_ready_ = true;

  drop_target = window.get();
  glfwSetDropCallback(window->window_, &Window::on_drop);
  window->vsync_ = options.vsync;
  window->f11_toggles_fullscreen_ = options.f11_toggles_fullscreen;
  window->full_redraw_ = options.full_redraw;
  window->retained_ = std::make_unique<detail::RetainedTarget>();
#ifdef __EMSCRIPTEN__
  // The page makes the canvas's context with a kept drawing buffer (app/web/page.js): then the
  // frame is kept in the canvas itself, with no copy.
  EmscriptenWebGLContextAttributes attributes;
  const EMSCRIPTEN_WEBGL_CONTEXT_HANDLE context = emscripten_webgl_get_current_context();
  if (context != 0 && emscripten_webgl_get_context_attributes(context, &attributes) == EMSCRIPTEN_RESULT_SUCCESS) {
    window->retained_->draw_in_place(attributes.preserveDrawingBuffer != 0);
  }
#endif
  if (options.start_fullscreen) {
    window->toggle_fullscreen();
  }
  return window;
}

// [SECTION] Teardown and the current context

Window::~Window() {
  if (drop_target == this) drop_target = nullptr;
  if (imgui_context_ != nullptr) {
    make_current();
    if (retained_ != nullptr) {
      retained_->release();
    }
    if (opengl3_backend_ready_) {
      ImGui_ImplOpenGL3_Shutdown();
    }
    if (glfw_backend_ready_) {
      ImGui_ImplGlfw_Shutdown();
    }
    ImGui::DestroyContext(imgui_context_);
  }
  if (window_ != nullptr) {
    glfwDestroyWindow(window_);
  }
  if (glfw_initialised_) {
    {
      const std::lock_guard lock(wake_mutex);
      glfw_ready_for_wake = false;
    }
    glfwTerminate();
  }
}

bool Window::make_current() const {
  ImGui::SetCurrentContext(imgui_context_);
#ifdef __EMSCRIPTEN__
  // One WebGL context: an Offscreen (exports) leaves its framebuffer bound.
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
#else
  // libglvnd lets a thread hold one current context across GLX and EGL (EGL refuses with
  // EGL_BAD_ACCESS while GLX holds it, and vice versa), so release an Offscreen's EGL context first;
  // GLFW's own record of the current context is then stale, so reset it too.
  if (eglGetCurrentContext() != EGL_NO_CONTEXT) {
    eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    glfwMakeContextCurrent(nullptr);
  }
#endif
  if (glfwGetCurrentContext() != window_) {
    glfwMakeContextCurrent(window_);
  }
  return glfwGetCurrentContext() == window_;
}

// [SECTION] Beginning a frame and feeding keys

bool Window::begin_frame() {
  make_current();
  glfwPollEvents();
  // While minimised there is nothing to draw: sleep until something happens instead of spinning.
  while (glfwWindowShouldClose(window_) == GLFW_FALSE && glfwGetWindowAttrib(window_, GLFW_ICONIFIED) == GLFW_TRUE) {
    glfwWaitEvents();
  }
  if (glfwWindowShouldClose(window_) == GLFW_TRUE) {
    return false;
  }
  feed_key_events();
  detail::upload_font_atlas_if_changed();
  ImGui_ImplOpenGL3_NewFrame();
  ImGui_ImplGlfw_NewFrame();
  ImGui::NewFrame();
  frame_open_ = true;
  // ImGui 1.86 indexes keys by the backend's key codes; IsKeyPressed needs NewFrame's key timing.
  if (f11_toggles_fullscreen_ && ImGui::IsKeyPressed(GLFW_KEY_F11, false)) {
    toggle_fullscreen();
  }
  return true;
}

void Window::on_key(GLFWwindow* glfw_window, int key, int scancode, int action, int mods) {
  auto* window = static_cast<Window*>(glfwGetWindowUserPointer(glfw_window));
  // Repeats change no key state (ImGui times its own repeats while a key is down).
  if (window == nullptr || action == GLFW_REPEAT) {
    return;
  }
  // GLFW_KEY_UNKNOWN (-1) keys have no KeysDown slot: ImGui ignores them too.
  if (key >= 0) {
    window->key_queue_.push_back({key, scancode, action, mods, 0});
    window->settle_.input();
  }
}

void Window::on_char(GLFWwindow* glfw_window, unsigned int codepoint) {
  if (auto* window = static_cast<Window*>(glfwGetWindowUserPointer(glfw_window)); window != nullptr) {
    window->key_queue_.push_back({-1, 0, 0, 0, codepoint});
    window->settle_.input();
  }
}

void Window::note_input(GLFWwindow* glfw_window) {
  if (auto* window = static_cast<Window*>(glfwGetWindowUserPointer(glfw_window)); window != nullptr) {
    window->settle_.input();
  }
}

void Window::on_mouse_button(GLFWwindow* window, int, int, int) { note_input(window); }
void Window::on_scroll(GLFWwindow* window, double, double) { note_input(window); }
void Window::on_focus(GLFWwindow* window, int) { note_input(window); }
void Window::on_cursor_enter(GLFWwindow* window, int) { note_input(window); }
void Window::on_cursor_move(GLFWwindow* window, double, double) { note_input(window); }
void Window::on_resize(GLFWwindow* window, int, int) { note_input(window); }
void Window::on_refresh(GLFWwindow* window) { note_input(window); }

void Window::feed_key_events() {
  // What ImGui reads this frame (platform/key_queue.hpp); the rest waits for the next frames, in
  // order, so the order of presses (Ctrl before Q) and each chord's modifiers are kept.
  for (std::size_t count = keys_for_one_frame(key_queue_); count > 0; --count) {
    const QueuedKey event = key_queue_.front();
    key_queue_.pop_front();
    if (event.key < 0)
      ImGui_ImplGlfw_CharCallback(window_, event.codepoint);  // characters queue inside ImGui already
    else
      ImGui_ImplGlfw_KeyCallback(window_, event.key, event.scancode, event.action, event.mods);
  }
}

// [SECTION] Waiting for events and waking

void Window::wait_for_events(double max_seconds) {
#ifdef __EMSCRIPTEN__
  (void)max_seconds;  // the browser calls each frame; nothing may block
  return;
#else
  if (!key_queue_.empty() || !settle_.may_sleep() || max_seconds == 0.0) {
    return;
  }
  if (max_seconds < 0.0) {
    glfwWaitEvents();
  } else {
    glfwWaitEventsTimeout(max_seconds);
  }
  // Whatever ended the wait (an input, a finished recompute's wake(), the timeout of a fading toast)
  // needs its frames to show.
  settle_.input();
#endif
}

void Window::wake() {
  // GLFW is initialised by, and lives as long as, the one Window (glfwPostEmptyEvent needs it).
  const std::lock_guard lock(wake_mutex);
  if (glfw_ready_for_wake) {
    glfwPostEmptyEvent();
  }
}

// [SECTION] Ending a frame and reading it back

void Window::end_frame() {
  make_current();
  ImGui::Render();
  // Repaint what changed in the kept frame and copy it to the back buffer; the whole frame when
  // asked to, or when no framebuffer for the kept frame can be made.
  if (full_redraw_ || retained_ == nullptr ||
      !retained_->draw_and_present(ImGui::GetDrawData(), framebuffer_size(), clear_color_)) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    detail::clear_and_draw(ImGui::GetDrawData(), framebuffer_size(), clear_color_);
  }
  glfwSwapBuffers(window_);
  frame_open_ = false;
  has_rendered_frame_ = true;
  // While settling, whether this frame drew anything new; at rest the digest is not needed.
  const ImDrawData* draw_data = ImGui::GetDrawData();
  settle_.frame_drawn(settle_.settling() && draw_data != nullptr ? draw_data_fingerprint(*draw_data) : 0);
}

Image Window::capture() {
  if (frame_open_ || !has_rendered_frame_) {
    return {};
  }
  make_current();
  ImDrawData* draw_data = ImGui::GetDrawData();
  if (draw_data == nullptr) {
    return {};
  }
  const PixelSize size = framebuffer_size();
  glBindFramebuffer(GL_FRAMEBUFFER, 0);
#ifndef __EMSCRIPTEN__  // WebGL 2 draws to and reads from the canvas's back buffer already
  glDrawBuffer(GL_BACK);
  glReadBuffer(GL_BACK);
#endif
  detail::clear_and_draw(draw_data, size, clear_color_);
  return detail::read_pixels(size);
}

// [SECTION] Sizes, clock, close

PixelSize Window::framebuffer_size() const {
  PixelSize size;
  glfwGetFramebufferSize(window_, &size.width, &size.height);
  return size;
}

float Window::content_scale() const {
#ifdef __EMSCRIPTEN__
  return 1.0f;  // the canvas is sized in CSS pixels
#else
  float scale_x = 1.0f, scale_y = 1.0f;
  glfwGetWindowContentScale(window_, &scale_x, &scale_y);
  return scale_x > 0.0f ? scale_x : 1.0f;
#endif
}

float Window::framebuffer_scale() const {
  int window_width = 0, window_height = 0;
  glfwGetWindowSize(window_, &window_width, &window_height);
  const PixelSize framebuffer = framebuffer_size();
  if (window_width <= 0 || framebuffer.width <= 0) {
    return 1.0f;
  }
  return static_cast<float>(framebuffer.width) / static_cast<float>(window_width);
}

double Window::time_seconds() const { return glfwGetTime(); }

void Window::request_close() { glfwSetWindowShouldClose(window_, GLFW_TRUE); }

void Window::hide() {
#ifndef __EMSCRIPTEN__      // the page owns its canvas
  glfwHideWindow(window_);  // GLFW flushes the request to the X server
#endif
}

// [SECTION] Full screen

void Window::toggle_fullscreen() {
#ifdef __EMSCRIPTEN__
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
#else
  if (is_fullscreen()) {
    glfwSetWindowMonitor(window_, nullptr, windowed_x_, windowed_y_, windowed_width_, windowed_height_, GLFW_DONT_CARE);
  } else {
    GLFWmonitor* monitor = monitor_under_centre_of(window_);
    const GLFWvidmode* mode = monitor != nullptr ? glfwGetVideoMode(monitor) : nullptr;
    if (mode == nullptr) {
      return;
    }
    glfwGetWindowPos(window_, &windowed_x_, &windowed_y_);
    glfwGetWindowSize(window_, &windowed_width_, &windowed_height_);
    glfwSetWindowMonitor(window_, monitor, 0, 0, mode->width, mode->height, mode->refreshRate);
  }
  // Some drivers reset the swap interval when the window changes mode.
  glfwSwapInterval(vsync_ ? 1 : 0);
#endif
}

bool Window::is_fullscreen() const {
#ifdef __EMSCRIPTEN__
  EmscriptenFullscreenChangeEvent status{};
  return emscripten_get_fullscreen_status(&status) == EMSCRIPTEN_RESULT_SUCCESS && status.isFullscreen;
#else
  return glfwGetWindowMonitor(window_) != nullptr;
#endif
}

}  // namespace smlab::platform
