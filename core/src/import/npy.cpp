// NumPy .npy and .npz readers over bytes in memory: header dict, dtype, order, shape, and the zip
// container (stored or deflated through zlib). Sizes are checked against the bytes present and
// against the role an array plays before anything is allocated, so a header declaring 10 GB is
// refused, not attempted, and values are decoded as they inflate, never held twice.
//
// Library decision: the zip central directory is read here, not by libzip-dev or
// minizip. The web build (Debian's emscripten) cannot link Debian's native libraries, so either
// would have to be built from its source package for the page as zlib is; and their readers
// allocate and inflate behind their own API, where the checks this reader makes first (entry
// count, entries inside the file and apart from one another, the deflate ratio, the total to
// inflate, the declared shape against the role) could not be made before the cost. zlib stays for
// inflate itself (the page builds it from Debian's source package).
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

  // Success, or an Error::usage saying what went wrong (the caller names the file).
  Result<void> parse(Header& header) {
    bool have_descr = false, have_order = false, have_shape = false;
    skip_space();
    if (!eat('{')) return Error::usage("expected '{' at the start of the header");
    for (;;) {
      skip_space();
      if (eat('}')) break;
      std::string key;
      if (!string_literal(key)) return Error::usage("expected a quoted key at offset " + std::to_string(pos_));
      skip_space();
      if (!eat(':')) return Error::usage("expected ':' after '" + shown(key) + "'");
      skip_space();
      if (key == "descr") {
        if (have_descr) return Error::usage("'descr' given twice");
        if (!string_literal(header.descr))
          return Error::usage("'descr' is not a quoted string (structured dtypes are not supported)");
        have_descr = true;
      } else if (key == "fortran_order") {
        if (have_order) return Error::usage("'fortran_order' given twice");
        if (text_.substr(pos_, 4) == "True")
          header.fortran_order = true, pos_ += 4;
        else if (text_.substr(pos_, 5) == "False")
          header.fortran_order = false, pos_ += 5;
        else
          return Error::usage("'fortran_order' is not True or False");
        have_order = true;
      } else if (key == "shape") {
        if (have_shape) return Error::usage("'shape' given twice");
        if (Result<void> read = tuple(header.shape); !read) return read;
        have_shape = true;
      } else {
        return Error::usage("unknown header key '" + shown(key) + "' (allowed: descr, fortran_order, shape)");
      }
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat('}')) break;
      return Error::usage("expected ',' or '}' at offset " + std::to_string(pos_));
    }
    skip_space();
    if (pos_ != text_.size()) return Error::usage("unexpected text after the header dict");
    if (!have_descr || !have_order || !have_shape)
      return Error::usage("the header lacks descr, fortran_order or shape");
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
  Result<void> tuple(std::vector<std::int64_t>& shape) {
    if (!eat('(')) return Error::usage("'shape' is not a tuple");
    for (;;) {
      skip_space();
      if (eat(')')) break;
      if (pos_ >= text_.size() || text_[pos_] < '0' || text_[pos_] > '9')
        return Error::usage("'shape' holds something that is not a whole number");
      std::int64_t value = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') {
        if (value > (std::int64_t{1} << 40)) return Error::usage("'shape' has an axis longer than 2^40");
        value = value * 10 + (text_[pos_++] - '0');
      }
      if (text_.substr(pos_, 1) == "L") ++pos_;  // Python 2 longs, written by old NumPy
      if (shape.size() >= 8) return Error::usage("'shape' has more than 8 axes");
      shape.push_back(value);
      skip_space();
      if (eat(',')) continue;
      skip_space();
      if (eat(')')) break;
      return Error::usage("'shape' is not a tuple of whole numbers");
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

Result<NpyHeader> parse_npy_header(std::span<const std::uint8_t> bytes, std::string_view file, std::string_view array) {
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
  if (Result<void> parsed = DictParser(header_text).parse(header); !parsed)
    return fail("bad header: " + parsed.error().message);
  const std::string& d = header.descr;
  const bool known_dtype =
      d.size() == 3 && (d[0] == '<' || d[0] == '>') && d[1] == 'f' && (d[2] == '2' || d[2] == '4' || d[2] == '8');
  if (!known_dtype)
    return fail("dtype '" + shown(d) + "' is not supported: allowed <f2 <f4 <f8 >f2 >f4 >f8 (float16/32/64)");
  NpyHeader out;
  out.dtype = d;
  out.item_bytes = d[2] - '0';
  out.big_endian = d[0] == '>';
  out.fortran_order = header.fortran_order;
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
    std::snprintf(gigabytes, sizeof gigabytes, "%.3g", declared * out.item_bytes / 1e9);
    return fail("declares " + std::string(gigabytes) +
                " GB of data (more than 2^28 values): allowed at most 268435456 values");
  }
  out.shape = std::move(header.shape);
  out.count = count;
  out.data_offset = offset + header_len;
  return out;
}

