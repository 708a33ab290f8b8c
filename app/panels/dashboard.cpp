// The main window: the control column (hideable), the view tabs, and the plots of the dashboard
// or a lab flowed into a grid that keeps every plot readable; or presenter mode, where the
// panel that matters fills the window under a large caption.
//
// [SECTION] Index
//   [SECTION] Grid layout of the plots
//   [SECTION] Layout keys
//   [SECTION] The lesson view and presenter mode: the step's panels around its text
//   [SECTION] Scrolling to the lesson step's panel
//   [SECTION] The compact layout
//   [SECTION] The main window
#include <imgui.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/quoted_numbers.hpp"
#include "panels/dashboard_plots.hpp"
#include "panels/labs.hpp"
#include "panels/lesson_layout.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/panels.hpp"
#include "panels/pins_panel.hpp"
#include "plot/text_wrap.hpp"

namespace smlab::app {

// [SECTION] Grid layout of the plots

DashboardLayout dashboard_layout(ImVec2 display_size, float ui_scale, bool controls_shown) {
  DashboardLayout layout;
  const float margin = 8.0f * ui_scale;
  const float gap = 8.0f * ui_scale;
  const float tab_height = 30.0f * ui_scale;  // one row of tabs at the UI font size
  if (display_size.x < compact_layout_width) {
    // Compact: tabs across the top, the drawer (controls, lesson) across the bottom half.
    layout.compact = true;
    const float right = std::max(display_size.x - margin, margin + 1.0f);
    layout.toggle_min = ImVec2(margin, margin);
    layout.toggle_max = ImVec2(margin + tab_height, margin + tab_height);
    layout.tabs_min = ImVec2(layout.toggle_max.x + 0.5f * gap, margin);
    layout.tabs_max = ImVec2(std::max(right, layout.tabs_min.x + 1.0f), margin + tab_height);
    const float bottom = std::max(display_size.y - margin, layout.tabs_max.y + 1.0f);
    // The drawer leaves the plot above it the room of a readable plot (about 20 lines of the UI
    // font, with the ◀ ▶ row) where the screen has it, keeping 16 lines itself: on a 360×640 phone
    // 45 % of the height put the plot's lower half under the drawer.
    const float line = 16.0f * ui_scale;
    const float plot_room = layout.tabs_max.y + gap + 20.0f * line;
    const float drawer_top =
        controls_shown
            ? std::max({layout.tabs_max.y + gap, 0.45f * display_size.y, std::min(plot_room, bottom - 16.0f * line)})
            : bottom;
    layout.controls_min = ImVec2(margin, drawer_top);
    layout.controls_max = ImVec2(right, bottom);
    layout.content_min = ImVec2(margin, layout.tabs_max.y + gap);
    layout.content_max =
        ImVec2(right, std::max(controls_shown ? drawer_top - gap : bottom, layout.content_min.y + 1.0f));
    return layout;
  }
  // 370 px at scale 1, but never more than 30 % of the window: at 1024×768 the plots get 70 %.
  const float controls_width = controls_shown ? std::min(370.0f * ui_scale, 0.3f * display_size.x) : 0.0f;
  layout.controls_min = ImVec2(margin, margin);
  layout.controls_max = ImVec2(margin + controls_width, display_size.y - margin);
  const float left = controls_shown ? layout.controls_max.x + gap : margin;
  const float right = std::max(display_size.x - margin, left + 1.0f);
  layout.toggle_min = ImVec2(left, margin);
  layout.toggle_max = ImVec2(left + tab_height, margin + tab_height);
  layout.tabs_min = ImVec2(layout.toggle_max.x + 0.5f * gap, margin);
  layout.tabs_max = ImVec2(std::max(right, layout.tabs_min.x + 1.0f), margin + tab_height);
  layout.content_min = ImVec2(left, layout.tabs_max.y + gap);
  layout.content_max = ImVec2(right, std::max(display_size.y - margin, layout.content_min.y + 1.0f));
  return layout;
}

namespace {

// The columns plots take side by side: the sum of their spans (two histograms of span 3 fill a grid
// of 6), not their number.
int spanned(std::span<const int> spans) {
  int columns = 0;
  for (const int span : spans) columns += std::max(1, span);
  return columns;
}

}  // namespace

FlowGrid flow_grid(const std::vector<int>& spans, int max_columns, ImVec2 min, ImVec2 max, float gap, float em,
                   float min_height_em, float min_width_em) {
  return flow_grid_px(spans, max_columns, min, max, gap, (min_width_em > 0.0f ? min_width_em : min_plot_width_em) * em,
                      (min_height_em > 0.0f ? min_height_em : min_plot_height_em) * em);
}

FlowGrid flow_grid_px(const std::vector<int>& spans, int max_columns, ImVec2 min, ImVec2 max, float gap, float min_w,
                      float min_h) {
  FlowGrid best;
  const float width = std::max(max.x - min.x, 1.0f), height = std::max(max.y - min.y, 1.0f);
  float best_score = -1.0f;
  const int most = std::max(1, std::min(max_columns, spanned(spans)));
  for (int columns = most; columns >= 1; --columns) {
    const float cell_w = (width - gap * static_cast<float>(columns - 1)) / static_cast<float>(columns);
    // Too narrow: fewer per row. A plot spanning columns is that much wider than one column.
    float narrowest = std::numeric_limits<float>::infinity();
    for (const int span : spans) {
      const float clamped = static_cast<float>(std::clamp(span, 1, columns));
      narrowest = std::min(narrowest, clamped * cell_w + gap * (clamped - 1.0f));
    }
    if (narrowest < min_w && columns > 1) continue;
    int rows = 0, used = columns;
    for (const int span : spans) {
      const int clamped = std::clamp(span, 1, columns);
      if (used + clamped > columns) {
        ++rows;
        used = 0;
      }
      used += clamped;
    }
    rows = std::max(rows, 1);
    const float cell_h = std::max(min_h, (height - gap * static_cast<float>(rows - 1)) / static_cast<float>(rows));
    // The smallest plot as placed (its narrowest, above), not the column: a wide histogram over two
    // thirds of a row scored as one narrow column and lost to a grid that left a third of the row
    // empty (the scaling lab at 1600×900).
    const float score = std::min(narrowest, 1.3f * cell_h);
    if (score <= best_score) continue;
    best_score = score;
    best = FlowGrid{};
    best.columns = columns;
    // Rows as they fill (each a run of plots whose spans fit the columns); a row that leaves columns
    // empty shares them out, its plots widened in proportion to their spans (no third of a row left
    // empty beside a lone plot).
    std::vector<std::pair<std::size_t, std::size_t>> row_runs;  // [first, end) of each row
    int used_in_row = columns;
    for (std::size_t k = 0; k < spans.size(); ++k) {
      const int clamped = std::clamp(spans[k], 1, columns);
      if (used_in_row + clamped > columns) {
        row_runs.emplace_back(k, k);
        used_in_row = 0;
      }
      used_in_row += clamped;
      row_runs.back().second = k + 1;
    }
    for (std::size_t row = 0; row < row_runs.size(); ++row) {
      const auto [first, end] = row_runs[row];
      int used = 0;
      for (std::size_t k = first; k < end; ++k) used += std::clamp(spans[k], 1, columns);
      const float free_width = width - gap * static_cast<float>(end - first - 1);
      float x = min.x;
      const float y = min.y + static_cast<float>(row) * (cell_h + gap);
      for (std::size_t k = first; k < end; ++k) {
        const float share = static_cast<float>(std::clamp(spans[k], 1, columns)) / static_cast<float>(used);
        const float plot_width = used == columns ? cell_w * static_cast<float>(std::clamp(spans[k], 1, columns)) +
                                                       gap * static_cast<float>(std::clamp(spans[k], 1, columns) - 1)
                                                 : free_width * share;
        best.min.push_back(ImVec2(x, y));
        best.max.push_back(ImVec2(x + plot_width, y + cell_h));
        x += plot_width + gap;
      }
    }
    best.bottom = min.y + static_cast<float>(rows) * cell_h + gap * static_cast<float>(rows - 1);
  }
  return best;
}

void apply_color_scales(std::string_view view_name, std::vector<NamedPlot>& plots, const plot::ColorScales& scales,
                        TexturePool& textures) {
  for (NamedPlot& named : plots) {
    const std::string key = std::string(view_name) + "/" + named.name;
    if (!plot::apply_color_scales(named.plot, key, scales)) continue;
    plot::Heatmap& map = *named.plot.heatmap;
    // Stored cells were coloured with the builder's range: colour them again with this one. (The
    // dashboard's attention maps are rows on demand, coloured by App with the same choice.)
    if (map.texture != 0 && !map.values.empty())
      map.texture = textures.texture("scaled/" + key, map.values, map.rows, map.cols, map.vmin, map.vmax, map.colormap);
  }
}

void color_scale_menu(const plot::Heatmap& map, const std::string& plot_key, const plot::ColorScales& scales,
                      UiState& ui) {
  if (!map.fixed_range) return;  // one range only: nothing to choose
  if (!ImGui::BeginPopupContextItem("color-scale")) return;
  const std::string key = plot::color_scale_key(map, plot_key);
  const plot::ColorScale current = scales.scale(key, map.default_scale);
  const std::string fixed =
      i18n::format("plot.color_scale.fixed", {format_value(map.fixed_range->min), format_value(map.fixed_range->max)});
  const std::string automatic =
      i18n::format("plot.color_scale.auto", {format_value(map.auto_range ? map.auto_range->min : map.vmin),
                                             format_value(map.auto_range ? map.auto_range->max : map.vmax)});
  ImGui::TextDisabled("%s", i18n::tr("plot.color_scale.title"));
  if (ImGui::MenuItem(fixed.c_str(), nullptr, current == plot::ColorScale::Fixed))
    ui.interaction.color_scales.chosen[key] = plot::ColorScale::Fixed;
  if (ImGui::MenuItem(automatic.c_str(), nullptr, current == plot::ColorScale::Auto))
    ui.interaction.color_scales.chosen[key] = plot::ColorScale::Auto;
  ImGui::EndPopup();
}

namespace {

// Text widths as plot::draw measures them: the current ImGui font at any px size.
plot::TextWidthFn current_font_width() {
  ImFont* font = ImGui::GetFont();
  return [font](std::string_view text, float size_px) {
    return font->CalcTextSizeA(size_px, FLT_MAX, 0.0f, text.data(), text.data() + text.size()).x;
  };
}

// Whether `named` is readable (lesson_layout.hpp's rule) in a cell of `size`, laid out at whole
// pixels as plot::draw lays it out (a legend that fits 400.8 px may not fit 400).
bool reads_at(const NamedPlot& named, ImVec2 size, const plot::Style& style, float font_size,
              const plot::TextWidthFn& measure) {
  return readable_data_area(
      plot::fit_plot(named.plot, ImVec2(std::floor(size.x), std::floor(size.y)), style, font_size, measure));
}

// The smallest cell the plots may get, in px: the largest of their own minimums (NamedPlot; 0 means
// the grid's, min_plot_width_em × min_plot_height_em).
ImVec2 smallest_cell(std::span<const NamedPlot* const> plots, float em) {
  float width = 0.0f, height = 0.0f;
  for (const NamedPlot* named : plots) {
    width = std::max(width, named->min_width_em > 0.0f ? named->min_width_em : min_plot_width_em);
    height = std::max(height, named->min_height_em > 0.0f ? named->min_height_em : min_plot_height_em);
  }
  if (plots.empty()) return ImVec2(min_plot_width_em * em, min_plot_height_em * em);
  return ImVec2(width * em, height * em);
}

// Draws plots[k] into the cell grid.min[k] … grid.max[k] and records where each went.
void draw_plots_in(std::string_view view_name, std::span<const NamedPlot* const> plots, const FlowGrid& grid,
                   const plot::Style& style, UiState& ui,
                   const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  plot::Style placed_style = style;
  placed_style.report = ui.record_layout ? &ui.layout_report : nullptr;
  // A bound number of the lesson's text under the mouse: each plot's texts are recorded so that
  // mark_hovered_number finds the labels that write it.
  const bool marking = ui.lesson_view.hovered_number && current_step(ui) != nullptr;
  plot::LayoutReport marking_report;
  if (marking && placed_style.report == nullptr) placed_style.report = &marking_report;
  std::vector<std::pair<std::size_t, std::size_t>> marked;  // each plot's record and placement
  const float font_size = style.font_size > 0.0f ? style.font_size : ImGui::GetFontSize();
  const plot::TextWidthFn measure = current_font_width();
  for (std::size_t index = 0; index < plots.size() && index < grid.min.size(); ++index) {
    const NamedPlot& named = *plots[index];
    // At whole pixels: a frame whose right edge fell between two pixels of a cell at x = 410.33 was
    // clipped away (the right border of the 1280×720 dashboard's second and third columns).
    ImVec2 origin(std::round(grid.min[index].x), std::round(grid.min[index].y));
    ImVec2 end(std::round(grid.max[index].x), std::round(grid.max[index].y));
    // A map with square cells hugs its grid, centred in the cell, rather than floating in a wide
    // panel (the lesson layout fits its frames already: then this changes nothing).
    if (named.plot.heatmap && named.plot.heatmap->square_cells) {
      const ImVec2 fitted =
          plot::fit_plot(named.plot, ImVec2(end.x - origin.x, end.y - origin.y), placed_style, font_size, measure).size;
      origin = ImVec2(std::floor(origin.x + 0.5f * (end.x - origin.x - fitted.x)), origin.y);
      end = ImVec2(origin.x + fitted.x, origin.y + fitted.y);
    }
    ImGui::SetCursorScreenPos(origin);
    const std::string full_name = std::string(view_name) + "/" + named.name;
    const plot::Interaction interaction =
        plot::draw(named.name.c_str(), named.plot, ImVec2(end.x - origin.x, end.y - origin.y), placed_style);
    if (placed_style.report != nullptr && !ui.layout_report.plots.empty()) ui.layout_report.plots.back().id = full_name;
    if (named.plot.heatmap) color_scale_menu(*named.plot.heatmap, full_name, style.color_scales, ui);
    ImDrawList* draw_list = ImGui::GetWindowDrawList();
    ui.placed_plots.push_back({full_name, origin, end, font_size, draw_list, draw_list->GetClipRectMin(),
                               draw_list->GetClipRectMax(), ImVec2(named.min_width_em, named.min_height_em)});
    if (marking && !placed_style.report->plots.empty())
      marked.emplace_back(placed_style.report->plots.size() - 1, ui.placed_plots.size() - 1);
    if (interaction.hovered) {
      ui.hovered_plot = full_name;
      if (on_hover) on_hover(named, interaction);
    }
  }
  if (marking) {
    std::vector<std::pair<const plot::PlotRecord*, const PlacedPlot*>> plots;
    for (const auto& [record, placed] : marked)
      plots.emplace_back(&placed_style.report->plots[record], &ui.placed_plots[placed]);
    mark_hovered_number(ui, plots);
  }
  ui.lesson_view.marked_number = marking ? ui.lesson_view.hovered_number : std::nullopt;
}

}  // namespace

namespace {

// The smallest cell in which every one of `plots` is readable (lesson_layout.hpp's rule: its data
// area at least 120 px each way and 40 % of the panel, nothing given up), from the grid's em minimum
// up, a step of 1 em wide and 1/1.3 em high at a time, at most three times the minimum; a plot
// that is not readable even there does not hold the others back. Wide plots count half their width.
ImVec2 readable_cell(std::span<const NamedPlot* const> plots, const plot::Style& style, float em) {
  ImVec2 cell = smallest_cell(plots, em);
  const float font_size = style.font_size > 0.0f ? style.font_size : em;  // as plot::draw resolves it
  const plot::TextWidthFn measure = current_font_width();
  ImVec2 needed = cell;
  for (const NamedPlot* named : plots) {
    const float span = static_cast<float>(std::max(named->column_span, 1));
    for (int step = 0; step <= 2 * static_cast<int>(min_plot_width_em); ++step) {
      const ImVec2 size(std::floor(span * (cell.x + static_cast<float>(step) * em)),
                        std::floor(cell.y + static_cast<float>(step) * em / 1.3f));
      // With a little slack: the grid's cells are this size or larger, of another shape, where a
      // plot's legend or title may settle differently.
      if (!readable_data_area(plot::fit_plot(named->plot, size, style, font_size, measure), 4.0f)) continue;
      needed = ImVec2(std::max(needed.x, size.x / span), std::max(needed.y, size.y));
      break;
    }
  }
  return needed;
}

// The smallest row height of a grid of `plots` in [min, max] at which every plot reads in the cell
// it is given. readable_cell() tried cells of one shape; the grid gives cells of another (a 651 px wide
// cell wraps a title that a 700 px one kept on one line, a wide short row squeezes a legend beside
// the data), so each plot is fitted to its own cell and, where one does not read, the rows grow by
// 1/1.3 em at a time (up to three times the smallest cell's height; the content scrolls) until all
// do. A plot that does not read in its cell even that tall (its width is what it lacks) does not
// make the others taller.
float readable_row_height(std::span<const NamedPlot* const> plots, const std::vector<int>& spans, int max_columns,
                          ImVec2 min, ImVec2 max, float gap, ImVec2 cell, const plot::Style& style, float em) {
  const float font_size = style.font_size > 0.0f ? style.font_size : em;  // as plot::draw resolves it
  const plot::TextWidthFn measure = current_font_width();
  const auto reads_in = [&](const NamedPlot& named, ImVec2 size) {
    return readable_data_area(plot::fit_plot(named.plot, size, style, font_size, measure));
  };
  const float tallest = 3.0f * cell.y;
  FlowGrid grid = flow_grid_px(spans, max_columns, min, max, gap, cell.x, cell.y);
  while (cell.y < tallest) {
    float grown = cell.y;
    for (std::size_t k = 0; k < plots.size() && k < grid.min.size(); ++k) {
      const ImVec2 size(grid.max[k].x - grid.min[k].x, grid.max[k].y - grid.min[k].y);
      if (reads_in(*plots[k], size) || !reads_in(*plots[k], ImVec2(size.x, std::max(size.y, tallest)))) continue;
      grown = std::max(grown, size.y + em / 1.3f);
    }
    if (grown <= cell.y) break;
    cell.y = std::min(grown, tallest);
    grid = flow_grid_px(spans, max_columns, min, max, gap, cell.x, cell.y);
  }
  return cell.y;
}

}  // namespace

namespace {

// How small a grid may draw its plots' text to show more of the view's plots at once: 0.55 of the
// UI font, never under 14 px. A projector shows a window of any size on the same screen, so at
// 1280×720 the projector's 1.5× font at 0.55 (16 px) is as large in the room as 24 px at
// 1920×1080, larger than the 17 px of font 1 there; the UI's own text (sliders, tabs, lessons)
// keeps its size.
constexpr float min_text_scale = 0.55f, min_text_px = 14.0f, text_scale_step = 0.05f;

struct GridPlacement {
  UiState::GridCell::Placed placed;
  FlowGrid grid;
  std::size_t whole = 0;  // plots wholly inside the area (nothing to scroll to)
};

std::size_t wholly_inside(const FlowGrid& grid, ImVec2 max) {
  std::size_t whole = 0;
  for (std::size_t k = 0; k < grid.max.size(); ++k)
    if (grid.max[k].y <= max.y + 0.5f && grid.max[k].x <= max.x + 0.5f) ++whole;
  return whole;
}

// The grid of the plots in [min, max] at the UI font: cells at least `full_cell` (the readable one,
// already known), rows as tall as readable_row_height finds.
GridPlacement place_full(std::span<const NamedPlot* const> plots, const std::vector<int>& spans, int max_columns,
                         ImVec2 min, ImVec2 max, float gap, ImVec2 area, ImVec2 full_cell, const plot::Style& style,
                         float em) {
  GridPlacement result;
  result.placed.area = area;
  result.placed.cell = full_cell;
  result.placed.row_height = readable_row_height(plots, spans, max_columns, min, max, gap, full_cell, style, em);
  result.grid = flow_grid_px(spans, max_columns, min, max, gap, full_cell.x, result.placed.row_height);
  result.whole = wholly_inside(result.grid, max);
  return result;
}

// The grid of `columns` columns that fills [min, max] with the plots' text at `scale` of the font,
// where every plot is readable in the cell it gets (lesson_layout.hpp's rule, no slack: these are
// the cells drawn) and every cell has the em minimum at that size; nullopt where that cannot be or
// the plots do not all fit at once. Each row is as tall as its plots need to read (a plot with its
// legend above its data needs more than a map), the height left over shared out evenly.
std::optional<GridPlacement> place_all_at(float scale, int columns, std::span<const NamedPlot* const> plots,
                                          const std::vector<int>& spans, ImVec2 min, ImVec2 max, float gap, ImVec2 area,
                                          const plot::Style& style, float em) {
  plot::Style scaled = style;
  const float font_size = (style.font_size > 0.0f ? style.font_size : em) * scale;
  scaled.font_size = font_size;
  const ImVec2 least = smallest_cell(plots, em * scale);
  FlowGrid grid = flow_grid_px(spans, columns, min, max, gap, least.x, least.y);
  if (grid.columns != columns || grid.bottom > max.y + 0.5f || grid.min.size() < plots.size()) return std::nullopt;
  const plot::TextWidthFn measure = current_font_width();
  const auto reads = [&](std::size_t k, float height) {
    return reads_at(*plots[k], ImVec2(grid.max[k].x - grid.min[k].x, height), scaled, font_size, measure);
  };
  // The rows: runs of plots at the same top.
  std::vector<std::pair<std::size_t, std::size_t>> rows;
  for (std::size_t k = 0; k < plots.size(); ++k) {
    if (grid.max[k].x - grid.min[k].x + 0.5f < least.x) return std::nullopt;
    if (rows.empty() || grid.min[k].y != grid.min[rows.back().first].y) rows.emplace_back(k, k);
    rows.back().second = k + 1;
  }
  const float room = max.y - min.y - gap * static_cast<float>(rows.size() - 1);
  // Each row's least readable height, found to within a pixel between the em minimum and the room.
  std::vector<float> needed;
  float total = 0.0f;
  for (const auto& row : rows) {
    const std::size_t first = row.first, end = row.second;  // named: clang's lambdas take no bindings
    const auto row_reads = [&](float height) {
      for (std::size_t k = first; k < end; ++k)
        if (!reads(k, height)) return false;
      return true;
    };
    float low = least.y, high = room;
    if (!row_reads(high)) return std::nullopt;
    if (!row_reads(low)) {
      while (high - low > 1.0f) {
        const float middle = 0.5f * (low + high);
        (row_reads(middle) ? high : low) = middle;
      }
      low = high;
    }
    needed.push_back(std::ceil(low));
    total += needed.back();
  }
  if (total > room + 0.5f) return std::nullopt;
  // The rows with the height left over shared out; where a plot reads differently in its taller
  // cell (a legend that moves and shortens an entry), the rows at just what they need.
  const auto place_rows = [&](float extra) {
    float top = min.y;
    for (std::size_t row = 0; row < rows.size(); ++row) {
      const float height = std::floor(needed[row] + extra);
      for (std::size_t k = rows[row].first; k < rows[row].second; ++k) {
        grid.min[k].y = top;
        grid.max[k].y = top + height;
      }
      top += height + gap;
    }
    grid.bottom = top - gap;
    for (std::size_t k = 0; k < plots.size(); ++k)
      if (!reads(k, grid.max[k].y - grid.min[k].y)) return false;
    return true;
  };
  const float extra = (room - total) / static_cast<float>(rows.size());
  if (!place_rows(extra) && !place_rows(0.0f)) return std::nullopt;
  GridPlacement result;
  result.placed.area = area;
  result.placed.text_scale = scale;
  result.placed.cell = least;
  result.placed.row_height = grid.max.front().y - grid.min.front().y;
  result.whole = wholly_inside(grid, max);
  result.grid = std::move(grid);
  return result;
}

// The plots at the UI font where they all show at once; else the largest text scale from 1 down in
// steps of 0.05 to the smallest allowed (and the most columns at it) at which they all show at once,
// each readable in its cell; else the grid at the UI font or at the smallest text, whichever shows
// more plots whole, unless more of the first plots (two at least) show at once so, the rest below
// (the content scrolls).
GridPlacement place_grid(std::span<const NamedPlot* const> plots, const std::vector<int>& spans, int max_columns,
                         ImVec2 min, ImVec2 max, float gap, ImVec2 area, ImVec2 full_cell, const plot::Style& style,
                         float em, bool shrink_text) {
  GridPlacement full = place_full(plots, spans, max_columns, min, max, gap, area, full_cell, style, em);
  if (!shrink_text || full.whole == plots.size()) return full;
  const float base = style.font_size > 0.0f ? style.font_size : em;
  const float smallest = std::min(1.0f, std::max(min_text_scale, min_text_px / base));
  // The largest text scale, from `first_step` steps below 1 down to the smallest, and the most
  // columns at it, at which `some` all show at once, each readable in its cell.
  const auto at_largest_scale = [&](std::span<const NamedPlot* const> some, const std::vector<int>& some_spans,
                                    int first_step) -> std::optional<GridPlacement> {
    for (int step = first_step;; ++step) {
      const float scale = std::max(smallest, 1.0f - text_scale_step * static_cast<float>(step));
      for (int columns = std::max(1, std::min(max_columns, spanned(some_spans))); columns >= 1; --columns)
        if (auto placed = place_all_at(scale, columns, some, some_spans, min, max, gap, area, style, em)) return placed;
      if (scale <= smallest) return std::nullopt;
    }
  };
  if (auto placed = at_largest_scale(plots, spans, 1)) return *placed;
  // They do not all fit at any scale. The grid at the UI font, or at the smallest text where that
  // shows more plots whole and every plot reads there (nothing given up, no legend entry shortened).
  GridPlacement best = std::move(full);
  plot::Style scaled = style;
  scaled.font_size = base * smallest;
  GridPlacement least = place_full(plots, spans, max_columns, min, max, gap, area,
                                   readable_cell(plots, scaled, em * smallest), scaled, em * smallest);
  if (least.whole > best.whole) {
    const plot::TextWidthFn measure = current_font_width();
    bool reads = true;
    for (std::size_t k = 0; k < plots.size() && k < least.grid.min.size(); ++k) {
      const ImVec2 size(least.grid.max[k].x - least.grid.min[k].x, least.grid.max[k].y - least.grid.min[k].y);
      reads = reads && reads_at(*plots[k], size, scaled, scaled.font_size, measure);
    }
    if (reads) {
      least.placed.text_scale = smallest;
      best = std::move(least);
    }
  }
  // Better still where more of the first plots fit at once, each readable, at the largest text
  // scale that lets them (a view of seven plots shows its first two or three side by side, not
  // one): the others go below at that scale (the content scrolls). Where that leaves one plot alone,
  // the same in equal columns: a wide plot beside a narrow one may leave the narrow one too little (a
  // map in a third of 1024 px reads no more than its title and colour bar), and two plots at a
  // smaller text beat one.
  const float height = max.y - min.y;
  for (const bool equal : {false, true}) {
    if (equal && (best.whole >= 2 || std::none_of(spans.begin(), spans.end(), [](int span) { return span > 1; })))
      break;
    for (std::size_t count = plots.size() - 1; count >= 2 && count > best.whole; --count) {
      const std::span<const NamedPlot*const> head = plots.first(count), rest = plots.subspan(count);
      const std::vector<int> head_spans =
          equal ? std::vector<int>(count, 1)
                : std::vector<int>(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(count));
      const std::vector<int> rest_spans(spans.begin() + static_cast<std::ptrdiff_t>(count), spans.end());
      std::optional<GridPlacement> first = at_largest_scale(head, head_spans, 0);
      if (!first) continue;
      const float scale = first->placed.text_scale;
      plot::Style at_scale = style;
      at_scale.font_size = base * scale;
      const ImVec2 below(min.x, first->grid.bottom + gap);
      const GridPlacement others =
          place_full(rest, rest_spans, max_columns, below, ImVec2(max.x, below.y + height), gap, area,
                     readable_cell(rest, at_scale, em * scale), at_scale, em * scale);
      first->grid.min.insert(first->grid.min.end(), others.grid.min.begin(), others.grid.min.end());
      first->grid.max.insert(first->grid.max.end(), others.grid.max.begin(), others.grid.max.end());
      first->grid.bottom = others.grid.bottom;
      first->whole = wholly_inside(first->grid, max);
      return *first;
    }
  }
  return best;
}

}  // namespace

void draw_plot_grid(std::string_view view_name, const std::vector<NamedPlot>& plots, int max_columns, ImVec2 min,
                    ImVec2 max, const plot::Style& style, UiState& ui,
                    const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover, bool shrink_text) {
  if (plots.empty()) return;
  std::vector<int> spans;
  std::vector<const NamedPlot*> pointers;
  for (const NamedPlot& named : plots) {
    spans.push_back(named.column_span);
    pointers.push_back(&named);
  }
  const float gap = ImGui::GetStyle().ItemSpacing.x;
  const float em = ImGui::GetFontSize();
  // Cells every plot reads in at the UI font (the content scrolls when they do not all fit), found
  // once per view, font and language: a plot's margins, not its data, decide it.
  const UiState::GridCell::Key key{static_cast<int>(ui.view), static_cast<int>(i18n::language()),
                                   static_cast<int>(ui.theme), em, plots.size()};
  if (ui.grid_cell.key != key) {
    ui.grid_cell.key = key;
    ui.grid_cell.size = readable_cell(pointers, style, em);
    ui.grid_cell.placed = {};
  }
  // The text scale and the rows' height for this area, found again when the area's size changes.
  const ImVec2 area(std::round(max.x - min.x), std::round(max.y - min.y));
  FlowGrid grid;
  if (ui.grid_cell.placed.area.x != area.x || ui.grid_cell.placed.area.y != area.y) {
    GridPlacement placement =
        place_grid(pointers, spans, max_columns, min, max, gap, area, ui.grid_cell.size, style, em, shrink_text);
    grid = std::move(placement.grid);
    ui.grid_cell.placed = std::move(placement.placed);
    for (std::size_t k = 0; k < grid.min.size(); ++k) {
      ui.grid_cell.placed.cell_min.push_back(ImVec2(grid.min[k].x - min.x, grid.min[k].y - min.y));
      ui.grid_cell.placed.cell_max.push_back(ImVec2(grid.max[k].x - min.x, grid.max[k].y - min.y));
    }
  } else {
    // The same cells (the area scrolls: its corner moves, the grid does not change).
    for (std::size_t k = 0; k < ui.grid_cell.placed.cell_min.size(); ++k) {
      grid.min.push_back(ImVec2(min.x + ui.grid_cell.placed.cell_min[k].x, min.y + ui.grid_cell.placed.cell_min[k].y));
      grid.max.push_back(ImVec2(min.x + ui.grid_cell.placed.cell_max[k].x, min.y + ui.grid_cell.placed.cell_max[k].y));
    }
  }
  plot::Style placed_style = style;
  if (ui.grid_cell.placed.text_scale < 1.0f)
    placed_style.font_size = (style.font_size > 0.0f ? style.font_size : em) * ui.grid_cell.placed.text_scale;
  draw_plots_in(view_name, pointers, grid, placed_style, ui, on_hover);
}

LabView build_dashboard(const Snapshot& snap, const DkSweep& sweep, std::uintptr_t scaled_map,
                        std::uintptr_t unscaled_map) {
  LabView view;
  view.columns = 3;
  // Three by two at classroom sizes: the row's distribution beside its S(1−S) parabola and the
  // entropy over d_k (the two plots whose legends sit above their data share the taller row), then
  // the entropy over T beside the scaled and unscaled maps.
  view.plots.push_back({"distribution", distribution_plot(snap)});
  view.plots.push_back({"gradient", gradient_plot(snap)});
  view.plots.push_back({"entropy_dk", entropy_dk_plot(sweep, snap.params.key_dim)});
  view.plots.push_back({"entropy_t", entropy_temperature_plot(snap)});
  view.plots.push_back({"attention_scaled", attention_plot(snap, true, scaled_map)});
  view.plots.push_back({"attention_unscaled", attention_plot(snap, false, unscaled_map)});
  return view;
}

namespace {

// [SECTION] Layout keys

// Whether the control column is shown: in a lesson the lesson's own choice (hidden at first: the
// step's text and panels take the window), else the user's.
bool& controls_flag(UiState& ui) {
  return current_step(ui) != nullptr ? ui.lesson_view.controls_shown : ui.controls_shown;
}

// The keys of the layout, when no text field has the keyboard: Ctrl+B or F9 shows/hides the
// control column, F5 enters presenter mode with the hovered plot, Escape leaves it (and only
// it: an open lesson stays open). In presenter mode without a lesson, PageDown/PageUp and the
// arrows step through the view's plots.
void handle_layout_keys(UiState& ui, const std::vector<NamedPlot>& plots) {
  ui.escape_taken = false;
  const ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  if ((io.KeyCtrl && ImGui::IsKeyPressed(GLFW_KEY_B, false)) || ImGui::IsKeyPressed(GLFW_KEY_F9, false))
    controls_flag(ui) = !controls_flag(ui);
  if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) {
    if (!ui.presenter && !ui.hovered_plot.empty()) ui.presenter_focus = ui.hovered_plot;
    ui.presenter = !ui.presenter;
  }
  if (ui.presenter && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) {
    ui.presenter = false;
    ui.escape_taken = true;
  }
  if (!ui.presenter || current_step(ui) != nullptr || plots.empty() || io.KeyCtrl || io.KeyAlt) return;
  const std::string prefix = std::string(view_info(ui.view).name) + "/";
  int index = 0;
  for (std::size_t k = 0; k < plots.size(); ++k)
    if (prefix + plots[k].name == ui.presenter_focus) index = static_cast<int>(k);
  const int count = static_cast<int>(plots.size());
  // One press, one plot (no key repeat), as for lesson steps (lesson_panel.cpp).
  if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, false) || ImGui::IsKeyPressed(GLFW_KEY_RIGHT, false) ||
      ImGui::IsKeyPressed(GLFW_KEY_DOWN, false))
    index = (index + 1) % count;
  else if (ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, false) || ImGui::IsKeyPressed(GLFW_KEY_LEFT, false) ||
           ImGui::IsKeyPressed(GLFW_KEY_UP, false))
    index = (index + count - 1) % count;
  ui.presenter_focus = prefix + plots[static_cast<std::size_t>(index)].name;
}

