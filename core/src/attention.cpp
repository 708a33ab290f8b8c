// Seeded Gaussian queries/keys, their dot-product score matrices, and the attention
// variants built on them (scaled, cosine, additive, LayerNorm; causal mask, heads, positions).
//
// [SECTION] Index
//   [SECTION] Shapes and the Q Kᵀ kernel
//   [SECTION] One head's raw scores
//   [SECTION] Seeded Gaussian matrices
//   [SECTION] Dot-product scores
//   [SECTION] Variants and their setup
//   [SECTION] Positions and row normalisation
//   [SECTION] Attention scores, weights and output
#include "smlab/attention.hpp"

#include "smlab/parallel.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

#include "smlab/kernels.hpp"
#include "smlab/parallel.hpp"
#include "smlab/random.hpp"
#include "smlab/shown_row.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

// [SECTION] Shapes and the Q Kᵀ kernel

std::size_t area(int rows, int cols) { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); }

void shape(Matrix& out, int rows, int cols) {
  out.rows = rows;
  out.cols = cols;
  out.values.resize(area(rows, cols));  // a no-op when a reused buffer already has this size
}

// The one Q Kᵀ kernel behind evaluate()'s maps and every variant, so that they agree bit for bit:
// the fast, cache-blocked one (kernels.hpp); dot_product_scores below stays the scalar reference
// it is tested against. Q is L×d, K is L'×d, out is L×L' (overwritten).
void dot_product_kernel(std::span<float> out, const Matrix& queries, const Matrix& keys) {
  assert(queries.cols == keys.cols && out.size() == area(queries.rows, keys.rows));
  dot_product_scores_fast(out, queries, keys);
}

// The scalar reference: Q Kᵀ as a contiguous axpy over keys. keys_transposed is d×L' scratch.
void reference_dot_product_kernel(std::span<float> out, const Matrix& queries, const Matrix& keys,
                                  std::vector<float>& keys_transposed) {
  assert(queries.cols == keys.cols && out.size() == area(queries.rows, keys.rows));
  const int length = queries.rows, keys_count = keys.rows, dim = queries.cols;
  std::fill(out.begin(), out.end(), 0.0f);
  // Kᵀ (d×L) makes the inner loop a contiguous axpy over keys, which compilers
  // vectorise without reassociating a float reduction.
  keys_transposed.resize(area(dim, keys_count));
  for (int j = 0; j < keys_count; ++j)
    for (int c = 0; c < dim; ++c) keys_transposed[area(c, keys_count) + static_cast<std::size_t>(j)] = keys(j, c);
  for (int i = 0; i < length; ++i) {
    float* out_row = out.data() + area(i, keys_count);
    for (int c = 0; c < dim; ++c) {
      const float q = queries(i, c);
      const float* key_column = keys_transposed.data() + area(c, keys_count);
      for (int j = 0; j < keys_count; ++j) out_row[j] += q * key_column[j];
    }
  }
}

// [SECTION] One head's raw scores

// out (in.rows × width) = columns [first, first + width) of in: one head's slice of d_model.
void copy_columns(Matrix& out, const Matrix& in, int first, int width) {
  shape(out, in.rows, width);
  for (int r = 0; r < in.rows; ++r) {
    const float* source = in.values.data() + area(r, in.cols) + static_cast<std::size_t>(first);
    std::copy(source, source + width, out.values.data() + area(r, width));
  }
}

// logits = (score_scale / T) · raw · multiply / divide. Kept as a pair so that the scaled dot
// product forms its logit scale as (score_scale / T) / √d_k, exactly as evaluate() does.
struct RawScale {
  double multiply = 1.0;
  double divide = 1.0;
};

