// Rounding to emulated formats (fp64 … fp8) and softmax with every operation rounded to one.
// Sections: [format table] [rounding and bits] [exp range] [softmax kernels] [report].
#include "smlab/precision.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <limits>

namespace smlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// ─── [format table] ─────────────────────────────────────────────────────────────────────

// 2^exponent by repeated doubling or halving: exact, and usable in constant expressions
// (std::ldexp is not constexpr before C++23).
constexpr double power_of_two(int exponent) {
  double result = 1.0;
  for (; exponent > 0; --exponent) result *= 2.0;
  for (; exponent < 0; ++exponent) result *= 0.5;
  return result;
}

// Everything about a binary format follows from its field widths and whether the all-ones
// exponent is reserved for inf/NaN (IEEE, E5M2) or holds numbers (E4M3, whose only NaN is
// the all-ones pattern, so its top binade loses just its largest significand).
constexpr FormatInfo make_info(std::string_view name, int exponent_bits, int fraction_bits, bool has_infinity) {
  FormatInfo info;
  info.name = name;
  info.total_bits = 1 + exponent_bits + fraction_bits;
  info.exponent_bits = exponent_bits;
  info.fraction_bits = fraction_bits;
  info.exponent_bias = (1 << (exponent_bits - 1)) - 1;
  info.min_exponent = 1 - info.exponent_bias;
  const int top_field = (1 << exponent_bits) - 1;
  info.max_exponent = (has_infinity ? top_field - 1 : top_field) - info.exponent_bias;
  info.has_infinity = has_infinity;
  // Largest significand: 2 − 2^−f (all ones), or 2 − 2^(1−f) when all ones is the NaN pattern.
  const double ulp_of_one = power_of_two(-fraction_bits);
  const double max_significand = has_infinity ? 2.0 - ulp_of_one : 2.0 - 2.0 * ulp_of_one;
  info.max_finite = max_significand * power_of_two(info.max_exponent);
  info.min_normal = power_of_two(info.min_exponent);
  info.min_subnormal = power_of_two(info.min_exponent - fraction_bits);
  info.epsilon = ulp_of_one;
  return info;
}

constexpr FormatInfo kFp64 = make_info("fp64", 11, 52, true);
constexpr FormatInfo kFp32 = make_info("fp32", 8, 23, true);
constexpr FormatInfo kFp16 = make_info("fp16", 5, 10, true);
constexpr FormatInfo kBf16 = make_info("bf16", 8, 7, true);
constexpr FormatInfo kE4M3 = make_info("fp8-e4m3", 4, 3, false);
constexpr FormatInfo kE5M2 = make_info("fp8-e5m2", 5, 2, true);

const FormatInfo& info_of(Format format) {
  switch (format) {
    case Format::fp64: return kFp64;
    case Format::fp32: return kFp32;
    case Format::fp16: return kFp16;
    case Format::bf16: return kBf16;
    case Format::fp8_e4m3: return kE4M3;
    case Format::fp8_e5m2: return kE5M2;
  }
  return kFp64;
}

double overflowed(const FormatInfo& info, double sign_source, Overflow overflow) {
  if (overflow == Overflow::saturating) return std::copysign(info.max_finite, sign_source);
  return info.has_infinity ? std::copysign(kInf, sign_source) : kNaN;
}

bool format_is_e5m2(const FormatInfo& info) { return info.exponent_bits == 5 && info.fraction_bits == 2; }

std::uint64_t canonical_nan_bits(const FormatInfo& info) {
  if (!info.has_infinity) return (std::uint64_t{1} << (info.total_bits - 1)) - 1;  // S.1111.111, S = 0
  // Exponent all ones and the top fraction bit set: the quiet NaN. E5M2 uses S.11111.11 (also
  // quiet) like NVIDIA's converters; the wider formats use the usual …1000… pattern.
  const std::uint64_t exponent_ones = ((std::uint64_t{1} << info.exponent_bits) - 1) << info.fraction_bits;
  const std::uint64_t quiet_bit = std::uint64_t{1} << (info.fraction_bits - 1);
  return format_is_e5m2(info) ? exponent_ones | 0x3u : exponent_ones | quiet_bit;
}

}  // namespace

FormatInfo format_info(Format format) { return info_of(format); }

// ─── [rounding and bits] ─────────────────────────────────────────────────────────────────

double round_to(Format format, double value, Overflow overflow) {
  if (format == Format::fp64) return value;
  const FormatInfo& info = info_of(format);
  if (std::isnan(value)) return value;
  if (std::isinf(value))
    return info.has_infinity && overflow == Overflow::non_saturating ? value : overflowed(info, value, overflow);
  if (value == 0.0) return value;  // keeps the sign of zero
  // The spacing of the format around `value` is 2^quantum: value's own binade gives
  // exponent − fraction_bits, floored at the subnormal spacing (gradual underflow).
  const int exponent = std::ilogb(value);
  const int quantum = std::max(exponent, info.min_exponent) - info.fraction_bits;
  // value·2^−quantum is exact (a power-of-two scaling of a double that stays normal), so one
  // nearbyint (ties to even in the default mode) is the only rounding: no double rounding.
  const double rounded = std::ldexp(std::nearbyint(std::ldexp(value, -quantum)), quantum);
  // A carry can lift the result into the binade above max_finite (or onto E4M3's NaN pattern).
  if (std::abs(rounded) > info.max_finite) return overflowed(info, value, overflow);
  return rounded;
}

