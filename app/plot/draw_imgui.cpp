// Screen renderer: paints the shared layout with ImGui's draw list as one item and shows
// hover read-outs (nearest point, bar, heatmap cell) in a tooltip.
//
// [SECTION] Index
//   [SECTION] Painting shapes
//   [SECTION] Hover read-outs
//   [SECTION] Hit-testing for pointer gestures
//   [SECTION] draw()
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <variant>
#include <vector>

#include "plot/cell_color.hpp"
#include "plot/layout.hpp"
#include "plot/plot.hpp"

namespace smlab::plot {
namespace {

using namespace detail;

// Without an uploaded texture, matrices up to this size are drawn cell by cell; bigger ones
// would cost more vertices than a frame can afford in software rendering.
constexpr int kMaxCellsPerSideWithoutTexture = 64;
// Strips that approximate the colorbar gradient (each strip is itself a 2-colour gradient).
constexpr int kColorbarStrips = 48;

// [SECTION] Painting shapes

class Painter {
 public:
  Painter(ImDrawList* list, ImFont* font, ImVec2 origin, const Style& style)
      : list_(list), font_(font), origin_(origin), style_(style) {}

  void operator()(const PolylineShape& line) {
    points_.clear();
    for (const auto& point : line.points) points_.push_back(at(point));
    if (line.dashed) {
      dashed_polyline(to_imu32(line.color), line.width);
    } else {
      list_->AddPolyline(points_.data(), static_cast<int>(points_.size()), to_imu32(line.color), ImDrawFlags_None,
                         line.width);
    }
  }

  void operator()(const RectShape& rect) {
    const ImVec2 top_left = at({rect.box.x0, rect.box.y0});
    const ImVec2 bottom_right = at({rect.box.x1, rect.box.y1});
    if (rect.fill) list_->AddRectFilled(top_left, bottom_right, to_imu32(*rect.fill));
    if (rect.stroke && rect.stroke_width > 0.0f) {
      // ImGui strokes half a px inside the given corners; the layout means the stroke's centre.
      const ImVec2 half{0.5f, 0.5f};
      list_->AddRect(ImVec2(top_left.x - half.x, top_left.y - half.y),
                     ImVec2(bottom_right.x + half.x, bottom_right.y + half.y), to_imu32(*rect.stroke), 0.0f,
                     ImDrawFlags_None, rect.stroke_width);
    }
  }

  void operator()(const BandShape& band) {
    // One quad per segment. Antialiased fill would fringe every shared edge and show
    // the seams through the translucent colour, so it is off for the band.
    const ImDrawListFlags saved_flags = list_->Flags;
    list_->Flags &= ~ImDrawListFlags_AntiAliasedFill;
    const ImU32 color = to_imu32(band.fill);
    for (std::size_t index = 1; index < band.upper.size(); ++index) {
      list_->AddQuadFilled(at(band.upper[index - 1]), at(band.upper[index]), at(band.lower[index]),
                           at(band.lower[index - 1]), color);
    }
    list_->Flags = saved_flags;
  }

  void operator()(const MarkerGlyph& marker) {
    const ImVec2 centre = at(marker.centre);
    const float radius = marker.radius;
    const ImU32 fill = to_imu32(marker.fill);
    const ImU32 outline = marker.outline ? to_imu32(*marker.outline) : 0;
    switch (marker.shape) {
      case MarkerShape::Circle: {
        // A plot can carry hundreds of markers (one per key at L = 256) and the software
        // rasteriser pays per triangle: 8 segments look round at marker sizes (r ≤ 6 px), and
        // under an outline the fill needs no antialiased fringe of its own. That is ~20
        // triangles a marker instead of ~60.
        const int segments = radius <= 6.0f ? 8 : 0;  // 0: ImGui's own count for big ones
        const ImDrawListFlags saved_flags = list_->Flags;
        if (marker.outline) list_->Flags &= ~ImDrawListFlags_AntiAliasedFill;
        list_->AddCircleFilled(centre, radius, fill, segments);
        list_->Flags = saved_flags;
        if (marker.outline) list_->AddCircle(centre, radius, outline, segments, marker.outline_width);
        break;
      }
      case MarkerShape::Square: {
        const ImVec2 low{centre.x - radius, centre.y - radius}, high{centre.x + radius, centre.y + radius};
        list_->AddRectFilled(low, high, fill);
        if (marker.outline) list_->AddRect(low, high, outline, 0.0f, ImDrawFlags_None, marker.outline_width);
        break;
      }
      case MarkerShape::Diamond: {
        const float reach = 1.3f * radius;  // same visual weight as the circle (see svg.cpp)
        const ImVec2 top{centre.x, centre.y - reach}, right{centre.x + reach, centre.y},
            bottom{centre.x, centre.y + reach}, left{centre.x - reach, centre.y};
        list_->AddQuadFilled(top, right, bottom, left, fill);
        if (marker.outline) list_->AddQuad(top, right, bottom, left, outline, marker.outline_width);
        break;
      }
    }
  }

