// The sampling lab's computations: top-k and nucleus filters, seeded categorical draws counted in
// parallel blocks, and the distillation loss with its T² factor.
//
// [SECTION] Index
//   [SECTION] Helpers: a norm, exact numbers, p as a decimal, the order
//   [SECTION] Filters: top-k and top-p
//   [SECTION] Draws
//   [SECTION] Distillation and the lab
#include "smlab/labs/sampling.hpp"

#include <algorithm>
#include <array>
#include <cassert>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <system_error>

#include "smlab/labs/attention_variants.hpp"  // log_grid
#include "smlab/parallel.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

// [SECTION] Helpers: a norm, exact numbers, p as a decimal, the order

// Above this a probability is 1 to within 2⁻¹³: q − p of two such loses 13 bits and more (its
// relative error is about 2⁻⁵³/(1 − p), over 1e-12), so the distillation gradient takes it from the
// complements (1 − p = Σ of the others). Below it the plain difference is within 1e-12 relative
// and keeps the bits it always had.
constexpr double distillation_complement_above = 1.0 - 0x1p-13;

// ‖v‖₂. Near one-hot the gradient's entries reach 1e-290 and their squares underflow to 0; then
// (and for entries whose squares would overflow) the entries are scaled by the largest first.
// Elsewhere the plain sum of squares, with the bits it always had.
double euclidean_norm(std::span<const double> v) {
  double largest = 0.0, squares = 0.0;
  for (double x : v) largest = std::max(largest, std::abs(x));
  if (largest == 0.0) return 0.0;
  if (largest > 1e-150 && largest < 1e150) {
    for (double x : v) squares += x * x;
    return std::sqrt(squares);
  }
  for (double x : v) squares += (x / largest) * (x / largest);
  return largest * std::sqrt(squares);
}

