// The main window: the control column, the tab bar of views, and the dashboard's
// four plots side by side (or a lab). Panels draw from the Snapshot and edit
// UiState; they compute no math.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "plot/plot.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/snapshot.hpp"
#include "plot/texture_pool.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

class ViewCache;  // panels/labs.hpp

// Where the main window puts things, in ImGui display units, for a given window size and UI
// scale. The control column narrows with the window (at most 30 % of its width) and is hidden
// (width 0) when `controls_shown` is false; the plots' places come from flow_grid().
// Narrower than compact_layout_width (a phone's page) the layout is compact: the tabs on top, one
// plot at a time below them, and the controls (with an open lesson) in a drawer across the bottom
// half, opened and closed by the same button.
struct DashboardLayout {
  ImVec2 controls_min, controls_max;
  ImVec2 tabs_min, tabs_max;        // the strip of view tabs above the content (after the « » button)
  ImVec2 toggle_min, toggle_max;    // the button that shows or hides the control column
  ImVec2 content_min, content_max;  // where the dashboard's plots or a lab go (scrolls when taller)
  bool compact = false;
};
// The web page only (a desktop window keeps its layout at any width): 700 CSS px.
#ifdef __EMSCRIPTEN__
inline constexpr float compact_layout_width = 700.0f;
#else
inline constexpr float compact_layout_width = 0.0f;
#endif
DashboardLayout dashboard_layout(ImVec2 display_size, float ui_scale, bool controls_shown = true);

// The smallest plot the layout draws, in em (the UI font's size in px): 14 em × 11 em holds a
// title line, four labelled ticks per axis, both axis labels and a two-entry legend at any font
// scale and theme. A smaller space gets fewer plots per row and the content scrolls; no plot is
// ever drawn smaller than this.
inline constexpr float min_plot_width_em = 14.0f, min_plot_height_em = 11.0f;

// The places of plots that take `spans[i]` columns each, filling rows left to right in the box
// [min, max]: the column count (1 … max_columns) whose cells are the largest readable ones (the
// smaller side, heights counted 1.3×, wins; every cell at least the minimum above). Rows share
// the height; when even the minimum does not fit, cells keep the minimum height and `bottom`
// lies below max.y (the caller scrolls).
struct FlowGrid {
  std::vector<ImVec2> min, max;
  int columns = 1;
  float bottom = 0.0f;
};
// `min_height_em` and `min_width_em` (0: min_plot_height_em, min_plot_width_em) set the cells'
// smallest size: small multiples take less, plots with a legend beside their curves more.
FlowGrid flow_grid(const std::vector<int>& spans, int max_columns, ImVec2 min, ImVec2 max, float gap, float em,
                   float min_height_em = 0.0f, float min_width_em = 0.0f);
// The same with the smallest cell in px.
FlowGrid flow_grid_px(const std::vector<int>& spans, int max_columns, ImVec2 min, ImVec2 max, float gap,
                      float min_width, float min_height);

struct FrameStats {
  bool computing = false;
  float progress = 0.0f;
  double compute_ms = 0.0;
  double frame_ms = 0.0;
};

struct HeatmapTextures {
  std::uintptr_t scaled = 0, unscaled = 0;
};

// What a group of controls did this frame: whether it edited `edit`, and the key whose slider the
// mouse is on or holds (Left/Right nudge it; empty: none). A lab's controls return it.
struct ControlsReport {
  bool changed = false;
  std::string_view hovered_key;        // a name of the key table (static storage), or empty
  std::vector<std::string_view> keys;  // the keys whose sliders were drawn, in order (the key table's names)
  ControlsReport& operator+=(const ControlsReport& other) {
    changed = changed || other.changed;
    if (!other.hovered_key.empty()) hovered_key = other.hovered_key;
    keys.insert(keys.end(), other.keys.begin(), other.keys.end());
    return *this;
  }
};

// How a key's slider reads. `label` and `help` are string table keys (a null label: the key's own
// name, the same in every language, as d_k); `id` is its ImGui id (the same in every language);
// `format` the printf format of its value. The help is a "(?)" after the slider (the control
// column's way) or a tooltip on the slider itself (the labs' way).
struct SliderText {
  enum class Help { marker, tooltip };
  SliderText(const char* label_key, const char* imgui_id, const char* value_format, const char* help_key,
             Help shown_as = Help::tooltip, std::optional<double> upper = std::nullopt)
      : label(label_key), id(imgui_id), format(value_format), help(help_key), help_as(shown_as), max(upper) {}
  const char* label;
  const char* id;
  const char* format;
  const char* help;
  Help help_as;
  std::optional<double> max;  // a tighter upper end than the key's (an index into a shorter row)
  bool label_shown = true;    // false: the value text names it (the control strip), the tooltip has the label
};

// The keys the open lesson step holds (LessonStep::held) while one App draws its frame: key_slider
// and the control strip draw them disabled, with the help "lesson.held". A scope sets them and
// restores the previous ones, since an export's offscreen copy of the App draws on the same thread.
class HeldKeysScope {
 public:
  explicit HeldKeysScope(std::span<const std::string> keys);
  ~HeldKeysScope();
  HeldKeysScope(const HeldKeysScope&) = delete;
  HeldKeysScope& operator=(const HeldKeysScope&) = delete;

