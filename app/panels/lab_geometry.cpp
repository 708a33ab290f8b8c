// The geometry lab: a query and its keys as arrows in 2-D with score = ‖q‖‖k‖cos θ taken apart,
// cosine attention's gradient as ‖q‖ → 0 with and without ε, and additive attention's tanh
// saturation with and without LayerNorm. Plots from smlab::GeometryLab only.
#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "smlab/labs/topics.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

constexpr plot::Color query_color = plot::Color::from_hex(0xE69F00);   // orange
constexpr plot::Color norm_color = plot::Color::from_hex(0x56B4E9);    // sky blue
constexpr plot::Color key_color = plot::Color::from_hex(0x0072B2);     // blue: 5.3:1 on white
constexpr plot::Color cosine_color = plot::Color::from_hex(0x009E73);  // bluish green
constexpr plot::Color dot_color = plot::Color::from_hex(0x0072B2);     // blue
constexpr plot::Color naive_color = plot::Color::from_hex(0xD55E00);   // vermillion
constexpr plot::Color fixed_color = plot::Color::from_hex(0x009E73);   // bluish green
constexpr plot::Color grey = plot::Color::from_hex(0x999999);

std::vector<double> indices(std::size_t n, double offset = 0.0) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i) + offset;
  return out;
}

plot::Plot vectors_plot(const GeometryLab& lab) {
  plot::Plot p;
  p.title = tr("lab.geometry.vectors.title");
  double reach = lab.alignment.query_norm;
  for (double k : lab.alignment.key_norms) reach = std::max(reach, k);
  reach = std::max(reach * 1.2, 0.5);
  p.x.min = -reach;
  p.x.max = reach;
  p.y.min = -reach;
  p.y.max = reach;
  p.x.label = "x₁";
  p.y.label = "x₂";
  // q first, wide, then the keys over it: a key along q (cos θ = 1) shows as a blue arrow inside the
  // orange one instead of vanishing under it.
  p.lines.push_back(
      {.label = "q", .x = {0.0, lab.query[0]}, .y = {0.0, lab.query[1]}, .color = query_color, .width = 5.0f});
  p.scatters.push_back({.label = "", .x = {lab.query[0]}, .y = {lab.query[1]}, .color = query_color, .radius = 5.0f});
  p.annotations.push_back({lab.query[0] * 1.12, lab.query[1] * 1.12, "q", query_color,
                           lab.query[0] >= 0 ? plot::TextAlign::Left : plot::TextAlign::Right});
  // Each key named at its tip, in the arrows' colour (dark enough to read on white); its cos θ is
  // written under its bars in the decomposition plot, where a label here would crowd q's.
  const std::size_t n = lab.alignment.key_norms.size();
  for (std::size_t j = 0; j < n; ++j) {
    const double x = lab.keys[2 * j], y = lab.keys[2 * j + 1];
    p.lines.push_back(
        {.label = j == 0 ? tr("lab.geometry.keys") : "", .x = {0.0, x}, .y = {0.0, y}, .color = key_color});
    p.annotations.push_back({x * 1.08, y * 1.08, "k" + std::to_string(j), key_color,
                             x >= 0 ? plot::TextAlign::Left : plot::TextAlign::Right});
  }
  p.hlines.push_back({0.0, "", grey, false});
  p.vlines.push_back({0.0, "", grey, false});
  p.legend = plot::LegendPos::None;  // every arrow is labelled at its tip
  return p;
}

