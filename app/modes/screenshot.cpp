// --screenshot FILE.png: EGL surfaceless rendering into an offscreen framebuffer, saved as PNG (the
// window, or one panel with --panel), at --scale times the pixels.
#include <cstdio>
#include <filesystem>

#include "files/atomic_file.hpp"
#include "files/printable.hpp"
#include "files/progress_line.hpp"
#include "export/png.hpp"
#include "modes/modes.hpp"
#include "frame/offscreen_app.hpp"
#include "export/training_export.hpp"

namespace smlab::app {

Result<void> run_screenshot(const Options& o, AppOptions options) {
  const std::filesystem::path target(o.screenshot_path);
  if (Result<void> checked = files::check_target(target, o.overwrite); !checked) return checked;
  if (options.view == View::training)
    if (Result<void> trainable = exporting::check_training(options.params.training); !trainable) return trainable;
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  platform::Offscreen& surface = **created;
  // --scale: the same layout with 2× or 4× the pixels; the App rasterises its fonts to match.
  if (Result<void> resized = surface.resize(o.size.width, o.size.height, static_cast<float>(o.shot_scale)); !resized)
    return Error{resized.error().kind, "--scale " + o.scale_text + " with --size " + o.size_text +
                                           " is too large: " + resized.error().message};
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  // The training lab on screen: trained here, its cost checked first and its progress shown, and
  // drawn as the frozen picture a window's copy draws (the same numbers as the evaluator's lab).
  ProgressLine progress("screenshot");
  if (options.view == View::training) {
    auto lab = exporting::train_lab(options.params.training, &progress);
    if (!lab) return lab.error();
    options.training_shown = std::move(*lab);
    progress.done();
  }
  App app(surface, options);
  if (!app.font_warning().empty()) warn(app.font_warning());
  if (!app.language_warning().empty()) warn(app.language_warning());
  app.wait_for_snapshot();
  // Two frames let ImGui settle auto-sized items; the third is the one saved.
  for (int frame = 0; frame < 3; ++frame) app.frame();
  Image image = surface.capture();
  if (!o.panel_name.empty()) {
    const ImVec2 display(static_cast<float>(o.size.width), static_cast<float>(o.size.height));
    const Result<PanelRect> rect = panel_or_error(app.ui(), display, o.panel_name, "--panel");
    if (!rect) return rect.error();
    image = crop_image(image, *rect, static_cast<float>(o.shot_scale));
    if (image.pixels.empty())  // laid out below the window's edge (the view scrolls there)
      return Error::usage("--panel '" + o.panel_name.substr(0, 40) + "' is not on screen at --size " + o.size_text +
                          ": the view scrolls to it; give a larger --size");
  }
  if (Result<void> written = exporting::write_png(target, image, o.overwrite); !written) return written;
  std::printf("%s\n", escaped_path(o.screenshot_path).c_str());
  return {};
}

}  // namespace smlab::app
