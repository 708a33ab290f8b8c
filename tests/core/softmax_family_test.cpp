// The softmax family beyond the stable kernel: naive, online, log-softmax, hardmax, linear,
// sigmoid, ReLU, sparsemax, entmax; statistics; gradients against finite differences; limits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/normalizers.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
using Row = std::vector<double>;

std::string show(const Row& row) {
  std::ostringstream out;
  out.precision(17);
  out << "[";
  for (std::size_t i = 0; i < row.size(); ++i) out << (i ? ", " : "") << row[i];
  out << "]";
  return out.str();
}

// Runs a span kernel (weights, scores, args...) and returns its weights.
template <class Kernel, class... Args>
Row run(Kernel kernel, const Row& scores, Args... args) {
  Row out(scores.size());
  kernel(out, scores, args...);
  return out;
}

Row softmax_of(const Row& scores, double temperature = 1.0) {
  Row out(scores.size());
  softmax(out, scores, temperature);
  return out;
}

Row normal_row(std::size_t n, double magnitude, std::uint64_t seed) {
  NormalGenerator rng(seed);
  Row row(n);
  for (double& x : row) x = magnitude * rng.next();
  return row;
}

double sum_of(const Row& row) { return std::accumulate(row.begin(), row.end(), 0.0); }

// ─── Naive and online softmax ───────────────────────────────────────────────────────────────

// The DESIGN §8 worked example: the naive kernel overflows (inf/inf) where the stable one does not.
TEST(NaiveSoftmax, OverflowsToNanWhereStableDoesNot) {
  const Row scores{1000, 1001, 1002};
  Row naive(3);
  EXPECT_FALSE(naive_softmax(naive, scores));
  for (double p : naive) EXPECT_TRUE(std::isnan(p)) << show(naive);
  const Row stable = softmax_of(scores), small = softmax_of({1, 2, 3});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(stable[i], small[i], 1e-15) << "i=" << i;
  // All far below zero: every exp underflows to 0, and 0/0 is NaN too.
  EXPECT_FALSE(naive_softmax(naive, Row{-1000, -1001, -1002}));
  EXPECT_TRUE(std::isnan(naive[0]));
  // Every exp finite (e^709 = 8.2e307) but their sum is not: the weights are x/inf = 0.
  Row crowded(3);
  EXPECT_FALSE(naive_softmax(crowded, Row{709, 709, 709}));
  EXPECT_EQ(crowded[0], 0.0);
  EXPECT_EQ(normalize(Normalizer::naive_softmax, Row{709, 709, 709}).issue, NormalizerIssue::exp_overflow);
}

// Where nothing overflows the naive kernel is the same function: relative 1e-15 (a few roundings;
// it computes exp(x/T) where the stable one computes exp((x − m)/T)).
TEST(NaiveSoftmax, AgreesWithStableInRange) {
  const Row scores{0.5, -1.25, 2.0, 3.5};
  for (double temperature : {0.5, 1.0, 4.0}) {
    const Row naive = run(naive_softmax, scores, temperature), stable = softmax_of(scores, temperature);
    for (std::size_t i = 0; i < scores.size(); ++i)
      EXPECT_NEAR(naive[i], stable[i], 1e-15 * stable[i] + 1e-300) << "T=" << temperature << " i=" << i;
  }
}

// Online = stable to 1e-12 relative. The online kernel is the plain textbook one: it rounds
// (x − m)/T before exp, an error of |x − m|/T·ε relative in the weight (1.5e-13 at 700), and
// the normaliser picks up an ulp or so per new max (~7 for 1000 random scores).
TEST(OnlineSoftmax, MatchesStableOnRandomRows) {
  for (std::uint64_t seed = 1; seed <= 30; ++seed) {
    const std::size_t n = 1 + seed * 37 % 1000;
    const double magnitude = std::pow(10.0, static_cast<double>(seed % 6) - 2.0);
    const double temperature = seed % 3 == 0 ? 0.3 : (seed % 3 == 1 ? 1.0 : 7.0);
    const Row scores = normal_row(n, magnitude, seed);
    const Row online = run(online_softmax, scores, temperature), stable = softmax_of(scores, temperature);
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_NEAR(online[i], stable[i], 1e-12 * stable[i] + 1e-300)
          << "n=" << n << " magnitude=" << magnitude << " T=" << temperature << " i=" << i;
  }
}

