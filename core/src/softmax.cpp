// Reference softmax kernels in double (and the float row kernel for attention maps).
//
// [SECTION] Index
//   [SECTION] Helpers
//   [SECTION] Softmax variants
//   [SECTION] Statistics
//   [SECTION] Gradients
//   [SECTION] Float rows
#include "smlab/softmax.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>

#include "row_scan.hpp"

namespace smlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLargestDouble = std::numeric_limits<double>::max();

// [SECTION] Helpers

using detail::fill_undefined;
using detail::RowScan;
using detail::scan_row;

// How (x − m)/T is formed. exp turns an absolute error δ in its argument into a relative error
// δ of the result, and near x − m = −700 one ulp of the argument is already 1.1e-13, so the
// kernels keep the argument as head + tail: head the rounded value, tail what the subtraction
// and the division dropped, and take exp(head)·(1 + tail). Three kinds of temperature, each a
// type so that the per-element loop has no branch on it:
//   T = 1: nothing to divide, the tail is the subtraction's rounding alone.
//   T in [2^-900, 2^900]: multiply by 1/T (far cheaper than dividing; the tail repairs the extra
//     rounding) and get x − q·T exactly from Dekker's product on 26-bit halves (Veltkamp split).
//   otherwise: divide, and get the remainder from std::fma — exact, but a library call on
//     baseline x86-64, which has no FMA instruction; only for T whose split would over/underflow.
struct UnitTemperature {
  double divide(double x) const { return x; }
  double remainder(double x, double q) const { return x - q; }
};

struct SplitTemperature {
  double value, inverse, high, low;
  explicit SplitTemperature(double t) : value(t), inverse(1.0 / t) {
    const double scaled = 134217729.0 * t;  // 2^27 + 1
    high = scaled - (scaled - t);
    low = t - high;
  }
  double divide(double x) const { return x * inverse; }
  double remainder(double x, double q) const {
#ifdef FP_FAST_FMA  // built for a CPU with an FMA instruction: one exact instruction
    return std::fma(-q, value, x);
#else
    // q·T = product + error exactly: the half-by-half products are exact in double.
    const double scaled = 134217729.0 * q;
    const double q_high = scaled - (scaled - q), q_low = q - q_high;
    const double product = q * value;
    const double error = ((q_high * high - product) + q_high * low + q_low * high) + q_low * low;
    // x − product is exact (product ≈ x, Sterbenz), so only the last subtraction rounds, at
    // ε of a remainder that is itself ~ε·x: nothing that matters.
    return (x - product) - error;
#endif
  }
};

struct FusedTemperature {
  double value;
  double divide(double x) const { return x / value; }
  double remainder(double x, double q) const { return std::fma(-q, value, x); }
};

// Calls body(temperature) with the cheapest exact representation of T.
template <class Body>
decltype(auto) with_temperature(double temperature, Body body) {
  temperature = std::min(temperature, kLargestDouble);  // T = +inf behaves as the largest double
  if (temperature == 1.0) return body(UnitTemperature{});
  if (temperature >= 0x1p-900 && temperature <= 0x1p900) return body(SplitTemperature(temperature));
  return body(FusedTemperature{temperature});
}

// exp((x − m)/T) to ~1 ulp for any magnitude of the argument, for x ≤ m (m finite).
template <class Temperature>
double shifted_exp(double x, double max_score, const Temperature& temperature) {
  const double difference = x - max_score;
  const double head = temperature.divide(difference);
  // Below log(smallest subnormal / 2) exp is 0 anyway; this also takes x = −inf and x − m
  // beyond the double range (−inf), so what follows only sees finite, bounded values.
  if (!(head > -746.0)) return 0.0;
  // TwoSum (Knuth): difference + rounding = x + (−m) exactly, whatever the two magnitudes are.
  const double x_part = difference + max_score;
  const double max_part = difference - x_part;
  const double rounding = (x - x_part) + (-max_score - max_part);
  // head + tail = (difference + rounding)/T up to ~ε·|tail|.
  const double tail = temperature.divide(temperature.remainder(difference, head) + rounding);
  // exp(head + tail) = e^head (1 + tail + O(tail²)), |tail| ≲ 1e-13; e·tail is itself tiny, so
  // its own rounding does not matter.
  const double e = std::exp(head);
  return e + e * tail;
}

