// The numbers behind the heads lab (see views.hpp): h attention heads, each its own map, and
// their average, whose rows mix the heads' peaks (multi-modal).
#pragma once

#include <vector>

#include "smlab/attention.hpp"
#include "smlab/params.hpp"

namespace smlab {

struct HeadsLab {
  // h heads cost h·L²·d_k multiply-adds plus 2·L·h·d_k Gaussian draws; small multiples of
  // ~200 px show no more than ~128 cells a side. The maps use the first
  //   L' = min(L, 128, max(16, 2^17 / (h·d_k)))
  // positions: 128 at the defaults, 16 at h = 16, d_k = 4096.
  static constexpr int max_map_len = 128;
  static constexpr int min_map_len = 16;
  static constexpr long long map_draw_budget = 1 << 17;  // L'·h·d_k

  // Setup: attention_setup(params) (σ = 1, ÷√d_k when scaled, T, score_scale, seed) with
  // h = Params::heads heads of d_k each (d_model = h·d_k; head m owns columns m·d_k…) and the
  // causal flag. Head 0 is the single-head map of the same Params.
  int seq_len = 0;      // L' (see max_map_len)
  bool capped = false;  // L' < Params::seq_len
  int heads = 1;
  std::vector<Matrix> head_weights;                        // h maps, L'×L', each row sums to 1
  Matrix average;                                          // (1/h) Σ_m head_weights[m]
  std::vector<double> head_entropy_nats, head_max_weight;  // per head: mean over rows
  double average_entropy_nats = 0.0, average_max_weight = 0.0;
  double max_entropy_nats = 0.0;  // ln L' (causal: mean of ln(i + 1))
  // largest_finite of each head's map and of the average: the colour ranges of the pictures.
  std::vector<float> head_largest_weight;
  float average_largest_weight = 0.0f;

  // ── The selected row r = min(Params::row, L' − 1) ──
  int row = 0;
  bool row_clamped = false;                    // Params::row ≥ L'
  std::vector<std::vector<double>> head_rows;  // [head][key j] = head_weights[m](r, j)
  std::vector<double> average_row;             // [key j] = average(r, j)
  std::vector<int> head_row_argmax;            // each head's most attended key in row r
  std::vector<double> head_row_entropy_nats;   // each head's row entropy
  double average_row_entropy_nats = 0.0;
  // How many local maxima the average row has with weight ≥ peak_fraction of its largest:
  // a mixture of sharp heads looking at different keys has several.
  static constexpr double peak_fraction = 0.25;
  int average_row_peaks = 0;
  int distinct_head_argmaxes = 0;  // how many different keys the heads' argmaxes point at
};

// Pure and deterministic: the same Params give the same HeadsLab.
void evaluate_heads_lab(HeadsLab& out, const Params& params);

}  // namespace smlab
