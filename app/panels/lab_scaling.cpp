// The scaling lab: the distribution of q·k with and without ÷√d_k at the current d_k, and entropy,
// max weight and Jacobian norm versus d_k from the progressively refined DkSweep. Plots from
// Snapshot::scaling and LabInputs::dk_sweep only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/scaling.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

// Okabe–Ito colours, fixed so each idea keeps its colour across the two histograms: scaled q·k
// sky blue and unscaled orange (as in the curves versus d_k), the closed-form normal densities
// reddish purple.
constexpr plot::Color scaled_color = plot::Color::from_hex(0x56B4E9);
constexpr plot::Color unscaled_color = plot::Color::from_hex(0xE69F00);
constexpr plot::Color closed_form_color = plot::Color::from_hex(0xCC79A7);

// Below this d_k the histogram visibly departs from its normal overlay (excess kurtosis 6/d_k),
// and a note says why.
constexpr int clearly_normal_key_dim = 16;

// "64", "4096", "0.25", "6.55e+08": integers as integers, the rest with 3 significant digits.
std::string compact(double value) {
  char buffer[64];
  if (value == std::round(value) && std::abs(value) < 1e6)
    std::snprintf(buffer, sizeof buffer, "%.0f", value);
  else
    std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

std::string normal_label(double variance) { return "N(0," + compact(variance) + ")"; }

plot::Plot histogram_plot(const ScalingLab& lab, const ScalingHistogram& h, bool scaled) {
  plot::Plot p;
  p.title = i18n::format(scaled ? "lab.scaling.histogram.scaled" : "lab.scaling.histogram.unscaled",
                         {std::to_string(lab.key_dim)});
  p.x.label = scaled ? "q·k / √d_k" : "q·k";
  // Both histograms share the unscaled one's x-axis (±4 of its standard deviations), so the √d_k
  // between them is seen as width: at d_k = 1024 the scaled scores are a spike 32× narrower
  // inside the unscaled spread, not a second bell that looks the same on its own axis.
  p.x.min = lab.unscaled.lower;
  p.x.max = lab.unscaled.upper;
  p.y.label = tr("lab.scaling.density");
  p.y.min = 0.0;
  p.bars.push_back({.label = scaled ? "q·k/√d_k" : "q·k",
                    .x = h.bin_centers,
                    .y = h.density,
                    .width = h.bin_width,
                    .color = scaled ? scaled_color : unscaled_color});
  // On the shared axis the scaled bars are a spike a few pixels wide: a thin dashed curve over them
  // leaves them seen (a full-width line covered them).
  p.lines.push_back({.label = normal_label(h.closed_form_variance),
                     .x = h.curve_x,
                     .y = h.normal_density,
                     .color = closed_form_color,
                     .width = scaled ? 1.0f : 2.0f,
                     .dashed = scaled});
  if (scaled && lab.key_dim > 1) {
    // The unscaled spread on this axis: √d_k times wider, so nearly flat here.
    p.lines.push_back({.label = normal_label(lab.unscaled.closed_form_variance),
                       .x = lab.unscaled.curve_x,
                       .y = lab.unscaled.normal_density,
                       .color = unscaled_color,
                       .dashed = true});
  }
  // The peak of the bars or of the curve, whichever is higher, plus room for the legend.
  double top = 0.0;
  for (double d : h.density) top = std::max(top, d);
  for (double d : h.normal_density) top = std::max(top, d);
  p.y.max = 1.3 * top;
  p.legend = plot::LegendPos::TopRight;
  return p;
}

enum class SweepQuantity { entropy, max_weight, jacobian_norm };

const RunningStats& quantity_of(const RowStats& stats, SweepQuantity quantity) {
  switch (quantity) {
    case SweepQuantity::entropy: return stats.entropy_nats;
    case SweepQuantity::max_weight: return stats.max_weight;
    case SweepQuantity::jacobian_norm: return stats.jacobian_norm;
  }
  return stats.entropy_nats;
}

plot::Plot sweep_plot(const DkSweep& sweep, int current_key_dim, SweepQuantity quantity) {
  plot::Plot p;
  const int length = sweep.config.seq_len;
  const std::string trials = std::to_string(sweep.trials);
  switch (quantity) {
    case SweepQuantity::entropy:
      p.title = i18n::format("lab.scaling.sweep.entropy", {trials});
      p.y.label = tr("plot.axis.mean_entropy");
      p.y.min = 0.0;
      p.y.max = std::log(static_cast<double>(std::max(length, 2))) * 1.25;
      p.hlines.push_back({std::log(static_cast<double>(std::max(length, 2))), "ln L", std::nullopt, true});
      break;
    case SweepQuantity::max_weight:
      p.title = i18n::format("lab.scaling.sweep.max_weight", {trials});
      p.y.label = tr("lab.scaling.mean_max_weight");
      p.y.min = 0.0;
      p.y.max = 1.25;
      p.hlines.push_back({1.0 / std::max(length, 1), "1/L", std::nullopt, true});
      break;
    case SweepQuantity::jacobian_norm:
      p.title = i18n::format("lab.scaling.sweep.jacobian", {trials});
      p.y.label = tr("lab.scaling.mean_jacobian");
      p.y.min = 0.0;
      break;
  }
  p.x.label = tr("lab.scaling.key_dim");
  p.x.scale = plot::Scale::Log10;
  p.x.min = 1.0;
  p.x.max = 4096.0;
  p.x.tick_values = {1, 4, 16, 64, 256, 1024, 4096};
  double top = 0.0;
  const auto curve = [&](const std::vector<RowStats>& stats, const char* label) {
    plot::LineSeries line{.label = label, .markers = true};
    for (std::size_t k = 0; k < stats.size() && k < sweep.config.key_dims.size(); ++k) {
      const RunningStats& value = quantity_of(stats[k], quantity);
      const double se = value.standard_error();
      line.x.push_back(sweep.config.key_dims[k]);
      line.y.push_back(value.mean);
      line.band_low.push_back(value.mean - se);
      line.band_high.push_back(value.mean + se);
      top = std::max(top, value.mean + se);
    }
    return line;
  };
  p.lines.push_back(curve(sweep.scaled, tr("plot.legend.scaled")));
  p.lines.push_back(curve(sweep.unscaled, tr("plot.legend.unscaled")));
  if (quantity == SweepQuantity::jacobian_norm) p.y.max = std::max(top, 1e-3) * 1.4;
  p.vlines.push_back(
      {static_cast<double>(current_key_dim), "d_k = " + std::to_string(current_key_dim), std::nullopt, true});
  // The corner the curves usually leave free: entropy ends low on the right under a flat scaled
  // curve near the top; max weight starts low at d_k = 1 and the unscaled one climbs to 1 on the
  // right; the Jacobian norms stay above ~0.25 on the left.
  switch (quantity) {
    case SweepQuantity::entropy: p.legend = plot::LegendPos::TopRight; break;
    case SweepQuantity::max_weight: p.legend = plot::LegendPos::TopLeft; break;
    case SweepQuantity::jacobian_norm: p.legend = plot::LegendPos::BottomLeft; break;
  }
  return p;
}

}  // namespace