// (x − m)/T for log-softmax, which needs no tail: ℓ = (x − m)/T − log Σ adds two terms of the
// same sign, so ℓ inherits the quotient's relative error (½ ulp) and no more.
double shifted_logit(double x, double max_score, double temperature) {
  const double difference = x - max_score;
  if (std::isfinite(difference) || x == -kInf) return difference / temperature;
  return x / temperature - max_score / temperature;  // x − m beyond the double range
}

// Neumaier's compensated sum: the running error of each addition is kept and added back, so
// the result is the exact sum rounded once, plus n·ε² terms, for any number of terms.
struct CompensatedSum {
  double sum = 0.0;
  double compensation = 0.0;
  void add(double v) {
    const double t = sum + v;
    compensation += std::abs(sum) >= std::abs(v) ? (sum - t) + v : (v - t) + sum;
    sum = t;
  }
  double value() const { return sum + compensation; }
};

// Σ_{i ≠ max_index} exp((x_i − m)/T), handing each exp (including the max's 1) to keep(i, e).
// The max's own term is exactly exp(0) = 1 and is left out, so that the full sum is 1 + rest:
// 1 + rest loses nothing that matters, and log(1 + rest) = log1p(rest) keeps rest's digits.
template <class Keep>
double sum_of_other_exps(std::span<const double> scores, const RowScan& scan, double temperature, Keep keep) {
  return with_temperature(temperature, [&](const auto& exact_temperature) {
    CompensatedSum rest;
    for (std::size_t i = 0; i < scores.size(); ++i) {
      const double e = shifted_exp(scores[i], scan.max_score, exact_temperature);
      keep(i, e);
      if (i != scan.max_index) rest.add(e);
    }
    return rest.value();
  });
}

// A distribution split at its largest entry: 1 − p_m is the one quantity a row near one-hot
// cannot form as 1 − p_m (p_m = 1 − 1e-22 rounds to exactly 1, and 1 − p_m is then 0, not 1e-22).
// It is the sum of the other entries instead, Σ_{j≠m} p_j, each of which carries its own digits.
// That identity needs Σ p = 1, so it is used only when the row sums to 1 to rounding (a row from
// a narrow format or a normaliser that drifts keeps the plain 1 − p_m); and only when p_m ≥ 1/2,
// because below that 1 − p_m does not cancel anyway.
struct LargestSplit {
  std::size_t index = 0;  // m: the first entry holding the largest value
  double largest = 0.0;   // p_m
  double others = 0.0;    // Σ_{j≠m} p_j, compensated
  bool complement_from_others = false;
  // 1 − p_i, to ~1 ulp for every entry: entries other than m are ≤ 1/2 (p_i + p_m ≤ 1).
  double complement(std::size_t i, double p_i) const {
    return i == index && complement_from_others ? others : 1.0 - p_i;
  }
};

LargestSplit split_at_largest(std::span<const double> probabilities) {
  LargestSplit split;
  split.largest = -kInf;
  for (std::size_t i = 0; i < probabilities.size(); ++i)
    if (probabilities[i] > split.largest) {
      split.largest = probabilities[i];
      split.index = i;
    }
  CompensatedSum others;
  for (std::size_t i = 0; i < probabilities.size(); ++i)
    if (i != split.index) others.add(probabilities[i]);
  split.others = others.value();
  // (p_m − 1) is exact for p_m in [1/2, 2] (Sterbenz), so this measures the row's drift from
  // Σ = 1; a row of n entries each within a few ulp of exact drifts by at most ~n·4ε.
  const double tolerance = 8.0 * std::numeric_limits<double>::epsilon() * static_cast<double>(probabilities.size());
  split.complement_from_others = split.largest >= 0.5 && std::abs((split.largest - 1.0) + split.others) <= tolerance;
  return split;
}

}  // namespace

// [SECTION] Softmax variants

bool softmax(std::span<double> probabilities, std::span<const double> scores, double temperature) {
  assert(probabilities.size() == scores.size() && !scores.empty() && temperature > 0.0);
  // Pass 1: the max (starting at −∞) and whether the row has a distribution at all.
  const RowScan scan = scan_row(scores);
  if (!scan.has_distribution()) return fill_undefined(probabilities);
  if (scan.max_score == kInf) {
    detail::share_among(probabilities, scores, kInf, scan.max_count);
    return true;
  }
  // Pass 2: exponentials. Subtracting the max makes every exponent ≤ 0, so exp never overflows
  // and the largest term is exactly 1 (the sum is ≥ 1: no 0/0 even when the rest underflows).
  // (x − m) is divided by T rather than x/T − m/T so that 1e300/0.01 cannot overflow.
  const double rest =
      sum_of_other_exps(scores, scan, temperature, [probabilities](std::size_t i, double e) { probabilities[i] = e; });
  // Pass 3: normalise; a division (one rounding) rather than a multiplication by 1/sum (two).
  const double sum = 1.0 + rest;
  for (double& p : probabilities) p /= sum;
  return true;
}

