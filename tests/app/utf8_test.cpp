// The one UTF-8 decoder (app/files/utf8.hpp) against the definition of RFC 3629 computed another
// way (decode the code point, then check shortest form, surrogates and U+10FFFF), and the edge
// cases by name: overlong forms, surrogates, truncated sequences, code points above U+10FFFF.
#include <gtest/gtest.h>

#include <array>
#include <string>
#include <string_view>

#include "files/text_file.hpp"
#include "files/utf8.hpp"

namespace {

using smlab::app::first_invalid_utf8;
using smlab::app::utf8_char_length;

// RFC 3629 by arithmetic: the length the lead byte announces (1 to 6 leading one bits, as the old
// ISO 10646 forms had), every following byte 10xxxxxx, then the code point decoded and checked to
// be in the shortest form, not a surrogate and at most U+10FFFF. 0 when not well formed.
std::size_t reference_length(std::string_view text) {
  const auto lead = static_cast<unsigned char>(text[0]);
  int ones = 0;
  while (ones < 8 && (lead & (0x80u >> ones)) != 0) ++ones;
  if (ones == 0) return 1;
  if (ones == 1 || ones > 6) return 0;  // a continuation byte, or FE / FF
  const auto length = static_cast<std::size_t>(ones);
  if (text.size() < length) return 0;
  unsigned long code = lead & (0xFFu >> (ones + 1));
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[k]);
    if ((next & 0xC0u) != 0x80u) return 0;
    code = (code << 6) | (next & 0x3Fu);
  }
  constexpr std::array<unsigned long, 7> shortest{0, 0, 0x80, 0x800, 0x10000, 0x200000, 0x4000000};
  if (code < shortest[length]) return 0;           // overlong
  if (code >= 0xD800 && code <= 0xDFFF) return 0;  // UTF-16 surrogate
  if (code > 0x10FFFF) return 0;                   // beyond Unicode
  return length;
}

std::string bytes(std::initializer_list<unsigned> values) {
  std::string text;
  for (unsigned value : values) text += static_cast<char>(value);
  return text;
}

TEST(Utf8, EveryLeadAndSecondByteWithRepresentativeTailsMatchesTheDefinition) {
  // Every first and second byte (the second byte's range is what differs from lead to lead); the
  // third and fourth only need to be, or not be, continuation bytes: both ends of 80..BF and a
  // byte on each side. Every prefix too, so cut-short sequences are covered.
  constexpr unsigned tails[] = {0x41, 0x80, 0xBF, 0xC0};
  std::size_t checked = 0, wrong = 0;
  std::string first_wrong;
  for (unsigned first = 0; first < 256; ++first)
    for (unsigned second = 0; second < 256; ++second)
      for (unsigned third : tails)
        for (unsigned fourth : tails) {
          const std::string text = bytes({first, second, third, fourth});
          for (std::size_t size = 1; size <= 4; ++size) {
            const std::string_view prefix(text.data(), size);
            ++checked;
            if (utf8_char_length(prefix, 0) == reference_length(prefix)) continue;
            if (wrong++ == 0)
              for (std::size_t k = 0; k < size; ++k) first_wrong += std::to_string(prefix[k] & 0xFF) + ' ';
          }
        }
  EXPECT_EQ(wrong, 0u) << "first disagreement (bytes, decimal): " << first_wrong;
  EXPECT_EQ(checked, 256u * 256u * 4u * 4u * 4u);
}

