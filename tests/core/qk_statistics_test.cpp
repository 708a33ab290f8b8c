// Monte Carlo of q·k against its closed forms (Var = d_k σ⁴, scaled Var = σ⁴, CLT), and the
// block accumulation that makes every Monte Carlo result independent of call and thread splits.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "smlab/montecarlo.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

QkStatistics run_qk(std::vector<int> key_dims, double sigma, QkSampling sampling, std::int64_t trials,
                    std::uint64_t seed = 42) {
  QkStatisticsConfig config;
  config.key_dims = std::move(key_dims);
  config.sigma = sigma;
  config.sampling = sampling;
  config.seed = seed;
  QkStatistics statistics = make_qk_statistics(config);
  add_qk_trials(statistics, trials);
  return statistics;
}

const char* sampling_name(QkSampling sampling) {
  return sampling == QkSampling::norm_shortcut ? "norm_shortcut" : "explicit_vectors";
}

// Var(q·k) = d_k σ⁴. The estimate is the mean of (q·k)² (E[q·k] = 0 is known), whose standard
// error comes from the same trials; 4 SE makes a false alarm a ~6e-5 event per check, and the
// seeds are fixed, so the test is deterministic. Both samplers: the explicit one checks the
// closed form without relying on the χ² shortcut, the shortcut is what the app runs.
TEST(QkVariance, UnscaledMatchesDkSigmaToTheFourthWithinFourStandardErrors) {
  for (QkSampling sampling : {QkSampling::norm_shortcut, QkSampling::explicit_vectors})
    for (double sigma : {0.5, 1.0, 2.0}) {
      // The explicit sampler costs O(d_k) per trial: it stops at d_k = 128 to keep the test fast.
      const bool fast = sampling == QkSampling::norm_shortcut;
      const std::vector<int> dims = fast ? std::vector<int>{1, 4, 64, 512, 4096} : std::vector<int>{1, 4, 128};
      const QkStatistics statistics = run_qk(dims, sigma, sampling, 20000);
      for (const QkPoint& point : statistics.points) {
        const double expected = qk_variance(point.key_dim, sigma, false);
        EXPECT_DOUBLE_EQ(expected, point.key_dim * std::pow(sigma, 4));
        const RunningStats& square = point.unscaled.square;
        EXPECT_NEAR(square.mean, expected, 4 * square.standard_error())
            << sampling_name(sampling) << " d_k=" << point.key_dim << " sigma=" << sigma << " trials=" << square.count;
        // The sample variance (mean not assumed) estimates the same thing; its SE is close to
        // that of the mean of squares because the sample mean is ≈ 0.
        EXPECT_NEAR(point.unscaled.value.variance(), expected, 4 * square.standard_error())
            << sampling_name(sampling) << " d_k=" << point.key_dim << " sigma=" << sigma;
        EXPECT_NEAR(point.unscaled.value.mean, 0.0, 4 * point.unscaled.value.standard_error())
            << sampling_name(sampling) << " d_k=" << point.key_dim << " sigma=" << sigma;
      }
    }
}

// Dividing by √d_k removes the d_k: Var(q·k/√d_k) = σ⁴ for every d_k, within 4 SE.
TEST(QkVariance, ScaledIsSigmaToTheFourthForEveryDk) {
  for (QkSampling sampling : {QkSampling::norm_shortcut, QkSampling::explicit_vectors})
    for (double sigma : {0.5, 1.5}) {
      const bool fast = sampling == QkSampling::norm_shortcut;
      const std::vector<int> dims = fast ? std::vector<int>{1, 8, 128, 1024} : std::vector<int>{1, 8, 64};
      const QkStatistics statistics = run_qk(dims, sigma, sampling, 20000, 7);
      for (const QkPoint& point : statistics.points) {
        const RunningStats& square = point.scaled.square;
        EXPECT_NEAR(square.mean, std::pow(sigma, 4), 4 * square.standard_error())
            << sampling_name(sampling) << " d_k=" << point.key_dim << " sigma=" << sigma;
        EXPECT_DOUBLE_EQ(qk_variance(point.key_dim, sigma, true), std::pow(sigma, 4));
      }
    }
}

