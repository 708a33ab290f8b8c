// Tests of the heads lab's numbers (core/src/labs/heads.cpp): the average is the mean of the
// heads, every row is a distribution, one head is its own average, and the row read-outs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

#include "smlab/evaluate.hpp"
#include "smlab/labs/heads.hpp"

namespace smlab {
namespace {

std::string describe(const Params& p) {
  std::ostringstream out;
  out << "h=" << p.heads << " L=" << p.seq_len << " d_k=" << p.key_dim << " row=" << p.row << " T=" << p.temperature
      << " score_scale=" << p.score_scale << " causal=" << p.causal << " seed=" << p.seed;
  return out.str();
}

std::vector<Params> parameter_cases() {
  std::vector<Params> cases;
  for (int heads : {1, 2, 4, 16})
    for (bool causal : {false, true}) {
      Params params;
      params.heads = heads;
      params.causal = causal;
      params.row = 5;
      cases.push_back(params);
    }
  cases[3].temperature = 0.3;
  cases[5].key_dim = 4096;  // the budget shortens L' to 16
  cases[5].seq_len = 100;
  return cases;
}

// The core sums the heads in float in head order and divides by h; the mean in double differs
// by at most ~h float ulps of values ≤ 1: 1e-6 absolute.
TEST(HeadsLab, AverageEqualsTheMeanOfTheHeads) {
  for (const Params& params : parameter_cases()) {
    HeadsLab lab;
    evaluate_heads_lab(lab, params);
    ASSERT_EQ(lab.heads, params.heads);
    ASSERT_EQ(lab.head_weights.size(), static_cast<std::size_t>(params.heads));
    for (int r = 0; r < lab.seq_len; ++r)
      for (int c = 0; c < lab.seq_len; ++c) {
        double mean = 0.0;
        for (const Matrix& head : lab.head_weights) mean += head(r, c);
        mean /= params.heads;
        ASSERT_NEAR(lab.average(r, c), mean, 1e-6) << describe(params) << " at (" << r << ", " << c << ")";
      }
  }
}

// Every head's rows and the average's rows are distributions (float weights, summed in
// double: within ~1e-7 of 1; 1e-6 tolerance). Masked keys are exactly 0 in every map.
TEST(HeadsLab, EveryRowOfEveryHeadAndOfTheAverageSumsToOne) {
  for (const Params& params : parameter_cases()) {
    HeadsLab lab;
    evaluate_heads_lab(lab, params);
    std::vector<const Matrix*> maps{&lab.average};
    for (const Matrix& head : lab.head_weights) maps.push_back(&head);
    for (std::size_t m = 0; m < maps.size(); ++m)
      for (int r = 0; r < lab.seq_len; ++r) {
        double sum = 0.0;
        for (int c = 0; c < lab.seq_len; ++c) {
          sum += (*maps[m])(r, c);
          if (params.causal && c > r) {
            ASSERT_EQ((*maps[m])(r, c), 0.0f) << describe(params) << " map " << m << " at (" << r << ", " << c << ")";
          }
        }
        EXPECT_NEAR(sum, 1.0, 1e-6) << describe(params) << " map " << m << " (0 = average) row " << r;
      }
  }
}

// With one head there is nothing to average: the average is that head bit for bit, and it is
// evaluate()'s scaled single-head map (same kernel, no mask, L' = L).
TEST(HeadsLab, OneHeadIsItsOwnAverageAndTheDashboardMap) {
  Params params;
  params.heads = 1;
  HeadsLab lab;
  evaluate_heads_lab(lab, params);
  ASSERT_EQ(lab.head_weights.size(), 1u);
  EXPECT_EQ(lab.average.values, lab.head_weights[0].values);
  EXPECT_EQ(lab.average.values, attention_map(evaluate(params), true));
  EXPECT_EQ(lab.average_entropy_nats, lab.head_entropy_nats[0]);
  EXPECT_EQ(lab.average_row, lab.head_rows[0]);
}

// Adding heads adds columns to the draw and never changes the earlier heads: head 0 of h = 4
// is the one-head map, and head m of h = 4 is head m of h = 16.
TEST(HeadsLab, EarlierHeadsDoNotChangeWhenHeadsAreAdded) {
  Params params;
  params.heads = 1;
  HeadsLab one, four, sixteen;
  evaluate_heads_lab(one, params);
  params.heads = 4;
  evaluate_heads_lab(four, params);
  params.heads = 16;
  evaluate_heads_lab(sixteen, params);
  EXPECT_EQ(four.head_weights[0].values, one.head_weights[0].values);
  for (std::size_t m = 0; m < 4; ++m)
    EXPECT_EQ(sixteen.head_weights[m].values, four.head_weights[m].values) << "head " << m;
}

// The row read-outs are the maps' rows; argmax, entropies and the clamp of the row to L'.
TEST(HeadsLab, RowReadOutsAreTheRowsOfTheMaps) {
  for (const Params& params : parameter_cases()) {
    HeadsLab lab;
    evaluate_heads_lab(lab, params);
    ASSERT_EQ(lab.row, std::min(params.row, lab.seq_len - 1)) << describe(params);
    for (std::size_t m = 0; m < lab.head_weights.size(); ++m) {
      ASSERT_EQ(lab.head_rows[m].size(), static_cast<std::size_t>(lab.seq_len));
      for (int c = 0; c < lab.seq_len; ++c)
        EXPECT_EQ(lab.head_rows[m][static_cast<std::size_t>(c)], lab.head_weights[m](lab.row, c));
      const auto top = std::max_element(lab.head_rows[m].begin(), lab.head_rows[m].end());
      EXPECT_EQ(lab.head_row_argmax[m], top - lab.head_rows[m].begin()) << describe(params);
      EXPECT_GE(lab.head_row_entropy_nats[m], 0.0);
    }
    for (int c = 0; c < lab.seq_len; ++c)
      EXPECT_EQ(lab.average_row[static_cast<std::size_t>(c)], lab.average(lab.row, c));
    EXPECT_GE(lab.distinct_head_argmaxes, 1);
    EXPECT_LE(lab.distinct_head_argmaxes, params.heads);
  }
  Params params;
  params.seq_len = 4096;
  params.row = 4000;
  HeadsLab lab;
  evaluate_heads_lab(lab, params);
  EXPECT_EQ(lab.seq_len, 128);
  EXPECT_TRUE(lab.capped);
  EXPECT_EQ(lab.row, 127);
  EXPECT_TRUE(lab.row_clamped);
}

// The lesson: sharp heads that look at different keys average into a multi-modal row. At
// T = 0.05 every head is sharp (mean max weight > 0.85 over its rows) and sharper in row 0 than
// the average (lower entropy); the heads' argmaxes differ (seed 42, row 0, 4 heads), so the
// average row has several peaks — never more than the distinct argmaxes, since each peak above
// a quarter of the row's largest weight needs a head that put most of its weight there.
TEST(HeadsLab, SharpHeadsAverageIntoAMultiModalRow) {
  Params params;
  params.temperature = 0.05;
  params.heads = 4;
  HeadsLab lab;
  evaluate_heads_lab(lab, params);
  for (std::size_t m = 0; m < lab.head_rows.size(); ++m) {
    EXPECT_GT(lab.head_max_weight[m], 0.85) << describe(params) << " head " << m;
    EXPECT_LT(lab.head_row_entropy_nats[m], lab.average_row_entropy_nats) << describe(params) << " head " << m;
  }
  EXPECT_GE(lab.distinct_head_argmaxes, 2) << describe(params);
  EXPECT_GE(lab.average_row_peaks, 2) << describe(params);
  EXPECT_LE(lab.average_row_peaks, lab.distinct_head_argmaxes) << describe(params);
  // max_j (1/h) Σ_m w_mj ≤ (1/h) Σ_m max_j w_mj, row by row: averaging never sharpens.
  double mean_head_max = 0.0;
  for (double w : lab.head_max_weight) mean_head_max += w / lab.heads;
  EXPECT_LE(lab.average_max_weight, mean_head_max + 1e-7) << describe(params);
}

// The colour ranges the panels use come from the core: each map's largest finite weight, equal
// to a direct scan of the map (exact: a max involves no rounding), and largest_finite skips NaN
// and ±inf.
TEST(HeadsLab, LargestWeightsAreEachMapsMaximum) {
  Params params;
  params.heads = 5;
  params.temperature = 0.2;
  HeadsLab lab;
  evaluate_heads_lab(lab, params);
  ASSERT_EQ(lab.head_largest_weight.size(), 5u);
  for (std::size_t m = 0; m < 5; ++m) {
    const auto& values = lab.head_weights[m].values;
    EXPECT_EQ(lab.head_largest_weight[m], *std::max_element(values.begin(), values.end())) << "head " << m;
  }
  EXPECT_EQ(lab.average_largest_weight, *std::max_element(lab.average.values.begin(), lab.average.values.end()));
  const Matrix special{1, 4, {0.25f, std::nanf(""), std::numeric_limits<float>::infinity(), 0.5f}};
  EXPECT_EQ(largest_finite(special), 0.5f);
  EXPECT_EQ(largest_finite(Matrix{}), 0.0f);
}

}  // namespace
}  // namespace smlab