TEST(OnlineSoftmax, WorkedExampleAndMaskedPrefix) {
  const Row p = run(online_softmax, Row{1, 2, 3}, 1.0);
  EXPECT_NEAR(p[0], 0.0900, 5e-5);
  EXPECT_NEAR(p[1], 0.2447, 5e-5);
  EXPECT_NEAR(p[2], 0.6652, 5e-5);
  // A masked prefix must not produce −inf − (−inf) = NaN.
  const Row masked = run(online_softmax, Row{-kInf, -kInf, 1, 2, 3}, 1.0);
  EXPECT_EQ(masked[0], 0.0);
  EXPECT_NEAR(masked[4], p[2], 1e-15);
  // Increasing scores: a new max at every step, the worst case for rescaling.
  Row increasing(200);
  for (std::size_t i = 0; i < increasing.size(); ++i) increasing[i] = 0.25 * static_cast<double>(i);
  const Row online = run(online_softmax, increasing, 1.0), stable = softmax_of(increasing);
  for (std::size_t i = 0; i < increasing.size(); ++i) EXPECT_NEAR(online[i], stable[i], 1e-13 * stable[i]) << i;
}

// ─── Non-finite and extreme inputs, every softmax variant ──────────────────────────────────

// The conventions of softmax.hpp, checked for each kernel that follows them.
TEST(SoftmaxConventions, NanAndAllMaskedAreReportedNotSilent) {
  const Row with_nan{1.0, std::nan(""), 2.0}, all_masked{-kInf, -kInf};
  for (const Row& scores : {with_nan, all_masked}) {
    Row out(scores.size());
    EXPECT_FALSE(softmax(out, scores)) << show(scores);
    EXPECT_TRUE(std::isnan(out[0])) << show(scores);
    EXPECT_FALSE(online_softmax(out, scores)) << show(scores);
    EXPECT_TRUE(std::isnan(out[0])) << show(scores);
    EXPECT_FALSE(log_softmax(out, scores)) << show(scores);
    EXPECT_TRUE(std::isnan(out[0])) << show(scores);
    EXPECT_FALSE(hardmax(out, scores)) << show(scores);
    EXPECT_FALSE(sparsemax(out, scores)) << show(scores);
    EXPECT_FALSE(entmax(out, scores, 1.5)) << show(scores);
    EXPECT_TRUE(std::isnan(out[1])) << show(scores);
  }
  EXPECT_TRUE(std::isnan(logsumexp(with_nan)));
  EXPECT_EQ(logsumexp(all_masked), -kInf);
}

// +inf is the limit of a score growing without bound: the +inf entries share the weight.
TEST(SoftmaxConventions, PlusInfinitySharesTheWeight) {
  const Row scores{kInf, 1.0, kInf, -kInf};
  const Row expected{0.5, 0.0, 0.5, 0.0};
  EXPECT_EQ(softmax_of(scores), expected);
  EXPECT_EQ(run(online_softmax, scores, 1.0), expected);
  EXPECT_EQ(run(sparsemax, scores, 1.0), expected);
  EXPECT_EQ(run(entmax, scores, 1.5, 1.0), expected);
  EXPECT_EQ(run(hardmax, scores), expected);
  const Row logs = run(log_softmax, scores, 1.0);
  EXPECT_EQ(logs[0], -std::log(2.0));
  EXPECT_EQ(logs[1], -kInf);
  EXPECT_EQ(logsumexp(scores), kInf);
}

