// Tests of the scaling lab's numbers (core/src/labs/scaling.cpp): the q·k histograms are densities,
// their variances match the closed forms d_k σ⁴ and σ⁴, the overlays are normal densities, and
// the lab is deterministic per seed.
#include "smlab/labs/scaling.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "smlab/montecarlo.hpp"

namespace smlab {
namespace {

Params params_for(int key_dim, double sigma, std::uint64_t seed = 42) {
  Params params;
  params.key_dim = key_dim;
  params.qk_norm = sigma;
  params.seed = seed;
  return params;
}

ScalingLab lab_for(const Params& params) {
  EXPECT_TRUE(validate(params).ok()) << validate(params).error().message;
  ScalingLab lab;
  evaluate_scaling_lab(lab, params);
  return lab;
}

std::string describe(const Params& params) {
  return "d_k=" + std::to_string(params.key_dim) + " sigma=" + std::to_string(params.qk_norm) +
         " seed=" + std::to_string(params.seed);
}

// ∫ over [x_0, x_last] of a sampled curve by the trapezoid rule.
double trapezoid(const std::vector<double>& x, const std::vector<double>& y) {
  double area = 0.0;
  for (std::size_t k = 1; k < x.size(); ++k) area += 0.5 * (y[k] + y[k - 1]) * (x[k] - x[k - 1]);
  return area;
}

const Params kCases[] = {params_for(1, 1.0), params_for(64, 1.0), params_for(64, 2.0), params_for(4096, 1.0),
                         params_for(300, 0.5, 7)};

TEST(ScalingLab, HistogramMassInsideAndOutsideSumsToOne) {
  // Σ density_b · width = (draws inside the range) / trials, and the rest is outside_fraction.
  // Tolerance 1e-12: only the rounding of 64 quotients and their sum.
  for (const Params& params : kCases) {
    const ScalingLab lab = lab_for(params);
    for (const ScalingHistogram* h : {&lab.unscaled, &lab.scaled}) {
      double mass = 0.0;
      for (double d : h->density) mass += d * h->bin_width;
      EXPECT_NEAR(mass + h->outside_fraction, 1.0, 1e-12) << describe(params);
      // Beyond ±4 std a normal has 6.3e-5 of its mass; 20,000 draws put ~1 there. 1e-3 allows
      // 20 such draws: far beyond chance for a near-normal q·k, so a wrong range would show.
      // Small d_k is excluded: q·k is then a sum of few products of normals, heavy-tailed
      // (excess kurtosis 6/d_k; at d_k = 1, P(|q k| > 4σ²) ≈ 0.7 %).
      if (params.key_dim >= 64) {
        EXPECT_LT(h->outside_fraction, 1e-3) << describe(params);
      }
      EXPECT_EQ(h->density.size(), static_cast<std::size_t>(scaling_histogram_bins));
      EXPECT_EQ(h->bin_centers.size(), h->density.size());
    }
  }
}

TEST(ScalingLab, EmpiricalVarianceWithinFourStandardErrorsOfTheClosedForm) {
  // Var(q·k) = d_k σ⁴ and Var(q·k/√d_k) = σ⁴ (montecarlo.hpp). 4 SE: a false failure has
  // probability 6e-5 per check, and the draws are fixed per seed, so a pass is reproducible.
  for (const Params& params : kCases) {
    const ScalingLab lab = lab_for(params);
    const double sigma4 = std::pow(params.qk_norm, 4);
    EXPECT_DOUBLE_EQ(lab.unscaled.closed_form_variance, params.key_dim * sigma4);
    EXPECT_DOUBLE_EQ(lab.scaled.closed_form_variance, sigma4);
    for (const ScalingHistogram* h : {&lab.unscaled, &lab.scaled}) {
      EXPECT_GT(h->variance_standard_error, 0.0);
      EXPECT_LE(std::abs(h->variance - h->closed_form_variance), 4.0 * h->variance_standard_error)
          << describe(params) << ": variance " << h->variance << " ± " << h->variance_standard_error << ", closed form "
          << h->closed_form_variance;
      EXPECT_LE(std::abs(h->mean), 4.0 * h->mean_standard_error) << describe(params) << ": mean " << h->mean;
    }
  }
}

TEST(ScalingLab, OverlaysAreNormalDensitiesThatIntegrateToOneOverTheirRange) {
  // Over ±4 std a normal density integrates to erf(4/√2) = 0.9999367. The trapezoid rule on 201
  // points (1/25 std apart) is accurate to ~1e-6 here (h²/12 · |f'| at the ends ≈ 1e-7).
  const double inside_four_std = std::erf(4.0 / std::sqrt(2.0));
  for (const Params& params : kCases) {
    const ScalingLab lab = lab_for(params);
    for (const ScalingHistogram* h : {&lab.unscaled, &lab.scaled}) {
      ASSERT_EQ(h->curve_x.size(), static_cast<std::size_t>(scaling_curve_points));
      EXPECT_EQ(h->curve_x.front(), h->lower);
      EXPECT_EQ(h->curve_x.back(), h->upper);
      EXPECT_NEAR(trapezoid(h->curve_x, h->normal_density), inside_four_std, 1e-6) << describe(params);
    }
    // The wide N(0, d_k σ⁴) drawn on the scaled axis covers only ±4/√d_k of its std: its area is
    // erf(4/√(2 d_k)), all of it (≈ 1) only at d_k = 1.
    const double expected = std::erf(4.0 / std::sqrt(2.0 * params.key_dim));
    EXPECT_NEAR(trapezoid(lab.scaled.curve_x, lab.unscaled_density_on_scaled_axis), expected, 1e-6) << describe(params);
  }
}

TEST(ScalingLab, HistogramDensityFollowsTheNormalCurve) {
  // The bars should trace the overlay: at the centre bin, the density of a normal averaged over
  // one bin (≈ the value at the centre, within 0.1 % for a 1/8-std bin), with the binomial SE
  // sqrt(p(1−p)/N)/width. 5 SE leaves no room for a factor-of-√d_k mistake. Only for d_k ≥ 64:
  // q·k is normal only in the limit (CLT); its excess kurtosis 6/d_k raises the centre density
  // by about (6/d_k)/8 — 1.2 % at d_k = 64, well inside 5 SE (15 %), but at d_k = 1 the
  // product of two normals has a log singularity at 0.
  for (const Params& params : kCases) {
    if (params.key_dim < 64) continue;
    const ScalingLab lab = lab_for(params);
    for (const ScalingHistogram* h : {&lab.unscaled, &lab.scaled}) {
      const std::size_t centre = h->density.size() / 2;  // bin [0, width)
      const double expected = normal_density(h->bin_centers[centre], h->closed_form_variance);
      const double p = expected * h->bin_width;
      const double se = std::sqrt(p * (1.0 - p) / static_cast<double>(lab.trials)) / h->bin_width;
      EXPECT_NEAR(h->density[centre], expected, 5.0 * se) << describe(params);
    }
  }
}

TEST(ScalingLab, AtKeyDimOneScaledEqualsUnscaled) {
  const ScalingLab lab = lab_for(params_for(1, 1.5));
  EXPECT_EQ(lab.scaled.density, lab.unscaled.density);
  EXPECT_EQ(lab.scaled.variance, lab.unscaled.variance);
}

TEST(ScalingLab, IsDeterministicForASeedAndChangesWithIt) {
  const Params params = params_for(64, 1.0, 11);
  const ScalingLab first = lab_for(params), second = lab_for(params);
  EXPECT_EQ(first.unscaled.density, second.unscaled.density);
  EXPECT_EQ(first.scaled.density, second.scaled.density);
  EXPECT_EQ(first.scaled.variance, second.scaled.variance);
  EXPECT_EQ(first.trials, scaling_histogram_trials);
  const ScalingLab other = lab_for(params_for(64, 1.0, 12));
  EXPECT_NE(first.scaled.density, other.scaled.density);
}

TEST(ScalingLab, MatchesADirectQkStatisticsRun) {
  // The lab is the core's QkStatistics for this one d_k, with the documented settings.
  const Params params = params_for(128, 1.3, 5);
  const ScalingLab lab = lab_for(params);
  QkStatisticsConfig config;
  config.key_dims = {128};
  config.sigma = 1.3;
  config.seed = 5;
  config.bins = scaling_histogram_bins;
  config.range_in_std = scaling_histogram_range_in_std;
  QkStatistics statistics = make_qk_statistics(config);
  add_qk_trials(statistics, scaling_histogram_trials);
  const QkMoments& unscaled = statistics.points.front().unscaled;
  EXPECT_EQ(lab.unscaled.variance, unscaled.square.mean);
  EXPECT_EQ(lab.unscaled.lower, unscaled.histogram.lower);
  for (std::size_t b = 0; b < lab.unscaled.density.size(); ++b)
    EXPECT_DOUBLE_EQ(lab.unscaled.density[b] * lab.unscaled.bin_width * scaling_histogram_trials,
                     static_cast<double>(unscaled.histogram.counts[b]));
}

}  // namespace
}  // namespace smlab
