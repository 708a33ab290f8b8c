// Reference softmax kernels in double (and the float row kernel for attention maps).
#include "smlab/softmax.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

namespace smlab {

bool softmax(std::span<double> probabilities, std::span<const double> scores, double temperature) {
  assert(probabilities.size() == scores.size() && !scores.empty() && temperature > 0.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Pass 1: the maximum, starting at −∞. NaN anywhere poisons the row on purpose.
  double max_score = -std::numeric_limits<double>::infinity();
  for (double x : scores) {
    if (std::isnan(x)) {
      std::fill(probabilities.begin(), probabilities.end(), nan);
      return false;
    }
    max_score = std::max(max_score, x);
  }
  if (max_score == -std::numeric_limits<double>::infinity()) {
    std::fill(probabilities.begin(), probabilities.end(), nan);
    return false;
  }
  // Pass 2: exponentials and their sum. Subtracting the max makes every exponent
  // ≤ 0, so exp never overflows and the largest term is exactly 1 (the sum ≥ 1).
  // (x − m) is divided by T rather than x/T − m/T so that 1e300/0.01 cannot overflow.
  double sum = 0.0;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    probabilities[i] = std::exp((scores[i] - max_score) / temperature);
    sum += probabilities[i];
  }
  // Pass 3: normalise.
  const double inverse_sum = 1.0 / sum;
  for (double& p : probabilities) p *= inverse_sum;
  return true;
}

double logsumexp(std::span<const double> scores, double temperature) {
  double max_score = -std::numeric_limits<double>::infinity();
  for (double x : scores) {
    if (std::isnan(x)) return std::numeric_limits<double>::quiet_NaN();
    max_score = std::max(max_score, x);
  }
  if (max_score == -std::numeric_limits<double>::infinity()) return max_score;
  double sum = 0.0;
  for (double x : scores) sum += std::exp((x - max_score) / temperature);
  return max_score / temperature + std::log(sum);
}

double entropy_nats(std::span<const double> probabilities) {
  double entropy = 0.0;
  for (double p : probabilities)
    if (p > 0.0) entropy -= p * std::log(p);
  return entropy;
}

void softmax_gradient_diagonal(std::span<double> diagonal, std::span<const double> probabilities) {
  assert(diagonal.size() == probabilities.size());
  for (std::size_t i = 0; i < probabilities.size(); ++i) diagonal[i] = probabilities[i] * (1.0 - probabilities[i]);
}

double jacobian_frobenius_norm(std::span<const double> probabilities) {
  double sum_sq = 0.0, sum_cube = 0.0;
  for (double s : probabilities) {
    sum_sq += s * s;
    sum_cube += s * s * s;
  }
  // Each term is ≥ 0 in exact arithmetic; clamp tiny negative rounding residue.
  return std::sqrt(std::max(0.0, sum_sq - 2.0 * sum_cube + sum_sq * sum_sq));
}

void softmax_rows_inplace(std::span<float> matrix, int rows, int cols, double logit_scale) {
  assert(matrix.size() == static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols));
  const float scale = static_cast<float>(logit_scale);
  for (int r = 0; r < rows; ++r) {
    float* row = matrix.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
    float max_score = -std::numeric_limits<float>::infinity();
    for (int c = 0; c < cols; ++c) max_score = std::max(max_score, row[c]);
    if (!(max_score > -std::numeric_limits<float>::infinity())) {  // all −inf (or NaN)
      std::fill(row, row + cols, std::numeric_limits<float>::quiet_NaN());
      continue;
    }
    // scale > 0, so the row's max of x·scale is max·scale: subtract it before exp.
    double sum = 0.0;
    for (int c = 0; c < cols; ++c) {
      row[c] = std::exp((row[c] - max_score) * scale);
      sum += row[c];
    }
    const float inverse_sum = static_cast<float>(1.0 / sum);
    for (int c = 0; c < cols; ++c) row[c] *= inverse_sum;
  }
}

}  // namespace smlab
