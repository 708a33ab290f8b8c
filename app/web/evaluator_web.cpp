// The web build's Evaluator (state/evaluator.hpp) without threads: a page that is not cross-origin
// isolated has no SharedArrayBuffer, so no pthreads. The page's main loop (web_main.cpp) runs the
// work between frames through wait_for_latest(): the newest submission only (older ones are
// replaced, as on the desktop), or one Monte Carlo refinement chunk once the Params have settled.
// That work is the desktop worker's own step (Evaluator::step, state/evaluator_step.cpp), run on the
// caller's thread, unstaged (the page draws only after it returns); only the waiting differs here.
#include "state/evaluator.hpp"

namespace smlab::app {

// worker_ stays empty (no thread).
Evaluator::Evaluator() = default;

Evaluator::~Evaluator() = default;

// One slice of work: the pending submission, else a refinement chunk once the Params settled.
void Evaluator::wait_for_latest(std::chrono::microseconds) { step(/*staged=*/false); }

// Every evaluation here is whole (no staged first result), so complete = latest.
void Evaluator::wait_for_complete(std::chrono::microseconds) { step(/*staged=*/false); }

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
  while (step(/*staged=*/false)) {
  }
}

}  // namespace smlab::app
