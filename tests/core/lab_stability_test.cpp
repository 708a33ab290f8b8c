// Tests of the stability lab's numbers (core/src/labs/stability.cpp): the classic overflow example,
// fp16's overflow point, online = stable, and that every count, weight and heatmap cell equals a
// direct call of the core functions for the same Params.
#include "smlab/labs/stability.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

StabilityLab lab_for(const Params& params) {
  EXPECT_TRUE(validate(params).ok()) << validate(params).error().message;
  StabilityLab lab;
  evaluate_stability_lab(lab, params);
  return lab;
}

std::string describe(const Params& params) {
  return "L=" + std::to_string(params.seq_len) + " d_k=" + std::to_string(params.key_dim) +
         " score_scale=" + std::to_string(params.score_scale) + " T=" + std::to_string(params.temperature) +
         " row=" + std::to_string(params.row) + " seed=" + std::to_string(params.seed) +
         " scaled=" + std::to_string(params.scaled) + " custom=" + format_scores(params.scores);
}

// Equal as bit patterns would be too strict for NaN payloads; equal values or both NaN.
bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

TEST(StabilityLab, ClassicNaiveFp32OverflowsToNaNAndStableGivesTheAnswerOf123) {
  // docs/ARCHITECTURE.md, "Tests": [1000, 1001, 1002] naive → NaN (exp(1000) = inf, inf/inf = NaN); stable → the
  // same as [1, 2, 3], because softmax is shift invariant and the shift is exactly what stable does.
  Params params;
  params.scores = {1000.0, 1001.0, 1002.0};
  params.format = Format::fp32;
  const StabilityLab lab = lab_for(params);
  const StabilityRun& naive = lab.format(Format::fp32).run(SoftmaxVariant::naive);
  const StabilityRun& stable = lab.format(Format::fp32).run(SoftmaxVariant::stable);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_TRUE(std::isnan(naive.weights[i])) << "entry " << i;
  EXPECT_EQ(naive.report.nan_count, 3);
  EXPECT_EQ(naive.nan_entries, (std::vector<int>{0, 1, 2}));
  // Reference: softmax([1, 2, 3]) = 0.0900306, 0.2447285, 0.6652410 (to 7 digits). Tolerance
  // 1e-6: a handful of fp32 roundings (ε = 1.2e-7) in x − m, exp, the sum and the division.
  const double expected[] = {0.09003057317038046, 0.24472847105479767, 0.6652409557748219};
  for (std::size_t i = 0; i < 3; ++i) EXPECT_NEAR(stable.weights[i], expected[i], 1e-6) << "entry " << i;
  EXPECT_TRUE(stable.report.finite());
  // fp64 naive overflows too (exp(1000) > 1.8e308) while fp64 stable is exact to ~1e-16.
  EXPECT_EQ(lab.format(Format::fp64).run(SoftmaxVariant::naive).report.nan_count, 3);
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(lab.format(Format::fp64).run(SoftmaxVariant::stable).weights[i], expected[i], 1e-15);
}

TEST(StabilityLab, ClassicNegativeScoresUnderflowToZeroOverZero) {
  // [−1000, −1001, −1002]: every exp(x) underflows to 0 even in fp64 (below −745), and 0/0 = NaN.
  Params params;
  params.scores = {-1000.0, -1001.0, -1002.0};
  const StabilityLab lab = lab_for(params);
  EXPECT_EQ(lab.format(Format::fp64).run(SoftmaxVariant::naive).report.nan_count, 3);
  EXPECT_TRUE(lab.format(Format::fp64).run(SoftmaxVariant::stable).report.finite());
}

