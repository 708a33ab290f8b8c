// NumPy .npy and .npz readers over bytes in memory: header dict, dtype, order, shape, and the zip
// container (stored or deflated through zlib). Sizes are checked against the bytes present
// before anything is allocated, so a header declaring 10 GB is refused, not attempted.
//
// [SECTION] Index
//   [SECTION] Bytes and the header dict
//   [SECTION] .npy arrays
//   [SECTION] The zip container
//   [SECTION] .npz archives: list and read
#include <zlib.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>
#include <limits>

#include "smlab/import.hpp"
#include "quoted.hpp"
#include "smlab/precision.hpp"

namespace smlab {
namespace {

using import_detail::shown;

// [SECTION] Bytes and the header dict

std::string where(std::string_view file, std::string_view array) {
  std::string out(file);
  if (!array.empty()) out += " array '" + shown(array) + "'";
  return out;
}

std::uint16_t read_u16(const std::uint8_t* p) { return static_cast<std::uint16_t>(p[0] | (p[1] << 8)); }
std::uint32_t read_u32(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | (static_cast<std::uint32_t>(p[1]) << 8) |
         (static_cast<std::uint32_t>(p[2]) << 16) | (static_cast<std::uint32_t>(p[3]) << 24);
}
std::uint64_t read_u64(const std::uint8_t* p) {
  return static_cast<std::uint64_t>(read_u32(p)) | (static_cast<std::uint64_t>(read_u32(p + 4)) << 32);
}

// The header dict, e.g. {'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }.
struct Header {
  std::string descr;
  bool fortran_order = false;
  std::vector<std::int64_t> shape;
};

class DictParser {
 public:
  explicit DictParser(std::string_view text) : text_(text) {}

  // Empty on success, else what went wrong.
  std::string parse(Header& header) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    if (!eat('{')) return "expected '{' at the start of the header";
    for (;;) {
      skip_space();
      if (eat('}')) break;
      std::string key;
      if (!string_literal(key)) return "expected a quoted key at offset " + std::to_string(pos_);
      skip_space();
      if (!eat(':')) return "expected ':' after '" + shown(key) + "'";
      skip_space();
      if (key == "descr") {
        if (have_descr) return "'descr' given twice";
        if (!string_literal(header.descr))
          return "'descr' is not a quoted string (structured dtypes are not supported)";
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) return "'fortran_order' given twice";
        if (text_.substr(pos_, 4) == "True")
          header.fortran_order = true, pos_ += 4;
        else if (text_.substr(pos_, 5) == "False")
          header.fortran_order = false, pos_ += 5;
        else
          return "'fortran_order' is not True or False";
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) return "'shape' given twice";
        if (auto error = tuple(header.shape); !error.empty()) return error;
        have_shape = true;
      } else {
        return "unknown header key '" + shown(key) + "' (allowed: descr, fortran_order, shape)";
      }
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat('}')) break;
      return "expected ',' or '}' at offset " + std::to_string(pos_);
    }
    skip_space();
    if (pos_ != text_.size()) return "unexpected text after the header dict";
    if (!have_descr || !have_order || !have_shape) return "the header lacks descr, fortran_order or shape";
    return {};
  }

 private:
  void skip_space() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool eat(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  bool string_literal(std::string& out) {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) return false;
    const char quote = text_[pos_++];
    const auto end = text_.find(quote, pos_);
    if (end == std::string_view::npos || end - pos_ > 64) return false;
    out = std::string(text_.substr(pos_, end - pos_));
    if (out.find('\\') != std::string::npos) return false;
    pos_ = end + 1;
    return true;
  }
  std::string tuple(std::vector<std::int64_t>& shape) {
    if (!eat('(')) return "'shape' is not a tuple";
    for (;;) {
      skip_space();
      if (eat(')')) break;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return "'shape' holds something that is not a whole number";
      std::int64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (value > (std::int64_t{1} << 40)) return "'shape' has an axis longer than 2^40";
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (text_.substr(pos_, 1) == "L") ++pos_;  // Python 2 longs, written by old NumPy
      if (shape.size() >= 8) return "'shape' has more than 8 axes";
      shape.push_back(value);
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat(')')) break;
      return "'shape' is not a tuple of whole numbers";
    }
    return {};
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

