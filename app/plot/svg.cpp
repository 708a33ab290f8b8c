// SVG renderer: writes the shapes of the shared layout as a standalone SVG 1.1 document.
// Big heatmaps become one embedded PNG (stb_image_write) instead of thousands of <rect>s.
//
// [SECTION] Index
//   [SECTION] Text and numbers as XML
//   [SECTION] The writer: one element per shape
//   [SECTION] to_svg
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <variant>
#include <vector>

#include <stb_image_write.h>

#include "plot/heatmap_texture.hpp"
#include "plot/cell_color.hpp"
#include "plot/layout.hpp"
#include "plot/plot.hpp"
#include "smlab/utf8.hpp"

namespace smlab::plot {

// [SECTION] Text and numbers as XML

// Text as XML 1.0 character data. What XML cannot hold is dropped rather than written into a
// broken file: control characters (but tab and newline), bytes that are not well-formed UTF-8,
// and Unicode's noncharacters (U+FFFE and U+FFFF are not XML characters at all; a token list
// may hold them).
void append_escaped(std::string& out, std::string_view text) {
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t length = utf8_char_length(text, at);
    if (length == 0) {  // not UTF-8: dropped
      ++at;
      continue;
    }
    const char character = text[at];
    if (length > 1) {
      if (!is_noncharacter(utf8_code_point(text, at, length))) out.append(text.substr(at, length));
      at += length;
      continue;
    }
    ++at;
    switch (character) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default:
        if (static_cast<unsigned char>(character) < 0x20 && character != '\t' && character != '\n') break;
        out += character;
    }
  }
}

namespace {

using namespace detail;

// Heatmaps up to this many cells per side are written as one <rect> per cell.
constexpr int kMaxRectCellsPerSide = 128;
// Colour stops of a colorbar gradient; anchors are at most 11 apart, so 17 stops reproduce them.
constexpr int kColorbarStops = 17;
// When the SVG has no metrics of its own, layout uses this for Style::font_size == 0.
constexpr float kDefaultSvgFontSize = 15.0f;

// Coordinates with two decimals, trailing zeros removed: compact and sub-pixel exact.
std::string number(double value) {
  if (!std::isfinite(value)) return "0";
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.2f", value);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  if (text.back() == '.') text.pop_back();
  if (text == "-0") text = "0";
  return text;
}

// [SECTION] The writer: one element per shape

class SvgWriter {
 public:
  SvgWriter(const Scene& scene, const Style& style) : scene_(scene), style_(style) {}

  std::string write() {
    out_ += "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
    out_ +=
        "<svg xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\" "
        "version=\"1.1\" width=\"" +
        number(scene_.width) + "\" height=\"" + number(scene_.height) + "\" viewBox=\"0 0 " + number(scene_.width) +
        " " + number(scene_.height) + "\" font-family=\"";
    append_escaped(out_, style_.svg_font_family);
    out_ += "\">\n";
    for (const auto& shape : scene_.shapes) std::visit([this](const auto& item) { write_shape(item); }, shape);
    while (open_clip_groups_ > 0) close_clip();
    out_ += "</svg>\n";
    return std::move(out_);
  }

 private:
  void paint(const char* attribute, Color color) {
    out_ += ' ';
    out_ += attribute;
    out_ += "=\"";
    out_ += to_hex(color).text;
    out_ += '"';
    if (color.a < 1.0f) {
      out_ += ' ';
      out_ += attribute;
      out_ += "-opacity=\"" + number(color.a) + "\"";
    }
  }

  void points_attribute(const std::vector<Point>& points) {
    out_ += " points=\"";
    for (std::size_t index = 0; index < points.size(); ++index) {
      if (index > 0) out_ += ' ';
      out_ += number(points[index].x) + "," + number(points[index].y);
    }
    out_ += '"';
  }

  void write_shape(const PolylineShape& line) {
    out_ += "<polyline";
    points_attribute(line.points);
    out_ += " fill=\"none\"";
    paint("stroke", line.color);
    out_ += " stroke-width=\"" + number(line.width) + "\" stroke-linejoin=\"round\"";
    if (line.dashed) {
      out_ += " stroke-dasharray=\"" + number(dash_length(line.width)) + "," + number(dash_gap(line.width)) + "\"";
    }
    out_ += "/>\n";
  }

