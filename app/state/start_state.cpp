// apply_session(): one way a saved session becomes the state a run or the window shows.
#include "state/start_state.hpp"

#include <algorithm>

namespace smlab::app {

Result<void> apply_session(const Session& session, const LessonList& lessons, const SessionGiven& given,
                           StartState& state) {
  state.params = session.params;
  state.import_warning = session.import_warning;
  state.pins = session.pins;
  if (!given.view) state.view = session.view;
  if (!given.screenshot_dir && !session.screenshot_dir.empty()) state.screenshot_dir = session.screenshot_dir;
  if (!given.theme && session.theme) state.theme = theme_from_name(*session.theme).value_or(state.theme);
  if (!given.font_scale && session.font_scale)
    state.font_scale = std::clamp(*session.font_scale, font_scale_min, font_scale_max);
  if (!given.colormap && session.colormap)
    state.colormap = plot::colormap_from_name(*session.colormap).value_or(state.colormap);
  if (!given.language && session.language) state.language = *session.language;
  if (session.color_scales) state.color_scales = *session.color_scales;
  if (given.lesson) return {};
  state.lesson.reset();
  if (!session.lesson) return {};
  // The lesson the session was in must exist, with that step.
  const SessionLesson& saved = *session.lesson;
  const auto index = find_lesson(lessons, saved.name);
  if (!index)
    return Error::usage("session field 'lesson.name' '" + saved.name + "' is not a lesson: allowed " +
                        lesson_names(lessons) + (lessons.error ? " (" + lessons.error->message + ")" : ""));
  const std::size_t steps = lessons.lessons[*index].steps.size();
  if (saved.step < 1 || static_cast<std::size_t>(saved.step) > steps)
    return Error::usage("session field 'lesson.step' is " + std::to_string(saved.step) + ": lesson '" + saved.name +
                        "' has steps 1 to " + std::to_string(steps));
  state.lesson = LessonPosition{*index, static_cast<std::size_t>(saved.step - 1)};
  return {};
}

}  // namespace smlab::app
