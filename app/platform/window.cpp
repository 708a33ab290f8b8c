// GLFW window surface, the part both platforms share: context creation, the per-frame sequence,
// capture and teardown. What differs (monitors, waiting, full screen, other contexts) is in one
// file per platform, behind window_backend.hpp: window_desktop.cpp and window_web.cpp.
//
// [SECTION] Index
//   [SECTION] Process-wide state: waking from other threads, the drop target
//   [SECTION] Dropped files
//   [SECTION] Creating the window: GLFW, context, ImGui backends, callbacks
//   [SECTION] Teardown and the current context
//   [SECTION] Beginning a frame and feeding keys
//   [SECTION] Waking
//   [SECTION] Ending a frame and reading it back
//   [SECTION] Sizes, clock, close
#include "platform/window.hpp"

#include "platform/gl_common.hpp"
#include "platform/retained_draw.hpp"
#include "platform/window_backend.hpp"

#include <glad/gl.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <imgui_impl_glfw.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

namespace smlab::platform {
namespace {

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
    return failure("cannot open a window: " + detail::last_window_error());
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
  detail::set_platform_window_hints();
  const auto [width, height] = detail::fit_window_size(std::max(1, options.width), std::max(1, options.height));
  window->window_ = glfwCreateWindow(width, height, options.title.c_str(), nullptr, nullptr);
  if (window->window_ == nullptr) {
    return failure("cannot create an OpenGL 3.3 core window: " + detail::last_window_error());
  }

  glfwMakeContextCurrent(window->window_);
  detail::set_swap_interval(options.vsync);
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
  // Where the surface keeps the frame itself, it is drawn in place, with no copy.
  if (const std::optional<bool> kept = detail::surface_keeps_frame()) window->retained_->draw_in_place(*kept);
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
  detail::release_other_surfaces();
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

// [SECTION] Waking

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
  detail::read_back_buffer();
  detail::clear_and_draw(draw_data, size, clear_color_);
  return detail::read_pixels(size);
}

// [SECTION] Sizes, clock, close

PixelSize Window::framebuffer_size() const {
  PixelSize size;
  glfwGetFramebufferSize(window_, &size.width, &size.height);
  return size;
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

}  // namespace smlab::platform
