// The temperature lab's computations: small multiples, entropy versus T, and the nudge curves.
#include "smlab/labs/temperature.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "smlab/labs/normalizers.hpp"
#include "smlab/normalizers.hpp"
#include "smlab/softmax.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

// The base temperature nearest to `temperature` in log T: the one the current T replaces.
std::size_t nearest_in_log(double temperature) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < base_multiple_temperatures.size(); ++k)
    if (std::abs(std::log(base_multiple_temperatures[k] / temperature)) <
        std::abs(std::log(base_multiple_temperatures[best] / temperature)))
      best = k;
  return best;
}

// Index of the largest score other than `top` (the first on ties); n when n < 2.
std::size_t second_largest(std::span<const double> scores, std::size_t top) {
  std::size_t second = scores.size();
  for (std::size_t i = 0; i < scores.size(); ++i)
    if (i != top && (second == scores.size() || scores[i] > scores[second])) second = i;
  return second;
}

void fill_multiples(TemperatureLab& out) {
  const std::size_t replaced = nearest_in_log(out.temperature);
  out.multiples.resize(base_multiple_temperatures.size());
  out.current_multiple = static_cast<int>(replaced);
  for (std::size_t k = 0; k < out.multiples.size(); ++k) {
    TemperatureMultiple& multiple = out.multiples[k];
    // Replacing the nearest keeps the order: the current T lies between that entry's neighbours.
    multiple.is_current = k == replaced;
    multiple.temperature = multiple.is_current ? out.temperature : base_multiple_temperatures[k];
    multiple.probabilities.resize(out.scores.size());
    softmax(multiple.probabilities, out.scores, multiple.temperature);
    multiple.entropy_nats = entropy_nats(multiple.probabilities);
    multiple.max_weight = max_weight(multiple.probabilities);
  }
}

void fill_entropy_curve(TemperatureLab& out, std::vector<double>& probabilities) {
  out.curve_temperatures.resize(entropy_curve_points);
  out.curve_entropy_nats.resize(entropy_curve_points);
  for (int k = 0; k < entropy_curve_points; ++k) {
    // The dashboard's grid (evaluate.cpp): T = 10^(−2 + 4k/120).
    const double temperature = std::pow(10.0, -2.0 + 4.0 * k / (entropy_curve_points - 1));
    softmax(probabilities, out.scores, temperature);
    out.curve_temperatures[static_cast<std::size_t>(k)] = temperature;
    out.curve_entropy_nats[static_cast<std::size_t>(k)] = entropy_nats(probabilities);
  }
  softmax(probabilities, out.scores, out.temperature);
  out.current_entropy_nats = entropy_nats(probabilities);

  hardmax(probabilities, out.scores);
  out.argmax_limit_entropy_nats = entropy_nats(probabilities);
  out.tied_at_max =
      static_cast<int>(std::count_if(probabilities.begin(), probabilities.end(), [](double w) { return w > 0.0; }));
  const auto unmasked = std::count_if(out.scores.begin(), out.scores.end(), [](double x) { return std::isfinite(x); });
  out.uniform_limit_entropy_nats = std::log(static_cast<double>(unmasked));
}

// The two weights (top, second) of softmax and hardmax when x_second is replaced by `second_score`.
struct PairWeights {
  double softmax_top, softmax_second, hardmax_top, hardmax_second;
};

PairWeights pair_weights(std::vector<double>& row, std::vector<double>& weights, const TemperatureLab& lab,
                         double second_score) {
  const auto top = static_cast<std::size_t>(lab.top_index), second = static_cast<std::size_t>(lab.second_index);
  row[second] = second_score;
  PairWeights pair{};
  softmax(weights, row, lab.temperature);
  pair.softmax_top = weights[top];
  pair.softmax_second = weights[second];
  hardmax(weights, row);
  pair.hardmax_top = weights[top];
  pair.hardmax_second = weights[second];
  return pair;
}

