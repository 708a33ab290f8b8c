// The lesson panel, the highlight frame and the lesson keys (presentation clickers send PageUp and
// PageDown). Lesson text comes from the lesson files in the current language; the panel's own
// labels come from the i18n catalogue.
#include "panels/lesson_panel.hpp"

#include <imgui.h>

#include <algorithm>
#include <string>
#include <utility>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "i18n/i18n.hpp"
#include "lessons/lesson_player.hpp"
#include "panels/panels.hpp"
#include "plot/text_wrap.hpp"

namespace smlab::app {
namespace {

// Text sizes relative to the UI font: the step's title and text must read from the back row.
constexpr float title_font_scale = 1.35f;
constexpr float text_font_scale = 1.2f;
// The panel covers the control column from this fraction of its height down, so the main
// sliders above it stay visible and the class sees them move.
constexpr float panel_top_fraction = 0.34f;

ImU32 highlight_color(Theme theme) {
  // Amber on dark; a deep orange that stays visible on white and on a washed-out projector.
  return theme == Theme::dark ? IM_COL32(255, 176, 0, 255) : IM_COL32(230, 85, 13, 255);
}

void handle_keys(UiState& ui) {
  const ImGuiIO& io = ImGui::GetIO();
  // A text field, a dragged slider or a popup (the session dialog) keeps the keys.
  if (io.WantTextInput || ImGui::IsAnyItemActive() || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  if (io.KeyCtrl || io.KeyAlt) return;
  // Left/Right nudge the slider under the mouse when there is one (interaction_ui.hpp; it then sets
  // io.WantCaptureKeyboard); the clicker's PageUp/PageDown always step, wherever the mouse rests.
  const bool arrows = !ui.interaction.arrows_taken && !io.WantCaptureKeyboard;
  if ((arrows && ImGui::IsKeyPressed(GLFW_KEY_RIGHT)) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN)) lesson_next(ui);
  else if ((arrows && ImGui::IsKeyPressed(GLFW_KEY_LEFT)) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP)) lesson_previous(ui);
  else if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false) && !ui.escape_taken) close_lesson(ui);  // taken: left presenter mode
}

void draw_frame(ImVec2 min, ImVec2 max, Theme theme, float scale) {
  const float pad = 3.0f * scale;
  min = ImVec2(min.x - pad, min.y - pad);
  max = ImVec2(max.x + pad, max.y + pad);
  ImDrawList* draw = ImGui::GetForegroundDrawList();
  const ImU32 color = highlight_color(theme);
  // A soft halo outside a solid frame: visible on any plot colour, and nothing inside is covered.
  draw->AddRect(ImVec2(min.x - 3.0f * scale, min.y - 3.0f * scale), ImVec2(max.x + 3.0f * scale, max.y + 3.0f * scale),
                (color & ~IM_COL32_A_MASK) | (90u << IM_COL32_A_SHIFT), 6.0f * scale, 0, 3.0f * scale);
  draw->AddRect(min, max, color, 4.0f * scale, 0, 3.5f * scale);
}

// One frame per plot of the panel: a group such as "maps" need not be a rectangle.
void draw_highlight(const UiState& ui) {
  for (const PlacedPlot* placed : lesson_highlighted_plots(ui)) draw_frame(placed->min, placed->max, ui.theme, ui.ui_scale);
}

void draw_panel(UiState& ui, const Lesson& lesson, std::size_t step_index) {
  const LessonStep& step = lesson.steps[step_index];
  const i18n::Language language = i18n::language();
  const ImGuiIO& io = ImGui::GetIO();
  const DashboardLayout layout = dashboard_layout(io.DisplaySize, ui.ui_scale, true);
  const float column_height = layout.controls_max.y - layout.controls_min.y;
  // With the controls hidden the lesson has the whole column.
  const float top_fraction = ui.controls_shown ? panel_top_fraction : 0.0f;
  const ImVec2 min(layout.controls_min.x, layout.controls_min.y + top_fraction * column_height);
  const ImVec2 size(layout.controls_max.x - layout.controls_min.x, layout.controls_max.y - min.y);
  ImGui::SetNextWindowPos(min);
  ImGui::SetNextWindowSize(size);
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
  const ImU32 accent = highlight_color(ui.theme);
  // Opaque: the control column underneath must not show through the lesson text.
  ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  background.w = 1.0f;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, background);
  ImGui::PushStyleColor(ImGuiCol_Border, ImGui::ColorConvertU32ToFloat4(accent));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 2.0f * ui.ui_scale);
  ImGui::Begin("##lesson-panel", nullptr, flags);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);

  // Lesson list and close button on one line.
  const ImGuiStyle& style = ImGui::GetStyle();
  const std::string close_label = i18n::label("lesson.close", "lesson-close");
  const float close_width = ImGui::CalcTextSize(i18n::tr("lesson.close")).x + 2.0f * style.FramePadding.x;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - close_width - style.ItemSpacing.x);
  if (ImGui::BeginCombo("##lesson-list", lesson.title.in(language).c_str())) {
    for (std::size_t index = 0; index < ui.lessons.lessons.size(); ++index) {
      const Lesson& entry = ui.lessons.lessons[index];
      ImGui::PushID(static_cast<int>(index));
      if (ImGui::Selectable(entry.title.in(language).c_str(), index == ui.lesson.open->lesson))
        open_lesson_step(ui, index, 0, true);
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button(close_label.c_str())) close_lesson(ui);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("lesson.close_tooltip"));
  if (!ui.lesson.open) {  // the Close button
    ImGui::End();
    return;
  }

  ImGui::TextColored(ImGui::ColorConvertU32ToFloat4(accent), "%s",
                     i18n::format("lesson.step_counter", {std::to_string(step_index + 1),
                                                          std::to_string(lesson.steps.size())})
                         .c_str());
  ImGui::SetWindowFontScale(title_font_scale);
  plot::wrapped_text(step.title.in(language), ImGui::GetContentRegionAvail().x);
  ImGui::SetWindowFontScale(1.0f);
  ImGui::Separator();

  // The text scrolls if a large font scale makes it taller than the room left above the buttons.
  const float buttons_height = ImGui::GetFrameHeight() * 1.3f + ImGui::GetTextLineHeightWithSpacing() +
                               2.0f * style.ItemSpacing.y;
  ImGui::BeginChild("##lesson-text", ImVec2(0.0f, std::max(ImGui::GetContentRegionAvail().y - buttons_height, 1.0f)));
  ImGui::SetWindowFontScale(text_font_scale);
  plot::wrapped_text(step.text.in(language), ImGui::GetContentRegionAvail().x);
  ui.lesson.text_scrolls = ImGui::GetScrollMaxY() > 0.0f;
  ImGui::EndChild();

  // Previous / Next (Finish on the last step), each half the width and a little taller than usual.
  const float half = (ImGui::GetContentRegionAvail().x - style.ItemSpacing.x) / 2.0f;
  const ImVec2 button(half, ImGui::GetFrameHeight() * 1.3f);
  ImGui::BeginDisabled(step_index == 0);
  if (ImGui::Button(i18n::label("lesson.previous", "lesson-previous").c_str(), button)) lesson_previous(ui);
  ImGui::EndDisabled();
  ImGui::SameLine();
  const bool last = step_index + 1 >= lesson.steps.size();
  if (ImGui::Button(i18n::label(last ? "lesson.finish" : "lesson.next", "lesson-next").c_str(), button)) {
    if (last) close_lesson(ui);
    else lesson_next(ui);
  }
  ImGui::TextDisabled("%s", i18n::tr("lesson.keys_hint"));
  ImGui::End();
}

}  // namespace

