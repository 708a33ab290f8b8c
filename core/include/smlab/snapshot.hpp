// Snapshot: everything the panels draw and the CSV export writes, computed by
// evaluate(Params). Panels read it; they never compute math themselves.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "smlab/labs/attention_variants.hpp"
#include "smlab/labs/gradients.hpp"
#include "smlab/labs/heads.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/positions.hpp"
#include "smlab/labs/scaling.hpp"
#include "smlab/labs/stability.hpp"
#include "smlab/labs/temperature.hpp"
#include "smlab/montecarlo.hpp"
#include "smlab/params.hpp"

namespace smlab {

struct Snapshot {
  Params params;  // what this snapshot was computed from

  // The selected row (or the custom score vector), length n.
  // scores: score_scale · q_row·k_j (÷ √d_k when scaled), or score_scale · custom;
  // logits = scores / T; probabilities = softmax(logits); gradient = s_i (1 − s_i).
  bool custom_scores = false;
  std::vector<double> scores, logits, probabilities, gradient;
  double entropy_nats = 0.0, max_weight = 0.0, jacobian_norm = 0.0;
  double effective_choices = 1.0;  // e^H: how many keys the row effectively attends to
  double max_entropy_nats = 0.0;   // ln n, the entropy of the uniform distribution
  double entropy_bits = 0.0;       // H / ln 2
  double logsumexp = 0.0;          // log Σ exp(logit_i): the normaliser of the row
  double kl_from_uniform = 0.0;    // KL(s ‖ uniform) = ln n − H, in nats
  // log s_i (log-softmax), and the gradient of log s_k for k = argmax with respect to
  // each logit: ∂ log s_k / ∂z_i = δ_ik − s_i (log_softmax_vjp with g = e_k).
  std::vector<double> log_probabilities, log_max_gradient;
  // ∂s_k/∂z_i = s_k (δ_ik − s_i) for k = argmax: how the top weight moves when each logit moves
  // (softmax_vjp with g = e_k). It sums to zero: raising every logit alike changes nothing.
  std::vector<double> max_gradient;
  int argmax = 0;

  // Entropy of the row's softmax versus temperature (log-spaced over [0.01, 100]).
  std::vector<double> temperature_grid, entropy_vs_temperature;

  // Monte Carlo entropy (and max weight, Jacobian norm) versus d_k, scaled and
  // unscaled, for rows of length L at the current T and score_scale.
  DkSweep dk_sweep;

  // L×L attention weights, row-major: softmax of the scores with and without ÷√d_k.
  int attention_size = 0;
  std::vector<float> attention_scaled, attention_unscaled;
  float attention_max = 1.0f;  // largest finite weight of both maps: their shared colour range

  // The labs' numbers, present when evaluate() was asked for them (EvaluateOptions).
  std::optional<NormalizersLab> normalizers;
  std::optional<StabilityLab> stability;
  std::optional<TemperatureLab> temperature;
  std::optional<ScalingLab> scaling;
  std::optional<GradientsLab> gradients;
  std::optional<AttentionVariantsLab> attention_variants;
  std::optional<PositionsLab> positions;
  std::optional<HeadsLab> heads;
};

}  // namespace smlab
