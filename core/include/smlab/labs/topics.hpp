// The attention story's labs evaluated from Params, as the lab registry calls them
// (views.hpp): each maps the Params keys it reads onto its lab's settings and computes the lab.
#pragma once

#include <span>

#include "smlab/labs/geometry.hpp"
#include "smlab/labs/init.hpp"
#include "smlab/labs/loss.hpp"
#include "smlab/labs/qk_gradients.hpp"
#include "smlab/labs/sampling.hpp"
#include "smlab/labs/values.hpp"
#include "smlab/params.hpp"
#include "smlab/shown_row.hpp"

namespace smlab {

// Values: L' = min(seq_len, values_max_keys) keys (the heatmap and bars show each one), d_k, T,
// score_scale, scaled, seed, row (clamped below L'), heads; d_v = values_value_dim.
inline constexpr int values_max_keys = 16;
inline constexpr int values_value_dim = 4;
ValuesSettings values_settings(const Params& params);
void evaluate_values_lab(ValuesLab& out, const Params& params);

// Sampling: the logits are Params::scores when set (custom), else SamplingSettings' vocabulary of
// 10; T, top_k (clamped to n), top_p, samples, seed. Distillation at the same T, with the student
// s_i = 0.6·x_i + 0.5·cos(1.7·i) (a softer, slightly wrong copy; −inf stays −inf).
SamplingSettings sampling_settings(const Params& params);
void evaluate_sampling_lab(SamplingLab& out, const Params& params);

// Loss & gradients: the loss on the shown row (Snapshot::shown: the dashboard's scores, custom or
// QKᵀ, causal mask included), target clamped below its length, at T; and both Q/K gradient sweeps
// (qk_lab_trials trials, L = 16).
inline constexpr int qk_lab_trials = 32;
struct LossGradientsLab {
  LossLab loss;
  QkGradientSweep probe, target;
};
void evaluate_loss_gradients_lab(LossGradientsLab& out, const Params& params, const ShownRow& row);

// Geometry: ‖q‖ = qk_norm, the query's angle = angle (degrees), ε = epsilon, σ = qk_norm for the
// saturation demo (at d_k = 64, d_a = 32: the saturation does not depend on d_k), T, seed.
GeometrySettings geometry_settings(const Params& params);
void evaluate_geometry_lab(GeometryLab& out, const Params& params);

// Init & norms: init, activation, depth, layer_norm, seed; width 256, batch 64.
InitSettings init_settings(const Params& params);
void evaluate_init_lab(InitLab& out, const Params& params);

}  // namespace smlab
