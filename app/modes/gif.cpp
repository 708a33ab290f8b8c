// --export-gif FILE.gif --sweep KEY=FROM:TO[:log]: an animated GIF of a slider sweep, rendered
// offscreen, with a progress line ("rendering frame N of M"). When the training lab is the view, its
// training is checked first: trained once and shown on every frame, or, when the sweep moves a
// train_* key, trained again for each frame, so the cost of all the frames is checked.
#include <cstdio>
#include <filesystem>
#include <vector>

#include "export/gif.hpp"
#include "files/atomic_file.hpp"
#include "files/printable.hpp"
#include "files/progress_line.hpp"
#include "frame/offscreen_app.hpp"
#include "modes/modes.hpp"
#include "export/training_export.hpp"

namespace smlab::app {

Result<void> run_gif(const Options& o, AppOptions options) {
  // The sweep's range is checked against the Params it starts from.
  const Result<SweepSpec> sweep = parse_sweep(o.sweep_text, options.params);
  if (!sweep) return sweep.error();
  const std::filesystem::path target(o.gif_path);
  if (Result<void> checked = files::check_target(target, o.overwrite); !checked) return checked;
  const bool trains_each_frame = options.view == View::training && find_training_key(sweep->key) != nullptr;
  if (trains_each_frame) {
    std::vector<TrainingSettings> frames;
    for (int index = 0; index < o.gif_frames; ++index) {
      Params frame = options.params;
      if (Result<void> set = set_param(frame, sweep->key, sweep_value(*sweep, index, o.gif_frames)); !set) return set;
      frames.push_back(frame.training);
    }
    if (Result<void> trainable = exporting::check_training_frames(
            frames, "the GIF's " + std::to_string(o.gif_frames) + " frames (" + sweep->key + " swept)");
        !trainable)
      return trainable;
  } else if (options.view == View::training) {
    if (Result<void> trainable = exporting::check_training(options.params.training); !trainable) return trainable;
  }
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  ProgressLine progress("GIF");
  if (options.view == View::training && !trains_each_frame) {
    auto lab = exporting::train_lab(options.params.training, &progress);
    if (!lab) return lab.error();
    options.training_shown = std::move(*lab);  // every frame shows it: its settings do not move
  }
  App app(**created, options);
  exporting::GifWriter writer;
  if (Result<void> rendered = render_sweep(app, **created, *sweep, o.gif_frames, writer, &progress); !rendered)
    return rendered;
  if (Result<void> written = exporting::write_gif(target, writer, o.overwrite); !written) return written;
  progress.done();
  std::printf("%s\n", escaped_path(o.gif_path).c_str());
  return {};
}

}  // namespace smlab::app
