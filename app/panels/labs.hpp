// The labs: one view per idea. Each lab is one LabDefinition row, defined at the end of its own
// file (app/panels/lab_<id>.cpp) for each line of smlab/lab_list.hpp; dashboard.cpp draws any lab
// the same way (explanation, then a grid of plots), and the exports write the very same plot
// descriptions as SVG and CSV. Adding a lab: docs/ARCHITECTURE.md, "Adding a lab".
//
// A lab file (app/panels/lab_<name>.cpp) provides:
//   LabView build_<name>(const LabInputs&)                plots from the Snapshot only (its
//                                                        snapshot.lab<XLab>(); no math here)
//   ControlsReport controls_<name>(Params& edit)         the lab's settings (key_slider for
//                                                        each slider) editing `edit`; says
//                                                        what changed and which key is
//                                                        hovered (validation and recompute
//                                                        happen outside)
//   optional interact_<name>(name, Interaction, Params&)  mouse on a plot (e.g. dragging bars)
//   extern const LabDefinition <id>_lab{...};            its registry row (below), named after
//                                                        its line in smlab/lab_list.hpp
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "panels/panels.hpp"
#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"
#include "plot/texture_pool.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct NamedPlot {
  std::string name;  // stable file stem for exports: "<view>-<name>.csv/.svg", e.g. "weights"
  plot::Plot plot;
  int column_span = 1;  // how many grid columns it takes (a wide plot spans 2)
  // Its smallest size in em; 0: the grid's minimum (panels.hpp). Plots with several labels and a
  // legend in one data area need more height; small multiples (one of eight panels that compare at
  // a glance) need less. A grid's cells get the largest minimum of the plots in it.
  float min_height_em = 0.0f;
  float min_width_em = 0.0f;
};

struct LabView {
  std::string explanation;  // two or three sentences: what to look at and why
  int columns = 2;          // grid columns; plots fill rows left to right
  std::vector<NamedPlot> plots;
  std::vector<std::string> notes;  // short live read-outs shown under the explanation
};

// What a lab builds its plots from.
struct LabInputs {
  const Snapshot& snapshot;  // holds the lab's numbers (snapshot.lab<NormalizersLab>(), ...)
  const DkSweep& dk_sweep;   // snapshot.dk_sweep, or its newer refinement while the UI runs
  // Null when building for an export (SVG/CSV): heatmaps then carry no texture, which the
  // SVG writer does not need. Otherwise: textures->texture("<view>/<plot>", values, ...).
  TexturePool* textures;
};

// One of a view's main keys: the few settings its plots are about, which the control strip (the
// column collapsed, dashboard.cpp) shows under the tabs: a slider whose text names the value
// ("T = 1") through key_slider, or a checkbox for a flag (scaled, causal).
struct MainKey {
  const char* key;             // the Params key (core/src/params.cpp's table)
  const char* label;           // string-table key of its name: a flag's checkbox text, a slider's tooltip
  const char* format;          // the slider's value text, naming the value; null for a flag
  const char* help = nullptr;  // string-table key of the tooltip's help; null: the tooltip names it only
  // A string-table key whose "{0}" takes the value, where the value's text has words to translate
  // ("{0} steps", "{0} 步"); it replaces `format` in the slider (which then only says it is one).
  const char* format_key = nullptr;

  // Its name in the UI's language: the label's text, else the key itself (d_k, whose slider text
  // names it, reads the same in both languages).
  [[nodiscard]] const char* name() const;
};

struct LabDefinition {
  View view;
  const char* title_key;    // the tab title in the string tables, "lab.<name>.title"
  const char* summary_key;  // the tab's hover summary, "lab.<name>.summary"
  // The string keys of the lab's slider labels: the control column keeps room for the longest.
  std::span<const char* const> control_labels;
  LabView (*build)(const LabInputs& inputs);
  ControlsReport (*controls)(Params& edit);  // its settings (key_slider for every slider); says what it did
  void (*interact)(std::string_view plot_name, const plot::Interaction& interaction, Params& edit);  // may be null
  // Controls that need more than Params (may be null): buttons that ask the App for work (the
  // training lab's Train/Pause, files) or switch the view; drawn after `controls`.
  void (*controls_ui)(UiState& ui, Params& edit, const Snapshot* snapshot) = nullptr;
  // The lab trains a model of its own (the training lab): the dashboard's sliders (T, d_k, L, the
  // row, the scores), which do not touch it, are left out of the column in its view, and its
  // controls come first.
  bool own_model = false;
  // Its main keys, most important first (the control strip); empty: the strip shows none.
  std::span<const MainKey> main_keys = {};
};

// What the shown view's plots are built from (ViewCache::view).
struct ViewInputs {
  const Snapshot& snapshot;
  const DkSweep& sweep;   // snapshot.dk_sweep, or its newer refinement while the UI runs
  TexturePool& textures;  // the labs' heatmap textures (App bumps their generation per Snapshot)
  std::uintptr_t scaled_map = 0, unscaled_map = 0;  // the dashboard's attention textures (App's)
  const PinState* pins = nullptr;                   // the dashboard's ghosts; null: none
  const plot::ColorScales& scales;                  // applied to heatmaps "<view>/<plot>"
};

