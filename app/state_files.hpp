// The numbers and vectors of one state as files: what `softmax-lab --export-csv DIR` and
// `--export-svg DIR` write, for the window's File → Export CSV / Export SVG (and anyone else who
// wants the same files for a state).
#pragma once

#include <chrono>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "files/atomic_file.hpp"
#include "i18n/i18n.hpp"
#include "plot/plot.hpp"
#include "smlab/params.hpp"
#include "state/pins.hpp"

namespace smlab::app {

enum class StateFilesKind { csv, svg };

// The state the files show.
struct StateFilesRequest {
  Params params;
  std::vector<Pin> pins;  // pins*.csv / pinned-*.svg beside the state's own files
  plot::Colormap colormap = plot::Colormap::Viridis;
  std::map<std::string, plot::ColorScale, std::less<>> color_scales;  // heatmaps' chosen scales
  i18n::Language language = i18n::Language::English;                  // the SVGs' words (CSV headers stay English)
};

// Evaluates every lab for `request.params` (the d_k sweep refined as for a headless screenshot) and
// stages the files in `batch`, into `directory` (which must exist): distribution.csv, …, every lab
// plot's CSV and the pins' (csv); every plot's SVG and the pins' (svg). The caller commits the batch:
// all files or none. Returns the first error (the batch then holds what was staged, to be dropped).
Result<void> stage_state_files(StateFilesKind kind, const StateFilesRequest& request,
                               const std::filesystem::path& directory, exporting::FileBatch& batch);

// A new folder "<parent>/softmax-lab-<time>-csv" (or -svg; "-2", "-3", … when taken) holding the
// files of stage_state_files, all or none: on any failure no file is left and the folder is removed.
// Returns the folder and how many files it holds.
struct StateFilesWritten {
  std::filesystem::path folder;
  std::size_t files = 0;
};
Result<StateFilesWritten> write_state_files(StateFilesKind kind, const StateFilesRequest& request,
                                            const std::filesystem::path& parent,
                                            std::chrono::system_clock::time_point now);

}  // namespace smlab::app
