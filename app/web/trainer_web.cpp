// The web page's Trainer (work/trainer.hpp) without a thread: a page that is not cross-origin
// isolated has no pthreads. The page's tick (web_main.cpp) calls pump() between frames, which runs
// the desktop worker's own slice of work (Trainer::work, work/trainer_step.cpp) on the page's
// thread: the mailbox, then training for the budget, then the picture when due.
#include "work/trainer.hpp"

namespace smlab::app {

// worker_ stays empty (no thread).
Trainer::Trainer() = default;

Trainer::~Trainer() = default;

bool Trainer::pump(std::chrono::steady_clock::duration budget) {
  {
    const std::lock_guard lock(mutex_);  // uncontended here: the UI's calls share the thread
    if (!has_mail_ && !wants_training()) {
      busy_ = false;
      return false;
    }
  }
  const bool more = work(budget);
  busy_ = more;
  return more;
}

// Tests and exports want the trained picture now: train to the goal on this thread.
void Trainer::wait_until_idle() {
  while (pump(slice)) {
  }
}

}  // namespace smlab::app
