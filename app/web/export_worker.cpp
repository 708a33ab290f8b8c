// The export worker (export_worker.hpp): the session's state through the desktop's session checks,
// then an ExportJob run to the end, its progress and pieces posted to the page (export-worker.js
// batches them).
#include "export_worker.hpp"

#include <emscripten.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <span>
#include <string>

#include "export/export_job.hpp"
#include "zip_stream.hpp"
#include "i18n/i18n.hpp"
#include "plot/color.hpp"
#include "state/import_files.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"

namespace smlab::web {

int run_export_worker() {
  if (const Result<void> loaded = i18n::load_catalogue(app::find_assets_dir()); !loaded)
    std::fprintf(stderr, "softmax-lab: %s\n", loaded.error().message.c_str());
  EM_ASM({ smlabWorkerReady(); });
  return 0;
}

}  // namespace smlab::web

extern "C" {

// Exports `session_json` (the page's session: Params, pins, colormap, colour scales, language; its
// imported files already written into this worker's file system at their paths) as `kind` ("csv"
// or "svg"), the whole or (`whole` 0, CSV) the subset, `command` being the desktop command for the
// README. Posts smlabWorkerBytes pieces, smlabWorkerProgress, then smlabWorkerDone(files, error).
EMSCRIPTEN_KEEPALIVE void smlab_worker_export(const char* session_json, const char* kind, int whole,
                                              const char* command) {
  using namespace smlab;
  // page.js reads an empty message as success.
  const auto done = [](int files, const Result<void>& outcome) {
    EM_ASM({ smlabWorkerDone($0, UTF8ToString($1)); }, files, outcome ? "" : outcome.error().message.c_str());
  };
  const Result<app::Session> session = app::parse_session(
      session_json == nullptr ? "" : session_json,
      [](std::span<const std::string> specs, const std::string& tokens) { return app::load_import(specs, tokens); });
  if (!session) return done(0, Error{session.error().kind, "session: " + session.error().message});
  const bool svg = kind != nullptr && std::string(kind) == "svg";
  app::ExportRequest request;
  request.kind = svg ? app::ExportRequest::Kind::svg : app::ExportRequest::Kind::csv;
  request.whole = svg || whole != 0;
  request.params = session->params;
  request.pins = session->pins;
  request.language = session->language.value_or(i18n::Language::English);
  request.style = plot::light_style();  // as --export-svg draws
  if (session->colormap)
    request.style.sequential_colormap = plot::colormap_from_name(*session->colormap).value_or(plot::Colormap::Viridis);
  if (session->color_scales) request.style.color_scales.chosen = *session->color_scales;
  if (request.language == i18n::Language::Chinese)
    request.style.svg_font_family = "DejaVu Sans, WenQuanYi Micro Hei, Noto Sans CJK SC, sans-serif";
  request.command_line = command == nullptr ? "" : command;
  // The files' time in the archive: the page's local time.
  std::uint16_t zip_time = 0, zip_date = web::dos_date(1980, 1, 1);
  const std::time_t now = std::time(nullptr);
  std::tm local{};
  if (localtime_r(&now, &local) != nullptr) {
    zip_time = web::dos_time(local.tm_hour, local.tm_min, local.tm_sec);
    zip_date = web::dos_date(local.tm_year + 1900, local.tm_mon + 1, local.tm_mday);
  }
  app::ExportJob job(std::move(request), std::make_unique<web::ZipStream>(
                                             [](std::span<const std::uint8_t> bytes) {
                                               EM_ASM({ smlabWorkerBytes($0, $1); }, bytes.data(), bytes.size());
                                             },
                                             zip_time, zip_date));
  // Slices of a tenth of a second, each followed by the progress (the page cancels by ending the worker).
  while (job.step(std::chrono::steady_clock::now() + std::chrono::milliseconds(100)))
    EM_ASM({ smlabWorkerProgress($0, UTF8ToString($1)); }, job.progress().fraction, job.progress().stage.c_str());
  done(static_cast<int>(job.file_names().size()), job.outcome());
}

}  // extern "C"
