// Pass 1 of every normaliser of a score row (softmax.cpp, normalizers.cpp): the max, where it is,
// how many entries share it, and whether the row has a distribution at all. Private to core/src.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

namespace smlab::detail {

// The max starts at −∞, so a row of −∞ (every key masked) reports no distribution.
struct RowScan {
  double max_score = -std::numeric_limits<double>::infinity();
  std::size_t max_index = 0;  // the first entry holding the max (ties keep the lowest index)
  std::size_t max_count = 0;  // how many entries equal the max (with max +inf: the +inf entries)
  bool has_nan = false;
  bool has_distribution() const { return !has_nan && max_score > -std::numeric_limits<double>::infinity(); }
};

inline RowScan scan_row(std::span<const double> scores) {
  RowScan scan;
  for (std::size_t i = 0; i < scores.size(); ++i) {
    const double x = scores[i];
    if (std::isnan(x)) scan.has_nan = true;
    if (x > scan.max_score) {  // strict: the first of tied maxima keeps the index
      scan.max_score = x;
      scan.max_index = i;
      scan.max_count = 1;
    } else if (x == scan.max_score) {
      ++scan.max_count;
    }
  }
  return scan;
}

// No distribution: every output NaN; returns false (the kernels' "undefined" result).
inline bool fill_undefined(std::span<double> out) {
  std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
  return false;
}

// Weight 1/k on the k entries equal to `target`, 0 elsewhere: hardmax, and the +inf convention
// (the k entries at +inf share the weight: the limit as they grow together).
inline void share_among(std::span<double> weights, std::span<const double> scores, double target, std::size_t count) {
  const double share = 1.0 / static_cast<double>(count);
  for (std::size_t i = 0; i < scores.size(); ++i) weights[i] = scores[i] == target ? share : 0.0;
}

}  // namespace smlab::detail