Result<void> check_npy_size(const NpyHeader& header, std::uint64_t total_bytes, std::string_view file,
                            std::string_view array) {
  const std::uint64_t present = total_bytes > header.data_offset ? total_bytes - header.data_offset : 0;
  const std::uint64_t data_bytes = header.data_bytes();
  if (present < data_bytes)
    return Error::usage(where(file, array) + ": truncated: the header declares " + std::to_string(data_bytes) +
                        " bytes of data, the file has " + std::to_string(present));
  if (present > data_bytes)
    return Error::usage(where(file, array) + ": " + std::to_string(present - data_bytes) +
                        " bytes after the declared data: allowed exactly " + std::to_string(data_bytes) +
                        " (object arrays and pickles are not read)");
  return {};
}

NpyDecoder::NpyDecoder(const NpyHeader& header, bool data_present) : header_(header) {
  // Reserved, not filled: pages are touched only as data arrives.
  if (data_present) values_.reserve(static_cast<std::size_t>(header.count));
}

void NpyDecoder::feed(std::span<const std::uint8_t> bytes) {
  const auto item = static_cast<std::size_t>(header_.item_bytes);
  // Bytes beyond the declared data are the caller's to refuse (check_npy_size); never stored.
  const std::uint64_t room = header_.data_bytes() - std::min(fed_, header_.data_bytes());
  if (bytes.size() > room) bytes = bytes.first(static_cast<std::size_t>(room));
  fed_ += bytes.size();
  if (partial_size_ > 0) {  // an item split between two pieces
    const std::size_t take = std::min(item - static_cast<std::size_t>(partial_size_), bytes.size());
    std::memcpy(partial_ + partial_size_, bytes.data(), take);
    partial_size_ += static_cast<int>(take);
    bytes = bytes.subspan(take);
    if (static_cast<std::size_t>(partial_size_) < item) return;
    values_.push_back(decode(partial_, header_.item_bytes, header_.big_endian));
    partial_size_ = 0;
  }
  const std::size_t whole = bytes.size() / item;
  if (values_.capacity() - values_.size() < whole) {
    // Data that was not known to be present: double up to the header's count as it comes.
    const std::size_t wanted = std::max(values_.size() + whole, std::max<std::size_t>(2 * values_.capacity(), 1 << 20));
    values_.reserve(std::min(wanted, static_cast<std::size_t>(header_.count)));
  }
  for (std::size_t i = 0; i < whole; ++i)
    values_.push_back(decode(bytes.data() + i * item, header_.item_bytes, header_.big_endian));
  const std::size_t rest = bytes.size() - whole * item;
  std::memcpy(partial_, bytes.data() + whole * item, rest);
  partial_size_ = static_cast<int>(rest);
}

NdArray NpyDecoder::finish(std::string name) && {
  NdArray out;
  out.name = std::move(name);
  out.dtype = header_.dtype;
  out.shape = header_.shape;
  if (!header_.fortran_order || header_.shape.size() == 1) {
    out.values = std::move(values_);
    return out;
  }
  // Fortran order: the first axis varies fastest in the file. Walk the file's order and place
  // each value at its C-order index.
  out.values.resize(values_.size());
  const std::size_t axes = header_.shape.size();
  std::vector<std::int64_t> index(axes, 0), c_stride(axes, 1);
  for (std::size_t a = axes - 1; a-- > 0;) c_stride[a] = c_stride[a + 1] * header_.shape[a + 1];
  for (std::size_t i = 0; i < values_.size(); ++i) {
    std::int64_t c_index = 0;
    for (std::size_t a = 0; a < axes; ++a) c_index += index[a] * c_stride[a];
    out.values[static_cast<std::size_t>(c_index)] = values_[i];
    for (std::size_t a = 0; a < axes; ++a) {
      if (++index[a] < header_.shape[a]) break;
      index[a] = 0;
    }
  }
  return out;
}

