// The normalizers lab: one editable score vector through softmax and its relatives, side by side,
// with what is wrong with each output marked. Plots from Snapshot::normalizers only.
//
// [SECTION] Index
//   [SECTION] Colours, names and problem words
//   [SECTION] Plots
//   [SECTION] The lab: build, controls, dragged bars, registry row
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/normalizers.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

// [SECTION] Colours, names and problem words

// Okabe–Ito colours (colour-blind safe, readable on the dark and the light themes).
constexpr plot::Color weight_color = plot::Color::from_hex(0x56B4E9);    // sky blue
constexpr plot::Color negative_color = plot::Color::from_hex(0xD55E00);  // vermillion
constexpr plot::Color zero_color = plot::Color::from_hex(0xE69F00);      // orange
constexpr plot::Color linear_color = plot::Color::from_hex(0x009E73);    // bluish green

// The "scores" plot's y range grows in steps of 5 so that dragging a bar inside it never changes
// the range under the mouse (an autoscaled axis would chase the drag).
constexpr double score_axis_step = 5.0;

std::string display_name(const NormalizersLab& lab, Normalizer kind) {
  switch (kind) {
    case Normalizer::softmax: return "softmax";
    case Normalizer::linear: return tr("lab.normalizers.name.linear");
    case Normalizer::sparsemax: return "sparsemax";
    case Normalizer::entmax: return format_value(lab.alpha, 3) + "-entmax";
    case Normalizer::hardmax: return "hardmax (T→0)";
    case Normalizer::sigmoid: return "sigmoid σ(x/T)";
    case Normalizer::relu: return "ReLU / Σ ReLU";
    default: return std::string(normalizer_name(kind));
  }
}

// A few words for the plot itself; the full sentence (NormalizerResult::problem) goes in the notes.
std::string short_issue(const NormalizerResult& result) {
  switch (result.issue) {
    case NormalizerIssue::none: return "";
    case NormalizerIssue::nan_score: return tr("lab.normalizers.issue.nan_score");
    case NormalizerIssue::all_masked: return tr("lab.normalizers.issue.all_masked");
    case NormalizerIssue::exp_overflow: return tr("lab.normalizers.issue.exp_overflow");
    case NormalizerIssue::exp_underflow: return tr("lab.normalizers.issue.exp_underflow");
    case NormalizerIssue::infinite_score: return tr("lab.normalizers.issue.infinite_score");
    case NormalizerIssue::zero_sum: return tr("lab.normalizers.issue.zero_sum");
    case NormalizerIssue::no_positive_score: return tr("lab.normalizers.issue.no_positive_score");
    case NormalizerIssue::alpha_out_of_range: return tr("lab.normalizers.issue.alpha_out_of_range");
    case NormalizerIssue::negative_weights: return tr("lab.normalizers.issue.negative_weights");
    case NormalizerIssue::reversed_order: return tr("lab.normalizers.issue.reversed_order");
    case NormalizerIssue::does_not_sum_to_one: return "Σ = " + format_value(result.sum, 3) + " ≠ 1";
  }
  return "";
}

// The full sentence for the notes: core's NormalizerResult::problem in the current language. English
// keeps core's own words (they carry the exact numbers); the other languages say the same by issue.
std::string problem_sentence(const NormalizerResult& result) {
  if (i18n::language() == i18n::Language::English) return result.problem;
  switch (result.issue) {
    case NormalizerIssue::none: return "";
    case NormalizerIssue::nan_score: return tr("lab.normalizers.problem.nan_score");
    case NormalizerIssue::all_masked: return tr("lab.normalizers.problem.all_masked");
    case NormalizerIssue::exp_overflow: return tr("lab.normalizers.problem.exp_overflow");
    case NormalizerIssue::exp_underflow: return tr("lab.normalizers.problem.exp_underflow");
    case NormalizerIssue::infinite_score: return tr("lab.normalizers.problem.infinite_score");
    case NormalizerIssue::zero_sum: return tr("lab.normalizers.problem.zero_sum");
    case NormalizerIssue::no_positive_score: return tr("lab.normalizers.problem.no_positive_score");
    case NormalizerIssue::alpha_out_of_range: return tr("lab.normalizers.problem.alpha_out_of_range");
    case NormalizerIssue::negative_weights: return tr("lab.normalizers.problem.negative_weights");
    case NormalizerIssue::reversed_order: return tr("lab.normalizers.problem.reversed_order");
    case NormalizerIssue::does_not_sum_to_one:
      return i18n::format("lab.normalizers.problem.does_not_sum_to_one", {format_value(result.sum, 6)});
  }
  return result.problem;
}

// [SECTION] Plots

// Bar positions: the true indices of the shown window, so the axis reads the keys' numbers.
std::vector<double> indices(IndexWindow window) {
  std::vector<double> x;
  for (std::size_t i = window.begin; i < window.end; ++i) x.push_back(static_cast<double>(i));
  return x;
}

