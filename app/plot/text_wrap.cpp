// Line breaking for English and Chinese text (text_wrap.hpp): break opportunities from a small
// set of character classes (a subset of Unicode's line-breaking rules, UAX #14), then a greedy fill.
//
// [SECTION] Index
//   [SECTION] Character classes
//   [SECTION] Greedy wrap
//   [SECTION] Drawing
#include "plot/text_wrap.hpp"

#include <imgui.h>

#include <algorithm>
#include <cfloat>

namespace smlab::plot {

// [SECTION] Character classes

CodePoint utf8_at(std::string_view text, std::size_t offset) {
  const auto byte = static_cast<unsigned char>(text[offset]);
  const std::size_t length = byte < 0x80   ? 1
                             : byte < 0xC0 ? 0
                             : byte < 0xE0 ? 2
                             : byte < 0xF0 ? 3
                             : byte < 0xF8 ? 4
                                           : 0;
  if (length == 0 || text.size() - offset < length) return {byte, 1};
  unsigned point = length == 1 ? byte : byte & (0x7Fu >> length);
  for (std::size_t k = 1; k < length; ++k) {
    const auto continuation = static_cast<unsigned char>(text[offset + k]);
    if ((continuation & 0xC0u) != 0x80u) return {byte, 1};
    point = (point << 6) | (continuation & 0x3Fu);
  }
  return {point, length};
}

bool is_cjk(unsigned point) {
  return (point >= 0x2E80 && point <= 0x9FFF) || (point >= 0xAC00 && point <= 0xD7AF) ||
         (point >= 0xF900 && point <= 0xFAFF) || (point >= 0xFE30 && point <= 0xFE4F) ||
         (point >= 0xFF00 && point <= 0xFFEF) || (point >= 0x20000 && point <= 0x3FFFF);
}

namespace {

enum class Class { space, newline, close, open, cjk, other };

// Punctuation that ends a phrase: it stays on the line of the character before it.
bool is_closing(unsigned point) {
  switch (point) {
    case ')':
    case ']':
    case '}':
    case ',':
    case '.':
    case ';':
    case ':':
    case '!':
    case '?':
    case '%':
    case 0x2019:
    case 0x201D:
    case 0x2026:  // ’ ” …
    case 0x3001:
    case 0x3002:
    case 0x3009:
    case 0x300B:
    case 0x300D:
    case 0x300F:  // 、。〉》」』
    case 0x3011:
    case 0x3015:
    case 0x3017:
    case 0x3019:
    case 0x301B:  // 】〕〗〙〛
    case 0xFF01:
    case 0xFF09:
    case 0xFF0C:
    case 0xFF0E:
    case 0xFF1A:
    case 0xFF1B:  // ！）、．：；
    case 0xFF1F:
    case 0xFF3D:
    case 0xFF5D:
    case 0xFF05:
    case 0x30FB:  // ？］｝％・
      return true;
    default: return false;
  }
}

// Punctuation that opens a phrase: it stays on the line of the character after it.
bool is_opening(unsigned point) {
  switch (point) {
    case '(':
    case '[':
    case '{':
    case 0x2018:
    case 0x201C:  // ( [ { ‘ “
    case 0x3008:
    case 0x300A:
    case 0x300C:
    case 0x300E:
    case 0x3010:  // 〈《「『【
    case 0x3014:
    case 0x3016:
    case 0x3018:
    case 0x301A:  // 〔〖〘〚
    case 0xFF08:
    case 0xFF3B:
    case 0xFF5B:  // （［｛
      return true;
    default: return false;
  }
}

// Characters that make a token an operator when it holds nothing else ("=", "≈", "×", "->").
bool is_operator(unsigned point) {
  switch (point) {
    case '=':
    case '<':
    case '>':
    case '+':
    case '-':
    case '*':
    case '/':
    case '|':
    case '~':
    case 0x00B1:
    case 0x00B7:
    case 0x00D7:
    case 0x00F7:  // ± · × ÷
    case 0x2190:
    case 0x2192:
    case 0x2194:
    case 0x21D2:  // ← → ↔ ⇒
    case 0x2212:
    case 0x221D:
    case 0x2248:
    case 0x2260:
    case 0x2261:  // − ∝ ≈ ≠ ≡
    case 0x2264:
    case 0x2265:
    case 0x226A:
    case 0x226B:
    case 0x22C5:  // ≤ ≥ ≪ ≫ ⋅
      return true;
    default: return false;
  }
}

Class class_of(unsigned point) {
  if (point == '\n') return Class::newline;
  if (point == ' ' || point == '\t' || point == 0x3000) return Class::space;
  if (is_closing(point)) return Class::close;
  if (is_opening(point)) return Class::open;
  if (is_cjk(point)) return Class::cjk;
  return Class::other;
}

struct Glyph {
  std::size_t offset = 0;
  std::size_t length = 1;
  unsigned point = 0;
  Class kind = Class::other;
  bool wide = false;            // full-width: a Chinese character or punctuation
  bool operator_token = false;  // part of a space-delimited token made of operators only
};

std::vector<Glyph> decode(std::string_view text) {
  std::vector<Glyph> glyphs;
  glyphs.reserve(text.size());
  for (std::size_t offset = 0; offset < text.size();) {
    const CodePoint code = utf8_at(text, offset);
    const Class kind = class_of(code.point);
    glyphs.push_back({offset, code.length, code.point, kind, code.point >= 0x2E80, false});
    offset += code.length;
  }
  // Tokens are runs between spaces and newlines; mark those that hold operators only.
  for (std::size_t begin = 0; begin < glyphs.size();) {
    if (glyphs[begin].kind == Class::space || glyphs[begin].kind == Class::newline) {
      ++begin;
      continue;
    }
    std::size_t end = begin;
    bool operators_only = true;
    while (end < glyphs.size() && glyphs[end].kind != Class::space && glyphs[end].kind != Class::newline) {
      operators_only = operators_only && is_operator(glyphs[end].point);
      ++end;
    }
    for (std::size_t k = begin; k < end; ++k) glyphs[k].operator_token = operators_only;
    begin = end;
  }
  return glyphs;
}

// May a line start at glyphs[next] (not a space), given that glyphs[previous] is the last
// non-space before it (spaces between them when previous + 1 < next)?
bool may_break_before(const std::vector<Glyph>& glyphs, std::size_t previous, std::size_t next, bool chinese_text) {
  const Glyph& before = glyphs[previous];
  const Glyph& after = glyphs[next];
  if (after.kind == Class::close || before.kind == Class::open) return false;
  if (previous + 1 < next) {                                          // a space between them
    if (before.operator_token || after.operator_token) return false;  // "d_k = 64" is one unit
    // In Chinese text the spaces around Latin text are typographic; a space between two Latin
    // tokens belongs to an expression ("ln n", "N(0, 64)"), which must not be split.
    if (chinese_text && !before.wide && !after.wide) return false;
    return true;
  }
  // No space: Chinese may break between any two full-width characters, and between one and
  // Latin text; a Latin word, a number or "N(0,64)" stays whole.
  return before.wide || after.wide;
}

}  // namespace

// [SECTION] Greedy wrap

std::vector<LineSpan> wrap_text(std::string_view text, float width, const MeasureText& measure) {
  std::vector<LineSpan> lines;
  if (text.empty()) return lines;
  const std::vector<Glyph> glyphs = decode(text);
  const std::size_t count = glyphs.size();
  const bool chinese_text =
      std::any_of(glyphs.begin(), glyphs.end(), [](const Glyph& g) { return g.kind == Class::cjk; });
  const bool bounded = width > 0.0f;

  const auto is_space = [&](std::size_t i) { return glyphs[i].kind == Class::space; };
  const auto byte_at = [&](std::size_t i) { return i < count ? glyphs[i].offset : text.size(); };
  // A line of glyphs [begin, end) without the spaces at its edges.
  const auto emit = [&](std::size_t begin, std::size_t end) {
    while (begin < end && is_space(begin)) ++begin;
    while (end > begin && is_space(end - 1)) --end;
    lines.push_back({byte_at(begin), begin < end ? byte_at(end) : byte_at(begin)});
  };
  const auto skip_spaces = [&](std::size_t i) {
    while (i < count && is_space(i)) ++i;
    return i;
  };

  std::size_t line = skip_spaces(0);
  std::size_t i = line;
  float line_width = 0.0f;
  std::size_t opportunity = 0;         // the last glyph a line may start at, or 0 for none yet
  std::size_t last_non_space = count;  // index of the last non-space glyph of this line, if any
  while (i < count) {
    const Glyph& glyph = glyphs[i];
    if (glyph.kind == Class::newline) {
      emit(line, i);
      line = skip_spaces(i + 1);
      i = line;
      line_width = 0.0f;
      opportunity = 0;
      last_non_space = count;
      continue;
    }
    const float advance = measure(text.substr(glyph.offset, glyph.length));
    if (glyph.kind != Class::space) {
      const bool has_content = last_non_space != count;
      if (has_content && may_break_before(glyphs, last_non_space, i, chinese_text)) opportunity = i;
      if (bounded && has_content && line_width + advance > width) {
        std::size_t cut = opportunity > line ? opportunity : 0;
        if (cut == 0) {
          // One unit wider than the line: cut it at its last space, else right here.
          for (std::size_t k = i; k > line + 1 && cut == 0; --k)
            if (is_space(k - 1) && !is_space(k)) cut = k;
          if (cut == 0) cut = i;
        }
        emit(line, cut);
        line = skip_spaces(cut);
        i = line;
        line_width = 0.0f;
        opportunity = 0;
        last_non_space = count;
        continue;
      }
      last_non_space = i;
    }
    line_width += advance;
    ++i;
  }
  if (line < count) emit(line, count);
  return lines;
}

// [SECTION] Drawing

void wrapped_text(std::string_view text, float width, bool disabled, const DrawnLine& after_line) {
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize();
  const auto measure = [font, size](std::string_view piece) {
    return font->CalcTextSizeA(size, FLT_MAX, 0.0f, piece.data(), piece.data() + piece.size()).x;
  };
  if (disabled) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyle().Colors[ImGuiCol_TextDisabled]);
  for (const LineSpan& span : wrap_text(text, width, measure)) {
    const char* begin = text.data() + span.begin;
    if (span.begin == span.end) {
      ImGui::NewLine();
    } else {
      ImGui::TextUnformatted(begin, text.data() + span.end);
      if (after_line) after_line(span);
    }
  }
  if (disabled) ImGui::PopStyleColor();
}

}  // namespace smlab::plot
