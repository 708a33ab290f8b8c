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
#include "plot/text_wrap.hpp"

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

void draw_lab(const LabDefinition& lab, const LabInputs& inputs, const plot::Style& style, ImVec2 min, ImVec2 max,
              Params& edit, std::vector<PlacedPlot>& placed) {
  const LabView view = lab.build(inputs);
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  ImGui::SetCursorScreenPos(min);
  ImGui::BeginGroup();  // keeps every line at min.x, not the window's left edge
  plot::wrapped_text(view.explanation, max.x - min.x);
  for (const std::string& note : view.notes) plot::wrapped_text(note, max.x - min.x, true);
  ImGui::EndGroup();
  const float top = ImGui::GetCursorScreenPos().y + gap;
  if (view.plots.empty() || top >= max.y) return;

  // Grid: plots fill rows left to right; a plot may span several columns.
  const int columns = std::max(view.columns, 1);
  int rows = 0, used = columns;
  for (const NamedPlot& named : view.plots) {
    const int span = std::clamp(named.column_span, 1, columns);
    if (used + span > columns) {
      ++rows;
      used = 0;
    }
    used += span;
  }
  const float cell_w = (max.x - min.x - gap * static_cast<float>(columns - 1)) / static_cast<float>(columns);
  const float cell_h = (max.y - top - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows);
  int row = -1, column = columns;
  for (const NamedPlot& named : view.plots) {
    const int span = std::clamp(named.column_span, 1, columns);
    if (column + span > columns) {
      ++row;
      column = 0;
    }
    const ImVec2 origin(min.x + static_cast<float>(column) * (cell_w + gap), top + static_cast<float>(row) * (cell_h + gap));
    const ImVec2 size(cell_w * static_cast<float>(span) + gap * static_cast<float>(span - 1), cell_h);
    column += span;
    ImGui::SetCursorScreenPos(origin);
    const plot::Interaction interaction = plot::draw(named.name.c_str(), named.plot, size, style);
    placed.push_back({std::string(view_info(lab.view).name) + "/" + named.name, origin,
                      ImVec2(origin.x + size.x, origin.y + size.y)});
    if (lab.interact != nullptr && interaction.hovered) lab.interact(named.name, interaction, edit);
  }
}

}  // namespace smlab::app
