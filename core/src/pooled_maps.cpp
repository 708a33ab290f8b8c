// Both attention maps of a long context pooled by block maxima, straight from Q and K
// (pooled_attention_maps, snapshot.hpp): a chunk of query rows' scores through the QKᵀ kernel, then
// one pass per row that gives every cell's largest weight of both maps without writing a weight.
//
// [SECTION] Index
//   [SECTION] One row: the cells' largest weights at two logit scales
//   [SECTION] The three instruction sets
//   [SECTION] Chunks of pooled rows over the pool
#include "pooled_maps.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

#include "smlab/kernels.hpp"
#include "smlab/parallel.hpp"
#include "smlab/shown_row.hpp"
#include "vector_lanes.hpp"

namespace smlab {
namespace {

using namespace simd;

// [SECTION] One row: the cells' largest weights at two logit scales
// softmax_rows_fast (kernels.cpp, softmax_row) makes a row x of n scores into the weights
//   w_j = e_j · c_b,   e_j = exp((x_j − m_b)·s),   c_b = float(float(e^{(m_b − M)·s}) / Σ_b' e^{(m_b' − M)·s}·S_b'),
// for key j in block b (64 vectors), m_b the block's max, M the row's, S_b = Σ_{j∈b} e_j in a fixed
// order. A pooled cell wants max_j w_j over its keys. Float rounding is monotone and c_b ≥ 0, so
// over the keys of a cell that lie in one block, max_j (e_j·c_b) = (max_j e_j)·c_b bit for bit:
// the row needs every e_j (for S_b) but then only the maximum of e over each such piece and one
// multiply per piece, never the L weights (no store of the row, no normalising pass, no second
// read for the pooling). The two logit scales share the block maxima and the one read of x.
// Each step below is softmax_row's, in the same order, so the bits are the same (pooled_maps_test
// holds them together on every instruction set).
struct RowScratch {
  std::vector<float> block_shift;   // m_b (the lowest float for an all-−inf block)
  std::vector<float> block_sum[2];  // S_b per logit scale
  std::vector<float> piece_max[2];  // max e over each (cell ∩ block), in key order
  std::vector<float> exps[2];       // one block's e per logit scale (stays in L1)
  std::vector<float> block_weight;  // c_b of the scale being finished
  void size_for(int length, std::size_t block, int factor) {
    const std::size_t blocks = (static_cast<std::size_t>(length) + block - 1) / block;
    const std::size_t cells =
        (static_cast<std::size_t>(length) + static_cast<std::size_t>(factor) - 1) / static_cast<std::size_t>(factor);
    block_shift.resize(blocks);
    block_weight.resize(blocks);
    for (int s = 0; s < 2; ++s) {
      block_sum[s].resize(blocks);
      piece_max[s].resize(cells + blocks);
      exps[s].resize(block + 64);  // + a padded tail vector
    }
  }
};

// The largest of e[first … end), end > first. Overlapping loads are fine: max is idempotent.
template <int W>
[[gnu::always_inline]] inline float span_max(const float* e, std::size_t first, std::size_t end) {
  using F = typename Lanes<W>::Floats;
  if (end - first < W) {
    float top = e[first];
    for (std::size_t j = first + 1; j < end; ++j) top = e[j] > top ? e[j] : top;
    return top;
  }
  F top = load<F>(e + first);
  std::size_t j = first + W;
  for (; j + W <= end; j += W) {
    const F x = load<F>(e + j);
    top = x > top ? x : top;
  }
  if (j < end) {
    const F x = load<F>(e + end - W);
    top = x > top ? x : top;
  }
  return lane_reduce<W>(top, MaxLanes{});
}

// cells[s][c] for c < ⌈count / factor⌉: the largest weight of the row's keys in cell c (keys
// c·factor … c·factor + factor − 1, those below `count`) at logit scale scales[s]; NaN in every one
// of them when softmax_rows_fast makes the row NaN (a NaN or +inf score, or all −inf).
template <int W>
[[gnu::always_inline]] inline void pooled_row(float* cells0, float* cells1, const float* row, int cols,
                                              const float* scales, int factor, RowScratch& scratch) {
  using F = typename Lanes<W>::Floats;
  using I = typename Lanes<W>::Ints;
  constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
  constexpr std::size_t block = std::size_t{softmax_block_vectors} * W;
  constexpr std::size_t prefetch_distance = 1536;  // as softmax_row's
  const auto count = static_cast<std::size_t>(cols);
  const auto cell_width = static_cast<std::size_t>(factor);
  const std::size_t whole = count - count % W;
  const std::size_t blocks = (count + block - 1) / block;
  float* const exps[2] = {scratch.exps[0].data(), scratch.exps[1].data()};
  const float scale0 = scales[0], scale1 = scales[1];

  float max_score = minus_infinity;
  std::size_t piece = 0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t start = b * block, stop = std::min(whole, start + block);
    const bool has_tail = start + block > whole && whole < count;
    float tail[W];
    if (has_tail) {
      std::fill(tail, tail + W, minus_infinity);
      std::copy(row + whole, row + count, tail);
    }

    // Sweep 1: the block max, as softmax_row finds it (block_max, vector_lanes.hpp).
    const float top = block_max<W>(row, start, stop, has_tail ? tail : nullptr);
    max_score = std::max(max_score, top);
    const float shift = std::max(top, std::numeric_limits<float>::lowest());
    scratch.block_shift[b] = shift;

    // Sweep 2: e at both scales from one read of x (from L1), summed as softmax_row sums them,
    // kept for this block only.
    const F shift_splat = splat<F>(shift);
    F sums0[4] = {}, sums1[4] = {};
    std::size_t c = start;
    for (; c + 4 * W <= stop; c += 4 * W) {
      for (int k = 0; k < 4 * W; k += 16)
        __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(row + c + k) +
                                                         prefetch_distance * sizeof(float)));
      for (int k = 0; k < 4; ++k) {
        const F x = load<F>(row + c + k * W) - shift_splat;
        const F e0 = exp_vector<F, I, false>(x * scale0);
        const F e1 = exp_vector<F, I, false>(x * scale1);
        store(exps[0] + (c - start) + k * W, e0);
        store(exps[1] + (c - start) + k * W, e1);
        sums0[k] += e0;
        sums1[k] += e1;
      }
    }
    for (; c < stop; c += W) {
      const F x = load<F>(row + c) - shift_splat;
      const F e0 = exp_vector<F, I, false>(x * scale0);
      const F e1 = exp_vector<F, I, false>(x * scale1);
      store(exps[0] + (c - start), e0);
      store(exps[1] + (c - start), e1);
      sums0[0] += e0;
      sums1[0] += e1;
    }
    if (has_tail) {
      const F x = load<F>(tail) - shift_splat;
      const F e0 = exp_vector<F, I, false>(x * scale0);
      const F e1 = exp_vector<F, I, false>(x * scale1);
      store(exps[0] + (whole - start), e0);
      store(exps[1] + (whole - start), e1);
      sums0[0] += e0;
      sums1[0] += e1;
    }
    scratch.block_sum[0][b] = lane_reduce<W>((sums0[0] + sums0[1]) + (sums0[2] + sums0[3]), SumLanes{});
    scratch.block_sum[1][b] = lane_reduce<W>((sums1[0] + sums1[1]) + (sums1[2] + sums1[3]), SumLanes{});

