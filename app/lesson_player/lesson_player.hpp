// Moving through a lesson: opening a step (its view, its panel, its Params — animated over
// lesson_transition_seconds in the window, at once for headless renders), next, previous, close.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "state/ui_state.hpp"

namespace smlab::app {

inline constexpr double lesson_transition_seconds = 0.5;

// The open lesson and step, or null (questions of the model alone).
const Lesson* current_lesson(const UiModel& model);
const LessonStep* current_step(const UiModel& model);

// Shows step `step` (0-based) of `ui.lessons.lessons[lesson]`: switches the view and, through
// apply_params, sets the step's Params — at once, or animated from the current ones when `animate`.
// Out-of-range indices do nothing and return false.
bool open_lesson_step(UiState& ui, std::size_t lesson, std::size_t step, bool animate);

// Marks a lesson position as open without touching Params or view (restoring a session, whose own
// Params may differ from the step's). False if the position does not exist.
bool resume_lesson(UiState& ui, std::size_t lesson, std::size_t step);

// Next / previous step, animated; false at either end or with no lesson open. On a predict step
// not yet revealed, Next (button, →, PageDown: a clicker) reveals the answer without a guess and
// stays; the next press moves on. So a clicker never skips a question unseen. (Where the class's
// teacher reveals, LessonState::reveal_held, Next moves on and reveals nothing.)
bool lesson_next(UiState& ui);
bool lesson_previous(UiState& ui);

// The open step asks a prediction that is not revealed yet.
bool lesson_awaiting_prediction(const UiModel& model);

// Commits `guess` (nullopt: reveal without one) on the open predict step and reveals the answer
// (unless LessonState::reveal_held: then the guess is kept as the answer, unrevealed).
// A guess check_guess refuses is not committed: its Error::usage is returned (and its line kept in
// ui.lesson_view.guess_error). Does nothing and succeeds when the step asks nothing.
Result<void> commit_guess(UiState& ui, std::optional<double> guess);

// Commits the typed guess `text` (parse_guess: a number within the step's range) and reveals; a text
// that is not such a number is refused like a bad guess, its line kept in ui.lesson_view.guess_error.
// The click on Commit and Enter in the field both come here, so both commit what the field shows.
Result<void> commit_typed_guess(UiState& ui, std::string_view text);

// Leaves the lesson; the Params stay where the lesson left them (finishing a running animation).
void close_lesson(UiState& ui);

// Moves a running animation on by `seconds` (the frame time). If the user edited Params meanwhile,
// the animation stops and the user's edit stays.
void advance_lesson(UiState& ui, double seconds);

// Puts each key the open step holds (LessonStep::held) back to the step's value, unless a step
// change is gliding there; returns the keys it put back (the key table's names), for the status
// line. Called before a frame's Params are submitted, so whatever changed a held key (a key, undo,
// a gesture on a plot, a session) the plots never show another value while its text is open.
std::vector<std::string_view> hold_step_settings(UiState& ui);

}  // namespace smlab::app
