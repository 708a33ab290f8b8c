// Precision emulation: rounding to fp32/fp16/bf16/fp8 bit for bit against hand-checked values and
// the hardware, the formats' limits, and softmax computed in each format (overflow, underflow, NaN).
#include "smlab/precision.hpp"

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <vector>

#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// One hand-checked conversion: the input, the expected bit pattern, the expected value (NaN
// where the value is NaN), and why the case is there.
struct Conversion {
  Format format;
  double input;
  std::uint64_t bits;
  double value;
  const char* why;
  Overflow overflow = Overflow::non_saturating;
};

// Each row was worked by hand from the field layout (sign | exponent | fraction, bias as in
// precision.hpp); hex-float inputs make the ties exact.
const Conversion kConversions[] = {
    // fp32: binary32, bias 127.
    {Format::fp32, 1.0, 0x3F800000, 1.0, "one"},
    {Format::fp32, 0x1.000001p0, 0x3F800000, 1.0, "tie 1 + 2^-24: down to even 1"},
    {Format::fp32, 0x1.000003p0, 0x3F800002, 0x1.000004p0, "tie 1 + 3·2^-24: up to even …10"},
    {Format::fp32, 0x1.0000010000001p0, 0x3F800001, 0x1.000002p0, "just above the tie: up"},
    {Format::fp32, 0x1.fffffep127, 0x7F7FFFFF, 0x1.fffffep127, "max finite FLT_MAX"},
    {Format::fp32, 0x1.fffffefffffffp127, 0x7F7FFFFF, 0x1.fffffep127, "just below the overflow tie"},
    {Format::fp32, 0x1.ffffffp127, 0x7F800000, kInf, "overflow tie 2^128 − 2^103: to inf"},
    {Format::fp32, 1e39, 0x7F7FFFFF, 0x1.fffffep127, "saturating overflow", Overflow::saturating},
    {Format::fp32, 0x1p-126, 0x00800000, 0x1p-126, "min normal"},
    {Format::fp32, 0x1p-149, 0x00000001, 0x1p-149, "min subnormal"},
    {Format::fp32, 0x1p-150, 0x00000000, 0.0, "half the min subnormal: tie to even 0"},
    {Format::fp32, 0x1.0000000000001p-150, 0x00000001, 0x1p-149, "just above half: up"},
    {Format::fp32, 0x1.8p-149, 0x00000002, 0x1p-148, "1.5 subnormal units: tie to even 2"},
    {Format::fp32, 0.1, 0x3DCCCCCD, 0x1.99999ap-4, "0.1"},
    {Format::fp32, -0.0, 0x80000000, -0.0, "negative zero"},
    {Format::fp32, -kInf, 0xFF800000, -kInf, "-inf"},
    {Format::fp32, kNaN, 0x7FC00000, kNaN, "NaN"},
    // fp16: binary16, bias 15, max 65504 = 0x1.ffcp15.
    {Format::fp16, 1.0, 0x3C00, 1.0, "one"},
    {Format::fp16, 0x1.002p0, 0x3C00, 1.0, "tie 1 + 2^-11: down to even"},
    {Format::fp16, 0x1.006p0, 0x3C02, 0x1.008p0, "tie 1 + 3·2^-11: up to even"},
    {Format::fp16, 1.0 / 3.0, 0x3555, 0x1.554p-2, "1/3"},
    {Format::fp16, 0.1, 0x2E66, 0x1.998p-4, "0.1 = 0.0999755859375"},
    {Format::fp16, -2.0, 0xC000, -2.0, "-2"},
    {Format::fp16, 65504.0, 0x7BFF, 65504.0, "max finite"},
    {Format::fp16, 65519.99, 0x7BFF, 65504.0, "just below the overflow tie 65520"},
    {Format::fp16, 65520.0, 0x7C00, kInf, "overflow tie 65520: to inf"},
    {Format::fp16, 1e5, 0x7C00, kInf, "overflow"},
    {Format::fp16, 1e5, 0x7BFF, 65504.0, "saturating overflow", Overflow::saturating},
    {Format::fp16, -kInf, 0xFBFF, -65504.0, "saturating -inf", Overflow::saturating},
    {Format::fp16, 0x1p-14, 0x0400, 0x1p-14, "min normal"},
    {Format::fp16, 0x1.ff8p-15, 0x03FF, 0x1.ff8p-15, "max subnormal 1023·2^-24"},
    {Format::fp16, 0x1p-24, 0x0001, 0x1p-24, "min subnormal 5.96e-8"},
    {Format::fp16, 0x1p-25, 0x0000, 0.0, "half the min subnormal: tie to even 0"},
    {Format::fp16, 0x1.0000000000001p-25, 0x0001, 0x1p-24, "just above half: up"},
    {Format::fp16, 0x1.8p-24, 0x0002, 0x1p-23, "1.5 subnormal units: tie to even 2"},
    {Format::fp16, 0x1.4p-24, 0x0001, 0x1p-24, "1.25 units: down"},
    {Format::fp16, -0x1p-26, 0x8000, -0.0, "underflow keeps the sign"},
    {Format::fp16, -kInf, 0xFC00, -kInf, "-inf"},
    {Format::fp16, kNaN, 0x7E00, kNaN, "NaN"},
    // bf16: binary32's exponent, 7 fraction bits.
    {Format::bf16, 1.0, 0x3F80, 1.0, "one"},
    {Format::bf16, 3.0, 0x4040, 3.0, "three"},
    {Format::bf16, 0x1.01p0, 0x3F80, 1.0, "tie 1 + 2^-8: down to even"},
    {Format::bf16, 0x1.03p0, 0x3F82, 0x1.04p0, "tie 1 + 3·2^-8: up to even"},
    {Format::bf16, 0.1, 0x3DCD, 0x1.9ap-4, "0.1 = 0.10009765625"},
    {Format::bf16, 0x1.fep127, 0x7F7F, 0x1.fep127, "max finite 3.39e38"},
    {Format::bf16, 0x1.fefffffffffffp127, 0x7F7F, 0x1.fep127, "just below the overflow tie"},
    {Format::bf16, 0x1.ffp127, 0x7F80, kInf, "overflow tie: to inf"},
    {Format::bf16, 0x1p-126, 0x0080, 0x1p-126, "min normal"},
    {Format::bf16, 0x1p-133, 0x0001, 0x1p-133, "min subnormal"},
    {Format::bf16, 0x1p-134, 0x0000, 0.0, "half the min subnormal: tie to even 0"},
    {Format::bf16, 0x1.8p-133, 0x0002, 0x1p-132, "1.5 subnormal units: tie to even 2"},
    {Format::bf16, kNaN, 0x7FC0, kNaN, "NaN"},
    // E4M3: bias 7, no inf, S.1111.111 NaN, max 0x1.cp8 = 448.
    {Format::fp8_e4m3, 1.0, 0x38, 1.0, "one"},
    {Format::fp8_e4m3, 0x1.2p0, 0x39, 0x1.2p0, "1.125"},
    {Format::fp8_e4m3, 0x1.1p0, 0x38, 1.0, "tie 1.0625: down to even"},
    {Format::fp8_e4m3, 0x1.3p0, 0x3A, 0x1.4p0, "tie 1.1875: up to even 1.25"},
    {Format::fp8_e4m3, 0.1, 0x1D, 0x1.ap-4, "0.1 = 0.1015625"},
    {Format::fp8_e4m3, 240.0, 0x77, 240.0, "top of the binade below"},
    {Format::fp8_e4m3, 256.0, 0x78, 256.0, "exponent field 1111 holds numbers"},
    {Format::fp8_e4m3, 448.0, 0x7E, 448.0, "max finite"},
    {Format::fp8_e4m3, -448.0, 0xFE, -448.0, "-max finite"},
    {Format::fp8_e4m3, 464.0, 0x7E, 448.0, "tie 464 between 448 (…110) and NaN slot (…111): even 448"},
    {Format::fp8_e4m3, 465.0, 0x7F, kNaN, "above 464: overflow, NaN (no inf)"},
    {Format::fp8_e4m3, 480.0, 0x7F, kNaN, "480 would be S.1111.111: NaN"},
    {Format::fp8_e4m3, kInf, 0x7F, kNaN, "inf input: NaN"},
    {Format::fp8_e4m3, 465.0, 0x7E, 448.0, "saturating overflow", Overflow::saturating},
    {Format::fp8_e4m3, -kInf, 0xFE, -448.0, "saturating -inf", Overflow::saturating},
    {Format::fp8_e4m3, 0x1p-6, 0x08, 0x1p-6, "min normal"},
    {Format::fp8_e4m3, 0x1.cp-7, 0x07, 0x1.cp-7, "max subnormal 7·2^-9"},
    {Format::fp8_e4m3, 0x1p-9, 0x01, 0x1p-9, "min subnormal"},
    {Format::fp8_e4m3, 0x1p-10, 0x00, 0.0, "half the min subnormal: tie to even 0"},
    {Format::fp8_e4m3, 0x1.8p-9, 0x02, 0x1p-8, "1.5 subnormal units: tie to even 2"},
    {Format::fp8_e4m3, kNaN, 0x7F, kNaN, "NaN"},
    // E5M2: bias 15, IEEE-like, max 0x1.cp15 = 57344.
    {Format::fp8_e5m2, 1.0, 0x3C, 1.0, "one"},
    {Format::fp8_e5m2, 0x1.2p0, 0x3C, 1.0, "tie 1.125: down to even"},
    {Format::fp8_e5m2, 0x1.6p0, 0x3E, 0x1.8p0, "tie 1.375: up to even 1.5"},
    {Format::fp8_e5m2, 0.1, 0x2E, 0x1.8p-4, "0.1 = 0.09375"},
    {Format::fp8_e5m2, 57344.0, 0x7B, 57344.0, "max finite"},
    {Format::fp8_e5m2, 61439.0, 0x7B, 57344.0, "just below the overflow tie 61440"},
    {Format::fp8_e5m2, 61440.0, 0x7C, kInf, "overflow tie: to inf"},
    {Format::fp8_e5m2, 1e6, 0x7B, 57344.0, "saturating overflow", Overflow::saturating},
    {Format::fp8_e5m2, -kInf, 0xFC, -kInf, "-inf"},
    {Format::fp8_e5m2, 0x1p-14, 0x04, 0x1p-14, "min normal"},
    {Format::fp8_e5m2, 0x1p-16, 0x01, 0x1p-16, "min subnormal"},
    {Format::fp8_e5m2, 0x1p-17, 0x00, 0.0, "half the min subnormal: tie to even 0"},
    {Format::fp8_e5m2, 0x1.8p-16, 0x02, 0x1p-15, "1.5 subnormal units: tie to even 2"},
    {Format::fp8_e5m2, kNaN, 0x7F, kNaN, "NaN"},
    // fp64 is the host format: the identity.
    {Format::fp64, 0.1, 0x3FB999999999999A, 0.1, "identity"},
    {Format::fp64, 0x1p-1074, 0x0000000000000001, 0x1p-1074, "min subnormal"},
};