TEST(Utf8, BoundariesOfEachLengthAreAccepted) {
  const std::pair<std::string, std::size_t> good[] = {{bytes({0x00}), 1},
                                                      {bytes({0x7F}), 1},
                                                      {bytes({0xC2, 0x80}), 2},
                                                      {bytes({0xDF, 0xBF}), 2},  // U+0080, U+07FF
                                                      {bytes({0xE0, 0xA0, 0x80}), 3},
                                                      {bytes({0xED, 0x9F, 0xBF}), 3},  // U+0800, U+D7FF
                                                      {bytes({0xEE, 0x80, 0x80}), 3},
                                                      {bytes({0xEF, 0xBF, 0xBF}), 3},  // U+E000, U+FFFF
                                                      {bytes({0xF0, 0x90, 0x80, 0x80}), 4},
                                                      {bytes({0xF4, 0x8F, 0xBF, 0xBF}), 4},  // U+10000, U+10FFFF
                                                      {"é", 2},
                                                      {"€", 3},
                                                      {"中", 3},
                                                      {"𝄞", 4}};
  for (const auto& [text, length] : good) EXPECT_EQ(utf8_char_length(text, 0), length) << text;
  EXPECT_EQ(first_invalid_utf8("plain, é, €, 中文, 𝄞"), std::string_view::npos);
  EXPECT_EQ(first_invalid_utf8(""), std::string_view::npos);
}

TEST(Utf8, OverlongSurrogateTruncatedAndTooLargeFormsAreRefused) {
  const std::pair<const char*, std::string> bad[] = {{"overlong '/' in two bytes", bytes({0xC0, 0xAF})},
                                                     {"overlong U+007F in two bytes", bytes({0xC1, 0xBF})},
                                                     {"overlong '/' in three bytes", bytes({0xE0, 0x80, 0xAF})},
                                                     {"overlong U+07FF in three bytes", bytes({0xE0, 0x9F, 0xBF})},
                                                     {"overlong '/' in four bytes", bytes({0xF0, 0x80, 0x80, 0xAF})},
                                                     {"overlong U+FFFF in four bytes", bytes({0xF0, 0x8F, 0xBF, 0xBF})},
                                                     {"surrogate U+D800", bytes({0xED, 0xA0, 0x80})},
                                                     {"surrogate U+DFFF", bytes({0xED, 0xBF, 0xBF})},
                                                     {"U+110000", bytes({0xF4, 0x90, 0x80, 0x80})},
                                                     {"lead F5", bytes({0xF5, 0x80, 0x80, 0x80})},
                                                     {"lead F7 (U+1FFFFF)", bytes({0xF7, 0xBF, 0xBF, 0xBF})},
                                                     {"five-byte form", bytes({0xF8, 0x88, 0x80, 0x80, 0x80})},
                                                     {"FF", bytes({0xFF})},
                                                     {"stray continuation", bytes({0x80})},
                                                     {"two-byte cut short by the end", bytes({0xC3})},
                                                     {"three-byte cut short by the end", bytes({0xE2, 0x82})},
                                                     {"four-byte cut short by the end", bytes({0xF0, 0x9D, 0x84})},
                                                     {"three-byte cut short by ASCII", bytes({0xE2, 0x82, 0x41})},
                                                     {"two-byte followed by a lead byte", bytes({0xC3, 0xC3, 0xA9})}};
  for (const auto& [what, text] : bad) EXPECT_EQ(utf8_char_length(text, 0), 0u) << what;
  // The offset is where the bad character starts, after the good ones before it.
  EXPECT_EQ(first_invalid_utf8("ab" + bytes({0xC3})), 2u);
  EXPECT_EQ(first_invalid_utf8("a€" + bytes({0xED, 0xA0, 0x80}) + "z"), 4u);
  EXPECT_EQ(first_invalid_utf8("中" + bytes({0xF4, 0x90, 0x80, 0x80})), 3u);
  // After a bad lead byte the next one is looked at on its own: "é" after a stray C3 is fine.
  EXPECT_EQ(utf8_char_length(bytes({0xC3, 0xC3, 0xA9}), 1), 2u);
}

TEST(Utf8, JsonInputsNameTheFirstBadByte) {
  // The JSON checks use the same decoder: a surrogate inside a string is refused before parsing.
  const smlab::Result<void> refused =
      smlab::app::check_json_text("{\"a\": \"" + bytes({0xED, 0xA0, 0x80}) + "\"}", 8, 64);
  ASSERT_FALSE(refused);
  EXPECT_EQ(refused.error().message, "is not UTF-8 text (byte 8): not a JSON text file");
  EXPECT_TRUE(smlab::app::check_json_text("{\"a\": \"中文 𝄞\"}", 8, 64));
}

}  // namespace
