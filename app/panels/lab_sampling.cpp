// The sampling lab: softmax(logits/T) with a histogram of seeded draws, the top-k and top-p
// (nucleus) filtered distributions, and distillation's soft targets with the T² factor.
// Plots from smlab::SamplingLab only.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include <imgui.h>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "smlab/labs/topics.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

constexpr plot::Color probability_color = plot::Color::from_hex(0x56B4E9);  // sky blue
constexpr plot::Color draw_color = plot::Color::from_hex(0xE69F00);         // orange
constexpr plot::Color kept_color = plot::Color::from_hex(0x009E73);         // bluish green
constexpr plot::Color student_color = plot::Color::from_hex(0xCC79A7);      // reddish purple
constexpr plot::Color dropped_color = plot::Color::from_hex(0x999999);      // grey
constexpr plot::Color scaled_color = plot::Color::from_hex(0xD55E00);       // vermillion

std::vector<double> indices(std::size_t n, double offset = 0.0) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i) + offset;
  return out;
}

void token_axis(plot::Plot& p) {
  p.x.label = tr("lab.sampling.token");
  p.x.integer_ticks = true;
  p.y.label = tr("plot.axis.probability_s");
  p.y.min = 0.0;
}

plot::Plot distribution_plot(const SamplingLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.sampling.distribution.title",
                         {format_value(lab.settings.temperature, 3), std::to_string(lab.settings.draws)});
  token_axis(p);
  double top = 0.0;
  for (std::size_t i = 0; i < lab.probabilities.size(); ++i)
    top = std::max({top, lab.probabilities[i], lab.frequencies[i]});
  p.y.max = std::min(1.05, top * 1.35 + 0.02);
  p.bars.push_back({.label = "softmax(z/T)",
                    .x = indices(lab.probabilities.size()),
                    .y = lab.probabilities,
                    .color = probability_color});
  p.scatters.push_back({.label = tr("lab.sampling.drawn"),
                        .x = indices(lab.frequencies.size()),
                        .y = lab.frequencies,
                        .color = draw_color,
                        .radius = 5.0f,
                        .shape = plot::MarkerShape::Diamond});
  // The top token's share of the draws against its probability, written over it: the two numbers
  // a lesson compares (0.405 against 0.408) differ by less than a pixel of the axis.
  if (!lab.probabilities.empty() && lab.frequencies.size() == lab.probabilities.size()) {
    const auto most = static_cast<std::size_t>(std::max_element(lab.probabilities.begin(), lab.probabilities.end()) -
                                               lab.probabilities.begin());
    p.annotations.push_back({.x = static_cast<double>(most),
                             .y = std::max(lab.probabilities[most], lab.frequencies[most]),
                             .text = i18n::format("lab.sampling.top_share", {i18n::fixed(lab.frequencies[most], 3),
                                                                             i18n::fixed(lab.probabilities[most], 3)}),
                             .align = plot::TextAlign::Left});
  }
  p.legend = plot::LegendPos::TopRight;
  return p;
}

// The filtered distribution as bars at each token's own probability: kept ones in colour, dropped
// ones grey, so the bars are the probabilities a student adds up to reach p (the title gives the kept
// mass, by which a sampler then divides them). Renormalised bars (0.665 for a kept 0.644) did not
// match the probabilities a lesson works with. A few tokens: each bar's value written.
plot::Plot filtered_plot(const SamplingLab& lab, const std::vector<double>& filtered, std::string title) {
  plot::Plot p;
  p.title = std::move(title);
  token_axis(p);
  p.y.label = tr("lab.sampling.filtered_y");
  double top = 0.0;
  for (double x : lab.probabilities) top = std::max(top, x);
  const bool written = filtered.size() <= 6;
  p.y.max = std::min(1.05, top * (written ? 1.45 : 1.3) + 0.02);
  // NaN where a token is in the other series: no bar and no "0" written over its neighbour's bar.
  constexpr double none = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> kept(filtered.size(), none), dropped(filtered.size(), none);
  for (std::size_t i = 0; i < filtered.size() && i < lab.probabilities.size(); ++i)
    (filtered[i] > 0.0 ? kept : dropped)[i] = lab.probabilities[i];
  const int digits = written ? 3 : 0;
  p.bars.push_back({.label = tr("lab.sampling.kept"),
                    .x = indices(filtered.size()),
                    .y = kept,
                    .color = kept_color,
                    .value_digits = digits,
                    .value_fixed = true});
  p.bars.push_back({.label = tr("lab.sampling.dropped"),
                    .x = indices(dropped.size()),
                    .y = dropped,
                    .color = dropped_color,
                    .value_digits = digits,
                    .value_fixed = true});
  p.legend = plot::LegendPos::TopRight;
  return p;
}

