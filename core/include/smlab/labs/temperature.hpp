// The numbers behind the temperature lab: the row's softmax at many temperatures (small
// multiples), entropy versus T with its two limits, and the continuity demo (nudging a score).
#pragma once

#include <array>
#include <vector>

#include "smlab/labs/normalizers.hpp"  // IndexWindow, ShownRow
#include "smlab/params.hpp"

namespace smlab {

// The small multiples' temperatures before the current T is put in: the 1-2-5 sequence, roughly
// log-spaced over 0.05 … 20. The current T replaces the entry nearest to it in log T, so there are
// always 8 panels in ascending order and one of them is the current T exactly.
inline constexpr std::array<double, 8> base_multiple_temperatures{0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 20.0};

// The entropy curve's grid: log-spaced over the whole temperature slider, 0.01 … 100.
inline constexpr int entropy_curve_points = 121;  // 30 per decade

// The nudge curves' grid over the nudge slider [−3, 3], plus the tie point (see below).
inline constexpr int nudge_curve_points = 241;  // steps of 0.025

struct TemperatureMultiple {
  double temperature = 1.0;
  bool is_current = false;            // the current T (the entry that replaced a base temperature)
  std::vector<double> probabilities;  // softmax(scores / temperature), length n
  double entropy_nats = 0.0;
  double max_weight = 0.0;
};

struct TemperatureLab {
  // The row: the dashboard's row (Snapshot::shown, causal mask included) with `nudge` added to its second-largest
  // score, so the whole lab shows what nudging does. Length n.
  std::vector<double> base_scores;  // before the nudge
  std::vector<double> scores;       // after the nudge
  double temperature = 1.0, nudge = 0.0;

  IndexWindow shown;  // the entries the panels show: display_window(base_scores), so nudging keeps it still

  std::vector<TemperatureMultiple> multiples;  // 8, ascending T, exactly one is_current
  int current_multiple = 0;                    // index of the current T in `multiples`

  // Entropy H(T) = −Σ p ln p of softmax(scores / T), T on the log grid 0.01 … 100.
  std::vector<double> curve_temperatures, curve_entropy_nats;
  double current_entropy_nats = 0.0;
  // The two limits of H(T): T → 0 gives hardmax, which is one-hot (H = 0) unless k scores tie at
  // the max (then uniform over them, H = ln k); T → ∞ gives the uniform distribution over the m
  // unmasked (finite) scores, H = ln m. Both computed, not assumed: entropy of hardmax, and ln m.
  double argmax_limit_entropy_nats = 0.0;
  double uniform_limit_entropy_nats = 0.0;
  int tied_at_max = 1;  // k

  // Continuity demo. top = argmax of base_scores (the first on ties), second = the largest of the
  // others. For δ on the grid, the row is base_scores with δ added to x_second; plotted are the
  // weights of those two entries under softmax at the current T, and under hardmax (the T → 0
  // limit). Hardmax flips where x_second + δ = x_top, i.e. δ = gap = x_top − x_second ≥ 0; there
  // both entries tie and each gets 1/2 (the limit of softmax at the tie). The grid is
  // nudge_curve_points evenly spaced points over [−3, 3] with δ = gap inserted when gap ≤ 3, so the
  // step is drawn as a vertical jump through 1/2 instead of a slope. Empty when n < 2 or the second
  // score is −inf (nothing to nudge: has_second is false).
  bool has_second = false;
  int top_index = 0, second_index = 0;
  double gap = 0.0;
  std::vector<double> nudge_grid;
  std::vector<double> softmax_top, softmax_second;  // weights of top and second vs δ
  std::vector<double> hardmax_top, hardmax_second;
  // How abrupt the swap is: the nudges at which the top's softmax weight has fallen through 90% and
  // through 10% of its swing over the slider (from its weight at δ = −3 to its weight at δ = +3),
  // solved on the weight itself (it falls monotonically in δ), not read off the grid. NaN without a
  // second score.
  double swap_from = 0.0, swap_to = 0.0;
  // At the current nudge (the same as the curves at δ = nudge).
  double current_softmax_top = 0.0, current_softmax_second = 0.0;
  double current_hardmax_top = 0.0, current_hardmax_second = 0.0;
};

// Pure and deterministic: the same Params and row give the same TemperatureLab. `row` is the shown
// row (Snapshot::shown); the form without it makes shown_row(params). Requires validate(params).
// Cost: (8 + 121 + 2·242 + 120) softmaxes of length n ≈ 3 M exps at n = 4096 (~12 ms), and O(n)
// memory per multiple.
void evaluate_temperature_lab(TemperatureLab& out, const Params& params, const ShownRow& row);
void evaluate_temperature_lab(TemperatureLab& out, const Params& params);

}  // namespace smlab
