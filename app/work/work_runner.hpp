// The one background-work engine. Everything the window does off its frame (the Evaluator's
// recomputes, the training lab's runs, imports, exports, the class server's start) is a SlicedWork
// run by a WorkRunner: in slices that publish the newest result, cancellable, reporting progress to
// the runner (one sink for every kind of work). On the desktop a runner is a thread that sleeps until
// its work is due; in the browser, which has no threads, the page's tick pumps each runner between
// frames. The work's code is the same in both: only the runner's mode differs, and tests run the
// page's mode (Mode::pumped) on the desktop.
//
//   class Counter final : public SlicedWork {
//     NextSlice run_slice(Clock::duration budget, const std::stop_token& stop) override {
//       ... work for about `budget`, publish what it made ...
//       return more ? NextSlice::now() : NextSlice::when_poked();
//     }
//     WorkRunner runner_{*this, {"smlab-count"}};  // last member: stopped and joined first
//   };
//   ... new input: store it, then runner_.poke();
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>

#include "smlab/progress.hpp"

namespace smlab::app {

// When a piece of work wants its next slice.
class NextSlice {
 public:
  using Clock = std::chrono::steady_clock;
  enum class Kind { now, at, when_poked, finished };

  static NextSlice now() { return NextSlice(Kind::now, {}); }
  // A paced piece of work (or one waiting for its input to settle): at `when`, or sooner if poked.
  static NextSlice at(Clock::time_point when) { return NextSlice(Kind::at, when); }
  // Nothing to do until new input arrives (poke).
  static NextSlice when_poked() { return NextSlice(Kind::when_poked, {}); }
  // Done for good: the runner runs no more slices (a thread ends).
  static NextSlice finished() { return NextSlice(Kind::finished, {}); }

  [[nodiscard]] Kind kind() const { return kind_; }
  [[nodiscard]] Clock::time_point when() const { return when_; }

 private:
  NextSlice(Kind kind, Clock::time_point when) : kind_(kind), when_(when) {}
  Kind kind_;
  Clock::time_point when_;
};

// A piece of background work, run a slice at a time by a WorkRunner.
class SlicedWork {
 public:
  // One slice of about `budget` (a step that cannot be split may overrun it; work that cannot be
  // split at all, a file export, runs whole). `stop` is requested when the work is cancelled or
  // its runner is going: stop soon, leave nothing half-done and return finished() or
  // when_poked(). Never throws. Called on the runner's thread, or by pump() on the caller's.
  virtual NextSlice run_slice(std::chrono::steady_clock::duration budget, const std::stop_token& stop) = 0;

 protected:
  SlicedWork() = default;
  SlicedWork(const SlicedWork&) = default;
  SlicedWork& operator=(const SlicedWork&) = default;
  ~SlicedWork() = default;  // not owned through this interface
};

// What a piece of work shows while it runs: the fraction of the whole done and what it is doing now.
struct JobProgress {
  double fraction = 0.0;
  std::string stage;
};

// Runs one SlicedWork. Progress reported to it (it is the work's ProgressSink) is read by the UI with
// progress(); `wake` (e.g. platform::Window::wake) is called at most ten times a second as progress is
// reported, so a window asleep between events redraws its bar.
class WorkRunner final : public ProgressSink {
 public:
  using Clock = std::chrono::steady_clock;
  // thread: a thread of its own runs the slices as they are due (the desktop);
  // pumped: pump() runs them on the caller's thread (the web page between frames; tests of it).
  enum class Mode { thread, pumped };
#ifdef __EMSCRIPTEN__
  static constexpr Mode platform_mode = Mode::pumped;  // a page that is not cross-origin isolated has no pthreads
#else
  static constexpr Mode platform_mode = Mode::thread;
#endif
  struct Options {
    std::string name;  // the thread's name in profilers and `top -H` (at most 15 bytes are kept)
    Clock::duration slice = std::chrono::milliseconds(20);  // a thread's budget per slice
    Mode mode = platform_mode;
    std::function<void()> wake;  // see above; thread-safe and quick
  };

  // The runner starts idle: nothing runs before the first poke(). In the browser every runner is
  // pumped, whatever `options.mode` says. `work` must outlive the runner:
  // make the runner its owner's last member, so it is stopped and joined before the rest goes.
  WorkRunner(SlicedWork& work, Options options);
  // Requests the stop (a running slice sees it) and joins the thread.
  ~WorkRunner();
  WorkRunner(const WorkRunner&) = delete;
  WorkRunner& operator=(const WorkRunner&) = delete;

  // New input for the work: its next slice runs soon (a thread wakes; pump runs it).
  void poke();
  // Requests the stop the work's slices are given (Cancel); the work then ends its own way (a job
  // with its "cancelled" result) in its next slice, which this pokes.
  void cancel();
  [[nodiscard]] bool cancel_requested() const { return cancel_.stop_requested(); }

  // Pumped: runs one slice of about `budget` when the work is due (poked, or its time came);
  // returns whether it has more to do now or later. A thread's runner does nothing here.
  bool pump(Clock::duration budget);
  [[nodiscard]] bool threaded() const { return mode_ == Mode::thread; }
  // Whether the work said it is finished (a job's result is ready).
  [[nodiscard]] bool finished() const;

  [[nodiscard]] JobProgress progress() const;
  void update(double fraction, std::string_view stage) noexcept override;

 private:
#ifndef __EMSCRIPTEN__
  void run(const std::stop_token& closing);  // the thread
#endif
  bool due(Clock::time_point now) const;  // mutex_ held

  SlicedWork& work_;
  const Mode mode_;
  // The thread's: unused in the browser, where every runner is pumped.
  [[maybe_unused]] const Clock::duration slice_;
  [[maybe_unused]] const std::string name_;
  const std::function<void()> wake_;
  std::stop_source cancel_;   // cancel() and the destructor
  mutable std::mutex mutex_;  // guards what follows
  std::condition_variable_any poked_cv_;
  bool poked_ = false;
  NextSlice next_ = NextSlice::when_poked();
  JobProgress progress_;
  Clock::time_point last_wake_{};
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

}  // namespace smlab::app
