// The numbers behind the attention variants lab (see views.hpp): five score variants side by side
// as the norm of q and k grows, computed from Params with the kernels of attention.hpp.
#pragma once

#include <array>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/params.hpp"

namespace smlab {

struct AttentionVariantsLab {
  // The additive variant costs L²·d_a tanh (13.7 s at L = 4096), and a heatmap drawn at ~380 px
  // shows no more than ~128 cells a side anyway: the maps use the first L' positions, with
  //   L' = min(L, 128, max(16, 2^17 / d_k)),
  // because each map draws 2·L'·d_k Gaussians and costs L'²·d_k multiply-adds: the budget keeps
  // a recompute at d_k = 4096 (L' = 32) as cheap as at d_k = 1024 (L' = 128). Entries of Q and K
  // depend only on (row, column), so these are the top-left corner of the full maps' inputs;
  // the softmax rows are over L' keys, not L.
  static constexpr int max_map_len = 128;
  static constexpr int min_map_len = 16;
  static constexpr long long map_draw_budget = 1 << 17;  // L'·d_k
  // The σ sweep runs 5 variants at sweep_points + 1 values of σ: 80 maps, at
  //   L_s = min(L', 32, max(8, 2^14 / d_k))  (32 up to d_k = 512, 16 at 1024, 8 from 2048):
  // the Gaussian draws of Q and K dominate the cost, and this bounds them at ~2.6 M values.
  static constexpr int max_sweep_len = 32;
  static constexpr int min_sweep_len = 8;
  static constexpr long long sweep_draw_budget = 1 << 14;  // L_s·d_k
  static constexpr int sweep_points = 15;                  // log-spaced over [qk_norm_min, qk_norm_max]

  // In this order everywhere (maps, entropies, sweep curves).
  static constexpr std::array<ScoreVariant, 5> variants{ScoreVariant::dot, ScoreVariant::scaled_dot,
                                                        ScoreVariant::cosine, ScoreVariant::additive,
                                                        ScoreVariant::layer_norm};

  // ── The maps, at the user's σ = Params::qk_norm, T, score_scale, d_k, γ, causal, seed ──
  int seq_len = 0;      // L' (see max_map_len)
  bool capped = false;  // L' < Params::seq_len
  double sigma = 1.0;   // σ: entries of Q and K ~ N(0, σ²)
  // ‖q‖ ≈ σ√d_k (E‖q‖² = σ² d_k); q·k then has standard deviation σ²√d_k, the scaled dot
  // product σ², while |cosine score| ≤ γ whatever σ is.
  double expected_query_norm = 0.0;
  double dot_score_std = 0.0;               // σ²√d_k
  double scaled_score_std = 0.0;            // σ²
  std::array<Matrix, 5> weights;            // L'×L' attention weights of each variant (rows sum to 1)
  float largest_weight = 0.0f;              // largest_finite over all five maps: their shared colour range
  std::array<double, 5> entropy_nats{};     // mean row entropy of each map
  std::array<double, 5> mean_max_weight{};  // mean over rows of the largest weight
  // The most a map's mean row entropy can be: mean over rows of ln(keys the row sees) —
  // ln L' without a mask, (1/L') Σ_i ln(i + 1) with the causal mask.
  double max_entropy_nats = 0.0;

  // ── Mean entropy versus σ, at L_s (see max_sweep_len), all else as above ──
  int sweep_seq_len = 0;
  std::vector<double> sweep_sigmas;                  // sweep_points values, log-spaced 0.1 … 20
  std::array<std::vector<double>, 5> sweep_entropy;  // [variant][point], nats
  std::array<double, 5> sweep_entropy_now{};         // at the current σ, L_s (the marked points)
  double sweep_max_entropy_nats = 0.0;               // as max_entropy_nats, for L_s
};

// Pure and deterministic: the same Params give the same AttentionVariantsLab.
void evaluate_attention_variants_lab(AttentionVariantsLab& out, const Params& params);

// Helpers shared by the attention labs (variants, positions, heads).

// Mean over rows of max_j w_ij for an attention map (rows with no distribution count as NaN).
double mean_row_max_weight(const Matrix& weights);

// min(seq_len, max_len, max(min_len, budget / width)): the longest prefix of the sequence whose
// L'·width entries fit the budget, but at least min_len (and never more than seq_len).
int budgeted_length(int seq_len, int max_len, int min_len, long long budget, long long width);

// `points` (≥ 2) values from `first` to `last` (both > 0) with a constant ratio; the ends exact.
std::vector<double> log_grid(double first, double last, int points);

// The largest possible mean row entropy of an L×L map: ln L, or (1/L) Σ_{i<L} ln(i + 1) causal.
double max_mean_row_entropy_nats(int seq_len, bool causal);

}  // namespace smlab
