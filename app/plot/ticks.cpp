// Nice tick positions for linear and log10 axes, and the number labels that go with them.
#include "plot/ticks.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace smlab::plot {
namespace {

// Ticks are k × step; values closer to zero than this many steps are rounding noise of 0.
constexpr double kZeroSnapInSteps = 1e-9;
// Below this relative span the axis cannot be told apart from a point in double precision.
constexpr double kSmallestRelativeSpan = 1e-12;
// Decade labels stay plain ("0.001" … "10000") inside this exponent range, else "10^k".
constexpr int kPlainDecadeLow = -3;
constexpr int kPlainDecadeHigh = 4;

std::string printf_general(double value, int significant_digits) {
  if (value == 0.0) return "0";  // also turns -0 into 0
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  std::array<char, 40> buffer{};
  std::snprintf(buffer.data(), buffer.size(), "%.*g", significant_digits, value);
  return buffer.data();
}

// Number of k × step multiples inside [lo, hi], tolerant to rounding at the ends.
long long multiples_inside(double lo, double hi, double step) {
  const double first = std::ceil(lo / step - kZeroSnapInSteps);
  const double last = std::floor(hi / step + kZeroSnapInSteps);
  return static_cast<long long>(last - first) + 1;
}

// Smallest 1, 2 or 5 × 10^k step with at most max_ticks multiples in [lo, hi].
double nice_linear_step(double lo, double hi, int max_ticks, bool integer_only) {
  const double raw_step = (hi - lo) / static_cast<double>(std::max(1, max_ticks - 1));
  double decade = std::pow(10.0, std::floor(std::log10(raw_step)));
  constexpr std::array<double, 3> kMantissas = {1.0, 2.0, 5.0};
  for (int decade_index = 0; decade_index < 4; ++decade_index, decade *= 10.0) {
    for (const double mantissa : kMantissas) {
      const double step = mantissa * decade;
      if (integer_only && step < 1.0) continue;
      if (multiples_inside(lo, hi, step) <= max_ticks) return step;
    }
  }
  return 10.0 * decade;
}

std::vector<Tick> linear_ticks(double lo, double hi, int max_ticks, bool integer_only) {
  const double step = nice_linear_step(lo, hi, max_ticks, integer_only);
  const double first = std::ceil(lo / step - kZeroSnapInSteps);
  const double last = std::floor(hi / step + kZeroSnapInSteps);
  std::vector<Tick> ticks;
  for (double multiple = first; multiple <= last; multiple += 1.0) {
    // k × step rather than repeated addition, so errors do not accumulate along the axis.
    double value = multiple * step;
    if (std::abs(value) < step * kZeroSnapInSteps) value = 0.0;
    ticks.push_back({value, format_tick(value, step), true});
  }
  return ticks;
}

std::string decade_label(int exponent, bool plain) {
  if (plain) return format_number(std::pow(10.0, exponent));
  return power_of_ten_label(exponent);
}

// The exponent of an exact power of ten, else nullopt (1e-15, 1e45; not 2e3 or 0.3).
std::optional<int> decade_exponent(double value) {
  if (!(value > 0.0) || !std::isfinite(value)) return std::nullopt;
  const double exponent = std::round(std::log10(value));
  if (std::abs(value / std::pow(10.0, exponent) - 1.0) > 1e-12) return std::nullopt;
  return static_cast<int>(exponent);
}

std::vector<Tick> log_ticks(double lo, double hi, int max_ticks) {
  const double log_lo = std::log10(lo);
  const double log_hi = std::log10(hi);
  // A hair of tolerance so that lo = 0.01 counts 0.01 as inside despite rounding in log10.
  const int first_decade = static_cast<int>(std::ceil(log_lo - 1e-9));
  const int last_decade = static_cast<int>(std::floor(log_hi + 1e-9));
  const auto inside = [&](double value) { return value >= lo * (1 - 1e-9) && value <= hi * (1 + 1e-9); };

  std::vector<Tick> ticks;
  const int outer_first = static_cast<int>(std::floor(log_lo));
  const int outer_last = static_cast<int>(std::ceil(log_hi));

  // Narrow ranges: label 1, 2, 5 × 10^k, other integers as minor ticks.
  const int decade_count = last_decade - first_decade + 1;
  if (log_hi - log_lo < 2.0) {
    int labelled = 0;
    for (int exponent = outer_first; exponent <= outer_last; ++exponent) {
      for (int mantissa = 1; mantissa <= 9; ++mantissa) {
        const double value = mantissa * std::pow(10.0, exponent);
        if (!inside(value)) continue;
        const bool major = mantissa == 1 || mantissa == 2 || mantissa == 5;
        labelled += major ? 1 : 0;
        ticks.push_back({value, major ? format_number(value) : std::string(), major});
      }
    }
    if (labelled >= 3 && labelled <= max_ticks) return ticks;
    ticks.clear();
    // Fewer than two decades to label says little about the scale: linear ticks read better.
    if (decade_count < 2) return linear_ticks(lo, hi, max_ticks, false);
  }

  constexpr std::array<int, 9> kDecadeSteps = {1, 2, 3, 5, 10, 20, 50, 100, 200};
  int decade_step = kDecadeSteps.back();
  for (const int candidate : kDecadeSteps) {
    if ((decade_count + candidate - 1) / candidate <= std::max(1, max_ticks)) {
      decade_step = candidate;
      break;
    }
  }
  const bool plain = first_decade >= kPlainDecadeLow && last_decade <= kPlainDecadeHigh;
  // Minor ticks only where they can be told apart: one decade per label and few decades.
  const bool with_minor = decade_step == 1 && decade_count <= 8;
  for (int exponent = outer_first; exponent <= outer_last; ++exponent) {
    const double decade = std::pow(10.0, exponent);
    const bool labelled = exponent >= first_decade && exponent <= last_decade &&
                          ((exponent % decade_step) + decade_step) % decade_step == 0;
    if (labelled) ticks.push_back({decade, decade_label(exponent, plain), true});
    if (!with_minor) continue;
    for (int mantissa = 2; mantissa <= 9; ++mantissa) {
      const double value = mantissa * decade;
      if (inside(value)) ticks.push_back({value, std::string(), false});
    }
  }
  return ticks;
}

}  // namespace

