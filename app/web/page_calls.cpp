// What the page's JavaScript (page.js) calls through Module.ccall: sessions in and out, imports and
// the roles they need said, what an export offers (the export itself runs in a worker:
// export_worker.cpp), the Chinese font's arrival, pinch zoom, an address from the browser's history,
// a class's state, question and answer (a student's page in a hosted class), and the timings
// bench_page.py reads. Each takes the WebApp the page was handed at start
// (smlabStarted) and answers in WebApp::reply, valid until the next call.
//
// [SECTION] Index
//   [SECTION] Helpers
//   [SECTION] Timings, sessions, imports and exports
//   [SECTION] The font size and the address
//   [SECTION] A student's page in a class
//   [SECTION] Keyboard navigation and the Chinese font

#include <emscripten.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "state/import_files.hpp"
#include "state/session.hpp"
#include "export/export_job.hpp"
#include "web_app.hpp"

// [SECTION] Helpers

namespace {

using smlab::web::WebApp;

WebApp& page(std::uintptr_t handle) { return *reinterpret_cast<WebApp*>(handle); }

std::string stats_json(std::vector<double>& values) {
  if (values.empty()) return "null";
  std::sort(values.begin(), values.end());
  char text[96];
  std::snprintf(text, sizeof text, "{\"count\":%zu,\"median\":%.3f,\"p95\":%.3f}", values.size(),
                values[values.size() / 2], values[std::min(values.size() - 1, values.size() * 95 / 100)]);
  values.clear();
  return text;
}

// The training lab's progress: `,"train_steps":N,"train_steps_per_second":R`, or nothing.
std::string training_json(const WebApp& web) {
  const smlab::app::Trainer* trainer = web.app->trainer();
  if (trainer == nullptr) return "";
  const smlab::app::Trainer::Published published = trainer->latest();
  char text[96];
  std::snprintf(text, sizeof text, ",\"train_steps\":%d,\"train_steps_per_second\":%.1f",
                published.lab != nullptr ? published.lab->steps_done : 0, published.steps_per_second);
  return text;
}

// [name, value, name, value, …] as address pairs (anything else is left out).
std::vector<smlab::web::UrlPair> pairs_of(const char* pairs_json) {
  const nlohmann::json parsed = nlohmann::json::parse(pairs_json == nullptr ? "" : pairs_json, nullptr, false);
  std::vector<smlab::web::UrlPair> pairs;
  if (parsed.is_array())
    for (std::size_t i = 0; i + 1 < parsed.size(); i += 2)
      if (parsed[i].is_string() && parsed[i + 1].is_string())
        pairs.push_back({parsed[i].get<std::string>(), parsed[i + 1].get<std::string>()});
  return pairs;
}

// An address's settings shown in place, through the same checks as at start (url_state.hpp's
// apply_url), as a session is restored: Back and Forward, and the teacher's state in a class.
// `loaded`: the data shown now, attached again without reading its files when the pairs name them.
void apply_pairs(WebApp& web, const std::vector<smlab::web::UrlPair>& pairs,
                 std::shared_ptr<const smlab::ImportedAttention> loaded = nullptr) {
  smlab::app::AppOptions options = web.base_options;
  const smlab::web::UrlStart start = smlab::web::apply_url(pairs, options, std::move(loaded));
  smlab::app::UiModel model;
  model.params = options.params;
  model.view = options.view;
  model.screenshot_dir = web.app->current_session().screenshot_dir;
  model.theme = options.theme;
  model.font_scale = options.font_scale;
  model.language = options.language;
  model.lessons = options.lessons;
  model.lesson.open = options.lesson;
  model.interaction.colormap = options.colormap;
  model.interaction.color_scales.chosen = options.color_scales;
  model.pins.pins = options.pins;
  web.app->restore_session(smlab::app::session_of(model));
  // The entry shown is this one: the address written next replaces it.
  web.start_pairs = smlab::web::url_pairs(web.app->current_session(), false);
  web.history_key = smlab::web::history_key(web.start_pairs);
  web.refused = start.refused;
  smlab::web::show_error(smlab::web::refused_summary(start.refused, web.app->language()));
}

}  // namespace

// [SECTION] Timings, sessions, imports and exports