bool naive_softmax(std::span<double> probabilities, std::span<const double> scores, double temperature) {
  assert(probabilities.size() == scores.size() && !scores.empty() && temperature > 0.0);
  // Pass 1: exp(x/T) with no shift — this is the line that overflows for x/T > 709.78.
  double sum = 0.0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    probabilities[i] = std::exp(scores[i] / temperature);
    sum += probabilities[i];
  }
  // Pass 2: normalise; inf/inf and 0/0 stay NaN, and x/inf stays 0, for the caller to see.
  for (double& p : probabilities) p /= sum;
  return std::isfinite(sum) && sum > 0.0;
}

bool online_softmax(std::span<double> probabilities, std::span<const double> scores, double temperature) {
  assert(probabilities.size() == scores.size() && !scores.empty() && temperature > 0.0);
  temperature = std::min(temperature, kLargestDouble);
  // Pass 1: running max m and normaliser d = Σ_{j seen} exp((x_j − m)/T), in one sweep.
  double max_score = -kInf, normaliser = 0.0;
  std::size_t positive_infinities = 0;
  for (double x : scores) {
    if (std::isnan(x)) return fill_undefined(probabilities);
    if (x == -kInf) continue;  // masked: adds exactly 0 (and −inf − (−inf) would be NaN)
    if (x == kInf) {
      ++positive_infinities;
      continue;
    }
    if (x > max_score) {
      // A new max m' = x: the terms seen so far were relative to m, so rescale them by
      // exp((m − m')/T) ≤ 1; the new term is exp(0) = 1. From m = −∞ this gives d = 0·0 + 1.
      normaliser = normaliser * std::exp((max_score - x) / temperature) + 1.0;
      max_score = x;
    } else {
      normaliser += std::exp((x - max_score) / temperature);
    }
  }
  if (positive_infinities > 0) {
    detail::share_among(probabilities, scores, kInf, positive_infinities);
    return true;
  }
  if (max_score == -kInf) return fill_undefined(probabilities);
  // Pass 2: normalise against the final max.
  for (std::size_t i = 0; i < scores.size(); ++i)
    probabilities[i] = std::exp((scores[i] - max_score) / temperature) / normaliser;
  return true;
}

bool log_softmax(std::span<double> log_probabilities, std::span<const double> scores, double temperature) {
  assert(log_probabilities.size() == scores.size() && !scores.empty() && temperature > 0.0);
  // Pass 1: the max and whether a distribution exists.
  const RowScan scan = scan_row(scores);
  if (!scan.has_distribution()) return fill_undefined(log_probabilities);
  if (scan.max_score == kInf) {
    const double log_share = -std::log(static_cast<double>(scan.max_count));
    for (std::size_t i = 0; i < scores.size(); ++i) log_probabilities[i] = scores[i] == kInf ? log_share : -kInf;
    return true;
  }
  temperature = std::min(temperature, kLargestDouble);
  // Pass 2: log Σ = log(1 + rest) = log1p(rest), accurate even when rest is 1e-200.
  const double log_sum = std::log1p(sum_of_other_exps(scores, scan, temperature, [](std::size_t, double) {}));
  // Pass 3: ℓ_i = (x_i − m)/T − log Σ. The parts are ≤ 0 and ≥ 0 respectively, so the
  // subtraction adds magnitudes and never cancels.
  for (std::size_t i = 0; i < scores.size(); ++i)
    log_probabilities[i] = shifted_logit(scores[i], scan.max_score, temperature) - log_sum;
  return true;
}

