// SweepPlayer: a triangle wave over the sweep's range, driven by the frame clock.
#include "state/sweep_player.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace smlab::app {

std::string sweep_text(const SweepSettings& settings) {
  char buffer[128];
  std::snprintf(buffer, sizeof buffer, "=%.17g:%.17g%s", settings.from, settings.to,
                settings.logarithmic ? ":log" : "");
  return settings.key + buffer;
}

void SweepPlayer::start(const SweepSpec& spec, double seconds_per_pass) {
  spec_ = spec;
  seconds_per_pass_ = std::isfinite(seconds_per_pass)
                          ? std::clamp(seconds_per_pass, sweep_seconds_min, sweep_seconds_max)
                          : sweep_seconds_min;
  phase_ = 0.0;
  playing_ = true;
}

std::string SweepPlayer::advance(double seconds) {
  if (std::isfinite(seconds) && seconds > 0.0) phase_ = std::fmod(phase_ + seconds / seconds_per_pass_, 2.0);
  return sweep_value_at(spec_, position());
}

double SweepPlayer::position() const { return phase_ <= 1.0 ? phase_ : 2.0 - phase_; }

}  // namespace smlab::app
