// The per-frame work shared by the window and the headless renderer.
//
// [SECTION] Index
//   [SECTION] Whether Chinese can be shown
//   [SECTION] Construction
//   [SECTION] Evaluation: submit and take the snapshot
//   [SECTION] One frame
//   [SECTION] Sessions
//   [SECTION] Screenshots and reports
//   [SECTION] Idle wait
#include "app.hpp"

#include <imgui.h>

#include <imgui_internal.h>  // the windows drawn this frame: is a menu open?

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "export/png.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lesson_corpus.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/panels.hpp"
#include "panels/pins_panel.hpp"
#include "panels/pointer_gestures.hpp"
#include "panels/dashboard_plots.hpp"
#include "platform/font_atlas.hpp"
#include "state/presets.hpp"

namespace smlab::app {
namespace {

// A key as its slider names it in the UI's language (a view's main key: "温度" for temperature),
// else its --set name (scores), which is the same in both languages.
std::string key_title(std::string_view key) {
  for (const ViewInfo& info : all_views())
    for (const MainKey& main : main_keys(info.view))
      if (key == main.key) return main.name();
  return std::string(key);
}

// [SECTION] Whether Chinese can be shown

// Whether Chinese can be shown, or why not: no zh-CN table, or no readable CJK font file.
// `catalogue`: how loading the string tables went.
Result<void> chinese_availability(const Result<void>& catalogue) {
  if (!i18n::has_catalogue()) return catalogue.ok() ? Error::file("no string tables") : catalogue.error();
  if (!i18n::has_chinese())
    return Error::file(
        i18n::format("controls.language.no_table", {catalogue ? "zh-CN.json" : catalogue.error().message}));
  const std::string path = platform::chinese_font_path();
  std::error_code error;
  if (!std::filesystem::is_regular_file(path, error))
    return Error::file(i18n::format("controls.language.no_font", {path}));
  return {};
}

// Whether this frame drew a menu, a combo's list or a context popup (not a modal dialog): windows
// begun this frame with the popup flag.
bool menu_or_popup_drawn() {
  for (const ImGuiWindow* window : GImGui->Windows)
    if (window->Active && (window->Flags & ImGuiWindowFlags_Popup) != 0 &&
        (window->Flags & ImGuiWindowFlags_Modal) == 0)
      return true;
  return false;
}

}  // namespace

// [SECTION] Construction

App::App(platform::Surface& surface, const AppOptions& options) : surface_(surface), look_(options.font_pixels) {
  surface_.make_current();
  // main.cpp loads the string tables first; an App made elsewhere (tests) loads them here.
  Result<void> catalogue;
  if (!i18n::has_catalogue()) catalogue = i18n::load_catalogue(find_assets_dir());
  {
    // Why Chinese cannot be shown is said in English: Chinese is exactly what it cannot show.
    const i18n::Use english(i18n::Language::English);
    ui_.chinese_available = chinese_availability(catalogue);
  }
  ui_.language = options.language;
  if (ui_.language == i18n::Language::Chinese && !ui_.chinese_available) {
    // Without any table main.cpp has said so already.
    if (i18n::has_catalogue()) language_warning_ = ui_.chinese_available.error().message;
    ui_.language = i18n::Language::English;
  }
  ui_.params = options.params;
  if (!options.import_warning.empty()) {
    ui_.status = options.import_warning;
    ui_.status_is_error = true;
  }
  ui_.view = options.view;
  ui_.scores_text = format_scores(options.params.scores);
  ui_.screenshot_dir =
      options.screenshot_dir.empty() ? exporting::default_screenshot_dir().string() : options.screenshot_dir;
  ui_.ui_scale = surface_.content_scale();
  ui_.presets = options.presets;
  ui_.lessons = options.lessons;
  // --lesson NAME:STEP:GUESS (or an export of a revealed step) shows the step revealed.
  if (options.lesson && resume_lesson(ui_, options.lesson->lesson, options.lesson->step) &&
      (options.lesson->guess || options.lesson_revealed))
    (void)commit_guess(ui_, options.lesson->guess);  // lookup_lesson checked the guess
  ui_.pins.pins = options.pins;

  ui_.presenter = options.presenter;
  ui_.controls_shown = options.controls_shown;
  files_by_host_ = options.files_by_host;
  ui_.theme = options.theme;
  ui_.font_scale = std::clamp(options.font_scale, font_scale_min, font_scale_max);
  ui_.interaction.colormap = options.colormap;
  ui_.interaction.color_scales.chosen = options.color_scales;
  look_.apply(ui_, surface_);
  training_.start(options, ui_);  // before the history's first Params (it attaches the corpus)
  history_.reset(ui_.params);

  if (options.refine_trials > 0) evaluation_.evaluator().set_refine_limit(options.refine_trials);
  submit();
}

App::~App() {
  // A recording's or an export's App has contexts of its own and leaves none current when it goes:
  // first, so that this App's textures are then deleted in this surface's context (names are per
  // context). An export's thread is cancelled and waited for: what it staged is removed.
  exports_.stop_all();
  surface_.make_current();
}

// [SECTION] Evaluation: submit and take the snapshot

void App::submit() {
  // Params set from keys (a lesson step, a session) lack the language model's corpus, and Params'
  // == does not see it: attached here, every evaluation has it (wait_for_snapshot submits before
  // any frame's training_.sync could attach it; the lesson's language step drew no next-token bars).
  attach_corpus(ui_.params, training_.corpus());
  evaluation_.submit(ui_.params, ui_.view, training_.evaluated_view(ui_.view, ui_.params.training));
}

// Params changed, or a new tab needs its lab's numbers.
bool App::needs_submit() const { return evaluation_.needs_submit(ui_.params, ui_.view); }

void App::wait_for_snapshot() {
  if (needs_submit()) submit();
  evaluation_.evaluator().wait_until_idle();
  // Called between frames, maybe while another surface's context is current (a recording's App is
  // driven from the window's frame): the maps must go into this surface's textures.
  surface_.make_current();
  sync_snapshot();
}

void App::sync_snapshot() {
  const bool new_snapshot = evaluation_.take_latest();
  ui_.pins.live = evaluation_.latest().complete ? evaluation_.latest().snapshot : nullptr;
  // Both maps share one colour scale choice ("dashboard/attention", right-click either map).
  const bool fixed_range =
      look_.plot_style().color_scales.scale("dashboard/attention", plot::ColorScale::Auto) == plot::ColorScale::Fixed;
  const Evaluator::MapImageSpec spec =
      DashboardMaps::spec(ui_.interaction.colormap, fixed_range, surface_.framebuffer_size());
  evaluation_.evaluator().set_map_image_spec(spec);
  if (dashboard_maps_.update(evaluation_.latest(), new_snapshot, spec)) lab_textures_.new_snapshot();
}

// [SECTION] One frame

bool App::frame() {
  using Clock = std::chrono::steady_clock;
  const auto frame_start = Clock::now();
  surface_.make_current();
  if (look_.stale(ui_, surface_)) look_.apply(ui_, surface_);
  // Everything this frame draws (and reports) is in this App's language, whatever another App or an
  // export on this thread uses before or after it.
  const i18n::Use language(look_.language());
  // The keys the open lesson step holds are drawn disabled (panels.hpp).
  const LessonStep* open_step = current_step(ui_);
  const HeldKeysScope held(open_step != nullptr ? std::span<const std::string>(open_step->held)
                                                : std::span<const std::string>());
  if (!surface_.begin_frame()) return false;
  import_.take_finished_and_dropped(ui_, surface_, look_.language(),
                                    reporter());  // before the interaction frame, so an import is one undo step
  begin_interaction_frame();                      // undo/redo, nudges, the sweep: before Params are submitted
  training_.sync(ui_, reporter());                // the training lab's corpus and Trainer

  if (ImGui::IsKeyPressed(GLFW_KEY_F12, false)) ui_.interaction.commands.push(Command::screenshot);
  // Ctrl+Q quits, also in full screen where there is no close button (File > Quit does the same).
  if (ImGui::GetIO().KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_Q, false)) ui_.interaction.commands.push(Command::quit);
  // Ctrl+= / Ctrl+− (and the keypad's + / −) change the font scale by 0.25×, next frame. One step
  // a press, no key repeat: each step rebuilds the font atlas, and that slow frame would otherwise
  // count as holding the key past the repeat delay (two steps for one short press).
  const ImGuiIO& io = ImGui::GetIO();
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_EQUAL, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_ADD, false)))
    ui_.font_scale = std::min(ui_.font_scale + 0.25f, font_scale_max);
  if (io.KeyCtrl && (ImGui::IsKeyPressed(GLFW_KEY_MINUS, false) || ImGui::IsKeyPressed(GLFW_KEY_KP_SUBTRACT, false)))
    ui_.font_scale = std::max(ui_.font_scale - 0.25f, font_scale_min);
  if (ImGui::GetIO().KeyCtrl && session_popup_.mode == SessionPopup::Mode::closed) {
    const bool save = ImGui::IsKeyPressed(GLFW_KEY_S, false), load = ImGui::IsKeyPressed(GLFW_KEY_O, false);
    if (files_by_host_) {  // the host's own save and open (AppOptions::files_by_host)
      if (save) ui_.interaction.commands.push(Command::save_session);
      if (load) ui_.interaction.commands.push(Command::open_session);
    } else if (save || load) {
      session_popup_.open(save ? SessionPopup::Mode::save : SessionPopup::Mode::load);
    }
  }
  // What the open step's text describes is what the plots show: a held key changed another way
  // than its (disabled) slider is put back (lesson_player.hpp).
  if (const std::vector<std::string_view> restored = hold_step_settings(ui_); !restored.empty()) {
    std::string names;
    for (std::string_view key : restored) names.append(names.empty() ? "" : ", ").append(key_title(key));
    report(i18n::format("lesson.held.restored", {names}), false);
  }
  timing_.blocked_ms = 0.0;
  const bool submitting = needs_submit();
  if (submitting) {
    // A step on its own (a click, a key, the clicker) when nothing is moving: no slider or plot
    // held by the pointer, no lesson step's glide, no sweep playing (nor, FrameEvaluation checks,
    // Params that changed on the frame before too: --bench-frames moves its slider every frame).
    const bool still =
        !ImGui::IsAnyItemActive() && !ui_.gesture.active() && !ui_.lesson.animating && !ui_.interaction.sweep_playing;
    attach_corpus(ui_.params, training_.corpus());  // as submit() does
    timing_.blocked_ms = evaluation_.submit_and_wait(ui_.params, ui_.view,
                                                     training_.evaluated_view(ui_.view, ui_.params.training), still);
  }
  evaluation_.end_frame(submitting);
  sync_snapshot();
  // The live training lab's newest picture into the Snapshot drawn; a new one has new maps.
  if (training_.compose(ui_, evaluation_.latest().snapshot)) lab_textures_.new_snapshot();
  if (Result<void> worker = evaluation_.evaluator().take_error(); !worker) report(worker.error().message, true);

  // A status line about an import the Params no longer hold goes before the frame is drawn
  // (UiStatus::status_import): a change made after drawing submits Params, so a frame follows.
  if (ui_.status_reports_import && (ui_.status_import.expired() || ui_.status_import.lock() != ui_.params.imported)) {
    ui_.status.clear();
    ui_.status_is_error = false;
    ui_.status_reports_import = false;
  }

  FrameStats stats;
  stats.computing = evaluation_.evaluator().busy();
  stats.progress = evaluation_.evaluator().progress();
  stats.compute_ms = evaluation_.evaluator().last_compute_ms();
  stats.frame_ms = timing_.frame_ms;
  const HeatmapTextures textures = dashboard_maps_.textures();
  advance_lesson(ui_, animation_step_seconds());  // a step's Params glide over 0.5 s
  handle_pin_keys(ui_);                           // P pins; the pins' Snapshots are brought up to date for the plots
  draw_main_window(ui_, evaluation_.latest().snapshot.get(), evaluation_.latest().sweep.get(), textures, lab_textures_,
                   view_cache_, look_.plot_style(), stats);
  // Direct manipulation: the mouse's press, moves and release on the plots just placed.
  if (const LabView* view = view_cache_.current(); view != nullptr)
    feed_mouse(ui_, view_info(ui_.view).name, view->plots, look_.plot_style(), evaluation_.latest().snapshot.get());
  // Before the session popup: Escape closing the popup must not also close the lesson.
  draw_lesson(ui_, evaluation_.latest().snapshot.get(), evaluation_.latest().sweep.get());
  log_committed_guess();
  draw_session_popup(session_popup_, [this](SessionPopup::Mode mode, const std::string& path, bool overwrite) {
    return save_or_load_session(mode, path, overwrite);
  });
  toast_.draw(surface_.time_seconds(), ui_.ui_scale);
  import_.draw(ui_, surface_.time_seconds(), look_.language(), reporter());
  draw_background_progress();  // exports, a GIF, an import behind a closed dialog: bars and Cancel
  if (host_ != nullptr) host_->frame(*this);
  // Escape closes an open menu, combo list or context menu, as it closes the dialogs (they take
  // their own Escape): left open, the next click would pick from the list. This frame's other Escape
  // users (presenter mode, the lesson) left the key alone while the popup was open.
  if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) ImGui::ClosePopupsExceptModals();

  // A screenshot shows the picture, not the menu it was asked from: File → Screenshot is clicked in
  // a frame that still draws the File menu, so the capture waits for a frame with no menu, combo
  // or context popup drawn (a modal dialog still counts as the picture).
  const bool popup_drawn = menu_or_popup_drawn();
  surface_.end_frame();
  training_.export_npz(ui_, evaluation_.latest().snapshot.get(), reporter());
  if (!popup_drawn && ui_.interaction.commands.take(Command::screenshot))
    exports_.start_screenshot(surface_, ui_.screenshot_dir, look_.language());
  end_interaction_frame();  // history, PNG export, GIF recording

  timing_.frame_ms = std::chrono::duration<double, std::milli>(Clock::now() - frame_start).count();
  timing_.recompute_ms = evaluation_.evaluator().last_compute_ms();
  return true;
}

