// The headless face of progress.hpp: one line on stderr that updates in place ("softmax-lab:
// reading q.npy 42%"), shown only for work that has taken more than a second, and only when stderr
// is a terminal (a log or a test that reads stderr gets its one-line errors and nothing else).
#pragma once

#include <chrono>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>

#include "smlab/progress.hpp"

namespace smlab::app {

class ProgressLine final : public ProgressSink {
 public:
  static constexpr std::chrono::milliseconds quiet_time{1000}, redraw_interval{100};

  // `what` names the job when a stage has no name ("import", "export"). `stream`: stderr, or a
  // test's file; `always` shows the line even when `stream` is not a terminal, and `quiet` is how
  // long the job runs before the line appears (tests: 0), `redraw` the least time between two
  // draws of one stage (tests: an hour, so that only a new stage is drawn).
  explicit ProgressLine(std::string what, std::FILE* stream = stderr, bool always = false,
                        std::chrono::milliseconds quiet = quiet_time,
                        std::chrono::milliseconds redraw = redraw_interval);
  ~ProgressLine();  // clears the line (done())
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Thread-safe and quick: after the first second, redraws at most every 100 ms (and on a new
  // stage; a stage whose text differs only in its digits, a count such as "step 41 of 500", is the
  // same stage), as "\r<text>\033[K".
  void update(double fraction, std::string_view stage) noexcept override;
  // Clears the line, if one was drawn, so what follows starts at column 0. Idempotent.
  void done() noexcept;
  // A Progress reporting here, with no cancellation (headless runs stop on signals).
  [[nodiscard]] Progress progress() { return Progress({}, this); }

 private:
  std::mutex mutex_;
  std::string what_, last_stage_;
  std::FILE* stream_;
  bool enabled_;
  bool drawn_ = false;
  int last_percent_ = -1;
  std::chrono::milliseconds quiet_, redraw_;
  std::chrono::steady_clock::time_point start_, last_draw_{};
};

}  // namespace smlab::app