// Q, K (L×(h·d_k)) with positions added, and the additive weights when that variant needs them.
void draw_inputs(const AttentionSetup& setup, AttentionWorkspace& workspace) {
  const int width = setup.heads * setup.key_dim;
  draw_gaussian(workspace.queries, setup.seed, Stream::queries, setup.seq_len, width, setup.sigma);
  draw_gaussian(workspace.keys, setup.seed, Stream::keys, setup.seq_len, width, setup.sigma);
  if (setup.positional_amplitude != 0.0) {
    positional_encoding(workspace.encoding, setup.seq_len, width);
    for (std::size_t i = 0; i < workspace.encoding.values.size(); ++i) {
      const auto shift = static_cast<float>(setup.positional_amplitude * workspace.encoding.values[i]);
      workspace.queries.values[i] += shift;
      workspace.keys.values[i] += shift;
    }
  }
  if (setup.variant == ScoreVariant::additive) {
    const int rows = setup.heads * setup.additive_dim;
    const double weight_sigma = 1.0 / std::sqrt(static_cast<double>(setup.key_dim));
    draw_gaussian(workspace.query_weights, setup.seed, Stream::additive_query_weights, rows, setup.key_dim,
                  weight_sigma);
    draw_gaussian(workspace.key_weights, setup.seed, Stream::additive_key_weights, rows, setup.key_dim, weight_sigma);
    draw_gaussian(workspace.additive_vector, setup.seed, Stream::additive_vector, setup.heads, setup.additive_dim,
                  1.0 / std::sqrt(static_cast<double>(setup.additive_dim)));
  }
}

// out (L×d_a) = X W_mᵀ with W_m = rows [m·d_a, (m+1)·d_a) of `weights`; sums in double.
void project(Matrix& out, const Matrix& inputs, const Matrix& weights, int head, int additive_dim) {
  shape(out, inputs.rows, additive_dim);
  for (int i = 0; i < inputs.rows; ++i)
    for (int a = 0; a < additive_dim; ++a) {
      const int weight_row = head * additive_dim + a;
      double sum = 0.0;
      for (int c = 0; c < inputs.cols; ++c)
        sum += static_cast<double>(weights(weight_row, c)) * static_cast<double>(inputs(i, c));
      out.values[area(i, additive_dim) + static_cast<std::size_t>(a)] = static_cast<float>(sum);
    }
}

// raw(i, j) = Σ_a v_a tanh(p_i,a + r_j,a), with p = W_q q_i and r = W_k k_j projected once
// (O(L·d_a·d_k)) so the L² part costs d_a tanh each. out is L×L.
void additive_scores(std::span<float> out, const AttentionSetup& setup, int head, AttentionWorkspace& workspace) {
  project(workspace.projected_queries, workspace.head_queries, workspace.query_weights, head, setup.additive_dim);
  project(workspace.projected_keys, workspace.head_keys, workspace.key_weights, head, setup.additive_dim);
  const int length = setup.seq_len, dim = setup.additive_dim;
  const float* v = workspace.additive_vector.values.data() + area(head, dim);
  for (int i = 0; i < length; ++i) {
    const float* p = workspace.projected_queries.values.data() + area(i, dim);
    for (int j = 0; j < length; ++j) {
      const float* r = workspace.projected_keys.values.data() + area(j, dim);
      double sum = 0.0;
      for (int a = 0; a < dim; ++a) sum += static_cast<double>(v[a]) * static_cast<double>(std::tanh(p[a] + r[a]));
      out[area(i, length) + static_cast<std::size_t>(j)] = static_cast<float>(sum);
    }
  }
}

// One head's raw scores into out (L×L), masked when causal; returns how raw becomes the score.
// Requires draw_inputs(setup, workspace) first.
RawScale head_raw_scores(std::span<float> out, const AttentionSetup& setup, int head, AttentionWorkspace& workspace) {
  const int dim = setup.key_dim, length = setup.seq_len;
  copy_columns(workspace.head_queries, workspace.queries, head * dim, dim);
  copy_columns(workspace.head_keys, workspace.keys, head * dim, dim);
  RawScale scale;
  switch (setup.variant) {
    case ScoreVariant::dot: dot_product_kernel(out, workspace.head_queries, workspace.head_keys); break;
    case ScoreVariant::scaled_dot:
      dot_product_kernel(out, workspace.head_queries, workspace.head_keys);
      scale.divide = std::sqrt(static_cast<double>(dim));
      break;
    case ScoreVariant::layer_norm:
      layer_norm_rows(workspace.head_queries, workspace.head_queries, setup.layer_norm_epsilon, setup.layer_norm_gain,
                      setup.layer_norm_bias);
      layer_norm_rows(workspace.head_keys, workspace.head_keys, setup.layer_norm_epsilon, setup.layer_norm_gain,
                      setup.layer_norm_bias);
      dot_product_kernel(out, workspace.head_queries, workspace.head_keys);
      scale.divide = std::sqrt(static_cast<double>(dim));
      break;
    case ScoreVariant::cosine:
      normalize_rows(workspace.head_queries, workspace.head_queries, setup.cosine_epsilon);
      normalize_rows(workspace.head_keys, workspace.head_keys, setup.cosine_epsilon);
      dot_product_kernel(out, workspace.head_queries, workspace.head_keys);
      // The true cosine lies in [−1, 1]; float rounding of the unit vectors can push a
      // near-parallel pair a few ulp past 1, which would break the |score| ≤ γ contract.
      for (float& x : out) x = std::clamp(x, -1.0f, 1.0f);
      scale.multiply = setup.cosine_gamma;
      break;
    case ScoreVariant::additive: additive_scores(out, setup, head, workspace); break;
  }
  // Query i may not look ahead: −inf makes exp() exactly 0, so the weight is exactly 0.
  mask_future_keys(out.first(area(length, length)), length, setup.causal);
  return scale;
}

