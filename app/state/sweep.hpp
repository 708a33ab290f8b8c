// A slider sweep, KEY=FROM:TO[:log]: what `--export-gif --sweep` and the Animate controls move, and
// the value of each frame (every value set through set_param). Rendering it is frame/offscreen_app.hpp's.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/params.hpp"

namespace smlab::app {

struct SweepSpec {
  std::string key;  // a numeric Params key: temperature, d_k, score_scale, ...
  double from = 0.0, to = 0.0;
  bool logarithmic = false;
};

// Parses "KEY=FROM:TO[:log]". The key must be one of the numeric keys, FROM and TO must be numbers
// that set_param accepts for it (so both ends are in range), and a log sweep needs FROM, TO > 0.
// The error (a usage error) is one line naming the spec and what is allowed.
Result<SweepSpec> parse_sweep(std::string_view text, const Params& base);

// The value of frame `index` of `frames` as set_param text: evenly spaced from FROM to TO (in log
// space for :log), rounded for integer keys, printed to round-trip.
std::string sweep_value(const SweepSpec& spec, int index, int frames);

// The value at `fraction` (0 = FROM, 1 = TO, clamped) as set_param text, spaced like sweep_value():
// in log space for :log, rounded for integer keys. The ends are exactly FROM and TO.
std::string sweep_value_at(const SweepSpec& spec, double fraction);

// The keys a sweep may move (numeric keys), in the order the UI offers them.
std::vector<std::string_view> sweep_key_names_list();

}  // namespace smlab::app