bool same_value(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || (a == b && std::signbit(a) == std::signbit(b));
}

TEST(Precision, ConversionTableIsBitExact) {
  for (const Conversion& c : kConversions) {
    const FormatInfo info = format_info(c.format);
    const double rounded = round_to(c.format, c.input, c.overflow);
    EXPECT_TRUE(same_value(rounded, c.value)) << info.name << " " << c.why << ": round_to(" << std::hexfloat << c.input
                                              << ") = " << rounded << ", expected " << c.value << std::defaultfloat;
    EXPECT_EQ(to_bits(c.format, c.input, c.overflow), c.bits)
        << info.name << " " << c.why << ": to_bits(" << std::hexfloat << c.input << ")" << std::hex << " expected 0x"
        << c.bits;
    EXPECT_TRUE(same_value(from_bits(c.format, c.bits), c.value))
        << info.name << " " << c.why << ": from_bits(0x" << std::hex << c.bits << ")";
  }
}

// Limits, against values typed from the format definitions (not from the code's own formulas).
TEST(Precision, FormatLimits) {
  struct Limits {
    Format format;
    double max_finite, min_normal, min_subnormal, epsilon;
  };
  const Limits table[] = {
      {Format::fp64, DBL_MAX, DBL_MIN, 0x1p-1074, DBL_EPSILON}, {Format::fp32, FLT_MAX, FLT_MIN, 0x1p-149, FLT_EPSILON},
      {Format::fp16, 65504.0, 0x1p-14, 0x1p-24, 0x1p-10},       {Format::bf16, 0x1.fep127, 0x1p-126, 0x1p-133, 0x1p-7},
      {Format::fp8_e4m3, 448.0, 0x1p-6, 0x1p-9, 0x1p-3},        {Format::fp8_e5m2, 57344.0, 0x1p-14, 0x1p-16, 0x1p-2},
  };
  for (const Limits& l : table) {
    const FormatInfo info = format_info(l.format);
    EXPECT_EQ(info.max_finite, l.max_finite) << info.name;
    EXPECT_EQ(info.min_normal, l.min_normal) << info.name;
    EXPECT_EQ(info.min_subnormal, l.min_subnormal) << info.name;
    EXPECT_EQ(info.epsilon, l.epsilon) << info.name;
    EXPECT_EQ(info.has_infinity, l.format != Format::fp8_e4m3) << info.name;
  }
}

