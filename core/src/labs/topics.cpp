// The attention story's labs evaluated from Params: the mapping of keys onto each lab's settings.
#include "smlab/labs/topics.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

namespace smlab {

ValuesSettings values_settings(const Params& params) {
  ValuesSettings s;
  s.seq_len = std::min(params.seq_len, values_max_keys);
  s.key_dim = params.key_dim;
  s.value_dim = values_value_dim;
  s.row = std::min(params.row, s.seq_len - 1);
  s.heads = params.heads;
  s.temperature = params.temperature;
  s.score_scale = params.score_scale;
  s.scaled = params.scaled;
  s.causal = params.causal;
  s.seed = params.seed;
  return s;
}

void evaluate_values_lab(ValuesLab& out, const Params& params) { evaluate_values_lab(out, values_settings(params)); }

SamplingSettings sampling_settings(const Params& params) {
  SamplingSettings s;
  if (!params.scores.empty()) s.logits = params.scores;
  const std::size_t n = s.logits.size();
  s.student_logits.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    s.student_logits[i] = 0.6 * s.logits[i] + 0.5 * std::cos(1.7 * static_cast<double>(i));
  s.temperature = params.temperature;
  s.distillation_temperature = params.temperature;
  s.top_k = std::min(params.top_k, static_cast<int>(n));
  s.top_p = params.top_p;
  s.draws = params.samples;
  s.seed = params.seed;
  return s;
}

void evaluate_sampling_lab(SamplingLab& out, const Params& params) {
  evaluate_sampling_lab(out, sampling_settings(params));
}

void evaluate_loss_gradients_lab(LossGradientsLab& out, const Params& params, std::span<const double> row) {
  LossSettings s;
  s.logits.assign(row.begin(), row.end());
  s.target = std::min(params.target, static_cast<int>(row.size()) - 1);
  s.temperature = params.temperature;
  evaluate_loss_lab(out.loss, s);
  qk_gradient_sweep(out.probe, QkLoss::output_probe, 16, qk_lab_trials, params.seed);
  qk_gradient_sweep(out.target, QkLoss::target_key, 16, qk_lab_trials, params.seed);
}

GeometrySettings geometry_settings(const Params& params) {
  GeometrySettings s;
  s.query_norm = params.qk_norm;
  s.query_angle = params.angle * std::numbers::pi / 180.0;
  s.cosine_epsilon = params.epsilon;
  s.sigma = params.qk_norm;
  s.temperature = params.temperature;
  s.seed = params.seed;
  return s;
}

void evaluate_geometry_lab(GeometryLab& out, const Params& params) {
  evaluate_geometry_lab(out, geometry_settings(params));
}

InitSettings init_settings(const Params& params) {
  InitSettings s;
  s.init = static_cast<Initialization>(params.init);
  s.activation = static_cast<Activation>(params.activation);
  s.depth = params.depth;
  s.layer_norm = params.layer_norm;
  s.seed = params.seed;
  return s;
}

void evaluate_init_lab(InitLab& out, const Params& params) { evaluate_init_lab(out, init_settings(params)); }

}  // namespace smlab
