// Tests of the attention variants lab's numbers (core/src/labs/attention_variants.cpp): each map
// against attention_weights() for the setup the lab documents, and the σ-sweep's lesson.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "smlab/labs/attention_variants.hpp"

namespace smlab {
namespace {

using Lab = AttentionVariantsLab;

std::string describe(const Params& p) {
  std::ostringstream out;
  out << "L=" << p.seq_len << " d_k=" << p.key_dim << " sigma=" << p.qk_norm << " gamma=" << p.gamma
      << " T=" << p.temperature << " score_scale=" << p.score_scale << " causal=" << p.causal << " seed=" << p.seed;
  return out.str();
}

// The documented map length: min(L, 128, max(16, 2^17 / d_k)).
int expected_map_len(const Params& p) { return std::min({p.seq_len, 128, std::max(16, (1 << 17) / p.key_dim)}); }

// Built from the header's description, independently of the lab's own helper.
AttentionSetup documented_setup(const Params& p, ScoreVariant variant, int seq_len, double sigma) {
  AttentionSetup setup;
  setup.seq_len = seq_len;
  setup.key_dim = p.key_dim;
  setup.seed = p.seed;
  setup.sigma = sigma;
  setup.variant = variant;
  setup.score_scale = p.score_scale;
  setup.temperature = p.temperature;
  setup.causal = p.causal;
  setup.cosine_gamma = p.gamma;
  return setup;
}

std::vector<Params> parameter_cases() {
  std::vector<Params> cases(5);
  cases[1].causal = true;
  cases[2].qk_norm = 5.0;
  cases[2].gamma = 2.0;
  cases[2].temperature = 0.5;
  cases[3].seq_len = 300;  // capped at 128
  cases[3].key_dim = 16;
  cases[4].key_dim = 2048;  // budget: L' = 64 … but L = 40 → 40
  cases[4].seq_len = 40;
  cases[4].seed = 7;
  return cases;
}

// Same kernel, same inputs, same order of operations: the maps are equal bit for bit.
TEST(AttentionVariantsLab, EachMapEqualsAttentionWeightsForItsDocumentedSetup) {
  for (const Params& params : parameter_cases()) {
    Lab lab;
    evaluate_attention_variants_lab(lab, params);
    ASSERT_EQ(lab.seq_len, expected_map_len(params)) << describe(params);
    EXPECT_EQ(lab.capped, lab.seq_len < params.seq_len) << describe(params);
    for (std::size_t v = 0; v < Lab::variants.size(); ++v) {
      Matrix expected;
      attention_weights(expected, documented_setup(params, Lab::variants[v], lab.seq_len, params.qk_norm));
      ASSERT_EQ(lab.weights[v].rows, lab.seq_len);
      ASSERT_EQ(lab.weights[v].cols, lab.seq_len);
      EXPECT_EQ(lab.weights[v].values, expected.values)
          << describe(params) << " variant=" << variant_name(Lab::variants[v]);
      EXPECT_EQ(lab.entropy_nats[v], mean_row_entropy_nats(expected)) << describe(params);
    }
  }
}

// Float weights summed in double: each weight is rounded once from double (relative 6e-8),
// so a row of ≤ 128 weights is within ~1e-7 of 1; 1e-6 leaves room and catches any real bug.
TEST(AttentionVariantsLab, EveryRowOfEveryMapSumsToOne) {
  for (const Params& params : parameter_cases()) {
    Lab lab;
    evaluate_attention_variants_lab(lab, params);
    for (std::size_t v = 0; v < Lab::variants.size(); ++v)
      for (int r = 0; r < lab.seq_len; ++r) {
        double sum = 0.0;
        for (int c = 0; c < lab.seq_len; ++c) sum += lab.weights[v](r, c);
        EXPECT_NEAR(sum, 1.0, 1e-6) << describe(params) << " variant=" << variant_name(Lab::variants[v])
                                    << " row=" << r;
      }
  }
}

// A masked key's score is −inf, exp(−inf) = 0 exactly: not small, zero.
TEST(AttentionVariantsLab, CausalMapsHaveExactZerosAboveTheDiagonal) {
  Params params;
  params.causal = true;
  params.qk_norm = 3.0;
  Lab lab;
  evaluate_attention_variants_lab(lab, params);
  for (std::size_t v = 0; v < Lab::variants.size(); ++v)
    for (int r = 0; r < lab.seq_len; ++r)
      for (int c = r + 1; c < lab.seq_len; ++c)
        ASSERT_EQ(lab.weights[v](r, c), 0.0f)
            << describe(params) << " variant=" << variant_name(Lab::variants[v]) << " at (" << r << ", " << c << ")";
  // And the largest possible entropy is the mean of ln(i + 1), not ln L.
  double expected = 0.0;
  for (int i = 0; i < lab.seq_len; ++i) expected += std::log(i + 1.0);
  EXPECT_NEAR(lab.max_entropy_nats, expected / lab.seq_len, 1e-12);
}

// The lesson of the lab. Cosine scores depend on q/‖q‖ only, so for σ√d_k ≫ ε (here ≥ 0.8 vs
// ε = 1e-6) the map is the same at every σ up to float rounding of the draws: the entropy varies
// by < 1e-3 nats. QK-LayerNorm likewise (ε = 1e-5 against a variance ≥ σ² = 0.01: < 1e-2).
// Dot and scaled dot: logits are σ² · (fixed scores), and the entropy of softmax(β s) falls
// monotonically in β (dH/dβ = −β Var_p(s) ≤ 0), so the curves fall, to near 0 at σ = 20.
TEST(AttentionVariantsLab, CosineAndLayerNormEntropyStayPutWhileDotEntropyFalls) {
  for (const Params& params : parameter_cases()) {
    Lab lab;
    evaluate_attention_variants_lab(lab, params);
    ASSERT_EQ(lab.sweep_sigmas.size(), static_cast<std::size_t>(Lab::sweep_points));
    EXPECT_NEAR(lab.sweep_sigmas.front(), ParamLimits::qk_norm_min, 1e-12);
    EXPECT_NEAR(lab.sweep_sigmas.back(), ParamLimits::qk_norm_max, 1e-9);
    auto spread = [](const std::vector<double>& curve) {
      const auto [low, high] = std::minmax_element(curve.begin(), curve.end());
      return *high - *low;
    };
    EXPECT_LT(spread(lab.sweep_entropy[2]), 1e-3) << describe(params) << " (cosine)";
    EXPECT_LT(spread(lab.sweep_entropy[4]), 1e-2) << describe(params) << " (LayerNorm)";
    for (std::size_t v : {std::size_t{0}, std::size_t{1}}) {
      const std::vector<double>& curve = lab.sweep_entropy[v];
      for (std::size_t k = 1; k < curve.size(); ++k)
        EXPECT_LE(curve[k], curve[k - 1] + 1e-5)
            << describe(params) << " variant=" << variant_name(Lab::variants[v]) << " sigma=" << lab.sweep_sigmas[k];
      EXPECT_LT(curve.back(), 0.05 * lab.sweep_max_entropy_nats) << describe(params);
      EXPECT_GT(curve.front(), 0.9 * lab.sweep_max_entropy_nats) << describe(params);
    }
  }
}

// The marked point of the sweep is the sweep's setup at the current σ: the map itself when
// L_s = L', otherwise attention_weights at L_s.
TEST(AttentionVariantsLab, SweepPointAtCurrentSigmaIsTheEntropyOfThatMap) {
  for (const Params& params : parameter_cases()) {
    Lab lab;
    evaluate_attention_variants_lab(lab, params);
    const int sweep_len = std::min({lab.seq_len, 32, std::max(8, (1 << 14) / params.key_dim)});
    ASSERT_EQ(lab.sweep_seq_len, sweep_len) << describe(params);
    for (std::size_t v = 0; v < Lab::variants.size(); ++v) {
      Matrix map;
      attention_weights(map, documented_setup(params, Lab::variants[v], sweep_len, params.qk_norm));
      EXPECT_EQ(lab.sweep_entropy_now[v], mean_row_entropy_nats(map)) << describe(params);
      Matrix first;
      attention_weights(first, documented_setup(params, Lab::variants[v], sweep_len, lab.sweep_sigmas[0]));
      EXPECT_EQ(lab.sweep_entropy[v][0], mean_row_entropy_nats(first)) << describe(params);
    }
  }
}

// The read-outs: ‖q‖ ≈ σ√d_k, std(q·k) = σ²√d_k, std(q·k/√d_k) = σ²; mean max weight.
TEST(AttentionVariantsLab, ReadOutsFollowTheirFormulas) {
  Params params;
  params.qk_norm = 3.0;
  params.key_dim = 16;
  Lab lab;
  evaluate_attention_variants_lab(lab, params);
  EXPECT_DOUBLE_EQ(lab.expected_query_norm, 3.0 * 4.0);
  EXPECT_DOUBLE_EQ(lab.dot_score_std, 9.0 * 4.0);
  EXPECT_DOUBLE_EQ(lab.scaled_score_std, 9.0);
  EXPECT_NEAR(lab.max_entropy_nats, std::log(16.0), 1e-15);
  for (std::size_t v = 0; v < Lab::variants.size(); ++v) {
    double total = 0.0;
    for (int r = 0; r < lab.seq_len; ++r) {
      float top = 0.0f;
      for (int c = 0; c < lab.seq_len; ++c) top = std::max(top, lab.weights[v](r, c));
      total += top;
    }
    EXPECT_NEAR(lab.mean_max_weight[v], total / lab.seq_len, 1e-12);
    EXPECT_GE(lab.mean_max_weight[v], 1.0 / lab.seq_len - 1e-7);
  }
}

// Heavy sizes are capped by the documented budget, and the sweep never exceeds the map length.
TEST(AttentionVariantsLab, LengthsFollowTheDocumentedCaps) {
  struct Case {
    int seq_len, key_dim, map_len, sweep_len;
  };
  for (const Case& c : {Case{4096, 64, 128, 32}, Case{4096, 4096, 32, 8}, Case{4096, 1024, 128, 16},
                        Case{2, 4096, 2, 2}, Case{20, 1, 20, 20}}) {
    Params params;
    params.seq_len = c.seq_len;
    params.key_dim = c.key_dim;
    Lab lab;
    evaluate_attention_variants_lab(lab, params);
    EXPECT_EQ(lab.seq_len, c.map_len) << describe(params);
    EXPECT_EQ(lab.sweep_seq_len, c.sweep_len) << describe(params);
    EXPECT_EQ(lab.capped, c.map_len < c.seq_len) << describe(params);
  }
}

}  // namespace
}  // namespace smlab
