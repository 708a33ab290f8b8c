// Scaled dot-product attention scores from seeded random queries and keys.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace smlab {

// A row-major rows×cols float matrix.
struct Matrix {
  int rows = 0;
  int cols = 0;
  std::vector<float> values;
  float operator()(int r, int c) const {
    return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
};

enum class Stream : std::uint64_t { queries = 1, keys = 2, values = 3, monte_carlo = 4 };

// Fills a rows×cols matrix with i.i.d. N(0, σ²) entries. Entry (r, c) depends only
// on (seed, stream, r, c), so growing d_k or L keeps every existing entry: dragging
// a slider adds coordinates instead of reshuffling the picture.
void draw_gaussian(Matrix& out, std::uint64_t seed, Stream stream, int rows, int cols, double sigma = 1.0);

// raw(i, j) = q_i · k_j for Q (L×d) and K (L×d); out is L×L row-major.
// No scaling: callers apply score_scale, 1/√d_k and 1/T.
void dot_product_scores(Matrix& out, const Matrix& queries, const Matrix& keys);

// q_r · k_j for one query row, accumulated in double (the distribution plot's row).
void dot_product_row(std::span<double> out, const Matrix& queries, const Matrix& keys, int row);

}  // namespace smlab