  void operator()(const TextShape& text) {
    if (text.vertical) {
      vertical_text(text);
      return;
    }
    list_->AddText(font_, text.size, at(text.origin), to_imu32(text.color), text.text.data(),
                   text.text.data() + text.text.size());
  }

  void operator()(const HeatmapShape& shape) {
    const Heatmap& heatmap = *shape.heatmap;
    const ImVec2 top_left = at({shape.box.x0, shape.box.y0});
    const ImVec2 bottom_right = at({shape.box.x1, shape.box.y1});
    if (heatmap.texture != 0) {
      // The texture's first row (row 0) is at v = 0, which ImGui puts at the top.
      list_->AddImage(reinterpret_cast<ImTextureID>(heatmap.texture), top_left, bottom_right);
    } else if (heatmap.rows <= kMaxCellsPerSideWithoutTexture && heatmap.cols <= kMaxCellsPerSideWithoutTexture) {
      paint_cells(heatmap, top_left, bottom_right);
    } else {
      list_->AddRectFilled(top_left, bottom_right, to_imu32(style_.grid));
      const char* notice = style_.words.no_texture.c_str();
      const float size = ImGui::GetFontSize();
      const ImVec2 extent = font_->CalcTextSizeA(size, FLT_MAX, 0.0f, notice);
      list_->AddText(
          font_, size,
          ImVec2(0.5f * (top_left.x + bottom_right.x - extent.x), 0.5f * (top_left.y + bottom_right.y - extent.y)),
          to_imu32(style_.text_dim), notice);
    }
  }

  void operator()(const ColorbarShape& colorbar) {
    const float height = colorbar.box.height();
    for (int strip = 0; strip < kColorbarStrips; ++strip) {
      const float bottom_fraction = static_cast<float>(strip) / kColorbarStrips;
      const float top_fraction = static_cast<float>(strip + 1) / kColorbarStrips;
      const ImU32 bottom_color = to_imu32(sample(colorbar.colormap, bottom_fraction));
      const ImU32 top_color = to_imu32(sample(colorbar.colormap, top_fraction));
      const ImVec2 low = at({colorbar.box.x0, colorbar.box.y1 - top_fraction * height});
      const ImVec2 high = at({colorbar.box.x1, colorbar.box.y1 - bottom_fraction * height});
      list_->AddRectFilledMultiColor(low, high, top_color, top_color, bottom_color, bottom_color);
    }
  }

  void operator()(const ClipBegin& clip) {
    list_->PushClipRect(at({clip.box.x0, clip.box.y0}), at({clip.box.x1, clip.box.y1}), true);
  }

  void operator()(const ClipEnd&) { list_->PopClipRect(); }

 private:
  ImVec2 at(Point point) const { return {origin_.x + point.x, origin_.y + point.y}; }

  void dashed_polyline(ImU32 color, float width) {
    const float on_length = dash_length(width), off_length = dash_gap(width);
    bool drawing = true;
    float remaining = on_length;
    dash_.assign(1, points_.front());
    const auto flush = [&] {
      if (dash_.size() >= 2) {
        list_->AddPolyline(dash_.data(), static_cast<int>(dash_.size()), color, ImDrawFlags_None, width);
      }
    };
    for (std::size_t index = 1; index < points_.size(); ++index) {
      const ImVec2 from = points_[index - 1], to = points_[index];
      const float length = std::hypot(to.x - from.x, to.y - from.y);
      float travelled = 0.0f;
      while (length - travelled > remaining) {
        travelled += remaining;
        const float fraction = travelled / length;
        const ImVec2 split{from.x + (to.x - from.x) * fraction, from.y + (to.y - from.y) * fraction};
        if (drawing) {
          dash_.push_back(split);
          flush();
        }
        dash_.assign(1, split);
        drawing = !drawing;
        remaining = drawing ? on_length : off_length;
      }
      remaining -= length - travelled;
      if (drawing) dash_.push_back(to);
    }
    if (drawing) flush();
  }

