// App: the frame loop's state and the per-frame work, independent of whether the
// surface is a window or an offscreen framebuffer (main.cpp picks which).
#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>
#include <string>

#include "panels/file_popups.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "panels/toast.hpp"
#include "platform/font_atlas.hpp"
#include "platform/surface.hpp"
#include "plot/heatmap_texture.hpp"
#include "plot/plot.hpp"
#include "work/background_job.hpp"
#include "work/evaluator.hpp"
#include "state/history.hpp"
#include "state/import_files.hpp"
#include "state/session.hpp"
#include "state/start_state.hpp"
#include "plot/texture_pool.hpp"
#include "work/trainer.hpp"
#include "state/ui_state.hpp"
#include "app_host.hpp"
#include "dashboard_maps.hpp"
#include "frame_evaluation.hpp"
#include "live_training.hpp"
#include "look.hpp"
#include "report.hpp"
#include "window_exports.hpp"
#include "window_import.hpp"

namespace smlab::app {

// The start state (state/start_state.hpp: Params, view, look, lesson) and what the App offers.
struct AppOptions : StartState {
  float font_pixels = 17.0f;  // UI font size at scale 1
  // Monte Carlo refinement limit in trials per d_k point; 0 = the interactive
  // default (Evaluator::refine_max_trials). Headless renders use headless_refine_trials().
  std::int64_t refine_trials = 0;
  PresetList presets = std::vector<Preset>{};  // offered by the Presets combo
  LessonList lessons;                          // offered by the Lessons combo (assets/lessons)
  // The open lesson's predict step shown revealed (beside lesson->guess, if any): an export of the window.
  bool lesson_revealed = false;
  bool presenter = false;      // start in presenter mode (--presenter)
  bool controls_shown = true;  // false: the control column starts hidden (--hide-controls)
  // The host answers File → Save/Open session (Ctrl+S, Ctrl+O) and File → Import itself, with its own
  // file pickers (the web page: a download and the browser's file dialog): the requests are left in
  // UiState::interaction for it instead of opening the path popups.
  bool files_by_host = false;
  // The training lab (live_training.hpp): live, a Trainer trains its runs on a worker thread (the
  // window and the --train frame bench; not the web page, which has no threads); else, with
  // training_shown, that picture is drawn while the lab's settings stay the Params' (an offscreen
  // copy of a window); else the evaluator's lab at train_steps (headless renders and exports).
  bool live_training = false;
  // The live lab trains from the first frame, as if Train were pressed (the --train frame bench);
  // otherwise it waits at step 0 for Train or Step.
  bool train_at_start = false;
  std::shared_ptr<const TrainingLab> training_shown;
};

// The frame time an animation (lesson glide, sweep) moves by: ImGui's DeltaTime, at most 0.25 s
// (the first frame after the window slept would otherwise jump by the whole sleep).
double animation_step_seconds();

// The state a session file keeps: the model's saved fields (UiModel says which), as a Session.
Session session_of(const UiModel& model);

class App {
 public:
  // Loads fonts and style for `surface` (whose contexts must outlive the App) and
  // submits the first evaluation.
  App(platform::Surface& surface, const AppOptions& options);
  ~App();
  App(const App&) = delete;
  App& operator=(const App&) = delete;

  // Runs one frame: picks up finished snapshots, draws the dashboard, renders,
  // and saves a screenshot if one was asked for. False once the surface closed.
  bool frame();

  // How long a window may sleep before the next frame (platform::Window::wait_for_events): 0 while
  // something moves (a recompute to submit, a lesson glide, the sweep, a GIF recording, a held
  // key), 0.1 s while a recompute runs (its progress bar), the time until a toast starts to fade,
  // negative (until the next event) at rest. Finished recomputes wake the window through
  // Evaluator::set_result_callback.
  double idle_wait_seconds() const;

  // Shows `text` in the status line and, for a few seconds, as a toast at the top of the window
  // (panels/toast.hpp).
  void report(std::string text, bool is_error);

  // Blocks until the newest submitted Params are evaluated and their Monte Carlo
  // refinement has stopped (headless renders: the picture is then deterministic).
  void wait_for_snapshot();

