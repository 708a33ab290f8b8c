// The .npz bytes of a sentence's attention: NumPy .npy arrays (format 1.0, '<f8', C order) in a
// zip archive with stored (uncompressed) entries, which import.hpp's parse_npz reads back.
#include <zlib.h>

#include <bit>
#include <cstdint>
#include <string>
#include <vector>

#include "smlab/train/run.hpp"

namespace smlab::train {
namespace {

struct NamedArray {
  std::string name;
  std::vector<std::size_t> shape;
  std::vector<double> values;
};

void put_le(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// One .npy file: magic, version 1.0, the header dict padded with spaces to a multiple of 64 bytes
// (ending in '\n'), then the little-endian doubles.
std::vector<std::uint8_t> npy_bytes(const NamedArray& array) {
  std::string shape = "(";
  for (std::size_t i = 0; i < array.shape.size(); ++i) shape += std::to_string(array.shape[i]) + ", ";
  if (array.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.resize(shape.size() - 1);  // "(5,)"
  shape += ")";
  std::string dict = "{'descr': '<f8', 'fortran_order': False, 'shape': " + shape + ", }";
  constexpr std::size_t preamble = 10;  // magic (6), version (2), header length (2)
  const std::size_t padded = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(padded - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put_le(out, dict.size(), 2);
  out.insert(out.end(), dict.begin(), dict.end());
  out.reserve(out.size() + 8 * array.values.size());
  for (double v : array.values) put_le(out, std::bit_cast<std::uint64_t>(v), 8);
  return out;
}

// A zip of stored entries (no compression, no zip64: every array here is far below 4 GiB).
std::vector<std::uint8_t> zip_bytes(const std::vector<NamedArray>& arrays) {
  constexpr std::uint32_t local_signature = 0x04034b50, central_signature = 0x02014b50, end_signature = 0x06054b50;
  constexpr std::uint16_t version = 20, dos_date = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, 00:00
  std::vector<std::uint8_t> out, central;
  for (const NamedArray& array : arrays) {
    const std::string name = array.name + ".npy";
    const std::vector<std::uint8_t> data = npy_bytes(array);
    const auto crc =
        static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), data.data(), static_cast<uInt>(data.size())));
    const auto offset = static_cast<std::uint32_t>(out.size());
    const auto size = static_cast<std::uint32_t>(data.size());
    put_le(out, local_signature, 4);
    put_le(out, version, 2);
    put_le(out, 0, 2);  // flags
    put_le(out, 0, 2);  // method: stored
    put_le(out, 0, 2);  // time
    put_le(out, dos_date, 2);
    put_le(out, crc, 4);
    put_le(out, size, 4);
    put_le(out, size, 4);
    put_le(out, name.size(), 2);
    put_le(out, 0, 2);  // extra field length
    out.insert(out.end(), name.begin(), name.end());
    out.insert(out.end(), data.begin(), data.end());

    put_le(central, central_signature, 4);
    put_le(central, version, 2);  // made by
    put_le(central, version, 2);  // needed
    put_le(central, 0, 2);
    put_le(central, 0, 2);
    put_le(central, 0, 2);
    put_le(central, dos_date, 2);
    put_le(central, crc, 4);
    put_le(central, size, 4);
    put_le(central, size, 4);
    put_le(central, name.size(), 2);
    put_le(central, 0, 2);  // extra
    put_le(central, 0, 2);  // comment
    put_le(central, 0, 2);  // disk
    put_le(central, 0, 2);  // internal attributes
    put_le(central, 0, 4);  // external attributes
    put_le(central, offset, 4);
    central.insert(central.end(), name.begin(), name.end());
  }
  const auto central_offset = static_cast<std::uint32_t>(out.size());
  out.insert(out.end(), central.begin(), central.end());
  put_le(out, end_signature, 4);
  put_le(out, 0, 2);  // this disk
  put_le(out, 0, 2);  // disk of the directory
  put_le(out, arrays.size(), 2);
  put_le(out, arrays.size(), 2);
  put_le(out, central.size(), 4);
  put_le(out, central_offset, 4);
  put_le(out, 0, 2);  // comment length
  return out;
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
