// The heads lab's computations: every head's map and their average through attention_weights()
// with per-head output, then the selected row of each.
#include "smlab/labs/heads.hpp"

#include <algorithm>
#include <cmath>

#include "smlab/labs/attention_variants.hpp"
#include "smlab/softmax.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

// Local maxima of `row` (strictly above the left neighbour, at least the right one, so a
// plateau counts once) whose value is at least `fraction` of the row's largest.
int count_peaks(const std::vector<double>& row, double fraction) {
  if (row.empty()) return 0;
  const double floor = fraction * *std::max_element(row.begin(), row.end());
  int peaks = 0;
  for (std::size_t j = 0; j < row.size(); ++j) {
    const bool above_left = j == 0 || row[j] > row[j - 1];
    const bool not_below_right = j + 1 == row.size() || row[j] >= row[j + 1];
    if (above_left && not_below_right && row[j] >= floor && row[j] > 0.0) ++peaks;
  }
  return peaks;
}

std::vector<double> matrix_row(const Matrix& map, int row) {
  const auto first = map.values.begin() + static_cast<std::ptrdiff_t>(row) * map.cols;
  return std::vector<double>(first, first + map.cols);
}

}  // namespace

void evaluate_heads_lab(HeadsLab& out, const Params& params) {
  out.seq_len = budgeted_length(params.seq_len, HeadsLab::max_map_len, HeadsLab::min_map_len, HeadsLab::map_draw_budget,
                                static_cast<long long>(params.heads) * params.key_dim);
  out.capped = out.seq_len < params.seq_len;
  out.heads = params.heads;
  out.max_entropy_nats = max_mean_row_entropy_nats(out.seq_len, params.causal);

  AttentionSetup setup = attention_setup(params);
  setup.seq_len = out.seq_len;
  setup.heads = params.heads;
  AttentionWorkspace workspace;
  out.head_weights.resize(static_cast<std::size_t>(params.heads));
  attention_weights(out.average, setup, workspace, out.head_weights);

  const auto heads = static_cast<std::size_t>(params.heads);
  out.head_entropy_nats.resize(heads);
  out.head_max_weight.resize(heads);
  for (std::size_t m = 0; m < heads; ++m) {
    out.head_entropy_nats[m] = mean_row_entropy_nats(out.head_weights[m]);
    out.head_max_weight[m] = mean_row_max_weight(out.head_weights[m]);
  }
  out.average_entropy_nats = mean_row_entropy_nats(out.average);
  out.average_max_weight = mean_row_max_weight(out.average);

  out.row = std::min(params.row, out.seq_len - 1);
  out.row_clamped = params.row != out.row;
  out.head_rows.resize(heads);
  out.head_row_argmax.resize(heads);
  out.head_row_entropy_nats.resize(heads);
  for (std::size_t m = 0; m < heads; ++m) {
    out.head_rows[m] = matrix_row(out.head_weights[m], out.row);
    const auto& row = out.head_rows[m];
    out.head_row_argmax[m] = static_cast<int>(std::max_element(row.begin(), row.end()) - row.begin());
    out.head_row_entropy_nats[m] = entropy_nats(row);
  }
  out.average_row = matrix_row(out.average, out.row);
  out.average_row_entropy_nats = entropy_nats(out.average_row);
  out.average_row_peaks = count_peaks(out.average_row, HeadsLab::peak_fraction);
  std::vector<int> targets = out.head_row_argmax;
  std::sort(targets.begin(), targets.end());
  out.distinct_head_argmaxes = static_cast<int>(std::unique(targets.begin(), targets.end()) - targets.begin());
  out.head_largest_weight.resize(heads);
  for (std::size_t m = 0; m < heads; ++m) out.head_largest_weight[m] = largest_finite(out.head_weights[m]);
  out.average_largest_weight = largest_finite(out.average);
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo heads_lab_info{"heads", "sharp heads and their multi-modal average",
                                    lab_evaluator<HeadsLab, evaluate_heads_lab>};

}  // namespace smlab
