// The main window: the control column (hideable), the view tabs, and the plots of the dashboard
// or a lab flowed into a grid that keeps every plot readable; or presenter mode, where the
// panel that matters fills the window under a large caption.
//
// [SECTION] Index
//   [SECTION] Grid layout of the plots
//   [SECTION] Layout keys
//   [SECTION] Presenter mode
//   [SECTION] Scrolling to the lesson step's panel
//   [SECTION] The compact layout
//   [SECTION] The main window
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/dashboard_plots.hpp"
#include "panels/labs.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/panels.hpp"
#include "panels/pins_panel.hpp"
#include "plot/text_wrap.hpp"

namespace smlab::app {

// [SECTION] Grid layout of the plots

DashboardLayout dashboard_layout(ImVec2 display_size, float ui_scale, bool controls_shown) {
  DashboardLayout layout;
  const float margin = 8.0f * ui_scale;
  const float gap = 8.0f * ui_scale;
  const float tab_height = 30.0f * ui_scale;  // one row of tabs at the UI font size
  if (display_size.x < compact_layout_width) {
    // Compact: tabs across the top, the drawer (controls, lesson) across the bottom half.
    layout.compact = true;
    const float right = std::max(display_size.x - margin, margin + 1.0f);
    layout.toggle_min = ImVec2(margin, margin);
    layout.toggle_max = ImVec2(margin + tab_height, margin + tab_height);
    layout.tabs_min = ImVec2(layout.toggle_max.x + 0.5f * gap, margin);
    layout.tabs_max = ImVec2(std::max(right, layout.tabs_min.x + 1.0f), margin + tab_height);
    const float bottom = std::max(display_size.y - margin, layout.tabs_max.y + 1.0f);
    const float drawer_top = controls_shown ? std::max(layout.tabs_max.y + gap, 0.45f * display_size.y) : bottom;
    layout.controls_min = ImVec2(margin, drawer_top);
    layout.controls_max = ImVec2(right, bottom);
    layout.content_min = ImVec2(margin, layout.tabs_max.y + gap);
    layout.content_max =
        ImVec2(right, std::max(controls_shown ? drawer_top - gap : bottom, layout.content_min.y + 1.0f));
    return layout;
  }
  // 370 px at scale 1, but never more than 30 % of the window: at 1024×768 the plots get 70 %.
  const float controls_width = controls_shown ? std::min(370.0f * ui_scale, 0.3f * display_size.x) : 0.0f;
  layout.controls_min = ImVec2(margin, margin);
  layout.controls_max = ImVec2(margin + controls_width, display_size.y - margin);
  const float left = controls_shown ? layout.controls_max.x + gap : margin;
  const float right = std::max(display_size.x - margin, left + 1.0f);
  layout.toggle_min = ImVec2(left, margin);
  layout.toggle_max = ImVec2(left + tab_height, margin + tab_height);
  layout.tabs_min = ImVec2(layout.toggle_max.x + 0.5f * gap, margin);
  layout.tabs_max = ImVec2(std::max(right, layout.tabs_min.x + 1.0f), margin + tab_height);
  layout.content_min = ImVec2(left, layout.tabs_max.y + gap);
  layout.content_max = ImVec2(right, std::max(display_size.y - margin, layout.content_min.y + 1.0f));
  return layout;
}

FlowGrid flow_grid(const std::vector<int>& spans, int max_columns, ImVec2 min, ImVec2 max, float gap, float em,
                   float min_height_em) {
  FlowGrid best;
  const float width = std::max(max.x - min.x, 1.0f), height = std::max(max.y - min.y, 1.0f);
  const float min_w = min_plot_width_em * em, min_h = std::max(min_plot_height_em, min_height_em) * em;
  float best_score = -1.0f;
  const int most = std::max(1, std::min<int>(max_columns, static_cast<int>(spans.size())));
  for (int columns = most; columns >= 1; --columns) {
    const float cell_w = (width - gap * static_cast<float>(columns - 1)) / static_cast<float>(columns);
    if (cell_w < min_w && columns > 1) continue;  // too narrow: fewer per row
    int rows = 0, used = columns;
    for (const int span : spans) {
      const int clamped = std::clamp(span, 1, columns);
      if (used + clamped > columns) {
        ++rows;
        used = 0;
      }
      used += clamped;
    }
    rows = std::max(rows, 1);
    const float cell_h = std::max(min_h, (height - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows));
    const float score = std::min(cell_w, 1.3f * cell_h);
    if (score <= best_score) continue;
    best_score = score;
    best = FlowGrid{};
    best.columns = columns;
    int row = -1, column = columns;
    for (const int span : spans) {
      const int clamped = std::clamp(span, 1, columns);
      if (column + clamped > columns) {
        ++row;
        column = 0;
      }
      const ImVec2 origin(min.x + static_cast<float>(column) * (cell_w + gap),
                          min.y + static_cast<float>(row) * (cell_h + gap));
      best.min.push_back(origin);
      best.max.push_back(ImVec2(origin.x + cell_w * static_cast<float>(clamped) + gap * static_cast<float>(clamped - 1),
                                origin.y + cell_h));
      column += clamped;
    }
    best.bottom = min.y + static_cast<float>(rows) * cell_h + gap * static_cast<float>(rows - 1);
  }
  return best;
}

void apply_color_scales(std::string_view view_name, std::vector<NamedPlot>& plots, const plot::ColorScales& scales,
                        TexturePool& textures) {
  for (NamedPlot& named : plots) {
    const std::string key = std::string(view_name) + "/" + named.name;
    if (!plot::apply_color_scales(named.plot, key, scales)) continue;
    plot::Heatmap& map = *named.plot.heatmap;
    // Stored cells were coloured with the builder's range: colour them again with this one. (The
    // dashboard's attention maps are rows on demand, coloured by App with the same choice.)
    if (map.texture != 0 && !map.values.empty())
      map.texture = textures.texture("scaled/" + key, map.values, map.rows, map.cols, map.vmin, map.vmax, map.colormap);
  }
}

void color_scale_menu(const plot::Heatmap& map, const std::string& plot_key, const plot::ColorScales& scales,
                      UiState& ui) {
  if (!map.fixed_range) return;  // one range only: nothing to choose
  if (!ImGui::BeginPopupContextItem("color-scale")) return;
  const std::string key = plot::color_scale_key(map, plot_key);
  const plot::ColorScale current = scales.scale(key, map.default_scale);
  const std::string fixed =
      i18n::format("plot.color_scale.fixed", {format_value(map.fixed_range->min), format_value(map.fixed_range->max)});
  const std::string automatic =
      i18n::format("plot.color_scale.auto", {format_value(map.auto_range ? map.auto_range->min : map.vmin),
                                             format_value(map.auto_range ? map.auto_range->max : map.vmax)});
  ImGui::TextDisabled("%s", i18n::tr("plot.color_scale.title"));
  if (ImGui::MenuItem(fixed.c_str(), nullptr, current == plot::ColorScale::Fixed))
    ui.interaction.color_scales.chosen[key] = plot::ColorScale::Fixed;
  if (ImGui::MenuItem(automatic.c_str(), nullptr, current == plot::ColorScale::Auto))
    ui.interaction.color_scales.chosen[key] = plot::ColorScale::Auto;
  ImGui::EndPopup();
}

void draw_plot_grid(std::string_view view_name, const std::vector<NamedPlot>& plots, int max_columns, ImVec2 min,
                    ImVec2 max, const plot::Style& style, UiState& ui,
                    const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  if (plots.empty()) return;
  std::vector<int> spans;
  float min_height_em = 0.0f;
  for (const NamedPlot& named : plots) {
    spans.push_back(named.column_span);
    min_height_em = std::max(min_height_em, named.min_height_em);
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const FlowGrid grid = flow_grid(spans, max_columns, min, max, gap, ImGui::GetFontSize(), min_height_em);
  plot::Style placed_style = style;
  placed_style.report = ui.record_layout ? &ui.layout_report : nullptr;
  for (std::size_t index = 0; index < plots.size(); ++index) {
    const NamedPlot& named = plots[index];
    const ImVec2 origin = grid.min[index], end = grid.max[index];
    ImGui::SetCursorScreenPos(origin);
    const std::string full_name = std::string(view_name) + "/" + named.name;
    const plot::Interaction interaction =
        plot::draw(named.name.c_str(), named.plot, ImVec2(end.x - origin.x, end.y - origin.y), placed_style);
    if (placed_style.report != nullptr && !ui.layout_report.plots.empty()) ui.layout_report.plots.back().id = full_name;
    if (named.plot.heatmap) color_scale_menu(*named.plot.heatmap, full_name, style.color_scales, ui);
    ImDrawList* draw_list = ImGui::GetWindowDrawList();
    ui.placed_plots.push_back(
        {full_name, origin, end, draw_list, draw_list->GetClipRectMin(), draw_list->GetClipRectMax()});
    if (interaction.hovered) {
      ui.hovered_plot = full_name;
      if (on_hover) on_hover(named, interaction);
    }
  }
}

LabView build_dashboard(const Snapshot& snap, const DkSweep& sweep, std::uintptr_t scaled_map,
                        std::uintptr_t unscaled_map) {
  LabView view;
  view.columns = 3;
  view.plots.push_back({"distribution", distribution_plot(snap)});
  view.plots.push_back({"entropy_t", entropy_temperature_plot(snap)});
  view.plots.push_back({"entropy_dk", entropy_dk_plot(sweep, snap.params.key_dim)});
  view.plots.push_back({"gradient", gradient_plot(snap)});
  view.plots.push_back({"attention_scaled", attention_plot(snap, true, scaled_map)});
  view.plots.push_back({"attention_unscaled", attention_plot(snap, false, unscaled_map)});
  return view;
}

namespace {

// [SECTION] Layout keys

// The keys of the layout, when no text field has the keyboard: Ctrl+B or F9 shows/hides the
// control column, F5 enters presenter mode with the hovered plot, Escape leaves it (and only
// it: an open lesson stays open). In presenter mode without a lesson, PageDown/PageUp and the
// arrows step through the view's plots.
void handle_layout_keys(UiState& ui, const std::vector<NamedPlot>& plots) {
  ui.escape_taken = false;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  if ((io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_B, false)) || ImGui::IsKeyPressed(GLFW_KEY_F9, false))
    ui.controls_shown = !ui.controls_shown;
  if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) {
    if (!ui.presenter && !ui.hovered_plot.empty()) ui.presenter_focus = ui.hovered_plot;
    ui.presenter = !ui.presenter;
  }
  if (ui.presenter && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
    ui.presenter = false;
    ui.escape_taken = true;
  }
  if (!ui.presenter || current_step(ui) != nullptr || plots.empty() || io.KeyCtrl || io.KeyAlt) return;
  const std::string prefix = std::string(view_info(ui.view).name) + "/";
  int index = 0;
  for (std::size_t k = 0; k < plots.size(); ++k)
    if (prefix + plots[k].name == ui.presenter_focus) index = static_cast<int>(k);
  const int count = static_cast<int>(plots.size());
  // One press, one plot (no key repeat), as for lesson steps (lesson_panel.cpp).
  if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, false) || ImGui::IsKeyPressed(GLFW_KEY_RIGHT, false) ||
      ImGui::IsKeyPressed(GLFW_KEY_DOWN, false))
    index = (index + 1) % count;
  else if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, false) || ImGui::IsKeyPressed(GLFW_KEY_LEFT, false) ||
           ImGui::IsKeyPressed(GLFW_KEY_UP, false))
    index = (index + count - 1) % count;
  ui.presenter_focus = prefix + plots[static_cast<std::size_t>(index)].name;
}

