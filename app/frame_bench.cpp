// The headless frame-time harness behind --bench-frames.
#include "frame_bench.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

namespace smlab::app {
namespace {

// Set during static initialisation, before main(): "start" for first_frame_ms.
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(values.size()))) - 1;
  return values[std::min(index, values.size() - 1)];
}

}  // namespace

std::string FrameBenchResult::to_json() const {
  char line[400];
  std::snprintf(line, sizeof line,
                "{\"frames\":%d,\"median_frame_ms\":%.3f,\"p95_frame_ms\":%.3f,\"median_recompute_ms\":%.3f,"
                "\"max_blocked_ms\":%.3f,\"first_frame_ms\":%.1f,\"first_map_ms\":%.1f,\"settle_ms\":%.1f,"
                "\"peak_rss_mib\":%.1f}",
                frames, median_frame_ms, p95_frame_ms, median_recompute_ms, max_blocked_ms, first_frame_ms,
                first_map_ms, settle_ms, peak_rss_mib);
  return line;
}

FrameBenchResult run_frame_bench(App& app, const std::string& key, int frames, std::string& error) {
  // The sweep: geometric for the log sliders, linear for the row, over a typical drag range.
  double from = 0.0, to = 0.0;
  bool geometric = true;
  if (key == "temperature") {
    from = 0.05, to = 20.0;
  } else if (key == "score_scale") {
    from = 0.1, to = 10.0;
  } else if (key == "d_k") {
    from = 1.0, to = 1024.0;
  } else if (key == "row") {
    from = 0.0, to = app.ui().params.seq_len - 1.0;
    geometric = false;
  } else {
    error = "--bench-key '" + key + "' is not allowed: temperature, score_scale, d_k or row";
    return {};
  }
  do {
    app.frame();
  } while (!app.showing_snapshot());
  FrameBenchResult result;
  result.first_frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - process_start).count();
  while (!app.showing_maps()) app.frame();
  result.first_map_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - process_start).count();
  app.wait_for_snapshot();
  app.frame();
  std::vector<double> frame_ms, recompute_ms;
  const int half = std::max(frames / 2, 1);
  for (int frame = 0; frame < frames; ++frame) {
    // Back and forth, so a long run keeps moving instead of parking at one end.
    const double phase = static_cast<double>(frame % (2 * half)) / half;
    const double t = phase <= 1.0 ? phase : 2.0 - phase;
    const double value = geometric ? from * std::pow(to / from, t) : from + (to - from) * t;
    Params moved = app.ui().params;
    if (key == "temperature") moved.temperature = value;
    if (key == "score_scale") moved.score_scale = value;
    if (key == "d_k") moved.key_dim = static_cast<int>(std::lround(value));
    if (key == "row") moved.row = static_cast<int>(std::lround(value));
    apply_params(app.ui(), moved);
    app.frame();
    const App::FrameTiming& timing = app.last_timing();
    frame_ms.push_back(timing.frame_ms);
    recompute_ms.push_back(timing.recompute_ms);
    result.max_blocked_ms = std::max(result.max_blocked_ms, timing.blocked_ms);
  }
  // A settled drag: one more step, then frames until that Params' maps are on screen.
  {
    Params moved = app.ui().params;
    if (key == "temperature") moved.temperature = from * 1.5;
    if (key == "score_scale") moved.score_scale = from * 1.5;
    if (key == "d_k") moved.key_dim = static_cast<int>(from) + 1;
    if (key == "row") moved.row = 1;
    const auto start = std::chrono::steady_clock::now();
    if (apply_params(app.ui(), moved)) {
      do {
        app.frame();
      } while (!(app.showing_maps() && app.shown_params() == moved));
    }
    result.settle_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  }
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) == 0) result.peak_rss_mib = static_cast<double>(usage.ru_maxrss) / 1024.0;  // KiB
  result.frames = frames;
  result.median_frame_ms = percentile(frame_ms, 0.5);
  result.p95_frame_ms = percentile(frame_ms, 0.95);
  result.median_recompute_ms = percentile(recompute_ms, 0.5);
  return result;
}

}  // namespace smlab::app
