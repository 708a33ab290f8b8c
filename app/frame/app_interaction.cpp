// App's interaction features: undo/redo, slider nudges, the animated sweep, the colormap, the
// commands taken after drawing, and the GIF recording made offscreen while the window keeps running
// (the other exports are app_exports.cpp).
#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <utility>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "app.hpp"
#include "app_recording.hpp"
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

  if (state.commands.take(Command::export_png)) start_png_export();
  if (state.commands.take(Command::export_csv)) start_state_files(false);
  if (state.commands.take(Command::export_svg)) start_state_files(true);
  step_exports();
  if (state.commands.take(Command::record_gif))
    start_gif_recording();
  else if (gif_recording_)
    step_gif_recording();
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

AppOptions App::offscreen_options() const {
  AppOptions options;
  options.params = ui_.params;
  options.view = ui_.view;
  options.screenshot_dir = ui_.screenshot_dir;
  options.font_pixels = look_.font_pixels();
  options.refine_trials = headless_refine_trials(ui_.params.seq_len);
  options.presets = ui_.presets;
  options.theme = ui_.theme;
  options.font_scale = ui_.font_scale;
  options.language = look_.language();  // the copy draws in the language this window shows
  options.colormap = ui_.interaction.colormap;
  options.lessons = ui_.lessons;  // an open lesson's panel and highlight are in the picture too
  options.lesson = ui_.lesson.open;
  if (options.lesson) options.lesson->guess = ui_.lesson.guess;
  options.lesson_revealed = ui_.lesson.revealed;
  options.pins = ui_.pins.pins;
  options.presenter = ui_.presenter;
  options.controls_shown = ui_.controls_shown;
  options.training_shown = training_picture();  // the training lab as this window shows it
  return options;
}

void App::start_gif_recording() {
  InteractionUi& state = ui_.interaction;
  if (gif_recording_) return;
  const Result<SweepSpec> parsed = parse_sweep(sweep_text(state.sweep), ui_.params);
  if (!parsed) {
    state.sweep_error = parsed.error().message;
    return;
  }
  state.sweep_error.clear();
  // At most 1280 display units wide (a GIF of a 4K window would be huge), the window's aspect.
  const ImVec2 display = ImGui::GetIO().DisplaySize;
  const float shrink = std::min(1.0f, 1280.0f / std::max(display.x, 1.0f));
  platform::OffscreenOptions offscreen;
  offscreen.width = std::max(320, static_cast<int>(std::lround(display.x * shrink)));
  offscreen.height = std::max(240, static_cast<int>(std::lround(display.y * shrink)));
  auto created = platform::Offscreen::create(offscreen);
  if (!created) {
    surface_.make_current();
    report(created.error().message, true);
    return;
  }
  auto recording = std::make_unique<GifRecording>();
  recording->surface = std::move(*created);
  recording->app = std::make_unique<App>(*recording->surface, offscreen_options());
  recording->spec = *parsed;
  recording->frames = std::clamp(state.sweep.gif_frames, sweep_gif_frames_min, sweep_gif_frames_max);
  gif_recording_ = std::move(recording);
  state.gif_recording = true;
  state.gif_progress = 0.0f;
  surface_.make_current();
}

// One step per window frame: set the next value, and once its snapshot is done (polled, never
// waited for) render and add the frame. The window keeps drawing in between.
void App::step_gif_recording() {
  InteractionUi& state = ui_.interaction;
  GifRecording& recording = *gif_recording_;
  App& copy = *recording.app;
  Result<void> step;
  if (!recording.value_set) {
    const std::string value = sweep_value(recording.spec, recording.next, recording.frames);
    step = set_param(copy.ui().params, recording.spec.key, value);
    copy.ui().scores_text = format_scores(copy.ui().params.scores);
    if (step.ok()) {
      copy.frame();  // submits the new value (and draws a frame nobody keeps)
      recording.value_set = true;
    }
  } else if (copy.evaluator().idle()) {
    copy.wait_for_snapshot();
    // The first frame lets ImGui settle auto-sized items (like --screenshot); later ones need one.
    for (int pass = 0; pass < (recording.next == 0 ? 3 : 1); ++pass) copy.frame();
    step = recording.writer.add_frame(recording.surface->capture());
    recording.value_set = false;
    ++recording.next;
  }
  state.gif_progress = static_cast<float>(recording.next) / static_cast<float>(recording.frames);
  if (step.ok() && recording.next < recording.frames) return;

  if (step.ok()) step = recording.writer.finish();
  const Result<std::filesystem::path> written =
      step.ok() ? exporting::save_new_file(recording.writer.bytes(), ui_.screenshot_dir, ".gif",
                                           std::chrono::system_clock::now())
                : step.error();
  gif_recording_.reset();
  state.gif_recording = false;
  if (written.ok())
    report(i18n::format("ui.status.gif_saved", {written->string()}), false);
  else
    report(written.error().message, true);
}

void App::cancel_gif_recording() {
  if (!gif_recording_) return;
  gif_recording_.reset();  // nothing was written: the GIF's bytes are written only once complete
  surface_.make_current();
  ui_.interaction.gif_recording = false;
  report(cancelled_error("GIF recording").message, true);
}

}  // namespace smlab::app
