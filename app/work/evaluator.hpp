// Runs core::evaluate() on a worker thread so no frame blocks on a recompute: the
// UI submits Params, keeps drawing the last finished Snapshot, and picks up the
// new one as soon as it is ready. A newer submission replaces any pending one; the running
// one finishes (so a long recompute still lands while a slider keeps moving).
// Each evaluation is staged (EvaluateOptions::stages): the first result (the row, its plots
// and read-outs, a coarse d_k sweep) is published as soon as it is there, then QKᵀ, the maps'
// colour range and images and the sweep's full trials follow in the same job, and the complete
// Snapshot (bit-identical to an unstaged evaluation) replaces it. Two lanes, by priority: the
// first result, then the maps and the full H(T) curve (a Snapshot final but for its Monte Carlo
// curves is published then); the Monte Carlo lane comes last, chunk by chunk: the sweep's full
// first estimate, and while idle its refinement, so the error bands narrow on screen. A newer
// submission stops the Monte Carlo lane between chunks (stale work, never in a map's way); the
// trials done are kept and continued when the next Params share the sweep's setting.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "plot/heatmap_texture.hpp"
#include "smlab/error.hpp"
#include "smlab/evaluate.hpp"
#include "work/work_runner.hpp"

namespace smlab::app {

// What a dashboard map's texture is made from: the rows of the map (attention_row), or for long
// imported contexts the pooled picture computed tile by tile in core (Snapshot::pooled).
struct MapTextureSource {
  plot::RowFiller fill_row;
  int size = 0;  // rows = cols
};
MapTextureSource map_texture_source(const Snapshot& snap, bool scaled);

// A piece of the background-work engine (work/work_runner.hpp): on the desktop its runner is the
// worker thread; on the web page (Mode::pumped) the page's tick runs it between frames through
// wait_for_latest().
class Evaluator final : private SlicedWork {
 public:
  explicit Evaluator(WorkRunner::Mode mode = WorkRunner::platform_mode);
  ~Evaluator();  // cancels and joins the worker
  Evaluator(const Evaluator&) = delete;
  Evaluator& operator=(const Evaluator&) = delete;

  // Queues `params` (which must pass validate()) and the view whose lab numbers
  // to compute. Replaces an older submission that has not started.
  void submit(const Params& params, View view = View::dashboard);

  // Waits up to `budget` for the newest submission to finish: small problems
  // then appear on the very frame the slider moved, big ones never stall a frame. Pumped (the web
  // page): one slice of about `budget` of the work on this thread instead.
  void wait_for_latest(std::chrono::microseconds budget);
  // The same, until the newest submission's later stages are done too (a complete Snapshot).
  void wait_for_complete(std::chrono::microseconds budget);
  // The same, until the newest submission is final in every plot but the Monte Carlo curves (its
  // maps and H(T)). On the web page, which computes between frames, it does nothing.
  void wait_for_final(std::chrono::microseconds budget);

  // The newest finished snapshot (null before the first one), the newest
  // refinement of its d_k sweep, and a counter that changes whenever the snapshot
  // is replaced (so callers re-upload textures only then). Read under one lock, so
  // the sweep always belongs to the snapshot's Params.
  // How the dashboard shows its two attention maps. When set (max_side > 0), the worker colours
  // every new Snapshot's maps this way (plot::prepare_heatmap_image) so the UI thread only
  // uploads them; the UI sets it each frame from its framebuffer and colormap.
  struct MapImageSpec {
    int max_side = 0;
    plot::Colormap colormap = plot::Colormap::Viridis;
    bool fixed_range = false;  // colours on [0, 1] (fixed colour scale), else on [0, attention_max]
    bool operator==(const MapImageSpec&) const = default;
  };
  void set_map_image_spec(const MapImageSpec& spec);
  struct MapImages {
    MapImageSpec spec;
    plot::HeatmapImage scaled, unscaled;  // of the Snapshot's two attention maps, 0 … attention_max
    // What the maps were made from: a later Snapshot with the same ones (a row, scaled or
    // custom-scores change) reuses the images instead of colouring two L×L maps again. Weak: the
    // images must not keep an old L×L QKᵀ alive (at L = 4096 a third 64 MB matrix during a drag).
    std::weak_ptr<const ScoreCache> scores;
    double scaled_logit_scale = 0.0, unscaled_logit_scale = 0.0;
    bool causal = false;
    float attention_max = 0.0f;

    // No pixels yet, made from `snap`'s maps under `spec`.
    static std::shared_ptr<MapImages> of(const MapImageSpec& spec, const Snapshot& snap);
    // Whether these images were made from `snap`'s maps under `spec`.
    [[nodiscard]] bool made_from(const MapImageSpec& spec, const Snapshot& snap) const;
  };

  struct Latest {
    std::shared_ptr<const Snapshot> snapshot;
    std::shared_ptr<const DkSweep> sweep;
    std::uint64_t version = 0;
    std::shared_ptr<const MapImages> images;  // of `snapshot`, or null
    // A first result: the maps (textures) are still the previous Snapshot's; keep them on screen.
    bool maps_pending = false;
    // H(T) holds every 4th point only (a first result of a long row).
    bool entropy_curve_pending = false;
    // The sweep holds fewer trials than its first estimate: every other plot is final.
    bool monte_carlo_pending = false;
    // Every stage of `snapshot` is done (its sweep may still be refined later).
    bool complete = false;
  };
  Latest latest() const;

