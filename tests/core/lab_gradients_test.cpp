// Tests of the gradients lab's numbers (core/src/labs/gradients.cpp): the Jacobian against finite
// differences, its zero row sums, the score-scale sweep against direct norms, and the stall region.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/evaluate.hpp"
#include "smlab/labs/gradients.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/softmax.hpp"
#include "lab_test_support.hpp"

namespace smlab {
namespace {

using lab_test::describe;
using lab_test::show;
using lab_test::softmax_of;

constexpr double kInf = std::numeric_limits<double>::infinity();

Params with_scores(std::vector<double> scores, double temperature = 1.0, double score_scale = 1.0) {
  Params params;
  params.scores = std::move(scores);
  params.temperature = temperature;
  params.score_scale = score_scale;
  return params;
}

GradientsLab lab_of(const Params& params) {
  GradientsLab lab;
  evaluate_gradients_lab(lab, params);
  return lab;
}

// Rows whose weights are all ≥ ~1e-3, so a finite difference resolves every entry (see below).
std::vector<Params> moderate_rows() {
  std::vector<Params> cases{with_scores({0.3, -1.2, 2.0, 0.7, -0.4}, 0.8), with_scores({1, 2, 3}),
                            with_scores({0.1, 0.1, -0.5}, 1.0, 2.0)};
  Params row;  // the default dashboard row at T = 2: N(0, 1) scores, weights ≳ e^{−3}/16
  row.temperature = 2.0;
  cases.push_back(row);
  return cases;
}

// J_ij = ∂s_i/∂z_j against a central difference in z_j with Richardson extrapolation,
// D = (4·D(h/2) − D(h))/3, whose truncation error is O(h⁴) ≈ 1e-12 at h = 1e-3. Rounding: softmax
// is accurate to ~4 ulp relative, so the difference quotient of s_i carries ~4ε·s_i/h ≈ 1e-12·s_i,
// i.e. ~1e-12/s_j relative to |J_ij| = s_i s_j: below 1e-9 for s_j ≥ 1e-3. The lab stores J as
// float (≤ 2⁻²⁴ ≈ 6e-8 relative), so 1e-7 relative is the tolerance.
TEST(GradientsLab, JacobianMatchesFiniteDifferencesOfSoftmax) {
  for (const Params& params : moderate_rows()) {
    const GradientsLab lab = lab_of(params);
    SCOPED_TRACE(describe(params));
    const std::size_t n = lab.scores.size();
    ASSERT_EQ(lab.jacobian_size, static_cast<int>(n));
    ASSERT_FALSE(lab.jacobian_capped);
    std::vector<double> logits(n);
    for (std::size_t i = 0; i < n; ++i) logits[i] = lab.scores[i] / params.temperature;
    for (std::size_t j = 0; j < n; ++j) {
      auto central = [&](double h) {
        std::vector<double> plus = logits, minus = logits;
        plus[j] += h;
        minus[j] -= h;
        const std::vector<double> up = softmax_of(plus, 1.0), down = softmax_of(minus, 1.0);
        std::vector<double> quotient(n);
        for (std::size_t i = 0; i < n; ++i) quotient[i] = (up[i] - down[i]) / (2.0 * h);
        return quotient;
      };
      const std::vector<double> coarse = central(1e-3), fine = central(5e-4);
      for (std::size_t i = 0; i < n; ++i) {
        const double reference = (4.0 * fine[i] - coarse[i]) / 3.0;
        const double entry = lab.jacobian[i * n + j];
        EXPECT_NEAR(entry, reference, 1e-7 * std::abs(reference)) << "J[" << i << "][" << j << "]";
      }
    }
  }
}

// Σ_j J_ij = s_i − s_i Σ_j s_j = 0. The cells are floats, each within 2⁻²⁴ relative, so the sum of a
// row is within Σ_j |J_ij|·2⁻²⁴ of 0 (tolerance: twice that).
TEST(GradientsLab, JacobianRowsSumToZero) {
  for (const Params& params : moderate_rows()) {
    const GradientsLab lab = lab_of(params);
    SCOPED_TRACE(describe(params));
    const auto m = static_cast<std::size_t>(lab.jacobian_size);
    for (std::size_t i = 0; i < m; ++i) {
      double sum = 0.0, magnitude = 0.0;
      for (std::size_t j = 0; j < m; ++j) {
        sum += lab.jacobian[i * m + j];
        magnitude += std::abs(lab.jacobian[i * m + j]);
      }
      EXPECT_NEAR(sum, 0.0, 2.0 * magnitude * 0x1p-24) << "row " << i;
    }
    // Symmetric (−s_i s_j = −s_j s_i, the same product), and its colour scale is its own max.
    double largest = 0.0;
    for (std::size_t i = 0; i < m; ++i)
      for (std::size_t j = 0; j < m; ++j) {
        EXPECT_EQ(lab.jacobian[i * m + j], lab.jacobian[j * m + i]);
        largest = std::max(largest, std::abs(static_cast<double>(lab.jacobian[i * m + j])));
      }
    EXPECT_NEAR(lab.jacobian_abs_max, largest, largest * 0x1p-24);
  }
}

// Longer rows show the 64×64 diagonal block around the largest weight, equal to that block of
// softmax_jacobian's full J (to float rounding, 2⁻²⁴ relative).
TEST(GradientsLab, HeatmapIsCappedAtSixtyFourAroundTheTopKey) {
  Params params;
  params.seq_len = 200;
  params.row = 17;
  const GradientsLab lab = lab_of(params);
  EXPECT_TRUE(lab.jacobian_capped);
  EXPECT_EQ(lab.row_length, 200);
  EXPECT_EQ(lab.jacobian_size, jacobian_heatmap_max_size);
  const auto first = static_cast<std::size_t>(lab.jacobian_first);
  const auto top = static_cast<std::size_t>(std::max_element(lab.probabilities.begin(), lab.probabilities.end()) -
                                            lab.probabilities.begin());
  EXPECT_LE(first, top);
  EXPECT_LT(top, first + 64);
  EXPECT_LE(first + 64, 200u);
  std::vector<double> full(200 * 200);
  softmax_jacobian(full, lab.probabilities, 1.0);
  for (std::size_t i = 0; i < 64; ++i)
    for (std::size_t j = 0; j < 64; ++j) {
      const double expected = full[(first + i) * 200 + first + j];
      EXPECT_NEAR(lab.jacobian[i * 64 + j], expected, std::abs(expected) * 0x1p-24 + 1e-300) << i << "," << j;
    }
}

// The sweep recomputes c·u (u = the row at score_scale 1) with the same operations a direct call
// uses, so every point equals jacobian_frobenius_norm(softmax(c·u/T)) exactly. Its square equals
// Σ J_ij² of the formed matrix to 1e-13 relative plus 2e-15 absolute: the closed form
// Σs² − 2Σs³ + (Σs²)² is 1 − 2 + 1 near one-hot and cancels to within a few ε (so at large c it
// reads 0 where the true norm is 1e-53; the plot cannot tell, and the 1 % stall threshold is far
// above that noise); and at
// the current scale the sweep's curve passes through the dashboard's jacobian_norm (1e-12: c·u and
// the dashboard's score differ by an ulp, amplified by at most c·|x|/T ≲ 20 in the weights).
TEST(GradientsLab, NormVersusScoreScaleMatchesDirectNorms) {
  const Params params = with_scores({0.3, -1.2, 2.0, 0.7, -0.4}, 0.8, 1.0);
  const GradientsLab lab = lab_of(params);
  SCOPED_TRACE(describe(params));
  ASSERT_EQ(lab.sweep_scales.size(), static_cast<std::size_t>(scale_sweep_points));
  EXPECT_DOUBLE_EQ(lab.sweep_scales.front(), ParamLimits::score_scale_min);
  EXPECT_DOUBLE_EQ(lab.sweep_scales.back(), ParamLimits::score_scale_max);
  const std::size_t n = params.scores.size();
  for (std::size_t k = 0; k < lab.sweep_scales.size(); ++k) {
    const double scale = lab.sweep_scales[k];
    std::vector<double> scores(n);
    for (std::size_t i = 0; i < n; ++i) scores[i] = scale * params.scores[i];
    const std::vector<double> s = softmax_of(scores, params.temperature);
    EXPECT_EQ(lab.sweep_frobenius_norm[k], jacobian_frobenius_norm(s)) << "c=" << scale;
    std::vector<double> jacobian(n * n);
    softmax_jacobian(jacobian, s, 1.0);
    double squares = 0.0, largest = 0.0;
    for (double entry : jacobian) {
      squares += entry * entry;
      largest = std::max(largest, std::abs(entry));
    }
    const double norm = lab.sweep_frobenius_norm[k];
    EXPECT_NEAR(norm * norm, squares, 1e-13 * squares + 2e-15) << "c=" << scale;
    EXPECT_NEAR(lab.sweep_max_abs_entry[k], largest, 1e-15 * largest + 1e-300) << "c=" << scale;
  }
  const Snapshot snap = evaluate(params);
  EXPECT_EQ(lab.frobenius_norm, snap.jacobian_norm);
  const auto at_one = static_cast<std::size_t>((scale_sweep_points - 1) / 2);  // c = 10⁰
  EXPECT_DOUBLE_EQ(lab.sweep_scales[at_one], 1.0);
  EXPECT_NEAR(lab.sweep_frobenius_norm[at_one], snap.jacobian_norm, 1e-12 * snap.jacobian_norm);
}

// The stall region is [stall_scale, 100] with stall_scale where ‖J‖_F crosses 1 % of its peak for
// the last time: every grid scale above it is below the threshold, the one before is not, and the
// crossing is bracketed to 1e-12 relative in c (below at stall_scale, not below just under it).
TEST(GradientsLab, StallRegionStartsWhereTheNormFallsBelowOnePercentOfItsPeak) {
  std::vector<Params> cases{with_scores({0.3, -1.2, 2.0, 0.7, -0.4}, 0.8), with_scores({1, 2, 3}, 1.0, 50.0), Params{}};
  for (const Params& params : cases) {
    const GradientsLab lab = lab_of(params);
    SCOPED_TRACE(describe(params) + " stall_scale=" + std::to_string(lab.stall_scale));
    const double peak = *std::max_element(lab.sweep_frobenius_norm.begin(), lab.sweep_frobenius_norm.end());
    EXPECT_EQ(lab.sweep_peak_norm, peak);
    EXPECT_EQ(lab.stall_threshold, stall_fraction * peak);
    ASSERT_TRUE(lab.has_stall);
    std::size_t first_above_boundary = lab.sweep_scales.size();
    for (std::size_t k = 0; k < lab.sweep_scales.size(); ++k)
      if (lab.sweep_scales[k] >= lab.stall_scale) {
        first_above_boundary = std::min(first_above_boundary, k);
        EXPECT_LT(lab.sweep_frobenius_norm[k], lab.stall_threshold) << "c=" << lab.sweep_scales[k];
      }
    ASSERT_GT(first_above_boundary, 0u);
    EXPECT_GE(lab.sweep_frobenius_norm[first_above_boundary - 1], lab.stall_threshold);

    std::vector<double> unscaled;
    std::vector<double> row;
    selected_row_scores(row, unscaled, params);
    auto norm_at = [&](double scale) {
      std::vector<double> scores(unscaled.size());
      for (std::size_t i = 0; i < scores.size(); ++i) scores[i] = scale * unscaled[i];
      return jacobian_frobenius_norm(softmax_of(scores, params.temperature));
    };
    EXPECT_LT(norm_at(lab.stall_scale), lab.stall_threshold);
    EXPECT_GE(norm_at(lab.stall_scale * (1.0 - 2e-12)), lab.stall_threshold);
    EXPECT_EQ(lab.stalled_now, params.score_scale >= lab.stall_scale);
  }
}

// When two top scores tie, growing the scale leads to a two-hot (1/2, 1/2), whose ‖J‖_F is 1/2, not
// 0: learning never stalls, and the lab says so instead of marking a region.
TEST(GradientsLab, NoStallWhenTheTopScoresTie) {
  const GradientsLab lab = lab_of(with_scores({2.0, 2.0, 0.0}));
  EXPECT_FALSE(lab.has_stall);
  EXPECT_FALSE(lab.stalled_now);
  EXPECT_NEAR(lab.sweep_frobenius_norm.back(), 0.5, 1e-15);
}

// The live points sit on the parabola: the diagonal is s_i(1 − s_i) from softmax_gradient_diagonal,
// and the sampled parabola peaks at 1/4 at S = 1/2. Max |J_ij| equals the brute-force maximum.
TEST(GradientsLab, DiagonalPointsLieOnTheParabola) {
  const Params params = with_scores({0.3, -1.2, 2.0, 0.7, -0.4, -kInf}, 0.8);
  const GradientsLab lab = lab_of(params);
  std::vector<double> expected(lab.probabilities.size());
  softmax_gradient_diagonal(expected, lab.probabilities);
  EXPECT_EQ(lab.diagonal, expected);
  EXPECT_EQ(lab.parabola_s.size(), lab.parabola_value.size());
  EXPECT_EQ(lab.parabola_value[lab.parabola_s.size() / 2], 0.25);
  std::vector<double> jacobian(lab.probabilities.size() * lab.probabilities.size());
  softmax_jacobian(jacobian, lab.probabilities, 1.0);
  double largest = 0.0;
  for (double entry : jacobian) largest = std::max(largest, std::abs(entry));
  EXPECT_NEAR(lab.max_abs_entry, largest, 1e-15 * largest);
  EXPECT_EQ(jacobian_max_abs_entry(std::vector<double>{1.0}), 0.0);
}

}  // namespace
}  // namespace smlab
