// What the training lab's controls remember between frames (UiState::training): file paths, the
// sentence field as typed, and the trainer's status as the App last read it. Its buttons are
// Commands (state/commands.hpp), as every other button's.
#pragma once

#include <string>

namespace smlab::app {

struct TrainingUi {
  // Files: a path field each; the App reads or writes them (one-line errors in `message`).
  std::string weights_path, npz_path;
  // The web page: no paths to type; saved weights and the .npz download (AppOptions::files_by_host),
  // and there is no file to load weights from.
  bool files_by_host = false;
  bool overwrite = false;
  std::string message;  // the last file action's outcome
  bool message_is_error = false;
  std::string sentence_text;  // the sentence field as typed (applied on Enter or the button)
  bool sentence_edited = false;
  // The Trainer as the App last read it (the lab's status line and buttons).
  bool live = false;  // a live trainer runs this lab (false: an export or a headless render)
  bool running = false;
  int steps_done = 0, goal = 0;
  double steps_per_second = 0.0;
  std::string error;
};

}  // namespace smlab::app
