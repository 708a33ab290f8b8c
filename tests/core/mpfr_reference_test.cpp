// Accuracy of softmax, log-softmax, logsumexp (double) and the float row kernel against MPFR
// references at 256 bits, on random and adversarial rows of length 1 to 100,000; and the
// quantities derived from a row (entropy, ‖J‖_F, S(1 − S), VJP columns) on near-one-hot rows.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/evaluate.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr mpfr_prec_t kBits = 256;  // the reference's own error (2^-256) is invisible at 1e-14
constexpr double kInf = std::numeric_limits<double>::infinity();

// The bars. Probabilities: relative 1e-14 where the exact value is ≥ 1e-300; below that the
// doubles themselves run out of digits (subnormals start at 2.2e-308), so an absolute
// 1e-314 = 1e-14 · 1e-300 applies. Log-softmax: the same rule on |ℓ| — relative everywhere but
// in the subnormal range — because the kernel computes log Σ as log1p(rest) and forms ℓ without
// cancellation (see softmax.hpp); the usual fallback to an absolute bound near ℓ_max ≈ 0 is not
// needed. logsumexp: relative to max(|ref|, 1), because it is m/T + log Σ and those two terms
// can cancel (only when |m/T| ≤ ln n), where only an absolute bound is meaningful.
constexpr double kRelativeBar = 1e-14;
constexpr double kTinyValue = 1e-300;
constexpr double kAbsoluteBarBelowTiny = 1e-314;
constexpr double kFloatRelativeBar = 2e-6;
constexpr double kFloatTinyValue = 1e-30;

// An MPFR number that frees itself.
class Big {
 public:
  Big() { mpfr_init2(value_, kBits); }
  ~Big() { mpfr_clear(value_); }
  Big(const Big&) = delete;
  Big& operator=(const Big&) = delete;
  Big(Big&& other) noexcept {
    mpfr_init2(value_, kBits);
    mpfr_swap(value_, other.value_);
  }
  mpfr_ptr get() { return value_; }
  mpfr_srcptr get() const { return value_; }

 private:
  mpfr_t value_;
};

// |ours − exact| and |exact|, both from MPFR so the double rounding of the reference does not count.
struct ErrorPair {
  double absolute;
  double magnitude;
};

ErrorPair error_against(double ours, const Big& exact) {
  Big difference;
  mpfr_set_d(difference.get(), ours, MPFR_RNDN);
  mpfr_sub(difference.get(), difference.get(), exact.get(), MPFR_RNDN);
  return {std::abs(mpfr_get_d(difference.get(), MPFR_RNDN)), std::abs(mpfr_get_d(exact.get(), MPFR_RNDN))};
}

// The exact softmax of the given doubles: t_i = (x_i − m)/T, p_i = e^{t_i}/Σ, ℓ_i = t_i − log Σ,
// logsumexp = m/T + log Σ (m the max, any −inf entries give t_i = −inf, p_i = 0, ℓ_i = −inf). Terms with t_i < −800 add
// < e^-800 ≈ 1e-348 relative to Σ ≥ 1 and are left out of Σ (their p_i is below every bar's reach); ℓ_i needs no exp
// and is exact.
struct Reference {
  std::vector<Big> probabilities, log_probabilities;
  Big logsumexp;
};