  // Refinement stops at the trial count planned for the sweep's setting before its trials are seen
  // (planned_dk_trials: every mean converged, unbiased), or at this many trials per point (or the
  // limit set below), whichever comes first.
  static constexpr std::int64_t refine_max_trials = 20'000;
  void set_refine_limit(std::int64_t max_trials_per_point);
  // Refinement starts this long after the last submission (not during a drag).
  static constexpr std::chrono::milliseconds refine_settle_time{200};

  // A job whose Params a newer submission has replaced drops its later stages (QKᵀ, the maps,
  // H(T), the Monte Carlo lane) after its first result while a final Snapshot (every plot but the
  // Monte Carlo curves) was published less than this long ago: during a drag the first results
  // keep up with the slider and the maps still follow at least this often. Tests set zero (never
  // drop) or hours (always drop) to make the order deterministic.
  static constexpr std::chrono::milliseconds stale_work_max_age_default{250};
  void set_stale_work_max_age(std::chrono::milliseconds age);

  // No submission pending and no refinement left to do.
  bool idle() const;
  void wait_until_idle();

  bool busy() const;                    // a submission is not finished yet
  float progress() const;               // of the running evaluation, 0..1
  double last_compute_ms() const;       // wall time of the last finished evaluation, all stages
  double last_first_result_ms() const;  // wall time to its first result (the first stage)
  double last_final_ms() const;         // wall time to its maps and H(T) (all but the Monte Carlo lane)
  // An exception from the worker, once ("recompute failed: …"), then ok until the next one.
  Result<void> take_error();

  // Called on the worker thread, with no lock held, after each result it publishes (a snapshot, a
  // refinement step of the sweep, an error): a window that sleeps between events wakes up to show
  // it. Must be thread-safe and quick; empty by default.
  void set_result_callback(std::function<void()> callback);

  // Test hook: the next submission's evaluation throws std::runtime_error(message)
  // on the worker, so tests can check that a worker failure reaches the UI.
  void fail_next_evaluation_for_testing(std::string message);
  // Test hook: while held, the worker starts no job (submissions stay pending, busy() is true);
  // releasing it lets the newest pending submission run.
  void hold_for_testing(bool held);
  // Test hook, with the worker held: one slice of work on the calling thread at the web page's pace
  // (Pace::sliced), as the page's tick runs it. False when there was nothing to do.
  bool slice_for_testing();