// [SECTION] The lesson view and presenter mode: the step's panels around its text

void scroll_to_lesson_panel(UiState& ui, bool settled);

// The notes a lesson step shows with its text: those that write a number the text quotes (the
// online softmax's running sums, the loss T²·KL), not every read-out of the lab.
std::vector<std::string> notes_backing(const std::vector<std::string>& notes, std::string_view text) {
  // Numbers precise enough not to match by chance: two decimals or three significant digits
  // ("1.37", "0.27", "11.09"; not a score such as "1.5", which a note about 1.5-entmax also writes).
  const auto precise = [](const std::string& written) {
    const std::size_t point = written.find('.');
    const std::size_t decimals = point == std::string::npos ? 0
                                 : written.find_first_not_of("0123456789", point + 1) == std::string::npos
                                     ? written.size() - point - 1
                                     : written.find_first_not_of("0123456789", point + 1) - point - 1;
    std::size_t significant = 0;
    bool leading = true;
    for (const char c : written) {
      if (c < '0' || c > '9') continue;
      if (c != '0') leading = false;
      if (!leading) ++significant;
    }
    return decimals >= 2 || significant >= 3;
  };
  std::vector<QuotedNumber> quoted;
  for (QuotedNumber& number : quoted_numbers(text))
    if (number.measured && precise(number.text)) quoted.push_back(std::move(number));
  std::vector<std::string> shown;
  for (const std::string& note : notes) {
    const std::vector<QuotedNumber> written = quoted_numbers(note);
    const bool backs = std::any_of(quoted.begin(), quoted.end(), [&](const QuotedNumber& number) {
      return std::any_of(written.begin(), written.end(),
                         [&](const QuotedNumber& value) { return matches(number, value.value); });
    });
    if (backs) shown.push_back(note);
  }
  return shown;
}

