// Emulated floating-point formats (fp64 down to fp8) and softmax computed with every
// operation rounded to one of them, reporting overflow, underflow, NaN and the drift of Σ from 1.
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <string_view>

namespace smlab {

// fp64, fp32 and fp16 are IEEE 754 binary64/32/16; bf16 is binary32 with its fraction cut to
// 7 bits; fp8_e4m3 and fp8_e5m2 are the OCP 8-bit formats (OCP FP8 spec v1.0, 2023):
//   E4M3: bias 7, no infinities, S.1111.111 is NaN, so the top binade stops at 1.110₂·2⁸ = 448.
//   E5M2: bias 15, IEEE-like: S.11111.00 is ±inf, S.11111.{01,10,11} NaN, max 1.11₂·2¹⁵ = 57344.
enum class Format { fp64, fp32, fp16, bf16, fp8_e4m3, fp8_e5m2 };

inline constexpr std::array<Format, 6> all_formats{Format::fp64, Format::fp32,     Format::fp16,
                                                   Format::bf16, Format::fp8_e4m3, Format::fp8_e5m2};

// What a finite value beyond the largest finite number (and an infinite input) becomes.
//   non_saturating  IEEE 754: ±inf in formats that have infinities. E4M3 has none; OCP leaves
//                   the overflow result of a conversion to the implementation, and we return
//                   NaN (as NVIDIA's non-saturating cvt does) so overflow is never mistaken
//                   for a large finite number. ±inf inputs become NaN in E4M3 too.
//   saturating      ±max_finite, for finite overflow and ±inf inputs alike (what ML
//                   frameworks usually do when they cast to fp8). NaN stays NaN.
// fp64 ignores the mode: it is the host arithmetic.
enum class Overflow { non_saturating, saturating };

// The numbers that describe a format. All values are exact powers of two or sums of them,
// computed from the field widths (see precision.cpp), not typed in.
struct FormatInfo {
  std::string_view name;  // "fp64", "fp32", "fp16", "bf16", "fp8-e4m3", "fp8-e5m2"
  int total_bits = 0;     // 64, 32, 16, 16, 8, 8
  int exponent_bits = 0;  // width of the biased exponent field
  int fraction_bits = 0;  // stored significand bits; precision is fraction_bits + 1
  int exponent_bias = 0;  // 2^(exponent_bits − 1) − 1
  int min_exponent = 0;   // exponent of the smallest normal number, 1 − bias
  int max_exponent = 0;   // exponent of the largest binade
  bool has_infinity = true;
  double max_finite = 0.0;     // e.g. 65504 for fp16, 448 for E4M3
  double min_normal = 0.0;     // 2^min_exponent
  double min_subnormal = 0.0;  // 2^(min_exponent − fraction_bits): the gap between 0 and the next number
  double epsilon = 0.0;        // 2^−fraction_bits: the gap between 1 and the next number
};

FormatInfo format_info(Format format);

// The nearest value of `format` to `value`, ties to even (the IEEE default), with gradual
// underflow through the subnormals (values up to half the smallest subnormal become ±0, keeping
// the sign). Overflow follows `overflow`: a value overflows when it rounds, with unbounded
// exponent, to something above max_finite — from max_finite + ½ gap up in IEEE formats (the tie
// goes to the even neighbour 2^(max_exponent+1)), e.g. 65520 for fp16 and 61440 for E5M2; in
// E4M3 only above 464, since the tie 464 goes to the even 448 (1.110₂·2⁸). NaN stays NaN.
// The result is exact in double, since every format here is a subset of binary64. Uses the
// host's current rounding mode for the final integer step, which must be the default
// round-to-nearest.
double round_to(Format format, double value, Overflow overflow = Overflow::non_saturating);

// The bit pattern of round_to(format, value) in the low total_bits bits. NaN encodes as the
// canonical quiet NaN with the sign bit clear: fp64 0x7FF8000000000000, fp32 0x7FC00000,
// fp16 0x7E00, bf16 0x7FC0, E4M3 0x7F, E5M2 0x7F.
std::uint64_t to_bits(Format format, double value, Overflow overflow = Overflow::non_saturating);

// The value of a bit pattern (its low total_bits bits; higher bits are ignored).
double from_bits(Format format, std::uint64_t bits);

// The largest double x for which round_to(format, exp(x)) is finite: every exp(x) with x above
// it overflows (to inf, or NaN in E4M3). Found by bisection over the doubles using exp and
// round_to themselves, so it is what the emulated kernels below do, not a typed-in constant:
// ≈ 709.78 for fp64, ≈ 88.72 for fp32 and bf16, ≈ 11.09 for fp16, ≈ 6.14 for E4M3,
// ≈ 11.03 for E5M2. A naive softmax overflows as soon as one logit x/T exceeds it.
double largest_finite_exp_input(Format format);

// The three ways to compute softmax that the precision lab compares.
//   naive   w_i = exp(x_i/T) / Σ_j exp(x_j/T): no max subtracted, so it overflows.
//   stable  w_i = exp((x_i − m)/T) / Σ_j exp((x_j − m)/T), m = max_j x_j.
//   online  one pass keeping a running max m and normaliser d (Milakov & Gimelshein 2018):
//           m' = max(m, x_i),  d ← d·exp((m − m')/T) + exp((x_i − m')/T),  then
//           w_i = exp((x_i − m)/T) / d in a second pass.
enum class SoftmaxVariant { naive, stable, online };

// What went wrong in one row computed in a narrow format.
struct PrecisionReport {
  int inf_count = 0;           // weights that are ±inf
  int nan_count = 0;           // weights that are NaN (e.g. inf/inf after overflow, 0/0 after underflow)
  int underflow_count = 0;     // weights that are exactly 0 although the exact weight is > 0
                               // (every finite score has a positive exact weight when the row's
                               // largest score is finite)
  double sum_error = 0.0;      // |Σ_i w_i − 1|, the sum taken in double with compensation so it
                               // measures the weights, not this check; NaN if any weight is NaN
  double max_abs_error = 0.0;  // max_i |w_i − p_i| against the double stable softmax p of the
                               // scores as given, so rounding the inputs counts as error too;
                               // NaN if either side has a NaN
  bool finite() const { return inf_count == 0 && nan_count == 0; }
};

// Softmax of one row in `format`. Shapes: weights and scores have the same length n ≥ 1.
// Units: scores are logits before temperature, T > 0. Every operation is rounded to the format:
// the scores and T themselves (they are operands living in the format), each subtraction,
// division, exponential and addition. The exponential is evaluated in double and then rounded,
// i.e. a correctly rounded exp up to a double-rounding event (the double result lying within
// 2^−53 relative of a midpoint of the format), which has probability about 2^−28 for fp32 and
// less for narrower formats. +, −, ×, ÷ done in double and rounded once are exactly the IEEE
// results in the narrow format, because binary64 has more than 2p + 2 bits for every p here.
// The sum accumulates in the format itself (no wider accumulator): the worst case on purpose.
// Special values flow as in hardware (naive: exp(−inf) = 0 and an all −inf row gives 0/0 = NaN;
// stable: an all −inf row gives −inf − (−inf) = NaN), except that the online pass skips −inf
// scores (they add exactly 0; without the skip a masked prefix gives −inf − (−inf) = NaN, a bug
// real kernels guard against the same way). Nothing is repaired; everything is counted.
PrecisionReport softmax_in_format(std::span<double> weights, std::span<const double> scores, Format format,
                                  SoftmaxVariant variant, double temperature = 1.0,
                                  Overflow overflow = Overflow::non_saturating);

}  // namespace smlab
