// The language model's corpus: UTF-8 decoding, the code-point vocabulary, token ids.
#include "smlab/train/corpus.hpp"

#include <zlib.h>

#include <algorithm>
#include <map>

#include "smlab/utf8.hpp"

namespace smlab::train {
namespace {

constexpr char32_t replacement = 0xFFFD;

// The code point starting at text[at] and its length in bytes, or length 0 when the bytes there
// are not well-formed UTF-8 (smlab/utf8.hpp: overlong forms, surrogates and values above U+10FFFF
// included).
struct Decoded {
  char32_t code_point = 0;
  std::size_t length = 0;
};
Decoded decode(std::string_view text, std::size_t at) {
  const std::size_t length = utf8_char_length(text, at);
  if (length == 0) return {};
  return {utf8_code_point(text, at, length), length};
}

}  // namespace

std::vector<int> Corpus::encode(std::string_view utf8) const {
  std::vector<int> out;
  for (std::size_t at = 0; at < utf8.size();) {
    const Decoded d = decode(utf8, at);
    if (d.length == 0) {  // not UTF-8: one unknown token per stray byte
      out.push_back(0);
      ++at;
      continue;
    }
    const auto found = std::lower_bound(symbols.begin() + 1, symbols.end(), d.code_point);
    out.push_back(found != symbols.end() && *found == d.code_point ? static_cast<int>(found - symbols.begin()) : 0);
    at += d.length;
  }
  return out;
}

std::string Corpus::label(int token) const {
  if (token < 0 || token >= vocab_size()) return "?";
  const char32_t c = symbols[static_cast<std::size_t>(token)];
  if (c == U'\n') return "⏎";
  if (c == U' ') return "␣";
  std::string out;
  append_utf8(out, c);
  return out;
}

Result<std::shared_ptr<const Corpus>> build_corpus(std::span<const std::string> texts, int min_count) {
  if (min_count < 1 || min_count > 1000)
    return Error::usage("corpus min_count=" + std::to_string(min_count) + " is out of range: allowed 1 to 1000");
  constexpr std::size_t min_code_points = 1000, max_code_points = std::size_t{1} << 24;
  std::vector<char32_t> text;
  for (std::size_t t = 0; t < texts.size(); ++t) {
    const std::string& piece = texts[t];
    for (std::size_t at = 0; at < piece.size();) {
      const Decoded d = decode(piece, at);
      if (d.length == 0)
        return Error::usage("corpus text " + std::to_string(t) + " is not UTF-8 at byte " + std::to_string(at) +
                            ": allowed UTF-8 text only");
      text.push_back(d.code_point);
      at += d.length;
      if (text.size() > max_code_points)
        return Error::usage("corpus is longer than " + std::to_string(max_code_points) +
                            " code points: allowed 1000 to 16777216");
    }
    if (piece.empty() || piece.back() != '\n') text.push_back(U'\n');
  }
  if (text.size() < min_code_points)
    return Error::usage("corpus has " + std::to_string(text.size()) + " code points: allowed 1000 to 16777216");

  std::map<char32_t, std::size_t> counts;  // ordered: the vocabulary comes out sorted
  for (char32_t c : text) ++counts[c];
  auto corpus = std::make_shared<Corpus>();
  corpus->symbols.push_back(replacement);
  for (const auto& [c, count] : counts)
    if (count >= static_cast<std::size_t>(min_count) && c != replacement) corpus->symbols.push_back(c);

  std::string vocabulary;
  for (char32_t c : corpus->symbols) append_utf8(vocabulary, c);
  corpus->fingerprint = static_cast<std::uint32_t>(crc32(
      crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(vocabulary.data()), static_cast<uInt>(vocabulary.size())));

  corpus->tokens.reserve(text.size());
  for (char32_t c : text) {
    const auto found = std::lower_bound(corpus->symbols.begin() + 1, corpus->symbols.end(), c);
    const bool known = found != corpus->symbols.end() && *found == c;
    corpus->tokens.push_back(known ? static_cast<int>(found - corpus->symbols.begin()) : 0);
    corpus->unknown_count += known ? 0 : 1;
  }
  corpus->code_points = text.size();
  corpus->held_out_from = static_cast<int>(text.size() - text.size() / 10);
  return std::shared_ptr<const Corpus>(std::move(corpus));
}

}  // namespace smlab::train
