// The GIF sweep's render loop: one App frame per sweep value, captured into a GifWriter.
#include "gif_sweep.hpp"

namespace smlab::app {

Result<void> render_sweep(App& app, platform::Surface& surface, const SweepSpec& spec, int frames,
                          exporting::GifWriter& writer, ProgressSink* progress) {
  const std::string of = " of " + std::to_string(frames);
  for (int index = 0; index < frames; ++index) {
    if (progress != nullptr)
      progress->update(static_cast<double>(index) / frames, "rendering frame " + std::to_string(index + 1) + of);
    const std::string value = sweep_value(spec, index, frames);
    if (Result<void> set = set_param(app.ui().params, spec.key, value); !set.ok()) return set;
    app.ui().scores_text = format_scores(app.ui().params.scores);
    app.wait_for_snapshot();
    // The first frame lets ImGui settle auto-sized items (like --screenshot); later frames need one.
    for (int pass = 0; pass < (index == 0 ? 3 : 1); ++pass) app.frame();
    if (Result<void> added = writer.add_frame(surface.capture()); !added.ok()) return added;
  }
  return {};
}

}  // namespace smlab::app
