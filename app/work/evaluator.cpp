// The Evaluator as a piece of the background-work engine (work/work_runner.hpp): its slice is one
// step() (evaluator_step.cpp), at the pace its runner's mode allows. On a thread (the desktop) a
// step runs a job's phases back to back; pumped (the web page, between frames) one phase or a few
// per step. Only the waiting differs between the two.
#include "work/evaluator.hpp"

namespace smlab::app {

namespace {

// Whether a runner asked for in `mode` has a thread: in the browser every runner is pumped.
bool threaded(WorkRunner::Mode mode) {
  return mode == WorkRunner::Mode::thread && WorkRunner::platform_mode == WorkRunner::Mode::thread;
}

}  // namespace

Evaluator::Evaluator(WorkRunner::Mode mode)
    : pace_(threaded(mode) ? Pace::staged : Pace::sliced), runner_(*this, {"smlab-evaluate", {}, mode, {}}) {}

Evaluator::~Evaluator() {
  {
    std::lock_guard lock(mutex_);
    current_job_.request_stop();
  }
  // runner_, the last member, stops and joins the thread when the destructor's body is done.
}

NextSlice Evaluator::run_slice(std::chrono::steady_clock::duration budget, const std::stop_token& stop) {
  if (stop.stop_requested()) return NextSlice::finished();
  {
    // Held, the test's thread takes the steps (slice_for_testing), and a job may be between phases.
    std::lock_guard lock(mutex_);
    if (held_for_testing_) return NextSlice::when_poked();
  }
  if (step(pace_, std::chrono::duration_cast<std::chrono::microseconds>(budget))) return NextSlice::now();
  std::lock_guard lock(mutex_);
  // Refinement waits until the Params have settled (step() did nothing before then).
  if (!held_for_testing_ && !pending_ && refinement_due()) return NextSlice::at(last_submit_ + refine_settle_time);
  return NextSlice::when_poked();
}

void Evaluator::wait_for_latest(std::chrono::microseconds budget) {
  if (!runner_.threaded()) {
    // One slice of work, about `budget` long: the running job's next phases or the pending
    // submission's first result and phases, else a refinement chunk once the Params settled.
    runner_.pump(budget);
    return;
  }
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, budget, [this] { return completed_ == submitted_; });
}

void Evaluator::wait_for_complete(std::chrono::microseconds budget) {
  if (!runner_.threaded()) {
    // The running job's phases to its end, or the pending submission whole (a small problem, which
    // the window wants complete on the frame that submitted it).
    step(Pace::whole);
    return;
  }
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, budget, [this] { return completed_ == submitted_ && !staging_active_; });
}

void Evaluator::wait_for_final(std::chrono::microseconds budget) {
  if (!runner_.threaded()) return;  // the page draws between the phases: waiting would hold the frame
  std::unique_lock lock(mutex_);
  finished_.wait_for(lock, budget, [this] {
    return completed_ == submitted_ && !pending_ && !latest_maps_pending_ && !latest_entropy_curve_pending_;
  });
}

bool Evaluator::idle() const {
  if (!runner_.threaded()) {
    // With no thread to wait for, asking whether the work is done does it: callers that poll idle()
    // (the GIF recording's offscreen App, once per page frame) would otherwise wait forever. Only
    // such offscreen copies poll; the page's own evaluator is pumped by its tick.
    const_cast<Evaluator*>(this)->wait_until_idle();  // never a const object: Apps own theirs
    return true;
  }
  std::lock_guard lock(mutex_);
  return completed_ == submitted_ && !refining_active_ && !staging_active_;
}

void Evaluator::wait_until_idle() {
  if (!runner_.threaded()) {
    // Headless-style callers (exports) want the refined picture now: no settle time.
    {
      std::lock_guard lock(mutex_);
      last_submit_ = std::chrono::steady_clock::time_point{};
    }
    while (step(Pace::whole)) {
    }
    return;
  }
  std::unique_lock lock(mutex_);
  finished_.wait(lock, [this] { return completed_ == submitted_ && !refining_active_ && !staging_active_; });
}

}  // namespace smlab::app
