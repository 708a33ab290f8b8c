// The web build's entry point (`make web`): the same App on the page's canvas, frames run by the
// browser (emscripten_set_main_loop), the start state from the page's URL checked as the command
// line's --view/--set/--lesson/--lang/--theme are, the state written back into the URL and the
// browser's storage, and files the app writes handed to the browser as downloads.
//
// [SECTION] Index
//   [SECTION] Page state and errors
//   [SECTION] The URL: reading the start state, writing the shown state
//   [SECTION] Downloads
//   [SECTION] One tick per browser frame
//   [SECTION] CSV and SVG exports
//   [SECTION] Functions the page calls
//   [SECTION] Entry point: start state, window, main loop
#include <emscripten.h>
#include <emscripten/html5.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "app.hpp"
#include "files/atomic_file.hpp"
#include "export/csv.hpp"
#include "plot_export.hpp"
#include "i18n/i18n.hpp"
#include "lessons/lessons.hpp"
#include "platform/window.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "state/start_state.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"

namespace fs = std::filesystem;

namespace {

// [SECTION] Page state and errors

// Where the app's own PNG/GIF exports land (its screenshot folder); each new file there is given to
// the browser as a download and removed. CSV/SVG exports of the page's buttons go there too.
const fs::path kDownloads = "/downloads";

// The page's state in the URL: NAME=VALUE pairs in order (the page's JavaScript splits the query).
struct UrlState {
  std::vector<std::pair<std::string, std::string>> pairs;
  bool any_state() const {
    return std::any_of(pairs.begin(), pairs.end(),
                       [](const auto& p) { return p.first != "lang" && p.first != "theme"; });
  }
};

struct WebApp {
  std::unique_ptr<smlab::platform::Window> window;
  std::unique_ptr<smlab::app::App> app;
  std::string url;         // the query last written to the address bar
  std::string saved;       // the session JSON last written to localStorage
  double last_save = 0.0;  // surface time of that write
  int export_count = 0;
  // Per tick (evaluation slice + frame) wall times and the recomputes' times, for smlab_timing().
  std::vector<double> tick_ms, recompute_ms;
  std::uint64_t seen_version = 0;
};
WebApp* web = nullptr;

// One line, as the command line prints it (main.cpp's fail()).
void show_error(const std::string& message) {
  const std::string line = "softmax-lab: " + message;
  std::fprintf(stderr, "%s\n", line.c_str());
  // JavaScript: clang-format would split its triple-equals operator.
  // clang-format off
  EM_ASM({ if (typeof smlabShowError === 'function') smlabShowError(UTF8ToString($0)); }, line.c_str());
  // clang-format on
}

// [SECTION] The URL: reading the start state, writing the shown state

// The URL's state on top of `options` (view, lesson, set, lang, theme), checked and applied as the
// command line's --view/--lesson/--set/--lang/--theme are (state/start_state.hpp: the same function
// and messages). On an error `options` is left as it was.
smlab::Result<void> apply_url_state(const UrlState& url, smlab::app::AppOptions& options) {
  smlab::app::AppOptions result = options;
  smlab::app::StartRequest request;
  for (const auto& [name, value] : url.pairs) {
    if (name == "view") {
      const smlab::Result<smlab::View> view = smlab::app::view_option(value);
      if (!view) return view.error();
      result.view = *view;
      request.given.view = true;
    } else if (name == "lesson") {
      request.lesson_spec = value;
    } else if (name == "set") {
      request.assignments.push_back(value);
    } else if (name == "lang") {
      const smlab::Result<smlab::i18n::Language> language = smlab::app::language_option(value);
      if (!language) return language.error();
      result.language = *language;
    } else if (name == "theme") {
      const smlab::Result<smlab::app::Theme> theme = smlab::app::theme_option(value);
      if (!theme) return theme.error();
      result.theme = *theme;
    } else {
      return smlab::Error::usage("'" + name.substr(0, 40) +
                                 "' is not a URL setting: allowed view, set, lesson, lang, theme");
    }
  }
  if (smlab::Result<void> resolved = smlab::app::resolve_start(request, result.presets, result.lessons, result);
      !resolved)
    return resolved;
  options = std::move(result);
  return {};
}

// The query that reopens what is shown: the view, every parameter that differs from its default
// (as --set takes it back) and the language. Imported data has no URL form and is left out.
std::string url_query(const smlab::app::App& app) {
  const smlab::app::Session session = app.current_session();
  std::string query = "?view=" + std::string(smlab::view_info(session.view).name);
  const smlab::Params defaults;
  for (const smlab::ParamKey& key : smlab::param_keys()) {
    const auto value = smlab::get_param(session.params, key.name);
    if (value && *value != smlab::get_param(defaults, key.name))
      query += "&set=" + std::string(key.name) + "=" + *value;
  }
  if (session.lesson) query += "&lesson=" + session.lesson->name + ":" + std::to_string(session.lesson->step);
  if (session.language && *session.language != smlab::i18n::Language::English)
    query += "&lang=" + std::string(smlab::i18n::language_code(*session.language));
  return query;
}

// [SECTION] Downloads

void offer_downloads() {
  std::error_code error;
  if (!fs::is_directory(kDownloads, error)) return;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(kDownloads, error))
    if (entry.is_regular_file() && entry.path().filename().native().front() != '.') files.push_back(entry.path());
  for (const fs::path& file : files) {
    EM_ASM({ smlabDownload(UTF8ToString($0)); }, file.c_str());
    fs::remove(file, error);
  }
}

