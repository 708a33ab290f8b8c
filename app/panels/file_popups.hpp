// The window's file popups: File → Save/Open session (Ctrl+S, Ctrl+O) and File → Import, each a path
// field or three in a small modal (no native file dialog), and the work running behind the window
// (an import, exports, a GIF) with its progress and Cancel buttons. They only draw and ask: the App
// reads and writes the files through the calls it hands them, so a failure can be shown in the
// popup on the frame it happened.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "smlab/error.hpp"
#include "work/background_job.hpp"

namespace smlab::app {

// Sessions

struct SessionPopup {
  enum class Mode { closed, save, load } mode = Mode::closed;
  bool open_requested = false;  // opened on the next draw (ImGui opens a popup inside a frame)
  std::string path;             // the field; a path in $HOME when first opened
  bool overwrite = false;
  std::string message;  // the last failure, shown in the popup
  // Opens the popup to save or load (a new failure line; the path typed last stays).
  void open(Mode asked) {
    mode = asked;
    open_requested = true;
    message.clear();
  }
};

// Saves (Mode::save: to `path`, replacing a file there only with `overwrite`) or loads the session
// at `path`; an Error stays in the popup, success closes it.
using SessionFileCall = std::function<Result<void>(SessionPopup::Mode mode, const std::string& path, bool overwrite)>;

// Draws the session popup while it is open; its button or Enter calls `act`, Cancel or Escape closes.
void draw_session_popup(SessionPopup& popup, const SessionFileCall& act);

// Import

// An import whose files' names say no role (import_files.hpp's roles_needed), held while the role
// chooser asks for each of them in turn: five buttons (Q, K, V, scores, weights) in a modal of its
// own. A chosen role is added to its spec as ":ROLE", so the import that follows takes the checks of
// FILE:ROLE typed in the dialog (or of --import FILE:ROLE).
struct RoleQuestion {
  std::vector<std::string> specs;  // the import's data specs
  std::vector<bool> needed;        // one per spec: still to be asked
  std::string tokens;              // the import's tokens file
  bool from_fields = false;        // the specs are the Import dialog's fields: they then show the roles
  bool open_requested = true;
  // The question for an import of `specs` and `tokens`, or nothing when every role is known.
  static std::optional<RoleQuestion> ask(std::vector<std::string> specs, std::string tokens);
};

struct ImportPopup {
  bool open = false, open_requested = false;
  std::string first, second, tokens;  // two data specs and a tokens file
  std::string message;                // the last failure, shown in the popup
  bool close_requested = false;       // the import it started is in: close on the next frame
  std::optional<RoleQuestion> roles;  // files dropped or typed whose roles are being asked
};

struct ImportPopupCalls {
  // Imports the data `specs` with the token labels `tokens` (either may be empty): the outcome, or
  // nothing while the import runs on (its outcome then comes as ImportPopup::message and
  // close_requested).
  std::function<std::optional<Result<void>>(std::vector<std::string> specs, const std::string& tokens)> start;
  std::function<void()> cancel;  // stops the running import, changing nothing
};

// Draws File → Import while it is open, and `running` (an import shown once it has taken a moment)
// inside it or, with the popup closed (dropped files), in a small window of its own. `importing`: an
// import is under way, so Open waits for it. While `popup.roles` asks, the role chooser is drawn
// (over the dialog, or alone for dropped files); when the last role is chosen, the import starts
// through `calls`; Cancel there imports nothing.
void draw_import_popup(ImportPopup& popup, const std::optional<JobProgress>& running, bool importing,
                       const ImportPopupCalls& calls);

// Background work

// The work running behind the window, one row each (what it does, its bar, a Cancel button), in a
// small window at the top centre; nothing when `rows` is empty. Returns the row whose Cancel was
// pressed.
std::optional<std::size_t> draw_background_work(const std::vector<JobProgress>& rows);

}  // namespace smlab::app
