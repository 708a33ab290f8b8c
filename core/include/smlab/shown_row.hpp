// The row every view shows and the causal mask, each defined once: evaluate() makes the dashboard's
// row here, every lab that works on the shown row is handed it (views.hpp, row_lab_evaluator), and
// every map that honours Params::causal masks through mask_future_keys.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/params.hpp"

namespace smlab {

struct ScoreCache;

// ─── The causal mask ────────────────────────────────────────────────────────────────────────

// How many keys query `query` of a row of `length` keys may attend to: keys 0 … query with the
// causal mask (a query never looks ahead), all of them without it.
constexpr int visible_keys(bool causal, int query, int length) {
  return causal ? std::clamp(query + 1, 0, length) : length;
}

// Writes −inf over the keys `query` may not see: exp(−inf) = 0, so a softmax gives them exactly 0.
template <class T>
void mask_future_keys(std::span<T> row, bool causal, int query) {
  const auto length = static_cast<int>(row.size());
  std::fill(row.begin() + visible_keys(causal, query, length), row.end(), -std::numeric_limits<T>::infinity());
}

// The same for every row of a length × length row-major map of scores (row i is query i).
template <class T>
void mask_future_keys(std::span<T> map, int length, bool causal) {
  if (!causal) return;
  const auto width = static_cast<std::size_t>(length);
  for (int i = 0; i < length; ++i) mask_future_keys(map.subspan(static_cast<std::size_t>(i) * width, width), true, i);
}

// ─── The shown row ──────────────────────────────────────────────────────────────────────────

struct ShownRow {
  bool custom = false;  // Params::scores given: a vector with no position in a sequence, never masked
  int query = 0;        // the query row (Params::row); 0 when custom
  int visible = 0;      // keys the row may attend to: visible_keys(causal, query, n); n when custom
  // What the dashboard shows (Snapshot::scores), length n:
  //   custom:  score_scale · Params::scores
  //   row:     score_scale · q_row·k_j (÷ √d_k when scaled and d_k is known), −inf after `query`
  //            under the causal mask
  std::vector<double> scores;
  // The same before × score_scale (Params::scores, or q_row·k_j ÷ √d_k, masked alike): what dragging
  // a bar edits, and what the gradients lab's score-scale sweep multiplies.
  std::vector<double> unit_scores;
};

// The row for `params` from the Q and K (or the L×L scores) of `cache`, which must match the
// Params (ScoreCache::matches, or at least rows 0 … row of Q and every key): evaluate()'s row.
ShownRow shown_row(const Params& params, const ScoreCache& cache);

// The same from the Params alone, bit for bit: rows 0 … row of Q and all L keys drawn from the
// seed (an entry depends on (seed, stream, row, column) only), or the imported slice's. Cost
// O(L·d_k) normal draws (≈ 0.3 s at L = d_k = 4096, a few µs at the defaults). Requires validate().
ShownRow shown_row(const Params& params);

// The top-left size × size block of the shown data's raw scores q_i·k_j (dot_product_scores, float
// sums; imported scores or ln weights as stored), −inf above the diagonal under the causal mask:
// what a lab that builds its own small map of the shown data starts from. Random data: rows
// 0 … size − 1 of Q and K drawn from the seed. 1 ≤ size ≤ L. Requires validate(params).
Matrix shown_map_scores(const Params& params, int size);

}  // namespace smlab