// [SECTION] One tick per browser frame

void tick() {
  WebApp& state = *web;
  // The canvas follows the page's size (CSS pixels).
  double css_width = 0.0, css_height = 0.0;
  emscripten_get_element_css_size("#canvas", &css_width, &css_height);
  int width = 0, height = 0;
  glfwGetWindowSize(state.window->glfw_window(), &width, &height);
  const int wanted_width = std::max(320, static_cast<int>(css_width)),
            wanted_height = std::max(240, static_cast<int>(css_height));
  if (wanted_width != width || wanted_height != height)
    glfwSetWindowSize(state.window->glfw_window(), wanted_width, wanted_height);
  // One slice of evaluation between frames (newest submission wins), then the frame.
  const auto start = std::chrono::steady_clock::now();
  state.app->evaluator().wait_for_latest(std::chrono::microseconds(0));
  if (!state.app->frame()) {
    // File > Quit / Ctrl+Q: a page cannot close its own tab. Keep running, save the session to the
    // browser's storage now (a reload restores it) and say so, instead of freezing the page.
    glfwSetWindowShouldClose(state.window->glfw_window(), GLFW_FALSE);
    state.saved = smlab::app::serialize_session(state.app->current_session());
    EM_ASM(
        {
          try {
            localStorage.setItem('softmax-lab-session', UTF8ToString($0));
          } catch (e) {
          }
        },
        state.saved.c_str());
    const smlab::i18n::Use language(state.app->language());
    state.app->report(smlab::i18n::tr("web.status.quit"), false);
  }
  if (state.tick_ms.size() < 100000)
    state.tick_ms.push_back(
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  if (const auto version = state.app->evaluator().latest().version; version != state.seen_version) {
    state.seen_version = version;
    if (state.recompute_ms.size() < 100000) state.recompute_ms.push_back(state.app->evaluator().last_compute_ms());
  }
  offer_downloads();
  // The address bar and the browser's storage follow the state (storage at most twice a second).
  if (std::string query = url_query(*state.app); query != state.url) {
    state.url = std::move(query);
    EM_ASM({ history.replaceState(null, document.title, UTF8ToString($0)); }, state.url.c_str());
  }
  const double now = state.window->time_seconds();
  if (now - state.last_save > 0.5) {
    state.last_save = now;
    if (std::string json = smlab::app::serialize_session(state.app->current_session()); json != state.saved) {
      state.saved = std::move(json);
      EM_ASM(
          {
            try {
              localStorage.setItem('softmax-lab-session', UTF8ToString($0));
            } catch (e) {
            }
          },
          state.saved.c_str());
    }
  }
}

// [SECTION] CSV and SVG exports

// Files of one export (CSV or SVG) of the shown state, made as `softmax-lab --export-csv DIR` and
// `--export-svg DIR` make them, in a new folder; returns the folder, or "" after showing the error.
std::string export_files(const std::string& kind) {
  const smlab::Params params = web->app->ui().params;
  smlab::EvaluateOptions evaluate_options;
  evaluate_options.all_labs = true;
  evaluate_options.dk_trials = smlab::app::headless_refine_trials(params.seq_len);
  const smlab::Snapshot snapshot = *smlab::evaluate(params, evaluate_options);
  const fs::path dir = "/exports/" + kind + "-" + std::to_string(++web->export_count);
  if (smlab::Result<void> made = smlab::exporting::ensure_directory(dir); !made.ok()) {
    show_error(made.error().message);
    return {};
  }
  smlab::exporting::FileBatch batch(false);
  if (kind == "csv") {
    const auto result = smlab::exporting::export_csv(snapshot, dir, {}, &batch);
    if (!result) return show_error(result.error().message), std::string{};
    const auto labs = smlab::exporting::export_lab_csv(snapshot, dir, false, &batch);
    if (!labs) return show_error(labs.error().message), std::string{};
  } else {
    smlab::plot::Style style = smlab::plot::light_style();
    style.sequential_colormap = web->app->ui().interaction.colormap;
    const smlab::i18n::Language language = web->app->language();  // the page's: the SVGs show what it shows
    if (language == smlab::i18n::Language::Chinese)
      style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
    const auto result = smlab::exporting::export_svg(snapshot, dir, false, style, language, 640.0f, 440.0f, &batch);
    if (!result) return show_error(result.error().message), std::string{};
  }
  if (smlab::Result<void> committed = batch.commit(); !committed.ok())
    return show_error(committed.error().message), std::string{};
  return dir.string();
}

}  // namespace

// [SECTION] Functions the page calls

