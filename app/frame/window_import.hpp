// Importing in the window: File → Import (path fields in a popup) and files dropped onto it, both
// through load_import and attach_import, the same checks as --import (the popup and the role
// chooser for a file whose name says no role are drawn by panels/file_popups.hpp). On the desktop
// the files are read on a thread of their own (work/background_job.hpp), with progress and Cancel
// on screen; the web page (no threads) imports at once. The App holds one.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "panels/file_popups.hpp"
#include "platform/surface.hpp"
#include "report.hpp"
#include "smlab/error.hpp"
#include "work/background_job.hpp"
#include "state/import_files.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

class WindowImport {
 public:
  // A running import shows its stage, bar and Cancel button after this long (a quick import never
  // flashes a window).
  static constexpr double progress_delay_seconds = 0.5;

  // Reads the files now, in `language`, and puts the data into ui.params (import_now) or says why
  // not; both go to `report`.
  Result<void> import_now(UiState& ui, const std::vector<std::string>& specs, const std::string& tokens_file,
                          i18n::Language language, const Report& report);
  // The same on a thread of its own, started at `now` (the surface's clock); a newer start cancels
  // an older import. On the web page, import_now.
  void start(UiState& ui, std::vector<std::string> specs, std::string tokens_file, double now, i18n::Language language,
             const Report& report);
  [[nodiscard]] bool running() const { return job_ != nullptr; }  // started, not applied yet
  void cancel();                                                  // what Cancel does: the import stops, nothing changes
  // The last frame drew the running import's stage, bar and Cancel button.
  [[nodiscard]] bool progress_shown() const { return progress_shown_; }
  // Called on the import's thread with each data file's path before it is opened
  // (ImportOptions::before_open): a test holds an import while it looks at the window.
  void set_hook(std::function<void(const std::string&)> hook) { hook_ = std::move(hook); }

  // Before the frame: a finished import applied to ui.params (one undo step), then the files dropped
  // onto `surface` since the last frame imported (a file whose name says no role asked about first).
  void take_finished_and_dropped(UiState& ui, platform::Surface& surface, i18n::Language language,
                                 const Report& report);
  // File → Import's popup, and the running import's progress in it.
  void draw(UiState& ui, double now, i18n::Language language, const Report& report);
  // The running import's progress for the other background work's rows, while the popup is closed.
  [[nodiscard]] std::optional<JobProgress> background_progress(double now) const;

  ImportPopup& popup() { return popup_; }

 private:
  Result<void> apply(UiState& ui, const ImportLoad& loaded, const Report& report);

  ImportPopup popup_;
  std::unique_ptr<BackgroundJob<ImportLoad>> job_;
  bool from_popup_ = false;  // File → Import: the popup stays open and shows the failure
  double started_at_ = 0.0;  // the surface's clock
  std::function<void(const std::string&)> hook_;
  bool progress_shown_ = false;
};

}  // namespace smlab::app
