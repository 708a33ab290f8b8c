// The numbers behind the scaling lab (see views.hpp): the distribution of q·k at the current d_k,
// unscaled and divided by √d_k, against the closed forms N(0, d_k σ⁴) and N(0, σ⁴).
// (Entropy, max weight and Jacobian norm versus d_k come from the dashboard's DkSweep, which the
// app refines progressively; the lab does not duplicate it.)
#pragma once

#include <cstdint>
#include <vector>

#include "smlab/params.hpp"

namespace smlab {

// Draws of (q, k) per evaluation. Each is O(1) (QkSampling::norm_shortcut: q·k = σ²·√χ²_{d_k}·z,
// exact in distribution), so 20,000 cost about a millisecond at any d_k, and put the empirical
// variance within about ±1 % (its relative SE is √(2/20,000) = 1 %) of the closed form.
inline constexpr std::int64_t scaling_histogram_trials = 20'000;
inline constexpr int scaling_histogram_bins = 64;  // over ±4 closed-form std: 1/8 std per bin
inline constexpr double scaling_histogram_range_in_std = 4.0;
inline constexpr int scaling_curve_points = 201;  // samples of each overlaid density

// One variant of q·k (raw or ÷√d_k) at the current d_k.
struct ScalingHistogram {
  double closed_form_variance = 0.0;  // d_k σ⁴ (unscaled) or σ⁴ (scaled): qk_variance()
  double lower = 0.0, upper = 0.0;    // ±4 closed-form standard deviations, fixed before any draw
  double bin_width = 0.0;
  std::vector<double> bin_centers;  // one per bin
  // Density, not counts: count_b / (trials · bin_width), so Σ density·width is the fraction of
  // draws inside [lower, upper) and the bars are comparable with the normal densities.
  std::vector<double> density;
  double outside_fraction = 0.0;                 // (below + above) / trials: ≈ 6·10⁻⁵ for a normal at ±4 std
  double mean = 0.0, mean_standard_error = 0.0;  // of q·k: → 0
  // Var(q·k) estimated as the mean of (q·k)², exact since E[q·k] = 0, with that mean's own SE.
  double variance = 0.0, variance_standard_error = 0.0;
  // N(0, closed_form_variance) at curve_x, evenly spaced over [lower, upper]: the overlay.
  std::vector<double> curve_x, normal_density;
};

struct ScalingLab {
  int key_dim = 64;    // Params::key_dim
  double sigma = 1.0;  // Params::qk_norm: entries of q and k ~ N(0, σ²)
  std::uint64_t seed = 42;
  std::int64_t trials = 0;    // draws behind each histogram (scaling_histogram_trials)
  ScalingHistogram unscaled;  // q·k ~ N(0, d_k σ⁴) (approximately normal; exactly so as d_k grows)
  ScalingHistogram scaled;    // q·k/√d_k ~ N(0, σ⁴)
  // N(0, d_k σ⁴) at scaled.curve_x: the unscaled spread drawn on the scaled histogram's axis, so
  // one plot shows how much wider the logits would be without ÷√d_k (√d_k times).
  std::vector<double> unscaled_density_on_scaled_axis;
};

// Pure and deterministic: the same Params give the same ScalingLab (seeded by Params::seed, σ =
// Params::qk_norm, d_k = Params::key_dim). About a millisecond at any Params.
void evaluate_scaling_lab(ScalingLab& out, const Params& params);

// The N(0, variance) density at x: exp(−x²/(2 variance)) / √(2π variance).
double normal_density(double x, double variance);

}  // namespace smlab
