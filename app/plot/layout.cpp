// The one layout of a plot: margins from text sizes, data ranges, tick placement, and the
// shapes of frame, axes, series, legend and heatmap in px. Screen and SVG both draw from this.
//
// [SECTION] Index
//   [SECTION] Small helpers (axis map, text fitting, colours)
//   [SECTION] Data ranges
//   [SECTION] Ticks on an axis (count from length, labels thinned until they do not overlap)
//   [SECTION] Series
//   [SECTION] Legend
//   [SECTION] Series plot layout
//   [SECTION] Heatmap layout
//   [SECTION] Entry point
#include "plot/layout.hpp"
#include "plot/text_wrap.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <optional>
#include <unordered_set>
#include <utility>

namespace smlab::plot::detail {
namespace {

// [SECTION] Small helpers (axis map, text fitting, colours)

constexpr float kFarPx = 1e6f;
constexpr double kAutoPaddingFraction = 0.05;
// The legend is left out when it would cover more of the data area than this.
constexpr float kMaxLegendShareOfArea = 0.3f;
// ASCII, because ImGui's default font has no "…" glyph.
constexpr const char* kEllipsis = "...";

double to_axis_space(double value, Scale scale) { return scale == Scale::Log10 ? std::log10(value) : value; }

bool usable_on(double value, Scale scale) { return std::isfinite(value) && (scale == Scale::Linear || value > 0.0); }

std::size_t utf8_previous_boundary(std::string_view text, std::size_t end) {
  while (end > 0) {
    --end;
    if ((static_cast<unsigned char>(text[end]) & 0xC0u) != 0x80u) return end;
  }
  return 0;
}

// Everything the layout functions share while one Scene is built.
struct Builder {
  const Plot& plot;
  const Style& style;
  const TextWidthFn& measure;
  Scene& scene;
  float font = 13.0f;                      // tick labels, axis labels, legend
  float title_font = 15.0f;                // title
  std::vector<std::string> title_lines{};  // the title as shown: one line, or two when it is long
  float pad = 6.0f;                        // frame to content, and between blocks
  float gap = 3.0f;                        // tick label to tick
  float tick_length = 4.0f;
  // ≥ 0: the legend goes outside the data area, its box's left edge at this x (layout_series_plot
  // sets it when no corner inside is free of data).
  float legend_outside_x = -1.0f;
  bool legend_flat = false;
  // 2: a category axis (Axis::tick_names) whose names do not fit side by side alternates them over
  // two rows of x tick labels (the format names of the stability lab at classroom font sizes).
  int x_tick_rows = 1;
  float legend_above_y = -1.0f;  // ≥ 0: the legend's top, in a band above the data area (right-aligned)  // entries
                                 // side by side (up to four columns), for a legend at the top

  float text_width(std::string_view text, float size) const { return text.empty() ? 0.0f : measure(text, size); }

  // The text, shortened with "..." until it is at most max_width px wide ("" if nothing fits).
  // Shortening is a defect the layout report names (`what`: "title", "legend", ...).
  std::string fit(std::string_view text, float max_width, float size, std::string_view what) const {
    if (text_width(text, size) <= max_width) return std::string(text);
    problem(what, "shortened", text);
    std::size_t end = text.size();
    while (end > 0) {
      end = utf8_previous_boundary(text, end);
      std::string shortened = std::string(text.substr(0, end)) + kEllipsis;
      if (text_width(shortened, size) <= max_width) return end == 0 ? std::string() : shortened;
    }
    return {};
  }

  void problem(std::string_view what, std::string_view how, std::string_view text = {}) const {
    std::string entry(what);
    entry.append(" ").append(how);
    if (!text.empty()) entry.append(": \"").append(text).append("\"");
    scene.problems.push_back(std::move(entry));
  }

  void add(Shape shape) { scene.shapes.push_back(std::move(shape)); }

  // Every text of a plot, in any colour it is given (a curve's own for its label), is drawn with
  // WCAG AA contrast against the plot's background (readable_on).
  void text(std::string content, Point origin, float size, Color color, TextRole role, bool vertical = false) {
    if (content.empty()) return;
    const float width = text_width(content, size);
    add(TextShape{std::move(content), origin, size, readable_on(color, style.background), vertical, role, width});
  }

  float line_width(float base) const { return base * style.line_scale; }
};

Color pick_color(const std::optional<Color>& chosen, std::size_t series_index, const Style& style) {
  return chosen ? *chosen : series_color(static_cast<int>(series_index), style);
}

// [SECTION] Data ranges

struct Range {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  bool lo_sticky = false;  // lo is a bar baseline: no padding below it

