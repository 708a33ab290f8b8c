// The colour of one heatmap cell, shared by both renderers (draw_imgui.cpp, svg.cpp) so the
// screen and the SVG export cannot colour the same cell differently. Defined in color.cpp.
#pragma once

#include "plot/color.hpp"

namespace smlab::plot {

// `value` placed in [vmin, vmax] on `colormap` (a zero-width range puts every value mid-scale,
// values outside clamp to the ends); NaN and ±inf get invalid_color().
Color cell_color(Colormap colormap, double value, double vmin, double vmax);

}  // namespace smlab::plot
