// EGL surfaceless surface: display and context creation, the framebuffer object, the per-frame
// sequence with a fixed 1/60 s step, read-back and teardown.
#include "platform/offscreen.hpp"

#include "platform/gl_common.hpp"

#include <glad/gl.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>

namespace smlab::platform {
namespace {

constexpr double kFrameSeconds = 1.0 / 60.0;

std::string hex(unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04X", value);
  return text;
}

std::string decimal(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string egl_error_text(EGLint code) {
  switch (code) {
    case EGL_SUCCESS: return "EGL_SUCCESS";
    case EGL_NOT_INITIALIZED: return "EGL_NOT_INITIALIZED";
    case EGL_BAD_ACCESS: return "EGL_BAD_ACCESS";
    case EGL_BAD_ALLOC: return "EGL_BAD_ALLOC";
    case EGL_BAD_ATTRIBUTE: return "EGL_BAD_ATTRIBUTE";
    case EGL_BAD_CONFIG: return "EGL_BAD_CONFIG";
    case EGL_BAD_CONTEXT: return "EGL_BAD_CONTEXT";
    case EGL_BAD_DISPLAY: return "EGL_BAD_DISPLAY";
    case EGL_BAD_MATCH: return "EGL_BAD_MATCH";
    case EGL_BAD_PARAMETER: return "EGL_BAD_PARAMETER";
    case EGL_BAD_SURFACE: return "EGL_BAD_SURFACE";
    default: return hex(static_cast<unsigned>(code));
  }
}

// True when the space-separated extension list contains `name` as a whole word.
bool has_extension(const char* extension_list, std::string_view name) {
  if (extension_list == nullptr) {
    return false;
  }
  std::string_view rest(extension_list);
  while (!rest.empty()) {
    const std::size_t end = rest.find(' ');
    if (rest.substr(0, end) == name) {
      return true;
    }
    rest = end == std::string_view::npos ? std::string_view{} : rest.substr(end + 1);
  }
  return false;
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

Created<Offscreen> Offscreen::create(const OffscreenOptions& options) {
  // Each step records what it set up, so an early return lets ~Offscreen undo exactly that much.
  std::unique_ptr<Offscreen> surface(new Offscreen());
  auto failure = [](std::string reason) {
    return Created<Offscreen>{nullptr, "no headless graphics: " + std::move(reason)};
  };

  // Client extensions are queried without a display (EGL_EXT_client_extensions).
  const char* client_extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  if (!has_extension(client_extensions, "EGL_MESA_platform_surfaceless")) {
    return failure("EGL lacks EGL_MESA_platform_surfaceless (is Mesa's libegl-mesa0 installed?)");
  }
  const auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr) {
    return failure("EGL lacks eglGetPlatformDisplayEXT (EGL_EXT_platform_base)");
  }
  EGLDisplay display = get_platform_display(EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY, nullptr);
  if (display == EGL_NO_DISPLAY) {
    return failure("no surfaceless EGL display: " + egl_error_text(eglGetError()));
  }
  EGLint egl_major = 0, egl_minor = 0;
  if (eglInitialize(display, &egl_major, &egl_minor) != EGL_TRUE) {
    return failure("eglInitialize failed: " + egl_error_text(eglGetError()));
  }
  surface->egl_display_ = display;
  if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
    return failure("EGL cannot bind desktop OpenGL: " + egl_error_text(eglGetError()));
  }

  // Rendering goes to our own framebuffer object, so the config only has to support desktop GL;
  // a surface type mask of 0 accepts configs without window or pbuffer support.
  const EGLint config_attributes[] = {
      EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_SURFACE_TYPE, 0,
      EGL_RED_SIZE, 8, EGL_GREEN_SIZE, 8, EGL_BLUE_SIZE, 8, EGL_ALPHA_SIZE, 8,
      EGL_NONE};
  EGLConfig config = nullptr;
  EGLint config_count = 0;
  if (eglChooseConfig(display, config_attributes, &config, 1, &config_count) != EGL_TRUE || config_count < 1) {
    return failure("no EGL config for desktop OpenGL with RGBA8: " + egl_error_text(eglGetError()));
  }
  const EGLint context_attributes[] = {
      EGL_CONTEXT_MAJOR_VERSION, 3, EGL_CONTEXT_MINOR_VERSION, 3,
      EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT,
      EGL_NONE};
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
  if (context == EGL_NO_CONTEXT) {
    return failure("cannot create an OpenGL 3.3 core context: " + egl_error_text(eglGetError()));
  }
  surface->egl_context_ = context;
  if (!surface->make_current()) {
    return failure("cannot make the context current without a surface (EGL_KHR_surfaceless_context): " +
                   egl_error_text(eglGetError()));
  }
  if (std::string error = detail::load_gl(eglGetProcAddress); !error.empty()) {
    return failure(error);
  }
  if (auto error = surface->resize(options.width, options.height, options.framebuffer_scale)) {
    return {nullptr, std::move(*error)};
  }
  surface->content_scale_ = options.content_scale > 0.0f ? options.content_scale : 1.0f;

  // Headless runs must not read or write imgui.ini: renders depend only on the app's state.
  surface->imgui_context_ = detail::create_imgui_context(nullptr);
  if (!ImGui_ImplOpenGL3_Init(detail::kGlslVersion)) {
    return failure("Dear ImGui's OpenGL3 backend failed to initialise");
  }
  surface->opengl3_backend_ready_ = true;
  return {std::move(surface), {}};
}

Offscreen::~Offscreen() {
  if (egl_context_ == nullptr) {
    return;
  }
  // If the context cannot be made current its GL objects die with it in eglDestroyContext below.
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
  eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(egl_display_, egl_context_);
  // No eglTerminate: EGL returns one shared EGLDisplay per platform and does not count
  // eglInitialize calls, so terminating it would break any other live Offscreen. The driver releases
  // the display at process exit, and a later eglInitialize on it is a cheap no-op.
}

bool Offscreen::make_current() const {
  ImGui::SetCurrentContext(imgui_context_);
  if (eglGetCurrentContext() == egl_context_) {
    return true;
  }
  if (eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_context_) == EGL_TRUE) {
    return true;
  }
  // libglvnd lets a thread hold one current context across GLX and EGL. The only GLX contexts here
  // are our Window's (made through GLFW), so release it through GLFW, keeping GLFW's view right.
  if (eglGetError() == EGL_BAD_ACCESS) {
    glfwMakeContextCurrent(nullptr);
    return eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, egl_context_) == EGL_TRUE;
  }
  return false;
}

