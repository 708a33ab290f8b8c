// The plots can be touched: one pointer path (press, move, release at a position) hit-tested against
// the plot descriptions drawn this frame and turned into Params edits. The mouse feeds it on the
// desktop (feed_mouse); a browser's touch input calls feed_pointer with the same events.
//   dashboard/distribution           drag a bar up or down: that key's weight follows the pointer,
//                                    its score (the custom scores) changes to give it, the others stay
//   dashboard/attention_(un)scaled   press on a cell (and drag across rows): its row is the shown row
//   dashboard/entropy_t              drag the live point: T follows the pointer along the T axis
//   dashboard/gradient               drag a live point along S(1−S): T moves so that key's S follows
//                                    the pointer
// A gesture, press to release, is one undo step (UiState::gesture is active meanwhile).
#pragma once

#include <vector>

#include <imgui.h>

#include "panels/labs.hpp"
#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct PointerEvent {
  enum class Phase { press, move, release } phase = Phase::press;
  ImVec2 position;  // display units, as ui.placed_plots
};

// One event. `view` names the view drawn (its plots placed in ui.placed_plots this frame); `plots`
// are its descriptions, drawn in `style`; `snapshot` the one they were built from (null: no gesture
// starts). Edits go through apply_params; the custom score field follows the scores.
void feed_pointer(UiState& ui, const PointerEvent& event, std::string_view view, const std::vector<NamedPlot>& plots,
                  const plot::Style& style, const Snapshot* snapshot);

// The desktop's source, once per frame after the plots are drawn: a left press on a plot (the one
// ImGui reports hovered, so nothing covers it), moves while the button is held, the release.
void feed_mouse(UiState& ui, std::string_view view, const std::vector<NamedPlot>& plots, const plot::Style& style,
                const Snapshot* snapshot);

// T for which key `key` of softmax(logits / T) has weight `target`, on the slider's range: of the
// temperatures that come closest, the one nearest `current` in log T (the weight of a key that is not
// the largest rises and then falls with T, so most values are reached twice).
double temperature_for_weight(const std::vector<double>& logits, int key, double target, double current);

}  // namespace smlab::app