extern "C" {

// Median and 95th percentile since the last call of the ticks (ms), their evaluation slices and App
// frames, the recomputes and the training lab's slices, as JSON, with the training lab's steps done
// and steps per second; tests/web/bench_page.py reads it during a drag or a training.
EMSCRIPTEN_KEEPALIVE const char* smlab_timing(std::uintptr_t handle) {
  WebApp& web = page(handle);
  web.reply = "{\"tick_ms\":" + stats_json(web.tick_ms) + ",\"evaluate_ms\":" + stats_json(web.evaluate_ms) +
              ",\"frame_ms\":" + stats_json(web.frame_ms) + ",\"recompute_ms\":" + stats_json(web.recompute_ms) +
              ",\"train_ms\":" + stats_json(web.train_ms) + training_json(web) + "}";
  return web.reply.c_str();
}

// The shown state as the desktop's session file.
EMSCRIPTEN_KEEPALIVE const char* smlab_session_json(std::uintptr_t handle) {
  WebApp& web = page(handle);
  web.reply = smlab::app::serialize_session(web.app->current_session());
  return web.reply.c_str();
}

// Opens a session file's text (picked or dropped, named `name`) through the desktop's checks:
// "" or the one line, also on the page. A bad file changes nothing.
EMSCRIPTEN_KEEPALIVE const char* smlab_load_session(std::uintptr_t handle, const char* text, const char* name) {
  WebApp& web = page(handle);
  const smlab::Result<smlab::app::Session> loaded = smlab::app::parse_session(
      text == nullptr ? "" : text, [](std::span<const std::string> specs, const std::string& tokens) {
        return smlab::app::load_import(specs, tokens);
      });
  const std::string file = name == nullptr ? "session.json" : name;
  if (!loaded) {
    web.reply = "'" + file + "': " + loaded.error().message;
    smlab::web::show_error(web.reply);
    return web.reply.c_str();
  }
  web.app->restore_session(*loaded);
  const smlab::i18n::Use language(web.app->language());
  web.app->report(smlab::i18n::format("app.status.loaded_session", {file}), false);
  smlab::web::show_error("");
  web.reply.clear();
  return web.reply.c_str();
}

// Imports files page.js wrote into the file system (`specs`: paths, one a line; `tokens`: a path or
// ""), as the desktop's File → Import does: "" or its one line (also in the App's status line and
// on the page).
EMSCRIPTEN_KEEPALIVE const char* smlab_import(std::uintptr_t handle, const char* specs, const char* tokens) {
  WebApp& web = page(handle);
  std::vector<std::string> paths;
  std::istringstream lines(specs == nullptr ? "" : specs);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) paths.push_back(line);
  const smlab::Result<void> imported = web.app->import_files(paths, tokens == nullptr ? "" : tokens);
  web.reply = imported.ok() ? std::string() : imported.error().message;
  smlab::web::show_error(web.reply);
  return web.reply.c_str();
}

// Which of the data files page.js is about to import (`specs`: paths, one a line) need their role
// said (import_files.hpp's roles_needed, as the window asks). JSON [true, false, …]; the page then
// asks, and imports FILE:ROLE.
EMSCRIPTEN_KEEPALIVE const char* smlab_import_roles_needed(std::uintptr_t handle, const char* specs) {
  WebApp& web = page(handle);
  std::istringstream lines(specs == nullptr ? "" : specs);
  std::vector<std::string> listed;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) listed.push_back(line);
  web.reply = "[";
  for (const bool needed : smlab::app::roles_needed(listed))
    web.reply += std::string(web.reply.size() > 1 ? "," : "") + (needed ? "true" : "false");
  web.reply += "]";
  return web.reply.c_str();
}

// Where the last frame put things, as JSON, for the browser test's checks of a phone's screen:
// the canvas's size in CSS px, the open drawer ([x0, y0, x1, y1] or null), every plot placed
// ({name, box}) and what could be seen of the lesson step's Next button and typed-guess field
// (null where nothing was), and the plot under the pointer ("" for none).
EMSCRIPTEN_KEEPALIVE const char* smlab_layout(std::uintptr_t handle) {
  WebApp& web = page(handle);
  const smlab::app::UiState& ui = web.app->ui();
  const auto box = [](ImVec2 min, ImVec2 max) { return nlohmann::json::array({min.x, min.y, max.x, max.y}); };
  const auto shown = [&](const smlab::app::LessonReport::Shown& item) {
    return item.empty() ? nlohmann::json() : box(item.min, item.max);
  };
  nlohmann::json layout = nlohmann::json::object();
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  layout["display"] = {display.x, display.y};
  layout["drawer"] = ui.drawer ? box(ui.drawer->first, ui.drawer->second) : nlohmann::json();
  nlohmann::json plots = nlohmann::json::array();
  for (const smlab::app::PlacedPlot& placed : ui.placed_plots)
    plots.push_back({{"name", placed.name}, {"box", box(placed.min, placed.max)}});
  layout["plots"] = plots;
  layout["next"] = shown(ui.lesson_report.next_button);
  layout["guess"] = shown(ui.lesson_report.guess_field);
  layout["hovered"] = ui.hovered_plot;
  web.reply = layout.dump();
  return web.reply.c_str();
}

