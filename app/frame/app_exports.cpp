// The App's side of the background work the window shows: the exports (window_exports.hpp) and the
// import (window_import.hpp) as one list of rows with Cancel buttons, and the state an export's
// offscreen copy of the App draws.
#include "app.hpp"
#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"

namespace smlab::app {

std::vector<ShownJob> App::background_progress() const {
  std::vector<ShownJob> shown;
  const double now = surface_.time_seconds();
  // An import running behind a closed Import dialog (the dialog shows its own).
  if (std::optional<JobProgress> import = import_.background_progress(now))
    shown.push_back({ShownJob::Kind::import, 0, std::move(*import)});
  exports_.append_rows(shown, now, ui_.interaction);
  return shown;
}

void App::draw_background_progress() {
  const std::vector<ShownJob> shown = background_progress();
  std::vector<JobProgress> rows;
  for (const ShownJob& job : shown) rows.push_back(job.progress);
  if (const std::optional<std::size_t> cancelled = draw_background_work(rows)) cancel_background(shown[*cancelled]);
}

void App::cancel_background(const ShownJob& job) {
  if (job.kind == ShownJob::Kind::import)
    cancel_import();  // asks its thread to stop: nothing changes in this frame
  else
    exports_.cancel_later(job);  // after the frame
}

AppOptions App::offscreen_options() const {
  AppOptions options;
  options.params = ui_.params;
  options.view = ui_.view;
  options.screenshot_dir = ui_.screenshot_dir;
  options.font_pixels = look_.font_pixels();
  options.refine_trials = headless_refine_trials(ui_.params.seq_len);
  options.presets = ui_.presets;
  options.theme = ui_.theme;
  options.font_scale = ui_.font_scale;
  options.language = look_.language();  // the copy draws in the language this window shows
  options.colormap = ui_.interaction.colormap;
  options.lessons = ui_.lessons;  // an open lesson's panel and highlight are in the picture too
  options.lesson = ui_.lesson.open;
  if (options.lesson) options.lesson->guess = ui_.lesson.guess;
  options.lesson_revealed = ui_.lesson.revealed;
  options.pins = ui_.pins.pins;
  options.presenter = ui_.presenter;
  options.controls_shown = ui_.controls_shown;
  options.training_shown = training_picture();  // the training lab as this window shows it
  return options;
}

}  // namespace smlab::app
