// Hardmax, linear/sigmoid/ReLU normalisers, sparsemax and α-entmax, their gradients, and the
// NormalizerResult diagnosis.
//
// [SECTION] Index
//   [SECTION] Helpers
//   [SECTION] Kernels
//   [SECTION] Gradients
//   [SECTION] normalize(): names and diagnosis
#include "smlab/normalizers.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <string>
#include <utility>

#include "row_scan.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kLargestDouble = std::numeric_limits<double>::max();

// [SECTION] Helpers

using detail::fill_undefined;
using detail::RowScan;
using detail::scan_row;
using detail::share_among;

// Neumaier's compensated sum (see softmax.cpp): the check and the normalisers must not add
// their own drift for long rows.
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

// The shared front of sparsemax and entmax: NaN / all −inf are undefined, +inf entries share.
// Returns true when the caller still has work to do (a finite max).
bool settle_special_rows(std::span<double> weights, std::span<const double> scores, const RowScan& scan, bool& result) {
  if (!scan.has_distribution()) {
    result = fill_undefined(weights);
    return false;
  }
  if (scan.max_score == kInf) {
    share_among(weights, scores, kInf, scan.max_count);
    result = true;
    return false;
  }
  return true;
}

}  // namespace

// [SECTION] Kernels

std::size_t argmax(std::span<const double> scores) {
  const RowScan scan = scan_row(scores);
  return scan.has_distribution() ? scan.max_index : scores.size();
}

bool hardmax(std::span<double> weights, std::span<const double> scores) {
  assert(weights.size() == scores.size() && !scores.empty());
  const RowScan scan = scan_row(scores);
  if (!scan.has_distribution()) return fill_undefined(weights);
  share_among(weights, scores, scan.max_score, scan.max_count);
  return true;
}

bool linear_normalize(std::span<double> weights, std::span<const double> scores) {
  assert(weights.size() == scores.size() && !scores.empty());
  // Pass 1: Σx, compensated (scores of both signs can cancel; the compensation keeps what is left).
  CompensatedSum total;
  for (double x : scores) {
    if (!std::isfinite(x)) return fill_undefined(weights);  // ±inf gives inf/inf, NaN is NaN
    total.add(x);
  }
  const double sum = total.value();
  if (sum == 0.0) return fill_undefined(weights);  // x/0: no answer, not ±inf
  // Pass 2: divide.
  for (std::size_t i = 0; i < scores.size(); ++i) weights[i] = scores[i] / sum;
  return true;
}

bool sigmoid_normalize(std::span<double> weights, std::span<const double> scores, double temperature) {
  assert(weights.size() == scores.size() && !scores.empty() && temperature > 0.0);
  temperature = std::min(temperature, kLargestDouble);
  bool defined = true;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const double z = scores[i] / temperature;
    // Two forms so that exp only sees a non-positive argument: no overflow at z = ±1000, and
    // σ(z) for very negative z keeps its relative accuracy instead of being 1 − (1 − tiny).
    const double e = std::exp(-std::abs(z));
    weights[i] = z >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    defined = defined && !std::isnan(z);
  }
  return defined ? true : fill_undefined(weights);
}

bool relu_normalize(std::span<double> weights, std::span<const double> scores) {
  assert(weights.size() == scores.size() && !scores.empty());
  // Pass 1: Σ relu(x).
  CompensatedSum total;
  for (double x : scores) {
    if (std::isnan(x) || x == kInf) return fill_undefined(weights);
    total.add(std::max(x, 0.0));
  }
  const double sum = total.value();
  if (!(sum > 0.0)) return fill_undefined(weights);  // every score ≤ 0: 0/0
  // Pass 2: normalise; scores ≤ 0 get exactly 0.
  for (std::size_t i = 0; i < scores.size(); ++i) weights[i] = std::max(scores[i], 0.0) / sum;
  return true;
}