// At d_k = 1 the scaled value is q·k / √1 = q·k / 1: identical bits in every statistic.
TEST(QkVariance, ScaledEqualsUnscaledExactlyAtDkOne) {
  const QkStatistics statistics = run_qk({1}, 1.3, QkSampling::norm_shortcut, 3000);
  const QkPoint& point = statistics.points[0];
  EXPECT_EQ(point.scaled.value.mean, point.unscaled.value.mean);
  EXPECT_EQ(point.scaled.value.sum_squared_deviation, point.unscaled.value.sum_squared_deviation);
  EXPECT_EQ(point.scaled.square.mean, point.unscaled.square.mean);
  EXPECT_EQ(point.scaled.histogram.counts, point.unscaled.histogram.counts);
  EXPECT_EQ(point.scaled.histogram.lower, point.unscaled.histogram.lower);
}

// Every value lands in exactly one bin or in below/above: nothing is lost or counted twice.
TEST(QkHistogram, CountsSumToTrials) {
  for (QkSampling sampling : {QkSampling::norm_shortcut, QkSampling::explicit_vectors}) {
    QkStatisticsConfig config;
    config.key_dims = {1, 2, 16, 256};
    config.sampling = sampling;
    config.range_in_std = 1.5;  // narrow, so below/above are exercised as well
    QkStatistics statistics = make_qk_statistics(config);
    add_qk_trials(statistics, 1500);
    add_qk_trials(statistics, 1700, 2);
    for (const QkPoint& point : statistics.points)
      for (const QkMoments* moments : {&point.unscaled, &point.scaled}) {
        EXPECT_EQ(moments->histogram.total(), 3200) << sampling_name(sampling) << " d_k=" << point.key_dim;
        EXPECT_GT(moments->histogram.below + moments->histogram.above, 0) << " d_k=" << point.key_dim;
      }
  }
}

// CLT: q·k is a sum of d_k i.i.d. products, so for large d_k it is ≈ N(0, d_k σ⁴) and the mass
// within ±1 closed-form std is ≈ 2Φ(1) − 1 = 0.682689. Binomial SE = sqrt(p(1 − p)/n) ≈ 0.0033 at
// n = 20000; the finite-d_k correction (excess kurtosis 6/d_k) is ~1e-3 at d_k = 1024, far inside
// 4 SE. At d_k = 1 the product of two normals is peaked, and the mass is clearly larger.
TEST(QkHistogram, MassWithinOneStdApproachesNormalForLargeDk) {
  constexpr double normal_mass = 0.6826894921370859;
  const QkStatistics statistics = run_qk({1, 1024, 4096}, 1.0, QkSampling::norm_shortcut, 20000, 11);
  for (const QkPoint& point : statistics.points)
    for (const QkMoments* moments : {&point.unscaled, &point.scaled}) {
      const Histogram& histogram = moments->histogram;
      const double std = std::sqrt(qk_variance(point.key_dim, 1.0, moments == &point.scaled));
      std::int64_t inside = 0;
      for (int b = 0; b < static_cast<int>(histogram.counts.size()); ++b) {
        const double left = histogram.bin_lower_edge(b), right = left + histogram.bin_width();
        // Default edges fall on every 1/8 std, so ±1 std are edges up to rounding.
        if (left >= -std * (1 + 1e-9) && right <= std * (1 + 1e-9))
          inside += histogram.counts[static_cast<std::size_t>(b)];
      }
      const double n = static_cast<double>(histogram.total());
      const double mass = inside / n;
      const double se = std::sqrt(normal_mass * (1 - normal_mass) / n);
      if (point.key_dim == 1) {
        EXPECT_GT(mass, normal_mass + 4 * se) << "d_k=1 mass=" << mass;
      } else {
        EXPECT_NEAR(mass, normal_mass, 4 * se) << "d_k=" << point.key_dim << " trials=" << n;
      }
    }
}

// ---- The sweep's one-pass row kernel ---------------------------------------------------------

