// Importing in the window (window_import.hpp).
#include "window_import.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "platform/window.hpp"

namespace smlab::app {

namespace {

bool names_tokens(const std::string& path) {
  std::string lower = path;
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return lower.ends_with(".json") || lower.ends_with(".txt");
}

}  // namespace

Result<void> WindowImport::import_now(UiState& ui, const std::vector<std::string>& specs,
                                      const std::string& tokens_file, i18n::Language language, const Report& report) {
  std::vector<std::string> sources = specs;
  // Token labels alone relabel what is already imported.
  if (sources.empty() && ui.params.imported != nullptr) sources = ui.params.imported->sources;
  const i18n::Use words(language);  // also called between frames (tests, the web page)
  ImportOptions options;
  options.asked_by = ImportAskedBy::window;
  options.before_open = hook_;
  return apply(ui, load_import(sources, tokens_file, options), report);
}

Result<void> WindowImport::apply(UiState& ui, const ImportLoad& loaded, const Report& report) {
  Result<void> imported = loaded.ok() ? Result<void>() : Result<void>(loaded.error());
  if (loaded.ok()) {
    Params candidate = ui.params;
    candidate.scores.clear();  // the imported rows, not a custom score vector
    imported = attach_import(candidate, *loaded);
    if (imported.ok()) ui.params = std::move(candidate);
  }
  // A toast as well as the status line: a file dropped onto the plots is answered where the eyes are.
  if (imported.ok()) {
    std::string text = i18n::format("import.loaded", {(*loaded)->summary});
    for (const std::string& warning : (*loaded)->warnings) text += " (" + warning + ")";
    report(text, false);
    ui.status_reports_import = true;  // until the Params hold other data (App::frame)
    ui.status_import = ui.params.imported;
  } else {
    report(imported.error().message, true);
  }
  return imported;
}

void WindowImport::start(UiState& ui, std::vector<std::string> specs, std::string tokens_file, double now,
                         i18n::Language language, const Report& report) {
#ifdef __EMSCRIPTEN__
  (void)now;
  (void)import_now(ui, specs, tokens_file, language, report);  // one thread: read now, answered in the status line
#else
  (void)report;  // the outcome is reported when it is applied (take_finished_and_dropped)
  // Token labels alone relabel what is already imported.
  if (specs.empty() && ui.params.imported != nullptr) specs = ui.params.imported->sources;
  job_.reset();  // an older import is cancelled (its thread stops within milliseconds)
  from_popup_ = popup_.open;
  started_at_ = now;
  job_ = std::make_unique<BackgroundJob<ImportLoad>>(
      [specs = std::move(specs), tokens_file = std::move(tokens_file), hook = hook_,
       language](const Progress& progress) -> ImportLoad {
        const i18n::Use words(language);  // a refusal says what to change in the window's language
        ImportOptions options;
        options.asked_by = ImportAskedBy::window;
        options.progress = progress;
        options.before_open = hook;
        return load_import(specs, tokens_file, options);
      },
      &platform::Window::wake);                                  // the window applies it on its next frame
#endif
}

void WindowImport::cancel() {
  if (job_ != nullptr) job_->cancel();
}

void WindowImport::take_finished_and_dropped(UiState& ui, platform::Surface& surface, i18n::Language language,
                                             const Report& report) {
  // A finished import first: its data becomes this frame's Params (one undo step).
  if (job_ != nullptr) {
    if (std::optional<ImportLoad> finished = job_->take_result()) {
      job_.reset();
      const Result<void> applied = apply(ui, *finished, report);
      if (from_popup_ && popup_.open) {
        popup_.message = applied.ok() ? "" : applied.error().message;
        popup_.close_requested = applied.ok();
      }
    }
  }
  const std::vector<std::string> dropped = surface.take_dropped_paths();
  if (dropped.empty()) return;
  // .txt and .json are token labels; everything else (.npy, .npz, .csv) is data, roles from names.
  std::vector<std::string> specs;
  std::string tokens;
  for (const std::string& path : dropped) {
    if (names_tokens(path))
      tokens = path;
    else
      specs.push_back(path);
  }
  // A file whose name says no role is asked about first (the role chooser), as the page asks.
  if (std::optional<RoleQuestion> asked = RoleQuestion::ask(specs, tokens)) {
    popup_.roles = std::move(asked);
    return;
  }
  // Answered in the status line and a toast.
  start(ui, std::move(specs), std::move(tokens), surface.time_seconds(), language, report);
}

void WindowImport::draw(UiState& ui, double now, i18n::Language language, const Report& report) {
  // The running import's progress, after a moment (a quick import never flashes a window): in the
  // Import dialog while it is open, else with the other background work (background_progress).
  std::optional<JobProgress> progress;
  if (job_ != nullptr && !job_->done() && now - started_at_ >= progress_delay_seconds) progress = job_->progress();
  progress_shown_ = progress.has_value();
  ImportPopupCalls calls;
  calls.start = [&](std::vector<std::string> specs, const std::string& tokens) -> std::optional<Result<void>> {
#ifdef __EMSCRIPTEN__
    return import_now(ui, specs, tokens, language, report);
#else
    start(ui, std::move(specs), tokens, now, language, report);  // the popup closes when the data is in
    return std::nullopt;
#endif
  };
  calls.cancel = [this] { cancel(); };
  draw_import_popup(popup_, progress, running(), calls);
}

std::optional<JobProgress> WindowImport::background_progress(double now) const {
  // Behind a closed Import dialog (the dialog shows its own).
  if (job_ == nullptr || job_->done() || popup_.open || now - started_at_ < progress_delay_seconds) return std::nullopt;
  return job_->progress();
}

}  // namespace smlab::app