// Narrower than this (and taller than wide) the lesson view is a phone's: the text over the plots.
constexpr float phone_width_em = 36.0f;

// The smallest cell the lesson layout tries: a small multiple's (lab_temperature.cpp).
constexpr float lesson_cell_min_width_em = 8.0f, lesson_cell_min_height_em = 7.0f;

// The plots a lesson step shows: its "panels" in their order when its view is the one drawn, else
// all of the view's.
std::vector<const NamedPlot*> step_shown_plots(const UiState& ui, const std::vector<NamedPlot>& plots) {
  std::vector<const NamedPlot*> shown;
  const LessonStep* step = current_step(ui);
  if (step != nullptr && step->view == ui.view) {
    for (std::string_view name : step_plots(*step))
      for (const NamedPlot& named : plots)
        if (named.name == name) shown.push_back(&named);
    return shown;
  }
  for (const NamedPlot& named : plots) shown.push_back(&named);
  return shown;
}

// How many cells the step's panels will take once the view is computed (plots may not be built yet).
std::size_t step_cell_count(const UiState& ui, std::span<const NamedPlot* const> shown) {
  const LessonStep* step = current_step(ui);
  if (!shown.empty() || step == nullptr || step->view != ui.view) return shown.size();
  return step_plots(*step).size();
}

