// The main window: the control column, the tab bar of views, and the dashboard's
// four plots side by side (or a lab). Panels draw from the Snapshot and edit
// UiState; they compute no math.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include <imgui.h>

#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"
#include "state/texture_pool.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

// Where the dashboard puts things, in ImGui display units, for a given window
// size and UI scale. The headless tests use the same numbers to find the plots.
struct DashboardLayout {
  ImVec2 controls_min, controls_max;
  ImVec2 tabs_min, tabs_max;        // the strip of view tabs above the content
  ImVec2 content_min, content_max;  // where the dashboard's plots or a lab go
  ImVec2 plot_min[4], plot_max[4];  // distribution, entropy, gradient, attention
};
DashboardLayout dashboard_layout(ImVec2 display_size, float ui_scale);

struct FrameStats {
  bool computing = false;
  float progress = 0.0f;
  double compute_ms = 0.0;
  double frame_ms = 0.0;
};

struct HeatmapTextures {
  std::uintptr_t scaled = 0, unscaled = 0;
};

// Draws the control column (sliders, score field, the lab's settings, screenshot)
// into the current window region. Edits go to `edit`, validated by the caller.
void draw_controls(UiState& ui, Params& edit, const Snapshot* snapshot, const FrameStats& stats);

// The control column's small widgets (panels/controls.cpp), shared with interaction_panel.cpp:
// a "(?)" after the last item that shows `text` when hovered, and a coloured section title
// above a separator.
void help_marker(const char* text);
void section(const char* title);

// Interaction controls (panels/interaction_panel.cpp): the colormap combo, the animated sweep and
// the PNG export section, drawn into the control column.
void draw_interaction_controls(UiState& ui);
// The File and Edit menus; call between BeginMenuBar() and EndMenuBar().
void draw_file_menu(UiState& ui);
// Call right after a numeric slider: while it is hovered or held, Left/Right nudge `key`.
void note_nudge_target(UiState& ui, std::string_view key);
// The same for a lab's sliders, whose controls functions see only Params: call right after the
// slider; draw_controls hands the key on to `ui` once the lab's controls are drawn.
void note_lab_nudge_target(std::string_view key);
std::string take_lab_nudge_target();

// The whole window for one frame. `sweep` is the refined d_k sweep belonging to
// `snapshot` (null: use the snapshot's own).
void draw_main_window(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const HeatmapTextures& textures,
                      TexturePool& lab_textures, const plot::Style& style, const FrameStats& stats);

}  // namespace smlab::app
