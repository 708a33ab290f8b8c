// Pointer gestures on the dashboard's plots: the hit-test at the press picks the gesture, the moves
// edit Params from the state at the press, the release ends it.
#include "panels/pointer_gestures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "smlab/labs/normalizers.hpp"  // selected_row_scores: the row as editable scores
#include "smlab/softmax.hpp"

namespace smlab::app {
namespace {

using Kind = PointerGesture::Kind;

struct Target {
  const PlacedPlot* placed = nullptr;
  const NamedPlot* plot = nullptr;
};

// The placed plot under `position` and its description.
Target plot_at(const UiState& ui, ImVec2 position, std::string_view view, const std::vector<NamedPlot>& plots) {
  const std::string prefix = std::string(view) + "/";
  for (const PlacedPlot& placed : ui.placed_plots) {
    if (position.x < placed.min.x || position.x >= placed.max.x || position.y < placed.min.y ||
        position.y >= placed.max.y || placed.name.compare(0, prefix.size(), prefix) != 0)
      continue;
    for (const NamedPlot& named : plots)
      if (placed.name.size() == prefix.size() + named.name.size() && placed.name.ends_with(named.name))
        return {&placed, &named};
  }
  return {};
}

plot::Hit hit_at(const Target& target, ImVec2 position, const plot::Style& style) {
  const ImVec2 size(target.placed->max.x - target.placed->min.x, target.placed->max.y - target.placed->min.y);
  // At the size its labels were drawn (a grid may draw them smaller than the UI font).
  return plot::hit_test(target.plot->plot, size, style,
                        ImVec2(position.x - target.placed->min.x, position.y - target.placed->min.y),
                        target.placed->font_size);
}

double log_sum_exp_except(const std::vector<double>& logits, int skip) {
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t j = 0; j < logits.size(); ++j)
    if (static_cast<int>(j) != skip) top = std::max(top, logits[j]);
  if (!std::isfinite(top)) return top;
  double sum = 0.0;
  for (std::size_t j = 0; j < logits.size(); ++j)
    if (static_cast<int>(j) != skip) sum += std::exp(logits[j] - top);  // −inf keys add 0
  return top + std::log(sum);
}

// The press: which gesture the point starts, from the plot's name and what is under the point.
void start(UiState& ui, const Target& target, const plot::Hit& hit, const Snapshot& snapshot) {
  PointerGesture gesture;
  gesture.plot = target.placed->name;
  gesture.start = ui.params;
  const std::string& name = target.plot->name;
  if (name == "distribution" && hit.bar_series == 0 && hit.bar_index >= 0) {
    const Params& params = ui.params;
    std::vector<double> editable = params.scores;
    if (editable.empty()) {
      std::vector<double> scaled;
      selected_row_scores(scaled, editable, params);
    }
    const int key = static_cast<int>(std::lround(target.plot->plot.bars[0].x[static_cast<std::size_t>(hit.bar_index)]));
    if (key < 0 || key >= static_cast<int>(editable.size()) || !std::isfinite(editable[static_cast<std::size_t>(key)]))
      return;  // a masked key (−inf) has no score to move
    std::vector<double> logits(editable.size());
    for (std::size_t j = 0; j < editable.size(); ++j) logits[j] = editable[j] * params.score_scale / params.temperature;
    gesture.rest_log_sum = log_sum_exp_except(logits, key);
    if (!std::isfinite(gesture.rest_log_sum)) return;  // the only unmasked key: its weight is 1 whatever its score
    gesture.kind = Kind::distribution_bar;
    gesture.key = key;
    gesture.start_scores = std::move(editable);
  } else if ((name == "attention_scaled" || name == "attention_unscaled") && hit.heatmap_row >= 0) {
    gesture.kind = Kind::heatmap_row;
  } else if (name == "entropy_t" && hit.scatter_series == 0) {
    gesture.kind = Kind::entropy_point;
  } else if (name == "gradient" && hit.scatter_series == 0 && hit.scatter_index >= 0 &&
             hit.scatter_index < static_cast<int>(snapshot.scores.size())) {
    gesture.kind = Kind::parabola_point;
    gesture.key = hit.scatter_index;
    gesture.logits = snapshot.scores;  // the logits at T = 1 (scores × scale, ÷ √d_k when scaled)
  }
  if (gesture.active()) ui.gesture = std::move(gesture);
}

// A move (and the press itself): the edit the gesture makes for the pointer at `hit`.
void follow(UiState& ui, const plot::Hit& hit) {
  PointerGesture& gesture = ui.gesture;
  Params edit = ui.params;
  switch (gesture.kind) {
    case Kind::distribution_bar: {
      if (!std::isfinite(hit.y)) return;
      // softmax_key = e^{z_key} / (e^{z_key} + R): the logit that gives weight p with the other keys
      // as they were at the press is z = logit(p) + log R; back to a score, z · T / score_scale.
      const double weight = std::clamp(hit.y, 1e-3, 1.0 - 1e-3);
      const double logit = std::log(weight / (1.0 - weight)) + gesture.rest_log_sum;
      edit.scores = gesture.start_scores;
      // Three decimals: finer than the pointer can place, and the score field stays readable.
      edit.scores[static_cast<std::size_t>(gesture.key)] =
          std::round(logit * gesture.start.temperature / gesture.start.score_scale * 1000.0) / 1000.0;
      if (apply_params(ui, edit)) ui.scores_text = format_scores(ui.params.scores);
      return;
    }
    case Kind::heatmap_row:
      if (!std::isfinite(hit.y)) return;
      edit.row = std::clamp(static_cast<int>(std::floor(hit.y + 0.5)), 0, std::max(edit.seq_len - 1, 0));
      apply_params(ui, edit);
      return;
    case Kind::entropy_point:
      if (!std::isfinite(hit.x) || !(hit.x > 0.0)) return;
      edit.temperature = std::clamp(hit.x, ParamLimits::temperature_min, ParamLimits::temperature_max);
      apply_params(ui, edit);
      return;
    case Kind::parabola_point:
      if (!std::isfinite(hit.x)) return;
      edit.temperature = temperature_for_weight(gesture.logits, gesture.key, std::clamp(hit.x, 1e-4, 1.0 - 1e-4),
                                                ui.params.temperature);
      apply_params(ui, edit);
      return;
    case Kind::none: return;
  }
}

}  // namespace

