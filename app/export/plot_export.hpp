// Exports of what the views show, straight from their plot descriptions: every
// lab plot as CSV, and every plot (dashboard and labs) as SVG. The same
// descriptions are drawn on screen, so the files hold exactly what a user sees.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "files/atomic_file.hpp"
#include "i18n/i18n.hpp"
#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"

namespace smlab::exporting {

// A number in the plot and training CSV files: the shortest text that reads back as the same
// double; nan, inf and -inf by name.
void append_csv_number(std::string& out, double value);

// One plot's numbers as CSV.
//   Heatmap: header col_0,…,col_{c−1}, then one line per row (row 0 first).
//   Series:  header series,kind,x,y,y_low,y_high; one line per point of every line
//            (kind "line"; y_low/y_high are its error band, empty without one),
//            bar ("bar") and scatter point ("point"), then reference lines
//            ("vline" with x, "hline" with y). `series` is the legend label.
// Numbers are the shortest text that parses back to the same double.
std::string plot_to_csv(const plot::Plot& plot);

// Writes "<view>-<plot>.csv" for every plot of every lab in `snapshot` (which must
// hold all labs: EvaluateOptions::all_labs). Series names are English whatever language the
// caller draws in: they are part of the CSV contract. Refuses before writing anything when a
// target exists and `overwrite` is false. `directory` must exist. All files or none (FileBatch);
// with `batch` they are only staged there and the caller commits.
files::WrittenFiles export_lab_csv(const Snapshot& snapshot, const std::filesystem::path& directory, bool overwrite,
                                   files::FileBatch* batch = nullptr);

// Writes "<view>-<plot>.svg" for the dashboard's six plots and every lab plot, each
// width × height px in `style`, their words in `language` (the caller's own language, i18n::Use,
// is left as it was). Same refusal rule as above.
files::WrittenFiles export_svg(const Snapshot& snapshot, const std::filesystem::path& directory, bool overwrite,
                               const plot::Style& style, i18n::Language language, float width = 640.0f,
                               float height = 440.0f, files::FileBatch* batch = nullptr);

// One view's files of the two exports above, as (file name, text) pairs in the order they write them:
// a lab's plots as CSV (none for the dashboard, whose numbers are export_csv's), and the view's
// plots as SVG. `snapshot` must hold the view's lab (EvaluateOptions::view or all_labs). For callers
// that write the files themselves, a view at a time (the web page's export between frames).
std::vector<std::pair<std::string, std::string>> view_csv_files(const Snapshot& snapshot, View view);
std::vector<std::pair<std::string, std::string>> view_svg_files(const Snapshot& snapshot, View view,
                                                                const plot::Style& style, i18n::Language language,
                                                                float width = 640.0f, float height = 440.0f);

}  // namespace smlab::exporting
