// The main window: the control column, the view tabs, and the dashboard's four
// plot areas side by side (distribution, entropy, S(1−S), attention) or a lab.
#include <imgui.h>

#include <algorithm>

#include <string>

#include "i18n/i18n.hpp"
#include "panels/dashboard_plots.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"

namespace smlab::app {

DashboardLayout dashboard_layout(ImVec2 display_size, float ui_scale) {
  DashboardLayout layout;
  const float margin = 8.0f * ui_scale;
  const float gap = 8.0f * ui_scale;
  const float tab_height = 30.0f * ui_scale;  // one row of tabs at the UI font size
  const float controls_width = std::min(370.0f * ui_scale, 0.4f * display_size.x);
  layout.controls_min = ImVec2(margin, margin);
  layout.controls_max = ImVec2(margin + controls_width, display_size.y - margin);
  const float left = layout.controls_max.x + gap;
  const float right = std::max(display_size.x - margin, left + 1.0f);
  layout.tabs_min = ImVec2(left, margin);
  layout.tabs_max = ImVec2(right, margin + tab_height);
  layout.content_min = ImVec2(left, layout.tabs_max.y + gap);
  layout.content_max = ImVec2(right, std::max(display_size.y - margin, layout.content_min.y + 1.0f));
  const float width = layout.content_max.x - layout.content_min.x;
  const float height = layout.content_max.y - layout.content_min.y;
  const float cell_w = (width - gap) / 2.0f, cell_h = (height - gap) / 2.0f;
  for (int k = 0; k < 4; ++k) {
    const float x = left + static_cast<float>(k % 2) * (cell_w + gap);
    const float y = layout.content_min.y + static_cast<float>(k / 2) * (cell_h + gap);
    layout.plot_min[k] = ImVec2(x, y);
    layout.plot_max[k] = ImVec2(x + cell_w, y + cell_h);
  }
  return layout;
}

namespace {

// Draws `plot` filling [min, max] (screen coordinates relative to the window origin).
void place(std::vector<PlacedPlot>& placed, const char* id, const plot::Plot& plot, ImVec2 min, ImVec2 max,
           const plot::Style& style) {
  ImGui::SetCursorScreenPos(min);
  plot::draw(id, plot, ImVec2(max.x - min.x, max.y - min.y), style);
  placed.push_back({std::string("dashboard/") + id, min, max});
}

void draw_plots(std::vector<PlacedPlot>& placed, const DashboardLayout& layout, const Snapshot& snap,
                const DkSweep& sweep, const HeatmapTextures& textures, const plot::Style& style, float gap) {
  place(placed, "distribution", distribution_plot(snap), layout.plot_min[0], layout.plot_max[0], style);

  // Entropy quadrant: versus T on the left, versus d_k on the right.
  const ImVec2 e_min = layout.plot_min[1], e_max = layout.plot_max[1];
  const float e_mid = 0.5f * (e_min.x + e_max.x);
  place(placed, "entropy_t", entropy_temperature_plot(snap), e_min, ImVec2(e_mid - gap / 2, e_max.y), style);
  place(placed, "entropy_dk", entropy_dk_plot(sweep, snap.params.key_dim), ImVec2(e_mid + gap / 2, e_min.y), e_max, style);

  place(placed, "gradient", gradient_plot(snap), layout.plot_min[2], layout.plot_max[2], style);

  // Attention quadrant: scaled and unscaled heatmaps side by side, one colour range.
  const ImVec2 a_min = layout.plot_min[3], a_max = layout.plot_max[3];
  const float a_mid = 0.5f * (a_min.x + a_max.x);
  place(placed, "attention_scaled", attention_plot(snap, true, textures.scaled), a_min, ImVec2(a_mid - gap / 2, a_max.y),
        style);
  place(placed, "attention_unscaled", attention_plot(snap, false, textures.unscaled), ImVec2(a_mid + gap / 2, a_min.y),
        a_max, style);
}

}  // namespace

void draw_main_window(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const HeatmapTextures& textures,
                      TexturePool& lab_textures, const plot::Style& style, const FrameStats& stats) {
  const ImGuiIO& io = ImGui::GetIO();
  const DashboardLayout layout = dashboard_layout(io.DisplaySize, ui.ui_scale);
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  // No window background: the clear colour already paints it, and on a software
  // rasteriser every full-screen fill costs ~10 ms at 1600×900.
  constexpr ImGuiWindowFlags full_window = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                           ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                           ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBackground;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::Begin("Softmax Lab", nullptr, full_window);
  ImGui::PopStyleVar();

  // Every edit this frame (sliders, score field, lab settings, dragged bars) goes
  // to one copy of Params, validated once at the end.
  Params edit = ui.params;
  ui.placed_plots.clear();
  ImGui::SetCursorScreenPos(layout.controls_min);
  ImGui::BeginChild("controls", ImVec2(layout.controls_max.x - layout.controls_min.x,
                                       layout.controls_max.y - layout.controls_min.y),
                    true, ImGuiWindowFlags_MenuBar);
  if (ImGui::BeginMenuBar()) {  // File and Edit menus, inside the control column: the layout stays put
    draw_file_menu(ui);
    ImGui::EndMenuBar();
  }
  ImGui::TextUnformatted(i18n::tr("app.title"));
  // The tagline follows the title when it fits, else wraps below it (large fonts, narrow column).
  const char* tagline = i18n::tr("app.tagline");
  const float title_end = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
  if (title_end + ImGui::CalcTextSize(tagline).x <= ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x)
    ImGui::SameLine();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  ImGui::TextWrapped("%s", tagline);
  ImGui::PopStyleColor();
  draw_controls(ui, edit, snapshot, stats);
  ImGui::EndChild();

  ImGui::SetCursorScreenPos(layout.tabs_min);
  ImGui::PushItemWidth(layout.tabs_max.x - layout.tabs_min.x);
  if (ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
    for (const ViewInfo& info : all_views()) {
      // Select the tab that ui.view names on the first frame (e.g. --view) and keep
      // ImGui's own selection afterwards.
      const ImGuiTabItemFlags flags = ui.select_view_tab && info.view == ui.view ? ImGuiTabItemFlags_SetSelected : 0;
      // "title###name": the tab keeps its ID (and ImGui its selection) when the language changes.
      const std::string tab_label = std::string(view_title(info.view)) + "###" + std::string(info.name);
      if (ImGui::BeginTabItem(tab_label.c_str(), nullptr, flags)) {
        if (!ui.select_view_tab) ui.view = info.view;
        ImGui::EndTabItem();
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view_summary(info.view));
    }
    ui.select_view_tab = false;
    ImGui::EndTabBar();
  }
  ImGui::PopItemWidth();

  if (snapshot == nullptr) {
    ImGui::SetCursorScreenPos(layout.content_min);
    ImGui::TextDisabled("%s", i18n::tr("dashboard.computing_first"));
  } else if (const LabDefinition* lab = lab_definition(ui.view)) {
    if (lab_ready(*snapshot, ui.view)) {
      const LabInputs inputs{*snapshot, sweep != nullptr ? *sweep : snapshot->dk_sweep, &lab_textures};
      draw_lab(*lab, inputs, style, layout.content_min, layout.content_max, edit, ui.placed_plots);
    } else {
      ImGui::SetCursorScreenPos(layout.content_min);
      ImGui::TextDisabled("%s", i18n::format("dashboard.computing_lab", {view_title(ui.view)}).c_str());
    }
  } else {
    draw_plots(ui.placed_plots, layout, *snapshot, sweep != nullptr ? *sweep : snapshot->dk_sweep, textures, style,
               8.0f * ui.ui_scale);
  }
  apply_params(ui, edit);  // a rejected edit leaves its error on screen until the next accepted one
  ImGui::End();
}

}  // namespace smlab::app
