// Line breaking (plot/text_wrap): the breaks the issue found on screen never happen again, every
// line fits, and the lines put back together are the text.
#include "plot/text_wrap.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace smlab::plot {
namespace {

// A monospaced stand-in for the font: Latin 1 unit, full-width 2 units (as in the real fonts,
// where a Chinese character is about twice as wide as a Latin letter).
float measure(std::string_view piece) {
  const CodePoint code = utf8_at(piece, 0);
  return code.point >= 0x2E80 ? 2.0f : 1.0f;
}

float line_width(std::string_view text) {
  float width = 0.0f;
  for (std::size_t offset = 0; offset < text.size();) {
    const CodePoint code = utf8_at(text, offset);
    width += measure(text.substr(offset, code.length));
    offset += code.length;
  }
  return width;
}

std::vector<std::string> wrap(std::string_view text, float width) {
  std::vector<std::string> lines;
  for (const LineSpan& span : wrap_text(text, width, measure))
    lines.emplace_back(text.substr(span.begin, span.end - span.begin));
  return lines;
}

std::string describe(const std::vector<std::string>& lines) {
  std::string out;
  for (const std::string& line : lines) out += "[" + line + "]\n";
  return out;
}

// No line starts with `head` or ends with `tail`: the break "tail|head" never happens.
void expect_never_split(const std::vector<std::string>& lines, std::string_view tail, std::string_view head) {
  for (std::size_t k = 0; k + 1 < lines.size(); ++k) {
    const bool ends =
        lines[k].size() >= tail.size() && lines[k].compare(lines[k].size() - tail.size(), tail.size(), tail) == 0;
    const bool starts = lines[k + 1].rfind(head, 0) == 0;
    EXPECT_FALSE(ends && starts) << "split " << tail << "|" << head << " in\n" << describe(lines);
  }
}

// Every width from very narrow to wide: the lines fit unless a single unit is wider than the
// line, and no text is lost (the lines joined again, spaces aside, are the text).
void expect_fits_and_keeps_text(std::string_view text) {
  std::string letters;
  for (char c : text)
    if (c != ' ' && c != '\n') letters += c;
  for (float width = 4.0f; width <= 60.0f; width += 1.0f) {
    const std::vector<std::string> lines = wrap(text, width);
    std::string joined;
    for (const std::string& line : lines) {
      for (char c : line)
        if (c != ' ') joined += c;
      if (line.find(' ') == std::string::npos && line_width(line) > width) continue;  // one unbreakable unit
      EXPECT_LE(line_width(line), width) << "width " << width << "\n" << describe(lines);
    }
    EXPECT_EQ(joined, letters) << "width " << width << "\n" << describe(lines);
  }
}

TEST(TextWrap, ChineseNeverBreaksInsideLatinWordsNumbersOrExpressions) {
  // The breaks seen on screen: "softm|ax", "d_k =|1024时", "N(0,|64)", "被推高0.|3", "ln|n".
  const std::string text =
      "当 d_k = 1024时，未缩放的 softmax 几乎是独热的；分数服从 N(0, 64)，最大权重被推高0.3，熵远低于 ln n。";
  // The longest unit that must stay whole, "N(0, 64)，", is 10 wide; from there up no rule bends.
  // (Narrower, a unit has to be cut somewhere: expect_fits_and_keeps_text covers those widths.)
  for (float width = 10.0f; width <= 40.0f; width += 1.0f) {
    const std::vector<std::string> lines = wrap(text, width);
    SCOPED_TRACE("width " + std::to_string(width));
    expect_never_split(lines, "softm", "ax");
    expect_never_split(lines, "=", "1024");
    expect_never_split(lines, "d_k", "=");
    expect_never_split(lines, "N(0,", "64)");
    expect_never_split(lines, "0.", "3");
    expect_never_split(lines, "ln", "n");
    expect_never_split(lines, "10", "24");
    for (const std::string& line : lines) {
      EXPECT_NE(line.rfind("。", 0), 0u) << "a line starts with 。\n" << describe(lines);
      EXPECT_NE(line.rfind("，", 0), 0u) << "a line starts with ，\n" << describe(lines);
      EXPECT_NE(line.rfind("；", 0), 0u) << "a line starts with ；\n" << describe(lines);
    }
  }
  expect_fits_and_keeps_text(text);
}

TEST(TextWrap, ChineseBreaksBetweenCharactersToFillTheLine) {
  // Chinese is set in full lines: a line ends where the width runs out, not at the last space.
  const std::vector<std::string> lines = wrap("注意力权重的每一行都是一个概率分布", 10.0f);
  ASSERT_GE(lines.size(), 3u);
  for (std::size_t k = 0; k + 1 < lines.size(); ++k) EXPECT_EQ(line_width(lines[k]), 10.0f) << describe(lines);
}

TEST(TextWrap, EnglishBreaksAtSpacesAndNeverInsideANumber) {
  const std::string text = "The largest weight is 0.876 at T = 0.5, and the entropy is 0.412 nats (e^H = 1.51).";
  // From the widest unit that must stay whole ("0.5," after "T =", 9 wide with its operator glue).
  for (float width = 9.0f; width <= 50.0f; width += 1.0f) {
    const std::vector<std::string> lines = wrap(text, width);
    SCOPED_TRACE("width " + std::to_string(width));
    expect_never_split(lines, "0.", "876");
    expect_never_split(lines, "0.", "412");
    expect_never_split(lines, "T", "=");
    expect_never_split(lines, "=", "0.5,");
    for (const std::string& line : lines) {
      EXPECT_FALSE(line.empty()) << describe(lines);
      EXPECT_NE(line.front(), ' ') << describe(lines);
      EXPECT_NE(line.back(), ' ') << describe(lines);
    }
  }
  expect_fits_and_keeps_text(text);
  // Wide enough, it is plain word wrapping.
  EXPECT_EQ(wrap("one two three four", 9.0f), (std::vector<std::string>{"one two", "three", "four"}));
}

TEST(TextWrap, NewlinesBreakAndBlankLinesSurvive) {
  EXPECT_EQ(wrap("a\n\nb", 100.0f), (std::vector<std::string>{"a", "", "b"}));
  EXPECT_EQ(wrap("one\ntwo", 0.0f), (std::vector<std::string>{"one", "two"}));
  EXPECT_TRUE(wrap("", 10.0f).empty());
}

TEST(TextWrap, AUnitWiderThanTheLineIsCutSoEveryLineHoldsSomething) {
  const std::vector<std::string> lines = wrap("supercalifragilistic", 5.0f);
  ASSERT_EQ(lines.size(), 4u) << describe(lines);
  for (const std::string& line : lines) EXPECT_EQ(line.size(), 5u) << describe(lines);
  // A long English phrase inside Chinese text falls back to its spaces before cutting words.
  const std::vector<std::string> mixed = wrap("见 max weight of the scaled row 一节", 12.0f);
  for (const std::string& line : mixed) EXPECT_LE(line_width(line), 12.0f) << describe(mixed);
  expect_never_split(mixed, "wei", "ght");
}

TEST(TextWrap, InvalidUtf8IsKeptByteForByte) {
  const std::string text = "ab\xff\xfe cd \xe4\xb8";  // a stray byte pair and a truncated 3-byte sequence
  std::string joined;
  for (const std::string& line : wrap(text, 3.0f)) joined += line;
  EXPECT_EQ(joined,
            "ab\xff\xfe"
            "cd\xe4\xb8");
}

}  // namespace
}  // namespace smlab::plot
