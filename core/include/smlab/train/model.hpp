// The tiny attention model's math: its parameter tensors, their initial draws, the forward pass
// and the hand-derived backward pass over a batch (derivations in model.cpp), and a traced forward
// pass for probes and sentences. Run (run.hpp) drives it; tests call it directly.
#pragma once

#include <cstddef>
#include <memory>
#include <span>
#include <stop_token>
#include <string>
#include <vector>

#include "smlab/train/settings.hpp"
#include "smlab/train/tasks.hpp"

namespace smlab::train {

// The sizes of the network for a settings value (and the language model's corpus).
struct ModelShape {
  int length = 0;     // L
  int model_dim = 0;  // D
  int key_dim = 0;    // d_k
  int value_dim = 0;  // d_v = max(1, D / H)
  int heads = 0;      // H
  int layers = 0;
  std::vector<int> channel_vocab;  // one embedding table per input channel
  int output_vocab = 0;
};
ModelShape model_shape(const Settings& settings, const Corpus* corpus);

// The parameter tensors, all row-major inside one flat vector of doubles, in this order:
//   embedding[c]          V_c × D     per input channel c; x_t = Σ_c E_c[token_tc] (+ p_t)
//   per layer ℓ, head h:  W_Q  D × d_k,   W_K  D × d_k,   W_V  D × d_v
//   per layer ℓ:          W_O  (H·d_v) × D   (rows h·d_v … (h+1)·d_v − 1 belong to head h)
//   readout               W_R  D × V_out,    b_R  V_out
enum class TensorRole { embedding, query, key, value, output, readout, readout_bias };
struct Tensor {
  std::string name;  // "embedding0", "layer0.head1.w_q", "layer1.w_o", "readout.w", "readout.b"
  TensorRole role = TensorRole::embedding;
  int index = 0;  // the channel (embedding) or the layer
  int head = 0;   // query, key, value
  int rows = 0, cols = 0;
  std::size_t offset = 0;
  std::size_t size() const { return static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols); }
};
struct Layout {
  ModelShape shape;
  std::vector<Tensor> tensors;
  std::size_t parameter_count = 0;
  const Tensor& find(TensorRole role, int index = 0, int head = 0) const;  // must exist
};
Layout make_layout(const ModelShape& shape);

// The initial value of one entry: σ·z with z ~ N(0, 1) drawn from (seed, tensor, row, column)
// alone, so that a wider or narrower d_k keeps every shared entry. σ: embeddings 1; W_Q and W_K
// init_scale/√D; W_V and the readout 1/√D; W_O 1/√(H·d_v); b_R 0.
double initial_weight(const Settings& settings, const Tensor& tensor, int row, int col);
void initialize(std::span<double> weights, const Layout& layout, const Settings& settings);

// Statistics of the attention rows the loss reads: in every layer and head, the rows of the
// positions that have a target. A row is saturated when its largest weight is ≥ 0.99: then every
// S_i(1 − S_i) of the row is below 0.0099 (≤ 4% of the largest possible, ¼).
inline constexpr double saturated_weight = 0.99;
struct AttentionStats {
  double entropy_sum = 0.0;     // Σ over rows of −Σ_j a_j ln a_j (nats)
  double max_weight_sum = 0.0;  // Σ over rows of max_j a_j
  long long rows = 0, saturated_rows = 0;
};

// One batch's outcome. Loss: the mean over all target positions of the batch of −ln p(target).
struct BatchResult {
  double loss = 0.0;
  double accuracy = 0.0;  // fraction of target positions whose largest logit is the target's
  long long targets = 0;
  // ‖∂L/∂Q‖ and ‖∂L/∂K‖: Frobenius norms of the gradient of the batch loss with respect to the
  // attention's query and key activations Q = X W_Q and K = X W_K (before ÷√d_k and ÷T), every
  // example, layer and head stacked into one tensor.
  double grad_norm_q = 0.0, grad_norm_k = 0.0;
  AttentionStats stats;
  bool finite = true;      // loss and every gradient finite
  bool cancelled = false;  // PassOptions::stop was requested: nothing else here holds (finite is false)
};

