// Slider nudges: the notch table and the clamped step through set_param.
#include "state/nudge.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>

namespace smlab::app {
namespace {

using L = ParamLimits;

constexpr std::array<SliderNotch, 12> notches = {{
    {"temperature", NotchKind::logarithmic, 0.0, 0.0},
    {"d_k", NotchKind::integer, 1.0, 0.0},
    {"score_scale", NotchKind::logarithmic, 0.0, 0.0},
    {"seq_len", NotchKind::integer, 1.0, 0.0},
    {"seed", NotchKind::integer, 1.0, 0.0},
    {"row", NotchKind::integer, 1.0, 0.0},
    {"alpha", NotchKind::linear, 0.01, 0.0},
    {"gamma", NotchKind::logarithmic, 0.0, 0.0},
    {"qk_norm", NotchKind::logarithmic, 0.0, 0.0},
    {"pe_amplitude", NotchKind::logarithmic, 0.0, 0.01},
    {"heads", NotchKind::integer, 1.0, 0.0},
    {"nudge", NotchKind::linear, 0.05, 0.0},
}};

struct Range {
  double min, max;
};

Range range_of(const Params& params, std::string_view key) {
  if (key == "temperature") return {L::temperature_min, L::temperature_max};
  if (key == "d_k") return {L::key_dim_min, L::key_dim_max};
  if (key == "score_scale") return {L::score_scale_min, L::score_scale_max};
  if (key == "seq_len") return {L::seq_len_min, L::seq_len_max};
  if (key == "seed") return {0.0, static_cast<double>(L::seed_max)};
  if (key == "row") return {0.0, static_cast<double>(params.seq_len - 1)};
  if (key == "alpha") return {L::alpha_min, L::alpha_max};
  if (key == "gamma") return {L::gamma_min, L::gamma_max};
  if (key == "qk_norm") return {L::qk_norm_min, L::qk_norm_max};
  if (key == "pe_amplitude") return {L::pe_amplitude_min, L::pe_amplitude_max};
  if (key == "heads") return {L::heads_min, L::heads_max};
  return {L::nudge_min, L::nudge_max};
}

std::string as_text(double value, bool integer) {
  if (integer) return std::to_string(std::llround(value));
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace

std::span<const SliderNotch> slider_notches() { return notches; }

const SliderNotch* slider_notch(std::string_view key) {
  for (const SliderNotch& notch : notches)
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
      if (value <= 0.0) moved = count > 0 ? notch->floor * std::pow(log_notch_factor, count - 1) : 0.0;
      else moved = value * std::pow(log_notch_factor, count);
      if (notch->floor > 0.0 && moved < notch->floor) moved = count > 0 ? notch->floor : 0.0;
      break;
    case NotchKind::linear:
      // Rounded to whole steps so that repeated nudges land on 0.05, 0.10, … and not 0.1000000001.
      moved = std::round((value + count * notch->step) / notch->step) * notch->step;
      break;
    case NotchKind::integer: moved = value + count; break;
  }
  const Range range = range_of(params, key);
  moved = std::clamp(moved, range.min, range.max);
  Params candidate = params;
  if (set_param(candidate, key, as_text(moved, notch->kind == NotchKind::integer))) return false;
  if (candidate == params) return false;
  params = std::move(candidate);
  return true;
}

}  // namespace smlab::app
