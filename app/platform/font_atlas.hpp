// The UI font atlas across changes of look: which Chinese glyphs it carries (only what is shown, as
// a full CJK set costs seconds and hundreds of MB at large sizes) and when they are gathered again.
// The App says what it shows; this builds the glyph ranges and loads the fonts (platform/fonts.hpp).
#pragma once

#include <functional>
#include <span>
#include <string>

#include <imgui.h>

#include "platform/fonts.hpp"

namespace smlab::platform {

// The CJK font file: fonts-wqy-microhei's, or SOFTMAX_LAB_CJK_FONT when set (tests point it at a
// missing file to check the fallback).
std::string chinese_font_path();

struct FontAtlasRequest {
  // Sizes and files; `merge_chinese`: the language shown is Chinese (its glyph ranges are set here).
  UiFontOptions fonts;
  // Chinese can be chosen, so an atlas without Chinese still needs the glyphs of the language's
  // name in the language combo: `chinese_name` ("简体中文").
  bool chinese_offered = false;
  std::string chinese_name;
  // Adds every character the app shows in Chinese (its string table, its lessons); called only
  // when the Chinese ranges are gathered again.
  std::function<void(ImFontGlyphRangesBuilder&)> add_chinese_text;
  // Text beyond ASCII drawn in either language (imported token labels), and what it belongs to:
  // the ranges are gathered again when that changes. Null: none.
  const void* extra_text_owner = nullptr;
  std::span<const std::string> extra_text;
};

class FontAtlas {
 public:
  // Gathers the glyph ranges `request` needs (again only when the size class, the extra text's
  // owner or a first use asks) and replaces io's fonts (load_ui_fonts): between frames only.
  UiFonts load(ImGuiIO& io, FontAtlasRequest request);
  // The extra text's owner the atlas was last loaded with: a different one needs load() again.
  const void* extra_text_owner() const { return extra_text_owner_; }
  ImFont* font() const { return font_; }  // the last load's UI font (null before the first)

 private:
  // Read by ImGui when the atlas is built (after load returns), so they live here.
  ImVector<ImWchar> chinese_ranges_;        // the Chinese atlas's glyphs
  ImVector<ImWchar> chinese_name_ranges_;   // the English atlas's "简体中文" (and the extra text)
  bool chinese_ranges_common_ = false;      // chinese_ranges_ includes ImGui's common simplified set
  const void* extra_text_owner_ = nullptr;  // whose extra text the ranges hold
  ImFont* font_ = nullptr;
};

}  // namespace smlab::platform