// [SECTION] Sessions

Session App::current_session() const { return session_of(ui_); }

Session session_of(const UiModel& model) {
  Session session;
  session.params = model.params;
  session.view = model.view;
  session.screenshot_dir = model.screenshot_dir;
  session.language = model.language;
  session.theme = theme_name(model.theme);
  session.font_scale = model.font_scale;
  session.colormap = plot::name(model.interaction.colormap);
  session.color_scales = model.interaction.color_scales.chosen;
  if (const LessonStep* step = current_step(model); step != nullptr)
    session.lesson = SessionLesson{current_lesson(model)->name, static_cast<int>(model.lesson.open->step) + 1};
  session.pins = model.pins.pins;
  if (model.params.imported != nullptr) {
    session.imports = model.params.imported->sources;
    session.import_tokens = model.params.imported->tokens_file;
  }
  return session;
}

void App::restore_session(const Session& session) {
  const i18n::Use language(look_.language());
  StartState state;
  state.view = ui_.view;
  state.screenshot_dir = ui_.screenshot_dir;
  state.theme = ui_.theme;
  state.font_scale = ui_.font_scale;
  state.colormap = ui_.interaction.colormap;
  state.language = ui_.language;
  const Result<void> applied = apply_session(session, ui_.lessons, SessionGiven{}, state);
  ui_.params = state.params;
  ui_.scores_text = format_scores(state.params.scores);
  ui_.input_error.clear();
  if (state.view != ui_.view) {
    ui_.view = state.view;
    ui_.select_view_tab = true;
  }
  ui_.screenshot_dir = state.screenshot_dir;
  // Applied between frames (fonts); Chinese only when its table and font are there.
  if (state.language == i18n::Language::English || ui_.chinese_available) ui_.language = state.language;
  ui_.theme = state.theme;
  ui_.font_scale = state.font_scale;
  ui_.interaction.colormap = state.colormap;
  ui_.interaction.color_scales.chosen = state.color_scales;
  if (!state.import_warning.empty()) {  // the files are gone: say so once, in the status line
    ui_.status = state.import_warning;
    ui_.status_is_error = true;
  }
  ui_.pins = PinState{};
  ui_.pins.pins = session.pins;
  // A lesson position is kept only if that lesson and step still exist; Params stay the session's.
  ui_.lesson.animating = false;
  ui_.lesson.open.reset();
  if (session.lesson && (!applied || !state.lesson || !resume_lesson(ui_, state.lesson->lesson, state.lesson->step)))
    report(i18n::format("lesson.not_available", {session.lesson->name, std::to_string(session.lesson->step)}), true);
}