// Every bit pattern of the 8- and 16-bit formats: decoding then encoding gives the pattern back
// (NaNs give the canonical NaN), values increase with the pattern, and for every pair of
// neighbours a, b the midpoint rounds to the one whose last bit is even, while the doubles just
// below and above the midpoint round down and up: ties-to-even in both directions, everywhere.
TEST(Precision, EveryPatternRoundTripsAndEveryMidpointTiesToEven) {
  for (Format format : {Format::fp16, Format::bf16, Format::fp8_e4m3, Format::fp8_e5m2}) {
    const FormatInfo info = format_info(format);
    const std::uint64_t count = std::uint64_t{1} << info.total_bits;
    const std::uint64_t sign_bit = count >> 1;
    int failures = 0;
    for (std::uint64_t bits = 0; bits < count && failures < 5; ++bits) {
      const double value = from_bits(format, bits);
      if (std::isnan(value)) {
        failures += to_bits(format, value) == to_bits(format, kNaN) ? 0 : 1;
        continue;
      }
      if (to_bits(format, value) != bits) {
        ADD_FAILURE() << info.name << " pattern 0x" << std::hex << bits << " decodes to " << std::hexfloat << value
                      << " which encodes differently";
        ++failures;
      }
      // Neighbours among the positive finite values (the negative half mirrors them).
      if (bits >= sign_bit || bits + 1 >= sign_bit) continue;
      const double next = from_bits(format, bits + 1);
      if (!std::isfinite(next)) continue;
      if (!(next > value)) {
        ADD_FAILURE() << info.name << " not increasing at 0x" << std::hex << bits;
        ++failures;
        continue;
      }
      const double midpoint = 0.5 * (value + next);  // exact in double: both have ≤ 24 bits
      const double even = bits % 2 == 0 ? value : next;
      if (round_to(format, midpoint) != even || round_to(format, std::nextafter(midpoint, 0.0)) != value ||
          round_to(format, std::nextafter(midpoint, kInf)) != next) {
        ADD_FAILURE() << info.name << " midpoint of 0x" << std::hex << bits << " and its successor (" << std::hexfloat
                      << value << ", " << next << ") rounds wrongly";
        ++failures;
      }
    }
    EXPECT_EQ(failures, 0) << info.name;
  }
}

