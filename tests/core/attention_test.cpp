// Attention variants: properties of the weight maps (rows sum to 1, masks, bounds, invariances)
// and agreement with evaluate()'s maps and with direct double-precision recomputations.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/kernels.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr ScoreVariant all_variants[] = {ScoreVariant::dot, ScoreVariant::scaled_dot, ScoreVariant::cosine,
                                         ScoreVariant::additive, ScoreVariant::layer_norm};

std::string describe(const AttentionSetup& s) {
  std::ostringstream out;
  out << "variant=" << variant_name(s.variant) << " L=" << s.seq_len << " d_k=" << s.key_dim << " h=" << s.heads
      << " causal=" << s.causal << " amplitude=" << s.positional_amplitude << " sigma=" << s.sigma
      << " T=" << s.temperature << " score_scale=" << s.score_scale << " seed=" << s.seed;
  return out.str();
}

AttentionSetup small_setup(ScoreVariant variant) {
  AttentionSetup setup;
  setup.seq_len = 12;
  setup.key_dim = 8;
  setup.variant = variant;
  setup.additive_dim = 6;
  return setup;
}

double row_sum(const Matrix& m, int r) {
  double sum = 0.0;
  for (int c = 0; c < m.cols; ++c) sum += m(r, c);
  return sum;
}

// Every row is a distribution. Float weights summed in double: each of L ≤ 64 entries carries
// a relative rounding error of a few 2⁻²⁴ ≈ 6e-8, so 1e-5 is generous but far below any real bug.
TEST(AttentionWeights, RowsSumToOneForEveryVariantMaskAndHeadCount) {
  for (ScoreVariant variant : all_variants)
    for (bool causal : {false, true})
      for (int heads : {1, 3}) {
        AttentionSetup setup = small_setup(variant);
        setup.causal = causal;
        setup.heads = heads;
        setup.positional_amplitude = 0.5;
        Matrix weights;
        attention_weights(weights, setup);
        ASSERT_EQ(weights.rows, setup.seq_len);
        ASSERT_EQ(weights.cols, setup.seq_len);
        for (int r = 0; r < weights.rows; ++r)
          EXPECT_NEAR(row_sum(weights, r), 1.0, 1e-5) << describe(setup) << " row=" << r;
      }
}

// exp(−inf) = 0 exactly, so masked weights are exactly 0 (not merely small), and the first
// query, which sees only key 0, puts all of its weight there: exactly 1.
TEST(AttentionWeights, CausalMaskGivesExactZerosAndOneHotFirstRow) {
  for (ScoreVariant variant : all_variants)
    for (int heads : {1, 2}) {
      AttentionSetup setup = small_setup(variant);
      setup.causal = true;
      setup.heads = heads;
      Matrix weights;
      attention_weights(weights, setup);
      for (int i = 0; i < setup.seq_len; ++i)
        for (int j = i + 1; j < setup.seq_len; ++j)
          EXPECT_EQ(weights(i, j), 0.0f) << describe(setup) << " i=" << i << " j=" << j;
      EXPECT_EQ(weights(0, 0), 1.0f) << describe(setup);
      // Below the diagonal the weights stay positive: the mask hides the future only.
      EXPECT_GT(weights(setup.seq_len - 1, 0), 0.0f) << describe(setup);
    }
}

// γ·cos(q, k) with |cos| ≤ 1. The bound must hold exactly, also for near-parallel pairs (a
// large positional shift makes all vectors alike) and for vectors shorter than ε.
TEST(AttentionScores, CosineScoresAreBoundedByGamma) {
  for (double sigma : {1.0, 1e-9})
    for (double amplitude : {0.0, 50.0}) {
      AttentionSetup setup = small_setup(ScoreVariant::cosine);
      setup.cosine_gamma = 7.5;
      setup.sigma = sigma;
      setup.positional_amplitude = amplitude;
      AttentionWorkspace workspace;
      Matrix scores;
      attention_scores(scores, setup, 0, workspace);
      float largest = 0.0f;
      for (float s : scores.values) largest = std::max(largest, std::abs(s));
      EXPECT_LE(largest, static_cast<float>(setup.cosine_gamma)) << describe(setup);
      // Self-similarity of a query with its own position's key is not forced, but with a
      // shift of 50 every vector points almost the same way, so the bound is nearly reached.
      if (amplitude > 0.0 && sigma == 1.0) {
        EXPECT_GT(largest, 0.99f * setup.cosine_gamma) << describe(setup);
      }
    }
}

