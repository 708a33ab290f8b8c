// softmax-lab: read and check the whole command line, resolve the state the run starts from, then
// run one mode from the mode table (app/modes/): the window, or headless (EGL, no display needed)
// files, a benchmark or a list, and exit. Exit codes (docs/ARCHITECTURE.md, "Command line";
// smlab::exit_code): 0 ok, 2 bad usage or input, 3 file error, 4 no graphics context.
#include <cstdio>
#include <utility>

#include "files/atomic_file.hpp"
#include "files/printable.hpp"
#include "files/progress_line.hpp"
#include "i18n/i18n.hpp"
#include "modes/modes.hpp"
#include "platform/allocator.hpp"
#include "smlab/error.hpp"
#include "state/presets.hpp"
#include "state/start_state.hpp"

namespace {

namespace app = smlab::app;
using smlab::Error;
using smlab::Result;

// Every error leaves through here: one printable line (files/printable.hpp), the exit code of its kind.
int report(const Error& error) {
  std::fprintf(stderr, "softmax-lab: %s\n", app::printable(error.message).c_str());
  return smlab::exit_code(error.kind);
}

int finish(const Result<void>& result) { return result ? smlab::exit_ok : report(result.error()); }

// The look and place the command line typed (or the defaults), before anything is loaded.
app::AppOptions typed_look(const app::Options& options) {
  app::AppOptions start;
  start.view = options.view;
  start.screenshot_dir = options.screenshot_dir;
  start.theme = options.theme;
  start.font_scale = options.font_scale;
  start.colormap = options.colormap;
  start.language = options.language;
  start.presenter = options.presenter;
  start.controls_shown = !options.hide_controls;
  return start;
}

}  // namespace

int main(int argc, char** argv) {
  // 1. Every mode: temporaries removed on any terminating signal, SIGXFSZ ignored, out of memory
  //    one line (also inside Dear ImGui). Freed memory stays mapped: a slider drag reuses its pages
  //    instead of faulting fresh ones.
  smlab::files::install_exit_guards();
  smlab::platform::keep_freed_memory_mapped();
  smlab::platform::imgui_allocations_throw_when_out_of_memory();

  // 2. The command line, read and checked whole before anything is loaded or written.
  const Result<app::Options> parsed = app::parse_options(argc, argv);
  if (!parsed) return report(parsed.error());
  const app::Options& options = *parsed;
  if (options.exit_now) return *options.exit_now;  // --help, --version
  const app::Mode& mode = app::chosen_mode(options);

  // 3. Presets and lessons (assets/): a missing or bad file is reported by the modes that use them.
  app::AppOptions start = typed_look(options);
  start.presets = app::load_presets(app::find_assets_dir() / "presets.json");
  start.lessons = app::load_lessons(app::find_assets_dir() / "lessons");
  if (mode.kind == app::Mode::Kind::lists) return finish(mode.run(options, std::move(start)));

  // 4. The start state: session, preset, lesson, import, then every --set (state/start_state.hpp).
  //    Big imports draw a progress line on stderr; only the window falls back to random data when a
  //    session's imported files cannot be read.
  app::ProgressLine import_progress("import");
  app::StartRequest request = options.start;
  request.import_progress = import_progress.progress();
  request.import_error_stops = mode.kind != app::Mode::Kind::window;
  const Result<void> resolved = app::resolve_start(request, start.presets, start.lessons, start);
  import_progress.done();
  if (!start.import_warning.empty()) app::warn(start.import_warning);
  start.import_warning.clear();
  if (!resolved) return report(resolved.error());

  // 5. The string tables. Without en.json the window still works but shows keys instead of text:
  //    one line says so (runs that only export numbers say nothing). No process-wide language: each
  //    mode hands start.language to what it makes (the App, the SVG export).
  const Result<void> catalogue = smlab::i18n::load_catalogue(app::find_assets_dir());
  if (!catalogue && options.shows_text()) app::warn(catalogue.error().message);

  // 6. The mode.
  return finish(mode.run(options, std::move(start)));
}
