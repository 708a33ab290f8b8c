// Fast softmax rows, exp and QKᵀ (kernels.hpp): one implementation written with GCC vector
// extensions for W float lanes, compiled three times under function-level target attributes
// (AVX-512, AVX2+FMA, plain SSE2) and picked at run time, so the project needs no -march flag.
#include "smlab/kernels.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <thread>
#include <vector>

#include <sys/mman.h>

namespace smlab {
namespace {

// ─── Vectors of W floats ──────────────────────────────────────────────────────────────────
// W = 16 fills one AVX-512 register, 8 one AVX2 register, 4 one SSE register. Comparisons give
// int32 lanes of −1 (true) or 0, which `mask ? a : b` uses as a per-lane select.
template <int W>
struct Lanes {
  typedef float Floats __attribute__((vector_size(4 * W)));
  typedef std::int32_t Ints __attribute__((vector_size(4 * W)));
};

template <class F>
[[gnu::always_inline]] inline F splat(float x) {
  return F{} + x;
}
template <class F>
[[gnu::always_inline]] inline F load(const float* source) {
  F v;
  std::memcpy(&v, source, sizeof v);  // an unaligned vector load
  return v;
}
template <class F>
[[gnu::always_inline]] inline void store(float* destination, F v) {
  std::memcpy(destination, &v, sizeof v);
}

// ─── exp ──────────────────────────────────────────────────────────────────────────────────
// Below exp_lowest the result would be subnormal (e^−87.3 ≈ 1.2e−38 = the smallest normal
// float); we return 0 there, which is also what a masked key (−inf) needs. Above exp_highest
// 2^n would overflow the exponent field (n = 128); e^88.3 ≈ 2.2e38 is still finite.
constexpr float exp_lowest = -87.3f;
constexpr float exp_highest = 88.3f;

// e^x = 2^n · e^r with n = round(x/ln2) and r = x − n·ln2, |r| ≤ ln2/2.
template <class F, class I>
[[gnu::always_inline]] inline F exp_vector(F x) {
  const I underflow = x < exp_lowest;  // true for −inf too
  x = x < exp_lowest ? splat<F>(exp_lowest) : x;
  x = x > exp_highest ? splat<F>(exp_highest) : x;
  // Adding 1.5·2²³ leaves no bits for a fraction, so the addition itself rounds x/ln2 to the
  // nearest integer n, and n sits in the low mantissa bits of `shifted`.
  constexpr float round_shifter = 12582912.0f;  // 1.5·2²³
  const F shifted = x * 1.44269504f + round_shifter;
  const F n = shifted - round_shifter;
  // Cody–Waite: ln2 = hi + lo with hi = 355/512 (9 bits), so n·hi is exact for |n| ≤ 2¹⁵ and
  // the reduction loses nothing before lo's tiny correction.
  const F r = (x - n * 0.693359375f) - n * -2.12194440e-4f;
  // Degree-6 Taylor polynomial of e^r in Horner form: truncation r⁷/7! ≤ 1.2e−7 at |r| = ln2/2.
  F p = splat<F>(1.0f / 720.0f);
  p = p * r + 1.0f / 120.0f;
  p = p * r + 1.0f / 24.0f;
  p = p * r + 1.0f / 6.0f;
  p = p * r + 0.5f;
  p = p * r + 1.0f;
  p = p * r + 1.0f;
  // 2^n: the low 9 bits of `shifted` hold n mod 512; shifted into the exponent field and biased
  // by 127 they are 2^n for n in [−126, 127] (the clamps above keep n there).
  const I exponent_bits = ((I)shifted << 23) + (127 << 23);
  const F result = p * (F)exponent_bits;
  return underflow ? splat<F>(0.0f) : result;
}

template <int W>
[[gnu::always_inline]] inline void exp_span(float* out, const float* in, std::size_t count) {
  using F = typename Lanes<W>::Floats;
  using I = typename Lanes<W>::Ints;
  std::size_t i = 0;
  for (; i + W <= count; i += W) store(out + i, exp_vector<F, I>(load<F>(in + i)));
  if (i < count) {  // the tail goes through one padded vector
    float padded[W] = {};
    std::copy(in + i, in + count, padded);
    store(padded, exp_vector<F, I>(load<F>(padded)));
    std::copy(padded, padded + (count - i), out + i);
  }
}

// ─── Softmax of one row ─────────────────────────────────────────────────────────────────────
// row has cols floats; logits are x·scale. The same three passes as softmax_rows_inplace.
template <int W>
[[gnu::always_inline]] inline void softmax_row(float* row, int cols, float scale) {
  using F = typename Lanes<W>::Floats;
  using I = typename Lanes<W>::Ints;
  constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
  const auto count = static_cast<std::size_t>(cols);
  const std::size_t whole = count - count % W;

  // Pass 1: the max, starting at −∞, and whether any entry is NaN (x ≠ x only for NaN).
  F max_lanes = splat<F>(minus_infinity);
  I nan_lanes = {};
  for (std::size_t c = 0; c < whole; c += W) {
    const F x = load<F>(row + c);
    nan_lanes |= (x != x);
    max_lanes = x > max_lanes ? x : max_lanes;
  }
  float max_score = minus_infinity;
  bool has_nan = false;
  for (int lane = 0; lane < W; ++lane) {
    max_score = std::max(max_score, max_lanes[lane]);
    has_nan = has_nan || nan_lanes[lane] != 0;
  }
  for (std::size_t c = whole; c < count; ++c) {
    has_nan = has_nan || std::isnan(row[c]);
    max_score = std::max(max_score, row[c]);
  }
  if (has_nan || !std::isfinite(max_score)) {  // NaN, all −inf, or +inf: no distribution
    std::fill(row, row + count, std::numeric_limits<float>::quiet_NaN());
    return;
  }

  // Pass 2: e = exp((x − m)·scale). Subtracting the max first keeps every exponent ≤ 0, so no
  // exp overflows and the largest weight is exactly e⁰ = 1. Sums run in float lanes over blocks
  // of 64 vectors (≤ 64 terms per lane, so ≤ 64ε ≈ 4e−6 relative), then in double across blocks.
  const F max_splat = splat<F>(max_score);
  double sum = 0.0;
  constexpr std::size_t block = 64 * W;
  for (std::size_t start = 0; start < whole; start += block) {
    const std::size_t stop = std::min(whole, start + block);
    F block_sum = {};
    for (std::size_t c = start; c < stop; c += W) {
      const F e = exp_vector<F, I>((load<F>(row + c) - max_splat) * scale);
      store(row + c, e);
      block_sum += e;
    }
    for (int lane = 0; lane < W; ++lane) sum += static_cast<double>(block_sum[lane]);
  }
  if (whole < count) {  // the tail, padded with −inf so the padding adds e = 0
    float padded[W];
    std::fill(padded, padded + W, minus_infinity);
    std::copy(row + whole, row + count, padded);
    const F e = exp_vector<F, I>((load<F>(padded) - max_splat) * scale);
    store(padded, e);
    std::copy(padded, padded + (count - whole), row + whole);
    for (std::size_t lane = 0; lane < count - whole; ++lane) sum += static_cast<double>(padded[lane]);
  }

  // Pass 3: normalise. sum ≥ 1 (the max contributes e⁰ = 1), so 1/sum is finite.
  const F inverse_sum = splat<F>(static_cast<float>(1.0 / sum));
  for (std::size_t c = 0; c < whole; c += W) store(row + c, load<F>(row + c) * inverse_sum);
  for (std::size_t c = whole; c < count; ++c) row[c] *= inverse_sum[0];
}

template <int W>
[[gnu::always_inline]] inline void softmax_row_range(float* matrix, int first_row, int end_row, int cols,
                                                     float scale) {
  for (int r = first_row; r < end_row; ++r)
    softmax_row<W>(matrix + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols), cols, scale);
}

// ─── QKᵀ ──────────────────────────────────────────────────────────────────────────────────
// GotoBLAS-style: the depth d is cut into blocks of depth_block; within one, K is packed into
// panels of tile_cols keys (depth-major, so one panel row is two vector loads) and Q, in blocks of
// query_block rows, into tiles of tile_rows queries. A 6×(2 vectors) register tile then does 12
// independent FMAs per depth step from one K panel that stays in L1 (256·32·4 B = 32 KiB).
constexpr int tile_rows = 6;
constexpr int depth_block = 256;
constexpr int query_block = 192;  // 192·256·4 B = 192 KiB of packed Q: stays in L2

template <int W>
[[gnu::always_inline]] inline void qk_row_range(float* out, const Matrix& queries, const Matrix& keys,
                                                int first_row, int end_row) {
  using F = typename Lanes<W>::Floats;
  constexpr int tile_cols = 2 * W;
  const int key_count = keys.rows, dim = queries.cols;
  const auto out_stride = static_cast<std::size_t>(key_count);
  const int panels = (key_count + tile_cols - 1) / tile_cols;
  std::vector<float> packed_keys(static_cast<std::size_t>(panels) * depth_block * tile_cols);
  std::vector<float> packed_queries(static_cast<std::size_t>(query_block) * depth_block);

  for (int r = first_row; r < end_row; ++r)
    std::fill(out + static_cast<std::size_t>(r) * out_stride, out + static_cast<std::size_t>(r + 1) * out_stride, 0.0f);

  for (int depth_start = 0; depth_start < dim; depth_start += depth_block) {
    const int depth = std::min(depth_block, dim - depth_start);
    // Pack K: packed_keys[(panel·depth + c)·tile_cols + lane] = K(panel·tile_cols + lane, depth_start + c),
    // zero past the last key so edge panels need no special case in the inner loop.
    for (int panel = 0; panel < panels; ++panel)
      for (int lane = 0; lane < tile_cols; ++lane) {
        const int key = panel * tile_cols + lane;
        float* destination = packed_keys.data() + static_cast<std::size_t>(panel) * depth * tile_cols + lane;
        for (int c = 0; c < depth; ++c)
          destination[static_cast<std::size_t>(c) * tile_cols] = key < key_count ? keys(key, depth_start + c) : 0.0f;
      }
    for (int block_start = first_row; block_start < end_row; block_start += query_block) {
      const int block_rows = std::min(query_block, end_row - block_start);
      const int tiles = (block_rows + tile_rows - 1) / tile_rows;
      // Pack Q: packed_queries[(tile·depth + c)·tile_rows + r] = Q(block_start + tile·tile_rows + r, depth_start + c).
      for (int tile = 0; tile < tiles; ++tile)
        for (int r = 0; r < tile_rows; ++r) {
          const int query = block_start + tile * tile_rows + r;
          float* destination = packed_queries.data() + static_cast<std::size_t>(tile) * depth * tile_rows + r;
          for (int c = 0; c < depth; ++c)
            destination[static_cast<std::size_t>(c) * tile_rows] =
                query < end_row ? queries(query, depth_start + c) : 0.0f;
        }
      for (int panel = 0; panel < panels; ++panel) {
        const float* key_panel = packed_keys.data() + static_cast<std::size_t>(panel) * depth * tile_cols;
        const int first_key = panel * tile_cols;
        const int valid_cols = std::min(tile_cols, key_count - first_key);
        for (int tile = 0; tile < tiles; ++tile) {
          const float* query_tile = packed_queries.data() + static_cast<std::size_t>(tile) * depth * tile_rows;
          F sums[tile_rows][2] = {};
          for (int c = 0; c < depth; ++c) {
            const F keys_low = load<F>(key_panel + static_cast<std::size_t>(c) * tile_cols);
            const F keys_high = load<F>(key_panel + static_cast<std::size_t>(c) * tile_cols + W);
            for (int r = 0; r < tile_rows; ++r) {
              const F q = splat<F>(query_tile[static_cast<std::size_t>(c) * tile_rows + r]);
              sums[r][0] += q * keys_low;
              sums[r][1] += q * keys_high;
            }
          }
          // Add the tile into out (the depth blocks accumulate there).
          const int first_query = block_start + tile * tile_rows;
          const int valid_rows = std::min(tile_rows, end_row - first_query);
          for (int r = 0; r < valid_rows; ++r) {
            float* destination = out + static_cast<std::size_t>(first_query + r) * out_stride + first_key;
            if (valid_cols == tile_cols) {
              store(destination, load<F>(destination) + sums[r][0]);
              store(destination + W, load<F>(destination + W) + sums[r][1]);
            } else {
              float tile_row[tile_cols];
              store(tile_row, sums[r][0]);
              store(tile_row + W, sums[r][1]);
              for (int j = 0; j < valid_cols; ++j) destination[j] += tile_row[j];
            }
          }
        }
      }
    }
  }
}

// ─── The three instruction sets ───────────────────────────────────────────────────────────
enum class Isa { sse2, avx2, avx512 };

// The widest set the CPU has that is no wider than the one asked for.
Isa detect_isa(KernelIsa wanted) {
  __builtin_cpu_init();
  const bool allow_avx512 = wanted == KernelIsa::best || wanted == KernelIsa::avx512;
  const bool allow_avx2 = allow_avx512 || wanted == KernelIsa::avx2;
  if (allow_avx512 && __builtin_cpu_supports("avx512f")) return Isa::avx512;
  if (allow_avx2 && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return Isa::avx2;
  return Isa::sse2;  // every x86-64 has SSE2
}

[[gnu::target("avx512f,fma")]] void exp_avx512(float* out, const float* in, std::size_t count) {
  exp_span<16>(out, in, count);
}
[[gnu::target("avx2,fma")]] void exp_avx2(float* out, const float* in, std::size_t count) {
  exp_span<8>(out, in, count);
}
void exp_sse2(float* out, const float* in, std::size_t count) { exp_span<4>(out, in, count); }

[[gnu::target("avx512f,fma")]] void softmax_avx512(float* matrix, int first, int end, int cols, float scale) {
  softmax_row_range<16>(matrix, first, end, cols, scale);
}
[[gnu::target("avx2,fma")]] void softmax_avx2(float* matrix, int first, int end, int cols, float scale) {
  softmax_row_range<8>(matrix, first, end, cols, scale);
}
void softmax_sse2(float* matrix, int first, int end, int cols, float scale) {
  softmax_row_range<4>(matrix, first, end, cols, scale);
}

[[gnu::target("avx512f,fma")]] void qk_avx512(float* out, const Matrix& queries, const Matrix& keys, int first,
                                               int end) {
  qk_row_range<16>(out, queries, keys, first, end);
}
[[gnu::target("avx2,fma")]] void qk_avx2(float* out, const Matrix& queries, const Matrix& keys, int first, int end) {
  qk_row_range<8>(out, queries, keys, first, end);
}
void qk_sse2(float* out, const Matrix& queries, const Matrix& keys, int first, int end) {
  qk_row_range<4>(out, queries, keys, first, end);
}

// ─── Threads ──────────────────────────────────────────────────────────────────────────────
// Starting a thread costs tens of microseconds, so work below ~1 M flops runs on the caller.
int thread_count(int max_threads, double work, int rows) {
  constexpr double work_per_extra_thread = 1 << 20;
  int available = max_threads > 0 ? max_threads : static_cast<int>(std::thread::hardware_concurrency());
  available = std::max(available, 1);
  const int useful = static_cast<int>(std::min(static_cast<double>(available), 1.0 + work / work_per_extra_thread));
  return std::clamp(std::min(useful, rows), 1, available);
}

// Runs run_rows(first, end) over [0, rows) cut into `threads` contiguous ranges; the caller
// takes the first range itself.
template <class RunRows>
void split_rows(int rows, int threads, const RunRows& run_rows) {
  std::vector<std::jthread> helpers;
  helpers.reserve(static_cast<std::size_t>(threads - 1));
  for (int t = 1; t < threads; ++t) {
    const int first = static_cast<int>(static_cast<long long>(rows) * t / threads);
    const int end = static_cast<int>(static_cast<long long>(rows) * (t + 1) / threads);
    helpers.emplace_back([&run_rows, first, end] { run_rows(first, end); });
  }
  run_rows(0, static_cast<int>(static_cast<long long>(rows) / threads));
}  // the jthreads join here

}  // namespace

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
  // ~20 flops per element (exp, two scalings, compares).
  const int threads = thread_count(options.max_threads, 20.0 * static_cast<double>(matrix.size()), rows);
  split_rows(rows, threads, [&](int first, int end) { kernel(matrix.data(), first, end, cols, scale); });
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
  const double work = 2.0 * static_cast<double>(out.size()) * queries.cols;
  const int threads = thread_count(options.max_threads, work, queries.rows);
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
