// Temperature for sampling and distillation: draws from softmax(logits/T) counted in a seeded
// histogram, the top-k and top-p (nucleus) filtered distributions, and Hinton's soft targets with
// the T²-scaled distillation loss and its gradient.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace smlab {

// ─── Filters: each writes a distribution (sums to 1) over the same n entries ───────────────
// Ties are broken by index (the lower index is "larger"), so a filter keeps exactly what it says.

// Top-k: keep the k largest probabilities (1 ≤ k; k ≥ n keeps all), zero the rest, renormalise.
// Returns how many entries are kept (min(k, n)). Shapes: out and probabilities length n ≥ 1.
int top_k_filter(std::span<double> out, std::span<const double> probabilities, int k);

// Top-p / nucleus (Holtzman et al. 2020): keep the smallest set of most likely tokens whose total
// probability is at least p of the row's total, Σ_kept p_i ≥ p · Σ_all p_i (0 < p ≤ 1), taking
// tokens in descending probability and tied ones lower index first; zero the rest, renormalise.
// Returns the count. p is the decimal it was given as (the shortest decimal that reads back as the
// double: 0.9 is 9/10), and the comparison is exact, not a rounded running sum, so the count is
// the one exact arithmetic gives, at a tie on the boundary too (0.5 of 20 equal weights keeps 10,
// 0.6666666666666667 of 3 keeps 3). The largest entry is always kept; an entry of zero mass never
// is, so p = 1 keeps every nonzero entry, no more.
int top_p_filter(std::span<double> out, std::span<const double> probabilities, double p);

// ─── Draws ──────────────────────────────────────────────────────────────────────────────────
// counts[i] = how many of `draws` categorical draws from `probabilities` fell on i, by inverse
// CDF on the project's SplitMix64 uniforms (random.hpp). The draws are cut in blocks of
// sampling_block_draws; block b uses stream_seed(seed, sampling_stream, b), and the blocks run
// on parallel_for and are added in block order, so counts do not depend on the thread count.
// Entries with probability 0 are never drawn. Shapes: counts and probabilities length n ≥ 1;
// probabilities ≥ 0 with a positive sum (they are normalised by their sum).
inline constexpr int sampling_block_draws = 4096;
inline constexpr std::uint64_t sampling_stream = 0x53414D50;  // "SAMP"
void draw_counts(std::span<long long> counts, std::span<const double> probabilities, long long draws,
                 std::uint64_t seed);

// ─── Distillation (Hinton, Vinyals & Dean 2015) ─────────────────────────────────────────────
// Soft targets p = softmax(teacher / T); student q = softmax(student / T).
// KD loss      L = T² · KL(p ‖ q) = T² Σ_i p_i (ln p_i − ln q_i)
// gradient     ∂L/∂student_i = T² · (q_i − p_i)/T = T (q_i − p_i)
// (∂KL/∂z_i = q_i − p_i for z = student/T, as for any cross-entropy on a softmax; ∂z/∂student = 1/T.)
// The T² keeps the gradient's size roughly independent of T: for large T and zero-mean logits
// T (q_i − p_i) → (student_i − teacher_i)/n, so the soft and hard terms of a KD objective keep
// their balance as T changes. Shapes: teacher, student and gradient length n ≥ 1.
struct Distillation {
  std::vector<double> soft_targets;           // p
  std::vector<double> student_probabilities;  // q
  double kl_nats = 0.0;                       // KL(p ‖ q)
  double loss = 0.0;                          // T² KL
  std::vector<double> gradient;               // ∂L/∂student
};
void distillation(Distillation& out, std::span<const double> teacher_logits, std::span<const double> student_logits,
                  double temperature);

// ─── The sampling lab ───────────────────────────────────────────────────────────────────────
struct SamplingSettings {
  std::vector<double> logits{3.2, 2.9, 2.1, 1.5, 0.8, 0.3, -0.4, -1.2, -2.0, -3.1};  // a vocabulary of 10 tokens
  double temperature = 1.0;
  int top_k = 5;
  double top_p = 0.9;
  long long draws = 1000;
  std::uint64_t seed = 42;
  double distillation_temperature = 4.0;
  std::vector<double> student_logits{2.0, 2.5, 1.0, 1.8, 0.2, 0.5, -1.0, -0.5, -1.5, -2.5};
};

// The T table of the seed texts, marked on the temperature axis.
struct TemperatureUse {
  double low, high;
  const char* name;  // "code", "creative", "distillation" (a key for the string tables)
};
inline constexpr TemperatureUse temperature_uses[] = {
    {0.2, 0.5, "code"}, {1.2, 1.5, "creative"}, {2.0, 20.0, "distillation"}};

struct SamplingLab {
  SamplingSettings settings;
  std::vector<double> probabilities;  // softmax(logits / T)
  std::vector<double> top_k;          // filtered (top_k_filter)
  std::vector<double> top_p;          // filtered (top_p_filter)
  int top_k_kept = 0, top_p_kept = 0;
  // The probability mass the filter kept (Σ p_i over the kept tokens): each kept p_i is divided by it.
  double top_k_mass = 0.0, top_p_mass = 0.0;
  std::vector<long long> counts;     // draws from `probabilities`
  std::vector<double> frequencies;   // counts / draws
  double max_frequency_error = 0.0;  // max_i |frequency_i − p_i|
  double entropy_nats = 0.0, top_p_entropy_nats = 0.0;
  Distillation distillation;  // teacher = logits, student = student_logits, at distillation T
  // Soft targets' entropy and T²-scaled gradient norm versus T (log grid 0.1 … 100).
  std::vector<double> sweep_temperatures, sweep_soft_entropy, sweep_gradient_norm, sweep_unscaled_gradient_norm;
};

// Pure and deterministic for given settings (the draws are seeded). Cost O(n log n + draws).
void evaluate_sampling_lab(SamplingLab& out, const SamplingSettings& settings);

}  // namespace smlab