  // ImGui 1.86 draws no rotated text, so the glyph quads are emitted here, turned by −90°:
  // a glyph corner at (u, v) from the pen start goes to (v, −u) from the origin.
  void vertical_text(const TextShape& text) {
    const float scale = text.size / font_->FontSize;
    const ImVec2 pivot = at(text.origin);
    const ImU32 color = to_imu32(text.color);
    const auto rotated = [&](float u, float v) { return ImVec2(pivot.x + v, pivot.y - u); };
    list_->PushTextureID(font_->ContainerAtlas->TexID);
    float pen = 0.0f;
    for (std::size_t index = 0; index < text.text.size();) {
      std::uint32_t codepoint = next_codepoint(text.text, index);
      if (codepoint > 0xFFFF) codepoint = '?';  // ImWchar is 16 bits in this build
      const ImFontGlyph* glyph = font_->FindGlyph(static_cast<ImWchar>(codepoint));
      if (glyph == nullptr) continue;
      if (glyph->Visible) {
        const float u0 = pen + glyph->X0 * scale, u1 = pen + glyph->X1 * scale;
        const float v0 = glyph->Y0 * scale, v1 = glyph->Y1 * scale;
        list_->PrimReserve(6, 4);
        list_->PrimQuadUV(rotated(u0, v0), rotated(u1, v0), rotated(u1, v1), rotated(u0, v1),
                          ImVec2(glyph->U0, glyph->V0), ImVec2(glyph->U1, glyph->V0), ImVec2(glyph->U1, glyph->V1),
                          ImVec2(glyph->U0, glyph->V1), color);
      }
      pen += glyph->AdvanceX * scale;
    }
    list_->PopTextureID();
  }

  void paint_cells(const Heatmap& heatmap, ImVec2 top_left, ImVec2 bottom_right) {
    const float cell_width = (bottom_right.x - top_left.x) / static_cast<float>(heatmap.cols);
    const float cell_height = (bottom_right.y - top_left.y) / static_cast<float>(heatmap.rows);
    const Colormap colormap = resolve_colormap(heatmap.colormap, style_.sequential_colormap);
    std::vector<float> scratch;
    for (int row = 0; row < heatmap.rows; ++row) {
      const std::span<const float> cells = heatmap_row(heatmap, row, scratch);
      for (int col = 0; col < heatmap.cols; ++col) {
        const float value = cells[static_cast<std::size_t>(col)];
        const Color color = cell_color(colormap, value, heatmap.vmin, heatmap.vmax);
        const ImVec2 low{top_left.x + col * cell_width, top_left.y + row * cell_height};
        list_->AddRectFilled(low, ImVec2(low.x + cell_width, low.y + cell_height), to_imu32(color));
      }
    }
  }

