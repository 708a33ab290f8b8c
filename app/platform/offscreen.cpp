// The offscreen surface, the part both platforms share: a framebuffer object drawn with a fixed
// 1/60 s step, read back, resized and torn down. Its GL context is each platform's, one file each:
// an EGL context on the desktop (offscreen_egl.cpp), the page's one WebGL 2 context in a browser
// (offscreen_webgl.cpp).
//
// [SECTION] Index
//   [SECTION] Small helpers: number text, framebuffer scale
//   [SECTION] Creating the surface: context, framebuffer, ImGui
//   [SECTION] Teardown
//   [SECTION] The framebuffer: resize
//   [SECTION] Frames: begin, draw, read back
//   [SECTION] Sizes, frame clock, close
#include "platform/offscreen.hpp"

#include "platform/gl_common.hpp"
#include "platform/retained_draw.hpp"

#include <glad/gl.h>

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

namespace smlab::platform {
namespace {

// [SECTION] Small helpers: number text, framebuffer scale

constexpr double kFrameSeconds = 1.0 / 60.0;

std::string decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

// The float scale s for which the OpenGL3 backend's `(int)(layout * s)` equals `pixels`: it truncates
// DisplaySize x DisplayFramebufferScale to size its viewport, so 1600 x 2.4f = 3839.9998 would lose
// a pixel against the 3840-pixel framebuffer.
float scale_that_truncates_to(int layout, int pixels) {
  float scale = static_cast<float>(pixels) / static_cast<float>(layout);
  for (int step = 0; step < 8 && static_cast<int>(static_cast<float>(layout) * scale) < pixels; ++step) {
    scale = std::nextafter(scale, 2.0f * scale);
  }
  return scale;
}

}  // namespace

// [SECTION] Creating the surface: context, framebuffer, ImGui

Created<Offscreen> Offscreen::create(const OffscreenOptions& options) {
  // Each step records what it set up, so an early return lets ~Offscreen undo exactly that much.
  std::unique_ptr<Offscreen> surface(new Offscreen());
  auto failure = [](std::string reason) -> Created<Offscreen> {
    return Error::no_graphics("no headless graphics: " + std::move(reason));
  };
  if (Result<void> opened = surface->open_context(); !opened) return failure(opened.error().message);
  surface->full_redraw_ = options.full_redraw;
  surface->retained_ = std::make_unique<detail::RetainedDraw>();
  // Without a framebuffer of the asked size there is no headless graphics (exit 4), whatever the reason.
  if (Result<void> sized = surface->resize(options.width, options.height, options.framebuffer_scale); !sized.ok()) {
    return Error::no_graphics(sized.error().message);
  }
  surface->content_scale_ = options.content_scale > 0.0f ? options.content_scale : 1.0f;

  // Headless runs must not read or write imgui.ini: renders depend only on the app's state.
  surface->imgui_context_ = detail::create_imgui_context(nullptr);
  if (!ImGui_ImplOpenGL3_Init(detail::kGlslVersion)) {
    return failure("Dear ImGui's OpenGL3 backend failed to initialise");
  }
  surface->opengl3_backend_ready_ = true;
  return surface;
}

// [SECTION] Teardown

Offscreen::~Offscreen() {
  if (egl_context_ == nullptr) {
    return;
  }
  // If the context cannot be made current its GL objects die with it in close_context below.
  const bool current = make_current();
  if (imgui_context_ != nullptr) {
    if (opengl3_backend_ready_ && current) {
      ImGui_ImplOpenGL3_Shutdown();
    }
    ImGui::DestroyContext(imgui_context_);
  }
  if (current) {
    glDeleteFramebuffers(1, &framebuffer_);
    glDeleteRenderbuffers(1, &color_renderbuffer_);
  }
  close_context();
}

// [SECTION] The framebuffer: resize

Result<void> Offscreen::resize(int width, int height, float framebuffer_scale) {
  if (width <= 0 || height <= 0 || !std::isfinite(framebuffer_scale) || framebuffer_scale <= 0.0f) {
    return Error::usage("offscreen size must be positive, got " + std::to_string(width) + "x" + std::to_string(height) +
                        " at scale " + decimal(framebuffer_scale));
  }
  if (!make_current()) {
    return Error::no_graphics("cannot make the offscreen context current" + context_error());
  }
  GLint max_side = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_side);
  const double pixel_width = std::round(static_cast<double>(width) * framebuffer_scale);
  const double pixel_height = std::round(static_cast<double>(height) * framebuffer_scale);
  if (pixel_width < 1.0 || pixel_height < 1.0 || pixel_width > max_side || pixel_height > max_side) {
    return Error::usage("offscreen framebuffer of " + decimal(pixel_width) + "x" + decimal(pixel_height) +
                        " pixels is outside this GL's limit of 1.." + std::to_string(max_side) + " per side");
  }
  const PixelSize pixels{static_cast<int>(pixel_width), static_cast<int>(pixel_height)};

