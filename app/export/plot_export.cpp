// CSV and SVG files from plot descriptions (see plot_export.hpp).
#include "plot_export.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <utility>

#include "i18n/i18n.hpp"
#include "panels/dashboard_plots.hpp"
#include "panels/labs.hpp"

namespace smlab::exporting {
namespace {

namespace fs = std::filesystem;

// A CSV field: quoted when it holds a comma, quote or line break.
void append_field(std::string& out, const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) out += (c == '"') ? std::string("\"\"") : std::string(1, c);
  out += '"';
}

void append_point(std::string& out, const std::string& series, const char* kind, double x, double y,
                  const double* low = nullptr, const double* high = nullptr) {
  append_field(out, series);
  out += ',';
  out += kind;
  out += ',';
  append_csv_number(out, x);
  out += ',';
  append_csv_number(out, y);
  out += ',';
  if (low != nullptr) append_csv_number(out, *low);
  out += ',';
  if (high != nullptr) append_csv_number(out, *high);
  out += '\n';
}

using NamedFile = std::pair<fs::path, std::string>;

// Writes all files or none: every target is checked before the first write, all are staged, then
// committed together (or, with `shared`, left staged there for the caller's commit).
files::WrittenFiles write_all(const std::vector<NamedFile>& files, bool overwrite, files::FileBatch* shared) {
  files::FileBatch own(overwrite);
  files::FileBatch& batch = shared != nullptr ? *shared : own;
  for (const auto& [path, text] : files)
    if (Result<void> checked = batch.check(path); !checked.ok()) return checked.error();
  for (const auto& [path, text] : files)
    if (Result<void> staged = batch.stage(path, text); !staged.ok()) return staged.error();
  if (shared == nullptr)
    if (Result<void> committed = own.commit(); !committed.ok()) return committed.error();
  std::vector<fs::path> written;
  for (const auto& [path, text] : files) written.push_back(path);
  return written;
}

}  // namespace

void append_csv_number(std::string& out, double value) {
  if (std::isnan(value)) {
    out += "nan";
    return;
  }
  if (std::isinf(value)) {
    out += value > 0 ? "inf" : "-inf";
    return;
  }
  std::array<char, 32> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), ec == std::errc{} ? end : buffer.data());
}

std::string plot_to_csv(const plot::Plot& plot) {
  std::string out;
  if (plot.heatmap) {
    const plot::Heatmap& map = *plot.heatmap;
    for (int c = 0; c < map.cols; ++c) out += (c == 0 ? "col_" : ",col_") + std::to_string(c);
    out += '\n';
    std::vector<float> scratch;
    for (int r = 0; r < map.rows; ++r) {
      // Stored cells may fall short of rows × cols: the missing ones are written as NaN.
      std::span<const float> cells;
      if (!map.values.empty()) {
        const std::size_t first =
            std::min(static_cast<std::size_t>(r) * static_cast<std::size_t>(map.cols), map.values.size());
        cells = map.values.subspan(first, std::min(static_cast<std::size_t>(map.cols), map.values.size() - first));
      } else if (map.fill_row) {
        cells = plot::heatmap_row(map, r, scratch);
      }
      for (int c = 0; c < map.cols; ++c) {
        if (c > 0) out += ',';
        const auto index = static_cast<std::size_t>(c);
        append_csv_number(out, index < cells.size() ? static_cast<double>(cells[index]) : std::nan(""));
      }
      out += '\n';
    }
    return out;
  }
  out += "series,kind,x,y,y_low,y_high\n";
  for (const plot::LineSeries& line : plot.lines) {
    const bool band = line.band_low.size() == line.x.size() && line.band_high.size() == line.x.size();
    for (std::size_t i = 0; i < line.x.size() && i < line.y.size(); ++i)
      append_point(out, line.label, "line", line.x[i], line.y[i], band ? &line.band_low[i] : nullptr,
                   band ? &line.band_high[i] : nullptr);
  }
  for (const plot::BarSeries& bars : plot.bars)
    for (std::size_t i = 0; i < bars.x.size() && i < bars.y.size(); ++i)
      append_point(out, bars.label, "bar", bars.x[i], bars.y[i]);
  for (const plot::ScatterSeries& points : plot.scatters)
    for (std::size_t i = 0; i < points.x.size() && i < points.y.size(); ++i)
      append_point(out, points.label, "point", points.x[i], points.y[i]);
  for (const plot::VLine& line : plot.vlines) append_point(out, line.label, "vline", line.x, std::nan(""));
  for (const plot::HLine& line : plot.hlines) append_point(out, line.label, "hline", std::nan(""), line.y);
  return out;
}

std::vector<std::pair<std::string, std::string>> view_csv_files(const Snapshot& snapshot, View view) {
  // Series names are part of the CSV contract: English whatever language the plots show.
  const i18n::Use english(i18n::Language::English);
  std::vector<std::pair<std::string, std::string>> files;
  const app::LabDefinition* lab = app::lab_definition(view);
  if (lab == nullptr || !app::lab_ready(snapshot, view)) return files;
  const app::LabView built = lab->build(app::LabInputs{snapshot, snapshot.dk_sweep, nullptr});
  for (const app::NamedPlot& named : built.plots)
    files.emplace_back(std::string(view_info(view).name) + "-" + named.name + ".csv", plot_to_csv(named.plot));
  return files;
}

std::vector<std::pair<std::string, std::string>> view_svg_files(const Snapshot& snapshot, View view,
                                                                const plot::Style& style, i18n::Language language,
                                                                float width, float height) {
  const i18n::Use words(language);
  std::vector<std::pair<std::string, std::string>> files;
  const std::string prefix(view_info(view).name);
  if (view == View::dashboard) {
    for (auto& [name, plot] : app::dashboard_plots(snapshot, snapshot.dk_sweep)) {
      plot::apply_color_scales(plot, "dashboard/" + name, style.color_scales);
      files.emplace_back("dashboard-" + name + ".svg", plot::to_svg(plot, width, height, style));
    }
    return files;
  }
  const app::LabDefinition* lab = app::lab_definition(view);
  if (lab == nullptr || !app::lab_ready(snapshot, view)) return files;
  app::LabView built = lab->build(app::LabInputs{snapshot, snapshot.dk_sweep, nullptr});
  for (app::NamedPlot& named : built.plots)
    plot::apply_color_scales(named.plot, prefix + "/" + named.name, style.color_scales);
  for (const app::NamedPlot& named : built.plots)
    files.emplace_back(prefix + "-" + named.name + ".svg",
                       plot::to_svg(named.plot, width * static_cast<float>(named.column_span), height, style));
  return files;
}

files::WrittenFiles export_lab_csv(const Snapshot& snapshot, const fs::path& directory, bool overwrite,
                                   files::FileBatch* batch) {
  std::vector<NamedFile> files;
  for (const ViewInfo& info : all_views())
    for (auto& [name, text] : view_csv_files(snapshot, info.view))
      files.emplace_back(directory / name, std::move(text));
  return write_all(files, overwrite, batch);
}

files::WrittenFiles export_svg(const Snapshot& snapshot, const fs::path& directory, bool overwrite,
                               const plot::Style& style, i18n::Language language, float width, float height,
                               files::FileBatch* batch) {
  std::vector<NamedFile> files;
  for (const ViewInfo& info : all_views())
    for (auto& [name, text] : view_svg_files(snapshot, info.view, style, language, width, height))
      files.emplace_back(directory / name, std::move(text));
  return write_all(files, overwrite, batch);
}

}  // namespace smlab::exporting