// Plans the open step's text and `shown` plots in [min, max] (panels/lesson_layout.hpp) when what the
// plan depends on changed, leaves the text's box in ui.lesson_report.text_box for draw_lesson, and draws the
// plots into their frames (in a child that scrolls only where no arrangement fits).
void draw_lesson_view(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep,
                      std::span<const NamedPlot* const> shown, ImVec2 min, ImVec2 max, bool presenter,
                      const plot::Style& style,
                      const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  const float em = ImGui::GetFontSize();
  LessonView::Plan& plan = ui.lesson_view.plan;
  LessonView::Plan::Key key;
  key.step = {ui.lesson.open->lesson, ui.lesson.open->step};
  key.view = ui.view;
  key.area[0] = min.x;
  key.area[1] = min.y;
  key.area[2] = max.x;
  key.area[3] = max.y;
  key.font_size = em;
  key.language = static_cast<int>(i18n::language());
  key.theme = static_cast<int>(ui.theme);
  key.presenter = presenter;
  key.revealed = ui.lesson.revealed;
  key.answer_ready = snapshot != nullptr && !ui.lesson.animating;  // a revealed answer's lines
  key.plots_of_step = snapshot != nullptr && snapshot->params == current_step(ui)->params;
  if (const LessonStep* step = current_step(ui); snapshot != nullptr && ui.lesson.revealed && step->predict) {
    const Result<PredictionReveal> reveal = reveal_prediction(*step->predict, *snapshot, ui.lesson.guess, sweep);
    key.answer_converged = reveal.ok() && reveal->converged;
  }
  key.plots_built = !shown.empty();
  key.plots = step_cell_count(ui, shown);
  key.typed = ui.lesson_view.presenter_typed;
  key.notes = ui.lesson_report.notes;
  key.text_bytes = step_text(*current_step(ui), i18n::language(), snapshot, sweep).size();
  if (plan.key != key) {
    // Cells down to a small multiple's size: whether a plot reads there is the fit's to say (its
    // data area and nothing given up), not a fixed minimum.
    const ImVec2 cell(lesson_cell_min_width_em * em, lesson_cell_min_height_em * em);
    LessonLayoutRequest request;
    request.min = min;
    request.max = max;
    request.plots = key.plots;
    request.cell_min = cell;
    request.gap = ImGui::GetStyle().ItemSpacing.x;
    request.text_min_width = 10.0f * em;  // ~20 Latin characters, 10 Chinese
    // A phone held upright (390×844 at font 1: 30 em wide) stacks the text over the plots; a tablet
    // (768 px, 59 em) or a phone on its side keeps them side by side.
    request.stacked = max.y - min.y > max.x - min.x && max.x - min.x < phone_width_em * em;
    // The lesson text a little larger than the controls where there is room; the presenter caption
    // larger still; down to the UI font where the step has much to say, and 0.9× and 0.85× it as last
    // resorts (a large font in a small window: 25–26 px at 1024×768 and font 1.5).
    request.text_scales = presenter ? std::vector<float>{1.5f, 1.3f, 1.15f, 1.0f, 0.9f, 0.85f}
                                    : std::vector<float>{1.2f, 1.0f, 0.9f, 0.85f};
    request.text_height = [&](float width, float scale) {
      return lesson_block_height(ui, snapshot, sweep, width, scale, presenter);
    };
    if (!shown.empty()) {
      const float font_size = style.font_size > 0.0f ? style.font_size : em;  // as plot::draw resolves it
      const plot::TextWidthFn measure = current_font_width();
      // font_size and measure by value: this block ends before plan_lesson_layout calls the fit.
      request.fit = [&shown, &style, font_size, measure](std::size_t index, ImVec2 size) {
        return plot::fit_plot(shown[index]->plot, size, style, font_size, measure);
      };
    }
    const LessonLayout layout = plan_lesson_layout(request);
    ui.lesson_report.text_box = {layout.text_min, layout.text_max, layout.text_scale, true, layout.text_fits};
    plan.plot_min = layout.plot_min;
    plan.plot_max = layout.plot_max;
    plan.plots_fit = layout.plots_fit;
    plan.key = std::move(key);
  }
  ui.lesson_report.text_box.placed = true;
  if (shown.empty() || plan.plot_min.size() != shown.size()) return;
  // The frames as planned; a child window under them only scrolls where no arrangement fitted.
  ImVec2 top_left = plan.plot_min.front(), bottom_right = plan.plot_max.front();
  for (std::size_t k = 0; k < shown.size(); ++k) {
    top_left = ImVec2(std::min(top_left.x, plan.plot_min[k].x), std::min(top_left.y, plan.plot_min[k].y));
    bottom_right = ImVec2(std::max(bottom_right.x, plan.plot_max[k].x), std::max(bottom_right.y, plan.plot_max[k].y));
  }
  const ImVec2 child_min = top_left;
  const ImVec2 child_max(bottom_right.x, plan.plots_fit ? bottom_right.y : max.y);
  ImGui::SetCursorScreenPos(child_min);
  ImGui::BeginChild(
      "##content", ImVec2(child_max.x - child_min.x, std::max(child_max.y - child_min.y, 1.0f)), false,
      plan.plots_fit ? ImGuiWindowFlags_NoBackground | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoScrollWithMouse
                     : ImGuiWindowFlags_NoBackground);
  // Scrolled, the frames move with the child's scroll.
  const ImVec2 offset(ImGui::GetCursorScreenPos().x - child_min.x, ImGui::GetCursorScreenPos().y - child_min.y);
  FlowGrid grid;
  for (std::size_t k = 0; k < shown.size(); ++k) {
    grid.min.push_back(ImVec2(plan.plot_min[k].x + offset.x, plan.plot_min[k].y + offset.y));
    grid.max.push_back(ImVec2(plan.plot_max[k].x + offset.x, plan.plot_max[k].y + offset.y));
  }
  draw_plots_in(view_info(ui.view).name, shown, grid, style, ui, on_hover);
  if (!plan.plots_fit && snapshot != nullptr) {
    ImGui::SetCursorScreenPos(ImVec2(child_min.x, bottom_right.y + offset.y));
    ImGui::Dummy(ImVec2(1.0f, 1.0f));
    scroll_to_lesson_panel(ui, snapshot->params == ui.params);  // the step's panel in view once per step
  }
  ImGui::EndChild();
}