bool sparsemax(std::span<double> weights, std::span<const double> scores, double temperature) {
  assert(weights.size() == scores.size() && !scores.empty() && temperature > 0.0);
  const RowScan scan = scan_row(scores);
  bool result = false;
  if (!settle_special_rows(weights, scores, scan, result)) return result;
  temperature = std::min(temperature, kLargestDouble);
  const auto shifted = [&](double x) { return (x - scan.max_score) / temperature; };
  // Pass 1: z_i = (x_i − m)/T ≤ 0. The max is subtracted because sparsemax is shift-invariant
  // and it keeps the partial sums below small at any magnitude. Only z_i > −1 can be in the
  // support (τ ≥ z_max − 1 = −1), so only those candidates are packed to the front to be sorted.
  std::size_t candidates = 0;
  for (double x : scores) {
    const double z = shifted(x);
    if (z > -1.0) weights[candidates++] = z;
  }
  // Pass 2: sort the candidates descending and find the support size k: the condition
  // 1 + k·z_(k) > Σ_{j≤k} z_(j) holds for k = 1 (z_(1) = 0) and stays true up to k, then fails.
  const auto sorted = weights.first(candidates);
  std::sort(sorted.begin(), sorted.end(), std::greater<>());
  double partial_sum = 0.0, support_sum = 0.0;
  std::size_t support = 0;
  for (std::size_t k = 1; k <= candidates; ++k) {
    partial_sum += sorted[k - 1];
    if (1.0 + static_cast<double>(k) * sorted[k - 1] <= partial_sum) break;
    support = k;
    support_sum = partial_sum;
  }
  const double threshold = (support_sum - 1.0) / static_cast<double>(support);
  // Pass 3: p_i = max(z_i − τ, 0), recomputing z_i from the scores (the scratch was reordered).
  for (std::size_t i = 0; i < scores.size(); ++i) weights[i] = std::max(shifted(scores[i]) - threshold, 0.0);
  return true;
}

bool entmax(std::span<double> weights, std::span<const double> scores, double alpha, double temperature) {
  assert(weights.size() == scores.size() && !scores.empty() && temperature > 0.0);
  if (!(alpha >= 1.0 && alpha <= 2.0)) return fill_undefined(weights);
  if (alpha == 1.0) return softmax(weights, scores, temperature);
  if (alpha == 2.0) return sparsemax(weights, scores, temperature);
  const RowScan scan = scan_row(scores);
  bool result = false;
  if (!settle_special_rows(weights, scores, scan, result)) return result;
  temperature = std::min(temperature, kLargestDouble);
  const double alpha_minus_one = alpha - 1.0;
  // Pass 1: z_i = (x_i − m)/T ≤ 0 into the output as scratch (shift-invariant, as sparsemax).
  for (std::size_t i = 0; i < scores.size(); ++i) weights[i] = (scores[i] - scan.max_score) / temperature;
  // p_i(t) = [1 + (α−1)(z_i + t)]_+^{1/(α−1)} = exp(log1p((α−1)(z_i + t)) / (α−1)); the log1p
  // form keeps the base's digits when (α−1)(z_i + t) is tiny and the exponent is huge (α → 1).
  const auto weight_at = [alpha_minus_one](double z, double t) {
    const double base_minus_one = alpha_minus_one * (z + t);
    return base_minus_one > -1.0 ? std::exp(std::log1p(base_minus_one) / alpha_minus_one) : 0.0;
  };
  const auto total_at = [&](double t) {
    CompensatedSum total;
    for (double z : weights) total.add(weight_at(z, t));
    return total.value();
  };
  // Pass 2: bisection on t. Σ p(t) increases with t; at t = 0 the max alone has p = 1 (Σ ≥ 1);
  // at t = (n^{−(α−1)} − 1)/(α−1) every p_i ≤ 1/n (Σ ≤ 1). Stop when the bracket is two
  // neighbouring doubles (≈ 60 halvings; capped in case of a pathological plateau).
  const double log_n = std::log(static_cast<double>(scores.size()));
  double low = std::expm1(-alpha_minus_one * log_n) / alpha_minus_one, high = 0.0;
  for (int step = 0; step < 200; ++step) {
    const double middle = 0.5 * (low + high);
    if (middle <= low || middle >= high) break;
    (total_at(middle) < 1.0 ? low : high) = middle;
  }
  // Pass 3: the weights at the upper end (Σ ≥ 1, at most a rounding above), renormalised so
  // that they sum to 1 to rounding; entries outside the support stay exactly 0.
  const double sum = total_at(high);
  for (double& w : weights) w = weight_at(w, high) / sum;
  return true;
}

