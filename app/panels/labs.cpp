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

// One code point of UTF-8 at `s` (at most `end`): the code point and its length (1 for bad bytes).
std::pair<unsigned, int> utf8_at(const char* s, const char* end) {
  const auto byte = static_cast<unsigned char>(*s);
  const int length = byte < 0x80 ? 1 : byte < 0xE0 ? 2 : byte < 0xF0 ? 3 : 4;
  if (end - s < length) return {byte, 1};
  unsigned point = length == 1 ? byte : byte & (0x7Fu >> length);
  for (int k = 1; k < length; ++k) point = (point << 6) | (static_cast<unsigned char>(s[k]) & 0x3Fu);
  return {point, length};
}

// Full-width punctuation that must not start a line (it stays with the character before it).
bool closes_phrase(unsigned point) {
  switch (point) {
    case 0x3001: case 0x3002: case 0xFF0C: case 0xFF1A: case 0xFF1B: case 0xFF09:
    case 0xFF01: case 0xFF1F: case 0x201D: case 0x300D: return true;
    default: return false;
  }
}

// Wrapped text that may break before any CJK character, not only at spaces: ImGui 1.86 wraps at
// spaces, so a Chinese sentence is one long "word" that jumps to the next line whole.
void cjk_wrapped_text(std::string_view text, float width, bool disabled) {
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  const auto emit = [&](const char* from, const char* to) {
    if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
    ImGui::TextUnformatted(from, to);
    if (disabled) ImGui::PopStyleColor();
  };
  const char* const end = text.data() + text.size();
  const char* line = text.data();
  const char* breakable = nullptr;  // the line may end just before this
  float line_width = 0.0f;
  for (const char* s = line; s < end;) {
    const auto [point, length] = utf8_at(s, end);
    const char* next = s + length;
    if (point == '\n') {
      emit(line, s);
      line = next;
      breakable = nullptr;
      line_width = 0.0f;
      s = next;
      continue;
    }
    if (point >= 0x2E80 && s != line && !closes_phrase(point)) breakable = s;
    const float advance = font->CalcTextSizeA(size, FLT_MAX, 0.0f, s, next).x;
    if (line_width + advance > width && s != line) {
      const char* cut = breakable != nullptr ? breakable : s;
      emit(line, cut);
      line = cut;
      while (line < end && *line == ' ') ++line;
      breakable = nullptr;
      line_width = line < next ? font->CalcTextSizeA(size, FLT_MAX, 0.0f, line, next).x : 0.0f;
      s = next;
      continue;
    }
    line_width += advance;
    if (point == ' ') breakable = next;
    s = next;
  }
  if (line < end) emit(line, end);
}

bool has_cjk(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) { return static_cast<unsigned char>(c) >= 0xE3; });
}

void lab_text(const std::string& text, float width, bool disabled) {
  if (has_cjk(text)) {
    cjk_wrapped_text(text, width, disabled);
  } else if (disabled) {
    ImGui::TextDisabled("%s", text.c_str());
  } else {
    ImGui::TextUnformatted(text.c_str());
  }
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
  ImGui::PushTextWrapPos(max.x);
  ImGui::BeginGroup();  // keeps every line at min.x, not the window's left edge
  lab_text(view.explanation, max.x - min.x, false);
  for (const std::string& note : view.notes) lab_text(note, max.x - min.x, true);
  ImGui::EndGroup();
  ImGui::PopTextWrapPos();
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