// Presenter mode: with a lesson open, the step's panels large and its caption beside or under them;
// without one, the chosen plot over the whole window. The keys hint along the bottom edge.
void draw_presenter(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const std::vector<NamedPlot>& plots,
                    const plot::Style& style,
                    const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  const ImGuiIO& io = ImGui::GetIO();
  const float margin = 8.0f * ui.ui_scale;
  const std::string view_name(view_info(ui.view).name);
  const float hint_line = ImGui::GetTextLineHeightWithSpacing();
  const ImVec2 min(margin, margin);
  const ImVec2 max(io.DisplaySize.x - margin, io.DisplaySize.y - margin - hint_line);
  if (current_step(ui) != nullptr) {
    draw_lesson_view(ui, snapshot, sweep, step_shown_plots(ui, plots), min, max, true, style, on_hover);
  } else {
    std::vector<const NamedPlot*> shown;
    for (const NamedPlot& named : plots)
      if (view_name + "/" + named.name == ui.presenter_focus) shown.push_back(&named);
    if (shown.empty() && !plots.empty()) shown.push_back(&plots.front());
    if (!shown.empty()) {
      const FlowGrid grid = flow_grid_px({1}, 1, min, max, 0.0f, 1.0f, 1.0f);
      draw_plots_in(view_name, shown, grid, style, ui, on_hover);
    }
  }
  const char* hint = i18n::tr("layout.presenter_hint");
  const ImVec2 hint_size = ImGui::CalcTextSize(hint);
  ImGui::GetForegroundDrawList()->AddText(
      ImVec2(io.DisplaySize.x - margin - hint_size.x, io.DisplaySize.y - hint_size.y - 2.0f),
      ImGui::GetColorU32(ImGuiCol_TextDisabled), hint);
}

