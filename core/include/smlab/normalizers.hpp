// Softmax's relatives — hardmax, linear, sigmoid and ReLU "normalisers", sparsemax, α-entmax —
// their gradients, and one result type that says whether a normaliser gives a distribution.
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace smlab {

// ─── Kernels ────────────────────────────────────────────────────────────────────────────────
// Shapes: weights and scores have the same length n ≥ 1. Units: scores are logits before
// temperature, T > 0 (T = +inf is treated as the largest double). A kernel returns false, with
// every weight NaN, when its output is undefined (the reason is spelled out by normalize()).
// For hardmax, sparsemax and entmax the scores follow softmax.hpp's conventions: −inf is masked
// (weight exactly 0); the k entries at +inf share the weight 1/k each; NaN, or every score −inf,
// is undefined.

// Index of the largest score, the first one when several tie; n when there is none (a NaN in
// the row, or every score −inf).
std::size_t argmax(std::span<const double> scores);

// Hardmax, the T → 0 limit of softmax: weight 1/k on each of the k entries equal to the max,
// 0 elsewhere. Ties are split evenly because that is the limit — tied scores have equal softmax
// weights at every T — whereas a one-hot on the first max (argmax) would depend on the order.
// No temperature: argmax(x/T) = argmax(x) for every T > 0.
bool hardmax(std::span<double> weights, std::span<const double> scores);

// Linear normalisation w_i = x_i / Σ_j x_j (temperature would cancel). A distribution only when
// every x_i ≥ 0 and Σx > 0. With negative scores the weights are still defined and still sum to
// 1, but some are negative or above 1, or (all negative) the order is reversed — returns true;
// normalize() reports it. Undefined (false, NaN): Σx = 0, or any score ±inf or NaN.
bool linear_normalize(std::span<double> weights, std::span<const double> scores);

// Sigmoid "normaliser" w_i = σ(x_i/T) = 1/(1 + e^{−x_i/T}), each entry on its own. Every weight
// is in [0, 1] but nothing ties them together: Σ w is anywhere in (0, n) — the lesson is that an
// element-wise squashing is not a normaliser. ±inf give 1 and 0. False (NaN) only for NaN input.
bool sigmoid_normalize(std::span<double> weights, std::span<const double> scores, double temperature = 1.0);

// ReLU normalisation w_i = max(x_i, 0) / Σ_j max(x_j, 0) (temperature would cancel). Non-
// negative and sums to 1 with exact zeros for x_i ≤ 0. Undefined (false, NaN) when every score
// is ≤ 0 (0/0), or a score is +inf or NaN. −inf is fine (relu gives 0).
bool relu_normalize(std::span<double> weights, std::span<const double> scores);

// Sparsemax (Martins & Astudillo 2016): the Euclidean projection of z = x/T onto the simplex,
//   sparsemax(z) = argmin_{p ≥ 0, Σp = 1} ‖p − z‖².
// Sort z descending, z_(1) ≥ z_(2) ≥ …;  k = max{k : 1 + k·z_(k) > Σ_{j≤k} z_(j)};
//   τ = (Σ_{j≤k} z_(j) − 1) / k;   p_i = max(z_i − τ, 0).
// Every z_i ≤ τ gets exactly 0: unlike softmax, the output is sparse.
// Shift-invariant, so z is taken relative to the max (no overflow at ±1e300), and only z_i > z_max − 1
// can be in the support (p_max ≤ 1 ⇒ τ ≥ z_max − 1): those are the only ones sorted. The sort uses
// `weights` as scratch: no allocation. O(n + k log k) for k candidates.
bool sparsemax(std::span<double> weights, std::span<const double> scores, double temperature = 1.0);

// α-entmax (Peters, Niculae & Martins 2019) for α ∈ [1, 2], z = x/T:
//   p_i = [(α − 1) z_i − τ]_+^{1/(α−1)}, with τ such that Σ p_i = 1.
// α = 1 is softmax (the limit; computed by calling softmax), α = 2 is sparsemax (computed by
// calling it, so the two agree bit for bit); in between the output is sparse, with fewer zeros
// as α → 1. For 1 < α < 2, τ is found by bisection. To stay accurate as α → 1 (where the
// exponent 1/(α−1) amplifies any rounding of the base) the threshold is written
// τ = −1 − (α−1)·t, so that p_i = exp(log1p((α−1)(z_i + t)) / (α−1)), which tends to
// exp(z_i + t) = softmax with t = −logsumexp(z). Bisection on t brackets
//   t ∈ [expm1(−(α−1) ln n)/(α−1), 0]   (every p_i ≤ 1/n at the left end, p_max = 1 at the right)
// and runs until the bracket is two adjacent doubles; the weights at its upper end are then
// divided by their sum (as the reference implementation does), so they sum to 1 to rounding.
// Cost: about 60 passes over the row, with an exp and a log1p per entry in the support (measured
// at n = 4096: 0.3 ms for N(0, 2²) scores, ~5 ms when every entry is in the support): for a
// row on screen, not for a whole attention map every frame.
// α outside [1, 2] or NaN: false (NaN).
bool entmax(std::span<double> weights, std::span<const double> scores, double alpha, double temperature = 1.0);

// ─── Gradients ──────────────────────────────────────────────────────────────────────────────

// The Jacobian of sparsemax, n×n row-major, jacobian[i·n + j] = ∂p_i/∂x_j, from its output p.
// Support S = {i : p_i > 0}, k = |S|. On S, p_i = z_i − τ with τ = (Σ_{j∈S} z_j − 1)/k, so
//   ∂p_i/∂z_j = δ_ij − ∂τ/∂z_j = δ_ij − 1/k   (i, j ∈ S),
// and off S, p_i = 0 in a neighbourhood. With z = x/T:
//   J = (diag(1_S) − 1_S 1_Sᵀ / k) / T.
// (At a point where an entry is about to enter the support, J is the one-sided derivative.)
void sparsemax_jacobian(std::span<double> jacobian, std::span<const double> weights, double temperature = 1.0);

// Vector–Jacobian product of α-entmax given its output p and g = ∂L/∂p (α ∈ [1, 2]).
// On the support, p_i^{α−1} = (α−1) z_i − τ. Differentiate:
//   (α−1) p_i^{α−2} dp_i = (α−1) dz_i − dτ   ⇒   dp_i = s_i (dz_i − dτ/(α−1)),  s_i = p_i^{2−α}
// (s_i = 0 off the support). Σ_i dp_i = 0 fixes dτ/(α−1) = ⟨s, dz⟩ / Σs, so
//   J = diag(s) − s sᵀ / Σs   (symmetric),   dx = (s ⊙ g − s ⟨s, g⟩/Σs) / T.
// α = 1: s = p, Σs = 1 — softmax_vjp. α = 2: s = 1_S — sparsemax_jacobian applied to g.
// Shapes: all three spans have length n.
void entmax_vjp(std::span<double> score_gradient, std::span<const double> weights,
                std::span<const double> output_gradient, double alpha, double temperature = 1.0);

// ─── One result type for display ────────────────────────────────────────────────────────────

enum class Normalizer { softmax, naive_softmax, online_softmax, hardmax, linear, sigmoid, relu, sparsemax, entmax };

inline constexpr std::array<Normalizer, 9> all_normalizers{
    Normalizer::softmax, Normalizer::naive_softmax, Normalizer::online_softmax, Normalizer::hardmax, Normalizer::linear,
    Normalizer::sigmoid, Normalizer::relu,          Normalizer::sparsemax,      Normalizer::entmax};

// A stable machine name: "softmax", "naive_softmax", "online_softmax", "hardmax", "linear",
// "sigmoid", "relu", "sparsemax", "entmax".
std::string_view normalizer_name(Normalizer kind);

// Why a result is not a probability distribution: a code for the app's string tables (the
// `problem` text below is the English version).
enum class NormalizerIssue {
  none,
  nan_score,            // a score is NaN
  all_masked,           // every score is −inf
  exp_overflow,         // naive softmax: exp(x/T) or Σ exp = inf, so inf/inf = NaN or x/inf = 0
  exp_underflow,        // naive softmax: every exp(x/T) = 0, 0/0 = NaN
  infinite_score,       // linear, ReLU: a score is ±inf
  zero_sum,             // linear: Σx = 0
  no_positive_score,    // ReLU: every score ≤ 0
  alpha_out_of_range,   // entmax: α ∉ [1, 2]
  negative_weights,     // linear: negative scores give negative weights
  reversed_order,       // linear: every score negative, weights positive but ranked backwards
  does_not_sum_to_one,  // sigmoid: Σ σ(x_i) ≠ 1
};

// What a normaliser produced and whether it is a probability distribution.
struct NormalizerResult {
  std::vector<double> weights;  // same length as the scores; NaN everywhere when undefined
  double sum = 0.0;             // Σ weights (compensated); NaN when undefined
  bool defined = false;         // every weight is a finite number
  bool sums_to_one = false;     // defined and |Σ − 1| ≤ 1e-9 (rounding leaves ~n·1e-16)
  bool has_negative = false;    // some weight < 0 (only linear normalisation can do this)
  int exact_zeros = 0;          // weights exactly 0.0: sparsity, masking, or underflow
  // Empty when the weights form a probability distribution (defined, ≥ 0, sum to 1). Otherwise
  // one sentence a student can read: what went wrong and why, e.g. "every score is ≤ 0, so
  // relu(x) is all zeros and 0/0 is undefined".
  std::string problem;
  NormalizerIssue issue = NormalizerIssue::none;  // the same, as a code; none iff problem is empty
  bool is_distribution() const { return issue == NormalizerIssue::none; }
};

// Runs one normaliser and fills every field of `result` (its weights buffer is reused).
// temperature applies where it matters (softmax family, sigmoid, sparsemax, entmax) and is
// ignored where it cancels (hardmax, linear, relu); alpha is used by entmax only.
void normalize(NormalizerResult& result, Normalizer kind, std::span<const double> scores, double temperature = 1.0,
               double alpha = 1.5);

// The same, returning a fresh result (for a one-off row; the app's per-frame path reuses one).
NormalizerResult normalize(Normalizer kind, std::span<const double> scores, double temperature = 1.0,
                           double alpha = 1.5);

}  // namespace smlab
