// The command line of softmax-lab, read and checked whole before anything loads (README, "Command
// line"): every option's value on its own (CLI11 checks), then the combinations.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "classroom/class_host.hpp"
#include "i18n/i18n.hpp"
#include "plot/plot.hpp"
#include "smlab/error.hpp"
#include "smlab/views.hpp"
#include "state/start_state.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct Size {
  int width = 1600, height = 900;
};

struct Options {
  std::optional<int> exit_now;  // --help or --version was printed: exit with this code

  // What the run starts from (state/start_state.hpp), as typed.
  StartRequest start;
  // Files and folders, as typed.
  std::string screenshot_path, csv_dir, svg_dir, screenshot_dir, gif_path;
  std::vector<std::string> export_lesson;     // NAME DIR
  std::vector<std::string> export_questions;  // NAME FILE.html
  std::string panel_name, sweep_text, bench_key = "temperature";
  bool overwrite = false, presenter = false, hide_controls = false;
  bool full_redraw = false;  // --full-redraw: every pixel of every frame (platform/retained_draw.hpp)
  bool list_keys = false, list_views = false, list_presets = false, list_lessons = false, list_tasks = false;
  // --train TASK [--steps N]: the training lab with TASK's settings (--set train_* on top), trained
  // to N steps by every output mode (the window and --bench-frames train live).
  std::string train_task;
  // --class [ADDR:]PORT: the window hosts a class from the start (classroom/); --class-driver (tests
  // only, not in --help): a headless teacher that reads its steps from stdin (class_driver.cpp).
  std::optional<classroom::HostAddress> class_address;
  bool class_driver = false;

  // Checked values (and the texts some messages quote).
  Size size;
  std::string size_text = "1600x900", scale_text = "1";
  Theme theme = Theme::dark;
  float font_scale = 1.0f;
  plot::Colormap colormap = plot::Colormap::Viridis;
  int shot_scale = 1;
  i18n::Language language = i18n::Language::English;
  View view = View::dashboard;
  int gif_frames = 60, bench_frames = 0, bench_latency = 0;
  int bench_load = 0;  // --bench-load: busy threads beside a bench (frame_bench.hpp's BusyLoad)
  bool bench_key_given = false;
  // --set, --preset, --lesson, --load, --view or --import was given: the window neither restores
  // nor (unless something changes) replaces its autosave.
  bool state_from_command_line = false;

  bool any_list() const { return list_keys || list_views || list_presets || list_lessons || list_tasks; }
  // Whether the run shows text (window, PNG, GIF, SVG): CSV files alone need no string tables.
  bool shows_text() const { return csv_dir.empty() || !svg_dir.empty(); }
};

// Reads argv into Options. The Error is the one line to print (exit 2): an unknown option, an empty
// or bad value ("--size '10x10' is not allowed: WxH from 320x240 to 8192x8192"), or options that do
// not go together (two output modes; --sweep without --export-gif; ...).
Result<Options> parse_options(int argc, char** argv);

}  // namespace smlab::app