Reference exact_softmax(const std::vector<double>& scores, double temperature) {
  const auto max_at = std::max_element(scores.begin(), scores.end());
  const double max_score = *max_at;
  const auto max_index = static_cast<std::size_t>(max_at - scores.begin());
  Reference ref;
  ref.probabilities.resize(scores.size());
  ref.log_probabilities.resize(scores.size());
  // Σ = 1 + rest with rest summed apart: at 256 bits 1 + 1e-200 is 1, yet ℓ_max = −log1p(rest)
  // is a perfectly ordinary double. So the reference needs log1p(rest) just as the kernel does.
  Big rest, temperature_big;
  mpfr_set_zero(rest.get(), 1);
  mpfr_set_d(temperature_big.get(), temperature, MPFR_RNDN);
  std::vector<Big> shifted(scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) {
    mpfr_set_d(shifted[i].get(), scores[i], MPFR_RNDN);
    mpfr_sub_d(shifted[i].get(), shifted[i].get(), max_score, MPFR_RNDN);
    mpfr_div(shifted[i].get(), shifted[i].get(), temperature_big.get(), MPFR_RNDN);
    if (mpfr_cmp_si(shifted[i].get(), -800) > 0) {
      mpfr_exp(ref.probabilities[i].get(), shifted[i].get(), MPFR_RNDN);
      if (i != max_index) mpfr_add(rest.get(), rest.get(), ref.probabilities[i].get(), MPFR_RNDN);
    } else {
      mpfr_set_zero(ref.probabilities[i].get(), 1);
    }
  }
  Big sum, log_sum;
  mpfr_add_ui(sum.get(), rest.get(), 1, MPFR_RNDN);
  mpfr_log1p(log_sum.get(), rest.get(), MPFR_RNDN);
  for (std::size_t i = 0; i < scores.size(); ++i) {
    mpfr_div(ref.probabilities[i].get(), ref.probabilities[i].get(), sum.get(), MPFR_RNDN);
    mpfr_sub(ref.log_probabilities[i].get(), shifted[i].get(), log_sum.get(), MPFR_RNDN);
  }
  mpfr_set_d(ref.logsumexp.get(), max_score, MPFR_RNDN);
  mpfr_div(ref.logsumexp.get(), ref.logsumexp.get(), temperature_big.get(), MPFR_RNDN);
  mpfr_add(ref.logsumexp.get(), ref.logsumexp.get(), log_sum.get(), MPFR_RNDN);
  return ref;
}

// A short description of a row for failure messages: name, n, T and its first entries.
std::string describe(const std::string& name, const std::vector<double>& scores, double temperature) {
  std::ostringstream out;
  out.precision(17);
  out << name << " n=" << scores.size() << " T=" << temperature << " scores=[";
  for (std::size_t i = 0; i < std::min<std::size_t>(scores.size(), 6); ++i) out << (i ? ", " : "") << scores[i];
  out << (scores.size() > 6 ? ", ...]" : "]");
  return out.str();
}

// The worst errors seen, as a multiple of the bar's unit, printed at the end of each test.
struct Worst {
  double softmax = 0.0, log_softmax = 0.0, logsumexp = 0.0;
  void print(const char* label) const {
    std::printf("[ measured ] %s: worst relative error softmax %.3g, log_softmax %.3g, logsumexp %.3g\n", label,
                softmax, log_softmax, logsumexp);
  }
};

// Error measured by the same rule as the bar: relative where |exact| ≥ tiny, and scaled so that
// the absolute allowance below tiny maps onto the same number.
double scaled_error(const ErrorPair& error) {
  return error.magnitude >= kTinyValue ? error.absolute / error.magnitude
                                       : error.absolute / kAbsoluteBarBelowTiny * kRelativeBar;
}

// The worst entry of one output vector, so a bad row fails once with its worst case instead of
// printing 100,000 lines.
struct WorstEntry {
  double error = 0.0;
  std::size_t index = 0;
  double got = 0.0, exact = 0.0;
  std::size_t over_bar = 0;
  void add(double entry_error, std::size_t i, double ours, const Big& reference, double bar) {
    over_bar += entry_error > bar ? 1 : 0;
    if (entry_error < error) return;
    error = entry_error;
    index = i;
    got = ours;
    exact = mpfr_get_d(reference.get(), MPFR_RNDN);
  }
};

std::ostream& operator<<(std::ostream& out, const WorstEntry& worst) {
  return out << "worst at i=" << worst.index << ": got " << worst.got << ", exact " << worst.exact << "; "
             << worst.over_bar << " entries over the bar";
}

