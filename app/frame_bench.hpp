// `--bench-frames N`: drive one slider every frame, as a drag would, and report
// frame and recompute times as one JSON line (docs/PERFORMANCE.md). `--bench-latency N`: N single
// slider steps from rest per slider, timed from the input to the frames that show the result.
#pragma once

#include <string>
#include <vector>

#include "app.hpp"
#include "smlab/error.hpp"

namespace smlab::app {

struct FrameBenchResult {
  int frames = 0;
  double median_frame_ms = 0.0, p95_frame_ms = 0.0;
  // blocked: the part of a frame spent waiting for the worker's result (App::FrameTiming::blocked_ms).
  double median_recompute_ms = 0.0, median_blocked_ms = 0.0, max_blocked_ms = 0.0;
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
// range, one step per frame, back and forth, and times each frame. A usage Error for an
// unsupported key.
Result<FrameBenchResult> run_frame_bench(App& app, const std::string& key, int frames);

// The sliders --bench-latency moves, in its output's order.
inline constexpr const char* latency_sliders[] = {"temperature", "score_scale", "d_k",          "seq_len",
                                                  "scaled",      "row",         "custom_scores"};

// One slider's steps: from the input (apply_params, as a slider does) to the end (glFinish) of
// the first frame that shows a Snapshot of the new Params (the first result: the row, its plots
// and read-outs, a coarse d_k sweep) and of the first frame that shows the complete one (its
// maps and the full first estimate of the sweep: the worker finished), and every frame between.
struct SliderLatency {
  std::string slider;
  int steps = 0;
  double first_median_ms = 0.0, first_p95_ms = 0.0;
  double final_median_ms = 0.0, final_p95_ms = 0.0;
  double median_frame_ms = 0.0, p95_frame_ms = 0.0, max_frame_ms = 0.0;  // frames of all steps
  // The worker's share (Evaluator::last_first_result_ms, last_compute_ms): input to its first
  // result and to its complete Snapshot, without waiting for a frame to show them.
  double first_compute_median_ms = 0.0, final_compute_median_ms = 0.0;
};
struct LatencyBenchResult {
  int seq_len = 0, key_dim = 0;
  std::vector<SliderLatency> sliders;
  std::string to_json() const;  // one line: {"L":…,"d_k":…,"sliders":[{"slider":…,…},…]}
};

// For each slider in latency_sliders (or only `key`, when not empty): `steps` steps, each from
// rest (the evaluator idle, the Monte Carlo refinement held at the first estimate so it does not
// compete with the step), moving the slider as bench/matplotlib_peer.py moves its peer. A usage
// Error for an unknown key, or when a step shows no result within 60 s.
Result<LatencyBenchResult> run_latency_bench(App& app, const std::string& key, int steps);

}  // namespace smlab::app
