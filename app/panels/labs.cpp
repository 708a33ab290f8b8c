// The registry of labs, app side: the list of lab rows, their lookup, readiness and tab titles.
#include "panels/labs.hpp"

#include <imgui.h>

#include <algorithm>
#include <array>
#include <cfloat>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "i18n/i18n.hpp"
#include "panels/pins_panel.hpp"

namespace smlab::app {

// The registry, app side: each lab's row is at the end of its own file (app/panels/lab_<id>.cpp),
// one per line of smlab/lab_list.hpp.
#define SMLAB_DECLARE_LAB(id, Result) extern const LabDefinition id##_lab;
SMLAB_LABS(SMLAB_DECLARE_LAB)
#undef SMLAB_DECLARE_LAB

namespace {

// A pin's map is drawn in one grid cell, as the live maps are: 512 texels a side (block maxima
// beyond that) is sharp at any window size the grid gives it.
constexpr int pin_map_max_side = 512;

// Index: View − 1 (the dashboard has no row).
#define SMLAB_LAB_ADDRESS(id, Result) &id##_lab,
constexpr std::array<const LabDefinition*, view_count - 1> labs{SMLAB_LABS(SMLAB_LAB_ADDRESS)};
#undef SMLAB_LAB_ADDRESS

}  // namespace

std::span<const LabDefinition* const> lab_definitions() { return labs; }

namespace {

// The dashboard's: the temperature, d_k and the scaling that the distribution, the entropy curves,
// the S(1−S) parabola and the two maps answer, and L.
constexpr MainKey dashboard_main_keys[] = {
    {"temperature", "controls.temperature", "T = %.3g", "controls.temperature.help"},
    {"d_k", nullptr, "d_k = %d", "controls.d_k.help"},
    {"scaled", "controls.scaled", nullptr, "controls.scaled.help"},
    {"seq_len", "controls.seq_len", "L = %d", "controls.seq_len.help"},
};

}  // namespace

std::span<const MainKey> main_keys(View view) {
  const LabDefinition* lab = lab_definition(view);
  return lab != nullptr ? lab->main_keys : std::span<const MainKey>(dashboard_main_keys);
}

const LabDefinition* lab_definition(View view) {
  const auto slot = static_cast<std::size_t>(view);
  return slot == 0 || slot > labs.size() ? nullptr : labs[slot - 1];
}

// A lab is ready once evaluate() has put its numbers into the Snapshot; the dashboard always is.
bool lab_ready(const Snapshot& snapshot, View view) {
  return view_info(view).evaluate == nullptr || snapshot.labs.has(view);
}

const char* view_title(View view) {
  const LabDefinition* lab = lab_definition(view);
  return i18n::tr(lab != nullptr ? lab->title_key : "dashboard.title");
}
const char* view_summary(View view) {
  const LabDefinition* lab = lab_definition(view);
  return i18n::tr(lab != nullptr ? lab->summary_key : "dashboard.summary");
}

const LabView& ViewCache::view(View shown, const ViewInputs& inputs) {
  Key key{.snapshot = &inputs.snapshot,
          .texture_generation = inputs.textures.generation(),
          .view = shown,
          .sweep = &inputs.sweep,
          .sweep_trials = inputs.sweep.trials,
          .language = static_cast<int>(i18n::language()),
          .scales = inputs.scales,
          .scaled_map = 0,
          .unscaled_map = 0,
          .pins = {}};
  const LabDefinition* lab = lab_definition(shown);
  if (lab == nullptr) {  // the dashboard: its live map textures and the pins are drawn in it too
    key.scaled_map = inputs.scaled_map;
    key.unscaled_map = inputs.unscaled_map;
    if (inputs.pins != nullptr)
      for (std::size_t k = 0; k < inputs.pins->pins.size() && k < inputs.pins->snapshots.size(); ++k)
        key.pins.emplace_back(inputs.pins->pins[k].name, inputs.pins->snapshots[k]);
  }
  if (key_ != key) {
    if (lab != nullptr) {
      view_ = lab->build(LabInputs{inputs.snapshot, inputs.sweep, &inputs.textures});
    } else {
      view_ = build_dashboard(inputs.snapshot, inputs.sweep, inputs.scaled_map, inputs.unscaled_map);
      if (inputs.pins != nullptr) add_pin_ghosts(view_.plots, *inputs.pins, inputs.snapshot);  // panels/pins_panel.hpp
    }
    apply_color_scales(view_info(shown).name, view_.plots, inputs.scales, inputs.textures);
    // The pins' maps ("pin-<k+1>", rows on demand from the pin's Snapshot) get a texture too, coloured
    // here once: without one the grid painted ≤ 64² cells every frame, recomputing their rows, and
    // larger maps showed "no texture".
    for (std::size_t k = 0; k < key.pins.size(); ++k) {
      const Snapshot* pin = key.pins[k].second.get();
      if (pin == nullptr) continue;
      for (NamedPlot& named : view_.plots) {
        if (named.name != "pin-" + std::to_string(k + 1) || !named.plot.heatmap) continue;
        plot::Heatmap& map = *named.plot.heatmap;
        if (map.texture == 0 && map.values.empty() && map.fill_row)
          map.texture = inputs.textures.texture("dashboard/" + named.name, pin, map.fill_row, map.rows, map.cols,
                                                map.vmin, map.vmax, map.colormap, pin_map_max_side);
      }
    }
    key_ = std::move(key);
    ++builds_;
  }
  return view_;
}

plot::Plot heatmap_plot(std::string title, plot::Heatmap map, const std::string& texture_key, TexturePool* textures) {
  plot::Plot p;
  p.title = std::move(title);
  map.texture = textures != nullptr
                    ? textures->texture(texture_key, map.values, map.rows, map.cols, map.vmin, map.vmax, map.colormap)
                    : 0;
  p.heatmap = std::move(map);
  p.legend = plot::LegendPos::None;
  return p;
}

plot::Heatmap weight_heatmap(std::span<const float> weights, int rows, int cols, double color_max) {
  plot::Heatmap map;
  map.rows = rows;
  map.cols = cols;
  map.values = weights;  // a view into the Snapshot, not a copy
  map.vmin = 0.0;
  map.vmax = color_max;
  map.fixed_range = plot::weight_range;  // weights are in [0, 1]: the fixed colour scale
  map.colormap = plot::Colormap::Viridis;
  map.colorbar_label = i18n::tr("plot.axis.weight");
  map.x_label = i18n::tr("plot.axis.key_j");
  map.y_label = i18n::tr("plot.axis.query_i");
  return map;
}

std::string format_value(double value, int significant_digits) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", significant_digits, value);
  return buffer;
}

}  // namespace smlab::app
