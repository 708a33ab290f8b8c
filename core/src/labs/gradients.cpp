// The gradients lab's computations: the Jacobian block, the S(1−S) points, and the score-scale sweep
// with its stall region.
#include "smlab/labs/gradients.hpp"

#include <algorithm>
#include <cmath>

#include "smlab/labs/normalizers.hpp"  // display_window
#include "smlab/shown_row.hpp"
#include "smlab/softmax.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

constexpr int parabola_points = 101;
constexpr double stall_bisection_relative_width = 1e-12;

// The size of J at score scale c: J of softmax(c·u / T).
struct JacobianSize {
  double frobenius_norm, max_abs_entry;
};

JacobianSize jacobian_size_at(double scale, std::span<const double> unscaled, double temperature,
                              std::vector<double>& scores, std::vector<double>& probabilities) {
  for (std::size_t i = 0; i < unscaled.size(); ++i) scores[i] = scale * unscaled[i];
  softmax(probabilities, scores, temperature);
  return {jacobian_frobenius_norm(probabilities), jacobian_max_abs_entry(probabilities)};
}

void fill_jacobian_block(GradientsLab& out) {
  const int n = static_cast<int>(out.probabilities.size());
  const int m = std::min(n, jacobian_heatmap_max_size);
  const IndexWindow window = display_window(out.scores, static_cast<std::size_t>(m));
  out.row_length = n;
  out.jacobian_size = m;
  out.jacobian_first = static_cast<int>(window.begin);
  out.jacobian_capped = m < n;
  // A diagonal block of J is not the Jacobian of a shorter row (its rows need not sum to 0 when
  // capped), so it is written entry by entry rather than by softmax_jacobian on a shorter row.
  out.jacobian.resize(static_cast<std::size_t>(m) * static_cast<std::size_t>(m));
  out.jacobian_abs_max = 0.0;
  for (std::size_t r = 0; r < static_cast<std::size_t>(m); ++r)
    for (std::size_t c = 0; c < static_cast<std::size_t>(m); ++c) {
      const double s_i = out.probabilities[window.begin + r];
      const double s_j = out.probabilities[window.begin + c];
      // s_i(1 − s_i) on the diagonal, from softmax_gradient_diagonal (1 − s_m as the sum of the
      // others, so a saturated row's diagonal is its true 1e-40, not 0). Off the diagonal 0 − s_i s_j,
      // so a masked key's entries are 0, not −0.
      const double entry = r == c ? out.diagonal[window.begin + r] : 0.0 - s_i * s_j;
      out.jacobian[r * static_cast<std::size_t>(m) + c] = static_cast<float>(entry);
      out.jacobian_abs_max = std::max(out.jacobian_abs_max, std::abs(entry));
    }
}

void fill_sweep(GradientsLab& out, const Params& params, std::span<const double> unscaled) {
  std::vector<double> scores(unscaled.size()), probabilities(unscaled.size());
  auto size_at = [&](double scale) {
    return jacobian_size_at(scale, unscaled, params.temperature, scores, probabilities);
  };

  out.sweep_scales.resize(scale_sweep_points);
  out.sweep_frobenius_norm.resize(scale_sweep_points);
  out.sweep_max_abs_entry.resize(scale_sweep_points);
  const double log_min = std::log10(ParamLimits::score_scale_min), log_max = std::log10(ParamLimits::score_scale_max);
  for (int k = 0; k < scale_sweep_points; ++k) {
    const double scale = std::pow(10.0, log_min + (log_max - log_min) * k / (scale_sweep_points - 1));
    const JacobianSize size = size_at(scale);
    const auto index = static_cast<std::size_t>(k);
    out.sweep_scales[index] = scale;
    out.sweep_frobenius_norm[index] = size.frobenius_norm;
    out.sweep_max_abs_entry[index] = size.max_abs_entry;
  }
  const auto peak = std::max_element(out.sweep_frobenius_norm.begin(), out.sweep_frobenius_norm.end());
  out.sweep_peak_norm = *peak;
  out.sweep_peak_scale = out.sweep_scales[static_cast<std::size_t>(peak - out.sweep_frobenius_norm.begin())];
  out.stall_threshold = stall_fraction * out.sweep_peak_norm;

  // The stall region is the tail of the grid below the threshold: find its first point.
  const std::vector<double>& norms = out.sweep_frobenius_norm;
  std::size_t first_below = norms.size();
  while (first_below > 0 && norms[first_below - 1] < out.stall_threshold) --first_below;
  out.has_stall = first_below < norms.size();  // the peak is never below, so first_below ≥ 1
  out.stall_scale = 0.0;
  out.stalled_now = false;
  if (!out.has_stall) return;
  // Bisection in log c between the last grid scale at or above the threshold and the first below.
  double above = out.sweep_scales[first_below - 1], below = out.sweep_scales[first_below];
  while (below / above - 1.0 > stall_bisection_relative_width) {
    const double middle = std::sqrt(above * below);
    if (size_at(middle).frobenius_norm < out.stall_threshold)
      below = middle;
    else
      above = middle;
  }
  out.stall_scale = below;
  out.stalled_now = params.score_scale >= out.stall_scale;
}

}  // namespace

double jacobian_max_abs_entry(std::span<const double> probabilities) {
  std::vector<double> diagonals(probabilities.size());
  softmax_gradient_diagonal(diagonals, probabilities);  // 1 − s_m without cancelling
  double largest = 0.0, second = 0.0, diagonal = 0.0;
  for (double d : diagonals) diagonal = std::max(diagonal, d);
  for (double s : probabilities) {
    if (s > largest) {
      second = largest;
      largest = s;
    } else if (s > second) {
      second = s;
    }
  }
  return std::max(diagonal, largest * second);
}

void evaluate_gradients_lab(GradientsLab& out, const Params& params) {
  evaluate_gradients_lab(out, params, shown_row(params));
}

void evaluate_gradients_lab(GradientsLab& out, const Params& params, const ShownRow& row) {
  out.temperature = params.temperature;
  out.score_scale = params.score_scale;
  out.scores = row.scores;
  const std::vector<double>& unscaled = row.unit_scores;
  const std::size_t n = out.scores.size();
  out.probabilities.resize(n);
  softmax(out.probabilities, out.scores, params.temperature);

  out.diagonal.resize(n);
  softmax_gradient_diagonal(out.diagonal, out.probabilities);
  fill_jacobian_block(out);

  GradientParabola parabola = sample_gradient_parabola(parabola_points);
  out.parabola_s = std::move(parabola.s);
  out.parabola_value = std::move(parabola.value);

  out.frobenius_norm = jacobian_frobenius_norm(out.probabilities);
  out.max_abs_entry = jacobian_max_abs_entry(out.probabilities);
  fill_sweep(out, params, unscaled);
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo gradients_lab_info{"gradients", "the softmax Jacobian, S(1-S), and where learning stalls",
                                        row_lab_evaluator<GradientsLab, evaluate_gradients_lab>};

}  // namespace smlab
