// evaluate(Params) → Snapshot: the pure, deterministic function behind every plot.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <stop_token>

#include "smlab/progress.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"

namespace smlab {

// What a staged evaluate() left to do (EvaluateOptions::stages).
struct Stages {
  bool scores = false;         // QKᵀ not computed yet (Snapshot::attention_scores holds Q, K only)
  bool map_range = false;      // attention_max is the previous Snapshot's, not this one's
  std::int64_t dk_trials = 0;  // the sweep's full trial count, when the Snapshot has fewer
  bool entropy_curve = false;  // H(T) has every 4th of its 121 points only (rows of ≥ 512 keys)
  bool any() const { return scores || map_range || dk_trials > 0 || entropy_curve; }
};

struct EvaluateOptions {
  std::stop_token stop;                    // a request here abandons the work (returns nullopt)
  std::atomic<float>* progress = nullptr;  // 0..1, written as work proceeds (may be null)
  // Also told each step, with its name (progress.hpp), e.g. a headless export's progress line. May
  // be null. Called on the evaluating thread and, inside long parallel stages, between blocks.
  ProgressSink* progress_sink = nullptr;
  std::int64_t dk_trials = 0;  // Monte Carlo trials per d_k point; 0 = automatic budget
  // A sweep computed earlier. When its config equals the one these Params need and
  // it has at least the requested trials, it is reused as is: sweeps are
  // deterministic per trial index, so this equals recomputing with its trial count.
  const DkSweep* previous_sweep = nullptr;
  // In/out, may be null: used when it matches the Params, else replaced by a fresh one. The
  // Snapshot is bit-identical either way (the cache holds exactly what would be recomputed).
  std::shared_ptr<const ScoreCache>* score_cache = nullptr;
  // May be null: the Snapshot shown before, whose parts that do not depend on what changed are
  // copied instead of recomputed (the entropy-versus-temperature curve when the row's scores
  // are identical). The result is bit-identical either way.
  const Snapshot* previous = nullptr;
  // Which lab's numbers to add to the dashboard's (dashboard: none); all_labs for exports.
  View view = View::dashboard;
  bool all_labs = false;
  // Leave the training lab out (it is not in the Snapshot): a headless export trains it itself, with
  // its cost checked first and its progress shown (app/export/training_export.hpp), and sets it after.
  bool training_by_caller = false;
  // Long imported contexts (no stored QKᵀ): leave the pooled maps out (Snapshot::pooled.factor
  // stays 0, attention_max is the previous one's) so the caller can show the rest at once and
  // add them with complete_pooled_maps, which takes seconds at L = 32768. They are still copied
  // from `previous` when nothing they depend on changed (a row drag).
  bool defer_pooled_maps = false;
  // In/out, may be null: a first result. When set, evaluate() returns as soon as the numbers a
  // person reads first are there and writes here what it left for complete_stages(): QKᵀ (random
  // data whose (seed, L, d_k) changed: the row comes from Q and K directly), the maps' colour
  // range (when the logit scales changed) and the d_k sweep beyond a coarse estimate. After
  // complete_stages() the Snapshot is bit-identical to an evaluation without staging.
  Stages* stages = nullptr;
};

// Trials per d_k point of a staged first estimate: an eighth of the full count (at least 2).
std::int64_t coarse_dk_trials(std::int64_t full_trials);

// Does what `stages` says, in that order (QKᵀ into a new ScoreCache, stored in *score_cache when
// that is not null; the full entropy curve; the colour range; the sweep's remaining trials), and
// clears it. Returns false
// if `stop` was requested first (the Snapshot is then partly completed and must not be shown).
bool complete_stages(Snapshot& snap, Stages& stages, std::shared_ptr<const ScoreCache>* score_cache,
                     const std::stop_token& stop = {});

// Whether a Snapshot still lacks the pooled maps it needs (evaluated with defer_pooled_maps).
bool pooled_maps_pending(const Snapshot& snap);
// Computes them (pooled_attention_maps) and the colour range. Returns false if `stop` was requested
// first (then the Snapshot is unchanged).
bool complete_pooled_maps(Snapshot& snap, const std::stop_token& stop = {}, const Progress& progress = {});
// The same, storing the fraction done (0 … 1) in *fraction_done after each chunk of rows (the
// window's progress bar, Evaluator::progress). fraction_done may be null.
bool complete_pooled_maps(Snapshot& snap, const std::stop_token& stop, std::atomic<float>* fraction_done);
// A first picture of those maps in 1/factor of the time (32× less at L = 32768): each pooled row
// is the block maxima of the first query of its block only (pooled.preview set). Exact for the
// rows it shows. Returns false if `stop` was requested first (the Snapshot is then unchanged).
bool preview_pooled_maps(Snapshot& snap, const std::stop_token& stop = {});

// Requires validate(params) to pass. Same Params → bit-identical Snapshot.
std::optional<Snapshot> evaluate(const Params& params, const EvaluateOptions& options);
Snapshot evaluate(const Params& params);

// Trials per d_k point that keep the first estimate to about 6·10⁴ normal draws
// (a few ms), so a slider drag stays within one frame; refinement adds more later.
std::int64_t automatic_dk_trials(int seq_len);

// The Monte Carlo d_k sweep evaluate() runs for `params` (random rows at the current T and
// score_scale, the random data's lengths: an imported L = 32768 would make it 8× dearer). The
// CSV export tops up exactly this sweep, so its numbers describe what the app shows.
DkSweepConfig dk_sweep_config(const Params& params);

}  // namespace smlab
