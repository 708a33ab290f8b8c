// Importing in the window: File → Import (path fields in a popup) and files dropped onto it, both
// through load_import and attach_import, the same checks as --import (the popup and the role
// chooser for a file whose name says no role are drawn by panels/file_popups.hpp). On the desktop
// the files are read on a thread of their own (state/background_job.hpp), with progress and Cancel
// on screen.
#include <algorithm>
#include <chrono>
#include <optional>
#include <utility>

#include "app.hpp"
#include "i18n/i18n.hpp"
#include "platform/window.hpp"
#include "state/import_files.hpp"

namespace smlab::app {

namespace {

bool names_tokens(const std::string& path) {
  std::string lower = path;
  for (char& c : lower) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
  return lower.ends_with(".json") || lower.ends_with(".txt");
}

}  // namespace

Result<void> App::import_files(const std::vector<std::string>& specs, const std::string& tokens_file) {
  std::vector<std::string> sources = specs;
  // Token labels alone relabel what is already imported.
  if (sources.empty() && ui_.params.imported != nullptr) sources = ui_.params.imported->sources;
  const i18n::Use language(look_.language());  // also called between frames (tests, the web page)
  ImportOptions options;
  options.asked_by = ImportAskedBy::window;
  options.before_open = import_hook_;
  return apply_import(load_import(sources, tokens_file, options));
}

Result<void> App::apply_import(const ImportLoad& loaded) {
  Result<void> imported = loaded.ok() ? Result<void>() : Result<void>(loaded.error());
  if (loaded.ok()) {
    Params candidate = ui_.params;
    candidate.scores.clear();  // the imported rows, not a custom score vector
    imported = attach_import(candidate, *loaded);
    if (imported.ok()) ui_.params = std::move(candidate);
  }
  // A toast as well as the status line: a file dropped onto the plots is answered where the eyes are.
  if (imported.ok()) {
    std::string text = i18n::format("import.loaded", {(*loaded)->summary});
    for (const std::string& warning : (*loaded)->warnings) text += " (" + warning + ")";
    report(std::move(text), false);
    ui_.status_reports_import = true;  // until the Params hold other data (App::frame)
    ui_.status_import = ui_.params.imported;
  } else {
    report(imported.error().message, true);
  }
  return imported;
}

void App::start_import(std::vector<std::string> specs, std::string tokens_file) {
#ifdef __EMSCRIPTEN__
  (void)import_files(specs, tokens_file);  // one thread: read now, answered in the status line
#else
  // Token labels alone relabel what is already imported.
  if (specs.empty() && ui_.params.imported != nullptr) specs = ui_.params.imported->sources;
  import_job_.reset();  // an older import is cancelled (its thread stops within milliseconds)
  import_from_popup_ = import_popup_.open;
  import_started_at_ = surface_.time_seconds();
  import_job_ = std::make_unique<BackgroundJob<ImportLoad>>(
      [specs = std::move(specs), tokens_file = std::move(tokens_file), hook = import_hook_,
       language = look_.language()](const Progress& progress) -> ImportLoad {
        const i18n::Use words(language);  // a refusal says what to change in the window's language
        ImportOptions options;
        options.asked_by = ImportAskedBy::window;
        options.progress = progress;
        options.before_open = hook;
        return load_import(specs, tokens_file, options);
      },
      &platform::Window::wake);              // the window applies it on its next frame
#endif
}

bool App::importing() const { return import_job_ != nullptr; }

void App::cancel_import() {
  if (import_job_ != nullptr) import_job_->cancel();
}

void App::set_import_hook_for_testing(std::function<void(const std::string&)> hook) { import_hook_ = std::move(hook); }

void App::import_dropped_files() {
  // A finished import first: its data becomes this frame's Params (one undo step).
  if (import_job_ != nullptr) {
    if (std::optional<ImportLoad> finished = import_job_->take_result()) {
      import_job_.reset();
      const Result<void> applied = apply_import(*finished);
      if (import_from_popup_ && import_popup_.open) {
        import_popup_.message = applied.ok() ? "" : applied.error().message;
        import_popup_.close_requested = applied.ok();
      }
    }
  }
  const std::vector<std::string> dropped = surface_.take_dropped_paths();
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
    import_popup_.roles = std::move(asked);
    return;
  }
  start_import(std::move(specs), std::move(tokens));  // answered in the status line and a toast
}

void App::draw_import() {
  // The running import's progress, after a moment (a quick import never flashes a window): in the
  // Import dialog while it is open, else with the other background work (draw_background_progress).
  std::optional<JobProgress> running;
  if (import_job_ != nullptr && !import_job_->done() &&
      surface_.time_seconds() - import_started_at_ >= import_progress_delay_seconds)
    running = import_job_->progress();
  import_progress_shown_ = running.has_value();
  ImportPopupCalls calls;
  calls.start = [this](std::vector<std::string> specs, const std::string& tokens) -> std::optional<Result<void>> {
#ifdef __EMSCRIPTEN__
    return import_files(specs, tokens);
#else
    start_import(std::move(specs), tokens);  // the popup closes when the data is in
    return std::nullopt;
#endif
  };
  calls.cancel = [this] { cancel_import(); };
  draw_import_popup(import_popup_, running, importing(), calls);
}

}  // namespace smlab::app