void check(const AttentionSetup& setup) {
  assert(setup.seq_len >= 1 && setup.key_dim >= 1 && setup.heads >= 1 && setup.temperature > 0.0);
  assert(setup.variant != ScoreVariant::additive || setup.additive_dim >= 1);
  (void)setup;
}

}  // namespace

namespace {

// [SECTION] Seeded Gaussian matrices

// Entries [c_begin, c_end) of row r of draw_gaussian's matrix: one Box–Muller pair per two
// columns, keyed by (row, pair) so entries never move (an odd c_begin takes its pair's sine only).
void draw_gaussian_entries(float* row, std::uint64_t seed, Stream stream, int r, int c_begin, int c_end, double sigma) {
  for (int c = c_begin - c_begin % 2; c < c_end; c += 2) {
    const std::uint64_t pair_index = (static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(c / 2);
    const std::uint64_t bits = stream_seed(seed, static_cast<std::uint64_t>(stream), pair_index);
    const double radius = sigma * std::sqrt(-2.0 * std::log(uniform_open0(bits)));
    const double angle = 2.0 * std::numbers::pi * uniform_open0(mix64(bits));
    if (c >= c_begin) row[c] = static_cast<float>(radius * std::cos(angle));
    if (c + 1 < c_end) row[c + 1] = static_cast<float>(radius * std::sin(angle));
  }
}

// Rows [0, rows) of the matrix, entries of row r from column first_column(r) on, in bands of rows
// on the pool (parallel.hpp): every entry depends on (seed, stream, row, column) only, so the
// thread count changes no bit. ~64 K normals a band, several ms at L·d_k = 4096·64.
template <class FirstColumn>
void draw_gaussian_rows(Matrix& out, std::uint64_t seed, Stream stream, double sigma, std::int64_t normals,
                        const FirstColumn& first_column) {
  const int rows = out.rows, cols = out.cols;
  const int bands = static_cast<int>(std::clamp<std::int64_t>(normals / 65536, 1, 64));
  parallel_for(bands, [&](int band) {
    const int band_end = static_cast<int>(static_cast<std::int64_t>(rows) * (band + 1) / bands);
    for (int r = static_cast<int>(static_cast<std::int64_t>(rows) * band / bands); r < band_end; ++r) {
      float* row = out.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
      draw_gaussian_entries(row, seed, stream, r, first_column(r), cols, sigma);
    }
  });
}

}  // namespace

void draw_gaussian(Matrix& out, std::uint64_t seed, Stream stream, int rows, int cols, double sigma) {
  out.rows = rows;
  out.cols = cols;
  out.values.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  draw_gaussian_rows(out, seed, stream, sigma, static_cast<std::int64_t>(rows) * cols, [](int) { return 0; });
}

void draw_gaussian_reusing(Matrix& out, const Matrix& previous, std::uint64_t seed, Stream stream, int rows, int cols,
                           double sigma) {
  assert(&out != &previous);
  const int kept_rows = std::min(rows, previous.rows), kept_cols = std::min(cols, previous.cols);
  out.rows = rows;
  out.cols = cols;
  out.values.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int r = 0; r < kept_rows; ++r) {
    const float* from = previous.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(previous.cols);
    std::copy(from, from + kept_cols, out.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols));
  }
  const std::int64_t normals =
      static_cast<std::int64_t>(rows) * cols - static_cast<std::int64_t>(kept_rows) * kept_cols;
  if (normals == 0) return;
  draw_gaussian_rows(out, seed, stream, sigma, normals, [&](int r) { return r < kept_rows ? kept_cols : 0; });
}

