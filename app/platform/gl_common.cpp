// Shared GL/ImGui steps for Window and Offscreen: glad loading, ImGui context creation, drawing, read-back.
#include "platform/gl_common.hpp"
#include "platform/texture_uploads.hpp"
#include "platform/gl_check.hpp"

#include <imgui.h>
#include <imgui_impl_opengl3.h>

#include <cstddef>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace smlab::platform::detail {

std::string hex_code(unsigned value) {
  char text[16];
  std::snprintf(text, sizeof text, "0x%04X", value);
  return text;
}

Result<void> load_gl(GLADloadfunc loader) {
#ifdef __EMSCRIPTEN__
  (void)loader;  // WebGL 2 entry points are linked in, not loaded
  return {};
#else
  const int version = gladLoadGL(loader);
  if (version == 0) {
    return Error::no_graphics("could not load the OpenGL functions of the new context");
  }
  const int major = GLAD_VERSION_MAJOR(version);
  const int minor = GLAD_VERSION_MINOR(version);
  if (major < 3 || (major == 3 && minor < 3)) {
    const auto* renderer = reinterpret_cast<const char*>(glGetString(GL_RENDERER));
    return Error::no_graphics("OpenGL 3.3 core is required, but the context offers " + std::to_string(major) + "." +
                              std::to_string(minor) + " (" + (renderer != nullptr ? renderer : "unknown renderer") +
                              ")");
  }
  return {};
#endif
}

ImGuiContext* create_imgui_context(const char* ini_path) {
  IMGUI_CHECKVERSION();
  ImGuiContext* context = ImGui::CreateContext();
  ImGui::SetCurrentContext(context);
  ImGui::GetIO().IniFilename = ini_path;
  return context;
}

void upload_font_atlas_if_changed() {
  if (ImGui::GetIO().Fonts->IsBuilt()) {
    return;
  }
  // Only the font texture: recreating all device objects (DestroyDeviceObjects/CreateDeviceObjects)
  // gives 1.86's new vertex/index buffers size 0 while it remembers the old sizes, so every later
  // glBufferSubData fails (GL_INVALID_VALUE) and the window stays blank (docs/ARCHITECTURE.md,
  // "Facts about the dependencies"). Before the first frame there are no device objects and no
  // texture ID yet: ImGui_ImplOpenGL3_NewFrame creates them all (the atlas keeps its ID through
  // ImFontAtlas::Clear()).
  if (ImGui::GetIO().Fonts->TexID == ImTextureID{}) {
    return;
  }
  ImGui_ImplOpenGL3_DestroyFontsTexture();
  ImGui_ImplOpenGL3_CreateFontsTexture();
  note_texture_upload(ImGui::GetIO().Fonts->TexID);  // the same name may now hold other glyphs
}

void clear_and_draw(ImDrawData* draw_data, PixelSize framebuffer, const ImVec4& clear_color) {
  glViewport(0, 0, framebuffer.width, framebuffer.height);
  glClearColor(clear_color.x, clear_color.y, clear_color.z, clear_color.w);
  glClear(GL_COLOR_BUFFER_BIT);
  if (draw_data != nullptr) {
    ImGui_ImplOpenGL3_RenderDrawData(draw_data);
  }
  check_gl_errors("drawing a frame");
}

ColorFramebuffer make_color_framebuffer(PixelSize size) {
  while (glGetError() != GL_NO_ERROR) {
  }
  ColorFramebuffer made;
  glGenRenderbuffers(1, &made.renderbuffer);
  glBindRenderbuffer(GL_RENDERBUFFER, made.renderbuffer);
  glRenderbufferStorage(GL_RENDERBUFFER, GL_RGBA8, size.width, size.height);
  glGenFramebuffers(1, &made.framebuffer);
  glBindFramebuffer(GL_FRAMEBUFFER, made.framebuffer);
  glFramebufferRenderbuffer(GL_FRAMEBUFFER, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, made.renderbuffer);
  made.status = glCheckFramebufferStatus(GL_FRAMEBUFFER);
  made.error = glGetError();
  if (!made.ok()) {
    glBindFramebuffer(GL_FRAMEBUFFER, 0);
    glDeleteFramebuffers(1, &made.framebuffer);
    glDeleteRenderbuffers(1, &made.renderbuffer);
    made.framebuffer = made.renderbuffer = 0;
  }
  return made;
}

Image read_pixels(PixelSize framebuffer) {
  Image image;
  if (framebuffer.width <= 0 || framebuffer.height <= 0) {
    return image;
  }
  image.width = framebuffer.width;
  image.height = framebuffer.height;
  const std::size_t row_bytes = static_cast<std::size_t>(image.width) * Image::kChannels;
  image.pixels.resize(row_bytes * static_cast<std::size_t>(image.height));

  glPixelStorei(GL_PACK_ALIGNMENT, 1);
  glReadPixels(0, 0, image.width, image.height, GL_RGBA, GL_UNSIGNED_BYTE, image.pixels.data());
  check_gl_errors("reading pixels back");

  // GL's origin is the bottom-left corner; images are stored top row first.
  std::vector<std::uint8_t> swap_row(row_bytes);
  for (int top = 0, bottom = image.height - 1; top < bottom; ++top, --bottom) {
    std::uint8_t* top_row = image.pixels.data() + static_cast<std::size_t>(top) * row_bytes;
    std::uint8_t* bottom_row = image.pixels.data() + static_cast<std::size_t>(bottom) * row_bytes;
    std::memcpy(swap_row.data(), top_row, row_bytes);
    std::memcpy(top_row, bottom_row, row_bytes);
    std::memcpy(bottom_row, swap_row.data(), row_bytes);
  }
  for (std::size_t alpha = 3; alpha < image.pixels.size(); alpha += Image::kChannels) {
    image.pixels[alpha] = 255;
  }
  return image;
}

}  // namespace smlab::platform::detail
