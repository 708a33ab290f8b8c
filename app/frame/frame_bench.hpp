// `--bench-frames N`: drive one slider every frame, as a drag would, and report
// frame and recompute times as one JSON line (docs/PERFORMANCE.md). `--bench-latency N`: N single
// slider steps from rest per slider, timed from the input to the frames that show the result.
#pragma once

#include <array>
#include <string>
#include <thread>
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

// The value at `fraction` (0.5: the median, 0.95: p95) of `values`, nearest rank; 0 for none. The
// frame benches' and the training bench's one percentile.
double percentile(std::vector<double> values, double fraction);

// `--bench-load N`: N threads that spin at normal priority while the bench runs, as another busy
// program would on the same cores (a student's laptop with a browser open). Joined on destruction.
class BusyLoad {
 public:
  explicit BusyLoad(int threads);
  ~BusyLoad();
  BusyLoad(const BusyLoad&) = delete;
  BusyLoad& operator=(const BusyLoad&) = delete;

 private:
  std::vector<std::jthread> threads_;
};

// The dashboard's plots as --panel names them, in the order --bench-latency reports them; the
// Monte Carlo curves (entropy_dk) are not part of a step's "final".
inline constexpr std::array<const char*, 6> latency_plots = {"distribution", "entropy_t",        "entropy_dk",
                                                             "gradient",     "attention_scaled", "attention_unscaled"};
inline constexpr const char* monte_carlo_plot = "entropy_dk";

// One slider's steps: from the input (apply_params, as a slider does) to the end (glFinish) of
// the first frame that shows a Snapshot of the new Params (the first result: the row, its plots
// and read-outs, a coarse d_k sweep), of the first frame where each plot is final (the maps with
// their colour range, the whole H(T) curve, the Monte Carlo curves with their full first
// estimate), and every frame between. "final" is the frame where every plot but the Monte Carlo
// curves is final; "mc_final" the one where those are.
struct PlotLatency {
  double median_ms = 0.0, p95_ms = 0.0;
};
struct SliderLatency {
  std::string slider;
  int steps = 0;
  double first_median_ms = 0.0, first_p95_ms = 0.0;
  double final_median_ms = 0.0, final_p95_ms = 0.0;
  double mc_final_median_ms = 0.0, mc_final_p95_ms = 0.0;
  std::array<PlotLatency, latency_plots.size()> plots{};                 // in latency_plots' order
  double median_frame_ms = 0.0, p95_frame_ms = 0.0, max_frame_ms = 0.0;  // frames of all steps
  // The worker's share (Evaluator::last_first_result_ms, last_compute_ms): input to its first
  // result and to its complete Snapshot, without waiting for a frame to show them.
  double first_compute_median_ms = 0.0, final_compute_median_ms = 0.0;
  // Peak resident set during this slider's steps (VmHWM after a reset through
  // /proc/self/clear_refs), in MiB; the run's peak when the reset is not available.
  double peak_rss_mib = 0.0;
};
struct LatencyBenchResult {
  int seq_len = 0, key_dim = 0;
  int load_threads = 0;  // --bench-load
  std::vector<SliderLatency> sliders;
  // The largest slider's peak_rss_mib (the untimed warm-up's not counted: it waits for each
  // Snapshot without drawing, so the UI holds the old one while the next is made).
  double peak_rss_mib = 0.0;
  // One line: {"L":…,"d_k":…,"load_threads":…,"sliders":[{"slider":…,…,"plots":{NAME:{…},…}},…],
  // "peak_rss_mib":…}
  std::string to_json() const;
};

// For each slider in latency_sliders (or only `key`, when not empty): `steps` steps, each from
// rest (the evaluator idle, the Monte Carlo refinement held at the first estimate so it does not
// compete with the step), moving the slider as bench/matplotlib_peer.py moves its peer. A usage
// Error for an unknown key, or when a step shows no result within 60 s.
Result<LatencyBenchResult> run_latency_bench(App& app, const std::string& key, int steps);

}  // namespace smlab::app
