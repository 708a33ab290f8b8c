// The headless frame-time harness behind --bench-frames, and the slider-to-pixels latency
// harness behind --bench-latency.
//
// [SECTION] Index
//   [SECTION] Memory, percentiles and the busy load
//   [SECTION] --bench-frames
//   [SECTION] --bench-latency
#include "frame_bench.hpp"

#include <pthread.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <vector>

#include "smlab/evaluate.hpp"

namespace smlab::app {
namespace {

// [SECTION] Memory, percentiles and the busy load

// Set during static initialisation, before main(): "start" for first_frame_ms.
const std::chrono::steady_clock::time_point process_start = std::chrono::steady_clock::now();

double peak_rss_mib() {
  rusage usage{};
  return getrusage(RUSAGE_SELF, &usage) == 0 ? static_cast<double>(usage.ru_maxrss) / 1024.0 : 0.0;  // KiB
}

// Starts a new peak-RSS interval (Linux: "5" to /proc/self/clear_refs resets VmHWM to the current
// RSS); false where that is not possible.
bool reset_peak_rss() {
  std::FILE* file = std::fopen("/proc/self/clear_refs", "w");
  if (file == nullptr) return false;
  const bool written = std::fputs("5", file) >= 0;
  return std::fclose(file) == 0 && written;
}

// VmHWM of /proc/self/status in MiB: the peak since the last reset_peak_rss; 0 if unreadable.
double peak_rss_since_reset_mib() {
  std::FILE* file = std::fopen("/proc/self/status", "r");
  if (file == nullptr) return 0.0;
  char line[256];
  long kib = 0;
  while (std::fgets(line, sizeof line, file) != nullptr)
    if (std::sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
  std::fclose(file);
  return static_cast<double>(kib) / 1024.0;
}

}  // namespace

double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0.0;
  std::sort(values.begin(), values.end());
  const auto index = static_cast<std::size_t>(std::ceil(fraction * static_cast<double>(values.size()))) - 1;
  return values[std::min(index, values.size() - 1)];
}

BusyLoad::BusyLoad(int threads) {
  for (int i = 0; i < threads; ++i) {
    threads_.emplace_back([](std::stop_token stop) {
      // Arithmetic the compiler cannot drop, with a look at the stop flag between rounds.
      volatile double sink = 1.0;
      while (!stop.stop_requested())
        for (int k = 0; k < 10'000; ++k) sink = sink * 1.0000001 + 1e-9;
    });
    pthread_setname_np(threads_.back().native_handle(), "smlab-busy");
  }
}

BusyLoad::~BusyLoad() {
  for (std::jthread& thread : threads_) thread.request_stop();
}

// [SECTION] --bench-frames

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
  result.peak_rss_mib = peak_rss_mib();
  result.frames = frames;
  result.median_frame_ms = percentile(frame_ms, 0.5);
  result.p95_frame_ms = percentile(frame_ms, 0.95);
  result.median_recompute_ms = percentile(recompute_ms, 0.5);
  result.median_blocked_ms = percentile(blocked_ms, 0.5);
  return result;
}

// [SECTION] --bench-latency

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
  std::string json = "{\"L\":" + std::to_string(seq_len) + ",\"d_k\":" + std::to_string(key_dim) +
                     ",\"load_threads\":" + std::to_string(load_threads) + ",\"sliders\":[";
  for (const SliderLatency& s : sliders) {
    char entry[800];
    std::snprintf(entry, sizeof entry,
                  "%s{\"slider\":\"%s\",\"steps\":%d,\"first_median_ms\":%.3f,\"first_p95_ms\":%.3f,"
                  "\"final_median_ms\":%.3f,\"final_p95_ms\":%.3f,\"mc_final_median_ms\":%.3f,\"mc_final_p95_ms\":%.3f,"
                  "\"median_frame_ms\":%.3f,\"p95_frame_ms\":%.3f,"
                  "\"max_frame_ms\":%.3f,\"first_compute_median_ms\":%.3f,\"final_compute_median_ms\":%.3f,\"peak_rss_"
                  "mib\":%.1f,\"plots\":{",
                  &s == sliders.data() ? "" : ",", s.slider.c_str(), s.steps, s.first_median_ms, s.first_p95_ms,
                  s.final_median_ms, s.final_p95_ms, s.mc_final_median_ms, s.mc_final_p95_ms, s.median_frame_ms,
                  s.p95_frame_ms, s.max_frame_ms, s.first_compute_median_ms, s.final_compute_median_ms, s.peak_rss_mib);
    json += entry;
    for (std::size_t p = 0; p < latency_plots.size(); ++p) {
      std::snprintf(entry, sizeof entry, "%s\"%s\":{\"median_ms\":%.3f,\"p95_ms\":%.3f}", p == 0 ? "" : ",",
                    latency_plots[p], s.plots[p].median_ms, s.plots[p].p95_ms);
      json += entry;
    }
    json += "}}";
  }
  char tail[64];
  std::snprintf(tail, sizeof tail, "],\"peak_rss_mib\":%.1f}", peak_rss_mib);
  return json + tail;
}

