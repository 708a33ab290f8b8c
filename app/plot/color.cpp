// Colour arithmetic, the series palette and the colormap anchor tables.
// Colormaps are short tables of published anchor colours, interpolated linearly in sRGB.
//
// [SECTION] Index
//   [SECTION] Colormap anchors
//   [SECTION] Series palette
#include "plot/color.hpp"
#include "plot/cell_color.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <span>
#include <string>

#include "plot/plot.hpp"

namespace smlab::plot {
namespace {

// [SECTION] Colormap anchors
// Viridis, cividis and magma: the ten evenly spaced colours that viridisLite's viridis(10),
// cividis(10) and magma(10) publish; ten anchors keep the linear interpolation within about
// 1 % of the full 256-entry maps, below what the eye separates.
constexpr std::array<std::uint32_t, 10> kViridisAnchors = {0x440154, 0x482878, 0x3E4A89, 0x31688E, 0x26828E,
                                                           0x1F9E89, 0x35B779, 0x6DCD59, 0xB4DE2C, 0xFDE725};
constexpr std::array<std::uint32_t, 10> kCividisAnchors = {0x00204D, 0x00336F, 0x39486B, 0x575C6D, 0x707173,
                                                           0x8A8779, 0xA69D75, 0xC4B56C, 0xE4CF5B, 0xFFEA46};
constexpr std::array<std::uint32_t, 10> kMagmaAnchors = {0x000004, 0x180F3E, 0x451077, 0x721F81, 0x9F2F7F,
                                                         0xCD4071, 0xF1605D, 0xFD9567, 0xFEC98D, 0xFCFDBF};
// sRGB is close to perceptually uniform for neutral greys, so two anchors suffice.
constexpr std::array<std::uint32_t, 2> kGreysAnchors = {0x000000, 0xFFFFFF};
// ColorBrewer RdBu (11 classes, marked colour-blind safe) from blue to red, so that negative
// reads "cold" and positive "hot".
constexpr std::array<std::uint32_t, 11> kDivergingAnchors = {0x053061, 0x2166AC, 0x4393C3, 0x92C5DE, 0xD1E5F0, 0xF7F7F7,
                                                             0xFDDBC7, 0xF4A582, 0xD6604D, 0xB2182B, 0x67001F};

std::span<const std::uint32_t> anchors_of(Colormap colormap) {
  switch (colormap) {
    case Colormap::Viridis: return kViridisAnchors;
    case Colormap::Cividis: return kCividisAnchors;
    case Colormap::Magma: return kMagmaAnchors;
    case Colormap::Greys: return kGreysAnchors;
    case Colormap::Diverging: return kDivergingAnchors;
  }
  return kViridisAnchors;
}

// [SECTION] Series palette
// Okabe & Ito (2008), "Color Universal Design": distinguishable with every common form of
// colour blindness. Order puts the most separable hues first.
constexpr std::array<std::uint32_t, 7> kPaletteForLight = {0x0072B2, 0xD55E00, 0x009E73, 0xE69F00,
                                                           0xCC79A7, 0x56B4E9, 0x000000};
constexpr std::array<std::uint32_t, 7> kPaletteForDark = {0x56B4E9, 0xE69F00, 0x009E73, 0xF0E442,
                                                          0xCC79A7, 0xD55E00, 0xE0E0E0};

// WCAG asks 3:1 for graphical objects against their background.
constexpr float kMinimumGraphicContrast = 3.0f;

float srgb_to_linear(float channel) {
  return channel <= 0.04045f ? channel / 12.92f : std::pow((channel + 0.055f) / 1.055f, 2.4f);
}

std::string lower_case(std::string_view text) {
  std::string lowered(text);
  for (char& character : lowered) character = static_cast<char>(std::tolower(static_cast<unsigned char>(character)));
  return lowered;
}

}  // namespace

Color mix(Color from, Color to, float t) {
  t = std::clamp(t, 0.0f, 1.0f);
  return {from.r + (to.r - from.r) * t, from.g + (to.g - from.g) * t, from.b + (to.b - from.b) * t,
          from.a + (to.a - from.a) * t};
}

float relative_luminance(Color color) {
  return 0.2126f * srgb_to_linear(color.r) + 0.7152f * srgb_to_linear(color.g) + 0.0722f * srgb_to_linear(color.b);
}

float contrast_ratio(Color first, Color second) {
  const float lighter = std::max(relative_luminance(first), relative_luminance(second));
  const float darker = std::min(relative_luminance(first), relative_luminance(second));
  return (lighter + 0.05f) / (darker + 0.05f);
}

Color readable_on(Color text, Color background, float ratio) {
  const Color opaque = text.with_alpha(1.0f);
  if (contrast_ratio(opaque, background) >= ratio) return text;
  // Towards whichever end has the more room: black on a light background, white on a dark one.
  const Color end = contrast_ratio(Color{0, 0, 0}, background) >= contrast_ratio(Color{1, 1, 1}, background)
                        ? Color{0, 0, 0}
                        : Color{1, 1, 1};
  // Contrast grows monotonically along the mix towards that end: the least t by bisection.
  float low = 0.0f, high = 1.0f;
  for (int step = 0; step < 24; ++step) {
    const float t = 0.5f * (low + high);
    // A hair above the ratio: 8-bit channels round the mix either way.
    (contrast_ratio(mix(opaque, end, t), background) >= ratio * 1.01f ? high : low) = t;
  }
  return mix(opaque, end, high).with_alpha(text.a);
}

std::uint32_t to_imu32(Color color) {
  const auto to_byte = [](float channel) {
    return static_cast<std::uint32_t>(std::lround(std::clamp(channel, 0.0f, 1.0f) * 255.0f));
  };
  return to_byte(color.r) | (to_byte(color.g) << 8) | (to_byte(color.b) << 16) | (to_byte(color.a) << 24);
}

HexString to_hex(Color color) {
  constexpr char kDigits[] = "0123456789abcdef";
  HexString hex{};
  hex.text[0] = '#';
  const float channels[3] = {color.r, color.g, color.b};
  for (int index = 0; index < 3; ++index) {
    const long byte = std::lround(std::clamp(channels[index], 0.0f, 1.0f) * 255.0f);
    hex.text[1 + 2 * index] = kDigits[(byte >> 4) & 0xF];
    hex.text[2 + 2 * index] = kDigits[byte & 0xF];
  }
  hex.text[7] = '\0';
  return hex;
}

Color series_color(int index, const Style& style) {
  const bool dark_background = relative_luminance(style.background) < 0.2f;
  const auto& palette = dark_background ? kPaletteForDark : kPaletteForLight;
  const int count = static_cast<int>(palette.size());
  const Color base = Color::from_hex(palette[static_cast<std::size_t>(((index % count) + count) % count)]);
  // Same hue, pushed towards the text side until it stands out from the background:
  // keeps the colour-blind safe hue order while staying readable on every theme.
  const Color towards = dark_background ? Color{1, 1, 1, 1} : Color{0, 0, 0, 1};
  Color adjusted = base;
  for (int step = 1; step <= 10 && contrast_ratio(adjusted, style.background) < kMinimumGraphicContrast; ++step) {
    adjusted = mix(base, towards, 0.06f * static_cast<float>(step));
  }
  return adjusted;
}

Color cell_color(Colormap colormap, double value, double vmin, double vmax) {
  const double span = vmax - vmin;
  const double t = span == 0.0 ? 0.5 : (value - vmin) / span;
  return std::isfinite(value) ? sample(colormap, t) : invalid_color();
}

Color sample(Colormap colormap, double t) {
  if (std::isnan(t)) return invalid_color();
  const auto anchors = anchors_of(colormap);
  const double position = std::clamp(t, 0.0, 1.0) * static_cast<double>(anchors.size() - 1);
  const auto lower = std::min(static_cast<std::size_t>(position), anchors.size() - 2);
  const auto fraction = static_cast<float>(position - static_cast<double>(lower));
  return mix(Color::from_hex(anchors[lower]), Color::from_hex(anchors[lower + 1]), fraction);
}

Colormap resolve_colormap(Colormap requested, std::optional<Colormap> sequential) {
  if (requested == Colormap::Diverging || !sequential || *sequential == Colormap::Diverging) return requested;
  return *sequential;
}

const char* name(Colormap colormap) {
  switch (colormap) {
    case Colormap::Viridis: return "viridis";
    case Colormap::Cividis: return "cividis";
    case Colormap::Magma: return "magma";
    case Colormap::Greys: return "greys";
    case Colormap::Diverging: return "diverging";
  }
  return "viridis";
}

std::optional<Colormap> colormap_from_name(std::string_view text) {
  const std::string lowered = lower_case(text);
  for (int index = 0; index < kColormapCount; ++index) {
    const auto colormap = static_cast<Colormap>(index);
    if (lowered == name(colormap)) return colormap;
  }
  if (lowered == "grays" || lowered == "gray" || lowered == "grey") return Colormap::Greys;
  return std::nullopt;
}

}  // namespace smlab::plot