double logsumexp(std::span<const double> scores, double temperature) {
  assert(!scores.empty() && temperature > 0.0);
  const RowScan scan = scan_row(scores);
  if (scan.has_nan) return kNaN;
  if (scan.max_score == -kInf || scan.max_score == kInf) return scan.max_score;
  temperature = std::min(temperature, kLargestDouble);
  // Σ exp((x_i − m)/T) = 1 + rest, as in softmax; only the sum is kept.
  const double rest = sum_of_other_exps(scores, scan, temperature, [](std::size_t, double) {});
  // m/T = head + remainder/T exactly (fma), so m/T itself costs no rounding before the sum.
  const double head = scan.max_score / temperature;
  if (!std::isfinite(head)) return head;
  const double remainder = std::fma(-head, temperature, scan.max_score);
  return head + (std::log1p(rest) + remainder / temperature);
}

// [SECTION] Statistics

double entropy_nats(std::span<const double> probabilities) {
  // H = −Σ p_i ln p_i. Every term is ≥ 0, so the sum never cancels; the one term that needs
  // care is the largest entry's. Near one-hot, p_m = 1 − r with r = Σ_{j≠m} p_j tiny: its term
  // −p_m ln p_m = −p_m log1p(−r) ≈ r is as large as all the others together (e.g. scores 200,
  // 250: r = e^-50, H = r(50 + 1) + O(r²), and the max's share r is 1/51 of H). ln p_m from the
  // rounded p_m = 1 would drop it; log1p(−r) keeps it to 1 ulp.
  if (probabilities.empty()) return 0.0;
  const LargestSplit split = split_at_largest(probabilities);
  double entropy = 0.0;
  for (std::size_t i = 0; i < probabilities.size(); ++i) {
    const double p = probabilities[i];
    if (!(p > 0.0)) continue;
    const double log_p = i == split.index && split.complement_from_others ? std::log1p(-split.others) : std::log(p);
    entropy -= p * log_p;
  }
  return entropy;
}

double entropy_bits(std::span<const double> probabilities) { return entropy_nats(probabilities) / std::numbers::ln2; }

double effective_choices(std::span<const double> probabilities) { return std::exp(entropy_nats(probabilities)); }

double max_weight(std::span<const double> probabilities) {
  double largest = -kInf;
  for (double p : probabilities) {
    if (std::isnan(p)) return kNaN;
    largest = std::max(largest, p);
  }
  return largest;
}

double kl_divergence(std::span<const double> p, std::span<const double> q) {
  assert(p.size() == q.size());
  double divergence = 0.0;
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] == 0.0) continue;     // 0·ln(0/q) = 0, the limit
    if (q[i] == 0.0) return kInf;  // mass where q has none: infinitely surprised
    // ln(p/q) from the ratio when it is representable (accurate when p ≈ q, where the
    // difference of two logs would cancel); from the logs when p/q over- or underflows.
    const double ratio = p[i] / q[i];
    const double log_ratio = std::isfinite(ratio) && ratio > 0.0 ? std::log(ratio) : std::log(p[i]) - std::log(q[i]);
    divergence += p[i] * log_ratio;
  }
  return divergence;
}

// [SECTION] Gradients

GradientParabola sample_gradient_parabola(int points) {
  assert(points >= 2);
  GradientParabola curve;
  curve.s.resize(static_cast<std::size_t>(points));
  curve.value.resize(static_cast<std::size_t>(points));
  for (int k = 0; k < points; ++k) {
    const double s = static_cast<double>(k) / (points - 1);
    curve.s[static_cast<std::size_t>(k)] = s;
    curve.value[static_cast<std::size_t>(k)] = s * (1.0 - s);
  }
  return curve;
}

void softmax_gradient_diagonal(std::span<double> diagonal, std::span<const double> probabilities) {
  assert(diagonal.size() == probabilities.size());
  if (probabilities.empty()) return;
  // s_i(1 − s_i) with 1 − s_m taken as Σ_{j≠m} s_j at the largest entry: at scores 1, 2, 3 and
  // T = 0.01, s_3 rounds to 1 and 1 − s_3 would be 0, while S(1 − S) = e^-100 ≈ 3.7e-44.
  const LargestSplit split = split_at_largest(probabilities);
  for (std::size_t i = 0; i < probabilities.size(); ++i)
    diagonal[i] = probabilities[i] * split.complement(i, probabilities[i]);
}