std::vector<double> slice(const std::vector<double>& values, IndexWindow window) {
  return {values.begin() + static_cast<std::ptrdiff_t>(window.begin),
          values.begin() + static_cast<std::ptrdiff_t>(window.end)};
}

void index_axis(plot::Axis& axis, IndexWindow window) {
  axis.label = tr("plot.axis.index_i");
  axis.integer_ticks = true;
  axis.min = static_cast<double>(window.begin) - 0.6;
  axis.max = static_cast<double>(window.end) - 0.4;
}

plot::Plot scores_plot(const NormalizersLab& lab) {
  plot::Plot p;
  p.title = lab.custom_scores ? tr("lab.normalizers.scores.title_custom") : tr("lab.normalizers.scores.title_row");
  index_axis(p.x, lab.shown);
  p.y.label = lab.score_scale == 1.0
                  ? std::string(tr("lab.normalizers.score_x"))
                  : i18n::format("lab.normalizers.scores.y_scaled", {format_value(lab.score_scale, 3)});
  double low = 0.0, high = 0.0;
  for (std::size_t i = lab.shown.begin; i < lab.shown.end; ++i)
    if (std::isfinite(lab.editable_scores[i])) {
      low = std::min(low, lab.editable_scores[i]);
      high = std::max(high, lab.editable_scores[i]);
    }
  p.y.min = -score_axis_step * std::max(1.0, std::ceil(-low / score_axis_step));
  p.y.max = score_axis_step * std::max(1.0, std::ceil(high / score_axis_step));
  plot::BarSeries bars;
  bars.label = "x";
  bars.x = indices(lab.shown);
  bars.y = slice(lab.editable_scores, lab.shown);
  bars.color = plot::Color::from_hex(0xCC79A7);  // reddish purple: the input, unlike every output
  p.bars.push_back(std::move(bars));
  p.hlines.push_back({0.0, "", std::nullopt, false});
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot weights_plot(const NormalizersLab& lab, const NormalizerColumn& column) {
  const NormalizerResult& result = column.result;
  plot::Plot p;
  p.title = display_name(lab, column.kind);
  if (result.defined) p.title += "   Σ = " + format_value(result.sum, 4);
  index_axis(p.x, lab.shown);
  p.y.label = tr("plot.axis.weight");
  // Shares live in [0, 1]; linear x/Σx can leave it (negative weights, weights above 1), and then
  // the axis stretches to show them rather than clip.
  double low = 0.0, high = 1.0;
  for (std::size_t i = lab.shown.begin; i < lab.shown.end; ++i)
    if (std::isfinite(result.weights[i])) {
      low = std::min(low, result.weights[i]);
      high = std::max(high, result.weights[i]);
    }
  // A few keys: each weight written over its bar (under it when negative), with room for it.
  const bool labelled = lab.shown.end - lab.shown.begin <= 8;
  const double pad = (labelled ? 0.25 : 0.08) * (high - low);
  p.y.min = low < 0.0 ? low - pad : 0.0;
  p.y.max = high + pad;
  // Softmax's and x/Σx's largest weight over their smallest, where every weight is positive, written
  // in the room above the bars: how a lesson compares them (exp turns a gap of 0.2 into 1.22, x/Σx
  // keeps 2.2/2.0 = 1.1). In the title it widened the plot and shrank the lesson's text.
  if (labelled && result.defined && (column.kind == Normalizer::softmax || column.kind == Normalizer::linear)) {
    double smallest = std::numeric_limits<double>::infinity(), largest = 0.0;
    for (std::size_t i = lab.shown.begin; i < lab.shown.end; ++i) {
      smallest = std::min(smallest, result.weights[i]);
      largest = std::max(largest, result.weights[i]);
    }
    if (smallest > 0.0 && std::isfinite(largest / smallest))
      p.annotations.push_back({.x = 0.5 * static_cast<double>(lab.shown.begin + lab.shown.end - 1),
                               .y = p.y.max - 0.5 * pad,
                               .text = "max/min = " + format_value(largest / smallest, 3),
                               .align = plot::TextAlign::Center});
  }
  if (labelled && low >= 0.0 && high <= 1.0) p.y.tick_values = {0.0, 0.5, 1.0};  // no tick at a weight of 1.2

  plot::BarSeries bars;
  bars.label = tr("plot.axis.weight");
  bars.x = indices(lab.shown);
  bars.y = slice(result.weights, lab.shown);
  bars.color = weight_color;
  if (labelled) {
    bars.value_digits = 3;
    bars.value_fixed = true;
  }
  if (result.has_negative) {
    bars.bar_colors.resize(bars.y.size());
    for (std::size_t k = 0; k < bars.y.size(); ++k)
      bars.bar_colors[k] = bars.y[k] < 0.0 ? negative_color : weight_color;
  }
  p.bars.push_back(std::move(bars));

  // Exact zeros have no bar to see: a marker on the axis shows each one.
  plot::ScatterSeries zeros;
  zeros.label = tr("lab.normalizers.exact_zero");
  zeros.color = zero_color;
  zeros.shape = plot::MarkerShape::Diamond;
  zeros.radius = 3.5f;
  for (std::size_t i = lab.shown.begin; i < lab.shown.end; ++i)
    if (result.weights[i] == 0.0) {
      zeros.x.push_back(static_cast<double>(i));
      zeros.y.push_back(0.0);
    }
  if (!zeros.x.empty()) p.scatters.push_back(std::move(zeros));
  if (p.y.min < 0.0) p.hlines.push_back({0.0, "", std::nullopt, false});

  const std::string issue = short_issue(result);
  if (!issue.empty()) {
    const plot::Color color = result.defined ? negative_color : zero_color;
    p.annotations.push_back(
        {0.5 * (p.x.min + p.x.max), p.y.max - 0.08 * (p.y.max - p.y.min), issue, color, plot::TextAlign::Center});
  }
  // No legend: it would cover bars; the explanation says what the colours and diamonds mean.
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot small_gap_plot(const NormalizersLab& lab) {
  // Ratio of two weights against the gap of their scores: softmax's curve e^{g·c/T} passes e at
  // g = 1 (the dotted lines), x/Σx's stays near 1. The markers are 2.0, 2.1, 2.2 themselves
  // (gaps 0, 0.1, 0.2 from 2.0), so the two normalisers are told apart by their curves, not by
  // bars of nearly equal height.
  const SmallGapExample& gap = lab.small_gap;
  plot::Plot p;
  p.title = tr("lab.normalizers.small_gap.title");
  p.x.label = lab.score_scale == 1.0
                  ? std::string(tr("lab.normalizers.small_gap.x"))
                  : i18n::format("lab.normalizers.small_gap.x_scaled", {format_value(lab.score_scale, 3)});
  p.x.min = 0.0;
  p.x.max = 1.05;
  p.x.tick_values = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  p.y.label = tr("lab.normalizers.small_gap.y");
  p.y.scale = plot::Scale::Log10;
  p.y.min = 0.9;
  const double top = gap.softmax_gap_ratio.empty() ? 3.0 : gap.softmax_gap_ratio.back();
  // Headroom over the softmax curve for the two read-outs, clear of the e line and its label.
  p.y.max = std::isfinite(top) ? std::clamp(top * 4.0, 12.0, 1e30) : 12.0;
  p.lines.push_back({.label = "softmax", .x = gap.gaps, .y = gap.softmax_gap_ratio, .color = weight_color});
  p.lines.push_back({.label = "x/Σx", .x = gap.gaps, .y = gap.linear_gap_ratio, .color = linear_color});
  plot::ScatterSeries soft_points, linear_points;
  soft_points.label = "softmax 2.0, 2.1, 2.2";
  soft_points.color = weight_color;
  linear_points.label = "x/Σx 2.0, 2.1, 2.2";
  linear_points.color = linear_color;
  soft_points.x = gap.softmax_point_gaps;  // core's ratios: no 0/0 once a weight underflows
  soft_points.y = gap.softmax_point_ratios;
  for (std::size_t i = 0; i < small_gap_scores.size(); ++i) {
    linear_points.x.push_back(small_gap_scores[i] - small_gap_scores[0]);
    linear_points.y.push_back(gap.linear_weights[i] / gap.linear_weights[0]);
  }
  soft_points.radius = linear_points.radius = 4.0f;
  p.scatters.push_back(std::move(soft_points));
  p.scatters.push_back(std::move(linear_points));
  p.hlines.push_back({std::numbers::e, "e = 2.718", std::nullopt, true});
  p.vlines.push_back({1.0, "", std::nullopt, true});
  // The coloured read-outs double as the legend: largest/smallest weight of 2.0, 2.1, 2.2.
  p.annotations.push_back(
      {0.03, p.y.max / 1.3,
       i18n::format("lab.normalizers.small_gap.ratio", {"softmax", format_value(gap.softmax_ratio, 3)}), weight_color,
       plot::TextAlign::Left});
  p.annotations.push_back({0.03, p.y.max / 1.75,
                           i18n::format("lab.normalizers.small_gap.ratio", {"x/Σx", format_value(gap.linear_ratio, 3)}),
                           linear_color, plot::TextAlign::Left});
  p.legend = plot::LegendPos::None;
  return p;
}

}  // namespace

// [SECTION] The lab: build, controls, dragged bars, registry row

LabView build_normalizers(const LabInputs& inputs) {
  LabView view;
  view.explanation = tr("lab.normalizers.explanation");
  view.columns = 3;
  if (inputs.snapshot.lab<NormalizersLab>() == nullptr) return view;
  const NormalizersLab& lab = *inputs.snapshot.lab<NormalizersLab>();

  view.plots.push_back({"scores", scores_plot(lab), 1});
  for (const NormalizerColumn& column : lab.columns)
    view.plots.push_back({std::string(normalizer_name(column.kind)), weights_plot(lab, column), 1});
  view.plots.push_back({"small-gap", small_gap_plot(lab), 1});

  // Notes: the reason for every mark, then the small-gap numbers, then caps.
  for (const NormalizerColumn& column : lab.columns)
    if (!column.result.is_distribution())
      view.notes.push_back(i18n::format("lab.normalizers.note.problem",
                                        {display_name(lab, column.kind), problem_sentence(column.result)}));
  const SmallGapExample& gap = lab.small_gap;
  view.notes.push_back(i18n::format("lab.normalizers.note.small_gap",
                                    {format_value(lab.temperature, 3), format_value(gap.softmax_weights[0], 3),
                                     format_value(gap.softmax_weights[1], 3), format_value(gap.softmax_weights[2], 3),
                                     format_value(gap.softmax_ratio, 3), format_value(gap.linear_ratio, 3)}));
  std::string zeros;
  for (const NormalizerColumn& column : lab.columns)
    if (column.result.defined && column.kind != Normalizer::linear && column.kind != Normalizer::sigmoid)
      zeros += (zeros.empty() ? "" : tr("common.list_separator")) + display_name(lab, column.kind) + " " +
               std::to_string(column.result.exact_zeros);
  view.notes.push_back(i18n::format(
      "lab.normalizers.note.zeros",
      {zeros, std::to_string(lab.scores.size()), format_value(lab.temperature, 3), format_value(lab.score_scale, 3)}));
  if (lab.shown.size() < lab.scores.size())
    view.notes.push_back(i18n::format(
        "lab.normalizers.note.window",
        {std::to_string(lab.shown.begin), std::to_string(lab.shown.end - 1), std::to_string(lab.scores.size())}));
  return view;
}

ControlsReport controls_normalizers(Params& edit) {
  ControlsReport report =
      key_slider(edit, "alpha", {"lab.normalizers.alpha", "alpha", "α = %.2f", "lab.normalizers.alpha.help"});
  ImGui::TextDisabled("%s", tr("lab.normalizers.score_presets"));
  const auto preset = [&](const char* label, std::vector<double> scores) {
    if (!control_button(label)) return;
    edit.scores = std::move(scores);
    report.changed = true;
  };
  preset(i18n::label("lab.normalizers.preset.small_gap", "small gap").c_str(),
         std::vector<double>(small_gap_scores.begin(), small_gap_scores.end()));
  same_line_if_fits("[1, 2, 3]");
  preset("[1, 2, 3]", {1.0, 2.0, 3.0});
  preset(i18n::label("lab.normalizers.preset.negatives", "negatives").c_str(), {-2.0, -1.0, 0.5, 3.0});
  return report;
}

void interact_normalizers(std::string_view plot_name, const plot::Interaction& interaction, Params& edit) {
  // Dragging: while the left button is down over the scores plot, the bar under the mouse takes the
  // mouse's height. (An item being dragged elsewhere makes the plot report no hover, so a slider
  // drag that crosses the plot does not edit scores.)
  if (plot_name != "scores" || !interaction.hovered || !ImGui::IsMouseDown(0) || !std::isfinite(interaction.y)) return;
  if (edit.scores.empty()) {
    // First edit of the QKᵀ row: it becomes a custom vector (before × score_scale, as Params holds it).
    const Params current = edit;
    std::vector<double> scaled;
    selected_row_scores(scaled, edit.scores, current);
  }
  const auto last = static_cast<long>(edit.scores.size()) - 1;  // bars sit at their true indices
  const long index = std::clamp(std::lround(interaction.x), 0L, last);
  // Two decimals: what the mouse can place anyway, and the score text stays readable.
  edit.scores[static_cast<std::size_t>(index)] = std::round(interaction.y * 100.0) / 100.0;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* normalizers_control_labels[] = {"lab.normalizers.alpha"};
constexpr MainKey normalizers_main_keys[] = {
    {"alpha", "lab.normalizers.alpha", "α = %.2f", "lab.normalizers.alpha.help"},
    {"temperature", "controls.temperature", "T = %.3g", "controls.temperature.help"},
};
extern const LabDefinition normalizers_lab{View::normalizers,
                                           "lab.normalizers.title",
                                           "lab.normalizers.summary",
                                           normalizers_control_labels,
                                           build_normalizers,
                                           controls_normalizers,
                                           interact_normalizers,
                                           nullptr,
                                           false,
                                           normalizers_main_keys};

}  // namespace smlab::app