void check_row(const std::string& name, const std::vector<double>& scores, double temperature, Worst& worst) {
  SCOPED_TRACE(describe(name, scores, temperature));
  const std::size_t n = scores.size();
  std::vector<double> probabilities(n), log_probabilities(n);
  ASSERT_TRUE(softmax(probabilities, scores, temperature));
  ASSERT_TRUE(log_softmax(log_probabilities, scores, temperature));
  const double lse = logsumexp(scores, temperature);
  const Reference ref = exact_softmax(scores, temperature);
  WorstEntry p_worst, l_worst;
  std::size_t masked_wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (scores[i] == -kInf) {  // masked: exactly 0 and exactly −inf, not merely close
      masked_wrong += probabilities[i] == 0.0 && log_probabilities[i] == -kInf ? 0 : 1;
      continue;
    }
    p_worst.add(scaled_error(error_against(probabilities[i], ref.probabilities[i])), i, probabilities[i],
                ref.probabilities[i], kRelativeBar);
    const double exact_log = mpfr_get_d(ref.log_probabilities[i].get(), MPFR_RNDN);
    if (std::isinf(exact_log)) {  // ℓ_i beyond the double range: the kernel must say −inf too
      masked_wrong += log_probabilities[i] == exact_log ? 0 : 1;
      continue;
    }
    l_worst.add(scaled_error(error_against(log_probabilities[i], ref.log_probabilities[i])), i, log_probabilities[i],
                ref.log_probabilities[i], kRelativeBar);
  }
  EXPECT_EQ(masked_wrong, 0u) << "−inf scores must give exactly 0 and −inf";
  EXPECT_LE(p_worst.error, kRelativeBar) << "softmax " << p_worst;
  EXPECT_LE(l_worst.error, kRelativeBar) << "log_softmax " << l_worst;
  worst.softmax = std::max(worst.softmax, p_worst.error);
  worst.log_softmax = std::max(worst.log_softmax, l_worst.error);
  const ErrorPair lse_error = error_against(lse, ref.logsumexp);
  const double lse_scaled = lse_error.absolute / std::max(lse_error.magnitude, 1.0);
  EXPECT_LE(lse_scaled, kRelativeBar) << "logsumexp got " << lse << " exact "
                                      << mpfr_get_d(ref.logsumexp.get(), MPFR_RNDN);
  worst.logsumexp = std::max(worst.logsumexp, lse_scaled);
}

std::vector<double> normal_row(std::size_t n, double magnitude, std::uint64_t seed) {
  NormalGenerator rng(seed);
  std::vector<double> scores(n);
  for (double& x : scores) x = magnitude * rng.next();
  return scores;
}

// Random rows: lengths 1 to 100,000, magnitudes 1e-3 to 1e300, several temperatures.
TEST(MpfrReference, RandomRowsMeetRelativeBar) {
  Worst worst;
  struct Case {
    std::size_t n;
    double magnitude, temperature;
  };
  const Case cases[] = {
      {1, 1.0, 1.0},      {2, 1.0, 1.0},         {3, 5.0, 0.37},     {7, 100.0, 1.0},     {16, 1e-3, 1.0},
      {100, 1.0, 1.0},    {100, 300.0, 1.0},     {100, 1e5, 1e3},    {100, 1e300, 1.0},   {100, 1e300, 1e298},
      {1000, 1.0, 0.01},  {1000, 50.0, 3.7},     {1000, 700.0, 1.0}, {1000, 1e-3, 1e-5},  {10000, 1.0, 1.0},
      {10000, 30.0, 1.0}, {10000, 1e300, 1e300}, {100000, 1.0, 1.0}, {100000, 10.0, 1.0}, {100000, 250.0, 0.9},
  };
  std::uint64_t seed = 1;
  for (const Case& c : cases) check_row("normal", normal_row(c.n, c.magnitude, seed++), c.temperature, worst);
  worst.print("random rows");
}