 private:
  // One step() at the runner's pace; then when the work wants the next: at once, once the Params
  // have settled (refinement), or when a submission comes.
  NextSlice run_slice(std::chrono::steady_clock::duration budget, const std::stop_token& stop) override;
  // How much of a job one step() runs (docs/ARCHITECTURE.md, "Data flow"):
  //   whole:  every stage at once, no first result (exports on the page, which want the final picture);
  //   staged: the desktop worker: the first result published, then every later phase in the same call;
  //   sliced: the web page, which has no threads and draws between steps: the first result, then
  //           phases (QKᵀ, each map's softmax pass, their colours, H(T), a Monte Carlo chunk) while
  //           the call has used less than its `slice` (none: one phase per call), so no tick holds a
  //           frame back for a whole recompute and a small one still completes in one. A newer
  //           submission drops the phases still to come while a final picture is fresh
  //           (set_stale_work_max_age).
  // Every pace publishes the same final Snapshot, bit for bit.
  enum class Pace { whole, staged, sliced };
  // One job (the newest submission, its phases as `pace` says) or, once the Params have settled, one
  // refinement chunk of the sweep, then published; false (nothing done) when there is neither. A job
  // left between phases (sliced) is continued before a newer one starts. run_slice() calls it, on
  // the runner's thread or between the web page's frames.
  bool step(Pace pace, std::chrono::microseconds slice = {});
  bool refinement_due() const;          // the sweep needs more trials (mutex_ held)
  bool superseded_while_fresh() const;  // see set_stale_work_max_age
  // The images of a Snapshot whose colour range is staged (Stages::map_range), in three parts: each
  // map's softmax pass pooled to the image's size (its largest weight found on the way), then the
  // colours and attention_max from both. None (nothing set) without an image spec.
  struct MapPass {
    MapImageSpec spec;
    int factor = 1, side = 0;
    std::vector<float> pooled[2];  // scaled, unscaled
    float top = 0.0f;
  };
  std::optional<MapPass> begin_map_pass(const Snapshot& snap);
  static void pool_map(MapPass& pass, const Snapshot& snap, bool scaled);
  static std::shared_ptr<const MapImages> finish_map_pass(const MapPass& pass, Snapshot& snap);
  // A job between its phases (evaluator_step.cpp runs them in this order, skipping those it needs not).
  struct JobInFlight {
    enum class Phase { scores, map_scaled, map_unscaled, map_colour, rest, monte_carlo, pooled, publish };
    Phase phase = Phase::scores;
    std::uint64_t ticket = 0;
    std::stop_token stop;
    std::chrono::steady_clock::time_point start;
    Stages stages;                        // what is still to do to `result`
    std::int64_t monte_carlo_trials = 0;  // the Monte Carlo lane's count per point, once taken from stages
    std::optional<Snapshot> result;       // null: dropped (stale) or stopped; nothing more is published
    std::optional<MapPass> maps;          // the map images being made
    std::shared_ptr<const MapImages> images;
    std::optional<Error> failure;  // an exception, as the status line shows it: the job ends with it
    // The phase after the lanes: the pooled maps of a long import when they are still to be made,
    // else the publication, which then comes in the same call as the phase before it.
    static Phase after_the_lanes(const Snapshot& snap);
  };
  // What the worker keeps between steps (the worker thread's; the web page's one thread).
  struct WorkerState {
    std::optional<DkSweep> refining;                // the sweep being refined; published as copies
    std::shared_ptr<const ScoreCache> score_cache;  // Q, K, QKᵀ of the last Params
    std::shared_ptr<const Snapshot> last_complete;  // the newest Snapshot with every stage done
    std::unique_ptr<JobInFlight> job;               // a job between its phases (Pace::sliced), or null
    // The pilot run that plans `refining`'s trial count (make_dk_pilot), filled a chunk per step.
    struct Pilot {
      DkSweepConfig of;  // the setting it plans for
      DkSweep sweep;
    };
    std::optional<Pilot> pilot;
  };
  WorkerState worker_state_;
  // Runs the job's next phase; false when the phase found the job stale and dropped it (no work done).
  bool advance(JobInFlight& job, Pace pace);
  void finish(JobInFlight& job);  // publishes the job's final Snapshot (or its failure) and ends it
  std::shared_ptr<const MapImages> map_images(const Snapshot& snap);
  void publish_first_result(const Snapshot& first, const Stages& left, std::uint64_t ticket,
                            std::chrono::steady_clock::time_point start);
  // Every stage but the Monte Carlo lane's is done: the maps, their images and the full H(T).
  void publish_all_but_monte_carlo(const Snapshot& snap, std::shared_ptr<const MapImages> images,
                                   std::chrono::steady_clock::time_point start);
  // The Monte Carlo lane of a job: `trials` per point in chunks, at most `chunks` of them in this
  // call (a newer submission waits at most one). Done: all trials in; stopped: a newer submission
  // stopped it first (the trials done stay in snap.dk_sweep); more: chunks left for the next call.
  enum class LaneResult { done, stopped, more };
  LaneResult run_monte_carlo_lane(Snapshot& snap, std::int64_t trials, const std::stop_token& stop,
                                  std::int64_t chunks);

  mutable std::mutex mutex_;
  std::condition_variable finished_;
  struct Job {
    Params params;
    View view = View::dashboard;
  };
  std::optional<Job> pending_;
  std::uint64_t submitted_ = 0, completed_ = 0;
  std::shared_ptr<const Snapshot> latest_;
  std::shared_ptr<const DkSweep> latest_sweep_;
  std::shared_ptr<const MapImages> latest_images_;
  MapImageSpec image_spec_;
  std::uint64_t latest_version_ = 0;
  std::int64_t refine_limit_ = refine_max_trials;
  std::chrono::steady_clock::time_point last_submit_{};
  bool refining_active_ = false;
  bool staging_active_ = false;  // the newest Snapshot is a first result; its later stages run
  bool latest_maps_pending_ = false, latest_complete_ = false;
  bool latest_entropy_curve_pending_ = false, latest_monte_carlo_pending_ = false;
  std::chrono::milliseconds stale_work_max_age_ = stale_work_max_age_default;
  std::chrono::steady_clock::time_point last_final_published_{};  // see set_stale_work_max_age
  bool monte_carlo_lane_ = false;  // the running job is in its Monte Carlo lane (a newer submission stops it)
  bool stages_published_ = false;  // the running job published its first result
  std::stop_source current_job_;
  bool pooling_ = false;  // the running job is computing pooled maps (a newer submission stops it)
  std::atomic<float> progress_{0.0f};
  double last_compute_ms_ = 0.0, last_first_result_ms_ = 0.0, last_final_ms_ = 0.0;
  Result<void> error_;
  std::string injected_failure_;      // see fail_next_evaluation_for_testing
  bool held_for_testing_ = false;     // see hold_for_testing
  bool slicing_for_testing_ = false;  // slice_for_testing runs a step while the worker is held
  std::function<void()> on_result_;   // see set_result_callback
  void notify_result();
  const Pace pace_;    // of the runner's slices: staged on a thread, sliced when pumped
  WorkRunner runner_;  // last member: starts after, and is joined before, the rest
};

// The cap on a headless render's refinement: about 8·10⁶ draws at any L, so headless renders are
// quick and deterministic, and at small L (lessons) reach the planned, converged trial count.
std::int64_t headless_refine_trials(int seq_len);

}  // namespace smlab::app
