// The temperature lab: the row's softmax at eight temperatures, entropy versus T with its limits,
// and the continuity demo (nudge a score: softmax moves smoothly, argmax flips). Plots from
// Snapshot::temperature only.
#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/temperature.hpp"

namespace smlab::app {
namespace {

using i18n::tr;

// Okabe–Ito colours (colour-blind safe on the dark and the light themes).
constexpr plot::Color panel_color = plot::Color::from_hex(0x56B4E9);    // sky blue
constexpr plot::Color current_color = plot::Color::from_hex(0xE69F00);  // orange: the current T
constexpr plot::Color top_color = plot::Color::from_hex(0x56B4E9);      // the top score's curves
constexpr plot::Color second_color = plot::Color::from_hex(0xD55E00);   // the runner-up's curves

// A small multiple's smallest cell: a title, the tick labels and a data area of about four lines each way.
constexpr float multiple_min_width_em = 8.0f, multiple_min_height_em = 8.0f;

plot::Plot multiple_plot(const TemperatureLab& lab, const TemperatureMultiple& multiple) {
  plot::Plot p;
  p.title = i18n::format(multiple.is_current ? "lab.temperature.panel_now" : "lab.temperature.panel",
                         {format_value(multiple.temperature, 3), format_value(multiple.entropy_nats, 2)});
  // Small multiples share their axes (keys across, weight 0 … 1 up), so none repeats the axis labels:
  // the room goes to the bars (a multiple at its smallest keeps a readable data area).
  p.x.integer_ticks = true;
  p.x.min = static_cast<double>(lab.shown.begin) - 0.6;
  p.x.max = static_cast<double>(lab.shown.end) - 0.4;
  p.y.min = 0.0;
  p.y.max = 1.0;  // the same for every panel, so heights compare across T
  plot::BarSeries bars;
  bars.label = "T = " + format_value(multiple.temperature, 3);
  for (std::size_t i = lab.shown.begin; i < lab.shown.end; ++i) {
    bars.x.push_back(static_cast<double>(i));
    bars.y.push_back(multiple.probabilities[i]);
  }
  bars.color = multiple.is_current ? current_color : panel_color;
  // With a few keys the current temperature's panel writes its weights (to the 3 decimals the
  // lessons quote) over its bars; every panel keeps the same room above 1, so heights still compare.
  if (lab.shown.end - lab.shown.begin <= 4) {
    bars.value_digits = multiple.is_current ? 3 : 0;
    bars.value_fixed = true;
    p.y.max = 1.3;
    p.y.tick_values = {0.0, 0.5, 1.0};
  }
  p.bars.push_back(std::move(bars));
  if (lab.has_second && lab.nudge != 0.0)
    p.vlines.push_back({static_cast<double>(lab.second_index), "", second_color.with_alpha(0.6f), true});
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot entropy_plot(const TemperatureLab& lab) {
  plot::Plot p;
  p.title = tr("lab.temperature.entropy.title");
  p.x.label = tr("plot.axis.temperature");
  p.x.scale = plot::Scale::Log10;
  p.x.min = ParamLimits::temperature_min;
  p.x.max = ParamLimits::temperature_max;
  p.y.label = tr("plot.axis.entropy");
  p.y.min = 0.0;
  p.y.max = std::max(lab.uniform_limit_entropy_nats, 0.1) * 1.15;
  p.lines.push_back({.label = "H(T)", .x = lab.curve_temperatures, .y = lab.curve_entropy_nats});
  plot::ScatterSeries panels;
  panels.label = tr("lab.temperature.panels");
  panels.color = panel_color;
  for (const TemperatureMultiple& multiple : lab.multiples) {
    panels.x.push_back(multiple.temperature);
    panels.y.push_back(multiple.entropy_nats);
  }
  p.scatters.push_back(std::move(panels));
  p.scatters.push_back({.label = tr("plot.legend.now"),
                        .x = {lab.temperature},
                        .y = {lab.current_entropy_nats},
                        .color = current_color,
                        .radius = 5.5f,
                        .shape = plot::MarkerShape::Diamond});
  const std::string argmax_label =
      lab.tied_at_max > 1 ? i18n::format("lab.temperature.argmax_limit_ties", {std::to_string(lab.tied_at_max)})
                          : std::string(tr("lab.temperature.argmax_limit"));
  p.hlines.push_back({lab.argmax_limit_entropy_nats, argmax_label, std::nullopt, true});
  p.hlines.push_back({lab.uniform_limit_entropy_nats, tr("lab.temperature.uniform_limit"), std::nullopt, true});
  p.vlines.push_back({lab.temperature, "T = " + format_value(lab.temperature, 3), current_color, true});
  // H(T) rises from the argmax limit on the left to uniform on the right: the top left stays empty.
  p.legend = plot::LegendPos::TopLeft;
  return p;
}

plot::Plot nudge_plot(const TemperatureLab& lab) {
  plot::Plot p;
  p.x.label = tr("lab.temperature.nudge.x");
  p.x.min = ParamLimits::nudge_min;
  p.x.max = ParamLimits::nudge_max;
  p.y.label = tr("plot.axis.weight");
  p.y.min = -0.03;
  p.y.max = 1.12;
  if (!lab.has_second) {
    p.title = tr("lab.temperature.nudge.needs_two");
    p.annotations.push_back({0.0, 0.5, tr("lab.temperature.nudge.only_one"), std::nullopt, plot::TextAlign::Center});
    return p;
  }
  const std::string top = std::to_string(lab.top_index), second = std::to_string(lab.second_index);
  p.title = i18n::format("lab.temperature.nudge.title", {second, top, format_value(lab.temperature, 3)});
  p.lines.push_back({.label = "s" + top, .x = lab.nudge_grid, .y = lab.softmax_top, .color = top_color});
  p.lines.push_back({.label = "s" + second, .x = lab.nudge_grid, .y = lab.softmax_second, .color = second_color});
  p.lines.push_back(
      {.label = "argmax " + top, .x = lab.nudge_grid, .y = lab.hardmax_top, .color = top_color, .dashed = true});
  p.lines.push_back({.label = "argmax " + second,
                     .x = lab.nudge_grid,
                     .y = lab.hardmax_second,
                     .color = second_color,
                     .dashed = true});
  p.scatters.push_back({.label = tr("plot.legend.now"),
                        .x = {lab.nudge, lab.nudge},
                        .y = {lab.current_softmax_top, lab.current_softmax_second},
                        .color = current_color,
                        .radius = 5.0f,
                        .shape = plot::MarkerShape::Diamond});
  p.vlines.push_back({lab.nudge, "", current_color, true});

  // Direct labels instead of a legend (which would cover a curve wherever it sat): the argmax
  // labels just under their plateau at y = 1, the softmax labels beside their curves' far ends,
  // above the curve unless it is near the top.
  const double left = ParamLimits::nudge_min + 0.08, right = ParamLimits::nudge_max - 0.08;
  p.annotations.push_back(
      {left, 0.9, i18n::format("lab.temperature.argmax_to", {top}), top_color, plot::TextAlign::Left});
  if (lab.gap < ParamLimits::nudge_max)
    p.annotations.push_back(
        {right, 0.9, i18n::format("lab.temperature.argmax_to", {second}), second_color, plot::TextAlign::Right});
  // Near the top (low T, where softmax hugs the step) the label goes well below the argmax label.
  auto beside = [](double value) { return value > 0.6 ? std::min(value, 0.9) - 0.2 : value + 0.09; };
  p.annotations.push_back({left, beside(lab.softmax_top.front()), "softmax s" + top, top_color, plot::TextAlign::Left});
  p.annotations.push_back(
      {right, beside(lab.softmax_second.back()), "softmax s" + second, second_color, plot::TextAlign::Right});
  // The tie as a dotted line of its own, its label beside it where the layout finds room: as text
  // next to the crossing it lay on one curve or the other at classroom font sizes.
  if (lab.gap <= ParamLimits::nudge_max) {
    p.vlines.push_back({lab.gap, tr("lab.temperature.tie"), std::nullopt, true});
  } else {
    p.annotations.push_back({0.0, 0.5, i18n::format("lab.temperature.tie_beyond", {format_value(lab.gap, 3)}),
                             std::nullopt, plot::TextAlign::Center});
  }
  // How abrupt the swap is: the top's curve marked where it is at 90% and at 10% of its swing
  // (the lesson compares the marks' distance at T = 1 and T = 0.05).
  if (std::isfinite(lab.swap_from) && std::isfinite(lab.swap_to)) {
    const double high = lab.softmax_top.front(), low = lab.softmax_top.back();
    p.scatters.push_back({.label = "90% / 10%",
                          .x = {lab.swap_from, lab.swap_to},
                          .y = {low + 0.9 * (high - low), low + 0.1 * (high - low)},
                          .color = top_color,
                          .radius = 4.0f});
  }
  p.legend = plot::LegendPos::None;
  return p;
}

}  // namespace

LabView build_temperature(const LabInputs& inputs) {
  LabView view;
  view.explanation = tr("lab.temperature.explanation");
  view.columns = 4;
  if (inputs.snapshot.lab<TemperatureLab>() == nullptr) return view;
  const TemperatureLab& lab = *inputs.snapshot.lab<TemperatureLab>();

  for (std::size_t k = 0; k < lab.multiples.size(); ++k)
    view.plots.push_back({"panel-" + std::to_string(k + 1), multiple_plot(lab, lab.multiples[k]), 1,
                          multiple_min_height_em, multiple_min_width_em});
  view.plots.push_back({"entropy", entropy_plot(lab), 2, 13.0f});  // room for its legend beside the curves
  view.plots.push_back({"nudge", nudge_plot(lab), 2});

  const std::size_t n = lab.scores.size();
  view.notes.push_back(i18n::format("lab.temperature.note.entropy",
                                    {format_value(lab.temperature, 3), format_value(lab.current_entropy_nats, 4),
                                     format_value(lab.argmax_limit_entropy_nats, 3), std::to_string(n),
                                     format_value(lab.uniform_limit_entropy_nats, 4)}));
  if (lab.has_second) {
    const std::string top = std::to_string(lab.top_index), second = std::to_string(lab.second_index);
    std::string note =
        i18n::format("lab.temperature.note.nudge",
                     {format_value(lab.nudge, 3), second, top, format_value(lab.gap, 3),
                      format_value(lab.current_softmax_top, 3), format_value(lab.current_softmax_second, 3),
                      format_value(lab.current_hardmax_top, 2), format_value(lab.current_hardmax_second, 2)});
    if (lab.gap > ParamLimits::nudge_max) note += tr("lab.temperature.note.tie_beyond");
    view.notes.push_back(note);
  }
  if (lab.shown.size() < n)
    view.notes.push_back(
        i18n::format("lab.temperature.note.window",
                     {std::to_string(lab.shown.begin), std::to_string(lab.shown.end - 1), std::to_string(n)}));
  return view;
}

ControlsReport controls_temperature(Params& edit) {
  ControlsReport report =
      key_slider(edit, "nudge", {"lab.temperature.nudge", "nudge", "δ = %+.2f", "lab.temperature.nudge.help"});
  if (control_button(i18n::label("lab.temperature.nudge_zero", "nudge 0").c_str())) {
    edit.nudge = 0.0;
    report.changed = true;
  }
  side_note(tr("lab.temperature.click_hint"));
  return report;
}

void interact_temperature(std::string_view plot_name, const plot::Interaction& interaction, Params& edit) {
  if (!interaction.hovered || !std::isfinite(interaction.x)) return;
  // The nudge plot scrubs: while the button is down δ follows the mouse (fixed axes, so no feedback).
  if (plot_name == "nudge" && ImGui::IsMouseDown(0))
    edit.nudge = std::clamp(std::round(interaction.x * 100.0) / 100.0, ParamLimits::nudge_min, ParamLimits::nudge_max);
  if (plot_name == "entropy" && interaction.clicked)
    edit.temperature = std::clamp(interaction.x, ParamLimits::temperature_min, ParamLimits::temperature_max);
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* temperature_control_labels[] = {"lab.temperature.nudge"};
constexpr MainKey temperature_main_keys[] = {
    {"temperature", "controls.temperature", "T = %.3g", "controls.temperature.help"},
    {"nudge", "lab.temperature.nudge", "δ = %+.2f", "lab.temperature.nudge.help"},
};
extern const LabDefinition temperature_lab{View::temperature,
                                           "lab.temperature.title",
                                           "lab.temperature.summary",
                                           temperature_control_labels,
                                           build_temperature,
                                           controls_temperature,
                                           interact_temperature,
                                           nullptr,
                                           false,
                                           temperature_main_keys};

}  // namespace smlab::app