// Long rows where plain summation drifts: 100,000 nearly equal weights (Σ ≈ 1e5, every term
// ≈ 1) and 100,000 terms far below the max (the rest is tiny and must keep its digits).
TEST(MpfrReference, LongRowsNeedCompensatedSum) {
  Worst worst;
  SplitMix64 bits(99);
  std::vector<double> flat(100000);
  for (double& x : flat) x = 1e-3 * bits.uniform();
  check_row("flat", flat, 1.0, worst);
  std::vector<double> dominant(100000);
  for (double& x : dominant) x = -40.0 - bits.uniform();
  dominant[4321] = 0.0;
  check_row("one dominant", dominant, 1.0, worst);
  worst.print("long rows");
}

// Adversarial rows: ties, masks, ±1e300, the edge of underflow, inexact shifts near −700.
TEST(MpfrReference, AdversarialRowsMeetRelativeBar) {
  Worst worst;
  const double big = 1e300;
  check_row("all tied", std::vector<double>(1000, 5.0), 1.0, worst);
  check_row("single", {-3.25}, 1.0, worst);
  check_row("ties at the max", {2.0, 2.0, 2.0, 1.0, -1.0, 2.0}, 0.5, worst);
  check_row("masked", {1.0, -kInf, 3.0, -kInf, 0.5}, 1.0, worst);
  check_row("one unmasked", {-kInf, -kInf, 7.0, -kInf}, 1.0, worst);
  check_row("plus minus 1e300", {big, -big, big, 0.0, std::nextafter(big, 0.0)}, 1.0, worst);
  check_row("1e300 with T=1e300", {big, -big, 0.5 * big, 0.0}, 1e300, worst);
  check_row("tiny T", {0.0, -1e-300, -5e-301, -3e-300}, 1e-300, worst);
  check_row("huge T", {1.0, 2.0, 3.0}, 1e300, worst);
  check_row("differences beyond the double range", {1.7e308, -1.7e308, 1.7e308}, 1.0, worst);
  // Weights from 1e-300 down into the subnormals: x_i − m spans [−760, −690].
  std::vector<double> underflow_edge{0.0};
  for (int k = 0; k <= 140; ++k) underflow_edge.push_back(-690.0 - 0.5 * k - 0.123456789);
  check_row("underflow edge", underflow_edge, 1.0, worst);
  // x_i − m not exactly representable and near −700: the subtraction's rounding alone would be
  // ~5e-14 relative in exp (the case the exact-difference tail fixes).
  NormalGenerator rng(5);
  std::vector<double> inexact_shift{700.1};
  for (int k = 0; k < 200; ++k) inexact_shift.push_back(0.3 + 1e-3 * rng.next());
  check_row("inexact shift near -700", inexact_shift, 1.0, worst);
  check_row("inexact shift, T=0.7", inexact_shift, 0.7, worst);
  check_row("inexact shift, T=1/3", inexact_shift, 1.0 / 3.0, worst);
  // log-softmax of the max ≈ −(sum of the rest) at 1e-200: needs log1p, not log(1 + rest).
  check_row("near-zero log-softmax", {0.0, -460.0, -470.5}, 1.0, worst);
  check_row("log-softmax at -1e-308", {0.0, -709.0}, 1.0, worst);
  // Scores whose exact softmax is a ratio of powers: x = k·ln 2.
  std::vector<double> powers;
  for (int k = 0; k < 60; ++k) powers.push_back(k * 0.6931471805599453);
  check_row("k ln 2", powers, 1.0, worst);
  // Cancellation in logsumexp: m/T ≈ −log Σ.
  check_row("logsumexp near 0", std::vector<double>(8, -std::log(8.0)), 1.0, worst);
  worst.print("adversarial rows");
}

