// One piece of the window's work that cannot be split (an import's read, an export's files, the class
// server's start), run whole as one slice of the background-work engine (work/work_runner.hpp), with
// progress and Cancel, so the frame keeps drawing: on a thread of its own on the desktop; on the web
// page, which has no threads, when the frame first asks for its result (smlab/progress.hpp says how
// the work reports and stops).
#pragma once

#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <utility>

#include "smlab/error.hpp"
#include "smlab/progress.hpp"
#include "work/work_runner.hpp"

namespace smlab::app {

// Runs `work(progress)` once and keeps its result for the UI thread:
//
//   job = std::make_unique<BackgroundJob<Result<Path>>>(
//       [request](const Progress& progress) { return write_files(request, progress); }, Window::wake);
//   ... each frame: draw job->progress(); Cancel calls job->cancel();
//   if (std::optional<Result<Path>> done = job->take_result()) { report it; job.reset(); }
//
// The work checks progress.cancelled() and then stops and undoes (progress.hpp), returning its
// "cancelled" Error; a job destroyed before it is done is cancelled and waited for. `wake` (e.g.
// platform::Window::wake) is called when the result is ready and, at most ten times a second, as
// progress is reported, so a window asleep between events redraws its bar.
template <class Outcome>
class BackgroundJob final : private SlicedWork {
 public:
  using Work = std::function<Outcome(const Progress& progress)>;

  explicit BackgroundJob(Work work, std::function<void()> wake = {}, WorkRunner::Mode mode = WorkRunner::platform_mode)
      : work_(std::move(work)), wake_(wake), runner_(*this, {"smlab-job", {}, mode, std::move(wake)}) {
    runner_.poke();
  }
  ~BackgroundJob() = default;  // runner_, the last member, cancels the work and waits for it
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  // Asks the work to stop (Cancel); its result, a cancelled Error, arrives as any other.
  void cancel() { runner_.cancel(); }
  [[nodiscard]] bool cancel_requested() const { return runner_.cancel_requested(); }

  // The result once the work is done (then empty again); nothing while it runs.
  [[nodiscard]] std::optional<Outcome> take_result() {
    runner_.pump(WorkRunner::Clock::duration::max());
    const std::lock_guard lock(mutex_);
    return std::exchange(result_, std::nullopt);
  }
  // Whether the result is ready (on the web page: once take_result() ran the work).
  [[nodiscard]] bool done() const {
    const std::lock_guard lock(mutex_);
    return result_.has_value();
  }
  [[nodiscard]] JobProgress progress() const { return runner_.progress(); }

 private:
  NextSlice run_slice(WorkRunner::Clock::duration, const std::stop_token& stop) override {
    std::optional<Outcome> done;
    try {
      done.emplace(work_(Progress(stop, &runner_)));
    } catch (const std::exception& error) {  // never out of a thread: the window shows it instead
      done.emplace(Error::file(std::string("failed: ") + error.what()));
    }
    {
      const std::lock_guard lock(mutex_);
      result_ = std::move(done);
    }
    if (wake_) wake_();
    return NextSlice::finished();
  }

  Work work_;
  std::function<void()> wake_;
  mutable std::mutex mutex_;  // guards result_
  std::optional<Outcome> result_;
  WorkRunner runner_;  // last: stopped and joined before the rest goes
};

}  // namespace smlab::app
