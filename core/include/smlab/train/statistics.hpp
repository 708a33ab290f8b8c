// Numbers over seeds (docs/TRAINING.md, "Numbers over seeds"): a sample's median, quartiles and
// mean with their standard errors, and a fraction with its standard error, for the training lab's
// notes and the shipped reference result. A value may be +inf (a run that never got there within
// its steps): it ranks last, and a quantile that falls on it is +inf.
#pragma once

#include <span>
#include <vector>

namespace smlab::train {

// The p-quantile of ascending `sorted` values, linear between order statistics (numpy's default):
// h = (n − 1)·p, x[⌊h⌋] + (h − ⌊h⌋)·(x[⌊h⌋ + 1] − x[⌊h⌋]). NaN for no values; +inf where either
// order statistic is +inf.
double quantile(std::span<const double> sorted, double p);

// The standard error of that quantile without assuming a distribution: the ranks np ∓ 1.96·√(np(1−p))
// bound a 95 % interval of the true quantile (the binomial count of values below it), and the
// interval's width over 2·1.96 is the standard error a normal interval of that width would have.
// +inf when the upper rank falls on a +inf value; NaN for fewer than 2 values.
double quantile_se(std::span<const double> sorted, double p);

struct SampleSummary {
  int n = 0;                                         // values (NaN ones left out)
  int finite = 0;                                    // of them, not +inf
  double median = 0.0, q1 = 0.0, q3 = 0.0;           // quantile() at 0.5, 0.25, 0.75
  double median_se = 0.0, q1_se = 0.0, q3_se = 0.0;  // quantile_se()
  double mean = 0.0, sd = 0.0, se = 0.0;             // of the finite values (sd with n − 1; se = sd/√n)
};
SampleSummary summarize_sample(std::span<const double> values);

// A count out of n as a fraction, with the Agresti–Coull standard error √(p̃(1 − p̃)/(n + 4)),
// p̃ = (count + 2)/(n + 4): not 0 when the count is 0 or n, so two groups that both saw no failure
// still compare within a sensible margin.
struct Fraction {
  int count = 0, n = 0;
  double value = 0.0, se = 0.0;
};
Fraction fraction_of(int count, int n);

}  // namespace smlab::train
