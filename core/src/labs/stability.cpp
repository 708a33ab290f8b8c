// The stability lab's computations: the row in every format and variant, the exp curve, and
// the naive/stable fp16 attention maps (see stability.hpp).
#include "smlab/labs/stability.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/import.hpp"
#include "smlab/shown_row.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

StabilityRun run_in_format(std::span<const double> scores, Format format, SoftmaxVariant variant, double temperature) {
  StabilityRun run;
  run.weights.resize(scores.size());
  run.report = softmax_in_format(run.weights, scores, format, variant, temperature);
  // Classify the entries the way softmax_in_format counts them, so the markers in the plot and
  // the counts in the report can never disagree.
  const double max_score = *std::max_element(scores.begin(), scores.end());
  const bool finite_max = std::isfinite(max_score);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const double w = run.weights[i];
    const int index = static_cast<int>(i);
    if (std::isnan(w)) run.nan_entries.push_back(index);
    if (std::isinf(w)) run.inf_entries.push_back(index);
    if (w == 0.0 && finite_max && std::isfinite(scores[i])) run.underflow_entries.push_back(index);
  }
  return run;
}

// The two fp16 maps. Row i's logits are score_scale · raw(i, j) / T over the first `size` keys,
// divided by √d_k when Params::scaled and d_k is known (as the dashboard's row and maps are), with
// raw = shown_map_scores (q·k in float sums, or imported scores; −inf above the diagonal under the
// causal mask, which stays −inf). The emulated kernels round them to fp16 first, as a kernel
// reading fp16 scores would.
void fill_maps(StabilityLab& out, const Params& params, const Matrix& raw, int size, bool key_dim_known) {
  out.map_size = size;
  const auto cells = static_cast<std::size_t>(size) * static_cast<std::size_t>(size);
  out.naive_fp16 = {};
  out.stable_fp16 = {};
  out.naive_fp16.weights.resize(cells);
  out.stable_fp16.weights.resize(cells);
  out.map_max_logit = -std::numeric_limits<double>::infinity();
  const double inverse_sqrt_dim =
      params.scaled && key_dim_known ? 1.0 / std::sqrt(static_cast<double>(params.key_dim)) : 1.0;
  std::vector<double> row_scores(static_cast<std::size_t>(size)), weights(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j) {
      const double s = params.score_scale * inverse_sqrt_dim * static_cast<double>(raw(i, j));
      row_scores[static_cast<std::size_t>(j)] = s;
      out.map_max_logit = std::max(out.map_max_logit, s / params.temperature);
    }
    for (auto [variant, map] :
         {std::pair{SoftmaxVariant::naive, &out.naive_fp16}, std::pair{SoftmaxVariant::stable, &out.stable_fp16}}) {
      const PrecisionReport report = softmax_in_format(weights, row_scores, Format::fp16, variant, params.temperature);
      map->nan_cells += report.nan_count;
      map->inf_cells += report.inf_count;
      map->underflow_cells += report.underflow_count;
      if (report.nan_count > 0) ++map->nan_rows;
      if (std::all_of(weights.begin(), weights.end(), [](double w) { return w == 0.0; })) ++map->zero_rows;
      if (report.finite()) map->max_sum_error = std::max(map->max_sum_error, report.sum_error);
      float* destination = map->weights.data() + static_cast<std::size_t>(i) * static_cast<std::size_t>(size);
      for (int j = 0; j < size; ++j) {
        const double w = weights[static_cast<std::size_t>(j)];
        destination[j] = static_cast<float>(w);  // exact: fp16 ⊂ float
        if (std::isfinite(w)) map->max_finite_weight = std::max(map->max_finite_weight, w);
      }
    }
  }
}

}  // namespace