// [SECTION] Presenter mode

// Presenter mode: the lesson step's panel (or the chosen plot) over the whole window, the step's
// title and text as a large caption below it.
void draw_presenter(UiState& ui, const std::vector<NamedPlot>& plots, const plot::Style& style,
                    const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  const ImGuiIO& io = ImGui::GetIO();
  const float margin = 8.0f * ui.ui_scale;
  const std::string view_name(view_info(ui.view).name);
  std::vector<NamedPlot> shown;
  const LessonStep* step = current_step(ui);
  if (step != nullptr && step->view == ui.view) {
    if (const LessonPanel* panel = find_lesson_panel(step->view, step->panel))
      for (const NamedPlot& named : plots)
        if (std::find(panel->plots.begin(), panel->plots.end(), named.name) != panel->plots.end())
          shown.push_back(named);
  }
  if (shown.empty())
    for (const NamedPlot& named : plots)
      if (view_name + "/" + named.name == ui.presenter_focus) shown.push_back(named);
  if (shown.empty() && !plots.empty()) shown.push_back(plots.front());
  for (NamedPlot& named : shown) named.column_span = 1;

  // The caption: the lesson step (title and text, 1.5× the UI font) or the view's name and the keys.
  const float caption_scale = 1.5f;
  const float width = io.DisplaySize.x - 2.0f * margin;
  float caption_height = 0.0f;
  if (step != nullptr) {
    const i18n::Language language = i18n::language();
    const float line = ImGui::GetTextLineHeightWithSpacing() * caption_scale;
    // Measured by wrapping once off-screen is not possible in 1.86 without drawing: the caption
    // takes at most 30 % of the height and scrolls beyond that.
    caption_height = std::min(0.3f * io.DisplaySize.y, line * 5.0f);
    // Above the key hint's line at the bottom edge.
    const float hint_line = ImGui::GetTextLineHeightWithSpacing();
    ImGui::SetCursorScreenPos(ImVec2(margin, io.DisplaySize.y - hint_line - caption_height));
    ImGui::BeginChild("##presenter-caption", ImVec2(width, caption_height), false);
    ImGui::SetWindowFontScale(caption_scale);
    const std::string heading = std::to_string(ui.lesson.open->step + 1) + "/" +
                                std::to_string(current_lesson(ui)->steps.size()) + "  " + step->title.in(language);
    plot::wrapped_text(heading, ImGui::GetContentRegionAvail().x);
    plot::wrapped_text(step->text.in(language), ImGui::GetContentRegionAvail().x);
    ImGui::SetWindowFontScale(1.0f);
    ImGui::EndChild();
    caption_height += hint_line;
  }
  const ImVec2 min(margin, margin);
  const ImVec2 max(io.DisplaySize.x - margin, io.DisplaySize.y - margin - caption_height);
  draw_plot_grid(view_name, shown, static_cast<int>(shown.size()), min, max, style, ui, on_hover);
  const char* hint = i18n::tr("layout.presenter_hint");
  const ImVec2 hint_size = ImGui::CalcTextSize(hint);
  ImGui::GetForegroundDrawList()->AddText(
      ImVec2(io.DisplaySize.x - margin - hint_size.x, io.DisplaySize.y - hint_size.y - 2.0f),
      ImGui::GetColorU32(ImGuiCol_TextDisabled), hint);
}