// [SECTION] Gradients

void sparsemax_jacobian(std::span<double> jacobian, std::span<const double> weights, double temperature) {
  const std::size_t n = weights.size();
  assert(jacobian.size() == n * n && temperature > 0.0);
  std::size_t support = 0;
  for (double p : weights) support += p > 0.0 ? 1 : 0;
  const double inverse_temperature = 1.0 / temperature;
  const double shared = support > 0 ? 1.0 / static_cast<double>(support) : 0.0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      const bool both_in_support = weights[i] > 0.0 && weights[j] > 0.0;
      // (δ_ij − 1/k)/T on S × S, 0 elsewhere.
      jacobian[i * n + j] = both_in_support ? ((i == j ? 1.0 : 0.0) - shared) * inverse_temperature : 0.0;
    }
}

void entmax_vjp(std::span<double> score_gradient, std::span<const double> weights,
                std::span<const double> output_gradient, double alpha, double temperature) {
  assert(score_gradient.size() == weights.size() && output_gradient.size() == weights.size());
  assert(alpha >= 1.0 && alpha <= 2.0 && temperature > 0.0);
  // Pass 1: s_i = p_i^{2−α} on the support (0 off it; pow(0, 0) would wrongly say 1), Σs, ⟨s, g⟩.
  const auto s_of = [alpha](double p) { return p > 0.0 ? std::pow(p, 2.0 - alpha) : 0.0; };
  double s_sum = 0.0, s_dot_g = 0.0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    const double s = s_of(weights[i]);
    s_sum += s;
    s_dot_g += s * output_gradient[i];
  }
  // Pass 2: dx_j = s_j (g_j − ⟨s, g⟩/Σs) / T.
  const double centre = s_dot_g / s_sum;
  const double inverse_temperature = 1.0 / temperature;
  for (std::size_t j = 0; j < weights.size(); ++j)
    score_gradient[j] = s_of(weights[j]) * (output_gradient[j] - centre) * inverse_temperature;
}

// [SECTION] normalize(): names and diagnosis

std::string_view normalizer_name(Normalizer kind) {
  switch (kind) {
    case Normalizer::softmax: return "softmax";
    case Normalizer::naive_softmax: return "naive_softmax";
    case Normalizer::online_softmax: return "online_softmax";
    case Normalizer::hardmax: return "hardmax";
    case Normalizer::linear: return "linear";
    case Normalizer::sigmoid: return "sigmoid";
    case Normalizer::relu: return "relu";
    case Normalizer::sparsemax: return "sparsemax";
    case Normalizer::entmax: return "entmax";
  }
  return "unknown";
}

