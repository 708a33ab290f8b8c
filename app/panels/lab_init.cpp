// The init & norms lab: the variance of activations layer by layer through a seeded stack, measured
// against the mean-field prediction, for the chosen initialisation beside the others.
// Plots from smlab::InitLab only.
#include <algorithm>
#include <cmath>
#include <string>

#include "i18n/i18n.hpp"
#include "panels/lab_topics.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

constexpr plot::Color init_colors[] = {plot::Color::from_hex(0xD55E00), plot::Color::from_hex(0x0072B2),
                                       plot::Color::from_hex(0x009E73), plot::Color::from_hex(0xCC79A7)};
constexpr plot::Color measured_color = plot::Color::from_hex(0xE69F00);  // orange

std::vector<double> layers(std::size_t n) {
  std::vector<double> out(n);
  for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i);
  return out;
}

// Variances below 1e-300 or above 1e300 would leave the log axis: clamp the drawn values.
std::vector<double> drawable(std::vector<double> v) {
  for (double& x : v) x = std::clamp(x, 1e-300, 1e300);
  return v;
}

plot::Plot variance_plot(const InitLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.init.variance.title",
                         {tr(std::string("lab.init.activation.") + std::string(activation_name(lab.settings.activation))),
                          std::to_string(lab.settings.width), lab.settings.layer_norm ? tr("lab.init.with_ln") : ""});
  p.x.label = tr("lab.init.layer");
  p.x.integer_ticks = true;
  p.y.label = "Var(h_l)";
  p.y.scale = plot::Scale::Log10;
  const auto x = layers(lab.measured_variance.size());
  for (std::size_t k = 0; k < lab.predicted_by_init.size(); ++k) {
    const auto init = static_cast<Initialization>(k);
    const bool chosen = init == lab.settings.init;
    p.lines.push_back({.label = tr(std::string("lab.init.init.") + std::string(initialization_name(init))),
                       .x = x,
                       .y = drawable(lab.predicted_by_init[k]),
                       .color = init_colors[k],
                       .width = chosen ? 3.0f : 1.5f,
                       .dashed = !chosen});
  }
  p.scatters.push_back({.label = tr("lab.init.measured"), .x = x, .y = drawable(lab.measured_variance),
                        .color = measured_color, .radius = 5.0f, .shape = plot::MarkerShape::Diamond});
  p.hlines.push_back({1.0, "1", std::nullopt, true});
  p.legend = plot::LegendPos::BottomLeft;
  p.legend_max_rows = 3;
  return p;
}

plot::Plot ratio_plot(const InitLab& lab) {
  plot::Plot p;
  p.title = tr("lab.init.ratio.title");
  p.x.label = tr("lab.init.layer");
  p.x.integer_ticks = true;
  p.y.label = tr("lab.init.ratio.y");
  std::vector<double> ratio(lab.measured_variance.size());
  double spread = 0.05;
  for (std::size_t l = 0; l < ratio.size(); ++l) {
    ratio[l] = lab.measured_variance[l] / lab.predicted_variance[l];
    spread = std::max(spread, std::abs(ratio[l] - 1.0));
  }
  p.y.min = 1.0 - 1.3 * spread;
  p.y.max = 1.0 + 1.3 * spread;
  p.lines.push_back({.label = "", .x = layers(ratio.size()), .y = ratio, .color = measured_color, .markers = true});
  p.hlines.push_back({1.0, tr("lab.init.ratio.exact"), std::nullopt, true});
  p.legend = plot::LegendPos::None;
  return p;
}

}  // namespace

LabView build_init_view(const InitLab& lab) {
  LabView view;
  view.explanation = tr("lab.init.explanation");
  view.columns = 2;
  view.plots.push_back({"variance-by-layer", variance_plot(lab), 1});
  view.plots.push_back({"measured-over-predicted", ratio_plot(lab), 1});
  view.notes.push_back(i18n::format(
      "lab.init.note.now",
      {tr(std::string("lab.init.init.") + std::string(initialization_name(lab.settings.init))), format_value(lab.weight_variance, 3),
       std::to_string(lab.settings.width), format_value(lab.settings.width * lab.weight_variance, 3),
       std::to_string(lab.settings.depth), format_value(lab.measured_variance.back(), 3),
       format_value(lab.predicted_variance.back(), 3)}));
  view.notes.push_back(tr("lab.init.note.dk"));
  return view;
}

}  // namespace smlab::app