// T → 0 tends to hardmax (ties split evenly) with no NaN, down to the smallest positive double;
// T → ∞ tends to uniform over the unmasked entries, up to T = +inf.
TEST(SoftmaxConventions, TemperatureLimits) {
  const Row scores{0.3, 0.2, 0.3, -kInf, -5.0};
  const Row hard = run(hardmax, scores);
  EXPECT_EQ(hard, (Row{0.5, 0.0, 0.5, 0.0, 0.0}));
  for (double cold : {1e-4, 1e-10, 1e-300, std::numeric_limits<double>::denorm_min()}) {
    EXPECT_EQ(softmax_of(scores, cold), hard) << "T=" << cold;
    EXPECT_EQ(run(online_softmax, scores, cold), hard) << "T=" << cold;
    EXPECT_EQ(run(sparsemax, scores, cold), hard) << "T=" << cold;
    EXPECT_EQ(run(entmax, scores, 1.5, cold), hard) << "T=" << cold;
    const Row logs = run(log_softmax, scores, cold);
    EXPECT_EQ(logs[0], -std::log(2.0)) << "T=" << cold;
    EXPECT_FALSE(std::isnan(logs[1])) << "T=" << cold;
  }
  for (double hot : {1e12, 1e300, kInf}) {
    // Logits within 5.3/T of each other: each weight within ~5.3/T of 1/4 (plus rounding).
    const double tolerance = std::max(10.0 / hot, 1e-15);
    for (const Row& p : {softmax_of(scores, hot), run(online_softmax, scores, hot), run(sparsemax, scores, hot),
                         run(entmax, scores, 1.5, hot)}) {
      for (std::size_t i : {0u, 1u, 2u, 4u}) EXPECT_NEAR(p[i], 0.25, tolerance) << "T=" << hot << " i=" << i;
      EXPECT_EQ(p[3], 0.0) << "T=" << hot;
    }
  }
}

// ±1e300 (and ±1.7e308, whose difference overflows) stay finite on the stable paths.
TEST(SoftmaxConventions, HugeMagnitudesDoNotOverflow) {
  for (const Row& scores : {Row{1e300, -1e300, 1e300}, Row{1.7e308, -1.7e308, 1.7e308}}) {
    for (double temperature : {1e-3, 1.0, 1e3}) {
      const Row expected{0.5, 0.0, 0.5};
      EXPECT_EQ(softmax_of(scores, temperature), expected) << show(scores) << " T=" << temperature;
      EXPECT_EQ(run(online_softmax, scores, temperature), expected) << show(scores) << " T=" << temperature;
      EXPECT_EQ(run(sparsemax, scores, temperature), expected) << show(scores) << " T=" << temperature;
      const Row logs = run(log_softmax, scores, temperature);
      EXPECT_EQ(logs[0], -std::log(2.0)) << show(scores) << " T=" << temperature;
      // ℓ_1 = −(x_0 − x_1)/T, −inf where that is beyond the doubles (1.7e308 at T ≤ 1).
      const double expected_log = scores[1] / temperature - scores[0] / temperature;
      if (std::isinf(expected_log)) {
        EXPECT_EQ(logs[1], expected_log) << show(scores) << " T=" << temperature;
      } else {
        EXPECT_NEAR(logs[1], expected_log, 1e-15 * std::abs(expected_log)) << show(scores) << " T=" << temperature;
      }
      EXPECT_TRUE(std::isfinite(logsumexp(scores, temperature)) || temperature < 1.0) << show(scores);
    }
  }
}

// ─── Log-softmax ────────────────────────────────────────────────────────────────────────────

// ℓ = log softmax where softmax is representable (1e-15 absolute: |ℓ| ≤ 40 here, a few ulp), and
// finite where it is not: a score 1000 below the max has ℓ ≈ −1000, not log 0.
TEST(LogSoftmax, IsLogOfSoftmaxAndFiniteWhereSoftmaxUnderflows) {
  const Row scores = normal_row(50, 8.0, 3);
  const Row logs = run(log_softmax, scores, 1.0), p = softmax_of(scores);
  for (std::size_t i = 0; i < scores.size(); ++i) EXPECT_NEAR(logs[i], std::log(p[i]), 1e-13) << "i=" << i;
  const Row far = run(log_softmax, Row{0.0, -1000.0}, 1.0);
  EXPECT_EQ(far[1], -1000.0);  // −1000 − log1p(e^−1000) = −1000 exactly in double
  EXPECT_EQ(softmax_of({0.0, -1000.0})[1], 0.0);
}

// ─── Hardmax, linear, sigmoid, ReLU ─────────────────────────────────────────────────────────

TEST(Hardmax, TiesSplitEvenlyAndArgmaxTakesTheFirst) {
  EXPECT_EQ(run(hardmax, Row{1, 3, 3, 2}), (Row{0.0, 0.5, 0.5, 0.0}));
  EXPECT_EQ(run(hardmax, Row{5, 5, 5, 5}), (Row{0.25, 0.25, 0.25, 0.25}));
  EXPECT_EQ(argmax(Row{1, 3, 3, 2}), 1u);
  EXPECT_EQ(argmax(Row{1, std::nan(""), 3}), 3u);  // none: n
  EXPECT_EQ(argmax(Row{-kInf, -kInf}), 2u);
  EXPECT_EQ(argmax(Row{-kInf, -7.0}), 1u);
}

