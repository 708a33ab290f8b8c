// The web build's entry point (`make web`): the same App on the page's canvas, frames run by the
// browser (emscripten_set_main_loop_arg), the start state from the page's address (url_state.hpp:
// each setting checked as the command line checks it, a bad one skipped) or from the session kept in
// the browser's storage, and between frames: the address and the storage following the shown state,
// file requests handed to the page's pickers, and the page's words and text mirror in the App's
// language (page.js shows them). Started as a Web Worker (export-worker.js: "--export-worker") the
// same program makes the page's exports instead (export_worker.cpp).
//
// [SECTION] Index
//   [SECTION] Messages, downloads and the export command
//   [SECTION] Between frames: canvas size, the Chinese font, file requests
//   [SECTION] Between frames: address, storage, words and mirror
//   [SECTION] One tick per browser frame
//   [SECTION] Entry point: start state, window, main loop
#include <emscripten.h>
#include <emscripten/html5.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "i18n/i18n.hpp"
#include "lessons/lessons.hpp"
#include "page_text.hpp"
#include "panels/panels.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"
#include "state/import_files.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "state/start_state.hpp"
#include "web_app.hpp"
#include "export_worker.hpp"

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace smlab::web {

// [SECTION] Messages, downloads and the export command

// Where the app's own PNG/GIF exports land (its screenshot folder): each new file there is handed
// to the browser as a download and removed.
const char* const downloads_dir = "/downloads";
// The training lab's share of a tick while it trains: with the frame's own ~5-8 ms the page stays
// near 60 frames a second, and trains about half of each frame (docs/TRAINING.md measures it).
constexpr std::chrono::milliseconds training_slice{10};
// Its share while the student drags, types or presses (input in the last quarter second, or a
// button held): the input's frames come first, so a drag keeps the frames of a paused lab while
// the training goes on at about a quarter of its pace (docs/PERFORMANCE.md, "Dragging while the
// training lab trains").
constexpr std::chrono::milliseconds training_slice_in_input{2};
constexpr double input_lasts_seconds = 0.25;
// The recompute's share of a tick (Evaluator::Pace::sliced): phases start while it has used less.
constexpr std::chrono::milliseconds evaluation_slice{4};

void show_error(const std::string& message) {
  const std::string line = message.empty() ? std::string() : "softmax-lab: " + message;
  if (!line.empty()) std::fprintf(stderr, "%s\n", line.c_str());
  EM_ASM({ smlabShowError(UTF8ToString($0)); }, line.c_str());
}

void show_status(const std::string& message) {
  EM_ASM({ smlabShowStatus(UTF8ToString($0)); }, message.c_str());
}

std::string export_command(const app::App& app, bool csv) {
  const app::Session session = app.current_session();
  // A value the shell would split or expand is quoted.
  const auto quoted = [](const std::string& text) {
    if (text.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.,:=+-/") ==
        std::string::npos)
      return text;
    std::string out = "'";
    for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  };
  std::string command = "softmax-lab";
  for (const UrlPair& pair : url_pairs(session, false))
    if (pair.name == "set") command += " --set " + quoted(pair.value);
  for (const std::string& spec : session.imports) command += " --import " + quoted(fs::path(spec).filename().string());
  if (!session.import_tokens.empty())
    command += " --tokens " + quoted(fs::path(session.import_tokens).filename().string());
  if (!session.pins.empty() || !csv) command += " --load SESSION.json";
  return command + (csv ? " --export-csv DIR" : " --export-svg DIR");
}

namespace {

void offer_downloads() {
  std::error_code error;
  if (!fs::is_directory(downloads_dir, error)) return;
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(downloads_dir, error))
    if (entry.is_regular_file() && entry.path().filename().native().front() != '.') files.push_back(entry.path());
  for (const fs::path& file : files) {
    EM_ASM({ smlabDownload(UTF8ToString($0)); }, file.c_str());
    fs::remove(file, error);
  }
}

// [SECTION] Between frames: canvas size, the Chinese font, file requests

// The window follows the canvas's CSS size, and its backing store that times the device pixel ratio
// (library_page.js): ImGui's DisplayFramebufferScale is then the ratio, and the App rebuilds its
// fonts for it (text is crisp at DPR 2).
void fit_canvas(WebApp& web) {
  double css_width = 0.0, css_height = 0.0;
  emscripten_get_element_css_size("#canvas", &css_width, &css_height);
  const int width = std::max(240, static_cast<int>(css_width)), height = std::max(240, static_cast<int>(css_height));
  const double ratio = emscripten_get_device_pixel_ratio();
  if (width == web.css_width && height == web.css_height && ratio == web.pixel_ratio) return;
  web.css_width = width;
  web.css_height = height;
  web.pixel_ratio = ratio;
  glfwSetWindowSize(web.window->glfw_window(), width, height);
}

// The page ships a Chinese font of just "简体中文" (the language combo's word); the full one (the
// tables' and lessons' characters and the 3755 common ones, ~0.4 MB) comes when Chinese is chosen.
// Until it is in, the App stays in the language it shows.
void hold_chinese_until_font(WebApp& web) {
  app::UiState& ui = web.app->ui();
  if (web.chinese_font_ready || ui.language != i18n::Language::Chinese) return;
  ui.language = web.app->language();
  web.chinese_font_wanted = true;
  if (web.chinese_font_pending) return;
  web.chinese_font_pending = true;
  EM_ASM({ smlabLoadChineseFont(); });
}

// Text drawn in either language that needs the full Chinese font (the language model's corpus on
// lesson 13, Chinese token labels), in an English page too: fetched once; when it is in, the App
// reads its fonts again (smlab_chinese_font_loaded) and those characters show instead of '?'.
void fetch_font_for_glyphs(WebApp& web) {
  if (web.chinese_font_ready || web.chinese_font_pending || !web.app->extra_glyphs_need_cjk()) return;
  web.chinese_font_pending = true;
  EM_ASM({ smlabLoadChineseFont(); });
}

// File → Save/Open session (Ctrl+S, Ctrl+O) and File → Import: the page's own pickers
// (AppOptions::files_by_host). Called right after the frame that took the click or key, so the
// browser still counts the user's gesture and lets a file dialog open.
void take_file_requests(WebApp& web) {
  app::InteractionUi& requests = web.app->ui().interaction;
  if (requests.commands.take(app::Command::save_session)) EM_ASM({ smlabSaveSession(); });
  if (requests.commands.take(app::Command::open_session)) EM_ASM({ smlabOpenSession(); });
  if (requests.commands.take(app::Command::import_files)) EM_ASM({ smlabImportFiles(); });
}

// [SECTION] Between frames: address, storage, words and mirror

void keep_in_storage(const std::string& json) {
  EM_ASM(
      {
        try {
          localStorage.setItem('softmax-lab-session', UTF8ToString($0));
        } catch (e) {
        }
      },
      json.c_str());
}

// In a class: whether the page still shows the teacher's state (the student may explore on their
// own copy; page.js then offers to follow again), and the answer to send when the App's guess on
// the step changed (from the canvas or the page's own answer controls: one path).
void follow_class(WebApp& web, const std::vector<UrlPair>& shown, bool animating) {
  const app::UiState& ui = web.app->ui();
  if (!animating) {
    const bool following = content_pairs(shown) == web.class_shown;
    if (following != web.class_following) {
      web.class_following = following;
      EM_ASM({ smlabClassFollowing($0); }, following ? 1 : 0);
    }
  }
  const std::string position = lesson_position(ui);
  std::string answer = !position.empty() && ui.lesson.guess && !ui.lesson.revealed
                           ? position + ":" + app::predict_guess(*ui.lesson.guess)
                           : std::string();
  if (answer != web.class_answer) {
    web.class_answer = std::move(answer);
    EM_ASM({ smlabClassAnswered(UTF8ToString($0)); }, web.class_answer.c_str());
  }
}

void follow_state(WebApp& web) {
  app::App& app = *web.app;
  const app::UiState& ui = app.ui();
  const double now = web.window->time_seconds();
  // The address: at once at rest; at most 4 times a second while something animates (the browser
  // throttles pages that rewrite their address every frame).
  const bool animating = ui.lesson.animating || ui.interaction.sweep_playing || ui.interaction.gif_recording;
  const app::Session session = app.current_session();
  const std::vector<UrlPair> shown = url_pairs(session, animating);
  // A new view or lesson step the user made is a new history entry (pushState); any other change
  // rewrites the entry shown (replaceState), so Back and Forward step through views and steps.
  if (std::string query = url_query(address_pairs(shown, web.start_pairs, web.refused)); query != web.address) {
    web.address = std::move(query);
    std::string key = history_key(shown);
    const bool push = key != web.history_key;
    web.history_key = std::move(key);
    EM_ASM({ smlabSetAddress(UTF8ToString($0), $1, $2); }, web.address.c_str(), animating ? 250 : 0, push ? 1 : 0);
  }
  if (web.class_mode) follow_class(web, shown, animating);
  // The browser's storage: at most twice a second.
  if (now - web.last_save > 0.5) {
    web.last_save = now;
    if (std::string json = app::serialize_session(session); json != web.saved) {
      web.saved = std::move(json);
      keep_in_storage(web.saved);
    }
  }
  // The page's words follow the App's language.
  if (web.words_language != app.language()) {
    web.words_language = app.language();
    const std::string words = page_words_json(app.language());
    EM_ASM({ smlabSetWords(UTF8ToString($0), UTF8ToString($1)); }, i18n::language_code(app.language()), words.c_str());
  }
  // The text mirror, a polite live region a screen reader speaks: looked at 4 times a second, and
  // sent when it changed, at most once a second (a sweep or a training run changes it every frame;
  // speech that is replaced 7 times a second is never heard).
  if (now - web.last_mirror > 0.25 && now - web.last_mirror_sent >= 1.0) {
    web.last_mirror = now;
    const bool compact = web.css_width < app::compact_layout_width;
    if (std::string mirror = mirror_json(app, compact); mirror != web.mirror) {
      web.mirror = std::move(mirror);
      web.last_mirror_sent = now;
      EM_ASM({ smlabMirror(UTF8ToString($0)); }, web.mirror.c_str());
    }
  }
}

// Dear ImGui's own keyboard navigation (arrows move between the widgets, Space presses, Enter
// types) while the student came into the canvas with Tab (page.js: smlab_keyboard_navigation); a
// mouse press gives the arrows and Space back to the app's shortcuts (lesson steps, nudges, the
// sweep). PageUp/PageDown step lessons in both.
void keyboard_navigation(WebApp& web) {
  ImGui::SetCurrentContext(web.window->imgui_context());
  ImGuiIO& io = ImGui::GetIO();
  if (web.keyboard_navigation)
    io.ConfigFlags |= ImGuiConfigFlags_NavEnableKeyboard;
  else
    io.ConfigFlags &= ~ImGuiConfigFlags_NavEnableKeyboard;
}

// One of the app's text fields took the keys (or gave them back): the page focuses a real input
// for a touch screen's keyboard (page.js: smlabTextEntry).
void follow_text_field(WebApp& web) {
  ImGui::SetCurrentContext(web.window->imgui_context());
  const bool typing = ImGui::GetIO().WantTextInput;
  if (typing == web.text_field_active) return;
  web.text_field_active = typing;
  EM_ASM({ smlabTextEntry($0); }, typing ? 1 : 0);
}

// [SECTION] One tick per browser frame

void tick(void* argument) {
  WebApp& web = *static_cast<WebApp*>(argument);
  const auto start = Clock::now();
  const int width = web.css_width, height = web.css_height;
  const double ratio = web.pixel_ratio;
  fit_canvas(web);
  hold_chinese_until_font(web);
  fetch_font_for_glyphs(web);
  // Input since the last tick (page.js counts it: mouse, keys, wheel, touch, drops, its own calls).
  const bool input = EM_ASM_INT({
                       const seen = Module.smlabInputSeen | 0;
                       Module.smlabInputSeen = 0;
                       return seen;
                     }) != 0;
  if (input || width != web.css_width || height != web.css_height || ratio != web.pixel_ratio) web.settle_frames = 3;
  // One slice of evaluation between frames (newest submission wins); nothing to do costs nothing.
  // Phases start while the slice has used under 4 ms: with the frame's 3-6 ms and a phase of up to
  // ~8 ms at L = 1024 the tick stays within a 60 Hz frame, and a small recompute completes in one.
  web.app->evaluator().wait_for_latest(evaluation_slice);
  const auto evaluated = Clock::now();
  // Then the training lab's slice, when it trains (shown and running): the desktop's worker thread
  // trains beside the frames; here a slice of each tick does (Trainer::pump: its runner is pumped).
  std::uint64_t training_version = 0;
  if (app::Trainer* trainer = web.app->trainer(); trainer != nullptr) {
    const double seconds = web.window->time_seconds();
    if (input) web.last_input = seconds;
    ImGui::SetCurrentContext(web.window->imgui_context());
    const bool held = ImGui::GetIO().MouseDown[0] || ImGui::GetIO().MouseDown[1];
    const bool busy = held || (web.last_input >= 0.0 && seconds - web.last_input < input_lasts_seconds);
    if (trainer->pump(busy ? training_slice_in_input : training_slice) && web.train_ms.size() < 100000)
      web.train_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - evaluated).count());
    training_version = trainer->latest().version;
  }
  const double now = web.window->time_seconds();
  const std::uint64_t version = web.app->evaluator().latest().version;
  // A frame when something may have changed: ImGui settles an input over a few frames, the App says
  // when it animates (0), blinks or fades (seconds) or rests (negative), a new Snapshot or training
  // picture is shown.
  if (web.settle_frames == 0 && now < web.next_frame_at && version == web.drawn_version &&
      training_version == web.drawn_training_version && !web.window->has_queued_keys()) {
    follow_state(web);
    return;
  }
  web.settle_frames = std::max(0, web.settle_frames - 1);
  keyboard_navigation(web);
  web.drawn_version = version;
  web.drawn_training_version = training_version;
  const bool running = web.app->frame();
  const auto framed = Clock::now();
  const double wait = web.app->idle_wait_seconds();
  web.next_frame_at = wait < 0.0 ? std::numeric_limits<double>::infinity() : now + wait;
  if (!running) {
    // File > Quit / Ctrl+Q: a page cannot close its own tab. Keep running, keep the session in the
    // browser's storage now (a reload restores it) and say so, instead of freezing the page.
    glfwSetWindowShouldClose(web.window->glfw_window(), GLFW_FALSE);
    web.saved = app::serialize_session(web.app->current_session());
    keep_in_storage(web.saved);
    const i18n::Use language(web.app->language());
    web.app->report(i18n::tr("web.status.quit"), false);
    web.settle_frames = 3;
  }
  take_file_requests(web);
  follow_text_field(web);
  if (web.tick_ms.size() < 100000) {
    const auto ms = [](auto duration) { return std::chrono::duration<double, std::milli>(duration).count(); };
    web.tick_ms.push_back(ms(Clock::now() - start));
    web.evaluate_ms.push_back(ms(evaluated - start));
    web.frame_ms.push_back(ms(framed - evaluated));
  }
  if (version != web.seen_version) {
    web.seen_version = version;
    if (web.recompute_ms.size() < 100000) web.recompute_ms.push_back(web.app->evaluator().last_compute_ms());
  }
  offer_downloads();
  follow_state(web);
  if (!web.first_frame_reported && web.app->showing_snapshot()) {
    web.first_frame_reported = true;
    EM_ASM({ smlabFirstFrame(); });
  }
}

}  // namespace
}  // namespace smlab::web

