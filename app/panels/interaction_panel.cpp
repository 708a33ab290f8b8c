// The interaction controls: the File menu, the colormap combo, the animated sweep (play, record GIF)
// and the PNG export at 1×, 2× or 4×. They only set requests in UiState::interaction; App acts on them.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "state/sweep.hpp"
#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "state/nudge.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

const char* colormap_label(plot::Colormap colormap) {
  switch (colormap) {
    case plot::Colormap::Viridis: return tr("ui.colormap.viridis");
    case plot::Colormap::Cividis: return tr("ui.colormap.cividis");
    case plot::Colormap::Magma: return tr("ui.colormap.magma");
    case plot::Colormap::Greys: return tr("ui.colormap.greys");
    case plot::Colormap::Diverging: break;
  }
  return plot::name(colormap);
}

void draw_colormap(InteractionUi& state) {
  section(tr("ui.colormap.section"));
  if (ImGui::BeginCombo(control_label("ui.colormap.label", "colormap").c_str(), colormap_label(state.colormap))) {
    for (plot::Colormap colormap :
         {plot::Colormap::Viridis, plot::Colormap::Cividis, plot::Colormap::Magma, plot::Colormap::Greys}) {
      if (ImGui::Selectable(colormap_label(colormap), colormap == state.colormap)) state.colormap = colormap;
    }
    ImGui::EndCombo();
  }
  help_marker(tr("ui.colormap.help"));
}