Result<void> App::save_or_load_session(SessionPopup::Mode mode, const std::string& path, bool overwrite) {
  if (mode == SessionPopup::Mode::save) {
    Session session = current_session();
    if (host_ != nullptr) session.class_record = host_->session_record();
    const Result<void> saved = save_session(path, session, overwrite);
    if (saved.ok()) report(i18n::format("app.status.saved_session", {path}), false);
    // The file layer refuses an existing file in the command line's words (--overwrite); here the
    // way to replace it is the popup's checkbox, so say that, in the window's language.
    std::error_code error;
    if (!saved.ok() && !overwrite && std::filesystem::is_regular_file(path, error))
      return Error::file(i18n::format("app.session.exists", {path, i18n::tr("app.session.overwrite")}));
    return saved;
  }
  const Result<Session> loaded = load_session(path);
  if (!loaded) return loaded.error();
  restore_session(*loaded);  // a bad file changes nothing
  report(i18n::format("app.status.loaded_session", {path}), false);
  // Its class, hosted again after the session is shown (the host reports how that went).
  if (!loaded->class_record.empty() && host_ != nullptr) host_->reopen_session(*this, loaded->class_record);
  return {};
}

// [SECTION] Screenshots and reports

double animation_step_seconds() {
  // After the window slept (idle), the first frame's DeltaTime spans the whole sleep: an animation
  // started on that frame must not jump. A slow frame still moves an animation by its own length.
  return std::clamp(static_cast<double>(ImGui::GetIO().DeltaTime), 0.0, 0.25);
}

