// --export-csv DIR and --export-svg DIR: files from the numbers and the plot descriptions, no
// graphics context needed. All files of the run are written together or none is (one FileBatch).
#include <cstdio>
#include <filesystem>

#include "export/csv.hpp"
#include "files/atomic_file.hpp"
#include "files/progress_line.hpp"
#include "modes/modes.hpp"
#include "panels/pins_panel.hpp"
#include "plot_export.hpp"

namespace smlab::app {

Result<void> run_files(const Options& o, AppOptions start) {
  namespace fs = std::filesystem;
  for (const std::string& dir : {o.csv_dir, o.svg_dir})
    if (!dir.empty())
      if (Result<void> made = exporting::ensure_directory(dir); !made) return made;
  EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  // The SVG's d_k curve gets the same refinement as a headless screenshot.
  evaluate_options.dk_trials = headless_refine_trials(start.params.seq_len);
  ProgressLine export_progress("export");
  evaluate_options.progress_sink = &export_progress;
  const Snapshot snapshot = *evaluate(start.params, evaluate_options);
  exporting::FileBatch batch(o.overwrite);
  if (!o.csv_dir.empty()) {
    exporting::CsvOptions csv_options;
    csv_options.overwrite = o.overwrite;
    const auto result = exporting::export_csv(snapshot, o.csv_dir, csv_options, &batch);
    if (!result) return result.error();
    const auto labs = exporting::export_lab_csv(snapshot, o.csv_dir, o.overwrite, &batch);
    if (!labs) return labs.error();
  }
  // A session's pins: pins*.csv and pinned-*.svg beside the files of the current state.
  PinState pins;
  pins.pins = start.pins;
  if (!pins.pins.empty()) refresh_pins(pins);
  if (!o.csv_dir.empty() && !pins.pins.empty())
    for (const auto& [name, text] : pins_csv_files(pins.pins, pins.snapshots))
      if (Result<void> staged = batch.stage(fs::path(o.csv_dir) / name, text); !staged) return staged;
  if (!o.svg_dir.empty()) {
    plot::Style svg_style = plot::light_style();
    svg_style.sequential_colormap = start.colormap;
    svg_style.color_scales.chosen = start.color_scales;
    // The start state's language (Chinese only with its table). Chinese labels need a CJK face in
    // the viewer; DejaVu stays first for Latin and symbols.
    const auto language = start.language == i18n::Language::Chinese && i18n::has_chinese() ? i18n::Language::Chinese
                                                                                           : i18n::Language::English;
    if (language == i18n::Language::Chinese)
      svg_style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
    const auto result =
        exporting::export_svg(snapshot, o.svg_dir, o.overwrite, svg_style, language, 640.0f, 440.0f, &batch);
    if (!result) return result.error();
    if (!pins.pins.empty())
      for (const auto& [name, text] : pinned_svg_files(pins, snapshot, language, svg_style, 640.0f, 440.0f))
        if (Result<void> staged = batch.stage(fs::path(o.svg_dir) / name, text); !staged) return staged;
  }
  if (Result<void> committed = batch.commit(); !committed) return committed;
  export_progress.done();
  for (const auto& file : batch.targets()) std::printf("%s\n", file.string().c_str());
  return {};
}

}  // namespace smlab::app