void softmax_jacobian(std::span<double> jacobian, std::span<const double> probabilities, double temperature) {
  const std::size_t n = probabilities.size();
  assert(jacobian.size() == n * n && temperature > 0.0);
  const double inverse_temperature = 1.0 / temperature;
  const LargestSplit split = split_at_largest(probabilities);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const double s_i = probabilities[i], s_j = probabilities[j];
      // δ_ij s_i − s_i s_j, with the diagonal written as s_i(1 − s_i) to avoid s − s² cancelling
      // (and 1 − s_m as the sum of the others, see softmax_gradient_diagonal).
      const double entry = i == j ? s_i * split.complement(i, s_i) : -s_i * s_j;
      jacobian[i * n + j] = entry * inverse_temperature;
    }
}

double jacobian_frobenius_norm(std::span<const double> probabilities) {
  // ‖J‖²_F = Σ_i s_i² c_i² + Σ_{i≠j} s_i² s_j², c_i = 1 − s_i. The textbook closed form
  // Σs² − 2Σs³ + (Σs²)² subtracts numbers near 1 to get ~4r² (r = 1 − s_m): at scores 0, 19
  // it returns 0 for 1.1e-8. Here every term is ≥ 0 instead. Split the ordered pairs i ≠ j by
  // whether they involve m, the largest entry, with R = Σ_{j≠m} s_j²:
  //   Σ_{i≠j} s_i² s_j² = 2 s_m² R + Σ_{j≠m} s_j² (R − s_j²)
  // where R − s_j² = Σ_{k≠m,j} s_k² ≥ 0. That last subtraction can cancel (one non-max entry
  // dominating R), but its error ε·s_j²·R sums to ε·R², against Σ_{j≠m} s_j² c_j² ≥ R/4 (c_j ≥ 1/2)
  // already in the total: relative error ≤ 4εR ≤ 4ε. c_m = Σ_{j≠m} s_j (LargestSplit).
  // Near one-hot every term is O(r²) and r² underflows below r ≈ 1e-154, so the terms are
  // scaled by r first: with u_j = s_j/r (≤ 1) and U = Σ_{j≠m} u_j²,
  //   ‖J‖²_F = r² [ s_m² (c_m/r)² + Σ_{j≠m} u_j² c_j² + 2 s_m² U + r² Σ_{j≠m} u_j² (U − u_j²) ],
  // and the bracket is ≥ s_m² ≥ 1/n², far from underflow. (T = 1; divide by T for ∂s/∂x.)
  if (probabilities.empty()) return 0.0;
  const LargestSplit split = split_at_largest(probabilities);
  const double s_m = split.largest;
  const double c_m = split.complement(split.index, s_m);
  const double r = split.others;
  if (std::isnan(r) || std::isnan(s_m)) return kNaN;
  if (!(r > 0.0)) return 0.0;  // exactly one-hot: J = 0
  double sum_u2 = 0.0, diagonal = 0.0;
  for (std::size_t j = 0; j < probabilities.size(); ++j) {
    if (j == split.index) continue;
    const double u = probabilities[j] / r;
    const double c = 1.0 - probabilities[j];
    sum_u2 += u * u;
    diagonal += u * u * c * c;
  }
  double others_pairs = 0.0;
  for (std::size_t j = 0; j < probabilities.size(); ++j) {
    if (j == split.index) continue;
    const double u = probabilities[j] / r;
    others_pairs += u * u * std::max(0.0, sum_u2 - u * u);
  }
  const double c_m_scaled = c_m / r;
  const double bracket =
      s_m * s_m * c_m_scaled * c_m_scaled + diagonal + 2.0 * s_m * s_m * sum_u2 + r * r * others_pairs;
  return r * std::sqrt(bracket);
}