 private:
  std::span<const std::string> previous_;
};
bool key_held(std::string_view key);

// The one slider of every Params key (core/src/params.cpp's table): its range — the key's, row up
// to seq_len − 1, batch and head up to the imported data's counts, or `text.max` —, logarithmic
// where the key's scale is (or its log_slider), an integer or a real slider as its member is, the
// seed a number field with − and + buttons. A value imported data fixes (seq_len; d_k of Q and K)
// is shown disabled with the help "controls.import.fixed", one the lesson step holds with "lesson.held". While it is
// hovered or held, a key that moves (scale not none) is the report's hovered_key: Left/Right then nudge it.
ControlsReport key_slider(Params& edit, std::string_view key, const SliderText& text);

// Draws the control column (sliders, score field, the lab's settings, screenshot)
// into the current window region. Edits go to `edit`, validated by the caller.
void draw_controls(UiState& ui, Params& edit, const Snapshot* snapshot, const FrameStats& stats);

// The control column's small widgets (panels/controls.cpp), shared with interaction_panel.cpp:
// a "(?)" after the last item that shows `text` when hovered, and a coloured section title
// above a separator.
void help_marker(const char* text);
void section(const char* title);
// `color` as text on the current window's background: itself where it has WCAG AA contrast (4.5:1)
// there, else moved towards black or white until it has (plot::readable_on). For every coloured
// text a panel draws: the section titles' blue, the lesson's orange question, red errors.
ImVec4 readable_text(ImVec4 color);
// SameLine() when a button labelled `next` (ImGui label, "##id" parts not counted) still fits
// after the last item in the column; otherwise the button starts the next line (a narrow column
// at 1024×768 or a large font cut the third of three buttons).
void same_line_if_fits(const char* next);
// SameLine() when an item `width` px wide fits right of the last one (ItemSpacing between).
void same_line_if_room(float width);
// The right edge of the current window's content region, in screen coordinates.
float content_right();
// Scrolls the current window by a drag that started on none of its items, as a finger scrolls a
// page: Dear ImGui scrolls only by the wheel and the scroll bar, which a phone's one finger does
// not reach (a two-finger drag did). Call inside the window, after its items.
void scroll_by_drag();

// The label for a control with a width (slider, combo, input) in the control column: i18n::label's
// "text###id" (the text right of the control), or, where the column leaves a slider less than
// 8 em beside the longest label, the text drawn on a line of its own above and "###id" (the
// control then takes the full width). Use it right before the control.
std::string control_label(std::string_view key, std::string_view id);
// A checkbox in the control column whose text wraps (clicking the text toggles it too) where one line
// would run past the column beside a "(?)" marker, as "divide by sqrt(d_k)" did at 1024×768 with
// font 1.5. Returns true when the value changed. Follow it with help_marker as with ImGui::Checkbox.
bool control_checkbox(std::string_view key, std::string_view id, bool* value);
// A hint in the disabled colour right of the last item, wrapped to the control column, or on the
// next line where less than 6 em is left beside that item.
void side_note(std::string_view text);
// A button whose text breaks into lines (plot::wrap_text) where one line would not fit the rest of
// the control column: "with negatives [-2, -1, 0.5, 3]" at font 1.5. `label` may end in "##id".
bool control_button(std::string_view label);
// Interaction controls (panels/interaction_panel.cpp): the colormap combo, the animated sweep and
// the PNG export section, drawn into the control column.
void draw_interaction_controls(UiState& ui);
// The File and Edit menus; call between BeginMenuBar() and EndMenuBar().
void draw_file_menu(UiState& ui);

// The training lab's running training (panels/lab_training.cpp), in its control column and in a
// lesson step that shows it: the status ("Step 12 of 300: training, 10 steps/s"); Train (Pause
// while it trains), Step, Reset and the pace; Space as Train/Pause in the training view. Edits go
// to `edit` (the goal, the pace), commands to ui.training.
std::string training_status(const UiState& ui, const TrainingLab* lab);
// The status line at its longest for the step's goal (waiting at step 0, steps written in full):
// the lesson layout is planned once per step, while the status changes as the training runs.
std::string longest_training_status(const UiState& ui);
void training_run_controls(UiState& ui, Params& edit, const TrainingLab* lab);
int training_run_control_rows(float width);  // the rows training_run_controls takes at that width
void toggle_training(UiState& ui, Params& edit, const TrainingLab* lab);
void handle_training_keys(UiState& ui, Params& edit, const Snapshot* snapshot);
// Whether Space is the live training lab's Train/Pause here: then it is only that, and the sweep's
// play key (app_interaction.cpp) leaves it alone.
bool space_trains(const UiState& ui);

// The whole window for one frame. `sweep` is the refined d_k sweep belonging to
// `snapshot` (null: use the snapshot's own).
void draw_main_window(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const HeatmapTextures& textures,
                      TexturePool& lab_textures, ViewCache& view_cache, const plot::Style& style,
                      const FrameStats& stats);

}  // namespace smlab::app
