// The tasks' examples (recall, copy, reverse, maximum, language), the probe and its ideal map.
#include "smlab/train/tasks.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "smlab/random.hpp"

namespace smlab::train {
namespace {

// A uniform integer in [0, n) from 64 random bits (multiply-shift: the bias is below 2^−32·n).
int uniform_below(SplitMix64& bits, int n) {
  return static_cast<int>(((bits.next() >> 32) * static_cast<std::uint64_t>(n)) >> 32);
}

// `count` distinct symbols from [0, vocab) in random order (a partial Fisher–Yates shuffle).
void distinct_symbols(std::vector<int>& out, SplitMix64& bits, int vocab, int count) {
  out.resize(static_cast<std::size_t>(vocab));
  std::iota(out.begin(), out.end(), 0);
  for (int i = 0; i < count; ++i)
    std::swap(out[static_cast<std::size_t>(i)], out[static_cast<std::size_t>(i + uniform_below(bits, vocab - i))]);
  out.resize(static_cast<std::size_t>(count));
}

// copy and reverse: the first ⌈L/2⌉ positions are inputs, the last ⌊L/2⌋ outputs.
int input_count(int length) { return length - length / 2; }

// The input position an output position of copy/reverse reads.
int source_of(Task task, int length, int output_index) {
  return task == Task::copy ? output_index : input_count(length) - 1 - output_index;
}

}  // namespace

TaskShape task_shape(const Settings& s, const Corpus* corpus) {
  TaskShape shape;
  switch (s.task) {
    case Task::recall:
      shape.channel_vocab = {s.vocab, s.vocab + 1};  // keys; values and the query mark (= vocab)
      shape.output_vocab = s.vocab;
      shape.targets_per_example = 1;
      break;
    case Task::copy:
    case Task::reverse:
      shape.channel_vocab = {s.vocab + 1};  // symbols and the separator (= vocab)
      shape.output_vocab = s.vocab;
      shape.targets_per_example = s.seq_len / 2;
      break;
    case Task::maximum:
      shape.channel_vocab = {s.vocab + 1};  // numbers and the query mark (= vocab)
      shape.output_vocab = s.vocab;
      shape.targets_per_example = 1;
      break;
    case Task::language: {
      const int vocab = corpus == nullptr ? 1 : corpus->vocab_size();
      shape.channel_vocab = {vocab};
      shape.output_vocab = vocab;
      shape.targets_per_example = s.seq_len;
      break;
    }
  }
  return shape;
}

std::uint64_t example_seed(const Settings& s, DataStream stream, std::uint64_t index) {
  return stream_seed(s.seed, static_cast<std::uint64_t>(stream), index);
}

void draw_example(Example& out, const Settings& s, const Corpus* corpus, DataStream stream, std::uint64_t index) {
  SplitMix64 bits(example_seed(s, stream, index));
  const int length = s.seq_len;
  out.target_positions.clear();
  out.targets.clear();
  std::vector<int> symbols;
  switch (s.task) {
    case Task::recall: {
      // L − 1 pairs with distinct keys and random values, then the query: one of the keys.
      out.tokens.assign(static_cast<std::size_t>(2 * length), 0);
      distinct_symbols(symbols, bits, s.vocab, length - 1);
      for (int p = 0; p + 1 < length; ++p) {
        out.tokens[static_cast<std::size_t>(2 * p)] = symbols[static_cast<std::size_t>(p)];
        out.tokens[static_cast<std::size_t>(2 * p + 1)] = uniform_below(bits, s.vocab);
      }
      const int asked = uniform_below(bits, length - 1);
      out.tokens[static_cast<std::size_t>(2 * (length - 1))] = symbols[static_cast<std::size_t>(asked)];
      out.tokens[static_cast<std::size_t>(2 * (length - 1) + 1)] = s.vocab;  // the query mark
      out.target_positions.push_back(length - 1);
      out.targets.push_back(out.tokens[static_cast<std::size_t>(2 * asked + 1)]);
      break;
    }
    case Task::copy:
    case Task::reverse: {
      // Inputs, then the answer teacher-forced: the separator (= vocab), then each previous
      // answer. The future answers are masked (the task is causal), so output o must attend to
      // its source input: every other position holds a symbol that would blur the answer.
      const int inputs = input_count(length);
      out.tokens.assign(static_cast<std::size_t>(length), s.vocab);
      for (int p = 0; p < inputs; ++p) out.tokens[static_cast<std::size_t>(p)] = uniform_below(bits, s.vocab);
      for (int o = 0; o < length / 2; ++o) {
        const int answer = out.tokens[static_cast<std::size_t>(source_of(s.task, length, o))];
        out.target_positions.push_back(inputs + o);
        out.targets.push_back(answer);
        if (inputs + o + 1 < length) out.tokens[static_cast<std::size_t>(inputs + o + 1)] = answer;
      }
      break;
    }
    case Task::maximum: {
      out.tokens.assign(static_cast<std::size_t>(length), s.vocab);
      distinct_symbols(symbols, bits, s.vocab, length - 1);
      std::copy(symbols.begin(), symbols.end(), out.tokens.begin());
      out.target_positions.push_back(length - 1);
      out.targets.push_back(*std::max_element(symbols.begin(), symbols.end()));
      break;
    }
    case Task::language: {
      // A window of L characters and the L characters after each: training windows lie in the
      // first nine tenths of the corpus, held-out (and probe) windows in the last tenth.
      const bool held_out = stream != DataStream::training;
      const int begin = held_out ? corpus->held_out_from : 0;
      const int end = held_out ? static_cast<int>(corpus->tokens.size()) : corpus->held_out_from;
      const int starts = std::max(1, end - begin - length);  // start + L is a valid target index
      const int start = stream == DataStream::probe ? begin : begin + uniform_below(bits, starts);
      out.tokens.assign(corpus->tokens.begin() + start, corpus->tokens.begin() + start + length);
      for (int t = 0; t < length; ++t) {
        out.target_positions.push_back(t);
        out.targets.push_back(corpus->tokens[static_cast<std::size_t>(start + t + 1)]);
      }
      break;
    }
  }
}

std::vector<std::string> token_labels(const Settings& s, const Corpus* corpus, const std::vector<int>& tokens) {
  const auto symbol = [&](int token) { return token == s.vocab ? std::string("?") : std::to_string(token); };
  std::vector<std::string> labels;
  if (s.task == Task::language) {
    for (int token : tokens) labels.push_back(corpus != nullptr ? corpus->label(token) : std::to_string(token));
  } else if (s.task == Task::recall) {
    for (std::size_t p = 0; p + 1 < tokens.size(); p += 2)
      labels.push_back(symbol(tokens[p]) + "→" + symbol(tokens[p + 1]));
  } else {
    for (int token : tokens) labels.push_back(symbol(token));
  }
  return labels;
}

Probe make_probe(const Settings& s, const Corpus* corpus) {
  Probe probe;
  draw_example(probe.example, s, corpus, DataStream::probe, 0);
  const int length = s.seq_len;
  const auto& tokens = probe.example.tokens;
  probe.ideal.assign(static_cast<std::size_t>(length * length), 0.0);
  probe.ideal_rows.assign(static_cast<std::size_t>(length), 0);
  const auto mark = [&](int row, int key) {
    probe.ideal[static_cast<std::size_t>(row * length + key)] = 1.0;
    probe.ideal_rows[static_cast<std::size_t>(row)] = 1;
  };
  probe.labels = token_labels(s, corpus, tokens);
  switch (s.task) {
    case Task::recall: {
      const int query = tokens[static_cast<std::size_t>(2 * (length - 1))];
      for (int p = 0; p + 1 < length; ++p)
        if (tokens[static_cast<std::size_t>(2 * p)] == query) mark(length - 1, p);
      probe.row = length - 1;
      break;
    }
    case Task::copy:
    case Task::reverse:
      for (int o = 0; o < length / 2; ++o) mark(input_count(length) + o, source_of(s.task, length, o));
      probe.row = input_count(length);
      break;
    case Task::maximum: {
      const auto largest = std::max_element(tokens.begin(), tokens.end() - 1);
      mark(length - 1, static_cast<int>(largest - tokens.begin()));
      probe.row = length - 1;
      break;
    }
    case Task::language: probe.row = length - 1; break;
  }
  return probe;
}

double ideal_match(const std::vector<double>& map, const Probe& probe) {
  const auto length = probe.ideal_rows.size();
  double total = 0.0;
  int rows = 0;
  for (std::size_t i = 0; i < length; ++i) {
    if (!probe.ideal_rows[i]) continue;
    double overlap = 0.0;
    for (std::size_t j = 0; j < length; ++j) overlap += std::min(map[i * length + j], probe.ideal[i * length + j]);
    total += overlap;
    ++rows;
  }
  // std::min(NaN, x) returns NaN only when NaN is first; check the map itself.
  for (double w : map)
    if (std::isnan(w)) return std::numeric_limits<double>::quiet_NaN();
  return rows == 0 ? std::numeric_limits<double>::quiet_NaN() : total / rows;
}

double ideal_agreement(const std::vector<double>& map, const Probe& probe) {
  const auto length = probe.ideal_rows.size();
  int rows = 0, agreeing = 0;
  for (std::size_t i = 0; i < length; ++i) {
    if (!probe.ideal_rows[i]) continue;
    const auto row = map.begin() + static_cast<std::ptrdiff_t>(i * length);
    if (std::any_of(row, row + static_cast<std::ptrdiff_t>(length), [](double w) { return std::isnan(w); }))
      return std::numeric_limits<double>::quiet_NaN();
    const auto largest = std::max_element(row, row + static_cast<std::ptrdiff_t>(length)) - row;
    agreeing += probe.ideal[i * length + static_cast<std::size_t>(largest)] > 0.0 ? 1 : 0;
    ++rows;
  }
  return rows == 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(agreeing) / rows;
}

}  // namespace smlab::train