ArrayParse parse_npy(std::span<const std::uint8_t> bytes, std::string_view file, std::string_view array,
                     std::optional<ArrayRole> role, const Progress& progress) {
  Result<NpyHeader> header = parse_npy_header(bytes, file, array);
  if (!header) return header.error();
  if (Result<void> sized = check_npy_size(*header, bytes.size(), file, array); !sized) return sized.error();
  if (role)
    if (Result<void> fits = check_role_shape(*role, header->shape, file, array); !fits) return fits.error();
  NpyDecoder decoder(*header);
  const std::span<const std::uint8_t> data = bytes.subspan(header->data_offset);
  constexpr std::size_t chunk = std::size_t{1} << 22;  // 4 MiB between checks for a cancel
  for (std::size_t done = 0; done < data.size(); done += chunk) {
    if (progress.cancelled()) return cancelled_error("import");
    decoder.feed(data.subspan(done, std::min(chunk, data.size() - done)));
    progress.report(static_cast<double>(done) / static_cast<double>(data.size()));
  }
  return std::move(decoder).finish(std::string(array));
}

namespace {

// [SECTION] The zip container

struct ZipEntry {
  std::string name;
  int method = 0;
  std::uint64_t compressed = 0, uncompressed = 0, local_offset = 0;
  std::uint64_t data_offset = 0;  // after the local header: [data_offset, data_offset + compressed)
  std::uint32_t crc = 0;
};

// The central directory of a zip, with zip64 sizes (NumPy writes every entry with force_zip64),
// and where each entry's data lies. Every entry must lie inside the file, before the directory,
// and apart from every other: overlapping entries are how a small archive claims to hold many
// large arrays (one deflated stream listed 256 times).
Result<void> read_directory(std::span<const std::uint8_t> bytes, std::vector<ZipEntry>& entries) {
  if (bytes.size() < 22) return Error::usage("not an .npz (zip) archive: too short");
  const std::size_t lowest = bytes.size() > 65557 ? bytes.size() - 65557 : 0;
  std::size_t eocd = std::string::npos;
  for (std::size_t at = bytes.size() - 22 + 1; at-- > lowest;)
    if (read_u32(bytes.data() + at) == 0x06054b50) {
      eocd = at;
      break;
    }
  if (eocd == std::string::npos) return Error::usage("not an .npz (zip) archive: no end-of-directory record");
  std::uint64_t count = read_u16(bytes.data() + eocd + 10);
  std::uint64_t dir_size = read_u32(bytes.data() + eocd + 12);
  std::uint64_t dir_offset = read_u32(bytes.data() + eocd + 16);
  if (dir_offset == 0xffffffffu || count == 0xffffu) {
    // Zip64 end record, found through its locator just before the classic one.
    if (eocd < 20 || read_u32(bytes.data() + eocd - 20) != 0x07064b50)
      return Error::usage("zip64 archive without a locator");
    const std::uint64_t record = read_u64(bytes.data() + eocd - 20 + 8);
    if (bytes.size() < 56 || record > bytes.size() - 56 || read_u32(bytes.data() + record) != 0x06064b50)
      return Error::usage("bad zip64 end record");
    count = read_u64(bytes.data() + record + 32);
    dir_size = read_u64(bytes.data() + record + 40);
    dir_offset = read_u64(bytes.data() + record + 48);
  }
  if (count > ImportLimits::npz_entries_max)
    return Error::usage("archive lists " + std::to_string(count) + " entries: allowed at most 256");
  if (dir_offset > bytes.size() || dir_size > bytes.size() - dir_offset)
    return Error::usage("truncated: the zip directory lies past the end");
  std::size_t at = static_cast<std::size_t>(dir_offset);
  const std::size_t end = static_cast<std::size_t>(dir_offset + dir_size);
  for (std::uint64_t n = 0; n < count; ++n) {
    if (at > end || end - at < 46 || read_u32(bytes.data() + at) != 0x02014b50)
      return Error::usage("damaged zip directory entry");
    ZipEntry entry;
    const std::uint16_t flags = read_u16(bytes.data() + at + 8);
    entry.method = read_u16(bytes.data() + at + 10);
    entry.crc = read_u32(bytes.data() + at + 16);
    entry.compressed = read_u32(bytes.data() + at + 20);
    entry.uncompressed = read_u32(bytes.data() + at + 24);
    const std::size_t name_len = read_u16(bytes.data() + at + 28), extra_len = read_u16(bytes.data() + at + 30),
                      comment_len = read_u16(bytes.data() + at + 32);
    entry.local_offset = read_u32(bytes.data() + at + 42);
    if (end - at - 46 < name_len + extra_len + comment_len) return Error::usage("damaged zip directory entry");
    if (flags & 1u) return Error::usage("encrypted zip entries are not supported");
    entry.name.assign(reinterpret_cast<const char*>(bytes.data() + at + 46), name_len);
    // Zip64 extra field: the 0xffffffff fields, in order uncompressed, compressed, offset.
    std::size_t x = at + 46 + name_len;
    const std::size_t x_end = x + extra_len;
    while (x_end - x >= 4) {
      const std::uint16_t id = read_u16(bytes.data() + x), len = read_u16(bytes.data() + x + 2);
      if (x_end - x - 4 < len) return Error::usage("damaged zip extra field");
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
          return Error::usage("damaged zip64 extra field");
      }
      x += 4 + len;
    }
    // The local header, then the data, all before the directory.
    const std::string shown_name = "entry '" + shown(entry.name) + "'";
    if (entry.local_offset > dir_offset || dir_offset - entry.local_offset < 30 ||
        read_u32(bytes.data() + entry.local_offset) != 0x04034b50)
      return Error::usage(shown_name + ": truncated or damaged zip entry");
    entry.data_offset = entry.local_offset + 30 + read_u16(bytes.data() + entry.local_offset + 26) +
                        read_u16(bytes.data() + entry.local_offset + 28);
    if (entry.data_offset > dir_offset || entry.compressed > dir_offset - entry.data_offset)
      return Error::usage(shown_name + ": truncated: the entry declares " + std::to_string(entry.compressed) +
                          " bytes, the archive has " +
                          std::to_string(entry.data_offset > dir_offset ? 0 : dir_offset - entry.data_offset) +
                          " before its directory");
    entries.push_back(std::move(entry));
    at += 46 + name_len + extra_len + comment_len;
  }
  // No two entries share a byte: sorted by where they start, each ends before the next begins.
  std::vector<const ZipEntry*> by_offset;
  for (const ZipEntry& entry : entries) by_offset.push_back(&entry);
  std::sort(by_offset.begin(), by_offset.end(),
            [](const ZipEntry* a, const ZipEntry* b) { return a->local_offset < b->local_offset; });
  for (std::size_t i = 1; i < by_offset.size(); ++i)
    if (by_offset[i]->local_offset < by_offset[i - 1]->data_offset + by_offset[i - 1]->compressed)
      return Error::usage("entries '" + shown(by_offset[i - 1]->name) + "' and '" + shown(by_offset[i]->name) +
                          "' overlap: allowed an archive whose entries are stored apart (as numpy.savez writes them)");
  return {};
}

