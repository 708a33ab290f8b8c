// The shown row and the shown data's small maps, with the causal mask applied (smlab/shown_row.hpp).
#include "smlab/shown_row.hpp"

#include <cassert>
#include <cmath>

#include "smlab/import.hpp"
#include "smlab/snapshot.hpp"

namespace smlab {
namespace {

// Whether ÷√d_k means anything: d_k is known for random and imported Q, K, not for imported
// scores or weights.
bool key_dim_known(const Params& params) { return params.imported == nullptr || params.imported->key_dim > 0; }

ShownRow custom_row(const Params& params) {
  ShownRow row;
  row.custom = true;
  row.unit_scores = params.scores;
  row.scores = params.scores;
  for (double& s : row.scores) s *= params.score_scale;  // −inf stays −inf (scale > 0)
  row.visible = static_cast<int>(row.scores.size());
  return row;
}

// From the raw row q_row·k_j (or the stored scores): the scales, then the mask. The scores are
// raw · (score_scale / √d_k) in one multiplication, the bits the dashboard has always shown.
ShownRow row_of_raw(const Params& params, std::vector<double> raw) {
  ShownRow row;
  row.query = params.row;
  const double inverse_sqrt_dim =
      params.scaled && key_dim_known(params) ? 1.0 / std::sqrt(static_cast<double>(params.key_dim)) : 1.0;
  row.scores = raw;
  for (double& s : row.scores) s *= params.score_scale * inverse_sqrt_dim;
  row.unit_scores = std::move(raw);
  for (double& s : row.unit_scores) s *= inverse_sqrt_dim;
  mask_future_keys(std::span<double>(row.scores), params.causal, params.row);
  mask_future_keys(std::span<double>(row.unit_scores), params.causal, params.row);
  row.visible = visible_keys(params.causal, params.row, static_cast<int>(row.scores.size()));
  return row;
}

// The first `rows` rows of a (batch, head) slice of imported Q or K (d floats a row).
Matrix leading_rows(std::span<const float> slice, int rows, int dim) {
  return Matrix{rows, dim, std::vector<float>(slice.begin(), slice.begin() + static_cast<std::ptrdiff_t>(rows) * dim)};
}

}  // namespace

ShownRow shown_row(const Params& params, const ScoreCache& cache) {
  if (!params.scores.empty()) return custom_row(params);
  std::vector<double> raw(static_cast<std::size_t>(params.seq_len));
  if (cache.queries.rows > 0) {
    dot_product_row(raw, cache.queries, cache.keys, params.row);
  } else {  // imported scores (or ln weights): the stored row
    const auto first = cache.raw.values.begin() + static_cast<std::ptrdiff_t>(params.row) * cache.raw.cols;
    std::copy(first, first + cache.raw.cols, raw.begin());
  }
  return row_of_raw(params, std::move(raw));
}

ShownRow shown_row(const Params& params) {
  if (!params.scores.empty()) return custom_row(params);
  // Only what the row reads: queries 0 … row and every key, or the row of the scores.
  std::vector<double> raw(static_cast<std::size_t>(params.seq_len));
  if (params.imported == nullptr) {
    Matrix queries, keys;
    draw_gaussian(queries, params.seed, Stream::queries, params.row + 1, params.key_dim);
    draw_gaussian(keys, params.seed, Stream::keys, params.seq_len, params.key_dim);
    dot_product_row(raw, queries, keys, params.row);
  } else if (const ImportedAttention& imported = *params.imported;
             imported.kind == ImportedAttention::Kind::queries_keys) {
    const int dim = imported.key_dim;
    dot_product_row(
        raw, leading_rows(imported.slice(imported.queries, params.batch, params.head, dim), params.row + 1, dim),
        leading_rows(imported.slice(imported.keys, params.batch, params.head, dim), imported.length, dim), params.row);
  } else {
    const auto slice = imported.slice(imported.matrix, params.batch, params.head, imported.length);
    const auto first = slice.begin() + static_cast<std::ptrdiff_t>(params.row) * imported.length;
    std::copy(first, first + imported.length, raw.begin());
  }
  return row_of_raw(params, std::move(raw));
}

Matrix shown_map_scores(const Params& params, int size) {
  assert(size >= 1 && size <= params.seq_len);
  Matrix raw;
  if (params.imported == nullptr) {
    Matrix queries, keys;
    draw_gaussian(queries, params.seed, Stream::queries, size, params.key_dim);
    draw_gaussian(keys, params.seed, Stream::keys, size, params.key_dim);
    dot_product_scores(raw, queries, keys);
  } else {
    const ImportedAttention& imported = *params.imported;
    if (imported.kind == ImportedAttention::Kind::queries_keys) {
      const int dim = imported.key_dim;
      dot_product_scores(raw, leading_rows(imported.slice(imported.queries, params.batch, params.head, dim), size, dim),
                         leading_rows(imported.slice(imported.keys, params.batch, params.head, dim), size, dim));
    } else {
      const int length = imported.length;
      const auto slice = imported.slice(imported.matrix, params.batch, params.head, length);
      raw = Matrix{size, size, std::vector<float>(static_cast<std::size_t>(size) * static_cast<std::size_t>(size))};
      for (int i = 0; i < size; ++i)
        std::copy(slice.begin() + static_cast<std::ptrdiff_t>(i) * length,
                  slice.begin() + static_cast<std::ptrdiff_t>(i) * length + size,
                  raw.values.begin() + static_cast<std::ptrdiff_t>(i) * size);
    }
  }
  mask_future_keys(std::span<float>(raw.values), size, params.causal);
  return raw;
}

}  // namespace smlab
