// Loads the UI font into Dear ImGui's atlas: DejaVu Sans at a pixel size times the surface's scales,
// optionally with Chinese glyphs merged in; falls back to ImGui's built-in font with a warning.
#pragma once

#include <string>

#include <imgui.h>  // ImWchar

struct ImFont;
struct ImGuiIO;

namespace smlab::platform {

inline constexpr const char* kDejaVuSansPath = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf";
inline constexpr const char* kWqyMicroHeiPath = "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc";

struct UiFontOptions {
  // Glyph height in ImGui display units at content scale 1.
  float pixel_size = 16.0f;
  // Surface::content_scale(): a 2x monitor gets 2x larger glyphs (scale the style to match).
  float content_scale = 1.0f;
  // Surface::framebuffer_scale(): glyphs are rasterised this much finer and drawn at
  // io.FontGlobalScale = 1 / framebuffer_scale, so a 2x export is sharp and lays out like 1x.
  float framebuffer_scale = 1.0f;
  // Merge the common simplified Chinese glyphs (needed for --lang zh-CN); costs ~30 ms and a 1024^2 atlas.
  bool merge_chinese = false;
  // Zero-terminated code point ranges to merge from the Chinese font; null: ImGui's common simplified
  // Chinese set. Read when the atlas is built, so it must outlive the next begin_frame().
  const ImWchar* chinese_glyph_ranges = nullptr;
  std::string latin_font_path = kDejaVuSansPath;
  std::string chinese_font_path = kWqyMicroHeiPath;
};

struct UiFonts {
  ImFont* font = nullptr;       // the atlas's default font after loading; never null
  std::string warning;          // empty, or one line per missing/unusable font file and what was used instead
  bool chinese_merged = false;  // merge_chinese was asked for and the Chinese font file was usable
};

// Replaces every font in io.Fonts with the UI font and sets io.FontGlobalScale. Besides Latin-1 the
// font covers Greek, sub/superscripts, arrows and mathematical operators (T, σ, √d_k, ≤, ∞).
// Call outside a frame, with the surface's ImGui context current (Surface::imgui_context()); the
// surface's next begin_frame() builds the atlas and uploads it. Do not call io.Fonts->Build()
// yourself in between: a built atlas looks already uploaded.
[[nodiscard]] UiFonts load_ui_fonts(ImGuiIO& io, const UiFontOptions& options = {});

}  // namespace smlab::platform