std::vector<const PlacedPlot*> lesson_highlighted_plots(const UiState& ui) {
  std::vector<const PlacedPlot*> plots;
  const LessonStep* step = current_step(ui);
  if (step == nullptr || step->view != ui.view) return plots;
  const LessonPanel* panel = find_lesson_panel(step->view, step->panel);
  if (panel == nullptr) return plots;
  const std::string prefix = std::string(view_info(step->view).name) + "/";
  for (const PlacedPlot& placed : ui.placed_plots) {
    if (placed.name.size() <= prefix.size() || placed.name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string_view plot = std::string_view(placed.name).substr(prefix.size());
    if (std::find(panel->plots.begin(), panel->plots.end(), plot) != panel->plots.end()) plots.push_back(&placed);
  }
  return plots;
}

void draw_lesson(UiState& ui) {
  if (const auto start = std::exchange(ui.lesson.start_requested, std::nullopt)) open_lesson_step(ui, *start, 0, true);
  if (current_step(ui) == nullptr) {
    ui.lesson.open.reset();
    return;
  }
  handle_keys(ui);
  if (!ui.lesson.open) return;  // Escape
  if (ui.presenter) return;     // the step's panel fills the window and its text is the caption
  draw_highlight(ui);
  draw_panel(ui, *current_lesson(ui), ui.lesson.open->step);
}

void draw_lesson_launcher(UiState& ui) {
  ImGui::Spacing();
  ImGui::TextColored(ImGui::GetStyle().Colors[ImGuiCol_CheckMark], "%s", i18n::tr("lesson.section"));
  ImGui::Separator();
  const auto& lessons = ui.lessons.lessons;
  if (lessons.empty()) {
    ImGui::TextDisabled("%s", ui.lessons.error.empty() ? i18n::tr("lesson.none") : ui.lessons.error.c_str());
    return;
  }
  const i18n::Language language = i18n::language();
  const int count = static_cast<int>(lessons.size());
  ui.lesson.launcher_index = std::clamp(ui.lesson.launcher_index, 0, count - 1);
  const Lesson& selected = lessons[static_cast<std::size_t>(ui.lesson.launcher_index)];
  const std::string start = i18n::label("lesson.start", "lesson-start");
  ImGui::PushItemWidth(-ImGui::CalcTextSize(i18n::tr("lesson.start")).x - 3.0f * ImGui::GetStyle().FramePadding.x -
                       ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::BeginCombo("##lesson-launcher", selected.title.in(language).c_str())) {
    for (int index = 0; index < count; ++index) {
      const Lesson& lesson = lessons[static_cast<std::size_t>(index)];
      ImGui::PushID(index);
      if (ImGui::Selectable(lesson.title.in(language).c_str(), index == ui.lesson.launcher_index))
        ui.lesson.launcher_index = index;
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::PopItemWidth();
  ImGui::SameLine();
  // The control column edits a copy of Params that draw_main_window applies after this: the step
  // opens in draw_lesson, after that copy is applied, or the copy would undo it.
  if (ImGui::Button(start.c_str())) ui.lesson.start_requested = static_cast<std::size_t>(ui.lesson.launcher_index);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", i18n::format("lesson.start_tooltip", {std::to_string(selected.steps.size())}).c_str());
  if (!ui.lessons.error.empty()) ImGui::TextDisabled("%s", ui.lessons.error.c_str());
}

}  // namespace smlab::app
