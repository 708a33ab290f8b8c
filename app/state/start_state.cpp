// resolve_start() and apply_session(): the one way typed options and saved sessions become the state
// a run or the window shows.
#include "state/start_state.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string>

#include "smlab/assignments.hpp"
#include "lessons/lesson_corpus.hpp"
#include "state/import_files.hpp"

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

Result<void> resolve_start(const StartRequest& request, const PresetList& presets, const LessonList& lessons,
                           StartState& state) {
  if (!request.load_path.empty()) {
    const Result<Session> loaded = load_session(request.load_path, {request.import_progress, {}});
    if (!loaded) return loaded.error();
    if (!loaded->import_error.empty() && request.import_error_stops)
      return Error{loaded->import_error_kind,
                   "'" + request.load_path + "': its imported data: " + loaded->import_error};
    const Result<void> applied = apply_session(*loaded, lessons, request.given, state);
    if (!applied) return Error{applied.error().kind, "'" + request.load_path + "': " + applied.error().message};
  }
  if (!request.preset_name.empty()) {
    if (!presets) return presets.error();
    const Preset* preset = find_preset(presets, request.preset_name);
    if (preset == nullptr)
      return Error::usage("--preset '" + request.preset_name.substr(0, 40) + "' is not a preset: allowed " +
                          preset_names(presets));
    state.params = preset->params;
    if (preset->view && !request.given.view) state.view = *preset->view;
  }
  // A lesson step sets Params and view like a preset (--set still applies on top).
  if (!request.lesson_spec.empty()) {
    const LessonLookup found = lookup_lesson(lessons, request.lesson_spec);
    if (!found) {
      if (lessons.lessons.empty() && lessons.error) return *lessons.error;
      // A lesson file that did not load is named: it may be why the lesson is missing.
      return Error{found.error().kind,
                   found.error().message + (lessons.error ? " (" + lessons.error->message + ")" : "")};
    }
    state.lesson = *found;
    const LessonStep& step = lessons.lessons[found->lesson].steps[found->step];
    state.params = step.params;
    if (!request.given.view) state.view = step.view;
  }
  if (!request.import_specs.empty()) {
    // The data's own rows are shown, not a custom score vector a lesson step or preset set before
    // (as the window's import clears it): the address a window writes for its data then reads back
    // to the same picture.
    state.params.scores.clear();
    if (request.loaded != nullptr && loaded_from(*request.loaded, request.import_specs, request.tokens_path)) {
      if (Result<void> attached = attach_import(state.params, request.loaded); !attached.ok()) return attached.error();
    } else {
      const ImportLoad imported = load_import(request.import_specs, request.tokens_path, {request.import_progress, {}});
      if (!imported) return imported.error();
      for (const std::string& warning : (*imported)->warnings)
        state.import_warning += (state.import_warning.empty() ? "" : "; ") + warning;
      if (Result<void> attached = attach_import(state.params, *imported); !attached.ok()) return attached.error();
    }
  }
  if (Result<void> set = apply_assignments(state.params, request.task_assignments); !set) return set;
  if (Result<void> set = apply_assignments(state.params, request.assignments); !set) return set;
  // A step holds the settings its text describes (the window puts them back each frame): a --set
  // that moves one would be dropped without a word, so it is refused, naming the step's value.
  if (state.lesson && !request.lesson_spec.empty()) {
    const LessonStep& step = lessons.lessons[state.lesson->lesson].steps[state.lesson->step];
    for (const std::string& assignment : request.assignments) {
      const std::string key = assignment.substr(0, assignment.find('='));
      if (std::find(step.held.begin(), step.held.end(), key) == step.held.end()) continue;
      const std::optional<std::string> held = get_param(step.params, key);
      if (held && get_param(state.params, key) != held)
        return Error::usage(assignment.substr(0, 60) + " is not allowed here: lesson step " +
                            request.lesson_spec.substr(0, 60) + " holds " + key + " at " + held->substr(0, 60) +
                            ", the value its text describes; leave it out or open another step");
    }
  }
  // The training lab's language model trains on the lesson texts (not a key: attached here).
  if (state.params.training.run.task == train::Task::language) attach_corpus(state.params, lesson_corpus(lessons));
  return {};
}

Result<View> view_option(std::string_view text) {
  if (const auto view = view_from_name(text)) return *view;
  std::string names;
  for (const ViewInfo& info : all_views()) names += (names.empty() ? "" : ", ") + std::string(info.name);
  return Error::usage("--view '" + std::string(text.substr(0, 40)) + "' is not a view: allowed " + names);
}

Result<Theme> theme_option(std::string_view text) {
  if (const auto theme = theme_from_name(text)) return *theme;
  return Error::usage("--theme '" + std::string(text.substr(0, 40)) + "' is not allowed: dark, light or projector");
}

Result<float> font_scale_option(std::string_view text) {
  const std::string typed(text);
  char* end = nullptr;
  const double value = std::strtod(typed.c_str(), &end);
  const bool decimal = !typed.empty() && typed.find_first_not_of("0123456789.eE+-") == std::string::npos;
  if (end != typed.c_str() + typed.size() || !decimal || !(value >= font_scale_min && value <= font_scale_max))
    return Error::usage("--font-scale '" + typed.substr(0, 40) + "' is not allowed: a number from 1 to 3");
  return static_cast<float>(value);
}

Result<plot::Colormap> colormap_option(std::string_view text) {
  const auto colormap = plot::colormap_from_name(text);
  if (!colormap || *colormap == plot::Colormap::Diverging)
    return Error::usage("--colormap '" + std::string(text.substr(0, 40)) +
                        "' is not allowed: viridis, cividis, magma or greys");
  return *colormap;
}

Result<i18n::Language> language_option(std::string_view text) {
  if (const auto language = i18n::parse_language(text)) return *language;
  return Error::usage("--lang '" + std::string(text.substr(0, 40)) + "' is not allowed: " + i18n::language_codes());
}

}  // namespace smlab::app