std::string format_number(double value) { return printf_general(value, 6); }

std::string format_short(double value, int significant_digits) { return printf_general(value, significant_digits); }

std::string format_tick(double value, double step) {
  if (value == 0.0 || !std::isfinite(step) || step <= 0.0 || !std::isfinite(value)) {
    return format_number(value);
  }
  // Digits from the value's leading digit down to the step's: enough to tell neighbours apart.
  const int needed = static_cast<int>(std::floor(std::log10(std::abs(value))) - std::floor(std::log10(step))) + 1;
  return printf_general(value, std::clamp(needed, 6, 17));
}

std::string format_scientific(double value, int significant_digits) {
  const int digits = std::clamp(significant_digits, 1, 17);
  if (!std::isfinite(value) || value == 0.0) return printf_general(value, digits);
  // The exponent printf rounds to (9.996e3 at 3 digits is 1.00e+04).
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*e", digits - 1, value);
  const char* e = std::strchr(buffer, 'e');
  if (e == nullptr) return buffer;
  const int exponent = std::atoi(e + 1);
  if (exponent >= kPlainDecadeLow && exponent <= kPlainDecadeHigh) {
    // Plain where %g writes it without an exponent (9996 at 3 digits is "1e+04": 1·10⁴ instead).
    const std::string plain = printf_general(value, digits);
    if (plain.find('e') == std::string::npos) return plain;
  }
  // Tens and hundreds in plain digits, rounded as asked: "90", not "9·10¹" (a class reads the
  // number; from 10⁴ on, the trailing zeros would claim digits that are not there).
  if (exponent == 1 || exponent == 2) {
    const double scale = std::pow(10.0, exponent + 1 - digits);
    return printf_general(std::round(value / scale) * scale, 17);
  }
  std::string mantissa(buffer, static_cast<std::size_t>(e - buffer));
  // %g's habit: no trailing zeros (2.0 → 2).
  if (mantissa.find('.') != std::string::npos) {
    while (mantissa.back() == '0') mantissa.pop_back();
    if (mantissa.back() == '.') mantissa.pop_back();
  }
  return mantissa + "·" + power_of_ten_label(exponent);
}

std::string power_of_ten_label(int exponent) {
  // Superscript digits: ¹ ² ³ are in Latin-1, the rest and the minus in U+2070–U+207B (both in
  // the UI font's ranges, app/platform/fonts.cpp).
  static constexpr std::array<std::string_view, 10> kDigits = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string label = "10";
  if (exponent < 0) label += "⁻";
  for (const char digit : std::to_string(std::abs(exponent))) label += kDigits[static_cast<std::size_t>(digit - '0')];
  return label;
}

std::vector<std::string> log_axis_labels(const std::vector<double>& values) {
  // As nice_ticks labels decades: every one plain when all lie in 0.001 … 10000, else every power
  // of ten as 10ⁿ; values that are not powers of ten keep their number.
  const bool plain = std::all_of(values.begin(), values.end(), [](double value) {
    const auto exponent = decade_exponent(value);
    return !exponent || (*exponent >= kPlainDecadeLow && *exponent <= kPlainDecadeHigh);
  });
  std::vector<std::string> labels;
  labels.reserve(values.size());
  for (const double value : values) {
    const auto exponent = decade_exponent(value);
    labels.push_back(exponent ? decade_label(*exponent, plain) : format_number(value));
  }
  return labels;
}

std::vector<Tick> nice_ticks(double lo, double hi, Scale scale, int max_ticks, bool integer_only) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {};
  if (lo > hi) std::swap(lo, hi);
  max_ticks = std::max(max_ticks, 1);
  if (scale == Scale::Log10) {
    if (lo <= 0.0) return {};
    if (hi / lo - 1.0 <= kSmallestRelativeSpan) return {{lo, format_number(lo), true}};
    return log_ticks(lo, hi, max_ticks);
  }
  const double magnitude = std::max(std::abs(lo), std::abs(hi));
  if (hi - lo <= magnitude * kSmallestRelativeSpan || hi == lo) return {{lo, format_number(lo), true}};
  if (max_ticks == 1) {
    const double middle = 0.5 * (lo + hi);
    return {{middle, format_number(middle), true}};
  }
  return linear_ticks(lo, hi, max_ticks, integer_only);
}

}  // namespace smlab::plot
