// Softmax reference path: worked examples, properties, limits and non-finite inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numeric>
#include <vector>

#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

std::vector<double> softmax_of(const std::vector<double>& scores, double temperature = 1.0) {
  std::vector<double> out(scores.size());
  softmax(out, scores, temperature);
  return out;
}

// The classic worked example, to the four decimals textbooks print.
TEST(Softmax, WorkedExampleOneTwoThree) {
  const auto p = softmax_of({1, 2, 3});
  EXPECT_NEAR(p[0], 0.0900, 5e-5);
  EXPECT_NEAR(p[1], 0.2447, 5e-5);
  EXPECT_NEAR(p[2], 0.6652, 5e-5);
  // And exactly: e^{i} / (e + e² + e³) in double, relative 1e-15 (a few roundings).
  const double denominator = std::exp(1.0) + std::exp(2.0) + std::exp(3.0);
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(p[i], std::exp(i + 1.0) / denominator, 1e-15) << "i=" << i;
}

// The max trick: [1000, 1001, 1002] overflows naively but gives the [1,2,3] answer.
TEST(Softmax, LargeScoresGiveSameAsShifted) {
  const auto big = softmax_of({1000, 1001, 1002});
  const auto small = softmax_of({1, 2, 3});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(big[i], small[i], 1e-15) << "i=" << i;
}

TEST(Softmax, TemperatureWorkedValues) {
  // T = 0.1: logits 10, 20, 30 → nearly one-hot.
  const auto cold = softmax_of({1, 2, 3}, 0.1);
  EXPECT_NEAR(cold[2], 1.0 / (1.0 + std::exp(-10.0) + std::exp(-20.0)), 1e-15);
  EXPECT_NEAR(cold[2], 0.999955, 1e-6);
  // T = 10: logits 0.1, 0.2, 0.3 → near uniform: 0.3006, 0.3322, 0.3672.
  const auto hot = softmax_of({1, 2, 3}, 10.0);
  EXPECT_NEAR(hot[0], 0.3006, 5e-5);
  EXPECT_NEAR(hot[1], 0.3322, 5e-5);
  EXPECT_NEAR(hot[2], 0.3672, 5e-5);
}

TEST(Softmax, RowsSumToOneAndShiftInvariant) {
  NormalGenerator rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + trial % 50;
    const double magnitude = std::pow(10.0, trial % 7 - 2);
    std::vector<double> scores(static_cast<std::size_t>(n));
    for (double& s : scores) s = magnitude * rng.next();
    const auto p = softmax_of(scores);
    EXPECT_NEAR(std::accumulate(p.begin(), p.end(), 0.0), 1.0, 1e-14) << "n=" << n << " magnitude=" << magnitude;
    const double shift = 37.25 * magnitude;  // a shift that is exact in binary relative to the scale
    auto shifted = scores;
    for (double& s : shifted) s += shift;
    const auto q = softmax_of(shifted);
    for (int i = 0; i < n; ++i)
      EXPECT_NEAR(q[i], p[i], 1e-12 * std::max(1.0, magnitude)) << "n=" << n << " i=" << i << " shift=" << shift;
  }
}

TEST(Softmax, MaskedEntriesGetExactlyZero) {
  const double inf = std::numeric_limits<double>::infinity();
  const auto p = softmax_of({1.0, -inf, 3.0});
  EXPECT_EQ(p[1], 0.0);
  EXPECT_NEAR(p[0] + p[2], 1.0, 1e-15);
}

TEST(Softmax, AllMaskedRowIsReportedNotSilent) {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> p(2);
  EXPECT_FALSE(softmax(p, std::vector<double>{-inf, -inf}));
  EXPECT_TRUE(std::isnan(p[0]) && std::isnan(p[1]));
}

TEST(Softmax, NanInputPoisonsTheRow) {
  std::vector<double> p(3);
  EXPECT_FALSE(softmax(p, std::vector<double>{1.0, std::nan(""), 2.0}));
  for (double v : p) EXPECT_TRUE(std::isnan(v));
}

TEST(Softmax, HugeMagnitudesStayFinite) {
  const auto p = softmax_of({1e300, -1e300, 1e300}, 0.01);
  EXPECT_DOUBLE_EQ(p[0], 0.5);
  EXPECT_EQ(p[1], 0.0);
  EXPECT_DOUBLE_EQ(p[2], 0.5);
}

