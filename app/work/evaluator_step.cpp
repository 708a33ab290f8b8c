// The evaluation step, the Evaluator's slice of background work (evaluator.cpp): run by its
// runner's thread on the desktop, and between frames on the web page, which has no threads.
//
// [SECTION] Index
//   [SECTION] Submitting, results and test hooks
//   [SECTION] Refinement of the d_k sweep
//   [SECTION] Map images
//   [SECTION] The step
#include <algorithm>
#include <bit>
#include <cstdint>
#include <exception>
#include <functional>
#include <limits>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include "smlab/parallel.hpp"
#include "work/evaluator.hpp"

namespace smlab::app {

// [SECTION] Submitting, results and test hooks

MapTextureSource map_texture_source(const Snapshot& snap, bool scaled) {
  if (pooled_maps_pending(snap)) return {};  // the maps follow in a later Snapshot
  if (snap.pooled.factor > 0)
    return {plot::rows_of(scaled ? snap.pooled.scaled : snap.pooled.unscaled, snap.pooled.side), snap.pooled.side};
  return {std::bind_front(attention_row, std::cref(snap), scaled), snap.attention_size};
}

void Evaluator::submit(const Params& params, View view) {
  {
    std::lock_guard lock(mutex_);
    pending_ = Job{params, view};
    last_submit_ = std::chrono::steady_clock::now();
    ++submitted_;
    // Pooled maps of a long imported context (seconds) are dropped for newer Params: the rest of
    // the Snapshot is already shown, and the newest Params get their own maps. So is the Monte
    // Carlo lane of the running job: its curves are stale, and the newer maps come first.
    if (pooling_ || monte_carlo_lane_) current_job_.request_stop();
    // The running job is not cancelled: a drag submits every frame, and at L = 4096 (a recompute
    // of several hundred ms) cancelling would mean no snapshot ever finishes while the slider
    // moves. It finishes and is shown, then the newest pending Params run (older pending ones
    // were replaced above): the picture trails the slider by at most two recomputes.
  }
  runner_.poke();
}

Evaluator::Latest Evaluator::latest() const {
  std::lock_guard lock(mutex_);
  return {latest_,
          latest_sweep_,
          latest_version_,
          latest_images_,
          latest_maps_pending_,
          latest_entropy_curve_pending_,
          latest_monte_carlo_pending_,
          latest_complete_};
}

void Evaluator::set_map_image_spec(const MapImageSpec& spec) {
  std::lock_guard lock(mutex_);
  image_spec_ = spec;
}

bool Evaluator::busy() const {
  std::lock_guard lock(mutex_);
  return completed_ != submitted_ || staging_active_;
}

float Evaluator::progress() const { return progress_.load(std::memory_order_relaxed); }

double Evaluator::last_compute_ms() const {
  std::lock_guard lock(mutex_);
  return last_compute_ms_;
}

double Evaluator::last_final_ms() const {
  std::lock_guard lock(mutex_);
  return last_final_ms_;
}

double Evaluator::last_first_result_ms() const {
  std::lock_guard lock(mutex_);
  return last_first_result_ms_;
}

Result<void> Evaluator::take_error() {
  std::lock_guard lock(mutex_);
  return std::exchange(error_, {});
}

void Evaluator::fail_next_evaluation_for_testing(std::string message) {
  std::lock_guard lock(mutex_);
  injected_failure_ = std::move(message);
}

void Evaluator::hold_for_testing(bool held) {
  {
    std::lock_guard lock(mutex_);
    held_for_testing_ = held;
  }
  runner_.poke();
}

bool Evaluator::slice_for_testing() {
  {
    std::lock_guard lock(mutex_);
    if (!held_for_testing_) return false;  // the worker would run beside this thread
    slicing_for_testing_ = true;
  }
  const bool worked = step(Pace::sliced);
  std::lock_guard lock(mutex_);
  slicing_for_testing_ = false;
  return worked;
}

void Evaluator::set_result_callback(std::function<void()> callback) {
  std::lock_guard lock(mutex_);
  on_result_ = std::move(callback);
}

void Evaluator::notify_result() {
  std::function<void()> callback;
  {
    std::lock_guard lock(mutex_);
    callback = on_result_;
  }
  if (callback) callback();
}

// [SECTION] Refinement of the d_k sweep

std::int64_t headless_refine_trials(int seq_len) {
  // 8·10⁶ draws: up to the planned (converged) count at L ≤ 32, where a lesson reveals a sweep's
  // mean (planned_dk_trials; the refinement stops there, usually sooner than this cap).
  const auto points = static_cast<std::int64_t>(power_of_two_key_dims().size());
  return std::clamp<std::int64_t>(8'000'000 / (points * seq_len), automatic_dk_trials(seq_len),
                                  Evaluator::refine_max_trials);
}

namespace {

// Refined to the count planned before its trials are seen (planned_dk_trials, which says why: a
// stop at the first small standard error biased the means low), at most `limit`. Not planned yet:
// due, the next refinement step plans it.
bool sweep_needs_refining(const DkSweep& sweep, std::int64_t limit) {
  if (sweep.planned_trials == 0) return sweep.trials < limit;
  return sweep.trials < std::min(sweep.planned_trials, limit);
}

}  // namespace

void Evaluator::set_refine_limit(std::int64_t max_trials_per_point) {
  {
    std::lock_guard lock(mutex_);
    refine_limit_ = max_trials_per_point;
  }
  runner_.poke();
}

// [SECTION] Map images

std::shared_ptr<Evaluator::MapImages> Evaluator::MapImages::of(const MapImageSpec& spec, const Snapshot& snap) {
  auto images = std::make_shared<MapImages>();
  images->spec = spec;
  images->scores = snap.attention_scores;
  images->scaled_logit_scale = snap.scaled_logit_scale;
  images->unscaled_logit_scale = snap.unscaled_logit_scale;
  images->causal = snap.causal;
  images->attention_max = snap.attention_max;
  return images;
}

bool Evaluator::MapImages::made_from(const MapImageSpec& spec_of, const Snapshot& snap) const {
  return spec == spec_of && scores.lock() == snap.attention_scores && scaled_logit_scale == snap.scaled_logit_scale &&
         unscaled_logit_scale == snap.unscaled_logit_scale && causal == snap.causal &&
         attention_max == snap.attention_max;
}

namespace {

// attention_map_max's rule for one row: the largest finite weight, from 0 (NaN and ±inf, and
// negative values, count as 0). On the bits: a float ≥ +0 orders like its int32 pattern, +inf
// (0x7F800000) and positive NaNs lie above every finite value, and negative values, −0 and
// negative NaNs are negative ints, so an integer max gives the same float exactly. Unlike the
// float comparison (whose NaN rules keep it scalar), it vectorises: at L = 4096 the scalar loop
// took as long as the rows' softmax (perf, docs/PERFORMANCE.md).
float largest_finite_weight(std::span<const float> weights) {
  constexpr std::int32_t infinity_bits = 0x7F800000;
  std::int32_t top = 0;
  for (const float weight : weights) {
    const auto bits = std::bit_cast<std::int32_t>(weight);
    top = std::max(top, bits < infinity_bits ? bits : 0);
  }
  return std::bit_cast<float>(top);
}

}  // namespace

std::optional<Evaluator::MapPass> Evaluator::begin_map_pass(const Snapshot& snap) {
  MapPass pass;
  {
    std::lock_guard lock(mutex_);
    pass.spec = image_spec_;
  }
  const int length = snap.attention_size;
  if (pass.spec.max_side <= 0 || length <= 0 || snap.pooled.factor > 0 || pooled_maps_pending(snap))
    return std::nullopt;
  // As prepare_heatmap_image pools: blocks of factor × factor cells, each block's largest weight.
  pass.factor = length > pass.spec.max_side ? (length + pass.spec.max_side - 1) / pass.spec.max_side : 1;
  pass.side = (length + pass.factor - 1) / pass.factor;
  return pass;
}

void Evaluator::pool_map(MapPass& pass, const Snapshot& snap, bool scaled) {
  const plot::PartRunner on_pool = [](int parts, const std::function<void(int)>& run_part) {
    parallel_for(parts, run_part);
  };
  // attention_map_max's rule: the largest finite weight (NaN and ±inf fail both tests), from 0.
  std::atomic<float> map_top{0.0f};
  const plot::RowFiller fill_row = [&](int row, std::span<float> out) {
    attention_row(snap, scaled, row, out);
    const float row_top = largest_finite_weight(out);
    float seen = map_top.load(std::memory_order_relaxed);
    while (row_top > seen && !map_top.compare_exchange_weak(seen, row_top, std::memory_order_relaxed)) {
    }
  };
  const int length = snap.attention_size;
  plot::downsample(pass.pooled[scaled ? 0 : 1], fill_row, length, length, pass.factor, plot::Pooling::max, on_pool);
  pass.top = std::max(pass.top, map_top.load());
}

std::shared_ptr<const Evaluator::MapImages> Evaluator::finish_map_pass(const MapPass& pass, Snapshot& snap) {
  snap.attention_max = pass.top > 0.0f ? pass.top : 1.0f;  // = evaluate()'s range, bit for bit (a max is exact)
  auto images = MapImages::of(pass.spec, snap);
  for (const bool scaled : {true, false}) {
    plot::HeatmapImage& image = scaled ? images->scaled : images->unscaled;
    const std::vector<float>& cells = pass.pooled[scaled ? 0 : 1];
    image.rgba.resize(cells.size());
    plot::colorize(image.rgba, cells, 0.0, pass.spec.fixed_range ? 1.0 : snap.attention_max, pass.spec.colormap);
    image.rows = image.cols = pass.side;
  }
  return images;
}

std::shared_ptr<const Evaluator::MapImages> Evaluator::map_images(const Snapshot& snap) {
  MapImageSpec spec;
  std::shared_ptr<const MapImages> shown;
  {
    std::lock_guard lock(mutex_);
    spec = image_spec_;
    shown = latest_images_;
  }
  if (spec.max_side <= 0) return nullptr;
  // The same maps as the images on screen: share them (no recolouring of two L×L maps).
  if (shown != nullptr && shown->made_from(spec, snap) && snap.pooled.factor == 0) return shown;
  auto images = MapImages::of(spec, snap);
  std::vector<float> pooled;
  // attention_row only reads the Snapshot, so bands of rows can run on the core's pool.
  const plot::PartRunner on_pool = [](int parts, const std::function<void(int)>& run_part) {
    parallel_for(parts, run_part);
  };
  for (const bool scaled : {true, false}) {
    const MapTextureSource source = map_texture_source(snap, scaled);
    if (source.size == 0) continue;
    plot::prepare_heatmap_image(scaled ? images->scaled : images->unscaled, pooled, source.fill_row, source.size,
                                source.size, 0.0, spec.fixed_range ? 1.0 : snap.attention_max, spec.colormap,
                                spec.max_side, plot::Pooling::max, on_pool);
  }
  return images;
}

void Evaluator::publish_first_result(const Snapshot& first, const Stages& left, std::uint64_t ticket,
                                     std::chrono::steady_clock::time_point start) {
  // The maps' images only when they are final already (the other stages are H(T) and the sweep).
  const bool maps_done = !left.scores && !left.map_range;
  std::shared_ptr<const MapImages> images = maps_done ? map_images(first) : nullptr;
  auto snapshot = std::make_shared<const Snapshot>(first);
  auto sweep = std::make_shared<const DkSweep>(first.dk_sweep);
  {
    std::lock_guard lock(mutex_);
    latest_ = std::move(snapshot);
    latest_sweep_ = std::move(sweep);
    if (maps_done) latest_images_ = std::move(images);
    latest_maps_pending_ = !maps_done;
    latest_entropy_curve_pending_ = left.entropy_curve;
    latest_monte_carlo_pending_ = left.dk_trials > 0;
    latest_complete_ = false;
    ++latest_version_;
    last_first_result_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    stages_published_ = true;
    staging_active_ = true;
    // A first result completes the submission for frames that wait on it (wait_for_latest).
    if (ticket == submitted_) completed_ = ticket;
  }
  finished_.notify_all();
  notify_result();
}

void Evaluator::publish_all_but_monte_carlo(const Snapshot& snap, std::shared_ptr<const MapImages> images,
                                            std::chrono::steady_clock::time_point start) {
  auto snapshot = std::make_shared<const Snapshot>(snap);
  // The newest Snapshot whose maps and H(T) are final: what the next job may copy them from.
  worker_state_.last_complete = snapshot;
  std::shared_ptr<const Snapshot> replaced;
  {
    std::lock_guard lock(mutex_);
    replaced = std::exchange(latest_, std::move(snapshot));
    latest_images_ = std::move(images);
    latest_maps_pending_ = false;
    latest_entropy_curve_pending_ = false;
    latest_monte_carlo_pending_ = true;
    ++latest_version_;
    last_final_published_ = std::chrono::steady_clock::now();
    last_final_ms_ = std::chrono::duration<double, std::milli>(last_final_published_ - start).count();
  }
  finished_.notify_all();
  notify_result();
}

Evaluator::LaneResult Evaluator::run_monte_carlo_lane(Snapshot& snap, std::int64_t trials, const std::stop_token& stop,
                                                      std::int64_t chunks) {
  {
    std::lock_guard lock(mutex_);
    if (!monte_carlo_lane_) {
      monte_carlo_lane_ = true;
      // A submission that came while the maps were made: the lane is stale before it starts.
      if (pending_) {
        monte_carlo_lane_ = false;
        return LaneResult::stopped;
      }
    }
  }
  // Chunks of a coarse estimate's size (a few ms): a newer submission waits at most one of them.
  // add_dk_trials is bit-identical however its trials are split (montecarlo.hpp).
  const std::int64_t chunk = std::max<std::int64_t>(coarse_dk_trials(trials), 1);
  for (; chunks > 0 && snap.dk_sweep.trials < trials && !stop.stop_requested(); --chunks)
    add_dk_trials(snap.dk_sweep, std::min(chunk, trials - snap.dk_sweep.trials));
  const LaneResult result = snap.dk_sweep.trials >= trials ? LaneResult::done
                            : stop.stop_requested()        ? LaneResult::stopped
                                                           : LaneResult::more;
  if (result != LaneResult::more) {
    std::lock_guard lock(mutex_);
    monte_carlo_lane_ = false;
  }
  return result;
}

// [SECTION] The step

namespace {

// An exception from an evaluation as the status line shows it. Its kind decides nothing: only the
// window reads it (take_error), never an exit code.
Error recompute_failed(const std::exception& error) {
  return Error::usage(std::string("recompute failed: ") + error.what());
}

// A seq_len step copies the old QKᵀ's overlap into the new one, so both live at once. Above this
// size of one product (L ≈ 2900) the copy's memory costs more than a fresh product's time: at
// L = 4096 two products are 128 MiB of the 256 MiB budget, and the fresh 2.1 GFLOP
// product takes ~10 ms on two quiet cores against ~3 ms for the copy (docs/PERFORMANCE.md).
constexpr std::size_t overlap_copy_max_bytes = std::size_t{32} << 20;

// Whether complete_stages should copy part of `cache`'s QKᵀ for `params` (a seq_len step of the
// same random data: fill_product's overlap), so it must stay alive until the new product is made.
bool product_reusable(const ScoreCache* cache, const Params& params) {
  return cache != nullptr && cache->source == nullptr && params.imported == nullptr && cache->seed == params.seed &&
         cache->key_dim == params.key_dim && !cache->raw.values.empty() &&
         cache->raw.values.size() * sizeof(float) <= overlap_copy_max_bytes;
}

}  // namespace

void Evaluator::set_stale_work_max_age(std::chrono::milliseconds age) {
  std::lock_guard lock(mutex_);
  stale_work_max_age_ = age;
}

bool Evaluator::superseded_while_fresh() const {
  std::lock_guard lock(mutex_);
  return pending_.has_value() && std::chrono::steady_clock::now() - last_final_published_ < stale_work_max_age_;
}

bool Evaluator::refinement_due() const {
  return worker_state_.refining && sweep_needs_refining(*worker_state_.refining, refine_limit_);
}

Evaluator::JobInFlight::Phase Evaluator::JobInFlight::after_the_lanes(const Snapshot& snap) {
  return pooled_maps_pending(snap) ? Phase::pooled : Phase::publish;
}

bool Evaluator::step(Pace pace, std::chrono::microseconds slice) {
  WorkerState& state = worker_state_;
  const auto call_start = std::chrono::steady_clock::now();
  // Sliced: another phase only while this call has used less than its slice (none: one phase).
  const auto time_left = [&] { return pace != Pace::sliced || std::chrono::steady_clock::now() - call_start < slice; };
  if (state.job != nullptr) {
    // A job left between its phases (sliced) goes on first: it is the picture the window waits for.
    // When the phase found it stale instead, the newer job starts in this same call.
    do {
      if (advance(*state.job, pace) && !time_left()) return true;
    } while (state.job != nullptr);
  }
  std::optional<Job> job;
  std::uint64_t ticket = 0;
  std::int64_t refine_chunk = 0;
  EvaluateOptions options;
  std::string injected;
  {
    std::unique_lock lock(mutex_);
    if (held_for_testing_ && !slicing_for_testing_) return false;
    // refine_limit_ may have changed since the last chunk: recheck.
    refining_active_ = refinement_due();
    if (!refining_active_) finished_.notify_all();
    // Refine only once the Params have settled: during a drag every core is
    // needed for the new snapshots and the (software) rasteriser.
    if (!pending_ && !(refining_active_ && std::chrono::steady_clock::now() >= last_submit_ + refine_settle_time))
      return false;
    if (pending_) {
      job = std::move(pending_);
      pending_.reset();
      injected = std::exchange(injected_failure_, {});
      ticket = submitted_;
      current_job_ = std::stop_source{};
      options.stop = current_job_.get_token();
    } else {
      refining_active_ = true;
      // About as much work as the first estimate (a few ms), never past the limit,
      // so the final trial count, and hence the picture, is deterministic.
      refine_chunk =
          std::min(automatic_dk_trials(state.refining->config.seq_len), refine_limit_ - state.refining->trials);
    }
  }
  if (!job) {
    if (state.refining->planned_trials == 0) {
      // Once per sweep setting; the count is a function of the setting only. Its pilot run (a few
      // ms to ~0.1 s) is made a refinement chunk's worth per step, so a newer submission waits for
      // one chunk rather than the whole pilot (planned_dk_trials in parts, the same plan).
      const DkSweepConfig& config = state.refining->config;
      if (!state.pilot || state.pilot->of != config) state.pilot = WorkerState::Pilot{config, make_dk_pilot(config)};
      const std::int64_t goal = dk_pilot_trials(config);
      add_dk_trials(
          state.pilot->sweep,
          std::min(std::max<std::int64_t>(automatic_dk_trials(config.seq_len), 1), goal - state.pilot->sweep.trials),
          1);
      if (state.pilot->sweep.trials < goal) return true;
      state.refining->planned_trials = planned_dk_trials_from_pilot(state.pilot->sweep, refine_max_trials);
      state.pilot.reset();
      std::lock_guard lock(mutex_);
      refine_chunk = std::min(
          refine_chunk,
          std::max<std::int64_t>(std::min(state.refining->planned_trials, refine_limit_) - state.refining->trials, 0));
    }
    // On one thread (the same bits on any number, montecarlo.hpp): the worker runs at the UI's
    // priority, and while idle refinement goes on the other core stays free for the window.
    add_dk_trials(*state.refining, refine_chunk, 1);
    auto refined = std::make_shared<const DkSweep>(*state.refining);
    {
      std::lock_guard lock(mutex_);
      latest_sweep_ = std::move(refined);
      refining_active_ = sweep_needs_refining(*state.refining, refine_limit_);
    }
    finished_.notify_all();
    notify_result();
    return true;
  }
  const bool staged = pace != Pace::whole;
  options.progress = &progress_;
  // Continue from the refined sweep when the new Params share its setting
  // (dragging d_k, row or scaled does not change the sweep).
  if (state.refining) options.previous_sweep = &*state.refining;
  options.score_cache = &state.score_cache;
  // The last complete Snapshot (a first result's colour range is a stand-in, never reused).
  options.previous = state.last_complete.get();
  state.job = std::make_unique<JobInFlight>();
  JobInFlight& running = *state.job;
  running.ticket = ticket;
  running.stop = options.stop;
  if (staged) options.stages = &running.stages;
  running.start = std::chrono::steady_clock::now();
  using Phase = JobInFlight::Phase;
  try {
    options.view = job->view;
    options.defer_pooled_maps = staged;
    if (!injected.empty()) throw std::runtime_error(injected);
    running.result = evaluate(job->params, options);
    running.phase = !running.result        ? Phase::publish
                    : running.stages.any() ? Phase::scores
                                           : JobInFlight::after_the_lanes(*running.result);
    if (running.phase == Phase::scores) {
      // The first result on screen now; the rest of this job's stages after it.
      publish_first_result(*running.result, running.stages, ticket, running.start);
      if (superseded_while_fresh()) {
        // Newer Params wait and a final picture was on screen a moment ago: this job's later
        // stages are stale work, dropped so the newer first result comes now. (Its coarse sweep
        // is kept: the next Params of its setting continue it.)
        state.refining = running.result->dk_sweep;
        running.result.reset();
        running.phase = Phase::publish;
      }
    }
  } catch (const std::exception& error) {
    running.failure = recompute_failed(error);
    running.phase = Phase::publish;
  }
  // Nothing left to do but publish (a small problem, a failure, a dropped job): now, at any pace.
  if (running.phase == Phase::publish) finish(running);
  while (state.job != nullptr && time_left()) advance(*state.job, pace);
  return true;
}

bool Evaluator::advance(JobInFlight& job, Pace pace) {
  WorkerState& state = worker_state_;
  using Phase = JobInFlight::Phase;
  // On the page a frame is drawn between phases, and newer Params come with it: while a final
  // picture is fresh, the phases before the maps' images are stale work, dropped as after the first
  // result (the desktop runs its phases back to back and looks once, after the first result).
  if (pace == Pace::sliced && job.result && (job.phase == Phase::scores || job.phase == Phase::map_scaled) &&
      superseded_while_fresh()) {
    state.refining = job.result->dk_sweep;
    job.result.reset();
    finish(job);
    return false;
  }
  try {
    switch (job.phase) {
      case Phase::scores: {
        // QKᵀ first; then the maps' images, which give their colour range on the way (one softmax
        // pass per map instead of two); then the full H(T). The sweep's trials are the Monte Carlo
        // lane's, after a Snapshot final in every other plot is on screen.
        if (job.stages.scores && !product_reusable(state.score_cache.get(), job.result->params)) {
          // Nothing of the old QKᵀ is copied (another seed or d_k, or too large to copy): it goes
          // before the new one is made, so two L×L matrices never coexist here (64 MiB each at
          // L = 4096). The first result just published holds the new Q and K only; the window drops
          // the old Snapshot when it takes that.
          state.score_cache.reset();
          state.last_complete.reset();
        }
        Stages scores_only{.scores = job.stages.scores};
        if (!complete_stages(*job.result, scores_only, &state.score_cache, job.stop)) {
          job.result.reset();
          job.phase = Phase::publish;
          break;
        }
        job.stages.scores = false;
        if (job.stages.map_range) job.maps = begin_map_pass(*job.result);
        job.phase = job.maps ? Phase::map_scaled : Phase::rest;
        break;
      }
      case Phase::map_scaled:
        pool_map(*job.maps, *job.result, true);
        job.phase = Phase::map_unscaled;
        break;
      case Phase::map_unscaled:
        pool_map(*job.maps, *job.result, false);
        job.phase = Phase::map_colour;
        break;
      case Phase::map_colour:
        job.images = finish_map_pass(*job.maps, *job.result);
        job.maps.reset();
        job.stages.map_range = false;
        job.phase = Phase::rest;
        break;
      case Phase::rest:
        job.monte_carlo_trials = std::exchange(job.stages.dk_trials, 0);
        if (!complete_stages(*job.result, job.stages, &state.score_cache, job.stop)) {
          job.result.reset();
          job.phase = Phase::publish;
          break;
        }
        if (job.monte_carlo_trials > 0) {
          if (job.images == nullptr) job.images = map_images(*job.result);
          publish_all_but_monte_carlo(*job.result, job.images, job.start);
          job.phase = Phase::monte_carlo;
        } else {
          job.phase = JobInFlight::after_the_lanes(*job.result);
        }
        break;
      case Phase::monte_carlo:
        // One chunk per slice on the page (a few ms each); the whole lane at once on the desktop.
        switch (run_monte_carlo_lane(*job.result, job.monte_carlo_trials, job.stop,
                                     pace == Pace::sliced ? 1 : std::numeric_limits<std::int64_t>::max())) {
          case LaneResult::done: job.phase = JobInFlight::after_the_lanes(*job.result); break;
          case LaneResult::stopped:
            // Stopped for newer Params: their evaluation continues these trials when it shares
            // the sweep's setting (EvaluateOptions::previous_sweep).
            state.refining = job.result->dk_sweep;
            job.result.reset();
            job.phase = Phase::publish;
            break;
          case LaneResult::more: break;
        }
        break;
      case Phase::pooled:
        if (pooled_maps_pending(*job.result)) {
          // Long imported context: show everything but the maps now (the old maps stay on screen),
          // then compute the maps tile by tile unless newer Params arrive first.
          auto partial = std::make_shared<const Snapshot>(*job.result);
          auto partial_sweep = std::make_shared<const DkSweep>(job.result->dk_sweep);
          {
            std::lock_guard lock(mutex_);
            latest_ = std::move(partial);
            latest_sweep_ = std::move(partial_sweep);
            latest_images_ = nullptr;
            latest_maps_pending_ = false;
            latest_entropy_curve_pending_ = false;
            latest_monte_carlo_pending_ = false;
            latest_complete_ = false;
            ++latest_version_;
            pooling_ = true;
            if (pending_) current_job_.request_stop();
          }
          // A preview first (one query per pooled row, 1/factor of the work: ~32× sooner at
          // L = 32768), shown at once; then every query's maxima replace it. A newer request stops
          // either (the stop token), so the window never waits for maps nobody wants any more.
          if (preview_pooled_maps(*job.result, job.stop)) {
            auto preview = std::make_shared<const Snapshot>(*job.result);
            std::lock_guard lock(mutex_);
            latest_ = std::move(preview);
            latest_images_ = nullptr;
            ++latest_version_;
          }
          const bool done = !job.stop.stop_requested() && complete_pooled_maps(*job.result, job.stop, &progress_);
          {
            std::lock_guard lock(mutex_);
            pooling_ = false;
          }
          if (!done) job.result.reset();
        }
        job.phase = Phase::publish;
        break;
      case Phase::publish: break;
    }
  } catch (const std::exception& error) {
    job.failure = recompute_failed(error);
    job.result.reset();
    job.phase = Phase::publish;
  }
  if (job.phase == Phase::publish) finish(job);
  return true;
}

void Evaluator::finish(JobInFlight& job) {
  WorkerState& state = worker_state_;
  // The job leaves the worker's state here; what it holds is freed when this call returns.
  const std::unique_ptr<JobInFlight> ending = std::move(state.job);
  std::optional<Snapshot>& result = job.result;
  std::shared_ptr<const MapImages> images = std::move(job.images);
  if (result && images == nullptr) images = map_images(*result);
  const double elapsed_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - job.start).count();
  if (result) state.refining = result->dk_sweep;
  // The Snapshots replaced are not freed under the lock: these hold them until this iteration
  // ends (and the UI until its next frame).
  std::shared_ptr<const Snapshot> replaced_latest,
      replaced_complete = result ? std::move(state.last_complete) : nullptr;
  {
    std::lock_guard lock(mutex_);
    if (result) {
      replaced_latest = std::exchange(latest_, std::make_shared<const Snapshot>(std::move(*result)));
      state.last_complete = latest_;
      latest_sweep_ = std::make_shared<const DkSweep>(*state.refining);
      latest_images_ = std::move(images);
      latest_maps_pending_ = false;
      latest_entropy_curve_pending_ = false;
      latest_monte_carlo_pending_ = false;
      latest_complete_ = true;
      ++latest_version_;
      last_final_published_ = std::chrono::steady_clock::now();
      // A job without a Monte Carlo lane is final here; one with it was final when that lane began.
      if (job.monte_carlo_trials == 0) last_final_ms_ = elapsed_ms;
      last_compute_ms_ = elapsed_ms;
      if (!stages_published_) last_first_result_ms_ = elapsed_ms;
      refining_active_ = sweep_needs_refining(*state.refining, refine_limit_);
    }
    stages_published_ = false;
    staging_active_ = false;
    if (job.failure) error_ = *job.failure;
    // Only the newest submission counts as completion; a cancelled older one does not.
    if (job.ticket == submitted_ && (result || job.failure)) completed_ = job.ticket;
  }
  finished_.notify_all();
  notify_result();
}

}  // namespace smlab::app
