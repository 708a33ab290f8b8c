// --export-csv DIR and --export-svg DIR: files from the numbers and the plot descriptions, no
// graphics context needed. All files of the run are written together or none is (one FileBatch),
// and a refused run leaves nothing, not even the folders it would have made. What can be known
// before the work is checked before it: the folders, the training's cost, and (before a training
// of more than a moment) every file's name.
#include <cstdio>
#include <filesystem>
#include <memory>

#include "export/csv.hpp"
#include "files/atomic_file.hpp"
#include "files/printable.hpp"
#include "files/progress_line.hpp"
#include "modes/modes.hpp"
#include "panels/pins_panel.hpp"
#include "export/plot_export.hpp"
#include "export/training_export.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;

// A training shorter than this is not worth checking the names ahead of: a conflict found after it
// cost only this much.
constexpr double names_checked_ahead_after_seconds = 2.0;

// Every file of the export from `snapshot` into `batch` (staged, or only checked: FileBatch::Mode),
// the folders made first. Checking ahead, a folder that does not exist yet is left out: it holds
// nothing to collide with.
Result<exporting::TrainingFilesStaged> stage_files(const Options& o, const AppOptions& start, const Snapshot& snapshot,
                                                   const PinState& pins, files::FileBatch& batch) {
  exporting::TrainingFilesStaged training;
  const auto wanted = [&](const std::string& dir) {
    std::error_code error;
    return !dir.empty() && (batch.mode() == files::FileBatch::Mode::write || fs::is_directory(dir, error));
  };
  for (const std::string& dir : {o.csv_dir, o.svg_dir})
    if (wanted(dir))
      if (Result<void> made = batch.make_directory(dir); !made) return made.error();
  if (wanted(o.csv_dir)) {
    exporting::CsvOptions csv_options;
    csv_options.overwrite = o.overwrite;
    if (const auto written = exporting::export_csv(snapshot, o.csv_dir, csv_options, &batch); !written)
      return written.error();
    if (const auto labs = exporting::export_lab_csv(snapshot, o.csv_dir, o.overwrite, &batch); !labs)
      return labs.error();
    // --train's own files (train-loss.csv, train-attention.csv, train-sentence.npz): with --train only,
    // so that a plain export is the same set of files as the web page's (ExportJobTest).
    if (!o.train_task.empty()) {
      Result<exporting::TrainingFilesStaged> staged = exporting::stage_training_files(snapshot, o.csv_dir, batch);
      if (!staged) return staged.error();
      training = std::move(*staged);
    }
    // A session's pins: pins*.csv beside the files of the current state.
    if (!pins.pins.empty())
      for (const auto& [name, text] : pins_csv_files(pins.pins, pins.snapshots))
        if (Result<void> staged = batch.stage(fs::path(o.csv_dir) / name, text); !staged) return staged.error();
  }
  if (wanted(o.svg_dir)) {
    plot::Style svg_style = plot::light_style();
    svg_style.sequential_colormap = start.colormap;
    svg_style.color_scales.chosen = start.color_scales;
    // The start state's language (Chinese only with its table). Chinese labels need a CJK face in
    // the viewer; DejaVu stays first for Latin and symbols.
    const auto language = start.language == i18n::Language::Chinese && i18n::has_chinese() ? i18n::Language::Chinese
                                                                                           : i18n::Language::English;
    if (language == i18n::Language::Chinese)
      svg_style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
    if (const auto written =
            exporting::export_svg(snapshot, o.svg_dir, o.overwrite, svg_style, language, 640.0f, 440.0f, &batch);
        !written)
      return written.error();
    if (!pins.pins.empty())
      for (const auto& [name, text] : pinned_svg_files(pins, snapshot, language, svg_style, 640.0f, 440.0f))
        if (Result<void> staged = batch.stage(fs::path(o.svg_dir) / name, text); !staged) return staged.error();
  }
  return training;
}

}  // namespace

Result<void> run_files(const Options& o, AppOptions start) {
  // 1. Before any work: the folders (made only when the files are ready), and the training every
  //    export includes (the lab at train_steps): its runs can be made, and in reasonable time.
  for (const std::string& dir : {o.csv_dir, o.svg_dir})
    if (!dir.empty())
      if (Result<void> usable = files::check_directory(dir); !usable) return usable;
  const TrainingSettings& training = start.params.training;
  if (Result<void> trainable = exporting::check_training(training); !trainable) return trainable;

  // 2. Everything but the training lab, then the lab trained here with its progress line.
  EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  evaluate_options.training_by_caller = true;
  // The SVG's d_k curve gets the same refinement as a headless screenshot.
  evaluate_options.dk_trials = headless_refine_trials(start.params.seq_len);
  ProgressLine export_progress("export");
  evaluate_options.progress_sink = &export_progress;
  Snapshot snapshot = *evaluate(start.params, evaluate_options);
  PinState pins;
  pins.pins = start.pins;
  if (!pins.pins.empty()) refresh_pins(pins);
  if (exporting::training_seconds(training) > names_checked_ahead_after_seconds) {
    // The files' names do not depend on how far the runs trained: checked now on the runs at step 0.
    TrainingSettings untrained = training;
    untrained.steps = 0;
    const auto lab = exporting::train_lab(untrained);
    if (!lab) return lab.error();
    Snapshot named = snapshot;
    named.labs.set(View::training, **lab);
    files::FileBatch ahead(o.overwrite, files::FileBatch::Mode::check_only);
    if (const auto checked = stage_files(o, start, named, pins, ahead); !checked) return checked.error();
  }
  const auto lab = exporting::train_lab(training, &export_progress);
  if (!lab) return lab.error();
  snapshot.labs.set(View::training, **lab);

  // 3. The files, all or none.
  files::FileBatch batch(o.overwrite);
  const auto staged = stage_files(o, start, snapshot, pins, batch);
  if (!staged) return staged.error();
  if (Result<void> committed = batch.commit(); !committed) return committed;
  export_progress.done();
  if (!staged->sentence_left_out.empty()) warn(staged->sentence_left_out);
  for (const auto& file : batch.targets()) std::printf("%s\n", escaped_path(file.native()).c_str());
  return {};
}

}  // namespace smlab::app
