// The files of --export-csv / --export-svg for one state, staged together and written all or none.
#include "state_files.hpp"

#include <string>

#include "app.hpp"
#include "export/csv.hpp"
#include "export/png.hpp"
#include "panels/pins_panel.hpp"
#include "plot_export.hpp"
#include "smlab/evaluate.hpp"

namespace smlab::app {

Result<void> stage_state_files(StateFilesKind kind, const StateFilesRequest& request,
                               const std::filesystem::path& directory, exporting::FileBatch& batch) {
  EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  // The d_k curve gets the same refinement as a headless screenshot (as the command line's).
  evaluate_options.dk_trials = headless_refine_trials(request.params.seq_len);
  const Snapshot snapshot = *evaluate(request.params, evaluate_options);
  PinState pins;
  pins.pins = request.pins;
  if (!pins.pins.empty()) refresh_pins(pins);
  if (kind == StateFilesKind::csv) {
    exporting::CsvOptions csv_options;
    if (const auto written = exporting::export_csv(snapshot, directory, csv_options, &batch); !written)
      return written.error();
    if (const auto labs = exporting::export_lab_csv(snapshot, directory, false, &batch); !labs) return labs.error();
    if (!pins.pins.empty())
      for (const auto& [name, text] : pins_csv_files(pins.pins, pins.snapshots))
        if (Result<void> staged = batch.stage(directory / name, text); !staged) return staged;
    return {};
  }
  plot::Style style = plot::light_style();
  style.sequential_colormap = request.colormap;
  style.color_scales.chosen = request.color_scales;
  // Chinese labels need a CJK face in the viewer; DejaVu stays first for Latin and symbols.
  if (request.language == i18n::Language::Chinese)
    style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
  if (const auto written =
          exporting::export_svg(snapshot, directory, false, style, request.language, 640.0f, 440.0f, &batch);
      !written)
    return written.error();
  if (!pins.pins.empty())
    for (const auto& [name, text] : pinned_svg_files(pins, snapshot, request.language, style, 640.0f, 440.0f))
      if (Result<void> staged = batch.stage(directory / name, text); !staged) return staged;
  return {};
}

Result<StateFilesWritten> write_state_files(StateFilesKind kind, const StateFilesRequest& request,
                                            const std::filesystem::path& parent,
                                            std::chrono::system_clock::time_point now) {
  if (Result<void> made = exporting::ensure_directory(parent); !made) return made.error();
  const std::string stem =
      exporting::timestamped_name("softmax-lab", now, kind == StateFilesKind::csv ? "-csv" : "-svg");
  // A folder of our own, made now: never one that exists (create_directory fails on a taken name).
  std::filesystem::path folder;
  for (int copy = 1; copy <= exporting::max_numbered_copies && folder.empty(); ++copy) {
    const std::filesystem::path candidate = exporting::numbered_path(parent / stem, copy);
    std::error_code error;
    if (std::filesystem::create_directory(candidate, error))
      folder = candidate;
    else if (error)
      return Error::file("cannot create the folder '" + candidate.string() + "': " + error.message());
  }
  if (folder.empty())
    return Error::file("cannot create a new folder in '" + parent.string() +
                       "': " + std::to_string(exporting::max_numbered_copies) + " named '" + stem + "…' exist already");
  Result<void> done;
  std::size_t files = 0;
  {
    exporting::FileBatch batch(false);
    done = stage_state_files(kind, request, folder, batch);
    if (done) done = batch.commit();
    files = batch.targets().size();
  }  // an uncommitted batch removes what it staged
  if (!done) {
    std::error_code ignored;
    std::filesystem::remove(folder, ignored);  // empty again: only the batch wrote into it
    return done.error();
  }
  return StateFilesWritten{folder, files};
}

}  // namespace smlab::app