// Called by the page (index.html) through Module.ccall.
extern "C" {

// CSV or SVG files of the shown state: the folder in the page's file system holding them ("" on
// error). The page offers each as a download; the browser test reads the CSVs.
EMSCRIPTEN_KEEPALIVE const char* smlab_export(const char* kind) {
  static std::string dir;
  dir = export_files(kind == nullptr ? "csv" : kind);
  return dir.c_str();
}

// Median and 95th percentile of the ticks (evaluation slice + frame, ms) and recomputes since the
// last call, as JSON; tests/web/bench_page.py reads it while it drags a slider.
EMSCRIPTEN_KEEPALIVE const char* smlab_timing() {
  static std::string json;
  const auto stats = [](std::vector<double>& values) {
    if (values.empty()) return std::string("null");
    std::sort(values.begin(), values.end());
    char text[96];
    std::snprintf(text, sizeof text, "{\"count\":%zu,\"median\":%.3f,\"p95\":%.3f}", values.size(),
                  values[values.size() / 2], values[std::min(values.size() - 1, values.size() * 95 / 100)]);
    values.clear();
    return std::string(text);
  };
  json = "{\"tick_ms\":" + stats(web->tick_ms) + ",\"recompute_ms\":" + stats(web->recompute_ms) + "}";
  return json.c_str();
}

// The shown state as session JSON (the desktop's session file format).
EMSCRIPTEN_KEEPALIVE const char* smlab_session_json() {
  static std::string json;
  json = smlab::app::serialize_session(web->app->current_session());
  return json.c_str();
}

// Opens a session file's text (an upload); returns "" or the one-line error, also shown on the page.
EMSCRIPTEN_KEEPALIVE const char* smlab_load_session(const char* text) {
  static std::string error;
  error.clear();
  const smlab::Result<smlab::app::Session> loaded = smlab::app::parse_session(text == nullptr ? "" : text);
  if (!loaded) {
    error = "session: " + loaded.error().message;
    show_error(error);
  } else {
    web->app->restore_session(*loaded);
  }
  return error.c_str();
}

}  // extern "C"

// [SECTION] Entry point: start state, window, main loop

int main(int argc, char** argv) {
  ::setenv("SOFTMAX_LAB_ASSETS", "/assets", 0);
  UrlState url;
  for (int i = 1; i + 1 < argc; i += 2) url.pairs.emplace_back(argv[i], argv[i + 1]);

  const fs::path assets = smlab::app::find_assets_dir();
  smlab::app::AppOptions options;
  options.presets = smlab::app::load_presets(assets / "presets.json");
  options.lessons = smlab::app::load_lessons(assets / "lessons");
  options.screenshot_dir = kDownloads.string();
  if (const std::string error = smlab::i18n::load_catalogue(assets); !error.empty()) show_error(error);

  // A URL with state wins; else the last session in this browser's storage; else the defaults.
  smlab::Result<void> refused;
  if (!url.pairs.empty()) refused = apply_url_state(url, options);
  if (!url.any_state()) {
    // JavaScript: clang-format would split its triple-equals operator.
    // clang-format off
    char* stored = reinterpret_cast<char*>(EM_ASM_INT({
      var text = null;
      try { text = localStorage.getItem('softmax-lab-session'); } catch (e) {}
      return text === null ? 0 : stringToNewUTF8(text);
    }));
    // clang-format on
    if (stored != nullptr) {
      const smlab::Result<smlab::app::Session> last = smlab::app::parse_session(stored);
      std::free(stored);
      if (last) {
        options.params = last->params;
        options.view = last->view;
        if (last->language) options.language = *last->language;
        if (last->theme) options.theme = smlab::app::theme_from_name(*last->theme).value_or(options.theme);
        if (last->lesson)
          if (const auto index = smlab::app::find_lesson(options.lessons, last->lesson->name);
              index && static_cast<std::size_t>(last->lesson->step) <= options.lessons.lessons[*index].steps.size())
            options.lesson = smlab::app::LessonPosition{*index, static_cast<std::size_t>(last->lesson->step - 1)};
      }
    }
  }
  // No process-wide language: the App draws in options.language (its UiState) and the exports take it from the App.

  web = new WebApp();
  smlab::platform::WindowOptions window_options;
  double css_width = 1280.0, css_height = 800.0;
  emscripten_get_element_css_size("#canvas", &css_width, &css_height);
  window_options.width = std::max(320, static_cast<int>(css_width));
  window_options.height = std::max(240, static_cast<int>(css_height));
  auto created = smlab::platform::Window::create(window_options);
  if (!created) {
    show_error(created.error().message);
    return smlab::exit_code(created.error().kind);
  }
  web->window = std::move(*created);
  web->app = std::make_unique<smlab::app::App>(*web->window, options);
  if (!web->app->font_warning().empty()) show_error(web->app->font_warning());
  if (!web->app->language_warning().empty()) show_error(web->app->language_warning());
  if (!refused) {
    show_error(refused.error().message);
    web->app->report(refused.error().message, true);
  }
  emscripten_set_main_loop(tick, 0, false);
  return 0;
}