float decode(const std::uint8_t* p, int size, bool big_endian) {
  std::uint8_t b[8];
  for (int i = 0; i < size; ++i) b[i] = big_endian ? p[size - 1 - i] : p[i];
  if (size == 2) return static_cast<float>(from_bits(Format::fp16, static_cast<std::uint64_t>(b[0] | (b[1] << 8))));
  if (size == 4) {
    float value;
    std::memcpy(&value, b, 4);
    return value;
  }
  double value;
  std::memcpy(&value, b, 8);
  return static_cast<float>(value);
}

}  // namespace

// [SECTION] .npy arrays

ArrayParse parse_npy(std::span<const std::uint8_t> bytes, std::string_view file, std::string_view array) {
  const std::string at = where(file, array);
  auto fail = [&](const std::string& why) { return Error::usage(at + ": " + why); };
  static constexpr std::uint8_t magic[] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (bytes.size() < 10 || std::memcmp(bytes.data(), magic, 6) != 0)
    return fail("not a NumPy .npy array (no \\x93NUMPY magic): allowed .npy files written by numpy.save");
  const int major = bytes[6];
  std::size_t header_len = 0, offset = 0;
  if (major == 1) {
    header_len = read_u16(bytes.data() + 8);
    offset = 10;
  } else if (major == 2 || major == 3) {
    if (bytes.size() < 12) return fail("truncated .npy header");
    header_len = read_u32(bytes.data() + 8);
    offset = 12;
  } else {
    return fail(".npy format version " + std::to_string(major) + "." + std::to_string(bytes[7]) +
                " is not supported: allowed 1.0, 2.0, 3.0");
  }
  if (header_len > ImportLimits::npy_header_max)
    return fail("header of " + std::to_string(header_len) + " bytes: allowed at most 65536");
  if (bytes.size() - offset < header_len)
    return fail("truncated: the header declares " + std::to_string(header_len) + " bytes, the file has " +
                std::to_string(bytes.size() - offset));
  const std::string_view header_text(reinterpret_cast<const char*>(bytes.data() + offset), header_len);
  Header header;
  if (auto error = DictParser(header_text).parse(header); !error.empty()) return fail("bad header: " + error);
  const std::string& d = header.descr;
  const bool known_dtype =
      d.size() == 3 && (d[0] == '<' || d[0] == '>') && d[1] == 'f' && (d[2] == '2' || d[2] == '4' || d[2] == '8');
  if (!known_dtype)
    return fail("dtype '" + shown(d) + "' is not supported: allowed <f2 <f4 <f8 >f2 >f4 >f8 (float16/32/64)");
  const int item = d[2] - '0';
  const bool big_endian = d[0] == '>';
  if (header.shape.empty() || header.shape.size() > 4)
    return fail("shape has " + std::to_string(header.shape.size()) +
                " axes: allowed 1 to 4, e.g. [L, d] or [B, H, L, d]");
  std::uint64_t count = 1;
  double declared = 1.0;  // the product in floating point, for the message (it may exceed 64 bits)
  for (std::int64_t axis : header.shape) {
    if (axis < 1) return fail("shape has an empty axis: every axis must be at least 1");
    declared *= static_cast<double>(axis);
    // Checked before multiplying: count ≤ 2^28 times an axis up to 2^40 would wrap 64 bits.
    const bool too_many = static_cast<std::uint64_t>(axis) > ImportLimits::array_elements_max / count;
    count = too_many ? ImportLimits::array_elements_max + 1 : count * static_cast<std::uint64_t>(axis);
  }
  if (count > ImportLimits::array_elements_max) {
    char gigabytes[32];
    std::snprintf(gigabytes, sizeof gigabytes, "%.3g", declared * item / 1e9);
    return fail("declares " + std::string(gigabytes) +
                " GB of data (more than 2^28 values): allowed at most 268435456 values");
  }
  const std::uint64_t data_bytes = count * static_cast<std::uint64_t>(item);
  const std::size_t data_at = offset + header_len;
  const std::uint64_t present = bytes.size() - data_at;
  if (present < data_bytes)
    return fail("truncated: the header declares " + std::to_string(data_bytes) + " bytes of data, the file has " +
                std::to_string(present));
  if (present > data_bytes)
    return fail(std::to_string(present - data_bytes) + " bytes after the declared data: allowed exactly " +
                std::to_string(data_bytes) + " (object arrays and pickles are not read)");

  NdArray out;
  out.name = std::string(array);
  out.shape = header.shape;
  out.dtype = d;
  out.values.resize(static_cast<std::size_t>(count));
  const std::uint8_t* data = bytes.data() + data_at;
  if (!header.fortran_order || header.shape.size() == 1) {
    for (std::size_t i = 0; i < out.values.size(); ++i)
      out.values[i] = decode(data + i * static_cast<std::size_t>(item), item, big_endian);
  } else {
    // Fortran order: the first axis varies fastest in the file. Walk the file in its order and
    // place each value at its C-order index.
    const std::size_t axes = header.shape.size();
    std::vector<std::int64_t> index(axes, 0), c_stride(axes, 1);
    for (std::size_t a = axes - 1; a-- > 0;) c_stride[a] = c_stride[a + 1] * header.shape[a + 1];
    for (std::size_t i = 0; i < out.values.size(); ++i) {
      std::int64_t c_index = 0;
      for (std::size_t a = 0; a < axes; ++a) c_index += index[a] * c_stride[a];
      out.values[static_cast<std::size_t>(c_index)] =
          decode(data + i * static_cast<std::size_t>(item), item, big_endian);
      for (std::size_t a = 0; a < axes; ++a) {
        if (++index[a] < header.shape[a]) break;
        index[a] = 0;
      }
    }
  }
  return out;
}