TEST(StabilityLab, Fp16NaiveOverflowsExactlyAboveLargestFiniteExpInput) {
  // The neighbours of fp16's threshold (≈ 11.09) among fp16 values (spacing 2^-7 in [8, 16)),
  // so that rounding the score to fp16 does not move it across the threshold.
  const double threshold = largest_finite_exp_input(Format::fp16);
  const double below = std::floor(threshold * 128.0) / 128.0;
  const double above = below + 1.0 / 128.0;
  ASSERT_LE(below, threshold);
  ASSERT_GT(above, threshold);
  ASSERT_EQ(round_to(Format::fp16, below), below);
  ASSERT_EQ(round_to(Format::fp16, above), above);

  Params params;
  params.format = Format::fp16;
  params.scores = {below, 0.0};
  const StabilityLab fits = lab_for(params);
  EXPECT_EQ(fits.format(Format::fp16).largest_finite_exp_input, threshold);
  EXPECT_TRUE(fits.format(Format::fp16).run(SoftmaxVariant::naive).report.finite())
      << "score " << below << " is at or below the threshold " << threshold;

  params.scores = {above, 0.0};
  const StabilityLab overflows = lab_for(params);
  const StabilityRun& naive = overflows.format(Format::fp16).run(SoftmaxVariant::naive);
  // exp(above) = inf, the sum is inf: inf/inf = NaN for the entry, 1/inf = 0 for the other.
  EXPECT_EQ(naive.nan_entries, std::vector<int>{0}) << "score " << above << " > threshold " << threshold;
  EXPECT_EQ(naive.underflow_entries, std::vector<int>{1});
  // Stable shifts by the max: exponents 0 and −above, both finite.
  EXPECT_TRUE(overflows.format(Format::fp16).run(SoftmaxVariant::stable).report.finite());
  EXPECT_TRUE(overflows.format(Format::fp16).run(SoftmaxVariant::online).report.finite());
}

TEST(StabilityLab, OnlineEqualsStableInFp64) {
  // Tolerance 1e-15 absolute: both are double kernels within a few ulp of the exact weights
  // (≤ 1, so an ulp is ≤ 2.2e-16); the online one rescales its sum at each new max.
  Params dashboard_row;
  dashboard_row.seq_len = 256;
  dashboard_row.score_scale = 7.0;
  Params custom;
  custom.scores = {3.0, -1.0, 40.0, 39.5, -700.0, 12.0, 41.0, 0.0};
  custom.temperature = 0.7;
  for (const Params& params : {Params{}, dashboard_row, custom}) {
    const StabilityLab lab = lab_for(params);
    const StabilityFormat& fp64 = lab.format(Format::fp64);
    for (std::size_t i = 0; i < lab.scores.size(); ++i)
      EXPECT_NEAR(fp64.run(SoftmaxVariant::online).weights[i], fp64.run(SoftmaxVariant::stable).weights[i], 1e-15)
          << "entry " << i << ", " << describe(params);
  }
}

TEST(StabilityLab, ScoresAreTheDashboardRow) {
  // The lab reproduces evaluate()'s row (custom × score_scale, or score_scale·q·k (÷√d_k)) bit for bit.
  Params unscaled;
  unscaled.scaled = false;
  unscaled.row = 5;
  unscaled.key_dim = 17;
  unscaled.seed = 9;
  Params custom;
  custom.scores = {1.0, -std::numeric_limits<double>::infinity(), 2.5};
  custom.score_scale = 3.0;
  for (const Params& params : {Params{}, unscaled, custom}) {
    const StabilityLab lab = lab_for(params);
    const Snapshot snapshot = evaluate(params);
    EXPECT_EQ(lab.scores, snapshot.scores) << describe(params);
    EXPECT_EQ(lab.custom_scores, snapshot.custom_scores);
  }
}

TEST(StabilityLab, HandingInTheSnapshotRowGivesTheSameLab) {
  // evaluate_stability_lab(out, params, snapshot.shown) skips redrawing the keys; same result.
  Params params;
  params.seq_len = 200;
  params.row = 150;
  params.score_scale = 9.0;
  const StabilityLab own = lab_for(params);
  StabilityLab handed;
  evaluate_stability_lab(handed, params, evaluate(params).shown);
  EXPECT_EQ(own.scores, handed.scores);
  for (Format format : all_formats) {
    for (SoftmaxVariant variant : all_softmax_variants) {
      const auto& a = own.format(format).run(variant);
      const auto& b = handed.format(format).run(variant);
      EXPECT_EQ(a.nan_entries, b.nan_entries);
      EXPECT_EQ(a.underflow_entries, b.underflow_entries);
      for (std::size_t i = 0; i < a.weights.size(); ++i) EXPECT_TRUE(same_value(a.weights[i], b.weights[i]));
    }
  }
  for (std::size_t cell = 0; cell < own.naive_fp16.weights.size(); ++cell)
    EXPECT_TRUE(same_value(own.naive_fp16.weights[cell], handed.naive_fp16.weights[cell])) << "cell " << cell;
}