  void add(double value, Scale scale) {
    if (!usable_on(value, scale)) return;
    lo = std::min(lo, value);
    hi = std::max(hi, value);
  }
  void add_all(const std::vector<double>& values, Scale scale) {
    for (const double value : values) add(value, scale);
  }
  bool empty() const { return lo > hi; }
};

// The range an axis shows: explicit limits, or the data's with padding (decades on log axes).
std::pair<double, double> resolve_range(const Axis& axis, Range data) {
  const bool explicit_limits = axis.min != 0.0 || axis.max != 0.0;
  if (explicit_limits && std::isfinite(axis.min) && std::isfinite(axis.max) &&
      (axis.scale == Scale::Linear || (axis.min > 0.0 && axis.max > 0.0))) {
    if (axis.min != axis.max) return {axis.min, axis.max};
    data = Range{};
    data.lo = data.hi = axis.min;
  }
  if (axis.scale == Scale::Log10) {
    if (data.empty()) return {1.0, 10.0};
    double lo = std::pow(10.0, std::floor(std::log10(data.lo) + 1e-9));
    double hi = std::pow(10.0, std::ceil(std::log10(data.hi) - 1e-9));
    if (hi <= lo) hi = lo * 10.0;
    return {lo, hi};
  }
  if (data.empty()) return {0.0, 1.0};
  if (data.hi == data.lo) {
    const double half_span = data.lo == 0.0 ? 1.0 : std::abs(data.lo) * 0.1;
    return {data.lo - half_span, data.hi + half_span};
  }
  const double padding = (data.hi - data.lo) * kAutoPaddingFraction;
  return {data.lo_sticky ? data.lo : data.lo - padding, data.hi + padding};
}

Range x_data_range(const Plot& plot) {
  const Scale scale = plot.x.scale;
  Range range;
  for (const auto& line : plot.lines) range.add_all(line.x, scale);
  for (const auto& bars : plot.bars) {
    for (const double centre : bars.x) {
      range.add(centre - 0.5 * bars.width, scale);
      range.add(centre + 0.5 * bars.width, scale);
    }
  }
  for (const auto& scatter : plot.scatters) range.add_all(scatter.x, scale);
  for (const auto& vline : plot.vlines) range.add(vline.x, scale);
  for (const auto& annotation : plot.annotations) range.add(annotation.x, scale);
  return range;
}

Range y_data_range(const Plot& plot) {
  const Scale scale = plot.y.scale;
  Range range;
  for (const auto& line : plot.lines) {
    range.add_all(line.y, scale);
    range.add_all(line.band_low, scale);
    range.add_all(line.band_high, scale);
  }
  for (const auto& bars : plot.bars) range.add_all(bars.y, scale);
  for (const auto& scatter : plot.scatters) range.add_all(scatter.y, scale);
  for (const auto& hline : plot.hlines) range.add(hline.y, scale);
  for (const auto& annotation : plot.annotations) range.add(annotation.y, scale);
  // Bars grow from their baseline, which belongs in view and needs no padding beyond it.
  if (scale == Scale::Linear) {
    for (const auto& bars : plot.bars) {
      if (bars.y.empty()) continue;
      const bool below_all = range.empty() || bars.baseline <= range.lo;
      range.add(bars.baseline, scale);
      if (below_all) range.lo_sticky = true;
    }
  }
  return range;
}

// [SECTION] Ticks on an axis (count from length, labels thinned until they do not overlap)

struct PlacedTick {
  float px = 0.0f;
  std::string label;  // empty: no label (minor tick, or dropped to avoid overlap)
  bool major = true;
  float label_width = 0.0f;
  int row = 0;  // 1: on the second row of a category axis whose names alternate rows
};

std::vector<Tick> ticks_for(const Axis& axis, double lo, double hi, int max_ticks) {
  if (!axis.tick_names.empty() && axis.tick_values.empty()) {
    // Named positions: all of them when few (thinning drops what overlaps), else nice integers.
    // Up to 24 names are offered whatever the plot's size: a small plot of a dozen tokens got the
    // names of positions 0, 5 and 10 only, which are rarely the ones that matter.
    std::vector<Tick> ticks;
    const double low = std::min(lo, hi), high = std::max(lo, hi);
    const double first = std::max(0.0, std::ceil(low));
    const double last = std::min(static_cast<double>(axis.tick_names.size()) - 1.0, std::floor(high));
    if (last - first < std::max(3.0 * max_ticks, 24.0)) {
      for (double value = first; value <= last; value += 1.0)
        ticks.push_back({value, *position_name(axis, value), true});
    } else {
      for (const Tick& tick : nice_ticks(lo, hi, Scale::Linear, max_ticks, true))
        if (const std::string* name = position_name(axis, tick.value); name != nullptr && tick.major)
          ticks.push_back({tick.value, *name, true});
    }
    return ticks;
  }
  if (axis.tick_values.empty()) return nice_ticks(lo, hi, axis.scale, max_ticks, axis.integer_ticks);
  std::vector<Tick> ticks;
  const double low = std::min(lo, hi), high = std::max(lo, hi);
  std::vector<double> values;
  for (const double value : axis.tick_values)
    if (usable_on(value, axis.scale) && value >= low && value <= high) values.push_back(value);
  // On a log axis the plot's own decades read as the automatic ones do (10³⁰, not 1e+30).
  const std::vector<std::string> labels =
      axis.scale == Scale::Log10 ? log_axis_labels(values) : std::vector<std::string>{};
  for (std::size_t index = 0; index < values.size(); ++index)
    ticks.push_back({values[index], labels.empty() ? format_number(values[index]) : labels[index], true});
  return ticks;
}

// Ticks of an axis mapped to px, with labels dropped (every other one, repeatedly) until the
// remaining ones have room. Horizontal labels are centred on their tick and kept inside
// [min_px, max_px]; vertical-axis labels are one text line tall.
std::vector<PlacedTick> place_ticks(const Builder& builder, const Axis& axis, const AxisMap& map, bool horizontal,
                                    float min_px, float max_px) {
  const float length = std::abs(map.px_hi - map.px_lo);
  const float spacing = horizontal ? builder.font * 4.5f : builder.font * 2.2f;
  const int max_ticks = std::clamp(static_cast<int>(length / spacing) + 1, 2, horizontal ? 11 : 9);

  // The budget is conservative (labels are usually narrower than `spacing`), and at two ticks the
  // nicest step can leave one: a 4096-key heatmap axis got 0 and 5000, so just "0". One more tick
  // then gives 0, 2000, 4000; labels that would overlap are thinned below anyway.
  const auto labelled_count = [](const std::vector<Tick>& ticks) {
    return std::count_if(ticks.begin(), ticks.end(), [](const Tick& tick) { return !tick.label.empty(); });
  };
  std::vector<Tick> ticks = ticks_for(axis, map.data_lo, map.data_hi, max_ticks);
  if (labelled_count(ticks) < 2) {
    std::vector<Tick> more = ticks_for(axis, map.data_lo, map.data_hi, max_ticks + 1);
    if (labelled_count(more) >= 2) ticks = std::move(more);
  }
  std::vector<PlacedTick> placed;
  for (auto& tick : ticks) {
    const float px = map.to_px(tick.value);
    if (!std::isfinite(px)) continue;
    const float width = builder.text_width(tick.label, builder.font);
    placed.push_back({px, std::move(tick.label), tick.major, width});
  }
  std::sort(placed.begin(), placed.end(), [](const PlacedTick& a, const PlacedTick& b) { return a.px < b.px; });

  std::vector<std::size_t> labelled;
  for (std::size_t index = 0; index < placed.size(); ++index) {
    if (!placed[index].label.empty()) labelled.push_back(index);
  }
  const auto label_span = [&](const PlacedTick& tick) {
    float start = tick.px - 0.5f * tick.label_width;
    start = std::clamp(start, min_px, std::max(min_px, max_px - tick.label_width));
    return std::pair{start, start + tick.label_width};
  };
  // Whether the labels of ticks `a` < `b` (indexes into `labelled`) keep clear of each other.
  const auto clear_of = [&](std::size_t a, std::size_t b) {
    const PlacedTick& previous = placed[labelled[a]];
    const PlacedTick& current = placed[labelled[b]];
    return horizontal ? label_span(current).first - label_span(previous).second >= builder.font * 0.6f
                      : current.px - previous.px >= builder.font * 1.15f;
  };
  // Whether label `k` (an index into `labelled`) is no wider than the room it is kept inside.
  const auto fits_across = [&](std::size_t k) { return placed[labelled[k]].label_width <= max_px - min_px; };
  const auto fits_with_stride = [&](std::size_t stride) {
    for (std::size_t k = stride; k < labelled.size(); k += stride) {
      if (!clear_of(k - stride, k)) return false;
    }
    if (horizontal) {
      for (std::size_t k = 0; k < labelled.size(); k += stride) {
        if (!fits_across(k)) return false;
      }
    }
    return true;
  };
  // Names of a category axis over two rows: each must clear the next name but one, on its own row.
  if (horizontal && builder.x_tick_rows == 2 && !axis.tick_names.empty() && fits_with_stride(2)) {
    for (std::size_t k = 0; k < labelled.size(); ++k) placed[labelled[k]].row = static_cast<int>(k % 2);
    return placed;
  }
  // Names that do not all fit: as many as do, from the left, each on the first of the rows that the
  // last name kept there leaves room on. A stride dropped half or three quarters of the names for
  // one wide name among them, and a sorted axis's first names (the most likely next tokens, the one
  // a lesson names among them) are the ones to keep.
  if (horizontal && !axis.tick_names.empty()) {
    std::vector<float> row_end(static_cast<std::size_t>(std::max(builder.x_tick_rows, 1)),
                               -std::numeric_limits<float>::infinity());
    for (const std::size_t index : labelled) {
      PlacedTick& tick = placed[index];
      const auto [start, end] = label_span(tick);
      std::size_t row = 0;
      while (row < row_end.size() && start - row_end[row] < builder.font * 0.6f) ++row;
      if (row == row_end.size() || tick.label_width > max_px - min_px) {
        tick.label.clear();
        continue;
      }
      tick.row = static_cast<int>(row);
      row_end[row] = end;
    }
    return placed;
  }
  std::size_t stride = 1;
  while (stride < labelled.size() && !fits_with_stride(stride)) stride *= 2;
  if (!fits_with_stride(stride)) stride = labelled.size() + 1;  // not even one label fits
  std::vector<char> keep(labelled.size(), 0);
  for (std::size_t k = 0; k < labelled.size(); k += stride) keep[k] = 1;
  // The stride keeps the first label, and the last only when the count falls on it: the entropy
  // axis whose plot chose 1 … 4096 would read "1  256", leaving the range's end unsaid. On an
  // axis whose values the plot chose, the last is added where it fits; on a log axis (where the
  // chosen values are powers, not an even step) it takes the place of the kept one before it when
  // both do not fit, as long as one label is left before it. Nice ticks keep their even stride.
  if (horizontal && !axis.tick_values.empty() && stride <= labelled.size() && labelled.size() > 1 && !keep.back()) {
    const std::size_t last = labelled.size() - 1, before = (last / stride) * stride;
    if (fits_across(last) && clear_of(before, last)) {
      keep[last] = 1;
    } else if (fits_across(last) && axis.scale == Scale::Log10 && before >= stride && clear_of(before - stride, last)) {
      keep[before] = 0;
      keep[last] = 1;
    }
  }
  for (std::size_t k = 0; k < labelled.size(); ++k) {
    if (!keep[k]) placed[labelled[k]].label.clear();
  }
  return placed;
}

// The colorbar's ticks: both ends of the range in use labelled with their exact values (a fixed
// [0, 1] and an auto [0, 0.0137] must read differently), nice ticks between them where they leave
// a text line of room.
std::vector<PlacedTick> colorbar_ticks_with_ends(const Builder& builder, const Axis& axis, const AxisMap& map,
                                                 float max_px) {
  std::vector<PlacedTick> placed = place_ticks(builder, axis, map, false, 0.0f, max_px);
  if (!(map.data_lo < map.data_hi)) return placed;
  const float lo_px = map.to_px(map.data_lo), hi_px = map.to_px(map.data_hi);
  // The end labels sit inside the bar (add_y_ticks' band): a line and a half keeps the next one clear.
  const float room = builder.font * 1.65f;
  std::erase_if(placed, [&](const PlacedTick& tick) {
    return std::abs(tick.px - lo_px) < room || std::abs(tick.px - hi_px) < room;
  });
  for (const double end : {map.data_lo, map.data_hi}) {
    // Three significant digits: the ends read as a range ("0.157"), not as a measurement.
    std::string label = format_short(end, 3);
    const float width = builder.text_width(label, builder.font);
    placed.push_back({map.to_px(end), std::move(label), true, width});
  }
  std::sort(placed.begin(), placed.end(), [](const PlacedTick& a, const PlacedTick& b) { return a.px < b.px; });
  return placed;
}

float widest_label(const std::vector<PlacedTick>& ticks) {
  float widest = 0.0f;
  for (const auto& tick : ticks) {
    if (!tick.label.empty()) widest = std::max(widest, tick.label_width);
  }
  return widest;
}

// Grid lines inside `area` at major ticks, then the tick marks and labels outside it.
void add_x_ticks(Builder& builder, const std::vector<PlacedTick>& ticks, const Box& area, bool grid) {
  const Style& style = builder.style;
  for (const auto& tick : ticks) {
    if (grid && tick.major) {
      builder.add(PolylineShape{{{tick.px, area.y0}, {tick.px, area.y1}}, style.grid, 1.0f, false});
    }
    const float length = tick.major ? builder.tick_length : builder.tick_length * 0.6f;
    builder.add(PolylineShape{{{tick.px, area.y1}, {tick.px, area.y1 + length}}, style.axis, 1.0f, false});
    if (tick.label.empty()) continue;
    float left = tick.px - 0.5f * tick.label_width;
    left = std::clamp(left, builder.pad, std::max(builder.pad, builder.scene.width - builder.pad - tick.label_width));
    builder.text(
        tick.label,
        {left, area.y1 + builder.tick_length + builder.gap + static_cast<float>(tick.row) * 1.1f * builder.font},
        builder.font, style.text_dim, TextRole::TickLabel);
  }
}

// `label_top`, `label_bottom` (when ≥ 0): the band the labels' boxes stay in (a colour bar's end
// labels inside the bar's height, rather than half a line past either end).
void add_y_ticks(Builder& builder, const std::vector<PlacedTick>& ticks, const Box& area, bool grid,
                 bool labels_on_right = false, float label_top = -1.0f, float label_bottom = -1.0f) {
  const Style& style = builder.style;
  for (const auto& tick : ticks) {
    if (grid && tick.major) {
      builder.add(PolylineShape{{{area.x0, tick.px}, {area.x1, tick.px}}, style.grid, 1.0f, false});
    }
    const float length = tick.major ? builder.tick_length : builder.tick_length * 0.6f;
    const float edge = labels_on_right ? area.x1 : area.x0;
    const float direction = labels_on_right ? 1.0f : -1.0f;
    builder.add(PolylineShape{{{edge, tick.px}, {edge + direction * length, tick.px}}, style.axis, 1.0f, false});
    if (tick.label.empty()) continue;
    const float lowest = label_top >= 0.0f ? label_top : builder.pad;
    const float highest =
        label_bottom >= 0.0f ? label_bottom - builder.font : builder.scene.height - builder.pad - builder.font;
    const float top = std::clamp(tick.px - 0.5f * builder.font, lowest, std::max(lowest, highest));
    const float left = labels_on_right ? edge + builder.tick_length + builder.gap
                                       : edge - builder.tick_length - builder.gap - tick.label_width;
    builder.text(tick.label, {left, top}, builder.font, style.text_dim, TextRole::TickLabel);
  }
}

// A label reading bottom to top in the column starting at x = left: centred on [top, bottom]
// (the axis it names) when it fits there, else as near to centred as [limit_top, limit_bottom]
// (the free part of the column) allows, shortened only when even that is too short.
void add_vertical_label(Builder& builder, std::string_view label, float left, float top, float bottom, float limit_top,
                        float limit_bottom, Color color) {
  const std::string fitted = builder.fit(label, limit_bottom - limit_top, builder.font, "axis label");
  const float width = builder.text_width(fitted, builder.font);
  const float start = std::clamp(0.5f * (top + bottom) + 0.5f * width, limit_top + width, limit_bottom);
  builder.text(fitted, {left, start}, builder.font, color, TextRole::AxisLabel, true);
}

// The width a title line may take.
float title_width(const Builder& builder) { return builder.scene.width - 2.0f * builder.pad; }

// The title broken once at the last break that fits its first line at `size`, by the same rules
// as all wrapped text (text_wrap.hpp): never inside a number or an expression such as
// "H = 0.043", Chinese between characters. nullopt when it does not break or its first line does
// not fit.
std::optional<std::pair<std::string_view, std::string_view>> break_title(const Builder& builder, float size) {
  const std::string_view text = builder.plot.title;
  const float available = title_width(builder);
  const std::vector<LineSpan> lines =
      wrap_text(text, available, [&](std::string_view piece) { return builder.text_width(piece, size); });
  if (lines.size() < 2 || lines[0].end <= lines[0].begin) return std::nullopt;
  const std::string_view first = text.substr(lines[0].begin, lines[0].end - lines[0].begin);
  if (builder.text_width(first, size) > available) return std::nullopt;
  return std::pair{first, text.substr(lines[1].begin)};
}

// The title's lines at `size`: the full title when it fits; else the plot's short title when that
// fits; else the full title broken once (break_title). nullopt when even that leaves the second
// line too long.
std::optional<std::vector<std::string>> title_lines_at(const Builder& builder, float size) {
  const Plot& plot = builder.plot;
  const float available = title_width(builder);
  if (builder.text_width(plot.title, size) <= available) return std::vector<std::string>{plot.title};
  if (!plot.short_title.empty() && builder.text_width(plot.short_title, size) <= available)
    return std::vector<std::string>{plot.short_title};
  const auto broken = break_title(builder, size);
  if (!broken || builder.text_width(broken->second, size) > available) return std::nullopt;
  return std::vector<std::string>{std::string(broken->first), std::string(broken->second)};
}

// The title's lines, and builder.title_font set to their size: the title size when the title fits
// there in one or two lines (title_lines_at), else down to the body text's size a step at a time
// (a live "(T = 61.1, H = 2.773 nats)" in Chinese at 1152 px wide was cut rather than set 13 %
// smaller), else at the title size with the second line shortened, which the report names.
std::vector<std::string> plan_title(Builder& builder) {
  if (builder.plot.title.empty()) return {};
  const float title_size = builder.title_font;
  for (const float scale : {1.0f, 0.93f, 0.87f}) {
    builder.title_font = title_size * scale;
    if (auto lines = title_lines_at(builder, builder.title_font)) return std::move(*lines);
  }
  builder.title_font = title_size;
  const float available = title_width(builder);
  if (const auto broken = break_title(builder, title_size))
    return {std::string(broken->first), builder.fit(broken->second, available, title_size, "title")};
  return {builder.fit(builder.plot.title, available, title_size, "title")};
}

// Title lines centred over `centre_x` but kept inside the frame.
void add_title(Builder& builder, float centre_x) {
  float top = builder.pad;
  for (const std::string& title : builder.title_lines) {
    const float width = builder.text_width(title, builder.title_font);
    const float left = std::clamp(centre_x - 0.5f * width, builder.pad, builder.scene.width - builder.pad - width);
    builder.text(title, {left, top}, builder.title_font, builder.style.text, TextRole::Title);
    top += builder.title_font * 1.1f;
  }
}

void add_x_label(Builder& builder, std::string_view label, float top, const Box& area) {
  const std::string fitted = builder.fit(label, builder.scene.width - 2.0f * builder.pad, builder.font, "axis label");
  const float width = builder.text_width(fitted, builder.font);
  const float centre = 0.5f * (area.x0 + area.x1);
  const float left = std::clamp(centre - 0.5f * width, builder.pad, builder.scene.width - builder.pad - width);
  builder.text(fitted, {left, top}, builder.font, builder.style.text, TextRole::AxisLabel);
}

// [SECTION] Series

// Long runs get at most two points (the lowest and highest) per px column: what the eye sees
// of a dense curve, at a bounded vertex count for ImGui's 16-bit indices and for SVG size.
std::vector<Point> thin_to_columns(const std::vector<Point>& run, float area_width) {
  if (static_cast<float>(run.size()) <= 4.0f * std::max(area_width, 1.0f)) return run;
  std::vector<Point> thinned;
  std::size_t start = 0;
  while (start < run.size()) {
    const float column = std::floor(run[start].x);
    std::size_t end = start;
    std::size_t lowest = start, highest = start;
    while (end < run.size() && std::floor(run[end].x) == column) {
      if (run[end].y < run[lowest].y) lowest = end;
      if (run[end].y > run[highest].y) highest = end;
      ++end;
    }
    thinned.push_back(run[std::min(lowest, highest)]);
    if (lowest != highest) thinned.push_back(run[std::max(lowest, highest)]);
    start = end;
  }
  return thinned;
}

// The points of (x, y) in px, split where a point cannot be shown.
std::vector<std::vector<Point>> mapped_runs(const std::vector<double>& xs, const std::vector<double>& ys,
                                            const Scene& scene) {
  std::vector<std::vector<Point>> runs(1);
  const std::size_t count = std::min(xs.size(), ys.size());
  for (std::size_t index = 0; index < count; ++index) {
    const Point point{scene.x_map.to_px(xs[index]), scene.y_map.to_px(ys[index])};
    if (std::isfinite(point.x) && std::isfinite(point.y)) {
      runs.back().push_back(point);
    } else if (!runs.back().empty()) {
      runs.emplace_back();
    }
  }
  if (runs.back().empty()) runs.pop_back();
  return runs;
}

// Where the plot's data is drawn inside the data area, as small boxes in px: every bar, every
// marker, and points every 2 px along each line (its width wide). The legend is placed off them and
// the layout report lists them so a test can find a legend or label covering data.
std::vector<Box> data_marks(const Builder& builder) {
  const Plot& plot = builder.plot;
  const Scene& scene = builder.scene;
  const Box& area = scene.data_area;
  std::vector<Box> marks;
  const auto keep = [&](Box box) {
    box = {std::max(box.x0, area.x0), std::max(box.y0, area.y0), std::min(box.x1, area.x1), std::min(box.y1, area.y1)};
    if (box.x1 - box.x0 >= 0.5f && box.y1 - box.y0 >= 0.5f) marks.push_back(box);
  };
  for (const BarSeries& bars : plot.bars) {
    const double baseline =
        scene.y_map.scale == Scale::Log10 ? std::min(scene.y_map.data_lo, scene.y_map.data_hi) : bars.baseline;
    const float base_px = scene.y_map.to_px(baseline);
    const float min_width = builder.line_width(1.0f);
    for (std::size_t index = 0; index < std::min(bars.x.size(), bars.y.size()); ++index) {
      float left = scene.x_map.to_px(bars.x[index] - 0.5 * bars.width);
      float right = scene.x_map.to_px(bars.x[index] + 0.5 * bars.width);
      const float top = scene.y_map.to_px(bars.y[index]);
      if (!std::isfinite(left) || !std::isfinite(right) || !std::isfinite(top) || !std::isfinite(base_px)) continue;
      if (std::abs(right - left) < min_width) {
        const float centre = 0.5f * (left + right);
        left = centre - 0.5f * min_width;
        right = centre + 0.5f * min_width;
      }
      keep({std::min(left, right), std::min(top, base_px), std::max(left, right), std::max(top, base_px)});
    }
  }
  const auto add_point = [&](Point point, float half) {
    keep({point.x - half, point.y - half, point.x + half, point.y + half});
  };
  for (const LineSeries& line : plot.lines) {
    if (!line.in_legend) continue;  // a faint line of many (one seed): labels may lie over it
    const float half = std::max(1.0f, 0.5f * builder.line_width(line.width));
    for (const auto& run : mapped_runs(line.x, line.y, scene)) {
      for (std::size_t index = 0; index < run.size(); ++index) {
        add_point(run[index], half);
        if (index + 1 == run.size()) break;
        const Point a = run[index], b = run[index + 1];
        const float length = std::hypot(b.x - a.x, b.y - a.y);
        const int steps = std::min(2000, static_cast<int>(length / 2.0f));
        for (int step = 1; step < steps; ++step) {
          const float t = static_cast<float>(step) / static_cast<float>(steps);
          add_point({a.x + t * (b.x - a.x), a.y + t * (b.y - a.y)}, half);
        }
      }
    }
  }
  for (const ScatterSeries& scatter : plot.scatters)
    for (const auto& run : mapped_runs(scatter.x, scatter.y, scene))
      for (const Point& point : run) add_point(point, std::max(1.0f, scatter.radius * builder.style.marker_scale));
  return marks;
}

void add_band(Builder& builder, const LineSeries& line, Color color) {
  const std::size_t count = std::min({line.x.size(), line.band_low.size(), line.band_high.size()});
  BandShape band{{}, {}, color.with_alpha(color.a * 0.25f)};
  const auto flush = [&] {
    if (band.upper.size() >= 2) builder.add(band);
    band.upper.clear();
    band.lower.clear();
  };
  for (std::size_t index = 0; index < count; ++index) {
    const float x = builder.scene.x_map.to_px(line.x[index]);
    const float low = builder.scene.y_map.to_px(line.band_low[index]);
    const float high = builder.scene.y_map.to_px(line.band_high[index]);
    if (std::isfinite(x) && std::isfinite(low) && std::isfinite(high)) {
      band.upper.push_back({x, high});
      band.lower.push_back({x, low});
    } else {
      flush();
    }
  }
  flush();
}

void add_bars(Builder& builder, const BarSeries& bars, Color color) {
  const Scene& scene = builder.scene;
  const double baseline =
      scene.y_map.scale == Scale::Log10 ? std::min(scene.y_map.data_lo, scene.y_map.data_hi) : bars.baseline;
  const float base_px = scene.y_map.to_px(baseline);
  const std::size_t count = std::min(bars.x.size(), bars.y.size());
  // At least one (scaled) pixel wide: at L = 1024 a bar is ~0.4 px, and a rasteriser without
  // antialiasing draws such a rectangle only where it happens to cover a pixel centre, so the
  // one-hot row of the unscaled map showed as an empty plot.
  const float min_width = builder.line_width(1.0f);
  // Dense bars of one opaque colour (L = 4096 puts ~6 in a pixel): one rectangle per run of pixel
  // columns instead of one per bar. A column spans every bar whose rectangle covers its centre,
  // which is what a rasteriser without antialiasing fills for the separate rectangles (pixel
  // centres inside, on a whole-pixel origin), so the picture is the same in ≤ plot-width
  // rectangles: llvmpipe pays per triangle, ~7 ms a frame for 4096 bars. Exports draw the same.
  const bool dense = count > 1 && bars.bar_colors.empty() && color.a >= 1.0f &&
                     std::abs(scene.x_map.to_px(bars.x[0] + 0.5 * bars.width) -
                              scene.x_map.to_px(bars.x[0] - 0.5 * bars.width)) < min_width;
  struct Column {
    float top = std::numeric_limits<float>::infinity(), bottom = -std::numeric_limits<float>::infinity();
  };
  std::vector<Column> columns;
  int first_column = 0;
  for (std::size_t index = 0; index < count; ++index) {
    float left = scene.x_map.to_px(bars.x[index] - 0.5 * bars.width);
    float right = scene.x_map.to_px(bars.x[index] + 0.5 * bars.width);
    const float top = scene.y_map.to_px(bars.y[index]);
    if (!std::isfinite(left) || !std::isfinite(right) || !std::isfinite(top) || !std::isfinite(base_px)) {
      continue;
    }
    if (std::abs(right - left) < min_width) {
      const float centre = 0.5f * (left + right);
      left = centre - 0.5f * min_width;
      right = centre + 0.5f * min_width;
    }
    const Box box{std::min(left, right), std::min(top, base_px), std::max(left, right), std::max(top, base_px)};
    if (dense) {
      // Columns c with centre c + 0.5 in [x0, x1).
      const float lo = std::ceil(box.x0 - 0.5f), hi = std::ceil(box.x1 - 0.5f);
      if (!(hi > lo) || lo < -1e6f || hi > 1e6f) continue;  // covers no centre (or far off the plot)
      const int from = static_cast<int>(lo), to = static_cast<int>(hi);
      if (columns.empty()) first_column = from;
      if (from < first_column) {  // x not increasing: grow the table at the front
        columns.insert(columns.begin(), static_cast<std::size_t>(first_column - from), Column{});
        first_column = from;
      }
      if (to - first_column > static_cast<int>(columns.size()))
        columns.resize(static_cast<std::size_t>(to - first_column));
      for (int c = from; c < to; ++c) {
        Column& column = columns[static_cast<std::size_t>(c - first_column)];
        column.top = std::min(column.top, box.y0);
        column.bottom = std::max(column.bottom, box.y1);
      }
      continue;
    }
    const Color fill = index < bars.bar_colors.size() ? bars.bar_colors[index] : color;
    builder.add(RectShape{box, fill, std::nullopt, 0.0f});
  }
  for (std::size_t c = 0; c < columns.size();) {
    std::size_t end = c + 1;
    while (end < columns.size() && columns[end].top == columns[c].top && columns[end].bottom == columns[c].bottom)
      ++end;
    if (columns[c].top <= columns[c].bottom)
      builder.add(RectShape{{static_cast<float>(first_column) + static_cast<float>(c), columns[c].top,
                             static_cast<float>(first_column) + static_cast<float>(end), columns[c].bottom},
                            color,
                            std::nullopt,
                            0.0f});
    c = end;
  }
}

// Remembers where a series' markers went, so a marker that would land on one already drawn
// (within a quarter pixel: the same pixels once rasterised) is skipped. At L = 1024 most of the
// S(1−S) points pile up near S = 0; drawing each of them cost triangles and showed nothing.
class MarkerDeduplicator {
 public:
  bool first_at(Point centre) {
    const auto quantise = [](float px) {
      return static_cast<std::uint32_t>(static_cast<std::int32_t>(std::lround(px * 4.0f)));
    };
    const std::uint64_t key = (static_cast<std::uint64_t>(quantise(centre.x)) << 32) | quantise(centre.y);
    return seen_.insert(key).second;
  }