namespace {

// [SECTION] The zip container

struct ZipEntry {
  std::string name;
  int method = 0;
  std::uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
  std::uint32_t crc = 0;
};

// The central directory of a zip, with zip64 sizes (NumPy writes every entry with force_zip64).
std::string read_directory(std::span<const std::uint8_t> bytes, std::vector<ZipEntry>& entries) {
  if (bytes.size() < 22) return "not an .npz (zip) archive: too short";
  const std::size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
  std::size_t eocd = std::string::npos;
  for (std::size_t at = bytes.size() - 22 + 1; at-- > lowest;)
    if (read_u32(bytes.data() + at) == 0x06054b50) {
      eocd = at;
      break;
    }
  if (eocd == std::string::npos) return "not an .npz (zip) archive: no end-of-directory record";
  std::uint64_t count = read_u16(bytes.data() + eocd + 10);
  std::uint64_t dir_size = read_u32(bytes.data() + eocd + 12);
  std::uint64_t dir_offset = read_u32(bytes.data() + eocd + 16);
  if (dir_offset == 0xffffffffu || count == 0xffffu) {
    // Zip64 end record, found through its locator just before the classic one.
    if (eocd < 20 || read_u32(bytes.data() + eocd - 20) != 0x07064b50) return "zip64 archive without a locator";
    const std::uint64_t record = read_u64(bytes.data() + eocd - 20 + 8);
    if (bytes.size() < 56 || record > bytes.size() - 56 || read_u32(bytes.data() + record) != 0x06064b50)
      return "bad zip64 end record";
    count = read_u64(bytes.data() + record + 32);
    dir_size = read_u64(bytes.data() + record + 40);
    dir_offset = read_u64(bytes.data() + record + 48);
  }
  if (count > ImportLimits::npz_entries_max)
    return "archive lists " + std::to_string(count) + " entries: allowed at most 256";
  if (dir_offset > bytes.size() || dir_size > bytes.size() - dir_offset)
    return "truncated: the zip directory lies past the end";
  std::size_t at = static_cast<std::size_t>(dir_offset);
  const std::size_t end = static_cast<std::size_t>(dir_offset + dir_size);
  for (std::uint64_t n = 0; n < count; ++n) {
    if (at > end || end - at < 46 || read_u32(bytes.data() + at) != 0x02014b50) return "damaged zip directory entry";
    ZipEntry entry;
    const std::uint16_t flags = read_u16(bytes.data() + at + 8);
    entry.method = read_u16(bytes.data() + at + 10);
    entry.crc = read_u32(bytes.data() + at + 16);
    entry.compressed = read_u32(bytes.data() + at + 20);
    entry.uncompressed = read_u32(bytes.data() + at + 24);
    const std::size_t name_len = read_u16(bytes.data() + at + 28), extra_len = read_u16(bytes.data() + at + 30),
                      comment_len = read_u16(bytes.data() + at + 32);
    entry.local_offset = read_u32(bytes.data() + at + 42);
    if (end - at - 46 < name_len + extra_len + comment_len) return "damaged zip directory entry";
    if (flags & 1u) return "encrypted zip entries are not supported";
    entry.name.assign(reinterpret_cast<const char*>(bytes.data() + at + 46), name_len);
    // Zip64 extra field: the 0xffffffff fields, in order uncompressed, compressed, offset.
    std::size_t x = at + 46 + name_len;
    const std::size_t x_end = x + extra_len;
    while (x_end - x >= 4) {
      const std::uint16_t id = read_u16(bytes.data() + x), len = read_u16(bytes.data() + x + 2);
      if (x_end - x - 4 < len) return "damaged zip extra field";
      if (id == 0x0001) {
        std::size_t f = x + 4;
        auto take = [&](std::uint64_t& field) {
          if (field != 0xffffffffu) return true;
          if (x + 4 + len - f < 8) return false;
          field = read_u64(bytes.data() + f);
          f += 8;
          return true;
        };
        if (!take(entry.uncompressed) || !take(entry.compressed) || !take(entry.local_offset))
          return "damaged zip64 extra field";
      }
      x += 4 + len;
    }
    entries.push_back(std::move(entry));
    at += 46 + name_len + extra_len + comment_len;
  }
  return {};
}

std::string array_name_of(const std::string& entry) {
  return entry.size() > 4 && entry.ends_with(".npy") ? entry.substr(0, entry.size() - 4) : entry;
}

// The entry's bytes, inflated when deflated. Checks sizes and the CRC.
std::string entry_bytes(std::span<const std::uint8_t> bytes, const ZipEntry& entry, std::vector<std::uint8_t>& out) {
  if (entry.local_offset > bytes.size() || bytes.size() - entry.local_offset < 30 ||
      read_u32(bytes.data() + entry.local_offset) != 0x04034b50)
    return "truncated or damaged zip entry";
  const std::size_t name_len = read_u16(bytes.data() + entry.local_offset + 26),
                    extra_len = read_u16(bytes.data() + entry.local_offset + 28);
  const std::uint64_t data_at = entry.local_offset + 30 + name_len + extra_len;
  if (data_at > bytes.size() || entry.compressed > bytes.size() - data_at)
    return "truncated: the entry declares " + std::to_string(entry.compressed) + " bytes, the file has " +
           std::to_string(data_at > bytes.size() ? 0 : bytes.size() - data_at);
  // The inflated array can be no bigger than its largest allowed form (float64 values + header).
  const std::uint64_t largest = ImportLimits::array_elements_max * 8 + ImportLimits::npy_header_max + 16;
  if (entry.uncompressed > largest)
    return "declares " + std::to_string(entry.uncompressed) + " bytes: allowed at most " + std::to_string(largest);
  const std::uint8_t* source = bytes.data() + data_at;
  if (entry.method == 0) {
    if (entry.compressed != entry.uncompressed) return "stored entry with two different sizes";
    out.assign(source, source + entry.compressed);
  } else if (entry.method == 8) {
    // Deflate can expand at most ~1032:1; a larger claimed ratio is a lie about the size.
    if (entry.uncompressed / 1032 > entry.compressed + 1) return "declared size impossible for its compressed size";
    out.resize(static_cast<std::size_t>(entry.uncompressed));
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return "zlib could not start";
    std::uint64_t in_left = entry.compressed, out_done = 0;
    const std::uint8_t* in = source;
    int status = Z_OK;
    while (status == Z_OK) {
      const auto in_chunk = static_cast<uInt>(std::min<std::uint64_t>(in_left, 1u << 30));
      const auto out_chunk = static_cast<uInt>(std::min<std::uint64_t>(out.size() - out_done, 1u << 30));
      stream.next_in = const_cast<Bytef*>(in);
      stream.avail_in = in_chunk;
      stream.next_out = out.data() + out_done;
      stream.avail_out = out_chunk;
      status = inflate(&stream, Z_NO_FLUSH);
      in += in_chunk - stream.avail_in;
      in_left -= in_chunk - stream.avail_in;
      out_done += out_chunk - stream.avail_out;
      if (status == Z_OK && stream.avail_in == in_chunk && stream.avail_out == out_chunk) status = Z_BUF_ERROR;
    }
    inflateEnd(&stream);
    if (status != Z_STREAM_END || out_done != out.size())
      return "deflate data is damaged or shorter than its declared size";
  } else {
    return "compression method " + std::to_string(entry.method) + " is not supported: allowed stored or deflate";
  }
  uLong crc = crc32(0L, Z_NULL, 0);
  for (std::size_t done = 0; done < out.size();) {
    const auto chunk = static_cast<uInt>(std::min<std::size_t>(out.size() - done, 1u << 30));
    crc = crc32(crc, out.data() + done, chunk);
    done += chunk;
  }
  if (static_cast<std::uint32_t>(crc) != entry.crc) return "CRC mismatch: the entry is damaged";
  return {};
}

}  // namespace

