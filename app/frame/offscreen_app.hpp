// An App drawn offscreen for an export: a fresh App's window or panel at 1×, 2× or 4× (--screenshot
// --scale/--panel; the crop is export/panel_crop.hpp's), and an App driven through a sweep
// (state/sweep.hpp), one GIF frame per value (`--export-gif FILE --sweep KEY=FROM:TO[:log] --frames
// N`). The files they become are the export module's.
#pragma once

#include <string_view>

#include "app.hpp"
#include "export/gif.hpp"
#include "export/panel_crop.hpp"
#include "platform/image.hpp"
#include "platform/surface.hpp"
#include "smlab/error.hpp"
#include "smlab/progress.hpp"
#include "state/sweep.hpp"

namespace smlab::app {

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

// Sets each value on `app` (through set_param), waits for its snapshot, renders and adds the frame to
// `writer`, telling `progress` (may be null) "rendering frame N of M" before each. A value set_param
// refuses or a frame the writer refuses is a usage Error.
Result<void> render_sweep(App& app, platform::Surface& surface, const SweepSpec& spec, int frames,
                          exporting::GifWriter& writer, ProgressSink* progress = nullptr);

}  // namespace smlab::app
