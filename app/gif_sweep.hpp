// `--export-gif FILE --sweep KEY=FROM:TO[:log] --frames N` and the window's GIF recording: an App
// driven offscreen through a sweep (state/sweep.hpp), one GIF frame per value.
#pragma once

#include "app.hpp"
#include "export/gif.hpp"
#include "platform/surface.hpp"
#include "smlab/error.hpp"
#include "smlab/progress.hpp"
#include "state/sweep.hpp"

namespace smlab::app {

// Sets each value on `app` (through set_param), waits for its snapshot, renders and adds the frame to
// `writer`, telling `progress` (may be null) "rendering frame N of M" before each. A value set_param
// refuses or a frame the writer refuses is a usage Error.
Result<void> render_sweep(App& app, platform::Surface& surface, const SweepSpec& spec, int frames,
                          exporting::GifWriter& writer, ProgressSink* progress = nullptr);

}  // namespace smlab::app