// A non-negative number exactly: a fixed-point integer in 64-bit limbs from 2^−1152 (below the
// last bit of any double, 2^−1074) to 2^1279 (above a sum of 2^40 doubles ≤ 1 times 10^341 times
// 10^17, the most top_p_filter multiplies one by). Sums of doubles, sums of these, multiplication
// by a small integer, comparison.
class ExactNumber {
 public:
  void add(double x) {
    assert(x >= 0.0 && std::isfinite(x));
    int exponent = 0;
    const double fraction = std::frexp(x, &exponent);  // x = fraction · 2^exponent, fraction ∈ [0.5, 1)
    add_at(static_cast<std::uint64_t>(std::ldexp(fraction, 53)), exponent - 53);
  }
  void add(const ExactNumber& other) {
    std::uint64_t carry = 0;
    for (std::size_t k = 0; k < limb_count; ++k) {
      const std::uint64_t sum = limbs_[k] + other.limbs_[k];
      const std::uint64_t with_carry = sum + carry;
      carry = (sum < limbs_[k] ? 1 : 0) + (with_carry < sum ? 1 : 0);
      limbs_[k] = with_carry;
    }
    assert(carry == 0);
  }
  void multiply(std::uint32_t factor) {
    // Each limb in two 32-bit halves: every partial product and carry stays below 2^64.
    std::uint64_t carry = 0;
    for (std::uint64_t& limb : limbs_) {
      const std::uint64_t low = (limb & 0xFFFFFFFFu) * factor + carry;
      const std::uint64_t high = (limb >> 32) * factor + (low >> 32);
      limb = (high << 32) | (low & 0xFFFFFFFFu);
      carry = high >> 32;
    }
    assert(carry == 0);
  }
  void multiply_by_power_of_ten(int exponent) {
    for (; exponent >= 9; exponent -= 9) multiply(1'000'000'000u);
    std::uint32_t rest = 1;
    for (; exponent > 0; --exponent) rest *= 10;
    multiply(rest);
  }
  friend bool operator<(const ExactNumber& a, const ExactNumber& b) {
    for (std::size_t k = limb_count; k-- > 0;)
      if (a.limbs_[k] != b.limbs_[k]) return a.limbs_[k] < b.limbs_[k];
    return false;
  }

 private:
  static constexpr int lowest_exponent = -1152;  // −18 · 64
  static constexpr std::size_t limb_count = 38;  // 2^−1152 … 2^1279
  // value · 2^exponent, value < 2^64, exponent ≥ lowest_exponent (0 adds nothing).
  void add_at(std::uint64_t value, int exponent) {
    if (value == 0) return;
    assert(exponent >= lowest_exponent);
    const auto shift = static_cast<std::size_t>(exponent - lowest_exponent);
    const std::size_t limb = shift / 64;
    const auto bit = static_cast<unsigned>(shift % 64);
    ExactNumber addend;
    addend.limbs_[limb] = value << bit;
    if (bit != 0) addend.limbs_[limb + 1] = value >> (64 - bit);
    add(addend);
  }
  std::array<std::uint64_t, limb_count> limbs_{};
};

// p as the decimal it was given as, m · 10^−k: the shortest decimal that reads back as the same
// double (std::to_chars; what --set reads, the app prints and a session saves). So 0.9 is 9/10,
// not the double 0.9000000000000000222 that stands for it.
struct Decimal {
  std::uint64_t digits = 0;  // m < 10^17
  int fraction_digits = 0;   // k ≥ 0 (p ≤ 1)
};
Decimal shortest_decimal(double p) {
  std::array<char, 32> text{};
  const auto written = std::to_chars(text.data(), text.data() + text.size(), p);
  assert(written.ec == std::errc());
  Decimal decimal;
  int after_point = 0, exponent = 0;
  bool in_fraction = false;
  for (const char* c = text.data(); c != written.ptr; ++c) {
    if (*c == '.') {
      in_fraction = true;
    } else if (*c == 'e') {
      std::from_chars(c + (c[1] == '+' ? 2 : 1), written.ptr, exponent);
      break;
    } else {
      decimal.digits = 10 * decimal.digits + static_cast<std::uint64_t>(*c - '0');
      after_point += in_fraction ? 1 : 0;
    }
  }
  decimal.fraction_digits = after_point - exponent;
  for (; decimal.fraction_digits < 0; ++decimal.fraction_digits) decimal.digits *= 10;  // p = 1 is "1"
  return decimal;
}

// Indices by descending probability, ties by ascending index.
std::vector<std::size_t> descending_order(std::span<const double> probabilities) {
  std::vector<std::size_t> order(probabilities.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return probabilities[a] > probabilities[b]; });
  return order;
}

// Keeps order[0 … kept−1], renormalised by their (compensated) sum.
void keep_prefix(std::span<double> out, std::span<const double> probabilities, const std::vector<std::size_t>& order,
                 std::size_t kept) {
  double sum = 0.0, compensation = 0.0;
  for (std::size_t r = 0; r < kept; ++r) {
    const double x = probabilities[order[r]], t = sum + x;
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;  // Neumaier
    sum = t;
  }
  sum += compensation;
  std::fill(out.begin(), out.end(), 0.0);
  for (std::size_t r = 0; r < kept; ++r) out[order[r]] = probabilities[order[r]] / sum;
}

}  // namespace

// [SECTION] Filters: top-k and top-p

int top_k_filter(std::span<double> out, std::span<const double> probabilities, int k) {
  assert(out.size() == probabilities.size() && !probabilities.empty() && k >= 1);
  const auto order = descending_order(probabilities);
  const std::size_t kept = std::min(static_cast<std::size_t>(k), probabilities.size());
  keep_prefix(out, probabilities, order, kept);
  return static_cast<int>(kept);
}

