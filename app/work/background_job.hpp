// One piece of the window's work on a thread of its own, with progress and Cancel, so the frame keeps
// drawing: the window's imports and exports all run through it (smlab/progress.hpp says how the work
// reports and stops). The web page has no threads: there the work runs at once, when started.
#pragma once

#include <chrono>
#include <functional>
#include <mutex>
#include <optional>
#include <stop_token>
#include <string>
#include <string_view>
#include <thread>
#include <utility>

#include "smlab/error.hpp"
#include "smlab/progress.hpp"

namespace smlab::app {

// What a job shows while it runs: the fraction of the whole done and what it is doing now.
struct JobProgress {
  double fraction = 0.0;
  std::string stage;
};

// Runs `work(progress)` once, on a thread of its own, and keeps its result for the UI thread:
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
class BackgroundJob final : public ProgressSink {
 public:
  using Work = std::function<Outcome(const Progress& progress)>;

  explicit BackgroundJob(Work work, std::function<void()> wake = {}) : wake_(std::move(wake)) {
#ifdef __EMSCRIPTEN__
    result_.emplace(work(Progress(std::stop_token(), this)));
#else
    thread_ = std::jthread([this, work = std::move(work)](std::stop_token stop) {
      std::optional<Outcome> done;
      try {
        done.emplace(work(Progress(stop, this)));
      } catch (const std::exception& error) {  // never out of a thread: the window shows it instead
        done.emplace(Error::file(std::string("failed: ") + error.what()));
      }
      {
        const std::lock_guard lock(mutex_);
        result_ = std::move(done);
      }
      if (wake_) wake_();
    });
#endif
  }
  ~BackgroundJob() {
    // The thread is the last member, so it is stopped and joined first; this says so explicitly.
    if (thread_.joinable()) {
      thread_.request_stop();
      thread_.join();
    }
  }
  BackgroundJob(const BackgroundJob&) = delete;
  BackgroundJob& operator=(const BackgroundJob&) = delete;

  // Asks the work to stop (Cancel); its result, a cancelled Error, arrives as any other.
  void cancel() { thread_.request_stop(); }
  [[nodiscard]] bool cancel_requested() const { return thread_.get_stop_token().stop_requested(); }

  // The result once the work is done (then empty again); nothing while it runs.
  [[nodiscard]] std::optional<Outcome> take_result() {
    const std::lock_guard lock(mutex_);
    return std::exchange(result_, std::nullopt);
  }
  [[nodiscard]] bool done() const {
    const std::lock_guard lock(mutex_);
    return result_.has_value();
  }
  [[nodiscard]] JobProgress progress() const {
    const std::lock_guard lock(mutex_);
    return progress_;
  }

  void update(double fraction, std::string_view stage) noexcept override {
    const auto now = std::chrono::steady_clock::now();
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

 private:
  std::function<void()> wake_;
  mutable std::mutex mutex_;  // guards what follows
  JobProgress progress_;
  std::optional<Outcome> result_;
  std::chrono::steady_clock::time_point last_wake_{};
  std::jthread thread_;  // last: stopped and joined before the rest goes
};

}  // namespace smlab::app