TEST(StabilityLab, CountsAndWeightsEqualADirectSoftmaxInFormatCall) {
  Params overflow;
  overflow.score_scale = 8.0;  // the "overflow fp16" preset: logits up to ~20
  Params masked;
  masked.scores = {5.0, -std::numeric_limits<double>::infinity(), -30.0, 90.0, 0.0};
  masked.temperature = 0.5;
  for (const Params& params : {Params{}, overflow, masked}) {
    const StabilityLab lab = lab_for(params);
    for (Format format : all_formats) {
      for (SoftmaxVariant variant : all_softmax_variants) {
        std::vector<double> weights(lab.scores.size());
        const PrecisionReport direct = softmax_in_format(weights, lab.scores, format, variant, params.temperature);
        const StabilityRun& run = lab.format(format).run(variant);
        const std::string where = std::string(format_name(format)) + " variant " +
                                  std::to_string(static_cast<int>(variant)) + ", " + describe(params);
        EXPECT_EQ(run.report.inf_count, direct.inf_count) << where;
        EXPECT_EQ(run.report.nan_count, direct.nan_count) << where;
        EXPECT_EQ(run.report.underflow_count, direct.underflow_count) << where;
        EXPECT_TRUE(same_value(run.report.sum_error, direct.sum_error)) << where;
        EXPECT_TRUE(same_value(run.report.max_abs_error, direct.max_abs_error)) << where;
        EXPECT_EQ(static_cast<int>(run.inf_entries.size()), direct.inf_count) << where;
        EXPECT_EQ(static_cast<int>(run.nan_entries.size()), direct.nan_count) << where;
        EXPECT_EQ(static_cast<int>(run.underflow_entries.size()), direct.underflow_count) << where;
        for (std::size_t i = 0; i < weights.size(); ++i)
          EXPECT_TRUE(same_value(run.weights[i], weights[i])) << where << " entry " << i;
      }
    }
  }
}

// The naive and stable fp16 maps recomputed from scratch with the core's own functions.
struct DirectMaps {
  std::vector<double> naive, stable;
};
DirectMaps direct_maps(const Params& params, int size) {
  Matrix queries, keys;
  draw_gaussian(queries, params.seed, Stream::queries, size, params.key_dim);
  draw_gaussian(keys, params.seed, Stream::keys, size, params.key_dim);
  Matrix raw;
  dot_product_scores(raw, queries, keys);  // the dashboard's map kernel
  DirectMaps maps;
  std::vector<double> scores(static_cast<std::size_t>(size)), weights(scores.size());
  for (int i = 0; i < size; ++i) {
    // q·k, ÷√d_k when scaled, as the dashboard's (see stability.hpp).
    const double inverse_sqrt_dim = params.scaled ? 1.0 / std::sqrt(static_cast<double>(params.key_dim)) : 1.0;
    for (int j = 0; j < size; ++j)
      scores[static_cast<std::size_t>(j)] = params.score_scale * inverse_sqrt_dim * static_cast<double>(raw(i, j));
    softmax_in_format(weights, scores, Format::fp16, SoftmaxVariant::naive, params.temperature);
    maps.naive.insert(maps.naive.end(), weights.begin(), weights.end());
    softmax_in_format(weights, scores, Format::fp16, SoftmaxVariant::stable, params.temperature);
    maps.stable.insert(maps.stable.end(), weights.begin(), weights.end());
  }
  return maps;
}

TEST(StabilityLab, NaiveFp16HeatmapHasNaNExactlyWhereADirectRecomputationSays) {
  Params unscaled;
  unscaled.scaled = false;
  Params large = unscaled;
  large.seq_len = 40;
  large.key_dim = 200;
  large.seed = 3;
  Params lesson;  // the stability lesson's step 7: scaled, × 12
  lesson.score_scale = 12.0;
  for (const Params& params : {unscaled, large, lesson}) {
    const StabilityLab lab = lab_for(params);
    ASSERT_EQ(lab.map_size, params.seq_len);
    const DirectMaps direct = direct_maps(params, lab.map_size);
    int nan_cells = 0;
    for (std::size_t cell = 0; cell < direct.naive.size(); ++cell) {
      EXPECT_EQ(std::isnan(lab.naive_fp16.weights[cell]), std::isnan(direct.naive[cell]))
          << "cell " << cell << ", " << describe(params);
      EXPECT_TRUE(same_value(lab.naive_fp16.weights[cell], direct.naive[cell])) << "cell " << cell;
      EXPECT_TRUE(same_value(lab.stable_fp16.weights[cell], direct.stable[cell])) << "cell " << cell;
      nan_cells += std::isnan(direct.naive[cell]) ? 1 : 0;
    }
    EXPECT_EQ(lab.naive_fp16.nan_cells, nan_cells);
    // The point of the pair: at these settings (logits of std ≥ 8) the naive map breaks and the
    // stable one does not.
    EXPECT_GT(lab.naive_fp16.nan_cells, 0) << describe(params);
    EXPECT_EQ(lab.stable_fp16.nan_cells, 0) << describe(params);
    EXPECT_EQ(lab.stable_fp16.inf_cells, 0) << describe(params);
  }
}

