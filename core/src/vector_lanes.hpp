// Vectors of W float lanes and the float exp built on them: the shared parts of the fast kernels
// (kernels.cpp: softmax rows, exp, QKᵀ; pooled_maps.cpp: both maps' block maxima), so every kernel
// computes e^x with the same bits. Private to core/src; callers compile it under a target attribute.
//
// [SECTION] Index
//   [SECTION] Vectors of W floats
//   [SECTION] exp
//   [SECTION] Lane reductions
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

namespace smlab::simd {

// [SECTION] Vectors of W floats
// W = 16 fills one AVX-512 register, 8 one AVX2 register, 4 one SSE register. Comparisons give
// int32 lanes of −1 (true) or 0, which `mask ? a : b` uses as a per-lane select.
template <int W>
struct Lanes {
  typedef float Floats __attribute__((vector_size(4 * W)));
  typedef std::int32_t Ints __attribute__((vector_size(4 * W)));
};

// x in every lane. Written as 0 + x on purpose: GCC 12 expands the plainer forms (1·x, a
// lane-by-lane fill, a shuffle of {x}) under a target("avx512f") attribute as 16 masked
// inserts, while this one is a scalar add and one vbroadcastss (for x = −0 it gives +0, which
// no caller minds). Hot loops multiply by the scalar directly instead, which becomes an FMA's
// {1to16} memory operand.
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

// [SECTION] exp
// Below exp_lowest the result would be subnormal (e^−87.3 ≈ 1.2e−38 = the smallest normal
// float); we return 0 there, which is also what a masked key (−inf) needs. Above exp_highest
// 2^n would overflow the exponent field (n = 128); e^88.3 ≈ 2.2e38 is still finite.
constexpr float exp_lowest = -87.3f;
constexpr float exp_highest = 88.3f;

// e^x = 2^n · e^r with n = round(x/ln2) and r = x − n·ln2, |r| ≤ ln2/2. `bounded_above` false
// is for callers whose x is ≤ 0 or NaN (softmax's x − max): they skip the upper clamp. NaN in
// gives NaN out (softmax relies on that to find NaN rows without a separate test).
template <class F, class I, bool bounded_above = true>
[[gnu::always_inline]] inline F exp_vector(F x) {
  // No lower clamp: lanes below exp_lowest (−inf included) compute garbage and are replaced by 0
  // at the end, which costs one compare and one select instead of two more.
  const I underflow = x < exp_lowest;
  if constexpr (bounded_above) x = x > exp_highest ? splat<F>(exp_highest) : x;
  // Adding 1.5·2²³ leaves no bits for a fraction, so the addition itself rounds x/ln2 to the
  // nearest integer n, and n sits in the low mantissa bits of `shifted`. The extra 127 is the
  // exponent bias, so those bits already hold n + 127 (in [1, 254] for x in [exp_lowest,
  // exp_highest]; lanes outside are clamped or zeroed).
  constexpr float round_shifter = 12582912.0f + 127.0f;  // 1.5·2²³ + 127, exact in float
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
  // 2^n: the low 9 bits of `shifted` (n + 127) shifted into the exponent field. A multiply
  // rather than an integer add to p's exponent, so that a NaN x stays NaN whatever its payload.
  const I exponent_bits = (I)shifted << 23;
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

// [SECTION] Lane reductions
// A fixed tree: the upper half of the lanes onto the lower half, then again, so the result
// depends only on the vector. Each halving is one extract and one `combine` (MaxLanes or
// SumLanes, applied to vectors of each width on the way down).
struct MaxLanes {
  template <class V>
  [[gnu::always_inline]] V operator()(V low, V high) const {
    return high > low ? high : low;
  }
};
struct SumLanes {
  template <class V>
  [[gnu::always_inline]] V operator()(V low, V high) const {
    return low + high;
  }
};
template <int W, class Combine>
[[gnu::always_inline]] inline float lane_reduce(typename Lanes<W>::Floats v, Combine combine) {
  if constexpr (W == 1) {
    return v[0];
  } else {
    typename Lanes<W / 2>::Floats low, high;
    std::memcpy(&low, &v, sizeof low);
    std::memcpy(&high, reinterpret_cast<const char*>(&v) + sizeof low, sizeof high);
    return lane_reduce<W / 2>(combine(low, high), combine);
  }
}

// Softmax rows are cut into blocks of this many vectors (kernels.cpp, softmax_row, says why); a
// kernel that must give softmax_rows_fast's bits walks the same blocks.
constexpr int softmax_block_vectors = 64;

// A softmax block's largest score, as softmax_row (kernels.cpp) and pooled_row (pooled_maps.cpp)
// both need it: row[start, stop) in whole vectors, then the W lanes of `tail` when not null (the
// row's last count % W scores padded with −inf, which changes no max). Four independent chains (a
// compare has 2–3 cycles latency, loads come two per cycle). `x > m ? x : m` is one max
// instruction; it skips NaN, which the callers' exp sweep catches instead.
template <int W>
[[gnu::always_inline]] inline float block_max(const float* row, std::size_t start, std::size_t stop,
                                              const float* tail) {
  using F = typename Lanes<W>::Floats;
  constexpr float minus_infinity = -std::numeric_limits<float>::infinity();
  F m[4] = {splat<F>(minus_infinity), splat<F>(minus_infinity), splat<F>(minus_infinity), splat<F>(minus_infinity)};
  std::size_t c = start;
  for (; c + 4 * W <= stop; c += 4 * W)
    for (int k = 0; k < 4; ++k) {
      const F x = load<F>(row + c + k * W);
      m[k] = x > m[k] ? x : m[k];
    }
  for (; c < stop; c += W) {
    const F x = load<F>(row + c);
    m[0] = x > m[0] ? x : m[0];
  }
  if (tail != nullptr) {
    const F x = load<F>(tail);
    m[0] = x > m[0] ? x : m[0];
  }
  m[0] = m[1] > m[0] ? m[1] : m[0];
  m[2] = m[3] > m[2] ? m[3] : m[2];
  m[0] = m[2] > m[0] ? m[2] : m[0];
  return lane_reduce<W>(m[0], MaxLanes{});
}

}  // namespace smlab::simd
