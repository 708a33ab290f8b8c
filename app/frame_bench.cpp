// The headless frame-time harness behind --bench-frames, and the slider-to-pixels latency
// harness behind --bench-latency.
#include "frame_bench.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include "smlab/evaluate.hpp"

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
                "\"median_blocked_ms\":%.3f,\"max_blocked_ms\":%.3f,\"first_frame_ms\":%.1f,\"first_map_ms\":%.1f,"
                "\"settle_ms\":%.1f,"
                "\"peak_rss_mib\":%.1f}",
                frames, median_frame_ms, p95_frame_ms, median_recompute_ms, median_blocked_ms, max_blocked_ms,
                first_frame_ms, first_map_ms, settle_ms, peak_rss_mib);
  return line;
}

Result<FrameBenchResult> run_frame_bench(App& app, const std::string& key, int frames) {
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
    return Error::usage("--bench-key '" + key.substr(0, 40) + "' is not allowed: temperature, score_scale, d_k or row");
  }
  do {
    app.frame();
  } while (!app.showing_snapshot());
  FrameBenchResult result;
  result.first_frame_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - process_start).count();
  while (!app.showing_maps()) app.frame();
  result.first_map_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - process_start).count();
  app.wait_for_snapshot();
  app.frame();
  std::vector<double> frame_ms, recompute_ms, blocked_ms;
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
    blocked_ms.push_back(timing.blocked_ms);
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
  result.median_blocked_ms = percentile(blocked_ms, 0.5);
  return result;
}

