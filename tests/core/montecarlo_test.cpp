// Monte Carlo sweep: determinism, progressive refinement, and closed forms.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "smlab/montecarlo.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

DkSweepConfig small_config() {
  DkSweepConfig config;
  config.seq_len = 10;
  config.key_dims = {1, 4, 64, 1024};
  return config;
}

TEST(DkSweep, SplittingTrialsDoesNotChangeTheResult) {
  DkSweep once = make_dk_sweep(small_config());
  add_dk_trials(once, 300);
  DkSweep pieces = make_dk_sweep(small_config());
  add_dk_trials(pieces, 100);
  add_dk_trials(pieces, 200);
  for (std::size_t p = 0; p < once.scaled.size(); ++p) {
    EXPECT_NEAR(once.scaled[p].entropy_nats.mean, pieces.scaled[p].entropy_nats.mean, 1e-12) << "point " << p;
    EXPECT_NEAR(once.unscaled[p].max_weight.mean, pieces.unscaled[p].max_weight.mean, 1e-12) << "point " << p;
  }
  EXPECT_EQ(pieces.trials, 300);
}

// The refinement's stopping point is planned from a pilot on an independent stream, before any of
// the sweep's own trials are seen, so the means it stops at are unbiased. The plan is a function of
// the setting alone, honours the limit, and is enough: refined to it, every mean has converged
// (standard error within 1% of the value or 0.002), the bar a lesson's reveal needs.
TEST(DkSweep, ThePlannedTrialCountDependsOnTheSettingOnlyAndConvergesEveryMean) {
  DkSweepConfig config;
  config.seq_len = 16;
  config.key_dims = power_of_two_key_dims();
  const std::int64_t planned = planned_dk_trials(config, 1'000'000);
  EXPECT_EQ(planned_dk_trials(config, 1'000'000), planned) << "deterministic";
  EXPECT_EQ(planned_dk_trials(config, 500), 500) << "capped by the limit";
  EXPECT_GT(planned, 1000);
  EXPECT_LT(planned, 200'000);
  DkSweep sweep = make_dk_sweep(config);
  add_dk_trials(sweep, planned);
  int converged = 0, statistics = 0;
  for (const auto* variant : {&sweep.scaled, &sweep.unscaled})
    for (std::size_t p = 0; p < variant->size(); ++p)
      for (const RunningStats* stats :
           {&(*variant)[p].entropy_nats, &(*variant)[p].max_weight, &(*variant)[p].jacobian_norm}) {
        ++statistics;
        converged += monte_carlo_converged(*stats);
        // The planned count carries a 1.5× margin over the pilot's variance: a statistic may miss
        // the target by the pilot's own error, never by much.
        EXPECT_LE(stats->standard_error(), 1.25 * monte_carlo_target_standard_error(stats->mean))
            << (variant == &sweep.scaled ? "scaled" : "unscaled") << " d_k = " << config.key_dims[p] << " after "
            << planned << " planned trials: SE " << stats->standard_error() << " for mean " << stats->mean;
      }
  EXPECT_GE(converged, statistics - 2) << converged << " of " << statistics << " means converged at the plan";
  std::printf("[ measured ] L = 16: %lld planned trials; %d of %d means converged\n", static_cast<long long>(planned),
              converged, statistics);
}

// The app's worker fills the pilot a chunk at a time so a new slider position never waits for the
// whole pilot: the plan it gets is planned_dk_trials's, bit for bit, for any chunking.
TEST(DkSweep, APilotFilledInChunksPlansTheSameTrialCount) {
  for (const int seq_len : {16, 96, 700}) {
    DkSweepConfig config;
    config.seq_len = seq_len;
    config.key_dims = power_of_two_key_dims(1024);
    const std::int64_t goal = dk_pilot_trials(config);
    ASSERT_GE(goal, 256);
    DkSweep pilot = make_dk_pilot(config);
    EXPECT_NE(pilot.config.seed, config.seed) << "the pilot shares the sweep's stream";
    for (std::int64_t chunk = 1; pilot.trials < goal; chunk = chunk * 3 + 1)
      add_dk_trials(pilot, std::min(chunk, goal - pilot.trials), 1);
    for (const std::int64_t limit : {std::int64_t{1'000'000}, std::int64_t{300}})
      EXPECT_EQ(planned_dk_trials_from_pilot(pilot, limit), planned_dk_trials(config, limit))
          << "L = " << seq_len << ", limit " << limit;
  }
}

TEST(DkSweep, ConvergedMeansAStandardErrorWithinOnePercentOrTwoThousandths) {
  EXPECT_DOUBLE_EQ(monte_carlo_target_standard_error(0.09), 0.002);
  EXPECT_DOUBLE_EQ(monte_carlo_target_standard_error(2.3), 0.023);
  EXPECT_DOUBLE_EQ(monte_carlo_target_standard_error(-0.5), 0.005);
  RunningStats one;
  one.add(1.0);
  EXPECT_FALSE(monte_carlo_converged(one)) << "one value has no standard error";
}

// At d_k = 1 scaling divides by √1: the two variants are draws of the same distribution (from
// streams of their own, so not the same draws): their means agree within 4 combined SEs.
TEST(DkSweep, ScaledAndUnscaledAgreeAtDkOne) {
  DkSweep sweep = make_dk_sweep(small_config());
  add_dk_trials(sweep, 4000);
  for (const auto& [scaled, unscaled] : {std::pair{&sweep.scaled[0].entropy_nats, &sweep.unscaled[0].entropy_nats},
                                         std::pair{&sweep.scaled[0].max_weight, &sweep.unscaled[0].max_weight},
                                         std::pair{&sweep.scaled[0].jacobian_norm, &sweep.unscaled[0].jacobian_norm}}) {
    EXPECT_NE(scaled->mean, unscaled->mean) << "the two variants share their draws";
    EXPECT_NEAR(scaled->mean, unscaled->mean, 4.0 * std::hypot(scaled->standard_error(), unscaled->standard_error()));
  }
}

// The points and variants of a sweep are independent estimates: no two share a random number, so
// a seed that puts one point low does not put the others low with it. With the normals shared
// (common random numbers) the unscaled points from d_k = 64 on were correlated nearly 1 across
// seeds (seed 42 put all of them 2–3 SE low). Here: 400 seeds of 32 trials, every pair of the
// 2 × 13 points' mean entropies (and max weights). Independent means give correlations of sd
// 1/√400 = 0.05 around 0; the bounds are 6 sd for any pair (325 pairs: a chance failure ~1e-6)
// and, for the mean over the pairs, 0.03 (about 9 sd of it).
TEST(DkSweep, PointsAndVariantsAreIndependentAcrossSeeds) {
  constexpr int seeds = 400;
  constexpr std::int64_t trials = 32;
  DkSweepConfig config;
  config.seq_len = 16;
  config.key_dims = power_of_two_key_dims();
  const std::size_t points = config.key_dims.size(), statistics = 2 * points;
  // [quantity: entropy, max weight][statistic][seed]
  std::vector<std::vector<std::vector<double>>> means(
      2, std::vector<std::vector<double>>(statistics, std::vector<double>(seeds)));
  for (int seed = 0; seed < seeds; ++seed) {
    config.seed = static_cast<std::uint64_t>(1000 + seed);
    DkSweep sweep = make_dk_sweep(config);
    add_dk_trials(sweep, trials);
    for (std::size_t s = 0; s < statistics; ++s) {
      const RowStats& row = s < points ? sweep.unscaled[s] : sweep.scaled[s - points];
      means[0][s][static_cast<std::size_t>(seed)] = row.entropy_nats.mean;
      means[1][s][static_cast<std::size_t>(seed)] = row.max_weight.mean;
    }
  }
  for (const bool entropy : {true, false}) {
    const auto correlation = [&](const std::vector<double>& a, const std::vector<double>& b) {
      double mean_a = 0, mean_b = 0;
      for (int k = 0; k < seeds; ++k) mean_a += a[k] / seeds, mean_b += b[k] / seeds;
      double ab = 0, aa = 0, bb = 0;
      for (int k = 0; k < seeds; ++k) {
        ab += (a[k] - mean_a) * (b[k] - mean_b);
        aa += (a[k] - mean_a) * (a[k] - mean_a);
        bb += (b[k] - mean_b) * (b[k] - mean_b);
      }
      return ab / std::sqrt(aa * bb);
    };
    const auto name = [&](std::size_t s) {
      return std::string(s < points ? "unscaled" : "scaled") + " d_k = " + std::to_string(config.key_dims[s % points]);
    };
    double sum = 0.0, largest = 0.0;
    int pairs = 0;
    for (std::size_t a = 0; a < statistics; ++a)
      for (std::size_t b = a + 1; b < statistics; ++b) {
        const double r = correlation(means[entropy ? 0 : 1][a], means[entropy ? 0 : 1][b]);
        EXPECT_LT(std::abs(r), 0.3) << (entropy ? "entropy" : "max weight") << ": " << name(a) << " and " << name(b)
                                    << " are correlated across seeds";
        sum += r;
        largest = std::max(largest, std::abs(r));
        ++pairs;
      }
    EXPECT_LT(std::abs(sum / pairs), 0.03) << (entropy ? "entropy" : "max weight") << ": mean correlation";
    std::printf("[ measured ] %s: mean correlation of %d pairs %.4f, largest |r| %.3f\n",
                entropy ? "entropy" : "max weight", pairs, sum / pairs, largest);
  }
}

// The same seed gives the same bits on any number of threads and however the trials are split.
TEST(DkSweep, TheBitsDoNotDependOnTheThreadCount) {
  DkSweepConfig config;
  config.seq_len = 24;
  config.key_dims = power_of_two_key_dims();
  DkSweep one = make_dk_sweep(config);
  add_dk_trials(one, 3000, 1);
  for (const int threads : {2, 3, 8}) {
    DkSweep many = make_dk_sweep(config);
    add_dk_trials(many, 1000, threads);
    add_dk_trials(many, 2000, threads);
    for (std::size_t p = 0; p < config.key_dims.size(); ++p)
      for (const auto& [a, b] :
           {std::pair{&one.scaled[p], &many.scaled[p]}, std::pair{&one.unscaled[p], &many.unscaled[p]}})
        for (const auto& [x, y] :
             {std::pair{&a->entropy_nats, &b->entropy_nats}, std::pair{&a->max_weight, &b->max_weight},
              std::pair{&a->jacobian_norm, &b->jacobian_norm}}) {
          EXPECT_EQ(x->mean, y->mean) << threads << " threads, d_k = " << config.key_dims[p];
          EXPECT_EQ(x->sum_squared_deviation, y->sum_squared_deviation) << threads << " threads";
        }
  }
}

// The sweep's shortcut (‖q‖ from χ²_d times L normals) must agree with brute force:
// draw q and L keys of dimension d explicitly. Both means within 4 combined SEs.
TEST(DkSweep, ShortcutMatchesBruteForceSimulation) {
  for (int key_dim : {1, 4, 32}) {
    DkSweepConfig config = small_config();
    config.key_dims = {key_dim};
    DkSweep sweep = make_dk_sweep(config);
    add_dk_trials(sweep, 6000);
    RunningStats brute;
    NormalGenerator rng(2024 + key_dim);
    std::vector<double> q(key_dim), logits(config.seq_len), p(config.seq_len);
    for (int trial = 0; trial < 6000; ++trial) {
      for (double& x : q) x = rng.next();
      for (double& logit : logits) {
        double dot = 0;
        for (double x : q) dot += x * rng.next();
        logit = dot / std::sqrt(static_cast<double>(key_dim));
      }
      softmax(p, logits);
      brute.add(entropy_nats(p));
    }
    const auto& shortcut = sweep.scaled[0].entropy_nats;
    const double se = std::hypot(shortcut.standard_error(), brute.standard_error());
    EXPECT_NEAR(shortcut.mean, brute.mean, 4 * se) << "d_k=" << key_dim;
  }
}

// Unscaled q·k has variance d_k, so entropy collapses and the max weight → 1;
// scaled logits keep unit variance and their entropy stays near ln-scale values.
TEST(DkSweep, UnscaledCollapsesScaledDoesNot) {
  DkSweep sweep = make_dk_sweep(small_config());
  add_dk_trials(sweep, 2000);
  EXPECT_LT(sweep.unscaled.back().entropy_nats.mean, 0.2 * sweep.unscaled.front().entropy_nats.mean);
  EXPECT_GT(sweep.unscaled.back().max_weight.mean, 0.9);
  EXPECT_GT(sweep.scaled.back().entropy_nats.mean, 0.8 * sweep.scaled.front().entropy_nats.mean);
  EXPECT_LT(sweep.scaled.back().max_weight.mean, 0.5);
}

// E[χ²_d] = d and Var = 2d: the gamma sampler behind ‖q‖², within 4 standard errors.
TEST(GammaSample, ChiSquaredMoments) {
  for (int d : {1, 2, 7, 64, 4096}) {
    NormalGenerator rng(99 + d);
    RunningStats stats;
    for (int i = 0; i < 20000; ++i) stats.add(2.0 * gamma_sample(rng, 0.5 * d));
    EXPECT_NEAR(stats.mean, d, 4 * stats.standard_error()) << "d=" << d;
    EXPECT_NEAR(stats.variance(), 2.0 * d, 0.1 * 2.0 * d) << "d=" << d;
  }
}

// The ziggurat's layers all have the area v (so each is drawn with its share of the probability),
// the base layer's part beyond r is the normal tail, and its draws follow N(0, 1): 4·10⁶ draws,
// the mean, variance and fourth moment, and the CDF at 17 points from −5 to 5, each within 5
// standard errors (a seeded run: a pass is reproducible; a wrong layer or wedge moves them by far
// more).
TEST(ZigguratNormal, LayersOfEqualAreaAndDrawsFollowTheNormalDistribution) {
  const ZigguratTable& table = ziggurat_table();
  const double area =
      table.x[1] * table.f[1] + std::sqrt(std::numbers::pi / 2.0) * std::erfc(table.x[1] / std::sqrt(2.0));
  EXPECT_NEAR(table.x[0] * table.f[1], area, 1e-12) << "the base layer: r·f(r) plus the tail";
  for (std::size_t i = 1; i + 1 < table.x.size(); ++i)
    EXPECT_NEAR(table.x[i] * (table.f[i + 1] - table.f[i]), area, 1e-9 * area) << "layer " << i;
  EXPECT_EQ(table.x.back(), 0.0);

  constexpr std::int64_t draws = 4'000'000;
  ZigguratNormal rng(stream_seed(2026, 11, 29));
  const std::vector<double> edges{-5, -4, -3.6541528853610088, -3, -2.5, -2, -1.5, -1, -0.5, 0, 0.5, 1, 1.5, 2, 3,
                                  4,  5};
  std::vector<std::int64_t> below(edges.size(), 0);
  double sum = 0.0, squares = 0.0, fourth = 0.0;
  for (std::int64_t k = 0; k < draws; ++k) {
    const double x = rng.next();
    sum += x;
    squares += x * x;
    fourth += x * x * x * x;
    for (std::size_t e = 0; e < edges.size(); ++e) below[e] += x < edges[e] ? 1 : 0;
  }
  const auto n = static_cast<double>(draws);
  EXPECT_NEAR(sum / n, 0.0, 5.0 / std::sqrt(n));
  EXPECT_NEAR(squares / n, 1.0, 5.0 * std::sqrt(2.0 / n));  // Var(x²) = 2
  EXPECT_NEAR(fourth / n, 3.0, 5.0 * std::sqrt(96.0 / n));  // Var(x⁴) = 105 − 9
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const double p = 0.5 * std::erfc(-edges[e] / std::sqrt(2.0));
    EXPECT_NEAR(static_cast<double>(below[e]) / n, p, 5.0 * std::sqrt(p * (1.0 - p) / n) + 1.0 / n)
        << "P(x < " << edges[e] << ")";
  }
}

TEST(RunningStats, MatchesTwoPassFormulas) {
  RunningStats stats;
  const double values[] = {1.0, 4.0, 4.0, 7.0};
  for (double v : values) stats.add(v);
  EXPECT_DOUBLE_EQ(stats.mean, 4.0);
  EXPECT_DOUBLE_EQ(stats.variance(), 6.0);  // ((9 + 0 + 0 + 9) / 3)
  EXPECT_DOUBLE_EQ(stats.standard_error(), std::sqrt(6.0 / 4.0));
}

}  // namespace
}  // namespace smlab