double temperature_for_weight(const std::vector<double>& logits, int key, double target, double current) {
  if (key < 0 || key >= static_cast<int>(logits.size())) return current;
  // A log grid of the slider's range, fine enough that neighbours differ by 0.5 %.
  constexpr int steps = 2000;
  const double low = std::log(ParamLimits::temperature_min), high = std::log(ParamLimits::temperature_max);
  std::vector<double> weights(logits.size());
  double best = current, best_error = std::numeric_limits<double>::infinity(), best_distance = 0.0;
  for (int step = 0; step <= steps; ++step) {
    const double log_t = low + (high - low) * step / steps;
    const double temperature = std::exp(log_t);
    (void)softmax(weights, logits, temperature);
    const double error = std::abs(weights[static_cast<std::size_t>(key)] - target);
    const double distance = std::abs(log_t - std::log(current));
    // Nearly as close counts as close (1e-3 of a weight): then the T nearest the current one wins.
    if (error < best_error - 1e-3 || (error <= best_error + 1e-3 && distance < best_distance)) {
      if (error < best_error) best_error = error;
      best = temperature;
      best_distance = distance;
    }
  }
  return best;
}

void feed_pointer(UiState& ui, const PointerEvent& event, std::string_view view, const std::vector<NamedPlot>& plots,
                  const plot::Style& style, const Snapshot* snapshot) {
  if (event.phase == PointerEvent::Phase::release) {
    ui.gesture = PointerGesture{};
    return;
  }
  if (event.phase == PointerEvent::Phase::press) {
    ui.gesture = PointerGesture{};
    const Target target = plot_at(ui, event.position, view, plots);
    if (target.plot == nullptr || snapshot == nullptr) return;
    const plot::Hit hit = hit_at(target, event.position, style);
    if (!hit.in_data_area) return;
    start(ui, target, hit, *snapshot);
    if (ui.gesture.active()) follow(ui, hit);
    return;
  }
  if (!ui.gesture.active()) return;
  // The plot the gesture started on, wherever the pointer is now (a drag may leave it).
  for (const PlacedPlot& placed : ui.placed_plots) {
    if (placed.name != ui.gesture.plot) continue;
    for (const NamedPlot& named : plots)
      if (placed.name.ends_with("/" + named.name)) {
        follow(ui, hit_at({&placed, &named}, event.position, style));
        return;
      }
  }
}

void feed_mouse(UiState& ui, std::string_view view, const std::vector<NamedPlot>& plots, const plot::Style& style,
                const Snapshot* snapshot) {
  const ImGuiIO& io = ImGui::GetIO();
  if (ui.gesture.active()) {
    if (!io.MouseDown[0])
      feed_pointer(ui, {PointerEvent::Phase::release, io.MousePos}, view, plots, style, snapshot);
    else if (io.MouseDelta.x != 0.0f || io.MouseDelta.y != 0.0f)
      feed_pointer(ui, {PointerEvent::Phase::move, io.MousePos}, view, plots, style, snapshot);
    return;
  }
  if (ImGui::IsMouseClicked(0) && !ui.hovered_plot.empty())
    feed_pointer(ui, {PointerEvent::Phase::press, io.MousePos}, view, plots, style, snapshot);
}

}  // namespace smlab::app
