// Tests of the geometry lab (core/src/labs/geometry.cpp): q·k = ‖q‖‖k‖cos θ against long double,
// cosine attention's ε and its gradient (finite differences), and tanh saturation of additive
// attention against the quadrature prediction, with and without LayerNorm.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "smlab/labs/geometry.hpp"
#include "smlab/random.hpp"

namespace smlab {
namespace {

// ‖q‖, ‖k‖, cos θ and q·k in long double; double results within a few ulp: 1e-14 relative
// (norms and dots of d ≤ 16 terms, the angle from atan2 of two such quantities).
TEST(GeometryLab, DotIsNormTimesNormTimesCosine) {
  NormalGenerator normal(5);
  for (int dim : {2, 3, 16})
    for (int trial = 0; trial < 20; ++trial) {
      std::vector<double> q(static_cast<std::size_t>(dim)), keys(static_cast<std::size_t>(dim) * 3);
      for (double& x : q) x = normal.next();
      for (double& x : keys) x = normal.next() * (1 + trial);
      Alignment a;
      alignment(a, q, keys);
      long double qn = 0;
      for (double x : q) qn += static_cast<long double>(x) * x;
      qn = std::sqrt(qn);
      EXPECT_NEAR(a.query_norm, static_cast<double>(qn), 1e-15 * static_cast<double>(qn));
      for (int j = 0; j < 3; ++j) {
        long double kn = 0, dot = 0;
        for (int c = 0; c < dim; ++c) {
          const long double k = keys[static_cast<std::size_t>(j * dim + c)];
          kn += k * k;
          dot += k * q[static_cast<std::size_t>(c)];
        }
        kn = std::sqrt(kn);
        const long double cosine = dot / (qn * kn);
        const auto js = static_cast<std::size_t>(j);
        EXPECT_NEAR(a.dots[js], static_cast<double>(dot), 1e-14 * static_cast<double>(qn * kn));
        EXPECT_NEAR(a.key_norms[js], static_cast<double>(kn), 1e-15 * static_cast<double>(kn));
        EXPECT_NEAR(a.cosines[js], static_cast<double>(cosine), 1e-14);
        EXPECT_NEAR(a.query_norm * a.key_norms[js] * a.cosines[js], a.dots[js], 1e-14 * static_cast<double>(qn * kn));
        EXPECT_NEAR(std::cos(a.angles[js]), a.cosines[js], 1e-14);
      }
    }
}

// Near θ = 0, acos(cos θ) loses half its digits (cos θ = 1 − θ²/2 rounds at θ ≈ 1e-8); the
// atan2 with the Lagrange cross term keeps θ to ~1 ulp relative.
TEST(GeometryLab, SmallAnglesStayAccurate) {
  for (double theta : {1e-3, 1e-6, 1e-9, 1e-12}) {
    const std::vector<double> q{2.0, 0.0}, key{std::cos(theta), std::sin(theta)};
    Alignment a;
    alignment(a, q, key);
    EXPECT_NEAR(a.angles[0], theta, 1e-15 * theta) << theta;
  }
  Alignment zero;
  const std::vector<double> q{0.0, 0.0}, key{1.0, 0.0};
  alignment(zero, q, key);
  EXPECT_EQ(zero.cosines[0], 0.0);
  EXPECT_NEAR(zero.angles[0], std::numbers::pi / 2, 1e-15);
}

// The 2-D demo: moving a key's norm scales its score; turning it to θ = π/2 zeroes it.
TEST(GeometryLab, NormAndAngleEachMoveTheScore) {
  GeometrySettings settings;
  settings.key_norms = {1.0, 2.0, 1.0};
  settings.key_angles = {settings.query_angle, settings.query_angle, settings.query_angle + std::numbers::pi / 2};
  GeometryLab lab;
  evaluate_geometry_lab(lab, settings);
  EXPECT_NEAR(lab.alignment.dots[0], settings.query_norm, 1e-15 * settings.query_norm);
  EXPECT_NEAR(lab.alignment.dots[1], 2.0 * lab.alignment.dots[0], 1e-15 * settings.query_norm);
  EXPECT_NEAR(lab.alignment.dots[2], 0.0, 1e-15 * settings.query_norm);
  EXPECT_GT(lab.alignment.weights[1], lab.alignment.weights[0]);
  EXPECT_GT(lab.alignment.weights[0], lab.alignment.weights[2]);
}

// ∂cos_ε/∂q against a Richardson central difference with h = 1e-4·max(‖q‖, ε)... away from the
// kink at ‖q‖ = ε (the max() is not differentiable there): 1e-6 relative to the gradient's norm.
TEST(GeometryLab, CosineGradientMatchesFiniteDifferences) {
  const std::vector<double> key{0.6, -0.8, 0.3};
  for (double epsilon : {0.0, 1e-3, 0.5})
    for (double r : {1e-2, 0.1, 2.0, 50.0}) {
      if (epsilon > 0 && std::abs(r - epsilon) < 0.2 * epsilon) continue;
      std::vector<double> q{0.3 * r, 0.9 * r, -0.316 * r}, gradient(3);
      cosine_score_gradient(gradient, q, key, epsilon);
      const double norm = std::sqrt(gradient[0] * gradient[0] + gradient[1] * gradient[1] + gradient[2] * gradient[2]);
      const double h0 = 1e-4 * std::max(r, epsilon);
      for (std::size_t c = 0; c < 3; ++c) {
        auto at = [&](double d) {
          std::vector<double> moved = q;
          moved[c] += d;
          return cosine_score(moved, key, epsilon);
        };
        auto central = [&](double h) { return (at(h) - at(-h)) / (2 * h); };
        EXPECT_NEAR(gradient[c], (4 * central(h0 / 2) - central(h0)) / 3, 1e-6 * norm)
            << "eps=" << epsilon << " r=" << r << " c=" << c;
      }
    }
}

// Naive: the score is the same cosine at any r > 0 but ‖∇‖ = sin θ / r → ∞; with ε the gradient
// is capped at 1/ε (a unit key) and the score goes to 0 continuously below ε.
TEST(GeometryLab, CosineEpsilonCapsTheBlowUp) {
  GeometrySettings settings;
  settings.cosine_epsilon = 1e-3;
  GeometryLab lab;
  evaluate_geometry_lab(lab, settings);
  const double theta = std::abs(settings.query_angle - settings.key_angles[0]);
  for (std::size_t k = 0; k < lab.sweep_query_norms.size(); ++k) {
    const double r = lab.sweep_query_norms[k];
    EXPECT_NEAR(lab.sweep_cosine_naive[k], std::cos(theta), 1e-14) << r;
    EXPECT_NEAR(lab.sweep_gradient_naive[k], std::sin(theta) / r, 1e-12 * std::sin(theta) / r) << r;
    EXPECT_LE(lab.sweep_gradient_epsilon[k], 1.0 / settings.cosine_epsilon * (1 + 1e-12)) << r;
    if (r < settings.cosine_epsilon)
      EXPECT_NEAR(lab.sweep_cosine_epsilon[k], r / settings.cosine_epsilon * std::cos(theta), 1e-14) << r;
    else
      EXPECT_NEAR(lab.sweep_cosine_epsilon[k], lab.sweep_cosine_naive[k], 1e-14) << r;
  }
  EXPECT_GT(lab.sweep_gradient_naive.front(), 1e7);  // sin θ / 1e-8
  const std::vector<double> origin{0.0, 0.0}, key{1.0, 0.0};
  EXPECT_TRUE(std::isnan(cosine_score(origin, key, 0.0)));
  EXPECT_EQ(cosine_score(origin, key, 1e-3), 0.0);
}

// E[sech²(sZ)]: 1 − s² + O(s⁴) for small s; 2/(s√(2π)) + O(s⁻³) for large s (∫sech² = 2).
TEST(GeometryLab, TanhDerivativeExpectationMatchesItsLimits) {
  EXPECT_NEAR(tanh_derivative_expectation(1e-3), 1.0 - 1e-6, 1e-11);
  const double s = 1000.0;
  EXPECT_NEAR(tanh_derivative_expectation(s), 2.0 / (s * std::sqrt(2 * std::numbers::pi)), 1e-6 * 2.0 / s);
  // Monotone decreasing in s.
  double previous = 1.0;
  for (double x = 0.1; x < 100; x *= 1.5) {
    const double e = tanh_derivative_expectation(x);
    EXPECT_LT(e, previous);
    previous = e;
  }
}

// Measured (seeded 16×16 pairs × d_a = 32) against the prediction E[1 − tanh²(√2σ Z)]. The
// pre-activations share W and each q, k across pairs, so the effective sample is ~2·16·32 = 1024:
// the mean derivative's Monte Carlo spread is ≤ ~0.3/√1024 ≈ 0.01; 0.05 absolute is 5σ.
TEST(GeometryLab, AdditiveSaturationMatchesPredictionAndLayerNormPreventsIt) {
  GeometryLab lab;
  evaluate_geometry_lab(lab, GeometrySettings{});
  for (std::size_t k = 0; k < lab.sweep_sigmas.size(); ++k) {
    EXPECT_NEAR(lab.plain_mean_derivative[k], lab.predicted_plain_derivative[k], 0.05) << lab.sweep_sigmas[k];
    EXPECT_NEAR(lab.normed_mean_derivative[k], lab.predicted_normed_derivative[k], 0.05) << lab.sweep_sigmas[k];
  }
  // σ = 100: almost every unit saturated without LayerNorm, few with it.
  EXPECT_LT(lab.plain_mean_derivative.back(), 0.02);
  EXPECT_GT(lab.plain_saturated_fraction.back(), 0.9);
  EXPECT_GT(lab.normed_mean_derivative.back(), 0.3);
  EXPECT_LT(lab.normed_saturated_fraction.back(), 0.2);
}

}  // namespace
}  // namespace smlab
