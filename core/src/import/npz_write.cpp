// Writing .npz archives: NumPy .npy arrays (format 1.0, little-endian float32 or float64, C order)
// in a zip of stored entries, which parse_npz reads back. Used for the training lab's sentence
// (train/npz.cpp) and for imported data a hosted class sends its students.
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include "smlab/import.hpp"

namespace smlab {
namespace {

void put_le(std::vector<std::uint8_t>& out, std::uint64_t value, int bytes) {
  for (int i = 0; i < bytes; ++i) out.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
}

// One .npy file: magic, version 1.0, the header dict padded with spaces to a multiple of 64 bytes
// (ending in '\n'), then the little-endian values.
std::vector<std::uint8_t> npy_bytes(const NpzArray& array) {
  std::string shape = "(";
  for (std::size_t i = 0; i < array.shape.size(); ++i) shape += std::to_string(array.shape[i]) + ", ";
  if (array.shape.size() > 1)
    shape.resize(shape.size() - 2);
  else if (array.shape.size() == 1)
    shape.resize(shape.size() - 1);  // "(5,)"
  shape += ")";
  const bool single = std::holds_alternative<std::span<const float>>(array.values);
  std::string dict =
      std::string("{'descr': '") + (single ? "<f4" : "<f8") + "', 'fortran_order': False, 'shape': " + shape + ", }";
  constexpr std::size_t preamble = 10;  // magic (6), version (2), header length (2)
  const std::size_t padded = (preamble + dict.size() + 1 + 63) / 64 * 64;
  dict.append(padded - preamble - dict.size() - 1, ' ');
  dict += '\n';
  std::vector<std::uint8_t> out = {0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0};
  put_le(out, dict.size(), 2);
  out.insert(out.end(), dict.begin(), dict.end());
  std::visit(
      [&](const auto values) {
        using Value = typename decltype(values)::value_type;
        using Bits = std::conditional_t<sizeof(Value) == 4, std::uint32_t, std::uint64_t>;
        out.reserve(out.size() + sizeof(Value) * values.size());
        for (const Value v : values) put_le(out, std::bit_cast<Bits>(v), static_cast<int>(sizeof(Value)));
      },
      array.values);
  return out;
}

}  // namespace

std::vector<std::uint8_t> npz_bytes(const std::vector<NpzArray>& arrays) {
  constexpr std::uint32_t local_signature = 0x04034b50, central_signature = 0x02014b50, end_signature = 0x06054b50;
  constexpr std::uint16_t version = 20, dos_date = (0 << 9) | (1 << 5) | 1;  // 1980-01-01, 00:00
  std::vector<std::uint8_t> out, central;
  for (const NpzArray& array : arrays) {
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

std::uint64_t imported_npz_size(const ImportedAttention& data) {
  // Each entry: its local header and name, the .npy's header (at most 128 bytes for 4 axes) and
  // values, and its directory entry; then the end record.
  std::uint64_t size = 22;
  for (const std::vector<float>* values : {&data.queries, &data.keys, &data.values, &data.matrix})
    if (!values->empty()) size += 30 + 46 + 2 * 12 + 128 + 4 * static_cast<std::uint64_t>(values->size());
  return size;
}

std::vector<std::uint8_t> imported_npz(const ImportedAttention& data) {
  const auto shape = [&](int columns) {
    return std::vector<std::size_t>{static_cast<std::size_t>(data.batches), static_cast<std::size_t>(data.heads),
                                    static_cast<std::size_t>(data.length), static_cast<std::size_t>(columns)};
  };
  std::vector<NpzArray> arrays;
  if (data.kind == ImportedAttention::Kind::queries_keys) {
    arrays.push_back({"q", shape(data.key_dim), std::span<const float>(data.queries)});
    arrays.push_back({"k", shape(data.key_dim), std::span<const float>(data.keys)});
    if (data.value_dim > 0) arrays.push_back({"v", shape(data.value_dim), std::span<const float>(data.values)});
  } else {
    // Weights are kept as ln(weights): as scores they read back bit for bit, and softmax at T = 1
    // gives the same weights (a weight's own float would come back only to within a rounding).
    arrays.push_back({"scores", shape(data.length), std::span<const float>(data.matrix)});
  }
  return npz_bytes(arrays);
}

}  // namespace smlab
