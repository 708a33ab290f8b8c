// Tests of the gradients back to Q and K (core/src/labs/qk_gradients.cpp): ∂L/∂q and ∂L/∂K against
// finite differences for both losses, scaled and unscaled, and the d_k sweep's saturation story.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "smlab/labs/qk_gradients.hpp"
#include "smlab/random.hpp"

namespace smlab {
namespace {

DenseMatrix random_matrix(int rows, int cols, std::uint64_t seed) {
  DenseMatrix m{rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))};
  NormalGenerator normal(seed);
  for (double& x : m.values) x = normal.next();
  return m;
}

// Every coordinate of q and K against a Richardson central difference (h = 1e-3, 5e-4: truncation
// O(h⁴) ≈ 1e-12·|L⁽⁵⁾|; rounding ≈ ε·|L|/h ≈ 1e-12 for |L| ≲ 5): 1e-7 relative to the gradient's
// largest entry plus 1e-10 absolute.
TEST(QkGradients, QueryAndKeyGradientsMatchFiniteDifferences) {
  for (QkLoss loss : {QkLoss::target_key, QkLoss::output_probe})
    for (bool scaled : {true, false})
      for (int dim : {1, 3, 8}) {
        const int length = 5;
        const DenseMatrix query_row = random_matrix(1, dim, 100 + static_cast<std::uint64_t>(dim));
        std::vector<double> query = query_row.values;
        DenseMatrix keys = random_matrix(length, dim, 200 + static_cast<std::uint64_t>(dim));
        const DenseMatrix values = random_matrix(length, 4, 300);
        const std::vector<double> probe = random_matrix(1, 4, 400).values;
        QkGradientInputs in{query, &keys, &values, probe, 2, loss, scaled};
        std::vector<double> query_gradient(static_cast<std::size_t>(dim));
        DenseMatrix key_gradient;
        qk_loss_and_gradients(query_gradient, key_gradient, in);
        double largest = 0.0;
        for (double g : query_gradient) largest = std::max(largest, std::abs(g));
        for (double g : key_gradient.values) largest = std::max(largest, std::abs(g));
        const double tolerance = 1e-7 * largest + 1e-10;
        SCOPED_TRACE("loss=" + std::to_string(static_cast<int>(loss)) + " scaled=" + std::to_string(scaled) +
                     " d_k=" + std::to_string(dim));
        auto derivative = [&](double& coordinate) {
          const double saved = coordinate;
          auto at = [&](double d) {
            coordinate = saved + d;
            const double value = qk_loss(in);
            coordinate = saved;
            return value;
          };
          auto central = [&](double h) { return (at(h) - at(-h)) / (2 * h); };
          return (4 * central(5e-4) - central(1e-3)) / 3;
        };
        for (int c = 0; c < dim; ++c) {
          // `in.query` is a span over `query`, so moving query[c] moves the loss's input.
          EXPECT_NEAR(query_gradient[static_cast<std::size_t>(c)], derivative(query[static_cast<std::size_t>(c)]),
                      tolerance)
              << "q" << c;
        }
        for (int j = 0; j < length; ++j)
          for (int c = 0; c < dim; ++c)
            EXPECT_NEAR(key_gradient(j, c), derivative(keys.at(j, c)), tolerance) << "k" << j << "," << c;
      }
}

