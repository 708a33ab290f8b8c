// The one UTF-8 decoder (and encoder) of the project: which bytes form a well-formed character (Unicode Table
// 3-7), and which code point they are; and the encoder back. Used by the token reader
// (core/src/import), the language model's corpus (core/src/train/corpus.cpp), the JSON input checks
// (app/files/text_file.cpp), the one-line error output (main.cpp) and the SVG writer's XML
// escaping (app/plot/svg.cpp).
//
// Library decision: ours, not libutfcpp-dev (utf8cpp). utf8cpp is header-only, so
// the web build (Debian's emscripten, which cannot link Debian's native libraries) could use its
// headers; but what every caller here asks is one small constexpr question, how long is the
// well-formed character at this byte and which code point is it, which utf8cpp answers through
// exceptions (utf8::next throws on bad input) or through its unchecked API (no validation at
// all). These lines are tested against RFC 3629 computed another way (tests/app/utf8_test.cpp)
// and fuzzed through every reader that uses them; a dependency would change no behaviour.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace smlab {

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

// The code point of the well-formed character of `length` bytes (utf8_char_length) at text[at].
constexpr char32_t utf8_code_point(std::string_view text, std::size_t at, std::size_t length) {
  const auto lead = static_cast<unsigned char>(text[at]);
  char32_t code = length == 1 ? lead : lead & (0x7Fu >> length);
  for (std::size_t k = 1; k < length; ++k) code = (code << 6) | (static_cast<unsigned char>(text[at + k]) & 0x3Fu);
  return code;
}

// Appends the UTF-8 form of `code` (a code point up to U+10FFFF; callers have checked it), the
// inverse of utf8_code_point.
inline void append_utf8(std::string& out, char32_t code) {
  if (code < 0x80) {
    out += static_cast<char>(code);
  } else if (code < 0x800) {
    out += static_cast<char>(0xC0 | (code >> 6));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else if (code < 0x10000) {
    out += static_cast<char>(0xE0 | (code >> 12));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (code >> 18));
    out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (code & 0x3F));
  }
}

// Unicode's 66 noncharacters, U+FDD0..U+FDEF and the last two code points of every plane
// (U+FFFE, U+FFFF, U+1FFFE, ...): never meant for interchange; U+FFFE and U+FFFF are not even
// allowed in XML 1.0.
constexpr bool is_noncharacter(char32_t code) {
  return (code >= 0xFDD0 && code <= 0xFDEF) || (code & 0xFFFE) == 0xFFFE;
}

}  // namespace smlab
