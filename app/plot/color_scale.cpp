// Colour scales of heatmaps: fixed per quantity or fitted to the data (see color_scale.hpp).
#include "plot/color_scale.hpp"

#include "plot/plot.hpp"

namespace smlab::plot {

const char* name(ColorScale scale) { return scale == ColorScale::Fixed ? "fixed" : "auto"; }

std::optional<ColorScale> color_scale_from_name(std::string_view text) {
  if (text == "fixed") return ColorScale::Fixed;
  if (text == "auto") return ColorScale::Auto;
  return std::nullopt;
}

ColorScale ColorScales::scale(std::string_view key, ColorScale builder_default) const {
  if (const auto found = chosen.find(key); found != chosen.end()) return found->second;
  return lesson_open ? ColorScale::Fixed : builder_default;
}

bool valid_color_scale_key(std::string_view key) {
  if (key.empty() || key.size() > 64) return false;
  for (const char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' || c == '/';
    if (!ok) return false;
  }
  return true;
}

void apply_color_scale(Heatmap& map, ColorScale scale) {
  if (!map.auto_range) map.auto_range = ColorRange{map.vmin, map.vmax};
  const bool fixed = scale == ColorScale::Fixed && map.fixed_range.has_value();
  const ColorRange range = fixed ? *map.fixed_range : *map.auto_range;
  map.vmin = range.min;
  map.vmax = range.max;
  map.scale = fixed ? ColorScale::Fixed : ColorScale::Auto;
}

std::string color_scale_key(const Heatmap& map, std::string_view default_key) {
  return map.scale_key.empty() ? std::string(default_key) : map.scale_key;
}

bool apply_color_scales(Plot& plot, std::string_view default_key, const ColorScales& scales) {
  if (!plot.heatmap) return false;
  Heatmap& map = *plot.heatmap;
  const double old_min = map.vmin, old_max = map.vmax;
  apply_color_scale(map, scales.scale(color_scale_key(map, default_key), map.default_scale));
  return map.vmin != old_min || map.vmax != old_max;
}

}  // namespace smlab::plot
