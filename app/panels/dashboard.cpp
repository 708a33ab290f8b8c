// The dashboard view: the control column and four plot areas side by side
// (distribution, entropy curves, the S(1−S) parabola, attention heatmaps).
#include <imgui.h>

#include <algorithm>

#include "panels/dashboard_plots.hpp"
#include "panels/panels.hpp"

namespace smlab::app {

DashboardLayout dashboard_layout(ImVec2 display_size, float ui_scale) {
  DashboardLayout layout;
  const float margin = 8.0f * ui_scale;
  const float gap = 8.0f * ui_scale;
  const float controls_width = std::min(370.0f * ui_scale, 0.4f * display_size.x);
  layout.controls_min = ImVec2(margin, margin);
  layout.controls_max = ImVec2(margin + controls_width, display_size.y - margin);
  const float left = layout.controls_max.x + gap;
  const float width = std::max(display_size.x - margin - left, 1.0f);
  const float height = std::max(display_size.y - 2.0f * margin, 1.0f);
  const float cell_w = (width - gap) / 2.0f, cell_h = (height - gap) / 2.0f;
  for (int k = 0; k < 4; ++k) {
    const float x = left + static_cast<float>(k % 2) * (cell_w + gap);
    const float y = margin + static_cast<float>(k / 2) * (cell_h + gap);
    layout.plot_min[k] = ImVec2(x, y);
    layout.plot_max[k] = ImVec2(x + cell_w, y + cell_h);
  }
  return layout;
}

namespace {

// Draws `plot` filling [min, max] (screen coordinates relative to the window origin).
void place(const char* id, const plot::Plot& plot, ImVec2 min, ImVec2 max, const plot::Style& style) {
  ImGui::SetCursorScreenPos(min);
  plot::draw(id, plot, ImVec2(max.x - min.x, max.y - min.y), style);
}

void draw_plots(const DashboardLayout& layout, const Snapshot& snap, const DkSweep& sweep, const HeatmapTextures& textures,
                const plot::Style& style, float gap) {
  place("distribution", distribution_plot(snap), layout.plot_min[0], layout.plot_max[0], style);

  // Entropy quadrant: versus T on the left, versus d_k on the right.
  const ImVec2 e_min = layout.plot_min[1], e_max = layout.plot_max[1];
  const float e_mid = 0.5f * (e_min.x + e_max.x);
  place("entropy_t", entropy_temperature_plot(snap), e_min, ImVec2(e_mid - gap / 2, e_max.y), style);
  place("entropy_dk", entropy_dk_plot(sweep, snap.params.key_dim), ImVec2(e_mid + gap / 2, e_min.y), e_max, style);

  place("gradient", gradient_plot(snap), layout.plot_min[2], layout.plot_max[2], style);

  // Attention quadrant: scaled and unscaled heatmaps side by side, one colour range.
  const ImVec2 a_min = layout.plot_min[3], a_max = layout.plot_max[3];
  const float a_mid = 0.5f * (a_min.x + a_max.x);
  place("attention_scaled", attention_plot(snap, true, textures.scaled), a_min, ImVec2(a_mid - gap / 2, a_max.y),
        style);
  place("attention_unscaled", attention_plot(snap, false, textures.unscaled), ImVec2(a_mid + gap / 2, a_min.y),
        a_max, style);
}

}  // namespace

void draw_dashboard(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const HeatmapTextures& textures,
                    const plot::Style& style, const FrameStats& stats) {
  const ImGuiIO& io = ImGui::GetIO();
  const DashboardLayout layout = dashboard_layout(io.DisplaySize, ui.ui_scale);
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  constexpr ImGuiWindowFlags full_window = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                           ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                           ImGuiWindowFlags_NoScrollWithMouse;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::Begin("Softmax Lab", nullptr, full_window);
  ImGui::PopStyleVar();

  ImGui::SetCursorScreenPos(layout.controls_min);
  ImGui::BeginChild("controls", ImVec2(layout.controls_max.x - layout.controls_min.x,
                                       layout.controls_max.y - layout.controls_min.y),
                    true);
  ImGui::TextUnformatted("Softmax Lab");
  ImGui::SameLine();
  ImGui::TextDisabled("- why attention divides by sqrt(d_k)");
  draw_controls(ui, snapshot, stats);
  ImGui::EndChild();

  if (snapshot != nullptr) {
    draw_plots(layout, *snapshot, sweep != nullptr ? *sweep : snapshot->dk_sweep, textures, style, 8.0f * ui.ui_scale);
  } else {
    ImGui::SetCursorScreenPos(layout.plot_min[0]);
    ImGui::TextDisabled("computing the first snapshot...");
  }
  ImGui::End();
}

}  // namespace smlab::app