// The sweep (64 trials per d_k, L = 16). Scaled scores keep a fixed spread (std 1): the softmax's
// saturation (mean max weight) and the gradients stay in a band across d_k. Unscaled scores spread
// as √d_k and the softmax saturates. Then the two losses part ways, and the lab shows both:
//   output probe (through the softmax Jacobian): the typical (median) gradient collapses like e^{−gap}
//     (measured 7e-8 at d_k = 4096), while the mean stays O(1), carried by the rare near-ties;
//   target key (−ln a_t, a_t ≈ 0 for a key that is not the argmax): ∂L/∂z = a − y does not vanish,
//     and with c = 1 and ‖k‖ ≈ √d_k the gradient grows like √d_k (measured ~90 at 4096).
// Bounds are loose on purpose: these are Monte Carlo means and medians of 64 trials.
TEST(QkGradients, UnscaledScoresSaturateAndTheProbeGradientVanishes) {
  QkGradientSweep sweep;
  qk_gradient_sweep(sweep, QkLoss::output_probe, 16, 64, 42);
  ASSERT_EQ(sweep.key_dims.size(), std::size(qk_sweep_dims));
  const std::size_t last = sweep.key_dims.size() - 1;  // d_k = 4096
  const std::size_t at64 = 6;
  ASSERT_EQ(sweep.key_dims[at64], 64);
  EXPECT_GT(sweep.unscaled_max_weight[last], 0.95);
  EXPECT_LT(sweep.scaled_max_weight[last], 0.6);
  EXPECT_NEAR(sweep.scaled_max_weight[last], sweep.scaled_max_weight[at64], 0.1);
  // Scaled: a band; unscaled typical gradient: gone.
  for (std::size_t k = 0; k <= last; ++k) {
    EXPECT_GT(sweep.scaled_key_norm_median[k], 0.2) << sweep.key_dims[k];
    EXPECT_LT(sweep.scaled_key_norm_median[k], 2.0) << sweep.key_dims[k];
    EXPECT_TRUE(std::isfinite(sweep.unscaled_query_norm[k]));
  }
  EXPECT_LT(sweep.unscaled_key_norm_median[last], 1e-4 * sweep.scaled_key_norm_median[last]);
  EXPECT_LT(sweep.unscaled_query_norm_median[last], 1e-4 * sweep.scaled_query_norm_median[last]);
  // The mean is not the typical row: near-ties keep it far above the median.
  EXPECT_GT(sweep.unscaled_key_norm[last], 1e3 * sweep.unscaled_key_norm_median[last]);
  // d_k = 1: scaled and unscaled are the same computation (c = 1).
  EXPECT_DOUBLE_EQ(sweep.scaled_query_norm[0], sweep.unscaled_query_norm[0]);
}

TEST(QkGradients, UnscaledTargetKeyGradientGrowsLikeSqrtDk) {
  QkGradientSweep sweep;
  qk_gradient_sweep(sweep, QkLoss::target_key, 16, 64, 42);
  const std::size_t last = sweep.key_dims.size() - 1;
  for (std::size_t k = 2; k <= last; ++k) {  // d_k ≥ 4
    EXPECT_NEAR(sweep.scaled_query_norm_median[k], 1.0, 0.4) << sweep.key_dims[k];
    // ‖∂L/∂q‖ ≈ ‖k_argmax − k_t‖ ≈ √(2 d_k) once saturated; within a factor 2 of √d_k from d_k = 16.
    if (sweep.key_dims[k] >= 16) {
      const double root = std::sqrt(static_cast<double>(sweep.key_dims[k]));
      EXPECT_GT(sweep.unscaled_query_norm_median[k], 0.5 * root) << sweep.key_dims[k];
      EXPECT_LT(sweep.unscaled_query_norm_median[k], 2.0 * root) << sweep.key_dims[k];
    }
  }
  EXPECT_GT(sweep.unscaled_loss[last], 10 * sweep.scaled_loss[last]);
}

// The sweep is deterministic (parallel trials keyed by index).
TEST(QkGradients, SweepIsDeterministic) {
  QkGradientSweep a, b;
  qk_gradient_sweep(a, QkLoss::target_key, 8, 16, 3);
  qk_gradient_sweep(b, QkLoss::target_key, 8, 16, 3);
  EXPECT_EQ(a.scaled_query_norm, b.scaled_query_norm);
  EXPECT_EQ(a.unscaled_key_norm, b.unscaled_key_norm);
}

}  // namespace
}  // namespace smlab
