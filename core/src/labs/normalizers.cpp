// The normalizers lab's computations, and the selected row that the row-based labs share.
#include "smlab/labs/normalizers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "smlab/attention.hpp"
#include "smlab/softmax.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// max w / min w over a result that is a set of shares (defined, no negative weight).
double max_to_min_ratio(const NormalizerResult& result) {
  if (!result.defined || result.has_negative || result.weights.empty()) return kNaN;
  const auto [smallest, largest] = std::minmax_element(result.weights.begin(), result.weights.end());
  return *largest / *smallest;  // smallest = 0 < largest gives +inf: one entry gets none of the weight
}

}  // namespace

IndexWindow display_window(std::span<const double> scores, std::size_t max_count) {
  const std::size_t n = scores.size();
  if (n <= max_count) return {0, n};
  const std::size_t top = std::min(argmax(scores), n - 1);  // argmax is n for a row without a max
  const std::size_t begin = std::min(top - std::min(top, max_count / 2), n - max_count);
  return {begin, begin + max_count};
}

void selected_row_scores(std::vector<double>& scores, std::vector<double>& editable_scores, const Params& params) {
  ShownRow row = shown_row(params);
  scores = std::move(row.scores);
  editable_scores = std::move(row.unit_scores);
}

void selected_row_scores(std::vector<double>& scores, const Params& params) { scores = shown_row(params).scores; }

void evaluate_normalizers_lab(NormalizersLab& out, const Params& params) {
  evaluate_normalizers_lab(out, params, shown_row(params));
}

void evaluate_normalizers_lab(NormalizersLab& out, const Params& params, const ShownRow& row) {
  out.custom_scores = row.custom;
  out.score_scale = params.score_scale;
  out.temperature = params.temperature;
  out.alpha = params.alpha;
  out.scores = row.scores;
  out.editable_scores = row.unit_scores;
  out.shown = display_window(out.scores);

  out.columns.resize(lab_normalizers.size());
  for (std::size_t k = 0; k < lab_normalizers.size(); ++k) {
    NormalizerColumn& column = out.columns[k];
    column.kind = lab_normalizers[k];
    normalize(column.result, column.kind, out.scores, params.temperature, params.alpha);
    column.max_to_min_ratio = max_to_min_ratio(column.result);
  }

  // The small-gap example at the lab's score scale and temperature (what pressing its preset shows).
  SmallGapExample& gap = out.small_gap;
  for (std::size_t i = 0; i < gap.scores.size(); ++i) gap.scores[i] = small_gap_scores[i] * params.score_scale;
  softmax(gap.softmax_weights, gap.scores, params.temperature);
  linear_normalize(gap.linear_weights, gap.scores);
  // Scores ascend, so the largest weight is the last and the smallest the first for both. Softmax's
  // ratios are the ratio of two weights while the smaller one is a normal double (a few roundings:
  // ~1e-15 relative), and e^{(s_i − s_j)/T}, from the score difference, once it underflows (c/T
  // above ~3700), where the division would be 0/0 or x/0.
  const auto softmax_ratio = [&](double larger_weight, double smaller_weight, double difference) {
    if (smaller_weight >= std::numeric_limits<double>::min()) return larger_weight / smaller_weight;
    return std::exp(difference / params.temperature);
  };
  gap.softmax_ratio = softmax_ratio(gap.softmax_weights[2], gap.softmax_weights[0], gap.scores[2] - gap.scores[0]);
  gap.linear_ratio = gap.linear_weights[2] / gap.linear_weights[0];
  gap.softmax_point_gaps.clear();
  gap.softmax_point_ratios.clear();
  for (std::size_t i = 0; i < gap.scores.size(); ++i) {
    const double ratio = softmax_ratio(gap.softmax_weights[i], gap.softmax_weights[0], gap.scores[i] - gap.scores[0]);
    if (!std::isfinite(ratio)) break;  // beyond double range, as every later one
    gap.softmax_point_gaps.push_back(small_gap_scores[i] - small_gap_scores[0]);
    gap.softmax_point_ratios.push_back(ratio);
  }
  gap.gaps.resize(gap_ratio_points);
  gap.softmax_gap_ratio.clear();
  gap.linear_gap_ratio.resize(gap_ratio_points);
  for (int k = 0; k < gap_ratio_points; ++k) {
    const double g = static_cast<double>(k) / (gap_ratio_points - 1);
    const std::array<double, 2> pair{small_gap_scores[0] * params.score_scale,
                                     (small_gap_scores[0] + g) * params.score_scale};
    std::array<double, 2> soft{}, linear{};
    softmax(soft, pair, params.temperature);
    linear_normalize(linear, pair);
    gap.gaps[static_cast<std::size_t>(k)] = g;
    gap.linear_gap_ratio[static_cast<std::size_t>(k)] = linear[1] / linear[0];
    const double ratio = softmax_ratio(soft[1], soft[0], pair[1] - pair[0]);
    if (std::isfinite(ratio) && gap.softmax_gap_ratio.size() == static_cast<std::size_t>(k))
      gap.softmax_gap_ratio.push_back(ratio);  // a prefix: the ratio grows with g
  }
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo normalizers_lab_info{
    "normalizers", "softmax vs linear, sparsemax, alpha-entmax, hardmax, sigmoid and ReLU on one score vector",
    row_lab_evaluator<NormalizersLab, evaluate_normalizers_lab>};

}  // namespace smlab
