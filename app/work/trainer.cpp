// The Trainer as a piece of the background-work engine (work/work_runner.hpp): asleep until the UI
// hands something over or there is training to do, then a slice of work (trainer_step.cpp), so a
// new setting or command reaches the running training within one slice. On the desktop its runner
// is a thread; on the web page the page's tick pumps it between frames (pump()).
#include "work/trainer.hpp"

namespace smlab::app {

Trainer::Trainer(WorkRunner::Mode mode) : runner_(*this, {"smlab-train", slice, mode, {}}) {}

Trainer::~Trainer() {
  const std::lock_guard lock(mutex_);
  stopping_ = true;
  closing_.request_stop();
  interrupt_.request_stop();
  // runner_, the last member, stops and joins the thread when the destructor's body is done.
}

NextSlice Trainer::run_slice(std::chrono::steady_clock::duration budget, const std::stop_token& stop) {
  {
    const std::lock_guard lock(mutex_);
    if (stopping_ || stop.stop_requested()) return NextSlice::finished();
    if (!has_mail_ && !more_) {
      busy_ = false;
      idle_.notify_all();
      return NextSlice::when_poked();
    }
    // A paced training: asleep until its next step is due, or the UI hands something over.
    if (!has_mail_ && resume_at_ && std::chrono::steady_clock::now() < *resume_at_) return NextSlice::at(*resume_at_);
    busy_ = true;
  }
  const bool more = work(budget);
  const std::lock_guard lock(mutex_);
  more_ = more;
  if (has_mail_) return NextSlice::now();
  if (!more) {
    busy_ = false;
    idle_.notify_all();
    return NextSlice::when_poked();
  }
  return resume_at_ ? NextSlice::at(*resume_at_) : NextSlice::now();
}

bool Trainer::pump(std::chrono::steady_clock::duration budget) { return runner_.pump(budget); }

void Trainer::wait_until_idle() {
  if (!runner_.threaded()) {
    // Tests and exports want the trained picture now: train to the goal on this thread.
    while (pump(slice)) {
    }
    return;
  }
  std::unique_lock lock(mutex_);
  idle_.wait(lock, [this] { return !busy_ && !has_mail_; });
}

}  // namespace smlab::app