// [SECTION] Entry point: start state, window, main loop

int main(int argc, char** argv) {
  using namespace smlab;
  using namespace smlab::web;
  ::setenv("SOFTMAX_LAB_ASSETS", "/assets", 0);
  if (argc == 2 && std::string(argv[1]) == "--export-worker") return run_export_worker();
  std::vector<UrlPair> pairs;
  for (int i = 1; i + 1 < argc; i += 2) pairs.push_back({argv[i], argv[i + 1]});
  const bool address_has_state =
      std::any_of(pairs.begin(), pairs.end(), [](const UrlPair& pair) { return !look_setting(pair.name); });

  const fs::path assets = app::find_assets_dir();
  app::AppOptions options;
  options.presets = app::load_presets(assets / "presets.json");
  options.lessons = app::load_lessons(assets / "lessons");
  options.screenshot_dir = downloads_dir;
  options.files_by_host = true;
  options.live_training = true;  // the training lab trains between the page's frames (Trainer::pump)
  // A narrow page (a phone) starts with the compact layout's drawer closed (panels.hpp).
  double page_width = 0.0, page_height = 0.0;
  emscripten_get_element_css_size("#canvas", &page_width, &page_height);
  if (page_width < app::compact_layout_width) options.controls_shown = false;
  if (const Result<void> loaded = i18n::load_catalogue(assets); !loaded) show_error(loaded.error().message);

  // An address with state wins; else the session in this browser's storage (its imported files,
  // kept by page.js in IndexedDB, are back in import_dir); the address's look goes on top of either.
  std::string storage_problem;
  if (!address_has_state) {
    // clang-format off
    char* stored = reinterpret_cast<char*>(EM_ASM_INT({
      var text = null;
      try { text = localStorage.getItem('softmax-lab-session'); } catch (e) {}
      return text === null ? 0 : stringToNewUTF8(text);
    }));
    // clang-format on
    if (stored != nullptr) {
      const Result<app::Session> last =
          app::parse_session(stored, [](std::span<const std::string> specs, const std::string& tokens) {
            return app::load_import(specs, tokens);
          });
      std::free(stored);
      if (last) {
        if (Result<void> applied = app::apply_session(*last, options.lessons, app::SessionGiven{}, options); !applied)
          storage_problem = applied.error().message;
        if (!last->import_warning.empty()) storage_problem = last->import_warning;
      }
    }
  }
  const UrlStart start = apply_url(pairs, options);

  auto* web = new WebApp();  // lives as long as the page; page.js holds its address
  web->chinese_font_ready = EM_ASM_INT({ return Module.smlabChineseFontLoaded ? 1 : 0; }) != 0;
  if (options.language == i18n::Language::Chinese && !web->chinese_font_ready) {
    options.language = i18n::Language::English;  // page.js said why it could not load the font
    web->chinese_font_wanted = true;
  }

  platform::WindowOptions window_options;
  double css_width = 1280.0, css_height = 800.0;
  emscripten_get_element_css_size("#canvas", &css_width, &css_height);
  window_options.width = std::max(240, static_cast<int>(css_width));
  window_options.height = std::max(240, static_cast<int>(css_height));
  auto created = platform::Window::create(window_options);
  if (!created) {
    show_error(created.error().message);
    return exit_code(created.error().kind);
  }
  web->window = std::move(*created);
  fit_canvas(*web);  // the backing store at the device pixel ratio before the App makes its fonts
  web->app = std::make_unique<app::App>(*web->window, options);
  if (!web->app->font_warning().empty()) show_error(web->app->font_warning());
  if (!web->app->language_warning().empty()) show_error(web->app->language_warning());
  web->start_pairs = url_pairs(web->app->current_session(), false);
  web->history_key = history_key(web->start_pairs);
  web->base_options.presets = options.presets;
  web->base_options.lessons = options.lessons;
  web->base_options.files_by_host = true;
  web->refused = start.refused;
  if (const std::string summary = refused_summary(start.refused, web->app->language()); !summary.empty()) {
    show_error(summary);
    web->app->report(summary, true);
  } else if (!storage_problem.empty()) {
    show_error(storage_problem);
  }
  EM_ASM({ smlabStarted($0); }, web);
  emscripten_set_main_loop_arg(tick, web, 0, false);
  return 0;
}
