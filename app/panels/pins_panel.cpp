// Pin and compare: the pins' ghosts in the dashboard's plot descriptions (no math: the pins'
// Snapshots come from the core through state/pins) and the "Pins" section of the control column.
#include "panels/pins_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <array>
#include <string>
#include <utility>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only

#include "i18n/i18n.hpp"
#include "panels/dashboard_plots.hpp"
#include "panels/panels.hpp"

namespace smlab::app {
namespace {

// Pink, olive, purple, teal (tab10's last four): none is a live series colour of the dashboard.
constexpr std::array<std::uint32_t, 4> pin_palette = {0xE377C2, 0xBCBD22, 0x9467BD, 0x17BECF};

// The dashboard names a plot "entropy_t" on screen and "entropy-temperature" in files.
plot::Plot* find_plot(std::vector<NamedPlot>& plots, std::string_view screen_name, std::string_view file_name) {
  for (NamedPlot& named : plots)
    if (named.name == screen_name || named.name == file_name) return &named.plot;
  return nullptr;
}

plot::LineSeries ghost_line(const std::string& label, std::size_t index) {
  plot::LineSeries line;
  line.label = label;
  line.color = pin_color(index);
  line.dashed = true;
  line.width = 2.0f;
  return line;
}

// "T 0.5, d_k 64": the keys whose values differ from `now` (at most three, then "…").
std::string differences(const Params& pinned, const Params& now) {
  std::string text;
  int shown = 0;
  for (const ParamKey& key : param_keys()) {
    const auto a = get_param(pinned, key.name), b = get_param(now, key.name);
    if (a == b || !a) continue;
    if (shown == 3) return text + ", …";
    std::string value = *a;
    if (value.size() > 12) value = value.substr(0, 11) + "…";
    text += (text.empty() ? "" : ", ") + std::string(key.name) + " " + value;
    ++shown;
  }
  return text;
}

}  // namespace

plot::Color pin_color(std::size_t index) { return plot::Color::from_hex(pin_palette[index % pin_palette.size()]); }

void add_pin_ghosts(std::vector<NamedPlot>& plots, const PinState& state, const Snapshot& live) {
  std::vector<NamedPlot> pinned_maps;
  for (std::size_t k = 0; k < state.pins.size() && k < state.snapshots.size(); ++k) {
    if (!state.snapshots[k]) continue;
    const std::shared_ptr<const Snapshot> shared = state.snapshots[k];
    const Snapshot& pin = *shared;
    const std::string& name = state.pins[k].name;
    if (plot::Plot* p = find_plot(plots, "distribution", "distribution")) {
      plot::LineSeries line = ghost_line(name, k);
      line.markers = true;
      for (std::size_t j = 0; j < pin.probabilities.size(); ++j) {
        line.x.push_back(static_cast<double>(j));
        line.y.push_back(pin.probabilities[j]);
      }
      p->lines.push_back(std::move(line));
    }
    if (plot::Plot* p = find_plot(plots, "entropy_t", "entropy-temperature")) {
      plot::LineSeries line = ghost_line(name, k);
      line.x = pin.temperature_grid;
      line.y = pin.entropy_vs_temperature;
      p->lines.push_back(std::move(line));
      p->scatters.push_back({.label = {},
                             .x = {pin.params.temperature},
                             .y = {pin.entropy_nats},
                             .color = pin_color(k),
                             .radius = 4.5f,
                             .shape = plot::MarkerShape::Square});
    }
    if (plot::Plot* p = find_plot(plots, "entropy_dk", "entropy-dk")) {
      const DkSweep& sweep = pin.dk_sweep;
      for (const bool scaled : {true, false}) {
        const std::vector<RowStats>& stats = scaled ? sweep.scaled : sweep.unscaled;
        plot::LineSeries line = ghost_line(scaled ? name : std::string(), k);  // one legend entry a pin
        for (std::size_t d = 0; d < stats.size() && d < sweep.config.key_dims.size(); ++d) {
          line.x.push_back(sweep.config.key_dims[d]);
          line.y.push_back(stats[d].entropy_nats.mean);
        }
        p->lines.push_back(std::move(line));
      }
    }
    if (plot::Plot* p = find_plot(plots, "gradient", "gradient"))
      p->scatters.push_back({.label = name,
                             .x = pin.probabilities,
                             .y = pin.gradient,
                             .color = pin_color(k),
                             .radius = 3.5f,
                             .shape = plot::MarkerShape::Square});
    // The pin's scaled map beside the live ones, in the live maps' colour range (so equal colours
    // are equal weights; a pinned weight above that range shows as the top colour).
    plot::Plot map = attention_plot(pin, true, 0);
    map.title = i18n::format("pins.map_title", {name, map.title});
    map.short_title = i18n::format("pins.map_title", {name, map.short_title});
    if (map.heatmap) {
      map.heatmap->vmax = std::max<double>(live.attention_max, 1e-12);
      // The rows hold the pin's Snapshot alive: removing the pin mid-frame frees nothing in use.
      if (map.heatmap->fill_row)
        map.heatmap->fill_row = [shared](int row, std::span<float> out) { attention_row(*shared, true, row, out); };
    }
    pinned_maps.push_back({"pin-" + std::to_string(k + 1), std::move(map)});
  }
  for (NamedPlot& named : pinned_maps) plots.push_back(std::move(named));
}

std::vector<std::pair<std::string, std::string>> pinned_svg_files(const PinState& state, const Snapshot& live,
                                                                  i18n::Language language, const plot::Style& style,
                                                                  float width, float height) {
  const i18n::Use words(language);
  std::vector<NamedPlot> plots;
  for (auto& [name, plot] : dashboard_plots(live, live.dk_sweep)) plots.push_back({name, std::move(plot)});
  add_pin_ghosts(plots, state, live);
  std::vector<std::pair<std::string, std::string>> files;
  for (const NamedPlot& named : plots)
    files.emplace_back("pinned-dashboard-" + named.name + ".svg", plot::to_svg(named.plot, width, height, style));
  return files;
}

void handle_pin_keys(UiState& ui) {
  refresh_pins(ui.pins);
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || io.KeyCtrl || io.KeyAlt || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  // A refused pin shows its line in the Pins section (state.error).
  if (ImGui::IsKeyPressed(GLFW_KEY_P, false)) (void)add_pin(ui.pins, ui.params);
}

void draw_pins_section(UiState& ui) {
  refresh_pins(ui.pins);
  section(i18n::tr("pins.section"));
  PinState& state = ui.pins;
  ImGui::BeginDisabled(state.pins.size() >= max_pins);
  if (ImGui::Button(i18n::label("pins.pin", "pin-now").c_str())) (void)add_pin(state, ui.params);
  ImGui::EndDisabled();
  if (ImGui::IsItemHovered(ImGuiHoveredFlags_AllowWhenDisabled))
    ImGui::SetTooltip("%s", i18n::format("pins.pin_tooltip", {std::to_string(max_pins)}).c_str());
  if (state.pins.empty()) {
    side_note(i18n::tr("pins.none"));
  }
  for (std::size_t k = 0; k < state.pins.size(); ++k) {
    ImGui::PushID(static_cast<int>(k));
    const plot::Color color = pin_color(k);
    ImGui::ColorButton("##swatch", ImVec4(color.r, color.g, color.b, 1.0f), ImGuiColorEditFlags_NoTooltip,
                       ImVec2(ImGui::GetFrameHeight(), ImGui::GetFrameHeight()));
    ImGui::SameLine();
    if (state.renaming == static_cast<int>(k)) {
      ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x * 0.6f);
      // Once, when renaming starts: focusing every frame would select the text again and again.
      if (std::exchange(state.rename_focus, false)) ImGui::SetKeyboardFocusHere();
      if (ImGui::InputText("##rename", &state.rename_text, ImGuiInputTextFlags_EnterReturnsTrue)) {
        if (rename_pin(state, k, state.rename_text).ok()) state.renaming = -1;
      }
      ImGui::SameLine();
      if (ImGui::SmallButton(i18n::label("pins.cancel", "pin-cancel").c_str())) state.renaming = -1;
    } else {
      if (ImGui::Button(state.pins[k].name.c_str())) {
        state.renaming = static_cast<int>(k);
        state.rename_text = state.pins[k].name;
        state.rename_focus = true;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("pins.rename_tooltip"));
      ImGui::SameLine();
      const std::string diff = differences(state.pins[k].params, ui.params);
      ImGui::TextDisabled("%s", diff.empty() ? i18n::tr("pins.same") : diff.c_str());
      ImGui::SameLine(ImGui::GetContentRegionMax().x - ImGui::GetFrameHeight());
      if (ImGui::SmallButton("×")) {
        remove_pin(state, k);
        ImGui::PopID();
        break;
      }
      if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("pins.remove_tooltip"));
    }
    ImGui::PopID();
  }
  if (!state.error.empty())
    ImGui::TextColored(readable_text(ImVec4(1.0f, 0.45f, 0.4f, 1.0f)), "%s", state.error.c_str());
}

}  // namespace smlab::app
