// The frame's side of the Evaluator: the Params and view last submitted, the newest result the frame
// draws, and how long a frame that submits waits for it. A frame shows what is ready when it is
// drawn, but a few milliseconds of waiting let a quick result (the dashboard's first stage, ~1 ms)
// change the plots on the very frame of the change, and a single step (a click, a key, the clicker)
// show its final picture a frame sooner (docs/PERFORMANCE.md). The App holds one.
#pragma once

#include "smlab/params.hpp"
#include "smlab/views.hpp"
#include "work/evaluator.hpp"

namespace smlab::app {

class FrameEvaluation {
 public:
  Evaluator& evaluator() { return evaluator_; }
  const Evaluator& evaluator() const { return evaluator_; }

  // Whether `params` or `view` differ from what was submitted last.
  [[nodiscard]] bool needs_submit(const Params& params, View view) const {
    return params != submitted_ || view != submitted_view_;
  }
  // Submits `params` for `view`; the Evaluator computes `evaluated_view`'s lab (a picture drawn by
  // another part, the live training lab's, is not computed again).
  void submit(const Params& params, View view, View evaluated_view);
  // The frame's submission: submits, then waits within the frame's budget as the last results'
  // times allow. `still`: nothing is moving (no slider or plot held, no glide, no sweep playing).
  // Returns the milliseconds the frame was blocked.
  double submit_and_wait(const Params& params, View view, View evaluated_view, bool still);
  // Once a frame: whether it submitted (a drag submits on consecutive frames, a single step does not).
  void end_frame(bool submitted) { submitted_last_frame_ = submitted; }

  // Takes the Evaluator's newest result as the one drawn; true when it is a new Snapshot.
  bool take_latest();
  // What this frame draws (the App splices the live training lab's picture in).
  Evaluator::Latest& latest() { return latest_; }
  const Evaluator::Latest& latest() const { return latest_; }

 private:
  // Submissions left before a frame waits for a final picture again: the last wait ended before
  // the maps were final, so these frames show the first result at once.
  static constexpr int final_wait_retry_submissions = 8;
  // A single step's frame waits at most this long in all for its final picture, and only when the
  // last final came within this many times that (a machine that needs more would wait in vain).
  static constexpr double final_wait_budget_ms = 16.0, final_wait_probe_factor = 3.0;
  // A frame's wait for its first results, when they came within half of it last time.
  static constexpr double wait_budget_ms = 8.0;

  Evaluator evaluator_;
  Params submitted_;
  View submitted_view_ = View::dashboard;
  Evaluator::Latest latest_;
  int final_wait_skips_ = 0;
  bool submitted_last_frame_ = false;  // the frame before submitted new Params (a drag goes on)
};

}  // namespace smlab::app
