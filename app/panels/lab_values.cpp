// The values lab: the weights of one query, the value rows they mix, the output vector and its path
// as T moves, and multi-head attention (concat then W_O) beside the average of the heads' maps.
// Plots from smlab::ValuesLab only.
#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "smlab/labs/topics.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

constexpr plot::Color weight_color = plot::Color::from_hex(0x56B4E9);   // sky blue
constexpr plot::Color output_color = plot::Color::from_hex(0xE69F00);   // orange
constexpr plot::Color limit_color = plot::Color::from_hex(0x009E73);    // bluish green
constexpr plot::Color mean_color = plot::Color::from_hex(0xCC79A7);     // reddish purple
constexpr plot::Color average_color = plot::Color::from_hex(0x999999);  // grey

std::vector<double> indices(std::size_t n, double offset = 0.0) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i) + offset;
  return out;
}

plot::Plot weights_plot(const ValuesLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.values.weights.title",
                         {std::to_string(lab.settings.row), format_value(lab.settings.temperature, 3)});
  p.x.label = tr("lab.values.key_j");
  p.x.integer_ticks = true;
  p.y.label = tr("plot.axis.weight");
  p.y.min = 0.0;
  p.y.max = 1.05;
  p.bars.push_back({.label = "", .x = indices(lab.weights.size()), .y = lab.weights, .color = weight_color});
  // The largest weight written over its bar with its key: a lesson quotes both ("key 5 takes
  // 0.999"), and the axis ticks every fifth key only.
  if (!lab.weights.empty()) {
    const auto top = std::max_element(lab.weights.begin(), lab.weights.end());
    const auto key = top - lab.weights.begin();
    if (std::isfinite(*top))
      p.annotations.push_back(
          {.x = static_cast<double>(key),
           .y = *top,
           .text = i18n::format("lab.values.top_weight", {std::to_string(key), format_value(*top, 3)}),
           .align = plot::TextAlign::Center});
  }
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot values_plot(const ValuesLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.values.values.title", {std::to_string(lab.values.rows), std::to_string(lab.values.cols)});
  const double limit = lab.values_abs_max;  // the colour range ±max|v| (core, once per Snapshot)
  plot::Heatmap map;
  map.rows = lab.values.rows;
  map.cols = lab.values.cols;
  map.values = lab.value_cells;  // a view into the lab's numbers, which outlive the frame
  map.vmin = -std::max(limit, 1e-12);
  map.vmax = std::max(limit, 1e-12);
  map.colormap = plot::Colormap::Diverging;
  map.colorbar_label = "v";
  map.x_label = tr("lab.values.coordinate_c");
  map.y_label = tr("lab.values.key_j");
  map.square_cells = false;
  p.heatmap = std::move(map);
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot output_plot(const ValuesLab& lab) {
  plot::Plot p;
  p.title = tr("lab.values.output.title");
  // The axis names the markers: the lesson view shows no explanation, and a legend of three
  // entries covered markers at projector sizes.
  p.x.label = tr("lab.values.coordinate_markers");
  p.x.integer_ticks = true;
  p.y.label = tr("lab.values.value_axis");
  const std::size_t dim = lab.output.size();
  // Each coordinate of the output written by its bar (a lesson quotes −0.60), for a few coordinates.
  p.bars.push_back({.label = tr("lab.values.output"),
                    .x = indices(dim),
                    .y = lab.output,
                    .color = output_color,
                    .value_digits = dim <= 8 ? 2 : 0,
                    .value_fixed = true});
  p.scatters.push_back({.label = tr("lab.values.argmax_limit"),
                        .x = indices(dim),
                        .y = lab.argmax_value,
                        .color = limit_color,
                        .radius = 5.0f,
                        .shape = plot::MarkerShape::Diamond});
  p.scatters.push_back({.label = tr("lab.values.mean_limit"),
                        .x = indices(dim),
                        .y = lab.value_mean,
                        .color = mean_color,
                        .radius = 5.0f,
                        .shape = plot::MarkerShape::Square});
  // Headroom above the data for the legend (three entries), so it never covers a marker.
  double top = 0.0, bottom = 0.0;
  for (const auto* series : {&lab.output, &lab.argmax_value, &lab.value_mean})
    for (double v : *series) {
      top = std::max(top, v);
      bottom = std::min(bottom, v);
    }
  // With the values written, a line of room beyond the longest bars for them.
  const double span = std::max(top - bottom, 1e-9);
  const double room = dim <= 8 ? 0.12 : 0.0;
  p.y.min = bottom - (0.05 + room) * span;
  p.y.max = top + (0.1 + room) * span;
  p.hlines.push_back({0.0, "", std::nullopt, false});
  // No legend: the x axis names the markers (a legend of three entries covers markers at projector
  // sizes). The CSV keeps the series' names.
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot path_plot(const ValuesLab& lab) {
  plot::Plot p;
  p.title = tr("lab.values.path.title");
  p.x.label = tr("plot.axis.temperature");
  p.x.scale = plot::Scale::Log10;
  p.x.min = 0.01;
  p.x.max = 100.0;
  p.y.label = tr("lab.values.value_axis");
  const int dim = lab.sweep_outputs.cols;
  for (int c = 0; c < dim; ++c) {
    std::vector<double> y(static_cast<std::size_t>(lab.sweep_outputs.rows));
    for (int k = 0; k < lab.sweep_outputs.rows; ++k) y[static_cast<std::size_t>(k)] = lab.sweep_outputs(k, c);
    p.lines.push_back({.label = "o_" + std::to_string(c), .x = lab.sweep_temperatures, .y = std::move(y)});
  }
  double top = 0.0, bottom = 0.0;
  for (double v : lab.sweep_outputs.values) {
    top = std::max(top, v);
    bottom = std::min(bottom, v);
  }
  const double span = std::max(top - bottom, 1e-9);
  // Room below the curves for the legend: at large T every coordinate settles at the mean of its
  // values, so the bottom right is free once the axis extends below the lowest curve.
  p.y.min = bottom - 0.7 * span;
  p.y.max = top + 0.05 * span;
  p.vlines.push_back({lab.settings.temperature, tr("plot.legend.now"), output_color, true});
  p.legend = plot::LegendPos::BottomRight;
  p.legend_max_rows = 2;
  return p;
}

plot::Plot multi_head_plot(const ValuesLab& lab) {
  const MultiHeadAttention& mh = lab.multi_head;
  plot::Plot p;
  p.title = i18n::format(mh.heads == 1 ? "lab.values.multi_head.title_one" : "lab.values.multi_head.title",
                         {std::to_string(mh.heads), std::to_string(lab.settings.row)});
  p.x.label = tr("lab.values.model_coordinate");
  p.x.integer_ticks = true;
  p.y.label = tr("lab.values.value_axis");
  const int row = std::min(lab.settings.row, mh.seq_len - 1);
  std::vector<double> concat(static_cast<std::size_t>(mh.model_dim)), averaged(concat.size());
  for (int c = 0; c < mh.model_dim; ++c) {
    concat[static_cast<std::size_t>(c)] = mh.output(row, c);
    averaged[static_cast<std::size_t>(c)] = mh.averaged_map_output(row, c);
  }
  p.bars.push_back({.label = tr("lab.values.concat"),
                    .x = indices(concat.size(), -0.2),
                    .y = concat,
                    .width = 0.4,
                    .color = output_color});
  p.bars.push_back({.label = tr("lab.values.averaged"),
                    .x = indices(averaged.size(), 0.2),
                    .y = averaged,
                    .width = 0.4,
                    .color = average_color});
  // The largest gap between the two routes, written at the end of its longer bar: what a lesson
  // quotes ("the two differ by up to 0.41 in one coordinate"), found on the plot where it is.
  if (mh.heads > 1 && !concat.empty()) {
    std::size_t widest = 0;
    for (std::size_t c = 1; c < concat.size(); ++c)
      if (std::abs(concat[c] - averaged[c]) > std::abs(concat[widest] - averaged[widest])) widest = c;
    const double gap = std::abs(concat[widest] - averaged[widest]);
    // A line of room beyond the longest bars, where the label goes at the plot's own size.
    double top = 0.0, bottom = 0.0;
    for (const auto* series : {&concat, &averaged})
      for (double v : *series) {
        top = std::max(top, v);
        bottom = std::min(bottom, v);
      }
    const double span = std::max(top - bottom, 1e-9);
    p.y.min = bottom - 0.15 * span;
    p.y.max = top + 0.1 * span;
    if (std::isfinite(gap))
      p.annotations.push_back(
          {.x = static_cast<double>(widest),
           .y = std::abs(concat[widest]) > std::abs(averaged[widest]) ? concat[widest] : averaged[widest],
           .text = i18n::format("lab.values.multi_head.gap", {format_value(gap, 3)}),
           .align = plot::TextAlign::Center,
           .optional = true});
  }
  // Head boundaries: head m owns columns m·d_v … (m+1)·d_v − 1 of the concatenation (before W_O
  // mixes them); drawn as dotted lines so the blocks can be read.
  for (int m = 1; m < mh.heads; ++m) p.vlines.push_back({m * mh.head_dim - 0.5, "", std::nullopt, true});
  p.hlines.push_back({0.0, "", std::nullopt, false});
  p.legend = plot::LegendPos::TopRight;
  return p;
}

}  // namespace

LabView build_values_view(const ValuesLab& lab) {
  LabView view;
  view.explanation = tr("lab.values.explanation");
  view.columns = 3;
  view.plots.push_back({"weights", weights_plot(lab), 1});
  view.plots.push_back({"values", values_plot(lab), 1});
  view.plots.push_back({"output", output_plot(lab), 1});
  view.plots.push_back({"output-vs-temperature", path_plot(lab), 1});
  view.plots.push_back({"multi-head", multi_head_plot(lab), 2});
  std::string output;
  for (std::size_t c = 0; c < lab.output.size(); ++c) output += (c ? ", " : "") + format_value(lab.output[c], 3);
  view.notes.push_back(
      i18n::format("lab.values.note.output", {std::to_string(lab.settings.row), output, std::to_string(lab.argmax),
                                              format_value(lab.weights[static_cast<std::size_t>(lab.argmax)], 3)}));
  // The gap of the query the multi-head plot draws (what values:6 quotes), then the largest over all
  // queries: a number quoted with the plot must be one the screen shows for that query.
  const MultiHeadAttention& heads = lab.multi_head;
  const int row = std::min(lab.settings.row, heads.seq_len - 1);
  double row_gap = 0.0;
  for (int c = 0; c < heads.model_dim; ++c)
    row_gap = std::max(row_gap, std::abs(heads.output(row, c) - heads.averaged_map_output(row, c)));
  view.notes.push_back(
      i18n::format(heads.heads == 1 ? "lab.values.note.multi_head_one" : "lab.values.note.multi_head",
                   {std::to_string(heads.heads), std::to_string(heads.head_dim), format_value(row_gap, 3),
                    std::to_string(row), format_value(lab.concat_vs_average_difference, 3)}));
  return view;
}

LabView build_values(const LabInputs& inputs) {
  const ValuesLab* lab = inputs.snapshot.lab<ValuesLab>();
  if (lab == nullptr) {
    LabView view;
    view.explanation = tr("lab.values.explanation");
    return view;
  }
  return build_values_view(*lab);
}

ControlsReport controls_values(Params& edit) {
  ControlsReport report = key_slider(edit, "temperature",
                                     {"lab.values.temperature", "T values", "T = %.3g", "lab.values.temperature.help"});
  // The lab shows the first values_max_keys keys: its row is one of them.
  const int last_row = std::min(edit.seq_len, values_max_keys) - 1;
  report += key_slider(
      edit, "row",
      {"lab.values.row", "row values", "i = %d", "lab.values.row.help", SliderText::Help::tooltip, last_row});
  report += key_slider(edit, "heads", {"lab.values.heads", "heads values", "h = %d", "lab.values.heads.help"});
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* values_control_labels[] = {"lab.values.temperature", "lab.values.row", "lab.values.heads"};
constexpr MainKey values_main_keys[] = {
    {"temperature", "lab.values.temperature", "T = %.3g", "lab.values.temperature.help"},
    {"heads", "lab.values.heads", "h = %d", "lab.values.heads.help"},
};
extern const LabDefinition values_lab{View::values,
                                      "lab.values.title",
                                      "lab.values.summary",
                                      values_control_labels,
                                      build_values,
                                      controls_values,
                                      nullptr,
                                      nullptr,
                                      false,
                                      values_main_keys};

}  // namespace smlab::app
