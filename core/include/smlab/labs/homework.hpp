// The homework: guided exercises whose answers the app checks. Each answer is computed by the
// core's own functions (never typed in), with an absolute tolerance that says how precisely a
// student working by hand or with a calculator is expected to answer, and why.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"

namespace smlab {

struct Exercise {
  std::string_view id;                // the string tables hold "homework.<id>" (the task) and "homework.<id>.hint"
  std::string_view topic;             // the lab that shows it: "values", "sampling", "loss", "geometry", "init", ...
  double answer = 0.0;                // computed by the core (homework.cpp names the call)
  double tolerance = 0.0;             // |typed − answer| ≤ tolerance is correct
  std::string_view tolerance_reason;  // one line, English, for the CSV and the tests
  bool integer = false;               // a count: the typed text must be a whole number
};

// Every exercise, in lesson order. Computed on each call (a few µs).
std::vector<Exercise> homework_exercises();

// Checking a typed answer. The text is bounded (at most 64 bytes, surrounding spaces ignored),
// parsed as a decimal number (from_chars, '.' as the decimal point; a ',' decimal is accepted too),
// and must be finite; an integer exercise also needs a whole number. Text that is not such a number
// is an Error::usage of one line saying why.
struct AnswerCheck {
  bool correct = false;
  double typed = 0.0;
  double error = 0.0;  // typed − answer
};
Result<AnswerCheck> check_answer(const Exercise& exercise, std::string_view typed);

}  // namespace smlab
