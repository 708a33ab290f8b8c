// What the window remembers: the model, the view state, the last frame's report and the status line
// (UiState holds all four; docs/ARCHITECTURE.md, "UiState"). Owned by App; panels edit it.
#pragma once

#include <memory>
#include <optional>
#include <utility>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "i18n/i18n.hpp"
#include "plot/plot.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"
#include "state/interaction_ui.hpp"
#include "state/pins.hpp"
#include "state/training_ui.hpp"
#include "state/presets.hpp"
#include "lessons/lessons.hpp"

namespace smlab::app {

// How the window looks: ImGui colours and the plot style. `projector` is high
// contrast with thick lines and large markers, for the back row of a classroom.
enum class Theme { dark, light, projector };
const char* theme_name(Theme theme);
std::optional<Theme> theme_from_name(std::string_view name);

// The user's font scale: 1× to 3×, in steps of Ctrl+= / Ctrl+−.
inline constexpr float font_scale_min = 1.0f, font_scale_max = 3.0f;

// Where the last frame drew a plot, in display units (tests and exports use it).
struct PlacedPlot {
  std::string name;  // "<view>/<plot>"
  ImVec2 min, max;
  float font_size = 0.0f;  // px of its labels as drawn (a grid may draw them smaller than the UI font)
  // The draw list the plot went into (its window's, valid until the frame ends): marks drawn over
  // the plot later in the frame (a lesson's highlight, a predict cover) go into the same list, so
  // they sit above the plot and below every window drawn above it (dialogs, toasts, menus).
  ImDrawList* draw_list = nullptr;
  ImVec2 clip_min{0, 0}, clip_max{0, 0};  // that window's visible rectangle then (a scrolling child's)
  // The smallest size a grid may give it, in em of font_size: its own (a small multiple's 8 em), or
  // 0 each way for the grid's (panels/panels.hpp).
  ImVec2 min_em{0, 0};
};

// The open lesson, the model's part (UiModel::lesson; lesson_player/lesson_player.hpp moves it):
// where it is, the animation towards its step's Params, and a predict step's answer. A session
// saves the position.
struct LessonState {
  std::optional<LessonPosition> open;  // none: no lesson shown
  bool animating = false;
  Params from, to;  // the animation runs from → to
  double elapsed_seconds = 0.0;
  Params last_applied;  // what the animation set last; other Params mean the user took over
  // A predict step (LessonStep::predict): the covered panel shows once `revealed`, beside `guess`
  // (none: revealed without one). Opening any step starts it unrevealed.
  bool revealed = false;
  std::optional<double> guess;
  // A student's page in a hosted class: the teacher reveals. A committed guess is kept as the
  // student's answer (the page sends it) and nothing is revealed until the teacher's reveal.
  bool reveal_held = false;
};

// The open lesson, the view state's part (ViewState::lesson_view): how it is being shown and
// answered — the launcher, the fields as typed, the control column beside it, the cached layout plan.
struct LessonView {
  int launcher_index = 0;  // the lesson combo's selection
  // The launcher's Start button, carried out by draw_lesson after the main window has applied its
  // own edits (opening the step inside the control column would be overwritten by them).
  std::optional<std::size_t> start_requested;
  // The step (lesson, step) whose highlighted panel the content was last scrolled to: a panel below
  // the fold is scrolled into view once when its step opens, then the scroll is the user's again.
  std::optional<std::pair<std::size_t, std::size_t>> scrolled_to;
  std::string typed_guess;  // the typed-guess field as typed: committed as it reads (parse_guess)
  std::string guess_error;  // a refused guess, shown under the field
  // The plots' frames of the lesson layout (panels/lesson_layout.hpp), and what it was planned for:
  // it is planned again only when one of these changes (planning lays each plot out once per
  // candidate arrangement).
  struct Plan {
    std::vector<ImVec2> plot_min, plot_max;
    bool plots_fit = true;
    struct Key {
      std::pair<std::size_t, std::size_t> step{};
      View view = View::dashboard;
      float area[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      float font_size = 0.0f;
      int language = -1, theme = -1;
      bool presenter = false, revealed = false, answer_ready = false, plots_built = false;
      bool answer_converged = false;  // a Monte Carlo answer's lines replace "converging" once it has
      std::size_t plots = 0;
      std::string typed;
      std::vector<std::string> notes;
      // The text's length with its bound numbers filled in: "…" becoming "0.05" replans; a number
      // that changes while a slider is dragged ("0.05" to "0.06") keeps the plan.
      std::size_t text_bytes = 0;
      // The plots are of the step's own Params: those of the step before, still shown on its first
      // frames, planned it wrong. (A slider moved during the step keeps the plan: no replanning
      // every frame of a drag.)
      bool plots_of_step = false;
      friend bool operator==(const Key&, const Key&) = default;
    };
    std::optional<Key> key;
  } plan;
  bool controls_shown = false;  // the control column beside the lesson (Ctrl+B, « »): hidden at first
  // Presenter mode answers a predict step from the keyboard: the number typed so far, or the choice
  // picked with its digit; both belong to the step they were typed on.
  std::string presenter_typed;
  int presenter_choice = -1;
  std::optional<std::pair<std::size_t, std::size_t>> presenter_typed_step;
  // A bound number of the step's text under the mouse (its value and decimals), and the one the
  // plots marked on this frame: they differ for a frame after the mouse moves onto or off a number,
  // and the window draws one more (App::idle_wait_seconds).
  std::optional<std::pair<double, int>> hovered_number, marked_number;
};

// The open lesson, the frame report's part (FrameReport::lesson_report): where this frame's lesson
// layout put the step's text and what the text turned out to need. draw_main_window places the
// step's panels and leaves the text block's box here; draw_lesson draws the text (or presenter
// caption) in it; the exports and tests read it.
struct LessonReport {
  struct TextBox {
    ImVec2 min, max;
    float scale = 1.0f;   // the text's size, × the UI font
    bool placed = false;  // false: not laid out this frame (the step's view is not shown)
    bool fits = true;     // false: the text block scrolls (the layout found no arrangement that fits)
  } text_box;
  bool text_scrolls = false;       // the step's text was taller than its box
  std::vector<std::string> notes;  // the shown lab's notes, for a step that shows them ("notes")
  std::string text;                // the step's text as drawn this frame, its bound numbers filled in
  std::vector<std::pair<ImVec2, ImVec2>> bound_numbers;  // each bound number's box in that text
  // What a hovered bound number marks on the plots this frame: "<view>/<plot>: <label>" for a label
  // that writes it, "<view>/<plot>" for a plot that draws it without one (its frame is marked).
  std::vector<std::string> marks;
  // What of the step's Next (Reveal, Finish) button and of its typed-guess field this frame could
  // be seen (the item cut to the box that shows it; empty when not drawn or scrolled away).
  struct Shown {
    ImVec2 min, max;
    [[nodiscard]] bool empty() const { return max.x <= min.x || max.y <= min.y; }
  } next_button, guess_field;
};

// A pointer gesture on a plot (panels/pointer_gestures.hpp), from the press to the release.
struct PointerGesture {
  enum class Kind { none, distribution_bar, heatmap_row, entropy_point, parabola_point } kind = Kind::none;
  std::string plot;  // "<view>/<plot>" it started on
  int key = -1;      // the bar's or point's key
  Params start;      // the Params at the press: the drag maps from them, so a lagging Snapshot does not matter
  std::vector<double> start_scores;  // distribution bars: the editable scores at the press
  std::vector<double> logits;        // parabola points: the row's scores at T = 1 (snap.scores)
  double rest_log_sum = 0.0;         // distribution bars: log Σ_{j≠key} e^{z_j} at the press
  bool active() const { return kind != Kind::none; }
};

// The model: what the user is working on and chose, and what the app was given to offer. Every
// field a session saves lives here (session_of, App::restore_session), so saving and loading cannot
// miss one the user set; so do the presets and lessons offered, the pins, the interaction state
// (undo, sweep, exports, the command queue) and the training lab's files. A change of look keeps it.
struct UiModel {
  Params params;                // always valid: edits go through validate() first
  View view = View::dashboard;  // the tab shown (a session reopens it)
  std::string screenshot_dir;   // where the button and F12 save PNGs
  // The look the user chose (a session restores it): applied between frames (fonts).
  Theme theme = Theme::dark;
  float font_scale = 1.0f;                            // [font_scale_min, font_scale_max]
  i18n::Language language = i18n::Language::English;  // the language combo; App applies it between frames
  Result<void> chinese_available;                     // ok when Chinese can be chosen, else why not (no table, no font)
  PresetList presets = std::vector<Preset>{};         // the Presets combo; an Error if presets.json did not load
  LessonList lessons;                                 // assets/lessons; the good files, with an error about a bad one
  LessonState lesson;                                 // the open lesson's position and answer
  PinState pins;              // pinned Params drawn as ghosts (state/pins.hpp, panels/pins_panel.hpp)
  InteractionUi interaction;  // undo/redo, nudges, sweep, colormap, exports (state/interaction_ui.hpp)
  TrainingUi training;        // the training lab's buttons, files and status (state/training_ui.hpp)
};

// The view state: how the model is being shown and edited, kept between frames but never saved —
// scale, layout switches, the combos' and fields' text as typed, a gesture in progress, and caches
// of layouts that are costly to find. Losing it changes how things look, not what they are.
struct ViewState {
  bool select_view_tab = true;  // make the tab bar select `view` (start-up, --view, sessions)
  std::string scores_text;      // the custom score field as typed
  float ui_scale = 1.0f;        // content scale (HiDPI) times the user's font scale
  int preset_index = 0;         // the Presets combo's selection
  // Layout: the control column can be hidden (Ctrl+B / F9, View menu, the « » button),
  // and presenter mode (F5, Escape returns) shows one panel over the whole window.
  bool controls_shown = true;
  bool presenter = false;
  std::string presenter_focus;  // "<view>/<plot>" shown in presenter mode when no lesson step names one
  // A lab's text (its explanation and notes) opened in full where it would take more than a quarter
  // of a short window (panels/dashboard.cpp): else its first line and a "more" button.
  bool lab_text_open = false;
  int compact_plot = 0;    // the plot the compact layout shows (panels.hpp: a narrow page)
  PointerGesture gesture;  // a drag or press on a plot in progress; one undo step
  LessonView lesson_view;  // the launcher, typed answers, the lesson's control column, its layout plan
  // A view's smallest readable grid cell (panels/dashboard.cpp) and what it was found for: the plots'
  // own margins decide it, so it is looked for again only when the view, font or language change.
  struct GridCell {
    struct Key {
      int view = -1, language = -1, theme = -1;
      float font_size = 0.0f;
      std::size_t plots = 0;
      friend bool operator==(const Key&, const Key&) = default;
    };
    std::optional<Key> key;
    ImVec2 size{};
    // For the content area last drawn (px, rounded): the plots' text scale (1: the UI font; less
    // where that shows more of the view's plots at once, panels/dashboard.cpp's place_grid), the
    // readable cell at that scale, and the rows' smallest height there (the cells the grid gives
    // may need more than the cell to read: readable_row_height).
    struct Placed {
      ImVec2 area{-1.0f, -1.0f};
      float text_scale = 1.0f;
      ImVec2 cell{};
      float row_height = 0.0f;
      std::vector<ImVec2> cell_min, cell_max;  // the grid's cells, from the area's top-left corner
    } placed;
  } grid_cell;
};

// The frame report: what the last frame drew, written by drawing code every frame and read after it
// by the App (F5, the export target list), the exports (a panel's rectangle) and the tests (layout
// checks). Nothing here is an input to the next frame's content except through those readers.
struct FrameReport {
  std::vector<PlacedPlot> placed_plots;  // refilled every frame
  std::string hovered_plot;              // "<view>/<plot>" under the mouse last frame: F5 presents it
  bool escape_taken = false;             // this frame's Escape already left presenter mode (the lesson stays open)
  // Tests: when set, every frame refills `layout_report` with each plot's laid-out texts and problems.
  bool record_layout = false;
  plot::LayoutReport layout_report;
  // The control column's last frame: the sliders' width in px, the font size, whether labels
  // went above their controls (the column too narrow for both side by side). For the layout tests.
  float controls_slider_width = 0.0f, controls_font_size = 0.0f;
  bool controls_labels_above = false;
  // The column's keys (and the training lab's Train button, "train-toggle") in the order drawn.
  std::vector<std::string> control_items;
  // The compact layout's control drawer while it is open (a phone): nothing is drawn over it.
  std::optional<std::pair<ImVec2, ImVec2>> drawer;
  LessonReport lesson_report;  // the step's text box this frame
};

// The status line: the outcome of the last action (App::report), and the last edit refused.
// Neither the model nor the look; written by the App and apply_params, shown by the control column.
struct UiStatus {
  std::string status;  // last saved path, or why saving failed
  bool status_is_error = false;
  // The status reports this import ("Imported …"): once the shown Params hold other data or none
  // (Back to random data, an undo, a session), the line goes, or it would describe data not shown.
  // Weak: the line does not keep the arrays alive.
  bool status_reports_import = false;
  std::weak_ptr<const ImportedAttention> status_import;
  std::string input_error;  // last rejected edit, shown inline until the next valid one
};

// What the window remembers and shows, in four parts, so that a function can say which it needs:
// the model (what the user is working on), the view state (how it is shown), the frame report (what
// the last frame drew) and the status line. UiState is all four: App owns one, panels edit it.
// The parts are bases rather than members so `ui.params` reads as before across its ~900 uses;
// a function that needs one part takes that part (session_of and lesson_player's queries take the
// model, the exports' panel_names and the layout tests' checks the report).
struct UiState : UiModel, ViewState, FrameReport, UiStatus {};

// Applies `candidate` if validate() accepts it; otherwise keeps the old Params and
// records the one-line error. Returns whether the Params changed. Every GUI edit
// goes through here, so a slider, a text field and --set share one validation.
bool apply_params(UiState& ui, const Params& candidate);

}  // namespace smlab::app
