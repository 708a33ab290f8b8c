// The GUI's GIF recording in progress: an offscreen copy of the App that renders one sweep frame per
// window frame, so the window keeps drawing while a GIF is made. Used by app.cpp and app_interaction.cpp.
#pragma once

#include <memory>

#include "app.hpp"
#include "export/gif.hpp"
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

}  // namespace smlab::app