// The hardware as a second opinion: (float)x and (_Float16)x round double → narrow correctly in
// GCC, so round_to must agree with them bit for bit on random doubles of every magnitude,
// including the subnormal and overflow ranges.
TEST(Precision, AgreesWithHardwareConversions) {
  SplitMix64 bits(2024);
  for (int k = 0; k < 400000; ++k) {
    const double mantissa = 1.0 + bits.uniform();
    const int exponent32 = static_cast<int>(bits.next() % 300) - 160;  // 2^-160 … 2^139
    const double x = (k % 2 ? -1.0 : 1.0) * std::ldexp(mantissa, exponent32);
    const double hardware32 = static_cast<double>(static_cast<float>(x));
    ASSERT_TRUE(same_value(round_to(Format::fp32, x), hardware32)) << std::hexfloat << "fp32 x=" << x;
    const int exponent16 = static_cast<int>(bits.next() % 50) - 30;  // 2^-30 … 2^19
    const double y = (k % 3 ? 1.0 : -1.0) * std::ldexp(mantissa, exponent16);
    const double hardware16 = static_cast<double>(static_cast<_Float16>(y));
    ASSERT_TRUE(same_value(round_to(Format::fp16, y), hardware16)) << std::hexfloat << "fp16 y=" << y;
  }
}