  void write_shape(const RectShape& rect) {
    out_ += "<rect x=\"" + number(rect.box.x0) + "\" y=\"" + number(rect.box.y0) + "\" width=\"" +
            number(rect.box.width()) + "\" height=\"" + number(rect.box.height()) + "\"";
    if (rect.fill) {
      paint("fill", *rect.fill);
    } else {
      out_ += " fill=\"none\"";
    }
    if (rect.stroke && rect.stroke_width > 0.0f) {
      paint("stroke", *rect.stroke);
      out_ += " stroke-width=\"" + number(rect.stroke_width) + "\"";
    }
    out_ += "/>\n";
  }

  void write_shape(const BandShape& band) {
    std::vector<Point> outline = band.upper;
    outline.insert(outline.end(), band.lower.rbegin(), band.lower.rend());
    out_ += "<polygon";
    points_attribute(outline);
    paint("fill", band.fill);
    out_ += "/>\n";
  }

  void write_shape(const MarkerGlyph& marker) {
    const float x = marker.centre.x, y = marker.centre.y, radius = marker.radius;
    switch (marker.shape) {
      case MarkerShape::Circle:
        out_ += "<circle cx=\"" + number(x) + "\" cy=\"" + number(y) + "\" r=\"" + number(radius) + "\"";
        break;
      case MarkerShape::Square:
        out_ += "<rect x=\"" + number(x - radius) + "\" y=\"" + number(y - radius) + "\" width=\"" +
                number(2 * radius) + "\" height=\"" + number(2 * radius) + "\"";
        break;
      case MarkerShape::Diamond: {
        // A diamond of the same area as the square would look small; 1.3× the radius matches the circle.
        const float reach = 1.3f * radius;
        out_ += "<polygon";
        points_attribute({{x, y - reach}, {x + reach, y}, {x, y + reach}, {x - reach, y}});
        break;
      }
    }
    paint("fill", marker.fill);
    if (marker.outline) {
      paint("stroke", *marker.outline);
      out_ += " stroke-width=\"" + number(marker.outline_width) + "\"";
    }
    out_ += "/>\n";
  }

  void write_shape(const TextShape& text) {
    const float baseline_y = text.origin.y + baseline_offset(text.size);
    out_ += "<text x=\"" + number(text.origin.x) + "\" y=\"" + number(baseline_y) + "\" font-size=\"" +
            number(text.size) + "\"";
    paint("fill", text.color);
    if (text.vertical) {
      out_ += " transform=\"rotate(-90 " + number(text.origin.x) + " " + number(text.origin.y) + ")\"";
    }
    out_ += '>';
    append_escaped(out_, text.text);
    out_ += "</text>\n";
  }

  void write_shape(const HeatmapShape& shape) {
    const Heatmap& heatmap = *shape.heatmap;
    if (heatmap.rows <= kMaxRectCellsPerSide && heatmap.cols <= kMaxRectCellsPerSide) {
      write_cells(shape.box, heatmap);
    } else {
      write_embedded_png(shape.box, heatmap);
    }
  }

  void write_cells(const Box& box, const Heatmap& heatmap) {
    const double cell_width = box.width() / static_cast<double>(heatmap.cols);
    const double cell_height = box.height() / static_cast<double>(heatmap.rows);
    const Colormap colormap = resolve_colormap(heatmap.colormap, style_.sequential_colormap);
    // crispEdges: without it viewers antialias every shared edge into a faint grid.
    out_ += "<g class=\"heatmap\" shape-rendering=\"crispEdges\">\n";
    std::vector<float> scratch;
    for (int row = 0; row < heatmap.rows; ++row) {
      const std::span<const float> cells = heatmap_row(heatmap, row, scratch);
      for (int col = 0; col < heatmap.cols; ++col) {
        const float value = cells[static_cast<std::size_t>(col)];
        const Color color = cell_color(colormap, value, heatmap.vmin, heatmap.vmax);
        out_ += "<rect x=\"" + number(box.x0 + col * cell_width) + "\" y=\"" + number(box.y0 + row * cell_height) +
                "\" width=\"" + number(cell_width) + "\" height=\"" + number(cell_height) + "\" fill=\"" +
                to_hex(color).text + "\"/>\n";
      }
    }
    out_ += "</g>\n";
  }

