// The desktop surface: a GLFW (X11) window with a GL 3.3 core context, vsync, HiDPI content scale,
// F11 full screen, and Dear ImGui's GLFW + OpenGL3 backends. Frame code sees only platform::Surface.
#pragma once

#include "platform/frame_settle.hpp"
#include "platform/image.hpp"
#include "platform/key_queue.hpp"
#include "platform/surface.hpp"

#include <deque>
#include <memory>
#include <string>
#include <vector>

struct GLFWwindow;

namespace smlab::platform {

namespace detail {
class RetainedTarget;
}

struct WindowOptions {
  std::string title = "Softmax Lab";
  // Requested size in screen units before content scaling; on a 2x monitor the window gets twice as
  // many pixels. Clamped so the window fits the primary monitor's work area.
  int width = 1600;
  int height = 900;
  bool vsync = true;
  bool start_fullscreen = false;
  // F11 toggles full screen, handled inside begin_frame().
  bool f11_toggles_fullscreen = true;
  // Where ImGui keeps window positions between runs; empty keeps nothing on disk.
  std::string imgui_ini_path;
  // Draw every pixel of every frame instead of repainting only what changed
  // (platform/retained_draw.hpp); the baseline the frame benchmarks compare against.
  bool full_redraw = false;
};

// Only one Window may exist at a time (GLFW is initialised and terminated with it).
// It may coexist with Offscreen surfaces.
class Window final : public Surface {
 public:
  // Fails, without exiting or crashing, when there is no display (glfwInit: "X11: The DISPLAY
  // environment variable is missing") or when no GL 3.3 core context can be made; `error` then
  // says which, in one line. Precondition: no other Window exists.
  [[nodiscard]] static Created<Window> create(const WindowOptions& options = {});

  ~Window() override;

  [[nodiscard]] bool begin_frame() override;
  void end_frame() override;
  // Redraws the last frame's ImGui draw data into the back buffer and reads it (the back buffer's
  // content is undefined after a swap, and reading the front buffer is unreliable under compositors).
  [[nodiscard]] Image capture() override;
  [[nodiscard]] PixelSize framebuffer_size() const override;
  [[nodiscard]] float content_scale() const override;
  [[nodiscard]] float framebuffer_scale() const override;
  [[nodiscard]] double time_seconds() const override;
  void request_close() override;
  // Takes the window off the screen at once (glfwHideWindow), before the work of closing (saving
  // the session, stopping threads, tearing down GL) that would otherwise keep it drawn and frozen.
  void hide();
  // Switches between a borderless full-screen mode on the monitor holding the window's centre and
  // the previous windowed position and size.
  void toggle_fullscreen() override;
  [[nodiscard]] bool is_fullscreen() const override;

  // Files dropped onto the window (GLFW's drop callback), oldest first, since the last call.
  [[nodiscard]] std::vector<std::string> take_dropped_paths() override;

  // Sleeps until an event arrives (input, a resize, wake()) or `max_seconds` pass; a negative value
  // waits with no time limit. Returns at once while key events wait in the queue and while the
  // window settles after an input (FrameSettle: at least three frames, then until a frame draws
  // what the one before drew). Every input counts, also one read by begin_frame's poll rather than
  // by this wait (a mouse button released while frames run), so a click acts and is drawn with
  // the mouse held still. Call between frames.
  void wait_for_events(double max_seconds);
  // Ends a wait_for_events of the UI thread. Thread-safe (glfwPostEmptyEvent), also from a worker
  // thread; does nothing when no Window exists.
  static void wake();
  // Key events not yet given to ImGui (begin_frame gives each key at most one transition a frame).
  [[nodiscard]] bool has_queued_keys() const { return !key_queue_.empty(); }

  bool make_current() const override;

  // The GLFW handle, for the rare caller that needs GLFW directly (e.g. clipboard or cursor tests).
  [[nodiscard]] GLFWwindow* glfw_window() const { return window_; }

 private:
  Window() = default;
  // ImGui 1.86 has no input queue: its key callback writes io.KeysDown at once, so a key pressed and
  // released within one frame (a presentation clicker) is never seen. GLFW's key callback queues the
  // events here instead, and feed_key_events() hands them to the backend's callback as
  // keys_for_one_frame says (platform/key_queue.hpp), in order. Typed characters share the queue, so
  // "a, Backspace, b" stays in that order.
  static void on_key(GLFWwindow* window, int key, int scancode, int action, int mods);
  static void on_char(GLFWwindow* window, unsigned int codepoint);
  void feed_key_events();
  std::deque<QueuedKey> key_queue_;
  // Input callbacks that only note an input (ImGui's backend, installed after them, calls them
  // first and then does its own work): mouse buttons, scrolling, focus, the cursor entering.
  static void on_mouse_button(GLFWwindow* window, int button, int action, int mods);
  static void on_scroll(GLFWwindow* window, double x, double y);
  static void on_focus(GLFWwindow* window, int focused);
  static void on_cursor_enter(GLFWwindow* window, int entered);
  // And those the backend does not install: cursor motion, size and exposure.
  static void on_cursor_move(GLFWwindow* window, double x, double y);
  static void on_resize(GLFWwindow* window, int width, int height);
  static void on_refresh(GLFWwindow* window);
  static void note_input(GLFWwindow* window);
  FrameSettle settle_;
  static void on_drop(GLFWwindow* window, int count, const char** paths);
  std::vector<std::string> dropped_paths_;

  bool glfw_initialised_ = false;
  GLFWwindow* window_ = nullptr;
  bool glfw_backend_ready_ = false;
  bool opengl3_backend_ready_ = false;
  bool vsync_ = true;
  bool f11_toggles_fullscreen_ = true;
  bool frame_open_ = false;
  bool has_rendered_frame_ = false;
  bool full_redraw_ = false;
  std::unique_ptr<detail::RetainedTarget> retained_;  // the frame, kept between swaps
  std::string imgui_ini_path_;  // io.IniFilename points into it, so it lives as long as the context
  // Windowed placement to return to when leaving full screen.
  int windowed_x_ = 0;
  int windowed_y_ = 0;
  int windowed_width_ = 0;
  int windowed_height_ = 0;
};

}  // namespace smlab::platform