// [SECTION] Scrolling to the lesson step's panel

// Inside the scrolling content child, after the plots are placed: when a lesson step opens whose
// highlighted panel lies (partly) outside the visible content, scroll so the panel's top shows
// (at 1280×720 a lab's third row of plots is below the fold). Once per step: after that the
// scroll bar is the user's. `settled`: the picture drawn is of the current Params; until then the
// layout may still move (a longer read-out above the panel, a glide still running), so the scroll
// is checked again on the next frame.
void scroll_to_lesson_panel(UiState& ui, bool settled) {
  if (!ui.lesson.open) return;
  const std::pair<std::size_t, std::size_t> step{ui.lesson.open->lesson, ui.lesson.open->step};
  if (ui.lesson.scrolled_to == step) return;
  const std::vector<const PlacedPlot*> panel = lesson_highlighted_plots(ui);
  if (panel.empty()) return;  // not drawn yet (the view is still computing): try next frame
  float top = panel.front()->min.y, bottom = panel.front()->max.y;
  for (const PlacedPlot* placed : panel) {
    top = std::min(top, placed->min.y);
    bottom = std::max(bottom, placed->max.y);
  }
  const float view_top = ImGui::GetWindowPos().y, view_bottom = view_top + ImGui::GetWindowHeight();
  if (top < view_top || bottom > view_bottom)
    ImGui::SetScrollY(std::max(0.0f, ImGui::GetScrollY() + top - view_top - ImGui::GetStyle().ItemSpacing.y));
  if (settled) ui.lesson.scrolled_to = step;
}

