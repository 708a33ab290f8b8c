// The attention story's labs evaluated from Params: the mapping of keys onto each lab's settings.
#include "smlab/labs/topics.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "smlab/views.hpp"

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

void evaluate_loss_gradients_lab(LossGradientsLab& out, const Params& params, const ShownRow& row) {
  LossSettings s;
  s.logits = row.scores;
  s.target = std::min(params.target, static_cast<int>(row.scores.size()) - 1);
  s.temperature = params.temperature;
  evaluate_loss_lab(out.loss, s);
  qk_gradient_sweep(out.probe, QkLoss::output_probe, 16, qk_lab_trials, params.seed);
  qk_gradient_sweep(out.target, QkLoss::target_key, 16, qk_lab_trials, params.seed);
}

GeometrySettings geometry_settings(const Params& params) {
  GeometrySettings s;
  s.query_norm = params.qk_norm;
  s.query_angle = params.angle * std::numbers::pi / 180.0;
  // Key 0 from the Params (the defaults give the demo's 0.4 rad, length 1, bit for bit).
  s.key_angles[0] = params.key_angle * std::numbers::pi / 180.0;
  s.key_norms[0] = params.key_norm;
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

// The five labs' rows in the registry (smlab/lab_list.hpp lists them). The loss lab works on the
// shown row (imported or not), like the stability lab.
extern const LabInfo values_lab_info{
    "values", "the output softmax(QK^T/sqrt(d_k))V of one query, and multi-head as concat then W_O",
    lab_evaluator<ValuesLab, evaluate_values_lab>};
extern const LabInfo sampling_lab_info{
    "sampling", "sampling from softmax(logits/T): draws, top-k, top-p, distillation soft targets",
    lab_evaluator<SamplingLab, evaluate_sampling_lab>};
extern const LabInfo loss_lab_info{"loss", "log-softmax, cross-entropy, s - y, and gradients back to Q and K vs d_k",
                                   row_lab_evaluator<LossGradientsLab, evaluate_loss_gradients_lab>};
extern const LabInfo geometry_lab_info{
    "geometry", "q.k = |q||k|cos(theta) in 2-D, cosine attention's epsilon, additive tanh saturation",
    lab_evaluator<GeometryLab, evaluate_geometry_lab>};
extern const LabInfo init_lab_info{
    "init", "Xavier/He initialisation and LayerNorm keep variances at 1 through a stack of layers",
    lab_evaluator<InitLab, evaluate_init_lab>};

}  // namespace smlab
