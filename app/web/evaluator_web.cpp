// The web build's Evaluator (state/evaluator.hpp) without threads: a page that is not cross-origin
// isolated has no SharedArrayBuffer, so no pthreads. The page's main loop (web_main.cpp) runs the
// work between frames through wait_for_latest(): the newest submission only (older ones are
// replaced, as on the desktop), or one Monte Carlo refinement chunk once the Params have settled.
// The evaluation steps are those of state/evaluator.cpp's worker loop, run on the caller's thread.
#include "state/evaluator.hpp"

#include <exception>
#include <functional>
#include <map>
#include <stdexcept>
#include <utility>

namespace smlab::app {

MapTextureSource map_texture_source(const Snapshot& snap, bool scaled) {
  if (pooled_maps_pending(snap)) return {};  // the maps follow in a later Snapshot
  if (snap.pooled.factor > 0)
    return {plot::rows_of(scaled ? snap.pooled.scaled : snap.pooled.unscaled, snap.pooled.side), snap.pooled.side};
  return {std::bind_front(attention_row, std::cref(snap), scaled), snap.attention_size};
}

namespace {

// What the desktop worker keeps on its own stack: the sweep being refined and the score cache.
struct WorkerState {
  std::optional<DkSweep> refining;
  std::shared_ptr<const ScoreCache> score_cache;
};
std::map<const Evaluator*, WorkerState>& worker_states() {
  static std::map<const Evaluator*, WorkerState> states;
  return states;
}

bool sweep_needs_refining(const DkSweep& sweep, std::int64_t limit) {
  if (sweep.trials >= limit) return false;
  for (const auto* variant : {&sweep.scaled, &sweep.unscaled})
    for (const RowStats& point : *variant)
      if (point.entropy_nats.count < 2 || point.entropy_nats.standard_error() > Evaluator::refine_target_standard_error)
        return true;
  return false;
}

}  // namespace

// worker_ stays empty (no thread); no pooled maps are computed apart from their Snapshot (pooling_).
Evaluator::Evaluator() {
  worker_states()[this];
  (void)pooling_;
}

Evaluator::~Evaluator() { worker_states().erase(this); }

void Evaluator::submit(const Params& params, View view) {
  pending_ = Job{params, view};
  last_submit_ = std::chrono::steady_clock::now();
  ++submitted_;
}

// One slice of work: the pending submission, else a refinement chunk once the Params settled.
void Evaluator::wait_for_latest(std::chrono::microseconds) { run({}); }

// Every evaluation here is whole (no staged first result), so complete = latest.
void Evaluator::wait_for_complete(std::chrono::microseconds) { run({}); }

Evaluator::Latest Evaluator::latest() const {
  return {latest_, latest_sweep_, latest_version_, latest_images_, false, latest_ != nullptr};
}

void Evaluator::set_map_image_spec(const MapImageSpec& spec) { image_spec_ = spec; }

bool Evaluator::busy() const { return completed_ != submitted_; }

float Evaluator::progress() const { return progress_.load(std::memory_order_relaxed); }

double Evaluator::last_compute_ms() const { return last_compute_ms_; }
double Evaluator::last_first_result_ms() const { return last_compute_ms_; }

std::string Evaluator::take_error() { return std::exchange(error_, {}); }

void Evaluator::fail_next_evaluation_for_testing(std::string message) { injected_failure_ = std::move(message); }

void Evaluator::set_result_callback(std::function<void()> callback) { on_result_ = std::move(callback); }

void Evaluator::notify_result() {
  if (on_result_) on_result_();
}

void Evaluator::set_refine_limit(std::int64_t max_trials_per_point) { refine_limit_ = max_trials_per_point; }

namespace {
bool nothing_left(const Evaluator& evaluator, bool submissions_done, std::int64_t refine_limit) {
  const WorkerState& state = worker_states()[&evaluator];
  return submissions_done && !(state.refining && sweep_needs_refining(*state.refining, refine_limit));
}
}  // namespace

// With no worker to wait for, asking whether the work is done does it: callers that poll idle()
// (the GIF recording's offscreen App, once per page frame) would otherwise wait forever. Only
// such offscreen copies poll; the page's own evaluator is pumped by web_main's tick.
bool Evaluator::idle() const {
  const_cast<Evaluator*>(this)->wait_until_idle();  // never a const object: Apps own theirs
  return true;
}

void Evaluator::wait_until_idle() {
  // Headless-style callers (exports) want the refined picture now: no settle time.
  last_submit_ = std::chrono::steady_clock::time_point{};
  while (!nothing_left(*this, completed_ == submitted_ && !pending_, refine_limit_)) run({});
}

// Here one step of the desktop worker's loop, on the caller's thread.
void Evaluator::run(std::stop_token) {
  WorkerState& state = worker_states()[this];
  if (!pending_) {
    if (!state.refining || !sweep_needs_refining(*state.refining, refine_limit_)) {
      refining_active_ = false;
      return;
    }
    // Refine only once the Params have settled (not during a drag).
    if (std::chrono::steady_clock::now() < last_submit_ + refine_settle_time) return;
    refining_active_ = true;
    const std::int64_t chunk =
        std::min(automatic_dk_trials(state.refining->config.seq_len), refine_limit_ - state.refining->trials);
    add_dk_trials(*state.refining, chunk);
    latest_sweep_ = std::make_shared<const DkSweep>(*state.refining);
    refining_active_ = sweep_needs_refining(*state.refining, refine_limit_);
    notify_result();
    return;
  }
  const Job job = std::move(*pending_);
  pending_.reset();
  const std::string injected = std::exchange(injected_failure_, {});
  const std::uint64_t ticket = submitted_;
  EvaluateOptions options;
  options.progress = &progress_;
  if (state.refining) options.previous_sweep = &*state.refining;
  options.score_cache = &state.score_cache;
  const std::shared_ptr<const Snapshot> previous = latest_;
  options.previous = previous.get();
  const auto start = std::chrono::steady_clock::now();
  std::optional<Snapshot> result;
  std::string failure;
  try {
    options.view = job.view;
    if (!injected.empty()) throw std::runtime_error(injected);
    result = evaluate(job.params, options);  // pooled maps included: there is no later slice to hand them to
  } catch (const std::exception& error) {
    failure = error.what();
  }
  std::shared_ptr<MapImages> images;
  if (result && image_spec_.max_side > 0) {
    images = std::make_shared<MapImages>();
    images->spec = image_spec_;
    std::vector<float> pooled;
    for (const bool scaled : {true, false}) {
      const MapTextureSource source = map_texture_source(*result, scaled);
      if (source.size == 0) continue;
      plot::prepare_heatmap_image(scaled ? images->scaled : images->unscaled, pooled, source.fill_row, source.size,
                                  source.size, 0.0, image_spec_.fixed_range ? 1.0 : result->attention_max, image_spec_.colormap, image_spec_.max_side,
                                  plot::Pooling::max, {});
    }
  }
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (result) {
    state.refining = result->dk_sweep;
    latest_ = std::make_shared<const Snapshot>(std::move(*result));
    latest_sweep_ = std::make_shared<const DkSweep>(*state.refining);
    latest_images_ = std::move(images);
    ++latest_version_;
    last_compute_ms_ = elapsed_ms;
    refining_active_ = sweep_needs_refining(*state.refining, refine_limit_);
  }
  if (!failure.empty()) error_ = "recompute failed: " + failure;
  if (ticket == submitted_) completed_ = ticket;  // nothing is cancelled here: every run finishes
  notify_result();
}

}  // namespace smlab::app