// [SECTION] The compact layout

// A narrow page (DashboardLayout::compact): one plot at a time, the open lesson step's panel or
// the one chosen with ◀ ▶, under a line that says so and what else is where.
void draw_compact_content(UiState& ui, const std::vector<NamedPlot>& plots, ImVec2 min, ImVec2 max,
                          const plot::Style& style,
                          const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  if (plots.empty()) return;
  const int count = static_cast<int>(plots.size());
  int index = ((ui.compact_plot % count) + count) % count;
  bool from_lesson = false;
  if (const LessonStep* step = current_step(ui); step != nullptr && step->view == ui.view)
    if (const LessonPanel* panel = find_lesson_panel(step->view, step->panel))
      for (int k = 0; k < count && !from_lesson; ++k)
        if (std::find(panel->plots.begin(), panel->plots.end(), plots[static_cast<std::size_t>(k)].name) !=
            panel->plots.end()) {
          index = k;
          from_lesson = true;
        }
  ImGui::SetCursorScreenPos(min);
  ImGui::BeginGroup();
  if (ImGui::ArrowButton("##compact-previous", ImGuiDir_Left)) ui.compact_plot = index - 1;
  ImGui::SameLine();
  if (ImGui::ArrowButton("##compact-next", ImGuiDir_Right)) ui.compact_plot = index + 1;
  ImGui::SameLine();
  ImGui::TextUnformatted((std::to_string(index + 1) + "/" + std::to_string(count)).c_str());
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
  plot::wrapped_text(i18n::format("layout.compact_note", {std::to_string(count)}), max.x - min.x);
  ImGui::PopStyleColor();
  ImGui::EndGroup();
  const float top = ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y;
  std::vector<NamedPlot> one{plots[static_cast<std::size_t>(index)]};
  one.front().column_span = 1;
  one.front().min_height_em = 0.0f;
  draw_plot_grid(view_info(ui.view).name, one, 1, ImVec2(min.x, top), ImVec2(max.x, std::max(max.y, top + 1.0f)), style,
                 ui, on_hover);
}

}  // namespace