    // The largest e of each cell's piece of this block.
    const std::size_t block_end = std::min(start + block, count);
    for (std::size_t cell_first = start - start % cell_width; cell_first < block_end; cell_first += cell_width) {
      const std::size_t first = std::max(cell_first, start) - start;
      const std::size_t end = std::min(cell_first + cell_width, block_end) - start;
      scratch.piece_max[0][piece] = span_max<W>(exps[0], first, end);
      scratch.piece_max[1][piece] = span_max<W>(exps[1], first, end);
      ++piece;
    }
  }

  for (int s = 0; s < 2; ++s) {
    float* const cells = s == 0 ? cells0 : cells1;
    const float scale = scales[s];
    const std::size_t cell_count = (count + cell_width - 1) / cell_width;
    // c_b as softmax_row computes it: the block's factor in double, kept as a float, times 1/sum.
    double sum = 0.0;
    for (std::size_t b = 0; b < blocks; ++b) {
      const float shift = scratch.block_shift[b];
      const double factor_b = shift == max_score ? 1.0 : std::exp((static_cast<double>(shift) - max_score) * scale);
      scratch.block_weight[b] = static_cast<float>(factor_b);
      sum += factor_b * scratch.block_sum[s][b];
    }
    if (!std::isfinite(max_score) || std::isnan(sum)) {
      std::fill(cells, cells + cell_count, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    const double inverse_sum = 1.0 / sum;
    piece = 0;
    for (std::size_t b = 0; b < blocks; ++b) {
      const float weight = static_cast<float>(scratch.block_weight[b] * inverse_sum);
      const std::size_t start = b * block, block_end = std::min(start + block, count);
      for (std::size_t cell_first = start - start % cell_width; cell_first < block_end; cell_first += cell_width) {
        const float top = scratch.piece_max[s][piece++] * weight;
        const std::size_t cell = cell_first / cell_width;
        // A cell's first piece sets it; one that began in the block before takes the larger.
        cells[cell] = cell_first >= start || cells[cell] < top ? top : cells[cell];
      }
    }
  }
}

// [SECTION] The three instruction sets
using PooledRowKernel = void (*)(float* cells0, float* cells1, const float* row, int cols, const float* scales,
                                 int factor, RowScratch& scratch);

#if defined(__x86_64__) || defined(__i386__)
#define SMLAB_X86_TARGET(isa) [[gnu::target(isa)]]
#else
#define SMLAB_X86_TARGET(isa)  // one instruction set: the calls below are never taken
#endif
SMLAB_X86_TARGET("avx512f,fma")
void pooled_row_avx512(float* cells0, float* cells1, const float* row, int cols, const float* scales, int factor,
                       RowScratch& scratch) {
  pooled_row<16>(cells0, cells1, row, cols, scales, factor, scratch);
}
SMLAB_X86_TARGET("avx2,fma")
void pooled_row_avx2(float* cells0, float* cells1, const float* row, int cols, const float* scales, int factor,
                     RowScratch& scratch) {
  pooled_row<8>(cells0, cells1, row, cols, scales, factor, scratch);
}
void pooled_row_sse2(float* cells0, float* cells1, const float* row, int cols, const float* scales, int factor,
                     RowScratch& scratch) {
  pooled_row<4>(cells0, cells1, row, cols, scales, factor, scratch);
}

// The kernel and its lane count for the set softmax_rows_fast would use (kernel_isa_name).
PooledRowKernel pooled_row_kernel(KernelIsa isa, int& lanes) {
  const std::string_view name = kernel_isa_name(isa);
  if (name == "avx512") {
    lanes = 16;
    return pooled_row_avx512;
  }
  if (name == "avx2") {
    lanes = 8;
    return pooled_row_avx2;
  }
  lanes = 4;
  return pooled_row_sse2;
}

}  // namespace

