// The stability lab: naive, stable and online softmax of the row in fp64 … fp8, where exp overflows,
// underflows and 0/0 or inf/inf become NaN, and a naive vs stable fp16 attention map. Plots from
// Snapshot::stability only.
//
// [SECTION] Index
//   [SECTION] Layout constants and labels
//   [SECTION] Plots and notes
//   [SECTION] The lab: build, controls, registry row
#include <imgui.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "i18n/i18n.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "smlab/labs/stability.hpp"

namespace smlab::app {
namespace {

using i18n::fixed;
using i18n::tr;

// [SECTION] Layout constants and labels

// More entries than this turn three bars each into slivers (and cost draw calls in software GL):
// the weights plot shows the first ones and a note says so; the counts cover every entry.
constexpr std::size_t max_shown_entries = 64;

// Where the three variants' bars sit inside one group (entry or format), and how wide they are.
constexpr std::array<double, 3> variant_offsets{-0.28, 0.0, 0.28};
constexpr double variant_bar_width = 0.26;
constexpr std::array<const char*, 3> variant_keys{"lab.stability.naive", "lab.stability.stable",
                                                  "lab.stability.online"};
const char* variant_label(std::size_t variant) { return tr(variant_keys[variant]); }

// Markers for weights that have no bar. NaN uses the heatmaps' invalid colour, so a NaN looks
// the same everywhere in the lab; inf is vermillion and an underflowed 0 grey (Okabe–Ito).
constexpr plot::Color nan_color = plot::invalid_color();
constexpr plot::Color inf_color = plot::Color::from_hex(0xD55E00);
constexpr plot::Color zero_color = plot::Color::from_hex(0x999999);
constexpr plot::Color logit_color = plot::Color::from_hex(0xE69F00);

// The weights plot keeps the right part of its x range empty for the legend, so it never hides a
// bar or a NaN marker: the data take this fraction of the width (a legend is ~90 px of ~300).
constexpr double data_width_fraction = 0.68;

// x range [−0.6, …] for `groups` groups centred on 0 … groups − 1, plus the legend's room.
double x_max_with_legend_room(std::size_t groups) { return -0.6 + static_cast<double>(groups) / data_width_fraction; }

// Annotating each NaN/inf marker with its word reads well for a few and clutters beyond; words
// closer than a sixth of the shown entries (~35 px at 1280×720) would overlap, so those are left
// to the legend.
constexpr std::size_t max_marker_annotations = 9;

std::string short_name(Format format) {
  const std::string name(format_name(format));
  return name.rfind("fp8-", 0) == 0 ? name.substr(4) : name;  // "fp8-e4m3" → "e4m3"
}

// [SECTION] Plots and notes

plot::Plot weights_plot(const StabilityLab& lab) {
  const StabilityFormat& format = lab.selected();
  const std::size_t shown = std::min(lab.scores.size(), max_shown_entries);
  plot::Plot p;
  p.title = shown < lab.scores.size()
                ? i18n::format("lab.stability.weights.title_first", {short_name(format.format), std::to_string(shown)})
                : i18n::format("lab.stability.weights.title", {short_name(format.format)});
  p.x.label = lab.custom_scores ? tr("plot.axis.score_index") : tr("plot.axis.key_j");
  p.x.integer_ticks = true;
  p.x.min = -0.6;
  p.x.max = x_max_with_legend_room(shown);
  // Ticks only under the bars, not in the legend's room: steps of 1, 2, 5, 10, … with ≤ 6 ticks.
  int step = 1;
  for (int k = 0; static_cast<double>(shown - 1) / step > 5.0; ++k) step = (k % 3 == 1) ? step * 5 / 2 : step * 2;
  for (std::size_t i = 0; i < shown; i += static_cast<std::size_t>(step))
    p.x.tick_values.push_back(static_cast<double>(i));
  p.y.label = tr("lab.stability.weight_w");
  // Room above 1 for the markers of weights that have no bar (NaN, inf).
  constexpr double marker_y = 1.08, label_y = 1.16;
  p.y.min = 0.0;
  p.y.max = 1.22;
  p.y.tick_values = {0.0, 0.25, 0.5, 0.75, 1.0};

  plot::ScatterSeries nan_markers{
      .label = "NaN", .color = nan_color, .radius = 5.0f, .shape = plot::MarkerShape::Diamond};
  plot::ScatterSeries inf_markers{
      .label = "inf", .color = inf_color, .radius = 4.5f, .shape = plot::MarkerShape::Square};
  plot::ScatterSeries zero_markers{.label = "→ 0", .color = zero_color, .radius = 3.0f};
  const double annotation_gap = std::max(1.0, static_cast<double>(shown) / 6.0);
  std::vector<double> annotated;  // x of each word placed so far
  for (SoftmaxVariant variant : all_softmax_variants) {
    const auto v = static_cast<std::size_t>(variant);
    const StabilityRun& run = format.run(variant);
    plot::BarSeries bars{.label = variant_label(v), .width = variant_bar_width};
    for (std::size_t i = 0; i < shown; ++i) {
      bars.x.push_back(static_cast<double>(i) + variant_offsets[v]);
      bars.y.push_back(run.weights[i]);  // NaN and inf draw no bar; the markers stand in
    }
    p.bars.push_back(std::move(bars));
    const auto mark = [&](const std::vector<int>& entries, plot::ScatterSeries& markers, double y, const char* word) {
      for (int entry : entries) {
        if (static_cast<std::size_t>(entry) >= shown) break;  // entries are in increasing order
        const double x = entry + variant_offsets[v];
        markers.x.push_back(x);
        markers.y.push_back(y);
        const bool room = std::none_of(annotated.begin(), annotated.end(),
                                       [&](double other) { return std::abs(x - other) < annotation_gap; });
        if (word != nullptr && annotated.size() < max_marker_annotations && room) {
          p.annotations.push_back({x, label_y, word, markers.color, plot::TextAlign::Center});
          annotated.push_back(x);
        }
      }
    };
    mark(run.nan_entries, nan_markers, marker_y, "NaN");
    mark(run.inf_entries, inf_markers, marker_y, "inf");
    mark(run.underflow_entries, zero_markers, 0.0, nullptr);
  }
  // A few entries: where the variants that give a number (two or three of them) agree to 3
  // decimals, that weight is written once over the group (the lesson's "all three agree: 0.090,
  // 0.245, 0.665", and stable and online beside naive's NaN markers); the three bars of a group
  // leave no room for a value each. Where they disagree, the bars' heights and the markers show it.
  if (shown <= 8)
    for (std::size_t i = 0; i < shown; ++i) {
      std::string agreed;
      double top = 0.0;
      bool agree = true;
      int finite = 0;
      for (SoftmaxVariant variant : all_softmax_variants) {
        const double w = format.run(variant).weights[i];
        if (!std::isfinite(w)) continue;
        const std::string text = fixed(w, 3);
        agree = agree && (agreed.empty() || text == agreed);
        agreed = text;
        top = std::max(top, w);
        ++finite;
      }
      if (agree && finite >= 2)
        p.annotations.push_back({static_cast<double>(i), top, agreed, std::nullopt, plot::TextAlign::Center});
    }
  // Empty marker series would still take a legend row.
  for (plot::ScatterSeries* markers : {&nan_markers, &inf_markers, &zero_markers})
    if (!markers->x.empty()) p.scatters.push_back(std::move(*markers));
  p.legend = plot::LegendPos::TopRight;
  return p;
}

// Names the format groups of the two overview plots on the x axis, one name under each group of
// three bars (Axis::tick_names): names inside the data area, staggered in two rows, sat on the bars
// of the next group at classroom font sizes. Where the six names do not fit side by side the axis
// thins them as it thins numbers.
void name_format_groups(plot::Plot& p) {
  p.x.tick_names.clear();
  for (Format format : all_formats) p.x.tick_names.push_back(short_name(format));
  p.x.integer_ticks = true;
  p.x.min = -0.6;
  p.x.max = static_cast<double>(all_formats.size()) - 0.4;
  // No legend: six groups of three bars leave it no free corner. The bars keep the weights
  // plot's colours and order, which the axis label spells out.
  p.x.label = tr("lab.stability.groups_axis");
  p.legend = plot::LegendPos::None;
}

plot::Plot problems_plot(const StabilityLab& lab) {
  const double n = static_cast<double>(std::max<std::size_t>(lab.scores.size(), 1));
  plot::Plot p;
  p.title = i18n::format("lab.stability.problems.title", {std::to_string(lab.scores.size())});
  p.y.label = tr("lab.stability.problems.y");
  p.y.min = 0.0;
  p.y.max = 1.1 * n;
  p.y.integer_ticks = true;
  p.y.tick_values = {0.0, std::round(n / 2.0), n};
  for (SoftmaxVariant variant : all_softmax_variants) {
    const auto v = static_cast<std::size_t>(variant);
    plot::BarSeries bars{.label = variant_label(v), .width = variant_bar_width};
    for (Format format : all_formats) {
      bars.x.push_back(static_cast<double>(format) + variant_offsets[v]);
      bars.y.push_back(lab.format(format).run(variant).problem_count());
    }
    p.bars.push_back(std::move(bars));
  }
  name_format_groups(p);
  p.hlines.push_back({n, "", std::nullopt, true});
  p.hlines.push_back({0.0, "", std::nullopt, false});
  return p;
}

plot::Plot sum_error_plot(const StabilityLab& lab) {
  // |Σ−1| spans 1e-16 (fp64) to ~0.1 (fp8) and 1 (a row of zeros): a log axis. Exact 0 has no
  // bar there; NaN and inf (any NaN or inf weight) get a marker above every finite value.
  constexpr double floor = 1e-18, special_y = 1e1;
  plot::Plot p;
  p.title = tr("lab.stability.sum_error.title");
  p.y.label = "|Σw − 1|";
  p.y.scale = plot::Scale::Log10;
  p.y.min = floor;
  p.y.max = 1e3;  // headroom above 1 for the NaN/inf markers
  p.y.tick_values = {1e-16, 1e-12, 1e-8, 1e-4, 1.0};
  plot::ScatterSeries special{.label = "NaN/inf",
                              .color = nan_color,
                              .radius = 5.0f,
                              .shape = plot::MarkerShape::Diamond};  // named for the CSV (no legend here)
  for (SoftmaxVariant variant : all_softmax_variants) {
    const auto v = static_cast<std::size_t>(variant);
    plot::BarSeries bars{.label = variant_label(v), .width = variant_bar_width};
    for (Format format : all_formats) {
      const double x = static_cast<double>(format) + variant_offsets[v];
      const double error = lab.format(format).run(variant).report.sum_error;
      if (std::isfinite(error)) {
        bars.x.push_back(x);
        bars.y.push_back(error);  // 0 is not on a log axis: no bar
      } else {
        special.x.push_back(x);
        special.y.push_back(special_y);
      }
    }
    p.bars.push_back(std::move(bars));
  }
  if (!special.x.empty()) p.scatters.push_back(std::move(special));
  name_format_groups(p);
  p.hlines.push_back({1.0, "", std::nullopt, true});
  return p;
}

plot::Plot exp_curve_plot(const StabilityLab& lab) {
  plot::Plot p;
  p.title = tr("lab.stability.exp_curve.title");
  p.x.label = tr("lab.stability.exp_curve.x");
  p.x.min = stability_exp_curve_min;
  p.x.max = stability_exp_curve_max;
  p.y.label = "exp(x)";
  p.y.scale = plot::Scale::Log10;
  p.y.min = 1e-20;
  p.y.max = 1e46;
  p.y.tick_values = {1e-15, 1.0, 1e15, 1e30, 1e45};
  p.lines.push_back({.label = "exp(x)", .x = lab.exp_x, .y = lab.exp_y});

  // Every format's line at its own overflow point: bf16's 88.721 is not fp32's 88.723, and e5m2's
  // 11.03 is not fp16's 11.09. Lines closer than a pixel or two cannot each carry a label (each
  // would cross the other line), so the nearest pair shares one that names both: "fp32/bf16 88.72"
  // where they agree to the digits written, "fp16 11.09/e5m2 11.03" where they do not.
  struct Mark {
    double x;
    std::string name, label;  // label empty for the second line of a pair
    std::string alone{};      // the first line's own label: what a pair's says where it finds no room
  };
  std::vector<Mark> marks;
  const double merge_distance = 0.01 * (stability_exp_curve_max - stability_exp_curve_min);
  std::string outside;
  for (Format format : all_formats) {
    const double x = lab.format(format).largest_finite_exp_input;
    const std::string name = short_name(format);
    if (x > stability_exp_curve_max) {
      outside += (outside.empty() ? "" : ", ") + name + " " + fixed(x, 1);
      continue;
    }
    const auto near = std::find_if(marks.begin(), marks.end(), [&](const Mark& mark) {
      return !mark.label.empty() && std::abs(mark.x - x) < merge_distance;
    });
    if (near != marks.end()) {
      near->alone = near->label;
      near->label = fixed(x, 2) == fixed(near->x, 2) ? near->name + "/" + name + " " + fixed(x, 2)
                                                     : near->label + "/" + name + " " + fixed(x, 2);
      marks.push_back({x, name, ""});
    } else {
      marks.push_back({x, name, name + " " + fixed(x, 2)});
    }
  }
  for (const Mark& mark : marks) p.vlines.push_back({mark.x, mark.label, std::nullopt, true, mark.alone});

  // Where the row's largest logit x/T sits on the curve: right of a format's line, naive
  // softmax overflows in that format.
  if (std::isfinite(lab.max_logit)) {
    if (lab.max_logit <= stability_exp_curve_max && lab.max_logit >= stability_exp_curve_min) {
      p.scatters.push_back({.label = tr("lab.stability.max_logit"),
                            .x = {lab.max_logit},
                            .y = {lab.exp_of_max_logit},
                            .color = logit_color,
                            .radius = 5.0f,
                            .shape = plot::MarkerShape::Diamond});
      // Named beside the marker rather than in a legend, which would take a corner the line
      // labels need.
      const double beside = 0.03 * (stability_exp_curve_max - stability_exp_curve_min);
      p.annotations.push_back({lab.max_logit + beside, lab.exp_of_max_logit, tr("lab.stability.max_logit"), logit_color,
                               plot::TextAlign::Left});
    } else {
      const bool right = lab.max_logit > stability_exp_curve_max;
      p.annotations.push_back(
          {right ? stability_exp_curve_max : stability_exp_curve_min, 1e-5,
           right ? std::string(tr("lab.stability.max_logit")) + " " + format_value(lab.max_logit, 4) + " →"
                 : "← " + std::string(tr("lab.stability.max_logit")) + " " + format_value(lab.max_logit, 4),
           logit_color, right ? plot::TextAlign::Right : plot::TextAlign::Left});
    }
  }
  // The limits beyond the axis go in the title: written inside the plot, the layout put them beside
  // the max-x/T diamond, where "fp64 709.8 →" read as the diamond's label.
  if (!outside.empty()) {
    p.short_title = p.title;
    p.title = i18n::format("lab.stability.exp_curve.title_beyond", {outside});
  }
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Plot map_plot(const StabilityLab& lab, const StabilityMap& map, bool naive, double vmax, TexturePool* textures) {
  std::string title =
      i18n::format(naive ? "lab.stability.map.naive" : "lab.stability.map.stable", {std::to_string(map.nan_cells)});
  return heatmap_plot(std::move(title), weight_heatmap(map.weights, lab.map_size, lab.map_size, vmax),
                      naive ? "stability/map-naive-fp16" : "stability/map-stable-fp16", textures);
}

// "naive 2 NaN, 14 zeroed, |Σ−1| NaN": only the counts that are not 0.
std::string run_note(const char* label, const StabilityRun& run) {
  const PrecisionReport& r = run.report;
  std::string note = label;
  const auto count = [&](int value, const char* what) {
    if (value > 0) note += " " + std::to_string(value) + " " + what + ",";
  };
  count(r.inf_count, "inf");
  count(r.nan_count, "NaN");
  count(r.underflow_count, tr("lab.stability.zeroed"));
  const std::string sum = std::isnan(r.sum_error)   ? "NaN"
                          : std::isinf(r.sum_error) ? "inf"
                                                    : format_value(r.sum_error, 2);
  return note + " |Σ−1| " + sum;
}

}  // namespace

// [SECTION] The lab: build, controls, registry row

LabView build_stability(const LabInputs& inputs) {
  const StabilityLab& lab = *inputs.snapshot.lab<StabilityLab>();
  const Params& params = inputs.snapshot.params;
  const StabilityFormat& selected = lab.selected();
  const std::string selected_name = short_name(selected.format);
  LabView view;
  view.explanation =
      i18n::format("lab.stability.explanation", {fixed(lab.format(Format::fp16).largest_finite_exp_input, 2)});

  const std::string source =
      lab.custom_scores ? i18n::format("lab.stability.source_custom",
                                       {std::to_string(lab.scores.size()), format_value(params.score_scale, 3)})
                        : i18n::format("lab.stability.source_row",
                                       {std::to_string(lab.row), params.scaled ? "QKᵀ/√d_k" : "QKᵀ",
                                        format_value(params.score_scale, 3), std::to_string(lab.scores.size())});
  view.notes.push_back(i18n::format(
      "lab.stability.note.scores",
      {source, format_value(lab.temperature, 3), format_value(lab.min_logit, 4), format_value(lab.max_logit, 4)}));
  view.notes.push_back(i18n::format(
      format_info(selected.format).has_infinity ? "lab.stability.note.exp_range_inf"
                                                : "lab.stability.note.exp_range_nan",
      {selected_name, fixed(selected.largest_finite_exp_input, 2), fixed(selected.largest_zero_exp_input, 2)}));
  std::string runs;
  for (SoftmaxVariant variant : all_softmax_variants)
    runs += (variant == SoftmaxVariant::naive ? "" : "  ·  ") +
            run_note(variant_label(static_cast<std::size_t>(variant)), selected.run(variant));
  if (lab.scores.size() > max_shown_entries)
    runs += i18n::format("lab.stability.note.runs_first",
                         {std::to_string(lab.scores.size()), std::to_string(max_shown_entries)});
  view.notes.push_back(i18n::format("lab.stability.note.runs", {selected_name, runs}));
  // Online softmax's running max m and sum d after each key, for a handful of keys: the state the
  // one-pass kernel carries, e.g. d = 1, 1.37, 1.50 for 1000, 1001, 1002. A note, not labels on
  // the bars: two rows of labels over every bar do not fit a plot at classroom sizes.
  constexpr std::size_t max_online_entries = 6;
  const std::size_t online_shown = std::min(lab.scores.size(), max_shown_entries);
  if (online_shown <= max_online_entries && lab.online_running_sum.size() >= online_shown &&
      lab.online_running_max.size() >= online_shown) {
    std::string maxima, sums;
    for (std::size_t i = 0; i < online_shown; ++i) {
      maxima += (i == 0 ? "" : ", ") + format_value(lab.online_running_max[i], 4);
      sums += (i == 0 ? "" : ", ") + fixed(lab.online_running_sum[i], 2);
    }
    view.notes.push_back(i18n::format("lab.stability.note.online", {maxima, sums}));
  }
  const StabilityMap& naive = lab.naive_fp16;
  std::string maps = i18n::format(
      params.seq_len > stability_map_max_size ? "lab.stability.note.maps_capped" : "lab.stability.note.maps",
      {std::to_string(lab.map_size), format_value(lab.map_max_logit, 3), std::to_string(naive.nan_cells),
       std::to_string(naive.nan_rows),
       tr(params.scaled ? "lab.stability.note.logits_scaled" : "lab.stability.note.logits_unscaled")});
  if (naive.zero_rows > 0) maps += i18n::format("lab.stability.note.zero_rows", {std::to_string(naive.zero_rows)});
  maps += i18n::format("lab.stability.note.stable_cells",
                       {std::to_string(lab.stable_fp16.nan_cells + lab.stable_fp16.inf_cells)});
  view.notes.push_back(maps);

  view.columns = 3;
  view.plots.push_back({"weights", weights_plot(lab)});
  view.plots.push_back({"problems", problems_plot(lab)});
  view.plots.push_back({"sum-error", sum_error_plot(lab)});
  view.plots.push_back({"exp-curve", exp_curve_plot(lab)});
  // One colour scale for both maps, so equal weights look equal.
  const double vmax = std::max({naive.max_finite_weight, lab.stable_fp16.max_finite_weight, 1e-6});
  view.plots.push_back({"map-naive-fp16", map_plot(lab, naive, true, vmax, inputs.textures)});
  view.plots.push_back({"map-stable-fp16", map_plot(lab, lab.stable_fp16, false, vmax, inputs.textures)});
  return view;
}

ControlsReport controls_stability(Params& edit) {
  ControlsReport report;
  // The combo lists every format by its format_info name.
  std::array<std::string, all_formats.size()> names;
  for (std::size_t i = 0; i < all_formats.size(); ++i) names[i] = std::string(format_name(all_formats[i]));
  int current = static_cast<int>(edit.format);
  const auto name_of = [](void* data, int index, const char** out) {
    *out = static_cast<const std::string*>(data)[index].c_str();
    return true;
  };
  if (ImGui::Combo(control_label("lab.stability.format", "format").c_str(), &current, name_of, names.data(),
                   static_cast<int>(names.size()))) {
    edit.format = all_formats[static_cast<std::size_t>(current)];
    report.changed = true;
  }
  ImGui::SameLine();
  ImGui::TextDisabled("(?)");
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.stability.format.help"));

  ImGui::TextDisabled("%s", tr("lab.stability.presets"));
  if (control_button(i18n::label("lab.stability.preset.overflow", "overflow fp16").c_str())) {
    // ×32 puts the row's largest logit past fp16's 11.09 unless the max of its 16 standard
    // normal scores is below 0.35 (probability 0.64¹⁶ < 0.1 %); the maps overflow everywhere.
    edit.scores.clear();
    edit.score_scale = 32.0;
    edit.format = Format::fp16;
    report.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.stability.preset.overflow.help"));
  same_line_if_fits(i18n::label("lab.stability.preset.qk_row", "qk row").c_str());
  if (control_button(i18n::label("lab.stability.preset.qk_row", "qk row").c_str())) {
    edit.scores.clear();
    edit.score_scale = 1.0;
    report.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.stability.preset.qk_row.help"));
  if (control_button("[1000, 1001, 1002]")) {
    // The classic: naive overflows even in fp64 (exp(1000) > 1.8e308), stable gives softmax([1, 2, 3]).
    edit.scores = {1000.0, 1001.0, 1002.0};
    edit.score_scale = 1.0;
    edit.temperature = 1.0;
    report.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.stability.preset.large.help"));
  if (control_button("[-1000, -1001, -1002]")) {
    edit.scores = {-1000.0, -1001.0, -1002.0};
    edit.score_scale = 1.0;
    edit.temperature = 1.0;
    report.changed = true;
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", tr("lab.stability.preset.small.help"));
  return report;
}

// The lab's row in the registry (labs.cpp lists it).
constexpr const char* stability_control_labels[] = {"lab.stability.format"};
constexpr MainKey stability_main_keys[] = {
    {"score_scale", "controls.score_scale", "x %.3g", "controls.score_scale.help"},
    {"temperature", "controls.temperature", "T = %.3g", "controls.temperature.help"},
};
extern const LabDefinition stability_lab{View::stability,
                                         "lab.stability.title",
                                         "lab.stability.summary",
                                         stability_control_labels,
                                         build_stability,
                                         controls_stability,
                                         nullptr,
                                         nullptr,
                                         false,
                                         stability_main_keys};

}  // namespace smlab::app