// The float row kernel: within 2e-6 relative of the exact softmax of (float x)·scale for every
// weight above 1e-30 (a float ulp is 1.2e-7 relative; the bar leaves room for the float result
// and the float input, not for errors in the exponent).
TEST(MpfrReference, FloatRowsMeetTwoMicroBar) {
  double worst_float = 0.0;
  struct Case {
    int rows, cols;
    double magnitude, scale;
  };
  const Case cases[] = {
      {4, 64, 1.0, 0.125}, {3, 1024, 8.0, 1.0}, {2, 4096, 20.0, 0.5}, {2, 300, 100.0, 0.7}, {2, 17, 1.0, 100.0}};
  std::uint64_t seed = 77;
  for (const Case& c : cases) {
    NormalGenerator rng(seed++);
    std::vector<float> matrix(static_cast<std::size_t>(c.rows * c.cols));
    for (float& x : matrix) x = static_cast<float>(c.magnitude * rng.next());
    const std::vector<float> original = matrix;
    softmax_rows_inplace(matrix, c.rows, c.cols, c.scale);
    for (int r = 0; r < c.rows; ++r) {
      const auto row_start = static_cast<std::size_t>(r * c.cols);
      const auto width = static_cast<std::size_t>(c.cols);
      // Exact: e_j = exp((x_j − max)·scale), softmax is shift-invariant; x_j − max of two floats
      // and the product with the double scale are exact at 256 bits.
      float max_x = -std::numeric_limits<float>::infinity();
      for (std::size_t j = 0; j < width; ++j) max_x = std::max(max_x, original[row_start + j]);
      std::vector<Big> exact(width);
      Big sum;
      mpfr_set_zero(sum.get(), 1);
      for (std::size_t j = 0; j < width; ++j) {
        mpfr_set_flt(exact[j].get(), original[row_start + j], MPFR_RNDN);
        mpfr_sub_d(exact[j].get(), exact[j].get(), static_cast<double>(max_x), MPFR_RNDN);
        mpfr_mul_d(exact[j].get(), exact[j].get(), c.scale, MPFR_RNDN);
        mpfr_exp(exact[j].get(), exact[j].get(), MPFR_RNDN);
        mpfr_add(sum.get(), sum.get(), exact[j].get(), MPFR_RNDN);
      }
      WorstEntry row_worst;
      for (std::size_t j = 0; j < width; ++j) {
        mpfr_div(exact[j].get(), exact[j].get(), sum.get(), MPFR_RNDN);
        const double ours = static_cast<double>(matrix[row_start + j]);
        const ErrorPair error = error_against(ours, exact[j]);
        if (error.magnitude < kFloatTinyValue) continue;
        row_worst.add(error.absolute / error.magnitude, j, ours, exact[j], kFloatRelativeBar);
      }
      EXPECT_LE(row_worst.error, kFloatRelativeBar)
          << "rows=" << c.rows << " cols=" << c.cols << " magnitude=" << c.magnitude << " scale=" << c.scale
          << " r=" << r << " x=" << original[row_start + row_worst.index] << " " << row_worst;
      worst_float = std::max(worst_float, row_worst.error);
    }
  }
  std::printf("[ measured ] float rows: worst relative error %.3g\n", worst_float);
}