std::string array_name_of(const std::string& entry) {
  return entry.size() > 4 && entry.ends_with(".npy") ? entry.substr(0, entry.size() - 4) : entry;
}

// The entry's bytes as they inflate (or, stored, as they are), in pieces handed to `take`, which
// returns success to go on or the Error that stops it. Checks the declared sizes and the CRC, each
// problem an Error::usage after `at` (the file and array); a cancelled run is cancelled_error.
// Memory: one 1 MiB buffer, whatever the entry's size.
template <class Take>
Result<void> stream_entry(std::span<const std::uint8_t> bytes, const ZipEntry& entry, const Progress& progress,
                          const std::string& at, Take&& take) {
  auto damaged = [&at](const std::string& why) { return Error::usage(at + ": " + why); };
  const std::uint8_t* source = bytes.data() + entry.data_offset;
  uLong crc = crc32(0L, Z_NULL, 0);
  std::uint64_t out_done = 0;
  auto deliver = [&](const std::uint8_t* piece, std::size_t size) -> Result<void> {
    for (std::size_t done = 0; done < size;) {
      const auto chunk = static_cast<uInt>(std::min<std::size_t>(size - done, 1u << 30));
      crc = crc32(crc, piece + done, chunk);
      done += chunk;
    }
    out_done += size;
    progress.report(static_cast<double>(out_done) /
                    static_cast<double>(std::max<std::uint64_t>(entry.uncompressed, 1)));
    return take(std::span<const std::uint8_t>(piece, size));
  };
  if (entry.method == 0) {
    if (entry.compressed != entry.uncompressed) return damaged("stored entry with two different sizes");
    constexpr std::size_t chunk = std::size_t{1} << 22;
    for (std::uint64_t done = 0; done < entry.compressed; done += chunk) {
      if (progress.cancelled()) return cancelled_error("import");
      const auto size = static_cast<std::size_t>(std::min<std::uint64_t>(chunk, entry.compressed - done));
      if (Result<void> taken = deliver(source + done, size); !taken) return taken;
    }
  } else if (entry.method == 8) {
    // Deflate can expand at most ~1032:1; a larger claimed ratio is a lie about the size.
    if (entry.uncompressed / 1032 > entry.compressed + 1)
      return damaged("declared size impossible for its compressed size");
    std::vector<std::uint8_t> buffer(std::size_t{1} << 20);
    z_stream stream{};
    if (inflateInit2(&stream, -MAX_WBITS) != Z_OK) return damaged("zlib could not start");
    std::uint64_t in_left = entry.compressed;
    const std::uint8_t* in = source;
    int status = Z_OK;
    Result<void> stopped;  // success until something stops the stream
    while (status == Z_OK && stopped) {
      if (progress.cancelled()) {
        stopped = cancelled_error("import");
        break;
      }
      const auto in_chunk = static_cast<uInt>(std::min<std::uint64_t>(in_left, 1u << 30));
      stream.next_in = const_cast<Bytef*>(in);
      stream.avail_in = in_chunk;
      stream.next_out = buffer.data();
      stream.avail_out = static_cast<uInt>(buffer.size());
      status = inflate(&stream, Z_NO_FLUSH);
      in += in_chunk - stream.avail_in;
      in_left -= in_chunk - stream.avail_in;
      const std::size_t produced = buffer.size() - stream.avail_out;
      if (out_done + produced > entry.uncompressed) {
        stopped = damaged("deflate data is longer than its declared size");
        break;
      }
      if (produced > 0) stopped = deliver(buffer.data(), produced);
      if (status == Z_OK && stream.avail_in == in_chunk && produced == 0) status = Z_BUF_ERROR;
    }
    inflateEnd(&stream);
    if (!stopped) return stopped;
    if (status != Z_STREAM_END || out_done != entry.uncompressed)
      return damaged("deflate data is damaged or shorter than its declared size");
  } else {
    return damaged("compression method " + std::to_string(entry.method) +
                   " is not supported: allowed stored or deflate");
  }
  if (static_cast<std::uint32_t>(crc) != entry.crc) return damaged("CRC mismatch: the entry is damaged");
  return {};
}