// [SECTION] Scrolling to the lesson step's panel

// Inside the scrolling content child, after the plots are placed: when a lesson step opens whose
// highlighted panel lies (partly) outside the visible content, scroll so the panel's top shows
// (at 1280×720 a lab's third row of plots is below the fold). Once per step: after that the
// scroll bar is the user's. `settled`: the picture drawn is of the current Params; until then the
// layout may still move (a longer read-out above the panel, a glide still running), so the scroll
// is checked again on the next frame.
void scroll_to_lesson_panel(UiState& ui, bool settled) {
  if (!ui.lesson.open) return;
  const std::pair<std::size_t, std::size_t> step{ui.lesson.open->lesson, ui.lesson.open->step};
  if (ui.lesson_view.scrolled_to == step) return;
  const std::vector<const PlacedPlot*> panel = lesson_highlighted_plots(ui);
  if (panel.empty()) return;  // not drawn yet (the view is still computing): try next frame
  float top = panel.front()->min.y, bottom = panel.front()->max.y;
  for (const PlacedPlot* placed : panel) {
    top = std::min(top, placed->min.y);
    bottom = std::max(bottom, placed->max.y);
  }
  const float view_top = ImGui::GetWindowPos().y, view_bottom = view_top + ImGui::GetWindowHeight();
  if (top < view_top || bottom > view_bottom)
    ImGui::SetScrollY(std::max(0.0f, ImGui::GetScrollY() + top - view_top - ImGui::GetStyle().ItemSpacing.y));
  if (settled) ui.lesson_view.scrolled_to = step;
}

// [SECTION] The compact layout

// A narrow page (DashboardLayout::compact): one plot at a time, the open lesson step's panel or
// the one chosen with ◀ ▶, under a line that says so and what else is where.
void draw_compact_content(UiState& ui, const std::vector<NamedPlot>& plots, ImVec2 min, ImVec2 max,
                          const plot::Style& style,
                          const std::function<void(const NamedPlot&, const plot::Interaction&)>& on_hover) {
  if (plots.empty()) return;
  const int count = static_cast<int>(plots.size());
  int index = ((ui.compact_plot % count) + count) % count;
  bool from_lesson = false;
  if (const LessonStep* step = current_step(ui); step != nullptr && step->view == ui.view)
    if (const LessonPanel* panel = find_lesson_panel(step->view, step->panel))
      for (int k = 0; k < count && !from_lesson; ++k)
        if (std::find(panel->plots.begin(), panel->plots.end(), plots[static_cast<std::size_t>(k)].name) !=
            panel->plots.end()) {
          index = k;
          from_lesson = true;
        }
  ImGui::SetCursorScreenPos(min);
  ImGui::BeginGroup();
  if (ImGui::ArrowButton("##compact-previous", ImGuiDir_Left)) ui.compact_plot = index - 1;
  ImGui::SameLine();
  if (ImGui::ArrowButton("##compact-next", ImGuiDir_Right)) ui.compact_plot = index + 1;
  ImGui::SameLine();
  ImGui::TextUnformatted((std::to_string(index + 1) + "/" + std::to_string(count)).c_str());
  // The note says where the rest is; with the drawer open its lines are the plot's room.
  if (!controls_flag(ui)) {
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    plot::wrapped_text(i18n::format("layout.compact_note", {std::to_string(count)}), max.x - min.x);
    ImGui::PopStyleColor();
  }
  ImGui::EndGroup();
  const float top = ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y;
  std::vector<NamedPlot> one{plots[static_cast<std::size_t>(index)]};
  one.front().column_span = 1;
  one.front().min_height_em = 0.0f;
  // In a child of the area: a plot taller than the room left above the drawer scrolls there (by
  // the wheel, two fingers, or one dragged beside the plot) and never paints over the drawer.
  ImGui::SetCursorScreenPos(ImVec2(min.x, top));
  const ImVec2 area(max.x - min.x, std::max(max.y - top, 1.0f));
  ImGui::BeginChild("##compact-plot", area, false, ImGuiWindowFlags_NoBackground);
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  draw_plot_grid(view_info(ui.view).name, one, 1, origin, ImVec2(origin.x + area.x, origin.y + area.y), style, ui,
                 on_hover, false);
  scroll_by_drag();
  ImGui::EndChild();
}

}  // namespace

