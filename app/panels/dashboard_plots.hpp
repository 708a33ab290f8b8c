// Descriptions of the dashboard's plots, built from a Snapshot. Pure: no ImGui
// calls, no GL, no math beyond choosing ranges, so the screen, the SVG export and
// the tests all use the very same descriptions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plot/plot.hpp"
#include "smlab/snapshot.hpp"

namespace smlab::app {

// 1. The softmax distribution of the selected row as bars (argmax highlighted).
plot::Plot distribution_plot(const Snapshot& snapshot);

// 2a. Entropy of that row versus temperature on a log axis, the current T marked.
plot::Plot entropy_temperature_plot(const Snapshot& snapshot);

// 2b. Monte Carlo entropy versus d_k (log axis), scaled and unscaled, ±1 SE bands,
// the current d_k marked. `sweep` is the snapshot's or a refinement of it.
plot::Plot entropy_dk_plot(const DkSweep& sweep, int current_key_dim);

// 3. The parabola S(1−S) with the row's S_i on it and the maximum 1/4 marked.
plot::Plot gradient_plot(const Snapshot& snapshot);

// The one S(1−S) plot (the dashboard's gradient and the gradients lab's diagonal): the sampled
// parabola (core's GradientParabola) and the live points (s_i, s_i(1 − s_i)) on it.
struct ParabolaPlotStyle {
  std::string title, short_title, points_label;  // short_title: "" for none
  std::optional<plot::Color> curve_color{}, points_color{};
};
plot::Plot gradient_parabola_plot(const ParabolaPlotStyle& style, const std::vector<double>& curve_s,
                                  const std::vector<double>& curve_value, const std::vector<double>& points_s,
                                  const std::vector<double>& points_value);

// 4. The L×L attention weights, scaled (÷√d_k) or unscaled. Both maps share one
// colour range [0, max of both] so their sharpness can be compared by eye.
plot::Plot attention_plot(const Snapshot& snapshot, bool scaled, std::uintptr_t texture);

// All six plots with stable names, for the SVG export ("dashboard-<name>.svg").
std::vector<std::pair<std::string, plot::Plot>> dashboard_plots(const Snapshot& snapshot, const DkSweep& sweep);

}  // namespace smlab::app