// LN(c·x) = c(x − μ)/sqrt(c²var + ε) = (x − μ)/sqrt(var + ε/c²) for c > 0, so scaling the input
// changes the output only through ε: LN(c·x) = ρ·LN(x) with ρ = sqrt((var + ε)/(var + ε/c²)).
// Checked two ways: (1) that exact relation, to float rounding (|y| ≤ √d, 2⁻²⁴ per operation on
// a handful of operations: 1e-6·|y| + 1e-7); (2) plain invariance |LN(cx) − LN(x)| within the ε
// effect |ρ − 1| ≈ ε·|1 − 1/c²| / (2·var), taken ×2 for safety, plus the same rounding.
// draw_gaussian_reusing copies what `previous` holds and draws the rest: the same bits as a fresh
// draw_gaussian for growing and shrinking rows and columns, odd widths (half a Box–Muller pair)
// included, and σ ≠ 1.
TEST(DrawGaussian, ReusingAnotherShapeGivesTheSameBitsAsAFreshDraw) {
  const int shapes[][2] = {{5, 4}, {5, 5}, {5, 3}, {9, 3}, {2, 8}, {2, 7}, {300, 64}, {301, 65}, {299, 63}, {1, 1}};
  for (const double sigma : {1.0, 0.25}) {
    Matrix previous;
    draw_gaussian(previous, 11, Stream::keys, 3, 6, sigma);
    for (const auto& shape : shapes) {
      Matrix reused, fresh;
      draw_gaussian_reusing(reused, previous, 11, Stream::keys, shape[0], shape[1], sigma);
      draw_gaussian(fresh, 11, Stream::keys, shape[0], shape[1], sigma);
      EXPECT_EQ(reused.rows, shape[0]);
      EXPECT_EQ(reused.cols, shape[1]);
      EXPECT_EQ(reused.values, fresh.values) << shape[0] << " x " << shape[1] << " after " << previous.rows << " x "
                                             << previous.cols << ", sigma " << sigma;
      previous = std::move(reused);
    }
  }
}

TEST(LayerNorm, OutputIsInvariantToScalingTheInputByPositiveC) {
  constexpr double epsilon = 1e-5;
  Matrix x;
  draw_gaussian(x, 7, Stream::queries, 20, 8);
  Matrix reference;
  layer_norm_rows(reference, x, epsilon);
  for (double c : {0.1, 3.0, 1000.0}) {
    Matrix scaled = x;
    for (float& v : scaled.values) v = static_cast<float>(v * c);
    Matrix normalised;
    layer_norm_rows(normalised, scaled, epsilon);
    for (int r = 0; r < x.rows; ++r) {
      double mean = 0.0, variance = 0.0;
      for (int col = 0; col < x.cols; ++col) mean += x(r, col) / x.cols;
      for (int col = 0; col < x.cols; ++col) variance += (x(r, col) - mean) * (x(r, col) - mean) / x.cols;
      const double rho = std::sqrt((variance + epsilon) / (variance + epsilon / (c * c)));
      const double epsilon_effect = 2.0 * epsilon * std::abs(1.0 - 1.0 / (c * c)) / (2.0 * variance);
      for (int col = 0; col < x.cols; ++col) {
        const double y = reference(r, col), y_scaled = normalised(r, col);
        EXPECT_NEAR(y_scaled, rho * y, 1e-6 * std::abs(y) + 1e-7) << "c=" << c << " row " << r << " col " << col;
        EXPECT_NEAR(y_scaled, y, (epsilon_effect + 1e-6) * std::abs(y) + 1e-7)
            << "c=" << c << " row " << r << " col " << col << " var=" << variance;
      }
    }
  }
}