LabView build_scaling(const LabInputs& inputs) {
  const ScalingLab& lab = *inputs.snapshot.lab<ScalingLab>();
  const DkSweep& sweep = inputs.dk_sweep;
  const Params& params = inputs.snapshot.params;
  LabView view;
  view.explanation = tr("lab.scaling.explanation");

  const auto estimate = [](const ScalingHistogram& h) {
    return format_value(h.variance, 4) + " ± " + format_value(h.variance_standard_error, 2);
  };
  view.notes.push_back(
      i18n::format("lab.scaling.note.variance",
                   {estimate(lab.unscaled), compact(lab.unscaled.closed_form_variance), estimate(lab.scaled),
                    compact(lab.scaled.closed_form_variance), std::to_string(lab.trials), format_value(lab.sigma, 3)}));
  if (lab.key_dim < clearly_normal_key_dim) view.notes.push_back(tr("lab.scaling.note.small_dk"));
  view.notes.push_back(i18n::format("lab.scaling.note.curves",
                                    {std::to_string(sweep.config.seq_len), format_value(sweep.config.temperature, 3),
                                     format_value(sweep.config.score_scale, 3), std::to_string(sweep.trials)}));

  view.columns = 6;
  view.plots.push_back({"histogram-unscaled", histogram_plot(lab, lab.unscaled, false), 3});
  view.plots.push_back({"histogram-scaled", histogram_plot(lab, lab.scaled, true), 3});
  view.plots.push_back({"entropy-dk", sweep_plot(sweep, params.key_dim, SweepQuantity::entropy), 2});
  view.plots.push_back({"max-weight-dk", sweep_plot(sweep, params.key_dim, SweepQuantity::max_weight), 2});
  view.plots.push_back({"jacobian-dk", sweep_plot(sweep, params.key_dim, SweepQuantity::jacobian_norm), 2});
  return view;
}

ControlsReport controls_scaling(Params& edit) {
  return key_slider(edit, "qk_norm",
                    {"lab.scaling.sigma", "sigma", "σ = %.3g", "lab.scaling.sigma.help", SliderText::Help::marker});
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* scaling_control_labels[] = {"lab.scaling.sigma"};
constexpr MainKey scaling_main_keys[] = {
    {"d_k", nullptr, "d_k = %d", "controls.d_k.help"},
    {"scaled", "controls.scaled", nullptr, "controls.scaled.help"},
    {"qk_norm", "lab.scaling.sigma", "σ = %.3g", "lab.scaling.sigma.help"},
};
extern const LabDefinition scaling_lab{View::scaling,
                                       "lab.scaling.title",
                                       "lab.scaling.summary",
                                       scaling_control_labels,
                                       build_scaling,
                                       controls_scaling,
                                       nullptr,
                                       nullptr,
                                       false,
                                       scaling_main_keys};

}  // namespace smlab::app
