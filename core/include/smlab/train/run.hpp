// One training run of the tiny attention model: created from settings and a seed, stepped,
// changed between steps, with its metrics history, probe maps, weights as bytes, and a
// sentence's per-head Q, K, V and attention for export. docs/TRAINING.md describes the whole.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/train/corpus.hpp"
#include "smlab/train/model.hpp"
#include "smlab/train/settings.hpp"
#include "smlab/train/tasks.hpp"

namespace smlab::train {

// What one step measured: the batch it trained on, at the weights before its update.
struct StepMetrics {
  int step = 0;  // 1 for the first step of a run
  double loss = 0.0, accuracy = 0.0;
  double grad_norm_q = 0.0, grad_norm_k = 0.0;  // BatchResult's ‖∂L/∂Q‖, ‖∂L/∂K‖ (model.hpp)
  // Over the rows the loss reads (model.hpp AttentionStats): mean entropy (nats), mean largest
  // weight, and the fraction of rows whose largest weight is ≥ 0.99 (saturated).
  double entropy = 0.0, max_weight = 0.0, saturated_fraction = 0.0;
  // The probe's best head: the largest ideal_match and ideal_agreement (tasks.hpp) over every
  // layer and head; NaN for the language model, which has no ideal map.
  double probe_match = 0.0, probe_agreement = 0.0;
  bool skipped = false;  // loss or a gradient was not finite: the step updated nothing
};

// The probe's attention at the run's current weights, with its ideal map.
struct ProbeMaps {
  int step = 0;  // steps done when taken
  int length = 0, layers = 0, heads = 0;
  std::vector<std::string> labels;        // L
  std::vector<double> weights;            // [layer][head][L][L], row-major
  std::vector<double> ideal;              // [L][L] (tasks.hpp Probe)
  std::vector<unsigned char> ideal_rows;  // L
  std::vector<double> match, agreement;   // [layer][head]: ideal_match and ideal_agreement of each map
  int row = 0;                            // the probe row (Probe::row)
  // The probe row's points on the S(1−S) parabola, per layer and head: S = weights of that row,
  // slope = S(1 − S), the diagonal of the softmax Jacobian. [layer][head][L].
  std::vector<double> row_weights, row_slopes;
  const double* map(int layer, int head) const {
    return weights.data() + (static_cast<std::size_t>(layer) * heads + head) * length * length;
  }
};

// A sentence through the trained model: every layer's and head's Q, K, V and attention, and the
// next-token distribution at each position (softmax of the readout, T = 1).
struct SentenceAttention {
  std::vector<std::string> labels;  // L token labels
  Trace trace;                      // model.hpp: queries, keys, values, logits, weights per [ℓ·H + h]
  std::vector<double> next_token;   // L × V_out probabilities
};

// The .npz bytes of a sentence (every array '<f8', C order), for the app to write as a file:
//   weights             [layers, heads, L, L]    the model's attention (import's default role:
//                                                `--import file.npz` shows exactly these maps)
//   query_activations   [layers, heads, L, d_k]  Q, K, V: `--import file.npz:query_activations=Q,
//   key_activations     [layers, heads, L, d_k]    key_activations=K,value_activations=V`
//   value_activations   [layers, heads, L, d_v]
//   score_map           [layers, heads, L, L]    c·q·k/T, −inf where masked (`:score_map=scores`)
//   next_token          [L, V_out]               next-token probabilities
// The import path's batch axis holds the layer.
std::vector<std::uint8_t> attention_npz(const SentenceAttention& sentence);

// Whether `settings` can train on `corpus`: the language task needs one whose first nine tenths
// and held-out last tenth each hold seq_len + 1 characters. Error::usage, one line naming seq_len
// and the longest the corpus allows (what Run::create refuses).
Result<void> check_corpus(const Settings& settings, const Corpus* corpus);

class Run {
 public:
  // A new run at step 0. The corpus (shared, never copied) is what the language task trains on; a
  // run of another task keeps it for a later change() to that task. Errors (Error::usage): settings
  // that validate() refuses, the language task without a corpus, or a corpus too short for seq_len.
  static Result<Run> create(const Settings& settings, std::shared_ptr<const Corpus> corpus = nullptr);

