// The web build's Evaluator (work/evaluator.hpp) without threads: a page that is not cross-origin
// isolated has no SharedArrayBuffer, so no pthreads. The page's main loop (web_main.cpp) runs the
// work between frames through wait_for_latest(): one slice of the newest submission (older ones are
// replaced, as on the desktop), or one Monte Carlo refinement chunk once the Params have settled.
// That work is the desktop worker's own step (Evaluator::step, work/evaluator_step.cpp), run on the
// caller's thread at Pace::sliced: the first result, then a few ms of phases per browser frame, so a
// frame waits for part of a recompute rather than all of it. Only the waiting differs here.
#include "work/evaluator.hpp"

namespace smlab::app {

// worker_ stays empty (no thread).
Evaluator::Evaluator() = default;

Evaluator::~Evaluator() = default;

// One slice of work, about `budget` long: the running job's next phases or the pending submission's
// first result and phases, else a refinement chunk once the Params settled.
void Evaluator::wait_for_latest(std::chrono::microseconds budget) { step(Pace::sliced, budget); }

// The running job's phases to its end, or the pending submission whole (a small problem, which the
// window wants complete on the frame that submitted it).
void Evaluator::wait_for_complete(std::chrono::microseconds) { step(Pace::whole); }

// The page draws between the phases (Pace::sliced): waiting here would hold the frame for them.
void Evaluator::wait_for_final(std::chrono::microseconds) {}

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
  while (step(Pace::whole)) {
  }
}

}  // namespace smlab::app
