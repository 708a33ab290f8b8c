// The control column: every slider edits a copy of Params that goes through the
// one validation (apply_params) before it becomes the app's state.
#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "panels/labs.hpp"
#include "panels/panels.hpp"

namespace smlab::app {
namespace {

void help_marker(const char* text) {
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", text);
}

void section(const char* title) {
  ImGui::Spacing();
  // The check-mark blue reads on the dark, light and projector backgrounds alike.
  ImGui::TextColored(ImGui::GetStyle().Colors[ImGuiCol_CheckMark], "%s", title);
  ImGui::Separator();
}

// A combo of the presets and an Apply button: the preset replaces every Params value
// (it is defined on top of the defaults) and switches to its view, if it names one.
void draw_presets(UiState& ui, Params& edit) {
  section("Presets");
  if (ui.presets.presets.empty()) {
    ImGui::TextDisabled("%s", ui.presets.error.empty() ? "no presets" : ui.presets.error.c_str());
    return;
  }
  const auto count = static_cast<int>(ui.presets.presets.size());
  ui.preset_index = std::clamp(ui.preset_index, 0, count - 1);
  const Preset& selected = ui.presets.presets[static_cast<std::size_t>(ui.preset_index)];
  ImGui::PushItemWidth(-ImGui::CalcTextSize("Apply").x - 3.0f * ImGui::GetStyle().FramePadding.x -
                       ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::BeginCombo("##preset", selected.name.c_str())) {
    for (int index = 0; index < count; ++index) {
      const Preset& preset = ui.presets.presets[static_cast<std::size_t>(index)];
      if (ImGui::Selectable(preset.name.c_str(), index == ui.preset_index)) ui.preset_index = index;
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", preset.title.c_str());
    }
    ImGui::EndCombo();
  }
  ImGui::PopItemWidth();
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", selected.title.c_str());
  ImGui::SameLine();
  if (ImGui::Button("Apply")) {
    edit = selected.params;
    if (selected.view && *selected.view != ui.view) {
      ui.view = *selected.view;
      ui.select_view_tab = true;
    }
  }
}

}  // namespace

bool apply_params(UiState& ui, const Params& candidate) {
  if (candidate == ui.params) return false;
  if (auto error = validate(candidate)) {
    ui.input_error = error->message;
    return false;
  }
  // Scores can change from elsewhere (presets, dragged bars, reset): the text field follows.
  if (candidate.scores != ui.params.scores) ui.scores_text = format_scores(candidate.scores);
  ui.params = candidate;
  ui.input_error.clear();
  return true;
}

void draw_controls(UiState& ui, Params& edit, const Snapshot* snapshot, const FrameStats& stats) {
  using L = ParamLimits;
  const float label_room = ImGui::CalcTextSize("temperature (?) ").x;
  ImGui::PushItemWidth(-label_room);

  section("Softmax");
  double temperature = edit.temperature;
  const double t_min = L::temperature_min, t_max = L::temperature_max;
  if (ImGui::SliderScalar("temperature", ImGuiDataType_Double, &temperature, &t_min, &t_max, "T = %.3g",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.temperature = temperature;
  help_marker("Logits are scores / T. Small T sharpens the distribution towards argmax, large T flattens it.\n"
              "Ctrl+click to type a value.");
  double score_scale = edit.score_scale;
  const double s_min = L::score_scale_min, s_max = L::score_scale_max;
  if (ImGui::SliderScalar("score scale", ImGuiDataType_Double, &score_scale, &s_min, &s_max, "x %.3g",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.score_scale = score_scale;
  help_marker("Multiplies every score q.k (or custom score), like larger weights in a trained model.");

  section("Attention");
  ImGui::SliderInt("d_k", &edit.key_dim, L::key_dim_min, L::key_dim_max, "d_k = %d",
                   ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp);
  help_marker("Length of each query and key vector. q.k of random N(0,1) vectors has variance d_k.");
  ImGui::Checkbox("divide by sqrt(d_k)", &edit.scaled);
  help_marker("Scaled dot-product attention: scores q.k / sqrt(d_k) have variance 1 whatever d_k is.");
  if (ImGui::SliderInt("seq_len", &edit.seq_len, L::seq_len_min, L::seq_len_max, "L = %d",
                       ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.row = std::min(edit.row, edit.seq_len - 1);
  help_marker("Number of queries and keys: the heatmaps are L x L.");
  ImGui::SliderInt("row", &edit.row, 0, edit.seq_len - 1, "row %d", ImGuiSliderFlags_AlwaysClamp);
  help_marker("Which query row the distribution and gradient plots show.");
  ImU64 seed = edit.seed;
  const ImU64 seed_step = 1;
  if (ImGui::InputScalar("seed", ImGuiDataType_U64, &seed, &seed_step, nullptr, "%llu"))
    edit.seed = std::min<ImU64>(seed, L::seed_max);
  help_marker("Seed of the random Q and K. The same seed gives the same numbers on every machine.");

  section("Custom scores");
  ImGui::PushItemWidth(-1.0f);
  const bool entered = ImGui::InputTextWithHint("##scores", "e.g. 1, 2, 3", &ui.scores_text,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
  ImGui::PopItemWidth();
  if (ImGui::Button("Use scores") || entered) {
    const ScoreParse parsed = parse_scores(ui.scores_text);
    if (parsed.error) {
      ui.input_error = "scores: " + parsed.error->message;
    } else if (parsed.scores.empty()) {
      ui.input_error = "scores: type at least one number, e.g. 1, 2, 3";
    } else {
      edit.scores = parsed.scores;
    }
  }
  ImGui::SameLine();
  if (ImGui::Button("Use row of QK^T")) edit.scores.clear();
  ImGui::SameLine();
  if (ImGui::Button("Reset all")) {
    edit = Params{};
    ui.scores_text.clear();
  }
  if (!edit.scores.empty()) ImGui::TextDisabled("showing %zu custom scores", edit.scores.size());

  draw_presets(ui, edit);

  if (const LabDefinition* lab = lab_definition(ui.view)) {
    section((std::string(view_info(ui.view).title) + " lab").c_str());
    lab->controls(edit);
  }
  if (!ui.input_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", ui.input_error.c_str());
    ImGui::PopStyleColor();
  }

  section("Read-out");
  if (snapshot != nullptr) {
    const auto n = static_cast<int>(snapshot->probabilities.size());
    ImGui::Text("entropy        %.4f nats (uniform: %.3f)", snapshot->entropy_nats, snapshot->max_entropy_nats);
    ImGui::Text("choices e^H    %.2f of %d", snapshot->effective_choices, n);
    ImGui::Text("max weight     %.4f at index %d", snapshot->max_weight, snapshot->argmax);
    ImGui::Text("S(1-S) there   %.4f (peak 1/4)", snapshot->gradient[static_cast<std::size_t>(snapshot->argmax)]);
    ImGui::Text("||Jacobian||_F %.4f", snapshot->jacobian_norm);
  }
  if (stats.computing) {
    ImGui::ProgressBar(stats.progress, ImVec2(-1.0f, 0.0f), "recomputing...");
  } else {
    ImGui::TextDisabled("recompute %.1f ms   frame %.1f ms", stats.compute_ms, stats.frame_ms);
  }

  section("Look");
  int theme = static_cast<int>(ui.theme);
  if (ImGui::Combo("theme", &theme, "dark\0light\0projector\0")) ui.theme = static_cast<Theme>(theme);
  help_marker("projector: high contrast, thick lines, large markers and text for the back row.");
  float font_scale = ui.font_scale;
  // Steps of 0.25×: the font atlas is rebuilt only when a step changes, not every drag frame.
  if (ImGui::SliderFloat("font", &font_scale, font_scale_min, font_scale_max, "%.2fx", ImGuiSliderFlags_AlwaysClamp))
    ui.font_scale = std::round(font_scale * 4.0f) / 4.0f;
  help_marker("Ctrl+= and Ctrl+- change it too. F11: full screen.");

  section("Screenshot");
  ImGui::PushItemWidth(-1.0f);
  ImGui::InputText("##folder", &ui.screenshot_dir);
  ImGui::PopItemWidth();
  if (ImGui::Button("Save PNG  (F12)")) ui.screenshot_requested = true;
  if (!ui.status.empty()) {
    if (ui.status_is_error) ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(1.0f, 0.45f, 0.4f, 1.0f));
    ImGui::TextWrapped("%s", ui.status.c_str());
    if (ui.status_is_error) ImGui::PopStyleColor();
  }
  ImGui::PopItemWidth();
}

}  // namespace smlab::app