plot::Plot soft_targets_plot(const SamplingLab& lab) {
  const Distillation& d = lab.distillation;
  plot::Plot p;
  p.title = i18n::format("lab.sampling.soft_targets.title",
                         {format_value(lab.settings.distillation_temperature, 3), format_value(d.loss, 3)});
  token_axis(p);
  double top = 0.0;
  for (std::size_t i = 0; i < d.soft_targets.size(); ++i)
    top = std::max({top, d.soft_targets[i], d.student_probabilities[i]});
  p.y.max = std::min(1.05, top * 1.35 + 0.02);
  p.bars.push_back({.label = tr("lab.sampling.teacher"),
                    .x = indices(d.soft_targets.size(), -0.2),
                    .y = d.soft_targets,
                    .width = 0.4,
                    .color = probability_color});
  p.bars.push_back({.label = tr("lab.sampling.student"),
                    .x = indices(d.student_probabilities.size(), 0.2),
                    .y = d.student_probabilities,
                    .width = 0.4,
                    .color = student_color});
  p.legend = plot::LegendPos::TopRight;
  return p;
}

plot::Plot temperature_table_plot(const SamplingLab& lab) {
  plot::Plot p;
  p.title = tr("lab.sampling.table.title");
  p.x.label = tr("plot.axis.temperature");
  p.x.scale = plot::Scale::Log10;
  p.x.min = 0.1;
  p.x.max = 100.0;
  p.y.label = tr("plot.axis.entropy");
  const double top = std::log(static_cast<double>(lab.probabilities.size()));
  p.y.min = 0.0;
  p.y.max = top * 1.25;
  // The seed texts' table as translucent bands, each named by a label inside it (a legend of four
  // entries has no room at projector sizes): code 0.2–0.5, creative writing 1.2–1.5, distillation.
  const plot::Color band_colors[] = {kept_color, draw_color, student_color};
  const double label_heights[] = {0.93, 0.78, 0.93};
  int k = 0;
  for (const TemperatureUse& use : temperature_uses) {
    const double low = std::max(use.low, p.x.min);
    const std::string name = tr(std::string("lab.sampling.use.") + use.name);
    p.lines.push_back({.label = name,
                       .x = {low, use.high},
                       .y = {0.0, 0.0},
                       .color = band_colors[k],
                       .width = 1.0f,
                       .band_low = {0.0, 0.0},
                       .band_high = {p.y.max, p.y.max}});
    p.annotations.push_back(
        {std::sqrt(low * use.high), label_heights[k] * p.y.max, name, band_colors[k], plot::TextAlign::Center});
    ++k;
  }
  p.lines.push_back({.label = tr("lab.sampling.entropy"),
                     .x = lab.sweep_temperatures,
                     .y = lab.sweep_soft_entropy,
                     .color = probability_color,
                     .width = 2.5f});
  p.hlines.push_back({top, "ln n", std::nullopt, true});
  p.vlines.push_back({lab.settings.temperature, tr("plot.legend.now"), std::nullopt, true});
  // Where the now line meets the curve, with its value: the entropy a lesson quotes at this T is
  // read off the plot, not only the notes.
  p.scatters.push_back({.label = tr("lab.sampling.entropy"),
                        .x = {lab.settings.temperature},
                        .y = {lab.entropy_nats},
                        .color = probability_color,
                        .radius = 5.0f,
                        .in_legend = false});
  p.annotations.push_back({.x = lab.settings.temperature,
                           .y = lab.entropy_nats,
                           .text = i18n::format("lab.sampling.entropy_now", {i18n::fixed(lab.entropy_nats, 3)}),
                           .align = plot::TextAlign::Left});
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot kd_gradient_plot(const SamplingLab& lab) {
  plot::Plot p;
  p.title = tr("lab.sampling.kd_gradient.title");
  p.x.label = tr("plot.axis.temperature");
  p.x.scale = plot::Scale::Log10;
  p.x.min = 0.1;
  p.x.max = 100.0;
  p.y.label = tr("lab.sampling.gradient_norm");
  p.y.scale = plot::Scale::Log10;
  p.lines.push_back({.label = tr("lab.sampling.with_t2"),
                     .x = lab.sweep_temperatures,
                     .y = lab.sweep_gradient_norm,
                     .color = scaled_color});
  p.lines.push_back({.label = tr("lab.sampling.without_t2"),
                     .x = lab.sweep_temperatures,
                     .y = lab.sweep_unscaled_gradient_norm,
                     .color = dropped_color,
                     .dashed = true});
  p.vlines.push_back({lab.settings.distillation_temperature, "T_KD", std::nullopt, true});
  p.legend = plot::LegendPos::BottomLeft;
  return p;
}

}  // namespace

