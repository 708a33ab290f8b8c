// What the window's interaction features keep between frames: undo/redo, slider nudges, the
// animated sweep, the colormap and the PNG/GIF exports. Panels set requests; App carries them out.
#pragma once

#include <string>
#include <vector>

#include "plot/color.hpp"
#include "plot/color_scale.hpp"
#include "state/commands.hpp"
#include "state/sweep_player.hpp"

namespace smlab::app {

// PNG export: the whole window or one panel, at 1×, 2× or 4× the window's pixels.
inline constexpr int export_scales[] = {1, 2, 4};

struct InteractionUi {
  // Sequential colormap of every attention-style heatmap (signed maps stay diverging).
  plot::Colormap colormap = plot::Colormap::Viridis;
  // Fixed or auto colour range per heatmap (right-click a heatmap); saved in the session.
  plot::ColorScales color_scales;

  // Keyboard nudges: the numeric key of the slider under the mouse, or being dragged or focused,
  // as seen last frame; empty when none. Left/Right step it one notch (Shift: ten).
  std::string nudge_key;
  std::string nudge_key_this_frame;  // filled while drawing, becomes nudge_key at the frame's end
  bool arrows_taken = false;         // a nudge used this frame's arrow keys (lesson navigation skips them)

  // Undo/redo state shown in the Edit menu (its requests are Commands: state/commands.hpp).
  bool can_undo = false, can_redo = false;

  // The sweep.
  SweepSettings sweep;
  bool sweep_playing = false;  // mirrored from App's SweepPlayer
  std::string sweep_error;     // why the settings cannot play, one line

  // Exports.
  int export_scale_index = 0;            // into export_scales
  std::string export_target = "window";  // "window" or a placed plot name / "controls"
  std::vector<std::string> panel_names;  // last frame's panels (placed plots), for the target combo
  bool gif_recording = false;
  float gif_progress = 0.0f;  // 0..1 while recording

  // Hosting a class (classroom/): offered where a host can take Command::host_class (the desktop
  // window), and whether a class is hosted now (the File menu then offers to stop).
  bool class_offered = false, class_hosting = false;

  // What the menus, buttons and keys ask of the App, in order (state/commands.hpp).
  CommandQueue commands;
};

}  // namespace smlab::app
