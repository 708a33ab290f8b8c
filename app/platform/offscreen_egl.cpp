// The offscreen surface's context on the desktop: an EGL display (Mesa surfaceless, else an EGL
// device) and a GL 3.3 core context made current without a surface, shared per display and
// terminated with the last Offscreen on it. (offscreen.cpp holds what the page's build shares.)
//
// [SECTION] Index
//   [SECTION] EGL errors and extensions
//   [SECTION] EGL displays: platform choice, shared use, termination
//   [SECTION] Opening, closing and making the context current
#include "platform/offscreen.hpp"

#include "platform/gl_common.hpp"

#include <glad/gl.h>
#include <EGL/egl.h>
#include <EGL/eglext.h>
#include <dlfcn.h>
#include <link.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace smlab::platform {
namespace {

// [SECTION] EGL errors and extensions

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
    default: return detail::hex_code(static_cast<unsigned>(code));
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

// [SECTION] EGL displays: platform choice, shared use, termination

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

}  // namespace

// [SECTION] Opening, closing and making the context current

Result<void> Offscreen::open_context() {
  bool want_surfaceless = true, want_device = true;
  if (Result<void> chosen = egl_platform_choice(want_surfaceless, want_device); !chosen) {
    return Error::no_graphics(chosen.error().message);
  }

  // Client extensions are queried without a display (EGL_EXT_client_extensions).
  const char* client_extensions = eglQueryString(EGL_NO_DISPLAY, EGL_EXTENSIONS);
  const auto get_platform_display =
      reinterpret_cast<PFNEGLGETPLATFORMDISPLAYEXTPROC>(eglGetProcAddress("eglGetPlatformDisplayEXT"));
  if (get_platform_display == nullptr || !has_extension(client_extensions, "EGL_EXT_platform_base")) {
    return Error::no_graphics(
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
  // (A display that fails is left initialised: EGL displays are shared per platform, see close_context.)
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
    egl_display_ = display;
    egl_context_ = context;
    if (!make_current()) {
      const std::string error = egl_error_text(eglGetError());
      eglDestroyContext(display, context);
      egl_display_ = egl_context_ = nullptr;
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
  if (egl_context_ != nullptr) ++display_use(egl_display_).live;
  terminate_unused_displays();  // the candidates that failed, unless another Offscreen uses them
  if (egl_context_ == nullptr) {
    if (tried.size() >= 2) tried.resize(tried.size() - 2);  // the last "; "
    return Error::no_graphics(tried.empty() ? "no EGL display to try" : tried);
  }
  return detail::load_gl(eglGetProcAddress);
}

void Offscreen::close_context() {
  eglMakeCurrent(egl_display_, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(egl_display_, egl_context_);
  // The display is terminated when no other live Offscreen uses it (display_uses above).
  std::lock_guard display_lock(display_mutex);
  --display_use(egl_display_).live;
  terminate_unused_displays();
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

std::string Offscreen::context_error() { return ": " + egl_error_text(eglGetError()); }

}  // namespace smlab::platform