// What the page offers for a CSV export, as JSON: the estimated size in bytes of the whole and of
// the subset (export_job.hpp), the sequence length and the pooled maps' side.
EMSCRIPTEN_KEEPALIVE const char* smlab_export_offer(std::uintptr_t handle) {
  WebApp& web = page(handle);
  const smlab::Params& params = web.app->ui().params;
  const double whole = static_cast<double>(smlab::app::estimated_csv_bytes(params));
  const int length = params.seq_len, factor = smlab::app::pooled_factor(length), side = (length + factor - 1) / factor;
  const double maps = 3.0 * length * length * 14.0, pooled = 2.0 * side * side * 12.0;
  char text[160];
  std::snprintf(text, sizeof text, "{\"bytes\":%.0f,\"subset_bytes\":%.0f,\"seq_len\":%d,\"side\":%d}", whole,
                std::max(whole - maps, 0.0) + pooled, length, side);
  web.reply = text;
  return web.reply.c_str();
}

// The desktop command that writes the whole export of the shown state (`kind` "csv" or "svg").
EMSCRIPTEN_KEEPALIVE const char* smlab_export_command(std::uintptr_t handle, const char* kind) {
  WebApp& web = page(handle);
  web.reply = smlab::web::export_command(*web.app, kind == nullptr || std::string(kind) != "svg");
  return web.reply.c_str();
}

// [SECTION] The font size and the address

// Pinch: the font scale `steps` quarter steps up or down (as Ctrl+= / Ctrl+−), within its range.
EMSCRIPTEN_KEEPALIVE void smlab_font_scale_step(std::uintptr_t handle, int steps) {
  smlab::app::UiState& ui = page(handle).app->ui();
  ui.font_scale = std::clamp(ui.font_scale + 0.25f * static_cast<float>(steps), smlab::app::font_scale_min,
                             smlab::app::font_scale_max);
}

// Back or Forward (page.js's popstate): the entry's address (`pairs_json`: [name, value, name,
// value, …]) through the same checks as at start (url_state.hpp's apply_url), shown as a session
// is restored. What it refuses is said as at start; the rest applies.
EMSCRIPTEN_KEEPALIVE void smlab_apply_address(std::uintptr_t handle, const char* pairs_json) {
  WebApp& web = page(handle);
  apply_pairs(web, pairs_of(pairs_json));
}

// [SECTION] A student's page in a class

// A student's page in a hosted class (page.js joins it; docs/ARCHITECTURE.md, "Hosting a
// class"). The teacher's state arrives as the address's settings and is applied through the same
// checks as an address (apply_pairs), in place: the history entry is replaced, and the student's own
// look (language, theme, font size, colours) stays. The step's answer is the App's guess, held
// unrevealed (LessonState::reveal_held) until the teacher's state says the step is revealed.

// The teacher's state: `pairs_json` the settings ([name, value, …]), `revealed` the lesson position
// (NAME:STEP) the teacher revealed or "", `force` 1 to apply even what was applied last (the
// student's "Follow the teacher" after exploring).
EMSCRIPTEN_KEEPALIVE void smlab_class_apply(std::uintptr_t handle, const char* pairs_json, const char* revealed,
                                            int force) {
  WebApp& web = page(handle);
  smlab::app::UiState& ui = web.app->ui();
  web.class_mode = true;
  ui.lesson.reveal_held = true;
  const std::string settings = pairs_json == nullptr ? "" : pairs_json;
  if (force != 0 || settings != web.class_settings) {
    // The student's answer on the step stays through the teacher's changes of that step.
    const auto position = ui.lesson.open;
    const std::optional<double> answer = ui.lesson.guess;
    std::vector<smlab::web::UrlPair> pairs = pairs_of(settings.c_str());
    for (smlab::web::UrlPair& pair : smlab::web::url_pairs(web.app->current_session(), false))
      if (smlab::web::look_setting(pair.name)) pairs.push_back(std::move(pair));
    // The teacher's shared data is read once, not again at each of the teacher's changes.
    apply_pairs(web, pairs, ui.params.imported);
    if (position && ui.lesson.open && position->lesson == ui.lesson.open->lesson &&
        position->step == ui.lesson.open->step)
      ui.lesson.guess = answer;
    web.class_settings = settings;
    web.class_shown = smlab::web::content_pairs(smlab::web::url_pairs(web.app->current_session(), false));
  }
  // The teacher revealed the step shown: revealed here too, beside the student's own answer.
  const std::string shown = smlab::web::lesson_position(ui);
  if (revealed != nullptr && !shown.empty() && shown == revealed && !ui.lesson.revealed) {
    ui.lesson.reveal_held = false;
    (void)smlab::app::commit_guess(ui, ui.lesson.guess);
    ui.lesson.reveal_held = true;
  }
}