// ─── Quantities derived from a row, at the edges ─────────────────────────────────────────────
// Entropy, ‖J‖_F, S(1 − S) and the two vector–Jacobian columns the app shows (max_gradient =
// s_m(δ_jm − s_j), log_max_gradient = δ_jm − s_j, m the argmax), through evaluate() as the app
// computes them, against MPFR from the exact softmax of the same double scores. Near one-hot
// rows are the point: 1 − s_m is far below one ulp of 1 there, so every one of these is a
// small number that a formula with 1 − s_m or a closed form like Σs² − 2Σs³ + (Σs²)² loses.
// Bar: 1e-12 relative (the bar; the kernels measure ~1e-15) where |exact| ≥ 1e-300,
// absolute 1e-312 below (a double has no more digits there).
namespace derived {

constexpr double kBar = 1e-12;

// The exact values, in MPFR: H = −Σ p_i ℓ_i with the reference's exact log-probabilities
// (ln p_m from the rounded p_m would be 0 at 256 bits too once the rest is below 1e-77);
// c_m = 1 − p_m = Σ_{j≠m} p_j; ‖J‖²_F = Σ_ij J_ij² entry by entry (n ≤ 64 here: independent of
// the kernel's split).
struct Exact {
  Big entropy, norm;
  std::vector<Big> diagonal, max_gradient, log_max_gradient;
};

Exact exact_derived(const std::vector<double>& scores, double temperature, std::size_t argmax) {
  const Reference ref = exact_softmax(scores, temperature);
  const std::size_t n = scores.size();
  Exact exact;
  exact.diagonal.resize(n);
  exact.max_gradient.resize(n);
  exact.log_max_gradient.resize(n);
  mpfr_set_zero(exact.entropy.get(), 1);
  std::vector<Big> complement(n);
  Big others, term;
  mpfr_set_zero(others.get(), 1);
  for (std::size_t j = 0; j < n; ++j)
    if (j != argmax) mpfr_add(others.get(), others.get(), ref.probabilities[j].get(), MPFR_RNDN);
  for (std::size_t i = 0; i < n; ++i) {
    if (i == argmax)
      mpfr_set(complement[i].get(), others.get(), MPFR_RNDN);
    else
      mpfr_ui_sub(complement[i].get(), 1, ref.probabilities[i].get(), MPFR_RNDN);
    if (mpfr_zero_p(ref.probabilities[i].get()) == 0 && mpfr_inf_p(ref.log_probabilities[i].get()) == 0) {
      mpfr_mul(term.get(), ref.probabilities[i].get(), ref.log_probabilities[i].get(), MPFR_RNDN);
      mpfr_sub(exact.entropy.get(), exact.entropy.get(), term.get(), MPFR_RNDN);
    }
    mpfr_mul(exact.diagonal[i].get(), ref.probabilities[i].get(), complement[i].get(), MPFR_RNDN);
    if (i == argmax) {
      mpfr_set(exact.max_gradient[i].get(), exact.diagonal[i].get(), MPFR_RNDN);
      mpfr_set(exact.log_max_gradient[i].get(), complement[i].get(), MPFR_RNDN);
    } else {
      mpfr_mul(exact.max_gradient[i].get(), ref.probabilities[argmax].get(), ref.probabilities[i].get(), MPFR_RNDN);
      mpfr_neg(exact.max_gradient[i].get(), exact.max_gradient[i].get(), MPFR_RNDN);
      mpfr_neg(exact.log_max_gradient[i].get(), ref.probabilities[i].get(), MPFR_RNDN);
    }
  }
  Big squares, entry;
  mpfr_set_zero(squares.get(), 1);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      if (i == j)
        mpfr_set(entry.get(), exact.diagonal[i].get(), MPFR_RNDN);
      else
        mpfr_mul(entry.get(), ref.probabilities[i].get(), ref.probabilities[j].get(), MPFR_RNDN);
      mpfr_sqr(entry.get(), entry.get(), MPFR_RNDN);
      mpfr_add(squares.get(), squares.get(), entry.get(), MPFR_RNDN);
    }
  mpfr_sqrt(exact.norm.get(), squares.get(), MPFR_RNDN);
  return exact;
}

double error_of(double ours, const Big& exact) {
  const ErrorPair error = error_against(ours, exact);
  return error.magnitude >= 1e-300 ? error.absolute / error.magnitude : error.absolute / 1e-312 * kBar;
}

