// The three plot themes (dark, light, projector) and the font-free text width estimate used by SVG.
#include <cstdint>

#include "plot/layout.hpp"
#include "plot/plot.hpp"

namespace smlab::plot {

Style dark_style() {
  Style style;
  style.background = Color::from_hex(0x17191C);
  style.frame = Color::from_hex(0x3A3E44);
  style.grid = Color::from_hex(0x2B2F34);
  style.axis = Color::from_hex(0x9AA0A6);
  style.text = Color::from_hex(0xE8EAED);
  style.text_dim = Color::from_hex(0xA8AEB4);
  return style;
}

Style light_style() {
  Style style;
  style.background = Color::from_hex(0xFFFFFF);
  style.frame = Color::from_hex(0xC8CCD0);
  style.grid = Color::from_hex(0xE8EAED);
  style.axis = Color::from_hex(0x5F6368);
  style.text = Color::from_hex(0x202124);
  style.text_dim = Color::from_hex(0x55595E);
  return style;
}

Style projector_style() {
  // Projectors wash out dark themes and thin strokes: black on white, everything bigger.
  Style style;
  style.background = Color::from_hex(0xFFFFFF);
  style.frame = Color::from_hex(0x000000);
  style.grid = Color::from_hex(0xD4D4D4);
  style.axis = Color::from_hex(0x000000);
  style.text = Color::from_hex(0x000000);
  style.text_dim = Color::from_hex(0x303030);
  style.font_size = 22.0f;
  style.line_scale = 2.0f;
  style.marker_scale = 1.8f;
  // The same padding as the other looks: the app scales it with the UI (15 px of it at font 1.5
  // took a data area's worth of height from the back row's plots).
  style.padding = 6.0f;
  return style;
}

namespace {

// Advance width of one character in em, rounded up from DejaVu Sans (a wide sans-serif), so
// that the layout leaves room for whatever sans-serif font an SVG viewer substitutes.
float advance_em(std::uint32_t codepoint) {
  const auto is_one_of = [codepoint](std::string_view characters) {
    return codepoint < 0x80 && characters.find(static_cast<char>(codepoint)) != std::string_view::npos;
  };
  if (codepoint >= 0x2E80) return 1.0f;  // CJK and other full-width scripts
  if (codepoint >= 0x80) return 0.7f;    // Greek, symbols, accented letters
  if (codepoint == ' ') return 0.32f;
  if (is_one_of("il.,:;'|!`")) return 0.3f;
  if (is_one_of("fjtrI()[]{}-")) return 0.42f;
  if (is_one_of("mwMW%@")) return 0.95f;
  if (is_one_of("+=<>~^*")) return 0.84f;
  if (codepoint >= 'A' && codepoint <= 'Z') return 0.72f;
  return 0.64f;  // digits, lower case, the rest
}

}  // namespace

float estimate_text_width(std::string_view text, float font_size_px) {
  float width_em = 0.0f;
  for (std::size_t index = 0; index < text.size();) width_em += advance_em(detail::next_codepoint(text, index));
  return width_em * font_size_px;
}

}  // namespace smlab::plot
