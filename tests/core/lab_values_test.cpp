// Tests of the value side (core/src/labs/values.cpp): one query's output against a long-double
// reference, its limits in T, masked keys, and multi-head attention as concat then W_O.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/values.hpp"
#include "smlab/random.hpp"
#include "lab_test_support.hpp"

namespace smlab {
namespace {

using lab_test::show;
constexpr double kEps = std::numeric_limits<double>::epsilon();

DenseMatrix random_matrix(int rows, int cols, std::uint64_t seed, double sigma = 1.0) {
  DenseMatrix m{rows, cols, std::vector<double>(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))};
  NormalGenerator normal(seed);
  for (double& x : m.values) x = sigma * normal.next();
  return m;
}

// Reference: weights and output in long double (64-bit mantissa, 2048× finer than double).
void reference_output(std::vector<long double>& weights, std::vector<long double>& output,
                      const std::vector<double>& scores, const DenseMatrix& values, double temperature) {
  long double top = -std::numeric_limits<long double>::infinity();
  for (double s : scores) top = std::max(top, static_cast<long double>(s));
  long double sum = 0;
  weights.assign(scores.size(), 0);
  for (std::size_t j = 0; j < scores.size(); ++j) {
    weights[j] = std::isinf(scores[j]) ? 0.0L : std::exp((static_cast<long double>(scores[j]) - top) / temperature);
    sum += weights[j];
  }
  for (auto& w : weights) w /= sum;
  output.assign(static_cast<std::size_t>(values.cols), 0);
  for (int j = 0; j < values.rows; ++j)
    for (int c = 0; c < values.cols; ++c)
      output[static_cast<std::size_t>(c)] += weights[static_cast<std::size_t>(j)] * values(j, c);
}

// Weights: softmax is ≤ ~4 ulp relative (softmax.hpp), the reference's own error ~1e-19: 1e-14
// relative. Output: L products and sums each rounding by ε, plus the weights' 4ε, so the error is
// ≤ (L + 8)·ε·Σ_j w_j |v_jc|.
TEST(ValuesLab, QueryOutputMatchesLongDoubleReference) {
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const int length = 2 + static_cast<int>(seed % 30), dim = 1 + static_cast<int>(seed % 7);
    const double temperature = std::pow(10.0, -1.5 + 0.15 * static_cast<double>(seed));
    const DenseMatrix values = random_matrix(length, dim, seed);
    const DenseMatrix score_matrix = random_matrix(1, length, seed + 1000, 3.0);
    const std::vector<double> scores = score_matrix.values;
    std::vector<double> weights(scores.size()), output(static_cast<std::size_t>(dim));
    ASSERT_TRUE(query_output(weights, output, scores, values, temperature));
    std::vector<long double> ref_weights, ref_output;
    reference_output(ref_weights, ref_output, scores, values, temperature);
    SCOPED_TRACE("T=" + std::to_string(temperature) + " scores=" + show(scores));
    for (std::size_t j = 0; j < weights.size(); ++j)
      EXPECT_NEAR(weights[j], static_cast<double>(ref_weights[j]), 1e-14 * static_cast<double>(ref_weights[j])) << j;
    for (int c = 0; c < dim; ++c) {
      double magnitude = 0.0;
      for (int j = 0; j < length; ++j)
        magnitude += static_cast<double>(ref_weights[static_cast<std::size_t>(j)]) * std::abs(values(j, c));
      EXPECT_NEAR(output[static_cast<std::size_t>(c)], static_cast<double>(ref_output[static_cast<std::size_t>(c)]),
                  (length + 8) * kEps * magnitude)
          << "c=" << c;
    }
  }
}

TEST(ValuesLab, OutputLiesInsideTheValuesRangeAndMaskedKeysAddNothing) {
  const DenseMatrix values = random_matrix(6, 3, 7);
  std::vector<double> scores{0.5, -1.0, 2.0, -std::numeric_limits<double>::infinity(), 0.1, 1.2};
  std::vector<double> weights(6), output(3);
  ASSERT_TRUE(query_output(weights, output, scores, values, 0.7));
  EXPECT_EQ(weights[3], 0.0);
  for (int c = 0; c < 3; ++c) {
    double low = 1e300, high = -1e300, without = 0.0;
    for (int j = 0; j < 6; ++j) {
      if (j == 3) continue;
      low = std::min(low, values(j, c));
      high = std::max(high, values(j, c));
      without += weights[static_cast<std::size_t>(j)] * values(j, c);
    }
    EXPECT_GE(output[static_cast<std::size_t>(c)], low);
    EXPECT_LE(output[static_cast<std::size_t>(c)], high);
    EXPECT_NEAR(output[static_cast<std::size_t>(c)], without, 1e-15);  // the masked row's value never enters
  }
}