plot::Plot decomposition_plot(const GeometryLab& lab) {
  const Alignment& a = lab.alignment;
  plot::Plot p;
  p.title = tr("lab.geometry.decomposition.title");
  p.x.label = tr("lab.geometry.decomposition.x");  // names the diamonds: "key j (◆ softmax weight)"
  p.x.integer_ticks = true;
  const std::size_t n = a.key_norms.size();
  std::vector<double> norms(n);
  for (std::size_t j = 0; j < n; ++j) norms[j] = a.query_norm * a.key_norms[j];
  p.bars.push_back({.label = "‖q‖‖k‖", .x = indices(n, -0.27), .y = norms, .width = 0.25, .color = norm_color});
  double top = 1.0, bottom = -1.0;
  for (std::size_t j = 0; j < n; ++j) {
    top = std::max({top, norms[j], a.dots[j]});
    bottom = std::min(bottom, a.dots[j]);
  }
  // A few keys: each score written over its bar, two decimals (a lesson compares 0.50 with 1.41, or
  // checks 24), and each key's cos θ under its group, keys in order, as the axis says. Written
  // over the bars too, eight numbers at two precisions sat between three bars a key with no telling
  // whose each was.
  const bool labelled = n <= 4;
  if (labelled) {
    p.x.label = tr("lab.geometry.decomposition.x_cosine");
    for (std::size_t j = 0; j < n; ++j) p.x.tick_names.push_back(i18n::fixed(a.cosines[j], 2));
  }
  p.bars.push_back({.label = "cos θ", .x = indices(n, 0.0), .y = a.cosines, .width = 0.25, .color = cosine_color});
  p.bars.push_back({.label = "q·k",
                    .x = indices(n, 0.27),
                    .y = a.dots,
                    .width = 0.25,
                    .color = dot_color,
                    // Scores up to 25 (q = (3, 4), k = (4, 3)): "24.00" over bars a quarter wide crowd.
                    .value_digits = labelled && top - bottom <= 6.0 ? 2 : 0,
                    .value_fixed = true});
  p.scatters.push_back({.label = tr("lab.geometry.weight"),
                        .x = indices(n, 0.27),
                        .y = a.weights,
                        .color = query_color,
                        .radius = 5.0f,
                        .shape = plot::MarkerShape::Diamond,
                        .in_legend = false});
  p.y.min = bottom - 0.1 * (top - bottom);
  p.y.max = top + (labelled ? 0.18 : 0.1) * (top - bottom);  // room for the values over the bars
  p.hlines.push_back({0.0, "", std::nullopt, false});
  // The legend lists the three bars in one column (the x-axis label names the diamonds): where no
  // corner is free of bars it goes right of the data area. Four entries made a two-column legend
  // that fit neither above the bars nor beside them on a projector-sized plot.
  p.legend = plot::LegendPos::TopRight;
  return p;
}

plot::Plot cosine_plot(const GeometryLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.geometry.cosine.title", {format_value(lab.settings.cosine_epsilon, 2)});
  p.x.label = "‖q‖";
  p.x.scale = plot::Scale::Log10;
  p.y.label = "‖∂cos/∂q‖";
  p.y.scale = plot::Scale::Log10;
  p.lines.push_back({.label = tr("lab.geometry.naive"),
                     .x = lab.sweep_query_norms,
                     .y = lab.sweep_gradient_naive,
                     .color = naive_color,
                     .dashed = true});
  p.lines.push_back({.label = tr("lab.geometry.with_epsilon"),
                     .x = lab.sweep_query_norms,
                     .y = lab.sweep_gradient_epsilon,
                     .color = fixed_color});
  p.vlines.push_back({lab.settings.cosine_epsilon, "", std::nullopt, true});  // at ε (the title gives its value)
  p.hlines.push_back({1.0 / lab.settings.cosine_epsilon, "1/ε", std::nullopt, true});
  p.legend = plot::LegendPos::TopRight;
  return p;
}

