// The positions lab: the sinusoidal encoding, attention from positions alone and with content at
// the current amplitude, and both versus amplitude with the three regimes marked.
// Plots from Snapshot::positions only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/positions.hpp"

namespace smlab::app {
namespace {

using i18n::fixed;
using i18n::tr;

const char* regime_text(PositionRegime regime) {
  switch (regime) {
    case PositionRegime::uniform: return tr("lab.positions.uniform_ish");
    case PositionRegime::structured: return tr("lab.positions.structured");
    case PositionRegime::collapsed: return tr("lab.positions.collapsed");
  }
  return tr("lab.positions.structured");
}

using Lab = PositionsLab;

// Okabe–Ito colours (colour-blind safe on the dark and the light themes).
constexpr plot::Color entropy_color = plot::Color::from_hex(0x56B4E9);  // sky blue
constexpr plot::Color weight_color = plot::Color::from_hex(0xE69F00);   // orange
constexpr plot::Color now_color = plot::Color::from_hex(0xCC79A7);      // purple

plot::Plot encoding_plot(const Lab& lab, TexturePool* textures) {
  plot::Heatmap map;
  map.rows = lab.encoding.rows;
  map.cols = lab.encoding.cols;
  map.values = lab.encoding.values;  // a view into the Snapshot, not a copy
  map.vmin = -1.0;                   // sin and cos: symmetric so that white is 0
  map.vmax = 1.0;
  map.fixed_range = plot::ColorRange{-1.0, 1.0};
  map.default_scale = plot::ColorScale::Fixed;
  map.colormap = plot::Colormap::Diverging;
  map.colorbar_label = "PE";
  map.x_label = static_cast<int>(lab.encoding_columns.size()) < lab.encoding_dim
                    ? i18n::format("lab.positions.encoding.x_sampled", {std::to_string(lab.encoding_dim)})
                    : std::string(tr("lab.positions.encoding.x"));
  map.y_label = tr("lab.positions.position");
  map.square_cells = false;  // L'×d_k is rarely square; fill the cell instead
  return heatmap_plot(tr("lab.positions.encoding.title"), std::move(map), "positions/encoding", textures);
}

// Each map on its own range: at small a the positional map's weights are all ≈ 1/L and a shared
// range would hide its faint band; the titles carry the absolute numbers.
plot::Plot map_plot(const Matrix& weights, float largest, const std::string& key, std::string title,
                    TexturePool* textures) {
  return heatmap_plot(std::move(title), weight_heatmap(weights, color_top(largest)), "positions/" + key, textures);
}

double geometric_middle(double low, double high) { return std::sqrt(low * high); }

plot::Plot amplitude_plot(const Lab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.positions.amplitude.title", {std::to_string(lab.seq_len)});
  p.x.label = tr("lab.positions.amplitude.x");
  p.x.scale = plot::Scale::Log10;
  p.x.min = Lab::sweep_min_amplitude;
  // The axis runs one decade past the sweep's end: the legend sits there, over no curve, and
  // the regimes' names keep the headroom at the top.
  p.x.max = Lab::sweep_max_amplitude * 10.0;
  p.x.tick_values = {0.01, 0.1, 1, 10, 100};
  p.y.label = tr("lab.positions.amplitude.y");
  p.y.min = 0.0;
  p.y.max = 1.12;
  p.lines.push_back({.label = tr("lab.positions.h_ratio"),
                     .x = lab.sweep_amplitudes,
                     .y = lab.position_entropy_ratio,
                     .color = entropy_color});
  p.lines.push_back({.label = tr("lab.positions.max_w"),
                     .x = lab.sweep_amplitudes,
                     .y = lab.position_max_weights,
                     .color = weight_color});
  p.lines.push_back({.label = tr("lab.positions.h_content"),
                     .x = lab.sweep_amplitudes,
                     .y = lab.content_entropy_ratio,
                     .color = entropy_color,
                     .width = 1.5f,
                     .dashed = true});
  p.lines.push_back({.label = tr("lab.positions.w_content"),
                     .x = lab.sweep_amplitudes,
                     .y = lab.content_max_weights,
                     .color = weight_color,
                     .width = 1.5f,
                     .dashed = true});

  // The current amplitude; a = 0 cannot sit on a log axis, so it is drawn at the left edge.
  const bool on_axis = lab.amplitude >= Lab::sweep_min_amplitude;
  const double marked = on_axis ? lab.amplitude : Lab::sweep_min_amplitude;
  p.vlines.push_back({marked,
                      on_axis ? "a = " + format_value(lab.amplitude, 3) : std::string(tr("lab.positions.off_axis")),
                      now_color, true});
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
  // Each regime's name on one line in the headroom above the curves (y 1 … 1.12), clear of the
  // legend in the bottom right corner; why a regime is what it is, the explanation above says.
  auto label = [&](double from, double to, const char* name) {
    if (to <= from * 1.05) return;  // the regime does not appear in the plotted range
    p.annotations.push_back({geometric_middle(from, to), 1.06, name, std::nullopt, plot::TextAlign::Center});
  };
  label(low, lab.uniform_until, tr("lab.positions.uniform_ish"));
  label(lab.uniform_until, lab.collapsed_from, tr("lab.positions.structured"));
  label(lab.collapsed_from, high, tr("lab.positions.collapsed"));
  // Bottom right, in the empty decade (see x.max), two rows: the regimes' names keep the top.
  p.legend = plot::LegendPos::BottomRight;
  p.legend_max_rows = 2;
  return p;
}

}  // namespace

LabView build_positions(const LabInputs& inputs) {
  LabView view;
  view.explanation = tr("lab.positions.explanation");
  view.columns = 2;
  if (inputs.snapshot.lab<PositionsLab>() == nullptr) return view;
  const Lab& lab = *inputs.snapshot.lab<PositionsLab>();
  const Params& params = inputs.snapshot.params;

  view.plots.push_back({"encoding", encoding_plot(lab, inputs.textures)});
  view.plots.push_back(
      {"positions-only", map_plot(lab.position_weights, lab.position_largest_weight, "positions-only",
                                  i18n::format("lab.positions.only.title",
                                               {format_value(lab.amplitude, 3), fixed(lab.position_entropy_nats, 2)}),
                                  inputs.textures)});
  view.plots.push_back(
      {"with-content", map_plot(lab.content_weights, lab.content_largest_weight, "with-content",
                                i18n::format("lab.positions.content.title",
                                             {format_value(lab.content_sigma, 3), fixed(lab.content_entropy_nats, 2)}),
                                inputs.textures)});
  // Three regime names, the current a and a four-entry legend: a data area of six text lines.
  view.plots.push_back({"amplitude", amplitude_plot(lab), 1, 15.0f});

  view.notes.push_back(i18n::format(
      "lab.positions.note.regime",
      {format_value(lab.amplitude, 3), regime_text(lab.regime), fixed(lab.position_entropy_ratio_now, 2),
       fixed(lab.position_max_weight, 2), format_value(lab.uniform_until, 2), format_value(lab.collapsed_from, 2),
       format_value(Lab::uniform_ratio, 2), format_value(Lab::collapse_weight, 2)}));
  view.notes.push_back(i18n::format("lab.positions.note.zero", {fixed(lab.position_entropy_ratio_at_zero, 2),
                                                                fixed(lab.content_entropy_ratio_at_zero, 2)}));
  std::string sizes = i18n::format("lab.positions.note.sizes", {std::to_string(lab.encoding_dim)});
  if (static_cast<int>(lab.encoding_columns.size()) < lab.encoding_dim) sizes += tr("lab.positions.note.sampled");
  if (lab.capped)
    sizes += i18n::format("lab.positions.note.capped", {std::to_string(lab.seq_len), std::to_string(params.seq_len)});
  view.notes.push_back(sizes + tr("common.full_stop"));
  return view;
}

ControlsReport controls_positions(Params& edit) {
  // Logarithmic with a lower bound of 0: ImGui maps the first sliver of the track to 0 exactly.
  ControlsReport report =
      key_slider(edit, "pe_amplitude",
                 {"lab.positions.amplitude", "amplitude positions", "a = %.3g", "lab.positions.amplitude.help"});
  const auto amplitude = [&](const char* label, double value) {
    if (!control_button(label)) return;
    edit.pe_amplitude = value;
    report.changed = true;
  };
  amplitude("a = 0.1", 0.1);
  same_line_if_fits("a = 2");
  amplitude("a = 2", 2.0);
  same_line_if_fits("a = 30");
  amplitude("a = 30", 30.0);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.positions.presets.help"));
  report +=
      key_slider(edit, "qk_norm",
                 {"lab.positions.content_sigma", "content positions", "σ = %.3g", "lab.positions.content_sigma.help"});
  report.changed |= control_checkbox("common.causal_mask", "causal positions", &edit.causal);
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* positions_control_labels[] = {"lab.positions.amplitude", "lab.positions.content_sigma"};
constexpr MainKey positions_main_keys[] = {
    {"pe_amplitude", "lab.positions.amplitude", "a = %.3g", "lab.positions.amplitude.help"},
    {"qk_norm", "lab.positions.content_sigma", "σ = %.3g", "lab.positions.content_sigma.help"},
    {"causal", "common.causal_mask", nullptr, "common.causal_mask.help"},
};
extern const LabDefinition positions_lab{View::positions,
                                         "lab.positions.title",
                                         "lab.positions.summary",
                                         positions_control_labels,
                                         build_positions,
                                         controls_positions,
                                         nullptr,
                                         nullptr,
                                         false,
                                         positions_main_keys};

}  // namespace smlab::app