TEST(Softmax, LimitsOfTemperature) {
  const auto cold = softmax_of({0.3, 0.2, 0.1}, 1e-6);  // → hardmax
  EXPECT_EQ(cold[0], 1.0);
  EXPECT_EQ(cold[1], 0.0);
  const auto hot = softmax_of({0.3, 0.2, 0.1}, 1e9);  // → uniform
  for (double v : hot) EXPECT_NEAR(v, 1.0 / 3.0, 1e-9);
}

TEST(Entropy, MonotoneInTemperature) {
  const std::vector<double> scores{0.5, -1.0, 2.0, 0.0, 1.25};
  double previous = -1.0;
  for (double t = 0.01; t < 100.0; t *= 1.25) {
    const double h = entropy_nats(softmax_of(scores, t));
    EXPECT_GE(h, previous - 1e-15) << "T=" << t;
    previous = h;
  }
  EXPECT_NEAR(previous, std::log(5.0), 1e-3);  // close to uniform at T≈100
}

TEST(Entropy, UniformAndOneHot) {
  EXPECT_NEAR(entropy_nats(std::vector<double>(8, 0.125)), std::log(8.0), 1e-15);
  EXPECT_EQ(entropy_nats(std::vector<double>{0.0, 1.0, 0.0}), 0.0);
}

TEST(LogSumExp, MatchesDirectFormulaAndAvoidsOverflow) {
  const std::vector<double> scores{1.0, 2.0, 3.0};
  EXPECT_NEAR(logsumexp(scores), std::log(std::exp(1.0) + std::exp(2.0) + std::exp(3.0)), 1e-15);
  EXPECT_NEAR(logsumexp(std::vector<double>{1000, 1001, 1002}), 999.0 + logsumexp(scores), 1e-12);
}

// The gradient S(1−S) is the Jacobian's diagonal: check it and the Frobenius norm
// against central finite differences of the softmax itself. Step h = 1e-5 gives
// truncation error O(h²) ≈ 1e-10 and rounding O(ε/h) ≈ 1e-11: tolerance 1e-8.
TEST(Gradient, JacobianMatchesFiniteDifferences) {
  const std::vector<double> scores{0.3, -1.2, 2.0, 0.7};
  const auto s = softmax_of(scores);
  const std::size_t n = scores.size();
  double frobenius_squared = 0.0;
  std::vector<double> diagonal(n);
  softmax_gradient_diagonal(diagonal, s);
  for (std::size_t j = 0; j < n; ++j) {
    const double h = 1e-5;
    auto plus = scores, minus = scores;
    plus[j] += h;
    minus[j] -= h;
    const auto sp = softmax_of(plus), sm = softmax_of(minus);
    for (std::size_t i = 0; i < n; ++i) {
      const double numeric = (sp[i] - sm[i]) / (2 * h);
      const double analytic = (i == j ? s[i] : 0.0) - s[i] * s[j];
      EXPECT_NEAR(numeric, analytic, 1e-8) << "i=" << i << " j=" << j;
      frobenius_squared += numeric * numeric;
    }
    EXPECT_NEAR(diagonal[j], s[j] * (1 - s[j]), 1e-16);
  }
  EXPECT_NEAR(jacobian_frobenius_norm(s), std::sqrt(frobenius_squared), 1e-8);
}

TEST(Gradient, DiagonalPeaksAtQuarter) {
  std::vector<double> diagonal(2);
  softmax_gradient_diagonal(diagonal, std::vector<double>{0.5, 0.5});
  EXPECT_EQ(diagonal[0], 0.25);
}

TEST(SoftmaxRows, FloatRowsMatchDoubleReference) {
  const int rows = 3, cols = 5;
  std::vector<float> matrix{1, 2, 3, 4, 5, -1, 0, 1, 0, -1, 100, 100, 100, 100, 101};
  const double scale = 0.5;
  std::vector<float> copy = matrix;
  softmax_rows_inplace(matrix, rows, cols, scale);
  for (int r = 0; r < rows; ++r) {
    std::vector<double> scores(cols);
    for (int c = 0; c < cols; ++c) scores[c] = copy[r * cols + c] * scale;
    const auto p = softmax_of(scores);
    for (int c = 0; c < cols; ++c) EXPECT_NEAR(matrix[r * cols + c], p[c], 2e-7) << "r=" << r << " c=" << c;
  }
}

}  // namespace
}  // namespace smlab
