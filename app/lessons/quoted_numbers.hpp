// The numbers a lesson's text quotes, read as the text writes them, so that a test (and the lesson
// view) can find each one among the values the step's panels draw (a number a lesson
// quotes is a number drawn on its screen). No GUI here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace smlab::app {

// "0.30", "−0.341" (U+2212 or '-'), "2e-4", "1.2e24", "3.4·10³⁸" (a superscript power of ten after
// · or ×): its value, and half a unit of the last digit written (0.30: 0.005), the rounding a drawn
// value may differ by. `measured`: written with a decimal point or an exponent; integers are
// counts, settings and indices ("3 keys", "d_k = 1024", "key 2"). A number glued to letters is a
// name ("fp16", "e4m3") and is not read.
struct QuotedNumber {
  std::string text;
  double value = 0.0;
  double tolerance = 0.0;
  bool measured = false;
};
std::vector<QuotedNumber> quoted_numbers(std::string_view text);

// Whether `value` is the quoted number, within the rounding the text shows.
inline bool matches(const QuotedNumber& quoted, double value) {
  return value - quoted.value <= quoted.tolerance && quoted.value - value <= quoted.tolerance;
}

}  // namespace smlab::app
