// The loss & gradients lab: log-softmax beside the naive log(softmax), cross-entropy and its
// gradient s − y along the target's logit, and the gradients back to Q and K versus d_k, scaled and
// unscaled. Plots from smlab::LossLab and two smlab::QkGradientSweep only.
#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "plot/ticks.hpp"
#include "panels/panels.hpp"
#include "smlab/labs/topics.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

constexpr plot::Color stable_color = plot::Color::from_hex(0x56B4E9);         // sky blue
constexpr plot::Color naive_color = plot::Color::from_hex(0xD55E00);          // vermillion
constexpr plot::Color loss_color = plot::Color::from_hex(0x0072B2);           // blue
constexpr plot::Color gradient_color = plot::Color::from_hex(0xE69F00);       // orange
constexpr plot::Color scaled_color = plot::Color::from_hex(0x009E73);         // bluish green
constexpr plot::Color unscaled_color = plot::Color::from_hex(0xCC79A7);       // reddish purple
constexpr plot::Color unscaled_mean_color = plot::Color::from_hex(0x882255);  // wine: the unscaled mean

std::vector<double> indices(std::size_t n, double offset = 0.0) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i) + offset;
  return out;
}

plot::Plot log_softmax_plot(const LossLab& lab) {
  plot::Plot p;
  p.title = tr("lab.loss.log_softmax.title");
  p.x.label = tr("plot.axis.index_i");
  p.x.integer_ticks = true;
  p.y.label = "log s_i";
  const std::size_t n = lab.log_softmax.size();
  // A few classes: each stable value written under its bar (−1003.05 is not read off an axis of
  // 1800 units in 500 px).
  p.bars.push_back({.label = "z − logsumexp(z)",
                    .x = indices(n, -0.2),
                    .y = lab.log_softmax,
                    .width = 0.4,
                    .color = stable_color,
                    .value_digits = n <= 8 ? 3 : 0,
                    .value_fixed = true});
  // The naive values where finite; where they are −inf there is no bar, and the label says so.
  std::vector<double> naive = lab.naive_log_softmax;
  double bottom = 0.0;
  for (double x : lab.log_softmax) bottom = std::min(bottom, x);
  for (std::size_t i = 0; i < n; ++i)
    if (!std::isfinite(naive[i])) {
      p.annotations.push_back(
          {static_cast<double>(i) + 0.2, bottom * 0.5, "−inf", naive_color, plot::TextAlign::Center});
      naive[i] = 0.0;
    }
  p.bars.push_back({.label = "log(softmax(z))", .x = indices(n, 0.2), .y = naive, .width = 0.4, .color = naive_color});
  p.y.min = bottom * 1.8 - 0.2;  // room under the bars for the legend
  // Room over 0 for a value written over a bar of exactly 0 (log s = 0: logits 0, 1000).
  p.y.max = n <= 8 ? -0.1 * p.y.min : 0.0;
  p.legend = plot::LegendPos::BottomRight;
  return p;
}

