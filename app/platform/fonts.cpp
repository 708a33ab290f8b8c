// UI font loading: reads font files ourselves (ImGui asserts on a missing file), checks they look
// like TrueType/OpenType, and builds the atlas description with our glyph ranges.
#include "platform/fonts.hpp"

#include <imgui.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

namespace smlab::platform {
namespace {

// Pairs of inclusive code point ranges, zero-terminated, as ImFontAtlas wants them. Read when the
// atlas is built (possibly long after load_ui_fonts returns), hence static storage.
constexpr ImWchar kUiGlyphRanges[] = {
    0x0020, 0x00FF,  // Basic Latin, Latin-1 Supplement
    0x0370, 0x03FF,  // Greek (σ, τ, α, ε)
    0x1D00, 0x1D7F,  // Phonetic Extensions (ᵀ as in QKᵀ)
    0x2000, 0x206F,  // General Punctuation (–, —, …, ‖)
    0x2070, 0x209F,  // Superscripts and Subscripts (², ₖ)
    0x2190, 0x21FF,  // Arrows
    0x2200, 0x22FF,  // Mathematical Operators (√, ∞, ≤, ∑, −)
    0x23CE, 0x23CE,  // ⏎: a newline token of the training lab's language model
    0x2423, 0x2423,  // ␣: a space token
    0x25A0, 0x25FF,  // Geometric Shapes (▶, ●) for buttons and legends
    0,
};

// A font file read into memory allocated by ImGui, which the atlas frees (FontDataOwnedByAtlas).
struct FontFile {
  void* data = nullptr;
  int size = 0;
  std::string problem;  // why data is null
};

// True when the first four bytes are a TrueType, OpenType (CFF) or TrueType-collection signature;
// stb_truetype asserts inside ImGui on anything else, so we refuse it here.
bool looks_like_font(const std::vector<char>& bytes) {
  if (bytes.size() < 12) {
    return false;
  }
  constexpr std::array<std::array<char, 4>, 4> signatures{
      {{'\x00', '\x01', '\x00', '\x00'}, {'O', 'T', 'T', 'O'}, {'t', 'r', 'u', 'e'}, {'t', 't', 'c', 'f'}}};
  for (const auto& signature : signatures) {
    if (std::memcmp(bytes.data(), signature.data(), signature.size()) == 0) {
      return true;
    }
  }
  return false;
}

FontFile read_font_file(const std::string& path) {
  FontFile file;
  std::ifstream stream(path, std::ios::binary);
  if (!stream) {
    file.problem = "cannot read '" + path + "'";
    return file;
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(stream)), std::istreambuf_iterator<char>());
  if (!looks_like_font(bytes)) {
    file.problem = "'" + path + "' is not a TrueType/OpenType font";
    return file;
  }
  file.size = static_cast<int>(bytes.size());
  file.data = ImGui::MemAlloc(bytes.size());
  std::memcpy(file.data, bytes.data(), bytes.size());
  return file;
}

void append_warning(std::string& warnings, const std::string& line) {
  if (!warnings.empty()) {
    warnings += '\n';
  }
  warnings += line;
}

}  // namespace

UiFonts load_ui_fonts(ImGuiIO& io, const UiFontOptions& options) {
  UiFonts result;
  const float content_scale = options.content_scale > 0.0f ? options.content_scale : 1.0f;
  const float framebuffer_scale = options.framebuffer_scale > 0.0f ? options.framebuffer_scale : 1.0f;
  const float base_size = options.pixel_size > 0.0f ? options.pixel_size : 16.0f;
  const float raster_size = base_size * content_scale * framebuffer_scale;

  ImFontAtlas& atlas = *io.Fonts;
  atlas.Clear();

  FontFile latin = read_font_file(options.latin_font_path);
  if (latin.data != nullptr) {
    ImFontConfig config;
    config.FontDataOwnedByAtlas = true;
    result.font = atlas.AddFontFromMemoryTTF(latin.data, latin.size, raster_size, &config, kUiGlyphRanges);
  } else {
    append_warning(result.warning, "UI font: " + latin.problem + "; using Dear ImGui's built-in font");
    ImFontConfig config;
    config.SizePixels = raster_size;
    result.font = atlas.AddFontDefault(&config);
  }

  if (options.merge_chinese) {
    FontFile chinese = read_font_file(options.chinese_font_path);
    if (chinese.data != nullptr) {
      // Merged glyphs only fill code points the UI font lacks; Latin keeps DejaVu's shapes.
      ImFontConfig config;
      config.MergeMode = true;
      config.FontDataOwnedByAtlas = true;
      atlas.AddFontFromMemoryTTF(chinese.data, chinese.size, raster_size, &config,
                                 options.chinese_glyph_ranges != nullptr
                                     ? options.chinese_glyph_ranges
                                     : atlas.GetGlyphRangesChineseSimplifiedCommon());
      result.chinese_merged = true;
    } else {
      append_warning(result.warning, "Chinese font: " + chinese.problem + "; Chinese text will show as '?'");
    }
  }

  io.FontGlobalScale = 1.0f / framebuffer_scale;
  io.FontDefault = result.font;
  return result;
}

}  // namespace smlab::platform
