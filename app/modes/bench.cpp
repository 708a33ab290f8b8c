// --bench-frames N and --bench-latency N: the headless benchmarks (docs/PERFORMANCE.md), one JSON
// line each, with --bench-load N busy threads beside them.
#include <cstdio>
#include <iterator>

#include "frame/frame_bench.hpp"
#include "modes/modes.hpp"
#include "export/training_export.hpp"

namespace smlab::app {

Result<void> run_bench(const Options& o, AppOptions options) {
  // The training lab as the view: every frame's recompute trains it again.
  if (options.view == View::training)
    if (Result<void> trainable = exporting::check_training(options.params.training, o.bench_frames); !trainable)
      return trainable;
  auto created = create_offscreen(o.size, o.full_redraw);
  if (!created) return created.error();
  App app(**created, options);
  const BusyLoad load(o.bench_load);
  const auto result = run_frame_bench(app, o.bench_key, o.bench_frames);
  if (!result) return result.error();
  std::printf("%s\n", result->to_json().c_str());
  return {};
}

// Slider-to-pixels latency: every slider unless --bench-key names one.
Result<void> run_bench_latency(const Options& o, AppOptions options) {
  // Each step of each slider (two warm-up steps each too) trains the lab again when it is the view.
  const int sliders = o.bench_key_given ? 1 : static_cast<int>(std::size(latency_sliders));
  if (options.view == View::training)
    if (Result<void> trainable = exporting::check_training(options.params.training, (o.bench_latency + 2) * sliders);
        !trainable)
      return trainable;
  auto created = create_offscreen(o.size, o.full_redraw);
  if (!created) return created.error();
  App app(**created, options);
  const BusyLoad load(o.bench_load);
  auto result = run_latency_bench(app, o.bench_key_given ? o.bench_key : "", o.bench_latency);
  if (!result) return result.error();
  result->load_threads = o.bench_load;
  std::printf("%s\n", result->to_json().c_str());
  return {};
}

}  // namespace smlab::app
