// Text contrast on every theme (WCAG AA, 4.5:1): the themes' text colours on each background text is
// written on, and a plot's coloured labels (a curve's yellow or sky blue) as they are drawn.
#include <gtest/gtest.h>

#include <string>
#include <variant>

#include "frame/app.hpp"
#include "plot/color.hpp"
#include "plot/layout.hpp"
#include "plot/plot.hpp"

namespace smlab::app {
namespace {

constexpr Theme kThemes[] = {Theme::dark, Theme::light, Theme::projector};

plot::Color color_of(ImVec4 color) { return {color.x, color.y, color.z, color.w}; }

// What 8-bit channels make of a colour: the contrast checked is the one on screen.
plot::Color as_drawn(plot::Color color) {
  const std::uint32_t packed = plot::to_imu32(color);
  return {static_cast<float>(packed & 0xFFu) / 255.0f, static_cast<float>((packed >> 8) & 0xFFu) / 255.0f,
          static_cast<float>((packed >> 16) & 0xFFu) / 255.0f};
}

TEST(Contrast, TheWcagRatioOfBlackOnWhiteIs21AndOfAColourOnItselfIs1) {
  EXPECT_NEAR(plot::contrast_ratio(plot::Color{0, 0, 0}, plot::Color{1, 1, 1}), 21.0f, 1e-3f);
  EXPECT_NEAR(plot::contrast_ratio(plot::Color::from_hex(0x999999), plot::Color::from_hex(0x999999)), 1.0f, 1e-6f);
  // The lecturer's grey notes: #999 on #EEE is 2.3:1, under AA.
  EXPECT_LT(plot::contrast_ratio(plot::Color::from_hex(0x999999), plot::Color::from_hex(0xEEEEEE)), 2.5f);
}

// Every colour (a 16-step grid of each channel) on every theme's backgrounds comes out readable, and
// one that already was is left as it is.
TEST(Contrast, ReadableOnReachesAaForAnyColourAndKeepsOnesThatHaveIt) {
  for (const Theme theme : kThemes) {
    ImGuiStyle style;
    apply_theme_colors(theme, style);
    for (const plot::Color background : {theme_plot_style(theme).background, color_of(style.Colors[ImGuiCol_WindowBg])})
      for (int r = 0; r < 16; ++r)
        for (int g = 0; g < 16; ++g)
          for (int b = 0; b < 16; ++b) {
            const plot::Color text{static_cast<float>(r) / 15.0f, static_cast<float>(g) / 15.0f,
                                   static_cast<float>(b) / 15.0f};
            const plot::Color readable = plot::readable_on(text, background);
            ASSERT_GE(plot::contrast_ratio(as_drawn(readable), background), plot::readable_contrast)
                << theme_name(theme) << ": " << r << "," << g << "," << b;
            if (plot::contrast_ratio(text, background) >= plot::readable_contrast) {
              ASSERT_EQ(readable, text);
            }
          }
  }
}

// Menus, tooltips and dialogs hide what lies beneath them: with Dear ImGui's 94% the plot labels
// under an open menu showed through its items (seen on the web page).
TEST(Contrast, MenusAndTooltipsAreOpaqueOnEveryTheme) {
  for (const Theme theme : kThemes) {
    ImGuiStyle style;
    apply_theme_colors(theme, style);
    EXPECT_EQ(style.Colors[ImGuiCol_PopupBg].w, 1.0f) << theme_name(theme);
  }
}

// The themes' text and disabled text (the lesson notes, hints and cover cards) on the window,
// child, popup, frame and menu-bar backgrounds; the plots' text and dimmed text on the plot.
TEST(Contrast, EveryThemesTextColoursAreReadableOnEveryBackground) {
  for (const Theme theme : kThemes) {
    ImGuiStyle style;
    apply_theme_colors(theme, style);
    const ImVec4 window = style.Colors[ImGuiCol_WindowBg];
    for (const ImGuiCol text : {ImGuiCol_Text, ImGuiCol_TextDisabled})
      for (const ImGuiCol background :
           {ImGuiCol_WindowBg, ImGuiCol_ChildBg, ImGuiCol_PopupBg, ImGuiCol_FrameBg, ImGuiCol_MenuBarBg}) {
        const ImVec4 under = style.Colors[background];
        const float a = under.w;
        const plot::Color shown{under.x * a + window.x * (1 - a), under.y * a + window.y * (1 - a),
                                under.z * a + window.z * (1 - a)};
        EXPECT_GE(plot::contrast_ratio(as_drawn(color_of(style.Colors[text])), shown), plot::readable_contrast)
            << theme_name(theme) << ": " << ImGui::GetStyleColorName(text) << " on "
            << ImGui::GetStyleColorName(background);
      }
    const plot::Style plot_style = theme_plot_style(theme);
    EXPECT_GE(plot::contrast_ratio(plot_style.text, plot_style.background), plot::readable_contrast)
        << theme_name(theme);
    EXPECT_GE(plot::contrast_ratio(plot_style.text_dim, plot_style.background), plot::readable_contrast)
        << theme_name(theme);
  }
}

// A plot's labels in a curve's own colour (Okabe–Ito yellow 1.5:1 and sky blue 2.2:1 on white) are
// laid out in a colour of that hue that reads: every text shape of the scene, on every theme.
TEST(Contrast, APlotsColouredLabelsAreDrawnReadable) {
  plot::Plot p;
  p.title = "title";
  p.lines.push_back({.label = "yellow", .x = {0, 1}, .y = {0, 1}, .color = plot::Color::from_hex(0xF0E442)});
  p.annotations.push_back({0.2, 0.8, "undefined: all x ≤ 0", plot::Color::from_hex(0xF0E442)});
  p.annotations.push_back({0.8, 0.2, "k0", plot::Color::from_hex(0x56B4E9)});
  p.vlines.push_back({0.5, "c = 91", plot::Color::from_hex(0xE69F00), true});
  int texts = 0;
  for (const Theme theme : kThemes) {
    const plot::Style style = theme_plot_style(theme);
    const plot::detail::Scene scene = plot::detail::layout_plot(
        p, 600.0f, 400.0f, style, 15.0f,
        [](std::string_view text, float size) { return 0.6f * size * static_cast<float>(text.size()); });
    for (const plot::detail::Shape& shape : scene.shapes)
      if (const auto* text = std::get_if<plot::detail::TextShape>(&shape)) {
        EXPECT_GE(plot::contrast_ratio(as_drawn(text->color), style.background), plot::readable_contrast)
            << theme_name(theme) << ": \"" << text->text << "\"";
        ++texts;
      }
  }
  EXPECT_GE(texts, 12);
}

}  // namespace
}  // namespace smlab::app
