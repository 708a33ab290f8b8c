// Fast softmax rows, exp and QKᵀ (kernels.hpp): one implementation written with GCC vector
// extensions for W float lanes, compiled three times under function-level target attributes
// (AVX-512, AVX2+FMA, plain SSE2) and picked at run time, so the project needs no -march flag.
//
// [SECTION] Index
//   [SECTION] Softmax of one row
//   [SECTION] QKᵀ
//   [SECTION] The three instruction sets
//   [SECTION] Threads
//   [SECTION] Public entry points: pick the set, split the rows
#include "smlab/kernels.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include <sys/mman.h>

#include "smlab/parallel.hpp"
#include "vector_lanes.hpp"

namespace smlab {
namespace {

// Vectors of W floats, the float exp and lane reductions: vector_lanes.hpp (shared with pooled_maps.cpp).
using namespace simd;

// [SECTION] Softmax of one row
// Exp is the cost (≈ 12 FMA-pipe operations per vector), so each element's exp is evaluated
// once and the row is read from memory once: the row is cut into blocks of block_vectors
// vectors (4 KiB for AVX-512: they stay in L1 between the two sweeps over a block), and for
// each block
//   sweep 1: m_b = the block's max (from memory: the one read of the row);
//   sweep 2: e = exp((x − m_b)·scale), stored in place, and S_b = Σ e (from L1).
// Then, with M = max m_b, the sum is Σ_b e^{(m_b − M)·scale}·S_b, and one pass over the row
// multiplies block b by e^{(m_b − M)·scale} / sum (from L2 while the row fits there: 1 MiB
// = 256 K floats; from L3 beyond).
// Everything depends only on this row, cols and scale — never on the other rows — so a row
// recomputed alone is bit-identical to the same row inside a matrix call.
constexpr int block_vectors = softmax_block_vectors;
constexpr std::size_t prefetch_distance = 1536;  // floats ahead of sweep 2 (measured: 1–2 K best)

template <int W>
[[gnu::always_inline]] inline void softmax_row(float* row, int cols, float scale, float* block_maxima,
                                               float* block_sums) {
  using F = typename Lanes<W>::Floats;
  using I = typename Lanes<W>::Ints;
  constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
  constexpr std::size_t block = std::size_t{block_vectors} * W;
  const auto count = static_cast<std::size_t>(cols);
  const std::size_t whole = count - count % W;
  const std::size_t blocks = (count + block - 1) / block;

  float max_score = minus_infinity;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t start = b * block, stop = std::min(whole, start + block);
    const bool has_tail = start + block > whole && whole < count;  // the last block's last W − 1
    float tail[W];
    if (has_tail) {  // padded with −inf: no effect on the max, and e = 0 for the sum
      std::fill(tail, tail + W, minus_infinity);
      std::copy(row + whole, row + count, tail);
    }

    // Sweep 1: the block max (block_max, vector_lanes.hpp; NaN is left to sweep 2).
    const float top = block_max<W>(row, start, stop, has_tail ? tail : nullptr);
    max_score = std::max(max_score, top);
    // An all-−inf block uses the lowest float instead, so −inf − it stays −inf (e = 0) rather
    // than NaN. +inf stays: the row becomes NaN below anyway.
    const float shift = std::max(top, std::numeric_limits<float>::lowest());
    block_maxima[b] = shift;

    // Sweep 2: e = exp((x − shift)·scale) ≤ 1, never overflowing; NaN x gives NaN e, so a NaN
    // anywhere makes the sum NaN. Four exps are interleaved (independent chains of ~14
    // dependent operations each), summed in four accumulators of ≤ 16 terms per lane (≤ 20 in
    // the last block), then in a fixed tree: ≤ 25 float roundings deep (≈ 1.5e−6 at worst).
    const F shift_splat = splat<F>(shift);
    F sums[4] = {};
    std::size_t c = start;
    for (; c + 4 * W <= stop; c += 4 * W) {
      // Ask for the memory sweep 1 will want 6 KiB on (1.5 AVX-512 blocks): while exp keeps the FMA
      // pipes busy here, nothing else would be fetching. One prefetch per 64-byte line; past
      // the row it fetches the next row, past the matrix it is a harmless no-op (hence the
      // address arithmetic on integers).
      for (int k = 0; k < 4 * W; k += 16)
        __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(row + c + k) +
                                                         prefetch_distance * sizeof(float)));
      for (int k = 0; k < 4; ++k) {
        const F e = exp_vector<F, I, false>((load<F>(row + c + k * W) - shift_splat) * scale);
        store(row + c + k * W, e);
        sums[k] += e;
      }
    }
    for (; c < stop; c += W) {
      const F e = exp_vector<F, I, false>((load<F>(row + c) - shift_splat) * scale);
      store(row + c, e);
      sums[0] += e;
    }
    if (has_tail) {
      const F e = exp_vector<F, I, false>((load<F>(tail) - shift_splat) * scale);
      store(tail, e);
      std::copy(tail, tail + (count - whole), row + whole);
      sums[0] += e;
    }
    block_sums[b] = lane_reduce<W>((sums[0] + sums[1]) + (sums[2] + sums[3]), SumLanes{});
  }

  // Each block's weight relative to the row max, in double (one exp per 64 vectors). A block
  // holding the max has factor exactly 1, so a one-block row needs no exp at all.
  double sum = 0.0;
  for (std::size_t b = 0; b < blocks; ++b) {
    const double factor =
        block_maxima[b] == max_score ? 1.0 : std::exp((static_cast<double>(block_maxima[b]) - max_score) * scale);
    block_maxima[b] = static_cast<float>(factor);  // reused for the factor (as a float: ≤ 6e−8 off)
    sum += factor * block_sums[b];
  }
  // NaN anywhere (sum NaN), all −inf (max −inf) or +inf (max +inf): no distribution.
  if (!std::isfinite(max_score) || std::isnan(sum)) {
    std::fill(row, row + count, std::numeric_limits<float>::quiet_NaN());
    return;
  }

  // Normalise. sum ≥ 1 (the max contributes e⁰ = 1 with factor 1), so 1/sum is finite.
  const double inverse_sum = 1.0 / sum;
  for (std::size_t b = 0; b < blocks; ++b) {
    const std::size_t start = b * block, stop = std::min(whole, start + block);
    const float weight = static_cast<float>(block_maxima[b] * inverse_sum);
    const F weight_splat = splat<F>(weight);
    for (std::size_t c = start; c < stop; c += W) store(row + c, load<F>(row + c) * weight_splat);
    if (start + block > whole)
      for (std::size_t c = whole; c < count; ++c) row[c] *= weight;
  }
}