std::uint64_t to_bits(Format format, double value, Overflow overflow) {
  const double rounded = round_to(format, value, overflow);
  if (format == Format::fp64) return std::bit_cast<std::uint64_t>(rounded);
  if (format == Format::fp32) return std::bit_cast<std::uint32_t>(static_cast<float>(rounded));
  const FormatInfo& info = info_of(format);
  if (std::isnan(rounded)) return canonical_nan_bits(info);
  const std::uint64_t sign = std::signbit(rounded) ? std::uint64_t{1} << (info.total_bits - 1) : 0;
  const double magnitude = std::abs(rounded);
  const std::uint64_t top_field = (std::uint64_t{1} << info.exponent_bits) - 1;
  if (std::isinf(magnitude)) return sign | (top_field << info.fraction_bits);
  if (magnitude < info.min_normal)  // subnormal or zero: exponent field 0, fraction counts min_subnormals
    return sign | static_cast<std::uint64_t>(magnitude / info.min_subnormal);
  const int exponent = std::ilogb(magnitude);
  const auto field = static_cast<std::uint64_t>(exponent + info.exponent_bias);
  // (significand − 1)·2^f is an integer below 2^f because rounded is exactly representable.
  const auto fraction =
      static_cast<std::uint64_t>(std::ldexp(std::ldexp(magnitude, -exponent) - 1.0, info.fraction_bits));
  return sign | (field << info.fraction_bits) | fraction;
}

double from_bits(Format format, std::uint64_t bits) {
  if (format == Format::fp64) return std::bit_cast<double>(bits);
  if (format == Format::fp32) return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits)));
  const FormatInfo& info = info_of(format);
  const std::uint64_t fraction_mask = (std::uint64_t{1} << info.fraction_bits) - 1;
  const std::uint64_t top_field = (std::uint64_t{1} << info.exponent_bits) - 1;
  const std::uint64_t fraction = bits & fraction_mask;
  const std::uint64_t field = (bits >> info.fraction_bits) & top_field;
  const double sign = (bits >> (info.total_bits - 1)) & 1u ? -1.0 : 1.0;
  if (field == top_field) {
    if (info.has_infinity) return fraction == 0 ? sign * kInf : kNaN;
    if (fraction == fraction_mask) return kNaN;  // E4M3: only S.1111.111 is NaN
  }
  if (field == 0) return sign * static_cast<double>(fraction) * info.min_subnormal;
  const double significand = 1.0 + std::ldexp(static_cast<double>(fraction), -info.fraction_bits);
  return sign * std::ldexp(significand, static_cast<int>(field) - info.exponent_bias);
}

// ─── [exp range] ─────────────────────────────────────────────────────────────────────────

double largest_finite_exp_input(Format format) {
  // Positive doubles are ordered like their bit patterns, so bisect on the bits: exp(0) = 1 is
  // finite in every format and exp(710) overflows even binary64. The predicate is monotone
  // because exp and rounding are.
  const auto finite_at = [format](double x) { return std::isfinite(round_to(format, std::exp(x))); };
  std::uint64_t finite_bits = std::bit_cast<std::uint64_t>(0.0);
  std::uint64_t overflow_bits = std::bit_cast<std::uint64_t>(710.0);
  while (overflow_bits - finite_bits > 1) {
    const std::uint64_t middle = finite_bits + (overflow_bits - finite_bits) / 2;
    (finite_at(std::bit_cast<double>(middle)) ? finite_bits : overflow_bits) = middle;
  }
  return std::bit_cast<double>(finite_bits);
}

// ─── [softmax kernels] ───────────────────────────────────────────────────────────────────

namespace {

// Arithmetic in one format: each result goes through round_to before anything else sees it.
struct FormatArithmetic {
  Format format;
  Overflow overflow;
  double operator()(double value) const { return round_to(format, value, overflow); }
  double subtract(double a, double b) const { return (*this)(a - b); }
  double add(double a, double b) const { return (*this)(a + b); }
  double multiply(double a, double b) const { return (*this)(a * b); }
  double divide(double a, double b) const { return (*this)(a / b); }
  double exp(double a) const { return (*this)(std::exp(a)); }  // exp in double, rounded once
};

// NaN-propagating max: a NaN score must poison the row as it does in hardware max reductions
// that use IEEE maximum, instead of being skipped by a plain comparison.
double max_with_nan(double running, double x) { return (x > running || std::isnan(x)) ? x : running; }

void naive_kernel(std::span<double> weights, std::span<const double> scores, const FormatArithmetic& fmt,
                  double temperature) {
  // Pass 1: e_i = exp(x_i/T) with no shift: any x_i/T above largest_finite_exp_input overflows.
  double sum = 0.0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    weights[i] = fmt.exp(fmt.divide(fmt(scores[i]), temperature));
    sum = fmt.add(sum, weights[i]);
  }
  // Pass 2: normalise. inf/inf = NaN and 0/0 = NaN are left for the report to count.
  for (double& w : weights) w = fmt.divide(w, sum);
}

