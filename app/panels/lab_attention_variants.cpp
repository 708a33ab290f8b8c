// The attention variants lab: five score variants' heatmaps side by side at the user's σ, and
// their mean entropy versus σ. Plots from Snapshot::attention_variants only.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string>
#include <utility>

#include "panels/labs.hpp"
#include "smlab/labs/attention_variants.hpp"

namespace smlab::app {
namespace {

using Lab = AttentionVariantsLab;

struct VariantLook {
  const char* plot_name;  // stable export stem
  const char* title;      // heatmap title
  const char* legend;     // ≤ 10 characters
  plot::Color color;      // Okabe–Ito: colour-blind safe on dark and light themes
  bool dashed;
};

// In the order of AttentionVariantsLab::variants. The two that collapse are drawn solid and
// warm, the normalised ones cool; dashes tell lines apart where colours are hard to see.
constexpr std::array<VariantLook, 5> looks{{
    {"dot", "dot", "dot", plot::Color::from_hex(0xD55E00), false},                   // vermillion
    {"scaled-dot", "scaled dot", "scaled", plot::Color::from_hex(0xE69F00), false},  // orange
    {"cosine", "cosine", "cosine", plot::Color::from_hex(0x56B4E9), true},           // sky blue
    {"additive", "additive", "additive", plot::Color::from_hex(0x009E73), false},    // bluish green
    {"layer-norm", "QK-LayerNorm", "QK-LN", plot::Color::from_hex(0xCC79A7), true},  // reddish purple
}};

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

// One colour range for all five maps, so a collapsed map (weights near 1) and a flat one
// (weights near 1/L) look different rather than each being stretched to its own maximum.
double shared_color_max(const Lab& lab) {
  float top = 0.0f;
  for (const Matrix& map : lab.weights)
    for (float w : map.values)
      if (std::isfinite(w)) top = std::max(top, w);
  return top > 0.0f ? top : 1.0;
}

plot::Plot variant_map(const Lab& lab, std::size_t v, double color_max, TexturePool* textures) {
  plot::Plot p;
  p.title = std::string(looks[v].title) + "  H = " + fixed(lab.entropy_nats[v], 2);
  plot::Heatmap map;
  map.rows = lab.weights[v].rows;
  map.cols = lab.weights[v].cols;
  map.values = lab.weights[v].values;  // a view into the Snapshot, not a copy
  map.vmin = 0.0;
  map.vmax = color_max;
  map.colormap = plot::Colormap::Viridis;
  map.colorbar_label = "weight";
  map.x_label = "key j";
  map.y_label = "query i";
  map.texture = textures != nullptr
                    ? textures->texture(std::string("attention-variants/") + looks[v].plot_name, map.values, map.rows,
                                        map.cols, map.vmin, map.vmax, map.colormap)
                    : 0;
  p.heatmap = std::move(map);
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot entropy_sigma_plot(const Lab& lab) {
  plot::Plot p;
  p.title = "Mean entropy vs σ  (L = " + std::to_string(lab.sweep_seq_len) + ")";
  p.x.label = "σ of q, k entries (‖q‖ ≈ σ√d_k)";
  p.x.scale = plot::Scale::Log10;
  // The axis runs on to 200 although σ stops at 20: the empty decade on the right holds each
  // curve's name at its end. A legend box would cover curves: they crowd the top (the
  // normalised variants) or the bottom (the collapsed ones) everywhere else.
  const double label_x = ParamLimits::qk_norm_max * 1.15;
  p.x.min = ParamLimits::qk_norm_min;
  p.x.max = 200.0;
  p.x.tick_values = {0.1, 0.3, 1, 3, 10, 20};
  p.y.label = "mean row entropy (nats)";
  p.y.min = 0.0;
  p.y.max = std::max(lab.sweep_max_entropy_nats, 0.1) * 1.12;
  for (std::size_t v = 0; v < looks.size(); ++v)
    p.lines.push_back({.label = looks[v].legend,
                       .x = lab.sweep_sigmas,
                       .y = lab.sweep_entropy[v],
                       .color = looks[v].color,
                       .markers = true,
                       .dashed = looks[v].dashed});
  plot::ScatterSeries now{.label = "now", .radius = 5.5f, .shape = plot::MarkerShape::Diamond};
  for (std::size_t v = 0; v < looks.size(); ++v) {
    now.x.push_back(lab.sigma);
    now.y.push_back(lab.sweep_entropy_now[v]);
  }
  p.scatters.push_back(std::move(now));
  p.vlines.push_back({lab.sigma, "σ = " + format_value(lab.sigma, 3), std::nullopt, true});
  p.hlines.push_back({lab.sweep_max_entropy_nats, "uniform", std::nullopt, true});

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
    p.annotations.push_back({label_x, y, looks[v].legend, looks[v].color, plot::TextAlign::Left});
  }
  p.legend = plot::LegendPos::None;
  return p;
}

}  // namespace

LabView build_attention_variants(const LabInputs& inputs) {
  LabView view;
  view.explanation =
      "Five ways to score a query q against a key k — q·k, q·k/√d_k, γ·cos(q, k), vᵀtanh(W_q q + W_k k) and "
      "LN(q)·LN(k)/√d_k — on the same random Q and K whose entries have standard deviation σ (the norm slider: "
      "‖q‖ ≈ σ√d_k). As σ grows, dot and scaled-dot scores grow like σ², so their softmax collapses onto one key per "
      "row (entropy → 0); cosine (scores within ±γ) and QK-LayerNorm normalise q and k first, so their maps and "
      "entropies stay put, and additive tanh saturates instead of exploding. Drag σ and compare the titles' mean row "
      "entropies H (nats) and the curves.";
  view.columns = 3;  // maps as large as the window allows: two rows of three
  if (!inputs.snapshot.attention_variants) return view;
  const Lab& lab = *inputs.snapshot.attention_variants;
  const Params& params = inputs.snapshot.params;

  const double color_max = shared_color_max(lab);
  for (std::size_t v = 0; v < looks.size(); ++v)
    view.plots.push_back({looks[v].plot_name, variant_map(lab, v, color_max, inputs.textures)});
  view.plots.push_back({"entropy-sigma", entropy_sigma_plot(lab)});

  view.notes.push_back("σ = " + format_value(lab.sigma, 3) +
                       ":  ‖q‖ ≈ σ√d_k = " + format_value(lab.expected_query_norm, 3) +
                       ",  q·k has std σ²√d_k = " + format_value(lab.dot_score_std, 3) +
                       ",  q·k/√d_k std σ² = " + format_value(lab.scaled_score_std, 3) +
                       ",  cosine scores within ±γ = ±" + format_value(params.gamma, 3) + ".");
  std::string weights = "Mean max weight:";
  for (std::size_t v = 0; v < looks.size(); ++v)
    weights += std::string(v == 0 ? " " : ",  ") + looks[v].legend + " " + fixed(lab.mean_max_weight[v], 2);
  weights +=
      "   (uniform map: entropy " + fixed(lab.max_entropy_nats, 2) + " nats" + (params.causal ? ", causal" : "") + ").";
  view.notes.push_back(weights);
  if (lab.capped)
    view.notes.push_back("Maps show the first L' = " + std::to_string(lab.seq_len) +
                         " of L = " + std::to_string(params.seq_len) +
                         " positions (at most 128, and L'·d_k ≤ 131072) to keep the "
                         "recompute fast; the σ curve uses L = " +
                         std::to_string(lab.sweep_seq_len) + ".");
  else if (lab.sweep_seq_len < lab.seq_len)
    view.notes.push_back("The σ curve uses the first " + std::to_string(lab.sweep_seq_len) +
                         " positions (80 maps per recompute); its ◆ marks are the curves at the current σ.");
  return view;
}

void controls_attention_variants(Params& edit) {
  double sigma = edit.qk_norm;
  const double sigma_min = ParamLimits::qk_norm_min, sigma_max = ParamLimits::qk_norm_max;
  if (ImGui::SliderScalar("norm σ##variants", ImGuiDataType_Double, &sigma, &sigma_min, &sigma_max, "σ = %.3g",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.qk_norm = sigma;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip(
        "Entries of Q and K ~ N(0, σ²), so ‖q‖ ≈ σ√d_k.\nDot-product scores grow like σ²; cosine and "
        "LayerNorm scores do not.");
  double gamma = edit.gamma;
  const double gamma_min = ParamLimits::gamma_min, gamma_max = ParamLimits::gamma_max;
  if (ImGui::SliderScalar("γ cosine##variants", ImGuiDataType_Double, &gamma, &gamma_min, &gamma_max, "γ = %.3g",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.gamma = gamma;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Cosine attention scores γ·cos(q, k) lie in [−γ, γ]: γ alone sets how sharp it can get.");
  ImGui::Checkbox("causal mask##variants", &edit.causal);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Query i sees keys j ≤ i only: weights above the diagonal are 0.");
}

}  // namespace smlab::app
