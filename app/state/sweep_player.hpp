// Play/pause of an automatic slider sweep in the window: the value moves from FROM to TO and back,
// in log or linear steps, and the caller sets it through set_param every frame.
#pragma once

#include <string>

#include "state/sweep.hpp"

namespace smlab::app {

// What the Animate controls edit; parse_sweep() checks it before playing or recording.
struct SweepSettings {
  std::string key = "temperature";
  double from = 0.05, to = 20.0;
  bool logarithmic = true;
  double seconds_per_pass = 4.0;  // FROM → TO takes this long, TO → FROM as long again
  int gif_frames = 60;            // frames of a recorded GIF (one pass FROM → TO)
};
inline constexpr double sweep_seconds_min = 0.5, sweep_seconds_max = 60.0;
inline constexpr int sweep_gif_frames_min = 2, sweep_gif_frames_max = 300;

// "KEY=FROM:TO[:log]", the text parse_sweep() reads.
std::string sweep_text(const SweepSettings& settings);

class SweepPlayer {
 public:
  // Starts at FROM, heading for TO. seconds_per_pass is clamped to [sweep_seconds_min, max].
  void start(const SweepSpec& spec, double seconds_per_pass);
  void stop() { playing_ = false; }
  bool playing() const { return playing_; }
  const SweepSpec& spec() const { return spec_; }

  // Moves the clock by `seconds` (negative counts as 0) and returns the value now, as set_param
  // text (sweep_value_at of the position).
  std::string advance(double seconds);

  // Where the sweep is: 0 at FROM, 1 at TO; it bounces, so it rises for one pass and falls for the next.
  double position() const;

 private:
  SweepSpec spec_;
  double seconds_per_pass_ = 4.0;
  double phase_ = 0.0;  // [0, 2): 0..1 going to TO, 1..2 coming back
  bool playing_ = false;
};

}  // namespace smlab::app