int top_p_filter(std::span<double> out, std::span<const double> probabilities, double p) {
  assert(out.size() == probabilities.size() && !probabilities.empty() && p > 0.0 && p <= 1.0);
  const auto order = descending_order(probabilities);
  // The rule: the fewest most likely tokens (ties: the lower index first) whose mass is at least p
  // of the row's total, Σ_kept w ≥ p · Σ_all w, with p the decimal it was given as (Decimal) and
  // the comparison exact: Σ_kept w · 10^k ≥ m · Σ_all w in ExactNumber. So the rounding of a running
  // sum can neither stop the nucleus below p nor carry it past the token that reaches p, and a tie
  // on the boundary (p·n of n equal weights) is decided as exact arithmetic decides it. The total,
  // not 1: the rounded weights need not sum to 1, and the kept ones are renormalised by their sum.
  // Were the comparison inexact, it would have to err towards one more token: the nucleus promises
  // a mass of at least p, and a token too many adds only its own small probability, while
  // stopping short breaks the promise.
  const Decimal decimal = shortest_decimal(p);
  ExactNumber total;
  for (double w : probabilities) total.add(w);
  // target = m · Σ_all w, m = high · 10^9 + low.
  ExactNumber target = total, low_part = total;
  target.multiply(static_cast<std::uint32_t>(decimal.digits / 1'000'000'000u));
  target.multiply(1'000'000'000u);
  low_part.multiply(static_cast<std::uint32_t>(decimal.digits % 1'000'000'000u));
  target.add(low_part);
  ExactNumber mass;
  std::size_t kept = 0;
  while (kept < order.size()) {
    const double x = probabilities[order[kept]];
    if (kept > 0 && x == 0.0) break;  // zero mass never joins (so p = 1 keeps every nonzero entry)
    mass.add(x);
    ++kept;
    ExactNumber scaled = mass;
    scaled.multiply_by_power_of_ten(decimal.fraction_digits);
    if (!(scaled < target)) break;
  }
  keep_prefix(out, probabilities, order, kept);
  return static_cast<int>(kept);
}

// [SECTION] Draws

void draw_counts(std::span<long long> counts, std::span<const double> probabilities, long long draws,
                 std::uint64_t seed) {
  assert(counts.size() == probabilities.size() && !probabilities.empty() && draws >= 0);
  // Cumulative sums; the uniform u ∈ (0, 1] is scaled by the total, and the draw is the first i
  // with cumulative_i ≥ u·total (an entry with p_i = 0 has the cumulative of its predecessor and
  // can never be the first to reach u > 0).
  std::vector<double> cumulative(probabilities.size());
  std::partial_sum(probabilities.begin(), probabilities.end(), cumulative.begin());
  const double total = cumulative.back();
  const long long blocks = (draws + sampling_block_draws - 1) / sampling_block_draws;
  const std::size_t n = probabilities.size();
  std::vector<long long> block_counts(static_cast<std::size_t>(blocks) * n, 0);
  parallel_for(static_cast<int>(blocks), [&](int block) {
    SplitMix64 bits(stream_seed(seed, sampling_stream, static_cast<std::uint64_t>(block)));
    const long long first = static_cast<long long>(block) * sampling_block_draws;
    const long long last = std::min(draws, first + sampling_block_draws);
    long long* mine = block_counts.data() + static_cast<std::size_t>(block) * n;
    for (long long d = first; d < last; ++d) {
      const double target = std::min(bits.uniform() * total, total);
      auto hit = std::lower_bound(cumulative.begin(), cumulative.end(), target);
      if (hit == cumulative.end()) --hit;
      ++mine[static_cast<std::size_t>(hit - cumulative.begin())];
    }
  });
  std::fill(counts.begin(), counts.end(), 0);
  for (long long b = 0; b < blocks; ++b)
    for (std::size_t i = 0; i < n; ++i) counts[i] += block_counts[static_cast<std::size_t>(b) * n + i];
}

// [SECTION] Distillation and the lab

void distillation(Distillation& out, std::span<const double> teacher_logits, std::span<const double> student_logits,
                  double temperature) {
  assert(teacher_logits.size() == student_logits.size() && !teacher_logits.empty() && temperature > 0.0);
  const std::size_t n = teacher_logits.size();
  out.soft_targets.resize(n);
  out.student_probabilities.resize(n);
  softmax(out.soft_targets, teacher_logits, temperature);
  softmax(out.student_probabilities, student_logits, temperature);
  // KL from log-softmaxes, so a tiny q_i gives its true large ln q_i instead of log(0).
  std::vector<double> log_p(n), log_q(n);
  log_softmax(log_p, teacher_logits, temperature);
  log_softmax(log_q, student_logits, temperature);
  double kl = 0.0;
  for (std::size_t i = 0; i < n; ++i)
    if (out.soft_targets[i] > 0.0) kl += out.soft_targets[i] * (log_p[i] - log_q[i]);
  out.kl_nats = std::max(kl, 0.0);  // ≥ 0 in exact arithmetic; rounding can leave −1e-17
  out.loss = temperature * temperature * out.kl_nats;
  // q_i − p_i. Near one-hot both are ≈ 1 at the top index, and their difference cancels to
  // nothing (the components would no longer sum to 0); there, as the Q/K gradients do, each is
  // written as 1 minus the sum of the others: q_i − p_i = (1 − p_i) − (1 − q_i) = Σ_{j≠i} p_j −
  // Σ_{j≠i} q_j, whose terms are small and exact to their own rounding.
  out.gradient.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double q = out.student_probabilities[i], p = out.soft_targets[i];
    if (std::max(q, p) < distillation_complement_above) {
      out.gradient[i] = temperature * (q - p);
      continue;
    }
    double others_p = 0.0, others_q = 0.0;
    for (std::size_t j = 0; j < n; ++j)
      if (j != i) others_p += out.soft_targets[j], others_q += out.student_probabilities[j];
    out.gradient[i] = temperature * (others_p - others_q);
  }
}

void evaluate_sampling_lab(SamplingLab& out, const SamplingSettings& settings) {
  out.settings = settings;
  const std::size_t n = settings.logits.size();
  out.probabilities.resize(n);
  softmax(out.probabilities, settings.logits, settings.temperature);
  out.top_k.resize(n);
  out.top_p.resize(n);
  out.top_k_kept = top_k_filter(out.top_k, out.probabilities, settings.top_k);
  out.top_p_kept = top_p_filter(out.top_p, out.probabilities, settings.top_p);
  out.top_k_mass = out.top_p_mass = 0.0;
  for (std::size_t i = 0; i < out.probabilities.size(); ++i) {
    if (out.top_k[i] > 0.0) out.top_k_mass += out.probabilities[i];
    if (out.top_p[i] > 0.0) out.top_p_mass += out.probabilities[i];
  }
  out.counts.resize(n);
  draw_counts(out.counts, out.probabilities, settings.draws, settings.seed);
  out.frequencies.resize(n);
  out.max_frequency_error = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    out.frequencies[i] =
        settings.draws > 0 ? static_cast<double>(out.counts[i]) / static_cast<double>(settings.draws) : 0.0;
    out.max_frequency_error = std::max(out.max_frequency_error, std::abs(out.frequencies[i] - out.probabilities[i]));
  }
  out.entropy_nats = entropy_nats(out.probabilities);
  out.top_p_entropy_nats = entropy_nats(out.top_p);
  distillation(out.distillation, settings.logits, settings.student_logits, settings.distillation_temperature);

  constexpr int sweep_points = 61;  // 20 per decade
  out.sweep_temperatures = log_grid(0.1, 100.0, sweep_points);
  out.sweep_soft_entropy.resize(sweep_points);
  out.sweep_gradient_norm.resize(sweep_points);
  out.sweep_unscaled_gradient_norm.resize(sweep_points);
  Distillation at;
  for (std::size_t k = 0; k < static_cast<std::size_t>(sweep_points); ++k) {
    const double t = out.sweep_temperatures[k];
    distillation(at, settings.logits, settings.student_logits, t);
    out.sweep_soft_entropy[k] = entropy_nats(at.soft_targets);
    const double norm = euclidean_norm(at.gradient);
    out.sweep_gradient_norm[k] = norm;
    out.sweep_unscaled_gradient_norm[k] = norm / (t * t);  // the gradient of KL alone
  }
}

}  // namespace smlab
