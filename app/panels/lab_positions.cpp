// The positions lab: the sinusoidal encoding, attention from positions alone and with content at
// the current amplitude, and both versus amplitude with the three regimes marked.
// Plots from Snapshot::positions only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "panels/labs.hpp"
#include "smlab/labs/positions.hpp"

namespace smlab::app {
namespace {

using Lab = PositionsLab;

// Okabe–Ito colours (colour-blind safe on the dark and the light themes).
constexpr plot::Color entropy_color = plot::Color::from_hex(0x56B4E9);  // sky blue
constexpr plot::Color weight_color = plot::Color::from_hex(0xE69F00);   // orange
constexpr plot::Color now_color = plot::Color::from_hex(0xCC79A7);      // purple

std::string fixed(double value, int digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
  return buffer;
}

plot::Plot encoding_plot(const Lab& lab, TexturePool* textures) {
  plot::Plot p;
  p.title = "Encoding PE  (a·PE is added to q and k)";
  plot::Heatmap map;
  map.rows = lab.encoding.rows;
  map.cols = lab.encoding.cols;
  map.values = lab.encoding.values;  // a view into the Snapshot, not a copy
  map.vmin = -1.0;                   // sin and cos: symmetric so that white is 0
  map.vmax = 1.0;
  map.colormap = plot::Colormap::Diverging;
  map.colorbar_label = "PE";
  map.x_label = static_cast<int>(lab.encoding_columns.size()) < lab.encoding_dim
                    ? "sampled (sin, cos) pairs of d_k = " + std::to_string(lab.encoding_dim) + ", fast → slow"
                    : "column (sin, cos pairs), fast → slow";
  map.y_label = "position";
  map.square_cells = false;  // L'×d_k is rarely square; fill the cell instead
  map.texture = textures != nullptr ? textures->texture("positions/encoding", map.values, map.rows, map.cols, map.vmin,
                                                        map.vmax, map.colormap)
                                    : 0;
  p.heatmap = std::move(map);
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot map_plot(const Matrix& weights, const std::string& key, std::string title, TexturePool* textures) {
  plot::Plot p;
  p.title = std::move(title);
  plot::Heatmap map;
  map.rows = weights.rows;
  map.cols = weights.cols;
  map.values = weights.values;
  map.vmin = 0.0;
  // Each map on its own range: at small a the positional map's weights are all ≈ 1/L and a
  // shared range would hide its faint band; the titles carry the absolute numbers.
  float top = 0.0f;
  for (float w : weights.values)
    if (std::isfinite(w)) top = std::max(top, w);
  map.vmax = top > 0.0f ? top : 1.0;
  map.colormap = plot::Colormap::Viridis;
  map.colorbar_label = "weight";
  map.x_label = "key j";
  map.y_label = "query i";
  map.texture = textures != nullptr ? textures->texture("positions/" + key, map.values, map.rows, map.cols, map.vmin,
                                                        map.vmax, map.colormap)
                                    : 0;
  p.heatmap = std::move(map);
  p.legend = plot::LegendPos::None;
  return p;
}

double geometric_middle(double low, double high) { return std::sqrt(low * high); }

plot::Plot amplitude_plot(const Lab& lab) {
  plot::Plot p;
  p.title = "Versus amplitude a  (L = " + std::to_string(lab.seq_len) + ")";
  p.x.label = "amplitude a (log; a = 0 in the notes)";
  p.x.scale = plot::Scale::Log10;
  p.x.min = Lab::sweep_min_amplitude;
  p.x.max = Lab::sweep_max_amplitude;
  p.x.tick_values = {0.01, 0.1, 1, 10, 100};
  p.y.label = "H / H_max,  mean max weight";
  p.y.min = 0.0;
  p.y.max = 1.12;
  p.lines.push_back(
      {.label = "H ratio", .x = lab.sweep_amplitudes, .y = lab.position_entropy_ratio, .color = entropy_color});
  p.lines.push_back(
      {.label = "max w", .x = lab.sweep_amplitudes, .y = lab.position_max_weights, .color = weight_color});
  p.lines.push_back({.label = "H +content",
                     .x = lab.sweep_amplitudes,
                     .y = lab.content_entropy_ratio,
                     .color = entropy_color,
                     .width = 1.5f,
                     .dashed = true});
  p.lines.push_back({.label = "w +content",
                     .x = lab.sweep_amplitudes,
                     .y = lab.content_max_weights,
                     .color = weight_color,
                     .width = 1.5f,
                     .dashed = true});

  // The current amplitude; a = 0 cannot sit on a log axis, so it is drawn at the left edge.
  const bool on_axis = lab.amplitude >= Lab::sweep_min_amplitude;
  const double marked = on_axis ? lab.amplitude : Lab::sweep_min_amplitude;
  p.vlines.push_back({marked, on_axis ? "a = " + format_value(lab.amplitude, 3) : "a = 0 (off axis)", now_color, true});
  if (on_axis)
    p.scatters.push_back({.label = "",
                          .x = {lab.amplitude, lab.amplitude},
                          .y = {lab.position_entropy_ratio_now, lab.position_max_weight},
                          .color = now_color,
                          .radius = 5.0f,
                          .shape = plot::MarkerShape::Diamond});

  // The regimes of the positional map (solid curves), bounded by dotted lines.
  const double low = Lab::sweep_min_amplitude, high = Lab::sweep_max_amplitude;
  for (double boundary : {lab.uniform_until, lab.collapsed_from})
    if (boundary > low && boundary < high) p.vlines.push_back({boundary, "", std::nullopt, true});
  auto label = [&](double from, double to, const char* name, const char* why, double y) {
    if (to <= from * 1.05) return;  // the regime does not appear in the plotted range
    const double x = geometric_middle(from, to);
    p.annotations.push_back({x, y, name, std::nullopt, plot::TextAlign::Center});
    p.annotations.push_back({x, y - 0.08, why, std::nullopt, plot::TextAlign::Center});
  };
  label(low, lab.uniform_until, "uniform-ish", "(too small)", 0.6);
  label(lab.uniform_until, lab.collapsed_from, "structured", "", 0.6);
  label(lab.collapsed_from, high, "collapsed", "(too large)", 0.6);
  // Bottom right: there the entropy curves lie flat on 0 (collapsed), the least to hide.
  p.legend = plot::LegendPos::BottomRight;
  return p;
}

}  // namespace

LabView build_positions(const LabInputs& inputs) {
  LabView view;
  view.explanation =
      "Sinusoidal position vectors PE (top left) are scaled by the amplitude a and added to every query and key. "
      "The top right map is attention from positions alone (Q = K = a·PE, no content): at small a every key gets "
      "the same weight (uniform, a too small), moderate a gives a band where nearby positions attend to each other "
      "(structured), and large a makes each query attend only to itself (collapsed, a too large). Bottom left adds "
      "random content (Q, K ~ N(0, σ²) + a·PE); the curves show both maps' entropy, as a fraction of the uniform "
      "map's, and mean max weight versus a (solid: positions alone, dashed: with content).";
  view.columns = 2;
  if (!inputs.snapshot.positions) return view;
  const Lab& lab = *inputs.snapshot.positions;
  const Params& params = inputs.snapshot.params;

  view.plots.push_back({"encoding", encoding_plot(lab, inputs.textures)});
  view.plots.push_back({"positions-only", map_plot(lab.position_weights, "positions-only",
                                                   "Positions only, a = " + format_value(lab.amplitude, 3) +
                                                       "  H = " + fixed(lab.position_entropy_nats, 2),
                                                   inputs.textures)});
  view.plots.push_back({"with-content", map_plot(lab.content_weights, "with-content",
                                                 "Content σ = " + format_value(lab.content_sigma, 3) +
                                                     " + positions  H = " + fixed(lab.content_entropy_nats, 2),
                                                 inputs.textures)});
  view.plots.push_back({"amplitude", amplitude_plot(lab)});

  view.notes.push_back(
      "a = " + format_value(lab.amplitude, 3) + ": positions alone are " + std::string(regime_name(lab.regime)) +
      " (H/H_max = " + fixed(lab.position_entropy_ratio_now, 2) + ", mean max weight " +
      fixed(lab.position_max_weight, 2) + ").  Uniform-ish up to a ≈ " + format_value(lab.uniform_until, 2) +
      ", collapsed from a ≈ " + format_value(lab.collapsed_from, 2) + " (thresholds: H/H_max ≥ " +
      format_value(Lab::uniform_ratio, 2) + ", max weight ≥ " + format_value(Lab::collapse_weight, 2) + ").");
  view.notes.push_back("At a = 0: positions alone give the uniform map (H/H_max = " +
                       fixed(lab.position_entropy_ratio_at_zero, 2) + "); with content it is the plain random map " +
                       "(H/H_max = " + fixed(lab.content_entropy_ratio_at_zero, 2) + "), not a uniform one.");
  std::string sizes = "PE over d_k = " + std::to_string(lab.encoding_dim) + " columns";
  if (static_cast<int>(lab.encoding_columns.size()) < lab.encoding_dim)
    sizes += " (64 of its (sin, cos) pairs shown, evenly spaced)";
  if (lab.capped)
    sizes += "; maps and curves use the first L' = " + std::to_string(lab.seq_len) +
             " of L = " + std::to_string(params.seq_len) + " positions (at most 128, and L'·d_k ≤ 131072)";
  view.notes.push_back(sizes + ".");
  return view;
}

void controls_positions(Params& edit) {
  double amplitude = edit.pe_amplitude;
  const double amplitude_min = ParamLimits::pe_amplitude_min, amplitude_max = ParamLimits::pe_amplitude_max;
  // Logarithmic with a lower bound of 0: ImGui maps the first sliver of the track to 0 exactly.
  if (ImGui::SliderScalar("amplitude##positions", ImGuiDataType_Double, &amplitude, &amplitude_min, &amplitude_max,
                          "a = %.3g", ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.pe_amplitude = amplitude;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("q ← q + a·PE(pos), k ← k + a·PE(pos). Ctrl+click to type a value.");
  if (ImGui::Button("a = 0.1")) edit.pe_amplitude = 0.1;
  ImGui::SameLine();
  if (ImGui::Button("a = 2")) edit.pe_amplitude = 2.0;
  ImGui::SameLine();
  if (ImGui::Button("a = 30")) edit.pe_amplitude = 30.0;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("Too small, structured, too large (at the default T, d_k, scale).");
  double sigma = edit.qk_norm;
  const double sigma_min = ParamLimits::qk_norm_min, sigma_max = ParamLimits::qk_norm_max;
  if (ImGui::SliderScalar("content σ##positions", ImGuiDataType_Double, &sigma, &sigma_min, &sigma_max, "σ = %.3g",
                          ImGuiSliderFlags_Logarithmic | ImGuiSliderFlags_AlwaysClamp))
    edit.qk_norm = sigma;
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("Entries of the random content in Q and K ~ N(0, σ²) (bottom-left map).");
  ImGui::Checkbox("causal mask##positions", &edit.causal);
}

}  // namespace smlab::app