  // Timing of the last frame: wall time, and how long it waited for a recompute.
  struct FrameTiming {
    double frame_ms = 0.0;
    double blocked_ms = 0.0;
    double recompute_ms = 0.0;  // wall time of the newest finished evaluation
  };
  const FrameTiming& last_timing() const { return timing_; }
  // How many times the shown view's plots were built (ViewCache::builds): once per Snapshot,
  // colour-scale choice, language or pin change, never on a frame where none of them changed.
  std::uint64_t view_builds() const { return view_cache_.builds(); }
  const LabView* shown_view() const { return view_cache_.current(); }  // the plots the last frame drew
  const Snapshot* latest_snapshot() const { return evaluation_.latest().snapshot.get(); }  // what they were built from
  const plot::Style& plot_style() const { return look_.plot_style(); }                     // and drawn in
  // True once a frame has drawn an evaluated Snapshot (before that, plots show "computing").
  bool showing_snapshot() const { return evaluation_.latest().snapshot != nullptr; }
  // A Snapshot is shown and its attention maps too (long imported contexts get them later).
  bool showing_maps() const {
    return evaluation_.latest().snapshot != nullptr && !pooled_maps_pending(*evaluation_.latest().snapshot);
  }
  // The Snapshot shown is complete: every stage of its evaluation is done (not a first result).
  bool showing_complete() const { return evaluation_.latest().snapshot != nullptr && evaluation_.latest().complete; }
  // What the last frame showed, and which of its parts are still to come (the benches' "final").
  const Evaluator::Latest& shown_latest() const { return evaluation_.latest(); }
  // The Params of the Snapshot shown (defaults before the first one).
  Params shown_params() const {
    return evaluation_.latest().snapshot != nullptr ? evaluation_.latest().snapshot->params : Params{};
  }

  // The state a session file keeps (session_of the model), and restoring one (its Params are
  // already validated).
  Session current_session() const;
  void restore_session(const Session& session);

  UiState& ui() { return ui_; }
  // Imports files as --import does (specs FILE[:ARRAY[=ROLE]]; tokens may be empty; token labels
  // alone relabel the data already imported) into the shown Params. Returns load_import's or
  // attach_import's Error (its line also shown in the status line), or success. Used by File →
  // Import and dropped files.
  Result<void> import_files(const std::vector<std::string>& specs, const std::string& tokens_file) {
    return import_.import_now(ui_, specs, tokens_file, look_.language(), reporter());
  }
  // The same on a thread of its own (window_import.hpp): the window keeps drawing, shows the stage and
  // fraction with a Cancel button once the import has run for import_progress_delay_seconds, and
  // puts the data into the shown Params (one undo step) on the first frame after it is read. A
  // newer start cancels an older import. The web page (no threads) imports at once.
  void start_import(std::vector<std::string> specs, std::string tokens_file) {
    import_.start(ui_, std::move(specs), std::move(tokens_file), surface_.time_seconds(), look_.language(), reporter());
  }
  [[nodiscard]] bool importing() const { return import_.running(); }  // started, not applied yet
  // The last frame drew the running import's stage, bar and Cancel button.
  [[nodiscard]] bool import_progress_shown() const { return import_.progress_shown(); }
  void cancel_import() { import_.cancel(); }  // what Cancel does: the import stops, nothing changes
  static constexpr double import_progress_delay_seconds = WindowImport::progress_delay_seconds;
  // Test hook: called on the import's thread with each data file's path before it is opened
  // (ImportOptions::before_open), so a test can hold an import while it looks at the window.
  void set_import_hook_for_testing(std::function<void(const std::string&)> hook) { import_.set_hook(std::move(hook)); }