// The largest exp input: computed by bisection; it must sit at log of the overflow threshold
// (the smallest value that rounds to inf/NaN: max + half a gap, or just above 464 in E4M3).
TEST(Precision, LargestFiniteExpInput) {
  const struct {
    Format format;
    double threshold;  // exp of the answer must stay below (E4M3: at most) this
    double approximately;
  } table[] = {
      {Format::fp64, DBL_MAX, 709.78},   {Format::fp32, 0x1.ffffffp127, 88.72}, {Format::fp16, 65520.0, 11.09},
      {Format::bf16, 0x1.ffp127, 88.72}, {Format::fp8_e4m3, 464.0, 6.14},       {Format::fp8_e5m2, 61440.0, 11.03},
  };
  for (const auto& row : table) {
    const FormatInfo info = format_info(row.format);
    const double x = largest_finite_exp_input(row.format);
    EXPECT_NEAR(x, row.approximately, 0.005) << info.name;
    EXPECT_NEAR(x, std::log(row.threshold), 1e-13 * x) << info.name;
    EXPECT_TRUE(std::isfinite(round_to(row.format, std::exp(x)))) << info.name << " x=" << x;
    EXPECT_FALSE(std::isfinite(round_to(row.format, std::exp(std::nextafter(x, kInf))))) << info.name << " x=" << x;
    std::printf("[ measured ] %s: largest finite exp input %.17g\n", std::string(info.name).c_str(), x);
  }
}

// ─── Softmax in a format ────────────────────────────────────────────────────────────────────

std::vector<double> weights_in(Format format, SoftmaxVariant variant, const std::vector<double>& scores,
                               PrecisionReport& report, double temperature = 1.0,
                               Overflow overflow = Overflow::non_saturating) {
  std::vector<double> weights(scores.size());
  report = softmax_in_format(weights, scores, format, variant, temperature, overflow);
  return weights;
}

// DESIGN §8: [1000, 1001, 1002] naive in fp32 is inf/inf = NaN; stable gives the [1, 2, 3]
// answer to fp32 accuracy (a few ulp: 3e-7 relative); online the same.
TEST(PrecisionSoftmax, NaiveOverflowsInFp32StableDoesNot) {
  const std::vector<double> scores{1000, 1001, 1002};
  PrecisionReport report;
  const auto naive = weights_in(Format::fp32, SoftmaxVariant::naive, scores, report);
  EXPECT_EQ(report.nan_count, 3);
  EXPECT_TRUE(std::isnan(report.sum_error));
  for (double w : naive) EXPECT_TRUE(std::isnan(w));
  const double expected[] = {0.09003057317038046, 0.24472847105479767, 0.6652409557748219};
  for (SoftmaxVariant variant : {SoftmaxVariant::stable, SoftmaxVariant::online}) {
    const auto weights = weights_in(Format::fp32, variant, scores, report);
    EXPECT_TRUE(report.finite());
    EXPECT_EQ(report.underflow_count, 0);
    for (int i = 0; i < 3; ++i) EXPECT_NEAR(weights[i], expected[i], 3e-7 * expected[i]) << "i=" << i;
    EXPECT_LE(report.sum_error, 3e-7);
    EXPECT_LE(report.max_abs_error, 3e-7);
  }
}