  // Trains `count` steps. A step draws its batch (tasks.hpp), runs forward_backward, records its
  // StepMetrics, and updates the weights with Adam (β₁ 0.9, β₂ 0.999, ε 1e-8, bias-corrected) or
  // SGD. A step whose loss or gradient is not finite updates nothing (as mixed-precision trainers
  // skip such steps) and is marked skipped; the first such step is remembered. Out of memory
  // throws std::bad_alloc with the run as it was after its last whole step (the caller's worker
  // catches it and shows the one-line error).
  // `stop` is checked before each step and inside it, before every example and every head's work
  // (forward_backward's PassOptions::stop, and the probe's trace): once it is requested the step in
  // progress is abandoned, the run stays exactly as after its last whole step, and the call returns
  // (for the largest model within tens of milliseconds, where a whole step takes minutes). Returns
  // the steps done: `count`, or fewer when stopped.
  int step(int count = 1, const std::stop_token& stop = {});

  // Applies new settings between steps, each key as its Effect says (settings.hpp): live keys at
  // the next step, d_k reshapes W_Q and W_K, init_scale rescales them, and any restart key starts
  // the run again from step 0 (history cleared). Returns the strongest effect applied; on an error
  // (validate's) the run is unchanged.
  Result<Effect> change(const Settings& next);
  // Back to step 0 with the weights drawn from the seed; history cleared.
  void reset();

  const Settings& settings() const { return settings_; }
  int steps_done() const { return steps_; }
  const std::vector<StepMetrics>& history() const { return history_; }
  std::optional<int> first_nonfinite_step() const { return first_nonfinite_; }
  const Layout& layout() const { return layout_; }
  std::span<const double> weights() const { return weights_; }
  const std::shared_ptr<const Corpus>& corpus() const { return corpus_; }
  const Probe& probe() const { return probe_; }

  // The probe's maps at the current weights.
  ProbeMaps probe_maps() const;

  // Loss, accuracy and attention statistics on `examples` held-out examples (a stream of their
  // own; the language model's come from the corpus's last tenth), at the current weights.
  BatchResult held_out(int examples);

  // 1: every pass on the calling thread; otherwise on parallel_for's pool. Results are the same
  // bits either way.
  void set_max_threads(int max_threads) { max_threads_ = max_threads; }

  // The weights as bytes (a small text header with every setting, the step and the corpus's
  // vocabulary fingerprint, then the doubles, then a CRC-32); the caller writes the file.
  std::vector<std::uint8_t> save() const;
  // A run from saved bytes, at the saved step, with fresh optimiser moments and an empty history.
  // `file` names the bytes in messages. Errors (Error::usage, one line): not a weights file, a bad
  // or missing setting, a size or checksum mismatch, a value that is not finite, or a language
  // model whose vocabulary is not the given corpus's.
  static Result<Run> load(std::span<const std::uint8_t> bytes, std::string_view file,
                          std::shared_ptr<const Corpus> corpus = nullptr);

  // A sentence through the model. `tokens`: L × channels token ids (1 ≤ L ≤ 128), each within its
  // channel's vocabulary. The text form (language model only) encodes UTF-8 with the corpus.
  Result<SentenceAttention> inspect(std::span<const int> tokens) const;
  Result<SentenceAttention> inspect_text(std::string_view utf8) const;

 private:
  Run() = default;
  void start();
  void apply_update();
  void reshape_key_dim(const Settings& next);

  Settings settings_;
  std::shared_ptr<const Corpus> corpus_;
  Layout layout_;
  Probe probe_;
  std::vector<double> weights_, gradients_, first_moment_, second_moment_;
  int adam_steps_ = 0;
  int steps_ = 0;
  std::vector<StepMetrics> history_;
  std::optional<int> first_nonfinite_;
  std::vector<Example> batch_;
  Workspace workspace_;
  int max_threads_ = 0;
};

}  // namespace smlab::train
