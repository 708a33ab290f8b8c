// Monte Carlo sweep: determinism, progressive refinement, and closed forms.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
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

// At d_k = 1 scaling divides by √1: the two variants see identical logits.
TEST(DkSweep, ScaledEqualsUnscaledAtDkOne) {
  DkSweep sweep = make_dk_sweep(small_config());
  add_dk_trials(sweep, 200);
  EXPECT_EQ(sweep.scaled[0].entropy_nats.mean, sweep.unscaled[0].entropy_nats.mean);
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
