// Tests of the positions lab's numbers (core/src/labs/positions.cpp): the encoding formula, a = 0
// reproducing attention without positions, and the uniform → structured → collapsed story.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <utility>

#include "smlab/evaluate.hpp"
#include "smlab/labs/attention_variants.hpp"  // mean_row_max_weight
#include "smlab/labs/positions.hpp"

namespace smlab {
namespace {

using Lab = PositionsLab;

std::string describe(const Params& p) {
  std::ostringstream out;
  out << "L=" << p.seq_len << " d_k=" << p.key_dim << " a=" << p.pe_amplitude << " sigma=" << p.qk_norm
      << " T=" << p.temperature << " score_scale=" << p.score_scale << " scaled=" << p.scaled << " causal=" << p.causal
      << " seed=" << p.seed;
  return out.str();
}

AttentionSetup documented_setup(const Params& p, int seq_len, double sigma, double amplitude) {
  AttentionSetup setup;
  setup.seq_len = seq_len;
  setup.key_dim = p.key_dim;
  setup.seed = p.seed;
  setup.sigma = sigma;
  setup.variant = p.scaled ? ScoreVariant::scaled_dot : ScoreVariant::dot;
  setup.score_scale = p.score_scale;
  setup.temperature = p.temperature;
  setup.causal = p.causal;
  setup.positional_amplitude = amplitude;
  return setup;
}

// PE(pos, 2i) = sin(pos / 10000^{2i/d}), PE(pos, 2i+1) = cos(pos / 10000^{2i/d}), in double.
double pe_formula(int pos, int column, int dim) {
  const double angle = pos / std::pow(10000.0, static_cast<double>(column - column % 2) / dim);
  return column % 2 == 0 ? std::sin(angle) : std::cos(angle);
}

// a = 0 skips the addition: the content map is the map without positions, bit for bit — and
// with σ = 1, no mask and no cap it is evaluate()'s own scaled map. The positional map has
// Q = K = 0, all scores 0, so every row is exactly uniform over the keys it may see.
TEST(PositionsLab, ZeroAmplitudeReproducesTheMapWithoutPositionsExactly) {
  for (bool causal : {false, true}) {
    Params params;
    params.pe_amplitude = 0.0;
    params.causal = causal;
    Lab lab;
    evaluate_positions_lab(lab, params);
    Matrix plain;
    attention_weights(plain, documented_setup(params, lab.seq_len, params.qk_norm, 0.0));
    EXPECT_EQ(lab.content_weights.values, plain.values) << describe(params);
    if (!causal) {
      EXPECT_EQ(lab.content_weights.values, attention_map(evaluate(params), true)) << describe(params);
    }
    for (int r = 0; r < lab.seq_len; ++r)
      for (int c = 0; c < lab.seq_len; ++c) {
        const int visible = causal ? r + 1 : lab.seq_len;
        const float expected = c < visible ? static_cast<float>(1.0 / visible) : 0.0f;
        ASSERT_EQ(lab.position_weights(r, c), expected) << describe(params) << " at (" << r << ", " << c << ")";
      }
    EXPECT_EQ(lab.regime, PositionRegime::uniform) << describe(params);
  }
}

// Spot values of the encoding against the formula in double; the stored floats are within one
// float ulp (≤ 6e-8 for |PE| ≤ 1), so 1e-7 is the tolerance.
TEST(PositionsLab, EncodingMatchesTheSinusoidFormulaAtSpotValues) {
  Params params;
  params.key_dim = 64;
  params.seq_len = 40;
  Lab lab;
  evaluate_positions_lab(lab, params);
  ASSERT_EQ(lab.encoding.rows, 40);
  ASSERT_EQ(lab.encoding.cols, 64);
  EXPECT_EQ(lab.encoding(0, 0), 0.0f);  // sin 0
  EXPECT_EQ(lab.encoding(0, 1), 1.0f);  // cos 0
  EXPECT_NEAR(lab.encoding(5, 0), std::sin(5.0), 1e-7);
  EXPECT_NEAR(lab.encoding(5, 1), std::cos(5.0), 1e-7);
  EXPECT_NEAR(lab.encoding(7, 10), std::sin(7.0 / std::pow(10000.0, 10.0 / 64.0)), 1e-7);
  EXPECT_NEAR(lab.encoding(7, 11), std::cos(7.0 / std::pow(10000.0, 10.0 / 64.0)), 1e-7);
  EXPECT_NEAR(lab.encoding(39, 63), std::cos(39.0 / std::pow(10000.0, 62.0 / 64.0)), 1e-7);

  // d_k > 128: 64 sampled (sin, cos) pairs, each column still the formula at its own index.
  params.key_dim = 1000;
  evaluate_positions_lab(lab, params);
  ASSERT_EQ(lab.encoding.cols, 128);
  ASSERT_EQ(lab.encoding_columns.size(), 128u);
  EXPECT_EQ(lab.encoding_dim, 1000);
  EXPECT_EQ(lab.encoding_columns.front(), 0);
  for (std::size_t c = 0; c < lab.encoding_columns.size(); c += 2) {
    EXPECT_EQ(lab.encoding_columns[c] % 2, 0);
    EXPECT_EQ(lab.encoding_columns[c + 1], lab.encoding_columns[c] + 1);
    if (c > 0) {
      EXPECT_GT(lab.encoding_columns[c], lab.encoding_columns[c - 2]);
    }
  }
  EXPECT_GT(lab.encoding_columns.back(), 900);  // the slow waves are in the picture
  for (int pos : {0, 3, 17, 39})
    for (int c : {0, 1, 31, 64, 127})
      EXPECT_NEAR(lab.encoding(pos, c), pe_formula(pos, lab.encoding_columns[static_cast<std::size_t>(c)], 1000), 1e-7)
          << "pos=" << pos << " shown column=" << c;
}

// The story shown: positions alone give a uniform map at small a, then a band, then one key.
// Entropy of softmax(β s) is non-increasing in β (dH/dβ = −β Var_p(s)), and the max weight
// 1/Σ_j exp(β(s_j − s_max)) non-decreasing; here β ∝ a². Float rounding of the scores allows
// 1e-6 of slack between neighbours.
TEST(PositionsLab, PositionalEntropyFallsFromUniformToCollapsedAsAmplitudeGrows) {
  for (bool causal : {false, true})
    for (int key_dim : {64, 8, 1}) {
      Params params;
      params.causal = causal;
      params.key_dim = key_dim;
      Lab lab;
      evaluate_positions_lab(lab, params);
      ASSERT_EQ(lab.sweep_amplitudes.size(), static_cast<std::size_t>(Lab::sweep_points));
      EXPECT_NEAR(lab.position_entropy_ratio_at_zero, 1.0, 1e-6) << describe(params);
      for (std::size_t k = 1; k < lab.sweep_amplitudes.size(); ++k) {
        EXPECT_LE(lab.position_entropy_ratio[k], lab.position_entropy_ratio[k - 1] + 1e-6)
            << describe(params) << " a=" << lab.sweep_amplitudes[k];
        EXPECT_GE(lab.position_max_weights[k], lab.position_max_weights[k - 1] - 1e-6)
            << describe(params) << " a=" << lab.sweep_amplitudes[k];
      }
      EXPECT_GT(lab.position_entropy_ratio.front(), 0.99) << describe(params);  // a = 0.01: uniform
      // a = 100: one key. Not for d_k = 1, where PE = sin(pos): row 0 is sin 0 = 0 and stays
      // uniform, and keys with sin j ≈ 1 (j = 8, 14, …) nearly tie.
      if (key_dim > 1) {
        EXPECT_GT(lab.position_max_weights.back(), 0.99) << describe(params);
      }
      EXPECT_LE(Lab::sweep_min_amplitude, lab.uniform_until);
      EXPECT_LE(lab.uniform_until, lab.collapsed_from);
      EXPECT_LE(lab.collapsed_from, Lab::sweep_max_amplitude);
    }
  // At the default Params the three regimes all lie inside the slider's range, in order.
  Params params;
  Lab lab;
  evaluate_positions_lab(lab, params);
  EXPECT_GT(lab.uniform_until, 0.3);
  EXPECT_LT(lab.uniform_until, 3.0);
  EXPECT_GT(lab.collapsed_from, 2.0);
  EXPECT_LT(lab.collapsed_from, 20.0);
  for (const auto& [amplitude, regime] :
       {std::pair{0.05, PositionRegime::uniform}, std::pair{2.5, PositionRegime::structured},
        std::pair{50.0, PositionRegime::collapsed}}) {
    params.pe_amplitude = amplitude;
    evaluate_positions_lab(lab, params);
    EXPECT_EQ(lab.regime, regime) << describe(params) << " got " << regime_name(lab.regime);
  }
  // Collapsed means each query attends to itself: the diagonal of PPᵀ is its largest entry.
  for (int r = 0; r < lab.seq_len; ++r) EXPECT_GT(lab.position_weights(r, r), 0.99f) << "row " << r;
}

// The sweep comes from (Q + aP)(K + aP)ᵀ = QKᵀ + a(QPᵀ + PKᵀ) + a²PPᵀ rather than from
// attention_weights; they differ only by float rounding of the products (relative ~1e-7 of
// scores up to ~10⁴ at a = 100), far below 1e-3 in entropy ratio or max weight.
TEST(PositionsLab, SweepAgreesWithAttentionWeightsAtTheSameAmplitude) {
  for (bool causal : {false, true})
    for (bool scaled : {true, false}) {
      Params params;
      params.causal = causal;
      params.scaled = scaled;
      params.qk_norm = 0.7;
      params.seq_len = 24;
      Lab lab;
      evaluate_positions_lab(lab, params);
      for (std::size_t k : {std::size_t{0}, std::size_t{12}, std::size_t{16}, std::size_t{20}, std::size_t{32}}) {
        const double amplitude = lab.sweep_amplitudes[k];
        Matrix position, content;
        attention_weights(position, documented_setup(params, lab.seq_len, 0.0, amplitude));
        attention_weights(content, documented_setup(params, lab.seq_len, params.qk_norm, amplitude));
        const std::string where = describe(params) + " a=" + std::to_string(amplitude);
        EXPECT_NEAR(lab.position_entropy_ratio[k], mean_row_entropy_nats(position) / lab.max_entropy_nats, 1e-3)
            << where;
        EXPECT_NEAR(lab.position_max_weights[k], mean_row_max_weight(position), 1e-3) << where;
        EXPECT_NEAR(lab.content_entropy_ratio[k], mean_row_entropy_nats(content) / lab.max_entropy_nats, 1e-3) << where;
        EXPECT_NEAR(lab.content_max_weights[k], mean_row_max_weight(content), 1e-3) << where;
      }
      Matrix plain;
      attention_weights(plain, documented_setup(params, lab.seq_len, params.qk_norm, 0.0));
      EXPECT_NEAR(lab.content_entropy_ratio_at_zero, mean_row_entropy_nats(plain) / lab.max_entropy_nats, 1e-6);
    }
}

// The maps at the current amplitude are attention_weights() of the documented setups, their
// rows sum to 1 and the causal mask gives exact zeros.
TEST(PositionsLab, MapsAreAttentionWeightsOfTheDocumentedSetups) {
  for (bool causal : {false, true}) {
    Params params;
    params.causal = causal;
    params.pe_amplitude = 2.0;
    params.qk_norm = 1.5;
    params.seq_len = 300;  // capped at 128
    Lab lab;
    evaluate_positions_lab(lab, params);
    ASSERT_EQ(lab.seq_len, 128);
    EXPECT_TRUE(lab.capped);
    Matrix position, content;
    attention_weights(position, documented_setup(params, 128, 0.0, 2.0));
    attention_weights(content, documented_setup(params, 128, 1.5, 2.0));
    EXPECT_EQ(lab.position_weights.values, position.values) << describe(params);
    EXPECT_EQ(lab.content_weights.values, content.values) << describe(params);
    EXPECT_EQ(lab.position_entropy_nats, mean_row_entropy_nats(position));
    EXPECT_EQ(lab.content_max_weight, mean_row_max_weight(content));
    for (const Matrix* map : {&lab.position_weights, &lab.content_weights})
      for (int r = 0; r < lab.seq_len; ++r) {
        double sum = 0.0;
        for (int c = 0; c < lab.seq_len; ++c) {
          sum += (*map)(r, c);
          if (causal && c > r) {
            ASSERT_EQ((*map)(r, c), 0.0f) << describe(params) << " at (" << r << ", " << c << ")";
          }
        }
        EXPECT_NEAR(sum, 1.0, 1e-6) << describe(params) << " row " << r;
      }
  }
}

}  // namespace
}  // namespace smlab