double largest_zero_exp_input(Format format) {
  // Bisect on the magnitude's bits (non-negative doubles are ordered like their bit patterns):
  // exp(−0) = 1 is non-zero in every format, and exp(−746) is already 0 in binary64. The
  // predicate "round_to(exp(−a)) == 0" is monotone in a because exp and rounding are.
  const auto zero_at = [format](double magnitude) { return round_to(format, std::exp(-magnitude)) == 0.0; };
  std::uint64_t nonzero_bits = std::bit_cast<std::uint64_t>(0.0);
  std::uint64_t zero_bits = std::bit_cast<std::uint64_t>(746.0);
  while (zero_bits - nonzero_bits > 1) {
    const std::uint64_t middle = nonzero_bits + (zero_bits - nonzero_bits) / 2;
    (zero_at(std::bit_cast<double>(middle)) ? zero_bits : nonzero_bits) = middle;
  }
  return -std::bit_cast<double>(zero_bits);
}

void evaluate_stability_lab(StabilityLab& out, const Params& params) {
  evaluate_stability_lab(out, params, shown_row(params));
}

void evaluate_stability_lab(StabilityLab& out, const Params& params, const ShownRow& row) {
  out.custom_scores = row.custom;
  out.row = params.row;
  out.temperature = params.temperature;
  out.selected_format = params.format;
  out.scores = row.scores;

  out.min_logit = std::numeric_limits<double>::infinity();
  out.max_logit = -std::numeric_limits<double>::infinity();
  for (double s : out.scores) {
    if (!std::isfinite(s)) continue;
    out.min_logit = std::min(out.min_logit, s / params.temperature);
    out.max_logit = std::max(out.max_logit, s / params.temperature);
  }

  for (Format format : all_formats) {
    StabilityFormat& entry = out.formats[static_cast<std::size_t>(format)];
    entry.format = format;
    entry.max_finite = format_info(format).max_finite;
    entry.largest_finite_exp_input = largest_finite_exp_input(format);
    entry.largest_zero_exp_input = largest_zero_exp_input(format);
    for (SoftmaxVariant variant : all_softmax_variants)
      entry.runs[static_cast<std::size_t>(variant)] = run_in_format(out.scores, format, variant, params.temperature);
  }

  out.online_running_max.resize(out.scores.size());
  out.online_running_sum.resize(out.scores.size());
  double running_max = -std::numeric_limits<double>::infinity(), running_sum = 0.0;
  for (std::size_t j = 0; j < out.scores.size(); ++j) {
    const double x = out.scores[j];
    if (std::isnan(x)) {
      running_max = running_sum = std::numeric_limits<double>::quiet_NaN();
    } else if (x > running_max) {
      // From m = −inf, d = 0 the rescale is 0·0 (exp(−inf) = 0), then + 1: d = 1.
      running_sum = (running_sum == 0.0 ? 0.0 : running_sum * std::exp((running_max - x) / params.temperature)) + 1.0;
      running_max = x;
    } else if (x > -std::numeric_limits<double>::infinity()) {
      running_sum += std::exp((x - running_max) / params.temperature);
    }
    out.online_running_max[j] = running_max;
    out.online_running_sum[j] = running_sum;
  }

  out.exp_x.resize(stability_exp_curve_points);
  out.exp_y.resize(stability_exp_curve_points);
  for (int k = 0; k < stability_exp_curve_points; ++k) {
    const double x = stability_exp_curve_min +
                     (stability_exp_curve_max - stability_exp_curve_min) * k / (stability_exp_curve_points - 1);
    out.exp_x[static_cast<std::size_t>(k)] = x;
    out.exp_y[static_cast<std::size_t>(k)] = std::exp(x);
  }
  out.exp_of_max_logit = std::exp(out.max_logit);

  // The maps: the first L' queries against the first L' keys of the shown data (seeded or
  // imported), masked as the dashboard's maps are.
  const int map_size = std::min(params.seq_len, stability_map_max_size);
  const bool key_dim_known = params.imported == nullptr || params.imported->key_dim > 0;
  fill_maps(out, params, shown_map_scores(params, map_size), map_size, key_dim_known);
}

// The lab's row in the registry (smlab/lab_list.hpp lists it): it works on the shown row, and with
// imported data its maps are the imported slice's Q·K (or scores).
extern const LabInfo stability_lab_info{
    "stability", "naive vs stable vs online softmax in fp64, fp32, fp16, bf16 and fp8: overflow, underflow, NaN",
    row_lab_evaluator<StabilityLab, evaluate_stability_lab>};

}  // namespace smlab
