// Builds the dashboard's plot descriptions from a Snapshot (see dashboard_plots.hpp).
#include "panels/dashboard_plots.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <numbers>
#include <string>

#include "i18n/i18n.hpp"
#include "lessons/claims.hpp"
#include "plot/ticks.hpp"

namespace smlab::app {
namespace {

using i18n::fixed;
using i18n::tr;

std::string general(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.3g", value);
  return buffer;
}

// Token labels of imported data, shortened to fit under a tick (12 characters, then …).
std::vector<std::string> token_names(const Snapshot& snap) {
  std::vector<std::string> names;
  if (snap.params.imported == nullptr) return names;
  for (const std::string& token : snap.params.imported->tokens) names.push_back(shorten_label(token, 12));
  return names;
}

}  // namespace

// Up to this many bars the distribution writes each weight over its bar.
constexpr std::size_t kLabelledBars = 8;

plot::Plot distribution_plot(const Snapshot& snap) {
  plot::Plot p;
  const Params& params = snap.params;
  p.title =
      snap.custom_scores
          ? i18n::format("plot.distribution.title_custom", {general(params.temperature), fixed(snap.entropy_nats, 3)})
          : i18n::format("plot.distribution.title_row",
                         {std::to_string(params.row), general(params.temperature), fixed(snap.entropy_nats, 3)});
  // The same numbers in fewer words, for a cell too narrow for the title on one line.
  p.short_title =
      snap.custom_scores
          ? i18n::format("plot.distribution.short_custom", {general(params.temperature), fixed(snap.entropy_nats, 3)})
          : i18n::format("plot.distribution.short_row",
                         {std::to_string(params.row), general(params.temperature), fixed(snap.entropy_nats, 3)});
  p.x.label = snap.custom_scores ? tr("plot.axis.score_index") : tr("plot.axis.key_j");
  p.x.integer_ticks = true;
  if (!snap.custom_scores) {
    p.x.tick_names = token_names(snap);
    if (p.x.tick_names.size() != snap.probabilities.size()) p.x.tick_names.clear();
  }
  p.y.label = tr("plot.distribution.y");
  p.y.min = 0.0;
  p.y.max = 1.0;
  plot::BarSeries bars;
  bars.label = "softmax";
  const std::size_t n = snap.probabilities.size();
  bars.x.resize(n);
  for (std::size_t i = 0; i < n; ++i) bars.x[i] = static_cast<double>(i);
  bars.y = snap.probabilities;
  bars.width = 0.8;
  // A few keys: each weight written over its bar, to the 3 decimals the lessons quote (a weight of
  // 0.006 is a pixel tall), with room over 1 for the label; the ticks stop at 1.
  if (n <= kLabelledBars) {
    bars.value_digits = 3;
    bars.value_fixed = true;
    p.y.max = 1.25;
    p.y.tick_values = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  }
  p.bars.push_back(std::move(bars));
  if (n > 0) {
    plot::ScatterSeries top;
    top.label = tr("plot.legend.argmax");
    top.x = {static_cast<double>(snap.argmax)};
    top.y = {snap.max_weight};
    top.shape = plot::MarkerShape::Diamond;
    top.radius = 5.0f;
    p.scatters.push_back(std::move(top));
    // More keys than get their values written: the largest weight written beside its diamond
    // (a lesson quotes "max weight 0.176"; on a 0-to-1 axis it is read to a few hundredths).
    if (n > kLabelledBars && std::isfinite(snap.max_weight))
      p.annotations.push_back({.x = static_cast<double>(snap.argmax),
                               .y = snap.max_weight,
                               .text = fixed(snap.max_weight, 3),
                               .align = plot::TextAlign::Left});
  }
  // Uniform over the unmasked keys (a causal row or a −inf score has fewer choices than n).
  const double choices = std::max(1, snap.unmasked_keys);
  p.hlines.push_back({1.0 / choices, tr("plot.distribution.uniform"), std::nullopt, true});
  return p;
}

plot::Plot entropy_temperature_plot(const Snapshot& snap) {
  plot::Plot p;
  p.title = tr("plot.entropy_t.title");
  p.x.label = tr("plot.axis.temperature");
  p.x.scale = plot::Scale::Log10;
  p.x.min = snap.temperature_grid.empty() ? 0.01 : snap.temperature_grid.front();
  p.x.max = snap.temperature_grid.empty() ? 100.0 : snap.temperature_grid.back();
  p.y.label = tr("plot.axis.entropy");
  // ln of the unmasked keys (Snapshot::max_entropy_nats; ln 2 at least, so the axis has a range).
  const double max_entropy = std::max(snap.max_entropy_nats, std::numbers::ln2);
  p.y.min = 0.0;
  p.y.max = max_entropy * 1.08;
  plot::LineSeries line;
  line.label = "H(T)";
  line.x = snap.temperature_grid;
  line.y = snap.entropy_vs_temperature;
  p.lines.push_back(std::move(line));
  plot::ScatterSeries now;
  now.label = tr("plot.legend.now");
  now.x = {snap.params.temperature};
  now.y = {snap.entropy_nats};
  now.radius = 5.0f;
  p.scatters.push_back(std::move(now));
  p.vlines.push_back({snap.params.temperature, "T = " + general(snap.params.temperature), std::nullopt, true});
  p.hlines.push_back({max_entropy, "ln n", std::nullopt, true});
  p.legend = plot::LegendPos::BottomRight;
  return p;
}

plot::Plot entropy_dk_plot(const DkSweep& sweep, int current_key_dim) {
  plot::Plot p;
  p.title = i18n::format("plot.entropy_dk.title", {std::to_string(sweep.config.seq_len)});
  p.x.label = i18n::format("plot.entropy_dk.x", {std::to_string(sweep.trials)});
  p.x.scale = plot::Scale::Log10;
  p.x.min = 1.0;
  p.x.max = 4096.0;
  p.x.tick_values = {1, 4, 16, 64, 256, 1024, 4096};
  p.y.label = tr("plot.axis.mean_entropy");
  p.y.min = 0.0;
  p.y.max = sweep.max_entropy_nats * 1.08;
  auto curve = [&](const std::vector<RowStats>& stats, const char* label) {
    plot::LineSeries line;
    line.label = label;
    line.markers = true;
    for (std::size_t k = 0; k < stats.size() && k < sweep.config.key_dims.size(); ++k) {
      const RunningStats& entropy = stats[k].entropy_nats;
      line.x.push_back(sweep.config.key_dims[k]);
      line.y.push_back(entropy.mean);
      line.band_low.push_back(entropy.mean - entropy.standard_error());
      line.band_high.push_back(entropy.mean + entropy.standard_error());
    }
    return line;
  };
  p.lines.push_back(curve(sweep.scaled, tr("plot.legend.scaled")));
  p.lines.push_back(curve(sweep.unscaled, tr("plot.legend.unscaled")));
  p.vlines.push_back(
      {static_cast<double>(current_key_dim), "d_k = " + std::to_string(current_key_dim), std::nullopt, true});
  // Both curves' means written at the current d_k when it is a point of the sweep: what a lesson
  // sets d_k to read (0.40 unscaled at 64, against a table's 0.8), not guessed off a log axis.
  const auto& dims = sweep.config.key_dims;
  if (const auto found = std::find(dims.begin(), dims.end(), current_key_dim); found != dims.end()) {
    const auto k = static_cast<std::size_t>(found - dims.begin());
    for (const std::vector<RowStats>* stats : {&sweep.scaled, &sweep.unscaled})
      if (k < stats->size())
        p.annotations.push_back({.x = static_cast<double>(current_key_dim),
                                 .y = (*stats)[k].entropy_nats.mean,
                                 .text = fixed((*stats)[k].entropy_nats.mean, 2),
                                 .align = plot::TextAlign::Left});
  }
  p.legend = plot::LegendPos::TopRight;
  return p;
}

plot::Plot gradient_parabola_plot(const ParabolaPlotStyle& style, const std::vector<double>& curve_s,
                                  const std::vector<double>& curve_value, const std::vector<double>& points_s,
                                  const std::vector<double>& points_value) {
  plot::Plot p;
  p.title = style.title;
  p.short_title = style.short_title;
  p.x.label = tr("plot.axis.probability_s");
  // A margin around [0, 1] × [0, 1/4], so the dots of a saturated row at (0, 0) and (1, 0) are
  // not hidden under the axis corners.
  p.x.min = -0.05;
  p.x.max = 1.05;
  p.x.tick_values = {0.0, 0.2, 0.4, 0.6, 0.8, 1.0};
  p.y.label = "S(1−S)";
  p.y.min = -0.02;
  p.y.max = 0.3;
  p.y.tick_values = {0.0, 0.05, 0.1, 0.15, 0.2, 0.25};
  p.lines.push_back({.label = "S(1−S)", .x = curve_s, .y = curve_value, .color = style.curve_color});
  p.scatters.push_back(
      {.label = style.points_label, .x = points_s, .y = points_value, .color = style.points_color, .radius = 4.5f});
  // A few points: the smallest gradient, when it is too small to tell from 0 on the axis (a key
  // at weight e⁻⁵⁰ passes back 2e-22; 0.002 is two pixels), written beside its point.
  if (points_s.size() <= 8 && points_value.size() == points_s.size()) {
    std::size_t smallest = points_value.size();
    for (std::size_t i = 0; i < points_value.size(); ++i)
      if (std::isfinite(points_value[i]) && points_value[i] > 0.0 &&
          (smallest == points_value.size() || points_value[i] < points_value[smallest]))
        smallest = i;
    if (smallest < points_value.size() && points_value[smallest] < 1e-2)
      p.annotations.push_back({.x = points_s[smallest],
                               .y = points_value[smallest],
                               .text = plot::format_scientific(points_value[smallest], 1)});
  }
  // The top weight's point, written beside it: a lesson quotes how far up the parabola it climbs
  // (S = 0.34, S(1−S) = 0.23), which no one reads off a dot to two decimals. Not where it passes back
  // next to nothing: then the smallest gradient above is the number to read.
  if (!points_s.empty() && points_value.size() == points_s.size()) {
    const auto top = static_cast<std::size_t>(std::max_element(points_s.begin(), points_s.end()) - points_s.begin());
    if (std::isfinite(points_s[top]) && points_value[top] >= 1e-3)
      p.annotations.push_back({.x = points_s[top],
                               .y = points_value[top],
                               .text = i18n::format("plot.gradient.top_point",
                                                    {i18n::fixed(points_s[top], 2), i18n::fixed(points_value[top], 2)}),
                               .align = points_s[top] > 0.5 ? plot::TextAlign::Right : plot::TextAlign::Left});
  }
  p.hlines.push_back({0.25, tr("plot.gradient.max"), std::nullopt, true});
  p.legend = plot::LegendPos::TopRight;
  return p;
}

plot::Plot gradient_plot(const Snapshot& snap) {
  return gradient_parabola_plot({.title = tr("plot.gradient.title"),
                                 .short_title = tr("plot.gradient.short_title"),
                                 .points_label = tr("plot.gradient.current")},
                                snap.gradient_parabola.s, snap.gradient_parabola.value, snap.probabilities,
                                snap.gradient);
}

plot::Plot attention_plot(const Snapshot& snap, bool scaled, std::uintptr_t texture) {
  plot::Plot p;
  p.title = scaled ? "softmax(QKᵀ/√d_k)" : tr("plot.attention.unscaled_title");
  // What tells the two maps apart survives a narrow panel ("softma..." did not).
  p.short_title = tr(scaled ? "plot.attention.scaled_short" : "plot.attention.unscaled_short");
  // A map of up to 256 rows is summed up in its title, by the reader the lessons' claims use: the
  // mean over rows of the largest weight (a lesson compares 0.26 with 0.46). Larger maps would cost
  // a softmax pass over every row per Snapshot; their titles stay as they are.
  bool stats_in_title = false;
  if (snap.attention_size > 0 && snap.attention_size <= 256 && snap.pooled.factor == 0) {
    const char* series = scaled ? "scaled" : "unscaled";
    const Result<double> top = claim_value(snap, ClaimQuantity{.quantity = "map_mean_max_weight", .series = series});
    if (top.ok()) {
      p.title =
          i18n::format(scaled ? "plot.attention.scaled_stats" : "plot.attention.unscaled_stats", {fixed(*top, 2)});
      p.short_title = p.title;
      stats_in_title = true;
    }
  }
  plot::Heatmap map;
  map.rows = snap.attention_size;
  map.cols = snap.attention_size;
  map.fill_row = std::bind_front(attention_row, std::cref(snap), scaled);  // rows recomputed on demand
  map.vmin = 0.0;
  map.vmax = snap.attention_max;
  map.fixed_range = plot::weight_range;
  map.scale_key = "dashboard/attention";  // both maps on one scale (the textures share it)
  map.colormap = plot::Colormap::Viridis;
  // Where the title names the weight ("mean max w 0.24") the colour bar goes without its label: the
  // room it took kept two maps side by side under the lessons' 40 % data-area rule at 1024×768.
  map.colorbar_label = stats_in_title ? std::string() : std::string(tr("plot.axis.weight"));
  map.x_label = tr("plot.axis.key_j");
  map.y_label = tr("plot.axis.query_i");
  map.texture = texture;
  map.names = token_names(snap);
  if (snap.pooled.factor > 1 && texture == 0) {
    // Exports of a long imported context draw the pooled picture (block maxima), not L² cells.
    map.rows = map.cols = snap.pooled.side;
    map.fill_row = {};
    map.values = scaled ? snap.pooled.scaled : snap.pooled.unscaled;
    map.names.clear();
    map.x_label = i18n::format("plot.attention.pooled_axis", {map.x_label, std::to_string(snap.pooled.factor)});
    map.y_label = i18n::format("plot.attention.pooled_axis", {map.y_label, std::to_string(snap.pooled.factor)});
  }
  p.heatmap = std::move(map);
  p.legend = plot::LegendPos::None;
  return p;
}

std::vector<std::pair<std::string, plot::Plot>> dashboard_plots(const Snapshot& snap, const DkSweep& sweep) {
  return {{"distribution", distribution_plot(snap)},
          {"entropy-temperature", entropy_temperature_plot(snap)},
          {"entropy-dk", entropy_dk_plot(sweep, snap.params.key_dim)},
          {"gradient", gradient_plot(snap)},
          {"attention-scaled", attention_plot(snap, true, 0)},
          {"attention-unscaled", attention_plot(snap, false, 0)}};
}

}  // namespace smlab::app