// T → 0: the output is the value of the largest score; T → ∞: the mean of the values. At the
// sweep's ends (T = 0.01 and 100) the distance is bounded by the weights' distance from the limit:
// T = 0.01 with a top gap g leaves ≤ (L−1)e^{−g/T} on the others; T = 100 moves each weight by
// ≤ |x_j − x̄|/T relative (first order), so ≤ 2·max|x|/T·max|v|.
TEST(ValuesLab, SweepEndsApproachTheArgmaxValueAndTheMean) {
  ValuesSettings settings;
  settings.seq_len = 12;
  settings.value_dim = 5;
  for (std::uint64_t seed : {1ull, 2ull, 42ull}) {
    settings.seed = seed;
    ValuesLab lab;
    evaluate_values_lab(lab, settings);
    std::vector<double> sorted = lab.scores;
    std::sort(sorted.rbegin(), sorted.rend());
    const double gap = sorted[0] - sorted[1], largest = std::max(std::abs(sorted.front()), std::abs(sorted.back()));
    double value_max = 0.0;
    for (double v : lab.values.values) value_max = std::max(value_max, std::abs(v));
    const int last = values_sweep_points - 1;
    SCOPED_TRACE("seed=" + std::to_string(seed) + " scores=" + show(lab.scores));
    for (int c = 0; c < settings.value_dim; ++c) {
      EXPECT_NEAR(lab.sweep_outputs(0, c), lab.argmax_value[static_cast<std::size_t>(c)],
                  2.0 * value_max * (settings.seq_len - 1) * std::exp(-gap / 0.01) + 1e-15);
      EXPECT_NEAR(lab.sweep_outputs(last, c), lab.value_mean[static_cast<std::size_t>(c)],
                  2.5 * largest / 100.0 * value_max);
    }
  }
}

TEST(ValuesLab, ScoresAreTheDashboardRow) {
  Params params;
  params.seq_len = 10;
  params.key_dim = 32;
  params.row = 3;
  params.score_scale = 1.7;
  std::vector<double> dashboard;
  selected_row_scores(dashboard, params);
  ValuesSettings settings;
  settings.seq_len = 10;
  settings.key_dim = 32;
  settings.row = 3;
  settings.score_scale = 1.7;
  ValuesLab lab;
  evaluate_values_lab(lab, settings);
  ASSERT_EQ(lab.scores.size(), dashboard.size());
  for (std::size_t j = 0; j < dashboard.size(); ++j)
    EXPECT_NEAR(lab.scores[j], dashboard[j], 4 * kEps * std::abs(dashboard[j])) << j;
}

// Long-double reference of the whole multi-head forward pass.
struct ReferenceMultiHead {
  std::vector<long double> concatenated, output;
};
ReferenceMultiHead reference_multi_head(const DenseMatrix& q, const DenseMatrix& k, const DenseMatrix& v,
                                        const DenseMatrix& w, int heads, double temperature, bool scaled) {
  const int length = q.rows, model = q.cols, head_dim = model / heads;
  ReferenceMultiHead out;
  out.concatenated.assign(static_cast<std::size_t>(length * model), 0);
  out.output.assign(static_cast<std::size_t>(length * model), 0);
  const long double scale = scaled ? 1.0L / std::sqrt(static_cast<long double>(head_dim)) : 1.0L;
  for (int m = 0; m < heads; ++m)
    for (int i = 0; i < length; ++i) {
      std::vector<long double> e(static_cast<std::size_t>(length));
      long double top = -1e4000L, sum = 0;
      for (int j = 0; j < length; ++j) {
        long double dot = 0;
        for (int c = m * head_dim; c < (m + 1) * head_dim; ++c) dot += static_cast<long double>(q(i, c)) * k(j, c);
        e[static_cast<std::size_t>(j)] = scale * dot / temperature;
        top = std::max(top, e[static_cast<std::size_t>(j)]);
      }
      for (auto& x : e) sum += (x = std::exp(x - top));
      for (int j = 0; j < length; ++j)
        for (int c = 0; c < head_dim; ++c)
          out.concatenated[static_cast<std::size_t>(i * model + m * head_dim + c)] +=
              e[static_cast<std::size_t>(j)] / sum * v(j, m * head_dim + c);
    }
  for (int i = 0; i < length; ++i)
    for (int c = 0; c < model; ++c)
      for (int r = 0; r < model; ++r)
        out.output[static_cast<std::size_t>(i * model + c)] +=
            out.concatenated[static_cast<std::size_t>(i * model + r)] * w(r, c);
  return out;
}

