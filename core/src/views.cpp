// The table of views: the one registry of the dashboard and the labs (how to add one: views.hpp).
//
// [SECTION] Index
//   [SECTION] Lesson panels
//   [SECTION] The registry: one row per view, in View order (= tab order).
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

// [SECTION] Lesson panels
// The plot names each view places (app/panels/dashboard.cpp and
// app/panels/lab_*.cpp); lesson_test checks every one against a real render.
const std::array<ViewPanel, 8> dashboard_panels{{
    {"distribution", {"distribution"}},
    {"entropy", {"entropy_t", "entropy_dk"}},
    {"entropy_t", {"entropy_t"}},
    {"entropy_dk", {"entropy_dk"}},
    {"gradient", {"gradient"}},
    {"attention", {"attention_scaled", "attention_unscaled"}},
    {"attention_scaled", {"attention_scaled"}},
    {"attention_unscaled", {"attention_unscaled"}},
}};
const std::array<ViewPanel, 9> normalizers_panels{{
    {"scores", {"scores"}},
    {"softmax", {"softmax"}},
    {"linear", {"linear"}},
    {"sparsemax", {"sparsemax"}},
    {"entmax", {"entmax"}},
    {"hardmax", {"hardmax"}},
    {"sigmoid", {"sigmoid"}},
    {"relu", {"relu"}},
    {"small-gap", {"small-gap"}},
}};
const std::array<ViewPanel, 7> stability_panels{{
    {"weights", {"weights"}},
    {"problems", {"problems"}},
    {"sum-error", {"sum-error"}},
    {"exp-curve", {"exp-curve"}},
    {"maps", {"map-naive-fp16", "map-stable-fp16"}},
    {"map-naive-fp16", {"map-naive-fp16"}},
    {"map-stable-fp16", {"map-stable-fp16"}},
}};
const std::array<ViewPanel, 3> temperature_panels{{
    {"panels", {"panel-1", "panel-2", "panel-3", "panel-4", "panel-5", "panel-6", "panel-7", "panel-8"}},
    {"entropy", {"entropy"}},
    {"nudge", {"nudge"}},
}};
const std::array<ViewPanel, 7> scaling_panels{{
    {"histograms", {"histogram-unscaled", "histogram-scaled"}},
    {"histogram-unscaled", {"histogram-unscaled"}},
    {"histogram-scaled", {"histogram-scaled"}},
    {"entropy-dk", {"entropy-dk"}},
    {"max-weight-dk", {"max-weight-dk"}},
    {"jacobian-dk", {"jacobian-dk"}},
    {"sweeps", {"entropy-dk", "max-weight-dk", "jacobian-dk"}},
}};
const std::array<ViewPanel, 3> gradients_panels{{
    {"jacobian", {"jacobian"}},
    {"diagonal", {"diagonal"}},
    {"norm-vs-scale", {"norm-vs-scale"}},
}};
const std::array<ViewPanel, 7> attention_variants_panels{{
    {"maps", {"dot", "scaled-dot", "cosine", "additive", "layer-norm"}},
    {"dot", {"dot"}},
    {"scaled-dot", {"scaled-dot"}},
    {"cosine", {"cosine"}},
    {"additive", {"additive"}},
    {"layer-norm", {"layer-norm"}},
    {"entropy-sigma", {"entropy-sigma"}},
}};
const std::array<ViewPanel, 5> positions_panels{{
    {"encoding", {"encoding"}},
    {"positions-only", {"positions-only"}},
    {"with-content", {"with-content"}},
    {"maps", {"positions-only", "with-content"}},
    {"amplitude", {"amplitude"}},
}};
const std::array<ViewPanel, 4> heads_panels{{
    {"average", {"average"}},
    {"row-heads", {"row-heads"}},
    {"row-average", {"row-average"}},
    {"heads", {"head-0", "head-1", "head-2", "head-3", "head-4", "head-5", "head-6", "head-7"}},
}};