namespace {

std::string number_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

struct Diagnosis {
  NormalizerIssue issue = NormalizerIssue::none;
  std::string text;
};

// Why an undefined result is undefined, for the kinds whose kernel returned false.
Diagnosis undefined_reason(Normalizer kind, std::span<const double> scores, double temperature, double alpha) {
  bool any_nan = false, any_infinite = false, any_plus_infinity = false;
  double max_score = -kInf;
  for (double x : scores) {
    any_nan = any_nan || std::isnan(x);
    any_infinite = any_infinite || std::isinf(x);
    any_plus_infinity = any_plus_infinity || x == kInf;
    if (x > max_score) max_score = x;
  }
  using enum NormalizerIssue;
  if (any_nan) return {nan_score, "a score is NaN, so no weight can be computed"};
  const bool all_masked_row = max_score == -kInf;
  if (all_masked_row && kind != Normalizer::linear && kind != Normalizer::relu)
    return {all_masked, "every score is -inf (every key masked): there is nothing to normalise"};
  if (kind == Normalizer::entmax && !(alpha >= 1.0 && alpha <= 2.0))
    return {alpha_out_of_range, "alpha = " + number_text(alpha) + " is outside [1, 2], where entmax is defined"};
  switch (kind) {
    case Normalizer::naive_softmax:
      if (max_score / temperature > 0.0)
        return {exp_overflow, "exp(x/T) overflowed to inf (largest x/T = " + number_text(max_score / temperature) +
                                  "; the limit is 709.78, and the sum of the exps overflows past 1.8e308), so the "
                                  "weights are inf/inf = NaN or x/inf = 0: subtract the max first"};
      return {exp_underflow,
              "every exp(x/T) underflowed to 0 (all x/T < -745), and 0/0 is NaN: subtract the max first"};
    case Normalizer::linear:
      if (any_infinite) return {infinite_score, "a score is infinite, so x/sum(x) is inf/inf"};
      return {zero_sum, "the scores sum to 0, so x/sum(x) divides by zero"};
    case Normalizer::relu:
      if (any_plus_infinity) return {infinite_score, "a score is +inf, so relu(x)/sum is inf/inf"};
      return {no_positive_score, "every score is <= 0, so relu(x) is all zeros and 0/0 is undefined"};
    default:  // the softmax family, hardmax, sparsemax, entmax: undefined only for the cases above
      return {all_masked, "the weights are undefined"};
  }
}

// Why a defined result is still not a distribution (issue none when it is one).
Diagnosis defined_reason(Normalizer kind, std::span<const double> scores, const NormalizerResult& result) {
  using enum NormalizerIssue;
  const bool any_negative_score = std::any_of(scores.begin(), scores.end(), [](double x) { return x < 0.0; });
  if (kind == Normalizer::linear && any_negative_score) {
    if (result.has_negative)
      return {negative_weights,
              "negative scores give negative weights (and others above 1): x/sum(x) sums to 1 but is not a "
              "probability distribution"};
    return {reversed_order,
            "every score is negative: x/sum(x) is positive again but ranks the scores backwards (the most "
            "negative gets the most weight)"};
  }
  if (!result.sums_to_one) {
    std::string text = "the weights sum to " + number_text(result.sum) + ", not 1";
    if (kind == Normalizer::sigmoid) text += ": each score is squashed on its own, and nothing ties them together";
    return {does_not_sum_to_one, text};
  }
  return {};
}

}  // namespace

void normalize(NormalizerResult& result, Normalizer kind, std::span<const double> scores, double temperature,
               double alpha) {
  assert(!scores.empty() && temperature > 0.0);
  result.weights.resize(scores.size());
  const std::span<double> weights(result.weights);
  bool defined = false;
  switch (kind) {
    case Normalizer::softmax: defined = softmax(weights, scores, temperature); break;
    case Normalizer::naive_softmax: defined = naive_softmax(weights, scores, temperature); break;
    case Normalizer::online_softmax: defined = online_softmax(weights, scores, temperature); break;
    case Normalizer::hardmax: defined = hardmax(weights, scores); break;
    case Normalizer::linear: defined = linear_normalize(weights, scores); break;
    case Normalizer::sigmoid: defined = sigmoid_normalize(weights, scores, temperature); break;
    case Normalizer::relu: defined = relu_normalize(weights, scores); break;
    case Normalizer::sparsemax: defined = sparsemax(weights, scores, temperature); break;
    case Normalizer::entmax: defined = entmax(weights, scores, alpha, temperature); break;
  }
  // The checks the app displays: does it sum to 1, any negative weights, exact zeros.
  CompensatedSum total;
  result.has_negative = false;
  result.exact_zeros = 0;
  for (double w : result.weights) {
    defined = defined && std::isfinite(w);
    total.add(w);
    result.has_negative = result.has_negative || w < 0.0;
    result.exact_zeros += w == 0.0 ? 1 : 0;
  }
  result.defined = defined;
  result.sum = defined ? total.value() : kNaN;
  result.sums_to_one = defined && std::abs(result.sum - 1.0) <= 1e-9;
  Diagnosis diagnosis =
      defined ? defined_reason(kind, scores, result) : undefined_reason(kind, scores, temperature, alpha);
  result.issue = diagnosis.issue;
  result.problem = std::move(diagnosis.text);
}

NormalizerResult normalize(Normalizer kind, std::span<const double> scores, double temperature, double alpha) {
  NormalizerResult result;
  normalize(result, kind, scores, temperature, alpha);
  return result;
}

}  // namespace smlab
