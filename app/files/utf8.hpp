// The one UTF-8 decoder of the app: which bytes form a well-formed character (Unicode Table 3-7),
// used by the JSON input checks (text_file.cpp) and by the one-line error output (main.cpp).
#pragma once

#include <cstddef>
#include <string_view>

namespace smlab::app {

// The length (1 to 4) of the well-formed UTF-8 character that starts at text[at], or 0 when the
// bytes there are not one: a stray continuation byte, a lead byte C0, C1 or F5 to FF, a sequence
// cut short by the end of the text or by a byte that is not a continuation byte, an overlong form
// (E0 80..9F, F0 80..8F), a UTF-16 surrogate U+D800..U+DFFF (ED A0..BF) or a code point above
// U+10FFFF (F4 90..BF). `at` must be < text.size().
constexpr std::size_t utf8_char_length(std::string_view text, std::size_t at) {
  const auto byte = static_cast<unsigned char>(text[at]);
  std::size_t length = 0;
  unsigned char low = 0x80, high = 0xBF;  // the allowed range of the second byte
  if (byte < 0x80) return 1;
  if (byte >= 0xC2 && byte <= 0xDF) {
    length = 2;
  } else if (byte >= 0xE0 && byte <= 0xEF) {
    length = 3;
    if (byte == 0xE0) low = 0xA0;   // below: overlong
    if (byte == 0xED) high = 0x9F;  // above: surrogates
  } else if (byte >= 0xF0 && byte <= 0xF4) {
    length = 4;
    if (byte == 0xF0) low = 0x90;   // below: overlong
    if (byte == 0xF4) high = 0x8F;  // above: beyond U+10FFFF
  } else {
    return 0;
  }
  if (text.size() - at < length) return 0;
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if (k == 1 ? (next < low || next > high) : (next < 0x80 || next > 0xBF)) return 0;
  }
  return length;
}

// The byte offset of the first byte that does not start a well-formed character, or npos.
constexpr std::size_t first_invalid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();) {
    const std::size_t length = utf8_char_length(text, i);
    if (length == 0) return i;
    i += length;
  }
  return std::string_view::npos;
}

}  // namespace smlab::app
