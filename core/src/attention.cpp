// Seeded Gaussian queries/keys and their dot-product score matrices.
#include "smlab/attention.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

#include "smlab/random.hpp"

namespace smlab {

void draw_gaussian(Matrix& out, std::uint64_t seed, Stream stream, int rows, int cols, double sigma) {
  out.rows = rows;
  out.cols = cols;
  out.values.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  for (int r = 0; r < rows; ++r) {
    float* row = out.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    // One Box–Muller pair per two columns, keyed by (row, pair) so entries never move.
    for (int c = 0; c < cols; c += 2) {
      const std::uint64_t pair_index = (static_cast<std::uint64_t>(r) << 32) | static_cast<std::uint64_t>(c / 2);
      const std::uint64_t bits = stream_seed(seed, static_cast<std::uint64_t>(stream), pair_index);
      const double radius = sigma * std::sqrt(-2.0 * std::log(uniform_open0(bits)));
      const double angle = 2.0 * std::numbers::pi * uniform_open0(mix64(bits));
      row[c] = static_cast<float>(radius * std::cos(angle));
      if (c + 1 < cols) row[c + 1] = static_cast<float>(radius * std::sin(angle));
    }
  }
}

void dot_product_scores(Matrix& out, const Matrix& queries, const Matrix& keys) {
  assert(queries.cols == keys.cols);
  const int length = queries.rows, keys_count = keys.rows, dim = queries.cols;
  out.rows = length;
  out.cols = keys_count;
  out.values.assign(static_cast<std::size_t>(length) * static_cast<std::size_t>(keys_count), 0.0f);
  // Kᵀ (d×L) makes the inner loop a contiguous axpy over keys, which compilers
  // vectorise without reassociating a float reduction.
  std::vector<float> keys_transposed(static_cast<std::size_t>(dim) * static_cast<std::size_t>(keys_count));
  for (int j = 0; j < keys_count; ++j)
    for (int c = 0; c < dim; ++c)
      keys_transposed[static_cast<std::size_t>(c) * keys_count + j] = keys(j, c);
  for (int i = 0; i < length; ++i) {
    float* out_row = out.values.data() + static_cast<std::size_t>(i) * keys_count;
    for (int c = 0; c < dim; ++c) {
      const float q = queries(i, c);
      const float* key_column = keys_transposed.data() + static_cast<std::size_t>(c) * keys_count;
      for (int j = 0; j < keys_count; ++j) out_row[j] += q * key_column[j];
    }
  }
}

void dot_product_row(std::span<double> out, const Matrix& queries, const Matrix& keys, int row) {
  assert(static_cast<int>(out.size()) == keys.rows && row >= 0 && row < queries.rows);
  for (int j = 0; j < keys.rows; ++j) {
    double sum = 0.0;
    for (int c = 0; c < queries.cols; ++c)
      sum += static_cast<double>(queries(row, c)) * static_cast<double>(keys(j, c));
    out[static_cast<std::size_t>(j)] = sum;
  }
}

}  // namespace smlab