// Tolerance: scores (d_head products), softmax (4 ulp), L products, then d_model products: a few
// hundred ε times the magnitudes, which are O(10) here: 1e-12 absolute.
TEST(ValuesLab, MultiHeadIsConcatenationThenOutputProjection) {
  for (int heads : {1, 2, 4}) {
    const int length = 7, model = 8;
    const DenseMatrix q = random_matrix(length, model, 11), k = random_matrix(length, model, 12),
                      v = random_matrix(length, model, 13), w = random_matrix(model, model, 14, 0.35);
    MultiHeadAttention out;
    multi_head_attention(out, q, k, v, w, heads, 0.8, true);
    const ReferenceMultiHead ref = reference_multi_head(q, k, v, w, heads, 0.8, true);
    SCOPED_TRACE("heads=" + std::to_string(heads));
    for (std::size_t i = 0; i < ref.output.size(); ++i) {
      EXPECT_NEAR(out.concatenated.values[i], static_cast<double>(ref.concatenated[i]), 1e-12) << i;
      EXPECT_NEAR(out.output.values[i], static_cast<double>(ref.output[i]), 1e-12) << i;
    }
    for (const DenseMatrix& map : out.head_weights)
      for (int i = 0; i < length; ++i) {
        double sum = 0.0;
        for (int j = 0; j < length; ++j) sum += map(i, j);
        EXPECT_NEAR(sum, 1.0, 1e-15);
      }
    // Averaging the maps is a different function whenever the heads disagree.
    double difference = 0.0;
    for (std::size_t i = 0; i < out.output.values.size(); ++i)
      difference = std::max(difference, std::abs(out.output.values[i] - out.averaged_map_output.values[i]));
    if (heads == 1)
      EXPECT_NEAR(difference, 0.0, 1e-13);
    else
      EXPECT_GT(difference, 1e-3);
  }
}

// When every head has the same Q and K blocks its map is the same A, so concat(A V_m)·W_O equals
// (A V)·W_O: the average of identical maps. The two agree to rounding (1e-13).
TEST(ValuesLab, AverageOfMapsEqualsMultiHeadOnlyWhenHeadsAgree) {
  const int length = 5, heads = 3, head_dim = 2, model = heads * head_dim;
  const DenseMatrix q1 = random_matrix(length, head_dim, 21), k1 = random_matrix(length, head_dim, 22);
  DenseMatrix q{length, model, std::vector<double>(length * model)}, k = q;
  for (int i = 0; i < length; ++i)
    for (int m = 0; m < heads; ++m)
      for (int c = 0; c < head_dim; ++c) {
        q.at(i, m * head_dim + c) = q1(i, c);
        k.at(i, m * head_dim + c) = k1(i, c);
      }
  const DenseMatrix v = random_matrix(length, model, 23), w = random_matrix(model, model, 24);
  MultiHeadAttention out;
  multi_head_attention(out, q, k, v, w, heads, 1.0, true);
  for (std::size_t i = 0; i < out.output.values.size(); ++i)
    EXPECT_NEAR(out.output.values[i], out.averaged_map_output.values[i], 1e-13) << i;
}

TEST(ValuesLab, LabReportsTheConcatVersusAverageDifference) {
  ValuesSettings settings;
  settings.heads = 4;
  ValuesLab lab;
  evaluate_values_lab(lab, settings);
  EXPECT_EQ(lab.multi_head.heads, 4);
  EXPECT_EQ(lab.multi_head.model_dim, 4 * settings.value_dim);
  EXPECT_GT(lab.concat_vs_average_difference, 1e-3);
  settings.heads = 1;
  evaluate_values_lab(lab, settings);
  EXPECT_LT(lab.concat_vs_average_difference, 1e-13);
}

// The heatmap's colour range comes from the core (once per Snapshot, not per frame): max |v_jc| over
// the L×d_v values, exact (a maximum rounds nothing), attained by a cell, and no float cell is
// outside ±that. Reference: the V the lab drew, scanned in long double; a second seed and shape
// change it (it is not a constant).
TEST(ValuesLab, ValuesAbsMaxIsTheLargestMagnitudeOfV) {
  double previous = -1.0;
  for (const auto& [seed, length, dim] : {std::tuple{42ULL, 8, 4}, std::tuple{7ULL, 64, 16}, std::tuple{3ULL, 2, 1}}) {
    ValuesSettings settings;
    settings.seed = seed;
    settings.seq_len = length;
    settings.value_dim = dim;
    ValuesLab lab;
    evaluate_values_lab(lab, settings);
    ASSERT_EQ(lab.values.values.size(), static_cast<std::size_t>(length * dim));
    long double reference = 0.0L;
    for (const double v : lab.values.values) reference = std::max(reference, std::fabs(static_cast<long double>(v)));
    EXPECT_EQ(static_cast<long double>(lab.values_abs_max), reference) << "seed " << seed;
    EXPECT_GT(lab.values_abs_max, 0.0);
    for (const float cell : lab.value_cells) EXPECT_LE(std::abs(cell), static_cast<float>(lab.values_abs_max));
    EXPECT_NE(lab.values_abs_max, previous) << "seed " << seed;
    previous = lab.values_abs_max;
  }
}

}  // namespace
}  // namespace smlab
