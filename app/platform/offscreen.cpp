// EGL offscreen surface: display (Mesa surfaceless, else an EGL device) and context creation, the
// framebuffer object, the per-frame sequence with a fixed 1/60 s step, read-back and teardown.
//
// [SECTION] Index
//   [SECTION] Small helpers: number text, EGL errors and extensions, framebuffer scale
//   [SECTION] EGL displays: platform choice, shared use, termination
//   [SECTION] Creating the surface: display, context, framebuffer, ImGui
//   [SECTION] Teardown and the current context
//   [SECTION] The framebuffer: resize
//   [SECTION] Frames: begin, draw, read back
//   [SECTION] Sizes, frame clock, close
#include "platform/offscreen.hpp"

#include "platform/gl_common.hpp"
#include "platform/retained_draw.hpp"

#include <glad/gl.h>
#ifdef __EMSCRIPTEN__
// In a browser the offscreen surface is a framebuffer object in the page's one WebGL 2 context
// (the window's), with an ImGui context of its own: PNG/GIF exports render there.
#include <emscripten/html5.h>
#else
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>
#include <link.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#endif

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace smlab::platform {
namespace {

// [SECTION] Small helpers: number text, EGL errors and extensions, framebuffer scale

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

#ifndef __EMSCRIPTEN__
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
#endif

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

// [SECTION] EGL displays: platform choice, shared use, termination

#ifndef __EMSCRIPTEN__
// One EGL display to try: a name for messages and how to open it.
struct DisplayCandidate {
  std::string name;
  EGLenum platform;
  void* native_display;
};

// Which platforms to try, from SMLAB_EGL_PLATFORM (unset or "auto": surfaceless, then devices;
// "surfaceless" or "device": that one only, e.g. to check the fallback on a machine that has both).
// Returns an error line for any other value.
Result<void> egl_platform_choice(bool& surfaceless, bool& device) {
  const char* value = std::getenv("SMLAB_EGL_PLATFORM");
  const std::string_view choice = value == nullptr ? "auto" : value;
  surfaceless = choice == "auto" || choice == "surfaceless" || choice.empty();
  device = choice == "auto" || choice == "device" || choice.empty();
  if (surfaceless || device) return {};
  return Error::usage("SMLAB_EGL_PLATFORM='" + std::string(choice.substr(0, 40)) + (choice.size() > 40 ? "…" : "") +
                      "' is not allowed: auto, surfaceless or device");
}

// EGL displays are shared per platform and EGL does not count eglInitialize calls, so this process
// counts them: every display an Offscreen initialised, with the number of live Offscreens on it.
// When the last one goes, the display is terminated, so the driver's threads (llvmpipe's rasterizer
// and disk-cache threads) end with it and none is left running at process exit, where
// LeakSanitizer's stop-the-world tracer has been seen to crash on them.
struct DisplayUse {
  EGLDisplay display;
  int live;
};
std::mutex display_mutex;
std::vector<DisplayUse> display_uses;

// Under display_mutex.
DisplayUse& display_use(EGLDisplay display) {
  for (DisplayUse& use : display_uses)
    if (use.display == display) return use;
  return display_uses.emplace_back(DisplayUse{display, 0});
}

// Keeps every loaded Mesa driver (*_dri.so) loaded for good, so that terminating a display does
// not unload it: a later display reuses it, and what the driver allocates stays attributed to it.
int keep_driver_loaded(dl_phdr_info* info, std::size_t, void*) {
  const std::string_view path = info->dlpi_name != nullptr ? info->dlpi_name : "";
  if (path.ends_with("_dri.so")) {
    // RTLD_NOLOAD: only a library already loaded; RTLD_NODELETE: never unloaded from now on. The
    // reference this takes is never dropped, on purpose.
    static_cast<void>(dlopen(std::string(path).c_str(), RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE));
  }
  return 0;
}

// Terminates the displays no live Offscreen uses. Under display_mutex.
void terminate_unused_displays() {
  const auto unused =
      std::partition(display_uses.begin(), display_uses.end(), [](const DisplayUse& use) { return use.live > 0; });
  if (unused == display_uses.end()) return;
  // (Offscreen releases its context before this; a window's GLX context is left alone.)
  dl_iterate_phdr(keep_driver_loaded, nullptr);
  for (auto it = unused; it != display_uses.end(); ++it) eglTerminate(it->display);
  display_uses.erase(unused, display_uses.end());
}

#endif

}  // namespace

// [SECTION] Creating the surface: display, context, framebuffer, ImGui

Created<Offscreen> Offscreen::create(const OffscreenOptions& options) {
  // Each step records what it set up, so an early return lets ~Offscreen undo exactly that much.
  std::unique_ptr<Offscreen> surface(new Offscreen());
  auto failure = [](std::string reason) -> Created<Offscreen> {
    return Error::no_graphics("no headless graphics: " + std::move(reason));
  };
#ifdef __EMSCRIPTEN__
  if (emscripten_webgl_get_current_context() == 0) return failure("no WebGL 2 context (the page's canvas comes first)");
  surface->egl_context_ = surface.get();  // set up: ~Offscreen releases the framebuffer and ImGui context
#else
  bool want_surfaceless = true, want_device = true;
  if (Result<void> chosen = egl_platform_choice(want_surfaceless, want_device); !chosen) {
    return failure(chosen.error().message);
  }

  // Client extensions are queried without a display (EGL_EXT_client_extensions).
  const char* client_extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  const auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr || !has_extension(client_extensions, "EGL_EXT_platform_base")) {
    return failure(
        "EGL lacks eglGetPlatformDisplayEXT (EGL_EXT_platform_base; is libegl1 with Mesa's "
        "libegl-mesa0 or a GPU driver's EGL installed?)");
  }

  // Mesa's surfaceless platform first (llvmpipe without a GPU, and offered by NVIDIA's EGL too);
  // where it is missing, each EGL device (EGL_EXT_platform_device), as a GPU server may offer.
  std::vector<DisplayCandidate> candidates;
  std::string tried;
  if (want_surfaceless) {
    if (has_extension(client_extensions, "EGL_MESA_platform_surfaceless")) {
      candidates.push_back({"surfaceless", EGL_PLATFORM_SURFACELESS_MESA, EGL_DEFAULT_DISPLAY});
    } else {
      tried += "EGL lacks EGL_MESA_platform_surfaceless; ";
    }
  }
  if (want_device) {
    const auto query_devices = reinterpret_cast<PFNEGLQUERYDEVICESEXTPROC>(eglGetProcAddress("eglQueryDevicesEXT"));
    if (query_devices != nullptr && has_extension(client_extensions, "EGL_EXT_platform_device")) {
      EGLint count = 0;
      std::vector<EGLDeviceEXT> devices;
      if (query_devices(0, nullptr, &count) == EGL_TRUE && count > 0) {
        devices.resize(static_cast<std::size_t>(std::min<EGLint>(count, 16)));
        if (query_devices(static_cast<EGLint>(devices.size()), devices.data(), &count) != EGL_TRUE) count = 0;
      }
      for (EGLint d = 0; d < count && d < static_cast<EGLint>(devices.size()); ++d)
        candidates.push_back(
            {"EGL device " + std::to_string(d), EGL_PLATFORM_DEVICE_EXT, devices[static_cast<std::size_t>(d)]});
      if (count <= 0) tried += "EGL lists no devices (EGL_EXT_device_enumeration); ";
    } else {
      tried += "EGL lacks EGL_EXT_platform_device; ";
    }
  }

  // Rendering goes to our own framebuffer object, so the config only has to support desktop GL;
  // a surface type mask of 0 accepts configs without window or pbuffer support.
  const EGLint config_attributes[] = {EGL_RENDERABLE_TYPE,
                                      EGL_OPENGL_BIT,
                                      EGL_SURFACE_TYPE,
                                      0,
                                      EGL_RED_SIZE,
                                      8,
                                      EGL_GREEN_SIZE,
                                      8,
                                      EGL_BLUE_SIZE,
                                      8,
                                      EGL_ALPHA_SIZE,
                                      8,
                                      EGL_NONE};
  const EGLint context_attributes[] = {
      EGL_CONTEXT_MAJOR_VERSION,           3,       EGL_CONTEXT_MINOR_VERSION, 3, EGL_CONTEXT_OPENGL_PROFILE_MASK,
      EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
  // The first candidate on which a 3.3 core context becomes current wins; the others say why not.
  // (A display that fails is left initialised: EGL displays are shared per platform, see ~Offscreen.)
  std::lock_guard display_lock(display_mutex);
  auto open = [&](const DisplayCandidate& candidate) -> Result<void> {
    EGLDisplay display = get_platform_display(candidate.platform, candidate.native_display, nullptr);
    if (display == EGL_NO_DISPLAY) return Error::no_graphics("no display: " + egl_error_text(eglGetError()));
    display_use(display);  // counted from here on, so a display that fails below is terminated too
    EGLint egl_major = 0, egl_minor = 0;
    if (eglInitialize(display, &egl_major, &egl_minor) != EGL_TRUE) {
      return Error::no_graphics("eglInitialize failed: " + egl_error_text(eglGetError()));
    }
    if (eglBindAPI(EGL_OPENGL_API) != EGL_TRUE) {
      return Error::no_graphics("cannot bind desktop OpenGL: " + egl_error_text(eglGetError()));
    }
    EGLConfig config = nullptr;
    EGLint config_count = 0;
    if (eglChooseConfig(display, config_attributes, &config, 1, &config_count) != EGL_TRUE || config_count < 1) {
      return Error::no_graphics("no config for desktop OpenGL with RGBA8: " + egl_error_text(eglGetError()));
    }
    EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, context_attributes);
    if (context == EGL_NO_CONTEXT)
      return Error::no_graphics("cannot create an OpenGL 3.3 core context: " + egl_error_text(eglGetError()));
    surface->egl_display_ = display;
    surface->egl_context_ = context;
    if (!surface->make_current()) {
      const std::string error = egl_error_text(eglGetError());
      eglDestroyContext(display, context);
      surface->egl_display_ = surface->egl_context_ = nullptr;
      return Error::no_graphics("cannot make the context current without a surface (EGL_KHR_surfaceless_context): " +
                                error);
    }
    return {};
  };
  for (const DisplayCandidate& candidate : candidates) {
    const Result<void> opened = open(candidate);
    if (opened) break;
    tried += candidate.name + ": " + opened.error().message + "; ";
  }
  if (surface->egl_context_ != nullptr) ++display_use(surface->egl_display_).live;
  terminate_unused_displays();  // the candidates that failed, unless another Offscreen uses them
  if (surface->egl_context_ == nullptr) {
    if (tried.size() >= 2) tried.resize(tried.size() - 2);  // the last "; "
    return failure(tried.empty() ? "no EGL display to try" : tried);
  }
  if (Result<void> loaded = detail::load_gl(eglGetProcAddress); !loaded.ok()) {
    return failure(loaded.error().message);
  }
#endif
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

// [SECTION] Teardown and the current context

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
#ifndef __EMSCRIPTEN__
  eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(egl_display_, egl_context_);
  // The display is terminated when no other live Offscreen uses it (display_uses above).
  std::lock_guard display_lock(display_mutex);
  --display_use(egl_display_).live;
  terminate_unused_displays();
#endif
}

bool Offscreen::make_current() const {
  ImGui::SetCurrentContext(imgui_context_);
#ifdef __EMSCRIPTEN__
  (void)egl_display_;
  return true;  // one WebGL context: begin_frame and end_frame bind this surface's framebuffer
#else
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
#endif
}

// [SECTION] The framebuffer: resize

Result<void> Offscreen::resize(int width, int height, float framebuffer_scale) {
  if (width <= 0 || height <= 0 || !std::isfinite(framebuffer_scale) || framebuffer_scale <= 0.0f) {
    return Error::usage("offscreen size must be positive, got " + std::to_string(width) + "x" + std::to_string(height) +
                        " at scale " + decimal(framebuffer_scale));
  }
  if (!make_current()) {
#ifdef __EMSCRIPTEN__
    return Error::no_graphics("cannot make the offscreen context current");
#else
    return Error::no_graphics("cannot make the offscreen context current: " + egl_error_text(eglGetError()));
#endif
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
                        " offscreen framebuffer (status " + hex(made.status) + ", GL error " + hex(made.error) + ")");
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
