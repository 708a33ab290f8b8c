// Tests of the temperature lab's numbers (core/src/labs/temperature.cpp): small multiples equal
// softmax at their T, entropy rises with T between its two limits, and the nudge demo is continuous
// for softmax and a step for hardmax.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/temperature.hpp"
#include "smlab/softmax.hpp"
#include "lab_test_support.hpp"

namespace smlab {
namespace {

using lab_test::describe;
using lab_test::show;
using lab_test::softmax_of;

constexpr double kInf = std::numeric_limits<double>::infinity();

Params with_scores(std::vector<double> scores, double temperature = 1.0, double nudge = 0.0) {
  Params params;
  params.scores = std::move(scores);
  params.temperature = temperature;
  params.nudge = nudge;
  return params;
}

TemperatureLab lab_of(const Params& params) {
  TemperatureLab lab;
  evaluate_temperature_lab(lab, params);
  return lab;
}

// Eight panels in ascending T, exactly one of them the current T (replacing the base temperature
// nearest in log T), each exactly softmax(scores/T) with its entropy: the lab calls the same kernel.
TEST(TemperatureLab, SmallMultiplesAreSoftmaxAtTheirTemperatures) {
  for (double temperature : {0.01, 0.05, 0.07, 0.3, 1.0, 1.4, 3.3, 20.0, 100.0}) {
    Params params;
    params.temperature = temperature;
    params.seq_len = 24;
    params.row = 3;
    const TemperatureLab lab = lab_of(params);
    SCOPED_TRACE(describe(params));
    ASSERT_EQ(lab.multiples.size(), base_multiple_temperatures.size());
    int current = 0;
    for (std::size_t k = 0; k < lab.multiples.size(); ++k) {
      const TemperatureMultiple& multiple = lab.multiples[k];
      if (k > 0) {
        EXPECT_LT(lab.multiples[k - 1].temperature, multiple.temperature) << "k=" << k;
      }
      if (multiple.is_current) {
        ++current;
        EXPECT_EQ(multiple.temperature, temperature);
        EXPECT_EQ(static_cast<int>(k), lab.current_multiple);
        // Nearest in log T: no base temperature is closer.
        for (double base : base_multiple_temperatures)
          EXPECT_GE(std::abs(std::log(base / temperature)) + 1e-15,
                    std::abs(std::log(base_multiple_temperatures[k] / temperature)));
      } else {
        EXPECT_EQ(multiple.temperature, base_multiple_temperatures[k]);
      }
      const std::vector<double> direct = softmax_of(lab.scores, multiple.temperature);
      EXPECT_EQ(multiple.probabilities, direct) << "T=" << multiple.temperature;
      EXPECT_EQ(multiple.entropy_nats, entropy_nats(direct));
      EXPECT_EQ(multiple.max_weight, max_weight(direct));
    }
    EXPECT_EQ(current, 1);
  }
}

// H(T) of softmax(x/T) never decreases with T: dH/dT = Var_s(x)/T³ ≥ 0 (the variance of the scores
// under s). Checked on the 121-point curve; tolerance 1e-13 nats for rounding where H is flat
// (both ends saturate).
TEST(TemperatureLab, EntropyIsMonotoneInTemperature) {
  std::vector<Params> cases{Params{}, with_scores({1, 2, 3}), with_scores({-2, -1, 0.5, 3}),
                            with_scores({0.3, -kInf, 0.3, 1.2, -4.0})};
  Params long_row;
  long_row.seq_len = 512;
  long_row.row = 100;
  cases.push_back(long_row);
  for (const Params& params : cases) {
    const TemperatureLab lab = lab_of(params);
    SCOPED_TRACE(describe(params));
    ASSERT_EQ(lab.curve_entropy_nats.size(), static_cast<std::size_t>(entropy_curve_points));
    for (std::size_t k = 1; k < lab.curve_entropy_nats.size(); ++k) {
      EXPECT_LT(lab.curve_temperatures[k - 1], lab.curve_temperatures[k]);
      EXPECT_GE(lab.curve_entropy_nats[k], lab.curve_entropy_nats[k - 1] - 1e-13)
          << "T=" << lab.curve_temperatures[k - 1] << " → " << lab.curve_temperatures[k];
    }
    EXPECT_DOUBLE_EQ(lab.curve_temperatures.front(), ParamLimits::temperature_min);
    EXPECT_DOUBLE_EQ(lab.curve_temperatures.back(), ParamLimits::temperature_max);
    // Between the two limits everywhere (1e-13: rounding of the entropy sum).
    for (double entropy : lab.curve_entropy_nats) {
      EXPECT_GE(entropy, lab.argmax_limit_entropy_nats - 1e-13);
      EXPECT_LE(entropy, lab.uniform_limit_entropy_nats + 1e-13);
    }
  }
}

// The limits: T → 0 is hardmax (H = 0 for a unique max, ln k for k tied), T → ∞ is uniform over
// the m unmasked scores (ln m). On [1, 2, 3] the curve's ends are within e^{−100}·100 of 0 at
// T = 0.01 and within Var(x)/(2T²) = (2/3)/(2·10⁴) ≈ 3.4e-5 of ln 3 at T = 100.
TEST(TemperatureLab, EntropyLimitsAreArgmaxAndUniform) {
  {
    const TemperatureLab lab = lab_of(with_scores({1, 2, 3}));
    EXPECT_EQ(lab.argmax_limit_entropy_nats, 0.0);
    EXPECT_EQ(lab.tied_at_max, 1);
    EXPECT_DOUBLE_EQ(lab.uniform_limit_entropy_nats, std::log(3.0));
    EXPECT_NEAR(lab.curve_entropy_nats.front(), 0.0, 1e-40);
    EXPECT_NEAR(lab.curve_entropy_nats.back(), std::log(3.0), 3.5e-5);
  }
  {
    const TemperatureLab lab = lab_of(with_scores({3, 1, 3, -kInf}));
    EXPECT_EQ(lab.tied_at_max, 2);
    EXPECT_DOUBLE_EQ(lab.argmax_limit_entropy_nats, std::log(2.0));
    EXPECT_DOUBLE_EQ(lab.uniform_limit_entropy_nats, std::log(3.0));  // the masked key never counts
  }
}

// The nudge is added to the second-largest score of the row (before the nudge), and only to it.
TEST(TemperatureLab, NudgeMovesOnlyTheSecondLargestScore) {
  const Params params = with_scores({0.5, 2.0, -1.0, 1.7}, 1.0, 0.9);
  const TemperatureLab lab = lab_of(params);
  SCOPED_TRACE(describe(params));
  EXPECT_TRUE(lab.has_second);
  EXPECT_EQ(lab.top_index, 1);
  EXPECT_EQ(lab.second_index, 3);
  EXPECT_DOUBLE_EQ(lab.gap, 0.3);
  EXPECT_EQ(lab.base_scores, params.scores);
  EXPECT_EQ(lab.scores, (std::vector<double>{0.5, 2.0, -1.0, 1.7 + 0.9}));
  // The current read-outs are softmax and hardmax of the nudged row.
  const std::vector<double> direct = softmax_of(lab.scores, params.temperature);
  EXPECT_EQ(lab.current_softmax_top, direct[1]);
  EXPECT_EQ(lab.current_softmax_second, direct[3]);
  EXPECT_EQ(lab.current_hardmax_top, 0.0);  // 2.6 > 2.0: the runner-up has overtaken
  EXPECT_EQ(lab.current_hardmax_second, 1.0);
}

// Continuity: ∂s_b/∂δ = s_b(1 − s_b)/T and ∂s_a/∂δ = −s_a s_b/T are both at most 1/(4T) in size, so
// between grid points δ apart softmax moves at most δ/(4T) = 0.025/4 at T = 1 (plus 1e-15 rounding).
// Hardmax instead is 1 before the tie δ = gap, exactly 1/2 at it, 0 after: it jumps from 1 to 0
// across two grid steps, however fine the grid.
TEST(TemperatureLab, SoftmaxMovesSmoothlyWhileHardmaxJumps) {
  std::vector<Params> cases{with_scores({0.5, 2.0, -1.0, 1.7}), with_scores({1, 2, 3}), Params{},
                            with_scores({2.0, 2.0, 0.0})};
  for (const Params& params : cases) {
    const TemperatureLab lab = lab_of(params);
    SCOPED_TRACE(describe(params) + " gap=" + std::to_string(lab.gap));
    ASSERT_TRUE(lab.has_second);
    ASSERT_LE(lab.gap, 3.0);
    const std::vector<double>& grid = lab.nudge_grid;
    // The even grid, plus the tie point δ = gap unless it already lies on it.
    EXPECT_EQ(std::count(grid.begin(), grid.end(), lab.gap), 1);
    EXPECT_TRUE(grid.size() == static_cast<std::size_t>(nudge_curve_points) ||
                grid.size() == static_cast<std::size_t>(nudge_curve_points) + 1)
        << grid.size();
    EXPECT_EQ(grid.front(), ParamLimits::nudge_min);
    EXPECT_EQ(grid.back(), ParamLimits::nudge_max);
    double largest_softmax_step = 0.0;
    for (std::size_t j = 1; j < grid.size(); ++j) {
      EXPECT_LT(grid[j - 1], grid[j]);
      const double bound = (grid[j] - grid[j - 1]) / (4.0 * params.temperature) + 1e-15;
      EXPECT_LE(std::abs(lab.softmax_top[j] - lab.softmax_top[j - 1]), bound) << "δ=" << grid[j];
      EXPECT_LE(std::abs(lab.softmax_second[j] - lab.softmax_second[j - 1]), bound) << "δ=" << grid[j];
      largest_softmax_step = std::max(largest_softmax_step, std::abs(lab.softmax_top[j] - lab.softmax_top[j - 1]));
    }
    EXPECT_LE(largest_softmax_step, 0.025 / 4.0 + 1e-15);
    bool saw_tie = false;
    for (std::size_t j = 0; j < grid.size(); ++j) {
      const double expected_top = grid[j] < lab.gap ? 1.0 : grid[j] == lab.gap ? 0.5 : 0.0;
      saw_tie = saw_tie || grid[j] == lab.gap;
      EXPECT_EQ(lab.hardmax_top[j], expected_top) << "δ=" << grid[j];
      EXPECT_EQ(lab.hardmax_second[j], 1.0 - expected_top) << "δ=" << grid[j];
    }
    EXPECT_TRUE(saw_tie);
  }
}

// The swap's width against the closed form: with two keys the top's weight is the logistic
// 1 / (1 + e^((δ − gap)/T)), so it reaches a level w at δ = gap + T ln(1/w − 1), the levels being
// 90% and 10% of its swing between δ = −3 and δ = +3. The bisection ends within 6 / 2^60 of the
// root; a weight rounded by ~1e-16 moves the root by ~1e-16 · T / (w(1 − w)) ≤ 2e-15 · T at these
// levels: 1e-12 · (1 + T) leaves room for the closed form's own rounding.
TEST(TemperatureLab, TheSwapWidthIsTheClosedFormOfTwoKeys) {
  for (const auto& [temperature, gap] :
       std::vector<std::pair<double, double>>{{1.0, 0.2}, {0.05, 0.2}, {2.0, 1.5}, {0.3, 3.6}}) {
    const TemperatureLab lab = lab_of(with_scores({1.0 + gap, 1.0}, temperature));
    SCOPED_TRACE("T=" + std::to_string(temperature) + " gap=" + std::to_string(gap));
    const auto weight = [&](double nudge) { return 1.0 / (1.0 + std::exp((nudge - gap) / temperature)); };
    const double high = weight(ParamLimits::nudge_min), low = weight(ParamLimits::nudge_max);
    const auto at = [&](double level) { return gap + temperature * std::log(1.0 / level - 1.0); };
    EXPECT_NEAR(lab.swap_from, at(low + 0.9 * (high - low)), 1e-12 * (1.0 + temperature));
    EXPECT_NEAR(lab.swap_to, at(low + 0.1 * (high - low)), 1e-12 * (1.0 + temperature));
    EXPECT_LT(lab.swap_from, lab.swap_to);
  }
  // Far from the slider's ends the swing is all of [0, 1] and the width is 2 T ln 9.
  const TemperatureLab cold = lab_of(with_scores({1.0, 1.0}, 0.05));
  EXPECT_NEAR(cold.swap_to - cold.swap_from, 2.0 * 0.05 * std::log(9.0), 1e-12);
  EXPECT_TRUE(std::isnan(lab_of(with_scores({1.0})).swap_from));
}

// A gap beyond the slider's reach: hardmax never flips in [−3, 3]; softmax still moves.
TEST(TemperatureLab, NoFlipWhenTheGapExceedsTheNudgeRange) {
  const TemperatureLab lab = lab_of(with_scores({0.0, 5.0}));
  EXPECT_DOUBLE_EQ(lab.gap, 5.0);
  EXPECT_EQ(lab.nudge_grid.size(), static_cast<std::size_t>(nudge_curve_points));
  for (std::size_t j = 0; j < lab.nudge_grid.size(); ++j) EXPECT_EQ(lab.hardmax_top[j], 1.0) << j;
  EXPECT_GT(lab.softmax_second.back(), 10.0 * lab.softmax_second.front());
}

// One score, or a runner-up that is masked: nothing to nudge, the curves are empty.
TEST(TemperatureLab, NothingToNudgeWithoutASecondScore) {
  for (const Params& params : {with_scores({1.0}, 1.0, 2.0), with_scores({1.0, -kInf}, 1.0, 2.0)}) {
    const TemperatureLab lab = lab_of(params);
    SCOPED_TRACE(describe(params));
    EXPECT_FALSE(lab.has_second);
    EXPECT_TRUE(lab.nudge_grid.empty());
    EXPECT_EQ(lab.scores, params.scores);
    EXPECT_EQ(lab.multiples.size(), base_multiple_temperatures.size());
  }
}

// The lab starts from the dashboard's row (selected_row_scores) when no custom scores are set.
TEST(TemperatureLab, StartsFromTheDashboardRow) {
  Params params;
  params.seq_len = 30;
  params.row = 7;
  params.score_scale = 2.5;
  std::vector<double> row;
  selected_row_scores(row, params);
  EXPECT_EQ(lab_of(params).base_scores, row);
}

}  // namespace
}  // namespace smlab
