// Fonts, theme and scale between frames (look.hpp).
#include "look.hpp"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "i18n/i18n.hpp"
#include "platform/fonts.hpp"
#include "smlab/import.hpp"
#include "smlab/labs/training.hpp"

namespace smlab::app {
namespace {

// The imported data whose token labels need glyphs beyond ASCII (CJK, accents, …), or null.
const ImportedAttention* token_glyph_source(const Params& params) {
  if (params.imported == nullptr) return nullptr;
  for (const std::string& token : params.imported->tokens)
    for (char c : token)
      if (static_cast<unsigned char>(c) >= 0x80) return params.imported.get();
  return nullptr;
}

// What decides the glyphs the plots need beyond ASCII in either language: the imported token
// labels, and the training lab's language model, whose maps and bars label tokens with the lesson
// texts' characters (Chinese ones too, in an English window) and the typed sentence's. These stay
// once gathered (`before`): a lesson stepping in and out of the language model would otherwise
// rebuild the atlas, a visible pause, at each step.
Look::GlyphSources glyph_sources(const Params& params, const Look::GlyphSources& before) {
  const TrainingSettings& training = params.training;
  const bool language = training.run.task == train::Task::language && training.corpus != nullptr;
  const void* corpus = language ? training.corpus.get() : nullptr;
  if (corpus == nullptr && before.corpus != nullptr && before.corpus == training.corpus.get()) corpus = before.corpus;
  return {token_glyph_source(params), corpus, language ? training.sentence : before.sentence};
}

}  // namespace

void apply_theme_colors(Theme theme, ImGuiStyle& style) {
  if (theme == Theme::dark)
    ImGui::StyleColorsDark(&style);
  else
    ImGui::StyleColorsLight(&style);
  if (theme == Theme::projector) style.Colors[ImGuiCol_Text] = ImVec4(0.0f, 0.0f, 0.0f, 1.0f);
  // Menus, tooltips and dialogs opaque: Dear ImGui's 94-98% let the plot labels beneath show
  // through a menu's items, which a projector makes hard to read.
  style.Colors[ImGuiCol_PopupBg].w = 1.0f;
  // Child windows and the menu bar are drawn over the window's colour: composite them on it.
  const ImVec4 window = style.Colors[ImGuiCol_WindowBg];
  const auto over_window = [&](ImVec4 color) {
    const float a = color.w;
    return plot::Color{color.x * a + window.x * (1.0f - a), color.y * a + window.y * (1.0f - a),
                       color.z * a + window.z * (1.0f - a)};
  };
  for (const ImGuiCol text : {ImGuiCol_Text, ImGuiCol_TextDisabled}) {
    ImVec4& color = style.Colors[text];
    plot::Color readable{color.x, color.y, color.z, color.w};
    for (const ImGuiCol background :
         {ImGuiCol_WindowBg, ImGuiCol_ChildBg, ImGuiCol_PopupBg, ImGuiCol_FrameBg, ImGuiCol_MenuBarBg})
      readable = plot::readable_on(readable, over_window(style.Colors[background]));
    color = ImVec4(readable.r, readable.g, readable.b, readable.a);
  }
}

plot::Style theme_plot_style(Theme theme) {
  switch (theme) {
    case Theme::dark: return plot::dark_style();
    case Theme::light: return plot::light_style();
    case Theme::projector: return plot::projector_style();
  }
  return plot::light_style();
}

void Look::apply(UiState& ui, platform::Surface& surface) {
  // The projector theme starts 1.15× larger so the back row can read it at font scale 1.
  const float theme_boost = ui.theme == Theme::projector ? 1.15f : 1.0f;
  ui.ui_scale = surface.content_scale() * ui.font_scale * theme_boost;

  platform::FontAtlasRequest request;
  platform::UiFontOptions& fonts = request.fonts;
  fonts.pixel_size = font_pixels_ * ui.font_scale * theme_boost;
  fonts.content_scale = surface.content_scale();
  fonts.framebuffer_scale = surface.framebuffer_scale();
  // CJK glyphs only while Chinese is shown (platform/font_atlas.hpp says which and why).
  fonts.merge_chinese = ui.language == i18n::Language::Chinese;
  fonts.chinese_font_path = platform::chinese_font_path();
  request.chinese_offered = ui.chinese_available.ok();
  request.chinese_name = i18n::language_name(i18n::Language::Chinese);
  request.add_chinese_text = [&ui](ImFontGlyphRangesBuilder& builder) {
    builder.AddText(i18n::all_text(i18n::Language::Chinese).c_str());
    // The lessons this app was given carry their own zh-CN text: their characters too (already
    // loaded and checked: no second read of the files).
    for (const Lesson& lesson : ui.lessons.lessons) {
      builder.AddText(lesson.title.chinese.c_str());
      for (const LessonStep& step : lesson.steps) {
        builder.AddText(step.title.chinese.c_str());
        builder.AddText(step.text.chinese.c_str());
      }
    }
  };
  // Token labels bring their own characters: merged from the same font, in either language.
  if (const GlyphSources sources = glyph_sources(ui.params, glyph_sources_);
      sources != glyph_sources_ || extra_glyphs_ == nullptr) {
    auto text = std::make_shared<std::vector<std::string>>();
    if (sources.imported != nullptr) *text = static_cast<const ImportedAttention*>(sources.imported)->tokens;
    if (sources.corpus != nullptr) {
      const auto& corpus = *static_cast<const train::Corpus*>(sources.corpus);
      for (int token = 0; token < corpus.vocab_size(); ++token) text->push_back(corpus.label(token));
      text->push_back(sources.sentence);
    }
    // Made while the old list lives, so its address (the atlas's owner key) is a new one.
    extra_glyphs_ = std::move(text);
    glyph_sources_ = sources;
  }
  if (!extra_glyphs_->empty()) {
    request.extra_text_owner = extra_glyphs_.get();
    request.extra_text = *extra_glyphs_;
  }
  const bool show_chinese = fonts.merge_chinese;
  const platform::UiFonts loaded = font_atlas_.load(ImGui::GetIO(), std::move(request));
  font_warning_ = loaded.warning;
  if (show_chinese && !loaded.chinese_merged) {
    // The font went away since start-up (or is unusable): English, which needs no CJK glyphs.
    ui.language = i18n::Language::English;
    const i18n::Use english(i18n::Language::English);
    font_warning_ = i18n::format("controls.language.no_font", {platform::chinese_font_path()});
    ui.chinese_available = Error::file(font_warning_);
  }
  applied_language_ = ui.language;
  const i18n::Use language(applied_language_);  // the plot words below

  ImGuiStyle& style = ImGui::GetStyle();
  style = ImGuiStyle();  // ScaleAllSizes multiplies: start from the unscaled sizes every time
  apply_theme_colors(ui.theme, style);
  plot_style_ = theme_plot_style(ui.theme);
  style.WindowRounding = 0.0f;
  style.FrameRounding = 3.0f;
  style.GrabRounding = 3.0f;
  // Light colours draw white slider and input frames on a white column: outlined, a slider is
  // seen as one (Dear ImGui's StyleColorsLight asks for the frame border), and stays visible on a
  // washed-out projector.
  if (ui.theme != Theme::dark) style.FrameBorderSize = 1.0f;
  style.ScaleAllSizes(ui.ui_scale);
  plot_style_.font_size = 0.0f;         // plots use the UI font size
  plot_style_.fill_background = false;  // the clear colour below is the plot background
  plot_style_.line_scale *= ui.ui_scale;
  plot_style_.marker_scale *= ui.ui_scale;
  plot_style_.padding *= ui.ui_scale;
  // The hover read-outs' words follow the language (apply runs again when it changes).
  plot_style_.words = {i18n::tr("plot.hover.row"),       i18n::tr("plot.hover.col"),  i18n::tr("plot.hover.value"),
                       i18n::tr("plot.hover.bar"),       i18n::tr("plot.hover.band"), i18n::tr("plot.hover.line"),
                       i18n::tr("plot.hover.points"),    i18n::tr("plot.hover.bars"), i18n::tr("plot.hover.no_texture"),
                       i18n::tr("plot.color_scale.hint")};
  surface.set_clear_color(ImVec4(plot_style_.background.r, plot_style_.background.g, plot_style_.background.b, 1));
  applied_theme_ = ui.theme;
  applied_font_scale_ = ui.font_scale;
  applied_framebuffer_scale_ = surface.framebuffer_scale();
  fonts_stale_ = false;
}

bool Look::extra_glyphs_need_cjk() const {
  if (extra_glyphs_ == nullptr) return false;
  // The CJK blocks page.js's needsChineseFont tests for: radicals to the unified ideographs, the
  // compatibility ideographs and the full-width forms. Lead bytes E2 BA (U+2E80) to E9 BF (U+9FFF),
  // EF A4 to EF AB (U+F900-FAFF), EF BC to EF BF (U+FF00-FFEF).
  for (const std::string& text : *extra_glyphs_)
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
      const auto lead = static_cast<unsigned char>(text[i]), next = static_cast<unsigned char>(text[i + 1]);
      if ((lead == 0xE2 && next >= 0xBA) || (lead >= 0xE3 && lead <= 0xE9) ||
          (lead == 0xEF && ((next >= 0xA4 && next <= 0xAB) || next >= 0xBC)))
        return true;
    }
  return false;
}

bool Look::stale(const UiState& ui, const platform::Surface& surface) const {
  return ui.theme != applied_theme_ || ui.font_scale != applied_font_scale_ || ui.language != applied_language_ ||
         glyph_sources(ui.params, glyph_sources_) != glyph_sources_ ||
         surface.framebuffer_scale() != applied_framebuffer_scale_ || fonts_stale_;
}

}  // namespace smlab::app