// [SECTION] The main window

void draw_main_window(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, const HeatmapTextures& textures,
                      TexturePool& lab_textures, ViewCache& view_cache, const plot::Style& style,
                      const FrameStats& stats) {
  const ImGuiIO& io = ImGui::GetIO();
  // With a lesson open the step's text and panels take the window; its own flag shows the column.
  const bool lesson_open = current_step(ui) != nullptr;
  ImGui::SetNextWindowPos(ImVec2(0, 0));
  ImGui::SetNextWindowSize(io.DisplaySize);
  // No window background: the clear colour already paints it, and on a software
  // rasteriser every full-screen fill costs ~10 ms at 1600×900.
  constexpr ImGuiWindowFlags full_window = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                           ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoBringToFrontOnFocus |
                                           ImGuiWindowFlags_NoScrollWithMouse | ImGuiWindowFlags_NoBackground;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(0, 0));
  ImGui::Begin("Softmax Lab", nullptr, full_window);
  ImGui::PopStyleVar();

  // Every edit this frame (sliders, score field, lab settings, dragged bars) goes
  // to one copy of Params, validated once at the end.
  Params edit = ui.params;
  ui.placed_plots.clear();
  ui.control_items.clear();
  ui.layout_report.plots.clear();
  ui.hovered_plot.clear();
  ui.lesson_report.text_box.placed = false;
  ui.lesson_report.text.clear();
  ui.lesson_report.bound_numbers.clear();
  ui.lesson_report.marks.clear();
  ui.lesson_report.next_button = ui.lesson_report.guess_field = {};

  // The view's plots (the dashboard's or a lab's), built once per Snapshot (and colour scale,
  // language, pins) by view_cache and only drawn here, by the grid or by presenter mode.
  const LabDefinition* lab = lab_definition(ui.view);
  const bool ready = snapshot != nullptr && (lab == nullptr || lab_ready(*snapshot, ui.view));
  LabView not_ready;
  not_ready.columns = 3;
  const LabView* shown = &not_ready;
  if (ready) {
    const DkSweep& dk_sweep = sweep != nullptr ? *sweep : snapshot->dk_sweep;
    shown = &view_cache.view(ui.view, ViewInputs{.snapshot = *snapshot,
                                                 .sweep = dk_sweep,
                                                 .textures = lab_textures,
                                                 .scaled_map = textures.scaled,
                                                 .unscaled_map = textures.unscaled,
                                                 .pins = &ui.pins,
                                                 .scales = style.color_scales});
  }
  const LabView& lab_view = *shown;
  const std::vector<NamedPlot>& plots = lab_view.plots;
  const auto on_hover = [&](const NamedPlot& named, const plot::Interaction& interaction) {
    if (lab != nullptr && lab->interact != nullptr) lab->interact(named.name, interaction, edit);
  };
  handle_layout_keys(ui, plots);
  handle_training_keys(ui, edit, snapshot);
  const bool column_shown = controls_flag(ui);  // after the keys: Ctrl+B acts on this frame
  DashboardLayout layout = dashboard_layout(io.DisplaySize, ui.ui_scale, column_shown);
  ui.drawer.reset();
  if (layout.compact && column_shown) ui.drawer = std::pair(layout.controls_min, layout.controls_max);
  // A step that shows the lab's notes has them with its text. Not before a predict step's reveal:
  // they print numbers (the loss, the NaN count, the KL) that would give the answer away.
  ui.lesson_report.notes.clear();
  // Once revealed, the notes the answer's lines quote are shown too ("the loss is 16 times the KL").
  if (lesson_open && !lesson_awaiting_prediction(ui) && current_step(ui)->view == ui.view &&
      step_shows_notes(*current_step(ui))) {
    const LessonStep& step = *current_step(ui);
    std::string quoting = step_text(step, i18n::language(), snapshot, sweep);
    if (step.predict && step.predict->after && ui.lesson.revealed)
      quoting += "\n" + step.predict->after->in(i18n::language());
    ui.lesson_report.notes = notes_backing(lab_view.notes, quoting);
  }

  if (ui.presenter && (ready || lesson_open)) {
    draw_presenter(ui, ready ? snapshot : nullptr, sweep, plots, style, on_hover);
    apply_params(ui, edit);
    ImGui::End();
    return;
  }

  if (column_shown) {
    ImGui::SetCursorScreenPos(layout.controls_min);
    ImGui::BeginChild(
        "controls",
        ImVec2(layout.controls_max.x - layout.controls_min.x, layout.controls_max.y - layout.controls_min.y), true,
        ImGuiWindowFlags_MenuBar);
    if (ImGui::BeginMenuBar()) {  // File, Edit and View menus, inside the control column: the layout stays put
      draw_file_menu(ui);
      ImGui::EndMenuBar();
    }
    ImGui::TextUnformatted(i18n::tr("app.title"));
    // The tagline follows the title when it fits, else wraps below it (large fonts, narrow column).
    const char* tagline = i18n::tr("app.tagline");
    const float title_end = ImGui::GetItemRectMax().x + ImGui::GetStyle().ItemSpacing.x;
    const float column_end = content_right();
    const bool same_line = title_end + ImGui::CalcTextSize(tagline).x <= column_end;
    if (same_line) ImGui::SameLine();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::BeginGroup();
    plot::wrapped_text(tagline, same_line ? column_end - title_end : ImGui::GetContentRegionAvail().x);
    ImGui::EndGroup();
    ImGui::PopStyleColor();
    draw_controls(ui, edit, snapshot, stats);
    ImGui::EndChild();
  }

  // A lesson takes the tab strip's height too (its step picks the view; the lesson panel has the
  // « » button and, with the column hidden, the menus): the tab bar selects ui.view again when it
  // comes back.
  if (lesson_open) ui.select_view_tab = true;
  if (!lesson_open) {
    // With the column hidden its File, Edit and View menus stay: a strip of them left of the »
    // button, the button and the tabs moved right by its width. Not in the compact layout (a
    // phone): there the ≡ drawer holds the column and its menus, and the width goes to the tabs.
    float menu_strip = 0.0f;
    if (!column_shown && !layout.compact) {
      const ImGuiStyle& style = ImGui::GetStyle();
      menu_strip = 2.0f * style.WindowPadding.x;
      for (const char* menu : {"ui.menu.file", "ui.menu.edit", "ui.menu.view"})
        menu_strip += ImGui::CalcTextSize(i18n::tr(menu)).x + 2.0f * style.ItemSpacing.x;
      ImGui::SetCursorScreenPos(layout.toggle_min);
      ImGui::BeginChild("##menu-strip", ImVec2(menu_strip, layout.toggle_max.y - layout.toggle_min.y), false,
                        ImGuiWindowFlags_MenuBar | ImGuiWindowFlags_NoScrollbar | ImGuiWindowFlags_NoBackground);
      if (ImGui::BeginMenuBar()) {
        draw_file_menu(ui);
        ImGui::EndMenuBar();
      }
      ImGui::EndChild();
      menu_strip += 0.5f * style.ItemSpacing.x;
    }
    const ImVec2 toggle_min(layout.toggle_min.x + menu_strip, layout.toggle_min.y);
    const ImVec2 toggle_max(layout.toggle_max.x + menu_strip, layout.toggle_max.y);
    const ImVec2 tabs_min(layout.tabs_min.x + menu_strip, layout.tabs_min.y);

    // « hides the control column, » shows it (Ctrl+B, F9).
    ImGui::SetCursorScreenPos(toggle_min);
    const char* toggle = layout.compact ? "\xe2\x89\xa1###controls-toggle"  // ≡: the drawer
                         : column_shown ? "<<###controls-toggle"
                                        : ">>###controls-toggle";
    if (ImGui::Button(toggle, ImVec2(toggle_max.x - toggle_min.x, toggle_max.y - toggle_min.y)))
      controls_flag(ui) = !column_shown;
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("layout.controls_toggle"));

    ImGui::SetCursorScreenPos(tabs_min);
    ImGui::PushItemWidth(std::max(layout.tabs_max.x - tabs_min.x, 1.0f));
    // The strip scrolls (arrows at its end) rather than clipping tabs; the selected tab is scrolled into view.
    if (ImGui::BeginTabBar("views", ImGuiTabBarFlags_FittingPolicyScroll)) {
      for (const ViewInfo& info : all_views()) {
        // Select the tab that ui.view names on the first frame (e.g. --view) and keep
        // ImGui's own selection afterwards.
        const ImGuiTabItemFlags flags = ui.select_view_tab && info.view == ui.view ? ImGuiTabItemFlags_SetSelected : 0;
        // "title###name": the tab keeps its ID (and ImGui its selection) when the language changes.
        const std::string tab_label = std::string(view_title(info.view)) + "###" + std::string(info.name);
        if (ImGui::BeginTabItem(tab_label.c_str(), nullptr, flags)) {
          if (!ui.select_view_tab) ui.view = info.view;
          ImGui::EndTabItem();
        }
        if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", view_summary(info.view));
      }
      ui.select_view_tab = false;
      ImGui::EndTabBar();
    }
    ImGui::PopItemWidth();

    // The column collapsed: its strip, the view's main sliders under the tabs (not on a phone,
    // whose drawer holds the column), and the content below it.
    if (!column_shown && !layout.compact && !main_keys(ui.view).empty()) {
      ImGui::SetCursorScreenPos(layout.content_min);
      ImGui::BeginGroup();
      const ControlsReport strip =
          draw_control_strip(edit, main_keys(ui.view), layout.content_max.x - layout.content_min.x);
      ImGui::EndGroup();
      if (!strip.hovered_key.empty()) ui.interaction.nudge_key_this_frame = std::string(strip.hovered_key);
      ui.control_items.insert(ui.control_items.end(), strip.keys.begin(), strip.keys.end());
      layout.content_min.y =
          std::min(ImGui::GetItemRectMax().y + ImGui::GetStyle().ItemSpacing.y, layout.content_max.y - 1.0f);
    }
  }

  if (lesson_open) {
    // The step's text and just its panels, arranged to fit the content area without scrolling.
    draw_lesson_view(ui, ready ? snapshot : nullptr, sweep, step_shown_plots(ui, plots),
                     ImVec2(layout.toggle_min.x, layout.toggle_min.y), layout.content_max, false, style, on_hover);
    if (!ready) {
      ImGui::SetCursorScreenPos(ImVec2(
          layout.content_max.x - ImGui::CalcTextSize(i18n::tr("dashboard.computing_first")).x, layout.content_min.y));
      ImGui::TextDisabled("%s", i18n::tr("dashboard.computing_first"));
    }
  } else if (snapshot == nullptr) {
    ImGui::SetCursorScreenPos(layout.content_min);
    ImGui::TextDisabled("%s", i18n::tr("dashboard.computing_first"));
  } else if (!ready) {
    ImGui::SetCursorScreenPos(layout.content_min);
    ImGui::TextDisabled("%s", i18n::format("dashboard.computing_lab", {view_title(ui.view)}).c_str());
  } else if (layout.compact) {
    draw_compact_content(ui, plots, layout.content_min, layout.content_max, style, on_hover);
  } else {
    // The content scrolls when the readable minimum of its plots is taller than the window.
    ImGui::SetCursorScreenPos(layout.content_min);
    const ImVec2 size(layout.content_max.x - layout.content_min.x, layout.content_max.y - layout.content_min.y);
    ImGui::BeginChild("##content", size, false, ImGuiWindowFlags_NoBackground);
    const ImVec2 origin = ImGui::GetCursorScreenPos();
    // Room for a scroll bar is kept on the right so a scrolling grid does not jump.
    const float width = size.x - ImGui::GetStyle().ScrollbarSize;
    ImVec2 min = origin;
    if (lab != nullptr) {
      const float gap = ImGui::GetStyle().ItemSpacing.x;
      // The explanation and notes take at most 30 % of the height (at least four lines) and
      // scroll on their own beyond that: at 1280×720 with a large font they took half the
      // height and pushed the plots below the window.
      // Under a predict step not revealed yet the notes are drawn invisible: they print numbers
      // (the loss, the NaN count, the KL) that would give the answer away. Same place kept, so the
      // plots do not move when the answer is revealed.
      const std::vector<std::string>& notes = lab_view.notes;
      const bool hide_notes = lesson_awaiting_prediction(ui);
      const auto draw_notes = [&](float wrap_width) {
        if (hide_notes) {
          ImGui::PushStyleColor(ImGuiCol_Text, ImVec4(0, 0, 0, 0));
          ImGui::PushStyleColor(ImGuiCol_TextDisabled, ImVec4(0, 0, 0, 0));
        }
        for (const std::string& note : notes) plot::wrapped_text(note, wrap_width, true);
        if (hide_notes) ImGui::PopStyleColor(2);
      };
      const plot::MeasureText measure = [](std::string_view text) {
        return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x;
      };
      const float text_width = width - ImGui::GetStyle().ScrollbarSize;
      std::size_t lines = plot::wrap_text(lab_view.explanation, text_width, measure).size();
      for (const std::string& note : notes) lines += plot::wrap_text(note, text_width, measure).size();
      const float line_height = ImGui::GetTextLineHeightWithSpacing();
      const float text_height = static_cast<float>(lines) * line_height;
      // All of it where a row of readable plots still fits under it (the stability lab's notes were
      // cut at "stable:" at 1280×720 with 40 % of the height unused), else at least 30 % of the
      // height; whole lines, so the last visible one is not cut through.
      const float row = ui.grid_cell.key && ui.grid_cell.key->view == static_cast<int>(ui.view)
                            ? ui.grid_cell.size.y
                            : min_plot_height_em * ImGui::GetFontSize();
      const float room = std::max(0.3f * size.y, size.y - row - 2.0f * ImGui::GetStyle().ItemSpacing.y);
      const float limit = std::max(4.0f, std::floor(room / line_height)) * line_height;
      // In a short content area (under 24 lines of text: 1280×720 or 1024×768 at the projector's
      // font) where the text would take more than a quarter of it, its first line stands for it
      // with a button that opens the rest: the temperature lab's seven lines left its plots a
      // quarter of the window, four of its eight small multiples, against over a third at 1080p.
      // The plots are what the room reads, and the lecturer says the rest.
      constexpr float lab_text_fold_share = 0.25f, short_content_lines = 24.0f;
      const bool folded = size.y < short_content_lines * line_height && text_height > lab_text_fold_share * size.y;
      if (folded && !ui.lab_text_open) {
        const std::string more = i18n::tr("dashboard.lab_text.more");
        const float button = ImGui::CalcTextSize(more.c_str()).x + 2.0f * ImGui::GetStyle().FramePadding.x;
        const float first_width = width - button - ImGui::GetStyle().ItemSpacing.x;
        const std::vector<plot::LineSpan> lines_of =
            plot::wrap_text(lab_view.explanation, first_width - ImGui::CalcTextSize(" …").x, measure);
        std::string first;
        if (!lines_of.empty())
          first = lab_view.explanation.substr(lines_of.front().begin, lines_of.front().end - lines_of.front().begin) +
                  (lines_of.size() > 1 ? " …" : "");
        ImGui::TextUnformatted(first.c_str());  // one text line: the small button is no taller
        ImGui::SameLine();
        if (ImGui::SmallButton(more.c_str())) ui.lab_text_open = true;
      } else if (text_height > limit) {
        ImGui::BeginChild("##explanation", ImVec2(width, limit), false);
        plot::wrapped_text(lab_view.explanation, text_width);
        draw_notes(text_width);
        if (folded && ImGui::SmallButton(i18n::tr("dashboard.lab_text.less"))) ui.lab_text_open = false;
        ImGui::EndChild();
      } else {
        ImGui::BeginGroup();
        plot::wrapped_text(lab_view.explanation, width);
        draw_notes(width);
        if (folded && ImGui::SmallButton(i18n::tr("dashboard.lab_text.less"))) ui.lab_text_open = false;
        ImGui::EndGroup();
      }
      min = ImVec2(origin.x, ImGui::GetCursorScreenPos().y + gap);
    }
    const ImVec2 max(origin.x + width, origin.y + size.y);
    draw_plot_grid(view_info(ui.view).name, plots, lab_view.columns, min, max, style, ui, on_hover);
    scroll_to_lesson_panel(ui, snapshot != nullptr && snapshot->params == ui.params);
    ImGui::EndChild();
  }
  apply_params(ui, edit);  // a rejected edit leaves its error on screen until the next accepted one
  ImGui::End();
}

}  // namespace smlab::app
