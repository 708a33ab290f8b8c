// The headless surface: Dear ImGui rendered into a framebuffer object, in an EGL surfaceless (Mesa)
// GL 3.3 core context on the desktop or the page's WebGL 2 context in a browser. Needs no display
// or X server; used by --screenshot, the exports and GUI tests.
#pragma once

#include "platform/image.hpp"
#include "platform/surface.hpp"

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace smlab::platform {

struct Damage;
namespace detail {
class RetainedDraw;
}

struct OffscreenOptions {
  // Layout size in ImGui display units (io.DisplaySize).
  int width = 1600;
  int height = 900;
  // Framebuffer pixels per display unit: 2 renders the 1600x900 layout into a 3200x1800 image.
  float framebuffer_scale = 1.0f;
  // Reported by content_scale(), so headless renders can reproduce a HiDPI layout.
  float content_scale = 1.0f;
  // Draw every pixel of every frame instead of repainting only what changed in the kept frame
  // (platform/retained_draw.hpp); the baseline the frame benchmarks compare against.
  bool full_redraw = false;
};

class Offscreen final : public Surface {
 public:
  // Fails when EGL has no surfaceless platform, no GL 3.3 core context can be made, or the
  // framebuffer cannot be allocated at the requested size; the Error::no_graphics says which, in one
  // line.
  [[nodiscard]] static Created<Offscreen> create(const OffscreenOptions& options = {});

  ~Offscreen() override;

  // Sets io.DisplaySize to the layout size, io.DisplayFramebufferScale to the framebuffer scale and
  // io.DeltaTime to 1/60 s. Leaves io.MousePos alone, so a test may place the mouse before calling.
  [[nodiscard]] bool begin_frame() override;
  void end_frame() override;  // returns after the frame is drawn (glFinish)
  // Reads the framebuffer object, which keeps the last frame until the next end_frame().
  [[nodiscard]] Image capture() override;
  [[nodiscard]] PixelSize framebuffer_size() const override;
  [[nodiscard]] float content_scale() const override;
  [[nodiscard]] float framebuffer_scale() const override;
  [[nodiscard]] double time_seconds() const override;
  void request_close() override;
  bool make_current() const override;

  // Changes the layout size and framebuffer scale (framebuffer = round(size x scale)); call outside a
  // frame. On failure the previous size stays and the reason is returned: Error::usage for a size
  // this GL cannot give (non-positive size or scale, larger than GL_MAX_RENDERBUFFER_SIZE, or
  // allocation failure), Error::no_graphics when the context cannot be made current.
  Result<void> resize(int width, int height, float framebuffer_scale = 1.0f);

  // The layout size in display units (what io.DisplaySize is set to).
  [[nodiscard]] PixelSize layout_size() const { return layout_size_; }

  // Files "dropped" onto the surface, as a window's drop callback would give them: the next
  // take_dropped_paths() returns them (tests drive the window's drop handling through this).
  void drop(std::vector<std::string> paths) { dropped_paths_ = std::move(paths); }
  [[nodiscard]] std::vector<std::string> take_dropped_paths() override { return std::exchange(dropped_paths_, {}); }

  // What the last end_frame() repainted (null after a full redraw by request).
  [[nodiscard]] const Damage* last_damage() const { return last_damage_; }
  // Draws the last frame whole into a scratch framebuffer and reads it: what capture() must equal
  // (the check on partial redraw). Empty when capture() would be.
  [[nodiscard]] Image capture_whole_redraw();

 private:
  Offscreen() = default;
  // The platform's part, one file each: offscreen_egl.cpp on the desktop, offscreen_webgl.cpp in a
  // browser. open_context makes the context current and loads GL, or says why it cannot (one line);
  // close_context lets it go; context_error is what to add to "cannot make ... current".
  Result<void> open_context();
  void close_context();
  static std::string context_error();

  // EGL handles kept as void* (their actual type) so this header does not pull in EGL.
  void* egl_display_ = nullptr;
  void* egl_context_ = nullptr;
  // GL object names (GLuint).
  unsigned int framebuffer_ = 0;
  unsigned int color_renderbuffer_ = 0;
  bool opengl3_backend_ready_ = false;
  bool full_redraw_ = false;
  std::unique_ptr<detail::RetainedDraw> retained_;
  std::vector<std::string> dropped_paths_;
  const Damage* last_damage_ = nullptr;

  PixelSize layout_size_;
  PixelSize pixel_size_;
  float framebuffer_scale_ = 1.0f;
  float content_scale_ = 1.0f;
  long long frames_begun_ = 0;
  bool frame_open_ = false;
  bool has_rendered_frame_ = false;
  bool close_requested_ = false;
};

}  // namespace smlab::platform
