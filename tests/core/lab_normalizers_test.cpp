// Tests of the normalizers lab's numbers (core/src/labs/normalizers.cpp): the shared row equals the
// dashboard's, every column equals a direct call of its normaliser, and the lab's marks are right.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/evaluate.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/normalizers.hpp"
#include "smlab/softmax.hpp"
#include "lab_test_support.hpp"

namespace smlab {
namespace {

using lab_test::describe;
using lab_test::show;
using lab_test::softmax_of;

constexpr double kInf = std::numeric_limits<double>::infinity();

Params with_scores(std::vector<double> scores, double temperature = 1.0, double alpha = 1.5) {
  Params params;
  params.scores = std::move(scores);
  params.temperature = temperature;
  params.alpha = alpha;
  return params;
}

const NormalizerColumn& column_of(const NormalizersLab& lab, Normalizer kind) {
  for (const NormalizerColumn& column : lab.columns)
    if (column.kind == kind) return column;
  ADD_FAILURE() << "no column " << normalizer_name(kind);
  return lab.columns.front();
}

// A spread of inputs: the dashboard's row in several configurations and the presets of the lab.
std::vector<Params> sample_params() {
  std::vector<Params> all;
  all.push_back(Params{});
  Params row = Params{};
  row.row = 5;
  row.seq_len = 40;
  row.key_dim = 7;
  row.scaled = false;
  row.score_scale = 0.3;
  row.temperature = 0.7;
  row.alpha = 1.2;
  all.push_back(row);
  all.push_back(with_scores({2.0, 2.1, 2.2}));
  all.push_back(with_scores({1, 2, 3}, 0.5, 1.8));
  all.push_back(with_scores({-2, -1, 0.5, 3}, 2.0, 1.0));
  all.push_back(with_scores({-3, -1, -2}, 1.0, 2.0));
  all.push_back(with_scores({1.5, -kInf, 0.5, 0.2}));
  Params scaled = with_scores({0.1, 0.4, -0.2});
  scaled.score_scale = 25.0;
  all.push_back(scaled);
  return all;
}

// The row the labs start from must be the dashboard's row, bit for bit, or the lab and the
// dashboard would disagree in the last digits shown.
TEST(NormalizersLab, SelectedRowEqualsTheDashboardRowExactly) {
  for (const Params& params : sample_params()) {
    const Snapshot snap = evaluate(params);
    std::vector<double> scores, editable;
    selected_row_scores(scores, editable, params);
    ASSERT_EQ(scores.size(), snap.scores.size()) << describe(params);
    for (std::size_t i = 0; i < scores.size(); ++i)
      EXPECT_EQ(scores[i], snap.scores[i]) << "i=" << i << " " << describe(params);
    // Editable is the row before × score_scale: scaling it reproduces the row to rounding (1 ulp
    // per multiplication: four half-ulps between the two orders, 5e-16 relative).
    for (std::size_t i = 0; i < scores.size(); ++i)
      if (std::isfinite(scores[i])) {
        EXPECT_NEAR(editable[i] * params.score_scale, scores[i], 5e-16 * std::abs(scores[i]) + 1e-300)
            << "i=" << i << " " << describe(params);
      }
    if (!params.scores.empty()) {
      EXPECT_EQ(editable, params.scores) << describe(params);
    }
  }
}

// Each column is exactly what the core's normalize() gives for the same scores, T and α: the lab
// adds no arithmetic of its own, so the comparison is exact (same code path, same inputs).
TEST(NormalizersLab, EachColumnEqualsADirectCallOfItsNormalizer) {
  for (const Params& params : sample_params()) {
    NormalizersLab lab;
    evaluate_normalizers_lab(lab, params);
    ASSERT_EQ(lab.columns.size(), lab_normalizers.size());
    for (std::size_t k = 0; k < lab_normalizers.size(); ++k) {
      const NormalizerColumn& column = lab.columns[k];
      EXPECT_EQ(column.kind, lab_normalizers[k]);
      const NormalizerResult direct = normalize(column.kind, lab.scores, params.temperature, params.alpha);
      ASSERT_EQ(column.result.weights.size(), direct.weights.size());
      for (std::size_t i = 0; i < direct.weights.size(); ++i) {
        if (std::isnan(direct.weights[i])) {
          EXPECT_TRUE(std::isnan(column.result.weights[i]));
        } else {
          EXPECT_EQ(column.result.weights[i], direct.weights[i])
              << normalizer_name(column.kind) << " i=" << i << " " << describe(params);
        }
      }
      EXPECT_EQ(column.result.issue, direct.issue) << normalizer_name(column.kind) << " " << describe(params);
      EXPECT_EQ(column.result.exact_zeros, direct.exact_zeros) << normalizer_name(column.kind);
      EXPECT_EQ(column.result.has_negative, direct.has_negative) << normalizer_name(column.kind);
    }
  }
}

// Sparsemax of [1, 0.8, 0.1, −1] by hand: sorted z = 1, 0.8, 0.1, −1; k = 2 (1 + 2·0.8 = 2.6 > 1.8,
// but 1 + 3·0.1 = 1.3 ≤ 1.9), τ = (1.8 − 1)/2 = 0.4, p = (0.6, 0.4, 0, 0) with exact zeros.
// 1.5-entmax is sparse too: on its support √p_i − z_i/2 is one constant −τ (p_i = (z_i/2 − τ)²),
// and every zero has z_i/2 ≤ τ. Tolerances: 1e-15 absolute for sums of three O(1) numbers;
// 1e-12 for the entmax threshold, which comes from a bisection to adjacent doubles and a final
// renormalisation.
TEST(NormalizersLab, SparsemaxAndEntmaxGiveExactZeros) {
  const Params params = with_scores({1.0, 0.8, 0.1, -1.0}, 1.0, 1.5);
  NormalizersLab lab;
  evaluate_normalizers_lab(lab, params);
  const NormalizerResult& sparse = column_of(lab, Normalizer::sparsemax).result;
  SCOPED_TRACE(describe(params) + " sparsemax=" + show(sparse.weights));
  EXPECT_NEAR(sparse.weights[0], 0.6, 1e-15);
  EXPECT_NEAR(sparse.weights[1], 0.4, 1e-15);
  EXPECT_EQ(sparse.weights[2], 0.0);
  EXPECT_EQ(sparse.weights[3], 0.0);
  EXPECT_EQ(sparse.exact_zeros, 2);
  EXPECT_TRUE(sparse.is_distribution());

  const NormalizerResult& ent = column_of(lab, Normalizer::entmax).result;
  SCOPED_TRACE("entmax=" + show(ent.weights));
  EXPECT_EQ(ent.weights[3], 0.0);
  EXPECT_GE(ent.exact_zeros, 1);
  EXPECT_TRUE(ent.is_distribution());
  double minus_tau = 0.0;
  bool first = true;
  for (std::size_t i = 0; i < ent.weights.size(); ++i) {
    if (ent.weights[i] == 0.0) continue;
    const double value = std::sqrt(ent.weights[i]) - params.scores[i] / 2.0;
    if (first) minus_tau = value;
    first = false;
    EXPECT_NEAR(value, minus_tau, 1e-12) << "support entry " << i;
  }
  for (std::size_t i = 0; i < ent.weights.size(); ++i)
    if (ent.weights[i] == 0.0) {
      EXPECT_LE(params.scores[i] / 2.0, -minus_tau + 1e-12) << "zero entry " << i;
    }

  // Softmax never gives an exact zero for finite scores this close (the smallest is e^{−2}/Σ).
  EXPECT_EQ(column_of(lab, Normalizer::softmax).result.exact_zeros, 0);
  EXPECT_EQ(column_of(lab, Normalizer::sparsemax).max_to_min_ratio, kInf);
}

// α = 1 is softmax and α = 2 is sparsemax: entmax calls those kernels there, so the columns agree
// bit for bit (normalizers.hpp).
TEST(NormalizersLab, EntmaxAtAlphaOneIsSoftmaxAndAtTwoIsSparsemax) {
  for (Params params : sample_params()) {
    NormalizersLab lab;
    params.alpha = 1.0;
    evaluate_normalizers_lab(lab, params);
    EXPECT_EQ(column_of(lab, Normalizer::entmax).result.weights, column_of(lab, Normalizer::softmax).result.weights)
        << describe(params);
    params.alpha = 2.0;
    evaluate_normalizers_lab(lab, params);
    EXPECT_EQ(column_of(lab, Normalizer::entmax).result.weights, column_of(lab, Normalizer::sparsemax).result.weights)
        << describe(params);
  }
}

// The "with negatives" preset: linear x/Σx sums to 1 but has negative weights (flagged with why),
// sigmoid does not sum to 1, ReLU zeroes the negatives, softmax is a distribution. Σ of
// [−2, −1, 0.5, 3] is 0.5, so linear gives [−4, −2, 1, 6] (exact in binary).
TEST(NormalizersLab, NegativeScoresAreFlaggedWithTheReason) {
  const Params params = with_scores({-2, -1, 0.5, 3});
  NormalizersLab lab;
  evaluate_normalizers_lab(lab, params);
  SCOPED_TRACE(describe(params));
  const NormalizerColumn& linear = column_of(lab, Normalizer::linear);
  EXPECT_EQ(linear.result.weights, (std::vector<double>{-4, -2, 1, 6}));
  EXPECT_TRUE(linear.result.has_negative);
  EXPECT_EQ(linear.result.issue, NormalizerIssue::negative_weights);
  EXPECT_FALSE(linear.result.problem.empty());
  EXPECT_TRUE(std::isnan(linear.max_to_min_ratio));
  const NormalizerColumn& sigmoid = column_of(lab, Normalizer::sigmoid);
  EXPECT_EQ(sigmoid.result.issue, NormalizerIssue::does_not_sum_to_one);
  EXPECT_FALSE(sigmoid.result.sums_to_one);
  const NormalizerColumn& relu = column_of(lab, Normalizer::relu);
  EXPECT_TRUE(relu.result.is_distribution());
  EXPECT_EQ(relu.result.exact_zeros, 2);
  EXPECT_TRUE(column_of(lab, Normalizer::softmax).result.is_distribution());
  EXPECT_TRUE(column_of(lab, Normalizer::hardmax).result.is_distribution());
  EXPECT_EQ(column_of(lab, Normalizer::hardmax).result.exact_zeros, 3);
}

// The small-gap example: softmax weights are in the ratio e^{Δ·c/T} (Δ = 0.2), linear ones in the
// ratio of the scores, 2.2/2.0 = 1.1, at every T and scale. Tolerance 1e-13 relative: 2.1·c and
// 2.2·c are rounded, and 0.2 is not exact in binary (a few ulp, amplified by at most Δc/T ≤ 20).
TEST(NormalizersLab, SmallGapExampleShowsExpAmplifyingDifferences) {
  for (double temperature : {0.1, 0.5, 1.0, 4.0})
    for (double scale : {0.5, 1.0, 3.0}) {
      Params params;
      params.temperature = temperature;
      params.score_scale = scale;
      NormalizersLab lab;
      evaluate_normalizers_lab(lab, params);
      const SmallGapExample& gap = lab.small_gap;
      const double expected_softmax = std::exp(0.2 * scale / temperature);
      EXPECT_NEAR(gap.softmax_ratio, expected_softmax, 1e-13 * expected_softmax * 20)
          << "T=" << temperature << " c=" << scale;
      EXPECT_NEAR(gap.linear_ratio, 1.1, 1e-15) << "T=" << temperature << " c=" << scale;
      double sum = 0.0;
      for (double w : gap.softmax_weights) sum += w;
      EXPECT_NEAR(sum, 1.0, 1e-15);
    }
  // At T = 1, c = 1 the softmax ratio 1.2214 already exceeds linear's 1.1; at T = 0.1 it is 7.39.
  Params params;
  params.temperature = 0.1;
  NormalizersLab lab;
  evaluate_normalizers_lab(lab, params);
  EXPECT_GT(lab.small_gap.softmax_ratio, 7.0);
}

// Softmax's max/min ratio is e^{(x_max − x_min)/T}; checked on [1, 2, 3] at T = 0.5: e⁴.
// Tolerance 1e-14 relative: two weights each within ~4 ulp (softmax.hpp).
TEST(NormalizersLab, SoftmaxRatioIsExpOfTheRangeOverT) {
  const Params params = with_scores({1, 2, 3}, 0.5);
  NormalizersLab lab;
  evaluate_normalizers_lab(lab, params);
  EXPECT_NEAR(column_of(lab, Normalizer::softmax).max_to_min_ratio, std::exp(4.0), 1e-14 * std::exp(4.0));
  EXPECT_NEAR(column_of(lab, Normalizer::linear).max_to_min_ratio, 3.0, 1e-15);
}

// The plots' window: everything when n ≤ 64, else 64 consecutive entries centred on the largest
// score, shifted back inside the row at either end.
TEST(NormalizersLab, DisplayWindowKeepsTheTopScoreOnScreen) {
  auto window_for = [](std::size_t n, std::size_t top) {
    std::vector<double> scores(n, 0.0);
    scores[top] = 1.0;
    return display_window(scores, 64);
  };
  struct Case {
    std::size_t n, top, begin, end;
  };
  for (const Case& c : {Case{3, 1, 0, 3}, Case{64, 63, 0, 64}, Case{200, 5, 0, 64}, Case{200, 100, 68, 132},
                        Case{200, 190, 136, 200}, Case{65, 64, 1, 65}}) {
    const IndexWindow window = window_for(c.n, c.top);
    EXPECT_EQ(window.begin, c.begin) << "n=" << c.n << " top=" << c.top;
    EXPECT_EQ(window.end, c.end) << "n=" << c.n << " top=" << c.top;
  }
  Params params;
  params.seq_len = 300;
  NormalizersLab lab;
  evaluate_normalizers_lab(lab, params);
  const IndexWindow expected = display_window(lab.scores);
  EXPECT_EQ(lab.shown.begin, expected.begin);
  EXPECT_EQ(lab.shown.size(), lab_max_shown_entries);
}

}  // namespace
}  // namespace smlab