 private:
  std::unordered_set<std::uint64_t> seen_;
};

void add_marker(Builder& builder, Point centre, float radius, MarkerShape shape, Color fill) {
  // A thin outline in the background colour keeps overlapping markers apart.
  builder.add(MarkerGlyph{centre, radius, shape, fill, builder.style.background, 1.0f});
}

void add_reference_lines(Builder& builder) {
  const Scene& scene = builder.scene;
  const Box& area = scene.data_area;
  const float width = builder.line_width(1.25f);
  for (const auto& vline : builder.plot.vlines) {
    const float x = scene.x_map.to_px(vline.x);
    if (!std::isfinite(x)) continue;
    builder.add(
        PolylineShape{{{x, area.y0}, {x, area.y1}}, vline.color.value_or(builder.style.text_dim), width, vline.dashed});
  }
  for (const auto& hline : builder.plot.hlines) {
    const float y = scene.y_map.to_px(hline.y);
    if (!std::isfinite(y)) continue;
    builder.add(
        PolylineShape{{{area.x0, y}, {area.x1, y}}, hline.color.value_or(builder.style.text_dim), width, hline.dashed});
  }
}

bool boxes_overlap(const Box& a, const Box& b) { return a.x0 < b.x1 && b.x0 < a.x1 && a.y0 < b.y1 && b.y0 < a.y1; }

// True when `box` overlaps one of `marks` by more than a pixel each way: how the legend and the
// data labels count covering the data (touching is not covering).
bool covers_any(const Box& box, const std::vector<Box>& marks) {
  return std::any_of(marks.begin(), marks.end(), [&](const Box& mark) {
    return std::min(box.x1, mark.x1) - std::max(box.x0, mark.x0) > 1.0f &&
           std::min(box.y1, mark.y1) - std::max(box.y0, mark.y0) > 1.0f;
  });
}

std::string fixed_decimals(double value, int decimals) {
  char buffer[64];
  // An exact zero is written "0": 0.000 would be a rounded weight (softmax's never is exactly 0).
  if (value == 0.0) return "0";
  decimals = std::clamp(decimals, 0, 12);
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
  // A value the decimals round to 0 or ±1 but that is neither (the 0.99995 a lesson quotes at
  // T = 0.1 written "1.000", its 0.00005 written "0.000") gets up to three more decimals, the
  // fewest that show its first digit off the round number. Further off (2e-9) it stays rounded.
  const double rounded = std::strtod(buffer, nullptr);
  if ((rounded == 0.0 || std::abs(rounded) == 1.0) && decimals > 0) {
    char longer[64];
    for (int more = decimals + 1; more <= std::min(decimals + 3, 12); ++more) {
      std::snprintf(longer, sizeof longer, "%.*f", more, value);
      if (std::strtod(longer, nullptr) != rounded) return longer;
    }
  }
  return buffer;
}

// Labels of reference lines and annotations, kept inside the data area. A reference line's
// label tries the places beside the line and takes the first that lies inside the area and covers
// neither the legend nor an earlier label (none free: the label is left out), preferring one that
// covers no data and no other reference line either (`marks`: a curve or marker under a label
// makes both unreadable); annotations stay where the caller put them.
void add_data_texts(Builder& builder, std::vector<Box> taken, const std::vector<Box>& marks) {
  std::vector<Box> labels = taken;  // the legend and labels only: an annotation may sit on a line it names
  const Scene& scene = builder.scene;
  const Box& area = scene.data_area;
  const float font = builder.font;
  const auto inside = [&](float left, float top, float width, float size) {
    left = std::clamp(left, area.x0 + 2.0f, std::max(area.x0 + 2.0f, area.x1 - 2.0f - width));
    top = std::clamp(top, area.y0 + 2.0f, std::max(area.y0 + 2.0f, area.y1 - 2.0f - size));
    return Box{left, top, left + width, top + size};
  };
  // `candidates(size, width, tier)` lists the places to try for a label of that font size and width:
  // tier 0 its own, tier 1 those to try only when no tier-0 place is free at any size (empty: none).
  // At the plot's font first, then smaller in two steps (0.85×, 0.72×, as the legend shrinks):
  // in a short data area a smaller label still fits beside its line where the full one did not.
  using Candidates = std::function<std::vector<Point>(float size, float width, int tier)>;
  // What the first pass keeps off besides the data: the reference lines as 2 px bands (a label a
  // line runs through, "T = 1" struck through by the dashed ln n line at the top of the
  // dashboard's H(T) plot, is hard to read). A label beside its own line keeps 2 px or more from it.
  std::vector<Box> line_bands;
  for (const auto& vline : builder.plot.vlines)
    if (const float x = scene.x_map.to_px(vline.x); std::isfinite(x))
      line_bands.push_back({x - 1.0f, area.y0, x + 1.0f, area.y1});
  for (const auto& hline : builder.plot.hlines)
    if (const float y = scene.y_map.to_px(hline.y); std::isfinite(y))
      line_bands.push_back({area.x0, y - 1.0f, area.x1, y + 1.0f});
  // `shorter`: what the label says when `content` finds no place (a pair of lines' values → the
  // one a lesson quotes); empty: none.
  const auto place_first_free = [&](std::string_view content, std::string_view shorter, const Candidates& candidates,
                                    Color color) {
    const auto place = [&](const std::string& text) {
      // First a place off the data and the reference lines at any size, then one off the data that
      // may cross another reference line (two lines close together: "now" at c = 100 beside the
      // stall line at 91), then one that only keeps off labels. A label over a marker hides what it
      // names; a dashed line through a label still lets it read.
      for (const int pass : {0, 1, 2}) {
        const bool off_data = pass < 2, off_lines = pass == 0;
        for (const int tier : {0, 1})
          for (const float scale : {1.0f, 0.85f, 0.72f}) {
            const float size = scale * font;
            const float width = builder.text_width(text, size);
            for (const Point& candidate : candidates(size, width, tier)) {
              const Box box = inside(candidate.x, candidate.y, width, size);
              // A place that had to be pushed inside the area would sit on its own line.
              const bool moved = std::abs(box.x0 - candidate.x) > 0.5f || std::abs(box.y0 - candidate.y) > 0.5f;
              if (moved) continue;
              if (std::any_of(taken.begin(), taken.end(), [&](const Box& other) { return boxes_overlap(box, other); }))
                continue;
              if (off_data && covers_any(box, marks)) continue;
              if (off_lines && covers_any(box, line_bands)) continue;
              taken.push_back(box);
              labels.push_back(box);
              builder.text(text, {box.x0, box.y0}, size, color, TextRole::LineLabel);
              return true;
            }
          }
      }
      return false;
    };
    if (place(builder.fit(content, area.width() - 4.0f, font, "data label"))) return;
    if (!shorter.empty() && place(builder.fit(shorter, area.width() - 4.0f, font, "data label"))) return;
    // No free place even at the smallest size: no label beats an unreadable one, but the layout
    // report names it.
    builder.problem("data label", "left out", content);
  };
  // Bar values (BarSeries::value_digits): centred over each bar's top, or under it for a bar below
  // its baseline, never on the data, another label or the legend, kept whole inside the area. All of
  // a series' values at one size, the largest at which every one fits (the plot's font, 0.85×,
  // 0.72×); none fitting, none is written and the layout report says so.
  for (std::size_t series = 0; series < builder.plot.bars.size(); ++series) {
    const BarSeries& bars = builder.plot.bars[series];
    if (bars.value_digits <= 0) continue;
    struct Value {
      float centre, top, base;  // base: the baseline's px (NaN off a log axis)
      bool below;
      std::string text;
    };
    std::vector<Value> values;
    for (std::size_t k = 0; k < std::min(bars.x.size(), bars.y.size()); ++k) {
      const float centre = scene.x_map.to_px(bars.x[k]), top = scene.y_map.to_px(bars.y[k]);
      if (!std::isfinite(centre) || !std::isfinite(top) || !std::isfinite(bars.y[k]) || centre < area.x0 ||
          centre > area.x1)
        continue;
      values.push_back({centre, top, scene.y_map.to_px(bars.baseline), bars.y[k] < bars.baseline,
                        bars.value_fixed ? fixed_decimals(bars.y[k], bars.value_digits)
                                         : format_short(bars.y[k], bars.value_digits)});
    }
    // Off the bar by the clearance a label keeps from the data, or up to a line further where a
    // marker sits on the bar's top (an exact zero's on the axis, the argmax's diamond) or a
    // reference line runs through the place (the uniform 1/n). Where markers crowd the bar's end
    // (the values lab's limits beside its output), on the other side of the baseline instead.
    const float clearance = label_clearance(font);
    const auto place_all = [&](float size) {
      std::vector<Box> placed;
      for (const Value& value : values) {
        const float width = builder.text_width(value.text, size);
        const float gaps[] = {clearance + 1.0f, clearance + 1.0f + 0.5f * size, clearance + 1.0f + size};
        std::vector<float> tops;
        for (const float gap : gaps) tops.push_back(value.below ? value.top + gap : value.top - gap - size);
        if (std::isfinite(value.base))
          for (const float gap : gaps) tops.push_back(value.below ? value.base - gap - size : value.base + gap);
        std::optional<Box> chosen;
        for (const float near : tops) {
          const Box box{value.centre - 0.5f * width, near, value.centre + 0.5f * width, near + size};
          if (box.x0 < area.x0 + 1.0f || box.x1 > area.x1 - 1.0f || box.y0 < area.y0 + 1.0f || box.y1 > area.y1 - 1.0f)
            continue;
          const Box clear{box.x0 - clearance, box.y0 - clearance, box.x1 + clearance, box.y1 + clearance};
          const auto overlaps = [&](const Box& other) { return boxes_overlap(clear, other); };
          if (std::any_of(labels.begin(), labels.end(), overlaps) ||
              std::any_of(placed.begin(), placed.end(), overlaps) || covers_any(clear, marks) ||
              covers_any(box, line_bands))
            continue;
          chosen = box;
          break;
        }
        if (!chosen) return std::vector<Box>{};
        placed.push_back(*chosen);
      }
      return placed;
    };
    std::vector<Box> boxes;
    float size = font;
    for (const float scale : {1.0f, 0.85f, 0.72f}) {
      size = scale * font;
      boxes = place_all(size);
      if (boxes.size() == values.size()) break;
    }
    if (boxes.size() != values.size()) {
      builder.problem("bar values", "left out (no room over the bars)", bars.label);
      continue;
    }
    for (std::size_t k = 0; k < values.size(); ++k) {
      taken.push_back(boxes[k]);
      labels.push_back(boxes[k]);
      builder.text(values[k].text, {boxes[k].x0, boxes[k].y0}, size, builder.style.text, TextRole::DataLabel);
    }
  }
  // Labels keep off their own kind and the legend; a label may cross another reference line
  // (dashed, thin) when lines stand close together, which beats leaving the label out.
  for (const auto& vline : builder.plot.vlines) {
    const float x = scene.x_map.to_px(vline.x);
    if (!std::isfinite(x) || vline.label.empty()) continue;
    // Beside the line at the top and the bottom first, then stepping inwards a line at a time:
    // several lines close together (the formats' overflow points) stack their labels.
    // Then (tier 1) beyond the group of lines it stands in (each within a label's width of the next:
    // the stall line at c = 91 beside "now" at 100), where the label crosses none of them.
    const auto beside_line = [&](float size, float width, int tier) {
      float group_left = x, group_right = x;
      for (bool grew = true; grew;) {
        grew = false;
        for (const auto& other : builder.plot.vlines) {
          const float at = scene.x_map.to_px(other.x);
          if (!std::isfinite(at)) continue;
          if (at < group_left && at >= group_left - width - 8.0f) group_left = at, grew = true;
          if (at > group_right && at <= group_right + width + 8.0f) group_right = at, grew = true;
        }
      }
      std::vector<Point> candidates;
      const auto rows_beside = [&](float left_edge, float right_edge) {
        const float left = left_edge - 4.0f - width, right = right_edge + 4.0f;
        for (int row = 0; row < 8; ++row) {
          const float step = static_cast<float>(row) * 1.1f * size;
          const float top = area.y0 + 3.0f + step, bottom = area.y1 - 3.0f - size - step;
          for (const Point point : {Point{right, top}, Point{left, top}, Point{right, bottom}, Point{left, bottom}})
            candidates.push_back(point);
        }
      };
      if (tier == 0)
        rows_beside(x, x);
      else if (group_left < x || group_right > x)
        rows_beside(group_left, group_right);
      return candidates;
    };
    place_first_free(vline.label, vline.short_label, beside_line, vline.color.value_or(builder.style.text_dim));
  }
  for (const auto& hline : builder.plot.hlines) {
    const float y = scene.y_map.to_px(hline.y);
    if (!std::isfinite(y) || hline.label.empty()) continue;
    const auto beside_line = [&](float size, float width, int tier) {
      const float right = area.x1 - 4.0f - width, left = area.x0 + 4.0f, middle = 0.5f * (area.x0 + area.x1 - width);
      std::vector<Point> candidates;
      if (tier > 0) return candidates;
      for (int row = 0; row < 6; ++row) {
        const float step = static_cast<float>(row) * 1.1f * size;
        const float above = y - size - 2.0f - step, below = y + 2.0f + step;
        for (const Point point : {Point{right, above}, Point{right, below}, Point{left, above}, Point{left, below},
                                  Point{middle, above}, Point{middle, below}})
          candidates.push_back(point);
      }
      return candidates;
    };
    place_first_free(hline.label, "", beside_line, hline.color.value_or(builder.style.text_dim));
  }
  // Annotations: at their anchor, or moved by whole lines up or down and by half a width at a time
  // (up to two) to either side, the place nearest the anchor first, until they cover no label placed before them;
  // two notes on nearby curves no longer print over each other ("fp64 709.8 →" on "max x/T 1002
  // →"). First a place that keeps label_clearance() from the data too (a curve's name beside the
  // curve, not on it: "softmax s1" struck through by its own line; "k0 θ=16.3°" on the q arrow's
  // dot). Nearest first: a vector's label stays at its own tip, not a dozen lines up beside another
  // (the search went through every line up and down before it tried a side).
  const float clearance = label_clearance(font);
  // `box` keeps label_clearance() from every one of `others` (the data marks, the reference lines).
  const auto clear_of = [&](const Box& box, const std::vector<Box>& others) {
    return !covers_any({box.x0 - clearance, box.y0 - clearance, box.x1 + clearance, box.y1 + clearance}, others);
  };
  std::vector<const Annotation*> annotations;
  for (const bool optional : {false, true})
    for (const Annotation& annotation : builder.plot.annotations)
      if (annotation.optional == optional) annotations.push_back(&annotation);
  for (const Annotation* next : annotations) {
    const Annotation& annotation = *next;
    const Point anchor{scene.x_map.to_px(annotation.x), scene.y_map.to_px(annotation.y)};
    if (!std::isfinite(anchor.x) || !std::isfinite(anchor.y)) continue;
    const std::string fitted = builder.fit(annotation.text, area.width() - 4.0f, font, "annotation");
    // At each of the plot's font, 0.85× and 0.72× (as data labels shrink), the places in order of
    // their distance from where the label would sit unmoved (kept inside the area).
    std::optional<Box> chosen;
    float size = font;
    // Clear of the data by label_clearance(), else only off it (a crowded plot), else anywhere free of labels.
    for (const int keep : {2, 1, 0}) {
      if (keep < 2 && annotation.optional) break;
      for (const float scale : {1.0f, 0.85f, 0.72f}) {
        size = scale * font;
        const float width = builder.text_width(fitted, size);
        float left = anchor.x;
        if (annotation.align == TextAlign::Center) left -= 0.5f * width;
        if (annotation.align == TextAlign::Right) left -= width;
        const float top = anchor.y - 0.5f * size, line = 1.1f * size;
        std::vector<std::pair<float, Box>> places;
        for (const float shift : {0.0f, -0.5f * width, 0.5f * width, -width, width, -1.5f * width, 1.5f * width,
                                  -2.0f * width, 2.0f * width})
          for (int step = 0; step <= 16; ++step) {
            const float offset = (step % 2 == 1 ? -1.0f : 1.0f) * static_cast<float>((step + 1) / 2) * line;
            const Box box = inside(left + shift, top + offset, width, size);
            places.emplace_back(std::hypot(box.x0 - left, box.y0 - top), box);
          }
        std::stable_sort(places.begin(), places.end(),
                         [](const auto& one, const auto& two) { return one.first < two.first; });
        for (const auto& place : places) {
          // Not a structured binding: clang 14 (the web build's emcc) cannot capture one in a lambda.
          const Box& box = place.second;
          if (std::any_of(labels.begin(), labels.end(), [&](const Box& other) { return boxes_overlap(box, other); }))
            continue;
          // The first pass keeps off the reference lines too ("L = 2.317" struck through by the
          // dashed "now" line through its anchor).
          if ((keep == 2 && (!clear_of(box, marks) || !clear_of(box, line_bands))) ||
              (keep == 1 && covers_any(box, marks)))
            continue;
          chosen = box;
          break;
        }
        if (chosen) break;
      }
      if (chosen) break;
    }
    if (!chosen && annotation.optional) continue;
    if (!chosen) {
      builder.problem("annotation", "overlaps another label", annotation.text);
      size = font;
      const float width = builder.text_width(fitted, size);
      float left = anchor.x;
      if (annotation.align == TextAlign::Center) left -= 0.5f * width;
      if (annotation.align == TextAlign::Right) left -= width;
      chosen = inside(left, anchor.y - 0.5f * size, width, size);
    }
    labels.push_back(*chosen);
    const Color color = annotation.color.value_or(builder.style.text);
    // A label moved more than a line from its point (the point crowded by others) is tied to it by a
    // thin line, from the label's nearest edge to a few px short of the point, so it reads as that
    // point's and not a neighbour's ("0.002" for the lowest dot of a parabola, moved up beside it).
    const Point nearest{std::clamp(anchor.x, chosen->x0, chosen->x1), std::clamp(anchor.y, chosen->y0, chosen->y1)};
    const float distance = std::hypot(nearest.x - anchor.x, nearest.y - anchor.y);
    if (distance > 1.2f * size) {
      const float shorten = std::min(0.5f * distance, 6.0f * builder.style.marker_scale);
      const Point near_point{anchor.x + (nearest.x - anchor.x) * shorten / distance,
                             anchor.y + (nearest.y - anchor.y) * shorten / distance};
      builder.add(
          PolylineShape{{near_point, nearest}, color.with_alpha(color.a * 0.6f), builder.line_width(1.0f), false});
    }
    builder.text(fitted, {chosen->x0, chosen->y0}, size, color, TextRole::DataLabel);
  }
}

// Everything drawn inside the axes box; `legend_box` (if any) is kept free of line labels, and
// so is the data (scene.data_marks) where there is room.
void add_series(Builder& builder, const std::optional<Box>& legend_box) {
  const Plot& plot = builder.plot;
  const Style& style = builder.style;
  const Scene& scene = builder.scene;
  builder.add(ClipBegin{scene.data_area});
  for (std::size_t index = 0; index < plot.lines.size(); ++index) {
    const auto& line = plot.lines[index];
    if (!line.band_low.empty() && !line.band_high.empty()) {
      add_band(builder, line, line_color(plot, index, style));
    }
  }
  for (std::size_t index = 0; index < plot.bars.size(); ++index) {
    add_bars(builder, plot.bars[index], bar_color(plot, index, style));
  }
  add_reference_lines(builder);
  for (std::size_t index = 0; index < plot.lines.size(); ++index) {
    const auto& line = plot.lines[index];
    const Color color = line_color(plot, index, style);
    const float width = builder.line_width(line.width);
    for (const auto& run : mapped_runs(line.x, line.y, scene)) {
      if (run.size() >= 2) {
        builder.add(PolylineShape{thin_to_columns(run, scene.data_area.width()), color, width, line.dashed});
      }
      // A lone point between gaps would vanish without a marker.
      if (line.markers || run.size() == 1) {
        const float radius = std::max(3.0f * style.marker_scale, 0.9f * width + 1.0f);
        MarkerDeduplicator placed;
        for (const auto& point : run)
          if (placed.first_at(point)) add_marker(builder, point, radius, MarkerShape::Circle, color);
      }
    }
  }
  for (std::size_t index = 0; index < plot.scatters.size(); ++index) {
    const auto& scatter = plot.scatters[index];
    const Color color = scatter_color(plot, index, style);
    MarkerDeduplicator placed;
    for (const auto& run : mapped_runs(scatter.x, scatter.y, scene)) {
      for (const auto& point : run) {
        if (!placed.first_at(point)) continue;
        add_marker(builder, point, scatter.radius * style.marker_scale, scatter.shape, color);
      }
    }
  }
  builder.add(ClipEnd{});
  std::vector<Box> taken;
  if (legend_box) taken.push_back(*legend_box);
  add_data_texts(builder, std::move(taken), scene.data_marks);
}

// [SECTION] Legend

struct LegendEntry {
  enum class Kind { Line, Bar, Scatter } kind = Kind::Line;
  std::string label;
  Color color;
  float line_width = 2.0f;
  bool dashed = false;
  bool markers = false;
  MarkerShape shape = MarkerShape::Circle;
  float radius = 3.0f;
};

std::vector<LegendEntry> legend_entries(const Plot& plot, const Style& style) {
  std::vector<LegendEntry> entries;
  for (std::size_t index = 0; index < plot.lines.size(); ++index) {
    const auto& line = plot.lines[index];
    if (line.label.empty() || !line.in_legend) continue;
    entries.push_back({LegendEntry::Kind::Line, line.label, line_color(plot, index, style),
                       line.width * style.line_scale, line.dashed, line.markers, MarkerShape::Circle,
                       3.0f * style.marker_scale});
  }
  for (std::size_t index = 0; index < plot.bars.size(); ++index) {
    const auto& bars = plot.bars[index];
    if (bars.label.empty()) continue;
    entries.push_back({LegendEntry::Kind::Bar, bars.label, bar_color(plot, index, style)});
  }
  for (std::size_t index = 0; index < plot.scatters.size(); ++index) {
    const auto& scatter = plot.scatters[index];
    if (scatter.label.empty() || !scatter.in_legend) continue;
    LegendEntry entry{LegendEntry::Kind::Scatter, scatter.label, scatter_color(plot, index, style)};
    entry.shape = scatter.shape;
    entry.radius = scatter.radius * style.marker_scale;
    entries.push_back(entry);
  }
  return entries;
}

struct LegendPlan {
  Box box;
  std::vector<LegendEntry> entries;  // labels already shortened to fit
  std::string more_label;            // "+3 more" when not every entry fits
  float row_height = 0.0f, swatch_width = 0.0f;
  float font = 13.0f;  // the legend's text size: the plot's, or smaller when that does not fit
  int columns = 1;     // two when the entries do not fit one column's height
  float column_width = 0.0f;
  bool covers_data = false;  // no corner was free of data: the caller makes room above the data
};

// Where the legend goes and what it lists; empty when there is nothing to list or no room.
std::optional<LegendPlan> plan_legend_at(const Builder& builder, float font, bool last_try) {
  const Plot& plot = builder.plot;
  LegendPlan plan;
  plan.entries = legend_entries(plot, builder.style);
  plan.font = font;

  const Box& area = builder.scene.data_area;
  const float inset = builder.pad;  // legend to axes box, and legend border to content
  plan.row_height = font * 1.35f;
  plan.swatch_width = font * 1.8f;
  // Outside the data area the labels may use the width kept for the legend there.
  const float max_label_width =
      builder.legend_outside_x >= 0.0f
          ? std::max(builder.scene.width - builder.legend_outside_x - plan.swatch_width - 3.0f * inset, font * 3.0f)
          : std::max(area.width() * 0.62f - plan.swatch_width - 3.0f * inset, font * 3.0f);

  // Rows that fit; the last visible row says how many were left out.
  const auto max_rows = static_cast<std::size_t>(
      std::max(0.0f, std::floor((area.height() - 2.0f * inset - 1.2f * inset) / plan.row_height)));
  if (max_rows == 0) return std::nullopt;
  const bool asked_flat =
      plot.legend_max_rows > 0 && plan.entries.size() > static_cast<std::size_t>(plot.legend_max_rows);
  // Too many rows for one column: as many columns as the rows need (up to four: a data area one
  // legend row tall lists its entries side by side), filled top to bottom.
  if (plan.entries.size() > max_rows)
    plan.columns = static_cast<int>(std::min<std::size_t>(4, (plan.entries.size() + max_rows - 1) / max_rows));
  else if (asked_flat)
    plan.columns = 2;
  if (builder.legend_flat)
    plan.columns = std::max(plan.columns, static_cast<int>(std::min<std::size_t>(4, plan.entries.size())));
  if (plan.entries.size() > max_rows * static_cast<std::size_t>(plan.columns)) {
    if (!last_try) return std::nullopt;  // a smaller font may list them all
    const std::size_t hidden = plan.entries.size() - (max_rows - 1);
    plan.entries.resize(max_rows - 1);
    // Appended piecewise: GCC 12's -Wrestrict misfires on "+" + std::to_string(…).
    plan.more_label.append("+").append(std::to_string(hidden)).append(" more");
  }
  float widest = builder.text_width(plan.more_label, font);
  for (auto& entry : plan.entries) {
    if (last_try)
      entry.label = builder.fit(entry.label, max_label_width, font, "legend entry");
    else if (builder.text_width(entry.label, font) > max_label_width)
      return std::nullopt;
    widest = std::max(widest, builder.text_width(entry.label, font));
  }
  const std::size_t per_column =
      (plan.entries.size() + static_cast<std::size_t>(plan.columns) - 1) / static_cast<std::size_t>(plan.columns);
  const std::size_t rows = per_column + (plan.more_label.empty() ? 0 : 1);
  plan.column_width = plan.swatch_width + 0.8f * inset + widest + inset;
  const float box_width = inset + static_cast<float>(plan.columns) * plan.column_width;
  const float box_height = 1.2f * inset + static_cast<float>(rows) * plan.row_height;
  if (builder.legend_above_y >= 0.0f) {  // above the data area, right-aligned: covers nothing
    if (box_width > area.width()) return std::nullopt;
    plan.box = {area.x1 - box_width, builder.legend_above_y, area.x1, builder.legend_above_y + box_height};
    if (!plan.more_label.empty()) builder.problem("legend", "lists only some entries");
    return plan;
  }
  if (builder.legend_outside_x >= 0.0f) {  // beside the data area, at its top: covers nothing
    // Within the width kept for it: a plan with more columns than the one that width was kept
    // for would reach past the plot's frame (cut off); a smaller font may fit.
    if (box_height > area.height() || builder.legend_outside_x + box_width > builder.scene.width - 0.5f * inset)
      return std::nullopt;
    plan.box = {builder.legend_outside_x, area.y0, builder.legend_outside_x + box_width, area.y0 + box_height};
    if (!plan.more_label.empty()) builder.problem("legend", "lists only some entries");
    return plan;
  }
  if (box_width > area.width() - 2.0f * inset) return std::nullopt;
  // A legend that hides most of the data does more harm than good; hover still names series.
  // At the smallest size it may cover a little more rather than vanish.
  const float share = last_try ? 1.5f * kMaxLegendShareOfArea : kMaxLegendShareOfArea;
  if (box_width * box_height > share * area.width() * area.height()) return std::nullopt;

  // The corner asked for, unless it would cover an annotation (a region's name, a curve's
  // label): then the first other corner that covers none. The legend moves rather than hides them.
  const auto box_at = [&](LegendPos corner) {
    const bool right = corner == LegendPos::TopRight || corner == LegendPos::BottomRight;
    const bool top = corner == LegendPos::TopRight || corner == LegendPos::TopLeft;
    const float left_edge = right ? area.x1 - inset - box_width : area.x0 + inset;
    const float top_edge = top ? area.y0 + inset : area.y1 - inset - box_height;
    return Box{left_edge, top_edge, left_edge + box_width, top_edge + box_height};
  };
  const auto covers_annotation = [&](const Box& box) {
    for (const auto& annotation : plot.annotations) {
      const Point anchor{builder.scene.x_map.to_px(annotation.x), builder.scene.y_map.to_px(annotation.y)};
      if (!std::isfinite(anchor.x) || !std::isfinite(anchor.y)) continue;
      const float width = builder.text_width(annotation.text, builder.font);
      float left = anchor.x;
      if (annotation.align == TextAlign::Center) left -= 0.5f * width;
      if (annotation.align == TextAlign::Right) left -= width;
      if (boxes_overlap(box, {left, anchor.y - 0.5f * builder.font, left + width, anchor.y + 0.5f * builder.font}))
        return true;
    }
    return false;
  };
  // Data under a legend is hidden (the box is 88 % opaque): the first corner free of both, else
  // the first free of annotations, flagged so the caller lifts the data below a top corner.
  const std::vector<Box> marks = data_marks(builder);
  const auto covers_data = [&](const Box& box) { return covers_any(box, marks); };
  constexpr LegendPos corners[] = {LegendPos::TopRight, LegendPos::TopLeft, LegendPos::BottomRight,
                                   LegendPos::BottomLeft};
  std::optional<Box> chosen;
  for (const LegendPos corner : {plot.legend, corners[0], corners[1], corners[2], corners[3]}) {
    if (!covers_annotation(box_at(corner)) && !covers_data(box_at(corner))) {
      chosen = box_at(corner);
      break;
    }
  }
  if (!chosen) {
    plan.covers_data = true;
    // A top corner on the side asked for: the caller adds headroom above the data for it.
    const bool left_side = plot.legend == LegendPos::TopLeft || plot.legend == LegendPos::BottomLeft;
    const LegendPos top = left_side ? LegendPos::TopLeft : LegendPos::TopRight;
    chosen = box_at(top);
    for (const LegendPos corner : {top, corners[0], corners[1]})
      if (!covers_annotation(box_at(corner))) {
        chosen = box_at(corner);
        break;
      }
  }
  plan.box = *chosen;
  if (!plan.more_label.empty()) builder.problem("legend", "lists only some entries");
  return plan;
}

// The legend at the plot's font size, else shrunk in two steps (down to 0.72×, still above the
// tick labels' readable size); it vanishes only when even that has no room, and the layout
// report says so.
std::optional<LegendPlan> plan_legend(const Builder& builder) {
  if (builder.plot.legend == LegendPos::None || legend_entries(builder.plot, builder.style).empty())
    return std::nullopt;
  constexpr float scales[] = {1.0f, 0.85f, 0.72f};
  for (const float scale : scales) {
    if (auto plan = plan_legend_at(builder, scale * builder.font, scale == scales[2])) return plan;
  }
  builder.problem("legend", "dropped (no room)");
  return std::nullopt;
}

void add_legend(Builder& builder, const LegendPlan& plan) {
  const float font = plan.font;
  const float inset = builder.pad;
  builder.add(RectShape{plan.box, builder.style.background.with_alpha(0.88f), builder.style.frame, 1.0f});
  const std::size_t per_column =
      (plan.entries.size() + static_cast<std::size_t>(plan.columns) - 1) / static_cast<std::size_t>(plan.columns);
  float row_top = plan.box.y0 + 0.6f * inset;
  float swatch_left = plan.box.x0 + inset;
  float text_left = swatch_left + plan.swatch_width + 0.8f * inset;
  for (std::size_t index = 0; index < plan.entries.size(); ++index) {
    const auto& entry = plan.entries[index];
    if (index > 0 && index % std::max<std::size_t>(per_column, 1) == 0) {  // next column
      row_top = plan.box.y0 + 0.6f * inset;
      swatch_left += plan.column_width;
      text_left += plan.column_width;
    }
    const float centre_y = row_top + 0.5f * plan.row_height;
    const Point centre{swatch_left + 0.5f * plan.swatch_width, centre_y};
    switch (entry.kind) {
      case LegendEntry::Kind::Line:
        if (entry.dashed) {
          // Two dashes with a gap between, whatever the line's width: its own dash pattern, scaled with
          // the width, left one dash and a sliver in the swatch of a thick line.
          const float dash = 0.38f * plan.swatch_width, line = std::min(entry.line_width, 0.4f * font);
          builder.add(
              PolylineShape{{{swatch_left, centre_y}, {swatch_left + dash, centre_y}}, entry.color, line, false});
          builder.add(PolylineShape{
              {{swatch_left + plan.swatch_width - dash, centre_y}, {swatch_left + plan.swatch_width, centre_y}},
              entry.color,
              line,
              false});
        } else {
          builder.add(PolylineShape{{{swatch_left, centre_y}, {swatch_left + plan.swatch_width, centre_y}},
                                    entry.color,
                                    std::min(entry.line_width, 0.4f * font),
                                    false});
        }
        if (entry.markers) add_marker(builder, centre, entry.radius, MarkerShape::Circle, entry.color);
        break;
      case LegendEntry::Kind::Bar:
        builder.add(RectShape{
            {centre.x - 0.35f * font, centre_y - 0.35f * font, centre.x + 0.35f * font, centre_y + 0.35f * font},
            entry.color,
            std::nullopt,
            0.0f});
        break;
      case LegendEntry::Kind::Scatter:
        add_marker(builder, centre, std::min(entry.radius, 0.45f * font), entry.shape, entry.color);
        break;
    }
    builder.text(entry.label, {text_left, centre_y - 0.5f * font}, font, builder.style.text, TextRole::Legend);
    row_top += plan.row_height;
  }
  if (!plan.more_label.empty()) {
    builder.text(plan.more_label, {text_left, row_top + 0.5f * plan.row_height - 0.5f * font}, font,
                 builder.style.text_dim, TextRole::Legend);
  }
}

// [SECTION] Series plot layout

// Vertical bands of the frame, top to bottom, for the parts that are shown.
struct VerticalPlan {
  float area_top = 0.0f, area_bottom = 0.0f;
  float x_label_top = 0.0f;
  bool show_title = false, show_axis_labels = false;
};

// Drops the title, then the axis labels, until the data area is at least three lines tall.
VerticalPlan plan_vertical(const Builder& builder, bool has_x_label) {
  VerticalPlan plan;
  const float minimum_area = 3.0f * builder.font;
  for (int dropped = 0; dropped <= 2; ++dropped) {
    plan.show_title = !builder.title_lines.empty() && dropped < 1;
    plan.show_axis_labels = dropped < 2;
    float top = builder.pad;
    if (plan.show_title)
      top += builder.title_font * (1.0f + 1.1f * static_cast<float>(builder.title_lines.size() - 1)) + builder.pad;
    plan.area_top = top + 0.5f * builder.font;  // the top y tick label reaches half a line above
    float bottom = builder.scene.height - builder.pad;
    if (plan.show_axis_labels && has_x_label) {
      bottom -= builder.font;
      plan.x_label_top = bottom;
      bottom -= builder.gap;
    }
    bottom -= builder.font + builder.tick_length + builder.gap;  // x tick labels
    bottom -= static_cast<float>(builder.x_tick_rows - 1) * 1.1f * builder.font;
    plan.area_bottom = bottom;
    if (plan.area_bottom - plan.area_top >= minimum_area) break;
  }
  if (!builder.plot.title.empty() && !plan.show_title) builder.problem("title", "dropped (plot too short)");
  if (!plan.show_axis_labels) builder.problem("axis labels", "dropped (plot too short)");
  return plan;
}

// False when the x label was written beside the tick labels and took the place of one of them: the
// caller lays the plot out again with the label on its own line (a bar's "2" is worth the line).
bool layout_series_plot(Builder& builder, bool allow_x_label_beside_ticks) {
  const Plot& plot = builder.plot;
  Scene& scene = builder.scene;
  if (!plot.x.tick_names.empty() && plot.x.tick_values.empty()) {
    // Category names side by side with 0.6 em between them, in a data area about 7 em narrower than
    // the plot: a second row when they would not fit.
    float names = 0.0f;
    for (const std::string& name : plot.x.tick_names)
      names += builder.text_width(name, builder.font) + 0.6f * builder.font;
    if (names > scene.width - 7.0f * builder.font) builder.x_tick_rows = 2;
  }
  VerticalPlan plan = plan_vertical(builder, !plot.x.label.empty());
  // A short plot (a classroom font in a small panel) writes its x-axis label at the right end of the
  // tick labels' row, as Observable Plot does, rather than on a line of its own: the data area gets
  // that line (at 1024×768 and font 1.5, a sixth of its height). A label wider than half the plot
  // keeps its own line.
  const float x_label_width = builder.text_width(plot.x.label, builder.font);
  bool x_label_beside_ticks = false;
  if (allow_x_label_beside_ticks && plan.show_axis_labels && !plot.x.label.empty() &&
      plan.area_bottom - plan.area_top < 0.55f * scene.height && x_label_width <= 0.5f * scene.width &&
      builder.x_tick_rows == 1) {
    const VerticalPlan compact = plan_vertical(builder, false);
    if (compact.show_axis_labels) {
      plan = compact;
      x_label_beside_ticks = true;
    }
  }
  if (plan.area_bottom - plan.area_top < builder.font) {
    builder.problem("data area", "left out (plot too small)");
    return true;  // too small for axes: the frame alone
  }
  // A y label longer than the axis is tall reads across, on a line of its own above the axes
  // ("mean entropy (nats)" on a short plot), instead of being cut.
  bool y_label_across = false;
  float y_label_across_top = 0.0f;
  if (plan.show_axis_labels && !plot.y.label.empty()) {
    const float column = plan.area_bottom - plan.area_top + 1.5f * builder.font + builder.tick_length + builder.gap;
    const float extra = 1.5f * builder.font + builder.gap;
    if (builder.text_width(plot.y.label, builder.font) > column &&
        plan.area_bottom - plan.area_top - extra >= 1.5f * builder.font) {
      y_label_across = true;
      y_label_across_top = plan.area_top - 0.5f * builder.font;
      plan.area_top += extra;
    }
  }

  // Plain variables, not structured bindings: the lambda below captures them (clang 14, which the
  // web build's emcc uses, cannot capture a structured binding).
  const auto x_range = resolve_range(plot.x, x_data_range(plot));
  const auto y_range = resolve_range(plot.y, y_data_range(plot));
  const double x_lo = x_range.first, x_hi = x_range.second;
  const double y_lo = y_range.first, y_hi = y_range.second;
  const bool show_y_label = plan.show_axis_labels && !plot.y.label.empty() && !y_label_across;
  const float y_label_left = builder.pad;
  std::vector<PlacedTick> y_ticks, x_ticks;
  std::optional<LegendPlan> legend;
  // The axes and the legend for one choice of where the legend goes: `outside_width` px kept
  // right of the data area for it (0: inside, in a corner), `flat`: its entries side by side,
  // `top`: the y axis's upper end. False when the area is too narrow.
  const auto lay = [&](float outside_width, bool flat, double top, float above = 0.0f) {
    const float area_top = plan.area_top + above;
    if (above > 0.0f && plan.area_bottom - area_top < 2.0f * builder.font) return false;
    builder.legend_above_y = above > 0.0f ? plan.area_top - 0.5f * builder.font : -1.0f;
    scene.y_map = {y_lo, top, plan.area_bottom, area_top, plot.y.scale};
    y_ticks = place_ticks(builder, plot.y, scene.y_map, false, 0.0f, scene.height);
    float left = builder.pad;
    if (show_y_label) left += builder.font + builder.gap;
    const float area_left = left + widest_label(y_ticks) + builder.gap + builder.tick_length;
    // Room on the right for half of a last x label centred on the axis end.
    const float area_right = scene.width - builder.pad - 0.5f * builder.font - outside_width;
    builder.legend_outside_x = outside_width > 0.0f ? area_right + builder.pad : -1.0f;
    builder.legend_flat = flat;
    if (area_right - area_left < 2.0f * builder.font) return false;
    scene.data_area = {area_left, area_top, area_right, plan.area_bottom};
    scene.x_map = {x_lo, x_hi, area_left, area_right, plot.x.scale};
    scene.has_data_area = true;
    x_ticks = place_ticks(builder, plot.x, scene.x_map, true, builder.pad, scene.width - builder.pad);
    legend = plan_legend(builder);
    return true;
  };
  if (!lay(0.0f, false, y_hi)) {
    builder.problem("data area", "left out (plot too narrow)");
    return true;
  }
  // A legend that no corner keeps off the data moves (matplotlib's answers, in this order):
  // outside, right of the data area, when it takes at most 45 % of the width and the data labels
  // still fit; else flat (entries side by side) at the top with the y axis grown upwards so the
  // data sit below it; else the same with the legend as it is. Nothing helps: it stays, reported.
  if (legend && legend->covers_data) {
    const std::vector<std::string> problems_before = scene.problems;
    const float area_width = scene.data_area.width();
    float widest_data_label = 0.0f;
    for (const auto& line : plot.vlines)
      widest_data_label = std::max(widest_data_label, builder.text_width(line.label, builder.font));
    for (const auto& line : plot.hlines)
      widest_data_label = std::max(widest_data_label, builder.text_width(line.label, builder.font));
    for (const auto& note : plot.annotations)
      widest_data_label = std::max(widest_data_label, builder.text_width(note.text, builder.font));
    bool fixed = false;
    const float outside = legend->box.width() + builder.pad;
    if (outside <= 0.5f * area_width && widest_data_label <= area_width - outside - 8.0f) {
      scene.problems = problems_before;
      fixed = lay(outside, false, y_hi) && legend && !legend->covers_data;
      // Beside the data it costs a column; flat in a band above it costs a line or two: in a wide,
      // short panel (a histogram at classroom sizes) the band leaves the data more room, so the
      // larger data area wins.
      if (fixed) {
        const float beside_area = scene.data_area.width() * scene.data_area.height();
        scene.problems = problems_before;
        bool above = lay(0.0f, true, y_hi) && legend;
        if (above) {
          const float band = legend->box.height() + builder.pad;
          scene.problems = problems_before;
          above = lay(0.0f, true, y_hi, band) && legend && !legend->covers_data &&
                  scene.data_area.width() * scene.data_area.height() > beside_area;
        }
        if (!above) {
          scene.problems = problems_before;
          lay(outside, false, y_hi);
        }
      }
    }
    for (const bool flat : {true, false}) {
      if (fixed) break;
      scene.problems = problems_before;
      if (!lay(0.0f, flat, y_hi) || !legend || !std::isfinite(y_lo) || !std::isfinite(y_hi)) continue;
      // The legend's bottom (plus a pad) becomes the old top of the axis.
      const float height = scene.data_area.height();
      const float taken = legend->box.y1 + builder.pad - scene.data_area.y0;
      if (taken <= 0.0f || taken > 0.6f * height) continue;
      const double lo = to_axis_space(y_lo, plot.y.scale), hi = to_axis_space(y_hi, plot.y.scale);
      const double grown = lo + (hi - lo) * height / (height - taken);
      scene.problems = problems_before;
      fixed = lay(0.0f, flat, plot.y.scale == Scale::Log10 ? std::pow(10.0, grown) : grown) && legend &&
              !legend->covers_data;
    }
    // Last: flat, in a band of its own above the data area (the area gives up its height).
    for (const bool flat : {true, false}) {
      if (fixed) break;
      scene.problems = problems_before;
      if (lay(0.0f, flat, y_hi) && legend) {
        const float band = legend->box.height() + builder.pad;
        scene.problems = problems_before;
        fixed = lay(0.0f, flat, y_hi, band) && legend && !legend->covers_data;
      }
    }
    // Then outside at up to 65 % of the width, while the data area keeps 5 em and its labels.
    if (!fixed && outside > 0.5f * area_width && outside <= 0.65f * area_width &&
        area_width - outside >= 5.0f * builder.font && widest_data_label <= area_width - outside - 8.0f) {
      scene.problems = problems_before;
      fixed = lay(outside, false, y_hi) && legend && !legend->covers_data;
    }
    if (!fixed) {
      scene.problems = problems_before;
      lay(0.0f, false, y_hi);
    }
  }

  // The x label at the row's right end. On a numeric axis the tick labels it would cover give way
  // while two stay (the others still set the scale); an axis of indices or names keeps every label,
  // so its x label goes back to its own line.
  const Box x_label_box{scene.width - builder.pad - x_label_width,
                        scene.data_area.y1 + builder.tick_length + builder.gap, scene.width - builder.pad,
                        scene.data_area.y1 + builder.tick_length + builder.gap + builder.font};
  if (x_label_beside_ticks) {
    const bool keeps_every_label = plot.x.integer_ticks || !plot.x.tick_names.empty();
    int kept = 0;
    for (PlacedTick& tick : x_ticks) {
      if (tick.label.empty()) continue;
      const float start = std::clamp(tick.px - 0.5f * tick.label_width, builder.pad,
                                     std::max(builder.pad, scene.width - builder.pad - tick.label_width));
      if (start + tick.label_width <= x_label_box.x0 - 0.6f * builder.font) {
        ++kept;
      } else if (keeps_every_label) {
        return false;
      } else {
        tick.label.clear();
      }
    }
    if (kept < 2) return false;
  }
  add_x_ticks(builder, x_ticks, scene.data_area, true);
  add_y_ticks(builder, y_ticks, scene.data_area, true);
  scene.data_marks = data_marks(builder);
  if (legend) scene.legend_box = legend->box;
  add_series(builder, legend ? std::optional<Box>(legend->box) : std::nullopt);
  builder.add(RectShape{scene.data_area, std::nullopt, builder.style.axis, 1.0f});
  if (plan.show_title) add_title(builder, 0.5f * (scene.data_area.x0 + scene.data_area.x1));
  if (x_label_beside_ticks)
    builder.text(plot.x.label, {x_label_box.x0, x_label_box.y0}, builder.font, builder.style.text, TextRole::AxisLabel);
  else if (plan.show_axis_labels)
    add_x_label(builder, plot.x.label, plan.x_label_top, scene.data_area);
  if (y_label_across) {
    const std::string fitted = builder.fit(plot.y.label, scene.width - 2.0f * builder.pad, builder.font, "axis label");
    builder.text(fitted, {builder.pad, y_label_across_top}, builder.font, builder.style.text, TextRole::AxisLabel);
  }
  if (show_y_label) {
    // The label's column is free from below the title down to the row of x tick labels
    // (a long x-axis label below that may reach into the column).
    add_vertical_label(builder, plot.y.label, y_label_left, scene.data_area.y0, scene.data_area.y1,
                       plan.area_top - 0.5f * builder.font,
                       plan.area_bottom + builder.tick_length + builder.gap + builder.font, builder.style.text);
  }
  if (legend) add_legend(builder, *legend);
  return true;
}

// [SECTION] Heatmap layout

void layout_heatmap(Builder& builder, const Heatmap& heatmap) {
  const Plot& plot = builder.plot;
  Scene& scene = builder.scene;
  const std::string& x_label = heatmap.x_label.empty() ? plot.x.label : heatmap.x_label;
  const std::string& y_label = heatmap.y_label.empty() ? plot.y.label : heatmap.y_label;
  const bool valid = heatmap_has_cells(heatmap);
  VerticalPlan plan = plan_vertical(builder, !x_label.empty());
  // A map needs no half line above its grid for a top tick label: its row labels and its colour
  // bar's end labels are kept inside the grid's height (add_y_ticks' band), so the grid takes it.
  plan.area_top -= 0.5f * builder.font;
  if (!valid || plan.area_bottom - plan.area_top < builder.font) {
    if (valid) builder.problem("data area", "left out (plot too small)");
    if (plan.show_title) add_title(builder, 0.5f * scene.width);
    return;
  }

  // Index axes: cell centres at integers, so integer ticks land on them.
  Axis column_axis;
  column_axis.integer_ticks = true;
  if (heatmap.names.size() == static_cast<std::size_t>(heatmap.cols) && heatmap.rows == heatmap.cols)
    column_axis.tick_names = heatmap.names;
  Axis row_axis = column_axis;
  Axis colorbar_axis;
  const double value_lo = std::min(heatmap.vmin, heatmap.vmax), value_hi = std::max(heatmap.vmin, heatmap.vmax);

  // Widths left and right of the grid.
  const float colorbar_width = std::max(10.0f, 0.8f * builder.font);
  bool show_y_label = plan.show_axis_labels && !y_label.empty();
  bool show_colorbar_label = plan.show_axis_labels && !heatmap.colorbar_label.empty();
  const AxisMap provisional_rows{-0.5, heatmap.rows - 0.5, plan.area_top, plan.area_bottom, Scale::Linear};
  const float row_label_width =
      widest_label(place_ticks(builder, row_axis, provisional_rows, false, 0.0f, scene.height));
  const AxisMap provisional_colorbar{value_lo, value_hi, plan.area_bottom, plan.area_top, Scale::Linear};
  const float colorbar_label_width =
      widest_label(colorbar_ticks_with_ends(builder, colorbar_axis, provisional_colorbar, scene.height));
  float left_part = 0.0f, right_part = 0.0f, available_width = 0.0f;
  auto measure = [&] {
    left_part = builder.pad + (show_y_label ? builder.font + builder.gap : 0.0f) + row_label_width + builder.gap +
                builder.tick_length;
    right_part = builder.gap + builder.pad + colorbar_width + builder.tick_length + builder.gap + colorbar_label_width +
                 (show_colorbar_label ? builder.gap + builder.font : 0.0f) + builder.pad;
    available_width = scene.width - left_part - right_part;
  };
  measure();
  // A narrow panel (a small window, a large font) gives up the two side labels before the grid
  // gets narrower than a few characters; the axis ticks and colorbar stay.
  if (available_width < 4.0f * builder.font && (show_y_label || show_colorbar_label)) {
    show_y_label = show_colorbar_label = false;
    builder.problem("axis labels", "dropped (plot too narrow)");
    measure();
  }
  const float available_height = plan.area_bottom - plan.area_top;
  if (available_width < builder.font) {
    builder.problem("data area", "left out (plot too narrow)");
    if (plan.show_title) add_title(builder, 0.5f * scene.width);
    return;
  }

  // Grid size, then the group [y label … colorbar label] centred horizontally and the grid
  // centred vertically in what is left.
  float grid_width = available_width, grid_height = available_height;
  if (heatmap.square_cells) {
    const float cell = std::min(available_width / static_cast<float>(heatmap.cols),
                                available_height / static_cast<float>(heatmap.rows));
    grid_width = cell * static_cast<float>(heatmap.cols);
    grid_height = cell * static_cast<float>(heatmap.rows);
  }
  const float shift_x = 0.5f * (available_width - grid_width);
  const float shift_y = 0.5f * (available_height - grid_height);
  scene.slack_x = available_width - grid_width;
  scene.slack_y = available_height - grid_height;
  const Box grid{left_part + shift_x, plan.area_top + shift_y, left_part + shift_x + grid_width,
                 plan.area_top + shift_y + grid_height};
  scene.data_area = grid;
  scene.x_map = {-0.5, heatmap.cols - 0.5, grid.x0, grid.x1, Scale::Linear};
  scene.y_map = {-0.5, heatmap.rows - 0.5, grid.y0, grid.y1, Scale::Linear};
  scene.has_data_area = true;

  builder.add(HeatmapShape{grid, &heatmap});
  const float cell_w = grid.width() / static_cast<float>(std::max(heatmap.cols, 1));
  const float cell_h = grid.height() / static_cast<float>(std::max(heatmap.rows, 1));
  // A frame inside its cell (neighbouring frames stay apart), drawn only where a cell is large
  // enough to hold one around some of its colour.
  const float stroke = std::clamp(0.12f * std::min(cell_w, cell_h), 1.0f, 3.0f);
  if (std::min(cell_w, cell_h) >= 4.0f * stroke) {
    for (const auto& [row, col] : heatmap.framed_cells) {
      if (row < 0 || row >= heatmap.rows || col < 0 || col >= heatmap.cols) continue;
      const float x0 = grid.x0 + cell_w * static_cast<float>(col), y0 = grid.y0 + cell_h * static_cast<float>(row);
      const Box outer{x0 + 0.5f * stroke, y0 + 0.5f * stroke, x0 + cell_w - 0.5f * stroke, y0 + cell_h - 0.5f * stroke};
      const Box inner{outer.x0 + stroke, outer.y0 + stroke, outer.x1 - stroke, outer.y1 - stroke};
      builder.add(RectShape{outer, std::nullopt, Color{0.0f, 0.0f, 0.0f, 1.0f}, stroke});
      builder.add(RectShape{inner, std::nullopt, Color{1.0f, 1.0f, 1.0f, 1.0f}, stroke});
    }
  }
  builder.add(RectShape{grid, std::nullopt, builder.style.axis, 1.0f});
  const auto column_ticks =
      place_ticks(builder, column_axis, scene.x_map, true, builder.pad, scene.width - builder.pad);
  const auto row_ticks = place_ticks(builder, row_axis, scene.y_map, false, 0.0f, scene.height);
  add_x_ticks(builder, column_ticks, grid, false);
  add_y_ticks(builder, row_ticks, grid, false, false, plan.area_top);

  // The colorbar spans the grid's height, never more (a bar taller than its map reads as a
  // different scale); a flat strip of a map gets a bar of at least two text lines, centred on it.
  const float bar_height = std::max(grid_height, std::min(2.2f * builder.font, available_height));
  const float bar_top = std::max(plan.area_top, 0.5f * (grid.y0 + grid.y1) - 0.5f * bar_height);
  const float bar_bottom = std::min(plan.area_bottom, bar_top + bar_height);
  const Box bar{grid.x1 + builder.gap + builder.pad, bar_top, grid.x1 + builder.gap + builder.pad + colorbar_width,
                bar_bottom};
  builder.add(ColorbarShape{bar, resolve_colormap(heatmap.colormap, builder.style.sequential_colormap)});
  scene.colorbar = bar;
  builder.add(RectShape{bar, std::nullopt, builder.style.axis, 1.0f});
  const AxisMap colorbar_map{value_lo, value_hi, bar.y1, bar.y0, Scale::Linear};
  const auto colorbar_ticks = colorbar_ticks_with_ends(builder, colorbar_axis, colorbar_map, scene.height);
  add_y_ticks(builder, colorbar_ticks, bar, false, true, bar.y0, std::max(bar.y1, bar.y0 + builder.font));

  const float bottom_of_ticks = grid.y1 + builder.tick_length + builder.gap + builder.font;
  if (plan.show_title) add_title(builder, 0.5f * (grid.x0 + grid.x1));
  if (plan.show_axis_labels) add_x_label(builder, x_label, bottom_of_ticks + builder.gap, grid);
  if (show_y_label) {
    add_vertical_label(builder, y_label,
                       grid.x0 - row_label_width - builder.gap - builder.tick_length - builder.gap - builder.font,
                       grid.y0, grid.y1, plan.area_top, bottom_of_ticks, builder.style.text);
  }
  if (show_colorbar_label) {
    const float label_left = bar.x1 + builder.tick_length + builder.gap + widest_label(colorbar_ticks) + builder.gap;
    add_vertical_label(builder, heatmap.colorbar_label, label_left, bar.y0, bar.y1, plan.area_top,
                       std::max(bottom_of_ticks, bar.y1), builder.style.text);
  }
}

}  // namespace

// [SECTION] Entry point

float AxisMap::to_px(double value) const {
  if (!usable_on(value, scale)) return std::numeric_limits<float>::quiet_NaN();
  const double from = to_axis_space(data_lo, scale);
  const double to = to_axis_space(data_hi, scale);
  if (from == to) return 0.5f * (px_lo + px_hi);
  const double fraction = (to_axis_space(value, scale) - from) / (to - from);
  const double px = px_lo + fraction * (static_cast<double>(px_hi) - px_lo);
  return static_cast<float>(std::clamp(px, -static_cast<double>(kFarPx), static_cast<double>(kFarPx)));
}

double AxisMap::to_data(float px) const {
  if (px_hi == px_lo) return data_lo;
  const double fraction = (static_cast<double>(px) - px_lo) / (static_cast<double>(px_hi) - px_lo);
  const double from = to_axis_space(data_lo, scale);
  const double to = to_axis_space(data_hi, scale);
  const double value = from + fraction * (to - from);
  return scale == Scale::Log10 ? std::pow(10.0, value) : value;
}

Box text_box(const TextShape& text) {
  if (text.vertical) return {text.origin.x, text.origin.y - text.width, text.origin.x + text.size, text.origin.y};
  return {text.origin.x, text.origin.y, text.origin.x + text.width, text.origin.y + text.size};
}

float resolved_font_size(const Style& style, float fallback_px) {
  return style.font_size > 0.0f ? style.font_size : fallback_px;
}

std::vector<double> drawn_values(const Plot& plot, const Scene& scene, bool& cells_left_out,
                                 std::vector<double>* resolution) {
  std::vector<double> values;
  cells_left_out = false;
  if (resolution != nullptr) resolution->clear();
  if (!scene.has_data_area) return values;
  // Data units per pixel at `value` on `map`: the data one pixel around it spans (linear and log axes).
  const auto per_pixel = [](const AxisMap& map, double value) {
    const float px = map.to_px(value);
    const double span = std::abs(map.to_data(px + 0.5f) - map.to_data(px - 0.5f));
    return std::isfinite(span) ? span : std::numeric_limits<double>::infinity();
  };
  // Each value pushed with the axis it is read on (nullptr: a cell, read by its colour).
  const auto push = [&](double value, const AxisMap* map) {
    values.push_back(value);
    if (resolution != nullptr) resolution->push_back(map != nullptr ? per_pixel(*map, value) : 0.0);
  };
  const Box& area = scene.data_area;
  const auto x_inside = [&](double x) {
    const float px = scene.x_map.to_px(x);
    return std::isfinite(px) && px >= area.x0 - 0.5f && px <= area.x1 + 0.5f;
  };
  const auto y_inside = [&](double y) {
    const float px = scene.y_map.to_px(y);
    return std::isfinite(px) && px >= area.y0 - 0.5f && px <= area.y1 + 0.5f;
  };
  const auto point = [&](double x, double y) {
    if (!x_inside(x) || !y_inside(y)) return;
    push(x, &scene.x_map);
    push(y, &scene.y_map);
  };
  if (plot.heatmap) {
    const Heatmap& map = *plot.heatmap;
    constexpr long long most_cells = 256 * 256;
    if (!heatmap_has_cells(map)) return values;
    if (static_cast<long long>(map.rows) * map.cols > most_cells) {
      cells_left_out = true;
      return values;
    }
    std::vector<float> scratch;
    for (int row = 0; row < map.rows; ++row)
      for (const float cell : heatmap_row(map, row, scratch)) push(cell, nullptr);
    return values;
  }
  for (const LineSeries& line : plot.lines) {
    for (std::size_t k = 0; k < std::min(line.x.size(), line.y.size()); ++k) point(line.x[k], line.y[k]);
    for (std::size_t k = 0; k < std::min(line.x.size(), line.band_low.size()); ++k) point(line.x[k], line.band_low[k]);
    for (std::size_t k = 0; k < std::min(line.x.size(), line.band_high.size()); ++k)
      point(line.x[k], line.band_high[k]);
  }
  for (const BarSeries& bars : plot.bars)
    for (std::size_t k = 0; k < std::min(bars.x.size(), bars.y.size()); ++k)
      if (x_inside(bars.x[k]) && std::isfinite(bars.y[k])) {
        push(bars.x[k], &scene.x_map);
        push(bars.y[k], &scene.y_map);
      }
  for (const ScatterSeries& scatter : plot.scatters)
    for (std::size_t k = 0; k < std::min(scatter.x.size(), scatter.y.size()); ++k) point(scatter.x[k], scatter.y[k]);
  for (const VLine& line : plot.vlines)
    if (x_inside(line.x)) push(line.x, &scene.x_map);
  for (const HLine& line : plot.hlines)
    if (y_inside(line.y)) push(line.y, &scene.y_map);
  for (const Annotation& annotation : plot.annotations) point(annotation.x, annotation.y);
  return values;
}

Color line_color(const Plot& plot, std::size_t line_index, const Style& style) {
  return pick_color(plot.lines[line_index].color, line_index, style);
}
Color bar_color(const Plot& plot, std::size_t bar_index, const Style& style) {
  return pick_color(plot.bars[bar_index].color, plot.lines.size() + bar_index, style);
}
Color scatter_color(const Plot& plot, std::size_t scatter_index, const Style& style) {
  return pick_color(plot.scatters[scatter_index].color, plot.lines.size() + plot.bars.size() + scatter_index, style);
}

std::uint32_t next_codepoint(std::string_view text, std::size_t& index) {
  constexpr std::uint32_t kReplacement = 0xFFFD;
  const auto lead = static_cast<unsigned char>(text[index]);
  std::size_t length = 0;  // 0: not a valid lead byte
  if (lead < 0x80) {
    length = 1;
  } else if (lead >= 0xC0 && lead < 0xE0) {
    length = 2;
  } else if (lead >= 0xE0 && lead < 0xF0) {
    length = 3;
  } else if (lead >= 0xF0 && lead < 0xF8) {
    length = 4;
  }
  if (length == 1) {
    ++index;
    return lead;
  }
  if (length == 0 || index + length > text.size()) {
    ++index;
    return kReplacement;
  }
  std::uint32_t codepoint = lead & (0x7Fu >> length);
  for (std::size_t next = 1; next < length; ++next) {
    const auto byte = static_cast<unsigned char>(text[index + next]);
    if ((byte & 0xC0u) != 0x80u) {
      ++index;
      return kReplacement;
    }
    codepoint = (codepoint << 6) | (byte & 0x3Fu);
  }
  index += length;
  return codepoint;
}

float dash_length(float line_width) { return std::max(4.0f, 3.5f * line_width); }
float dash_gap(float line_width) { return std::max(3.0f, 2.5f * line_width); }

Scene layout_plot(const Plot& plot, float width, float height, const Style& style, float font_size_px,
                  const TextWidthFn& text_width) {
  for (const bool x_label_beside_ticks : {true, false}) {
    Scene scene;
    scene.width = width;
    scene.height = height;
    Builder builder{plot, style, text_width, scene};
    builder.font = font_size_px;
    builder.title_font = 1.15f * font_size_px;
    builder.title_lines = plan_title(builder);
    builder.pad = style.padding;
    builder.gap = std::max(2.0f, 0.25f * font_size_px);
    builder.tick_length = std::max(3.0f, 0.3f * font_size_px);

    // Half-px inset so the 1 px frame stroke lands on whole pixels.
    const std::optional<Color> frame_fill =
        style.fill_background ? std::optional<Color>(style.background) : std::nullopt;
    builder.add(RectShape{{0.5f, 0.5f, width - 0.5f, height - 0.5f}, frame_fill, style.frame, 1.0f});
    if (plot.heatmap) {
      layout_heatmap(builder, *plot.heatmap);
      return scene;
    }
    if (layout_series_plot(builder, x_label_beside_ticks)) return scene;
  }
  return Scene{};  // not reached: the second pass always lays the plot out
}

}  // namespace smlab::plot::detail