// The same invariance end to end: σ scales every q and k, and LayerNorm removes it.
// (1) With ε = 1e-12 nothing but float rounding is left: the draws σ·x and the LN outputs are
//     rounded to float (2⁻²⁴ relative), logits are O(3), so weights move by a few 1e-7
//     relative; 1e-5 is the tolerance.
// (2) With the default ε = 1e-5 the invariance is "up to ε": LN divides by sqrt(σ²v + ε) for a
//     row of sample variance v (≥ ~0.05 here), a relative change ≤ ε/(2v) ≈ 1e-4 in each LN
//     output against σ = 1, so ≤ 2·1e-4·|logit| ≲ 1e-3 in each logit and ≤ 2e-3 relative in
//     each weight for σ ≥ 1. Once σ²v ≪ ε, ε dominates and the map flattens: at σ = 1e-3 the
//     mean row entropy rises by more than 0.3 nats.
TEST(LayerNorm, AttentionWeightsAreInvariantToSigmaUpToEpsilon) {
  auto max_relative_change = [](const Matrix& a, const Matrix& b) {
    double worst = 0.0;
    for (std::size_t i = 0; i < a.values.size(); ++i)
      worst = std::max(worst, std::abs(double{a.values[i]} - b.values[i]) / b.values[i]);
    return worst;
  };
  for (double epsilon : {1e-12, 1e-5}) {
    AttentionSetup setup = small_setup(ScoreVariant::layer_norm);
    setup.layer_norm_epsilon = epsilon;
    Matrix reference;
    attention_weights(reference, setup);
    for (double sigma : epsilon < 1e-6 ? std::vector<double>{0.01, 0.3, 4.0, 100.0} : std::vector<double>{4.0, 100.0}) {
      setup.sigma = sigma;
      Matrix weights;
      attention_weights(weights, setup);
      EXPECT_LE(max_relative_change(weights, reference), epsilon < 1e-6 ? 1e-5 : 2e-3) << describe(setup);
    }
    if (epsilon == 1e-5) {
      setup.sigma = 1e-3;
      Matrix flattened;
      attention_weights(flattened, setup);
      EXPECT_GT(mean_row_entropy_nats(flattened), mean_row_entropy_nats(reference) + 0.3) << describe(setup);
    }
  }
}

// The average of h maps is a distribution per row and equals (1/h) Σ_m A_m. The average is
// formed in float; recomputed in double from the per-head maps it agrees within h·2⁻²⁴ ≈ 3e-7.
TEST(MultiHead, AverageRowsSumToOneAndEqualTheMeanOfTheHeads) {
  for (ScoreVariant variant : all_variants) {
    AttentionSetup setup = small_setup(variant);
    setup.heads = 4;
    setup.causal = variant == ScoreVariant::cosine;
    AttentionWorkspace workspace;
    std::vector<Matrix> heads(4);
    Matrix average;
    attention_weights(average, setup, workspace, heads);
    for (int r = 0; r < setup.seq_len; ++r)
      EXPECT_NEAR(row_sum(average, r), 1.0, 1e-5) << describe(setup) << " row=" << r;
    for (std::size_t i = 0; i < average.values.size(); ++i) {
      double mean = 0.0;
      for (const Matrix& head : heads) mean += head.values[i];
      mean /= 4.0;
      EXPECT_NEAR(average.values[i], mean, 1e-6) << describe(setup) << " entry " << i;
    }
    // The heads really differ (they own different columns of the draw).
    EXPECT_NE(heads[0].values, heads[1].values) << describe(setup);
  }
}

// Head 0 of an h-head setup owns columns [0, d_k) of the wide draw, which are the single-head
// draw itself: adding heads never changes the first one.
TEST(MultiHead, HeadZeroIsTheSingleHeadMap) {
  for (ScoreVariant variant : all_variants) {
    AttentionSetup setup = small_setup(variant);
    Matrix single;
    attention_weights(single, setup);
    setup.heads = 3;
    std::vector<Matrix> heads(3);
    Matrix average;
    AttentionWorkspace workspace;
    attention_weights(average, setup, workspace, heads);
    EXPECT_EQ(heads[0].values, single.values) << describe(setup);
  }
}

// PE(pos, 2i) = sin(pos / 10000^{2i/d}), PE(pos, 2i+1) = cos(pos / 10000^{2i/d}); with d = 4
// the two frequencies are 1 and 1/10000^{1/2} = 1/100. Stored as float: 1e-7 tolerance.
TEST(PositionalEncoding, MatchesTheFormulaAtHandComputedPoints) {
  Matrix pe;
  positional_encoding(pe, 3, 4);
  ASSERT_EQ(pe.rows, 3);
  ASSERT_EQ(pe.cols, 4);
  struct Point {
    int pos, column;
    double expected;
  };
  const Point points[] = {
      {0, 0, 0.0},                   // sin 0
      {0, 1, 1.0},                   // cos 0
      {0, 3, 1.0},                   // cos 0
      {1, 0, 0.8414709848078965},    // sin 1
      {1, 1, 0.5403023058681398},    // cos 1
      {1, 2, 0.009999833334166664},  // sin(1/100)
      {2, 3, 0.9998000066665778},    // cos(2/100)
      {2, 0, 0.9092974268256817},    // sin 2
  };
  for (const Point& p : points)
    EXPECT_NEAR(pe(p.pos, p.column), p.expected, 1e-7) << "pos=" << p.pos << " column=" << p.column;
  // d = 512: column 2i = 256 has 10000^{256/512} = 100 as well.
  positional_encoding(pe, 8, 512);
  EXPECT_NEAR(pe(7, 256), std::sin(7.0 / 100.0), 1e-7);
  EXPECT_NEAR(pe(7, 257), std::cos(7.0 / 100.0), 1e-7);
}

