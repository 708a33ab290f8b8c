// Pin and compare: the Pin button and the list of pins (rename, remove) in the control
// column, the P shortcut, and the pins drawn as ghosts in the dashboard's plots.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "panels/labs.hpp"
#include "plot/plot.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

// The colour of pin `index` (dashed lines, markers): apart from the live series' colours.
plot::Color pin_color(std::size_t index);

// Adds each pin's series to the dashboard's plot descriptions, by plot name: the distribution
// (a dashed line through the pin's bar tops), H(T) (the pin's curve and point), entropy versus d_k
// (its scaled and unscaled curves) and S(1−S) (its points); then, after the live maps, each pin's
// scaled map as a plot of its own, in the live maps' colour range. Pins without a Snapshot are
// skipped. Screen and SVG draw the same descriptions, so exports show the ghosts too.
void add_pin_ghosts(std::vector<NamedPlot>& plots, const PinState& state, const Snapshot& live);

// The dashboard's plots with the pins' ghosts as SVG documents, for --export-svg with a session
// that has pins: "pinned-dashboard-<plot>.svg" (the six plots, then "pin-1" … the pins' maps), their
// words in `language`.
std::vector<std::pair<std::string, std::string>> pinned_svg_files(const PinState& state, const Snapshot& live,
                                                                  i18n::Language language, const plot::Style& style,
                                                                  float width, float height);

// The control column's "Pins" section: Pin (P) and one row per pin with its name (click to
// rename), the settings that differ from now, and ×. Refreshes the pins' Snapshots.
void draw_pins_section(UiState& ui);

// The P key pins the current Params (when no text field has the keyboard).
void handle_pin_keys(UiState& ui);

}  // namespace smlab::app
