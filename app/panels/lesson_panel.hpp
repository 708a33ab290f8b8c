// The lesson panel (lesson list, "3 / 7", the step's title and text in large type, Previous/Next),
// the frame around the panel a step points at, the keys that step through a lesson, and the
// "Lessons" launcher in the control column.
#pragma once

#include <span>
#include <utility>
#include <vector>

#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

// Once per frame after draw_main_window (it reads ui.placed_plots and ui.lesson_report.text_box): with a
// lesson open, draws the step's text block where the lesson layout put it (beside or under the
// step's panels; in presenter mode the large caption) and a highlight frame around the step's
// panel, and handles Right/Left, PageDown/PageUp and Escape when no text field or popup has the
// keyboard. A predict step's hidden panel is covered by its question until revealed; in presenter
// mode the guess is typed on the keyboard (digits, Enter). The answer comes from `snapshot` (the
// live one; null while none is ready) and, for a Monte Carlo mean, from `sweep` (the refined d_k
// sweep the plots draw; null: the Snapshot's), shown once it has converged.
void draw_lesson(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep = nullptr);

// The height in px of the open step's text block at `width` px with its text at `scale`× the UI
// font: the lesson panel (lesson list, title, text, notes, predict box, Previous/Next and the keys
// hint) or, `presenter`, the caption (heading, text, notes, the question and the guess). Measured
// item by item as draw_lesson draws them (with the same `snapshot` and `sweep`), so the lesson
// layout plans with the drawn height.
float lesson_block_height(const UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, float width, float scale,
                          bool presenter);

// The control column's "Lessons" section: a combo of the lessons and a Start button.
void draw_lesson_launcher(UiState& ui);

// While a bound number of the step's text is under the mouse (ViewState::lesson_view's
// hovered_number): rings, on the plots just drawn (each with its laid-out record), each label that
// writes that number to the digits the text shows; where none does, the data area of each plot
// that draws the value without a label (a bar's height). Noted in ui.lesson_report.marks.
// draw_main_window calls it after drawing a view's plots.
void mark_hovered_number(UiState& ui, std::span<const std::pair<const plot::PlotRecord*, const PlacedPlot*>> plots);

// The plots the highlight frames go around: those of ui.placed_plots (this frame's) that belong to
// the open step's panel. Empty when no lesson is open or the step's view is not shown.
std::vector<const PlacedPlot*> lesson_highlighted_plots(const UiState& ui);

}  // namespace smlab::app
