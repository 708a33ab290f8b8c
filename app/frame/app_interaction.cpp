// App's interaction features: undo/redo, slider nudges, the animated sweep, the colormap and the
// commands taken after drawing (the exports they start are window_exports.hpp's).
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "app.hpp"
#include "export/png.hpp"
#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "state/nudge.hpp"

namespace smlab::app {
void App::begin_interaction_frame() {
  InteractionUi& state = ui_.interaction;
  ImGuiIO& io = ImGui::GetIO();
  state.arrows_taken = false;
  look_.plot_style().sequential_colormap = state.colormap;
  look_.plot_style().color_scales = state.color_scales;
  look_.plot_style().color_scales.lesson_open = current_step(ui_) != nullptr;
  lab_textures_.set_sequential_colormap(state.colormap);

  // Ctrl+Z, Ctrl+Y / Ctrl+Shift+Z; a text field being edited keeps them for its own undo. One step
  // a press, no key repeat: an undone step's recompute makes a slow frame, which would count as
  // holding the key past the repeat delay (two or three steps for one short press).
  if (io.KeyCtrl && !io.WantTextInput) {
    if (ImGui::IsKeyPressed(GLFW_KEY_Z, false))
      undo_or_redo(io.KeyShift);
    else if (ImGui::IsKeyPressed(GLFW_KEY_Y, false))
      undo_or_redo(true);
  }
  if (state.commands.take(Command::undo)) undo_or_redo(false);
  if (state.commands.take(Command::redo)) undo_or_redo(true);

  // Space plays or pauses the sweep unless a widget has the keyboard, or the live training lab is
  // shown, where Space is Train/Pause alone: a sweep started with it would move T out of sight and
  // recompute the hidden dashboard every frame, long after the training stopped.
  if (!io.WantCaptureKeyboard && !io.KeyCtrl && !space_trains(ui_) && ImGui::IsKeyPressed(GLFW_KEY_SPACE, false))
    state.commands.push(Command::toggle_sweep);
  if (state.commands.take(Command::toggle_sweep)) toggle_sweep();

  // Left/Right nudge the slider under the mouse (or held) last frame. Claiming the keyboard tells
  // other arrow-key users (lesson navigation) to leave these presses alone.
  if (!state.nudge_key.empty() && !io.WantTextInput) {
    io.WantCaptureKeyboard = true;
    const int direction =
        static_cast<int>(ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) - static_cast<int>(ImGui::IsKeyPressed(GLFW_KEY_LEFT));
    if (direction != 0 || ImGui::IsKeyDown(GLFW_KEY_RIGHT) || ImGui::IsKeyDown(GLFW_KEY_LEFT))
      state.arrows_taken = true;
    if (direction != 0) {
      Params nudged = ui_.params;
      if (nudge_param(nudged, state.nudge_key, direction * (io.KeyShift ? big_notch : 1))) apply_params(ui_, nudged);
    }
  }

  if (sweep_player_.playing()) {
    Params moved = ui_.params;
    const Result<void> set =
        set_param(moved, sweep_player_.spec().key, sweep_player_.advance(animation_step_seconds()));
    if (!set.ok()) {
      sweep_player_.stop();
      state.sweep_error = set.error().message;
    } else {
      apply_params(ui_, moved);
    }
  }
  state.sweep_playing = sweep_player_.playing();
}

void App::end_interaction_frame() {
  InteractionUi& state = ui_.interaction;
  state.nudge_key = std::exchange(state.nudge_key_this_frame, {});
  state.panel_names.clear();
  for (const PlacedPlot& placed : ui_.placed_plots) state.panel_names.push_back(placed.name);

  // A drag (a slider's, or a pointer gesture on a plot), a text field being typed in, or a playing
  // sweep is one gesture: one undo step at its end.
  history_.observe(ui_.params,
                   ImGui::IsAnyItemActive() || sweep_player_.playing() || ui_.lesson.animating || ui_.gesture.active());
  state.can_undo = history_.can_undo();
  state.can_redo = history_.can_redo();

  if (!files_by_host_) {  // else the host takes these commands (AppOptions::files_by_host)
    const bool save = state.commands.take(Command::save_session), open = state.commands.take(Command::open_session);
    if (session_popup_.mode == SessionPopup::Mode::closed && (save || open))
      session_popup_.open(save ? SessionPopup::Mode::save : SessionPopup::Mode::load);
    if (state.commands.take(Command::import_files) && !import_.popup().open)
      import_.popup().open = import_.popup().open_requested = true;
  }
  if (state.commands.take(Command::toggle_fullscreen)) surface_.toggle_fullscreen();  // a window only
  if (state.commands.take(Command::quit)) surface_.request_close();

  const double now = surface_.time_seconds();
  if (state.commands.take(Command::export_png)) exports_.start_png(state, surface_, offscreen_options(), reporter());
  if (state.commands.take(Command::export_csv)) exports_.start_state_files(ui_, now, look_.language(), false);
  if (state.commands.take(Command::export_svg)) exports_.start_state_files(ui_, now, look_.language(), true);
  exports_.step(ui_, surface_, look_.language(), reporter());
  if (state.commands.take(Command::record_gif))
    exports_.start_gif(ui_, surface_, offscreen_options(), reporter());
  else
    exports_.step_gif(ui_.interaction, surface_, reporter());
  surface_.make_current();  // the exports switched to their own contexts
}

void App::undo_or_redo(bool redo) {
  sweep_player_.stop();
  history_.observe(ui_.params, false);  // an unfinished change becomes a step first
  const std::optional<Params> shown = redo ? history_.redo() : history_.undo();
  if (!shown) return;
  ui_.params = *shown;  // recorded states passed validate() when they were shown
  ui_.scores_text = format_scores(shown->scores);
  ui_.input_error.clear();
}

void App::toggle_sweep() {
  InteractionUi& state = ui_.interaction;
  if (sweep_player_.playing()) {
    sweep_player_.stop();
    return;
  }
  const Result<SweepSpec> parsed = parse_sweep(sweep_text(state.sweep), ui_.params);
  if (!parsed) {
    state.sweep_error = parsed.error().message;
    return;
  }
  state.sweep_error.clear();
  sweep_player_.start(*parsed, state.sweep.seconds_per_pass);
}

}  // namespace smlab::app