TEST(LinearNormalize, DistributionOnlyForNonNegativeScores) {
  const NormalizerResult plain = normalize(Normalizer::linear, Row{1, 2, 1});
  EXPECT_EQ(plain.weights, (Row{0.25, 0.5, 0.25}));
  EXPECT_TRUE(plain.is_distribution()) << plain.problem;
  // Negative scores: defined, sums to 1, but negative weights and one above 1.
  const NormalizerResult mixed = normalize(Normalizer::linear, Row{1, -2, 3});
  EXPECT_EQ(mixed.weights, (Row{0.5, -1.0, 1.5}));
  EXPECT_TRUE(mixed.defined && mixed.sums_to_one && mixed.has_negative);
  EXPECT_EQ(mixed.issue, NormalizerIssue::negative_weights) << mixed.problem;
  // All negative: positive weights, but −3 outranks −1.
  const NormalizerResult reversed = normalize(Normalizer::linear, Row{-1, -3});
  EXPECT_EQ(reversed.weights, (Row{0.25, 0.75}));
  EXPECT_EQ(reversed.issue, NormalizerIssue::reversed_order) << reversed.problem;
  // Σx = 0 and infinities: undefined, reported, NaN weights — no silent ±inf.
  const NormalizerResult zero = normalize(Normalizer::linear, Row{1, -1});
  EXPECT_FALSE(zero.defined);
  EXPECT_TRUE(std::isnan(zero.weights[0]));
  EXPECT_EQ(zero.issue, NormalizerIssue::zero_sum) << zero.problem;
  EXPECT_EQ(normalize(Normalizer::linear, Row{kInf, 1}).issue, NormalizerIssue::infinite_score);
}

// σ(x_i/T) per entry: each in [0, 1], sum anything. Accurate in the tails (relative 1e-15).
TEST(SigmoidNormalize, DoesNotSumToOne) {
  const NormalizerResult flat = normalize(Normalizer::sigmoid, Row{0, 0, 0});
  EXPECT_EQ(flat.weights, (Row{0.5, 0.5, 0.5}));
  EXPECT_DOUBLE_EQ(flat.sum, 1.5);
  EXPECT_FALSE(flat.sums_to_one);
  EXPECT_EQ(flat.issue, NormalizerIssue::does_not_sum_to_one);
  EXPECT_NE(flat.problem.find("1.5"), std::string::npos) << flat.problem;
  const Row tails = run(sigmoid_normalize, Row{-30.0, 30.0, 1000.0, -1000.0, kInf, -kInf}, 1.0);
  EXPECT_NEAR(tails[0], 1.0 / (1.0 + std::exp(30.0)), 1e-15 * tails[0]);
  EXPECT_EQ(tails[2], 1.0);
  EXPECT_EQ(tails[4], 1.0);
  EXPECT_EQ(tails[5], 0.0);
  EXPECT_NEAR(run(sigmoid_normalize, Row{2.0}, 4.0)[0], 1.0 / (1.0 + std::exp(-0.5)), 1e-16);
}

TEST(ReluNormalize, ExactZerosAndAllNonPositiveReported) {
  const NormalizerResult r = normalize(Normalizer::relu, Row{2, -1, 2, 0, -kInf});
  EXPECT_EQ(r.weights, (Row{0.5, 0.0, 0.5, 0.0, 0.0}));
  EXPECT_EQ(r.exact_zeros, 3);
  EXPECT_TRUE(r.is_distribution()) << r.problem;
  const NormalizerResult none = normalize(Normalizer::relu, Row{-2, 0, -kInf});
  EXPECT_FALSE(none.defined);
  EXPECT_EQ(none.issue, NormalizerIssue::no_positive_score) << none.problem;
}

// ─── Sparsemax ──────────────────────────────────────────────────────────────────────────────

