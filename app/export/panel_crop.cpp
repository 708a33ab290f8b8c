// A screenshot's panels: the scale's name, panel lookup and cropping.
#include "panel_crop.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "lesson_player/lesson_player.hpp"
#include "panels/panels.hpp"

namespace smlab::app {

std::optional<int> parse_export_scale(std::string_view text) {
  if (text == "1") return 1;
  if (text == "2") return 2;
  if (text == "4") return 4;
  return std::nullopt;
}

std::vector<std::string> panel_names(const FrameReport& report) {
  std::vector<std::string> names = {"window", "controls"};
  for (const PlacedPlot& placed : report.placed_plots) names.push_back(placed.name);
  return names;
}

std::optional<PanelRect> find_panel(const UiState& ui, ImVec2 display_size, std::string_view name) {
  if (name.empty() || name == "window") return PanelRect{ImVec2(0, 0), display_size};
  if (name == "controls") {
    // In a lesson the control column is the lesson's own choice (hidden at first, none in presenter
    // mode): while it is hidden, the step's controls (Previous/Next, the guess field) are in the
    // lesson panel with its text, and that is what the lesson shows as its controls.
    const bool in_lesson = current_step(ui) != nullptr;
    if (in_lesson && (ui.presenter || !ui.lesson_view.controls_shown)) {
      if (!ui.lesson_report.text_box.placed) return std::nullopt;
      return PanelRect{ui.lesson_report.text_box.min, ui.lesson_report.text_box.max};
    }
    const DashboardLayout layout =
        dashboard_layout(display_size, ui.ui_scale, in_lesson ? ui.lesson_view.controls_shown : ui.controls_shown);
    return PanelRect{layout.controls_min, layout.controls_max};
  }
  for (const PlacedPlot& placed : ui.placed_plots) {
    const std::string_view full = placed.name;
    const auto slash = full.find('/');
    if (full == name || (slash != std::string_view::npos && full.substr(slash + 1) == name))
      return PanelRect{placed.min, placed.max};
  }
  return std::nullopt;
}

Result<PanelRect> panel_or_error(const UiState& ui, ImVec2 display_size, std::string_view name,
                                 std::string_view asked_as) {
  if (const std::optional<PanelRect> rect = find_panel(ui, display_size, name)) return *rect;
  std::string allowed;
  for (const std::string& panel : panel_names(ui)) allowed += (allowed.empty() ? "" : ", ") + panel;
  return Error::usage(std::string(asked_as) + " '" + std::string(name.substr(0, 40)) +
                      "' is not on this view: allowed " + allowed);
}

Image crop_image(const Image& image, PanelRect rect, float scale) {
  if (!image.well_formed()) return {};
  const int x0 = std::clamp(static_cast<int>(std::floor(rect.min.x * scale)), 0, image.width);
  const int y0 = std::clamp(static_cast<int>(std::floor(rect.min.y * scale)), 0, image.height);
  const int x1 = std::clamp(static_cast<int>(std::ceil(rect.max.x * scale)), x0, image.width);
  const int y1 = std::clamp(static_cast<int>(std::ceil(rect.max.y * scale)), y0, image.height);
  Image out;
  if (x1 == x0 || y1 == y0) return out;
  out.width = x1 - x0;
  out.height = y1 - y0;
  out.pixels.resize(static_cast<std::size_t>(out.width) * out.height * Image::kChannels);
  const std::size_t row_bytes = static_cast<std::size_t>(out.width) * Image::kChannels;
  for (int y = 0; y < out.height; ++y) {
    const std::size_t from = (static_cast<std::size_t>(y0 + y) * image.width + x0) * Image::kChannels;
    std::memcpy(out.pixels.data() + static_cast<std::size_t>(y) * row_bytes, image.pixels.data() + from, row_bytes);
  }
  return out;
}

}  // namespace smlab::app