void App::log_committed_guess() {
  // SMLAB_LOG_TOASTS set: a committed guess goes to stderr too, one line, as the toasts do (the
  // live-window test checks that the number typed is the number committed).
  const std::optional<double> committed = ui_.lesson.revealed ? ui_.lesson.guess : std::nullopt;
  if (committed == logged_guess_) return;
  logged_guess_ = committed;
  const Lesson* lesson = current_lesson(ui_);
  if (committed && lesson != nullptr && std::getenv("SMLAB_LOG_TOASTS") != nullptr)
    std::fprintf(stderr, "softmax-lab: guess: %s on %s:%zu\n", predict_guess(*committed).c_str(), lesson->name.c_str(),
                 ui_.lesson.open->step + 1);
}

void App::report(std::string text, bool is_error) {
  ui_.status = std::move(text);
  ui_.status_is_error = is_error;
  ui_.status_reports_import = false;
  toast_.show(ui_.status, is_error, surface_.time_seconds());
  // SMLAB_LOG_TOASTS set: each toast's text also goes to stderr, one line (the live-window test
  // reads what a toast said without reading pixels).
  if (std::getenv("SMLAB_LOG_TOASTS") != nullptr) std::fprintf(stderr, "softmax-lab: toast: %s\n", ui_.status.c_str());
}

