// Snapshot: everything the panels draw and the CSV export writes, computed by
// evaluate(Params). Panels read it; they never compute math themselves.
#pragma once

#include <any>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <stop_token>
#include <vector>

#include "smlab/progress.hpp"

#include "smlab/attention.hpp"
#include "smlab/kernels.hpp"
#include "smlab/montecarlo.hpp"
#include "smlab/params.hpp"
#include "smlab/shown_row.hpp"
#include "smlab/softmax.hpp"
#include "smlab/views.hpp"

namespace smlab {

// Q, K and QKᵀ for one (seed, seq_len, d_k): what every other slider leaves unchanged. Dragging
// temperature, score scale, row or the scaling switch reuses it instead of drawing 2·L·d_k
// normals and recomputing an L×L×d_k product per frame (at L = 1024 that was half the recompute).
// Imported data has its own key: the data and the (batch, head) slice.
//
// Imported Q and K longer than stored_scores_max_length keep no QKᵀ at all (raw stays empty): the
// maps are computed tile by tile from Q and K (pooled_attention_maps), memory growing like L·d.
inline constexpr int stored_scores_max_length = 4096;

struct ScoreCache {
  std::uint64_t seed = 0;
  int seq_len = 0, key_dim = 0;
  std::shared_ptr<const ImportedAttention> source;  // the imported data these came from, or null
  int batch = 0, head = 0;
  Matrix queries, keys;  // L × d_k each (empty for imported scores or weights)
  Matrix raw;            // raw(i, j) = q_i · k_j (dot_product_scores_fast), L × L; imported: the
                         // scores, or ln(weights); empty for imported Q, K with L > 4096
                         // (with score_exponent e: q_i · k_j · 2^−e)
  // Imported Q and K large enough that a float sum of q·k could overflow (its bound
  // d·max|q|·max|k| above 2^64, e.g. entries of 1e30): the float kernels (raw, rows, pooled maps)
  // multiply kernel_queries = Q·2^−a and kernel_keys = K·2^−b instead, powers of two so only the
  // exponents change (exact unless a tiny entry becomes subnormal, which moves q·k by less than
  // 2^−100 of its size), and the logit scales are multiplied back by 2^score_exponent, e = a + b
  // (kernel_logit_scale). So finite float inputs never give NaN maps. Ordinary data: e = 0, the
  // kernel matrices empty, and the kernels read queries and keys as always (the same bits).
  int score_exponent = 0;
  Matrix kernel_queries, kernel_keys;
  const Matrix& queries_for_kernels() const { return score_exponent != 0 ? kernel_queries : queries; }
  const Matrix& keys_for_kernels() const { return score_exponent != 0 ? kernel_keys : keys; }
  bool matches(const Params& params) const {
    if (source != params.imported) return false;
    if (source != nullptr) return batch == params.batch && head == params.head;
    return seed == params.seed && seq_len == params.seq_len && key_dim == params.key_dim;
  }
};

// The two maps reduced to at most pooled_side_max² cells by block maxima (factor × factor keys
// and queries per cell), computed tile by tile when no L×L matrix is stored.
inline constexpr int pooled_side_max = 1024;
struct PooledMaps {
  int factor = 0, side = 0;             // side = ⌈L / factor⌉; factor 0 = not computed
  std::vector<float> scaled, unscaled;  // side × side, row-major
  float max_weight = 0.0f;              // largest finite weight of both maps
  // A first picture (preview_pooled_maps): each pooled row from one query of its block, 1/factor
  // of the work; complete_pooled_maps replaces it with every query's block maxima.
  bool preview = false;
};

// The labs' numbers by view: one slot per View (views.cpp's table says what each lab computes),
// filled by evaluate() when the view is shown or everything is exported.
class LabResults {
 public:
  bool has(View view) const {
    const auto slot = static_cast<std::size_t>(view);
    return slot < results_.size() && results_[slot].has_value();
  }
  void set(View view, std::any result) {
    const auto slot = static_cast<std::size_t>(view);
    if (results_.size() <= slot) results_.resize(slot + 1);
    results_[slot] = std::move(result);
  }
  // The result of type Lab (e.g. HeadsLab), or null when its lab was not computed. Only its own
  // view's slot is looked at (smlab/lab_list.hpp says which).
  template <class Lab>
  const Lab* get() const {
    static_assert(is_lab_result<Lab>, "not the result of a lab of smlab/lab_list.hpp");
    const auto slot = static_cast<std::size_t>(view_of_lab<Lab>);
    return slot < results_.size() ? std::any_cast<Lab>(&results_[slot]) : nullptr;
  }

 private:
  std::vector<std::any> results_;  // index: View
};

struct Snapshot {
  Params params;  // what this snapshot was computed from

