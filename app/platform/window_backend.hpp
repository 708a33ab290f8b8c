// What differs between the window's two platforms, one file each: the desktop's GLFW window
// (window_desktop.cpp) and the page's canvas through emscripten's GLFW (window_web.cpp). The
// CMakeLists compiles the one for the build; window.cpp, which both share, calls these.
#pragma once

#include <optional>
#include <string>
#include <utility>

namespace smlab::platform::detail {

// GLFW's description of its most recent failure (the browser's: it offers no WebGL 2 context).
std::string last_window_error();

// The size to ask for: the desktop shrinks it to fit the primary monitor; the page sizes its canvas.
std::pair<int, int> fit_window_size(int width, int height);

// Window hints beyond the shared ones (the GL version and profile, resizable).
void set_platform_window_hints();

// Sets the swap interval where the program paces its frames (the page's main loop paces them there).
void set_swap_interval(bool vsync);

// Whether the surface itself keeps the last frame between swaps (a canvas made with
// preserveDrawingBuffer); nullopt where it cannot say, as on the desktop.
std::optional<bool> surface_keeps_frame();

// Before the window's context is made current: let go of what another surface left (an Offscreen's
// EGL context on the desktop, its framebuffer in the page's one WebGL context).
void release_other_surfaces();

// Before the frame is read back from the default framebuffer: name the back buffer where GL has
// more than one (WebGL reads the canvas's back buffer already).
void read_back_buffer();

}  // namespace smlab::platform::detail
