// The one layout of a plot (private to app/plot): layout_plot() turns a Plot into a Scene of
// positioned shapes in px, and the screen and SVG renderers only translate those shapes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "plot/plot.hpp"

namespace smlab::plot::detail {

struct Point {
  float x = 0.0f, y = 0.0f;
};

struct Box {
  float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
  float width() const { return x1 - x0; }
  float height() const { return y1 - y0; }
  bool contains(Point point) const { return point.x >= x0 && point.x <= x1 && point.y >= y0 && point.y <= y1; }
};

// Data values of one axis ↔ px along it; log axes interpolate in log10 space.
struct AxisMap {
  double data_lo = 0.0, data_hi = 1.0;
  float px_lo = 0.0f, px_hi = 1.0f;
  Scale scale = Scale::Linear;

  // NaN for values the axis cannot show (non-finite; ≤ 0 on a log axis). Clamped to ±1e6 px
  // so far-off points still give straight lines towards the edge without float trouble.
  float to_px(double value) const;
  double to_data(float px) const;
};

// Shapes, painted in the order they appear in Scene::shapes.
struct PolylineShape {
  std::vector<Point> points;  // 2 or more
  Color color;
  float width = 1.0f;
  bool dashed = false;
};
struct RectShape {
  Box box;
  std::optional<Color> fill;
  std::optional<Color> stroke;
  float stroke_width = 1.0f;
};
// A filled band between two curves sampled at the same x: upper[i] and lower[i] pair up.
struct BandShape {
  std::vector<Point> upper, lower;
  Color fill;
};
struct MarkerGlyph {
  Point centre;
  float radius = 3.0f;
  MarkerShape shape = MarkerShape::Circle;
  Color fill;
  std::optional<Color> outline;
  float outline_width = 1.0f;
};
// Horizontal text: origin is the top-left of its box, which is `size` px tall.
// Vertical text (reading bottom to top): origin is where the text starts, the bottom-left of
// its box; the box spans x ∈ [origin.x, origin.x + size], y ∈ [origin.y − width, origin.y].
struct TextShape {
  std::string text;
  Point origin;
  float size = 13.0f;
  Color color;
  bool vertical = false;
  TextRole role = TextRole::TickLabel;
  float width = 0.0f;  // measured advance width in px
};
// The box a text covers, in the scene's px.
Box text_box(const TextShape& text);
struct HeatmapShape {
  Box box;
  const Heatmap* heatmap = nullptr;  // points into the Plot being rendered
};
// A vertical colour ramp: the colormap's 0 at the bottom, 1 at the top.
struct ColorbarShape {
  Box box;
  Colormap colormap = Colormap::Viridis;
};
struct ClipBegin {
  Box box;
};
struct ClipEnd {};

using Shape = std::variant<PolylineShape, RectShape, BandShape, MarkerGlyph, TextShape, HeatmapShape, ColorbarShape,
                           ClipBegin, ClipEnd>;

struct Scene {
  float width = 0.0f, height = 0.0f;
  std::vector<Shape> shapes;
  bool has_data_area = false;  // false when the plot is too small or empty to show data
  Box data_area;               // the axes box (heatmap: the cell grid)
  AxisMap x_map, y_map;        // data ↔ px in data_area (heatmap: column and row index)
  // What the layout gave up to fit (a title shortened or dropped, a legend or label left out).
  std::vector<std::string> problems;
  std::vector<Box> data_marks;    // where series data is drawn (series plots only)
  std::optional<Box> legend_box;  // the legend's frame, when it has one
  std::optional<Box> colorbar;    // a heatmap's colour bar (the key to its cells' colours)
  // Room the data area leaves unused inside the frame, each way: a heatmap with square cells in a
  // panel of another shape. A frame this much smaller holds the same grid.
  float slack_x = 0.0f, slack_y = 0.0f;
};

// Font size in px the renderers use for a style (Style::font_size 0 → fallback).
float resolved_font_size(const Style& style, float fallback_px);

// Lay out `plot` in a width × height px rectangle with its origin at (0, 0).
// `text_width` must be callable; `font_size_px` replaces Style::font_size.
Scene layout_plot(const Plot& plot, float width, float height, const Style& style, float font_size_px,
                  const TextWidthFn& text_width);

// The values `plot` draws inside the data area of its `scene` (PlotRecord::drawn_values); sets
// `cells_left_out` when a heatmap is too large to list, and `resolution` to each value's data units
// per pixel (PlotRecord::drawn_resolution).
std::vector<double> drawn_values(const Plot& plot, const Scene& scene, bool& cells_left_out,
                                 std::vector<double>* resolution = nullptr);

// Colours after automatic assignment; the index order is lines, bars, scatters.
Color line_color(const Plot& plot, std::size_t line_index, const Style& style);
Color bar_color(const Plot& plot, std::size_t bar_index, const Style& style);
Color scatter_color(const Plot& plot, std::size_t scatter_index, const Style& style);

// Dash pattern of dashed lines of a given width, the same on screen and in SVG.
float dash_length(float line_width);
float dash_gap(float line_width);

// Decodes the UTF-8 code point at text[index] and moves index past it. Malformed bytes
// decode as U+FFFD, one byte at a time, so every loop over a string ends.
std::uint32_t next_codepoint(std::string_view text, std::size_t& index);

// Where the baseline of text of `size` px sits below the top of its box (SVG positions
// text by baseline, ImGui by the top of the box).
inline float baseline_offset(float size) { return 0.8f * size; }

}  // namespace smlab::plot::detail
