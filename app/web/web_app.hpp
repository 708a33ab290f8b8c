// The web page's state between browser frames (web_main.cpp runs it; page_calls.cpp answers the
// page's JavaScript): the App on the canvas, the address, the browser's storage, the page's words
// and text mirror, and the timings bench_page.py reads. (Exports run in a Web Worker of their own:
// export_worker.cpp.)
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "frame/app.hpp"
#include "platform/window.hpp"
#include "frame/url_state.hpp"

namespace smlab::web {

// Exports whose CSV text is estimated above this are offered as the subset, or streamed whole to a
// file the student picks where the browser can (File System Access): below it the zip is built in
// the browser's memory (a deflated third of this at most). L ≤ 2500 stays below. page.js holds
// the same number.
inline constexpr std::uint64_t whole_export_limit_bytes = 256'000'000;
// Imported files up to this size in all are kept in the browser's storage (IndexedDB) and come
// back after a reload (page.js holds the same number).
inline constexpr double kept_import_limit_bytes = 64e6;

struct WebApp {
  std::unique_ptr<platform::Window> window;
  std::unique_ptr<app::App> app;

  // The address: the settings shown at start, and those refused then (kept in the address bar
  // until the user sets them: url_state.hpp's address_pairs).
  std::vector<UrlPair> start_pairs;
  std::vector<RefusedSetting> refused;
  std::string address;  // the query last written to the address bar
  // The view and lesson step of the browser's history entry shown (url_state.hpp's history_key):
  // another one is a new entry, so Back returns to this one.
  std::string history_key;
  // What a history entry's address is applied to (Back, Forward): the presets and lessons offered.
  app::AppOptions base_options;

  // The session last written to the browser's storage, and when (surface time).
  std::string saved;
  double last_save = 0.0;

  // The page's words (HTML bar, dialogs) are in this language; the Chinese font.
  std::optional<i18n::Language> words_language;
  bool chinese_font_ready = false;    // the full Chinese font is in the file system
  bool chinese_font_pending = false;  // page.js is fetching it
  bool chinese_font_wanted = false;   // Chinese was chosen before it arrived

  // The text mirror last sent to the page, and when.
  std::string mirror;
  double last_mirror = 0.0, last_mirror_sent = -1.0;

  // Frames are drawn only when something may have changed (as the desktop's window sleeps between
  // events): a few after any input, when App::idle_wait_seconds asks, when a new Snapshot is there.
  int settle_frames = 3;
  double next_frame_at = 0.0;  // surface time; infinity: on input only
  std::uint64_t drawn_version = 0;
  std::uint64_t drawn_training_version = 0;  // the training lab's picture (Trainer::Published)
  double last_input = -1.0;                  // surface time of the last input page.js counted

  // Dear ImGui's keyboard navigation is on: the student came into the canvas with Tab.
  bool keyboard_navigation = false;
  // One of the app's text fields has the keys (ImGui's WantTextInput), as the page was last told.
  bool text_field_active = false;

  // The canvas's CSS size and device pixel ratio last applied.
  int css_width = 0, css_height = 0;
  double pixel_ratio = 0.0;
  bool first_frame_reported = false;

  // A class (page.js joined one; page_calls.cpp's smlab_class_*): the teacher's settings last
  // applied, what they left shown (the student follows while the page shows that), whether the page
  // was last told it follows, and the answer last handed to it to send (NAME:STEP:GUESS or "").
  bool class_mode = false;
  std::string class_settings;
  std::vector<UrlPair> class_shown;
  bool class_following = true;
  std::string class_answer;

  // The text a call from the page returns (page_calls.cpp): valid until the next call.
  std::string reply;

  // Per tick: its wall time (evaluation slice + frame + the rest), the evaluation slice's and the
  // App frame's; the recomputes' times.
  std::vector<double> tick_ms, evaluate_ms, frame_ms, recompute_ms;
  // The training lab's slices between frames (pump): their wall times.
  std::vector<double> train_ms;
  std::uint64_t seen_version = 0;
};

// One line on stderr and in the page's error bar (as the command line prints: "softmax-lab: …").
void show_error(const std::string& message);
// A status line on the page's bar (not an error).
void show_status(const std::string& message);

// The command line that reopens the shown state for an export ("softmax-lab --set seq_len=4096 …
// --export-csv DIR"), for the subset's README and the page's offer.
std::string export_command(const app::App& app, bool csv);

}  // namespace smlab::web