// [SECTION] Idle wait

double App::idle_wait_seconds() const {
  const ImGuiIO& io = ImGui::GetIO();
  if (needs_submit() || ui_.lesson.animating || ui_.lesson_view.start_requested || sweep_player_.playing() ||
      exports_.recording_gif() || !ui_.interaction.commands.empty())
    return 0.0;
  // The mouse moved onto or off a bound number of the lesson's text: the plots mark it next frame.
  if (current_step(ui_) != nullptr && ui_.lesson_view.hovered_number != ui_.lesson_view.marked_number) return 0.0;
  // A PNG's offscreen render takes a step each frame; written files end with a wake().
  if (exports_.rendering()) return 0.0;
  // A held key repeats on ImGui's clock; a held button may be a drag about to move.
  for (const bool down : io.KeysDown)
    if (down) return 0.0;
  for (const bool down : io.MouseDown)
    if (down) return 0.0;
  double wait = -1.0;
  const auto at_most = [&wait](double seconds) { wait = wait < 0.0 ? seconds : std::min(wait, seconds); };
  if (evaluation_.evaluator().busy()) at_most(0.1);  // the progress bar; the finished snapshot wakes the window
  if (exports_.exporting()) at_most(0.1);            // their rows appear after a moment, their bars move
  if (ui_.training.running) at_most(1.0 / 30.0);     // the training lab's curves grow
  if (io.WantTextInput) at_most(0.5);                // the text cursor blinks
  if (const std::optional<double> change = toast_.seconds_until_change(surface_.time_seconds())) at_most(*change);
  return wait;
}

}  // namespace smlab::app