// Worked by hand: z = [1, 0.5, 0] → k = 2 (1 + 2·0.5 > 1.5, 1 + 3·0 ≤ 1.5), τ = (1.5 − 1)/2 = 0.25.
TEST(Sparsemax, WorkedExamples) {
  EXPECT_EQ(run(sparsemax, Row{1.0, 0.5, 0.0}, 1.0), (Row{0.75, 0.25, 0.0}));
  EXPECT_EQ(run(sparsemax, Row{3.0, 0.0}, 1.0), (Row{1.0, 0.0}));      // gap ≥ 1: one-hot
  EXPECT_EQ(run(sparsemax, Row{3.0, 0.0}, 4.0), (Row{0.875, 0.125}));  // z = [0.75, 0], τ = −0.125
  const Row flat = run(sparsemax, Row{2.0, 2.0, 2.0, 2.0}, 1.0);
  for (double p : flat) EXPECT_EQ(p, 0.25);
}

// An independent reference: bisection on τ for Σ max(z_i − τ, 0) = 1 (the projection's
// defining equation), 200 halvings. Agreement to 1e-14 absolute (weights ≤ 1, a few roundings).
Row sparsemax_by_bisection(const Row& scores, double temperature) {
  const double max_score = *std::max_element(scores.begin(), scores.end());
  double low = max_score / temperature - 1.0, high = max_score / temperature;
  for (int step = 0; step < 200; ++step) {
    const double middle = 0.5 * (low + high);
    double total = 0.0;
    for (double x : scores) total += std::max(x / temperature - middle, 0.0);
    (total > 1.0 ? low : high) = middle;
  }
  Row p(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) p[i] = std::max(scores[i] / temperature - high, 0.0);
  return p;
}

TEST(Sparsemax, SumsToOneHasExactZerosAndMatchesBisection) {
  for (std::uint64_t seed = 1; seed <= 40; ++seed) {
    const std::size_t n = 2 + seed * 13 % 300;
    const double temperature = seed % 2 ? 1.0 : 0.25;
    const Row scores = normal_row(n, 1.0, 100 + seed);
    const Row p = run(sparsemax, scores, temperature), reference = sparsemax_by_bisection(scores, temperature);
    EXPECT_NEAR(sum_of(p), 1.0, 1e-14) << "n=" << n << " seed=" << seed;
    EXPECT_GT(std::count(p.begin(), p.end(), 0.0), 0) << "n=" << n << " seed=" << seed;
    for (std::size_t i = 0; i < n; ++i) {
      ASSERT_GE(p[i], 0.0) << "i=" << i;
      ASSERT_NEAR(p[i], reference[i], 1e-14) << "n=" << n << " seed=" << seed << " i=" << i;
    }
  }
}

// ─── α-entmax ───────────────────────────────────────────────────────────────────────────────

// The endpoints are the kernels themselves, bit for bit.
TEST(Entmax, EndpointsAreSoftmaxAndSparsemaxExactly) {
  const Row scores = normal_row(40, 1.5, 9);
  EXPECT_EQ(run(entmax, scores, 2.0, 0.7), run(sparsemax, scores, 0.7));
  EXPECT_EQ(run(entmax, scores, 1.0, 0.7), softmax_of(scores, 0.7));
}

// The bisection path converges to both endpoints. α = 2 − 1e-9 vs sparsemax: the weights move by
// O(α' − α) ≈ 1e-9 (times log-sized factors), bar 1e-7. α = 1.001 vs softmax: entmax differs from
// softmax at first order in α − 1 (log p_i = z_i + t − (α−1)(z_i + t)²/2 + …), so with z spread
// over ~±6 the weights move by ~(α − 1)·(a few tens) relative; measured 7.7e-4 absolute for this
// row, bar 5e-3. α = 1 + 1e-9 must be within 1e-7 of softmax: no loss of accuracy as the
// exponent 1/(α−1) grows to 1e9 (the log1p form of the kernel).
TEST(Entmax, ApproachesEndpointsContinuously) {
  const Row scores = normal_row(60, 2.0, 11);
  const Row sparse = run(sparsemax, scores, 1.0), soft = softmax_of(scores);
  const Row near_two = run(entmax, scores, 2.0 - 1e-9, 1.0);
  const Row near_one = run(entmax, scores, 1.001, 1.0);
  const Row very_near_one = run(entmax, scores, 1.0 + 1e-9, 1.0);
  double near_one_gap = 0.0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    EXPECT_NEAR(near_two[i], sparse[i], 1e-7) << "i=" << i << " x=" << scores[i];
    EXPECT_NEAR(very_near_one[i], soft[i], 1e-7) << "i=" << i << " x=" << scores[i];
    near_one_gap = std::max(near_one_gap, std::abs(near_one[i] - soft[i]));
  }
  EXPECT_LE(near_one_gap, 5e-3) << show(scores);
  std::printf("[ measured ] entmax(1.001) vs softmax: max |difference| %.3g\n", near_one_gap);
}