void fill_nudge_curves(TemperatureLab& out, std::vector<double>& weights) {
  out.nudge_grid.clear();
  out.softmax_top.clear();
  out.softmax_second.clear();
  out.hardmax_top.clear();
  out.hardmax_second.clear();
  if (!out.has_second) return;
  std::vector<double> row = out.base_scores;
  const double top_score = out.base_scores[static_cast<std::size_t>(out.top_index)];
  const double second_score = out.base_scores[static_cast<std::size_t>(out.second_index)];
  const bool tie_in_range = out.gap <= ParamLimits::nudge_max;
  bool tie_done = false;
  auto add = [&](double nudge, double nudged_score) {
    const PairWeights pair = pair_weights(row, weights, out, nudged_score);
    out.nudge_grid.push_back(nudge);
    out.softmax_top.push_back(pair.softmax_top);
    out.softmax_second.push_back(pair.softmax_second);
    out.hardmax_top.push_back(pair.hardmax_top);
    out.hardmax_second.push_back(pair.hardmax_second);
  };
  for (int j = 0; j < nudge_curve_points; ++j) {
    const double nudge =
        ParamLimits::nudge_min + (ParamLimits::nudge_max - ParamLimits::nudge_min) * j / (nudge_curve_points - 1);
    if (tie_in_range && !tie_done && nudge >= out.gap) {
      // x_second + gap need not round to x_top, so the tie point sets the score to x_top itself.
      add(out.gap, top_score);
      tie_done = true;
      if (nudge == out.gap) continue;
    }
    add(nudge, second_score + nudge);
  }
}

// The nudge at which the top's softmax weight falls to `level` (between its weights at the two ends
// of the slider): bisection on the weight, which falls monotonically as the second score rises.
double nudge_at_top_weight(const TemperatureLab& lab, std::vector<double>& weights, double level) {
  std::vector<double> row = lab.base_scores;
  const double second_score = lab.base_scores[static_cast<std::size_t>(lab.second_index)];
  double low = ParamLimits::nudge_min, high = ParamLimits::nudge_max;
  for (int i = 0; i < 60 && low < high; ++i) {
    const double middle = 0.5 * (low + high);
    if (pair_weights(row, weights, lab, second_score + middle).softmax_top > level)
      low = middle;
    else
      high = middle;
  }
  return 0.5 * (low + high);
}

void find_swap(TemperatureLab& out, std::vector<double>& weights) {
  out.swap_from = out.swap_to = std::numeric_limits<double>::quiet_NaN();
  if (!out.has_second || out.softmax_top.empty()) return;
  const double high = out.softmax_top.front(), low = out.softmax_top.back();
  out.swap_from = nudge_at_top_weight(out, weights, low + 0.9 * (high - low));
  out.swap_to = nudge_at_top_weight(out, weights, low + 0.1 * (high - low));
}

}  // namespace

void evaluate_temperature_lab(TemperatureLab& out, const Params& params) {
  evaluate_temperature_lab(out, params, shown_row(params));
}

void evaluate_temperature_lab(TemperatureLab& out, const Params& params, const ShownRow& row) {
  out.temperature = params.temperature;
  out.nudge = params.nudge;
  out.base_scores = row.scores;
  const std::size_t n = out.base_scores.size();
  out.shown = display_window(out.base_scores);

  // Which entries the nudge is about: the top score and the runner-up, before the nudge.
  const std::size_t top = argmax(out.base_scores);  // validate() guarantees a finite score
  const std::size_t second = second_largest(out.base_scores, top);
  out.has_second = second < n && std::isfinite(out.base_scores[second]);
  out.top_index = static_cast<int>(top);
  out.second_index = out.has_second ? static_cast<int>(second) : 0;
  out.gap = out.has_second ? out.base_scores[top] - out.base_scores[second] : 0.0;
  out.scores = out.base_scores;
  if (out.has_second) out.scores[second] += params.nudge;

  fill_multiples(out);
  std::vector<double> scratch(n);
  fill_entropy_curve(out, scratch);
  fill_nudge_curves(out, scratch);
  find_swap(out, scratch);

  out.current_softmax_top = out.current_softmax_second = 0.0;
  out.current_hardmax_top = out.current_hardmax_second = 0.0;
  if (out.has_second) {
    std::vector<double> row = out.base_scores;
    const PairWeights now = pair_weights(row, scratch, out, out.scores[second]);
    out.current_softmax_top = now.softmax_top;
    out.current_softmax_second = now.softmax_second;
    out.current_hardmax_top = now.hardmax_top;
    out.current_hardmax_second = now.hardmax_second;
  }
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo temperature_lab_info{"temperature", "small multiples over T, entropy vs T, the argmax limit",
                                          row_lab_evaluator<TemperatureLab, evaluate_temperature_lab>};

}  // namespace smlab
