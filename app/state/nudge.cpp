// Slider nudges: the notch table and the clamped step through set_param.
#include "state/nudge.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

namespace smlab::app {
namespace {

// The notches of every slider key in the key table (params.cpp), in its order.
std::vector<SliderNotch> make_notches() {
  std::vector<SliderNotch> notches;
  for (const ParamKey& key : param_keys()) {
    if (key.scale == KeyScale::none) continue;
    const NotchKind kind = key.is_integer()                     ? NotchKind::integer
                           : key.scale == KeyScale::logarithmic ? NotchKind::logarithmic
                                                                : NotchKind::linear;
    notches.push_back({key.name, kind,
                       kind == NotchKind::linear    ? key.step
                       : kind == NotchKind::integer ? 1.0
                                                    : 0.0,
                       kind == NotchKind::logarithmic ? key.step : 0.0});
  }
  return notches;
}

const std::vector<SliderNotch>& notches() {
  static const std::vector<SliderNotch> table = make_notches();  // built once from the key table
  return table;
}

std::string as_text(double value, bool integer) {
  if (integer) return std::to_string(std::llround(value));
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace

std::span<const SliderNotch> slider_notches() { return notches(); }

const SliderNotch* slider_notch(std::string_view key) {
  for (const SliderNotch& notch : notches())
    if (notch.key == key) return &notch;
  return nullptr;
}

bool nudge_param(Params& params, std::string_view key, int count) {
  const SliderNotch* notch = slider_notch(key);
  const std::optional<std::string> text = get_param(params, key);
  if (notch == nullptr || !text || count == 0) return false;
  const double value = std::strtod(text->c_str(), nullptr);
  double moved = value;
  switch (notch->kind) {
    case NotchKind::logarithmic:
      // From 0 (a range that starts at 0) the first notch up lands on the floor, and below the
      // floor the next notch down is 0: a multiplication alone would never leave or reach 0.
      if (value <= 0.0)
        moved = count > 0 ? notch->floor * std::pow(log_notch_factor, count - 1) : 0.0;
      else
        moved = value * std::pow(log_notch_factor, count);
      if (notch->floor > 0.0 && moved < notch->floor) moved = count > 0 ? notch->floor : 0.0;
      break;
    case NotchKind::linear:
      // Rounded to whole steps so that repeated nudges land on 0.05, 0.10, … and not 0.1000000001.
      moved = std::round((value + count * notch->step) / notch->step) * notch->step;
      break;
    case NotchKind::integer: moved = value + count; break;
  }
  // The key's range; the row's ends at the sequence's last position.
  const ParamKey& range = *find_param_key(key);
  moved = std::clamp(moved, range.min, key == "row" ? static_cast<double>(params.seq_len - 1) : range.max);
  Params candidate = params;
  if (!set_param(candidate, key, as_text(moved, notch->kind == NotchKind::integer)).ok()) return false;
  if (candidate == params) return false;
  params = std::move(candidate);
  return true;
}

}  // namespace smlab::app