// [SECTION] Dot-product scores

void dot_product_scores(Matrix& out, const Matrix& queries, const Matrix& keys) {
  assert(queries.cols == keys.cols);
  shape(out, queries.rows, keys.rows);
  std::vector<float> keys_transposed;
  reference_dot_product_kernel(out.values, queries, keys, keys_transposed);
}

void dot_product_row(std::span<double> out, const Matrix& queries, const Matrix& keys, int row) {
  assert(static_cast<int>(out.size()) == keys.rows && row >= 0 && row < queries.rows);
  for (int j = 0; j < keys.rows; ++j) {
    double sum = 0.0;
    for (int c = 0; c < queries.cols; ++c)
      sum += static_cast<double>(queries(row, c)) * static_cast<double>(keys(j, c));
    out[static_cast<std::size_t>(j)] = sum;
  }
}

// [SECTION] Variants and their setup

std::string_view variant_name(ScoreVariant variant) {
  switch (variant) {
    case ScoreVariant::dot: return "dot";
    case ScoreVariant::scaled_dot: return "scaled_dot";
    case ScoreVariant::cosine: return "cosine";
    case ScoreVariant::additive: return "additive";
    case ScoreVariant::layer_norm: return "layer_norm";
  }
  return "unknown";
}

AttentionSetup attention_setup(const Params& params) {
  AttentionSetup setup;
  setup.seq_len = params.seq_len;
  setup.key_dim = params.key_dim;
  setup.seed = params.seed;
  setup.variant = params.scaled ? ScoreVariant::scaled_dot : ScoreVariant::dot;
  setup.score_scale = params.score_scale;
  setup.temperature = params.temperature;
  setup.causal = params.causal;  // every map built from the Params honours the mask
  return setup;
}

// [SECTION] Positions and row normalisation

void positional_encoding(Matrix& out, int positions, int dim) {
  shape(out, positions, dim);
  // Denominators 10000^{2i/dim}, one per column: column c has frequency index i = ⌊c/2⌋.
  std::vector<double> wavelength_factor(static_cast<std::size_t>(dim));
  for (int c = 0; c < dim; ++c)
    wavelength_factor[static_cast<std::size_t>(c)] = std::pow(10000.0, static_cast<double>(c - c % 2) / dim);
  for (int pos = 0; pos < positions; ++pos)
    for (int c = 0; c < dim; ++c) {
      const double angle = pos / wavelength_factor[static_cast<std::size_t>(c)];
      out.values[area(pos, dim) + static_cast<std::size_t>(c)] =
          static_cast<float>(c % 2 == 0 ? std::sin(angle) : std::cos(angle));
    }
}

void layer_norm_rows(Matrix& out, const Matrix& in, double epsilon, double gain, double bias) {
  const int rows = in.rows, cols = in.cols;  // read before shaping: out may be in
  shape(out, rows, cols);
  for (int r = 0; r < rows; ++r) {
    const float* x = in.values.data() + area(r, cols);
    float* y = out.values.data() + area(r, cols);
    // Two passes (mean, then squared deviations) rather than Σx² − n·mean², which cancels
    // catastrophically when |mean| ≫ std, e.g. after a large positional shift.
    double mean = 0.0;
    for (int c = 0; c < cols; ++c) mean += x[c];
    mean /= cols;
    double variance = 0.0;
    for (int c = 0; c < cols; ++c) variance += (x[c] - mean) * (x[c] - mean);
    variance /= cols;
    const double inverse_std = 1.0 / std::sqrt(variance + epsilon);
    for (int c = 0; c < cols; ++c) y[c] = static_cast<float>(gain * (x[c] - mean) * inverse_std + bias);
  }
}