  ImDrawList* list_;
  ImFont* font_;
  ImVec2 origin_;
  const Style& style_;
  std::vector<ImVec2> points_;  // reused between shapes
  std::vector<ImVec2> dash_;
};

// [SECTION] Hover read-outs

struct NearestPoint {
  enum class Kind { None, Line, Scatter } kind = Kind::None;
  std::size_t series = 0, index = 0;
  Point px;
  float distance_squared = 0.0f;
};

NearestPoint nearest_point(const Plot& plot, const Scene& scene, Point mouse, float reach) {
  NearestPoint nearest;
  nearest.distance_squared = reach * reach;
  const auto consider = [&](NearestPoint::Kind kind, std::size_t series, const std::vector<double>& xs,
                            const std::vector<double>& ys) {
    const std::size_t count = std::min(xs.size(), ys.size());
    for (std::size_t index = 0; index < count; ++index) {
      const Point px{scene.x_map.to_px(xs[index]), scene.y_map.to_px(ys[index])};
      if (!std::isfinite(px.x) || !std::isfinite(px.y)) continue;
      const float distance_squared = (px.x - mouse.x) * (px.x - mouse.x) + (px.y - mouse.y) * (px.y - mouse.y);
      if (distance_squared < nearest.distance_squared) nearest = {kind, series, index, px, distance_squared};
    }
  };
  for (std::size_t series = 0; series < plot.lines.size(); ++series) {
    consider(NearestPoint::Kind::Line, series, plot.lines[series].x, plot.lines[series].y);
  }
  for (std::size_t series = 0; series < plot.scatters.size(); ++series) {
    consider(NearestPoint::Kind::Scatter, series, plot.scatters[series].x, plot.scatters[series].y);
  }
  return nearest;
}

void tooltip_heading(const std::string& label, const std::string& fallback, Color color) {
  ImGui::ColorButton("##series", ImVec4(color.r, color.g, color.b, 1.0f),
                     ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoDragDrop,
                     ImVec2(ImGui::GetFontSize() * 0.8f, ImGui::GetFontSize() * 0.8f));
  ImGui::SameLine();
  ImGui::TextUnformatted(label.empty() ? fallback.c_str() : label.c_str());
}

void show_point_tooltip(const Plot& plot, const NearestPoint& nearest, const Style& style) {
  ImGui::BeginTooltip();
  if (nearest.kind == NearestPoint::Kind::Line) {
    const LineSeries& line = plot.lines[nearest.series];
    tooltip_heading(line.label, unnamed_series_heading(plot, style.words.line, nearest.series, plot.lines.size()),
                    line_color(plot, nearest.series, style));
    ImGui::Text("x = %s", format_number(line.x[nearest.index]).c_str());
    ImGui::Text("y = %s", format_number(line.y[nearest.index]).c_str());
    if (nearest.index < line.band_low.size() && nearest.index < line.band_high.size()) {
      ImGui::Text("%s = [%s, %s]", style.words.band.c_str(), format_number(line.band_low[nearest.index]).c_str(),
                  format_number(line.band_high[nearest.index]).c_str());
    }
  } else {
    const ScatterSeries& scatter = plot.scatters[nearest.series];
    tooltip_heading(scatter.label,
                    unnamed_series_heading(plot, style.words.points, nearest.series, plot.scatters.size()),
                    scatter_color(plot, nearest.series, style));
    ImGui::Text("x = %s", format_number(scatter.x[nearest.index]).c_str());
    ImGui::Text("y = %s", format_number(scatter.y[nearest.index]).c_str());
  }
  ImGui::EndTooltip();
}

// The bar under the mouse's x, if any: {series, index}.
std::optional<std::pair<std::size_t, std::size_t>> bar_under(const Plot& plot, const Scene& scene, Point mouse) {
  for (std::size_t series = plot.bars.size(); series-- > 0;) {  // topmost (last drawn) first
    const BarSeries& bars = plot.bars[series];
    const std::size_t count = std::min(bars.x.size(), bars.y.size());
    for (std::size_t index = 0; index < count; ++index) {
      const float left = scene.x_map.to_px(bars.x[index] - 0.5 * bars.width);
      const float right = scene.x_map.to_px(bars.x[index] + 0.5 * bars.width);
      if (mouse.x >= std::min(left, right) && mouse.x <= std::max(left, right)) {
        return std::pair{series, index};
      }
    }
  }
  return std::nullopt;
}

void show_hover(const Plot& plot, const Scene& scene, Point mouse, ImDrawList* list, ImVec2 origin, const Style& style,
                float font_size, Interaction& interaction) {
  const auto at = [&](Point point) { return ImVec2(origin.x + point.x, origin.y + point.y); };
  const ImU32 highlight = to_imu32(style.text);

  if (plot.heatmap) {
    const Heatmap& heatmap = *plot.heatmap;
    const auto col = static_cast<int>(std::floor(scene.x_map.to_data(mouse.x) + 0.5));
    const auto row = static_cast<int>(std::floor(scene.y_map.to_data(mouse.y) + 0.5));
    if (row < 0 || row >= heatmap.rows || col < 0 || col >= heatmap.cols) return;
    interaction.heatmap_row = row;
    interaction.heatmap_col = col;
    const float cell_width = scene.data_area.width() / static_cast<float>(heatmap.cols);
    const float cell_height = scene.data_area.height() / static_cast<float>(heatmap.rows);
    const Point low{scene.data_area.x0 + col * cell_width, scene.data_area.y0 + row * cell_height};
    list->AddRect(at(low), at({low.x + cell_width, low.y + cell_height}), highlight, 0.0f, ImDrawFlags_None,
                  std::max(1.0f, style.line_scale));
    std::vector<float> scratch;
    const float value = heatmap_row(heatmap, row, scratch)[static_cast<std::size_t>(col)];
    ImGui::BeginTooltip();
    if (heatmap.names.size() == static_cast<std::size_t>(heatmap.cols) && heatmap.rows == heatmap.cols) {
      ImGui::Text("%s %d '%s', %s %d '%s'", style.words.row.c_str(), row,
                  heatmap.names[static_cast<std::size_t>(row)].c_str(), style.words.col.c_str(), col,
                  heatmap.names[static_cast<std::size_t>(col)].c_str());
    } else {
      ImGui::Text("%s %d, %s %d", style.words.row.c_str(), row, style.words.col.c_str(), col);
    }
    ImGui::Text("%s = %s", style.words.value.c_str(), format_number(value).c_str());
    if (heatmap.fixed_range) ImGui::TextDisabled("%s", style.words.color_scale_hint.c_str());
    ImGui::EndTooltip();
    return;
  }

  const float reach = std::max(16.0f, 1.2f * font_size);
  const NearestPoint nearest = nearest_point(plot, scene, mouse, reach);
  if (nearest.kind != NearestPoint::Kind::None) {
    const float radius = 4.0f * style.marker_scale + 2.0f;
    list->AddCircle(at(nearest.px), radius, highlight, 0, std::max(1.5f, style.line_scale));
    show_point_tooltip(plot, nearest, style);
    return;
  }
  if (const auto bar = bar_under(plot, scene, mouse)) {
    const auto [series, index] = *bar;
    const BarSeries& bars = plot.bars[series];
    ImGui::BeginTooltip();
    tooltip_heading(bars.label, unnamed_series_heading(plot, style.words.bars, series, plot.bars.size()),
                    bar_color(plot, series, style));
    if (const std::string* name = position_name(plot.x, bars.x[index]))
      ImGui::Text("%s %zu (x = %s, '%s')", style.words.bar.c_str(), index, format_number(bars.x[index]).c_str(),
                  name->c_str());
    else
      ImGui::Text("%s %zu (x = %s)", style.words.bar.c_str(), index, format_number(bars.x[index]).c_str());
    ImGui::Text("%s = %s", style.words.value.c_str(), format_number(bars.y[index]).c_str());
    ImGui::EndTooltip();
  }
}

// Appends the scene's plot frame, texts and problems, in screen px, to the layout report.
void record_layout(LayoutReport& report, const char* id, const Plot& plot, const Scene& scene, ImVec2 origin,
                   float font_size) {
  PlotRecord record;
  record.id = id;
  record.x0 = origin.x;
  record.y0 = origin.y;
  record.x1 = origin.x + scene.width;
  record.y1 = origin.y + scene.height;
  record.has_data_area = scene.has_data_area;
  if (scene.has_data_area) {
    record.data_x0 = origin.x + scene.data_area.x0;
    record.data_y0 = origin.y + scene.data_area.y0;
    record.data_x1 = origin.x + scene.data_area.x1;
    record.data_y1 = origin.y + scene.data_area.y1;
  }
  record.font_size = font_size;
  for (const auto& shape : scene.shapes) {
    const auto* text = std::get_if<TextShape>(&shape);
    if (text == nullptr) continue;
    const Box box = text_box(*text);
    record.texts.push_back(
        {text->text, text->role, origin.x + box.x0, origin.y + box.y0, origin.x + box.x1, origin.y + box.y1});
  }
  record.problems = scene.problems;
  const auto on_screen = [origin](const Box& box) {
    return ScreenBox{origin.x + box.x0, origin.y + box.y0, origin.x + box.x1, origin.y + box.y1};
  };
  for (const Box& mark : scene.data_marks) record.data_marks.push_back(on_screen(mark));
  if (scene.legend_box) record.legend_box = on_screen(*scene.legend_box);
  if (scene.colorbar) record.colorbar = on_screen(*scene.colorbar);
  record.drawn_values = drawn_values(plot, scene, record.cells_left_out, &record.drawn_resolution);
  report.plots.push_back(std::move(record));
}

// The layout draw() makes for `plot` at `size` with the current font.
Scene layout_with_font(const Plot& plot, ImVec2 size, const Style& style, float font_size) {
  ImFont* font = ImGui::GetFont();
  const float resolved = font_size > 0.0f ? font_size : resolved_font_size(style, ImGui::GetFontSize());
  const TextWidthFn measure = [font](std::string_view text, float size_px) {
    return font->CalcTextSizeA(size_px, FLT_MAX, 0.0f, text.data(), text.data() + text.size()).x;
  };
  return layout_plot(plot, size.x, size.y, style, resolved, measure);
}

}  // namespace

// [SECTION] Hit-testing for pointer gestures

Hit hit_test(const Plot& plot, ImVec2 size, const Style& style, ImVec2 point, float font_size) {
  Hit hit;
  const Scene scene = layout_with_font(plot, size, style, font_size);
  if (!scene.has_data_area) return hit;
  const Point at{point.x, point.y};
  hit.in_data_area = scene.data_area.contains(at);
  hit.x = scene.x_map.to_data(at.x);
  hit.y = scene.y_map.to_data(at.y);
  if (!hit.in_data_area) return hit;
  if (plot.heatmap) {
    const auto col = static_cast<int>(std::floor(hit.x + 0.5));
    const auto row = static_cast<int>(std::floor(hit.y + 0.5));
    if (row >= 0 && row < plot.heatmap->rows && col >= 0 && col < plot.heatmap->cols) {
      hit.heatmap_row = row;
      hit.heatmap_col = col;
    }
    return hit;
  }
  if (const auto bar = bar_under(plot, scene, at)) {
    hit.bar_series = static_cast<int>(bar->first);
    hit.bar_index = static_cast<int>(bar->second);
  }
  // Scatter points only (the live points), nearest within the hover's reach.
  const float reach = std::max(16.0f, 1.2f * resolved_font_size(style, ImGui::GetFontSize()));
  float best = reach * reach;
  for (std::size_t series = 0; series < plot.scatters.size(); ++series) {
    const ScatterSeries& scatter = plot.scatters[series];
    for (std::size_t index = 0; index < std::min(scatter.x.size(), scatter.y.size()); ++index) {
      const Point px{scene.x_map.to_px(scatter.x[index]), scene.y_map.to_px(scatter.y[index])};
      const float distance = (px.x - at.x) * (px.x - at.x) + (px.y - at.y) * (px.y - at.y);
      if (std::isfinite(distance) && distance < best) {
        best = distance;
        hit.scatter_series = static_cast<int>(series);
        hit.scatter_index = static_cast<int>(index);
      }
    }
  }
  return hit;
}

// [SECTION] draw()

std::string unnamed_series_heading(const Plot& plot, const std::string& word, std::size_t series, std::size_t count) {
  if (count == 1 && !plot.y.label.empty()) return plot.y.label;
  return word + " " + std::to_string(series + 1);
}

Interaction draw(const char* id, const Plot& plot, ImVec2 size, const Style& style) {
  const ImVec2 available = ImGui::GetContentRegionAvail();
  if (size.x <= 0.0f) size.x = available.x + size.x;
  if (size.y <= 0.0f) size.y = available.y + size.y;
  size = ImVec2(std::max(std::floor(size.x), 1.0f), std::max(std::floor(size.y), 1.0f));

  const ImVec2 origin = ImGui::GetCursorScreenPos();
  Interaction interaction;
  interaction.clicked = ImGui::InvisibleButton(id, size);
  interaction.hovered = ImGui::IsItemHovered();
  const bool visible = ImGui::IsItemVisible();
  if (!visible && style.report == nullptr) return interaction;  // scrolled away: no layout work

  ImFont* font = ImGui::GetFont();
  const float font_size = resolved_font_size(style, ImGui::GetFontSize());
  const TextWidthFn measure = [font](std::string_view text, float size_px) {
    return font->CalcTextSizeA(size_px, FLT_MAX, 0.0f, text.data(), text.data() + text.size()).x;
  };
  const Scene scene = layout_plot(plot, size.x, size.y, style, font_size, measure);
  if (style.report != nullptr) record_layout(*style.report, id, plot, scene, origin, font_size);
  if (!visible) return interaction;

  ImDrawList* list = ImGui::GetWindowDrawList();
  list->PushClipRect(origin, ImVec2(origin.x + size.x, origin.y + size.y), true);
  Painter painter(list, font, origin, style);
  for (const auto& shape : scene.shapes) std::visit(painter, shape);

  if (interaction.hovered && scene.has_data_area) {
    const ImVec2 mouse_screen = ImGui::GetIO().MousePos;
    const Point mouse{mouse_screen.x - origin.x, mouse_screen.y - origin.y};
    interaction.x = scene.x_map.to_data(mouse.x);
    interaction.y = scene.y_map.to_data(mouse.y);
    if (scene.data_area.contains(mouse)) {
      show_hover(plot, scene, mouse, list, origin, style, font_size, interaction);
    }
  }
  list->PopClipRect();
  return interaction;
}

}  // namespace smlab::plot