// The open step's question in the App's language, as JSON: {"position","question","choices":
// [{"text","value"}…],"min","max","revealed","answer"}, or null when the step asks nothing.
EMSCRIPTEN_KEEPALIVE const char* smlab_class_question(std::uintptr_t handle) {
  WebApp& web = page(handle);
  const smlab::app::UiState& ui = web.app->ui();
  const smlab::app::LessonStep* step = smlab::app::current_step(ui);
  if (step == nullptr || !step->predict) {
    web.reply = "null";
    return web.reply.c_str();
  }
  const smlab::app::LessonPredict& predict = *step->predict;
  nlohmann::json question{{"position", smlab::web::lesson_position(ui)},
                          {"question", predict.question.in(web.app->language())},
                          {"choices", nlohmann::json::array()},
                          {"revealed", ui.lesson.revealed},
                          {"answer", ui.lesson.guess ? nlohmann::json(smlab::app::predict_guess(*ui.lesson.guess))
                                                     : nlohmann::json(nullptr)}};
  for (const double choice : predict.choices)
    question["choices"].push_back(
        {{"text", smlab::app::predict_number(choice)}, {"value", smlab::app::predict_guess(choice)}});
  if (predict.choices.empty()) {
    question["min"] = smlab::app::predict_number(predict.min);
    question["max"] = smlab::app::predict_number(predict.max);
  }
  web.reply = question.dump();
  return web.reply.c_str();
}

// The student's answer typed or picked on the page (`text`, as the canvas's field reads it:
// parse_guess), kept as the App's guess without revealing; "" clears it. "" or the refusal's line.
EMSCRIPTEN_KEEPALIVE const char* smlab_class_answer(std::uintptr_t handle, const char* text) {
  WebApp& web = page(handle);
  smlab::app::UiState& ui = web.app->ui();
  web.reply.clear();
  const std::string typed = text == nullptr ? "" : text;
  const smlab::app::LessonStep* step = smlab::app::current_step(ui);
  if (step == nullptr || !step->predict || ui.lesson.revealed) return web.reply.c_str();
  ui.lesson.reveal_held = true;
  if (typed.empty()) {
    ui.lesson.guess.reset();
    return web.reply.c_str();
  }
  const smlab::i18n::Use language(web.app->language());
  if (const smlab::Result<void> kept = smlab::app::commit_typed_guess(ui, typed); !kept)
    web.reply = kept.error().message;
  return web.reply.c_str();
}

// [SECTION] Keyboard navigation and the Chinese font

// Tab brought focus into the canvas (on) or a pointer pressed (off): Dear ImGui's own keyboard
// navigation, applied before the next frame (web_main.cpp).
EMSCRIPTEN_KEEPALIVE void smlab_keyboard_navigation(std::uintptr_t handle, int on) {
  page(handle).keyboard_navigation = on != 0;
}

// page.js fetched the full Chinese font into the file system (ok), or could not (`problem`).
EMSCRIPTEN_KEEPALIVE void smlab_chinese_font_loaded(std::uintptr_t handle, int ok, const char* problem) {
  WebApp& web = page(handle);
  web.chinese_font_pending = false;
  if (ok != 0) {
    web.chinese_font_ready = true;
    web.app->reload_fonts();  // the characters of an English page's Chinese tokens, too
    if (std::exchange(web.chinese_font_wanted, false)) web.app->ui().language = smlab::i18n::Language::Chinese;
    return;
  }
  web.chinese_font_wanted = false;
  const smlab::i18n::Use language(web.app->language());
  smlab::web::show_error(smlab::i18n::format("web.page.font_failed", {problem == nullptr ? "" : problem}));
}

}  // extern "C"
