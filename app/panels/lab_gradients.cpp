// The gradients lab: the softmax Jacobian as a signed heatmap, the S(1−S) diagonal with the live
// points, and the gradient's size versus score scale with the stall region. Plots from
// Snapshot::gradients only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/dashboard_plots.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/gradients.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

// Okabe–Ito colours (colour-blind safe on the dark and the light themes).
constexpr plot::Color norm_color = plot::Color::from_hex(0x56B4E9);     // sky blue
constexpr plot::Color entry_color = plot::Color::from_hex(0x009E73);    // bluish green
constexpr plot::Color current_color = plot::Color::from_hex(0xE69F00);  // orange
constexpr plot::Color stall_color = plot::Color::from_hex(0xD55E00);    // vermillion

plot::Plot jacobian_plot(const GradientsLab& lab, TexturePool* textures) {
  const std::string first = std::to_string(lab.jacobian_first);
  std::string title = lab.jacobian_capped
                          ? i18n::format("lab.gradients.jacobian.title_capped",
                                         {first, std::to_string(lab.jacobian_first + lab.jacobian_size - 1),
                                          std::to_string(lab.row_length)})
                          : i18n::format("lab.gradients.jacobian.title_norm", {format_value(lab.frobenius_norm, 2)});
  plot::Heatmap map;
  map.rows = lab.jacobian_size;
  map.cols = lab.jacobian_size;
  map.values = lab.jacobian;  // a view into the Snapshot, not a copy
  // Symmetric around 0 so that white is exactly 0: blue is negative (−s_i s_j), red positive.
  // Fixed (the default) at ±1/4 (no entry of J can exceed it: s(1 − s) ≤ 1/4 and s_i s_j ≤ 1/4),
  // so a vanished Jacobian is drawn white; auto fits ±max|J|, which stretches ±1e-22 to full
  // colour (the colorbar then says ±1e-22).
  const double largest = lab.jacobian_abs_max;  // max |J_ij| over the block (core, once per Snapshot)
  map.vmin = largest > 0.0 ? -largest : -0.25;
  map.vmax = largest > 0.0 ? largest : 0.25;
  map.fixed_range = plot::ColorRange{-0.25, 0.25};
  map.default_scale = plot::ColorScale::Fixed;
  map.colormap = plot::Colormap::Diverging;
  map.colorbar_label = "∂s_i/∂z_j";
  // Heatmap ticks count cells from 0, so a block that starts elsewhere says so in its labels.
  map.x_label = lab.jacobian_first == 0 ? std::string(tr("lab.gradients.logit_j"))
                                        : std::string(tr("lab.gradients.logit_j")) + " − " + first;
  map.y_label = lab.jacobian_first == 0 ? std::string(tr("lab.gradients.weight_i"))
                                        : std::string(tr("lab.gradients.weight_i")) + " − " + first;
  return heatmap_plot(std::move(title), std::move(map), "gradients/jacobian", textures);
}

plot::Plot diagonal_plot(const GradientsLab& lab) {
  return gradient_parabola_plot({.title = tr("lab.gradients.diagonal.title"),
                                 .short_title = {},
                                 .points_label = tr("lab.gradients.keys_now"),
                                 .curve_color = norm_color,
                                 .points_color = current_color},
                                lab.parabola_s, lab.parabola_value, lab.probabilities, lab.diagonal);
}

// ‖J‖_F of the row at score scale 1 (the row as it is), from the sweep (log-spaced scales, so read
// linearly in log c between its two neighbours); none when the sweep does not span 1.
std::optional<double> norm_at_scale_one(const GradientsLab& lab) {
  const std::vector<double>& c = lab.sweep_scales;
  for (std::size_t k = 1; k < c.size() && k < lab.sweep_frobenius_norm.size(); ++k)
    if (c[k - 1] <= 1.0 && c[k] >= 1.0) {
      const double span = std::log(c[k]) - std::log(c[k - 1]);
      const double t = span > 0.0 ? -std::log(c[k - 1]) / span : 0.0;
      return lab.sweep_frobenius_norm[k - 1] + t * (lab.sweep_frobenius_norm[k] - lab.sweep_frobenius_norm[k - 1]);
    }
  return std::nullopt;
}