namespace {

// The custom score vector's starting values: deterministic, spread like scaled scores.
std::vector<double> custom_start(int length) {
  std::vector<double> scores(static_cast<std::size_t>(length));
  for (int j = 0; j < length; ++j) scores[static_cast<std::size_t>(j)] = 3.0 * std::sin(0.37 * j);
  return scores;
}

// Step `step` of `slider` from `base` (the values bench/matplotlib_peer.py's Figure.move gives).
Params moved_params(const Params& current, const Params& base, const std::string& slider, int step) {
  Params moved = current;
  if (slider == "temperature") moved.temperature = 0.05 * std::pow(20.0 / 0.05, (step % 9) / 8.0);
  if (slider == "score_scale") moved.score_scale = 0.1 * std::pow(10.0 / 0.1, (step % 9) / 8.0);
  if (slider == "d_k") moved.key_dim = base.key_dim + (step + 1) % 2;
  if (slider == "seq_len") moved.seq_len = base.seq_len - (step + 1) % 2;
  if (slider == "scaled") moved.scaled = !current.scaled;
  if (slider == "row") moved.row = (step * 7919 + 1) % current.seq_len;
  if (slider == "custom_scores") {
    if (moved.scores.empty()) moved.scores = custom_start(current.seq_len);
    moved.scores[static_cast<std::size_t>(step) % moved.scores.size()] += 1.0;
  }
  if (moved.row >= moved.seq_len) moved.row = moved.seq_len - 1;
  return moved;
}

double since_ms(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

std::string LatencyBenchResult::to_json() const {
  std::string json = "{\"L\":" + std::to_string(seq_len) + ",\"d_k\":" + std::to_string(key_dim) + ",\"sliders\":[";
  for (const SliderLatency& s : sliders) {
    char entry[600];
    std::snprintf(entry, sizeof entry,
                  "%s{\"slider\":\"%s\",\"steps\":%d,\"first_median_ms\":%.3f,\"first_p95_ms\":%.3f,"
                  "\"final_median_ms\":%.3f,\"final_p95_ms\":%.3f,\"median_frame_ms\":%.3f,\"p95_frame_ms\":%.3f,"
                  "\"max_frame_ms\":%.3f,\"first_compute_median_ms\":%.3f,\"final_compute_median_ms\":%.3f}",
                  &s == sliders.data() ? "" : ",", s.slider.c_str(), s.steps, s.first_median_ms, s.first_p95_ms,
                  s.final_median_ms, s.final_p95_ms, s.median_frame_ms, s.p95_frame_ms, s.max_frame_ms,
                  s.first_compute_median_ms, s.final_compute_median_ms);
    json += entry;
  }
  return json + "]}";
}

Result<LatencyBenchResult> run_latency_bench(App& app, const std::string& key, int steps) {
  std::vector<std::string> sliders;
  for (const char* slider : latency_sliders)
    if (key.empty() || key == slider) sliders.emplace_back(slider);
  if (sliders.empty()) {
    std::string allowed;
    for (const char* slider : latency_sliders) allowed += (allowed.empty() ? "" : ", ") + std::string(slider);
    return Error::usage("--bench-key '" + key.substr(0, 40) + "' is not allowed with --bench-latency: " + allowed);
  }
  const Params base = app.ui().params;
  // No refinement beyond the first estimate: each step starts from rest, with nothing else running.
  app.evaluator().set_refine_limit(automatic_dk_trials(std::min(base.seq_len, ParamLimits::seq_len_max)));
  // Warm-up, not timed: one step of every slider, so first-use costs (glyphs, texture sizes,
  // llvmpipe's shader variants, page faults of new buffers) are not charged to the first slider.
  for (const char* slider : latency_sliders) {
    for (int step = 0; step < 2; ++step) {
      apply_params(app.ui(), moved_params(app.ui().params, base, slider, step));
      app.wait_for_snapshot();
      app.frame();
      app.frame();
    }
    apply_params(app.ui(), base);
  }
  LatencyBenchResult result;
  result.seq_len = base.seq_len;
  result.key_dim = base.key_dim;
  for (const std::string& slider : sliders) {
    apply_params(app.ui(), base);
    std::vector<double> first_ms, final_ms, frame_ms, first_compute_ms, final_compute_ms;
    for (int step = 0; step < steps; ++step) {
      app.wait_for_snapshot();
      app.frame();  // at rest: the shown Snapshot is the complete one of the current Params
      const Params moved = moved_params(app.ui().params, base, slider, step);
      const auto input = std::chrono::steady_clock::now();
      if (!apply_params(app.ui(), moved)) continue;
      double first = -1.0;
      for (;;) {
        const auto frame_start = std::chrono::steady_clock::now();
        app.frame();  // ends with glFinish (platform::OffscreenSurface::end_frame)
        frame_ms.push_back(since_ms(frame_start));
        const bool shown = app.shown_params() == moved;
        if (shown && first < 0.0) first = since_ms(input);
        if (shown && app.showing_complete() && app.showing_maps()) break;
        if (since_ms(input) > 60'000.0) {
          return Error::usage("--bench-latency: " + slider + " step " + std::to_string(step) +
                              " showed no result within 60 s");
        }
      }
      first_ms.push_back(first);
      final_ms.push_back(since_ms(input));
      first_compute_ms.push_back(app.evaluator().last_first_result_ms());
      final_compute_ms.push_back(app.evaluator().last_compute_ms());
    }
    SliderLatency line;
    line.slider = slider;
    line.steps = static_cast<int>(first_ms.size());
    line.first_median_ms = percentile(first_ms, 0.5);
    line.first_p95_ms = percentile(first_ms, 0.95);
    line.final_median_ms = percentile(final_ms, 0.5);
    line.final_p95_ms = percentile(final_ms, 0.95);
    line.median_frame_ms = percentile(frame_ms, 0.5);
    line.p95_frame_ms = percentile(frame_ms, 0.95);
    line.first_compute_median_ms = percentile(first_compute_ms, 0.5);
    line.final_compute_median_ms = percentile(final_compute_ms, 0.5);
    line.max_frame_ms = frame_ms.empty() ? 0.0 : *std::max_element(frame_ms.begin(), frame_ms.end());
    result.sliders.push_back(line);
  }
  apply_params(app.ui(), base);
  return result;
}

}  // namespace smlab::app
