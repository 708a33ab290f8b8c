// The tiny attention model: layout and initial draws, the forward pass, the hand-derived backward
// pass (each gradient derived in a comment where it is computed), and the traced forward pass.
//
// [SECTION] Index
//   [SECTION] Layout and initial weights
//   [SECTION] Dense kernels
//   [SECTION] Softmax in a format
//   [SECTION] One example: forward
//   [SECTION] One example: backward
//   [SECTION] Batches over fixed chunks
//   [SECTION] Trace
#include "smlab/train/model.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <stop_token>

#include "smlab/parallel.hpp"
#include "smlab/random.hpp"

namespace smlab::train {
namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
std::size_t at(int i) { return static_cast<std::size_t>(i); }
}  // namespace

// [SECTION] Layout and initial weights

ModelShape model_shape(const Settings& s, const Corpus* corpus) {
  const TaskShape task = task_shape(s, corpus);
  ModelShape shape;
  shape.length = s.seq_len;
  shape.model_dim = s.model_dim;
  shape.key_dim = s.key_dim;
  shape.value_dim = value_dim(s);
  shape.heads = s.heads;
  shape.layers = s.layers;
  shape.channel_vocab = task.channel_vocab;
  shape.output_vocab = task.output_vocab;
  return shape;
}

Layout make_layout(const ModelShape& shape) {
  Layout layout;
  layout.shape = shape;
  const auto add = [&](std::string name, TensorRole role, int index, int head, int rows, int cols) {
    Tensor t{std::move(name), role, index, head, rows, cols, layout.parameter_count};
    layout.parameter_count += t.size();
    layout.tensors.push_back(std::move(t));
  };
  const int D = shape.model_dim;
  for (std::size_t c = 0; c < shape.channel_vocab.size(); ++c)
    add("embedding" + std::to_string(c), TensorRole::embedding, static_cast<int>(c), 0, shape.channel_vocab[c], D);
  for (int l = 0; l < shape.layers; ++l) {
    const std::string layer = "layer" + std::to_string(l);
    for (int h = 0; h < shape.heads; ++h) {
      const std::string head = layer + ".head" + std::to_string(h);
      add(head + ".w_q", TensorRole::query, l, h, D, shape.key_dim);
      add(head + ".w_k", TensorRole::key, l, h, D, shape.key_dim);
      add(head + ".w_v", TensorRole::value, l, h, D, shape.value_dim);
    }
    add(layer + ".w_o", TensorRole::output, l, 0, shape.heads * shape.value_dim, D);
  }
  add("readout.w", TensorRole::readout, 0, 0, D, shape.output_vocab);
  add("readout.b", TensorRole::readout_bias, 0, 0, 1, shape.output_vocab);
  return layout;
}

const Tensor& Layout::find(TensorRole role, int index, int head) const {
  for (const Tensor& t : tensors)
    if (t.role == role && t.index == index && t.head == head) return t;
  assert(false && "no such tensor");
  return tensors.front();
}

double initial_weight(const Settings& s, const Tensor& tensor, int row, int col) {
  const double fan_in_dim = static_cast<double>(s.model_dim);
  double sigma = 0.0;
  switch (tensor.role) {
    case TensorRole::embedding: sigma = 1.0; break;
    case TensorRole::query:
    case TensorRole::key: sigma = s.init_scale / std::sqrt(fan_in_dim); break;
    case TensorRole::value:
    case TensorRole::readout: sigma = 1.0 / std::sqrt(fan_in_dim); break;
    case TensorRole::output: sigma = 1.0 / std::sqrt(static_cast<double>(tensor.rows)); break;
    case TensorRole::readout_bias: return 0.0;
  }
  // One stream per tensor (its role, channel or layer, head) and one draw per (row, column):
  // the draw does not depend on the tensor's width, so d_k can change without reshuffling.
  const std::uint64_t tensor_stream = 0x7765696768740000ull ^ (static_cast<std::uint64_t>(tensor.role) << 16) ^
                                      (static_cast<std::uint64_t>(tensor.index) << 8) ^
                                      static_cast<std::uint64_t>(tensor.head);
  const std::uint64_t entry = (static_cast<std::uint64_t>(row) << 24) | static_cast<std::uint64_t>(col);
  NormalGenerator normal(stream_seed(s.seed, tensor_stream, entry));
  return sigma * normal.next();
}

void initialize(std::span<double> weights, const Layout& layout, const Settings& s) {
  for (const Tensor& t : layout.tensors)
    for (int r = 0; r < t.rows; ++r)
      for (int c = 0; c < t.cols; ++c) weights[t.offset + at(r) * at(t.cols) + at(c)] = initial_weight(s, t, r, c);
}

std::vector<double> sinusoidal_positions(int length, int model_dim) {
  std::vector<double> out(at(length) * at(model_dim));
  for (int t = 0; t < length; ++t)
    for (int i = 0; i < model_dim; ++i) {
      const double frequency = std::pow(10000.0, -static_cast<double>(i - i % 2) / model_dim);
      out[at(t) * at(model_dim) + at(i)] = i % 2 == 0 ? std::sin(t * frequency) : std::cos(t * frequency);
    }
  return out;
}