// Evaluates the Params as the app does and checks the Snapshot's row quantities.
void check_snapshot(const std::string& name, const Params& params, double& worst) {
  const Snapshot snap = evaluate(params);
  SCOPED_TRACE(describe(name, snap.scores, params.temperature));
  const Exact exact = exact_derived(snap.scores, params.temperature, static_cast<std::size_t>(snap.argmax));
  auto check = [&](const char* quantity, double ours, const Big& reference, std::size_t index) {
    const double error = error_of(ours, reference);
    worst = std::max(worst, error);
    EXPECT_LE(error, kBar) << name << " " << quantity << "[" << index << "] got " << ours << ", exact "
                           << mpfr_get_d(reference.get(), MPFR_RNDN) << ", relative error " << error;
  };
  check("entropy_nats", snap.entropy_nats, exact.entropy, 0);
  check("jacobian_norm", snap.jacobian_norm, exact.norm, 0);
  for (std::size_t i = 0; i < snap.scores.size(); ++i) {
    check("S(1-S)", snap.gradient[i], exact.diagonal[i], i);
    check("max_gradient", snap.max_gradient[i], exact.max_gradient[i], i);
    check("log_max_gradient", snap.log_max_gradient[i], exact.log_max_gradient[i], i);
  }
}

Params custom(const std::vector<double>& scores, double temperature) {
  Params params;
  params.scores = scores;
  params.temperature = temperature;
  return params;
}

}  // namespace derived

TEST(MpfrReference, DerivedQuantitiesStayRelativelyExactOnNearOneHotRows) {
  double worst = 0.0;
  // The rows (exact values from mpmath at 50 digits, repeated here by MPFR).
  derived::check_snapshot("0, 18", derived::custom({0.0, 18.0}, 1.0), worst);        // ‖J‖_F 3.045996e-08
  derived::check_snapshot("0, 19", derived::custom({0.0, 19.0}, 1.0), worst);        // ‖J‖_F 1.120559e-08
  derived::check_snapshot("200, 250", derived::custom({200.0, 250.0}, 1.0), worst);  // H 9.8366e-21
  derived::check_snapshot("1, 2, 3 at T = 0.01", derived::custom({1.0, 2.0, 3.0}, 0.01), worst);  // S(1−S) 3.72e-44
  // Further out: 1 − s_m at 1e-200 and at 1e-304 (where r² underflows), several tiny others of
  // very different sizes (the R − s_j² subtraction), a masked key, ties, and the ordinary range.
  derived::check_snapshot("0, -460", derived::custom({0.0, -460.0}, 1.0), worst);
  derived::check_snapshot("0, -700", derived::custom({0.0, -700.0}, 1.0), worst);
  derived::check_snapshot("0, -30, -60, -400", derived::custom({-30.0, 0.0, -60.0, -400.0}, 1.0), worst);
  derived::check_snapshot("masked near one-hot", derived::custom({5.0, -kInf, -20.0, -25.0}, 0.5), worst);
  derived::check_snapshot("two tied winners", derived::custom({3.0, 3.0, -40.0}, 1.0), worst);
  derived::check_snapshot("1, 2, 3", derived::custom({1.0, 2.0, 3.0}, 1.0), worst);
  derived::check_snapshot("spread at T = 7", derived::custom({-24.0, -10.0, 0.0, 10.0, 24.0}, 7.0), worst);
  std::vector<double> long_row(64);
  for (std::size_t i = 0; i < long_row.size(); ++i) long_row[i] = -0.75 * static_cast<double>(i * i);
  derived::check_snapshot("64 falling scores", derived::custom(long_row, 0.05), worst);
  // Rows of the dashboard itself: the large-dk-unscaled preset (d_k = 1024 without ÷√d_k:
  // scores of std 32, rows one-hot to ~1e-9) and the default Params, every query row.
  Params preset;
  preset.key_dim = 1024;
  preset.scaled = false;
  for (int row = 0; row < preset.seq_len; ++row) {
    preset.row = row;
    derived::check_snapshot("large-dk-unscaled row " + std::to_string(row), preset, worst);
  }
  Params defaults;
  for (int row = 0; row < defaults.seq_len; row += 5) {
    defaults.row = row;
    derived::check_snapshot("defaults row " + std::to_string(row), defaults, worst);
  }
  std::printf("[ measured ] derived quantities: worst relative error %.3g (bar %.0e)\n", worst, derived::kBar);
}

}  // namespace
}  // namespace smlab
