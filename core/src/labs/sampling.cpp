// The sampling lab's computations: top-k and nucleus filters, seeded categorical draws counted in
// parallel blocks, and the distillation loss with its T² factor.
#include "smlab/labs/sampling.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numeric>

#include "smlab/labs/attention_variants.hpp"  // log_grid
#include "smlab/parallel.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

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
  // The row's own total and the mass so far, both compensated (Neumaier), so a nucleus that
  // reaches p·total exactly in exact arithmetic (20 equal weights at p = 0.5: 10 of them) is not
  // missed by the roundings of the sums.
  double total = 0.0, total_compensation = 0.0;
  for (double x : probabilities) {
    const double t = total + x;
    total_compensation += std::abs(total) >= std::abs(x) ? (total - t) + x : (x - t) + total;
    total = t;
  }
  total += total_compensation;
  // The weights themselves carry the roundings of the softmax that made them: n of them together
  // are known to about n·2⁻⁵³ of the total. Mass within that of p·total has reached it: a tie at
  // the boundary (p·n equal weights exactly) is then decided as exact arithmetic decides it.
  const double reached = p * total - 2.0 * static_cast<double>(probabilities.size()) * 0x1p-53 * total;
  double sum = 0.0, compensation = 0.0;
  std::size_t kept = 0;
  while (kept < order.size()) {
    const double x = probabilities[order[kept]];
    if (kept > 0 && x == 0.0) break;  // zero mass never joins the nucleus
    const double t = sum + x;
    compensation += std::abs(sum) >= std::abs(x) ? (sum - t) + x : (x - t) + sum;
    sum = t;
    ++kept;
    if (p < 1.0 && sum + compensation >= reached) break;  // p = 1 keeps every nonzero entry
  }
  keep_prefix(out, probabilities, order, kept);
  return static_cast<int>(kept);
}

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
