// Helpers shared by the tests that read every shipped lesson step's numbers: the lessons as the app
// loads them, and a step's Snapshot as the window settles it.
#pragma once

#include <cstdint>
#include <memory>
#include <utility>

#include "lessons/claims.hpp"
#include "lessons/lesson_corpus.hpp"
#include "lessons/lessons.hpp"
#include "smlab/evaluate.hpp"
#include "work/evaluator.hpp"

namespace smlab::app::lesson_support {

inline const LessonList& shipped() {
  static const LessonList list = load_lessons(find_assets_dir() / "lessons");
  return list;
}

// Whether a claim reads the d_k sweep, a Monte Carlo mean the window refines after the Snapshot.
inline bool reads_the_sweep(const ClaimQuantity& q) { return q.quantity.rfind("dk_", 0) == 0; }
inline bool reads_the_sweep(const LessonClaim& claim) {
  return reads_the_sweep(claim.left) || (claim.than && reads_the_sweep(*claim.than));
}

// `sweep` refined as the Evaluator refines it, to the planned count (at most refine_max_trials):
// the numbers a text quotes are the converged ones drawn, not the first estimate.
inline void refine_as_drawn(DkSweep& sweep) {
  const std::int64_t target = planned_dk_trials(sweep.config, Evaluator::refine_max_trials);
  if (sweep.trials < target) add_dk_trials(sweep, target - sweep.trials);
}

// `params` evaluated for `view` as the app shows it once it has settled: that view's lab present,
// the lesson texts attached for the training lab's language model (as the app attaches them; built
// once), and the d_k sweep refined as drawn where `refine_sweep` (a claim reads it).
inline Snapshot settled_snapshot(Params params, View view, bool refine_sweep) {
  static const std::shared_ptr<const train::Corpus> corpus = lesson_corpus(shipped());
  EvaluateOptions options;
  options.view = view;
  attach_corpus(params, corpus);
  Snapshot snap = *evaluate(params, options);
  if (refine_sweep) refine_as_drawn(snap.dk_sweep);
  return snap;
}

}  // namespace smlab::app::lesson_support
