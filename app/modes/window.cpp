// The window: GLFW on X11 (no display: exit 4). A start with no state on the command line resumes
// the last session (window_run.hpp).
#include <cstdio>

#include "modes/modes.hpp"
#include "window_run.hpp"

namespace smlab::app {

Result<void> run_window(const Options& o, AppOptions options) {
  if (!options.presets)
    std::fprintf(stderr, "softmax-lab: %s (the Presets menu is empty)\n", options.presets.error().message.c_str());
  WindowRun window_run;
  options.live_training = true;  // the training lab trains on a worker thread as you watch
  window_run.options = std::move(options);
  window_run.width = o.size.width;
  window_run.height = o.size.height;
  window_run.full_redraw = o.full_redraw;
  window_run.state_from_command_line = o.state_from_command_line;
  window_run.given = o.start.given;
  return run_window(std::move(window_run));
}

}  // namespace smlab::app
