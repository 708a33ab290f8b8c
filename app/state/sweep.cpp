// Slider sweeps (GIF export, the Animate controls): parsing KEY=FROM:TO[:log] and the frame values.
#include "state/sweep.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace smlab::app {
namespace {

// The keys a sweep can move: the slider keys of the key table (params.cpp).
const ParamKey* find_sweep_key(std::string_view name) {
  const ParamKey* key = find_param_key(name);
  return key != nullptr && key->scale != KeyScale::none ? key : nullptr;
}

std::string sweep_key_names() {
  std::string names;
  for (std::string_view name : sweep_key_names_list()) names += (names.empty() ? "" : ", ") + std::string(name);
  return names;
}

// A number set_param has already accepted (so decimal, finite, perhaps with spaces or a '+').
std::optional<double> parse_number(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  while (end != nullptr && (*end == ' ' || *end == '\t' || *end == '\r' || *end == '\n')) ++end;
  if (end != text.c_str() + text.size() || !std::isfinite(value)) return std::nullopt;
  return value;
}

std::string format_value(double value, bool integer) {
  if (integer) return std::to_string(std::llround(value));
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

}  // namespace

Result<SweepSpec> parse_sweep(std::string_view text, const Params& base) {
  const std::string shown(text.substr(0, 60));
  const std::string usage = "--sweep '" + shown + "' is not KEY=FROM:TO[:log], e.g. temperature=0.05:20:log";
  const auto equals = text.find('=');
  if (equals == std::string_view::npos) return Error::usage(usage);
  SweepSpec spec;
  spec.key = std::string(text.substr(0, equals));
  const ParamKey* key = find_sweep_key(spec.key);
  if (key == nullptr)
    return Error::usage("--sweep key '" + spec.key.substr(0, 40) + "' cannot be swept: allowed " + sweep_key_names());
  std::vector<std::string> parts;
  std::string_view rest = text.substr(equals + 1);
  while (true) {
    const auto colon = rest.find(':');
    parts.emplace_back(rest.substr(0, colon));
    if (colon == std::string_view::npos) break;
    rest = rest.substr(colon + 1);
  }
  if (parts.size() == 3) {
    if (parts[2] != "log") return Error::usage(usage + " (the third part may only be 'log')");
    spec.logarithmic = true;
  } else if (parts.size() != 2) {
    return Error::usage(usage);
  }
  // Each end is read exactly as --set reads it (no hex, no 1e300 for an integer key), so the
  // message names the value as typed.
  for (const std::string& end : {parts[0], parts[1]}) {
    Params check = base;
    if (Result<void> set = set_param(check, spec.key, end); !set.ok())
      return Error::usage("--sweep: " + set.error().message);
  }
  const auto from = parse_number(parts[0]), to = parse_number(parts[1]);
  if (!from || !to) return Error::usage(usage + " (FROM and TO must be finite numbers)");
  spec.from = *from;
  spec.to = *to;
  if (spec.logarithmic && (spec.from <= 0.0 || spec.to <= 0.0))
    return Error::usage("--sweep '" + shown + "': a log sweep needs FROM and TO greater than 0");
  for (double end : {spec.from, spec.to}) {
    Params check = base;
    if (Result<void> set = set_param(check, spec.key, format_value(end, key->is_integer())); !set.ok())
      return Error::usage("--sweep: " + set.error().message);
  }
  return spec;
}

std::string sweep_value(const SweepSpec& spec, int index, int frames) {
  if (index <= 0 || frames <= 1) return sweep_value_at(spec, 0.0);
  if (index >= frames - 1) return sweep_value_at(spec, 1.0);
  return sweep_value_at(spec, static_cast<double>(index) / (frames - 1));
}

std::string sweep_value_at(const SweepSpec& spec, double fraction) {
  fraction = std::clamp(fraction, 0.0, 1.0);
  double value = spec.logarithmic ? std::exp(std::log(spec.from) + fraction * (std::log(spec.to) - std::log(spec.from)))
                                  : spec.from + fraction * (spec.to - spec.from);
  // The ends are exactly what was asked for (exp∘log may be an ulp off, and out of range).
  if (fraction == 0.0) value = spec.from;
  if (fraction == 1.0) value = spec.to;
  const ParamKey* key = find_sweep_key(spec.key);
  return format_value(value, key != nullptr && key->is_integer());
}

std::vector<std::string_view> sweep_key_names_list() {
  std::vector<std::string_view> names;
  for (const ParamKey& key : param_keys())
    if (key.scale != KeyScale::none) names.push_back(key.name);
  return names;
}

}  // namespace smlab::app