plot::Plot saturation_plot(const GeometryLab& lab) {
  plot::Plot p;
  p.title = tr("lab.geometry.saturation.title");
  p.x.label = tr("lab.geometry.sigma");
  p.x.scale = plot::Scale::Log10;
  p.x.min = 0.1;
  p.x.max = 100.0;
  p.y.label = tr("lab.geometry.mean_derivative");
  p.y.min = 0.0;
  p.y.max = 1.15;
  // Each curve is named at its right end, in its colour, instead of in a legend: the plot is
  // short at projector sizes and a legend there covered the curves in every corner. At σ = 100
  // the curve without LayerNorm is near 0 and the one with it level near 0.48, so one label goes
  // in the gap between them and the other above the level one. The measured dots carry no name;
  // the note under the explanation says lines are predicted and dots measured.
  p.lines.push_back({.label = tr("lab.geometry.plain_predicted"),
                     .x = lab.sweep_sigmas,
                     .y = lab.predicted_plain_derivative,
                     .color = naive_color});
  p.scatters.push_back({.label = "", .x = lab.sweep_sigmas, .y = lab.plain_mean_derivative, .color = naive_color});
  p.lines.push_back({.label = tr("lab.geometry.normed_predicted"),
                     .x = lab.sweep_sigmas,
                     .y = lab.predicted_normed_derivative,
                     .color = fixed_color});
  p.scatters.push_back({.label = "",
                        .x = lab.sweep_sigmas,
                        .y = lab.normed_mean_derivative,
                        .color = fixed_color,
                        .shape = plot::MarkerShape::Square});
  if (!lab.sweep_sigmas.empty() && !lab.predicted_plain_derivative.empty() &&
      !lab.predicted_normed_derivative.empty()) {
    const double right = lab.sweep_sigmas.back();
    const double plain_end = lab.predicted_plain_derivative.back(), normed_end = lab.predicted_normed_derivative.back();
    p.annotations.push_back({right, std::min(plain_end + 0.27, 1.05), tr("lab.geometry.plain_predicted"), naive_color,
                             plot::TextAlign::Right});
    p.annotations.push_back({right, std::min(normed_end + 0.2, 1.05), tr("lab.geometry.normed_predicted"), fixed_color,
                             plot::TextAlign::Right});
  }
  p.vlines.push_back({lab.settings.sigma, tr("plot.legend.now"), std::nullopt, true});
  p.legend = plot::LegendPos::None;
  return p;
}

}  // namespace

LabView build_geometry_view(const GeometryLab& lab) {
  LabView view;
  view.explanation = tr("lab.geometry.explanation");
  view.columns = 2;
  view.plots.push_back({"vectors", vectors_plot(lab), 1});
  view.plots.push_back({"decomposition", decomposition_plot(lab), 1});
  view.plots.push_back({"cosine-epsilon", cosine_plot(lab), 1});
  view.plots.push_back({"saturation", saturation_plot(lab), 1});
  const Alignment& a = lab.alignment;
  std::string parts;
  for (std::size_t j = 0; j < a.dots.size(); ++j)
    parts += (j ? "; " : "") + std::string("k") + std::to_string(j) + ": " + format_value(a.query_norm, 3) + "·" +
             format_value(a.key_norms[j], 3) + "·" + format_value(a.cosines[j], 3) + " = " + format_value(a.dots[j], 3);
  view.notes.push_back(i18n::format("lab.geometry.note.decomposition", {parts}));
  view.notes.push_back(
      i18n::format("lab.geometry.note.saturation",
                   {format_value(lab.settings.sigma, 3), format_value(lab.plain_now.mean_derivative, 3),
                    format_value(lab.plain_now.saturated_fraction, 3), format_value(lab.normed_now.mean_derivative, 3),
                    format_value(lab.normed_now.saturated_fraction, 3)}));
  return view;
}

LabView build_geometry(const LabInputs& inputs) {
  const GeometryLab* lab = inputs.snapshot.lab<GeometryLab>();
  if (lab == nullptr) {
    LabView view;
    view.explanation = tr("lab.geometry.explanation");
    return view;
  }
  return build_geometry_view(*lab);
}

ControlsReport controls_geometry(Params& edit) {
  ControlsReport report =
      key_slider(edit, "qk_norm", {"lab.geometry.norm", "norm geometry", "‖q‖ = σ = %.3g", "lab.geometry.norm.help"});
  report += key_slider(edit, "angle", {"lab.geometry.angle", "angle geometry", "%.0f°", "lab.geometry.angle.help"});
  report += key_slider(edit, "epsilon",
                       {"lab.geometry.epsilon", "epsilon geometry", "ε = %.2g", "lab.geometry.epsilon.help"});
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* geometry_control_labels[] = {"lab.geometry.norm", "lab.geometry.angle", "lab.geometry.epsilon"};
constexpr MainKey geometry_main_keys[] = {
    {"angle", "lab.geometry.angle", "θ = %.0f°", "lab.geometry.angle.help"},
    {"qk_norm", "lab.geometry.norm", "‖q‖ = σ = %.3g", "lab.geometry.norm.help"},
};
extern const LabDefinition geometry_lab{View::geometry,
                                        "lab.geometry.title",
                                        "lab.geometry.summary",
                                        geometry_control_labels,
                                        build_geometry,
                                        controls_geometry,
                                        nullptr,
                                        nullptr,
                                        false,
                                        geometry_main_keys};

}  // namespace smlab::app