void normalize_rows(Matrix& out, const Matrix& in, double epsilon) {
  const int rows = in.rows, cols = in.cols;  // read before shaping: out may be in
  shape(out, rows, cols);
  for (int r = 0; r < rows; ++r) {
    const float* x = in.values.data() + area(r, cols);
    float* y = out.values.data() + area(r, cols);
    double squares = 0.0;
    for (int c = 0; c < cols; ++c) squares += static_cast<double>(x[c]) * x[c];
    const double inverse_norm = 1.0 / std::max(std::sqrt(squares), epsilon);
    for (int c = 0; c < cols; ++c) y[c] = static_cast<float>(x[c] * inverse_norm);
  }
}

// [SECTION] Attention scores, weights and output

void attention_scores(Matrix& out, const AttentionSetup& setup, int head, AttentionWorkspace& workspace) {
  check(setup);
  assert(head >= 0 && head < setup.heads);
  shape(out, setup.seq_len, setup.seq_len);
  draw_inputs(setup, workspace);
  const RawScale scale = head_raw_scores(out.values, setup, head, workspace);
  if (scale.multiply != 1.0 || scale.divide != 1.0)
    for (float& x : out.values) x = static_cast<float>(x * scale.multiply / scale.divide);
}

void attention_weights(Matrix& out, const AttentionSetup& setup, AttentionWorkspace& workspace,
                       std::span<Matrix> per_head) {
  check(setup);
  assert(per_head.empty() || static_cast<int>(per_head.size()) == setup.heads);
  const int length = setup.seq_len;
  shape(out, length, length);
  draw_inputs(setup, workspace);
  // score_scale / T first and then the variant's factor: for the scaled dot product this is
  // (score_scale / T) / √d_k, the same double evaluate() hands to softmax_rows_fast.
  const double logit_scale = setup.score_scale / setup.temperature;
  auto head_weights = [&](std::span<float> map, int head) {
    const RawScale scale = head_raw_scores(map, setup, head, workspace);
    softmax_rows_fast(map, length, length, logit_scale * scale.multiply / scale.divide);
  };
  if (setup.heads == 1) {
    head_weights(out.values, 0);  // straight into out: no scratch, no averaging arithmetic
    if (!per_head.empty()) per_head[0] = out;
    return;
  }
  for (int head = 0; head < setup.heads; ++head) {
    Matrix& map = per_head.empty() ? workspace.head_map : per_head[static_cast<std::size_t>(head)];
    shape(map, length, length);
    head_weights(map.values, head);
    if (head == 0)
      std::copy(map.values.begin(), map.values.end(), out.values.begin());
    else
      for (std::size_t i = 0; i < out.values.size(); ++i) out.values[i] += map.values[i];
  }
  // Each head's row sums to 1, so the sum's row sums to h and the average's to 1.
  const auto heads = static_cast<float>(setup.heads);
  for (float& x : out.values) x /= heads;
}

void attention_weights(Matrix& out, const AttentionSetup& setup) {
  AttentionWorkspace workspace;
  attention_weights(out, setup, workspace);
}

float largest_finite(const Matrix& map) {
  float top = 0.0f;
  for (float w : map.values)
    if (std::isfinite(w)) top = std::max(top, w);
  return top;
}

double mean_row_entropy_nats(const Matrix& weights) {
  if (weights.rows == 0) return 0.0;
  double total = 0.0;
  for (int r = 0; r < weights.rows; ++r) {
    const float* row = weights.values.data() + area(r, weights.cols);
    double entropy = 0.0;
    for (int c = 0; c < weights.cols; ++c) {
      const double p = row[c];
      if (std::isnan(p)) return std::numeric_limits<double>::quiet_NaN();  // a row with no distribution
      if (p > 0.0) entropy -= p * std::log(p);                             // 0·ln 0 = 0
    }
    total += entropy;
  }
  return total / weights.rows;
}

void attention_output(Matrix& out, const Matrix& weights, const Matrix& values) {
  assert(weights.cols == values.rows);
  const int length = weights.rows, dim = values.cols;
  shape(out, length, dim);
  std::fill(out.values.begin(), out.values.end(), 0.0f);
  for (int i = 0; i < length; ++i) {
    float* out_row = out.values.data() + area(i, dim);
    for (int j = 0; j < weights.cols; ++j) {
      const float w = weights(i, j);
      if (w == 0.0f) continue;  // masked keys contribute nothing; skipping also skips their cost
      const float* value_row = values.values.data() + area(j, dim);
      for (int c = 0; c < dim; ++c) out_row[c] += w * value_row[c];
    }
  }
}

}  // namespace smlab