template <int W>
[[gnu::always_inline]] inline void softmax_row_range(float* matrix, int first_row, int end_row, int cols, float scale) {
  // Per-block scratch: 2 floats per 64 vectors of a row (a 1 M-float row: 2 × 1024 floats). On
  // the stack up to 64 blocks (64 K floats with AVX-512), so one-row calls do not allocate.
  constexpr std::size_t block = std::size_t{block_vectors} * W;
  const std::size_t blocks = (static_cast<std::size_t>(cols) + block - 1) / block;
  float small_scratch[2 * 64];
  std::vector<float> large_scratch(blocks > 64 ? 2 * blocks : 0);
  float* const scratch = blocks > 64 ? large_scratch.data() : small_scratch;
  for (int r = first_row; r < end_row; ++r)
    softmax_row<W>(matrix + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols), cols, scale, scratch,
                   scratch + blocks);
}

// [SECTION] QKᵀ
// GotoBLAS/BLIS-style blocking. Keys go in blocks of key_block and the depth d in blocks of
// depth_block. Per (key block, depth block), K is packed into panels of tile_cols keys
// (depth-major, so one depth step is `vectors` vector loads); that is ≤ 512 KiB, so it stays in
// the 1 MiB L2 while each tile_rows × depth slice of Q (packed just before use, ≤ 12 KiB: stays
// in L1) sweeps across its panels, and out is written along rows, panel after panel. (Packing
// all of a thread's Q once per depth block instead saves the re-packing per key block but puts
// up to another 512 KiB through L2 and evicts the K block: measured 20–30% slower on two threads.)
// The register tile is tile_rows × vectors accumulators:
//   AVX-512: 12 × 2 = 24 of the 32 zmm registers, + 2 for K, the Q values are broadcast from
//            memory inside the FMA; 24 independent FMAs per depth step cover the 4-cycle FMA
//            latency on two pipes three times over, for 14 loads. (8 × 3, 6 × 4, 14 × 2 and
//            4 × 6 measured the same or slower.)
//   AVX2 and SSE2 (16 registers): 6 × 2 = 12 accumulators + 2 for K + 1 broadcast (+1 product).
// Every entry is summed the same way wherever its tile falls: 0, then one multiply-add per
// depth in order within a depth block, then added to the previous blocks' sum in out (the
// first block stores: no zero fill and no read of out). So the result does not depend on the
// thread count or on how rows are split.
constexpr int depth_block = 256;                // 256, 384 and 512 measured alike
constexpr int packed_keys_floats = 128 * 1024;  // 512 KiB: half the L2