void stable_kernel(std::span<double> weights, std::span<const double> scores, const FormatArithmetic& fmt,
                   double temperature) {
  // Pass 1: the max, starting at −∞.
  double max_score = -kInf;
  for (double x : scores) max_score = max_with_nan(max_score, fmt(x));
  // Pass 2: subtracting the max makes every exponent ≤ 0: exp ≤ 1 never overflows, and the
  // max's own term is exactly 1, so the sum is ≥ 1 and the division cannot be 0/0.
  double sum = 0.0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    weights[i] = fmt.exp(fmt.divide(fmt.subtract(fmt(scores[i]), max_score), temperature));
    sum = fmt.add(sum, weights[i]);
  }
  // Pass 3: normalise.
  for (double& w : weights) w = fmt.divide(w, sum);
}

void online_kernel(std::span<double> weights, std::span<const double> scores, const FormatArithmetic& fmt,
                   double temperature) {
  // Pass 1: running max m and normaliser d = Σ_{j seen} exp((x_j − m)/T). When the max grows
  // from m to m', every term seen so far must be rescaled by exp((m − m')/T) ≤ 1.
  double max_score = -kInf, normaliser = 0.0;
  for (double raw : scores) {
    const double x = fmt(raw);
    if (x == -kInf) continue;  // a masked score adds exactly 0; skipping avoids −inf − (−inf)
    const double new_max = max_with_nan(max_score, x);
    // Before the first score there is nothing to rescale. Computing exp((−∞ − m')/T) anyway
    // would be NaN in formats without infinities (E4M3 rounds −∞ to NaN) and poison d.
    const double rescale =
        max_score == -kInf ? 0.0 : fmt.exp(fmt.divide(fmt.subtract(max_score, new_max), temperature));
    const double term = fmt.exp(fmt.divide(fmt.subtract(x, new_max), temperature));
    normaliser = fmt.add(fmt.multiply(normaliser, rescale), term);
    max_score = new_max;
  }
  // Pass 2: normalise with the final max and normaliser (an all −inf row leaves d = 0: 0/0).
  for (std::size_t i = 0; i < scores.size(); ++i)
    weights[i] = fmt.divide(fmt.exp(fmt.divide(fmt.subtract(fmt(scores[i]), max_score), temperature)), normaliser);
}

}  // namespace

// ─── [report] ────────────────────────────────────────────────────────────────────────────

PrecisionReport softmax_in_format(std::span<double> weights, std::span<const double> scores, Format format,
                                  SoftmaxVariant variant, double temperature, Overflow overflow) {
  assert(weights.size() == scores.size() && !scores.empty() && temperature > 0.0);
  const FormatArithmetic fmt{format, overflow};
  const double format_temperature = fmt(temperature);
  switch (variant) {
    case SoftmaxVariant::naive: naive_kernel(weights, scores, fmt, format_temperature); break;
    case SoftmaxVariant::stable: stable_kernel(weights, scores, fmt, format_temperature); break;
    case SoftmaxVariant::online: online_kernel(weights, scores, fmt, format_temperature); break;
  }

  // The double reference p_i = exp((x_i − m)/T) / Σ, computed on the fly (no buffer). Its own
  // error (~1e-15) is far below anything a narrow format shows.
  double max_score = -kInf;
  bool reference_defined = true;
  for (double x : scores) {
    if (std::isnan(x)) reference_defined = false;
    max_score = std::max(max_score, x);
  }
  const bool finite_max = std::isfinite(max_score);
  reference_defined = reference_defined && finite_max;
  double reference_sum = 0.0;
  if (reference_defined)
    for (double x : scores) reference_sum += std::exp((x - max_score) / temperature);

  PrecisionReport report;
  double sum = 0.0, compensation = 0.0;  // Neumaier: the check must not add its own error
  bool error_is_nan = !reference_defined;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double w = weights[i];
    if (std::isnan(w)) ++report.nan_count;
    if (std::isinf(w)) ++report.inf_count;
    if (w == 0.0 && finite_max && std::isfinite(scores[i])) ++report.underflow_count;
    if (std::isfinite(w)) {
      const double t = sum + w;
      compensation += std::abs(sum) >= std::abs(w) ? (sum - t) + w : (w - t) + sum;
      sum = t;
    }
    if (reference_defined) {
      const double error = std::abs(w - std::exp((scores[i] - max_score) / temperature) / reference_sum);
      if (std::isnan(error))
        error_is_nan = true;
      else
        report.max_abs_error = std::max(report.max_abs_error, error);
    }
  }
  if (report.nan_count > 0)
    report.sum_error = kNaN;
  else if (report.inf_count > 0)
    report.sum_error = kInf;
  else
    report.sum_error = std::abs((sum + compensation) - 1.0);
  if (error_is_nan) report.max_abs_error = kNaN;
  return report;
}

}  // namespace smlab