// [SECTION] .npz archives: list and read

ArchiveParse list_npz(std::span<const std::uint8_t> bytes, std::string_view file) {
  std::vector<ZipEntry> entries;
  if (auto error = read_directory(bytes, entries); !error.empty())
    return Error::usage(std::string(file) + ": " + error);
  std::vector<NdArray> arrays;
  for (const ZipEntry& entry : entries) arrays.push_back(NdArray{array_name_of(entry.name), {}, {}, {}});
  return arrays;
}

ArchiveParse parse_npz(std::span<const std::uint8_t> bytes, std::string_view file,
                       std::span<const std::string> wanted) {
  std::vector<ZipEntry> entries;
  if (auto error = read_directory(bytes, entries); !error.empty())
    return Error::usage(std::string(file) + ": " + error);
  std::vector<NdArray> arrays;
  std::vector<std::uint8_t> inflated;
  for (const ZipEntry& entry : entries) {
    const std::string name = array_name_of(entry.name);
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), name) == wanted.end()) continue;
    if (auto error = entry_bytes(bytes, entry, inflated); !error.empty())
      return Error::usage(where(file, name) + ": " + error);
    ArrayParse parsed = parse_npy(inflated, file, name);
    if (!parsed.ok()) return parsed.error();
    arrays.push_back(std::move(*parsed));
  }
  for (const std::string& name : wanted) {
    const bool found = std::any_of(arrays.begin(), arrays.end(), [&](const NdArray& a) { return a.name == name; });
    if (!found) {
      std::string names;
      for (const ZipEntry& entry : entries) names += (names.empty() ? "" : ", ") + shown(array_name_of(entry.name));
      return Error::usage(std::string(file) + ": no array '" + shown(name) + "': the archive holds " +
                          (names.empty() ? "none" : names));
    }
  }
  return arrays;
}

}  // namespace smlab