plot::Plot gradient_plot(const LossLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.loss.gradient.title", {std::to_string(lab.settings.target), format_value(lab.loss, 4)});
  p.short_title =
      i18n::format("lab.loss.gradient.short_title", {std::to_string(lab.settings.target), format_value(lab.loss, 4)});
  p.x.label = tr("plot.axis.index_i");
  p.x.integer_ticks = true;
  p.y.label = "∂L/∂x_i";
  // A few scores: each gradient written on its bar (over it, under a negative one), with room
  // beyond ±1/T for the label.
  const bool labelled = lab.gradient.size() <= 8;
  const double bound = 1.0 / lab.settings.temperature;
  p.y.min = -(labelled ? 1.4 : 1.1) * bound;
  p.y.max = (labelled ? 1.4 : 1.1) * bound;
  if (labelled) p.y.tick_values = {-bound, -0.5 * bound, 0.0, 0.5 * bound, bound};
  p.bars.push_back({.label = "(s − y)/T",
                    .x = indices(lab.gradient.size()),
                    .y = lab.gradient,
                    .color = gradient_color,
                    .value_digits = labelled ? 3 : 0,
                    .value_fixed = true});
  p.hlines.push_back({0.0, "", std::nullopt, false});
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot loss_curve_plot(const LossLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.loss.curve.title", {std::to_string(lab.settings.target)});
  p.x.label = i18n::format("lab.loss.curve.x", {std::to_string(lab.settings.target)});
  p.y.label = tr("lab.loss.curve.y");
  p.lines.push_back({.label = "L = −log s_t", .x = lab.sweep_target_logit, .y = lab.sweep_loss, .color = loss_color});
  double top = 0.0;
  for (double v : lab.sweep_loss) top = std::max(top, v);
  p.y.min = -0.05 * top;
  p.y.max = 1.15 * top;
  const double now = lab.settings.logits[static_cast<std::size_t>(lab.settings.target)];
  p.vlines.push_back({now, tr("plot.legend.now"), std::nullopt, true});
  // The loss at the current logit, written where the curve crosses "now" (the lesson quotes it).
  if (std::isfinite(lab.loss))
    p.annotations.push_back({.x = now, .y = lab.loss, .text = "L = " + i18n::fixed(lab.loss, 3)});
  p.hlines.push_back({0.0, "", std::nullopt, false});
  p.legend = plot::LegendPos::None;  // one curve, named by the axis
  return p;
}

// The loss's gradient along the same target logit, on its own axis: from −1/T (the target unlikely)
// to 0 (certain). On the loss's axis (0 to ~20) it was a flat line at the bottom.
plot::Plot gradient_curve_plot(const LossLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.loss.gradient_curve.title", {std::to_string(lab.settings.target)});
  p.x.label = i18n::format("lab.loss.curve.x", {std::to_string(lab.settings.target)});
  p.y.label = "∂L/∂x_" + std::to_string(lab.settings.target);
  p.lines.push_back(
      {.label = "∂L/∂x_t", .x = lab.sweep_target_logit, .y = lab.sweep_target_gradient, .color = gradient_color});
  const double low = -1.0 / lab.settings.temperature;
  p.y.min = 1.08 * low;
  p.y.max = -0.08 * low;
  const auto target = static_cast<std::size_t>(lab.settings.target);
  // The gradient at the current logit, s_t − 1 over T, written where the curve crosses the dashed
  // line with the line's own name ("now −0.90"): a separate "now" label sat on the value.
  const bool written = target < lab.gradient.size() && std::isfinite(lab.gradient[target]);
  p.vlines.push_back({lab.settings.logits[target], written ? "" : tr("plot.legend.now"), std::nullopt, true});
  if (written)
    p.annotations.push_back({.x = lab.settings.logits[target],
                             .y = lab.gradient[target],
                             .text = std::string(tr("plot.legend.now")) + " " + i18n::fixed(lab.gradient[target], 2)});
  p.hlines.push_back({0.0, "", std::nullopt, false});
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot qk_plot(const QkGradientSweep& sweep, const char* title_key) {
  plot::Plot p;
  p.title = tr(title_key);
  p.x.label = "d_k";
  p.x.scale = plot::Scale::Log10;
  p.y.label = "‖∂L/∂q‖";
  p.y.scale = plot::Scale::Log10;
  std::vector<double> dims(sweep.key_dims.begin(), sweep.key_dims.end());
  p.lines.push_back({.label = tr("lab.loss.scaled_median"),
                     .x = dims,
                     .y = sweep.scaled_query_norm_median,
                     .color = scaled_color,
                     .markers = true});
  p.lines.push_back({.label = tr("lab.loss.unscaled_median"),
                     .x = dims,
                     .y = sweep.unscaled_query_norm_median,
                     .color = unscaled_color,
                     .markers = true});
  // The unscaled mean, dashed in a darker shade on top of the median and named in the legend: in the
  // pink of the median it vanished under it wherever the two agree (the target-key plot).
  p.lines.push_back({.label = tr("lab.loss.unscaled_mean"),
                     .x = dims,
                     .y = sweep.unscaled_query_norm,
                     .color = unscaled_mean_color,
                     .width = 2.5f,
                     .dashed = true});
  // The unscaled median at the largest d_k written beside its point: a lesson quotes it (2e-14),
  // and a log axis of 14 decades gives only its decade.
  const std::vector<double>& vanishing = sweep.unscaled_query_norm_median;
  if (!vanishing.empty() && !dims.empty() && std::isfinite(vanishing.back()) && vanishing.back() > 0.0)
    p.annotations.push_back({.x = dims.back(),
                             .y = vanishing.back(),
                             .text = plot::format_scientific(vanishing.back(), 1),
                             .align = plot::TextAlign::Right});
  // And the scaled median at the largest d_k (a lesson quotes it: it has not shrunk).
  const std::vector<double>& kept = sweep.scaled_query_norm_median;
  if (!kept.empty() && !dims.empty() && std::isfinite(kept.back()) && kept.back() > 0.0)
    p.annotations.push_back({.x = dims.back(),
                             .y = kept.back(),
                             .text = plot::format_scientific(kept.back(), 2),
                             .align = plot::TextAlign::Right});
  p.legend = plot::LegendPos::BottomLeft;
  return p;
}

}  // namespace

LabView build_loss_view(const LossLab& lab, const QkGradientSweep& probe_sweep, const QkGradientSweep& target_sweep) {
  LabView view;
  view.explanation = tr("lab.loss.explanation");
  view.columns = 3;
  view.plots.push_back({"log-softmax", log_softmax_plot(lab), 1});
  view.plots.push_back({"gradient", gradient_plot(lab), 1});
  view.plots.push_back({"loss-vs-logit", loss_curve_plot(lab), 1});
  view.plots.push_back({"gradient-vs-logit", gradient_curve_plot(lab), 1});
  view.plots.push_back({"dq-output-probe", qk_plot(probe_sweep, "lab.loss.probe.title"), 1});
  view.plots.push_back({"dq-target-key", qk_plot(target_sweep, "lab.loss.target.title"), 1});
  view.notes.push_back(i18n::format("lab.loss.note.loss", {format_value(lab.loss, 5), format_value(lab.logsumexp, 5),
                                                           format_value(lab.gradient_sum, 2)}));
  view.notes.push_back(i18n::format(
      "lab.loss.note.underflow",
      {format_value(lab.settings.gap, 4), format_value(lab.demo_stable, 6), format_value(lab.demo_naive, 3)}));
  const std::size_t last = probe_sweep.key_dims.size() - 1;
  view.notes.push_back(i18n::format(
      "lab.loss.note.sweep",
      {std::to_string(probe_sweep.key_dims[last]), format_value(probe_sweep.scaled_query_norm_median[last], 3),
       format_value(probe_sweep.unscaled_query_norm_median[last], 3),
       format_value(target_sweep.unscaled_query_norm_median[last], 3), std::to_string(probe_sweep.trials)}));
  return view;
}

LabView build_loss(const LabInputs& inputs) {
  const LossGradientsLab* lab = inputs.snapshot.lab<LossGradientsLab>();
  if (lab == nullptr) {
    LabView view;
    view.explanation = tr("lab.loss.explanation");
    return view;
  }
  return build_loss_view(lab->loss, lab->probe, lab->target);
}

ControlsReport controls_loss(Params& edit) {
  ControlsReport report =
      key_slider(edit, "temperature", {"lab.loss.temperature", "T loss", "T = %.3g", "lab.loss.temperature.help"});
  // The target is an index into the shown row: the custom scores, or the L keys of the QKᵀ row.
  const int length = edit.scores.empty() ? edit.seq_len : static_cast<int>(edit.scores.size());
  report += key_slider(
      edit, "target",
      {"lab.loss.target", "target loss", "t = %d", "lab.loss.target.help", SliderText::Help::tooltip, length - 1});
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* loss_control_labels[] = {"lab.loss.temperature", "lab.loss.target"};
constexpr MainKey loss_main_keys[] = {
    {"temperature", "lab.loss.temperature", "T = %.3g", "lab.loss.temperature.help"},
};
extern const LabDefinition loss_lab{
    View::loss, "lab.loss.title", "lab.loss.summary", loss_control_labels, build_loss, controls_loss, nullptr, nullptr,
    false,      loss_main_keys};

}  // namespace smlab::app