void draw_sweep(InteractionUi& state) {
  SweepSettings& sweep = state.sweep;
  section(tr("ui.sweep.section"));
  ImGui::BeginDisabled(state.sweep_playing || state.gif_recording);
  if (ImGui::BeginCombo(control_label("ui.sweep.key", "sweep-key").c_str(), sweep.key.c_str())) {
    for (std::string_view key : sweep_key_names_list()) {
      if (ImGui::Selectable(std::string(key).c_str(), key == sweep.key)) {
        sweep.key = std::string(key);
        // Start from the key's whole range, log for the log sliders.
        const SliderNotch* notch = slider_notch(key);
        sweep.logarithmic = notch != nullptr && notch->kind == NotchKind::logarithmic && notch->floor == 0.0;
      }
    }
    ImGui::EndCombo();
  }
  const std::string range_label = control_label("ui.sweep.range", "sweep-to");  // above the pair, or right of it
  const float half = (ImGui::CalcItemWidth() - ImGui::GetStyle().ItemInnerSpacing.x) / 2.0f;
  ImGui::SetNextItemWidth(half);
  ImGui::InputDouble("##sweep-from", &sweep.from, 0.0, 0.0, "%.4g");
  ImGui::SameLine(0.0f, ImGui::GetStyle().ItemInnerSpacing.x);
  ImGui::SetNextItemWidth(half);
  ImGui::InputDouble(range_label.c_str(), &sweep.to, 0.0, 0.0, "%.4g");
  control_checkbox("ui.sweep.log", "sweep-log", &sweep.logarithmic);
  ImGui::EndDisabled();
  float seconds = static_cast<float>(sweep.seconds_per_pass);
  if (ImGui::SliderFloat(control_label("ui.sweep.seconds", "sweep-seconds").c_str(), &seconds,
                         static_cast<float>(sweep_seconds_min), static_cast<float>(sweep_seconds_max), "%.1f s",
                         ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    sweep.seconds_per_pass = seconds;
  help_marker(tr("ui.sweep.help"));
  if (ImGui::Button(i18n::label(state.sweep_playing ? "ui.sweep.pause" : "ui.sweep.play", "sweep-play").c_str()))
    state.commands.push(Command::toggle_sweep);
  const std::string record = i18n::label("ui.sweep.record", "sweep-record");
  same_line_if_fits(record.c_str());
  ImGui::BeginDisabled(state.gif_recording);
  if (ImGui::Button(record.c_str())) state.commands.push(Command::record_gif);
  ImGui::EndDisabled();
  // The frame count beside the buttons where the column has room for it, else on its own line.
  const ImGuiStyle& style = ImGui::GetStyle();
  same_line_if_room(ImGui::GetFontSize() * 3.5f + style.ItemInnerSpacing.x +
                    ImGui::CalcTextSize(tr("ui.sweep.frames")).x);
  ImGui::SetNextItemWidth(ImGui::GetFontSize() * 3.5f);
  ImGui::DragInt(i18n::label("ui.sweep.frames", "sweep-frames").c_str(), &sweep.gif_frames, 0.5f, sweep_gif_frames_min,
                 sweep_gif_frames_max, "%d", ImGuiSliderFlags_AlwaysClamp);
  if (state.gif_recording) {
    const std::string text = i18n::format(
        "ui.sweep.recording", {std::to_string(static_cast<int>(std::lround(state.gif_progress * sweep.gif_frames))),
                               std::to_string(sweep.gif_frames)});
    ImGui::ProgressBar(state.gif_progress, ImVec2(-1.0f, 0.0f), text.c_str());
  }
  if (!state.sweep_error.empty()) {
    ImGui::PushStyleColor(ImGuiCol_Text, readable_text(ImVec4(1.0f, 0.45f, 0.4f, 1.0f)));
    ImGui::TextWrapped("%s", state.sweep_error.c_str());
    ImGui::PopStyleColor();
  }
}

void draw_png_export(UiState& ui) {
  InteractionUi& state = ui.interaction;
  section(tr("ui.export.section"));
  const std::string shown = state.export_target == "window" ? tr("ui.export.window") : state.export_target;
  if (ImGui::BeginCombo(control_label("ui.export.target", "export-target").c_str(), shown.c_str())) {
    if (ImGui::Selectable(tr("ui.export.window"), state.export_target == "window")) state.export_target = "window";
    if (ImGui::Selectable("controls", state.export_target == "controls")) state.export_target = "controls";
    for (const std::string& name : state.panel_names)
      if (ImGui::Selectable(name.c_str(), state.export_target == name)) state.export_target = name;
    ImGui::EndCombo();
  }
  state.export_scale_index = std::clamp(state.export_scale_index, 0, 2);
  ImGui::Combo(control_label("ui.export.scale", "export-scale").c_str(), &state.export_scale_index, "1x\0002x\0004x\0");
  help_marker(tr("ui.export.help"));
  if (ImGui::Button(i18n::label("ui.export.button", "export-png").c_str())) state.commands.push(Command::export_png);
}

}  // namespace

void draw_file_menu(UiState& ui) {
  InteractionUi& state = ui.interaction;
  if (ImGui::BeginMenu(i18n::label("ui.menu.file", "file-menu").c_str())) {
    if (ImGui::MenuItem(i18n::label("ui.menu.save_session", "save-session").c_str(), "Ctrl+S"))
      state.commands.push(Command::save_session);
    if (ImGui::MenuItem(i18n::label("ui.menu.open_session", "open-session").c_str(), "Ctrl+O"))
      state.commands.push(Command::open_session);
    if (ImGui::MenuItem(i18n::label("menu.file.import", "import-menu").c_str()))
      state.commands.push(Command::import_files);
    if (state.class_offered &&
        ImGui::MenuItem(
            i18n::label(state.class_hosting ? "class.menu.stop" : "class.menu.host", "host-class-menu").c_str()))
      state.commands.push(Command::host_class);
    ImGui::Separator();
    if (ImGui::MenuItem(i18n::label("ui.menu.screenshot", "screenshot").c_str(), "F12"))
      ui.interaction.commands.push(Command::screenshot);
    if (ImGui::MenuItem(i18n::label("ui.menu.export_png", "export-png-menu").c_str()))
      state.commands.push(Command::export_png);
    if (ImGui::MenuItem(i18n::label("ui.menu.export_csv", "export-csv-menu").c_str()))
      state.commands.push(Command::export_csv);
    if (ImGui::MenuItem(i18n::label("ui.menu.export_svg", "export-svg-menu").c_str()))
      state.commands.push(Command::export_svg);
    if (ImGui::MenuItem(i18n::label("ui.menu.record_gif", "record-gif-menu").c_str(), nullptr, false,
                        !state.gif_recording))
      state.commands.push(Command::record_gif);
    ImGui::Separator();
    // Full screen has no close button: this is the way out there (the session is saved as usual).
    if (ImGui::MenuItem(i18n::label("ui.menu.quit", "quit").c_str(), "Ctrl+Q")) state.commands.push(Command::quit);
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(i18n::label("ui.menu.edit", "edit-menu").c_str())) {
    if (ImGui::MenuItem(i18n::label("ui.menu.undo", "undo").c_str(), "Ctrl+Z", false, state.can_undo))
      state.commands.push(Command::undo);
    if (ImGui::MenuItem(i18n::label("ui.menu.redo", "redo").c_str(), "Ctrl+Y", false, state.can_redo))
      state.commands.push(Command::redo);
    ImGui::Separator();
    if (ImGui::MenuItem(i18n::label(state.sweep_playing ? "ui.sweep.pause" : "ui.sweep.play", "play-menu").c_str(),
                        "Space"))
      state.commands.push(Command::toggle_sweep);
    // Pin and compare (panels/pins_panel.hpp): the control column's Pins section lists them.
    if (ImGui::MenuItem(i18n::label("pins.pin_menu", "pin-menu").c_str(), "P", false, ui.pins.pins.size() < max_pins))
      (void)add_pin(ui.pins, ui.params);  // a refusal shows in the Pins section
    ImGui::EndMenu();
  }
  if (ImGui::BeginMenu(i18n::label("ui.menu.view", "view-menu").c_str())) {
    if (ImGui::MenuItem(i18n::label("ui.menu.fullscreen", "fullscreen").c_str(), "F11"))
      state.commands.push(Command::toggle_fullscreen);
    if (ImGui::MenuItem(i18n::label("ui.menu.controls", "controls-menu").c_str(), "Ctrl+B", ui.controls_shown))
      ui.controls_shown = !ui.controls_shown;
    if (ImGui::MenuItem(i18n::label("ui.menu.presenter", "presenter-menu").c_str(), "F5", ui.presenter))
      ui.presenter = !ui.presenter;
    ImGui::EndMenu();
  }
}

void draw_interaction_controls(UiState& ui) {
  draw_colormap(ui.interaction);
  draw_sweep(ui.interaction);
  draw_png_export(ui);
}

}  // namespace smlab::app
