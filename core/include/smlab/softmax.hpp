// Softmax with temperature and the quantities derived from it: entropy, the
// S(1−S) diagonal, the Jacobian and its Frobenius norm. Reference (double) paths.
#pragma once

#include <span>

namespace smlab {

// Stable softmax: probabilities[i] = exp((x_i − m)/T) / Σ_j exp((x_j − m)/T), m = max_j x_j.
// Shapes: probabilities and scores have the same length n ≥ 1. Units: scores are
// logits before temperature; temperature T > 0.
// −inf entries (masked keys) get exactly 0. A row whose entries are all −inf has
// no distribution: every output is NaN and the function returns false. NaN
// inputs make every output NaN (returns false), never a plausible number.
bool softmax(std::span<double> probabilities, std::span<const double> scores, double temperature = 1.0);

// log Σ_i exp(x_i / T), computed as m/T + log Σ exp((x_i − m)/T) so it never overflows.
double logsumexp(std::span<const double> scores, double temperature = 1.0);

// Shannon entropy H = −Σ p_i ln p_i in nats (0·ln 0 = 0). Range [0, ln n].
double entropy_nats(std::span<const double> probabilities);

// The diagonal of the softmax Jacobian: ∂s_i/∂x_i = s_i(1 − s_i) (at T = 1). Max 1/4 at s_i = 1/2.
void softmax_gradient_diagonal(std::span<double> diagonal, std::span<const double> probabilities);

// Frobenius norm of J = diag(s) − s sᵀ without forming J (n can be 4096).
//   ‖J‖²_F = Σ_i (s_i − s_i²)² + Σ_{i≠j} s_i² s_j²
//          = Σ s_i² − 2 Σ s_i³ + Σ s_i⁴ + (Σ s_i²)² − Σ s_i⁴
//          = Σ s_i² − 2 Σ s_i³ + (Σ s_i²)².
double jacobian_frobenius_norm(std::span<const double> probabilities);

// Stable softmax of each row of a row-major rows×cols float matrix, in place,
// after multiplying every entry by `logit_scale` (e.g. score_scale / (√d_k · T)).
// Sums accumulate in double. Rows that are entirely −inf become NaN.
void softmax_rows_inplace(std::span<float> matrix, int rows, int cols, double logit_scale);

}  // namespace smlab
