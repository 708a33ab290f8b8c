// Steps both surfaces share once their GL context is current: load GL with glad, bring up ImGui and
// its OpenGL3 backend, draw a frame, read pixels back. Internal to platform/; not for app code.
#pragma once

#include "platform/image.hpp"
#include "platform/surface.hpp"

#include <glad/gl.h>

#include <string>

struct ImGuiContext;
struct ImDrawData;

namespace smlab::platform::detail {

// The GLSL version line the OpenGL3 backend compiles its shaders with.
#ifdef __EMSCRIPTEN__
inline constexpr const char* kGlslVersion = "#version 300 es";  // WebGL 2
#else
inline constexpr const char* kGlslVersion = "#version 330 core";
#endif

// A GL or EGL code as messages write it: 0x0505.
std::string hex_code(unsigned value);

// Loads GL entry points for the current context through `loader` and checks the version is at least
// 3.3. Returns success, else an Error::no_graphics of one line saying what is missing.
Result<void> load_gl(GLADloadfunc loader);

// Creates an ImGui context, makes it current and returns it. It writes no imgui.ini unless
// `ini_path` is non-null; the pointed-to string must outlive the context.
[[nodiscard]] ImGuiContext* create_imgui_context(const char* ini_path);

// Uploads the font atlas when it is not built, i.e. fonts were (re)loaded since the last upload
// (platform/fonts.hpp). Call with the surface's contexts current, before ImGui_ImplOpenGL3_NewFrame.
void upload_font_atlas_if_changed();

// Sets the viewport to `framebuffer`, clears it to `clear_color` and draws `draw_data` (may be null:
// then only clears) into the currently bound draw framebuffer.
void clear_and_draw(ImDrawData* draw_data, PixelSize framebuffer, const ImVec4& clear_color);

// A framebuffer object with one RGBA8 colour renderbuffer: what Offscreen draws into, the scratch
// framebuffer it checks partial redraw against, and a Window's kept frame (retained_draw.hpp).
struct ColorFramebuffer {
  GLuint framebuffer = 0, renderbuffer = 0;
  GLenum status = 0, error = GL_NO_ERROR;  // glCheckFramebufferStatus and glGetError after making it
  [[nodiscard]] bool ok() const { return status == GL_FRAMEBUFFER_COMPLETE && error == GL_NO_ERROR; }
};

// Makes a ColorFramebuffer of `size` (GL errors queued before are cleared first) and leaves it bound
// to GL_FRAMEBUFFER. When it is not ok(), both objects are deleted (names 0) and nothing is bound;
// status and error say why.
[[nodiscard]] ColorFramebuffer make_color_framebuffer(PixelSize size);

// Reads `framebuffer` pixels from the current read buffer into an Image, top row first, alpha forced
// to 255 (translucent ImGui windows blend into the alpha channel, but what is on screen is opaque).
[[nodiscard]] Image read_pixels(PixelSize framebuffer);

}  // namespace smlab::platform::detail
