// The look between frames: the fonts (the atlas and the glyphs it carries beyond ASCII), the ImGui
// style and the plot style for the theme, the font scale and the language a UiState asks for, and
// the language they were made in. The App holds one, applies it when it is stale (before a frame,
// never inside one: it rebuilds the font atlas), and draws with its plot style.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <imgui.h>

#include "platform/font_atlas.hpp"
#include "platform/surface.hpp"
#include "plot/plot.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

// A theme's ImGui colours (Dear ImGui's dark or light set, black text on the projector's) with
// every text colour at WCAG AA contrast (4.5:1) on every background text is written on: the
// windows, popups, frames and menu bar. Light's grey #999 notes on #F0F0F0 were 2.6:1.
void apply_theme_colors(Theme theme, ImGuiStyle& style);
// A theme's plot colours (plot::dark_style, light_style, projector_style).
plot::Style theme_plot_style(Theme theme);

class Look {
 public:
  // What the font atlas's glyphs beyond ASCII come from in either language: imported token labels
  // (an ImportedAttention whose labels need them), the training lab's language model (its corpus,
  // while that task is set) and its typed sentence.
  struct GlyphSources {
    const void* imported = nullptr;
    const void* corpus = nullptr;
    std::string sentence;
    friend bool operator==(const GlyphSources&, const GlyphSources&) = default;
  };

  // `font_pixels`: the UI font's size at scale 1 (AppOptions::font_pixels).
  explicit Look(float font_pixels) : font_pixels_(font_pixels) {}

  // Whether `ui` asks for another theme, font scale or language, its Params need other glyphs, the
  // surface's framebuffer scale changed (a page's DPR can), or the fonts are to be read again.
  bool stale(const UiState& ui, const platform::Surface& surface) const;
  // Fonts, ImGui style and plot style for ui.theme, ui.font_scale and ui.language; sets ui.ui_scale.
  // Where the Chinese font went away since start-up, ui.language falls back to English and
  // ui.chinese_available says why. Between frames only: it rebuilds the font atlas.
  void apply(UiState& ui, platform::Surface& surface);
  // Reads the font files again at the next apply (the web page wrote its full Chinese font over the
  // short one at the same path).
  void reload_fonts() { fonts_stale_ = true; }

  // The style the plots are drawn in; the App sets the user's colormap and colour scales on it.
  plot::Style& plot_style() { return plot_style_; }
  const plot::Style& plot_style() const { return plot_style_; }
  // The language the look was made in (UiState::language once applied).
  i18n::Language language() const { return applied_language_; }
  float font_pixels() const { return font_pixels_; }
  // Empty, or why a font could not be loaded as asked.
  const std::string& font_warning() const { return font_warning_; }
  ImFont* ui_font() const { return font_atlas_.font(); }
  // Whether the extra glyphs (token labels, the language model's corpus and sentence) hold CJK
  // characters.
  [[nodiscard]] bool extra_glyphs_need_cjk() const;

 private:
  float font_pixels_;
  platform::FontAtlas font_atlas_;
  // The text beyond ASCII the atlas carries in either language (token labels), and what it was
  // gathered from: a change of either source gathers it again.
  std::shared_ptr<const std::vector<std::string>> extra_glyphs_;
  GlyphSources glyph_sources_;
  bool fonts_stale_ = false;  // reload_fonts()
  std::string font_warning_;
  plot::Style plot_style_ = plot::dark_style();
  Theme applied_theme_ = Theme::dark;
  float applied_font_scale_ = 0.0f;         // 0: nothing applied yet
  float applied_framebuffer_scale_ = 0.0f;  // the surface's when the fonts were made
  i18n::Language applied_language_ = i18n::Language::English;
};

}  // namespace smlab::app
