// The window's exports in progress, so the window keeps drawing while they are made: the GIF
// recording (an offscreen copy of the App that renders one sweep frame per window frame) and the
// other exports (a PNG's offscreen render, then the files written on a thread of their own). Used by
// app.cpp, app_interaction.cpp and app_exports.cpp.
#pragma once

#include <memory>
#include <optional>

#include "app.hpp"
#include "export/gif.hpp"
#include "platform/image.hpp"
#include "state/sweep.hpp"
#include "platform/offscreen.hpp"

namespace smlab::app {

struct App::GifRecording {
  // Declared before `app`, so the App (which uses the surface's contexts) is destroyed first.
  std::unique_ptr<platform::Offscreen> surface;
  std::unique_ptr<App> app;
  exporting::GifWriter writer;
  SweepSpec spec;
  int frames = 0;
  int next = 0;            // the frame being made
  bool value_set = false;  // frame `next`'s value is set and submitted; capture once evaluated
};

struct App::RunningExport {
  std::string what;         // what it makes, for its progress row ("Exporting a PNG at 2x")
  double started_at = 0.0;  // the surface's clock: the row shows after export_progress_delay_seconds
  // A PNG of the window at a scale, rendered first by an offscreen copy of this App, one step a
  // window frame (step_png_render); null once rendered, or for the other exports.
  struct Render {
    std::unique_ptr<platform::Offscreen> surface;  // before `app`: the App goes first
    std::unique_ptr<App> app;
    int width = 0, height = 0;  // layout size, display units
    float scale = 1.0f;
    std::string panel;  // "window", "controls" or a plot's name
    int frames_drawn = 0;
  };
  std::unique_ptr<Render> render;
  bool rendered = false;  // a render came first: it was the first half of the progress
  // Making and writing the file(s); its result is the status line.
  std::unique_ptr<ExportJobThread> job;
  std::optional<Error> failure;  // why it ended before a job started (render == nullptr and job == nullptr)
};

}  // namespace smlab::app
