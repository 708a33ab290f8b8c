// The numbers behind the gradients lab: the softmax Jacobian of the row, the S(1−S) diagonal with
// the live points, and how the gradient's size falls as the score scale saturates the softmax.
#pragma once

#include <span>
#include <vector>

#include "smlab/params.hpp"
#include "smlab/shown_row.hpp"

namespace smlab {

// Every gradient in this lab is taken with respect to the logits z = x/T, as the dashboard's
// jacobian_norm is: J = ∂s/∂z = diag(s) − s sᵀ (softmax.hpp derives it). With respect to the
// scores x it is J/T, and with respect to the unscaled scores it is J·score_scale/T.

// The heatmap shows at most this many rows and columns of J: for longer rows the diagonal block
// of the keys around the largest score (display_window), where the weights are. 64² cells stay
// legible at ~400 px and cost nothing; the full J at L = 4096 would be 128 MiB.
inline constexpr int jacobian_heatmap_max_size = 64;

// The score-scale sweep: log-spaced over the whole score_scale slider, 0.01 … 100.
inline constexpr int scale_sweep_points = 161;  // 40 per decade

// Learning is said to stall where ‖J‖_F < stall_fraction · (its maximum over the sweep): there a
// gradient step is at least 100× smaller than at the best scale, so with the same learning rate
// the scores need 100× as many steps to move as far. As the scale grows the softmax saturates
// towards one-hot, s_i(1 − s_i) → 0 for every entry and J → 0: the region is the large-scale end.
inline constexpr double stall_fraction = 0.01;

// max_ij |J_ij| of J = diag(s) − s sᵀ without forming J: the diagonal entries are s_i(1 − s_i) and
// the off-diagonal ones −s_i s_j, largest in size for the two largest weights, so
//   max |J_ij| = max( max_i s_i(1 − s_i),  s_(1) s_(2) ),  s_(1) ≥ s_(2) the two largest.
// (For n = 1, J = 0.) Shapes: n ≥ 1 probabilities.
double jacobian_max_abs_entry(std::span<const double> probabilities);

struct GradientsLab {
  std::vector<double> scores;         // the dashboard's row (Snapshot::shown), length n
  std::vector<double> probabilities;  // softmax(scores / T), length n
  double temperature = 1.0, score_scale = 1.0;

  // J = diag(s) − s sᵀ restricted to rows and columns first … first + m − 1, m = min(n,
  // jacobian_heatmap_max_size), first = display_window(scores, m).begin (0 unless capped); row-major,
  // rounded to float for the heatmap texture. jacobian_abs_max = max |J_ij| over the block (> 0
  // unless the block is all zero), so the colour scale is [−abs_max, abs_max] with 0 white.
  int row_length = 0;            // n
  int jacobian_size = 0;         // m
  int jacobian_first = 0;        // index of the block's first row and column in the full J
  bool jacobian_capped = false;  // m < n
  std::vector<float> jacobian;
  double jacobian_abs_max = 0.0;

  // The diagonal ∂s_i/∂z_i = s_i(1 − s_i) at the live points (length n), and the parabola
  // S(1 − S) sampled at 101 points S = 0, 0.01, … 1 for the curve they sit on.
  std::vector<double> diagonal;
  std::vector<double> parabola_s, parabola_value;

  // The whole-row numbers at the current Params.
  double frobenius_norm = 0.0;  // ‖J‖_F (jacobian_frobenius_norm; the dashboard's jacobian_norm)
  double max_abs_entry = 0.0;   // max |J_ij| over all n×n entries

  // The sweep: for each score scale c on the grid the row is c · unscaled row (the row at
  // score_scale = 1: ShownRow::unit_scores), its softmax at the current T, and its J's size.
  std::vector<double> sweep_scales, sweep_frobenius_norm, sweep_max_abs_entry;
  double sweep_peak_norm = 0.0;   // max of sweep_frobenius_norm
  double sweep_peak_scale = 0.0;  // where it is (the first, if several)
  double stall_threshold = 0.0;   // stall_fraction · sweep_peak_norm
  // The stall region is [stall_scale, 100]: stall_scale is where ‖J‖_F last falls through the
  // threshold, found between the last grid scale at or above it and the next (below it, as is
  // every later grid scale) by bisection in log c, to 1e-12 relative. has_stall is false when ‖J‖_F
  // does not end below the threshold at c = 100 (e.g. tied top scores keep J ≠ 0 at any scale).
  bool has_stall = false;
  double stall_scale = 0.0;
  bool stalled_now = false;  // the current score_scale is in the stall region
};

// Pure and deterministic: the same Params and row give the same GradientsLab. `row` is the shown
// row (Snapshot::shown); the form without it makes shown_row(params). Requires validate(params).
// Cost: 161 softmaxes of length n and ~45 more for the bisection (≈ 0.8 M exps at n = 4096, a few
// ms); the heatmap is at most 64² cells.
void evaluate_gradients_lab(GradientsLab& out, const Params& params, const ShownRow& row);
void evaluate_gradients_lab(GradientsLab& out, const Params& params);

}  // namespace smlab
