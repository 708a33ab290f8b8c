// Tests of the loss lab (core/src/labs/loss.cpp): cross-entropy against long double, its gradient
// s − y against finite differences, and the naive log(softmax) underflowing where log-softmax does not.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "smlab/labs/loss.hpp"
#include "lab_test_support.hpp"

namespace smlab {
namespace {

using lab_test::show;

long double reference_cross_entropy(const std::vector<double>& logits, int target, double t) {
  long double top = -1e4000L;
  for (double x : logits) top = std::max(top, static_cast<long double>(x) / t);
  long double sum = 0;
  for (double x : logits) sum += std::exp(static_cast<long double>(x) / t - top);
  return top + std::log(sum) - static_cast<long double>(logits[static_cast<std::size_t>(target)]) / t;
}

// log_softmax is ≤ ~4 ulp relative (softmax.hpp): 1e-14 relative to max(L, 1), the reference's
// own error being ~1e-18.
TEST(LossLab, CrossEntropyMatchesLongDouble) {
  const std::vector<std::vector<double>> rows{{2.0, 1.0, 0.1}, {0.0, 1000.0}, {-3, 7, 7, 1}, {1e-3, 2e-3, 0, -1e-3}};
  for (const auto& row : rows)
    for (int target = 0; target < static_cast<int>(row.size()); ++target)
      for (double t : {0.1, 1.0, 7.0}) {
        const double loss = cross_entropy(row, target, t);
        const long double reference = reference_cross_entropy(row, target, t);
        EXPECT_NEAR(loss, static_cast<double>(reference), 1e-14 * std::max(1.0L, reference))
            << show(row) << " target=" << target << " T=" << t;
      }
}

// ∂L/∂x = (s − y)/T against a Richardson central difference (h = 1e-4, 5e-5, truncation O(h⁴)
// ≈ 1e-16, rounding ε·L/h ≈ 1e-11): 1e-8 absolute, far below the entries' size 1/T.
TEST(LossLab, GradientIsSoftmaxMinusTargetAndMatchesFiniteDifferences) {
  const std::vector<double> logits{2.0, 1.0, 0.1, -1.0, 0.5};
  for (double t : {0.5, 1.0, 3.0})
    for (int target = 0; target < 5; ++target) {
      std::vector<double> gradient(5);
      cross_entropy_gradient(gradient, logits, target, t);
      const std::vector<double> s = lab_test::softmax_of(logits, t);
      double sum = 0.0;
      for (std::size_t i = 0; i < 5; ++i) {
        const double y = static_cast<int>(i) == target ? 1.0 : 0.0;
        EXPECT_NEAR(gradient[i], (s[i] - y) / t, 4e-16 / t) << i;
        auto at = [&](double d) {
          std::vector<double> x = logits;
          x[i] += d;
          return cross_entropy(x, target, t);
        };
        auto central = [&](double h) { return (at(h) - at(-h)) / (2 * h); };
        EXPECT_NEAR(gradient[i], (4 * central(5e-5) - central(1e-4)) / 3, 1e-8) << "T=" << t << " i=" << i;
        sum += gradient[i];
      }
      EXPECT_NEAR(sum, 0.0, 1e-15 / t);
    }
}

// log-softmax of [0, −gap] at entry 1 is −gap − log1p(e^{−gap}); naive ln(softmax) is −inf once
// e^{−gap} underflows (gap > ~745), finite before.
TEST(LossLab, NaiveLogSoftmaxUnderflowsWhereTheStableOneDoesNot) {
  for (double gap : {10.0, 700.0, 740.0, 746.0, 800.0, 1e5}) {
    LossSettings settings;
    settings.gap = gap;
    LossLab lab;
    evaluate_loss_lab(lab, settings);
    EXPECT_NEAR(lab.demo_stable, -gap - std::log1p(std::exp(-gap)), 4e-16 * gap) << gap;
    if (gap > 745.2)
      EXPECT_EQ(lab.demo_naive, -std::numeric_limits<double>::infinity()) << gap;
    else
      EXPECT_TRUE(std::isfinite(lab.demo_naive)) << gap;
  }
  LossSettings settings;
  settings.logits = {0.0, -1000.0, 3.0};
  LossLab lab;
  evaluate_loss_lab(lab, settings);
  EXPECT_EQ(lab.naive_infinite_count, 1);
  EXPECT_TRUE(std::isfinite(lab.log_softmax[1]));
  EXPECT_NEAR(lab.log_softmax[1], -1003.0 - std::log1p(std::exp(-3.0)), 4e-16 * 1003);  // −1000 − 3 − ln(1 + e⁻³)
}

// Along the target's logit the loss falls monotonically (softplus-like) and its gradient s_t − 1
// rises from ≈ −1/T to ≈ 0; the two are consistent (a finite difference of the sweep's loss).
TEST(LossLab, SweepIsMonotoneAndItsGradientIsTheSlope) {
  LossSettings settings;
  for (double t : {0.5, 1.0, 2.0}) {
    settings.temperature = t;
    LossLab lab;
    evaluate_loss_lab(lab, settings);
    const auto& x = lab.sweep_target_logit;
    for (std::size_t k = 1; k < x.size(); ++k) {
      EXPECT_LT(lab.sweep_loss[k], lab.sweep_loss[k - 1]) << k;
      EXPECT_GE(lab.sweep_target_gradient[k], lab.sweep_target_gradient[k - 1]) << k;
      EXPECT_GE(lab.sweep_target_gradient[k], -1.0 / t);
      EXPECT_LE(lab.sweep_target_gradient[k], 0.0);
    }
    // Midpoint slope vs the mean of the two end gradients: the secant's error is ~h²·L'''/12 with
    // h = 0.1 and |L'''| ≤ 1/(6√3 T³): ≤ 1e-4/T³.
    for (std::size_t k = 1; k < x.size(); ++k) {
      const double slope = (lab.sweep_loss[k] - lab.sweep_loss[k - 1]) / (x[k] - x[k - 1]);
      EXPECT_NEAR(slope, 0.5 * (lab.sweep_target_gradient[k] + lab.sweep_target_gradient[k - 1]),
                  1e-4 / (t * t * t) + 1e-12);
    }
  }
}

}  // namespace
}  // namespace smlab
