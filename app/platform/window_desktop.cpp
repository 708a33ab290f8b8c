// The window on the desktop: a GLFW window on the primary monitor's work area, sharing the thread
// with EGL offscreen contexts, sleeping between events, full screen on the monitor it is on.
// (window.cpp holds what the page's build shares; window_backend.hpp says what each platform gives.)
//
// [SECTION] Index
//   [SECTION] GLFW errors, hints, the size to ask for
//   [SECTION] The current context and the back buffer
//   [SECTION] Waiting for events
//   [SECTION] Content scale, hiding, full screen
#include "platform/window.hpp"
#include "platform/window_backend.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <EGL/egl.h>

#include <algorithm>
#include <optional>
#include <string>
#include <utility>

namespace smlab::platform {

// [SECTION] GLFW errors, hints, the size to ask for

namespace detail {

// GLFW 3.3 keeps its most recent error per thread; no callback needed.
std::string last_window_error() {
  const char* description = nullptr;
  const int code = glfwGetError(&description);
  if (code == GLFW_NO_ERROR || description == nullptr) {
    return "unknown GLFW error";
  }
  return description;
}

// The requested size, shrunk to 90% of the primary monitor's work area (the rest is left for
// decorations and panels) in screen units, because GLFW_SCALE_TO_MONITOR multiplies it by the
// monitor's content scale afterwards.
std::pair<int, int> fit_window_size(int width, int height) {
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
}

// On a HiDPI monitor the window gets content-scale times more pixels, so the UI keeps its physical size.
void set_platform_window_hints() { glfwWindowHint(GLFW_SCALE_TO_MONITOR, GLFW_TRUE); }

void set_swap_interval(bool vsync) { glfwSwapInterval(vsync ? 1 : 0); }

std::optional<bool> surface_keeps_frame() { return std::nullopt; }

// [SECTION] The current context and the back buffer

// libglvnd lets a thread hold one current context across GLX and EGL (EGL refuses with
// EGL_BAD_ACCESS while GLX holds it, and vice versa), so release an Offscreen's EGL context first;
// GLFW's own record of the current context is then stale, so reset it too.
void release_other_surfaces() {
  if (eglGetCurrentContext() != EGL_NO_CONTEXT) {
    eglMakeCurrent(eglGetCurrentDisplay(), EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
    glfwMakeContextCurrent(nullptr);
  }
}

void read_back_buffer() {
  glDrawBuffer(GL_BACK);
  glReadBuffer(GL_BACK);
}

}  // namespace detail

// [SECTION] Waiting for events

void Window::wait_for_events(double max_seconds) {
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
}

// [SECTION] Content scale, hiding, full screen

namespace {

// The monitor whose area contains the window's centre; the primary monitor if none does.
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

}  // namespace

float Window::content_scale() const {
  float scale_x = 1.0f, scale_y = 1.0f;
  glfwGetWindowContentScale(window_, &scale_x, &scale_y);
  return scale_x > 0.0f ? scale_x : 1.0f;
}

void Window::hide() {
  glfwHideWindow(window_);  // GLFW flushes the request to the X server
}

void Window::toggle_fullscreen() {
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
  detail::set_swap_interval(vsync_);
}

bool Window::is_fullscreen() const { return glfwGetWindowMonitor(window_) != nullptr; }

}  // namespace smlab::platform