plot::Plot norm_plot(const GradientsLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.gradients.norm.title", {format_value(lab.temperature, 3)});
  p.x.label = tr("lab.gradients.norm.x");
  p.x.scale = plot::Scale::Log10;
  p.x.min = ParamLimits::score_scale_min;
  // A little past the largest scale, so the "now" diamond at c = 100 is not cut by the frame.
  p.x.max = 1.4 * ParamLimits::score_scale_max;
  p.y.label = tr("lab.gradients.norm.y");
  double top = lab.sweep_peak_norm;
  for (double entry : lab.sweep_max_abs_entry) top = std::max(top, entry);
  p.y.max = top > 0.0 ? top * 1.3 : 1.0;  // headroom above the curves for the legend (two entries)
  // A little room below 0: the "now" diamond of a stalled row (‖J‖_F ≈ 0.002 at c = 100) sits on the
  // axis and was cut to a triangle by the frame.
  p.y.min = -0.04 * p.y.max;
  if (lab.has_stall) {
    // The stall region as a translucent band from the boundary to the end of the range.
    // Named on its boundary line, not in the legend: beside two plots on a classroom screen the
    // legend had no room for "stalls: < 1% of peak".
    p.lines.push_back({.label = "",
                       .x = {lab.stall_scale, ParamLimits::score_scale_max},
                       .y = {lab.stall_threshold, lab.stall_threshold},
                       .color = stall_color,
                       .width = 1.0f,
                       .band_low = {0.0, 0.0},
                       .band_high = {p.y.max, p.y.max}});
    p.vlines.push_back({lab.stall_scale, i18n::format("lab.gradients.stall_line", {format_value(lab.stall_scale, 3)}),
                        stall_color, true, "c = " + format_value(lab.stall_scale, 3)});
  }
  p.lines.push_back({.label = "‖J‖_F", .x = lab.sweep_scales, .y = lab.sweep_frobenius_norm, .color = norm_color});
  p.lines.push_back({.label = tr("lab.gradients.max_entry"),
                     .x = lab.sweep_scales,
                     .y = lab.sweep_max_abs_entry,
                     .color = entry_color});
  // "now" in the legend, not beside its line: at the top of the range (c = 100, inside the stall
  // region) the line's label had no room but over the marker and the curves.
  // Each marker's ‖J‖_F written: a lesson compares the row now with the row as it is (c = 1), to
  // two digits no one reads off the curve: "now" on its dashed line, the row at c = 1 beside its
  // square. In the legend they crowded out "stalls" at half a classroom screen.
  p.scatters.push_back({.label = tr("plot.legend.now"),
                        .x = {lab.score_scale},
                        .y = {lab.frobenius_norm},
                        .color = current_color,
                        .radius = 5.5f,
                        .shape = plot::MarkerShape::Diamond,
                        .in_legend = false});
  // The peak written at its point: a lesson quotes where it is and how high ("about 9, where
  // ‖J‖_F = 0.42"), which no tick gives on a log axis. Where the plot is small and crowded the
  // label gives way to those of c = 1 and "now".
  if (lab.sweep_peak_norm > 0.0 && std::isfinite(lab.sweep_peak_norm)) {
    p.scatters.push_back({.label = "",
                          .x = {lab.sweep_peak_scale},
                          .y = {lab.sweep_peak_norm},
                          .color = norm_color,
                          .radius = 4.0f,
                          .shape = plot::MarkerShape::Circle,
                          .in_legend = false});
    p.annotations.push_back({.x = lab.sweep_peak_scale,
                             .y = lab.sweep_peak_norm,
                             .text = i18n::format("lab.gradients.peak", {format_value(lab.sweep_peak_scale, 2),
                                                                         format_value(lab.sweep_peak_norm, 2)}),
                             .align = plot::TextAlign::Center,
                             .optional = true});
  }
  if (std::abs(std::log(lab.score_scale)) > 1e-9)
    if (const std::optional<double> at_one = norm_at_scale_one(lab)) {
      p.scatters.push_back({.label = i18n::format("lab.gradients.unit_norm", {format_value(*at_one, 2)}),
                            .x = {1.0},
                            .y = {*at_one},
                            .color = norm_color,
                            .radius = 5.0f,
                            .shape = plot::MarkerShape::Square,
                            .in_legend = false});
      p.annotations.push_back({.x = 1.0,
                               .y = *at_one,
                               .text = i18n::format("lab.gradients.unit_norm", {format_value(*at_one, 2)}),
                               .align = plot::TextAlign::Right});
    }
  p.vlines.push_back({lab.score_scale, i18n::format("lab.gradients.now_norm", {format_value(lab.frobenius_norm, 2)}),
                      current_color, true});
  // 1% of the peak: the line the stall region starts under. Unlabelled: at the foot of the axis its
  // label was placed far from it, and the legend's "stalls: < 1% of peak" says what it is.
  p.hlines.push_back({lab.stall_threshold, "", std::nullopt, true});
  p.legend = plot::LegendPos::TopLeft;
  return p;
}

}  // namespace