// For 1 < α < 2: sums to 1 (1e-14), zeros exactly where (α−1)z_i ≤ τ, and the optimality
// condition p_i^{α−1} − (α−1)z_i = −τ is the same for every support entry (1e-12: the bisection
// leaves τ within an ulp, and p^{α−1} of a weight near 0 amplifies that).
TEST(Entmax, SumsToOneAndSatisfiesOptimality) {
  for (double alpha : {1.2, 1.5, 1.8}) {
    for (std::uint64_t seed = 1; seed <= 10; ++seed) {
      const Row scores = normal_row(3 + seed * 17 % 200, 3.0, 200 + seed);
      const double temperature = seed % 2 ? 1.0 : 0.5;
      const Row p = run(entmax, scores, alpha, temperature);
      EXPECT_NEAR(sum_of(p), 1.0, 1e-14) << "alpha=" << alpha << " seed=" << seed;
      double tau = 0.0;
      bool have_tau = false;
      for (std::size_t i = 0; i < p.size(); ++i) {
        ASSERT_GE(p[i], 0.0);
        if (p[i] < 1e-6) continue;  // near the boundary the condition is ill-conditioned
        const double minus_tau = std::pow(p[i], alpha - 1.0) - (alpha - 1.0) * scores[i] / temperature;
        if (!have_tau) {
          tau = minus_tau;
          have_tau = true;
        }
        EXPECT_NEAR(minus_tau, tau, 1e-12) << "alpha=" << alpha << " seed=" << seed << " i=" << i;
      }
    }
  }
  // With spread scores the output is sparse, and sparser as α grows.
  const Row spread = normal_row(100, 3.0, 5);
  const auto zeros = [&](double alpha) {
    const Row p = run(entmax, spread, alpha, 1.0);
    return std::count(p.begin(), p.end(), 0.0);
  };
  EXPECT_GT(zeros(1.5), 0);
  EXPECT_LE(zeros(1.2), zeros(1.5));
  EXPECT_LE(zeros(1.5), zeros(2.0));
}

TEST(Entmax, AlphaOutsideRangeIsReported) {
  const NormalizerResult r = normalize(Normalizer::entmax, Row{1, 2}, 1.0, 2.5);
  EXPECT_FALSE(r.defined);
  EXPECT_EQ(r.issue, NormalizerIssue::alpha_out_of_range) << r.problem;
}

// ─── Statistics ─────────────────────────────────────────────────────────────────────────────

TEST(Statistics, EntropyBitsEffectiveChoicesMaxWeight) {
  const Row uniform(8, 0.125);
  EXPECT_NEAR(entropy_bits(uniform), 3.0, 1e-15);
  EXPECT_NEAR(effective_choices(uniform), 8.0, 1e-13);
  const Row over_three{1.0 / 3, 0.0, 1.0 / 3, 1.0 / 3, 0.0};  // uniform over 3 of 5
  EXPECT_NEAR(effective_choices(over_three), 3.0, 1e-14);
  EXPECT_EQ(effective_choices(Row{0.0, 1.0}), 1.0);
  EXPECT_EQ(max_weight(Row{0.2, 0.5, 0.3}), 0.5);
}

TEST(Statistics, KlDivergence) {
  const Row p{0.5, 0.5}, q{0.9, 0.1};
  // 0.5 ln(0.5/0.9) + 0.5 ln(0.5/0.1) = 0.5 ln(25/9) = ln(5/3).
  EXPECT_NEAR(kl_divergence(p, q), std::log(5.0 / 3.0), 1e-15);
  EXPECT_EQ(kl_divergence(p, p), 0.0);
  EXPECT_EQ(kl_divergence(Row{0.5, 0.5}, Row{1.0, 0.0}), kInf);           // q_i = 0 < p_i
  EXPECT_EQ(kl_divergence(Row{1.0, 0.0}, Row{0.5, 0.5}), std::log(2.0));  // p_i = 0 contributes 0
  // Gibbs' inequality on random pairs: KL ≥ 0 (to rounding).
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Row a = softmax_of(normal_row(30, 2.0, seed)), b = softmax_of(normal_row(30, 2.0, seed + 100));
    EXPECT_GE(kl_divergence(a, b), -1e-15) << "seed=" << seed;
  }
}