  void write_embedded_png(const Box& box, const Heatmap& heatmap) {
    const auto cols = static_cast<std::size_t>(heatmap.cols);
    std::vector<std::uint32_t> rgba(static_cast<std::size_t>(heatmap.rows) * cols);
    const Colormap colormap = resolve_colormap(heatmap.colormap, style_.sequential_colormap);
    std::vector<float> scratch;
    for (int row = 0; row < heatmap.rows; ++row)
      colorize(std::span(rgba).subspan(static_cast<std::size_t>(row) * cols, cols), heatmap_row(heatmap, row, scratch),
               heatmap.vmin, heatmap.vmax, colormap);
    std::string png;
    const auto append_bytes = [](void* context, void* data, int size) {
      static_cast<std::string*>(context)->append(static_cast<const char*>(data), static_cast<std::size_t>(size));
    };
    const int ok =
        stbi_write_png_to_func(append_bytes, &png, heatmap.cols, heatmap.rows, 4, rgba.data(), heatmap.cols * 4);
    if (ok == 0) return;
    out_ += "<image class=\"heatmap\" x=\"" + number(box.x0) + "\" y=\"" + number(box.y0) + "\" width=\"" +
            number(box.width()) + "\" height=\"" + number(box.height()) +
            "\" preserveAspectRatio=\"none\" image-rendering=\"optimizeSpeed\" "
            "xlink:href=\"data:image/png;base64,";
    append_base64(png);
    out_ += "\"/>\n";
  }

  void append_base64(std::string_view bytes) {
    constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::size_t index = 0;
    for (; index + 3 <= bytes.size(); index += 3) {
      const std::uint32_t triple = (static_cast<unsigned char>(bytes[index]) << 16) |
                                   (static_cast<unsigned char>(bytes[index + 1]) << 8) |
                                   static_cast<unsigned char>(bytes[index + 2]);
      for (int shift = 18; shift >= 0; shift -= 6) out_ += kAlphabet[(triple >> shift) & 0x3F];
    }
    const std::size_t rest = bytes.size() - index;
    if (rest == 0) return;
    std::uint32_t triple = static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[index])) << 16;
    if (rest == 2) triple |= static_cast<std::uint32_t>(static_cast<unsigned char>(bytes[index + 1])) << 8;
    out_ += kAlphabet[(triple >> 18) & 0x3F];
    out_ += kAlphabet[(triple >> 12) & 0x3F];
    out_ += rest == 2 ? kAlphabet[(triple >> 6) & 0x3F] : '=';
    out_ += '=';
  }

  void write_shape(const ColorbarShape& colorbar) {
    const std::string id = "smlab-colorbar-" + std::to_string(next_id_++);
    out_ += "<defs><linearGradient id=\"" + id + "\" x1=\"0\" y1=\"1\" x2=\"0\" y2=\"0\">\n";
    for (int stop = 0; stop < kColorbarStops; ++stop) {
      const double t = static_cast<double>(stop) / (kColorbarStops - 1);
      out_ += "<stop offset=\"" + number(t) + "\" stop-color=\"" + to_hex(sample(colorbar.colormap, t)).text + "\"/>\n";
    }
    out_ += "</linearGradient></defs>\n";
    out_ += "<rect x=\"" + number(colorbar.box.x0) + "\" y=\"" + number(colorbar.box.y0) + "\" width=\"" +
            number(colorbar.box.width()) + "\" height=\"" + number(colorbar.box.height()) + "\" fill=\"url(#" + id +
            ")\"/>\n";
  }

  void write_shape(const ClipBegin& clip) {
    const std::string id = "smlab-clip-" + std::to_string(next_id_++);
    out_ += "<defs><clipPath id=\"" + id + "\"><rect x=\"" + number(clip.box.x0) + "\" y=\"" + number(clip.box.y0) +
            "\" width=\"" + number(clip.box.width()) + "\" height=\"" + number(clip.box.height()) +
            "\"/></clipPath></defs>\n";
    out_ += "<g clip-path=\"url(#" + id + ")\">\n";
    ++open_clip_groups_;
  }

  void write_shape(const ClipEnd&) {
    if (open_clip_groups_ > 0) close_clip();
  }

  void close_clip() {
    out_ += "</g>\n";
    --open_clip_groups_;
  }

  const Scene& scene_;
  const Style& style_;
  std::string out_;
  int next_id_ = 0;
  int open_clip_groups_ = 0;
};

}  // namespace

// [SECTION] to_svg

std::string to_svg(const Plot& plot, float width, float height, const Style& style, const TextWidthFn& text_width) {
  const TextWidthFn& measure = text_width ? text_width : TextWidthFn(estimate_text_width);
  const Scene scene = layout_plot(plot, std::max(width, 1.0f), std::max(height, 1.0f), style,
                                  resolved_font_size(style, kDefaultSvgFontSize), measure);
  return SvgWriter(scene, style).write();
}

}  // namespace smlab::plot
