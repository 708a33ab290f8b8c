// Colours for plots: an RGBA value type, the colour-blind safe series palette and the heatmap colormaps.
// Pure value code: no ImGui, no GL, so tests and the SVG writer use it without a graphics context.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace smlab::plot {

struct Style;

// Straight (not premultiplied) sRGB colour, every channel in 0..1.
struct Color {
  float r = 0.0f, g = 0.0f, b = 0.0f, a = 1.0f;

  // 0xRRGGBB, the way colours are written in palettes and CSS.
  static constexpr Color from_hex(std::uint32_t rgb, float alpha = 1.0f) {
    return {static_cast<float>((rgb >> 16) & 0xFFu) / 255.0f, static_cast<float>((rgb >> 8) & 0xFFu) / 255.0f,
            static_cast<float>(rgb & 0xFFu) / 255.0f, alpha};
  }
  constexpr Color with_alpha(float alpha) const { return {r, g, b, alpha}; }

  friend constexpr bool operator==(const Color&, const Color&) = default;
};

// Linear interpolation of every channel; t is clamped to 0..1.
Color mix(Color from, Color to, float t);

// WCAG relative luminance (0 = black, 1 = white) of the opaque colour; used to pick
// readable text and to test that colormaps are monotonic.
float relative_luminance(Color color);

// WCAG contrast ratio (1..21) between two opaque colours.
float contrast_ratio(Color first, Color second);

// WCAG AA for text: 4.5:1 against what it is written on.
inline constexpr float readable_contrast = 4.5f;

// `text` itself when it has `ratio` against `background`, else the least mix of it towards black
// (on a light background) or white (on a dark one) that has: the hue kept, so a label still reads
// as its curve's (the Okabe–Ito yellow and sky blue are 1.5:1 and 2.2:1 on white). Alpha kept.
Color readable_on(Color text, Color background, float ratio = readable_contrast);

// Packs into ImGui's ImU32 layout (IM_COL32: A in the high byte, then B, G, R).
std::uint32_t to_imu32(Color color);

// "#rrggbb" (alpha is written separately in SVG as *-opacity).
struct HexString {
  char text[8];
};
HexString to_hex(Color color);

// Categorical colour for the index-th series (wraps around after 7), Okabe–Ito based and
// so colour-blind safe. The variant depends on the background of `style`: on light
// backgrounds the yellow is left out, on dark ones black becomes light grey.
Color series_color(int index, const Style& style);

// Perceptually uniform maps for heatmaps. All are colour-blind safe.
//   Viridis, Cividis, Magma: dark → bright (luminance increases with t).
//   Greys: black → white (high values bright, like the others).
//   Diverging: blue → near-white → red (ColorBrewer RdBu order reversed) for signed data;
//              centre the data with vmin = -vmax so that 0 is white.
enum class Colormap { Viridis, Cividis, Magma, Greys, Diverging };

inline constexpr int kColormapCount = 5;

// The map a heatmap is drawn with: Diverging (signed data) stays, any sequential map becomes the
// user's `sequential` choice when there is one (Style::sequential_colormap).
Colormap resolve_colormap(Colormap requested, std::optional<Colormap> sequential);

// Colour at t (clamped to 0..1). NaN gives invalid_color().
Color sample(Colormap colormap, double t);

// The colour of NaN / ±inf cells in every colormap: a muted magenta (#c080c0) that
// appears in none of the maps, so missing values never read as data.
constexpr Color invalid_color() { return Color::from_hex(0xC080C0); }

// Lower-case stable name: "viridis", "cividis", "magma", "greys", "diverging".
const char* name(Colormap colormap);

// Inverse of name(); case-insensitive; "grays", "gray" and "grey" are accepted too. Empty if unknown.
std::optional<Colormap> colormap_from_name(std::string_view text);

}  // namespace smlab::plot