  // Build the new framebuffer first, so a failure leaves the old one in place.
  const detail::ColorFramebuffer made = detail::make_color_framebuffer(pixels);
  if (!made.ok()) {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    return Error::usage("cannot allocate a " + std::to_string(pixels.width) + "x" + std::to_string(pixels.height) +
                        " offscreen framebuffer (status " + detail::hex_code(made.status) + ", GL error " +
                        detail::hex_code(made.error) + ")");
  }
  if (framebuffer_ != 0) {
    glDeleteFramebuffers(1, &framebuffer_);
  }
  if (color_renderbuffer_ != 0) {
    glDeleteRenderbuffers(1, &color_renderbuffer_);
  }
  framebuffer_ = made.framebuffer;
  color_renderbuffer_ = made.renderbuffer;
  if (retained_ != nullptr) {
    retained_->invalidate();  // a new framebuffer keeps no frame
  }
  layout_size_ = {width, height};
  pixel_size_ = pixels;
  framebuffer_scale_ = framebuffer_scale;
  has_rendered_frame_ = false;  // the new framebuffer holds no frame yet
  return {};
}

// [SECTION] Frames: begin, draw, read back

bool Offscreen::begin_frame() {
  if (close_requested_ || !make_current()) {
    return false;
  }
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  detail::upload_font_atlas_if_changed();
  ImGui_ImplOpenGL3_NewFrame();
  ImGuiIO& io = ImGui::GetIO();
  io.DisplaySize = ImVec2(static_cast<float>(layout_size_.width), static_cast<float>(layout_size_.height));
  io.DisplayFramebufferScale = ImVec2(scale_that_truncates_to(layout_size_.width, pixel_size_.width),
                                      scale_that_truncates_to(layout_size_.height, pixel_size_.height));
  io.DeltaTime = static_cast<float>(kFrameSeconds);
  ImGui::NewFrame();
  ++frames_begun_;
  frame_open_ = true;
  return true;
}

void Offscreen::end_frame() {
  const bool current = make_current();
  ImGui::Render();
  if (current) {
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    if (full_redraw_) {
      detail::clear_and_draw(ImGui::GetDrawData(), pixel_size_, clear_color_);
      last_damage_ = nullptr;
    } else {
      last_damage_ = &retained_->draw(ImGui::GetDrawData(), pixel_size_, clear_color_);
    }
    // Without a swap nothing waits for the (software) rasteriser: finish here so a frame's
    // wall time includes its drawing, as it does for a window, and frame benchmarks are honest.
    glFinish();
    has_rendered_frame_ = true;
  }
  frame_open_ = false;
}

Image Offscreen::capture() {
  if (frame_open_ || !has_rendered_frame_ || !make_current()) {
    return {};
  }
  glBindFramebuffer(GL_READ_FRAMEBUFFER, framebuffer_);
  glReadBuffer(GL_COLOR_ATTACHMENT0);
  return detail::read_pixels(pixel_size_);
}

Image Offscreen::capture_whole_redraw() {
  ImDrawData* draw_data = ImGui::GetDrawData();
  if (frame_open_ || !has_rendered_frame_ || !make_current() || draw_data == nullptr) {
    return {};
  }
  const detail::ColorFramebuffer scratch = detail::make_color_framebuffer(pixel_size_);
  Image image;
  if (scratch.ok()) {
    detail::clear_and_draw(draw_data, pixel_size_, clear_color_);
    glReadBuffer(GL_COLOR_ATTACHMENT0);
    image = detail::read_pixels(pixel_size_);
    glDeleteFramebuffers(1, &scratch.framebuffer);
    glDeleteRenderbuffers(1, &scratch.renderbuffer);
  }
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
  return image;
}

// [SECTION] Sizes, frame clock, close

PixelSize Offscreen::framebuffer_size() const { return pixel_size_; }

float Offscreen::content_scale() const { return content_scale_; }

float Offscreen::framebuffer_scale() const { return framebuffer_scale_; }

double Offscreen::time_seconds() const { return static_cast<double>(frames_begun_) * kFrameSeconds; }

void Offscreen::request_close() { close_requested_ = true; }

}  // namespace smlab::platform
