// The lesson layout's choice of arrangement: text beside or under the plots, the plots' columns and
// the text scale, judged by the data area each plot is left.
#include "panels/lesson_layout.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace smlab::app {

bool readable_data_area(const plot::PlotFit& fit, float slack) {
  if (!fit.has_data_area || !fit.complete) return false;
  const float width = fit.data.x1 - fit.data.x0, height = fit.data.y1 - fit.data.y0;
  return width >= min_data_side_px + slack - 0.5f && height >= min_data_side_px + slack - 0.5f &&
         width * height >= (min_data_share + 0.01f * slack) * fit.size.x * fit.size.y;
}

namespace {

struct Candidate {
  LessonLayout layout;
  float overflow = 0.0f;  // px the text and the cells run past the area
  float score = 0.0f;     // the smallest data area's side (heights 1.3×); the cell's when not fitted
};

Candidate arrange(const LessonLayoutRequest& request, TextPlace place, float text_width, float scale, int columns) {
  Candidate candidate;
  LessonLayout& layout = candidate.layout;
  layout.place = place;
  layout.text_scale = scale;
  layout.columns = columns;
  const float area_height = request.max.y - request.min.y;
  const float text_height = request.text_height(text_width, scale);
  layout.text_fits = text_height <= area_height + 0.5f;
  ImVec2 plots_min = request.min, plots_max = request.max;
  if (place == TextPlace::below) {
    plots_max.y = std::max(request.min.y + 1.0f, request.max.y - text_height - request.gap);
  } else {
    plots_min.x = request.min.x + text_width + request.gap;
  }
  const int count = static_cast<int>(request.plots);
  const int rows = count == 0 ? 0 : (count + columns - 1) / columns;
  const float cell_w =
      (plots_max.x - plots_min.x - request.gap * static_cast<float>(columns - 1)) / static_cast<float>(columns);
  const float room_h = plots_max.y - plots_min.y - request.gap * static_cast<float>(std::max(rows - 1, 0));
  // Rows share the height, never below the smallest cell (then the cells overflow).
  const float cell_h = rows == 0 ? 0.0f : std::max(request.cell_min.y, room_h / static_cast<float>(rows));
  const float cells_over = rows == 0 ? 0.0f : std::max(0.0f, cell_h * static_cast<float>(rows) - room_h);
  const float narrow = std::max(0.0f, request.cell_min.x - cell_w);
  layout.plots_fit = cells_over <= 0.5f && narrow <= 0.5f;
  candidate.overflow = cells_over + narrow + std::max(0.0f, text_height - area_height);

  // The frames: fitted to each plot, centred in its cell; a last row of fewer cells is centred too.
  layout.readable = layout.plots_fit && static_cast<bool>(request.fit);
  candidate.score = std::min(cell_w, 1.3f * cell_h);
  float bottom = plots_min.y;
  for (int k = 0; k < count; ++k) {
    const int row = k / columns, column = k % columns;
    const int in_row = std::min(columns, count - row * columns);
    const float row_left = plots_min.x + 0.5f * static_cast<float>(columns - in_row) * (cell_w + request.gap);
    const ImVec2 cell_min(row_left + static_cast<float>(column) * (cell_w + request.gap),
                          plots_min.y + static_cast<float>(row) * (cell_h + request.gap));
    // Whole pixels, as plot::draw lays a plot out: a legend's place can change with one pixel.
    ImVec2 size(std::floor(cell_w), std::floor(cell_h));
    if (request.fit) {
      const plot::PlotFit fit = request.fit(static_cast<std::size_t>(k), size);
      size = fit.size;
      if (!readable_data_area(fit)) layout.readable = false;
      const float data_side =
          fit.has_data_area ? std::min(fit.data.x1 - fit.data.x0, 1.3f * (fit.data.y1 - fit.data.y0)) : 0.0f;
      candidate.score = k == 0 ? data_side : std::min(candidate.score, data_side);
    }
    const ImVec2 frame_min(std::floor(cell_min.x + 0.5f * (cell_w - size.x)), cell_min.y);
    layout.plot_min.push_back(frame_min);
    layout.plot_max.push_back(ImVec2(frame_min.x + size.x, frame_min.y + size.y));
    bottom = std::max(bottom, frame_min.y + size.y);
  }
  // The text: under the plots as drawn (a fitted map leaves room below its frame), or in its column.
  if (place == TextPlace::below) {
    const float top = count == 0 ? request.min.y : std::min(bottom + request.gap, request.max.y - text_height);
    layout.text_min = ImVec2(request.min.x, std::max(request.min.y, top));
    layout.text_max = ImVec2(request.max.x, std::min(request.max.y, layout.text_min.y + text_height));
  } else {
    layout.text_min = request.min;
    layout.text_max = ImVec2(request.min.x + text_width, request.min.y + std::min(text_height, area_height));
  }
  return candidate;
}

bool better(const Candidate& a, const std::optional<Candidate>& b) { return !b || a.score > b->score; }

// The phone's stack (LessonLayoutRequest::stacked).
LessonLayout stack(const LessonLayoutRequest& request) {
  LessonLayout layout;
  layout.place = TextPlace::above;
  const float width = request.max.x - request.min.x, area_height = request.max.y - request.min.y;
  std::vector<float> scales = request.text_scales;
  if (scales.empty()) scales.push_back(1.0f);
  // The largest scale whose text takes at most 60 % of the height, else the smallest (it scrolls).
  float text_height = 0.0f;
  for (const float scale : scales) {
    layout.text_scale = scale;
    text_height = request.text_height(width, scale);
    if (text_height <= 0.6f * area_height) break;
  }
  layout.text_fits = text_height <= 0.6f * area_height + 0.5f;
  const float text_box_height = std::min(text_height, 0.6f * area_height);
  layout.text_min = request.min;
  layout.text_max = ImVec2(request.max.x, request.min.y + text_box_height);
  // Each plot full width, from 0.6 to 1.5 times as tall as wide, the first height that reads.
  float top = layout.text_max.y + request.gap;
  layout.readable = static_cast<bool>(request.fit);
  for (std::size_t k = 0; k < request.plots; ++k) {
    ImVec2 size(std::floor(width), std::floor(std::max(request.cell_min.y, 0.75f * width)));
    if (request.fit) {
      plot::PlotFit fit;
      for (int step = 0; step <= 18; ++step) {
        const ImVec2 tried(std::floor(width),
                           std::floor(std::max(request.cell_min.y, (0.6f + 0.05f * static_cast<float>(step)) * width)));
        fit = request.fit(k, tried);
        if (readable_data_area(fit)) break;
      }
      if (!readable_data_area(fit)) layout.readable = false;
      size = fit.size;
    }
    const ImVec2 frame_min(std::floor(request.min.x + 0.5f * (width - size.x)), top);
    layout.plot_min.push_back(frame_min);
    layout.plot_max.push_back(ImVec2(frame_min.x + size.x, frame_min.y + size.y));
    top = frame_min.y + size.y + request.gap;
  }
  layout.plots_fit = top - request.gap <= request.max.y + 0.5f;
  return layout;
}

}  // namespace

