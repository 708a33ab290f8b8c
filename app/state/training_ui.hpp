// What the training lab's controls remember between frames and ask the App to do (UiState::training):
// the buttons' commands for the Trainer, file paths and requests (weights, the sentence's .npz),
// the sentence field as typed, and the trainer's status as the App last read it.
#pragma once

#include <string>
#include <vector>

namespace smlab::app {

struct TrainingUi {
  enum class Command { train, pause, step, reset };  // Trainer::Command, one per button press
  std::vector<Command> commands;                     // this frame's, taken by the App
  // Files: a path field each; the App reads or writes them (one-line errors in `message`).
  std::string weights_path, npz_path;
  // The web page: no paths to type; saved weights and the .npz download (AppOptions::files_by_host),
  // and there is no file to load weights from.
  bool files_by_host = false;
  bool overwrite = false;
  bool save_weights = false, load_weights = false, export_npz = false;
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
