// The attention variants lab: five score variants' heatmaps side by side at the user's σ, and
// their mean entropy versus σ. Plots from Snapshot::attention_variants only.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/attention_variants.hpp"

namespace smlab::app {
namespace {

using i18n::fixed;
using i18n::tr;

using Lab = AttentionVariantsLab;

struct VariantLook {
  const char* plot_name;  // stable export stem
  const char* title;      // table key of the heatmap title
  const char* legend;     // table key of the curve's name (≤ 10 characters)
  plot::Color color;      // Okabe–Ito: colour-blind safe on dark and light themes
  bool dashed;
};

// In the order of AttentionVariantsLab::variants. The two that collapse are drawn solid and
// warm, the normalised ones cool; dashes tell lines apart where colours are hard to see.
constexpr std::array<VariantLook, 5> looks{{
    {"dot", "lab.attention_variants.dot", "lab.attention_variants.dot.short", plot::Color::from_hex(0xD55E00),
     false},  // vermillion
    {"scaled-dot", "lab.attention_variants.scaled_dot", "lab.attention_variants.scaled_dot.short",
     plot::Color::from_hex(0xE69F00), false},  // orange
    {"cosine", "lab.attention_variants.cosine", "lab.attention_variants.cosine.short", plot::Color::from_hex(0x56B4E9),
     true},  // sky blue
    {"additive", "lab.attention_variants.additive", "lab.attention_variants.additive.short",
     plot::Color::from_hex(0x009E73), false},  // bluish green
    {"layer-norm", "lab.attention_variants.layer_norm", "lab.attention_variants.layer_norm.short",
     plot::Color::from_hex(0xCC79A7), true},  // reddish purple
}};

plot::Plot variant_map(const Lab& lab, std::size_t v, double color_max, TexturePool* textures) {
  return heatmap_plot(std::string(tr(looks[v].title)) + "  H = " + fixed(lab.entropy_nats[v], 2),
                      weight_heatmap(lab.weights[v], color_max),
                      std::string("attention-variants/") + looks[v].plot_name, textures);
}

plot::Plot entropy_sigma_plot(const Lab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.attention_variants.sigma.title", {std::to_string(lab.sweep_seq_len)});
  p.x.label = tr("lab.attention_variants.sigma.x");
  p.x.scale = plot::Scale::Log10;
  // The axis runs on to 200 although σ stops at 20: the empty decade on the right holds each
  // curve's name at its end. A legend box would cover curves: they crowd the top (the
  // normalised variants) or the bottom (the collapsed ones) everywhere else.
  const double label_x = ParamLimits::qk_norm_max * 1.15;
  p.x.min = ParamLimits::qk_norm_min;
  p.x.max = 200.0;
  p.x.tick_values = {0.1, 0.3, 1, 3, 10, 20};
  p.y.label = tr("lab.attention_variants.sigma.y");
  p.y.min = 0.0;
  p.y.max = std::max(lab.sweep_max_entropy_nats, 0.1) * 1.12;
  for (std::size_t v = 0; v < looks.size(); ++v)
    p.lines.push_back({.label = tr(looks[v].legend),
                       .x = lab.sweep_sigmas,
                       .y = lab.sweep_entropy[v],
                       .color = looks[v].color,
                       .markers = true,
                       .dashed = looks[v].dashed});
  // Each variant's value at the current σ as a diamond in its curve's colour (in one colour the five
  // could not be told apart where curves meet). Where values meet (scaled beside additive at σ = 1,
  // 2.70 and 2.69) a later diamond is drawn smaller, inside the earlier one, not hidden by it.
  for (std::size_t v = 0; v < looks.size(); ++v) {
    int beneath = 0;
    for (std::size_t u = 0; u < v; ++u)
      if (std::abs(lab.sweep_entropy_now[u] - lab.sweep_entropy_now[v]) < 0.05 * lab.sweep_max_entropy_nats) ++beneath;
    p.scatters.push_back({.label = std::string(tr("plot.legend.now")) + " " + tr(looks[v].legend),
                          .x = {lab.sigma},
                          .y = {lab.sweep_entropy_now[v]},
                          .color = looks[v].color,
                          .radius = std::max(2.5f, 5.5f - 1.5f * static_cast<float>(beneath)),
                          .shape = plot::MarkerShape::Diamond});
  }
  p.vlines.push_back({lab.sigma, "σ = " + format_value(lab.sigma, 3), std::nullopt, true});
  p.hlines.push_back({lab.sweep_max_entropy_nats, tr("common.uniform"), std::nullopt, true});

  // Direct labels at the curves' right ends, pushed apart to at least one text line (~9 % of
  // the axis) where curves end close together (dot and scaled both end near 0).
  std::array<std::pair<double, std::size_t>, 5> ends{};
  for (std::size_t v = 0; v < looks.size(); ++v)
    ends[v] = {lab.sweep_entropy[v].empty() ? 0.0 : lab.sweep_entropy[v].back(), v};
  std::sort(ends.begin(), ends.end());
  const double gap = 0.09 * p.y.max;
  ends[0].first = std::max(ends[0].first, gap / 2);
  for (std::size_t k = 1; k < ends.size(); ++k) ends[k].first = std::max(ends[k].first, ends[k - 1].first + gap);
  const double overshoot = ends.back().first - (p.y.max - gap / 2);
  for (auto& [y, v] : ends) {
    if (overshoot > 0) y -= overshoot;  // keep the top label inside; the gaps stay
    p.annotations.push_back({label_x, y, tr(looks[v].legend), looks[v].color, plot::TextAlign::Left});
  }
  p.legend = plot::LegendPos::None;
  return p;
}

}  // namespace

LabView build_attention_variants(const LabInputs& inputs) {
  LabView view;
  view.explanation = tr("lab.attention_variants.explanation");
  view.columns = 3;  // maps as large as the window allows: two rows of three
  if (inputs.snapshot.lab<AttentionVariantsLab>() == nullptr) return view;
  const Lab& lab = *inputs.snapshot.lab<AttentionVariantsLab>();
  const Params& params = inputs.snapshot.params;

  // One colour range for all five maps, so a collapsed map (weights near 1) and a flat one
  // (weights near 1/L) look different rather than each being stretched to its own maximum.
  const double color_max = color_top(lab.largest_weight);
  for (std::size_t v = 0; v < looks.size(); ++v)
    view.plots.push_back({looks[v].plot_name, variant_map(lab, v, color_max, inputs.textures)});
  // Five curves named at their ends and the uniform line: a data area of six text lines.
  view.plots.push_back({"entropy-sigma", entropy_sigma_plot(lab), 1, 14.0f});

  view.notes.push_back(i18n::format(
      "lab.attention_variants.note.sigma",
      {format_value(lab.sigma, 3), format_value(lab.expected_query_norm, 3), format_value(lab.dot_score_std, 3),
       format_value(lab.scaled_score_std, 3), format_value(params.gamma, 3)}));
  std::string weights;
  for (std::size_t v = 0; v < looks.size(); ++v)
    weights += std::string(v == 0 ? "" : tr("common.list_separator")) + tr(looks[v].legend) + " " +
               fixed(lab.mean_max_weight[v], 2);
  view.notes.push_back(
      i18n::format(params.causal ? "lab.attention_variants.note.weights_causal" : "lab.attention_variants.note.weights",
                   {weights, fixed(lab.max_entropy_nats, 2)}));
  if (lab.capped)
    view.notes.push_back(
        i18n::format("lab.attention_variants.note.capped",
                     {std::to_string(lab.seq_len), std::to_string(params.seq_len), std::to_string(lab.sweep_seq_len)}));
  else if (lab.sweep_seq_len < lab.seq_len)
    view.notes.push_back(i18n::format("lab.attention_variants.note.sweep", {std::to_string(lab.sweep_seq_len)}));
  return view;
}

ControlsReport controls_attention_variants(Params& edit) {
  ControlsReport report =
      key_slider(edit, "qk_norm",
                 {"lab.attention_variants.norm", "norm variants", "σ = %.3g", "lab.attention_variants.norm.help"});
  report +=
      key_slider(edit, "gamma",
                 {"lab.attention_variants.gamma", "gamma variants", "γ = %.3g", "lab.attention_variants.gamma.help"});
  report.changed |= control_checkbox("common.causal_mask", "causal variants", &edit.causal);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("common.causal_mask.help"));
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* attention_variants_control_labels[] = {"lab.attention_variants.norm",
                                                             "lab.attention_variants.gamma"};
constexpr MainKey attention_variants_main_keys[] = {
    {"qk_norm", "lab.attention_variants.norm", "σ = %.3g", "lab.attention_variants.norm.help"},
    {"gamma", "lab.attention_variants.gamma", "γ = %.3g", "lab.attention_variants.gamma.help"},
    {"causal", "common.causal_mask", nullptr, "common.causal_mask.help"},
};
extern const LabDefinition attention_variants_lab{View::attention_variants,
                                                  "lab.attention_variants.title",
                                                  "lab.attention_variants.summary",
                                                  attention_variants_control_labels,
                                                  build_attention_variants,
                                                  controls_attention_variants,
                                                  nullptr,
                                                  nullptr,
                                                  false,
                                                  attention_variants_main_keys};

}  // namespace smlab::app