std::optional<std::string> Offscreen::resize(int width, int height, float framebuffer_scale) {
  if (width <= 0 || height <= 0 || !std::isfinite(framebuffer_scale) || framebuffer_scale <= 0.0f) {
    return "offscreen size must be positive, got " + std::to_string(width) + "x" + std::to_string(height) +
           " at scale " + decimal(framebuffer_scale);
  }
  if (!make_current()) {
    return "cannot make the offscreen context current: " + egl_error_text(eglGetError());
  }
  GLint max_side = 0;
  glGetIntegerv(GL_MAX_RENDERBUFFER_SIZE, &max_side);
  const double pixel_width = std::round(static_cast<double>(width) * framebuffer_scale);
  const double pixel_height = std::round(static_cast<double>(height) * framebuffer_scale);
  if (pixel_width < 1.0 || pixel_height < 1.0 || pixel_width > max_side || pixel_height > max_side) {
    return "offscreen framebuffer of " + decimal(pixel_width) + "x" + decimal(pixel_height) +
           " pixels is outside this GL's limit of 1.." + std::to_string(max_side) + " per side";
  }
  const PixelSize pixels{static_cast<int>(pixel_width), static_cast<int>(pixel_height)};

  // Build the new framebuffer first, so a failure leaves the old one in place.
  while (glGetError() != GL_NO_ERROR) {
  }
  GLuint renderbuffer = 0;
  GLuint framebuffer = 0;
  glGenRenderbuffers(1, &renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, pixels.width, pixels.height);
  glGenFramebuffers(1, &framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, renderbuffer);
  const GLenum status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  const GLenum gl_error = glGetError();
  if (status != GL_FRAMEBUFFER_COMPLETE || gl_error != GL_NO_ERROR) {
    glDeleteFramebuffers(1, &framebuffer);
    glDeleteRenderbuffers(1, &renderbuffer);
    glBindFramebuffer(GL_FRAMEBUFFER, framebuffer_);
    return "cannot allocate a " + std::to_string(pixels.width) + "x" + std::to_string(pixels.height) +
           " offscreen framebuffer (status " + hex(status) + ", GL error " + hex(gl_error) + ")";
  }
  if (framebuffer_ != 0) {
    glDeleteFramebuffers(1, &framebuffer_);
  }
  if (color_renderbuffer_ != 0) {
    glDeleteRenderbuffers(1, &color_renderbuffer_);
  }
  framebuffer_ = framebuffer;
  color_renderbuffer_ = renderbuffer;
  layout_size_ = {width, height};
  pixel_size_ = pixels;
  framebuffer_scale_ = framebuffer_scale;
  has_rendered_frame_ = false;  // the new framebuffer holds no frame yet
  return std::nullopt;
}

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
    detail::clear_and_draw(ImGui::GetDrawData(), pixel_size_, clear_color_);
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

PixelSize Offscreen::framebuffer_size() const { return pixel_size_; }

float Offscreen::content_scale() const { return content_scale_; }

float Offscreen::framebuffer_scale() const { return framebuffer_scale_; }

double Offscreen::time_seconds() const { return static_cast<double>(frames_begun_) * kFrameSeconds; }

void Offscreen::request_close() { close_requested_ = true; }

}  // namespace smlab::platform
