// The window mode of softmax-lab: restore the autosave, open the GLFW window, run frames that sleep
// while nothing changes, close on the close button, Quit, SIGINT or SIGTERM, save the session.
#pragma once

#include <functional>

#include "frame/app.hpp"
#include "smlab/error.hpp"

namespace smlab::app {

struct WindowRun {
  AppOptions options;  // the start state the command line resolved
  int width = 1600, height = 900;
  bool full_redraw = false;  // --full-redraw
  // --set, --preset, --lesson, --load or --view was given: the autosave is neither restored nor,
  // unless something changes in the window, replaced (should_autosave).
  bool state_from_command_line = false;
  // Which options the command line named: those win over the restored autosave's.
  SessionGiven given;
  // A host of the window's App (the class: classroom/): `attach` once the App exists (its Error
  // ends the run before the first frame), `detach` as soon as the window closes.
  std::function<Result<void>(App&)> attach;
  std::function<void(App&)> detach;
};

// Runs the window until it closes; an Error::no_graphics (exit 4) when no window can be opened.
// SIGINT and SIGTERM close it like the close button (the session is saved); a second one while it
// is closing ends the process at once with 128 + the signal number.
Result<void> run_window(WindowRun run);

}  // namespace smlab::app
