// The heads lab: the average of h heads' maps, the selected row of every head and of the
// average, and the heads as small multiples. Plots from Snapshot::heads only.
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "i18n/i18n.hpp"
#include "panels/panels.hpp"
#include "panels/labs.hpp"
#include "smlab/labs/heads.hpp"

namespace smlab::app {
namespace {

using i18n::fixed;
using i18n::tr;

constexpr int max_shown_heads = 8;  // small multiples; more would be too small to read

// Okabe–Ito order (colour-blind safe on dark and light themes), one per shown head. Yellow and
// black are left out: each is invisible on one of the themes.
constexpr std::array<plot::Color, max_shown_heads> head_colors{
    plot::Color::from_hex(0x56B4E9), plot::Color::from_hex(0xE69F00), plot::Color::from_hex(0x009E73),
    plot::Color::from_hex(0xCC79A7), plot::Color::from_hex(0xD55E00), plot::Color::from_hex(0x0072B2),
    plot::Color::from_hex(0x999999), plot::Color::from_hex(0x88CCEE)};
constexpr plot::Color average_color = plot::Color::from_hex(0x999999);

int shown_heads(const HeadsLab& lab) { return std::min(lab.heads, max_shown_heads); }

// One colour range for the heads and the average, so the average's lower peaks read as lower
// (each map's largest weight comes from the core, once per Snapshot).
double shared_color_max(const HeadsLab& lab) {
  float top = lab.average_largest_weight;
  for (int m = 0; m < shown_heads(lab); ++m) top = std::max(top, lab.head_largest_weight[static_cast<std::size_t>(m)]);
  return color_top(top);
}

plot::Plot map_plot(const Matrix& weights, const std::string& name, std::string title, double color_max,
                    TexturePool* textures) {
  return heatmap_plot(std::move(title), weight_heatmap(weights, color_max), "heads/" + name, textures);
}

std::vector<double> key_indices(int count) {
  std::vector<double> keys(static_cast<std::size_t>(count));
  for (int j = 0; j < count; ++j) keys[static_cast<std::size_t>(j)] = j;
  return keys;
}

plot::Plot head_rows_plot(const HeadsLab& lab) {
  plot::Plot p;
  p.title = i18n::format("lab.heads.rows.title", {std::to_string(lab.row)});
  p.x.label = tr("plot.axis.key_j");
  p.x.integer_ticks = true;
  p.y.label = tr("plot.axis.weight");
  p.y.min = 0.0;
  p.y.max = 1.35;  // room above 1 for the peak labels
  p.y.tick_values = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  const std::vector<double> keys = key_indices(lab.seq_len);
  // Each head is named at its peak instead of in a legend, which would hide peaks near the top.
  // Labels that would collide (close keys, close heights) are stacked one text line higher.
  const double line_height = 0.08, min_key_gap = std::max(1.5, 0.07 * lab.seq_len);
  std::vector<std::pair<double, double>> placed;  // (key, y) of the labels so far
  for (int m = 0; m < shown_heads(lab); ++m) {
    const auto head = static_cast<std::size_t>(m);
    p.lines.push_back({.label = i18n::format("lab.heads.head", {std::to_string(m)}),
                       .x = keys,
                       .y = lab.head_rows[head],
                       .color = head_colors[head],
                       .width = 1.5f,
                       .markers = lab.seq_len <= 48});
  }
  for (int m = 0; m < shown_heads(lab); ++m) {
    const auto head = static_cast<std::size_t>(m);
    const double key = lab.head_row_argmax[head];
    // Heads peaking at the same key share one label over the highest peak ("h1, h4"): a label under
    // another head's peak sat on that head's line.
    bool named_before = false;
    for (int earlier = 0; earlier < m; ++earlier)
      named_before |= lab.head_row_argmax[static_cast<std::size_t>(earlier)] == key;
    if (named_before) continue;
    std::string name = "h" + std::to_string(m);
    double peak = lab.head_rows[head][static_cast<std::size_t>(key)];
    bool shared = false;
    for (int later = m + 1; later < shown_heads(lab); ++later) {
      const auto other = static_cast<std::size_t>(later);
      if (lab.head_row_argmax[other] != key) continue;
      name += ", h" + std::to_string(later);
      peak = std::max(peak, lab.head_rows[other][static_cast<std::size_t>(key)]);
      shared = true;
    }
    double y = peak + 0.07;
    for (bool moved = true; moved;) {
      moved = false;
      for (const auto& [other_key, other_y] : placed)
        // Only ever move up, past `other`: with rounding, |other_y − (other_y + h)| can
        // come out just below h, and a test on the distance alone then never ends.
        if (std::abs(other_key - key) < min_key_gap && std::abs(other_y - y) < line_height &&
            other_y + line_height > y) {
          y = other_y + line_height;
          moved = true;
        }
    }
    placed.emplace_back(key, y);
    p.annotations.push_back(
        {key, y, name, shared ? std::nullopt : std::optional<plot::Color>(head_colors[head]), plot::TextAlign::Center});
  }
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot average_row_plot(const HeadsLab& lab) {
  plot::Plot p;
  // Both counts: the average's peaks and the keys the diamonds mark differ where two heads pick
  // neighbouring keys (7 and 8 make one peak), and a title of 4 peaks over 5 diamonds read as wrong.
  p.title = i18n::format(
      lab.average_row_peaks == 1 ? "lab.heads.average_row.title_one" : "lab.heads.average_row.title",
      {std::to_string(lab.row), std::to_string(lab.average_row_peaks), std::to_string(lab.distinct_head_argmaxes)});
  p.x.label = tr("plot.axis.key_j");
  p.x.integer_ticks = true;
  p.y.label = tr("plot.axis.weight");
  // Fitted to the row: the average of h heads rarely exceeds ~2/h, so a fixed [0, 1] would flatten
  // its peaks. The legend's two rows take up to half of this short plot's height, so the bars
  // get the lower ~45% (headroom 2.2× the tallest): the legend never hides the tallest bars.
  double tallest = 0.0;
  for (double w : lab.average_row) tallest = std::max(tallest, w);
  p.y.min = 0.0;
  p.y.max = tallest > 0.0 ? 2.2 * tallest : 1.0;
  p.bars.push_back(
      {.label = tr("lab.heads.average"), .x = key_indices(lab.seq_len), .y = lab.average_row, .color = average_color});
  // Where each head looks: its argmax key, at the height the average gives that key.
  plot::ScatterSeries targets{.label = tr("lab.heads.head_peak"), .radius = 4.5f, .shape = plot::MarkerShape::Diamond};
  for (int m = 0; m < lab.heads; ++m) {
    const int key = lab.head_row_argmax[static_cast<std::size_t>(m)];
    targets.x.push_back(key);
    targets.y.push_back(lab.average_row[static_cast<std::size_t>(key)]);
  }
  targets.color = head_colors[0];
  p.scatters.push_back(std::move(targets));
  p.legend = plot::LegendPos::TopRight;
  return p;
}

}  // namespace

LabView build_heads(const LabInputs& inputs) {
  LabView view;
  view.explanation = tr("lab.heads.explanation");
  view.columns = 4;
  if (inputs.snapshot.lab<HeadsLab>() == nullptr) return view;
  const HeadsLab& lab = *inputs.snapshot.lab<HeadsLab>();
  const Params& params = inputs.snapshot.params;
  const double color_max = shared_color_max(lab);

  view.plots.push_back(
      {"average", map_plot(lab.average, "average",
                           i18n::format(lab.heads == 1 ? "lab.heads.average.title_one" : "lab.heads.average.title",
                                        {std::to_string(lab.heads), fixed(lab.average_entropy_nats, 2)}),
                           color_max, inputs.textures)});
  view.plots.push_back({"row-heads", head_rows_plot(lab), 2});
  view.plots.push_back({"row-average", average_row_plot(lab)});
  for (int m = 0; m < shown_heads(lab); ++m) {
    const std::string name = "head-" + std::to_string(m);
    view.plots.push_back(
        {name, map_plot(lab.head_weights[static_cast<std::size_t>(m)], name,
                        i18n::format("lab.heads.head.title",
                                     {std::to_string(m), fixed(lab.head_entropy_nats[static_cast<std::size_t>(m)], 2)}),
                        color_max, inputs.textures)});
  }

  std::string entropies;
  for (int m = 0; m < lab.heads; ++m)
    entropies += (m == 0 ? "" : ", ") + fixed(lab.head_entropy_nats[static_cast<std::size_t>(m)], 2);
  view.notes.push_back(i18n::format(lab.heads == 1 ? "lab.heads.note.entropies_one" : "lab.heads.note.entropies",
                                    {std::to_string(lab.heads), std::to_string(params.key_dim), entropies,
                                     fixed(lab.average_entropy_nats, 2), fixed(lab.max_entropy_nats, 2)}));
  std::string argmaxes;
  for (int m = 0; m < lab.heads; ++m)
    argmaxes += (m == 0 ? "" : ", ") + std::to_string(lab.head_row_argmax[static_cast<std::size_t>(m)]);
  view.notes.push_back(i18n::format(lab.average_row_peaks == 1 ? "lab.heads.note.row_one" : "lab.heads.note.row",
                                    {std::to_string(lab.row), argmaxes, std::to_string(lab.distinct_head_argmaxes),
                                     std::to_string(lab.average_row_peaks), fixed(lab.average_row_entropy_nats, 2)}));
  std::string limits;
  if (lab.heads > max_shown_heads)
    limits +=
        i18n::format("lab.heads.note.shown_heads", {std::to_string(max_shown_heads - 1), std::to_string(lab.heads)});
  if (lab.capped)
    limits += i18n::format("lab.heads.note.capped", {std::to_string(lab.seq_len), std::to_string(params.seq_len)});
  if (lab.row_clamped)
    limits += i18n::format("lab.heads.note.row_clamped", {std::to_string(params.row), std::to_string(lab.row)});
  if (!limits.empty()) view.notes.push_back(limits);
  return view;
}

ControlsReport controls_heads(Params& edit) {
  ControlsReport report =
      key_slider(edit, "heads", {"lab.heads.heads", "heads heads", "h = %d", "lab.heads.heads.help"});
  if (control_button(i18n::label("lab.heads.sharp", "sharp heads").c_str())) {
    edit.temperature = 0.1;
    edit.score_scale = 1.0;
    report.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.heads.sharp.help"));
  same_line_if_fits("T = 1##heads");
  if (control_button("T = 1##heads")) {
    edit.temperature = 1.0;
    edit.score_scale = 1.0;
    report.changed = true;
  }
  report.changed |= control_checkbox("common.causal_mask", "causal heads", &edit.causal);
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* heads_control_labels[] = {"lab.heads.heads"};
constexpr MainKey heads_main_keys[] = {
    {"heads", "lab.heads.heads", "h = %d", "lab.heads.heads.help"},
    {"causal", "common.causal_mask", nullptr, "common.causal_mask.help"},
};
extern const LabDefinition heads_lab{View::heads,
                                     "lab.heads.title",
                                     "lab.heads.summary",
                                     heads_control_labels,
                                     build_heads,
                                     controls_heads,
                                     nullptr,
                                     nullptr,
                                     false,
                                     heads_main_keys};

}  // namespace smlab::app
