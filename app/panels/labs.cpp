// The registry of labs and the generic drawing of a lab view.
#include "panels/labs.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstdio>
#include <string_view>
#include <utility>

#include "i18n/i18n.hpp"

namespace smlab::app {
namespace {

constexpr std::array<LabDefinition, 8> labs{{
    {View::normalizers, build_normalizers, controls_normalizers, interact_normalizers},
    {View::stability, build_stability, controls_stability, nullptr},
    {View::temperature, build_temperature, controls_temperature, interact_temperature},
    {View::scaling, build_scaling, controls_scaling, nullptr},
    {View::gradients, build_gradients, controls_gradients, nullptr},
    {View::attention_variants, build_attention_variants, controls_attention_variants, nullptr},
    {View::positions, build_positions, controls_positions, nullptr},
    {View::heads, build_heads, controls_heads, nullptr},
}};

}  // namespace

const LabDefinition* lab_definition(View view) {
  for (const LabDefinition& lab : labs)
    if (lab.view == view) return &lab;
  return nullptr;
}

bool lab_ready(const Snapshot& snapshot, View view) {
  switch (view) {
    case View::dashboard: return true;
    case View::normalizers: return snapshot.normalizers.has_value();
    case View::stability: return snapshot.stability.has_value();
    case View::temperature: return snapshot.temperature.has_value();
    case View::scaling: return snapshot.scaling.has_value();
    case View::gradients: return snapshot.gradients.has_value();
    case View::attention_variants: return snapshot.attention_variants.has_value();
    case View::positions: return snapshot.positions.has_value();
    case View::heads: return snapshot.heads.has_value();
  }
  return false;
}

namespace {

// The table key of a view: its name with '-' as '_' ("attention-variants" → "lab.attention_variants").
const char* view_key(View view, bool summary) {
  switch (view) {
    case View::dashboard: return summary ? "dashboard.summary" : "dashboard.title";
    case View::normalizers: return summary ? "lab.normalizers.summary" : "lab.normalizers.title";
    case View::stability: return summary ? "lab.stability.summary" : "lab.stability.title";
    case View::temperature: return summary ? "lab.temperature.summary" : "lab.temperature.title";
    case View::scaling: return summary ? "lab.scaling.summary" : "lab.scaling.title";
    case View::gradients: return summary ? "lab.gradients.summary" : "lab.gradients.title";
    case View::attention_variants:
      return summary ? "lab.attention_variants.summary" : "lab.attention_variants.title";
    case View::positions: return summary ? "lab.positions.summary" : "lab.positions.title";
    case View::heads: return summary ? "lab.heads.summary" : "lab.heads.title";
  }
  return summary ? "dashboard.summary" : "dashboard.title";
}

}  // namespace

const char* view_title(View view) { return i18n::tr(view_key(view, false)); }
const char* view_summary(View view) { return i18n::tr(view_key(view, true)); }

std::string format_value(double value, int significant_digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant_digits, value);
  return buffer;
}

}  // namespace smlab::app
