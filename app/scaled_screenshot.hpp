// PNG of the window or of one panel at 1×, 2× or 4×: the layout stays that of the window, the
// framebuffer gets `scale` pixels per display unit and fonts are rasterised that much finer, so a
// 1080p window gives a crisp 4K image. Shared by --screenshot --scale/--panel and the GUI export.
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

struct AppOptions;

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

// The pixels of `rect` in `image`, which was rendered at `scale` pixels per display unit (clipped to
// the image; rounded outwards to whole pixels).
Image crop_image(const Image& image, PanelRect rect, float scale);

// Frames an offscreen App draws once its snapshot is done before its picture is taken: ImGui settles
// auto-sized items over the first two; the third is the one saved (like --screenshot).
inline constexpr int scaled_screenshot_frames = 3;

// The image, or the Error that stopped it: Error::no_graphics when no offscreen context could be
// made (exit 4), Error::usage for a panel name that is not on the view (exit 2).
using ScaledShot = Result<Image>;
// Renders a fresh App built from `options` offscreen at width × height display units and `scale`
// (content_scale as the window's), waits for its snapshot, and returns the window or panel.
ScaledShot render_scaled_screenshot(const AppOptions& options, int width, int height, float scale, float content_scale,
                                    std::string_view panel);

}  // namespace smlab::app