// Reference in long double (64-bit mantissa): the definitions, with the max subtracted and J
// formed entry by entry. The diagonal s_i(1 − s_i) is formed as s_i·Σ_{k≠i} s_k, because
// 1 − s_i cancels when s_i ≈ 1 (near one-hot rows), even in long double.
SoftmaxRowSummary reference_summary(const std::vector<double>& scores, double logit_scale) {
  const std::size_t n = scores.size();
  const long double top = *std::max_element(scores.begin(), scores.end());
  // ln s_j = y_j − ln Z (log-softmax) with ln Z = log1p(Σ over all but one maximum), for the
  // same reason: ln s_top of a near one-hot row would otherwise be log of a rounded 1 − tiny.
  std::vector<long double> s(n), y(n);
  long double rest = 0;
  bool top_seen = false;
  for (std::size_t j = 0; j < n; ++j) {
    y[j] = static_cast<long double>(logit_scale) * (scores[j] - top);
    s[j] = std::exp(y[j]);
    if (y[j] == 0 && !top_seen)
      top_seen = true;
    else
      rest += s[j];
  }
  const long double log_normaliser = std::log1p(rest);
  long double entropy = 0, max_weight = 0, norm_squared = 0;
  for (std::size_t j = 0; j < n; ++j) {
    s[j] /= 1 + rest;
    entropy -= s[j] * (y[j] - log_normaliser);
    max_weight = std::max(max_weight, s[j]);
  }
  for (std::size_t i = 0; i < n; ++i) {
    long double others = 0;
    for (std::size_t k = 0; k < n; ++k) {
      if (k == i) continue;
      others += s[k];
      norm_squared += s[i] * s[k] * s[i] * s[k];  // off-diagonal entry −s_i s_k, squared
    }
    norm_squared += s[i] * others * s[i] * others;  // diagonal s_i(1 − s_i)
  }
  return {static_cast<double>(entropy), static_cast<double>(max_weight), static_cast<double>(std::sqrt(norm_squared))};
}

// Agreement with the long double reference to 1e-12 relative — for spread-out rows, for the
// near one-hot rows of unscaled attention at large d_k (where Σs² − 2Σs³ + (Σs²)² would have
// cancelled to noise: the one-pass form keeps relative accuracy), and with ties at the top.
// Tolerance: a few hundred roundings of ~1e-16 each, far below 1e-12; a wrong formula is off
// by O(1).
TEST(SoftmaxRowSummary, MatchesLongDoubleDefinitions) {
  NormalGenerator rng(5);
  for (int n : {2, 3, 17, 200})
    for (double logit_scale : {1e-3, 0.7, 3.0, 40.0}) {
      std::vector<double> scores(static_cast<std::size_t>(n));
      for (double& x : scores) x = rng.next();
      if (n == 17) scores[4] = scores[9] = *std::max_element(scores.begin(), scores.end()) + 0.5;  // a tie
      const auto top = static_cast<std::size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
      const SoftmaxRowSummary fast = summarize_softmax_row(scores, top, logit_scale);
      const SoftmaxRowSummary reference = reference_summary(scores, logit_scale);
      EXPECT_NEAR(fast.entropy_nats, reference.entropy_nats, 1e-12 * reference.entropy_nats + 1e-300)
          << "n=" << n << " a=" << logit_scale;
      EXPECT_NEAR(fast.max_weight, reference.max_weight, 1e-12 * reference.max_weight)
          << "n=" << n << " a=" << logit_scale;
      EXPECT_NEAR(fast.jacobian_norm, reference.jacobian_norm, 1e-12 * reference.jacobian_norm + 1e-300)
          << "n=" << n << " a=" << logit_scale;
      // And the project's reference double path, where it is accurate (not near one-hot).
      std::vector<double> logits(scores), probabilities(scores.size());
      for (double& x : logits) x *= logit_scale;
      softmax(probabilities, logits);
      if (reference.max_weight < 0.99) {
        EXPECT_NEAR(fast.entropy_nats, entropy_nats(probabilities), 1e-12 * reference.entropy_nats) << "n=" << n;
        EXPECT_NEAR(fast.jacobian_norm, jacobian_frobenius_norm(probabilities), 1e-12 * reference.jacobian_norm)
            << "n=" << n;
      }
    }
}

