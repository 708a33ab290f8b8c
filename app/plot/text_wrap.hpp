// Line breaking for English and Chinese text: where a paragraph may break, and a greedy wrap into
// lines of a given width. Dear ImGui 1.86 wraps only at spaces and after ".,;!?", so it breaks
// "0.|876" and cuts Chinese runs anywhere; this follows the typesetting rules instead.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>
#include <vector>

namespace smlab::plot {

// One code point decoded from UTF-8 at `text[offset]`: the code point and its length in bytes
// (an invalid or truncated sequence reads as one byte, its own value).
struct CodePoint {
  unsigned point = 0;
  std::size_t length = 1;
};
CodePoint utf8_at(std::string_view text, std::size_t offset);

// True for the characters Chinese text is set in (ideographs, kana, full-width forms), where a
// line may break between any two of them.
bool is_cjk(unsigned point);

// One line of a wrapped paragraph: bytes [begin, end) of the text, spaces at either edge dropped.
struct LineSpan {
  std::size_t begin = 0;
  std::size_t end = 0;
};

// Width of a piece of text (one code point at a time is enough: the font has no kerning).
using MeasureText = std::function<float(std::string_view)>;

// Breaks `text` into lines no wider than `width`, greedily, at these opportunities only:
//   - at spaces, except inside an expression: a space next to an operator token ("d_k = 64",
//     "a × b") never breaks, and in text that contains Chinese a space between two Latin tokens
//     ("ln n", "N(0, 64)") does not either;
//   - between two Chinese characters, and between a Chinese character and Latin text;
//   - never before closing punctuation ("。", "，", ")", ",") nor after opening punctuation,
//     and never inside a Latin word or a number ("softmax", "0.876", "1024").
// '\n' always breaks. A unit wider than `width` on its own (a long formula in a narrow column)
// is cut at its spaces, else at the last code point that fits, so every line holds something.
// An empty text gives no lines; width ≤ 0 means one line per forced break.
std::vector<LineSpan> wrap_text(std::string_view text, float width, const MeasureText& measure);

// Called after each line of text is drawn (ImGui's last item is that line): a caller that marks
// parts of the text finds them there.
using DrawnLine = std::function<void(const LineSpan&)>;

// Draws `text` wrapped to `width` pixels at the cursor with the current ImGui font, one
// TextUnformatted per line (text from files is never used as a format). `disabled` draws it in
// the style's disabled text colour.
void wrapped_text(std::string_view text, float width, bool disabled = false, const DrawnLine& after_line = {});

}  // namespace smlab::plot