// [SECTION] Chunks of pooled rows over the pool

void pool_attention_maps(PooledMaps& out, const Matrix& queries, const Matrix& keys, double scaled_logit_scale,
                         double unscaled_logit_scale, bool causal, int factor, int queries_per_cell,
                         const std::stop_token& stop, const Progress& progress, KernelIsa isa) {
  const int length = queries.rows;
  out.factor = factor;
  out.side = (length + factor - 1) / factor;
  const auto side = static_cast<std::size_t>(out.side);
  out.scaled.assign(side * side, 0.0f);
  out.unscaled.assign(side * side, 0.0f);
  out.max_weight = 0.0f;
  if (length <= 0) return;
  int lanes = 4;
  const PooledRowKernel kernel = pooled_row_kernel(isa, lanes);
  // softmax_rows_fast takes its scale as a float; so do these.
  const float scales[2] = {static_cast<float>(scaled_logit_scale), static_cast<float>(unscaled_logit_scale)};
  // Chunks of whole pooled rows, about 128 queries: their scores are ≤ 128·L floats per thread
  // (16 MiB at L = 32768), and the QKᵀ kernel packs all of K once per chunk, which at 128 rows
  // is a few percent of the chunk's product.
  const int cells_per_chunk = std::max(1, 128 / queries_per_cell);
  const int chunks = (out.side + cells_per_chunk - 1) / cells_per_chunk;
  // Chunks are taken in turn by whichever thread is free (a core busy with other work takes
  // fewer); each pooled row is one chunk's, so no two threads write a cell, and the largest
  // weight is a max of maxima: the bits do not depend on who did what.
  const int parts = std::clamp(available_threads(), 1, chunks);
  std::atomic<int> next_chunk{0}, chunks_done{0};
  std::vector<float> part_max(static_cast<std::size_t>(parts), 0.0f);
  parallel_for(parts, [&](int part) {
    const std::size_t block = static_cast<std::size_t>(softmax_block_vectors) * static_cast<std::size_t>(lanes);
    RowScratch scratch;
    scratch.size_for(length, block, factor);
    std::vector<float> row_cells[2] = {std::vector<float>(side), std::vector<float>(side)};
    std::vector<float> raw;
    Matrix chunk_queries{0, queries.cols, {}};
    std::vector<int> chunk_rows;  // the query of each row of chunk_queries
    float top = 0.0f;
    for (;;) {
      if (stop.stop_requested()) break;
      const int chunk = next_chunk.fetch_add(1, std::memory_order_relaxed);
      if (chunk >= chunks) break;
      const int first_cell = chunk * cells_per_chunk, cells = std::min(cells_per_chunk, out.side - first_cell);
      // 1. Scores q_i · k_j of the chunk's queries and every key.
      chunk_rows.clear();
      chunk_queries.values.clear();
      for (int cell = first_cell; cell < first_cell + cells; ++cell)
        for (int query = cell * factor; query < std::min(cell * factor + queries_per_cell, length); ++query) {
          chunk_rows.push_back(query);
          const auto source = queries.values.begin() + static_cast<std::ptrdiff_t>(query) * queries.cols;
          chunk_queries.values.insert(chunk_queries.values.end(), source, source + queries.cols);
        }
      chunk_queries.rows = static_cast<int>(chunk_rows.size());
      const std::size_t scores = chunk_rows.size() * static_cast<std::size_t>(length);
      reserve_with_huge_pages(raw, scores);
      raw.resize(scores);
      dot_product_scores_fast(raw, chunk_queries, keys, KernelOptions{.max_threads = 1, .isa = isa});
      // 2. Each query's cells at both scales, merged into its pooled row by max (NaN stays NaN).
      for (std::size_t r = 0; r < chunk_rows.size(); ++r) {
        const int query = chunk_rows[r];
        const int seen = visible_keys(causal, query, length);  // the keys after them weigh exactly 0
        kernel(row_cells[0].data(), row_cells[1].data(), raw.data() + r * static_cast<std::size_t>(length), seen,
               scales, factor, scratch);
        const std::size_t row_offset = static_cast<std::size_t>(query / factor) * side;
        const std::size_t touched =
            (static_cast<std::size_t>(seen) + static_cast<std::size_t>(factor) - 1) / static_cast<std::size_t>(factor);
        for (int s = 0; s < 2; ++s) {
          float* const pooled = (s == 0 ? out.scaled.data() : out.unscaled.data()) + row_offset;
          const float* const cells_of_row = row_cells[s].data();
          // Branch-free so that GCC vectorises it: a NaN on either side stays (a NaN cell stays
          // visible, and a NaN row's cells are all NaN); the largest finite cell grows as before.
          constexpr float largest = std::numeric_limits<float>::max();
          for (std::size_t cell = 0; cell < touched; ++cell) {
            const float before = pooled[cell], value = cells_of_row[cell];
            const float merged = value != value ? value : (value > before ? value : before);
            pooled[cell] = merged;
            top = merged > top && merged <= largest ? merged : top;
          }
        }
      }
      progress.report(static_cast<double>(chunks_done.fetch_add(1, std::memory_order_relaxed) + 1) /
                      static_cast<double>(chunks));
    }
    part_max[static_cast<std::size_t>(part)] = top;
  });
  out.max_weight = *std::max_element(part_max.begin(), part_max.end());
}

void pooled_attention_maps(PooledMaps& out, const Matrix& queries, const Matrix& keys, double scaled_logit_scale,
                           double unscaled_logit_scale, bool causal, int factor, const std::stop_token& stop,
                           const Progress& progress, KernelIsa isa) {
  pool_attention_maps(out, queries, keys, scaled_logit_scale, unscaled_logit_scale, causal, factor, factor, stop,
                      progress, isa);
}

}  // namespace smlab
