// Axis scales, "nice" tick positions (1-2-5 steps, decades on log axes) and short number labels.
// Pure functions, separate from drawing so they can be tested on their own.
#pragma once

#include <string>
#include <vector>

namespace smlab::plot {

enum class Scale { Linear, Log10 };

struct Tick {
  double value = 0.0;
  std::string label;  // empty for minor ticks
  bool major = true;  // minor ticks (log axes: 2..9 × 10^k) get a short mark and no label
};

// Ticks inside [lo, hi] (lo and hi may come in either order).
//   Linear: steps of 1, 2 or 5 × 10^k, at most max_ticks major ticks (at least 2 are aimed for).
//           integer_only forbids steps below 1 (for counts and indices).
//   Log10:  major ticks at decades (every 1, 2, 3, 5, 10… decades so that at most
//           max_ticks fit), minor ticks at 2..9 × 10^k when decades are one apart and few.
//           A range narrower than two decades also gets 2× and 5× labels, and one narrower
//           than a decade falls back to linear ticks. Needs lo, hi > 0 (else: empty).
//   lo == hi gives one tick; NaN or ±inf gives none.
std::vector<Tick> nice_ticks(double lo, double hi, Scale scale, int max_ticks, bool integer_only = false);

// "10" with `exponent` in superscript digits: 10⁻¹⁵, 10⁰, 10³⁰ (log axes beyond 0.001 … 10000).
std::string power_of_ten_label(int exponent);
// Labels for a log axis's own tick values, as nice_ticks labels decades: every power of ten
// plain ("0.001", "1", "10000") when all lie in that range, else as 10ⁿ; other values as numbers.
std::vector<std::string> log_axis_labels(const std::vector<double>& values);

// Short label that round-trips tick values: like printf("%.6g") with "-0" turned into "0":
// 0.001, 0.25, 1e-05, 4096, 1.5e+06, -3.
std::string format_number(double value);
// `value` with at most `significant_digits` digits ("%g"): 0.157 for 0.156652 at 3.
std::string format_short(double value, int significant_digits);
// As format_short within 0.001 … 10000, else as the log axes write powers of ten: 1.18·10²⁴,
// 2·10⁻¹⁴ (a value written beside its point on such an axis).
std::string format_scientific(double value, int significant_digits);

// Label for a tick at `value` on an axis whose ticks are `step` apart: as many significant
// digits as needed to tell neighbours apart (1000001 and 1000002, not 1e+06 twice).
std::string format_tick(double value, double step);

}  // namespace smlab::plot