// [SECTION] The main window

void draw_main_window(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const HeatmapTextures& textures,
                      TexturePool& lab_textures, ViewCache& view_cache, const plot::Style& style,
                      const FrameStats& stats) {
  const ImGuiIO& io = ImGui::GetIO();
  // With a lesson open the column stays: the lesson panel lives in it.
  const bool lesson_open = current_step(ui) != nullptr;
  const DashboardLayout layout = dashboard_layout(io.DisplaySize, ui.ui_scale, ui.controls_shown || lesson_open);
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
  ui.layout_report.plots.clear();
  ui.hovered_plot.clear();

  // The view's plots (the dashboard's or a lab's), built once per Snapshot (and colour scale,
  // language, pins) by view_cache and only drawn here, by the grid or by presenter mode.
  const LabDefinition* lab = lab_definition(ui.view);
  const bool ready = snapshot != nullptr && (lab == nullptr || lab_ready(*snapshot, ui.view));
  LabView not_ready;
  not_ready.columns = 3;
  const LabView* shown = &not_ready;
  if (ready) {
    const DkSweep& dk_sweep = sweep != nullptr ? *sweep : snapshot->dk_sweep;
    shown = &view_cache.view(ui.view, ViewInputs{.snapshot = *snapshot,
                                                 .sweep = dk_sweep,
                                                 .textures = lab_textures,
                                                 .scaled_map = textures.scaled,
                                                 .unscaled_map = textures.unscaled,
                                                 .pins = &ui.pins,
                                                 .scales = style.color_scales});
  }
  const LabView& lab_view = *shown;
  const std::vector<NamedPlot>& plots = lab_view.plots;
  const auto on_hover = [&](const NamedPlot& named, const plot::Interaction& interaction) {
    if (lab != nullptr && lab->interact != nullptr) lab->interact(named.name, interaction, edit);
  };
  handle_layout_keys(ui, plots);

  if (ui.presenter && ready) {
    draw_presenter(ui, plots, style, on_hover);
    apply_params(ui, edit);
    ImGui::End();
    return;
  }

  if (ui.controls_shown || lesson_open) {
    ImGui::SetCursorScreenPos(layout.controls_min);
    ImGui::BeginChild(
        "controls",
        ImVec2(layout.controls_max.x - layout.controls_min.x, layout.controls_max.y - layout.controls_min.y), true,
        ImGuiWindowFlags_MenuBar);
    if (ImGui::BeginMenuBar()) {  // File, Edit and View menus, inside the control column: the layout stays put
      draw_file_menu(ui);
      ImGui::EndMenuBar();
    }
    ImGui::TextUnformatted(i18n::tr("app.title"));
    // The tagline follows the title when it fits, else wraps below it (large fonts, narrow column).
    const char* tagline = i18n::tr("app.tagline");
    const float title_end = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    const float column_end = content_right();
    const bool same_line = title_end + ImGui::CalcTextSize(tagline).x <= column_end;
    if (same_line) ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::BeginGroup();
    plot::wrapped_text(tagline, same_line ? column_end - title_end : ImGui::GetContentRegionAvail().x);
    ImGui::EndGroup();
    ImGui::PopStyleColor();
    draw_controls(ui, edit, snapshot, stats);
    ImGui::EndChild();
  }

  // With the column hidden its File, Edit and View menus stay: a strip of them left of the » button,
  // the button and the tabs moved right by its width. Not in the compact layout (a phone): there the
  // ≡ drawer holds the column and its menus, and the width goes to the tabs.
  float menu_strip = 0.0f;
  if (!(ui.controls_shown || lesson_open) && !layout.compact) {
    const ImGuiStyle& style = ImGui::GetStyle();
    menu_strip = 2.0f * style.WindowPadding.x;
    for (const char* menu : {"ui.menu.file", "ui.menu.edit", "ui.menu.view"})
      menu_strip += ImGui::CalcTextSize(i18n::tr(menu)).x + 2.0f * style.ItemSpacing.x;
    ImGui::SetCursorScreenPos(layout.toggle_min);
    ImGui::BeginChild("##menu-strip", ImVec2(menu_strip, layout.toggle_max.y - layout.toggle_min.y), false,
                      ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoBackground);
    if (ImGui::BeginMenuBar()) {
      draw_file_menu(ui);
      ImGui::EndMenuBar();
    }
    ImGui::EndChild();
    menu_strip += 0.5f * style.ItemSpacing.x;
  }
  const ImVec2 toggle_min(layout.toggle_min.x + menu_strip, layout.toggle_min.y);
  const ImVec2 toggle_max(layout.toggle_max.x + menu_strip, layout.toggle_max.y);
  const ImVec2 tabs_min(layout.tabs_min.x + menu_strip, layout.tabs_min.y);

  // « hides the control column, » shows it (Ctrl+B, F9).
  ImGui::SetCursorScreenPos(toggle_min);
  const char* toggle = layout.compact      ? "\xe2\x89\xa1###controls-toggle"  // ≡: the drawer
                       : ui.controls_shown ? "<<###controls-toggle"
                                           : ">>###controls-toggle";
  if (ImGui::Button(toggle, ImVec2(toggle_max.x - toggle_min.x, toggle_max.y - toggle_min.y)))
    ui.controls_shown = !ui.controls_shown;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("layout.controls_toggle"));

  ImGui::SetCursorScreenPos(tabs_min);
  ImGui::PushItemWidth(std::max(layout.tabs_max.x - tabs_min.x, 1.0f));
  // The strip scrolls (arrows at its end) rather than clipping tabs; the selected tab is scrolled into view.
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
  } else if (!ready) {
    ImGui::SetCursorScreenPos(layout.content_min);
    ImGui::TextDisabled("%s", i18n::format("dashboard.computing_lab", {view_title(ui.view)}).c_str());
  } else if (layout.compact) {
    draw_compact_content(ui, plots, layout.content_min, layout.content_max, style, on_hover);
  } else {
    // The content scrolls when the readable minimum of its plots is taller than the window.
    ImGui::SetCursorScreenPos(layout.content_min);
    const ImVec2 size(layout.content_max.x - layout.content_min.x, layout.content_max.y - layout.content_min.y);
    ImGui::BeginChild("##content", size, false, ImGuiWindowFlags_NoBackground);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // Room for a scroll bar is kept on the right so a scrolling grid does not jump.
    const float width = size.x - ImGui::GetStyle().ScrollbarSize;
    ImVec2 min = origin;
    if (lab != nullptr) {
      const float gap = ImGui::GetStyle().ItemSpacing.x;
      // The explanation and notes take at most 30 % of the height (at least four lines) and
      // scroll on their own beyond that: at 1280×720 with a large font they took half the
      // height and pushed the plots below the window.
      // Under a predict step not revealed yet the notes are drawn invisible: they print numbers
      // (the loss, the NaN count, the KL) that would give the answer away. Same place kept, so the
      // plots do not move when the answer is revealed.
      const std::vector<std::string>& notes = lab_view.notes;
      const bool hide_notes = lesson_awaiting_prediction(ui);
      const auto draw_notes = [&](float wrap_width) {
        if (hide_notes) {
          ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));
          ImGui::PushStyleColor(ImGuiCol_TextDisabled, ImVec4(0, 0, 0, 0));
        }
        for (const std::string& note : notes) plot::wrapped_text(note, wrap_width, true);
        if (hide_notes) ImGui::PopStyleColor(2);
      };
      const plot::MeasureText measure = [](std::string_view text) {
        return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x;
      };
      const float text_width = width - ImGui::GetStyle().ScrollbarSize;
      std::size_t lines = plot::wrap_text(lab_view.explanation, text_width, measure).size();
      for (const std::string& note : notes) lines += plot::wrap_text(note, text_width, measure).size();
      const float line_height = ImGui::GetTextLineHeightWithSpacing();
      const float text_height = static_cast<float>(lines) * line_height;
      // Whole lines, so the last visible one is not cut through.
      const float limit = std::max(4.0f, std::floor(0.3f * size.y / line_height)) * line_height;
      if (text_height > limit) {
        ImGui::BeginChild("##explanation", ImVec2(width, limit), false);
        plot::wrapped_text(lab_view.explanation, text_width);
        draw_notes(text_width);
        ImGui::EndChild();
      } else {
        ImGui::BeginGroup();
        plot::wrapped_text(lab_view.explanation, width);
        draw_notes(width);
        ImGui::EndGroup();
      }
      min = ImVec2(origin.x, ImGui::GetCursorScreenPos().y + gap);
    }
    const ImVec2 max(origin.x + width, origin.y + size.y);
    draw_plot_grid(view_info(ui.view).name, plots, lab_view.columns, min, max, style, ui, on_hover);
    scroll_to_lesson_panel(ui, snapshot != nullptr && snapshot->params == ui.params);
    ImGui::EndChild();
  }
  apply_params(ui, edit);  // a rejected edit leaves its error on screen until the next accepted one
  ImGui::End();
}

}  // namespace smlab::app
