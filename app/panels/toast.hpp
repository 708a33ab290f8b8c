// The toast: the last status report shown for a few seconds at the top of the plots, fading out
// (errors stay longer). App::report shows one; App::frame draws it; App::idle_wait_seconds asks
// when it next changes so a sleeping window wakes for its fade.
#pragma once

#include <optional>
#include <string>

namespace smlab::app {

class Toast {
 public:
  // Shows `text` from `now` (the surface's clock, seconds), replacing the toast shown before.
  void show(std::string text, bool is_error, double now);
  // Draws the toast centred over the plots, just below the view tabs, at `ui_scale`; forgets it
  // once it has faded (or the clock went back).
  void draw(double now, float ui_scale);
  // Seconds until the toast starts to fade, or a frame's time while it fades; 0 until it has been
  // drawn and has settled on the screen (a report made after a frame was drawn must not wait for
  // the fade to be seen); none: no toast.
  [[nodiscard]] std::optional<double> seconds_until_change(double now) const;

 private:
  struct Shown {
    std::string text;
    bool is_error = false;
    double shown_at = 0.0;
    int frames_drawn = 0;  // an auto-sized window is hidden on its first frame: on screen after two
  };
  std::optional<Shown> shown_;
};

}  // namespace smlab::app