// The Monte Carlo's fast path against the double one-pass reference: 2e-5 relative (float gaps
// and exponents, exp_fast; see montecarlo.hpp) plus 1e-30 absolute for weights exp_fast flushes,
// over spread-out, near one-hot (a = 40, 400) and near uniform (a = 1e-3) rows. A wrong sum or a
// dropped key is off by far more; a = 400 also checks that a fully flushed tail gives H = 0.
TEST(SoftmaxRowSummary, FastGapsPathAgreesWithTheReference) {
  NormalGenerator rng(11);
  for (int n : {2, 17, 1000, 4096})
    for (double logit_scale : {1e-3, 0.7, 3.0, 40.0, 400.0}) {
      std::vector<double> scores(static_cast<std::size_t>(n));
      for (double& x : scores) x = rng.next();
      const auto top = static_cast<std::size_t>(std::max_element(scores.begin(), scores.end()) - scores.begin());
      std::vector<float> gaps, scratch(2 * scores.size());
      for (std::size_t j = 0; j < scores.size(); ++j)
        if (j != top) gaps.push_back(static_cast<float>(scores[j] - scores[top]));
      const SoftmaxRowSummary fast = summarize_softmax_gaps_fast(gaps, logit_scale, scratch);
      const SoftmaxRowSummary reference = summarize_softmax_row(scores, top, logit_scale);
      EXPECT_NEAR(fast.entropy_nats, reference.entropy_nats, 2e-5 * reference.entropy_nats + 1e-30)
          << "n=" << n << " a=" << logit_scale;
      EXPECT_NEAR(fast.max_weight, reference.max_weight, 2e-5 * reference.max_weight)
          << "n=" << n << " a=" << logit_scale;
      EXPECT_NEAR(fast.jacobian_norm, reference.jacobian_norm, 2e-5 * reference.jacobian_norm + 1e-30)
          << "n=" << n << " a=" << logit_scale;
    }
}

// Uniform row (all scores equal): H = ln n, max weight 1/n, ‖J‖² = (n − 1)/n² exactly.
TEST(SoftmaxRowSummary, UniformRowClosedForms) {
  for (int n : {1, 2, 10, 4096}) {
    const std::vector<double> scores(static_cast<std::size_t>(n), 0.25);
    const SoftmaxRowSummary summary = summarize_softmax_row(scores, 0, 2.0);
    EXPECT_NEAR(summary.entropy_nats, std::log(static_cast<double>(n)), 1e-13 * std::log(n + 1.0)) << "n=" << n;
    EXPECT_NEAR(summary.max_weight, 1.0 / n, 1e-15) << "n=" << n;
    EXPECT_NEAR(summary.jacobian_norm, std::sqrt((n - 1.0) / (1.0 * n * n)), 1e-15) << "n=" << n;
  }
}

// ---- Block accumulation: determinism across call and thread splits -------------------------

void expect_same_bits(const RunningStats& a, const RunningStats& b, const char* what) {
  EXPECT_EQ(a.count, b.count) << what;
  EXPECT_EQ(a.mean, b.mean) << what;
  EXPECT_EQ(a.sum_squared_deviation, b.sum_squared_deviation) << what;
}

// 5000 trials cross four block boundaries (1024 each); split as one call, as uneven calls that
// stop mid-block, and over 2 and 3 threads, the statistics are the same bits.
TEST(BlockAccumulation, QkStatisticsAreBitIdenticalForAnySplit) {
  QkStatisticsConfig config;
  config.key_dims = {1, 3, 64};
  const auto once = [&] {
    QkStatistics s = make_qk_statistics(config);
    add_qk_trials(s, 5000);
    return s;
  }();
  QkStatistics pieces = make_qk_statistics(config);
  for (std::int64_t n : {1, 1022, 1, 2000, 1976}) add_qk_trials(pieces, n, 2);
  QkStatistics threaded = make_qk_statistics(config);
  add_qk_trials(threaded, 5000, 3);
  for (const QkStatistics* other : {&pieces, &threaded}) {
    ASSERT_EQ(other->trials, 5000);
    for (std::size_t p = 0; p < once.points.size(); ++p) {
      expect_same_bits(once.points[p].unscaled.value, other->points[p].unscaled.value, "unscaled value");
      expect_same_bits(once.points[p].scaled.square, other->points[p].scaled.square, "scaled square");
      EXPECT_EQ(once.points[p].unscaled.histogram.counts, other->points[p].unscaled.histogram.counts);
    }
  }
}

