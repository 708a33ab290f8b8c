// Softmax with temperature and what is derived from it: the softmax variants (stable, naive,
// online, log-softmax, logsumexp), statistics of a distribution, and gradients. Double paths.
#pragma once

#include <span>
#include <vector>

namespace smlab {

// ─── Conventions for every softmax-like function in this header ──────────────────────────
// Shapes: outputs and scores have the same length n ≥ 1; "n×n" matrices are row-major.
// Units: scores x are logits before temperature; the logits are z = x/T with T > 0. T = +inf
// is treated as the largest double (a uniform distribution over the unmasked entries).
// Non-finite scores (stable softmax, log-softmax, logsumexp, online softmax):
//   −inf  a masked key: weight exactly 0, log-weight −inf.
//   +inf  the limit of that score growing without bound: the k entries at +inf share the weight,
//         1/k each (the hardmax of the +inf entries), every other entry gets 0.
//   NaN   anywhere, or every score −inf: there is no distribution. Every output is NaN and the
//         function returns false, so the row can never pass for a plausible number.

// Stable softmax: p_i = exp((x_i − m)/T) / Σ_j exp((x_j − m)/T), m = max_j x_j.
// Accuracy: relative error ≤ ~4 ulp (≈ 1e-15) for every weight above 1e-300, for any n and
// magnitudes up to the double range (tested against MPFR to 1e-14 for n ≤ 100,000). This needs
// two things beyond the textbook kernel: (x_i − m)/T is carried as a rounded value plus its
// exact rounding error, because exp turns an absolute error δ in its argument into a relative
// error δ, and at x_i − m ≈ −700 one ulp of the argument is already 1.1e-13; and the sum is
// compensated (Neumaier), because plain summation of 10⁵ terms drifts by ~10⁵·ε.
// Returns false (all NaN) when there is no distribution, see the conventions above.
bool softmax(std::span<double> probabilities, std::span<const double> scores, double temperature = 1.0);

// Naive softmax: p_i = exp(x_i/T) / Σ_j exp(x_j/T) — no max subtracted, kept on purpose to
// show overflow: exp(x/T) is inf once x/T > 709.78, and inf/inf = NaN ([1000, 1001, 1002]
// gives NaN everywhere); when every x/T < −745 each exp underflows to 0 and 0/0 = NaN.
// A sum of exps beyond 1.8e308 (e.g. 10⁵ scores near 709) overflows too: every weight becomes
// e/inf = 0. Nothing is repaired. Returns true iff the sum came out finite and positive (then
// every weight is finite and they sum to 1 to rounding).
bool naive_softmax(std::span<double> probabilities, std::span<const double> scores, double temperature = 1.0);

// Online softmax (Milakov & Gimelshein 2018): one pass keeps a running max m and normaliser
//   d = Σ_{j seen} exp((x_j − m)/T); when a new score raises the max to m', the terms seen so
//   far are rescaled: d ← d·exp((m − m')/T) + exp((x_i − m')/T).
// Then a second pass writes p_i = exp((x_i − m)/T)/d: one pass fewer over the scores than the
// stable kernel, the idea behind FlashAttention's tiling. It is the textbook kernel, without
// the stable kernel's exact-argument care: relative error ≈ |x_i − m|/T·ε plus an ulp or so per
// change of the max (≤ 1e-12 against the stable kernel is tested). Non-finite scores follow the
// conventions above.
bool online_softmax(std::span<double> probabilities, std::span<const double> scores, double temperature = 1.0);

// Log-softmax: ℓ_i = log p_i = (x_i − m)/T − log Σ_j exp((x_j − m)/T), finite even where p_i
// underflows (a score 1000 below the max gives ≈ −1000, not log 0 = −inf).
// Accuracy: relative error ≤ ~4 ulp for every entry, including the max's ℓ ≈ −Σ_{j≠max} p_j,
// which can be tiny: the sum is kept as 1 + rest with rest = Σ over the non-max terms, and
// log Σ = log1p(rest). Both parts of ℓ_i are ≤ 0, so forming it never cancels. (Only values
// that are themselves subnormal, |ℓ| < 2.2e-308, lose relative accuracy, as every double does.)
// −inf scores give −inf; +inf scores follow the conventions (log(1/k) and −inf).
bool log_softmax(std::span<double> log_probabilities, std::span<const double> scores, double temperature = 1.0);

// logsumexp: log Σ_i exp(x_i / T) = m/T + log Σ exp((x_i − m)/T), so it never overflows.
// Accuracy: error ≤ ~4 ulp of max(|result|, 1): the result is a sum of two terms that can
// cancel only when |m/T| ≤ log n, and then an absolute bound is the meaningful one.
// All −inf gives −inf; any +inf gives +inf; any NaN gives NaN.
double logsumexp(std::span<const double> scores, double temperature = 1.0);

// ─── Statistics of a distribution p (n ≥ 1, p_i ≥ 0, Σ p_i = 1) ───────────────────────────

// Shannon entropy H = −Σ p_i ln p_i in nats (0·ln 0 = 0). Range [0, ln n].
double entropy_nats(std::span<const double> probabilities);

// The same entropy in bits: H / ln 2. Range [0, log₂ n].
double entropy_bits(std::span<const double> probabilities);

// Effective number of choices e^H (the perplexity): 1 for a one-hot, n for uniform, and k for a
// distribution uniform over k entries. Range [1, n].
double effective_choices(std::span<const double> probabilities);

// The largest weight max_i p_i. Range [1/n, 1].
double max_weight(std::span<const double> probabilities);

// KL divergence KL(p ‖ q) = Σ_i p_i ln(p_i / q_i) in nats, ≥ 0, 0 iff p = q. Terms with p_i = 0
// contribute 0 (even where q_i = 0). If q_i = 0 < p_i the divergence is +inf: p puts mass
// where q says it is impossible — reported as inf, not as a large number. Shapes: p and q
// have the same length n ≥ 1.
double kl_divergence(std::span<const double> p, std::span<const double> q);

// ─── Gradients ──────────────────────────────────────────────────────────────────────────────
// s = softmax(z), z = x/T. Derivation of the Jacobian, for s_i = e^{z_i} / Σ_k e^{z_k}:
//   ∂s_i/∂z_j = δ_ij e^{z_i}/Σ − e^{z_i} e^{z_j}/Σ²       (quotient rule; ∂Σ/∂z_j = e^{z_j})
//             = δ_ij s_i − s_i s_j
//   J = ∂s/∂x = (diag(s) − s sᵀ) / T                       (chain rule, ∂z_j/∂x_j = 1/T)
// J is symmetric, and its rows and columns sum to 0 (Σ_i s_i = 1 whatever x is).

// The diagonal of the softmax Jacobian: ∂s_i/∂z_i = s_i(1 − s_i) (at T = 1; ∂s_i/∂x_i is that / T).
// Max 1/4 at s_i = 1/2. For the largest entry of a row summing to 1, 1 − s_m is Σ_{j≠m} s_j, so
// S(1 − S) stays relatively exact where s_m rounds to 1 (scores 1, 2, 3 at T = 0.01: 3.7e-44).
// The same holds for entropy_nats (the largest entry's −p ln p = −p log1p(−Σ_{j≠m} p_j)), the
// Jacobian's diagonal and both vector–Jacobian products below.
void softmax_gradient_diagonal(std::span<double> diagonal, std::span<const double> probabilities);

// The curve every diagonal entry lies on: S(1 − S) at `points` evenly spaced S in [0, 1] (the
// dashboard's and the gradients lab's parabola, sampled once per Snapshot). points ≥ 2.
struct GradientParabola {
  std::vector<double> s, value;
};
GradientParabola sample_gradient_parabola(int points = 101);

// The full Jacobian, n×n row-major: jacobian[i·n + j] = ∂s_i/∂x_j = (δ_ij s_i − s_i s_j)/T.
// Shapes: jacobian has n² entries for n probabilities. O(n²): for plots and tests; the backward
// pass uses softmax_vjp below.
void softmax_jacobian(std::span<double> jacobian, std::span<const double> probabilities, double temperature = 1.0);

// Frobenius norm of J = diag(s) − s sᵀ (T = 1) without forming J (n can be 4096).
//   ‖J‖²_F = Σ_i s_i² (1 − s_i)² + Σ_{i≠j} s_i² s_j²
// summed as terms that are all ≥ 0 (not the closed form Σs² − 2Σs³ + (Σs²)², which cancels to 0
// near one-hot), with 1 − s_m for the largest entry taken as Σ_{j≠m} s_j: relative error ≤ ~1e-15
// for every row, one-hot rows included (tested against MPFR). Derivation in softmax.cpp.
// Near one-hot, r = 1 − s_m: ‖J‖_F ≈ 2r for two entries (scores 0, 19: 1.12e-8).
double jacobian_frobenius_norm(std::span<const double> probabilities);

// Vector–Jacobian product, the backward pass of softmax. Given g = ∂L/∂s (output_gradient),
// writes dx = ∂L/∂x (score_gradient) in O(n) without forming J:
//   dx_j = Σ_i g_i ∂s_i/∂x_j
//        = (1/T) Σ_i g_i (δ_ij s_i − s_i s_j)          (the Jacobian above)
//        = (1/T) (g_j s_j − s_j Σ_i g_i s_i)            (δ_ij picks i = j; s_j leaves the sum)
//        = (1/T) s_j (g_j − ⟨s, g⟩).
// So a softmax passes back each g_j centred by the s-weighted mean of g and scaled by s_j:
// saturated entries (s_j ≈ 0) get no gradient. Shapes: all three spans have length n.
void softmax_vjp(std::span<double> score_gradient, std::span<const double> probabilities,
                 std::span<const double> output_gradient, double temperature = 1.0);

// Vector–Jacobian product of log-softmax ℓ = z − logsumexp(z), z = x/T, given g = ∂L/∂ℓ:
//   ∂ℓ_i/∂z_j = δ_ij − ∂logsumexp/∂z_j = δ_ij − s_j       (∂logsumexp/∂z_j = e^{z_j}/Σ = s_j)
//   dx_j = (1/T) Σ_i g_i (δ_ij − s_j) = (1/T) (g_j − s_j Σ_i g_i).
// For cross-entropy with a one-hot target y (g = −y) this is the familiar (s − y)/T.
// `probabilities` is s = softmax(x/T) = exp(ℓ). Shapes: all three spans have length n.
void log_softmax_vjp(std::span<double> score_gradient, std::span<const double> probabilities,
                     std::span<const double> output_gradient, double temperature = 1.0);

// ─── Float rows (attention maps) ────────────────────────────────────────────────────────────

// Stable softmax of each row of a row-major rows×cols float matrix, in place, after multiplying
// every entry by `logit_scale` > 0 (e.g. score_scale / (√d_k · T)). The shift, scaling, exp and
// sum run in double and each weight is rounded to float once, so every weight above 1e-30 is
// within ~1 float ulp (≤ 2e-6 relative is tested against MPFR). Rows that are entirely −inf, or
// contain NaN or +inf, become NaN.
void softmax_rows_inplace(std::span<float> matrix, int rows, int cols, double logit_scale);

}  // namespace smlab