  // The window's exports (File → Screenshot, Export PNG/CSV/SVG; window_exports.hpp) run while the window
  // keeps drawing: a PNG's offscreen render a step a frame, the files made and written on a thread
  // of their own. After export_progress_delay_seconds each shows its progress and a Cancel button,
  // beside the import's and the GIF recording's; the status line gets the outcome.
  [[nodiscard]] bool exporting() const { return exports_.exporting(); }
  // Cancels the running export `index` (in start order): nothing of it is left on disk.
  void cancel_export(std::size_t index) { exports_.cancel_export(index); }
  static constexpr double export_progress_delay_seconds = WindowExports::progress_delay_seconds;
  // The background work shown with a Cancel button, in order: the import behind a closed dialog,
  // each export once it has run for export_progress_delay_seconds, the GIF recording.
  using ShownJob = app::ShownJob;
  [[nodiscard]] std::vector<ShownJob> background_progress() const;
  // What the Cancel button of `job` (a row of background_progress()) does: the import is asked to
  // stop at once; an export or the GIF after this frame (an offscreen copy never goes mid-frame).
  void cancel_background(const ShownJob& job);
  // Test hook: called on an export's thread before it makes its files, so a test can hold an export
  // while it looks at the window.
  void set_export_hook_for_testing(std::function<void()> hook) { exports_.set_hook(std::move(hook)); }
  Evaluator& evaluator() { return evaluation_.evaluator(); }  // tests inject worker failures through it
  const std::string& font_warning() const { return look_.font_warning(); }
  // The language this App draws in (UiState::language once applied between frames): frame() and the
  // App's other text-making calls look their strings up in it (i18n::Use); a caller making text
  // for this App (a status line) does the same.
  i18n::Language language() const { return look_.language(); }
  // Empty, or one line: why the language asked for is not the one shown (stderr for headless runs).
  const std::string& language_warning() const { return language_warning_; }
  // The font atlas of the surface: tests check that it has a glyph for every character shown.
  ImFont* ui_font() const { return look_.ui_font(); }
  // Whether the text drawn in either language (token labels, the language model's corpus and
  // sentence) holds CJK characters: the web page then fetches its full Chinese font, also for an
  // English page (its data has only the word "简体中文").
  [[nodiscard]] bool extra_glyphs_need_cjk() const { return look_.extra_glyphs_need_cjk(); }
  // Reads the font files again before the next frame: the web page wrote its full Chinese font over
  // the short one at the same path.
  void reload_fonts() { look_.reload_fonts(); }
  // The live training lab's Trainer (null unless AppOptions::live_training), and the lab's picture
  // drawn now (live or frozen; null when the evaluator's Snapshot holds it).
  Trainer* trainer() { return training_.trainer(); }
  std::shared_ptr<const TrainingLab> training_picture() const { return training_.picture(ui_.params.training); }

  // The host of this App (the class: classroom/), or null: its windows are drawn in each frame and
  // its part of a session saved and reopened (app_host.hpp). It must outlive its time as host.
  void set_host(AppHost* host) { host_ = host; }
  // File → Save/Open session's button (panels/file_popups.hpp; the class's headless teacher too):
  // the file written or restored, reported.
  Result<void> save_or_load_session(SessionPopup::Mode mode, const std::string& path, bool overwrite);

 private:
  void sync_snapshot();
  // report() as the modules the App holds take it.
  Report reporter() {
    return [this](const std::string& text, bool is_error) { report(text, is_error); };
  }
  void submit();
  bool needs_submit() const;
  void log_committed_guess();
  std::optional<double> logged_guess_;  // the committed guess last logged (SMLAB_LOG_TOASTS)

  // Interaction (app_interaction.cpp): undo/redo, nudges and the sweep before the frame is drawn;
  // history, PNG export and GIF recording after it is rendered.
  void begin_interaction_frame();
  void end_interaction_frame();
  void undo_or_redo(bool redo);
  void toggle_sweep();
  void draw_background_progress();       // the rows of background_progress(), their Cancel buttons
  AppOptions offscreen_options() const;  // the App state for an offscreen copy (exports)

  // The popups' fields and messages and the toast: drawn and kept by their own modules
  // (panels/file_popups.hpp, panels/toast.hpp), held here.
  SessionPopup session_popup_;  // Ctrl+S / Ctrl+O
  Toast toast_;                 // the last report(), until it has faded
  WindowImport import_;         // File → Import and dropped files (window_import.hpp)

  platform::Surface& surface_;
  UiState ui_;
  FrameEvaluation evaluation_;  // the Evaluator, what was submitted and what this frame draws
  TexturePool lab_textures_;
  ViewCache view_cache_;          // the shown view's plots, built once per Snapshot (panels/labs.hpp)
  DashboardMaps dashboard_maps_;  // the dashboard's two attention maps on the GPU
  Look look_;                     // fonts, ImGui style and plot style (look.hpp)
  bool files_by_host_ = false;
  std::string language_warning_;
  FrameTiming timing_;

  History history_;
  SweepPlayer sweep_player_;
  WindowExports exports_;  // File → Screenshot, Export PNG/CSV/SVG, the GIF recording (window_exports.hpp)

  LiveTraining training_;    // the training lab's live side (live_training.hpp)
  AppHost* host_ = nullptr;  // set_host
};

}  // namespace smlab::app
