// evaluate(Params) → Snapshot: the pure, deterministic function behind every plot.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>

#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"

namespace smlab {

// Q, K and QKᵀ for one (seed, seq_len, d_k): what every other slider leaves unchanged. Dragging
// temperature, score scale, row or the scaling switch reuses it instead of drawing 2·L·d_k
// normals and recomputing an L×L×d_k product per frame (at L = 1024 that was half the recompute).
inline constexpr int score_cache_max_seq_len = 2048;  // longer sequences are not cached

struct ScoreCache {
  std::uint64_t seed = 0;
  int seq_len = 0, key_dim = 0;
  Matrix queries, keys;  // L × d_k each
  Matrix raw;            // raw(i, j) = q_i · k_j (dot_product_scores_fast), L × L; only kept when cached
  bool matches(const Params& params) const {
    return seed == params.seed && seq_len == params.seq_len && key_dim == params.key_dim;
  }
};

struct EvaluateOptions {
  std::stop_token stop;                  // a request here abandons the work (returns nullopt)
  std::atomic<float>* progress = nullptr;  // 0..1, written as work proceeds (may be null)
  std::int64_t dk_trials = 0;            // Monte Carlo trials per d_k point; 0 = automatic budget
  // A sweep computed earlier. When its config equals the one these Params need and
  // it has at least the requested trials, it is reused as is: sweeps are
  // deterministic per trial index, so this equals recomputing with its trial count.
  const DkSweep* previous_sweep = nullptr;
  // In/out, may be null: used when it matches the Params, else replaced by a fresh one. The
  // Snapshot is bit-identical either way (the cache holds exactly what would be recomputed).
  std::shared_ptr<const ScoreCache>* score_cache = nullptr;
  // May be null: a Snapshot nobody reads any more, whose attention-map buffers are moved into
  // the new one and overwritten (at L = 4096 that saves faulting in 128 MB of fresh pages per
  // recompute). Only the buffers' capacity is reused, never their contents.
  Snapshot* recycle = nullptr;
  // May be null: the Snapshot shown before, whose parts that do not depend on what changed are
  // copied instead of recomputed (the entropy-versus-temperature curve when the row's scores
  // are identical). The result is bit-identical either way.
  const Snapshot* previous = nullptr;
  // Which lab's numbers to add to the dashboard's (dashboard: none); all_labs for exports.
  View view = View::dashboard;
  bool all_labs = false;
};

// Requires validate(params) to pass. Same Params → bit-identical Snapshot.
std::optional<Snapshot> evaluate(const Params& params, const EvaluateOptions& options);
Snapshot evaluate(const Params& params);

// Trials per d_k point that keep the first estimate to about 6·10⁴ normal draws
// (a few ms), so a slider drag stays within one frame; refinement adds more later.
std::int64_t automatic_dk_trials(int seq_len);

}  // namespace smlab
