// The page's words and the canvas's text mirror (page_text.hpp), from the string tables, the open
// lesson, the shown Snapshot and the plots the last frame drew.
#include "page_text.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <string_view>

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/labs.hpp"
#include "panels/lesson_panel.hpp"
#include "smlab/views.hpp"

namespace smlab::web {
namespace {

// The page's words: the keys page.js asks for (web.bar.* and web.page.* in the tables).
constexpr std::string_view page_word_keys[] = {"bar.save_session",
                                               "bar.open_session",
                                               "bar.import",
                                               "bar.export_csv",
                                               "bar.export_svg",
                                               "bar.cancel",
                                               "bar.save_title",
                                               "bar.text",
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
                                               "page.zip_failed"};

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", value);
  return text;
}

// Up to `most` values of a series: "x: y" pairs, evenly spaced through a longer one, and how many
// were left out.
std::string series_values(const std::vector<double>& x, const std::vector<double>& y, std::size_t most) {
  const std::size_t count = std::min(x.size(), y.size());
  if (count == 0) return "";
  const std::size_t stride = count <= most ? 1 : (count + most - 1) / most;
  std::string out;
  for (std::size_t i = 0; i < count; i += stride) out += (out.empty() ? "" : ", ") + number(x[i]) + ": " + number(y[i]);
  if (stride > 1) out += " " + i18n::format("web.mirror.more", {std::to_string(count)});
  return out;
}

std::string plot_text(const plot::Plot& plot) {
  std::string text = i18n::format("web.mirror.plot", {plot.title});
  if (!plot.x.label.empty() || !plot.y.label.empty())
    text += "\n" + i18n::format("web.mirror.axes", {plot.x.label, plot.y.label});
  if (plot.heatmap) {
    const plot::Heatmap& map = *plot.heatmap;
    text += "\n" + i18n::format("web.mirror.heatmap", {std::to_string(map.rows), std::to_string(map.cols),
                                                       number(map.vmin), number(map.vmax)});
    return text;
  }
  constexpr std::size_t most = 24;
  const auto series = [&](const std::string& label, const std::vector<double>& x, const std::vector<double>& y) {
    const std::string values = series_values(x, y, most);
    if (!values.empty()) text += "\n" + (label.empty() ? std::string() : label + " — ") + values;
  };
  for (const plot::BarSeries& bars : plot.bars) series(bars.label, bars.x, bars.y);
  for (const plot::LineSeries& line : plot.lines) series(line.label, line.x, line.y);
  for (const plot::ScatterSeries& points : plot.scatters) series(points.label, points.x, points.y);
  for (const plot::VLine& line : plot.vlines) text += "\n" + line.label + " — x = " + number(line.x);
  for (const plot::HLine& line : plot.hlines) text += "\n" + line.label + " — y = " + number(line.y);
  return text;
}

// The plot a student looks at: hovered, else the lesson step's, else presenter mode's, else the first.
const app::NamedPlot* active_plot(const app::UiState& ui, const app::LabView& view) {
  const std::string prefix = std::string(view_info(ui.view).name) + "/";
  const auto named = [&](const std::string& full) -> const app::NamedPlot* {
    for (const app::NamedPlot& plot : view.plots)
      if (prefix + plot.name == full) return &plot;
    return nullptr;
  };
  if (const app::NamedPlot* hovered = named(ui.hovered_plot)) return hovered;
  for (const app::PlacedPlot* placed : app::lesson_highlighted_plots(ui))
    if (const app::NamedPlot* lit = named(placed->name)) return lit;
  if (const app::NamedPlot* presented = named(ui.presenter_focus)) return presented;
  return view.plots.empty() ? nullptr : &view.plots.front();
}

}  // namespace

std::string page_words_json(i18n::Language language) {
  const i18n::Use words(language);
  nlohmann::ordered_json object = nlohmann::ordered_json::object();
  for (const std::string_view key : page_word_keys) object[std::string(key)] = i18n::tr("web." + std::string(key));
  return object.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string mirror_json(app::App& app) {
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
        "\n" + step->text.in(language);
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
  if (const app::LabView* view = app.shown_view(); view != nullptr) {
    if (const app::NamedPlot* active = active_plot(ui, *view); active != nullptr)
      plot = awaiting ? i18n::format("web.mirror.plot", {active->plot.title}) : plot_text(active->plot);
    explanation = view->explanation;
    if (!awaiting)
      for (const std::string& note : view->notes) explanation += "\n" + note;
  }
  mirror["view"] = explanation;
  mirror["plot"] = plot;
  return mirror.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace smlab::web