// The shown view's LabView (a lab's plots and notes, or the dashboard's six plots with the pins'
// ghosts), built once and reused every frame: rebuilt only when what it is built from changes:
// the Snapshot (and the lab textures' generation: App bumps it for each new one), the view, the
// sweep refinement, the language, the colour-scale choices, the dashboard's map textures or the
// pins (their names and Snapshots). A frame only draws it. Its plots point into the Snapshot,
// which outlives it (App keeps the Snapshot it was built from until the next one is shown).
class ViewCache {
 public:
  const LabView& view(View view, const ViewInputs& inputs);
  // How many times a view was built: a frame where nothing changed adds none (tests).
  std::uint64_t builds() const { return builds_; }
  // The view last built (null before the first): what the frames since then have drawn.
  const LabView* current() const { return key_ ? &view_ : nullptr; }

 private:
  struct Key {
    const Snapshot* snapshot = nullptr;
    std::uint64_t texture_generation = 0;
    View view = View::dashboard;
    const DkSweep* sweep = nullptr;
    std::int64_t sweep_trials = -1;
    int language = -1;
    plot::ColorScales scales;
    std::uintptr_t scaled_map = 0, unscaled_map = 0;
    // The pins drawn (dashboard only): held, so a freed pin's address cannot match a new one.
    std::vector<std::pair<std::string, std::shared_ptr<const Snapshot>>> pins;
    friend bool operator==(const Key&, const Key&) = default;
  };
  std::optional<Key> key_;
  LabView view_;
  std::uint64_t builds_ = 0;
};

// The dashboard's view: its six plots in reading order, one grid cell each (so the reflow can
// give the attention maps square cells), the live maps drawn from App's textures `scaled_map` and
// `unscaled_map` (dashboard.cpp). No pins: ViewCache adds their ghosts.
LabView build_dashboard(const Snapshot& snapshot, const DkSweep& sweep, std::uintptr_t scaled_map,
                        std::uintptr_t unscaled_map);

// Applies `scales` to the heatmaps of `plots` (keys "<view_name>/<plot>"); a heatmap whose range
// changes gets its stored cells coloured again in `textures` (dashboard.cpp).
void apply_color_scales(std::string_view view_name, std::vector<NamedPlot>& plots, const plot::ColorScales& scales,
                        TexturePool& textures);

// The main keys of `view` (the dashboard's, or its lab row's).
std::span<const MainKey> main_keys(View view);

// The control strip: the column collapsed to `keys` (a view's main keys) in rows across `width` px
// at the cursor, each slider as wide as the strip shares out (7 to 12 em), editing `edit` through
// key_slider as the column does (panels/controls.cpp).
ControlsReport draw_control_strip(Params& edit, std::span<const MainKey> keys, float width);

// The registry (labs.cpp); null for View::dashboard.
const LabDefinition* lab_definition(View view);
std::span<const LabDefinition* const> lab_definitions();

// Whether `snapshot` holds the numbers of `view`'s lab (the worker adds them when
// the view is first shown; until then the lab says it is computing).
bool lab_ready(const Snapshot& snapshot, View view);

// Draws `plots` of the view named `view_name` into [min, max] with flow_grid() (at most
// `max_columns` per row, fewer when the space is small), appends where each went to
// ui.placed_plots (and ui.layout_report when recording), and calls `on_hover` for the plot
// under the mouse. `shrink_text`: where the plots do not all fit at the UI font, their text may be
// drawn smaller (down to 0.55 of it, 14 px at least) to show more of them at once.
void draw_plot_grid(std::string_view view_name, const std::vector<NamedPlot>& plots, int max_columns, ImVec2 min,
                    ImVec2 max, const plot::Style& style, UiState& ui,
                    const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover,
                    bool shrink_text = true);

// The right-click menu of a heatmap plot (the last ImGui item): fixed or auto colour scale,
// written to ui.interaction.color_scales.
void color_scale_menu(const plot::Heatmap& map, const std::string& plot_key, const plot::ColorScales& scales,
                      UiState& ui);

// The tab title and hover summary of a view in the current language ("lab.<view>.title").
const char* view_title(View view);
const char* view_summary(View view);

// Shared helpers for lab files.
std::string format_value(double value, int significant_digits = 4);

// The one heatmap plot builder of the labs: `map` (its cells a view into the Snapshot) under
// `title`, no legend, uploaded as texture `texture_key` ("<view>/<plot>") when textures is not
// null (exports pass null: the SVG writer needs no texture).
plot::Plot heatmap_plot(std::string title, plot::Heatmap map, const std::string& texture_key, TexturePool* textures);
// The usual attention-weight map: `weights` coloured 0 … color_max on viridis, keys across and
// queries down.
plot::Heatmap weight_heatmap(std::span<const float> weights, int rows, int cols, double color_max);
inline plot::Heatmap weight_heatmap(const Matrix& weights, double color_max) {
  return weight_heatmap(weights.values, weights.rows, weights.cols, color_max);
}
// A colour range's top from a largest_finite() value: 1 when the map has no positive entry.
inline double color_top(float largest) { return largest > 0.0f ? largest : 1.0; }

}  // namespace smlab::app
