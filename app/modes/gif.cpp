// --export-gif FILE.gif --sweep KEY=FROM:TO[:log]: an animated GIF of a slider sweep, rendered
// offscreen.
#include <cstdio>
#include <filesystem>

#include "files/atomic_file.hpp"
#include "export/gif.hpp"
#include "gif_sweep.hpp"
#include "modes/modes.hpp"

namespace smlab::app {

Result<void> run_gif(const Options& o, AppOptions options) {
  // The sweep's range is checked against the Params it starts from.
  const Result<SweepSpec> sweep = parse_sweep(o.sweep_text, options.params);
  if (!sweep) return sweep.error();
  const std::filesystem::path target(o.gif_path);
  if (Result<void> checked = exporting::check_target(target, o.overwrite); !checked) return checked;
  auto created = create_offscreen(o.size);
  if (!created) return created.error();
  options.refine_trials = headless_refine_trials(options.params.seq_len);
  App app(**created, options);
  exporting::GifWriter writer;
  if (Result<void> rendered = render_sweep(app, **created, *sweep, o.gif_frames, writer); !rendered) return rendered;
  if (Result<void> written = exporting::write_gif(target, writer, o.overwrite); !written) return written;
  std::printf("%s\n", o.gif_path.c_str());
  return {};
}

}  // namespace smlab::app
