// Numbers over seeds: quantiles with distribution-free standard errors, means, fractions
// (smlab/train/statistics.hpp).
#include "smlab/train/statistics.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace smlab::train {
namespace {
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double z95 = 1.959963984540054;  // the normal's 97.5 % point
}  // namespace

double quantile(std::span<const double> sorted, double p) {
  if (sorted.empty()) return kNaN;
  const double h = static_cast<double>(sorted.size() - 1) * p;
  const auto low = static_cast<std::size_t>(std::floor(h));
  const std::size_t high = std::min(low + 1, sorted.size() - 1);
  const double a = sorted[low], b = sorted[high], fraction = h - std::floor(h);
  if (std::isinf(a) || (fraction > 0.0 && std::isinf(b))) return kInf;
  return a + fraction * (b - a);
}

double quantile_se(std::span<const double> sorted, double p) {
  const std::size_t n = sorted.size();
  if (n < 2) return kNaN;
  const double centre = static_cast<double>(n) * p;
  const double reach = z95 * std::sqrt(centre * (1.0 - p));
  // 1-based ranks of the interval's ends, kept inside the sample.
  const double low_rank = std::clamp(std::floor(centre - reach), 1.0, static_cast<double>(n));
  const double high_rank = std::clamp(std::ceil(centre + reach) + 1.0, 1.0, static_cast<double>(n));
  const double low = sorted[static_cast<std::size_t>(low_rank) - 1],
               high = sorted[static_cast<std::size_t>(high_rank) - 1];
  if (std::isinf(high)) return kInf;
  return (high - low) / (2.0 * z95);
}

SampleSummary summarize_sample(std::span<const double> values) {
  std::vector<double> sorted;
  for (double v : values)
    if (!std::isnan(v)) sorted.push_back(v);
  std::sort(sorted.begin(), sorted.end());
  SampleSummary out;
  out.n = static_cast<int>(sorted.size());
  out.median = quantile(sorted, 0.5), out.q1 = quantile(sorted, 0.25), out.q3 = quantile(sorted, 0.75);
  out.median_se = quantile_se(sorted, 0.5), out.q1_se = quantile_se(sorted, 0.25),
  out.q3_se = quantile_se(sorted, 0.75);
  double sum = 0.0;
  for (double v : sorted)
    if (std::isfinite(v)) sum += v, ++out.finite;
  out.mean = out.finite > 0 ? sum / out.finite : kNaN;
  double squares = 0.0;
  for (double v : sorted)
    if (std::isfinite(v)) squares += (v - out.mean) * (v - out.mean);
  out.sd = out.finite > 1 ? std::sqrt(squares / (out.finite - 1)) : (out.finite == 1 ? 0.0 : kNaN);
  out.se = out.finite > 0 ? out.sd / std::sqrt(static_cast<double>(out.finite)) : kNaN;
  return out;
}

Fraction fraction_of(int count, int n) {
  Fraction out;
  out.count = count;
  out.n = n;
  out.value = n > 0 ? static_cast<double>(count) / n : kNaN;
  const double adjusted = (count + 2.0) / (n + 4.0);
  out.se = std::sqrt(adjusted * (1.0 - adjusted) / (n + 4.0));
  return out;
}

}  // namespace smlab::train