namespace smlab::plot {

PlotFit fit_plot(const Plot& plot, ImVec2 size, const Style& style, float font_size_px, const TextWidthFn& text_width) {
  const TextWidthFn& measure = text_width ? text_width : TextWidthFn(estimate_text_width);
  detail::Scene scene = detail::layout_plot(plot, size.x, size.y, style, font_size_px, measure);
  PlotFit fit;
  fit.size = size;
  if (scene.slack_x > 0.5f || scene.slack_y > 0.5f) {
    // The same grid in a frame without the slack: the cell size is min(width/cols, height/rows) of
    // the room left, and that room shrinks by exactly the slack.
    fit.size = ImVec2(std::floor(size.x - scene.slack_x), std::floor(size.y - scene.slack_y));
    scene = detail::layout_plot(plot, fit.size.x, fit.size.y, style, font_size_px, measure);
  }
  fit.has_data_area = scene.has_data_area;
  fit.complete = scene.problems.empty();
  if (scene.has_data_area) {
    detail::Box data = scene.data_area;
    if (scene.colorbar) data.x1 = std::max(data.x1, scene.colorbar->x1);
    fit.data = {data.x0, data.y0, data.x1, data.y1};
  }
  return fit;
}

std::vector<std::pair<std::size_t, std::size_t>> overlapping_texts(const std::vector<PlacedText>& texts,
                                                                   float tolerance) {
  std::vector<std::pair<std::size_t, std::size_t>> pairs;
  for (std::size_t a = 0; a < texts.size(); ++a)
    for (std::size_t b = a + 1; b < texts.size(); ++b) {
      const PlacedText& one = texts[a];
      const PlacedText& two = texts[b];
      const float overlap_x = std::min(one.x1, two.x1) - std::max(one.x0, two.x0);
      const float overlap_y = std::min(one.y1, two.y1) - std::max(one.y0, two.y0);
      if (overlap_x > tolerance && overlap_y > tolerance) pairs.emplace_back(a, b);
    }
  return pairs;
}

std::vector<std::string> covering_data(const PlotRecord& record, bool labels, float tolerance) {
  const auto covers = [&](float x0, float y0, float x1, float y1) {
    for (const ScreenBox& mark : record.data_marks) {
      const float overlap_x = std::min(x1, mark.x1) - std::max(x0, mark.x0);
      const float overlap_y = std::min(y1, mark.y1) - std::max(y0, mark.y0);
      if (overlap_x > tolerance && overlap_y > tolerance) return true;
    }
    return false;
  };
  std::vector<std::string> found;
  if (record.legend_box &&
      covers(record.legend_box->x0, record.legend_box->y0, record.legend_box->x1, record.legend_box->y1))
    found.push_back("legend covers data");
  const float clearance = label_clearance(record.font_size);
  for (const PlacedText& text : record.texts) {
    if (!labels || text.role != TextRole::DataLabel) continue;
    if (covers(text.x0, text.y0, text.x1, text.y1))
      found.push_back("label \"" + text.text + "\" covers data");
    else if (covers(text.x0 - clearance, text.y0 - clearance, text.x1 + clearance, text.y1 + clearance))
      found.push_back("label \"" + text.text + "\" touches data (nearer than " + std::to_string(clearance) + " px)");
  }
  return found;
}

}  // namespace smlab::plot
