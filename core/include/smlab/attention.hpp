// Attention from seeded random queries and keys: the dot-product score kernels and the
// variants the labs compare (scaled, cosine, additive, LayerNorm, causal, heads, positions).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "smlab/params.hpp"

namespace smlab {

// A row-major rows×cols float matrix.
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;
  float operator()(int r, int c) const {
    return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
};

// The largest finite entry of a map (0 when it has none): the top of a heatmap's colour range,
// computed once per Snapshot by the labs rather than per frame by the panels. NaN and ±inf skipped.
float largest_finite(const Matrix& map);

// Named random streams: each quantity has its own, so lengthening one never reshuffles another.
enum class Stream : std::uint64_t {
  queries = 1,
  keys = 2,
  values = 3,
  monte_carlo = 4,
  additive_query_weights = 5,  // W_q of additive attention
  additive_key_weights = 6,    // W_k of additive attention
  additive_vector = 7,         // v of additive attention
  qk_statistics = 8,           // Monte Carlo of q·k (montecarlo.hpp)
};

// Fills a rows×cols matrix with i.i.d. N(0, σ²) entries. Entry (r, c) depends only
// on (seed, stream, r, c), so growing d_k or L keeps every existing entry: dragging
// a slider adds coordinates instead of reshuffling the picture.
void draw_gaussian(Matrix& out, std::uint64_t seed, Stream stream, int rows, int cols, double sigma = 1.0);
// The same matrix, with the entries `previous` holds (a draw_gaussian of the same seed, stream and
// σ, any shape) copied rather than drawn: a d_k or L step draws one column or row, not L·d_k normals.
void draw_gaussian_reusing(Matrix& out, const Matrix& previous, std::uint64_t seed, Stream stream, int rows, int cols,
                           double sigma = 1.0);

// raw(i, j) = q_i · k_j for Q (L×d) and K (L×d); out is L×L row-major.
// No scaling: callers apply score_scale, 1/√d_k and 1/T.
void dot_product_scores(Matrix& out, const Matrix& queries, const Matrix& keys);

// q_r · k_j for one query row, accumulated in double (the distribution plot's row).
void dot_product_row(std::span<double> out, const Matrix& queries, const Matrix& keys, int row);

// [SECTION] Variants

// How a query q and a key k (both length d_k) become a score, before score_scale and T:
enum class ScoreVariant : int {
  dot,         // q·k
  scaled_dot,  // q·k / √d_k
  cosine,      // γ · cos(q, k) = γ · (q / max(‖q‖, ε)) · (k / max(‖k‖, ε)), so |score| ≤ γ
  additive,    // vᵀ tanh(W_q q + W_k k)  (Bahdanau et al. 2015)
  layer_norm,  // LN(q) · LN(k) / √d_k, LN over the d_k entries of each vector (QK-LayerNorm)
};
std::string_view variant_name(ScoreVariant variant);  // "dot", "scaled_dot", "cosine", ...

// Everything one L×L attention map depends on. Defaults reproduce evaluate()'s scaled map.
struct AttentionSetup {
  int seq_len = 16;  // L ≥ 1: queries and keys
  int key_dim = 64;  // d_k ≥ 1: length of q and k in each head
  // h ≥ 1 heads split one wide draw: Q and K are L×(h·d_k) (d_model = h·d_k) and head m owns
  // columns [m·d_k, (m+1)·d_k). Entries of the draw depend only on (row, column), so head 0 is
  // exactly the single-head map and adding heads never changes the earlier ones.
  int heads = 1;
  std::uint64_t seed = 42;
  double sigma = 1.0;  // entries of Q and K ~ N(0, σ²)
  ScoreVariant variant = ScoreVariant::scaled_dot;
  double score_scale = 1.0;  // logits = score_scale · score / T, for every variant
  double temperature = 1.0;  // T > 0
  bool causal = false;       // query i sees keys j ≤ i only: scores above the diagonal are −inf
  // Q += a·PE and K += a·PE with the sinusoidal PE over all h·d_k columns, before any variant
  // transform. a = 0 skips the addition, so it reproduces attention without positions bit for bit.
  double positional_amplitude = 0.0;
  double cosine_gamma = 10.0;    // γ: cosine scores lie in [−γ, γ]
  double cosine_epsilon = 1e-6;  // ε: a zero vector is divided by ε instead of 0
  double layer_norm_epsilon = 1e-5;
  double layer_norm_gain = 1.0;  // γ of LayerNorm, one scalar (a learned vector starts at 1)
  double layer_norm_bias = 0.0;  // β of LayerNorm, one scalar (starts at 0)
  // d_a of additive attention. W_q, W_k (d_a×d_k) ~ N(0, 1/d_k) so each entry of W_q q has the
  // variance σ² of one coordinate of q; v (d_a) ~ N(0, 1/d_a) so vᵀ tanh(·) stays O(1). Drawn from
  // the seed, per head. Cost is L²·d_a tanh evaluations: about 0.5 G at L = 4096, d_a = 32.
  int additive_dim = 32;
};

// The setup evaluate() uses for its two maps: the plain (scaled = false) or scaled dot product.
AttentionSetup attention_setup(const Params& params);

// Buffers reused across calls, so a recompute at L = 4096 does not pay for fresh pages
// (the L×L scratch alone is 64 MiB). Its contents between calls mean nothing.
struct AttentionWorkspace {
  Matrix queries, keys;                                // L×(h·d_k) draws, plus positions
  Matrix head_queries, head_keys;                      // L×d_k: one head after its variant transform
  Matrix encoding;                                     // L×(h·d_k) positional encoding
  Matrix head_map;                                     // L×L: one head's weights when h > 1
  Matrix query_weights, key_weights, additive_vector;  // additive: (h·d_a)×d_k, (h·d_a)×d_k, h×d_a
  Matrix projected_queries, projected_keys;            // additive: L×d_a
  std::vector<float> keys_transposed;                  // d_k×L for the dot-product kernel
};

// Sinusoidal positional encodings (Vaswani et al. 2017), out is positions×dim:
//   PE(pos, 2i) = sin(pos / 10000^{2i/dim}),  PE(pos, 2i+1) = cos(pos / 10000^{2i/dim}).
// Each column pair is one frequency; wavelengths grow geometrically from 2π to 10000·2π.
// Computed in double, stored as float.
void positional_encoding(Matrix& out, int positions, int dim);

// Each row x (length d) of `in` becomes gain · (x − mean) / sqrt(var + ε) + bias, with the
// population variance var = Σ (x_c − mean)² / d. In double. A constant row (including every
// row when d = 1) becomes `bias`: there is nothing left after removing the mean.
void layer_norm_rows(Matrix& out, const Matrix& in, double epsilon, double gain = 1.0, double bias = 0.0);

// Each row x of `in` becomes x / max(‖x‖₂, ε): unit length, or shrunk towards 0 near the origin.
void normalize_rows(Matrix& out, const Matrix& in, double epsilon);

// One head's L×L scores as defined by the variant (÷√d_k and γ included), with −inf above the
// diagonal when causal; score_scale and T are not applied. head in [0, h).
void attention_scores(Matrix& out, const AttentionSetup& setup, int head, AttentionWorkspace& workspace);

// out (L×L) = the attention weights softmax(score_scale · scores / T) row by row; with h > 1 the
// average (1/h) Σ_m A_m of the heads' maps (each row still sums to 1). If per_head has h entries,
// per_head[m] receives head m's map. Masked weights are exactly 0. For the plain and scaled dot
// product with h = 1 and no positions or mask, the result equals evaluate()'s maps bit for bit
// (same kernel, same order of operations).
void attention_weights(Matrix& out, const AttentionSetup& setup, AttentionWorkspace& workspace,
                       std::span<Matrix> per_head = {});
void attention_weights(Matrix& out, const AttentionSetup& setup);

// Mean over rows of H(row) = −Σ_j w_ij ln w_ij in nats (accumulated in double). Range [0, ln L].
double mean_row_entropy_nats(const Matrix& weights);

// out (L×d_v) = A V for weights A (L×L) and values V (L×d_v): each output is a weighted
// average of the value rows.
void attention_output(Matrix& out, const Matrix& weights, const Matrix& values);

}  // namespace smlab
