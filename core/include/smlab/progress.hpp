// Progress and cancellation of long work: one mechanism for imports and exports, the window's
// recomputes and the web page's big exports. Core code only reports and checks; what a report
// does (a line on stderr, a bar in the window, a status on the page) is the sink's business.
#pragma once

#include <algorithm>
#include <stop_token>
#include <string>
#include <string_view>

#include "smlab/error.hpp"

namespace smlab {

// Receives a job's reports. Contract for an implementation:
//  - update() may be called from any thread the job runs on, as often as the job checks for
//    cancellation (every chunk of a read, every block of rows): it must be thread-safe, quick,
//    never throw and never block on the job. Throttling (how often to redraw) is its own affair.
//  - `fraction` is of the whole job, in [0, 1]. Stages follow each other, so it rises; a sink
//    may still see an equal or (from two threads) a slightly older value after a newer one.
//  - `stage` is a short phrase for people, e.g. "reading q.npy", "inflating k", "writing
//    attention.csv". It is valid during the call only: copy it to keep it.
class ProgressSink {
 public:
  virtual void update(double fraction, std::string_view stage) noexcept = 0;

 protected:
  ProgressSink() = default;
  ProgressSink(const ProgressSink&) = default;
  ProgressSink& operator=(const ProgressSink&) = default;
  ~ProgressSink() = default;  // not owned through this interface
};

// What a long job is handed, by value (cheap to copy): a cancellation token and where to report.
// Both are optional; a default Progress never cancels and reports nowhere.
//
// Contract for the job:
//  - Check cancelled() at least every few milliseconds of work. When it is true, stop, undo
//    (temporaries removed, nothing half-written, nothing replaced, memory released) and return
//    cancelled_error(what) (what: "import", "export"): the caller asked for the stop.
//  - Report with report(done), done in [0, 1] of the part this Progress stands for; give a
//    sub-step its share with part(begin, end, stage) (begin ≤ end, both within [0, 1] of this part).
//  - `stage` strings given to part() must outlive every Progress made from them (string
//    literals, or a string the job keeps for the part's duration).
//
// Cancellation is a std::stop_token of a std::stop_source the caller owns (a window's Cancel
// button, a newer request, a page's Stop): the same token EvaluateOptions::stop takes. Headless
// runs are interrupted by signals instead (files/atomic_file.hpp removes temporaries and the
// process dies of the signal), because a stop_source may not be touched from a signal handler.
class Progress {
 public:
  Progress() = default;
  Progress(std::stop_token stop, ProgressSink* sink, std::string_view stage = {})
      : stop_(std::move(stop)), sink_(sink), stage_(stage) {}

  [[nodiscard]] bool cancelled() const noexcept { return stop_.stop_requested(); }
  [[nodiscard]] const std::stop_token& stop_token() const noexcept { return stop_; }

  // `done` of this part (clamped to [0, 1]), reported as a fraction of the whole job.
  void report(double done) const noexcept {
    if (sink_ != nullptr) sink_->update(begin_ + (end_ - begin_) * std::clamp(done, 0.0, 1.0), stage_);
  }

  // The share [begin, end] of this part, named `stage` (empty: this part's name), for a sub-step.
  [[nodiscard]] Progress part(double begin, double end, std::string_view stage = {}) const noexcept {
    Progress sub = *this;
    sub.begin_ = begin_ + (end_ - begin_) * std::clamp(begin, 0.0, 1.0);
    sub.end_ = begin_ + (end_ - begin_) * std::clamp(std::max(begin, end), 0.0, 1.0);
    if (!stage.empty()) sub.stage_ = stage;
    return sub;
  }

 private:
  std::stop_token stop_;
  ProgressSink* sink_ = nullptr;
  std::string_view stage_;
  double begin_ = 0.0, end_ = 1.0;
};

// "<what> cancelled: nothing was changed". An Error::file (exit 3 should a headless caller ever
// cancel): the job stopped before it read or wrote what was asked.
inline Error cancelled_error(std::string_view what) {
  return Error::file(std::string(what) + " cancelled: nothing was changed");
}

}  // namespace smlab
