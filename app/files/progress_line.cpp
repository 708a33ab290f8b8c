// ProgressLine (progress_line.hpp): the throttled, in-place progress line on stderr.
#include "files/progress_line.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>

#include "files/atomic_file.hpp"

namespace smlab::app {

ProgressLine::ProgressLine(std::string what, std::FILE* stream, bool always, std::chrono::milliseconds quiet,
                           std::chrono::milliseconds redraw)
    : what_(std::move(what)),
      stream_(stream),
      enabled_(always || ::isatty(::fileno(stream)) == 1),
      quiet_(quiet),
      redraw_(redraw),
      start_(std::chrono::steady_clock::now()) {}

ProgressLine::~ProgressLine() { done(); }

void ProgressLine::update(double fraction, std::string_view stage) noexcept {
  if (!enabled_) return;
  try {
    const std::lock_guard lock(mutex_);
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < quiet_) return;
    const int percent = static_cast<int>(std::floor(std::clamp(fraction, 0.0, 1.0) * 100.0));
    // A stage that differs only in its numbers ("training: step 41 of 500") is the same stage
    // going on: throttled like a new percentage, not redrawn at every step.
    const auto without_digits = [](std::string_view text) {
      std::string kept;
      for (const char c : text)
        if (c < '0' || c > '9') kept += c;
      return kept;
    };
    const bool new_stage = without_digits(stage) != without_digits(last_stage_);
    const bool new_text = stage != last_stage_ || percent != last_percent_;
    // Throttled: a new stage at once, else a new percentage or count at most every redraw_.
    if (drawn_ && !new_stage && (!new_text || now - last_draw_ < redraw_)) return;
    last_stage_.assign(stage);
    last_percent_ = percent;
    last_draw_ = now;
    const std::string_view name = stage.empty() ? std::string_view(what_) : stage;
    // Ctrl+C is the way out of a headless run: it removes the temporaries (atomic_file.hpp).
    std::fprintf(stream_, "\rsoftmax-lab: %.*s %3d%% (Ctrl+C stops)\033[K", static_cast<int>(name.size()), name.data(),
                 percent);
    std::fflush(stream_);
    if (!drawn_) files::note_progress_line(true);
    drawn_ = true;
  } catch (...) {  // a progress line is never worth an exception (e.g. out of memory for the stage)
  }
}

void ProgressLine::done() noexcept {
  const std::lock_guard lock(mutex_);
  if (!drawn_) return;
  std::fputs("\r\033[K", stream_);
  std::fflush(stream_);
  files::note_progress_line(false);
  drawn_ = false;
  last_percent_ = -1;
}

}  // namespace smlab::app
