// Moving through a lesson: step changes go through apply_params like every other edit.
#include "lesson_player/lesson_player.hpp"

namespace smlab::app {
namespace {

void show_view(UiState& ui, View view) {
  if (ui.view == view) return;
  ui.view = view;
  ui.select_view_tab = true;
}

// A fresh question: nothing guessed, the typed field empty (a prefilled number would be committed
// by a click on Commit as if the class had typed it).
void reset_prediction(UiState& ui) {
  ui.lesson.revealed = false;
  ui.lesson.guess.reset();
  ui.lesson_view.guess_error.clear();
  ui.lesson_view.typed_guess.clear();
}

}  // namespace

const Lesson* current_lesson(const UiModel& model) {
  if (!model.lesson.open || model.lesson.open->lesson >= model.lessons.lessons.size()) return nullptr;
  return &model.lessons.lessons[model.lesson.open->lesson];
}

const LessonStep* current_step(const UiModel& model) {
  const Lesson* lesson = current_lesson(model);
  if (lesson == nullptr || model.lesson.open->step >= lesson->steps.size()) return nullptr;
  return &lesson->steps[model.lesson.open->step];
}

bool open_lesson_step(UiState& ui, std::size_t lesson, std::size_t step, bool animate) {
  if (lesson >= ui.lessons.lessons.size() || step >= ui.lessons.lessons[lesson].steps.size()) return false;
  const LessonStep& target = ui.lessons.lessons[lesson].steps[step];
  ui.lesson.open = LessonPosition{lesson, step, std::nullopt};
  ui.lesson_view.launcher_index = static_cast<int>(lesson);
  reset_prediction(ui);
  show_view(ui, target.view);
  if (animate && ui.params != target.params) {
    ui.lesson.animating = true;
    ui.lesson.from = ui.params;
    ui.lesson.to = target.params;
    ui.lesson.elapsed_seconds = 0.0;
    // The non-numeric keys switch on the first frame; the numbers start moving.
    apply_params(ui, interpolate_params(ui.lesson.from, ui.lesson.to, 0.0));
    ui.lesson.last_applied = ui.params;
  } else {
    ui.lesson.animating = false;
    apply_params(ui, target.params);
  }
  return true;
}

bool resume_lesson(UiState& ui, std::size_t lesson, std::size_t step) {
  if (lesson >= ui.lessons.lessons.size() || step >= ui.lessons.lessons[lesson].steps.size()) return false;
  ui.lesson.open = LessonPosition{lesson, step, std::nullopt};
  ui.lesson_view.launcher_index = static_cast<int>(lesson);
  ui.lesson.animating = false;
  reset_prediction(ui);
  return true;
}

bool lesson_awaiting_prediction(const UiModel& model) {
  const LessonStep* step = current_step(model);
  return step != nullptr && step->predict && !model.lesson.revealed;
}

Result<void> commit_guess(UiState& ui, std::optional<double> guess) {
  const LessonStep* step = current_step(ui);
  if (step == nullptr || !step->predict) return {};
  if (guess) {
    if (Result<void> allowed = check_guess(*step->predict, *guess); !allowed.ok()) {
      ui.lesson_view.guess_error = allowed.error().message;
      return allowed;
    }
  }
  ui.lesson.guess = guess;
  ui.lesson.revealed = !ui.lesson.reveal_held;
  ui.lesson_view.guess_error.clear();
  return {};
}

Result<void> commit_typed_guess(UiState& ui, std::string_view text) {
  const LessonStep* step = current_step(ui);
  if (step == nullptr || !step->predict) return {};
  const Result<double> guess = parse_guess(*step->predict, text);
  if (!guess.ok()) {
    ui.lesson_view.guess_error = guess.error().message;
    return guess.error();
  }
  return commit_guess(ui, *guess);
}

bool lesson_next(UiState& ui) {
  if (lesson_awaiting_prediction(ui) && !ui.lesson.reveal_held) {  // first press reveals (see the header)
    (void)commit_guess(ui, std::nullopt);                          // no guess: nothing to refuse
    return true;
  }
  const Lesson* lesson = current_lesson(ui);
  if (lesson == nullptr || ui.lesson.open->step + 1 >= lesson->steps.size()) return false;
  return open_lesson_step(ui, ui.lesson.open->lesson, ui.lesson.open->step + 1, true);
}

bool lesson_previous(UiState& ui) {
  if (current_lesson(ui) == nullptr || ui.lesson.open->step == 0) return false;
  return open_lesson_step(ui, ui.lesson.open->lesson, ui.lesson.open->step - 1, true);
}

void close_lesson(UiState& ui) {
  if (ui.lesson.animating && ui.params == ui.lesson.last_applied) apply_params(ui, ui.lesson.to);
  ui.lesson.animating = false;
  ui.lesson.open.reset();
}

void advance_lesson(UiState& ui, double seconds) {
  LessonState& state = ui.lesson;
  if (!state.animating) return;
  if (ui.params != state.last_applied) {  // a slider moved during the animation: the user wins
    state.animating = false;
    return;
  }
  state.elapsed_seconds += seconds > 0.0 ? seconds : 0.0;
  const double progress = state.elapsed_seconds / lesson_transition_seconds;
  apply_params(ui, interpolate_params(state.from, state.to, lesson_ease(progress)));
  state.last_applied = ui.params;
  if (progress >= 1.0) state.animating = false;
}

std::vector<std::string_view> hold_step_settings(UiState& ui) {
  std::vector<std::string_view> restored;
  const LessonStep* step = current_step(ui);
  if (step == nullptr || step->held.empty() || ui.lesson.animating) return restored;
  Params held = ui.params;
  for (const std::string& key : step->held) {
    const std::optional<std::string> wanted = get_param(step->params, key);
    if (!wanted || get_param(held, key) == wanted) continue;
    // Refused (imported data fixes seq_len, say): the value the data allows stays.
    if (set_param(held, key, *wanted).ok()) restored.push_back(find_param_key(key)->name);
  }
  if (!restored.empty()) apply_params(ui, held);
  return restored;
}

}  // namespace smlab::app