namespace {

// [SECTION] Dense kernels
// Row-major matrices as raw pointers with their sizes. The innermost loops run over contiguous
// columns so the compiler vectorises them; no reduction is reordered, so results are the same on
// every run. Every kernel adds into `out` ("_add"); the caller zeroes it where a product starts.

// out_row (n) += Σ_p a_p · b_p for `count` rows b_p of b spaced `stride` apart, four rows at a
// time: each pass over out_row then does four multiply-adds per element loaded and stored,
// instead of one. The association (a₀b₀ + a₁b₁) + (a₂b₂ + a₃b₃) is fixed, so the bits are too.
void add_rows(double* out_row, const double* a, std::size_t a_step, const double* b, std::size_t stride, int count,
              int n) {
  int p = 0;
  for (; p + 4 <= count; p += 4) {
    const double a0 = a[at(p) * a_step], a1 = a[at(p + 1) * a_step], a2 = a[at(p + 2) * a_step],
                 a3 = a[at(p + 3) * a_step];
    const double* b0 = b + at(p) * stride;
    const double* b1 = b0 + stride;
    const double* b2 = b1 + stride;
    const double* b3 = b2 + stride;
    for (int j = 0; j < n; ++j) out_row[j] += (a0 * b0[j] + a1 * b1[j]) + (a2 * b2[j] + a3 * b3[j]);
  }
  for (; p < count; ++p) {
    const double a_p = a[at(p) * a_step];
    const double* b_p = b + at(p) * stride;
    for (int j = 0; j < n; ++j) out_row[j] += a_p * b_p[j];
  }
}

// out (m × n) += a (m × k) · b (k × n)
void multiply_add(double* out, const double* a, const double* b, int m, int k, int n) {
  for (int i = 0; i < m; ++i) add_rows(out + at(i) * at(n), a + at(i) * at(k), 1, b, at(n), k, n);
}

// out (k × n) += aᵀ · b, with a (m × k) and b (m × n): row p of out gets Σ_i a_ip b_i.
void multiply_transposed_add(double* out, const double* a, const double* b, int m, int k, int n) {
  for (int p = 0; p < k; ++p) add_rows(out + at(p) * at(n), a + p, at(k), b, at(n), m, n);
}

// out (cols × rows) = inᵀ, in (rows × cols)
void transpose(double* out, const double* in, int rows, int cols) {
  for (int r = 0; r < rows; ++r)
    for (int c = 0; c < cols; ++c) out[at(c) * at(rows) + at(r)] = in[at(r) * at(cols) + at(c)];
}

void zero(std::vector<double>& v, std::size_t count) { v.assign(count, 0.0); }

}  // namespace

// [SECTION] Softmax in a format

namespace {

// Rounding to the softmax's format, as precision.cpp's FormatArithmetic does it. fp32 uses the
// hardware conversion, which is exactly round_to(fp32, x): IEEE round-to-nearest-even with
// gradual underflow and overflow to ±inf (no flush-to-zero in this build).
struct Rounding {
  Format format;
  double operator()(double x) const {
    switch (format) {
      case Format::fp64: return x;
      case Format::fp32: return static_cast<double>(static_cast<float>(x));
      default: return round_to(format, x);
    }
  }
};

double max_with_nan(double running, double x) { return (x > running || std::isnan(x)) ? x : running; }

}  // namespace

void softmax_row(std::span<double> weights, std::span<const double> scores, double temperature, Format precision,
                 SoftmaxVariant variant) {
  const Rounding fmt{precision};
  const double t = fmt(temperature);
  double sum = 0.0;
  if (variant == SoftmaxVariant::naive) {
    // Pass 1: e_i = exp(x_i/T), no shift: an x_i/T above the format's exp limit (11.09 in fp16)
    // overflows to inf, and pass 2's inf/inf is NaN. Kept on purpose: it is what the lab shows.
    for (std::size_t i = 0; i < scores.size(); ++i) {
      weights[i] = fmt(std::exp(fmt(fmt(scores[i]) / t)));
      sum = fmt(sum + weights[i]);
    }
  } else {
    // Pass 1: the max, from −∞. Pass 2: subtracting it makes every exponent ≤ 0, so no exp
    // overflows, and the max's own term is exactly 1, so the sum is ≥ 1 (never 0/0).
    double max_score = -kInf;
    for (double x : scores) max_score = max_with_nan(max_score, fmt(x));
    for (std::size_t i = 0; i < scores.size(); ++i) {
      weights[i] = fmt(std::exp(fmt(fmt(fmt(scores[i]) - max_score) / t)));
      sum = fmt(sum + weights[i]);
    }
  }
  // Last pass: normalise.
  for (double& w : weights) w = fmt(w / sum);
}

// [SECTION] One example: forward

