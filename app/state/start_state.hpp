// The state a run starts from (Params, view, look, lesson): resolve_start(), which the command line
// and the web page's URL share, and the one apply_session() that puts a saved session into it (used
// by --load, the window's autosave and File → Load alike).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "lessons/lessons.hpp"
#include "plot/color_scale.hpp"
#include "plot/plot.hpp"
#include "smlab/error.hpp"
#include "smlab/params.hpp"
#include "smlab/progress.hpp"
#include "smlab/views.hpp"
#include "state/pins.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct StartState {
  Params params;                // must pass validate()
  View view = View::dashboard;  // the tab shown first
  std::string screenshot_dir;   // empty: exporting::default_screenshot_dir()
  Theme theme = Theme::dark;
  float font_scale = 1.0f;                                            // clamped to [font_scale_min, font_scale_max]
  plot::Colormap colormap = plot::Colormap::Viridis;                  // sequential heatmaps (--colormap, session)
  std::map<std::string, plot::ColorScale, std::less<>> color_scales;  // heatmaps' chosen scales (session)
  // The UI language (--lang, session). Chinese falls back to English, with App::language_warning(),
  // when its table or the CJK font is missing.
  i18n::Language language = i18n::Language::English;
  // A lesson step shown as open at start-up. Params and view are not touched by it: they come from
  // the step (--lesson) or from a session that was left in a lesson.
  std::optional<LessonPosition> lesson;
  // Pinned Params drawn as ghosts (state/pins.hpp): from a session, or the window's own.
  std::vector<Pin> pins;
  // A restored session's imported files could not be read: one line (status line or stderr).
  std::string import_warning;
};

// What the command line named itself: a session leaves those alone.
struct SessionGiven {
  bool view = false, screenshot_dir = false, theme = false, font_scale = false, colormap = false, language = false,
       lesson = false;
};

// Puts `session` into `state`, except what `given` names. The session's values were checked when it
// was parsed. Its lesson must exist in `lessons` with that step: otherwise the lesson stays unset
// and the result is a usage Error "session field 'lesson.name' ..." (the caller adds the path, or
// says it its own way); everything else is applied all the same.
Result<void> apply_session(const Session& session, const LessonList& lessons, const SessionGiven& given,
                           StartState& state);

// What a run is asked to start from, as typed (the command line's options, the web page's URL).
struct StartRequest {
  std::string load_path;                  // --load FILE.json: a saved session
  std::string preset_name;                // --preset NAME
  std::string lesson_spec;                // --lesson NAME[:STEP[:GUESS]]
  std::vector<std::string> import_specs;  // --import FILE[:ARRAY[=ROLE]], ...
  std::string tokens_path;                // --tokens FILE (with import_specs)
  // --train TASK [--steps N]: the task's own train_* settings, applied before --set as the set's
  // base (a typed train_seq_len may then raise the task's train_vocab, never a typed one).
  std::vector<std::string> task_assignments;
  std::vector<std::string> assignments;  // --set KEY=VALUE, ...
  SessionGiven given;                    // which look and place options were typed
  Progress import_progress;              // told the import's stages (a headless run's progress line)
  bool import_error_stops = false;       // a session's unreadable import is an Error, not random data
  // Data read before: attached again, not read, when it came from exactly import_specs and
  // tokens_path (import_files.hpp's loaded_from; a page applying its class's state each change).
  std::shared_ptr<const ImportedAttention> loaded;
};

// Puts `request` on top of `state` (whose view and look hold the typed options or the defaults), in
// this order: a saved session (applied by apply_session, as the window's autosave is), a preset, a
// lesson step (each sets Params and, unless a view was typed, the view), imported data (it replaces
// the random Q and K and clears custom scores before --set, so --set head=2 or row=7 can refer to
// it), --train's settings,
// then every --set as one set (smlab/assignments.hpp: in the order of param_keys(), seq_len before
// row whatever the typed order, the keys that depend on each other checked on the whole set), all
// through the sliders' validation. The first problem is the Error; `state` may then be half-updated. A restored
// session's imported files that could not be read leave their line in state.import_warning (also
// when an Error follows: the caller prints it first).
Result<void> resolve_start(const StartRequest& request, const PresetList& presets, const LessonList& lessons,
                           StartState& state);

// The values of the start's look and place options as the command line and the web page's URL take
// them; the Error is the line both print, naming the option: "--view 'x' is not a view: allowed
// dashboard, normalizers, ...".
Result<View> view_option(std::string_view text);
Result<Theme> theme_option(std::string_view text);
Result<i18n::Language> language_option(std::string_view text);
// --font-scale: a plain decimal number (no hex, no spaces) from font_scale_min to font_scale_max,
// checked as a double before it becomes a float (3.0000001 is refused, not rounded into range).
Result<float> font_scale_option(std::string_view text);
// --colormap: a sequential colormap (viridis, cividis, magma or greys; not the diverging one).
Result<plot::Colormap> colormap_option(std::string_view text);

}  // namespace smlab::app