  // The selected row (or the custom score vector), length n: shown_row(), the one definition every
  // lab that works on the row is handed (views.hpp, row_lab_evaluator), the causal mask applied.
  ShownRow shown;
  // scores = shown.scores: score_scale · q_row·k_j (÷ √d_k when scaled; −inf after `row` when
  // causal), or score_scale · custom; logits = scores / T; probabilities = softmax(logits);
  // gradient = s_i (1 − s_i).
  bool custom_scores = false;
  std::vector<double> scores, logits, probabilities, gradient;
  double entropy_nats = 0.0, max_weight = 0.0, jacobian_norm = 0.0;
  double effective_choices = 1.0;  // e^H: how many keys the row effectively attends to
  double max_entropy_nats = 0.0;   // ln n, the entropy of the uniform distribution (n unmasked keys)
  int unmasked_keys = 0;           // n: the keys the row can attend to (score not −inf); 1/n is uniform
  double entropy_bits = 0.0;       // H / ln 2
  double logsumexp = 0.0;          // log Σ exp(logit_i): the normaliser of the row
  double kl_from_uniform = 0.0;    // KL(s ‖ uniform over the unmasked keys) = ln n − H, in nats
  // log s_i (log-softmax), and the gradient of log s_k for k = argmax with respect to
  // each logit: ∂ log s_k / ∂z_i = δ_ik − s_i (log_softmax_vjp with g = e_k).
  std::vector<double> log_probabilities, log_max_gradient;
  // ∂s_k/∂z_i = s_k (δ_ik − s_i) for k = argmax: how the top weight moves when each logit moves
  // (softmax_vjp with g = e_k). It sums to zero: raising every logit alike changes nothing.
  std::vector<double> max_gradient;
  int argmax = 0;
  // The parabola S(1 − S) the gradient entries lie on (101 samples), for the dashboard's plot.
  GradientParabola gradient_parabola;

  // Entropy of the row's softmax versus temperature (log-spaced over [0.01, 100]).
  std::vector<double> temperature_grid, entropy_vs_temperature;

  // Monte Carlo entropy (and max weight, Jacobian norm) versus d_k, scaled and
  // unscaled, for rows of length L at the current T and score_scale.
  DkSweep dk_sweep;

  // The two L×L attention maps: row i is softmax(logit_scale · q_i·Kᵀ), with
  // logit_scale = score_scale / (T·√d_k) for the scaled map and score_scale / T for the unscaled.
  // With params.causal, row i is that softmax over keys 0 … i and exactly 0 after them, in every
  // map, its colour range, CSV and read-out (and the selected row's scores are −inf after `row`).
  // The weights are not stored, the raw scores QKᵀ are: shared with the ScoreCache and with every
  // Snapshot of the same (seed, L, d_k), and attention_row() recomputes a row of weights on
  // demand (one L-long softmax, microseconds), as FlashAttention recomputes rather than stores.
  // Two stored 4096² maps were 128 MB per Snapshot, and the shown and the next one coexist.
  int attention_size = 0;
  std::shared_ptr<const ScoreCache> attention_scores;
  double scaled_logit_scale = 1.0, unscaled_logit_scale = 1.0;
  float attention_max = 1.0f;  // largest finite weight of both maps: their shared colour range
  bool causal = false;         // params.causal: the maps mask keys j > i (random and imported data)
  // Present (factor > 0) when attention_scores holds no L×L matrix (imported Q, K, L > 4096):
  // the pooled pictures, made tile by tile. attention_row still gives any row exactly.
  PooledMaps pooled;

  // The labs' numbers by view, present when evaluate() was asked for them (EvaluateOptions).
  LabResults labs;
  // One lab's numbers by its type (include its smlab/labs/<name>.hpp), or null when not computed.
  template <class Lab>
  const Lab* lab() const {
    return labs.get<Lab>();
  }
};

// Row `row` of the scaled or the unscaled attention map into out (attention_size floats), through
// softmax_rows_fast: bit-identical to that row of attention_map().
void attention_row(const Snapshot& snap, bool scaled, int row, std::span<float> out);

// Output o_i = Σ_j a_ij v_j of the selected query row i through both maps (attention_output on
// that one row), with the imported V of the shown batch and head, or V drawn from the Params'
// seed (d_v = d_k, the Stream::values stream). 1 × d_v each.
struct RowAttentionOutput {
  Matrix scaled, unscaled;
};
RowAttentionOutput row_attention_output(const Snapshot& snap);

// The whole map, row-major attention_size²: for exports and tests, not for every frame. Empty
// when no L×L scores are stored (attention_size > stored_scores_max_length).
std::vector<float> attention_map(const Snapshot& snap, bool scaled);

// The largest finite weight of a map (0 for an empty one), a row at a time.
float attention_map_max(const Snapshot& snap, bool scaled);

// Both maps of L×d queries and keys pooled by block maxima over factor × factor cells, computed a
// chunk of query rows at a time on every available thread (core/src/pooled_maps.cpp): each chunk's
// scores q_i·k_j (the fast QKᵀ kernel), then one pass per row that gives each cell's largest weight
// at both logit scales without writing the weights. Memory: a chunk (≤ 128·L floats) per thread
// and the output, never L×L. The cells are the block maxima of exactly the weights attention_row
// gives (softmax_rows_fast), bit for bit, on instruction set `isa`. `progress` is told after each
// chunk, from the thread that did it (its stop token is not read: `stop` is, between chunks).
void pooled_attention_maps(PooledMaps& out, const Matrix& queries, const Matrix& keys, double scaled_logit_scale,
                           double unscaled_logit_scale, bool causal, int factor, const std::stop_token& stop = {},
                           const Progress& progress = {}, KernelIsa isa = KernelIsa::best);

}  // namespace smlab
