// The scaling lab's computations: Monte Carlo histograms of q·k and q·k/√d_k at the current
// d_k, with the closed-form normal densities they approach (see scaling.hpp).
#include "smlab/labs/scaling.hpp"

#include <cmath>
#include <numbers>

#include "smlab/montecarlo.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

void fill_histogram(ScalingHistogram& out, const QkMoments& moments, double closed_form_variance, std::int64_t trials) {
  const Histogram& histogram = moments.histogram;
  out.closed_form_variance = closed_form_variance;
  out.lower = histogram.lower;
  out.upper = histogram.upper;
  out.bin_width = histogram.bin_width();
  const auto bins = histogram.counts.size();
  out.bin_centers.resize(bins);
  out.density.resize(bins);
  const double draws = static_cast<double>(trials);
  for (std::size_t b = 0; b < bins; ++b) {
    out.bin_centers[b] = histogram.bin_lower_edge(static_cast<int>(b)) + 0.5 * out.bin_width;
    out.density[b] = static_cast<double>(histogram.counts[b]) / (draws * out.bin_width);
  }
  out.outside_fraction = static_cast<double>(histogram.below + histogram.above) / draws;
  out.mean = moments.value.mean;
  out.mean_standard_error = moments.value.standard_error();
  out.variance = moments.square.mean;
  out.variance_standard_error = moments.square.standard_error();
  out.curve_x.resize(scaling_curve_points);
  out.normal_density.resize(scaling_curve_points);
  for (int k = 0; k < scaling_curve_points; ++k) {
    const double x = out.lower + (out.upper - out.lower) * k / (scaling_curve_points - 1);
    out.curve_x[static_cast<std::size_t>(k)] = x;
    out.normal_density[static_cast<std::size_t>(k)] = normal_density(x, closed_form_variance);
  }
}

}  // namespace

double normal_density(double x, double variance) {
  return std::exp(-0.5 * x * x / variance) / std::sqrt(2.0 * std::numbers::pi * variance);
}

void evaluate_scaling_lab(ScalingLab& out, const Params& params) {
  out.key_dim = params.key_dim;
  out.sigma = params.qk_norm;
  out.seed = params.seed;
  out.trials = scaling_histogram_trials;

  QkStatisticsConfig config;
  config.key_dims = {params.key_dim};
  config.sigma = params.qk_norm;
  config.seed = params.seed;
  config.bins = scaling_histogram_bins;
  config.range_in_std = scaling_histogram_range_in_std;
  config.sampling = QkSampling::norm_shortcut;
  QkStatistics statistics = make_qk_statistics(std::move(config));
  add_qk_trials(statistics, scaling_histogram_trials);

  const QkPoint& point = statistics.points.front();
  fill_histogram(out.unscaled, point.unscaled, qk_variance(params.key_dim, params.qk_norm, false), statistics.trials);
  fill_histogram(out.scaled, point.scaled, qk_variance(params.key_dim, params.qk_norm, true), statistics.trials);

  out.unscaled_density_on_scaled_axis.resize(out.scaled.curve_x.size());
  for (std::size_t k = 0; k < out.scaled.curve_x.size(); ++k)
    out.unscaled_density_on_scaled_axis[k] = normal_density(out.scaled.curve_x[k], out.unscaled.closed_form_variance);
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo scaling_lab_info{
    "scaling", "the variance of q.k grows with d_k: histograms, entropy, max weight and gradient norm vs d_k",
    lab_evaluator<ScalingLab, evaluate_scaling_lab>};

}  // namespace smlab
