// The labs: one view per idea (DESIGN.md, issue "Labs"). Each lab is a small set of
// free functions registered in labs.cpp; the generic code in lab_view.cpp draws
// any lab the same way (explanation, then a grid of plots), and the exports write
// the very same plot descriptions as SVG and CSV.
//
// A lab file (app/panels/lab_<name>.cpp) provides:
//   LabView build_<name>(const LabInputs&)                plots from the Snapshot only
//   void     controls_<name>(Params& edit)               the lab's sliders (ImGui widgets
//                                                        that edit `edit`; validation and
//                                                        recompute happen outside)
//   optional interact_<name>(name, Interaction, Params&)  mouse on a plot (e.g. dragging bars)
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"
#include "state/texture_pool.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct NamedPlot {
  std::string name;  // stable file stem for exports: "<view>-<name>.csv/.svg", e.g. "weights"
  plot::Plot plot;
  int column_span = 1;  // how many grid columns it takes (a wide plot spans 2)
  // Its smallest height in em when more than the grid's minimum (panels.hpp): plots with several
  // labels and a legend in one data area need more than three text lines of it. The row it is
  // in gets this height too.
  float min_height_em = 0.0f;
};

struct LabView {
  std::string explanation;  // two or three sentences: what to look at and why
  int columns = 2;          // grid columns; plots fill rows left to right
  std::vector<NamedPlot> plots;
  std::vector<std::string> notes;  // short live read-outs shown under the explanation
};

// What a lab builds its plots from.
struct LabInputs {
  const Snapshot& snapshot;  // has the lab's own section (e.g. snapshot.normalizers) filled
  const DkSweep& dk_sweep;   // snapshot.dk_sweep, or its newer refinement while the UI runs
  // Null when building for an export (SVG/CSV): heatmaps then carry no texture, which the
  // SVG writer does not need. Otherwise: textures->texture("<view>/<plot>", values, ...).
  TexturePool* textures;
};

struct LabDefinition {
  View view;
  LabView (*build)(const LabInputs& inputs);
  void (*controls)(Params& edit);
  void (*interact)(std::string_view plot_name, const plot::Interaction& interaction, Params& edit);  // may be null
};

// The registry (labs.cpp); null for View::dashboard.
const LabDefinition* lab_definition(View view);

// Whether `snapshot` holds the numbers of `view`'s lab (the worker adds them when
// the view is first shown; until then the lab says it is computing).
bool lab_ready(const Snapshot& snapshot, View view);

// Draws `plots` of the view named `view_name` into [min, max] with flow_grid() (at most
// `max_columns` per row, fewer when the space is small), appends where each went to
// ui.placed_plots (and ui.layout_report when recording), and calls `on_hover` for the plot
// under the mouse.
void draw_plot_grid(std::string_view view_name, const std::vector<NamedPlot>& plots, int max_columns, ImVec2 min,
                    ImVec2 max, const plot::Style& style, UiState& ui,
                    const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover);

// Applies each heatmap's colour scale (fixed or auto, plot::ColorScales, keyed "<view>/<plot>")
// to `plots` and colours their textures again where the range changed.
void apply_color_scales(std::string_view view_name, std::vector<NamedPlot>& plots, const plot::ColorScales& scales,
                        TexturePool& textures);

// The right-click menu of a heatmap plot (the last ImGui item): fixed or auto colour scale,
// written to ui.interaction.color_scales.
void color_scale_menu(const plot::Heatmap& map, const std::string& plot_key, const plot::ColorScales& scales,
                      UiState& ui);

// The tab title and hover summary of a view in the current language ("lab.<view>.title").
const char* view_title(View view);
const char* view_summary(View view);

// Shared helpers for lab files.
std::string format_value(double value, int significant_digits = 4);

// [SECTION] The labs, one file each (app/panels/lab_<name>.cpp)
LabView build_normalizers(const LabInputs& inputs);
void controls_normalizers(Params& edit);
LabView build_stability(const LabInputs& inputs);
void controls_stability(Params& edit);
LabView build_temperature(const LabInputs& inputs);
void controls_temperature(Params& edit);
LabView build_scaling(const LabInputs& inputs);
void controls_scaling(Params& edit);
LabView build_gradients(const LabInputs& inputs);
void controls_gradients(Params& edit);
LabView build_attention_variants(const LabInputs& inputs);
void controls_attention_variants(Params& edit);
LabView build_positions(const LabInputs& inputs);
void controls_positions(Params& edit);
LabView build_heads(const LabInputs& inputs);
void controls_heads(Params& edit);
void interact_normalizers(std::string_view plot_name, const plot::Interaction& interaction, Params& edit);
void interact_temperature(std::string_view plot_name, const plot::Interaction& interaction, Params& edit);

}  // namespace smlab::app
