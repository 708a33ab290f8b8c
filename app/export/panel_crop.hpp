// A PNG of the window or of one panel at 1×, 2× or 4×: the scale's name, the panels a frame drew
// and the pixels of one of them. The layout stays that of the window while the framebuffer gets
// `scale` pixels per display unit (fonts rasterised that much finer), so a 1080p window gives a
// crisp 4K image. The render of an App that makes the image is frame/offscreen_app.hpp's; shared by
// --screenshot --scale/--panel and the GUI export.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <imgui.h>

#include "platform/image.hpp"
#include "smlab/error.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

// "1", "2" or "4" → the scale; anything else is empty.
std::optional<int> parse_export_scale(std::string_view text);

// What a crop may name: "window", "controls", then every plot the last frame drew, by its full name
// ("dashboard/distribution") — a name's part after the '/' ("distribution") is accepted too.
std::vector<std::string> panel_names(const FrameReport& report);

struct PanelRect {
  ImVec2 min, max;  // display units
};
// The rectangle of `name` in the last frame, or nothing when the view has no such panel.
std::optional<PanelRect> find_panel(const UiState& ui, ImVec2 display_size, std::string_view name);
// The same, or the usage Error that names it and the panels allowed: "<asked_as> 'NAME' is not on
// this view: allowed window, controls, …" (`asked_as` is how the user gave it: "--panel", "panel").
Result<PanelRect> panel_or_error(const UiState& ui, ImVec2 display_size, std::string_view name,
                                 std::string_view asked_as);

// The pixels of `rect` in `image`, which was rendered at `scale` pixels per display unit (clipped to
// the image; rounded outwards to whole pixels).
Image crop_image(const Image& image, PanelRect rect, float scale);

}  // namespace smlab::app
