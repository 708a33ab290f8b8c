// The panels a lesson step may highlight, view by view: each plot a view places, by the name its
// build gives it (app/panels/dashboard.cpp and lab_*.cpp; lesson_test checks every one against a
// real render), and named groups of them ("attention" = both maps). The lessons' vocabulary: a
// lesson file's "panel" and a predict step's "hides" are checked against it when it is loaded.
#include "lessons/lessons.hpp"

namespace smlab::app {
namespace {

const LessonPanel dashboard_panels[] = {
    {"distribution", {"distribution"}},
    {"entropy", {"entropy_t", "entropy_dk"}},
    {"entropy_t", {"entropy_t"}},
    {"entropy_dk", {"entropy_dk"}},
    {"gradient", {"gradient"}},
    {"attention", {"attention_scaled", "attention_unscaled"}},
    {"attention_scaled", {"attention_scaled"}},
    {"attention_unscaled", {"attention_unscaled"}},
};
const LessonPanel normalizers_panels[] = {
    {"scores", {"scores"}},       {"softmax", {"softmax"}}, {"linear", {"linear"}},
    {"sparsemax", {"sparsemax"}}, {"entmax", {"entmax"}},   {"hardmax", {"hardmax"}},
    {"sigmoid", {"sigmoid"}},     {"relu", {"relu"}},       {"small-gap", {"small-gap"}},
};
const LessonPanel stability_panels[] = {
    {"weights", {"weights"}},
    {"problems", {"problems"}},
    {"sum-error", {"sum-error"}},
    {"exp-curve", {"exp-curve"}},
    {"maps", {"map-naive-fp16", "map-stable-fp16"}},
    {"map-naive-fp16", {"map-naive-fp16"}},
    {"map-stable-fp16", {"map-stable-fp16"}},
};
const LessonPanel temperature_panels[] = {
    {"panels", {"panel-1", "panel-2", "panel-3", "panel-4", "panel-5", "panel-6", "panel-7", "panel-8"}},
    {"entropy", {"entropy"}},
    {"nudge", {"nudge"}},
};
const LessonPanel scaling_panels[] = {
    {"histograms", {"histogram-unscaled", "histogram-scaled"}},
    {"histogram-unscaled", {"histogram-unscaled"}},
    {"histogram-scaled", {"histogram-scaled"}},
    {"entropy-dk", {"entropy-dk"}},
    {"max-weight-dk", {"max-weight-dk"}},
    {"jacobian-dk", {"jacobian-dk"}},
    {"sweeps", {"entropy-dk", "max-weight-dk", "jacobian-dk"}},
};
const LessonPanel gradients_panels[] = {
    {"jacobian", {"jacobian"}},
    {"diagonal", {"diagonal"}},
    {"norm-vs-scale", {"norm-vs-scale"}},
};
const LessonPanel attention_variants_panels[] = {
    {"maps", {"dot", "scaled-dot", "cosine", "additive", "layer-norm"}},
    {"dot", {"dot"}},
    {"scaled-dot", {"scaled-dot"}},
    {"cosine", {"cosine"}},
    {"additive", {"additive"}},
    {"layer-norm", {"layer-norm"}},
    {"entropy-sigma", {"entropy-sigma"}},
};
const LessonPanel positions_panels[] = {
    {"encoding", {"encoding"}},         {"positions-only", {"positions-only"}},
    {"with-content", {"with-content"}}, {"maps", {"positions-only", "with-content"}},
    {"amplitude", {"amplitude"}},
};
const LessonPanel heads_panels[] = {
    {"average", {"average"}},
    {"row-heads", {"row-heads"}},
    {"row-average", {"row-average"}},
    {"heads", {"head-0", "head-1", "head-2", "head-3", "head-4", "head-5", "head-6", "head-7"}},
};

const LessonPanel values_panels[] = {
    {"weights", {"weights"}},       {"values", {"values"}},
    {"output", {"output"}},         {"output-vs-temperature", {"output-vs-temperature"}},
    {"multi-head", {"multi-head"}},
};
const LessonPanel sampling_panels[] = {
    {"distribution", {"distribution"}},
    {"top-k", {"top-k"}},
    {"top-p", {"top-p"}},
    {"filters", {"top-k", "top-p"}},
    {"temperature-table", {"temperature-table"}},
    {"soft-targets", {"soft-targets"}},
    {"distillation-gradient", {"distillation-gradient"}},
};
const LessonPanel loss_panels[] = {
    {"log-softmax", {"log-softmax"}},
    {"gradient", {"gradient"}},
    {"loss-vs-logit", {"loss-vs-logit", "gradient-vs-logit"}},
    {"dq-output-probe", {"dq-output-probe"}},
    {"dq-target-key", {"dq-target-key"}},
    {"dq", {"dq-output-probe", "dq-target-key"}},
    // The row's per-entry plots together: log s_i and s − y each give −L away (a predict step covers both).
    {"entries", {"log-softmax", "gradient"}},
};
const LessonPanel geometry_panels[] = {
    {"vectors", {"vectors"}},
    {"decomposition", {"decomposition"}},
    {"cosine-epsilon", {"cosine-epsilon"}},
    {"saturation", {"saturation"}},
    // The arrows and the score taken apart: the arrows' angles give cos θ away (a predict step covers both).
    {"alignment", {"vectors", "decomposition"}},
};
const LessonPanel init_panels[] = {
    {"variance-by-layer", {"variance-by-layer"}},
    {"measured-over-predicted", {"measured-over-predicted"}},
};
const LessonPanel training_panels[] = {
    {"curves", {"accuracy", "loss"}},
    {"accuracy", {"accuracy"}},
    {"loss", {"loss"}},
    {"maps", {"map-a", "map-b", "ideal"}},
    // The probe's map alone: at a classroom size with the projector's font, a second map (the ideal
    // one) beside it left neither readable.
    {"watch", {"map-a"}},
    {"map-a", {"map-a"}},
    {"map-b", {"map-b"}},
    {"ideal", {"ideal"}},
    {"saturated", {"saturated"}},
    {"grad-norms", {"grad-norms"}},
    {"gradients", {"saturated", "grad-norms"}},
    {"entropy", {"entropy"}},
    {"max-weight", {"max-weight"}},
    {"dynamics", {"entropy", "max-weight", "saturated"}},
    {"parabola", {"parabola"}},
    {"next-token", {"next-token"}},
    // The sentence's map in one head of the second layer, then its next-token bars: at a classroom
    // size more maps were too small to read.
    {"sentence", {"head-2-1", "next-token"}},
};

struct ViewPanels {
  View view;
  std::span<const LessonPanel> panels;
};
const ViewPanels view_panels[] = {
    {View::dashboard, dashboard_panels},
    {View::normalizers, normalizers_panels},
    {View::stability, stability_panels},
    {View::temperature, temperature_panels},
    {View::scaling, scaling_panels},
    {View::gradients, gradients_panels},
    {View::attention_variants, attention_variants_panels},
    {View::positions, positions_panels},
    {View::heads, heads_panels},
    {View::values, values_panels},
    {View::sampling, sampling_panels},
    {View::loss, loss_panels},
    {View::geometry, geometry_panels},
    {View::init, init_panels},
    {View::training, training_panels},
};

}  // namespace

std::span<const LessonPanel> lesson_panels(View view) {
  for (const ViewPanels& row : view_panels)
    if (row.view == view) return row.panels;
  return {};
}

}  // namespace smlab::app