namespace {

// Whether `plot` of the frame just drawn shows the final picture of `moved`: its Params shown, and
// the part of the Snapshot it draws complete (Evaluator::Latest's pending flags).
bool plot_final(const App& app, const Params& moved, std::string_view plot) {
  const Evaluator::Latest& shown = app.shown_latest();
  if (shown.snapshot == nullptr || shown.snapshot->params != moved) return false;
  if (plot == "entropy_t") return !shown.entropy_curve_pending;
  if (plot == monte_carlo_plot) return !shown.monte_carlo_pending;
  if (plot == "attention_scaled" || plot == "attention_unscaled") return !shown.maps_pending && app.showing_maps();
  return true;  // the row's plots: final in the first result
}

}  // namespace

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
    // Back at the base Params before the slider's peak RSS starts: wait_for_snapshot holds the
    // UI's old Snapshot while the worker makes the new one, which no window does (it keeps
    // drawing and lets the old one go with the first result), so that return is not charged.
    app.wait_for_snapshot();
    app.frame();
    std::vector<double> first_ms, final_ms, mc_final_ms, frame_ms, first_compute_ms, final_compute_ms;
    std::array<std::vector<double>, latency_plots.size()> plot_ms;
    const bool peak_reset = reset_peak_rss();
    for (int step = 0; step < steps; ++step) {
      app.wait_for_snapshot();
      app.frame();  // at rest: the shown Snapshot is the complete one of the current Params
      const Params moved = moved_params(app.ui().params, base, slider, step);
      const auto input = std::chrono::steady_clock::now();
      if (!apply_params(app.ui(), moved)) continue;
      double first = -1.0, final = -1.0;
      std::array<double, latency_plots.size()> plot_final_ms;
      plot_final_ms.fill(-1.0);
      for (;;) {
        const auto frame_start = std::chrono::steady_clock::now();
        app.frame();  // ends with glFinish (platform::OffscreenSurface::end_frame)
        frame_ms.push_back(since_ms(frame_start));
        const bool shown = app.shown_params() == moved;
        const double now = since_ms(input);
        if (shown && first < 0.0) first = now;
        bool all_but_monte_carlo = true;
        for (std::size_t p = 0; p < latency_plots.size(); ++p) {
          if (plot_final_ms[p] < 0.0 && plot_final(app, moved, latency_plots[p])) plot_final_ms[p] = now;
          if (plot_final_ms[p] < 0.0 && std::string_view(latency_plots[p]) != monte_carlo_plot)
            all_but_monte_carlo = false;
        }
        if (final < 0.0 && all_but_monte_carlo) final = now;
        if (shown && app.showing_complete() && app.showing_maps()) break;
        if (since_ms(input) > 60'000.0) {
          return Error::usage("--bench-latency: " + slider + " step " + std::to_string(step) +
                              " showed no result within 60 s");
        }
      }
      const double complete = since_ms(input);
      first_ms.push_back(first);
      final_ms.push_back(final < 0.0 ? complete : final);
      for (std::size_t p = 0; p < latency_plots.size(); ++p)
        plot_ms[p].push_back(plot_final_ms[p] < 0.0 ? complete : plot_final_ms[p]);
      const auto monte_carlo =
          std::find(latency_plots.begin(), latency_plots.end(), std::string_view(monte_carlo_plot));
      mc_final_ms.push_back(plot_ms[static_cast<std::size_t>(monte_carlo - latency_plots.begin())].back());
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
    line.mc_final_median_ms = percentile(mc_final_ms, 0.5);
    line.mc_final_p95_ms = percentile(mc_final_ms, 0.95);
    for (std::size_t p = 0; p < latency_plots.size(); ++p)
      line.plots[p] = {percentile(plot_ms[p], 0.5), percentile(plot_ms[p], 0.95)};
    line.median_frame_ms = percentile(frame_ms, 0.5);
    line.p95_frame_ms = percentile(frame_ms, 0.95);
    line.first_compute_median_ms = percentile(first_compute_ms, 0.5);
    line.final_compute_median_ms = percentile(final_compute_ms, 0.5);
    line.max_frame_ms = frame_ms.empty() ? 0.0 : *std::max_element(frame_ms.begin(), frame_ms.end());
    line.peak_rss_mib = peak_reset ? peak_rss_since_reset_mib() : peak_rss_mib();
    result.peak_rss_mib = std::max(result.peak_rss_mib, line.peak_rss_mib);
    result.sliders.push_back(line);
  }
  apply_params(app.ui(), base);
  return result;
}

}  // namespace smlab::app
