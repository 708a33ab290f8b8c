// The worker behind Evaluator: one thread, newest pending submission wins, cancelled on exit. What
// it does per job or refinement chunk is Evaluator::step (evaluator_step.cpp, shared with the web).
#include "work/evaluator.hpp"

#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>

namespace smlab::app {

Evaluator::Evaluator() : worker_([this](std::stop_token stop) { run(stop); }) {
  // Named so profilers and `top -H` tell the recompute thread from the UI thread.
  pthread_setname_np(worker_.native_handle(), "smlab-evaluate");
}

Evaluator::~Evaluator() {
  {
    std::lock_guard lock(mutex_);
    current_job_.request_stop();
  }
  worker_.request_stop();
  wake_.notify_all();
}

void Evaluator::wait_for_latest(std::chrono::microseconds budget) {
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, budget, [this] { return completed_ == submitted_; });
}

void Evaluator::wait_for_complete(std::chrono::microseconds budget) {
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, budget, [this] { return completed_ == submitted_ && !staging_active_; });
}

void Evaluator::wait_for_final(std::chrono::microseconds budget) {
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, budget, [this] {
    return completed_ == submitted_ && !pending_ && !latest_maps_pending_ && !latest_entropy_curve_pending_;
  });
}

bool Evaluator::idle() const {
  std::lock_guard lock(mutex_);
  return completed_ == submitted_ && !refining_active_ && !staging_active_;
}

void Evaluator::wait_until_idle() {
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return completed_ == submitted_ && !refining_active_ && !staging_active_; });
}

void Evaluator::run(std::stop_token stop) {
  // Normal priority, as the UI thread. At nice 5 it lost the cores to any other busy program (a
  // browser beside the app): with one busy core the final picture at L = 1024 came 3-5× later and
  // its p95 reached 300 ms (docs/PERFORMANCE.md). What comes first is set by the order of
  // the work instead: the first result, then the maps, then the Monte Carlo lane, stale work
  // dropped. (Linux: per-thread nice; a thread cannot lower its nice value again, so one level.)
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 0);
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      // refine_limit_ may have changed since the last chunk: recheck before sleeping.
      if (!refinement_due()) {
        refining_active_ = false;
        finished_.notify_all();
      }
      wake_.wait(lock, stop, [&] { return !held_for_testing_ && (pending_.has_value() || refinement_due()); });
      // Refinement waits until the Params have settled (step() checks it too).
      while (!stop.stop_requested() && !pending_ && refinement_due() &&
             std::chrono::steady_clock::now() < last_submit_ + refine_settle_time)
        wake_.wait_until(lock, stop, last_submit_ + refine_settle_time, [&] { return pending_.has_value(); });
      if (stop.stop_requested()) return;
    }
    step(Pace::staged);
  }
}

}  // namespace smlab::app
