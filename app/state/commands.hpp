// What the window is asked to do by its menus, buttons and keys: drawing code queues a Command, the
// App carries it out where in the frame it belongs (docs/ARCHITECTURE.md, "Data flow"). One typed
// channel instead of a flag per request.
#pragma once

#include <algorithm>
#include <vector>

namespace smlab::app {

enum class Command {
  undo,
  redo,
  toggle_sweep,       // play or pause the sweep (Space, the sweep's button, Edit menu)
  screenshot,         // the window as PNG (F12, File → Screenshot): in the next frame with no menu open
  export_png,         // the chosen target at the chosen scale (File → Export PNG, the export button)
  export_csv,         // File → Export CSV: --export-csv's files in a new folder
  export_svg,         // File → Export SVG
  record_gif,         // the sweep as an animated GIF
  save_session,       // File → Save session (Ctrl+S)
  open_session,       // File → Open session (Ctrl+O)
  import_files,       // File → Import attention data
  toggle_fullscreen,  // View → Full screen (F11)
  host_class,         // File → Host a class… / Stop hosting: the class's controller takes it (classroom/)
  training_train,     // the training lab's Train (its button, Space): its runs train towards the goal
  training_pause,     // the training lab's Pause
  training_step,      // the training lab's Step: one step, then paused
  training_reset,     // the training lab's Reset: its runs start over at step 0
  save_weights,       // the training lab's run A (first seed) to the weights path; a download on the page
  load_weights,       // a weights file from the weights path into the training lab
  export_npz,         // the training lab's sentence as Q, K, V (.npz) to its path; a download on the page
  quit,               // File → Quit (Ctrl+Q): the window closes as through its close button
};

// The commands asked for and not yet carried out, in the order they were asked.
class CommandQueue {
 public:
  void push(Command command) { queued_.push_back(command); }
  bool contains(Command command) const { return std::find(queued_.begin(), queued_.end(), command) != queued_.end(); }
  bool empty() const { return queued_.empty(); }
  // Takes every `command` queued (asking twice before it ran is asking once); whether there was one.
  bool take(Command command) {
    const auto kept = std::remove(queued_.begin(), queued_.end(), command);
    const bool found = kept != queued_.end();
    queued_.erase(kept, queued_.end());
    return found;
  }

 private:
  std::vector<Command> queued_;
};

}  // namespace smlab::app
