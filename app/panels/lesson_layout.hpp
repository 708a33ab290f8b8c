// Where a lesson step's text and its panels go: the text block and just the plots the
// step names, arranged so that both fit the area without scrolling and every plot keeps a readable
// data area: the text in a column beside the plots, or across the full width under them, with the
// plots in 1 … n columns, whichever leaves the plots' data the most room. A sentence and its figure
// stay on screen together. Geometry only: the caller measures its text and its plots and draws.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include <imgui.h>

#include "plot/plot.hpp"

namespace smlab::app {

// The height in px a text block needs at `width` px with its text at `scale` × the UI font.
using TextBlockHeight = std::function<float(float width, float scale)>;
// How plot `index` fills a cell of `size` px (plot::fit_plot).
using PlotFitter = std::function<plot::PlotFit(std::size_t index, ImVec2 size)>;

// A plot is readable when its layout gave nothing up and its data area is at least this many px
// each way and this share of its panel's area (the back row reads data, not margins).
inline constexpr float min_data_side_px = 120.0f, min_data_share = 0.4f;
// `slack` > 0 asks that much more (px each way, and slack/100 of the share): for a cell the grid may
// give a different shape than the one tried.
bool readable_data_area(const plot::PlotFit& fit, float slack = 0.0f);

// `above`: a phone's stack (LessonLayoutRequest::stacked), the text first and the plots under it.
enum class TextPlace { below, beside, above };

struct LessonLayoutRequest {
  ImVec2 min, max;                 // the area for the text and the plots
  std::size_t plots = 0;           // how many plots the step shows
  ImVec2 cell_min{};               // the smallest cell a plot may get, px
  float gap = 8.0f;                // between cells, and between the text and the plots
  float text_min_width = 0.0f;     // the narrowest text column, px
  std::vector<float> text_scales;  // tried largest first
  TextBlockHeight text_height;     // must be callable
  PlotFitter fit;                  // empty: the plots are not built yet (cells judged by size alone)
  // A phone (an area taller than wide and narrow, as the caller judges it): no arrangement fits
  // without scrolling, and side by side the text and the plots would both be slivers. Then the text
  // (with its controls) goes first across the full width, at the largest scale that leaves it at
  // most 60 % of the height, and the plots follow one per row, full width, each as tall as it needs
  // to read (plots_fit: false where they run past the area, which then scrolls).
  bool stacked = false;
};

struct LessonLayout {
  TextPlace place = TextPlace::below;
  float text_scale = 1.0f;
  ImVec2 text_min, text_max;               // the text block
  std::vector<ImVec2> plot_min, plot_max;  // each plot's frame (fitted to it, centred in its cell)
  int columns = 1;
  bool text_fits = false;  // the text needs no scrolling
  bool plots_fit = false;  // every cell has its minimum and lies inside the area
  bool readable = false;   // every plot's data area is readable (readable_data_area)
};

// Tries the text under the plots (the full width) and beside them (a column of 25 % to 58 % of the
// width, at least text_min_width), the plots in 1 … n columns, at each text scale in turn. The first
// scale with an arrangement where the text and the cells fit and every data area is readable wins,
// and of its arrangements the one whose smallest data area is largest (heights counted 1.3×). When
// none is readable, the best one that fits; when none fits, the one that overflows least (the
// caller scrolls; the lesson screen test names the step).
LessonLayout plan_lesson_layout(const LessonLayoutRequest& request);

}  // namespace smlab::app