TEST(StabilityLab, HeatmapsHonourTheScalingSwitch) {
  // The maps divide by √d_k when Params::scaled, as the dashboard does. At d_k = 64 the
  // scaled logits have std 1 and stay far below fp16's 11.09; unscaled they have std 8.
  Params params;
  const StabilityLab scaled = lab_for(params);
  params.scaled = false;
  const StabilityLab unscaled = lab_for(params);
  EXPECT_NEAR(unscaled.map_max_logit, 8.0 * scaled.map_max_logit, 1e-9 * unscaled.map_max_logit);
  EXPECT_EQ(scaled.naive_fp16.nan_cells, 0);
  EXPECT_GT(unscaled.naive_fp16.nan_cells, 0);
}

TEST(StabilityLab, HeatmapIsCappedAt128) {
  Params params;
  params.seq_len = 300;
  params.row = 250;  // a row beyond the map still gets its scores
  const StabilityLab lab = lab_for(params);
  EXPECT_EQ(lab.map_size, stability_map_max_size);
  EXPECT_EQ(lab.naive_fp16.weights.size(), static_cast<std::size_t>(128 * 128));
  EXPECT_EQ(lab.scores, evaluate(params).scores);
}

TEST(StabilityLab, StableRowsSumToOneWithinTheFormatsRounding) {
  // Stable softmax never overflows or makes NaN in any format with a finite row, and its sum
  // drifts from 1 by at most about n·ε (the sum accumulates in the format itself).
  Params params;
  params.score_scale = 8.0;
  const StabilityLab lab = lab_for(params);
  const double n = static_cast<double>(lab.scores.size());
  for (Format format : all_formats) {
    const PrecisionReport& report = lab.format(format).run(SoftmaxVariant::stable).report;
    EXPECT_TRUE(report.finite()) << format_name(format);
    EXPECT_LE(report.sum_error, 2.0 * n * format_info(format).epsilon) << format_name(format);
  }
}

TEST(StabilityLab, LargestZeroExpInputIsTheUnderflowBoundary) {
  for (Format format : all_formats) {
    const double x = largest_zero_exp_input(format);
    EXPECT_EQ(round_to(format, std::exp(x)), 0.0) << format_name(format) << " x=" << x;
    EXPECT_GT(round_to(format, std::exp(std::nextafter(x, 0.0))), 0.0) << format_name(format) << " x=" << x;
  }
  // exp(x) rounds to 0 at or below half the smallest subnormal (ties to even 0):
  // fp16 ln(2^-25) = −17.33, fp32 ln(2^-150) = −103.97.
  EXPECT_NEAR(largest_zero_exp_input(Format::fp16), -25.0 * std::log(2.0), 1e-12);
  EXPECT_NEAR(largest_zero_exp_input(Format::fp32), -150.0 * std::log(2.0), 1e-12);
}

TEST(StabilityLab, ExpCurveIsExpOverTheDocumentedRange) {
  const StabilityLab lab = lab_for(Params{});
  ASSERT_EQ(lab.exp_x.size(), static_cast<std::size_t>(stability_exp_curve_points));
  EXPECT_EQ(lab.exp_x.front(), stability_exp_curve_min);
  EXPECT_EQ(lab.exp_x.back(), stability_exp_curve_max);
  for (std::size_t k = 0; k < lab.exp_x.size(); ++k) EXPECT_EQ(lab.exp_y[k], std::exp(lab.exp_x[k]));
}

TEST(StabilityLab, IsDeterministic) {
  Params params;
  params.score_scale = 8.0;
  const StabilityLab first = lab_for(params), second = lab_for(params);
  EXPECT_EQ(first.scores, second.scores);
  for (std::size_t cell = 0; cell < first.naive_fp16.weights.size(); ++cell)
    EXPECT_TRUE(same_value(first.naive_fp16.weights[cell], second.naive_fp16.weights[cell]));
}

}  // namespace
}  // namespace smlab