void softmax_vjp(std::span<double> score_gradient, std::span<const double> probabilities,
                 std::span<const double> output_gradient, double temperature) {
  assert(score_gradient.size() == probabilities.size() && output_gradient.size() == probabilities.size());
  assert(temperature > 0.0);
  if (probabilities.empty()) return;
  const LargestSplit split = split_at_largest(probabilities);
  const double inverse_temperature = 1.0 / temperature;
  if (!split.complement_from_others) {
    // Pass 1: ⟨s, g⟩, the s-weighted mean of the incoming gradient.
    double weighted_mean = 0.0;
    for (std::size_t i = 0; i < probabilities.size(); ++i) weighted_mean += probabilities[i] * output_gradient[i];
    // Pass 2: dx_j = s_j (g_j − ⟨s, g⟩) / T.
    for (std::size_t j = 0; j < probabilities.size(); ++j)
      score_gradient[j] = probabilities[j] * (output_gradient[j] - weighted_mean) * inverse_temperature;
    return;
  }
  // Σ s = 1, so ⟨s, g⟩ is centred at the largest entry m without forming 1 − s_m:
  //   ⟨s, g⟩ = g_m Σ_i s_i + Σ_i s_i (g_i − g_m) = g_m + D,   D = Σ_{i≠m} s_i (g_i − g_m),
  //   g_j − ⟨s, g⟩ = (g_j − g_m) − D.
  // For g = e_m (the app's max_gradient) the plain form gives s_m(1 − s_m) = s_m·0 at the argmax
  // of a near-one-hot row; this gives s_m·Σ_{i≠m} s_i, to a few ulp.
  const double g_m = output_gradient[split.index];
  CompensatedSum centred;
  for (std::size_t i = 0; i < probabilities.size(); ++i)
    if (i != split.index) centred.add(probabilities[i] * (output_gradient[i] - g_m));
  const double offset = centred.value();
  for (std::size_t j = 0; j < probabilities.size(); ++j)
    score_gradient[j] = probabilities[j] * ((output_gradient[j] - g_m) - offset) * inverse_temperature;
}

void log_softmax_vjp(std::span<double> score_gradient, std::span<const double> probabilities,
                     std::span<const double> output_gradient, double temperature) {
  assert(score_gradient.size() == probabilities.size() && output_gradient.size() == probabilities.size());
  assert(temperature > 0.0);
  if (probabilities.empty()) return;
  // Pass 1: Σ_i g_i, and the same sum without the largest entry m's term.
  const LargestSplit split = split_at_largest(probabilities);
  CompensatedSum others_sum;
  for (std::size_t i = 0; i < output_gradient.size(); ++i)
    if (i != split.index) others_sum.add(output_gradient[i]);
  const double others = others_sum.value();
  const double gradient_sum = others + output_gradient[split.index];
  // Pass 2: dx_j = (g_j − s_j Σ_i g_i) / T. At m, with s_m = 1 − r (r = Σ_{i≠m} s_i) and
  // Σ_i g_i = g_m + O (O = Σ_{i≠m} g_i):
  //   g_m − s_m (g_m + O) = r (g_m + O) − O,
  // which keeps r where the plain form computes g_m − 1·g_m = 0 (g = e_m: exactly r = 1 − s_m).
  const double inverse_temperature = 1.0 / temperature;
  for (std::size_t j = 0; j < probabilities.size(); ++j) {
    const double numerator = j == split.index && split.complement_from_others
                                 ? split.others * gradient_sum - others
                                 : output_gradient[j] - probabilities[j] * gradient_sum;
    score_gradient[j] = numerator * inverse_temperature;
  }
}

// [SECTION] Float rows

void softmax_rows_inplace(std::span<float> matrix, int rows, int cols, double logit_scale) {
  assert(matrix.size() == static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  assert(logit_scale > 0.0);
  const auto width = static_cast<std::size_t>(cols);
  for (int r = 0; r < rows; ++r) {
    const std::span<float> row = matrix.subspan(static_cast<std::size_t>(r) * width, width);
    // Pass 1: the max, starting at −∞. A NaN or +inf row has no distribution.
    float max_score = -std::numeric_limits<float>::infinity();
    bool has_nan = false;
    for (float x : row) {
      has_nan = has_nan || std::isnan(x);
      max_score = std::max(max_score, x);
    }
    if (has_nan || !std::isfinite(max_score)) {  // NaN, all −inf, or +inf
      std::fill(row.begin(), row.end(), std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    // Pass 2: scale > 0, so the row's max of x·scale is max·scale: subtract it before exp.
    // In double, x − m of two floats is exact and ·scale rounds at 1e-16, so the exponent
    // carries no float-sized error (in float, one ulp of an exponent of −69 is 4e-6 of the
    // weight). Each exp is stored as a float (≤ ½ ulp) and summed in double.
    double sum = 0.0;
    for (float& x : row) {
      const double e = std::exp((static_cast<double>(x) - static_cast<double>(max_score)) * logit_scale);
      x = static_cast<float>(e);
      sum += static_cast<double>(x);
    }
    // Pass 3: normalise in double, rounding to float once.
    const double inverse_sum = 1.0 / sum;
    for (float& x : row) x = static_cast<float>(static_cast<double>(x) * inverse_sum);
  }
}

}  // namespace smlab
