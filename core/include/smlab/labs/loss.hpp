// log-softmax, logsumexp and the loss: cross-entropy with a one-hot target, its gradient s − y, and
// why log-softmax is z − logsumexp(z): the naive log(softmax(z)) underflows to −inf.
#pragma once

#include <span>
#include <vector>

namespace smlab {

// Cross-entropy of logits x (z = x/T) against the one-hot target y = e_target:
//   L = −ln s_target = logsumexp(z) − z_target      (never log 0: finite for every finite row)
// Computed from log_softmax (softmax.hpp), accurate to a few ulp of max(L, 1). Returns +inf when
// the target key is masked (−inf) and NaN when the row has no distribution.
// Shapes: n ≥ 1 logits, 0 ≤ target < n.
double cross_entropy(std::span<const double> logits, int target, double temperature = 1.0);

// Its gradient with respect to the logits x: ∂L/∂x = (s − y)/T, from log_softmax_vjp with
// g = −y (softmax.hpp derives it). Each entry lies in [−1/T, 1/T] and they sum to 0.
void cross_entropy_gradient(std::span<double> gradient, std::span<const double> logits, int target,
                            double temperature = 1.0);

// The naive route, kept to show its failure: ℓ_i = ln(softmax(x/T)_i). Where s_i underflows
// (x_i/T more than ~745 below the max) it is ln 0 = −inf, though the true value is finite.
void naive_log_softmax(std::span<double> log_probabilities, std::span<const double> logits, double temperature = 1.0);

// The loss lab: one row of logits, a target, both log-softmaxes, the loss and its gradient, and
// the loss as the target's logit moves (where the naive route first fails).
struct LossSettings {
  std::vector<double> logits{2.0, 1.0, 0.1, -1.0};
  int target = 0;
  double temperature = 1.0;
  double gap = 800.0;  // the underflow demo: logits {0, −gap}; ln s_1 = −gap − ln(1 + e^{−gap})
};

struct LossLab {
  LossSettings settings;
  std::vector<double> probabilities;      // s
  std::vector<double> log_softmax;        // z − logsumexp(z)
  std::vector<double> naive_log_softmax;  // ln s (−inf where s underflows)
  double logsumexp = 0.0;                 // of z = x/T
  double loss = 0.0;                      // −ln s_target
  std::vector<double> gradient;           // (s − y)/T
  double gradient_sum = 0.0;              // Σ gradient (0 to rounding)
  int naive_infinite_count = 0;           // entries where the naive route gave −inf
  // Underflow demo on {0, −gap} (at T = 1): the stable and naive log-weights of the second entry.
  double demo_stable = 0.0, demo_naive = 0.0;
  // L and ∂L/∂x_target as the target's logit moves over [x − 10, x + 10] (the others fixed);
  // empty when the target's logit is −inf (masked: L = +inf).
  std::vector<double> sweep_target_logit, sweep_loss, sweep_target_gradient;
};

void evaluate_loss_lab(LossLab& out, const LossSettings& settings);

}  // namespace smlab