LessonLayout plan_lesson_layout(const LessonLayoutRequest& request) {
  if (request.stacked) return stack(request);
  const float width = request.max.x - request.min.x;
  std::vector<float> scales = request.text_scales;
  if (scales.empty()) scales.push_back(1.0f);
  const int most_columns = std::max(1, static_cast<int>(request.plots));
  std::optional<Candidate> fitting, least_over;
  for (const float scale : scales) {
    std::optional<Candidate> readable;
    const auto consider = [&](TextPlace place, float text_width) {
      for (int columns = 1; columns <= most_columns; ++columns) {
        Candidate candidate = arrange(request, place, text_width, scale, columns);
        const LessonLayout& layout = candidate.layout;
        if (layout.text_fits && layout.plots_fit && layout.readable) {
          if (better(candidate, readable)) readable = candidate;
        } else if (scale == scales.back()) {
          if (layout.text_fits && layout.plots_fit) {
            if (better(candidate, fitting)) fitting = candidate;
          } else if (!least_over || candidate.overflow < least_over->overflow) {
            least_over = candidate;
          }
        }
      }
    };
    consider(TextPlace::below, width);
    // Beside: columns of 25 % to 58 % of the width (in steps of 3 %), never narrower than text_min_width nor so wide
    // that no cell of the minimum width is left beside them.
    for (int step = 0; step <= 11; ++step) {
      const float fraction = 0.25f + 0.03f * static_cast<float>(step);
      const float column = std::max(fraction * width, request.text_min_width);
      if (request.plots > 0 && column + request.gap + request.cell_min.x > width + 0.5f) continue;
      consider(TextPlace::beside, column);
    }
    if (readable) return readable->layout;
  }
  if (fitting) return fitting->layout;
  if (least_over) return least_over->layout;
  return arrange(request, TextPlace::below, width, scales.back(), 1).layout;
}

}  // namespace smlab::app