// fp16 overflows above 11.09: naive [10, 11, 12] gives e^12 = inf (and a sum of inf), so weights
// 0, 0 and inf/inf = NaN; the stable kernel is fine to fp16 accuracy (ε = 2^-10, a few roundings).
TEST(PrecisionSoftmax, NaiveOverflowsInFp16AboveElevenStableDoesNot) {
  const std::vector<double> scores{10, 11, 12};
  PrecisionReport report;
  const auto naive = weights_in(Format::fp16, SoftmaxVariant::naive, scores, report);
  EXPECT_FALSE(report.finite());
  EXPECT_EQ(report.nan_count, 1);
  EXPECT_EQ(report.underflow_count, 2);  // 22026/inf and 59872/inf: exactly 0
  const auto stable = weights_in(Format::fp16, SoftmaxVariant::stable, scores, report);
  EXPECT_TRUE(report.finite());
  EXPECT_LE(report.max_abs_error, 4 * 0x1p-10);
  EXPECT_LE(report.sum_error, 4 * 0x1p-10);
  // At 11 (below 11.09) naive fp16 still works: e^11 = 59872 rounds finite.
  weights_in(Format::fp16, SoftmaxVariant::naive, {9.0, 11.0}, report);
  EXPECT_TRUE(report.finite());
}

// Narrow formats underflow: e^−20 = 2e-9 is below fp16's smallest subnormal (6e-8), so the
// weight is exactly 0 though the exact weight is positive; fp32 keeps it.
TEST(PrecisionSoftmax, UnderflowIsCounted) {
  PrecisionReport report;
  const auto fp16 = weights_in(Format::fp16, SoftmaxVariant::stable, {0.0, -20.0}, report);
  EXPECT_EQ(fp16[1], 0.0);
  EXPECT_EQ(report.underflow_count, 1);
  const auto fp32 = weights_in(Format::fp32, SoftmaxVariant::stable, {0.0, -20.0}, report);
  EXPECT_GT(fp32[1], 0.0);
  EXPECT_EQ(report.underflow_count, 0);
  // A masked score is 0 by design, not an underflow.
  weights_in(Format::fp16, SoftmaxVariant::stable, {0.0, -kInf}, report);
  EXPECT_EQ(report.underflow_count, 0);
}

// A bf16 accumulator stagnates: with 8 significant bits, 256 + 1 is a tie that rounds back to
// 256, so the sum of 4096 ones stops at 256 and every weight comes out 1/256: Σ w = 16.
TEST(PrecisionSoftmax, Bf16SumStagnatesAt256) {
  PrecisionReport report;
  const auto weights = weights_in(Format::bf16, SoftmaxVariant::stable, std::vector<double>(4096, 0.5), report);
  EXPECT_EQ(weights[0], 1.0 / 256.0);
  EXPECT_EQ(report.sum_error, 15.0);
  EXPECT_TRUE(report.finite());
}

// fp64 emulation is the plain double kernel: identical to the naive kernel's operations, and
// within a few ulp of the accurate stable softmax.
TEST(PrecisionSoftmax, Fp64IsTheDoubleKernel) {
  const std::vector<double> scores{0.5, -1.25, 3.0, 2.0, -7.5};
  PrecisionReport report;
  for (double temperature : {1.0, 0.3}) {
    const auto naive = weights_in(Format::fp64, SoftmaxVariant::naive, scores, report, temperature);
    std::vector<double> reference(scores.size());
    naive_softmax(reference, scores, temperature);
    EXPECT_EQ(naive, reference) << "T=" << temperature;
    for (SoftmaxVariant variant : {SoftmaxVariant::stable, SoftmaxVariant::online}) {
      weights_in(Format::fp64, variant, scores, report, temperature);
      EXPECT_LE(report.max_abs_error, 1e-15) << "T=" << temperature;
      EXPECT_EQ(report.underflow_count, 0);
    }
  }
}

