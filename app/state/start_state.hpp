// The state a run starts from (Params, view, look, lesson) and the one apply_session() that puts a
// saved session into it: used by --load, the window's autosave and File → Load alike.
#pragma once

#include <optional>
#include <string>

#include "i18n/i18n.hpp"
#include "lessons/lessons.hpp"
#include "plot/plot.hpp"
#include "smlab/error.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"
#include "state/session.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct StartState {
  Params params;                // must pass validate()
  View view = View::dashboard;  // the tab shown first
  std::string screenshot_dir;   // empty: exporting::default_screenshot_dir()
  Theme theme = Theme::dark;
  float font_scale = 1.0f;                            // clamped to [font_scale_min, font_scale_max]
  plot::Colormap colormap = plot::Colormap::Viridis;  // sequential heatmaps (--colormap, session)
  // The UI language (--lang, session). Chinese falls back to English, with App::language_warning(),
  // when its table or the CJK font is missing.
  i18n::Language language = i18n::Language::English;
  // A lesson step shown as open at start-up. Params and view are not touched by it: they come from
  // the step (--lesson) or from a session that was left in a lesson.
  std::optional<LessonPosition> lesson;
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

}  // namespace smlab::app
