// The numbers behind the normalizers lab: one score vector sent through softmax and its relatives
// side by side, with what is wrong with each output; and the row every row-based lab starts from.
#pragma once

#include <array>
#include <vector>

#include "smlab/normalizers.hpp"
#include "smlab/params.hpp"
#include "smlab/shown_row.hpp"

namespace smlab {

// ─── The selected row, shared by the row-based labs (normalizers, temperature, gradients) ─────

// The score vector the dashboard shows for `params` (Snapshot::scores, causal mask included),
// length n: shown_row(params).scores (smlab/shown_row.hpp), for callers that have Params and no
// Snapshot (a gesture that turns the row into custom scores). Requires validate(params).
void selected_row_scores(std::vector<double>& scores, const Params& params);

// The same, plus the row before × score_scale from the same draw: what the user edits
// (Params::scores when custom, otherwise q_row·k_j ÷ √d_k, −inf on masked keys).
void selected_row_scores(std::vector<double>& scores, std::vector<double>& editable_scores, const Params& params);

// Plots of a row show at most this many entries (bars beyond it become slivers at ~300 px, and
// cost draw calls): a window of consecutive indices, see display_window.
inline constexpr std::size_t lab_max_shown_entries = 64;

// The half-open index range [begin, end) a plot of `scores` shows: every entry when
// n ≤ max_count, otherwise the max_count consecutive entries centred on the largest score (the
// first on ties; a window that would leave the row is shifted back inside it), so the entries that
// carry the weight are on screen. Shapes: n ≥ 1 scores, max_count ≥ 1.
struct IndexWindow {
  std::size_t begin = 0, end = 0;
  std::size_t size() const { return end - begin; }
};
IndexWindow display_window(std::span<const double> scores, std::size_t max_count = lab_max_shown_entries);

// ─── The lab ──────────────────────────────────────────────────────────────────────────────────

// One normaliser's output on the lab's scores. `result` has every check the lab marks: defined,
// Σ and sums_to_one, has_negative, exact_zeros, and the issue with its one-sentence reason.
struct NormalizerColumn {
  Normalizer kind = Normalizer::softmax;
  NormalizerResult result;
  // Largest weight / smallest weight: how strongly the normaliser separates the scores. +inf when
  // the smallest weight is an exact 0 (sparsemax, hardmax, ReLU, or an underflow); NaN when it is
  // not a ratio of two shares (undefined, or a negative weight).
  double max_to_min_ratio = 0.0;
};

// The small-gap example: scores 2.0, 2.1, 2.2 (× score_scale), at the lab's T.
// exp turns a difference into a ratio: softmax weights are in the ratio e^{Δ/T} whatever the
// scores' size, so the 0.2 gap becomes e^{0.2·c/T} (1.22 at c = T = 1, 7.4 at T = 0.1), while
// x/Σx keeps the ratio of the scores themselves, 2.2/2.0 = 1.1, at every T.
inline constexpr std::array<double, 3> small_gap_scores{2.0, 2.1, 2.2};

struct SmallGapExample {
  std::array<double, 3> scores{};  // c · small_gap_scores, c = score_scale
  std::array<double, 3> softmax_weights{}, linear_weights{};
  // Largest/smallest softmax weight = e^{0.2·c/T}: the ratio of the weights while the smaller is a
  // normal double, else e^{Δ/T} from the score difference (the weights' ratio would be 0/0 or x/0
  // once the smallest underflows, c/T above ~3700); +inf when the ratio itself is beyond double
  // range (0.2·c/T > ln(DBL_MAX) ≈ 709.8).
  double softmax_ratio = 0.0;
  double linear_ratio = 0.0;  // largest/smallest linear weight = 1.1
  // The ratio w(2.0 + g)/w(2.0) of two scores a gap g apart (× c), for g on [0, 1]: softmax's is
  // e^{g·c/T}, reaching e at g = 1 when c = T = 1, wherever the scores sit; x/Σx's is
  // (2 + g)/2, which depends on where zero is. gap_ratio_points values, g evenly spaced; softmax's
  // as softmax_ratio is made, and only as many as double range holds (the first ones, since the
  // ratio grows with g): a point beyond it is left out, never inf or NaN, and
  // softmax_gap_ratio.size() < gaps.size() says so.
  std::vector<double> gaps, softmax_gap_ratio, linear_gap_ratio;
  // The three scores' softmax ratios to the first, w_i/w_0 = e^{(s_i − s_0)/T}, at gaps 0, 0.1 and
  // 0.2, made as softmax_ratio is: those beyond double range left out.
  std::vector<double> softmax_point_gaps, softmax_point_ratios;
};
inline constexpr int gap_ratio_points = 51;

// The normalisers the lab shows, in display order (the list: no naive/online softmax,
// which are the stability lab's).
inline constexpr std::array<Normalizer, 7> lab_normalizers{
    Normalizer::softmax, Normalizer::linear,  Normalizer::sparsemax, Normalizer::entmax,
    Normalizer::hardmax, Normalizer::sigmoid, Normalizer::relu};

struct NormalizersLab {
  bool custom_scores = false;           // Params::scores was set (otherwise the QKᵀ row)
  std::vector<double> editable_scores;  // before × score_scale: what dragging a bar edits (length n)
  std::vector<double> scores;           // score_scale · editable: what every normaliser receives (n)
  double score_scale = 1.0, temperature = 1.0, alpha = 1.5;
  IndexWindow shown;  // what the plots show: display_window(scores)
  // One column per entry of lab_normalizers, same order. Each covers all n scores.
  std::vector<NormalizerColumn> columns;
  SmallGapExample small_gap;
};

// Pure and deterministic: the same Params and row give the same NormalizersLab. `row` is the shown
// row (Snapshot::shown); the form without it makes shown_row(params) (O(L·d_k) draws). Cost
// O(n log n) for the normalisers. Requires validate(params).
void evaluate_normalizers_lab(NormalizersLab& out, const Params& params, const ShownRow& row);
void evaluate_normalizers_lab(NormalizersLab& out, const Params& params);

}  // namespace smlab
