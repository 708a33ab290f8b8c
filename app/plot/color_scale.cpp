// Colour scales of heatmaps: fixed per quantity or fitted to the data (see color_scale.hpp).
#include "plot/color_scale.hpp"

#include "plot/plot.hpp"

namespace smlab::plot {

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
