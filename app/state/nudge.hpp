// Keyboard nudges of a slider: one "notch" up or down for any numeric Params key, always through
// set_param, so a nudge can never leave the documented range.
#pragma once

#include <span>
#include <string_view>

#include "smlab/params.hpp"

namespace smlab::app {

// How a key's slider moves one notch: log sliders multiply by 10^(1/20) (20 notches a decade),
// linear ones add `step`, integer ones add 1.
enum class NotchKind { logarithmic, linear, integer };

struct SliderNotch {
  std::string_view key;
  NotchKind kind;
  double step;   // linear: the added amount; unused otherwise
  double floor;  // logarithmic with a range starting at 0: the smallest positive value (0 = none)
};

inline constexpr double log_notch_factor = 1.1220184543019633;  // 10^(1/20)
inline constexpr int big_notch = 10;                            // Shift+arrow moves this many notches

// The numeric keys a nudge can move, in param_keys() order.
std::span<const SliderNotch> slider_notches();
const SliderNotch* slider_notch(std::string_view key);

// Moves `key` by `notches` (negative: down), clamped to the key's range (row: 0 to L−1), and
// assigns it through set_param. Returns whether `params` changed; an unknown key changes nothing.
bool nudge_param(Params& params, std::string_view key, int notches);

}  // namespace smlab::app
