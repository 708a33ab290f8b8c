// Lesson claims: the vocabulary of quantities a step may state (each read from the Snapshot the
// app draws), and the check of one claim against it.
//
// [SECTION] Index
//   [SECTION] Helpers of the readers: element access, map means, sweep points, variants
//   [SECTION] The quantity table: one reader per quantity
//   [SECTION] Table look-up, series lists, number text
//   [SECTION] Checking claims: the quantity list, check_claim_quantity, check_claim
//   [SECTION] Evaluating claims against a Snapshot
#include "lessons/claims.hpp"
#include "files/text_file.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>

#include "smlab/labs/attention_variants.hpp"
#include "smlab/labs/gradients.hpp"
#include "smlab/labs/heads.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/positions.hpp"
#include "smlab/labs/scaling.hpp"
#include "smlab/labs/stability.hpp"
#include "smlab/labs/temperature.hpp"
#include "smlab/labs/homework.hpp"
#include "smlab/labs/topics.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/precision.hpp"

namespace smlab::app {
namespace {

// [SECTION] Helpers of the readers: element access, map means, sweep points, variants

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A quantity's value in a Snapshot, or the Error saying why it has none (a lab not evaluated, an
// index past the row, a d_k that is not a point of the sweep).
using Reader = std::function<Result<double>(const Snapshot&, const ClaimQuantity&)>;

struct Entry {
  ClaimQuantityInfo info;
  Reader read;
};

Error missing(std::string_view what) { return Error::usage(std::string(what)); }

Result<double> element(std::span<const double> values, int index) {
  if (index < 0 || static_cast<std::size_t>(index) >= values.size())
    return missing("index " + std::to_string(index) + " is past the " + std::to_string(values.size()) + " values");
  return values[static_cast<std::size_t>(index)];
}

bool is_scaled(const ClaimQuantity& q) { return q.series == "scaled"; }

// The map rows exactly as drawn and exported (attention_row): mean over rows of a row statistic.
double map_mean(const Snapshot& snap, bool scaled, const std::function<double(std::span<const float>, int)>& stat) {
  const int length = snap.attention_size;
  std::vector<float> row(static_cast<std::size_t>(length));
  double total = 0.0;
  for (int i = 0; i < length; ++i) {
    attention_row(snap, scaled, i, row);
    total += stat(row, i);
  }
  return length > 0 ? total / length : kNaN;
}

// One statistic of one point of a d_k sweep (never null), or the Error saying why there is none.
Result<const RunningStats*> dk_statistic(const DkSweep& sweep, const ClaimQuantity& q,
                                         const RunningStats RowStats::*member) {
  const auto& dims = sweep.config.key_dims;
  const auto found = std::find(dims.begin(), dims.end(), q.at);
  if (found == dims.end()) return missing("d_k " + std::to_string(q.at) + " is not a point of the sweep");
  const auto k = static_cast<std::size_t>(found - dims.begin());
  const auto& points = is_scaled(q) ? sweep.scaled : sweep.unscaled;
  if (k >= points.size()) return missing("the d_k sweep has no points");
  return &(points[k].*member);
}

Result<double> dk_point(const Snapshot& snap, const ClaimQuantity& q, const RunningStats RowStats::*member) {
  const Result<const RunningStats*> stats = dk_statistic(snap.dk_sweep, q, member);
  if (!stats) return stats.error();
  return (*stats)->mean;
}

// The sweep statistic a dk_* quantity reads, or null for the other quantities.
const RunningStats RowStats::*dk_member(std::string_view quantity) {
  if (quantity == "dk_entropy") return &RowStats::entropy_nats;
  if (quantity == "dk_max_weight") return &RowStats::max_weight;
  if (quantity == "dk_jacobian_norm") return &RowStats::jacobian_norm;
  return nullptr;
}

SoftmaxVariant softmax_variant(const ClaimQuantity& q) {
  return q.series == "naive"    ? SoftmaxVariant::naive
         : q.series == "online" ? SoftmaxVariant::online
                                : SoftmaxVariant::stable;
}

int score_variant(const ClaimQuantity& q) {
  static constexpr std::string_view names[] = {"dot", "scaled_dot", "cosine", "additive", "layer_norm"};
  return static_cast<int>(std::find(std::begin(names), std::end(names), q.series) - std::begin(names));
}

// Set while claim_quantity_lab asks a reader which lab it reads: a reader that finds its lab missing
// writes that lab's view there before it returns the error.
thread_local std::optional<View>* asked_lab = nullptr;

// Why a lab's quantity has no value: the lab was not evaluated (named as the registry names its view).
template <class Lab>
Error not_evaluated() {
  if (asked_lab != nullptr) *asked_lab = view_of_lab<Lab>;
  return missing("the " + std::string(view_info(view_of_lab<Lab>).name) + " lab was not evaluated");
}

// The training lab's run a quantity names by its series ("a" … "d"; never null), or the Error
// saying why there is none.
Result<const TrainingRun*> training_run(const Snapshot& snap, const ClaimQuantity& q) {
  const TrainingLab* lab = snap.lab<TrainingLab>();
  if (lab == nullptr) return not_evaluated<TrainingLab>();
  if (!lab->error.empty()) return missing("the training lab has no runs: " + lab->error);
  const std::size_t index = q.series.empty() ? 0 : static_cast<std::size_t>(q.series[0] - 'a');
  if (index >= lab->runs.size()) return missing("the training lab has no run " + q.series);
  return &lab->runs[index];
}

// [SECTION] The quantity table: one reader per quantity

#define NEED(Lab)                     \
  const auto* lab_ = snap.lab<Lab>(); \
  if (lab_ == nullptr) return not_evaluated<Lab>()

const std::vector<Entry>& entries() {
  static const std::vector<Entry> table = [] {
    std::vector<Entry> t;
    auto add = [&t](ClaimQuantityInfo info, Reader read) { t.push_back({info, std::move(read)}); };
    // ── The dashboard's row (Snapshot) ──
    add({"weight", "softmax weight of key `index` in the shown row", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) { return element(snap.probabilities, q.index); });
    add({"max_weight", "largest weight of the row", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> { return snap.max_weight; });
    add({"argmax", "index of the largest weight", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> { return snap.argmax; });
    add({"entropy_nats", "entropy of the row", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> { return snap.entropy_nats; });
    add({"max_entropy_nats", "ln of the number of unmasked keys", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> { return snap.max_entropy_nats; });
    add({"jacobian_norm", "‖J‖_F of the row (∂s/∂z)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> { return snap.jacobian_norm; });
    add({"kl_from_uniform", "KL(s ‖ uniform over unmasked keys)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> { return snap.kl_from_uniform; });
    add({"gradient", "S(1 − S) of key `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) { return element(snap.gradient, q.index); });
    add({"gradient_max", "largest S(1 − S) of the row", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          return snap.gradient.empty() ? kNaN : *std::max_element(snap.gradient.begin(), snap.gradient.end());
        });
    add({"masked_weight_max", "largest weight of the row at a key after the query (causal: 0)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          double top = 0.0;
          for (std::size_t j = static_cast<std::size_t>(snap.params.row) + 1; j < snap.probabilities.size(); ++j)
            top = std::max(top, snap.probabilities[j]);
          return top;
        });
    // ── The dashboard's maps, row by row as drawn (attention_row) ──
    add({"map_mean_max_weight", "mean over rows of the largest weight", "scaled|unscaled", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          return map_mean(snap, is_scaled(q), [](std::span<const float> row, int) {
            return static_cast<double>(*std::max_element(row.begin(), row.end()));
          });
        });
    add({"map_mean_entropy", "mean over rows of the row entropy (nats)", "scaled|unscaled", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          return map_mean(snap, is_scaled(q), [](std::span<const float> row, int) {
            double h = 0.0;
            for (float w : row)
              if (w > 0.0f) h -= static_cast<double>(w) * std::log(static_cast<double>(w));
            return h;
          });
        });
    add({"map_masked_weight_max", "largest weight above the diagonal (causal: 0)", "scaled|unscaled", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          double top = 0.0;
          map_mean(snap, is_scaled(q), [&top](std::span<const float> row, int i) {
            for (std::size_t j = static_cast<std::size_t>(i) + 1; j < row.size(); ++j)
              top = std::max(top, static_cast<double>(row[j]));
            return 0.0;
          });
          return top;
        });
    // ── The Monte Carlo d_k sweep (means) ──
    add({"dk_entropy", "mean row entropy at d_k = `at`", "scaled|unscaled", false, true},
        [](const Snapshot& snap, const ClaimQuantity& q) { return dk_point(snap, q, &RowStats::entropy_nats); });
    add({"dk_max_weight", "mean max weight at d_k = `at`", "scaled|unscaled", false, true},
        [](const Snapshot& snap, const ClaimQuantity& q) { return dk_point(snap, q, &RowStats::max_weight); });
    add({"dk_jacobian_norm", "mean ‖J‖_F at d_k = `at`", "scaled|unscaled", false, true},
        [](const Snapshot& snap, const ClaimQuantity& q) { return dk_point(snap, q, &RowStats::jacobian_norm); });
    // ── Normalizers lab ──
    add({"normalizer_weight", "weight `index` of a normaliser",
         "softmax|naive_softmax|online_softmax|hardmax|linear|sigmoid|relu|sparsemax|entmax", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(NormalizersLab);
          for (const NormalizerColumn& column : lab_->columns)
            if (normalizer_name(column.kind) == q.series) return element(column.result.weights, q.index);
          return missing("no normaliser " + q.series);
        });
    add({"small_gap_softmax_ratio", "largest/smallest softmax weight of 2.0, 2.1, 2.2", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(NormalizersLab);
          return lab_->small_gap.softmax_ratio;
        });
    add({"small_gap_linear_ratio", "largest/smallest x/Σx weight of 2.0, 2.1, 2.2", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(NormalizersLab);
          return lab_->small_gap.linear_ratio;
        });
    // ── Stability lab (the selected format) ──
    add({"stability_bad_weights", "NaN + inf + zeroed weights of a variant in the selected format",
         "naive|stable|online", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return lab_->selected().run(softmax_variant(q)).problem_count();
        });
    add({"stability_nan", "NaN weights of a variant in the selected format", "naive|stable|online", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return lab_->selected().run(softmax_variant(q)).report.nan_count;
        });
    add({"stability_weight", "weight `index` of a variant in the selected format", "naive|stable|online", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return element(lab_->selected().run(softmax_variant(q)).weights, q.index);
        });
    add({"online_running_max", "online softmax's running max after key `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return element(lab_->online_running_max, q.index);
        });
    add({"online_running_sum", "online softmax's running sum after key `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return element(lab_->online_running_sum, q.index);
        });
    add({"stability_sum_error", "|Σw − 1| of a variant in the selected format", "naive|stable|online", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return lab_->selected().run(softmax_variant(q)).report.sum_error;
        });
    add({"exp_limit", "largest x with exp(x) finite in a format", "fp64|fp32|fp16|bf16|fp8-e4m3|fp8-e5m2", false,
         false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          const auto format = format_from_name(q.series);
          if (!format) return missing("no format " + q.series);
          return lab_->format(*format).largest_finite_exp_input;
        });
    add({"format_max_finite", "largest finite number of a format", "fp64|fp32|fp16|bf16|fp8-e4m3|fp8-e5m2", false,
         false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          const auto format = format_from_name(q.series);
          if (!format) return missing("no format " + q.series);
          return lab_->format(*format).max_finite;
        });
    add({"format_bad_weights",
         "NaN + inf + zeroed weights of variant `index` (0 naive, 1 stable, 2 online) in a format",
         "fp64|fp32|fp16|bf16|fp8-e4m3|fp8-e5m2", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          const auto format = format_from_name(q.series);
          if (!format) return missing("no format " + q.series);
          if (q.index < 0 || q.index > 2) return missing("no variant " + std::to_string(q.index) + " (0, 1 or 2)");
          return lab_->format(*format).runs[static_cast<std::size_t>(q.index)].problem_count();
        });
    add({"max_logit", "largest logit x/T of the stability lab's row", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(StabilityLab);
          return lab_->max_logit;
        });
    add({"stability_map_nan_rows", "rows of the fp16 map holding a NaN", "naive|stable", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return (q.series == "naive" ? lab_->naive_fp16 : lab_->stable_fp16).nan_rows;
        });
    add({"stability_map_nan_cells", "NaN cells of the fp16 map", "naive|stable", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          return (q.series == "naive" ? lab_->naive_fp16 : lab_->stable_fp16).nan_cells;
        });
    add({"stability_map_bad_cells", "NaN + inf + zeroed cells of the fp16 map", "naive|stable", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(StabilityLab);
          const StabilityMap& map = q.series == "naive" ? lab_->naive_fp16 : lab_->stable_fp16;
          return map.nan_cells + map.inf_cells + map.underflow_cells;
        });
    add({"stability_map_cells", "cells of the fp16 maps", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(StabilityLab);
          return static_cast<double>(lab_->map_size) * lab_->map_size;
        });
    add({"stability_map_max_logit", "largest logit of the fp16 maps", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(StabilityLab);
          return lab_->map_max_logit;
        });
    // ── Temperature lab ──
    add({"entropy_curve_first", "H at T = 0.01 (the curve's left end)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TemperatureLab);
          return lab_->curve_entropy_nats.empty() ? kNaN : lab_->curve_entropy_nats.front();
        });
    add({"entropy_curve_last", "H at T = 100 (the curve's right end)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TemperatureLab);
          return lab_->curve_entropy_nats.empty() ? kNaN : lab_->curve_entropy_nats.back();
        });
    add({"nudge_softmax_top", "softmax weight of the leader at the current nudge", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TemperatureLab);
          return lab_->current_softmax_top;
        });
    add({"nudge_softmax_second", "softmax weight of the runner-up at the current nudge", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TemperatureLab);
          return lab_->current_softmax_second;
        });
    add({"nudge_hardmax_second", "argmax weight of the runner-up at the current nudge", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TemperatureLab);
          return lab_->current_hardmax_second;
        });
    add({"nudge_swap_width",
         "nudge range over which the leader's softmax weight falls from 90% to 10% of its swing (as the nudge plot "
         "marks it)",
         "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TemperatureLab);
          return lab_->swap_to - lab_->swap_from;
        });
    // ── Gradients lab ──
    add({"gradients_stall_scale", "score scale from which ‖J‖_F < 1% of its peak", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(GradientsLab);
          return lab_->has_stall ? lab_->stall_scale : std::numeric_limits<double>::infinity();
        });
    add({"gradients_peak_norm", "largest ‖J‖_F over the score-scale sweep", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(GradientsLab);
          return lab_->sweep_peak_norm;
        });
    add({"gradients_peak_scale", "score scale where ‖J‖_F peaks over the sweep", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(GradientsLab);
          return lab_->sweep_peak_scale;
        });
    add({"gradients_max_abs_entry", "max |J_ij| of the row", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(GradientsLab);
          return lab_->max_abs_entry;
        });
    // ── Scaling lab ──
    add({"histogram_variance", "sample variance of q·k (unscaled) or q·k/√d_k (scaled)", "scaled|unscaled", false,
         false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(ScalingLab);
          return (is_scaled(q) ? lab_->scaled : lab_->unscaled).variance;
        });
    // ── Attention-variants lab ──
    add({"variant_entropy_ratio", "mean row entropy / ln L' of a variant's map",
         "dot|scaled_dot|cosine|additive|layer_norm", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(AttentionVariantsLab);
          const int v = score_variant(q);
          if (v >= 5) return missing("no variant " + q.series);
          return lab_->entropy_nats[static_cast<std::size_t>(v)] / lab_->max_entropy_nats;
        });
    add({"variant_max_weight", "mean max weight of a variant's map", "dot|scaled_dot|cosine|additive|layer_norm", false,
         false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(AttentionVariantsLab);
          const int v = score_variant(q);
          if (v >= 5) return missing("no variant " + q.series);
          return lab_->mean_max_weight[static_cast<std::size_t>(v)];
        });
    // ── Positions lab ──
    add({"position_entropy_ratio", "mean row entropy / its maximum, positions-only map", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(PositionsLab);
          return lab_->position_entropy_ratio_now;
        });
    add({"position_max_weight", "mean max weight, positions-only map", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(PositionsLab);
          return lab_->position_max_weight;
        });
    // ── Heads lab (the shown row) ──
    add({"head_row_entropy_max", "largest row entropy of a single head", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(HeadsLab);
          const auto& h = lab_->head_row_entropy_nats;
          return h.empty() ? kNaN : *std::max_element(h.begin(), h.end());
        });
    add({"average_row_entropy", "row entropy of the heads' average", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(HeadsLab);
          return lab_->average_row_entropy_nats;
        });
    add({"head_mean_max_weight", "mean over heads of each map's mean max weight", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(HeadsLab);
          const auto& w = lab_->head_max_weight;
          double total = 0.0;
          for (double x : w) total += x;
          return w.empty() ? kNaN : total / static_cast<double>(w.size());
        });
    add({"distinct_head_argmaxes", "how many different keys the heads' row maxima point at", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(HeadsLab);
          return lab_->distinct_head_argmaxes;
        });
    // ── The attention story's labs ──
    add({"values_weight", "values lab: weight of key `index` for the shown query", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(ValuesLab);
          return element(lab_->weights, q.index);
        });
    add({"values_output", "values lab: coordinate `index` of the output o = Σ w_j v_j", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(ValuesLab);
          return element(lab_->output, q.index);
        });
    // The key the shown query weights most (ties: the lower index), and its weight: what the weights
    // plot writes over that key's bar ("key 5: 0.116"), so a text can name the key at any seed.
    add({"values_top_key", "values lab: the key the shown query weights most", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(ValuesLab);
          if (lab_->weights.empty()) return kNaN;
          return static_cast<double>(std::max_element(lab_->weights.begin(), lab_->weights.end()) -
                                     lab_->weights.begin());
        });
    add({"values_top_weight", "values lab: the largest weight of the shown query", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(ValuesLab);
          if (lab_->weights.empty()) return kNaN;
          return *std::max_element(lab_->weights.begin(), lab_->weights.end());
        });
    add({"values_distance_to_argmax", "values lab: max_c |o_c − v_top,c| (0 as T → 0)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(ValuesLab);
          double out = 0.0;
          for (std::size_t c = 0; c < lab_->output.size(); ++c)
            out = std::max(out, std::abs(lab_->output[c] - lab_->argmax_value[c]));
          return out;
        });
    add({"values_distance_to_mean", "values lab: max_c |o_c − mean_j v_jc| (0 as T → ∞)", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(ValuesLab);
          double out = 0.0;
          for (std::size_t c = 0; c < lab_->output.size(); ++c)
            out = std::max(out, std::abs(lab_->output[c] - lab_->value_mean[c]));
          return out;
        });
    add({"values_concat_vs_average", "values lab: max |concat·W_O − average-of-maps output|", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(ValuesLab);
          return lab_->concat_vs_average_difference;
        });
    // The same gap on the one query the multi-head plot draws (its bars): what a text can point at.
    add({"values_concat_vs_average_row", "values lab: max_c |concat·W_O − average-of-maps| of the shown query", "",
         false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(ValuesLab);
          const MultiHeadAttention& heads = lab_->multi_head;
          const int row = std::min(lab_->settings.row, heads.seq_len - 1);
          double out = 0.0;
          for (int c = 0; c < heads.model_dim; ++c)
            out = std::max(out, std::abs(heads.output(row, c) - heads.averaged_map_output(row, c)));
          return out;
        });
    add({"sampling_probability", "sampling lab: softmax(z/T) of token `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(SamplingLab);
          return element(lab_->probabilities, q.index);
        });
    add({"sampling_frequency", "sampling lab: share of the draws on token `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(SamplingLab);
          return element(lab_->frequencies, q.index);
        });
    add({"sampling_kept", "sampling lab: tokens kept by a filter", "top_k|top_p", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(SamplingLab);
          return q.series == "top_k" ? lab_->top_k_kept : lab_->top_p_kept;
        });
    add({"sampling_entropy", "sampling lab: entropy of softmax(z/T) in nats", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(SamplingLab);
          return lab_->entropy_nats;
        });
    add({"sampling_kd_loss", "sampling lab: distillation loss T²·KL at T", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(SamplingLab);
          return lab_->distillation.loss;
        });
    add({"loss_value", "loss lab: cross-entropy −log s_target", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(LossGradientsLab);
          return lab_->loss.loss;
        });
    add({"loss_gradient", "loss lab: ∂L/∂x of entry `index` ((s − y)/T)", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(LossGradientsLab);
          return element(lab_->loss.gradient, q.index);
        });
    add({"loss_log_softmax", "loss lab: log-softmax of entry `index`", "stable|naive", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(LossGradientsLab);
          return element(q.series == "naive" ? lab_->loss.naive_log_softmax : lab_->loss.log_softmax, q.index);
        });
    add({"loss_naive_infinite", "loss lab: entries where log(softmax) is −inf", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(LossGradientsLab);
          return lab_->loss.naive_infinite_count;
        });
    add({"qk_gradient_median", "loss lab: median ‖∂L/∂q‖ at d_k = `at` (series: loss and scaling)",
         "probe_scaled|probe_unscaled|target_scaled|target_unscaled", false, true},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(LossGradientsLab);
          const bool probe = q.series.rfind("probe", 0) == 0, scaled = q.series.ends_with("_scaled");
          const QkGradientSweep& sweep = probe ? lab_->probe : lab_->target;
          const auto found = std::find(sweep.key_dims.begin(), sweep.key_dims.end(), q.at);
          if (found == sweep.key_dims.end())
            return missing("d_k " + std::to_string(q.at) + " is not a point of the sweep");
          const auto k = static_cast<std::size_t>(found - sweep.key_dims.begin());
          return scaled ? sweep.scaled_query_norm_median[k] : sweep.unscaled_query_norm_median[k];
        });
    add({"geometry_dot", "geometry lab: q·k of key `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(GeometryLab);
          return element(lab_->alignment.dots, q.index);
        });
    add({"geometry_cosine", "geometry lab: cos θ of key `index`", "", true, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(GeometryLab);
          return element(lab_->alignment.cosines, q.index);
        });
    add({"geometry_gradient_max", "geometry lab: largest ‖∂cos/∂q‖ over ‖q‖ ∈ [1e-8, 10]", "naive|epsilon", false,
         false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(GeometryLab);
          const auto& v = q.series == "naive" ? lab_->sweep_gradient_naive : lab_->sweep_gradient_epsilon;
          return v.empty() ? kNaN : *std::max_element(v.begin(), v.end());
        });
    add({"geometry_tanh_derivative", "geometry lab: mean tanh′ of additive attention at the current σ",
         "plain|layer_norm", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(GeometryLab);
          return q.series == "plain" ? lab_->plain_now.mean_derivative : lab_->normed_now.mean_derivative;
        });
    add({"init_last_variance", "init lab: variance after the last layer", "measured|predicted", false, false},
        [](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
          NEED(InitLab);
          return q.series == "measured" ? lab_->measured_variance.back() : lab_->predicted_variance.back();
        });
    // ── Training lab (series: the run, a = A … d = D; numbers as its notes and plots show them) ──
    const auto training = [&add](std::string_view name, std::string_view meaning,
                                 std::function<double(const TrainingRun&)> value) {
      add({name, meaning, "a|b|c|d", false, false},
          [value](const Snapshot& snap, const ClaimQuantity& q) -> Result<double> {
            const Result<const TrainingRun*> run = training_run(snap, q);
            if (!run) return run.error();
            return value(**run);
          });
    };
    training("train_steps_to_90", "training lab: mean steps to 90% accuracy over the run's seeds",
             [](const TrainingRun& r) { return r.steps_to_90; });
    training("train_steps_to_90_se", "training lab: standard error of the steps to 90%",
             [](const TrainingRun& r) { return r.steps_to_90_se; });
    training("train_steps_to_90_median",
             "training lab: median steps to 90% accuracy over the run's seeds (inf: half never got there)",
             [](const TrainingRun& r) { return r.steps_to_90_median; });
    training("train_reached_90", "training lab: seeds of the run that reached 90%",
             [](const TrainingRun& r) { return static_cast<double>(r.reached_90); });
    training("train_final_accuracy", "training lab: accuracy, mean of the last 20 batches and the seeds",
             [](const TrainingRun& r) { return r.final_accuracy; });
    training("train_final_loss", "training lab: loss, mean of the last 20 batches and the seeds",
             [](const TrainingRun& r) { return r.final_loss; });
    training("train_start_loss", "training lab: mean loss at step 1",
             [](const TrainingRun& r) { return r.start_loss; });
    training("train_start_max_weight", "training lab: mean max weight at step 1",
             [](const TrainingRun& r) { return r.start_max_weight; });
    training("train_start_saturated", "training lab: fraction of saturated rows at step 1",
             [](const TrainingRun& r) { return r.start_saturated; });
    training("train_start_grad_norm_q", "training lab: ‖∂L/∂Q‖ at step 1",
             [](const TrainingRun& r) { return r.start_grad_norm_q; });
    training(
        "train_first_nonfinite", "training lab: first step with a NaN or inf (inf: none)", [](const TrainingRun& r) {
          return r.first_nonfinite ? static_cast<double>(*r.first_nonfinite) : std::numeric_limits<double>::infinity();
        });
    training("train_nonfinite_seeds", "training lab: seeds that had a NaN or inf",
             [](const TrainingRun& r) { return static_cast<double>(r.nonfinite_seeds); });
    training("train_skipped_fraction", "training lab: fraction of the steps skipped (not finite)",
             [](const TrainingRun& r) { return r.skipped_fraction; });
    training("train_probe_match", "training lab: ideal match of the map drawn for the run's probe",
             [](const TrainingRun& r) { return r.shown_match; });
    add({"train_masked_weight_max", "training lab: largest weight on a later token in any head of the sentence", "",
         false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TrainingLab);
          const TrainingSentence& s = lab_->sentence;
          if (!s.error.empty()) return missing(s.error);
          double top = 0.0;
          for (int l = 0; l < s.layers; ++l)
            for (int h = 0; h < s.heads; ++h)
              for (int i = 0; i < s.length; ++i)
                for (int j = i + 1; j < s.length; ++j)
                  top = std::max(top, static_cast<double>(s.map(l, h)[i * s.length + j]));
          return top;
        });
    add({"train_next_token_top", "training lab: probability of the most likely next token", "", false, false},
        [](const Snapshot& snap, const ClaimQuantity&) -> Result<double> {
          NEED(TrainingLab);
          const TrainingSentence& s = lab_->sentence;
          if (s.top.empty()) return missing("the sentence has no next-token distribution");
          return s.probabilities[static_cast<std::size_t>(s.top.front())];
        });
    add({"homework_answer", "the answer of homework exercise `index` (smlab/labs/homework.hpp, in its order)", "", true,
         false},
        [](const Snapshot&, const ClaimQuantity& q) -> Result<double> {
          std::vector<double> answers;
          for (const Exercise& exercise : homework_exercises()) answers.push_back(exercise.answer);
          return element(answers, q.index);
        });
    return t;
  }();
  return table;
}

#undef NEED

// [SECTION] Table look-up, series lists, number text

const Entry* find_entry(std::string_view name) {
  for (const Entry& entry : entries())
    if (entry.info.name == name) return &entry;
  return nullptr;
}

bool series_allowed(std::string_view allowed, std::string_view series) {
  if (allowed.empty()) return series.empty();
  std::size_t start = 0;
  while (start <= allowed.size()) {
    const std::size_t bar = allowed.find('|', start);
    const std::string_view option =
        allowed.substr(start, bar == std::string_view::npos ? std::string_view::npos : bar - start);
    if (option == series) return true;
    if (bar == std::string_view::npos) break;
    start = bar + 1;
  }
  return false;
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.6g", value);
  return text;
}

}  // namespace

// [SECTION] Checking claims: the quantity list, check_claim_quantity, check_claim

std::span<const ClaimQuantityInfo> claim_quantities() {
  static const std::vector<ClaimQuantityInfo> infos = [] {
    std::vector<ClaimQuantityInfo> out;
    for (const Entry& entry : entries()) out.push_back(entry.info);
    return out;
  }();
  return infos;
}

Result<void> check_claim_quantity(const ClaimQuantity& q) {
  const Entry* entry = find_entry(q.quantity);
  if (entry == nullptr) {
    std::string names;
    for (const Entry& e : entries()) names += (names.empty() ? "" : ", ") + std::string(e.info.name);
    return Error::usage("quantity '" + shown_text(q.quantity) + "' is not known: allowed " + names);
  }
  if (!series_allowed(entry->info.series, q.series))
    return Error::usage("quantity " + q.quantity + " series '" + shown_text(q.series) + "': allowed " +
                        (entry->info.series.empty() ? std::string("none") : std::string(entry->info.series)));
  if (entry->info.needs_index != (q.index >= 0))
    return Error::usage("quantity " + q.quantity +
                        (entry->info.needs_index ? " needs an \"index\" ≥ 0" : " takes no \"index\""));
  if (entry->info.needs_at != (q.at > 0))
    return Error::usage("quantity " + q.quantity +
                        (entry->info.needs_at ? " needs \"at\" (a d_k of the sweep)" : " takes no \"at\""));
  return {};
}

Result<void> check_claim(const LessonClaim& claim) {
  if (Result<void> checked = check_claim_quantity(claim.left); !checked.ok()) return checked;
  if (claim.op != "<" && claim.op != "<=" && claim.op != ">" && claim.op != ">=" && claim.op != "~")
    return Error::usage("op '" + claim.op.substr(0, 10) + "': allowed <, <=, >, >=, ~");
  if (claim.op == "~" && !(claim.tolerance > 0.0)) return Error::usage("op ~ needs a \"tolerance\" > 0");
  if (claim.op != "~" && claim.tolerance != 0.0) return Error::usage("\"tolerance\" goes with op ~ only");
  if (!std::isfinite(claim.value) || !std::isfinite(claim.times) || !std::isfinite(claim.tolerance))
    return Error::usage("value, times and tolerance must be finite numbers");
  if (claim.than) return check_claim_quantity(*claim.than);
  return {};
}

// [SECTION] Evaluating claims against a Snapshot

Result<double> claim_value(const Snapshot& snap, const ClaimQuantity& quantity) {
  const Entry* entry = find_entry(quantity.quantity);
  if (entry == nullptr) return Error::usage("unknown quantity " + quantity.quantity);
  return entry->read(snap, quantity);
}

std::optional<View> claim_quantity_lab(const ClaimQuantity& quantity) {
  static const Snapshot bare;  // no lab evaluated: a reader that needs one says which
  std::optional<View> lab;
  asked_lab = &lab;
  (void)claim_value(bare, quantity);
  asked_lab = nullptr;
  return lab;
}

Result<ClaimReading> claim_reading(const Snapshot& snap, const ClaimQuantity& quantity, const DkSweep* drawn_sweep) {
  const auto member = dk_member(quantity.quantity);
  if (member == nullptr) {
    const Result<double> value = claim_value(snap, quantity);
    if (!value.ok()) return value.error();
    return ClaimReading{*value, std::nullopt, 0, true};
  }
  const DkSweep& sweep =
      drawn_sweep != nullptr && drawn_sweep->config == snap.dk_sweep.config ? *drawn_sweep : snap.dk_sweep;
  const Result<const RunningStats*> stats = dk_statistic(sweep, quantity, member);
  if (!stats) return stats.error();
  const RunningStats& point = **stats;
  return ClaimReading{point.mean, point.standard_error(), sweep.trials, monte_carlo_converged(point)};
}

std::string describe(const ClaimQuantity& q) {
  std::string text = q.quantity;
  if (!q.series.empty()) text += "[" + q.series + "]";
  if (q.index >= 0) text += "[" + std::to_string(q.index) + "]";
  if (q.at > 0) text += "@d_k=" + std::to_string(q.at);
  return text;
}

ClaimOutcome evaluate_claim(const Snapshot& snap, const LessonClaim& claim) {
  ClaimOutcome outcome;
  const Result<double> left = claim_value(snap, claim.left);
  if (!left.ok()) {
    outcome.error = left.error().message;
    return outcome;
  }
  outcome.value = *left;
  outcome.bound = claim.value;
  std::string bound_text = number(claim.value);
  if (claim.than) {
    const Result<double> right = claim_value(snap, *claim.than);
    if (!right.ok()) {
      outcome.error = right.error().message;
      return outcome;
    }
    outcome.bound = claim.times * *right;
    bound_text =
        (claim.times != 1.0 ? number(claim.times) + "×" : "") + describe(*claim.than) + " = " + number(outcome.bound);
  }
  const double v = outcome.value, b = outcome.bound;
  if (claim.op == "<")
    outcome.holds = v < b;
  else if (claim.op == "<=")
    outcome.holds = v <= b;
  else if (claim.op == ">")
    outcome.holds = v > b;
  else if (claim.op == ">=")
    outcome.holds = v >= b;
  else
    outcome.holds = std::abs(v - b) <= claim.tolerance;
  outcome.description = describe(claim.left) + " = " + number(v) + " " + claim.op + " " + bound_text +
                        (claim.op == "~" ? " ± " + number(claim.tolerance) : "") + ": " +
                        (outcome.holds ? "true" : "false");
  return outcome;
}

}  // namespace smlab::app
