// Importing in the window: File → Import (path fields in a popup) and files dropped onto it, both
// through load_import and attach_import, the same checks as --import (the popup itself is drawn by
// panels/file_popups.hpp). On the desktop the files are read on a thread of their own, with
// progress and Cancel on screen (progress.hpp).
#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include "app.hpp"
#include "i18n/i18n.hpp"
#include "platform/window.hpp"
#include "state/import_files.hpp"

namespace smlab::app {

// One start_import: load_import on its own thread, reporting here. The thread is the last member, so
// it is stopped (its stop token is the import's Cancel) and joined before the rest goes.
struct App::ImportJob final : ProgressSink {
  ImportJob(std::vector<std::string> specs, std::string tokens_file, bool from_popup, double started_at,
            std::function<void(const std::string&)> hook, i18n::Language language)
      : from_popup(from_popup), started_at(started_at) {
    thread = std::jthread([this, specs = std::move(specs), tokens_file = std::move(tokens_file), hook = std::move(hook),
                           language](std::stop_token stop) {
      const i18n::Use words(language);  // a refusal says what to change in the window's language
      ImportOptions options;
      options.asked_by = ImportAskedBy::window;
      options.progress = Progress(stop, this);
      options.before_open = hook;
      ImportLoad loaded = Error::file("import failed");
      try {
        loaded = load_import(specs, tokens_file, options);
      } catch (const std::exception& error) {  // never out of a thread: the window shows it instead
        loaded = Error::file(std::string("import failed: ") + error.what());
      }
      {
        const std::lock_guard lock(mutex);
        result.emplace(std::move(loaded));
      }
      platform::Window::wake();  // the window applies it on its next frame
    });
  }

  void update(double done, std::string_view name) noexcept override {
    const auto now = std::chrono::steady_clock::now();
    bool wake = false;
    {
      const std::lock_guard lock(mutex);
      fraction = done;
      try {
        stage.assign(name);
      } catch (...) {  // out of memory for a stage name: keep the last one
      }
      if (now - last_wake >= std::chrono::milliseconds(100)) last_wake = now, wake = true;
    }
    if (wake) platform::Window::wake();  // a window asleep in glfwWaitEvents redraws the bar
  }

  bool from_popup = false;  // File → Import: the popup stays open and shows the failure
  double started_at = 0.0;  // the surface's clock
  std::mutex mutex;         // guards what follows
  double fraction = 0.0;
  std::string stage;
  std::optional<ImportLoad> result;  // set once, when the thread is done
  std::chrono::steady_clock::time_point last_wake{};
  std::jthread thread;
};

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
  const i18n::Use language(applied_language_);  // also called between frames (tests, the web page)
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
  import_job_ = std::make_shared<ImportJob>(std::move(specs), std::move(tokens_file), import_popup_.open,
                                            surface_.time_seconds(), import_hook_, applied_language_);
#endif
}

bool App::importing() const { return import_job_ != nullptr; }

void App::cancel_import() {
  if (import_job_ != nullptr) import_job_->thread.request_stop();
}

void App::set_import_hook_for_testing(std::function<void(const std::string&)> hook) { import_hook_ = std::move(hook); }

void App::import_dropped_files() {
  // A finished import first: its data becomes this frame's Params (one undo step).
  if (import_job_ != nullptr) {
    std::optional<ImportLoad> finished;
    {
      const std::lock_guard lock(import_job_->mutex);
      finished = std::move(import_job_->result);
    }
    if (finished) {
      const bool from_popup = import_job_->from_popup;
      import_job_.reset();
      const Result<void> applied = apply_import(*finished);
      if (from_popup && import_popup_.open) {
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
  start_import(std::move(specs), std::move(tokens));  // answered in the status line and a toast
}

void App::draw_import() {
  // The running import's progress, after a moment (a quick import never flashes a window).
  std::optional<ImportProgress> running;
  if (import_job_ != nullptr && surface_.time_seconds() - import_job_->started_at >= import_progress_delay_seconds) {
    const std::lock_guard lock(import_job_->mutex);
    if (!import_job_->result) running = ImportProgress{import_job_->fraction, import_job_->stage};
  }
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
