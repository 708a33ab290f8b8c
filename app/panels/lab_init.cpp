// The init & norms lab: the variance of activations layer by layer through a seeded stack, measured
// against the mean-field prediction, for the chosen initialisation beside the others.
// Plots from smlab::InitLab only.
#include <algorithm>
#include <cmath>
#include <string>

#include <imgui.h>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "plot/ticks.hpp"
#include "panels/panels.hpp"
#include "smlab/labs/topics.hpp"

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
  // The weight variance the chosen initialisation draws from, in the title: the number a homework
  // exercise asks for (Xavier at width 256: 1/256 = 0.003906) is on the plot that checks it.
  p.title =
      i18n::format("lab.init.variance.title",
                   {tr(std::string("lab.init.activation.") + std::string(activation_name(lab.settings.activation))),
                    std::to_string(lab.settings.width), lab.settings.layer_norm ? tr("lab.init.with_ln") : "",
                    format_value(lab.weight_variance, 4)});
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
  p.scatters.push_back({.label = tr("lab.init.measured"),
                        .x = x,
                        .y = drawable(lab.measured_variance),
                        .color = measured_color,
                        .radius = 5.0f,
                        .shape = plot::MarkerShape::Diamond});
  // The last layer's measured variance written beside its diamond: the number the lesson quotes
  // ("measured 0.97", "1.2e24") cannot be read to two digits off a log axis of 45 decades.
  if (!lab.measured_variance.empty() && std::isfinite(lab.measured_variance.back()))
    p.annotations.push_back({.x = x.back(),
                             .y = std::clamp(lab.measured_variance.back(), 1e-300, 1e300),  // as drawable() draws it
                             .text = plot::format_scientific(lab.measured_variance.back(), 3),
                             .align = plot::TextAlign::Right});
  // Var = 1, the level a good initialisation keeps: the axis's 10⁰ names it (a "1" label beside the
  // line was placed far from it, next to 10¹⁰ on a tall axis).
  p.hlines.push_back({1.0, "", std::nullopt, true});
  // Whole decades with room beyond the data: the automatic range ends at the decade the data reach,
  // and measured variances of 1 (LayerNorm) drew their diamonds half outside the frame.
  double low = 1e300, high = 1e-300;
  for (const plot::LineSeries& line : p.lines)
    for (double y : line.y) low = std::min(low, y), high = std::max(high, y);
  for (double y : p.scatters.front().y) low = std::min(low, y), high = std::max(high, y);
  if (low <= high) {
    p.y.min = std::pow(10.0, std::floor(std::log10(low / 1.5)));
    p.y.max = std::pow(10.0, std::ceil(std::log10(high * 1.5)));
  }
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
  view.plots.push_back({"variance-by-layer", variance_plot(lab), 1, 16.0f});  // a five-entry legend below the lines
  view.plots.push_back({"measured-over-predicted", ratio_plot(lab), 1});
  view.notes.push_back(
      i18n::format("lab.init.note.now",
                   {tr(std::string("lab.init.init.") + std::string(initialization_name(lab.settings.init))),
                    format_value(lab.weight_variance, 3), std::to_string(lab.settings.width),
                    format_value(lab.settings.width * lab.weight_variance, 3), std::to_string(lab.settings.depth),
                    format_value(lab.measured_variance.back(), 3), format_value(lab.predicted_variance.back(), 3)}));
  view.notes.push_back(tr("lab.init.note.dk"));
  return view;
}

LabView build_init(const LabInputs& inputs) {
  const InitLab* lab = inputs.snapshot.lab<InitLab>();
  if (lab == nullptr) {
    LabView view;
    view.explanation = tr("lab.init.explanation");
    return view;
  }
  return build_init_view(*lab);
}

ControlsReport controls_init(Params& edit) {
  // Two combo boxes: four initialisations and three activations, each named in the string tables.
  ControlsReport report;
  auto choose = [&report](const char* label_key, const char* id, int& value, int count, auto name_of,
                          const char* prefix) {
    const std::string current = std::string(prefix) + std::string(name_of(value));
    if (ImGui::BeginCombo(control_label(label_key, id).c_str(), tr(current))) {
      for (int k = 0; k < count; ++k) {
        const std::string key = std::string(prefix) + std::string(name_of(k));
        if (ImGui::Selectable(tr(key), value == k)) {
          report.changed = report.changed || value != k;
          value = k;
        }
      }
      ImGui::EndCombo();
    }
  };
  choose(
      "lab.init.init", "init init", edit.init, ParamLimits::init_max + 1,
      [](int k) { return initialization_name(static_cast<Initialization>(k)); }, "lab.init.init.");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.init.init.help"));
  choose(
      "lab.init.activation", "activation init", edit.activation, ParamLimits::activation_max + 1,
      [](int k) { return activation_name(static_cast<Activation>(k)); }, "lab.init.activation.");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.init.activation.help"));
  report += key_slider(edit, "depth", {"lab.init.depth", "depth init", "%d", "lab.init.depth.help"});
  report.changed |= ImGui::Checkbox(i18n::label("lab.init.layer_norm", "LayerNorm init").c_str(), &edit.layer_norm);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.init.layer_norm.help"));
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* init_control_labels[] = {"lab.init.init", "lab.init.activation", "lab.init.depth",
                                               "lab.init.layer_norm"};
constexpr MainKey init_main_keys[] = {
    {"depth", "lab.init.depth", "depth = %d", "lab.init.depth.help"},
    {"layer_norm", "lab.init.layer_norm", nullptr, "lab.init.layer_norm.help"},
};
extern const LabDefinition init_lab{
    View::init, "lab.init.title", "lab.init.summary", init_control_labels, build_init, controls_init, nullptr, nullptr,
    false,      init_main_keys};

}  // namespace smlab::app