const std::array<ViewPanel, 5> values_panels{{
    {"weights", {"weights"}},
    {"values", {"values"}},
    {"output", {"output"}},
    {"output-vs-temperature", {"output-vs-temperature"}},
    {"multi-head", {"multi-head"}},
}};
const std::array<ViewPanel, 7> sampling_panels{{
    {"distribution", {"distribution"}},
    {"top-k", {"top-k"}},
    {"top-p", {"top-p"}},
    {"filters", {"top-k", "top-p"}},
    {"temperature-table", {"temperature-table"}},
    {"soft-targets", {"soft-targets"}},
    {"distillation-gradient", {"distillation-gradient"}},
}};
const std::array<ViewPanel, 6> loss_panels{{
    {"log-softmax", {"log-softmax"}},
    {"gradient", {"gradient"}},
    {"loss-vs-logit", {"loss-vs-logit", "gradient-vs-logit"}},
    {"dq-output-probe", {"dq-output-probe"}},
    {"dq-target-key", {"dq-target-key"}},
    {"dq", {"dq-output-probe", "dq-target-key"}},
}};
const std::array<ViewPanel, 4> geometry_panels{{
    {"vectors", {"vectors"}},
    {"decomposition", {"decomposition"}},
    {"cosine-epsilon", {"cosine-epsilon"}},
    {"saturation", {"saturation"}},
}};
const std::array<ViewPanel, 2> init_panels{{
    {"variance-by-layer", {"variance-by-layer"}},
    {"measured-over-predicted", {"measured-over-predicted"}},
}};

// [SECTION] The registry: one row per view, in View order (= tab order).
using Views = std::array<ViewInfo, 14>;
const Views& views() {
  static const Views table{{
      {View::dashboard, "dashboard", "Dashboard", "distribution, entropy, S(1-S) gradient and attention side by side",
       dashboard_panels},
      {View::normalizers, "normalizers", "Normalizers",
       "softmax vs linear, sparsemax, alpha-entmax, hardmax, sigmoid and ReLU on one score vector", normalizers_panels,
       lab_evaluator<NormalizersLab, evaluate_normalizers_lab>},
      {View::stability, "stability", "Stability",
       "naive vs stable vs online softmax in fp64, fp32, fp16, bf16 and fp8: overflow, underflow, NaN",
       stability_panels, stability_evaluator},
      {View::temperature, "temperature", "Temperature", "small multiples over T, entropy vs T, the argmax limit",
       temperature_panels, lab_evaluator<TemperatureLab, evaluate_temperature_lab>},
      {View::scaling, "scaling", "Scaling",
       "the variance of q.k grows with d_k: histograms, entropy, max weight and gradient norm vs d_k", scaling_panels,
       lab_evaluator<ScalingLab, evaluate_scaling_lab>},
      {View::gradients, "gradients", "Gradients", "the softmax Jacobian, S(1-S), and where learning stalls",
       gradients_panels, lab_evaluator<GradientsLab, evaluate_gradients_lab>},
      {View::attention_variants, "attention-variants", "Attention variants",
       "dot, scaled dot, cosine, additive and QK-LayerNorm as the norms of q and k grow", attention_variants_panels,
       lab_evaluator<AttentionVariantsLab, evaluate_attention_variants_lab>},
      {View::positions, "positions", "Positions", "sinusoidal positional encodings and their amplitude",
       positions_panels, lab_evaluator<PositionsLab, evaluate_positions_lab>},
      {View::heads, "heads", "Heads", "sharp heads and their multi-modal average", heads_panels,
       lab_evaluator<HeadsLab, evaluate_heads_lab>},
      {View::values, "values", "Values",
       "the output softmax(QK^T/sqrt(d_k))V of one query, and multi-head as concat then W_O", values_panels,
       lab_evaluator<ValuesLab, evaluate_values_lab>},
      {View::sampling, "sampling", "Sampling",
       "sampling from softmax(logits/T): draws, top-k, top-p, distillation soft targets", sampling_panels,
       lab_evaluator<SamplingLab, evaluate_sampling_lab>},
      {View::loss, "loss", "Loss & gradients",
       "log-softmax, cross-entropy, s - y, and gradients back to Q and K vs d_k", loss_panels, loss_evaluator},
      {View::geometry, "geometry", "Geometry",
       "q.k = |q||k|cos(theta) in 2-D, cosine attention's epsilon, additive tanh saturation", geometry_panels,
       lab_evaluator<GeometryLab, evaluate_geometry_lab>},
      {View::init, "init", "Init & norms",
       "Xavier/He initialisation and LayerNorm keep variances at 1 through a stack of layers", init_panels,
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