// One entry as a .npy array: its header from the first inflated bytes, checked (size, role) before
// its values are reserved, then its data decoded as it inflates.
ArrayParse read_entry(std::span<const std::uint8_t> bytes, const ZipEntry& entry, std::string_view file,
                      const std::string& name, std::optional<ArrayRole> role, const Progress& progress) {
  std::vector<std::uint8_t> prefix;  // the first bytes, until the header is read
  std::optional<NpyDecoder> decoder;
  const std::size_t prefix_wanted =
      static_cast<std::size_t>(std::min<std::uint64_t>(entry.uncompressed, ImportLimits::npy_prefix_max));
  auto take = [&](std::span<const std::uint8_t> piece) -> Result<void> {
    if (!decoder) {
      const std::size_t copy = std::min(piece.size(), prefix_wanted - prefix.size());
      prefix.insert(prefix.end(), piece.begin(), piece.begin() + static_cast<std::ptrdiff_t>(copy));
      if (prefix.size() < prefix_wanted) return {};
      Result<NpyHeader> header = parse_npy_header(prefix, file, name);
      Result<void> checked = header ? check_npy_size(*header, entry.uncompressed, file, name) : header.error();
      if (checked && role) checked = check_role_shape(*role, header->shape, file, name);
      if (!checked) return checked;
      decoder.emplace(*header, entry.method == 0);  // a stored entry's bytes are all in the file
      decoder->feed(std::span<const std::uint8_t>(prefix).subspan(std::min(prefix.size(), header->data_offset)));
      piece = piece.subspan(copy);
    }
    decoder->feed(piece);
    return {};
  };
  if (Result<void> streamed = stream_entry(bytes, entry, progress, where(file, name), take); !streamed)
    return streamed.error();
  if (!decoder) {  // an entry shorter than any header
    Result<NpyHeader> header = parse_npy_header(prefix, file, name);
    if (!header) return header.error();
    return Error::usage(where(file, name) + ": truncated .npy entry");
  }
  return std::move(*decoder).finish(name);
}

}  // namespace

