// The scaling lab: the distribution of q·k with and without ÷√d_k at the current d_k, and entropy,
// max weight and Jacobian norm versus d_k from the progressively refined DkSweep. Plots from
// Snapshot::scaling and LabInputs::dk_sweep only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "panels/labs.hpp"
#include "smlab/labs/scaling.hpp"

namespace smlab::app {
namespace {

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
  p.title = scaled ? "q·k / √d_k at d_k = " + std::to_string(lab.key_dim) + " (scaled)"
                   : "q·k at d_k = " + std::to_string(lab.key_dim) + " (unscaled)";
  p.x.label = scaled ? "q·k / √d_k" : "q·k";
  p.x.min = h.lower;
  p.x.max = h.upper;
  p.y.label = "density";
  p.y.min = 0.0;
  p.bars.push_back({.label = scaled ? "q·k/√d_k" : "q·k",
                    .x = h.bin_centers,
                    .y = h.density,
                    .width = h.bin_width,
                    .color = scaled ? scaled_color : unscaled_color});
  p.lines.push_back(
      {.label = normal_label(h.closed_form_variance), .x = h.curve_x, .y = h.normal_density, .color = closed_form_color});
  if (scaled && lab.key_dim > 1) {
    // The unscaled spread on this axis: √d_k times wider, so nearly flat here.
    p.lines.push_back({.label = normal_label(lab.unscaled.closed_form_variance),
                       .x = h.curve_x,
                       .y = lab.unscaled_density_on_scaled_axis,
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
  const std::string trials = ", " + std::to_string(sweep.trials) + " trials";
  switch (quantity) {
    case SweepQuantity::entropy:
      p.title = "Entropy vs d_k" + trials;
      p.y.label = "mean entropy (nats)";
      p.y.min = 0.0;
      p.y.max = std::log(static_cast<double>(std::max(length, 2))) * 1.25;
      p.hlines.push_back({std::log(static_cast<double>(std::max(length, 2))), "ln L", std::nullopt, true});
      break;
    case SweepQuantity::max_weight:
      p.title = "Max weight vs d_k" + trials;
      p.y.label = "mean max weight";
      p.y.min = 0.0;
      p.y.max = 1.25;
      p.hlines.push_back({1.0 / std::max(length, 1), "1/L", std::nullopt, true});
      break;
    case SweepQuantity::jacobian_norm:
      p.title = "‖J‖_F vs d_k" + trials;
      p.y.label = "mean ‖J‖_F";
      p.y.min = 0.0;
      break;
  }
  p.x.label = "key dimension d_k";
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
  p.lines.push_back(curve(sweep.scaled, "scaled"));
  p.lines.push_back(curve(sweep.unscaled, "unscaled"));
  if (quantity == SweepQuantity::jacobian_norm) p.y.max = std::max(top, 1e-3) * 1.4;
  p.vlines.push_back({static_cast<double>(current_key_dim), "d_k = " + std::to_string(current_key_dim), std::nullopt,
                      true});
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
  const ScalingLab& lab = *inputs.snapshot.scaling;
  const DkSweep& sweep = inputs.dk_sweep;
  const Params& params = inputs.snapshot.params;
  LabView view;
  view.explanation =
      "Each product q_c·k_c has variance σ⁴, so q·k, a sum of d_k of them, has variance d_k·σ⁴: its "
      "spread grows like √d_k, and softmax of such logits collapses onto one key, where its gradient "
      "(the Jacobian) vanishes. Dividing by √d_k brings the variance back to σ⁴ whatever d_k is: the "
      "scaled curves below stay flat while the unscaled ones lose entropy and gradient as d_k grows.";

  const auto estimate = [](const ScalingHistogram& h) {
    return format_value(h.variance, 4) + " ± " + format_value(h.variance_standard_error, 2);
  };
  view.notes.push_back("Var(q·k) = " + estimate(lab.unscaled) + " vs d_k·σ⁴ = " +
                       compact(lab.unscaled.closed_form_variance) + ";   Var(q·k/√d_k) = " + estimate(lab.scaled) +
                       " vs σ⁴ = " + compact(lab.scaled.closed_form_variance) + "   (" +
                       std::to_string(lab.trials) + " draws, σ = " + format_value(lab.sigma, 3) + ", ±1 SE).");
  if (lab.key_dim < clearly_normal_key_dim)
    view.notes.push_back("At small d_k, q·k is a sum of few products of normals: a sharper peak and heavier tails "
                         "than the normal curve of the same variance (excess kurtosis 6/d_k); it becomes normal as "
                         "d_k grows.");
  view.notes.push_back("Curves vs d_k: rows of L = " + std::to_string(sweep.config.seq_len) + ", T = " +
                       format_value(sweep.config.temperature, 3) + ", score scale " +
                       format_value(sweep.config.score_scale, 3) + ", q, k ~ N(0, 1); " +
                       std::to_string(sweep.trials) + " trials per point, bands ±1 SE (they narrow as trials " +
                       "accumulate). σ ≠ 1 would act like score scale σ².");

  view.columns = 6;
  view.plots.push_back({"histogram-unscaled", histogram_plot(lab, lab.unscaled, false), 3});
  view.plots.push_back({"histogram-scaled", histogram_plot(lab, lab.scaled, true), 3});
  view.plots.push_back({"entropy-dk", sweep_plot(sweep, params.key_dim, SweepQuantity::entropy), 2});
  view.plots.push_back({"max-weight-dk", sweep_plot(sweep, params.key_dim, SweepQuantity::max_weight), 2});
  view.plots.push_back({"jacobian-dk", sweep_plot(sweep, params.key_dim, SweepQuantity::jacobian_norm), 2});
  return view;
}

void controls_scaling(Params& edit) {
  using L = ParamLimits;
  double sigma = edit.qk_norm;
  const double sigma_min = L::qk_norm_min, sigma_max = L::qk_norm_max;
  if (ImGui::SliderScalar("σ of q, k", ImGuiDataType_Double, &sigma, &sigma_min, &sigma_max, "σ = %.3g",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.qk_norm = sigma;
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Entries of q and k ~ N(0, σ²) in the histograms: Var(q·k) = d_k σ⁴.\n"
                      "d_k is the slider above. The curves versus d_k use σ = 1.");
}

}  // namespace smlab::app
