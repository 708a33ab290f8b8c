// The .npz bytes of a sentence's attention: every array '<f8', C order (import.hpp's npz_bytes).
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "smlab/import.hpp"
#include "smlab/train/run.hpp"

namespace smlab::train {
namespace {

struct NamedArray {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

std::vector<std::uint8_t> zip_bytes(const std::vector<NamedArray>& arrays) {
  std::vector<NpzArray> entries;
  for (const NamedArray& array : arrays)
    entries.push_back({array.name, array.shape, std::span<const double>(array.values)});
  return npz_bytes(entries);
}

}  // namespace

std::vector<std::uint8_t> attention_npz(const SentenceAttention& sentence) {
  const Trace& t = sentence.trace;
  const std::size_t layers = static_cast<std::size_t>(t.layers), heads = static_cast<std::size_t>(t.heads),
                    L = static_cast<std::size_t>(t.length);
  const auto stacked = [&](std::string name, const std::vector<std::vector<double>>& per_head, std::size_t cols) {
    NamedArray array{std::move(name), {layers, heads, L, cols}, {}};
    for (const std::vector<double>& head : per_head) array.values.insert(array.values.end(), head.begin(), head.end());
    return array;
  };
  std::vector<NamedArray> arrays;
  arrays.push_back(stacked("weights", t.weights, L));
  arrays.push_back(stacked("query_activations", t.queries, static_cast<std::size_t>(t.key_dim)));
  arrays.push_back(stacked("key_activations", t.keys, static_cast<std::size_t>(t.key_dim)));
  arrays.push_back(stacked("value_activations", t.values, static_cast<std::size_t>(t.value_dim)));
  arrays.push_back(stacked("score_map", t.logits, L));
  arrays.push_back({"next_token", {L, static_cast<std::size_t>(t.output_vocab)}, sentence.next_token});
  return zip_bytes(arrays);
}

}  // namespace smlab::train