LabView build_gradients(const LabInputs& inputs) {
  LabView view;
  view.explanation = tr("lab.gradients.explanation");
  view.columns = 2;
  if (inputs.snapshot.lab<GradientsLab>() == nullptr) return view;
  const GradientsLab& lab = *inputs.snapshot.lab<GradientsLab>();

  view.plots.push_back({"jacobian", jacobian_plot(lab, inputs.textures), 1});
  view.plots.push_back({"diagonal", diagonal_plot(lab), 1});
  view.plots.push_back({"norm-vs-scale", norm_plot(lab), 2});

  view.notes.push_back(i18n::format("lab.gradients.note.now",
                                    {format_value(lab.score_scale, 3), format_value(lab.temperature, 3),
                                     format_value(lab.frobenius_norm, 4), format_value(lab.max_abs_entry, 4),
                                     format_value(lab.sweep_peak_norm, 4), format_value(lab.sweep_peak_scale, 3)}));
  if (lab.has_stall)
    view.notes.push_back(i18n::format("lab.gradients.note.stall",
                                      {format_value(lab.stall_scale, 4), format_value(lab.stall_threshold, 3)}) +
                         (lab.stalled_now ? tr("lab.gradients.note.stalled_now") : ""));
  else if (lab.sweep_peak_norm == 0.0)
    view.notes.push_back(tr("lab.gradients.note.zero"));
  else
    view.notes.push_back(tr("lab.gradients.note.no_stall"));
  std::string scope = tr("lab.gradients.note.scope");
  if (lab.jacobian_capped)
    scope +=
        i18n::format("lab.gradients.note.capped", {std::to_string(lab.jacobian_size), std::to_string(lab.row_length)});
  view.notes.push_back(scope);
  return view;
}

ControlsReport controls_gradients(Params& edit) {
  // The same score scale as the left column, repeated here because this lab is about it.
  return key_slider(edit, "score_scale",
                    {"lab.gradients.scale", "scale gradients", "c = %.3g", "lab.gradients.scale.help"});
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* gradients_control_labels[] = {"lab.gradients.scale"};
constexpr MainKey gradients_main_keys[] = {
    {"score_scale", "lab.gradients.scale", "c = %.3g", "lab.gradients.scale.help"},
    {"temperature", "controls.temperature", "T = %.3g", "controls.temperature.help"},
};
extern const LabDefinition gradients_lab{View::gradients,
                                         "lab.gradients.title",
                                         "lab.gradients.summary",
                                         gradients_control_labels,
                                         build_gradients,
                                         controls_gradients,
                                         nullptr,
                                         nullptr,
                                         false,
                                         gradients_main_keys};

}  // namespace smlab::app
