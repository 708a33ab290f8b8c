// --bench-frames N --train TASK: the training lab drawn N frames while its Trainer trains on the
// worker thread, as in the window (docs/TRAINING.md, "The lab in the app"); one JSON line: frame
// times, the training's steps per second and steps done, and when run A's accuracy (the mean of
// its last 20 batches) first reached 99 %.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "export/training_export.hpp"
#include "frame/frame_bench.hpp"
#include "modes/modes.hpp"

namespace smlab::app {

Result<void> run_train_bench(const Options& o, AppOptions options) {
  // The lab trains live as the frames go, so only whether its runs can be made is checked: a lab
  // that cannot train is an error here as in every headless mode, not a bench of nothing.
  if (Result<void> trainable = exporting::check_training(options.params.training, 0); !trainable) return trainable;
  options.live_training = true;
  options.train_at_start = true;  // the bench measures frames while the lab trains
  // Without --steps, the runs keep training through every frame of the bench.
  const auto sets_steps = [](const std::vector<std::string>& assignments) {
    return std::any_of(assignments.begin(), assignments.end(),
                       [](const std::string& a) { return a.starts_with("train_steps="); });
  };
  if (!sets_steps(o.start.assignments) && !sets_steps(o.start.task_assignments))
    options.params.training.steps = TrainingLimits::steps_max;
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  App app(**created, options);
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  std::vector<double> frame_ms, training_frame_ms;
  double seconds_to_99 = -1.0, steps_per_second = 0.0;
  int steps_at_99 = -1;
  for (int frame = 0; frame < o.bench_frames; ++frame) {
    app.frame();
    frame_ms.push_back(app.last_timing().frame_ms);
    if (app.ui().training.running) training_frame_ms.push_back(app.last_timing().frame_ms);
    const Trainer::Published published = app.trainer()->latest();
    if (published.running && published.steps_per_second > 0.0) steps_per_second = published.steps_per_second;
    if (seconds_to_99 < 0.0 && published.lab != nullptr && !published.lab->runs.empty() &&
        published.lab->steps_done >= TrainingLimits::window && published.lab->runs.front().final_accuracy >= 0.99) {
      seconds_to_99 = std::chrono::duration<double>(Clock::now() - start).count();
      steps_at_99 = published.lab->steps_done;
    }
  }
  const Trainer::Published last = app.trainer()->latest();
  const int steps = last.lab != nullptr ? last.lab->steps_done : 0;
  const int runs =
      last.lab != nullptr ? static_cast<int>(last.lab->runs.size()) * std::max(1, options.params.training.seeds) : 0;
  const double seconds = std::chrono::duration<double>(Clock::now() - start).count();
  std::string error;  // as a JSON string's body
  for (char c : last.error) error += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  std::printf(
      "{\"frames\":%d,\"median_frame_ms\":%.3f,\"p95_frame_ms\":%.3f,\"training_frames\":%d,"
      "\"training_p95_frame_ms\":%.3f,\"seconds\":%.2f,\"runs\":%d,\"steps_done\":%d,\"steps_per_second\":%.1f,"
      "\"seconds_to_99\":%.3f,\"steps_at_99\":%d%s%s%s}\n",
      static_cast<int>(frame_ms.size()), percentile(frame_ms, 0.5), percentile(frame_ms, 0.95),
      static_cast<int>(training_frame_ms.size()), percentile(training_frame_ms, 0.95), seconds, runs, steps,
      steps_per_second, seconds_to_99, steps_at_99, error.empty() ? "" : ",\"error\":\"", error.c_str(),
      error.empty() ? "" : "\"");
  return {};
}

}  // namespace smlab::app