template <int W, int tile_rows, int vectors>
[[gnu::always_inline]] inline void qk_row_range(float* out, const Matrix& queries, const Matrix& keys, int first_row,
                                                int end_row) {
  using F = typename Lanes<W>::Floats;
  constexpr int tile_cols = vectors * W;
  const int key_count = keys.rows, dim = queries.cols;
  const auto out_stride = static_cast<std::size_t>(key_count);
  if (dim == 0) {
    std::fill(out + first_row * out_stride, out + end_row * out_stride, 0.0f);
    return;
  }
  const int depth_max = std::min(depth_block, dim);
  // Keys per block: as many whole panels as fit the packed budget at this depth.
  const int key_block = std::max(1, packed_keys_floats / (depth_max * tile_cols)) * tile_cols;
  // 64-byte aligned packed buffers, so every K load is one aligned cache line.
  constexpr std::size_t align_floats = 16;
  std::vector<float> packed_keys_storage(static_cast<std::size_t>(key_block) * depth_max + align_floats);
  std::vector<float> packed_queries_storage(static_cast<std::size_t>(tile_rows) * depth_max + align_floats);
  const auto align = [](float* p) {
    const auto address = reinterpret_cast<std::uintptr_t>(p);
    return p + ((64 - address % 64) % 64) / sizeof(float);
  };
  float* const packed_keys = align(packed_keys_storage.data());
  float* const packed_queries = align(packed_queries_storage.data());

  for (int key_start = 0; key_start < key_count; key_start += key_block) {
    const int block_keys = std::min(key_block, key_count - key_start);
    const int panels = (block_keys + tile_cols - 1) / tile_cols;
    for (int depth_start = 0; depth_start < dim; depth_start += depth_block) {
      const int depth = std::min(depth_block, dim - depth_start);
      const bool first_depth = depth_start == 0;
      // Pack K: packed_keys[(panel·depth + c)·tile_cols + lane] = K(key_start + panel·tile_cols + lane,
      // depth_start + c), zero past the last key so edge panels need no special case in the tile.
      for (int panel = 0; panel < panels; ++panel)
        for (int lane = 0; lane < tile_cols; ++lane) {
          const int key = key_start + panel * tile_cols + lane;
          float* destination = packed_keys + static_cast<std::size_t>(panel) * depth * tile_cols + lane;
          if (key < key_count) {
            const float* source = keys.values.data() + static_cast<std::size_t>(key) * dim + depth_start;
            for (int c = 0; c < depth; ++c) destination[static_cast<std::size_t>(c) * tile_cols] = source[c];
          } else {
            for (int c = 0; c < depth; ++c) destination[static_cast<std::size_t>(c) * tile_cols] = 0.0f;
          }
        }
      for (int first_query = first_row; first_query < end_row; first_query += tile_rows) {
        const int valid_rows = std::min(tile_rows, end_row - first_query);
        // Pack Q: packed_queries[c·tile_rows + r] = Q(first_query + r, depth_start + c), zero rows past the end.
        for (int r = 0; r < tile_rows; ++r) {
          if (r < valid_rows) {
            const float* source = queries.values.data() + static_cast<std::size_t>(first_query + r) * dim + depth_start;
            for (int c = 0; c < depth; ++c) packed_queries[static_cast<std::size_t>(c) * tile_rows + r] = source[c];
          } else {
            for (int c = 0; c < depth; ++c) packed_queries[static_cast<std::size_t>(c) * tile_rows + r] = 0.0f;
          }
        }
        for (int panel = 0; panel < panels; ++panel) {
          const float* key_panel = packed_keys + static_cast<std::size_t>(panel) * depth * tile_cols;
          F sums[tile_rows][vectors] = {};
          for (int c = 0; c < depth; ++c) {
            F key_vectors[vectors];
            for (int v = 0; v < vectors; ++v)
              key_vectors[v] = load<F>(key_panel + static_cast<std::size_t>(c) * tile_cols + v * W);
            for (int r = 0; r < tile_rows; ++r) {
              // A scalar times a vector: the FMA's broadcast memory operand (see splat).
              const float q = packed_queries[static_cast<std::size_t>(c) * tile_rows + r];
              for (int v = 0; v < vectors; ++v) sums[r][v] += q * key_vectors[v];
            }
          }
          // The first depth block stores the tile (no zero fill, no read of out), later ones add.
          const int first_key = key_start + panel * tile_cols;
          const int valid_cols = std::min(tile_cols, key_count - first_key);
          for (int r = 0; r < valid_rows; ++r) {
            float* destination = out + static_cast<std::size_t>(first_query + r) * out_stride + first_key;
            if (valid_cols == tile_cols) {
              for (int v = 0; v < vectors; ++v)
                store(destination + v * W, first_depth ? sums[r][v] : load<F>(destination + v * W) + sums[r][v]);
            } else {
              float tile_row[tile_cols];
              for (int v = 0; v < vectors; ++v) store(tile_row + v * W, sums[r][v]);
              for (int j = 0; j < valid_cols; ++j)
                destination[j] = first_depth ? tile_row[j] : destination[j] + tile_row[j];
            }
          }
        }
      }
    }
  }
}