namespace {

// One head's activations for one example. A layer computes the attention of R query rows (every
// row, or in the last layer only the rows the loss reads): queries, logits, weights and outputs
// have R rows, keys and values all L.
//
// With R < L the keys are never formed: S = Q Kᵀ = Q (X W_K)ᵀ = (Q W_Kᵀ) Xᵀ, so the head keeps
// QW = Q W_Kᵀ (R × D) instead, and R·d_k·D + R·D·L multiply-adds replace L·D·d_k + R·d_k·L (at
// d_k 256 and one read row of nine, a ninth). The backward pass does the same (below).
struct HeadState {
  std::vector<double> q, k, kt, v, logits, a, o;  // R×d_k, L×d_k, d_k×L, L×d_v, R×L, R×L, R×d_v
  std::vector<double> qw;                         // R×D: Q W_Kᵀ (low_rank only)
  bool low_rank = false;                          // k, kt unused: the logits came through qw
};

// The query rows of one layer.
struct LayerRows {
  std::vector<int> positions;  // R increasing positions
  bool all = true;             // positions = 0 … L−1
  std::vector<double> x;       // R × D: the layer input's rows at `positions` (when not all)
};

// One example's activations and the backward pass's scratch, reused from example to example.
struct ExampleState {
  int length = 0;
  std::vector<std::vector<double>> x;  // x[ℓ]: the input of layer ℓ (L × D); x[layers] feeds the readout
  std::vector<LayerRows> rows;         // per layer
  std::vector<double> xt;              // D × L: a layer input transposed (the low-rank logits)
  std::vector<HeadState> heads;        // [ℓ·H + h]
  std::vector<double> readout;         // positions × V_out: the logits z at each readout position
  // Backward scratch.
  std::vector<double> dx, dx_below, dy, d_o, vt, ds, dq, dk, dv, dz, dsx;
};

// The transposed weights a pass uses, per layer and head: W_Qᵀ (d_k × D), W_Kᵀ, W_Vᵀ (d_v × D)
// and the head's block of W_O transposed (D × d_v). Computed once per pass.
struct Transposed {
  std::vector<double> values;  // the (layer, head) blocks, then W_Rᵀ (V × D)
  std::size_t block = 0;       // doubles per (layer, head)
  std::size_t readout_at = 0;
  const double* of(int l, int h, int heads) const { return values.data() + at(l * heads + h) * block; }
  const double* readout() const { return values.data() + readout_at; }
};

// What a pass needs besides the example.
struct Net {
  std::span<const double> weights;
  const Layout* layout = nullptr;
  const Settings* settings = nullptr;
  const std::vector<double>* positions = nullptr;  // at least L × D
  const Transposed* transposed = nullptr;          // W_Kᵀ for the low-rank logits; all of it for backward
  double score_scale = 1.0;                        // c: 1/√d_k when scaled, else 1
  // Checked before each head's work, forward and backward: a pass asked to stop returns at once
  // with its buffers half-computed (the caller throws the pass away).
  std::stop_token stop;
  const double* tensor(TensorRole role, int index = 0, int head = 0) const {
    return weights.data() + layout->find(role, index, head).offset;
  }
};

// Partial sums of one chunk.
struct ChunkSums {
  double loss = 0.0, query_gradient_sq = 0.0, key_gradient_sq = 0.0;
  long long targets = 0, correct = 0;
  AttentionStats stats;
};

// The positions of an example: its tokens are L × channels.
int example_length(const Example& example, const ModelShape& shape) {
  return static_cast<int>(example.tokens.size() / shape.channel_vocab.size());
}

// Sizes the buffers for an example of `length` positions whose last layer computes the rows
// `last_rows` (every row when empty).
void prepare(ExampleState& st, const ModelShape& shape, int length, std::span<const int> last_rows) {
  const std::size_t L = at(length), D = at(shape.model_dim), dk = at(shape.key_dim), dv = at(shape.value_dim);
  st.length = length;
  st.x.resize(at(shape.layers + 1));
  for (auto& x : st.x) x.resize(L * D);
  st.rows.resize(at(shape.layers));
  for (int l = 0; l < shape.layers; ++l) {
    LayerRows& rows = st.rows[at(l)];
    rows.all = l + 1 < shape.layers || last_rows.empty() || last_rows.size() == L;
    rows.positions.resize(rows.all ? L : last_rows.size());
    for (std::size_t r = 0; r < rows.positions.size(); ++r)
      rows.positions[r] = rows.all ? static_cast<int>(r) : last_rows[r];
    if (!rows.all) rows.x.resize(rows.positions.size() * D);
  }
  st.heads.resize(at(shape.layers * shape.heads));
  for (int l = 0; l < shape.layers; ++l)
    for (int h = 0; h < shape.heads; ++h) {
      HeadState& hs = st.heads[at(l * shape.heads + h)];
      const std::size_t R = st.rows[at(l)].positions.size();
      hs.q.resize(R * dk), hs.k.resize(L * dk), hs.kt.resize(dk * L), hs.v.resize(L * dv);
      hs.logits.resize(R * L), hs.a.resize(R * L), hs.o.resize(R * dv);
      if (R < L) hs.qw.resize(R * at(shape.model_dim));
    }
}

// The forward pass of one example up to the readout logits at `readout_positions`.
//   x⁰_t  = Σ_c E_c[token_tc] + p_t                         (p_t when positions are on)
//   per layer ℓ and head h:
//     Q = X W_Q,  K = X W_K,  V = X W_V                     (L × d_k, L × d_k, L × d_v)
//     S_ij = c·Q_i·K_j  (c = 1/√d_k scaled, else 1), −∞ for j > i when causal
//     A_i = softmax(S_i / T)                                (in the settings' format)
//     O = A V,  Y = Σ_h O_h W_O[h]
//   X ← X + Y (residual) or X ← Y
//   z_t = x_t W_R + b_R
// Rows of the last layer that no readout position reads change the loss only through a value
// that is not finite (model.hpp, LastLayerRows), so that layer computes the rows prepare() chose. `nudge` (tests) adds
// its delta to one entry of Q or K after the projection.
void forward(ExampleState& st, const Net& net, const Example& example, std::span<const int> readout_positions,
             const ActivationProbe* nudge) {
  const ModelShape& shape = net.layout->shape;
  const Settings& s = *net.settings;
  const int L = st.length, D = shape.model_dim, dk = shape.key_dim, dv = shape.value_dim;
  const int H = shape.heads, channels = static_cast<int>(shape.channel_vocab.size());
  const bool causal = is_causal(s);

  std::vector<double>& x0 = st.x[0];
  for (int t = 0; t < L; ++t) {
    double* row = x0.data() + at(t) * at(D);
    std::fill(row, row + D, 0.0);
    for (int c = 0; c < channels; ++c) {
      const double* embedding = net.tensor(TensorRole::embedding, c) + at(example.tokens[at(t * channels + c)]) * at(D);
      for (int r = 0; r < D; ++r) row[r] += embedding[r];
    }
    if (s.positions)
      for (int r = 0; r < D; ++r) row[r] += (*net.positions)[at(t) * at(D) + at(r)];
  }

  for (int l = 0; l < shape.layers; ++l) {
    const std::vector<double>& x = st.x[at(l)];
    std::vector<double>& next = st.x[at(l + 1)];
    LayerRows& rows = st.rows[at(l)];
    const int R = static_cast<int>(rows.positions.size());
    if (!rows.all)
      for (int r = 0; r < R; ++r)
        std::copy_n(x.data() + at(rows.positions[at(r)]) * at(D), D, rows.x.data() + at(r) * at(D));
    const double* x_rows = rows.all ? x.data() : rows.x.data();
    if (s.residual)
      next = x;
    else
      std::fill(next.begin(), next.end(), 0.0);
    const double* w_o = net.tensor(TensorRole::output, l);
    if (R < L) {  // Xᵀ for the low-rank logits of this layer's heads
      st.xt.resize(at(D) * at(L));
      transpose(st.xt.data(), x.data(), L, D);
    }
    for (int h = 0; h < H; ++h) {
      if (net.stop.stop_requested()) return;
      HeadState& hs = st.heads[at(l * H + h)];
      const bool nudged = nudge != nullptr && nudge->layer == l && nudge->head == h;
      // Fewer rows than keys: the logits through Q W_Kᵀ (HeadState). A test's nudge of a key needs
      // the keys themselves.
      hs.low_rank = R < L && net.transposed != nullptr && !(nudged && nudge->key);
      std::fill(hs.q.begin(), hs.q.end(), 0.0);
      std::fill(hs.v.begin(), hs.v.end(), 0.0);
      multiply_add(hs.q.data(), x_rows, net.tensor(TensorRole::query, l, h), R, D, dk);
      if (!hs.low_rank) {
        std::fill(hs.k.begin(), hs.k.end(), 0.0);
        multiply_add(hs.k.data(), x.data(), net.tensor(TensorRole::key, l, h), L, D, dk);
      }
      multiply_add(hs.v.data(), x.data(), net.tensor(TensorRole::value, l, h), L, D, dv);
      if (nudged) {
        if (nudge->stop_here != nullptr) nudge->stop_here->request_stop();
        if (nudge->key) {
          hs.k[at(nudge->row) * at(dk) + at(nudge->col)] += nudge->delta;
        } else {
          const auto found = std::find(rows.positions.begin(), rows.positions.end(), nudge->row);
          if (found != rows.positions.end())
            hs.q[at(found - rows.positions.begin()) * at(dk) + at(nudge->col)] += nudge->delta;
        }
      }
      std::fill(hs.logits.begin(), hs.logits.end(), 0.0);
      if (hs.low_rank) {
        // S = (Q W_Kᵀ) Xᵀ: QW (R × D) from Q and W_Kᵀ (d_k × D), then the logits from Xᵀ (D × L).
        std::fill(hs.qw.begin(), hs.qw.end(), 0.0);
        multiply_add(hs.qw.data(), hs.q.data(), net.transposed->of(l, h, H) + at(dk) * at(D), R, dk, D);
        multiply_add(hs.logits.data(), hs.qw.data(), st.xt.data(), R, D, L);
      } else {
        transpose(hs.kt.data(), hs.k.data(), L, dk);
        multiply_add(hs.logits.data(), hs.q.data(), hs.kt.data(), R, dk, L);
      }
      for (int r = 0; r < R; ++r) {
        const int i = rows.positions[at(r)];
        double* row = hs.logits.data() + at(r) * at(L);
        for (int j = 0; j < L; ++j) row[j] = causal && j > i ? -kInf : row[j] * net.score_scale;
        softmax_row({hs.a.data() + at(r) * at(L), at(L)}, {row, at(L)}, s.temperature, s.precision, s.softmax);
      }
      std::fill(hs.o.begin(), hs.o.end(), 0.0);
      multiply_add(hs.o.data(), hs.a.data(), hs.v.data(), R, L, dv);
      // Y_i = Σ_h O_h,i W_O[h], added at the rows computed.
      const double* w_o_h = w_o + at(h) * at(dv) * at(D);
      if (rows.all)
        multiply_add(next.data(), hs.o.data(), w_o_h, L, dv, D);
      else
        for (int r = 0; r < R; ++r)
          multiply_add(next.data() + at(rows.positions[at(r)]) * at(D), hs.o.data() + at(r) * at(dv), w_o_h, 1, dv, D);
    }
  }

  const std::vector<double>& last = st.x[at(shape.layers)];
  const int V = shape.output_vocab;
  const double* w_r = net.tensor(TensorRole::readout);
  const double* b_r = net.tensor(TensorRole::readout_bias);
  st.readout.resize(readout_positions.size() * at(V));
  for (std::size_t n = 0; n < readout_positions.size(); ++n) {
    double* z = st.readout.data() + n * at(V);
    std::copy(b_r, b_r + V, z);
    multiply_add(z, last.data() + at(readout_positions[n]) * at(D), w_r, 1, D, V);
  }
}

// The attention statistics of the rows at `positions` in every layer and head.
void add_stats(AttentionStats& stats, const ExampleState& st, const ModelShape& shape, std::span<const int> positions) {
  const int L = st.length;
  for (int l = 0; l < shape.layers; ++l) {
    const LayerRows& rows = st.rows[at(l)];
    for (int h = 0; h < shape.heads; ++h) {
      const HeadState& hs = st.heads[at(l * shape.heads + h)];
      for (std::size_t r = 0; r < rows.positions.size(); ++r) {
        if (!std::binary_search(positions.begin(), positions.end(), rows.positions[r])) continue;
        const double* a = hs.a.data() + r * at(L);
        double entropy = 0.0, largest = 0.0;
        for (int j = 0; j < L; ++j) {
          if (a[j] > 0.0) entropy -= a[j] * std::log(a[j]);
          if (std::isnan(a[j])) entropy = largest = kNaN;
          largest = std::isnan(largest) ? largest : std::max(largest, a[j]);
        }
        stats.entropy_sum += entropy;
        stats.max_weight_sum += largest;
        ++stats.rows;
        if (largest >= saturated_weight) ++stats.saturated_rows;
      }
    }
  }
}

// Cross-entropy of the readout at one target: loss −ln p_y with p = softmax(z), computed as
// logsumexp(z) − z_y (max subtracted so no exp overflows). `scratch` (V entries) receives
// (p − e_y)·scale, the loss's gradient with respect to z times `scale`. One exp per class.
double target_loss(const double* z, int classes, int target, double* scratch, double scale, bool& correct) {
  double largest = -kInf;
  int argmax = -1;
  bool has_nan = false;
  for (int v = 0; v < classes; ++v) {
    if (std::isnan(z[v])) has_nan = true;
    if (z[v] > largest) {
      largest = z[v];
      argmax = v;
    }
  }
  correct = !has_nan && argmax == target;
  double sum = 0.0;
  for (int v = 0; v < classes; ++v) sum += (scratch[v] = std::exp(z[v] - largest));
  const double factor = scale / sum;
  for (int v = 0; v < classes; ++v) scratch[v] *= factor;
  scratch[target] -= scale;
  return largest + std::log(sum) - z[target];
}

// [SECTION] One example: backward
//
// Notation: L is the batch loss (the mean over its N target positions), dM = ∂L/∂M for any M.
//
// Readout. With p = softmax(z) and ℓ = −ln p_y:  ∂ℓ/∂z_v = p_v − δ_vy  (the softmax Jacobian
//   p_v(δ_vk − p_k) contracted with ∂ℓ/∂p_k = −δ_ky/p_y). Each target's loss enters L with weight
//   1/N, so dz = (p − e_y)/N; z = x W_R + b_R gives dW_R += xᵀ dz, db_R += dz, dx = dz W_Rᵀ.
// Layer (X → X' = X + Y, Y = Σ_h O_h W_O[h]): dY = dX';  dX gets dX' through the residual.
//   dW_O[h] += O_hᵀ dY;  dO_h = dY W_O[h]ᵀ.
//   O = A V:  dA = dO Vᵀ;  dV = Aᵀ dO.
//   A_i = softmax(z_i), z_i = S_i / T. For y = softmax(x):  ∂y_i/∂x_j = y_i (δ_ij − y_j), so
//     dx_j = Σ_i dy_i ∂y_i/∂x_j = Σ_i dy_i y_i (δ_ij − y_j) = y_j dy_j − y_j Σ_i y_i dy_i
//          = y_j (dy_j − ⟨y, dy⟩),   i.e.  dx = y ⊙ (dy − ⟨y, dy⟩).
//     A masked key has y_j = 0 exactly, so its dx_j = 0: no gradient reaches a future token.
//   S_ij = c Q_i·K_j:  dQ_i = (c/T) Σ_j dz_ij K_j,  dK_j = (c/T) Σ_i dz_ij Q_i.
//   Q = X W_Q (and K, V alike):  dW_Q += Xᵀ dQ;  dX += dQ W_Qᵀ.
// In the last layer only the rows that the readout reads carry a dY ≠ 0, so dO, dA, dS and dQ
// vanish on every other row (unless its weights are not finite: then 0·NaN makes them NaN, as in a
// framework), and where that cannot happen the sums above run over the read rows alone.
// Embedding: x⁰_t = Σ_c E_c[token_tc] + p_t:  dE_c[token_tc] += dx⁰_t (positions are fixed).
// The softmax's forward may be rounded to a narrow format; its backward uses the rounded weights
// and runs in double (the gradient of the exact softmax at those weights).

// Backward of one example whose forward() read out at its target positions. Adds ∂L/∂θ into
// `gradient`; `scale` = 1/N.
void backward(std::span<double> gradient, ExampleState& st, const Net& net, const Example& example, double scale,
              ChunkSums& sums, ActivationProbe* capture) {
  const Layout& layout = *net.layout;
  const ModelShape& shape = layout.shape;
  const Settings& s = *net.settings;
  const int L = st.length, D = shape.model_dim, dk = shape.key_dim, dv = shape.value_dim;
  const int H = shape.heads, V = shape.output_vocab;
  const auto grad = [&](TensorRole role, int index = 0, int head = 0) {
    return gradient.data() + layout.find(role, index, head).offset;
  };

  // Readout: dz = (p − e_y)/N at each target; dW_R += xᵀ dz; db_R += dz; dx_t = dz W_Rᵀ.
  zero(st.dx, at(L) * at(D));
  st.dz.resize(at(V));
  const std::vector<double>& last = st.x[at(shape.layers)];
  const double* w_r_t = net.transposed->readout();  // V × D
  double* g_w_r = grad(TensorRole::readout);
  double* g_b_r = grad(TensorRole::readout_bias);
  for (std::size_t n = 0; n < example.target_positions.size(); ++n) {
    bool correct = false;
    sums.loss += target_loss(st.readout.data() + n * at(V), V, example.targets[n], st.dz.data(), scale, correct);
    sums.correct += correct ? 1 : 0;
    const int t = example.target_positions[n];
    const double* x_t = last.data() + at(t) * at(D);
    multiply_transposed_add(g_w_r, x_t, st.dz.data(), 1, D, V);
    for (int v = 0; v < V; ++v) g_b_r[v] += st.dz[at(v)];
    multiply_add(st.dx.data() + at(t) * at(D), st.dz.data(), w_r_t, 1, V, D);
  }

  const double logit_scale = net.score_scale / s.temperature;  // ∂z/∂(q·k) = c/T
  for (int l = shape.layers - 1; l >= 0; --l) {
    const std::vector<double>& x = st.x[at(l)];
    const LayerRows& rows = st.rows[at(l)];
    const int R = static_cast<int>(rows.positions.size());
    const double* x_rows = rows.all ? x.data() : rows.x.data();
    // dY: dX' at the rows computed (the others are 0 in the last layer, which alone skips rows).
    const double* dy = st.dx.data();
    if (!rows.all) {
      st.dy.resize(at(R) * at(D));
      for (int r = 0; r < R; ++r)
        std::copy_n(st.dx.data() + at(rows.positions[at(r)]) * at(D), D, st.dy.data() + at(r) * at(D));
      dy = st.dy.data();
    }
    // dX gets dX' through the residual; the heads add their dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ below.
    if (s.residual)
      st.dx_below = st.dx;
    else
      zero(st.dx_below, at(L) * at(D));
    double* g_w_o = grad(TensorRole::output, l);
    for (int h = 0; h < H; ++h) {
      if (net.stop.stop_requested()) return;
      const HeadState& hs = st.heads[at(l * H + h)];
      const double* w_q_t = net.transposed->of(l, h, H);  // W_Qᵀ, W_Kᵀ, W_Vᵀ, W_O[h]ᵀ in a row
      const double* w_k_t = w_q_t + at(dk) * at(D);
      const double* w_v_t = w_k_t + at(dk) * at(D);
      const double* w_o_t = w_v_t + at(dv) * at(D);

      // dW_O[h] += O_hᵀ dY;  dO_h = dY W_O[h]ᵀ.
      multiply_transposed_add(g_w_o + at(h) * at(dv) * at(D), hs.o.data(), dy, R, dv, D);
      zero(st.d_o, at(R) * at(dv));
      multiply_add(st.d_o.data(), dy, w_o_t, R, D, dv);

      // dA = dO Vᵀ (into ds);  dV = Aᵀ dO.
      st.vt.resize(at(dv) * at(L));
      transpose(st.vt.data(), hs.v.data(), L, dv);
      zero(st.ds, at(R) * at(L));
      multiply_add(st.ds.data(), st.d_o.data(), st.vt.data(), R, dv, L);
      zero(st.dv, at(L) * at(dv));
      multiply_transposed_add(st.dv.data(), hs.a.data(), st.d_o.data(), R, L, dv);

      // Softmax backward, row by row: dz = a ⊙ (dA − ⟨a, dA⟩), then dS = dz·c/T, in place.
      for (int r = 0; r < R; ++r) {
        const double* a = hs.a.data() + at(r) * at(L);
        double* d = st.ds.data() + at(r) * at(L);
        double dot = 0.0;
        for (int j = 0; j < L; ++j) dot += a[j] * d[j];
        for (int j = 0; j < L; ++j) d[j] = a[j] * (d[j] - dot) * logit_scale;
      }

      // dQ = dS K (R rows);  dK = dSᵀ Q. Without K (low rank): dQ = dS X W_K = (dS X) W_K, with
      // dS X (R × D) kept for dW_K below.
      zero(st.dq, at(R) * at(dk));
      if (hs.low_rank) {
        zero(st.dsx, at(R) * at(D));
        multiply_add(st.dsx.data(), st.ds.data(), x.data(), R, L, D);
        multiply_add(st.dq.data(), st.dsx.data(), net.tensor(TensorRole::key, l, h), R, D, dk);
      } else {
        multiply_add(st.dq.data(), st.ds.data(), hs.k.data(), R, L, dk);
      }
      zero(st.dk, at(L) * at(dk));
      multiply_transposed_add(st.dk.data(), st.ds.data(), hs.q.data(), R, L, dk);
      for (double g : st.dq) sums.query_gradient_sq += g * g;
      for (double g : st.dk) sums.key_gradient_sq += g * g;
      if (capture != nullptr && capture->layer == l && capture->head == h) {
        capture->query_gradient.assign(at(L) * at(dk), 0.0);  // rows not computed have dQ = 0
        for (int r = 0; r < R; ++r)
          std::copy_n(st.dq.data() + at(r) * at(dk), dk,
                      capture->query_gradient.data() + at(rows.positions[at(r)]) * at(dk));
        capture->key_gradient = st.dk;
      }

      // dW = Xᵀ dQ (dK, dV);  dX += dQ W_Qᵀ + dK W_Kᵀ + dV W_Vᵀ. Low rank: Xᵀ dK = Xᵀ dSᵀ Q =
      // (dS X)ᵀ Q and dK W_Kᵀ = dSᵀ (Q W_Kᵀ), R-row products instead of L-row ones.
      multiply_transposed_add(grad(TensorRole::query, l, h), x_rows, st.dq.data(), R, D, dk);
      if (hs.low_rank)
        multiply_transposed_add(grad(TensorRole::key, l, h), st.dsx.data(), hs.q.data(), R, D, dk);
      else
        multiply_transposed_add(grad(TensorRole::key, l, h), x.data(), st.dk.data(), L, D, dk);
      multiply_transposed_add(grad(TensorRole::value, l, h), x.data(), st.dv.data(), L, D, dv);
      if (rows.all)
        multiply_add(st.dx_below.data(), st.dq.data(), w_q_t, L, dk, D);
      else
        for (int r = 0; r < R; ++r)
          multiply_add(st.dx_below.data() + at(rows.positions[at(r)]) * at(D), st.dq.data() + at(r) * at(dk), w_q_t, 1,
                       dk, D);
      if (hs.low_rank)
        multiply_transposed_add(st.dx_below.data(), st.ds.data(), hs.qw.data(), R, L, D);
      else
        multiply_add(st.dx_below.data(), st.dk.data(), w_k_t, L, dk, D);
      multiply_add(st.dx_below.data(), st.dv.data(), w_v_t, L, dv, D);
    }
    std::swap(st.dx, st.dx_below);
  }

  // dE_c[token_tc] += dx⁰_t.
  const int channels = static_cast<int>(shape.channel_vocab.size());
  for (int c = 0; c < channels; ++c) {
    double* g_e = grad(TensorRole::embedding, c);
    for (int t = 0; t < L; ++t) {
      double* row = g_e + at(example.tokens[at(t * channels + c)]) * at(D);
      for (int r = 0; r < D; ++r) row[r] += st.dx[at(t) * at(D) + at(r)];
    }
  }
}

// [SECTION] Batches over fixed chunks

constexpr int max_chunks = 8;

}  // namespace

