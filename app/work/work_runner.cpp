#include "work/work_runner.hpp"

#include <utility>

#ifndef __EMSCRIPTEN__
#include <pthread.h>
#include <sys/resource.h>
#include <unistd.h>
#endif

namespace smlab::app {

WorkRunner::WorkRunner(SlicedWork& work, Options options)
    : work_(work),
      mode_(platform_mode == Mode::pumped ? Mode::pumped : options.mode),
      slice_(options.slice),
      name_(std::move(options.name)),
      wake_(std::move(options.wake)) {
#ifndef __EMSCRIPTEN__
  if (mode_ == Mode::thread) thread_ = std::jthread([this](std::stop_token closing) { run(closing); });
#endif
}

WorkRunner::~WorkRunner() {
  cancel_.request_stop();
  if (thread_.joinable()) {
    thread_.request_stop();  // wakes the thread's wait (condition_variable_any with its stop token)
    thread_.join();
  }
}

void WorkRunner::poke() {
  {
    const std::lock_guard lock(mutex_);
    poked_ = true;
  }
  poked_cv_.notify_all();
}

void WorkRunner::cancel() {
  cancel_.request_stop();
  poke();
}

bool WorkRunner::due(Clock::time_point now) const {
  switch (next_.kind()) {
    case NextSlice::Kind::now: return true;
    case NextSlice::Kind::at: return poked_ || now >= next_.when();
    case NextSlice::Kind::when_poked: return poked_;
    case NextSlice::Kind::finished: return false;
  }
  return false;
}

bool WorkRunner::finished() const {
  const std::lock_guard lock(mutex_);
  return next_.kind() == NextSlice::Kind::finished;
}

bool WorkRunner::pump(Clock::duration budget) {
  if (mode_ != Mode::pumped) return false;
  {
    const std::lock_guard lock(mutex_);
    if (!due(Clock::now())) return next_.kind() == NextSlice::Kind::at;
    poked_ = false;
  }
  const NextSlice next = work_.run_slice(budget, cancel_.get_token());
  const std::lock_guard lock(mutex_);
  next_ = next;
  return next.kind() == NextSlice::Kind::now || next.kind() == NextSlice::Kind::at || poked_;
}

// (Not in the browser, which has no threads: there every runner is pumped.)
#ifndef __EMSCRIPTEN__
void WorkRunner::run(const std::stop_token& closing) {
  // Named so profilers and `top -H` tell the workers from the UI thread (Linux keeps 15 bytes).
  pthread_setname_np(pthread_self(), name_.substr(0, 15).c_str());
  // Normal priority, as the UI thread. At nice 5 the Evaluator lost the cores to any other busy
  // program (a browser beside the app): with one busy core the final picture at L = 1024 came 3-5×
  // later and its p95 reached 300 ms (docs/PERFORMANCE.md). What comes first is set by the order of
  // each work's slices instead. (Linux: per-thread nice; a thread cannot lower its nice value
  // again, so one level.)
  setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 0);
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      for (;;) {
        if (closing.stop_requested() || next_.kind() == NextSlice::Kind::finished) return;
        if (due(Clock::now())) break;
        if (next_.kind() == NextSlice::Kind::at)
          poked_cv_.wait_until(lock, closing, next_.when(), [this] { return poked_; });
        else
          poked_cv_.wait(lock, closing, [this] { return poked_; });
      }
      poked_ = false;
    }
    const NextSlice next = work_.run_slice(slice_, cancel_.get_token());
    const std::lock_guard lock(mutex_);
    next_ = next;
  }
}
#endif

JobProgress WorkRunner::progress() const {
  const std::lock_guard lock(mutex_);
  return progress_;
}

void WorkRunner::update(double fraction, std::string_view stage) noexcept {
  const auto now = Clock::now();
  bool wake = false;
  {
    const std::lock_guard lock(mutex_);
    progress_.fraction = fraction;
    try {
      progress_.stage.assign(stage);
    } catch (...) {  // out of memory for a stage name: keep the last one
    }
    if (now - last_wake_ >= std::chrono::milliseconds(100)) last_wake_ = now, wake = true;
  }
  if (wake && wake_) wake_();
}

}  // namespace smlab::app