// [SECTION] The three instruction sets
enum class Isa { sse2, avx2, avx512 };

// The widest set the CPU has that is no wider than the one asked for.
Isa detect_isa(KernelIsa wanted) {
#if !defined(__x86_64__) && !defined(__i386__)
  // Elsewhere (WebAssembly: the web build) only the 4-lane code, which is portable vector code:
  // wasm SIMD128 under -msimd128, scalar otherwise.
  (void)wanted;
  return Isa::sse2;
#else
  __builtin_cpu_init();
  const bool allow_avx512 = wanted == KernelIsa::best || wanted == KernelIsa::avx512;
  const bool allow_avx2 = allow_avx512 || wanted == KernelIsa::avx2;
  if (allow_avx512 && __builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (allow_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
  return Isa::sse2;  // every x86-64 has SSE2
#endif
}

#if defined(__x86_64__) || defined(__i386__)
#define SMLAB_X86_TARGET(isa) [[gnu::target(isa)]]
#else
#define SMLAB_X86_TARGET(isa)  // one instruction set: the calls below are never taken
#endif
SMLAB_X86_TARGET("avx512f,fma") void exp_avx512(float* out, const float* in, std::size_t count) {
  exp_span<16>(out, in, count);
}
SMLAB_X86_TARGET("avx2,fma") void exp_avx2(float* out, const float* in, std::size_t count) {
  exp_span<8>(out, in, count);
}
void exp_sse2(float* out, const float* in, std::size_t count) { exp_span<4>(out, in, count); }

SMLAB_X86_TARGET("avx512f,fma") void softmax_avx512(float* matrix, int first, int end, int cols, float scale) {
  softmax_row_range<16>(matrix, first, end, cols, scale);
}
SMLAB_X86_TARGET("avx2,fma") void softmax_avx2(float* matrix, int first, int end, int cols, float scale) {
  softmax_row_range<8>(matrix, first, end, cols, scale);
}
void softmax_sse2(float* matrix, int first, int end, int cols, float scale) {
  softmax_row_range<4>(matrix, first, end, cols, scale);
}

SMLAB_X86_TARGET("avx512f,fma")
void qk_avx512(float* out, const Matrix& queries, const Matrix& keys, int first, int end) {
  qk_row_range<16, 12, 2>(out, queries, keys, first, end);
}
SMLAB_X86_TARGET("avx2,fma") void qk_avx2(float* out, const Matrix& queries, const Matrix& keys, int first, int end) {
  qk_row_range<8, 6, 2>(out, queries, keys, first, end);
}
void qk_sse2(float* out, const Matrix& queries, const Matrix& keys, int first, int end) {
  qk_row_range<4, 6, 2>(out, queries, keys, first, end);
}

// [SECTION] Threads
// Work is split over the persistent pool (parallel.hpp). Starting a thread cost ~70–80 µs per
// call on this 2-core VM (std::jthread spawn + join alone ~25 µs, the rest the helper's cold caches
// and wake-up; a two-thread QKᵀ at L = 384, d = 64 was slower than one thread); a pool worker
// only needs waking, but its caches are as cold, so a part is still split off only for every
// 150 µs of estimated single-thread work. Estimates: softmax ≈ 0.4 ns per element (2.5 G
// elements/s with the row coming from memory), QKᵀ ≈ 150 GFLOP/s.
int thread_count(int max_threads, double seconds, int rows) {
  constexpr double seconds_per_extra_thread = 150e-6;
  if (seconds < seconds_per_extra_thread || rows < 2) return 1;  // e.g. one row recomputed alone
  const int available = std::max(max_threads > 0 ? max_threads : available_threads(), 1);
  const int useful =
      static_cast<int>(std::min(static_cast<double>(available), 1.0 + seconds / seconds_per_extra_thread));
  return std::clamp(std::min(useful, rows), 1, available);
}

// Runs run_rows(first, end) over [0, rows) cut into `parts` contiguous ranges, on the pool.
template <class RunRows>
void split_rows(int rows, int parts, const RunRows& run_rows) {
  parallel_for(parts, [&](int part) {
    run_rows(static_cast<int>(static_cast<long long>(rows) * part / parts),
             static_cast<int>(static_cast<long long>(rows) * (part + 1) / parts));
  });
}

}  // namespace

// [SECTION] Public entry points: pick the set, split the rows

std::string_view kernel_isa_name(KernelIsa wanted) {
  switch (detect_isa(wanted)) {
    case Isa::avx512: return "avx512";
    case Isa::avx2: return "avx2";
    case Isa::sse2: return "sse2";
  }
  return "sse2";
}

void exp_fast(std::span<float> out, std::span<const float> in, KernelIsa isa) {
  assert(out.size() == in.size());
  switch (detect_isa(isa)) {
    case Isa::avx512: exp_avx512(out.data(), in.data(), in.size()); break;
    case Isa::avx2: exp_avx2(out.data(), in.data(), in.size()); break;
    case Isa::sse2: exp_sse2(out.data(), in.data(), in.size()); break;
  }
}

void softmax_rows_fast(std::span<float> matrix, int rows, int cols, double logit_scale, KernelOptions options) {
  assert(matrix.size() == static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  assert(logit_scale > 0.0);
  if (rows <= 0 || cols <= 0) return;
  const auto scale = static_cast<float>(logit_scale);
  auto* kernel = softmax_sse2;
  switch (detect_isa(options.isa)) {
    case Isa::avx512: kernel = softmax_avx512; break;
    case Isa::avx2: kernel = softmax_avx2; break;
    case Isa::sse2: break;
  }
  const int threads = thread_count(options.max_threads, 0.4e-9 * static_cast<double>(matrix.size()), rows);
  // Four parts a thread, claimed in turn (parallel_for): when another program takes a core, the
  // threads still running take over the parts of one it has preempted, instead of waiting for its
  // half. A row's bits do not depend on the split (kernels_test).
  const int parts = threads == 1 ? 1 : std::min(rows, 4 * threads);
  split_rows(rows, parts, [&](int first, int end) { kernel(matrix.data(), first, end, cols, scale); });
}

void dot_product_scores_fast(Matrix& out, const Matrix& queries, const Matrix& keys, KernelOptions options) {
  assert(queries.cols == keys.cols);
  out.rows = queries.rows;
  out.cols = keys.rows;
  out.values.resize(static_cast<std::size_t>(out.rows) * static_cast<std::size_t>(out.cols));
  dot_product_scores_fast(out.values, queries, keys, options);
}

void dot_product_scores_fast(std::span<float> out, const Matrix& queries, const Matrix& keys, KernelOptions options) {
  assert(queries.cols == keys.cols);
  assert(out.size() == static_cast<std::size_t>(queries.rows) * static_cast<std::size_t>(keys.rows));
  if (out.empty()) return;
  auto* kernel = qk_sse2;
  switch (detect_isa(options.isa)) {
    case Isa::avx512: kernel = qk_avx512; break;
    case Isa::avx2: kernel = qk_avx2; break;
    case Isa::sse2: break;
  }
  const double flops = 2.0 * static_cast<double>(out.size()) * queries.cols;
  const int threads = thread_count(options.max_threads, flops / 150e9, queries.rows);
  split_rows(queries.rows, threads, [&](int first, int end) { kernel(out.data(), queries, keys, first, end); });
}

void reserve_with_huge_pages(std::vector<float>& buffer, std::size_t count) {
  if (buffer.capacity() >= count) return;  // its pages may be touched already: nothing to gain
  buffer.reserve(count);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::size_t huge_page = std::size_t{2} << 20;
  const std::size_t bytes = count * sizeof(float);
  if (bytes < 2 * huge_page) return;
  const auto first = reinterpret_cast<std::uintptr_t>(buffer.data());
  const std::uintptr_t start = (first + huge_page - 1) & ~(huge_page - 1);
  const std::uintptr_t end = (first + bytes) & ~(huge_page - 1);
  // Advice only: EINVAL (THP disabled) or ENOMEM leave ordinary pages, which work the same.
  if (end > start) (void)madvise(reinterpret_cast<void*>(start), end - start, MADV_HUGEPAGE);
#endif
}

}  // namespace smlab