// ─── Gradients against central finite differences ───────────────────────────────────────────
// Each analytic derivative is compared with (f(x + h e_j) − f(x − h e_j)) / 2h, h = 1e-5·T
// (the functions vary on the scale T). Truncation error is O(h²·f''') ≈ 1e-10 relative and
// rounding O(ε/h) ≈ 1e-11, so 1e-7 relative holds with room. "Relative" is to the largest entry
// of the same Jacobian: an entry 1e-12 in size has no meaningful relative FD accuracy.

using VectorFunction = std::function<Row(const Row&)>;

// J[i·n + j] = ∂f_i/∂x_j by central differences.
Row numeric_jacobian(const VectorFunction& f, const Row& x, double step) {
  const std::size_t n = x.size();
  Row jacobian(n * n);
  for (std::size_t j = 0; j < n; ++j) {
    Row plus = x, minus = x;
    plus[j] += step;
    minus[j] -= step;
    const Row fp = f(plus), fm = f(minus);
    for (std::size_t i = 0; i < n; ++i) jacobian[i * n + j] = (fp[i] - fm[i]) / (2.0 * step);
  }
  return jacobian;
}

// Checks every entry against 1e-7 × the largest analytic entry; returns the worst ratio seen
// (|numeric − analytic| / largest) so the tests can print what they measured.
double expect_close_to_largest(const Row& analytic, const Row& numeric, const std::string& what) {
  double largest = 0.0, worst = 0.0;
  for (double v : analytic) largest = std::max(largest, std::abs(v));
  for (std::size_t k = 0; k < analytic.size(); ++k) {
    EXPECT_NEAR(numeric[k], analytic[k], 1e-7 * largest) << what << " entry " << k;
    worst = std::max(worst, std::abs(numeric[k] - analytic[k]) / largest);
  }
  return worst;
}

// g^T J, the reference vector–Jacobian product from a numeric Jacobian.
Row transpose_times(const Row& jacobian, const Row& g) {
  const std::size_t n = g.size();
  Row out(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) out[j] += g[i] * jacobian[i * n + j];
  return out;
}

TEST(Gradients, SoftmaxJacobianAndVjpMatchFiniteDifferences) {
  const Row scores{0.3, -1.2, 2.0, 0.7, -0.4};
  const Row g{1.0, -2.0, 0.5, 3.0, -0.25};
  double worst_jacobian = 0.0, worst_vjp = 0.0, worst_log_vjp = 0.0;
  for (double temperature : {1.0, 0.3, 2.5}) {
    const std::string what = "scores=" + show(scores) + " T=" + std::to_string(temperature);
    const Row s = softmax_of(scores, temperature);
    Row jacobian(25);
    softmax_jacobian(jacobian, s, temperature);
    const Row numeric =
        numeric_jacobian([&](const Row& x) { return softmax_of(x, temperature); }, scores, 1e-5 * temperature);
    worst_jacobian = std::max(worst_jacobian, expect_close_to_largest(jacobian, numeric, "softmax Jacobian " + what));
    Row vjp(5);
    softmax_vjp(vjp, s, g, temperature);
    worst_vjp = std::max(worst_vjp, expect_close_to_largest(vjp, transpose_times(numeric, g), "softmax vjp " + what));
    // log-softmax: its own numeric Jacobian.
    Row log_vjp(5);
    log_softmax_vjp(log_vjp, s, g, temperature);
    const Row log_numeric =
        numeric_jacobian([&](const Row& x) { return run(log_softmax, x, temperature); }, scores, 1e-5 * temperature);
    worst_log_vjp = std::max(
        worst_log_vjp, expect_close_to_largest(log_vjp, transpose_times(log_numeric, g), "log-softmax vjp " + what));
  }
  std::printf("[ measured ] finite differences: softmax Jacobian %.3g, softmax vjp %.3g, log-softmax vjp %.3g\n",
              worst_jacobian, worst_vjp, worst_log_vjp);
}

