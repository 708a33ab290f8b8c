// Gradients back to Q and K: for one query q and keys K, ∂L/∂q and ∂L/∂K of a simple loss through
// the attention weights, scaled (÷√d_k) and unscaled, and their norms versus d_k.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "smlab/labs/values.hpp"  // DenseMatrix

namespace smlab {

// Scores z_j = c · q·k_j (c = 1/√d_k scaled, 1 unscaled), weights a = softmax(z).
enum class QkLoss : int {
  // L = −ln a_target: cross-entropy asking the query to attend to one key. ∂L/∂z = a − e_target.
  target_key = 0,
  // L = g · o with o = Σ_j a_j v_j (a fixed probe g on the attention output, e.g. an upstream
  // gradient). ∂L/∂a_j = g·v_j, ∂L/∂z = a ⊙ (∂L/∂a − ⟨a, ∂L/∂a⟩)  (softmax_vjp).
  output_probe = 1,
};

// Backward pass, derived:  z_j = c Σ_c q_c K_jc   ⇒   ∂z_j/∂q = c k_j,   ∂z_j/∂k_j = c q, so
//   ∂L/∂q   = c Σ_j (∂L/∂z_j) k_j        = c Kᵀ ∂L/∂z
//   ∂L/∂k_j = c (∂L/∂z_j) q
// Shapes: query d_k; keys L×d_k; values L×d_v and probe d_v (output_probe only; ignored for
// target_key); query_gradient d_k; key_gradient L×d_k (resized). Returns the loss L.
struct QkGradientInputs {
  std::span<const double> query;
  const DenseMatrix* keys = nullptr;
  const DenseMatrix* values = nullptr;  // output_probe
  std::span<const double> probe;        // output_probe
  int target = 0;                       // target_key
  QkLoss loss = QkLoss::target_key;
  bool scaled = true;
};
double qk_loss_and_gradients(std::span<double> query_gradient, DenseMatrix& key_gradient, const QkGradientInputs& in);

// Loss only (for finite differences and the sweep).
double qk_loss(const QkGradientInputs& in);

// The sweep over d_k: at each d_k on the grid, `trials` independent (q, K, V, g) with N(0, 1)
// entries (L keys, d_v = 8), each trial's loss and gradients scaled and unscaled; the means of
// ‖∂L/∂q‖ and ‖∂L/∂K‖_F over the trials, their medians, and the mean max weight (how saturated the
// softmax is). Both statistics matter: unscaled, the typical (median) gradient through a saturated
// softmax vanishes like e^{−gap}, while the mean is carried by the rare trials whose two top scores
// nearly tie and stays O(1) — "the gradient vanishes" is true of typical rows, not of every row.
// Trials run on parallel_for; each depends only on (seed, d_k, trial), so the result does not
// depend on the thread count.
inline constexpr int qk_sweep_dims[] = {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096};
struct QkGradientSweep {
  QkLoss loss = QkLoss::target_key;
  int seq_len = 16, trials = 64;
  std::vector<int> key_dims;
  std::vector<double> scaled_query_norm, scaled_key_norm, unscaled_query_norm, unscaled_key_norm;
  std::vector<double> scaled_query_norm_median, scaled_key_norm_median, unscaled_query_norm_median,
      unscaled_key_norm_median;
  std::vector<double> scaled_max_weight, unscaled_max_weight;
  std::vector<double> scaled_loss, unscaled_loss;
};
void qk_gradient_sweep(QkGradientSweep& out, QkLoss loss, int seq_len, int trials, std::uint64_t seed);

}  // namespace smlab