// For tests: add `delta` to one entry of Q (or K) of one example, layer and head, after the
// projection; and/or keep a copy of that example's ∂L/∂Q and ∂L/∂K (L × d_k each).
struct ActivationProbe {
  int example = 0, layer = 0, head = 0;
  int row = 0, col = 0;
  bool key = false;
  double delta = 0.0;
  std::vector<double> query_gradient, key_gradient;  // filled by forward_backward
  // Requested when the forward pass reaches this example, layer and head: a stop from inside the
  // pass, at a known place, for the test of PassOptions::stop.
  std::stop_source* stop_here = nullptr;
};

// Buffers reused between calls (per-chunk activations and gradients); opaque to callers.
class Workspace {
 public:
  Workspace();
  ~Workspace();
  Workspace(const Workspace&);
  Workspace& operator=(const Workspace&);
  Workspace(Workspace&&) noexcept;
  Workspace& operator=(Workspace&&) noexcept;
  struct Buffers;
  Buffers& buffers() { return *buffers_; }

 private:
  std::unique_ptr<Buffers> buffers_;
};

// Which query rows the last layer computes. A framework computes every row. A row that no target
// reads reaches the loss and the gradients only through a value that is not finite: its ∂L/∂A is
// 0, and 0·NaN is NaN in the softmax's backward (and in ∂L/∂V = Aᵀ ∂L/∂O), so one overflowing
// unread row makes the whole step's gradient NaN, as it does in a framework. From finite scores
// only a naive softmax or a narrow format (fp16, bf16, whose rounded scores can overflow) makes
// such a value; a stable softmax in fp32 or fp64 gives every unread row finite weights and so
// exactly nothing. `automatic`: every row where the settings can make one (computes_every_row),
// only the read rows elsewhere (the same numbers in fewer operations). `every` and `read` force
// one way (tests compare them).
enum class LastLayerRows { automatic, every, read };
bool computes_every_row(const Settings& settings);  // naive softmax, or fp16/bf16

// Options of a batch pass. The batch is split into min(batch, 8) fixed chunks whose gradients
// are summed in chunk order, so the result does not depend on how many threads run the chunks.
struct PassOptions {
  int max_threads = 0;               // 1: the calling thread only; otherwise parallel_for's pool
  ActivationProbe* probe = nullptr;  // tests only
  LastLayerRows last_layer_rows = LastLayerRows::automatic;
  // Checked before every example and every head's work, forward and backward (for the largest
  // model, every few tens of milliseconds): once it is requested the pass stops and returns
  // BatchResult::cancelled, having written nothing to `gradients`.
  std::stop_token stop{};
};

// Forward and backward over a batch: `gradients` (parameter_count) receives ∂L/∂θ of the mean
// loss; nothing else is written. `weights` has layout.parameter_count entries.
BatchResult forward_backward(std::span<double> gradients, Workspace& workspace, std::span<const double> weights,
                             const Layout& layout, const Settings& settings, std::span<const Example> batch,
                             const PassOptions& options = {});

// Forward only (loss, accuracy, attention statistics; no gradient norms).
BatchResult forward_only(Workspace& workspace, std::span<const double> weights, const Layout& layout,
                         const Settings& settings, std::span<const Example> batch, const PassOptions& options = {});

// Everything of one example's forward pass, for the probe maps and the sentence export.
// Per layer ℓ and head h, row-major: queries/keys L × d_k, values L × d_v, logits (c·q·k/T,
// −inf where masked) and weights L × L; index [ℓ·H + h]. Readout: logits L × V_out at every
// position (positions without a target too).
struct Trace {
  int length = 0, layers = 0, heads = 0, key_dim = 0, value_dim = 0, output_vocab = 0;
  std::vector<std::vector<double>> queries, keys, values, logits, weights;
  std::vector<double> readout_logits;
};
// Returns false (and `out` is not to be used) when `stop` was requested before it finished; it is
// checked before every head's work.
bool trace(Trace& out, std::span<const double> weights, const Layout& layout, const Settings& settings,
           const Example& example, const std::stop_token& stop = {});

// Sinusoidal position encodings: p_t[2i] = sin(t / 10000^(2i/D)), p_t[2i+1] = cos(same), L × D.
std::vector<double> sinusoidal_positions(int length, int model_dim);

// The softmax of one row under the settings' precision and variant: bit for bit what
// softmax_in_format (precision.hpp) gives for the same scores and temperature, without its report.
// weights and scores have the same length; masked scores are −inf.
void softmax_row(std::span<double> weights, std::span<const double> scores, double temperature, Format precision,
                 SoftmaxVariant variant);

}  // namespace smlab::train