LabView build_sampling_view(const SamplingLab& lab) {
  LabView view;
  view.explanation = tr("lab.sampling.explanation");
  view.columns = 3;
  view.plots.push_back({"distribution", distribution_plot(lab), 1});
  view.plots.push_back({"top-k",
                        filtered_plot(lab, lab.top_k,
                                      i18n::format("lab.sampling.top_k.title",
                                                   {std::to_string(lab.settings.top_k), std::to_string(lab.top_k_kept),
                                                    i18n::fixed(lab.top_k_mass, 3)})),
                        1});
  view.plots.push_back({"top-p",
                        filtered_plot(lab, lab.top_p,
                                      i18n::format("lab.sampling.top_p.title",
                                                   {format_value(lab.settings.top_p, 3), std::to_string(lab.top_p_kept),
                                                    i18n::fixed(lab.top_p_mass, 3)})),
                        1});
  view.plots.push_back({"temperature-table", temperature_table_plot(lab), 1});
  view.plots.push_back({"soft-targets", soft_targets_plot(lab), 1});
  view.plots.push_back({"distillation-gradient", kd_gradient_plot(lab), 1});
  view.notes.push_back(i18n::format("lab.sampling.note.draws",
                                    {std::to_string(lab.settings.draws), format_value(lab.max_frequency_error, 3),
                                     format_value(lab.entropy_nats, 3), format_value(lab.top_p_entropy_nats, 3)}));
  view.notes.push_back(
      i18n::format("lab.sampling.note.distillation",
                   {format_value(lab.settings.distillation_temperature, 3), format_value(lab.distillation.kl_nats, 3),
                    format_value(lab.distillation.loss, 3)}));
  return view;
}

LabView build_sampling(const LabInputs& inputs) {
  const SamplingLab* lab = inputs.snapshot.lab<SamplingLab>();
  if (lab == nullptr) {
    LabView view;
    view.explanation = tr("lab.sampling.explanation");
    return view;
  }
  return build_sampling_view(*lab);
}

ControlsReport controls_sampling(Params& edit) {
  ControlsReport report = key_slider(
      edit, "temperature", {"lab.sampling.temperature", "T sampling", "T = %.3g", "lab.sampling.temperature.help"});
  report += key_slider(edit, "top_k", {"lab.sampling.top_k", "top-k sampling", "k = %d", "lab.sampling.top_k.help"});
  report += key_slider(edit, "top_p", {"lab.sampling.top_p", "top-p sampling", "p = %.2f", "lab.sampling.top_p.help"});
  report +=
      key_slider(edit, "samples", {"lab.sampling.samples", "draws sampling", "N = %d", "lab.sampling.samples.help"});
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* sampling_control_labels[] = {"lab.sampling.temperature", "lab.sampling.top_k",
                                                   "lab.sampling.top_p", "lab.sampling.samples"};
constexpr MainKey sampling_main_keys[] = {
    {"temperature", "controls.temperature", "T = %.3g", "controls.temperature.help"},
    {"top_k", "lab.sampling.top_k", "k = %d", "lab.sampling.top_k.help"},
    {"top_p", "lab.sampling.top_p", "p = %.2f", "lab.sampling.top_p.help"},
};
extern const LabDefinition sampling_lab{View::sampling,
                                        "lab.sampling.title",
                                        "lab.sampling.summary",
                                        sampling_control_labels,
                                        build_sampling,
                                        controls_sampling,
                                        nullptr,
                                        nullptr,
                                        false,
                                        sampling_main_keys};

}  // namespace smlab::app