// The d_k sweep behind entropy_dk.csv: 2 threads, or a top-up of a smaller sweep, gives the
// same bits as one sequential pass (this is what lets the CSV export parallelise).
TEST(BlockAccumulation, DkSweepIsBitIdenticalForAnySplitAndThreadCount) {
  DkSweepConfig config;
  config.seq_len = 6;
  config.key_dims = {1, 16, 256};
  DkSweep once = make_dk_sweep(config);
  add_dk_trials(once, 3000);
  DkSweep threaded = make_dk_sweep(config);
  add_dk_trials(threaded, 3000, 2);
  DkSweep topped_up = make_dk_sweep(config);
  add_dk_trials(topped_up, 700);
  add_dk_trials(topped_up, 2300, 2);
  for (const DkSweep* other : {&threaded, &topped_up}) {
    ASSERT_EQ(other->trials, 3000);
    for (std::size_t p = 0; p < config.key_dims.size(); ++p) {
      expect_same_bits(once.scaled[p].entropy_nats, other->scaled[p].entropy_nats, "scaled entropy");
      expect_same_bits(once.unscaled[p].max_weight, other->unscaled[p].max_weight, "unscaled max weight");
      expect_same_bits(once.scaled[p].jacobian_norm, other->scaled[p].jacobian_norm, "scaled Jacobian norm");
    }
  }
}

// Within a call the trials' rows and the 2 × points statistics are split over the pool too. At
// L = 300 (1500 trials: one whole block and an open one) and L = 4096 (300 trials: the gaps are
// held 256 trials at a time, so two batches), one thread, any other count (more parts than this
// machine has threads, as on a 16-core machine) and every available thread (0) give the same bits.
TEST(BlockAccumulation, DkSweepWithinACallIsBitIdenticalForAnyThreadCount) {
  struct Case {
    int seq_len;
    std::vector<int> key_dims;
    std::int64_t trials;
  };
  for (const Case& c : {Case{300, {1, 16, 256, 4096}, 1500}, Case{4096, {1, 64}, 300}}) {
    DkSweepConfig config;
    config.seq_len = c.seq_len;
    config.key_dims = c.key_dims;
    config.seed = 7;
    DkSweep one = make_dk_sweep(config);
    add_dk_trials(one, c.trials, 1);
    for (int threads : {2, 3, 16, 0}) {
      DkSweep many = make_dk_sweep(config);
      add_dk_trials(many, c.trials, threads);
      ASSERT_EQ(many.trials, c.trials);
      for (std::size_t p = 0; p < config.key_dims.size(); ++p) {
        const std::string what = "L = " + std::to_string(c.seq_len) + ", " + std::to_string(threads) + " threads";
        expect_same_bits(one.scaled[p].entropy_nats, many.scaled[p].entropy_nats, (what + ", scaled entropy").c_str());
        expect_same_bits(one.unscaled[p].entropy_nats, many.unscaled[p].entropy_nats,
                         (what + ", unscaled entropy").c_str());
        expect_same_bits(one.unscaled[p].max_weight, many.unscaled[p].max_weight,
                         (what + ", unscaled max weight").c_str());
        expect_same_bits(one.scaled[p].jacobian_norm, many.scaled[p].jacobian_norm,
                         (what + ", scaled Jacobian norm").c_str());
      }
    }
  }
}

// Chan's merge equals adding the values one by one (to rounding: 1e-12 relative), and merging
// with an empty side is an exact copy.
TEST(RunningStatsMerge, MatchesSequentialAddsAndEmptySidesAreExact) {
  RunningStats sequential, first, second;
  for (int i = 0; i < 1000; ++i) {
    const double value = std::sin(0.37 * i) * 10.0 + i * 1e-3;
    sequential.add(value);
    (i < 321 ? first : second).add(value);
  }
  RunningStats merged = first;
  merged.merge(second);
  EXPECT_EQ(merged.count, sequential.count);
  EXPECT_NEAR(merged.mean, sequential.mean, 1e-12 * std::abs(sequential.mean));
  EXPECT_NEAR(merged.variance(), sequential.variance(), 1e-12 * sequential.variance());
  RunningStats empty;
  RunningStats copy = empty;
  copy.merge(first);
  expect_same_bits(copy, first, "empty ⊕ first");
  RunningStats unchanged = first;
  unchanged.merge(empty);
  expect_same_bits(unchanged, first, "first ⊕ empty");
}

}  // namespace
}  // namespace smlab
