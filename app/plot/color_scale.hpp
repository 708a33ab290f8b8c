// Colour scales of heatmaps: each heatmap shows either a range fixed for its quantity (weights on
// [0, 1], a Jacobian on ±1/4) so that steps and views compare, or the range of its data (auto).
#pragma once

#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace smlab::plot {

struct Heatmap;
struct Plot;

enum class ColorScale { Fixed, Auto };

// "fixed" / "auto" (sessions) and back; nullopt for anything else. Inline, as the rest of this
// header's value code: sessions (and the fuzz loaders) use it without the plot library.
inline const char* name(ColorScale scale) { return scale == ColorScale::Fixed ? "fixed" : "auto"; }
inline std::optional<ColorScale> color_scale_from_name(std::string_view text) {
  if (text == "fixed") return ColorScale::Fixed;
  if (text == "auto") return ColorScale::Auto;
  return std::nullopt;
}

struct ColorRange {
  double min = 0.0, max = 1.0;
  friend bool operator==(const ColorRange&, const ColorRange&) = default;
};

// The fixed range of attention weights (every weight is in [0, 1]).
inline constexpr ColorRange weight_range{0.0, 1.0};

// The user's choice per heatmap, keyed "<view>/<plot>" ("dashboard/attention_scaled",
// "gradients/jacobian"). A heatmap without a choice shows Fixed while a lesson is open (lessons
// compare steps) and its builder's default otherwise.
struct ColorScales {
  std::map<std::string, ColorScale, std::less<>> chosen{};
  bool lesson_open = false;

  ColorScale scale(std::string_view key, ColorScale builder_default) const {
    if (const auto found = chosen.find(key); found != chosen.end()) return found->second;
    return lesson_open ? ColorScale::Fixed : builder_default;
  }
  friend bool operator==(const ColorScales&, const ColorScales&) = default;
};

// Bounds of a session's "color_scales" object: keys are 1 to 64 of a-z, 0-9, '_', '-', '/'.
inline constexpr std::size_t color_scale_max_entries = 64;
inline bool valid_color_scale_key(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (const char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '/';
    if (!ok) return false;
  }
  return true;
}

// Sets map.vmin/vmax to the range `scale` asks for and records it in map.scale. Fixed uses
// map.fixed_range; Auto (or a heatmap with no fixed range) keeps the data range the builder
// put in vmin/vmax (map.auto_range remembers it, so applying twice is harmless).
void apply_color_scale(Heatmap& map, ColorScale scale);

// The key of a plot's heatmap in ColorScales: its scale_key, else `default_key` ("<view>/<plot>").
std::string color_scale_key(const Heatmap& map, std::string_view default_key);

// apply_color_scale() with the choice `scales` holds for the plot's heatmap (none: nothing to do).
// Returns whether vmin/vmax changed, i.e. a texture coloured with the old range must be redone.
bool apply_color_scales(Plot& plot, std::string_view default_key, const ColorScales& scales);

}  // namespace smlab::plot