// E4M3 overflows at e^6.14: non-saturating gives NaN (no inf exists), saturating clamps to 448 and
// hides the overflow behind a finite but wrong answer — both visible in the report.
TEST(PrecisionSoftmax, E4m3OverflowModes) {
  const std::vector<double> scores{7.0, 0.0};
  PrecisionReport report;
  weights_in(Format::fp8_e4m3, SoftmaxVariant::naive, scores, report);
  EXPECT_GT(report.nan_count, 0);
  const auto saturated = weights_in(Format::fp8_e4m3, SoftmaxVariant::naive, scores, report, 1.0, Overflow::saturating);
  EXPECT_TRUE(report.finite());
  EXPECT_EQ(saturated[0], 1.0);  // 448/448.., while the truth is 0.99909
  weights_in(Format::fp8_e4m3, SoftmaxVariant::stable, scores, report);
  EXPECT_TRUE(report.finite());
  EXPECT_LE(report.max_abs_error, 0.07);  // E4M3: 3 fraction bits, ε = 1/8
}

// Special rows flow as in hardware and are counted: all −inf is NaN in every variant (0/0 or
// −inf − (−inf)); a masked prefix is fine for the online kernel (it skips −inf).
TEST(PrecisionSoftmax, SpecialRowsAreCountedNotRepaired) {
  PrecisionReport report;
  for (SoftmaxVariant variant : {SoftmaxVariant::naive, SoftmaxVariant::stable, SoftmaxVariant::online}) {
    weights_in(Format::fp32, variant, {-kInf, -kInf, -kInf}, report);
    EXPECT_EQ(report.nan_count, 3) << static_cast<int>(variant);
    EXPECT_TRUE(std::isnan(report.max_abs_error));
    weights_in(Format::fp32, variant, {1.0, kNaN}, report);
    EXPECT_EQ(report.nan_count, 2) << static_cast<int>(variant);
  }
  const auto online = weights_in(Format::fp16, SoftmaxVariant::online, {-kInf, -kInf, 1.0, 2.0}, report);
  EXPECT_TRUE(report.finite());
  EXPECT_EQ(online[0], 0.0);
  EXPECT_EQ(report.underflow_count, 0);
}

// Errors shrink as the format widens (random rows, stable kernel): a coarse sanity check of the
// whole pipeline, with the measured errors printed.
TEST(PrecisionSoftmax, ErrorsShrinkWithPrecision) {
  NormalGenerator rng(42);
  std::vector<double> scores(256);
  for (double& x : scores) x = 2.0 * rng.next();
  PrecisionReport report;
  double previous = kInf;
  for (Format format : {Format::fp8_e4m3, Format::fp16, Format::fp32, Format::fp64}) {
    weights_in(format, SoftmaxVariant::stable, scores, report);
    std::printf("[ measured ] stable softmax n=256 in %s: max |error| %.3g, |sum - 1| %.3g\n",
                std::string(format_info(format).name).c_str(), report.max_abs_error, report.sum_error);
    EXPECT_LT(report.max_abs_error, previous) << format_info(format).name;
    previous = report.max_abs_error;
  }
}

// The online kernel starts from m = −∞. E4M3 has no infinities, so a rescale of the
// empty sum by exp((−∞ − m')/T) would round to NaN and poison every weight; every
// format must give the same finite weights as its stable kernel on a tame row
// (tolerance: both round each operation to the format, so they differ by a few ulps).
TEST(PrecisionSoftmax, OnlineIsFiniteInEveryFormat) {
  const std::vector<double> scores{1.0, 2.0, 3.0, 0.5};
  for (Format format : all_formats) {
    std::vector<double> online(scores.size()), stable(scores.size());
    const PrecisionReport online_report = softmax_in_format(online, scores, format, SoftmaxVariant::online);
    softmax_in_format(stable, scores, format, SoftmaxVariant::stable);
    EXPECT_EQ(online_report.nan_count, 0) << format_info(format).name;
    EXPECT_EQ(online_report.inf_count, 0) << format_info(format).name;
    for (std::size_t i = 0; i < scores.size(); ++i)
      EXPECT_NEAR(online[i], stable[i], 4 * format_info(format).epsilon) << format_info(format).name << " i=" << i;
  }
}

}  // namespace
}  // namespace smlab
