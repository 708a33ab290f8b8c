// The font atlas's glyph ranges and loading (platform/font_atlas.hpp).
#include "platform/font_atlas.hpp"

#include <cstdlib>

namespace smlab::platform {

std::string chinese_font_path() {
  const char* path = std::getenv("SOFTMAX_LAB_CJK_FONT");
  return path != nullptr ? std::string(path) : std::string(kWqyMicroHeiPath);
}

UiFonts FontAtlas::load(ImGuiIO& io, FontAtlasRequest request) {
  UiFontOptions& fonts = request.fonts;
  // Measured headless (llvmpipe, 1600×900): at font scale 1 the ~3000 glyphs of the common set add
  // ~0.5 s to the first frame and ~40 MB; at 3× projector ~0.9 s and ~260 MB. So: ImGui's common
  // simplified set (typed text, paths) plus every character the app shows in Chinese while glyphs
  // are small; above 32 px only the characters the app itself shows.
  const bool common_set = fonts.pixel_size * fonts.content_scale * fonts.framebuffer_scale <= 32.0f;
  const bool new_extra_text = request.extra_text_owner != extra_text_owner_;
  extra_text_owner_ = request.extra_text_owner;
  auto add_extra_text = [&](ImFontGlyphRangesBuilder& builder) {
    for (const std::string& text : request.extra_text) builder.AddText(text.c_str(), text.c_str() + text.size());
  };
  if (fonts.merge_chinese && (chinese_ranges_.empty() || common_set != chinese_ranges_common_ || new_extra_text)) {
    ImFontGlyphRangesBuilder builder;
    if (common_set) builder.AddRanges(io.Fonts->GetGlyphRangesChineseSimplifiedCommon());
    chinese_ranges_common_ = common_set;
    if (request.add_chinese_text) request.add_chinese_text(builder);
    add_extra_text(builder);
    chinese_ranges_.clear();
    builder.BuildRanges(&chinese_ranges_);
  }
  fonts.chinese_glyph_ranges = chinese_ranges_.empty() ? nullptr : chinese_ranges_.Data;
  if (!fonts.merge_chinese && request.chinese_offered) {
    // English still lists the language's name in the language combo: just those few glyphs.
    if (chinese_name_ranges_.empty() || new_extra_text) {
      ImFontGlyphRangesBuilder builder;
      builder.AddText(request.chinese_name.c_str());
      add_extra_text(builder);
      chinese_name_ranges_.clear();
      builder.BuildRanges(&chinese_name_ranges_);
    }
    fonts.merge_chinese = true;
    fonts.chinese_glyph_ranges = chinese_name_ranges_.Data;
  }
  UiFonts loaded = load_ui_fonts(io, fonts);
  font_ = loaded.font;
  return loaded;
}

}  // namespace smlab::platform
