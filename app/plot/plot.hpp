// Describe a 2-D plot once as a plain value, then draw it as an ImGui item or export it as SVG.
// Both renderers share one layout, so the SVG shows what the screen shows. Plots compute no math.
//
// [SECTION] Index
//   [SECTION] Description of a plot (plain values; copy them, build them fresh, keep them)
//   [SECTION] Look
//   [SECTION] Layout report (what a frame placed, for tests that check the layout itself)
//   [SECTION] Rendering
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <imgui.h>

#include "plot/color.hpp"
#include "plot/color_scale.hpp"
#include "plot/ticks.hpp"

namespace smlab::plot {

// [SECTION] Description of a plot (plain values; copy them, build them fresh, keep them)

struct Axis {
  std::string label{};
  Scale scale = Scale::Linear;
  // min == max == 0: automatic from the data with 5 % padding (log axes: out to whole decades).
  // Otherwise the axis shows exactly [min, max] (min > max flips the axis).
  double min = 0.0, max = 0.0;
  bool integer_ticks = false;         // no ticks between integers (counts, indices, d_k)
  std::vector<double> tick_values{};  // non-empty: major ticks exactly here instead of nice ticks
  // Names of the integer positions 0, 1, … (e.g. tokens): ticks at integers show the name instead
  // of the number (every position when there is room, else at nice integer ticks), and hover
  // read-outs add it. Labels that would overlap are thinned like numbers.
  std::vector<std::string> tick_names{};
};

// The name tick_names gives an integer position, or null.
inline const std::string* position_name(const Axis& axis, double value) {
  const double index = std::round(value);
  if (index != value || index < 0.0 || index >= static_cast<double>(axis.tick_names.size())) return nullptr;
  return &axis.tick_names[static_cast<std::size_t>(index)];
}

// Every member has a default ({} included), so aggregate and designated initialisation may name
// only what they set without tripping GCC 12's -Wmissing-field-initializers:
//   plot.lines.push_back({.label = "scaled", .x = temperatures, .y = entropies, .markers = true});
//
// Empty std::optional<Color> everywhere means "pick series_color(index, style)", the index
// counting lines, then bars, then scatters in the order they appear.

struct LineSeries {
  std::string label{};  // empty: not in the legend
  std::vector<double> x{}, y{};
  std::optional<Color> color{};
  float width = 2.0f;  // px before Style::line_scale
  bool markers = false;
  bool dashed = false;
  // Filled translucent band (error bars, ±1 SE): both empty, or both the size of x.
  std::vector<double> band_low{}, band_high{};
  // False: one faint line of many (a seed beside the mean): named in exports and hover read-outs
  // only, and the legend and labels may lie over it.
  bool in_legend = true;
};
// Points with a NaN/inf coordinate (or ≤ 0 on a log axis) break the line there.

struct BarSeries {
  std::string label{};
  std::vector<double> x{};  // bar centres
  std::vector<double> y{};  // bar tops; bars start at `baseline`
  double width = 0.8;       // in x data units
  double baseline = 0.0;    // on a log y axis the bars start at the bottom of the axis instead
  std::optional<Color> color{};
  std::vector<Color> bar_colors{};  // non-empty (size of x): per-bar colours, e.g. highlight the argmax
  // > 0: each bar's value written over its top (under it when below the baseline; where markers
  // crowd that end, on the baseline's other side) with this many significant digits, or decimals
  // with `value_fixed` (weights: 0.006, 0.250; an exact 0 is "0"; one the decimals would round to 0
  // or 1 gets up to three more: 0.99995), so a value a lesson quotes can be read (a 0.006 bar is a
  // pixel tall). For a few wide bars; the caller leaves headroom on the y axis. With no room for all
  // of them, none is written and the layout report says so.
  int value_digits = 0;
  bool value_fixed = false;
};

enum class MarkerShape { Circle, Square, Diamond };

struct ScatterSeries {
  std::string label{};
  std::vector<double> x{}, y{};
  std::optional<Color> color{};
  float radius = 3.5f;  // px before Style::marker_scale
  MarkerShape shape = MarkerShape::Circle;
  // False: named (hover, CSV) but not listed in the legend; the plot names it another way.
  bool in_legend = true;
};

// Full-height / full-width reference lines; the label is written next to the line inside the plot.
struct VLine {
  double x = 0.0;
  std::string label{};
  std::optional<Color> color{};  // empty: Style::text_dim
  bool dashed = true;
  // Written instead of `label` where that finds no place beside the line; empty: none.
  std::string short_label{};
};
struct HLine {
  double y = 0.0;
  std::string label{};
  std::optional<Color> color{};
  bool dashed = true;
};

enum class TextAlign { Left, Center, Right };

// Text whose anchor sits at data point (x, y): horizontally as `align` says, vertically centred.
// It is kept inside the plot area.
struct Annotation {
  double x = 0.0, y = 0.0;
  std::string text{};
  std::optional<Color> color{};  // empty: Style::text
  TextAlign align = TextAlign::Left;
  // A label the plot can do without (a peak's value beside the curve that shows it): placed after
  // the others, and left out where it finds no place clear of the data and the reference lines, as
  // in a small, crowded plot.
  bool optional = false;
};

// Writes row `row` of a matrix into out (one float per column).
using RowFiller = std::function<void(int row, std::span<float> out)>;

// A matrix shown as coloured cells, row 0 at the top, with a colorbar on the right.
// Column c spans x ∈ [c − 0.5, c + 0.5] and row r spans y ∈ [r − 0.5, r + 0.5] so ticks
// land on cell centres. On screen the cells come from `texture` (see HeatmapTexture); without
// a texture, up to 64×64 cells are drawn as rectangles and bigger maps show a notice.
struct Heatmap {
  int rows = 0, cols = 0;
  // The cells: either stored, `values` (row-major rows * cols), or produced a row at a time by
  // `fill_row` when `values` is empty (the dashboard's attention maps are recomputed from QKᵀ
  // rather than stored). Read them through heatmap_row(). NaN/inf drawn as invalid_color().
  // Neither is owned: what they point into must outlive every use of the Plot (panels point into
  // the Snapshot, which outlives the frame), because copying a 4096² map into each frame's
  // description would cost 64 MB and tens of ms.
  std::span<const float> values{};
  RowFiller fill_row{};
  // The colour range in use (the colorbar shows exactly it). Builders put the data's range here
  // (auto) and the quantity's range in `fixed_range`; apply_color_scale() picks one of them.
  double vmin = 0.0, vmax = 1.0;
  std::optional<ColorRange> fixed_range{};      // weights [0, 1], a Jacobian ±1/4; empty: auto only
  std::optional<ColorRange> auto_range{};       // set by apply_color_scale() from vmin/vmax
  ColorScale scale = ColorScale::Auto;          // which of the two vmin/vmax hold
  ColorScale default_scale = ColorScale::Auto;  // the builder's choice when the user made none
  std::string scale_key{};                      // key in ColorScales; empty: "<view>/<plot name>"
  Colormap colormap = Colormap::Viridis;
  std::string colorbar_label{};
  std::string x_label{}, y_label{};  // used instead of Plot::x/y labels when not empty
  bool square_cells = true;          // keep cells square (centred in the area) rather than stretch
  std::vector<std::string> names{};  // a name per row and column of a square map (tokens), or empty
  // Cells drawn with a frame over their colour, as (row, column): where a reference puts its weight
  // (the training task's ideal map over the model's), so the two compare in one map. A dark and a
  // light stroke, so the frame reads on every colour of every colormap.
  std::vector<std::pair<int, int>> framed_cells{};
  std::uintptr_t texture = 0;  // GL texture name owned by a HeatmapTexture; 0 = not uploaded
};

// Whether every cell can be read: `values` holds rows × cols of them, or `fill_row` is set.
inline bool heatmap_has_cells(const Heatmap& map) {
  if (map.rows <= 0 || map.cols <= 0) return false;
  return static_cast<bool>(map.fill_row) ||
         map.values.size() >= static_cast<std::size_t>(map.rows) * static_cast<std::size_t>(map.cols);
}

// A RowFiller reading stored row-major cells with `cols` columns.
inline RowFiller rows_of(std::span<const float> values, int cols) {
  return [values, cols](int row, std::span<float> out) {
    const auto first = values.begin() + static_cast<std::ptrdiff_t>(row) * cols;
    std::copy(first, first + cols, out.begin());
  };
}

// Row `row` of a heatmap with heatmap_has_cells(): a view into `values`, or `scratch` (resized to
// cols) filled by `fill_row`. Valid until scratch or the heatmap's cells change.
inline std::span<const float> heatmap_row(const Heatmap& map, int row, std::vector<float>& scratch) {
  if (map.values.empty()) {
    scratch.resize(static_cast<std::size_t>(map.cols));
    map.fill_row(row, scratch);
    return scratch;
  }
  return map.values.subspan(static_cast<std::size_t>(row) * static_cast<std::size_t>(map.cols),
                            static_cast<std::size_t>(map.cols));
}

enum class LegendPos { None, TopRight, TopLeft, BottomRight, BottomLeft };

struct Plot {
  std::string title{};
  // A shorter title that keeps the meaning ("scaled ÷√d_k"), used when `title` does not fit the
  // plot's width; empty: the title itself is shortened (and the layout reports it).
  std::string short_title{};
  Axis x{}, y{};
  std::vector<LineSeries> lines{};
  std::vector<BarSeries> bars{};
  std::vector<ScatterSeries> scatters{};
  std::vector<VLine> vlines{};
  std::vector<HLine> hlines{};
  std::vector<Annotation> annotations{};
  std::optional<Heatmap> heatmap{};  // when set, the series above are ignored
  LegendPos legend = LegendPos::TopRight;
  // More entries than this go in two columns (a flat legend that leaves the top of a short data
  // area free); 0: one column whenever the entries fit the height.
  int legend_max_rows = 0;
};

// [SECTION] Look

// The words of the hover read-outs (screen only), in the UI's language: the app fills them from its
// string table; the defaults are English.
struct HoverWords {
  std::string row = "row", col = "col", value = "value", bar = "bar", band = "band";
  std::string line = "line", points = "points", bars = "bars";  // unnamed series: "line 2"
  std::string no_texture = "no texture";
  std::string color_scale_hint = "right-click: colour scale fixed or auto";  // heatmaps with a fixed range
};

// [SECTION] Layout report (what a frame placed, for tests that check the layout itself)

// DataLabel: an annotation (Plot::annotations); LineLabel: a reference line's label, which the layout
// keeps off the data where it can but beside its own line (crowded lines may leave it nowhere else).
enum class TextRole { Title, AxisLabel, TickLabel, Legend, DataLabel, LineLabel };

// One text as laid out, in screen px (its box: the glyphs' advance width × the font size).
struct PlacedText {
  std::string text;
  TextRole role = TextRole::TickLabel;
  float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
};

// A box in screen px (x0, y0 top-left).
struct ScreenBox {
  float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;
};

// One plot as laid out: where it went, what text it shows, and what the layout had to give up
// ("title shortened", "legend dropped", "label left out": every entry is a readability defect).
struct PlotRecord {
  std::string id;
  float x0 = 0.0f, y0 = 0.0f, x1 = 0.0f, y1 = 0.0f;  // the plot's frame
  bool has_data_area = false;
  float data_x0 = 0.0f, data_y0 = 0.0f, data_x1 = 0.0f, data_y1 = 0.0f;
  float font_size = 0.0f;  // px of its labels
  std::vector<PlacedText> texts;
  std::vector<std::string> problems;
  // Where data was drawn (bars, markers, points along lines; see layout.cpp data_marks) and the
  // legend's box, for covering_data().
  std::vector<ScreenBox> data_marks;
  std::optional<ScreenBox> legend_box;
  std::optional<ScreenBox> colorbar;  // a heatmap's colour bar
  // The values the plot draws inside its data area: both coordinates of line and scatter points
  // and band ends, bar positions and heights, reference lines, annotation anchors and the cells of
  // maps up to 256 × 256 (larger ones: `cells_left_out`). What a lesson may quote of this plot.
  std::vector<double> drawn_values;
  // For each drawn value, the data units one pixel spans along its axis there: a value is read off
  // the plot to about this much (a quoted 0.006 is not read off a 0-to-1 axis 200 px tall). 0 for
  // a map's cells, which are read by colour.
  std::vector<double> drawn_resolution;
  bool cells_left_out = false;
};

struct LayoutReport {
  std::vector<PlotRecord> plots;
};

// Pairs of texts (indices into `texts`) whose boxes overlap by more than `tolerance` px in both
// directions.
std::vector<std::pair<std::size_t, std::size_t>> overlapping_texts(const std::vector<PlacedText>& texts,
                                                                   float tolerance = 1.0f);

// How far an annotation keeps from every data mark, in px at labels of `font_size` px (at least
// 2 px, 0.1 em): a label that touches a curve or a marker reads as part of it.
inline float label_clearance(float font_size) { return std::max(2.0f, 0.1f * font_size); }

// Texts in front of the data: one line per legend box that covers a data mark by more than
// `tolerance` px in both directions ("legend covers data") and, with `labels`, per annotation that
// does so or comes nearer a mark than label_clearance() ("label \"…\" covers data", "label \"…\"
// touches data"). Reference-line labels (TextRole::LineLabel) are not counted.
std::vector<std::string> covering_data(const PlotRecord& record, bool labels = false, float tolerance = 1.0f);

struct Style {
  // Screen only: when set, draw() appends every plot's layout here (also plots scrolled out of
  // view), for the layout tests. Not owned.
  LayoutReport* report = nullptr;
  Color background{}, frame{}, grid{}, axis{}, text{}, text_dim{};
  HoverWords words{};
  // px of tick labels, axis labels and legend; the title is 1.15× this. 0 = ImGui's current font
  // size on screen (crisp: the atlas is not resampled) and 15 px in SVG; set the same number for
  // both when an export must match the screen to the pixel.
  float font_size = 0.0f;
  float line_scale = 1.0f;    // multiplies every line width (the projector theme uses 2)
  float marker_scale = 1.0f;  // multiplies marker radii
  float padding = 6.0f;       // px between the frame and its content, and between labels
  // false: leave the plot's background unpainted because the caller already cleared to
  // `background`. A software rasteriser pays ~10 ms per full-screen fill at 1600×900, so the
  // dashboard skips this on screen; SVG export keeps it so the file stands alone.
  bool fill_background = true;
  std::string svg_font_family = "DejaVu Sans, Helvetica, Arial, sans-serif";
  // Replaces every sequential heatmap colormap (the user's choice); empty: each plot's own.
  std::optional<Colormap> sequential_colormap{};
  // The user's colour scale per heatmap (fixed or auto), used by the screen and by exports.
  ColorScales color_scales{};
};

Style dark_style();       // for ImGui's dark theme
Style light_style();      // white background
Style projector_style();  // white background, black text, 2× lines, big markers, 22 px font

// [SECTION] Rendering

// Width in px of UTF-8 `text` at `font_size_px`. Layout uses it to keep text from overlapping.
using TextWidthFn = std::function<float(std::string_view text, float font_size_px)>;

// Conservative estimate for a sans-serif font (CJK counted as full width); what SVG uses.
float estimate_text_width(std::string_view text, float font_size_px);

// What the mouse did over the plot this frame (screen only).
struct Interaction {
  bool hovered = false;
  bool clicked = false;                    // left button released over the plot
  double x = 0.0, y = 0.0;                 // data coordinates under the mouse (heatmap: column, row)
  int heatmap_row = -1, heatmap_col = -1;  // the cell under the mouse, -1 outside
};

// How `plot` fills a frame of `size` px: the frame it needs (a heatmap with square cells gives up the
// room its grid leaves on either side, so its frame hugs the map), and where its data area falls in
// that frame (a heatmap's: its grid and its colour bar). Layouts size cells by what they leave the
// data (panels/lesson_layout.hpp). `text_width` as for to_svg (empty: estimate_text_width).
struct PlotFit {
  ImVec2 size{};
  bool has_data_area = false;
  ScreenBox data{};
  bool complete = false;  // the layout gave nothing up (no title, label or legend shortened or left out)
};
PlotFit fit_plot(const Plot& plot, ImVec2 size, const Style& style, float font_size_px,
                 const TextWidthFn& text_width = {});

// Draws `plot` as one ImGui item of `size` px at the cursor (a component ≤ 0 means the available
// region plus that amount, so 0 fills the rest of the window's content region) and shows
// a tooltip on hover: nearest line / scatter point, bar value, heatmap cell. `id` must be unique
// in the current ImGui ID stack. Must be called between ImGui::Begin() and End().
Interaction draw(const char* id, const Plot& plot, ImVec2 size, const Style& style);

// The hover read-out's heading of a series without a label: the quantity on the y axis where the
// plot has one series of that kind ("weight", not "bars 1"), else `word` and its number ("line 2").
std::string unnamed_series_heading(const Plot& plot, const std::string& word, std::size_t series, std::size_t count);

// What lies under a point of a plot drawn `size` px large in `style` (the same layout as draw()):
// the hit-test of the app's pointer gestures (mouse or touch: dragging a bar, a live point, picking
// a heatmap cell). `point` is in px from the plot's top-left corner. −1: nothing of that kind there.
struct Hit {
  bool in_data_area = false;
  // Data coordinates of the point (heatmap: column, row), also outside the data area: a drag past
  // an axis still maps to a value. NaN when the plot has no data area.
  double x = std::numeric_limits<double>::quiet_NaN(), y = std::numeric_limits<double>::quiet_NaN();
  int bar_series = -1, bar_index = -1;          // the bar whose column holds the point's x (last series first)
  int scatter_series = -1, scatter_index = -1;  // the nearest scatter point within reach (1.2 em, ≥ 16 px)
  int heatmap_row = -1, heatmap_col = -1;       // the heatmap cell under the point
};
// `font_size` 0: the current ImGui font's size (as draw() resolves it). Needs a current ImGui context
// (the font measures the texts the layout places).
Hit hit_test(const Plot& plot, ImVec2 size, const Style& style, ImVec2 point, float font_size = 0.0f);

// A standalone SVG 1.1 document (UTF-8) of the plot at width × height px with the same layout
// as draw(). Heatmaps up to 128×128 cells become <rect>s, bigger ones an embedded PNG.
// `text_width` defaults to estimate_text_width; pass the app's font metrics (a lambda around
// ImFont::CalcTextSizeA) and Style::font_size to reproduce the screen's layout exactly.
std::string to_svg(const Plot& plot, float width, float height, const Style& style, const TextWidthFn& text_width = {});
// Text as XML 1.0 (and HTML) character data, appended to `out`: what XML cannot hold is dropped
// (control characters but tab and newline, bytes that are not UTF-8, noncharacters). to_svg's, and
// the lesson handout's.
void append_escaped(std::string& out, std::string_view text);

}  // namespace smlab::plot