// Amplitude 0 must not perturb a single bit; a nonzero amplitude must change the map.
TEST(PositionalEncoding, AmplitudeZeroReproducesPlainAttentionExactly) {
  for (ScoreVariant variant : all_variants) {
    AttentionSetup setup = small_setup(variant);
    Matrix plain;
    attention_weights(plain, setup);
    setup.positional_amplitude = 0.0;
    Matrix with_zero;
    attention_weights(with_zero, setup);
    EXPECT_EQ(with_zero.values, plain.values) << describe(setup);
    setup.positional_amplitude = 1.0;
    Matrix with_positions;
    attention_weights(with_positions, setup);
    EXPECT_NE(with_positions.values, plain.values) << describe(setup);
  }
}

// Additive scores recomputed from the same draws entirely in double:
//   score(i, j) = Σ_a v_a tanh(Σ_c Wq_ac q_ic + Σ_c Wk_ac k_jc).
// The kernel rounds the projections to float and evaluates tanh in float: |Δ| ≤ d_a·|v|·~1e-7
// ≈ 1e-6, so 1e-5 on scores (O(1)) and 1e-6 on weights.
TEST(Additive, MatchesDirectDoublePrecisionRecomputation) {
  AttentionSetup setup;
  setup.seq_len = 5;
  setup.key_dim = 3;
  setup.additive_dim = 4;
  setup.heads = 2;
  setup.variant = ScoreVariant::additive;
  setup.temperature = 0.7;
  setup.score_scale = 1.3;
  const int head = 1, d = setup.key_dim, d_a = setup.additive_dim, L = setup.seq_len;
  Matrix q, k, wq, wk, v;
  draw_gaussian(q, setup.seed, Stream::queries, L, setup.heads * d);
  draw_gaussian(k, setup.seed, Stream::keys, L, setup.heads * d);
  draw_gaussian(wq, setup.seed, Stream::additive_query_weights, setup.heads * d_a, d, 1.0 / std::sqrt(3.0));
  draw_gaussian(wk, setup.seed, Stream::additive_key_weights, setup.heads * d_a, d, 1.0 / std::sqrt(3.0));
  draw_gaussian(v, setup.seed, Stream::additive_vector, setup.heads, d_a, 0.5);
  std::vector<double> expected(static_cast<std::size_t>(L * L));
  for (int i = 0; i < L; ++i)
    for (int j = 0; j < L; ++j) {
      double score = 0.0;
      for (int a = 0; a < d_a; ++a) {
        double pre = 0.0;
        for (int c = 0; c < d; ++c)
          pre +=
              double{wq(head * d_a + a, c)} * q(i, head * d + c) + double{wk(head * d_a + a, c)} * k(j, head * d + c);
        score += double{v(head, a)} * std::tanh(pre);
      }
      expected[static_cast<std::size_t>(i * L + j)] = score;
    }
  AttentionWorkspace workspace;
  Matrix scores;
  attention_scores(scores, setup, head, workspace);
  for (int i = 0; i < L * L; ++i) EXPECT_NEAR(scores.values[i], expected[i], 1e-5) << describe(setup) << " entry " << i;

  std::vector<Matrix> heads(2);
  Matrix average;
  attention_weights(average, setup, workspace, heads);
  std::vector<double> row(static_cast<std::size_t>(L)), probabilities(static_cast<std::size_t>(L));
  for (int i = 0; i < L; ++i) {
    for (int j = 0; j < L; ++j) row[j] = setup.score_scale * expected[static_cast<std::size_t>(i * L + j)];
    softmax(probabilities, row, setup.temperature);
    for (int j = 0; j < L; ++j)
      EXPECT_NEAR(heads[1](i, j), probabilities[j], 1e-6) << describe(setup) << " i=" << i << " j=" << j;
  }
}

