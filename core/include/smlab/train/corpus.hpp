// The text a character-level language model trains on: a vocabulary of Unicode code points
// built from texts the caller hands over (the core reads no files), and the text as token ids.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"

namespace smlab::train {

struct Corpus {
  // Token 0 is "unknown": every code point seen fewer than min_count times, and any code point a
  // later text has that the corpus lacks. Tokens 1… are the kept code points in increasing order.
  std::vector<char32_t> symbols;  // symbols[0] = U+FFFD (shown for unknown)
  std::vector<int> tokens;        // the whole text, in the order given
  int held_out_from = 0;          // tokens[held_out_from…] are held out (the last tenth), not trained on
  std::size_t code_points = 0;    // code points of the text (= tokens.size())
  std::size_t unknown_count = 0;  // of them mapped to token 0
  std::uint32_t fingerprint = 0;  // CRC-32 of the vocabulary: a weights file names the vocabulary it needs

  int vocab_size() const { return static_cast<int>(symbols.size()); }
  // The token ids of UTF-8 text (unknown code points and bytes that are not UTF-8 become 0).
  std::vector<int> encode(std::string_view utf8) const;
  // A token as UTF-8 ("\n" is shown as "⏎", " " as "␣", so that a label is never blank).
  std::string label(int token) const;
};

// Concatenates `texts` (each must be valid UTF-8; a text without a final newline gets one) and
// builds the vocabulary of the code points that occur at least `min_count` times. Errors
// (Error::usage): a text that is not UTF-8 (its index and byte offset named), or a corpus under
// 1000 code points or over 2^24, or min_count outside 1 to 1000.
Result<std::shared_ptr<const Corpus>> build_corpus(std::span<const std::string> texts, int min_count = 2);

// The language lab's corpus is the lesson texts (assets/lessons/*.json), handed over in one fixed
// order so that the app, the tests and the benches train on the same text: for each lesson file in
// name order, for each step, its English title, English text, Chinese title and Chinese text, with
// this min_count. docs/TRAINING.md states the resulting size and vocabulary.
inline constexpr int lesson_corpus_min_count = 2;

}  // namespace smlab::train
