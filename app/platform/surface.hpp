// The one interface the app's frame code draws through: a GL 3.3 core context with Dear ImGui on it,
// either a GLFW window (platform/window.hpp) or an EGL offscreen framebuffer (platform/offscreen.hpp).
#pragma once

#include "platform/image.hpp"
#include "smlab/error.hpp"

#include <imgui.h>

#include <memory>
#include <string>
#include <vector>

struct ImGuiContext;

namespace smlab::platform {

// A size in framebuffer pixels.
struct PixelSize {
  int width = 0;
  int height = 0;
  friend bool operator==(const PixelSize&, const PixelSize&) = default;
};

// What a factory returns: a ready surface (never null), or an Error::no_graphics of one line saying
// why there is none (the app prints it and exits with code 4, "no graphics context").
template <class SurfaceType>
using Created = Result<std::unique_ptr<SurfaceType>>;

// A frame is:
//
//   while (surface.begin_frame()) {   // events, backends' NewFrame, ImGui::NewFrame
//     ... ImGui calls ...
//     surface.end_frame();            // ImGui::Render, clear, draw, present
//     if (want_screenshot) image = surface.capture();
//   }
//
// Every call (and the factory) makes this surface's GL context and ImGui context current first and
// leaves them current, so a window and an offscreen surface (e.g. a 4K export) can live side by side
// on one thread. Surfaces are not
// thread-safe: use each from the thread that created it.
class Surface {
 public:
  Surface() = default;
  Surface(const Surface&) = delete;
  Surface& operator=(const Surface&) = delete;
  virtual ~Surface() = default;

  // Starts a frame. Returns false, without starting one, when the surface should close (window
  // closed, request_close() called); the caller then stops calling begin_frame/end_frame.
  // Every true return must be matched by one end_frame().
  [[nodiscard]] virtual bool begin_frame() = 0;

  // Ends the frame begun by begin_frame(): renders ImGui's draw data over the clear colour and,
  // for a window, presents it.
  virtual void end_frame() = 0;

  // RGBA8 pixels of the last frame end_frame() rendered, framebuffer size, top row first, alpha 255.
  // Call between end_frame() and the next begin_frame(); returns an empty Image if no frame has been
  // rendered yet or if called inside a frame.
  [[nodiscard]] virtual Image capture() = 0;

  // Size of the framebuffer that end_frame() renders into (0 x 0 while a window is minimised).
  [[nodiscard]] virtual PixelSize framebuffer_size() const = 0;

  // How much to scale fonts and style sizes (ImGuiStyle::ScaleAllSizes) so the UI has its intended
  // physical size: the monitor's content scale for a window, the configured value offscreen.
  [[nodiscard]] virtual float content_scale() const = 0;

  // Framebuffer pixels per ImGui display unit (io.DisplayFramebufferScale): 1 for a window on X11,
  // the render scale offscreen (2 renders a 1600x900 layout into 3200x1800 pixels). Fonts are crisp
  // when rasterised at this multiple (see platform/fonts.hpp).
  [[nodiscard]] virtual float framebuffer_scale() const = 0;

  // Seconds since the surface was created: wall clock for a window, frames / 60 offscreen
  // (so headless renders of animations are deterministic).
  [[nodiscard]] virtual double time_seconds() const = 0;

  // Paths of files dropped onto the surface since the last call (a window; offscreen: what a test
  // handed Offscreen::drop).
  [[nodiscard]] virtual std::vector<std::string> take_dropped_paths() { return {}; }

  // Makes the next begin_frame() return false.
  virtual void request_close() = 0;

  // Full-screen switching; an offscreen surface has no screen, so it ignores this and says false.
  virtual void toggle_fullscreen() {}
  [[nodiscard]] virtual bool is_fullscreen() const { return false; }

  // The ImGui context this surface owns (for ImGui::SetCurrentContext when mixing surfaces).
  [[nodiscard]] ImGuiContext* imgui_context() const { return imgui_context_; }

  // Makes this surface's GL and ImGui contexts current, as every call above does first. For a
  // caller's own GL work between frames (uploading or deleting its textures): GL names belong to a
  // context, so texture 5 uploaded while another surface's context is current overwrites that
  // surface's texture 5. False when the GL context cannot be made current.
  virtual bool make_current() const = 0;

  // Colour end_frame() clears to before drawing ImGui; opaque by default.
  void set_clear_color(const ImVec4& color) { clear_color_ = color; }
  [[nodiscard]] ImVec4 clear_color() const { return clear_color_; }

 protected:
  ImGuiContext* imgui_context_ = nullptr;
  ImVec4 clear_color_{0.10f, 0.11f, 0.13f, 1.0f};
};

}  // namespace smlab::platform
