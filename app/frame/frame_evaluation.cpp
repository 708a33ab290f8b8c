// The frame's side of the Evaluator (frame_evaluation.hpp).
#include "frame_evaluation.hpp"

#include <chrono>

namespace smlab::app {

void FrameEvaluation::submit(const Params& params, View view, View evaluated_view) {
  submitted_ = params;
  submitted_view_ = view;
  evaluator_.submit(submitted_, evaluated_view);
}

double FrameEvaluation::submit_and_wait(const Params& params, View view, View evaluated_view, bool still) {
  using Clock = std::chrono::steady_clock;
  // The worker takes a submission only after the job it is running (a job is never cancelled:
  // see Evaluator::submit), so while it is busy, the later stages of an L = 4096 recompute for
  // instance, no result can come within a frame's wait: that frame is drawn at once.
  const bool worker_free = !evaluator_.busy();
  // Not the next position of something moving: Params that changed on the frame before too are.
  const bool single_step = still && !submitted_last_frame_;
  submit(params, view, evaluated_view);
  // When first results are quick (the dashboard's staged recompute: the row, its plots and a
  // coarse d_k sweep, ~1 ms) a few ms of waiting lets the plots change on this very frame. When
  // the last one took more than half the wait (a slow lab), waiting would mostly stall the
  // frame: the snapshot lands a frame later.
  if (!worker_free || evaluator_.last_first_result_ms() >= 0.5 * wait_budget_ms) return 0.0;
  const auto wait_start = Clock::now();
  const auto budget =
      std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::duration<double, std::milli>(wait_budget_ms));
  evaluator_.wait_for_latest(budget);
  const auto rest = std::chrono::duration_cast<std::chrono::microseconds>(budget - (Clock::now() - wait_start));
  // Small problems (all stages within half the budget last time): the complete Snapshot on
  // this frame too, rather than a first result now and the rest a frame later.
  if (evaluator_.last_compute_ms() < 0.5 * wait_budget_ms) {
    evaluator_.wait_for_complete(rest);
  } else if (single_step && final_wait_skips_ == 0 &&
             evaluator_.last_final_ms() < final_wait_probe_factor * final_wait_budget_ms) {
    // Otherwise, for a single step, up to one 60 Hz frame in all for the maps and H(T) (all but
    // the Monte Carlo curves): at L = 1024 they take a few ms while the cores are free, but
    // about a frame longer when they run beside the first result's frame (a software
    // rasteriser takes both cores), so waiting here shows the final picture a whole frame
    // sooner (docs/PERFORMANCE.md). During a drag the first results follow the hand
    // at once instead, and where the last final took several frames (L = 4096) no frame waits.
    // When the final does not come within the budget, the next single steps show first results.
    evaluator_.wait_for_final(std::chrono::duration_cast<std::chrono::microseconds>(
        std::chrono::duration<double, std::milli>(final_wait_budget_ms) - (Clock::now() - wait_start)));
    const Evaluator::Latest shown = evaluator_.latest();
    if (!shown.snapshot || shown.snapshot->params != submitted_ || shown.maps_pending || shown.entropy_curve_pending)
      final_wait_skips_ = final_wait_retry_submissions;
  } else if (single_step && final_wait_skips_ > 0) {
    --final_wait_skips_;
  }
  return std::chrono::duration<double, std::milli>(Clock::now() - wait_start).count();
}

bool FrameEvaluation::take_latest() {
  Evaluator::Latest latest = evaluator_.latest();
  const bool new_snapshot = latest.version != latest_.version;
  latest_ = std::move(latest);
  return new_snapshot;
}

}  // namespace smlab::app