struct Workspace::Buffers {
  struct Chunk {
    ExampleState state;
    std::vector<double> gradient;
    ChunkSums sums;
  };
  std::vector<Chunk> chunks;
  Transposed transposed;
  std::vector<double> positions;
  int positions_length = 0, positions_dim = 0;
};

Workspace::Workspace() : buffers_(std::make_unique<Buffers>()) {}
Workspace::~Workspace() = default;
Workspace::Workspace(const Workspace& other) : buffers_(std::make_unique<Buffers>(*other.buffers_)) {}
Workspace& Workspace::operator=(const Workspace& other) {
  if (this != &other) *buffers_ = *other.buffers_;
  return *this;
}
Workspace::Workspace(Workspace&&) noexcept = default;
Workspace& Workspace::operator=(Workspace&&) noexcept = default;

namespace {

const std::vector<double>& positions_for(Workspace::Buffers& b, const ModelShape& shape) {
  if (b.positions_length != shape.length || b.positions_dim != shape.model_dim) {
    b.positions = sinusoidal_positions(shape.length, shape.model_dim);
    b.positions_length = shape.length;
    b.positions_dim = shape.model_dim;
  }
  return b.positions;
}

void transpose_weights(Transposed& out, const Net& net) {
  const ModelShape& shape = net.layout->shape;
  const int D = shape.model_dim, dk = shape.key_dim, dv = shape.value_dim, H = shape.heads;
  out.block = 2 * at(dk) * at(D) + 2 * at(dv) * at(D);
  out.readout_at = out.block * at(shape.layers * H);
  out.values.resize(out.readout_at + at(shape.output_vocab) * at(D));
  transpose(out.values.data() + out.readout_at, net.tensor(TensorRole::readout), D, shape.output_vocab);
  for (int l = 0; l < shape.layers; ++l)
    for (int h = 0; h < H; ++h) {
      double* block = out.values.data() + at(l * H + h) * out.block;
      transpose(block, net.tensor(TensorRole::query, l, h), D, dk);
      transpose(block + at(dk) * at(D), net.tensor(TensorRole::key, l, h), D, dk);
      transpose(block + 2 * at(dk) * at(D), net.tensor(TensorRole::value, l, h), D, dv);
      transpose(block + 2 * at(dk) * at(D) + at(dv) * at(D), net.tensor(TensorRole::output, l) + at(h) * at(dv) * at(D),
                dv, D);
    }
}

template <class Body>
void for_chunks(int count, int max_threads, const Body& body) {
  if (max_threads == 1) {
    for (int c = 0; c < count; ++c) body(c);
  } else {
    parallel_for(count, body);
  }
}

BatchResult run_batch(std::span<double> gradients, Workspace& workspace, std::span<const double> weights,
                      const Layout& layout, const Settings& settings, std::span<const Example> batch,
                      const PassOptions& options, bool with_backward) {
  Workspace::Buffers& b = workspace.buffers();
  Net net;
  net.weights = weights;
  net.layout = &layout;
  net.settings = &settings;
  net.positions = &positions_for(b, layout.shape);
  net.score_scale = settings.scaled ? 1.0 / std::sqrt(static_cast<double>(layout.shape.key_dim)) : 1.0;
  net.stop = options.stop;
  // W_Kᵀ gives the low-rank logits (HeadState); the backward pass reads the rest.
  transpose_weights(b.transposed, net);
  net.transposed = &b.transposed;

  const int examples = static_cast<int>(batch.size());
  long long total_targets = 0;
  for (const Example& e : batch) total_targets += static_cast<long long>(e.targets.size());
  const double scale = total_targets > 0 ? 1.0 / static_cast<double>(total_targets) : 0.0;
  const int chunk_count = std::clamp(examples, 1, max_chunks);
  b.chunks.resize(at(chunk_count));
  ActivationProbe* probe = options.probe;
  const bool every_row = options.last_layer_rows == LastLayerRows::every ||
                         (options.last_layer_rows == LastLayerRows::automatic && computes_every_row(settings));

  for_chunks(chunk_count, options.max_threads, [&](int c) {
    Workspace::Buffers::Chunk& chunk = b.chunks[at(c)];
    chunk.sums = {};
    if (with_backward) zero(chunk.gradient, layout.parameter_count);
    const int first = c * examples / chunk_count, end = (c + 1) * examples / chunk_count;
    for (int e = first; e < end; ++e) {
      if (options.stop.stop_requested()) return;
      const Example& example = batch[at(e)];
      prepare(chunk.state, layout.shape, example_length(example, layout.shape),
              every_row ? std::span<const int>{} : std::span<const int>(example.target_positions));
      const ActivationProbe* nudge = probe != nullptr && probe->example == e ? probe : nullptr;
      forward(chunk.state, net, example, example.target_positions, nudge);
      if (options.stop.stop_requested()) return;
      chunk.sums.targets += static_cast<long long>(example.targets.size());
      add_stats(chunk.sums.stats, chunk.state, layout.shape, example.target_positions);
      if (with_backward) {
        backward(chunk.gradient, chunk.state, net, example, scale, chunk.sums,
                 probe != nullptr && probe->example == e ? probe : nullptr);
      } else {
        const int V = layout.shape.output_vocab;
        chunk.state.dz.resize(at(V));
        for (std::size_t n = 0; n < example.targets.size(); ++n) {
          bool correct = false;
          chunk.sums.loss += target_loss(chunk.state.readout.data() + n * at(V), V, example.targets[n],
                                         chunk.state.dz.data(), 0.0, correct);
          chunk.sums.correct += correct ? 1 : 0;
        }
      }
    }
  });

  // A stop asked for at any time during the chunks may have cut one short: the pass is abandoned
  // (`gradients` untouched). Asked for after they all finished, it still abandons a whole pass.
  BatchResult result;
  if (options.stop.stop_requested()) {
    result.cancelled = true;
    result.finite = false;
    return result;
  }
  // Sum the chunks in their fixed order: the same bits whatever thread ran which chunk.
  double loss = 0.0, q_sq = 0.0, k_sq = 0.0;
  long long correct = 0;
  if (with_backward) std::fill(gradients.begin(), gradients.end(), 0.0);
  for (const auto& chunk : b.chunks) {
    loss += chunk.sums.loss;
    q_sq += chunk.sums.query_gradient_sq;
    k_sq += chunk.sums.key_gradient_sq;
    correct += chunk.sums.correct;
    result.stats.entropy_sum += chunk.sums.stats.entropy_sum;
    result.stats.max_weight_sum += chunk.sums.stats.max_weight_sum;
    result.stats.rows += chunk.sums.stats.rows;
    result.stats.saturated_rows += chunk.sums.stats.saturated_rows;
    if (with_backward)
      for (std::size_t i = 0; i < gradients.size(); ++i) gradients[i] += chunk.gradient[i];
  }
  result.targets = total_targets;
  result.loss = loss * scale;
  result.accuracy = total_targets > 0 ? static_cast<double>(correct) / static_cast<double>(total_targets) : 0.0;
  result.grad_norm_q = std::sqrt(q_sq);
  result.grad_norm_k = std::sqrt(k_sq);
  result.finite = std::isfinite(result.loss);
  if (with_backward)
    for (double g : gradients) result.finite = result.finite && std::isfinite(g);
  return result;
}

}  // namespace