// The variant path for the plain and scaled dot product is evaluate()'s path: the same draws,
// the same Q Kᵀ kernel and the same logit scale handed to softmax_rows_inplace. Bit for bit.
TEST(AttentionWeights, PlainAndScaledEqualTheEvaluatePathExactly) {
  for (int key_dim : {1, 7, 64})
    for (double temperature : {0.3, 1.0})
      for (bool scaled : {false, true}) {
        Params params;
        params.seq_len = 19;
        params.key_dim = key_dim;
        params.temperature = temperature;
        params.score_scale = 1.7;
        params.scaled = scaled;
        // The evaluate()-style path, spelled out (its fast kernels; kernels_test holds them to the
        // scalar references).
        Matrix queries, keys, expected;
        draw_gaussian(queries, params.seed, Stream::queries, params.seq_len, params.key_dim);
        draw_gaussian(keys, params.seed, Stream::keys, params.seq_len, params.key_dim);
        dot_product_scores_fast(expected, queries, keys);
        const double unscaled_logit_scale = params.score_scale / params.temperature;
        softmax_rows_fast(
            expected.values, params.seq_len, params.seq_len,
            scaled ? unscaled_logit_scale / std::sqrt(static_cast<double>(key_dim)) : unscaled_logit_scale);
        Matrix weights;
        attention_weights(weights, attention_setup(params));
        EXPECT_EQ(weights.values, expected.values) << "d_k=" << key_dim << " T=" << temperature << " scaled=" << scaled;
        // And evaluate() itself.
        EvaluateOptions options;
        options.dk_trials = 1;
        const Snapshot snap = *evaluate(params, options);
        EXPECT_EQ(weights.values, attention_map(snap, scaled))
            << "d_k=" << key_dim << " T=" << temperature << " scaled=" << scaled;
      }
}

// Reusing a workspace across different setups must not leak state from one into the next.
TEST(AttentionWeights, WorkspaceReuseGivesTheSameResultAsAFreshOne) {
  AttentionWorkspace shared;
  for (ScoreVariant variant : all_variants)
    for (int heads : {2, 1}) {
      AttentionSetup setup = small_setup(variant);
      setup.heads = heads;
      setup.seq_len = 9 + heads;
      Matrix reused, fresh;
      attention_weights(reused, setup, shared);
      attention_weights(fresh, setup);
      EXPECT_EQ(reused.values, fresh.values) << describe(setup);
    }
}

// Uniform rows have entropy ln L; one-hot rows 0. Exact up to the double sum: 1e-12.
TEST(MeanRowEntropy, UniformIsLnLAndOneHotIsZero) {
  Matrix uniform{4, 4, std::vector<float>(16, 0.25f)};
  EXPECT_NEAR(mean_row_entropy_nats(uniform), std::log(4.0), 1e-12);
  AttentionSetup setup = small_setup(ScoreVariant::scaled_dot);
  setup.causal = true;
  setup.temperature = 1e-4;  // every row collapses onto its largest visible score
  Matrix sharp;
  attention_weights(sharp, setup);
  EXPECT_NEAR(mean_row_entropy_nats(sharp), 0.0, 1e-6) << describe(setup);
  // The scaled map spreads its weight more than the unscaled one at large d_k.
  setup = small_setup(ScoreVariant::scaled_dot);
  setup.key_dim = 512;
  Matrix scaled_map, unscaled_map;
  attention_weights(scaled_map, setup);
  setup.variant = ScoreVariant::dot;
  attention_weights(unscaled_map, setup);
  EXPECT_GT(mean_row_entropy_nats(scaled_map), mean_row_entropy_nats(unscaled_map) + 0.5) << describe(setup);
}

// A V with the identity as A returns V; with a uniform A, the column means of V.
TEST(AttentionOutput, IdentityWeightsReturnTheValues) {
  Matrix values;
  draw_gaussian(values, 3, Stream::values, 4, 5);
  Matrix identity{4, 4, std::vector<float>(16, 0.0f)};
  for (int i = 0; i < 4; ++i) identity.values[static_cast<std::size_t>(i * 4 + i)] = 1.0f;
  Matrix out;
  attention_output(out, identity, values);
  EXPECT_EQ(out.values, values.values);
  Matrix uniform{4, 4, std::vector<float>(16, 0.25f)};
  attention_output(out, uniform, values);
  for (int c = 0; c < 5; ++c) {
    double mean = 0.0;
    for (int r = 0; r < 4; ++r) mean += values(r, c) / 4.0;
    for (int r = 0; r < 4; ++r) EXPECT_NEAR(out(r, c), mean, 1e-6) << "r=" << r << " c=" << c;
  }
}

}  // namespace
}  // namespace smlab
