// Offscreen renders of an App: a scaled screenshot of a fresh one, and the GIF sweep's render loop
// (one App frame per sweep value, captured into a GifWriter).
#include "offscreen_app.hpp"

#include "platform/offscreen.hpp"

namespace smlab::app {

ScaledShot render_scaled_screenshot(const AppOptions& options, int width, int height, float scale, float content_scale,
                                    std::string_view panel) {
  platform::OffscreenOptions offscreen_options;
  offscreen_options.width = width;
  offscreen_options.height = height;
  offscreen_options.framebuffer_scale = scale;
  offscreen_options.content_scale = content_scale;
  auto created = platform::Offscreen::create(offscreen_options);
  if (!created) return created.error();
  {
    App app(**created, options);
    app.wait_for_snapshot();
    for (int frame = 0; frame < scaled_screenshot_frames; ++frame) app.frame();
    const Image image = (*created)->capture();
    const ImVec2 display(static_cast<float>(width), static_cast<float>(height));
    const Result<PanelRect> rect = panel_or_error(app.ui(), display, panel, "panel");
    if (!rect) return rect.error();
    return panel.empty() || panel == "window" ? image : crop_image(image, *rect, scale);
  }
}

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
