// What the page's JavaScript (page.js) calls through Module.ccall: sessions in and out, imports,
// what an export offers (the export itself runs in a worker: export_worker.cpp), the Chinese font's
// arrival, pinch zoom, and the timings bench_page.py reads. Each takes the WebApp the page was handed at start
// (smlabStarted) and answers in WebApp::reply, valid until the next call.
#include <emscripten.h>

#include <algorithm>
#include <cstdio>
#include <span>
#include <sstream>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "state/import_files.hpp"
#include "state/session.hpp"
#include "export_job.hpp"
#include "web_app.hpp"

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

}  // namespace

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

// Pinch: the font scale `steps` quarter steps up or down (as Ctrl+= / Ctrl+−), within its range.
EMSCRIPTEN_KEEPALIVE void smlab_font_scale_step(std::uintptr_t handle, int steps) {
  smlab::app::UiState& ui = page(handle).app->ui();
  ui.font_scale = std::clamp(ui.font_scale + 0.25f * static_cast<float>(steps), smlab::app::font_scale_min,
                             smlab::app::font_scale_max);
}

// page.js fetched the full Chinese font into the file system (ok), or could not (`problem`).
EMSCRIPTEN_KEEPALIVE void smlab_chinese_font_loaded(std::uintptr_t handle, int ok, const char* problem) {
  WebApp& web = page(handle);
  web.chinese_font_pending = false;
  if (ok != 0) {
    web.chinese_font_ready = true;
    if (std::exchange(web.chinese_font_wanted, false)) web.app->ui().language = smlab::i18n::Language::Chinese;
    return;
  }
  web.chinese_font_wanted = false;
  const smlab::i18n::Use language(web.app->language());
  smlab::web::show_error(smlab::i18n::format("web.page.font_failed", {problem == nullptr ? "" : problem}));
}

}  // extern "C"
