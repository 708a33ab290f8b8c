// The page's words and the canvas's text mirror (page_text.hpp), from the string tables, the open
// lesson, the shown Snapshot and the plots the last frame drew.
#include "page_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/labs.hpp"
#include "panels/lesson_panel.hpp"
#include "smlab/views.hpp"

namespace smlab::web {
namespace {

// The page's words: the keys page.js asks for (web.bar.* and web.page.* in the tables, and the
// import roles' names, which the window's role chooser shows too).
constexpr std::string_view page_word_keys[] = {"bar.save_session",
                                               "bar.open_session",
                                               "bar.import",
                                               "bar.export_csv",
                                               "bar.export_svg",
                                               "bar.save_short",
                                               "bar.open_short",
                                               "bar.import_short",
                                               "bar.csv_short",
                                               "bar.svg_short",
                                               "bar.cancel",
                                               "bar.save_title",
                                               "bar.text",
                                               "bar.update",
                                               "page.loading",
                                               "page.export_progress",
                                               "page.export_done",
                                               "page.export_cancelled",
                                               "page.export_too_large",
                                               "page.export_subset",
                                               "page.export_whole_file",
                                               "page.export_desktop",
                                               "page.session_downloaded",
                                               "page.session_saved",
                                               "page.import_kept",
                                               "page.import_not_kept",
                                               "page.drop_hint",
                                               "page.font_loading",
                                               "page.font_failed",
                                               "page.offline_ready",
                                               "page.mirror_title",
                                               "page.zip_failed",
                                               "page.update_ready",
                                               "page.role_question",
                                               "import.role.q",
                                               "import.role.k",
                                               "import.role.v",
                                               "import.role.scores",
                                               "import.role.weights",
                                               "page.class_join_title",
                                               "page.class_code",
                                               "page.class_nick",
                                               "page.class_join",
                                               "page.class_connecting",
                                               "page.class_reconnecting",
                                               "page.class_following",
                                               "page.class_exploring",
                                               "page.class_follow",
                                               "page.class_full",
                                               "page.class_wrong_code",
                                               "page.class_send",
                                               "page.class_answer_kept",
                                               "page.class_answer_none",
                                               "page.class_answer_closed",
                                               "page.class_answer_closed_yours",
                                               "page.class_answer_refused",
                                               "page.class_range",
                                               "page.class_vote",
                                               "page.class_truth",
                                               "page.class_truth_yours",
                                               "page.class_data_loading",
                                               "page.class_data_withheld"};

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// Where a value sits on the x axis, as a student reads it: on an axis of integer positions (keys,
// tokens, formats) the position and its name ("3 “cat”"), also for bars drawn beside it in groups
// (x = 3 − 0.28); else the number.
std::string position_text(const plot::Axis& axis, double x) {
  if (axis.integer_ticks || !axis.tick_names.empty()) {
    const double index = std::round(x) + 0.0;  // + 0.0: a bar left of key 0 is key 0, not "-0"
    if (std::abs(x - index) < 0.5) {
      if (const std::string* name = plot::position_name(axis, index); name != nullptr && !name->empty())
        return number(index) + " “" + *name + "”";
      return number(index);
    }
  }
  return number(x);
}

// Up to `most` values of a series: "x: y" pairs, evenly spaced through a longer one, and how many
// were left out.
std::string series_values(const plot::Axis& axis, const std::vector<double>& x, const std::vector<double>& y,
                          std::size_t most) {
  const std::size_t count = std::min(x.size(), y.size());
  if (count == 0) return "";
  const std::size_t stride = count <= most ? 1 : (count + most - 1) / most;
  std::string out;
  for (std::size_t i = 0; i < count; i += stride)
    out += (out.empty() ? "" : ", ") + position_text(axis, x[i]) + ": " + number(y[i]);
  if (stride > 1) out += " " + i18n::format("web.mirror.more", {std::to_string(count)});
  return out;
}

// A row's or column's name on a heatmap: its index, and its token where the map has names.
std::string cell_name(const plot::Heatmap& map, int index) {
  const auto at = static_cast<std::size_t>(index);
  return std::to_string(index) + (at < map.names.size() && !map.names[at].empty() ? " “" + map.names[at] + "”" : "");
}

std::string plot_text(const plot::Plot& plot) {
  std::string text = i18n::format("web.mirror.plot", {plot.title});
  if (!plot.x.label.empty() || !plot.y.label.empty())
    text += "\n" + i18n::format("web.mirror.axes", {plot.x.label, plot.y.label});
  if (plot.heatmap) {
    const plot::Heatmap& map = *plot.heatmap;
    text += "\n" + i18n::format("web.mirror.heatmap", {std::to_string(map.rows), std::to_string(map.cols),
                                                       number(map.vmin), number(map.vmax)});
    // A small map's rows read as their largest cell (which key each query attends to most).
    constexpr int most_rows = 16;
    if (map.rows > 0 && map.rows <= most_rows && map.cols > 0) {
      std::vector<float> scratch;
      for (int row = 0; row < map.rows; ++row) {
        const std::span<const float> cells = plot::heatmap_row(map, row, scratch);
        if (cells.empty()) continue;
        const auto largest = static_cast<int>(std::max_element(cells.begin(), cells.end()) - cells.begin());
        text += "\n" + i18n::format("web.mirror.heatmap_row", {cell_name(map, row), cell_name(map, largest),
                                                               number(cells[static_cast<std::size_t>(largest)])});
      }
    }
    return text;
  }
  constexpr std::size_t most = 24;
  const auto series = [&](const std::string& label, const std::vector<double>& x, const std::vector<double>& y) {
    const std::string values = series_values(plot.x, x, y, most);
    if (!values.empty()) text += "\n" + (label.empty() ? std::string() : label + " — ") + values;
  };
  for (const plot::BarSeries& bars : plot.bars) series(bars.label, bars.x, bars.y);
  for (const plot::LineSeries& line : plot.lines) series(line.label, line.x, line.y);
  for (const plot::ScatterSeries& points : plot.scatters) series(points.label, points.x, points.y);
  const std::string unnamed = i18n::tr("web.mirror.reference_line");
  for (const plot::VLine& line : plot.vlines)
    text += "\n" + (line.label.empty() ? unnamed : line.label) + " — x = " + number(line.x);
  for (const plot::HLine& line : plot.hlines)
    text += "\n" + (line.label.empty() ? unnamed : line.label) + " — y = " + number(line.y);
  return text;
}

// The plot a student looks at: hovered, else the one the compact layout (a phone) shows, else the
// lesson step's, else presenter mode's, else the first.
const app::NamedPlot* active_plot(const app::UiState& ui, const app::LabView& view, bool compact) {
  const std::string prefix = std::string(view_info(ui.view).name) + "/";
  const auto named = [&](const std::string& full) -> const app::NamedPlot* {
    for (const app::NamedPlot& plot : view.plots)
      if (prefix + plot.name == full) return &plot;
    return nullptr;
  };
  if (const app::NamedPlot* hovered = named(ui.hovered_plot)) return hovered;
  if (compact && !view.plots.empty())
    return &view.plots[static_cast<std::size_t>(std::max(ui.compact_plot, 0)) % view.plots.size()];
  for (const app::PlacedPlot* placed : app::lesson_highlighted_plots(ui))
    if (const app::NamedPlot* lit = named(placed->name)) return lit;
  if (const app::NamedPlot* presented = named(ui.presenter_focus)) return presented;
  return view.plots.empty() ? nullptr : &view.plots.front();
}

}  // namespace

std::string page_words_json(i18n::Language language) {
  const i18n::Use words(language);
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const std::string_view key : page_word_keys)
    object[std::string(key)] = i18n::tr(key.starts_with("import.") ? std::string(key) : "web." + std::string(key));
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string mirror_json(app::App& app, bool compact) {
  const i18n::Use words(app.language());
  const app::UiState& ui = app.ui();
  nlohmann::ordered_json mirror = nlohmann::ordered_json::object();
  std::string lesson_text;
  if (const app::LessonStep* step = app::current_step(ui); step != nullptr) {
    const app::Lesson* lesson = app::current_lesson(ui);
    const i18n::Language language = app.language();
    lesson_text =
        i18n::format("web.mirror.lesson", {lesson->title.in(language), std::to_string(ui.lesson.open->step + 1),
                                           std::to_string(lesson->steps.size()), step->title.in(language)}) +
        "\n" + (ui.lesson_report.text.empty() ? app::step_text(*step, language, nullptr) : ui.lesson_report.text);
  }
  mirror["lesson"] = lesson_text;
  std::string readout;
  if (const auto snapshot = app.evaluator().latest().snapshot) {
    const auto n = static_cast<int>(snapshot->probabilities.size());
    const auto fixed = [](double value, int digits) { return i18n::fixed(value, digits); };
    readout = std::string(i18n::tr("controls.section.readout"));
    for (const std::string& line :
         {i18n::format("controls.readout.entropy",
                       {fixed(snapshot->entropy_nats, 4), fixed(snapshot->max_entropy_nats, 3)}),
          i18n::format("controls.readout.choices", {fixed(snapshot->effective_choices, 2), std::to_string(n)}),
          i18n::format("controls.readout.max_weight",
                       {fixed(snapshot->max_weight, 4), std::to_string(snapshot->argmax)}),
          i18n::format("controls.readout.gradient",
                       {fixed(snapshot->gradient[static_cast<std::size_t>(snapshot->argmax)], 4)}),
          i18n::format("controls.readout.jacobian", {fixed(snapshot->jacobian_norm, 4)})}) {
      // The tables align numbers with runs of spaces: one space reads the same aloud.
      std::string single;
      for (const char c : line)
        if (c != ' ' || single.empty() || single.back() != ' ') single += c;
      readout += "\n" + single;
    }
  }
  mirror["readout"] = readout;
  std::string plot, explanation;
  // Under a predict step not yet answered the canvas hides the notes and the covered panel: so does
  // the mirror (the title stays, the numbers would give the answer away).
  const bool awaiting = app::lesson_awaiting_prediction(ui);
  // The view by its tab's name, then the lab's explanation and notes.
  explanation = i18n::format("web.mirror.view", {app::view_title(ui.view)});
  if (const app::LabView* view = app.shown_view(); view != nullptr) {
    if (const app::NamedPlot* active = active_plot(ui, *view, compact); active != nullptr) {
      const auto index = static_cast<std::size_t>(active - view->plots.data());
      plot = i18n::format("web.mirror.plot_of", {std::to_string(index + 1), std::to_string(view->plots.size())}) +
             "\n" + (awaiting ? i18n::format("web.mirror.plot", {active->plot.title}) : plot_text(active->plot));
    }
    if (!view->explanation.empty()) explanation += "\n" + view->explanation;
    if (!awaiting)
      for (const std::string& note : view->notes) explanation += "\n" + note;
  }
  mirror["view"] = explanation;
  mirror["plot"] = plot;
  return mirror.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace smlab::web