// [SECTION] .npz archives: list and read

ArchiveParse list_npz(std::span<const std::uint8_t> bytes, std::string_view file) {
  std::vector<ZipEntry> entries;
  if (Result<void> read = read_directory(bytes, entries); !read)
    return Error::usage(std::string(file) + ": " + read.error().message);
  std::vector<NdArray> arrays;
  for (const ZipEntry& entry : entries) arrays.push_back(NdArray{array_name_of(entry.name), {}, {}, {}, {}});
  return arrays;
}

ArchiveParse parse_npz(std::span<const std::uint8_t> bytes, std::string_view file, std::span<const std::string> wanted,
                       std::span<const ArrayRole> roles, const Progress& progress) {
  std::vector<ZipEntry> entries;
  if (Result<void> read = read_directory(bytes, entries); !read)
    return Error::usage(std::string(file) + ": " + read.error().message);
  auto names = [&] {
    std::string listed;  // the first few: an archive may list 256
    constexpr std::size_t names_shown = 8;
    for (std::size_t i = 0; i < entries.size() && i < names_shown; ++i)
      listed += (listed.empty() ? "" : ", ") + shown(array_name_of(entries[i].name));
    if (entries.size() > names_shown) listed += " and " + std::to_string(entries.size() - names_shown) + " more";
    return listed.empty() ? std::string("none") : listed;
  };
  // What will be read, found and sized before anything is inflated.
  std::vector<std::pair<const ZipEntry*, std::optional<ArrayRole>>> reads;
  std::uint64_t inflated = 0;
  for (const ZipEntry& entry : entries) {
    const std::string name = array_name_of(entry.name);
    std::optional<ArrayRole> role;
    if (!wanted.empty()) {
      const auto found = std::find(wanted.begin(), wanted.end(), name);
      if (found == wanted.end()) continue;
      const auto index = static_cast<std::size_t>(found - wanted.begin());
      if (std::any_of(reads.begin(), reads.end(),
                      [&](const auto& read) { return array_name_of(read.first->name) == name; }))
        return Error::usage(std::string(file) + ": the archive lists '" + shown(name) +
                            "' twice: allowed one entry per array");
      if (index < roles.size()) role = roles[index];
    }
    inflated += entry.uncompressed;
    if (inflated > ImportLimits::npz_inflated_max)
      return Error::usage(std::string(file) + ": the entries to read declare more than " +
                          std::to_string(ImportLimits::npz_inflated_max) + " bytes in all: allowed at most that");
    reads.emplace_back(&entry, role);
  }
  for (const std::string& name : wanted) {
    const bool found = std::any_of(reads.begin(), reads.end(),
                                   [&](const auto& read) { return array_name_of(read.first->name) == name; });
    if (!found)
      return Error::usage(std::string(file) + ": no array '" + shown(name) + "': the archive holds " + names());
  }
  std::vector<NdArray> arrays;
  std::uint64_t done = 0;
  for (const auto& [entry, role] : reads) {
    const double begin = static_cast<double>(done) / static_cast<double>(std::max<std::uint64_t>(inflated, 1));
    done += entry->uncompressed;
    const double end = static_cast<double>(done) / static_cast<double>(std::max<std::uint64_t>(inflated, 1));
    ArrayParse parsed = read_entry(bytes, *entry, file, array_name_of(entry->name), role, progress.part(begin, end));
    if (!parsed.ok()) return parsed.error();
    arrays.push_back(std::move(*parsed));
  }
  return arrays;
}

}  // namespace smlab