bool computes_every_row(const Settings& settings) {
  return settings.softmax == SoftmaxVariant::naive || settings.precision == Format::fp16 ||
         settings.precision == Format::bf16;
}

BatchResult forward_backward(std::span<double> gradients, Workspace& workspace, std::span<const double> weights,
                             const Layout& layout, const Settings& settings, std::span<const Example> batch,
                             const PassOptions& options) {
  assert(gradients.size() == layout.parameter_count && weights.size() == layout.parameter_count);
  return run_batch(gradients, workspace, weights, layout, settings, batch, options, true);
}

BatchResult forward_only(Workspace& workspace, std::span<const double> weights, const Layout& layout,
                         const Settings& settings, std::span<const Example> batch, const PassOptions& options) {
  return run_batch({}, workspace, weights, layout, settings, batch, options, false);
}

// [SECTION] Trace

bool trace(Trace& out, std::span<const double> weights, const Layout& layout, const Settings& settings,
           const Example& example, const std::stop_token& stop) {
  const ModelShape& shape = layout.shape;
  const int L = example_length(example, shape);
  std::vector<int> every_position(at(L));
  for (int t = 0; t < L; ++t) every_position[at(t)] = t;
  ExampleState st;
  prepare(st, shape, L, {});
  const std::vector<double> positions = sinusoidal_positions(L, shape.model_dim);
  Net net;
  net.weights = weights;
  net.layout = &layout;
  net.settings = &settings;
  net.positions = &positions;
  net.score_scale = settings.scaled ? 1.0 / std::sqrt(static_cast<double>(shape.key_dim)) : 1.0;
  net.stop = stop;
  forward(st, net, example, every_position, nullptr);
  if (stop.stop_requested()) return false;

  out.length = L;
  out.layers = shape.layers;
  out.heads = shape.heads;
  out.key_dim = shape.key_dim;
  out.value_dim = shape.value_dim;
  out.output_vocab = shape.output_vocab;
  out.queries.clear(), out.keys.clear(), out.values.clear(), out.logits.clear(), out.weights.clear();
  for (HeadState& hs : st.heads) {
    out.queries.push_back(std::move(hs.q));
    out.keys.push_back(std::move(hs.k));
    out.values.push_back(std::move(hs.v));
    for (double& z : hs.logits) z /= settings.temperature;  // c·q·k/T: the softmax's input (−inf stays)
    out.logits.push_back(std::move(hs.logits));
    out.weights.push_back(std::move(hs.a));
  }
  out.readout_logits = std::move(st.readout);
  return true;
}

}  // namespace smlab::train
