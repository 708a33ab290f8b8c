// The table of views: the one registry of the dashboard and the labs (adding a lab: docs/ARCHITECTURE.md).
#include "smlab/views.hpp"

#include <array>

#include "smlab/labs/attention_variants.hpp"
#include "smlab/labs/gradients.hpp"
#include "smlab/labs/heads.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/positions.hpp"
#include "smlab/labs/scaling.hpp"
#include "smlab/labs/stability.hpp"
#include "smlab/import.hpp"
#include "smlab/labs/temperature.hpp"
#include "smlab/labs/topics.hpp"
#include "smlab/snapshot.hpp"

namespace smlab {
namespace {

// The stability lab also works on the shown row (imported or not), not only on its Params.
// With imported data its maps are the imported slice's Q·K (or scores), at the real Params.
std::any stability_evaluator(const Params& lab_params, const Snapshot& snapshot) {
  StabilityLab lab;
  const Params& params = snapshot.params;
  if (params.imported != nullptr && snapshot.attention_scores != nullptr) {
    const ScoreCache& cache = *snapshot.attention_scores;
    StabilityMapData data;
    if (cache.queries.rows > 0) {
      data.queries = &cache.queries;
      data.keys = &cache.keys;
    } else {
      data.scores = &cache.raw;
    }
    data.key_dim_known = params.imported->key_dim > 0;  // Q and K given: ÷√d_k applies
    evaluate_stability_lab(lab, params, snapshot.scores, data);
  } else {
    evaluate_stability_lab(lab, lab_params, snapshot.scores);
  }
  return lab;
}

// The loss lab works on the shown row (imported or not), like the stability lab.
std::any loss_evaluator(const Params& lab_params, const Snapshot& snapshot) {
  LossGradientsLab lab;
  evaluate_loss_gradients_lab(lab, lab_params, snapshot.scores);
  return lab;
}

// The registry: one row per view, in View order (= tab order).
using Views = std::array<ViewInfo, view_count>;
const Views& views() {
  static const Views table{{
      {View::dashboard, "dashboard", "distribution, entropy, S(1-S) gradient and attention side by side"},
      {View::normalizers, "normalizers",
       "softmax vs linear, sparsemax, alpha-entmax, hardmax, sigmoid and ReLU on one score vector",
       lab_evaluator<NormalizersLab, evaluate_normalizers_lab>},
      {View::stability, "stability",
       "naive vs stable vs online softmax in fp64, fp32, fp16, bf16 and fp8: overflow, underflow, NaN",
       stability_evaluator},
      {View::temperature, "temperature", "small multiples over T, entropy vs T, the argmax limit",
       lab_evaluator<TemperatureLab, evaluate_temperature_lab>},
      {View::scaling, "scaling",
       "the variance of q.k grows with d_k: histograms, entropy, max weight and gradient norm vs d_k",
       lab_evaluator<ScalingLab, evaluate_scaling_lab>},
      {View::gradients, "gradients", "the softmax Jacobian, S(1-S), and where learning stalls",
       lab_evaluator<GradientsLab, evaluate_gradients_lab>},
      {View::attention_variants, "attention-variants",
       "dot, scaled dot, cosine, additive and QK-LayerNorm as the norms of q and k grow",
       lab_evaluator<AttentionVariantsLab, evaluate_attention_variants_lab>},
      {View::positions, "positions", "sinusoidal positional encodings and their amplitude",
       lab_evaluator<PositionsLab, evaluate_positions_lab>},
      {View::heads, "heads", "sharp heads and their multi-modal average", lab_evaluator<HeadsLab, evaluate_heads_lab>},
      {View::values, "values", "the output softmax(QK^T/sqrt(d_k))V of one query, and multi-head as concat then W_O",
       lab_evaluator<ValuesLab, evaluate_values_lab>},
      {View::sampling, "sampling", "sampling from softmax(logits/T): draws, top-k, top-p, distillation soft targets",
       lab_evaluator<SamplingLab, evaluate_sampling_lab>},
      {View::loss, "loss", "log-softmax, cross-entropy, s - y, and gradients back to Q and K vs d_k", loss_evaluator},
      {View::geometry, "geometry",
       "q.k = |q||k|cos(theta) in 2-D, cosine attention's epsilon, additive tanh saturation",
       lab_evaluator<GeometryLab, evaluate_geometry_lab>},
      {View::init, "init", "Xavier/He initialisation and LayerNorm keep variances at 1 through a stack of layers",
       lab_evaluator<InitLab, evaluate_init_lab>},
  }};
  return table;
}

}  // namespace

std::span<const ViewInfo> all_views() { return views(); }

const ViewInfo& view_info(View view) { return views()[static_cast<std::size_t>(view)]; }

std::optional<View> view_from_name(std::string_view name) {
  for (const ViewInfo& info : views())
    if (info.name == name) return info.view;
  return std::nullopt;
}

}  // namespace smlab
