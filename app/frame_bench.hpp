// `--bench-frames N`: drive one slider every frame, as a drag would, and report
// frame and recompute times as one JSON line (DESIGN.md §9).
#pragma once

#include <string>

#include "app.hpp"

namespace smlab::app {

struct FrameBenchResult {
  int frames = 0;
  double median_frame_ms = 0.0, p95_frame_ms = 0.0;
  double median_recompute_ms = 0.0, max_blocked_ms = 0.0;
  // Process start (static initialisation) to the end of the first frame that shows numbers.
  double first_frame_ms = 0.0;
  // Process start to the first frame that shows the attention maps too (later than first_frame_ms
  // only for long imported contexts, whose maps follow the rest of the Snapshot).
  double first_map_ms = 0.0;
  // After the drag: one more change of `key`, to the frame that shows its maps (a settled drag).
  double settle_ms = 0.0;
  // Peak resident set of the process (getrusage), in MiB, at the end of the run.
  double peak_rss_mib = 0.0;
  std::string to_json() const;
};

// Draws frames until the first Snapshot shows (timing that from process start), lets its Monte
// Carlo refinement finish, then moves `key` (temperature, score_scale, d_k or row) through its
// range, one step per frame, back and forth, and times each frame. Returns an error message in
// `error` for an unsupported key.
FrameBenchResult run_frame_bench(App& app, const std::string& key, int frames, std::string& error);

}  // namespace smlab::app