// Sparsemax is piecewise linear: finite differences are exact up to rounding away from the kinks
// (these scores keep every entry at least 0.05 from the threshold).
TEST(Gradients, SparsemaxJacobianMatchesFiniteDifferences) {
  const Row scores{0.9, 0.5, -1.0, 0.7, 0.1};
  double worst = 0.0;
  for (double temperature : {1.0, 0.7}) {
    const Row p = run(sparsemax, scores, temperature);
    ASSERT_GT(std::count(p.begin(), p.end(), 0.0), 0) << show(p);
    Row jacobian(25);
    sparsemax_jacobian(jacobian, p, temperature);
    const Row numeric =
        numeric_jacobian([&](const Row& x) { return run(sparsemax, x, temperature); }, scores, 1e-5 * temperature);
    worst = std::max(worst, expect_close_to_largest(jacobian, numeric, "sparsemax T=" + std::to_string(temperature)));
    // entmax_vjp at α = 2 is the same Jacobian applied to g.
    const Row g{1.0, -1.0, 2.0, 0.5, 0.0};
    Row vjp(5);
    entmax_vjp(vjp, p, g, 2.0, temperature);
    worst = std::max(worst, expect_close_to_largest(vjp, transpose_times(numeric, g), "entmax vjp α=2"));
  }
  std::printf("[ measured ] finite differences: sparsemax Jacobian and entmax(2) vjp %.3g\n", worst);
}

TEST(Gradients, EntmaxVjpMatchesFiniteDifferences) {
  const Row scores{0.9, 0.4, -1.5, 0.7, 0.1, -0.2};
  const Row g{1.0, -2.0, 0.5, 3.0, -0.25, 1.5};
  double worst = 0.0;
  for (double alpha : {1.0, 1.2, 1.5, 1.8}) {
    for (double temperature : {1.0, 0.5}) {
      const Row p = run(entmax, scores, alpha, temperature);
      Row vjp(6);
      entmax_vjp(vjp, p, g, alpha, temperature);
      const Row numeric = numeric_jacobian([&](const Row& x) { return run(entmax, x, alpha, temperature); }, scores,
                                           1e-5 * temperature);
      worst = std::max(worst, expect_close_to_largest(
                                  vjp, transpose_times(numeric, g),
                                  "entmax vjp alpha=" + std::to_string(alpha) + " T=" + std::to_string(temperature)));
    }
  }
  std::printf("[ measured ] finite differences: entmax vjp (alpha 1 to 1.8) %.3g\n", worst);
}

// ─── One result type ────────────────────────────────────────────────────────────────────────

// Every normaliser on an ordinary row: which ones give a distribution, which one does not.
TEST(NormalizerResultTable, EveryKindOnAnOrdinaryRow) {
  const Row scores{1.0, 2.0, 3.0, -0.5};
  NormalizerResult result;  // one buffer reused across kinds, as the app does
  for (Normalizer kind : all_normalizers) {
    normalize(result, kind, scores, 1.0, 1.5);
    const std::string name(normalizer_name(kind));
    EXPECT_TRUE(result.defined) << name << ": " << result.problem;
    EXPECT_EQ(result.weights.size(), scores.size()) << name;
    const bool should_be_distribution = kind != Normalizer::sigmoid && kind != Normalizer::linear;
    EXPECT_EQ(result.is_distribution(), should_be_distribution) << name << ": " << result.problem;
    EXPECT_EQ(result.problem.empty(), result.issue == NormalizerIssue::none) << name;
    if (should_be_distribution) {
      EXPECT_TRUE(result.sums_to_one) << name << " sum=" << result.sum;
    }
  }
  EXPECT_EQ(normalize(Normalizer::sparsemax, scores).exact_zeros, 3);  // gap 1 between 3 and 2: one-hot
  EXPECT_EQ(normalize(Normalizer::softmax, scores).exact_zeros, 0);
  EXPECT_EQ(normalize(Normalizer::naive_softmax, Row{1000, 1001}).issue, NormalizerIssue::exp_overflow);
  EXPECT_EQ(normalize(Normalizer::naive_softmax, Row{-1000, -1001}).issue, NormalizerIssue::exp_underflow);
  EXPECT_EQ(normalize(Normalizer::softmax, Row{-kInf, -kInf}).issue, NormalizerIssue::all_masked);
  EXPECT_EQ(normalize(Normalizer::sparsemax, Row{1, std::nan("")}).issue, NormalizerIssue::nan_score);
}

}  // namespace
}  // namespace smlab
