// The numbers behind the stability lab (see views.hpp): naive, stable and online softmax of one
// score row in every emulated format, the exp curve with each format's limits, and a naive
// versus stable fp16 attention map that shows where 0/0 and inf/inf become NaN.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/params.hpp"
#include "smlab/precision.hpp"
#include "smlab/shown_row.hpp"

namespace smlab {

inline constexpr std::array<SoftmaxVariant, 3> all_softmax_variants{SoftmaxVariant::naive, SoftmaxVariant::stable,
                                                                    SoftmaxVariant::online};

// The heatmaps use the first min(L, 128) queries and keys: 128² cells already show the pattern,
// and every cell costs an emulated softmax entry per variant plus a d_k-long dot product
// (128²·4096 multiply-adds at d_k = 4096, the worst case: a few ms in the dashboard's kernel).
inline constexpr int stability_map_max_size = 128;

// The exp curve: exp(x) at evenly spaced x over [−40, 100]: every narrow format's overflow point
// (E4M3 6.1, fp16/E5M2 11.1, fp32/bf16 88.7) with room for their labels in a ~380 px plot;
// fp64's 709.8 lies outside and is reported as a number instead. Underflow edges are notes.
inline constexpr double stability_exp_curve_min = -40.0, stability_exp_curve_max = 100.0;
inline constexpr int stability_exp_curve_points = 281;

// One variant of softmax of the row in one format.
struct StabilityRun {
  std::vector<double> weights;  // n weights, as softmax_in_format left them (inf and NaN included)
  PrecisionReport report;       // softmax_in_format's own report of the same call
  // The entries behind report's counts, classified exactly as it counts them: NaN, ±inf, and
  // exactly 0 although the exact weight is positive (finite score, finite row max).
  std::vector<int> nan_entries, inf_entries, underflow_entries;
  int problem_count() const { return report.nan_count + report.inf_count + report.underflow_count; }
};

// Everything about one format.
struct StabilityFormat {
  Format format = Format::fp64;
  double max_finite = 0.0;                // format_info(format).max_finite
  double largest_finite_exp_input = 0.0;  // exp(x) overflows (inf, or NaN in E4M3) for every x above
  double largest_zero_exp_input = 0.0;    // exp(x) rounds to 0 for every x at or below this
  std::array<StabilityRun, 3> runs;       // indexed by SoftmaxVariant: naive, stable, online
  const StabilityRun& run(SoftmaxVariant variant) const { return runs[static_cast<std::size_t>(variant)]; }
};

// An L'×L' attention map computed in fp16 by one variant, L' = min(L, stability_map_max_size).
struct StabilityMap {
  std::vector<float> weights;  // row-major L'², NaN and inf kept (every fp16 value is a float)
  int nan_cells = 0, inf_cells = 0, underflow_cells = 0;  // summed PrecisionReport counts
  int nan_rows = 0;            // rows with at least one NaN (a single exp overflowed: inf/inf)
  int zero_rows = 0;           // rows of exact zeros: no exp overflowed but their sum did (e/inf = 0)
  double max_sum_error = 0.0;  // largest |Σ−1| among the rows without NaN or inf
  double max_finite_weight = 0.0;
};

struct StabilityLab {
  // The row: Params::scores × score_scale when given, else the dashboard's row (score_scale ·
  // q_row·k_j, ÷√d_k when scaled, −inf after the row when causal): Snapshot::shown.scores.
  // Every variant receives these scores and T; logits are scores / T.
  bool custom_scores = false;
  int row = 0;
  double temperature = 1.0;
  std::vector<double> scores;
  double min_logit = 0.0, max_logit = 0.0;  // over the finite scores, divided by T

  Format selected_format = Format::fp16;   // Params::format: the one whose weights are drawn
  std::array<StabilityFormat, 6> formats;  // in all_formats order (= Format's order)
  const StabilityFormat& format(Format f) const { return formats[static_cast<std::size_t>(f)]; }
  const StabilityFormat& selected() const { return format(selected_format); }

  // Online softmax's state after each key j, in double (online_softmax's recurrence): the running
  // max m_j = max_{k≤j} x_k (scores) and the running sum d_j = Σ_{k≤j} exp((x_k − m_j)/T), updated
  // as d ← d·e^{(m_old − m_new)/T} + 1 when the max grows. Masked (−inf) keys leave both as they
  // were; before the first finite score m = −inf and d = 0. Length n.
  std::vector<double> online_running_max, online_running_sum;

  std::vector<double> exp_x, exp_y;  // exp(x) in double over the range above
  double exp_of_max_logit = 0.0;     // exp(max_logit) in double: where the row sits on that curve

  // The attention heatmaps: the first L' queries against the first L' keys, with the logits
  // score_scale · q_i·k_j / T, ÷√d_k when Params::scaled — the dashboard's own scaling, so the
  // ÷√d_k switch shows what it does here too: unscaled at d_k = 64 the logits have standard
  // deviation 8 and most rows hold one above fp16's 11.09; scaled they have std 1 until
  // score_scale raises them. The same logits go through the naive and the stable kernel in fp16.
  // Under the causal mask the keys after each query are −inf, and their weights exactly 0.
  int map_size = 0;
  double map_max_logit = 0.0;  // the largest logit of the map (in double)
  StabilityMap naive_fp16, stable_fp16;
};

// Pure and deterministic: the same Params and row give the same StabilityLab. `row` is the shown
// row (Snapshot::shown: custom × score_scale, or the scaled row of QKᵀ, causal mask included); the
// maps are shown_map_scores of the Params (seeded or imported data, masked alike). The form without
// `row` makes shown_row(params) (at L = d_k = 4096 about 0.6–1.1 s, nearly all of it drawing the
// 4096² keys of the row). Cost with the row handed in: ~0.2 ms at the defaults, the maps' 128
// queries and keys being most of it.
void evaluate_stability_lab(StabilityLab& out, const Params& params, const ShownRow& row);
void evaluate_stability_lab(StabilityLab& out, const Params& params);

// The largest x for which round_to(format, exp(x)) is exactly 0: below it a weight vanishes
// (e.g. ≈ −17.3 for fp16, −103.97 for fp32, −745.13 for fp64). Bisection over the doubles
// with exp and round_to, like largest_finite_exp_input.
double largest_zero_exp_input(Format format);

}  // namespace smlab
