// ZipStream: local headers with the data-descriptor flag, raw deflate (zlib, level 1: the CSV text
// shrinks ~3× at a small cost beside formatting the numbers), descriptors, central directory.
#include "zip_stream.hpp"

#include <zlib.h>

#include <algorithm>
#include <array>
#include <limits>

namespace smlab::web {
namespace {

constexpr std::uint32_t local_signature = 0x04034b50, descriptor_signature = 0x08074b50, central_signature = 0x02014b50,
                        end_signature = 0x06054b50;
// Bit 3: sizes and CRC follow the data (descriptor); bit 11: the name is UTF-8.
constexpr std::uint16_t flags = 0x0808;
constexpr std::uint16_t method_deflate = 8, version_needed = 20;
constexpr std::uint64_t zip32_limit = std::numeric_limits<std::uint32_t>::max();
constexpr std::size_t out_chunk = 64 * 1024;

void put16(std::vector<std::uint8_t>& out, std::uint32_t value) {
  out.push_back(static_cast<std::uint8_t>(value & 0xff));
  out.push_back(static_cast<std::uint8_t>((value >> 8) & 0xff));
}
void put32(std::vector<std::uint8_t>& out, std::uint64_t value) {
  put16(out, static_cast<std::uint32_t>(value & 0xffff));
  put16(out, static_cast<std::uint32_t>((value >> 16) & 0xffff));
}
void put_name(std::vector<std::uint8_t>& out, const std::string& name) {
  out.insert(out.end(), name.begin(), name.end());
}

Error too_large() { return Error::file("the export is larger than a zip without zip64 holds (4 GiB)"); }

}  // namespace

struct ZipStream::Deflater {
  z_stream stream{};
  bool ready = false;
  std::array<std::uint8_t, out_chunk> out{};
};

std::uint16_t dos_time(int hour, int minute, int second) {
  return static_cast<std::uint16_t>((hour << 11) | (minute << 5) | (second / 2));
}

std::uint16_t dos_date(int year, int month, int day) {
  if (year < 1980) return static_cast<std::uint16_t>((1 << 5) | 1);
  return static_cast<std::uint16_t>(((std::min(year, 2107) - 1980) << 9) | (month << 5) | day);
}

ZipStream::ZipStream(Sink sink, std::uint16_t time, std::uint16_t date)
    : sink_(std::move(sink)), dos_time_(time), dos_date_(date), deflater_(std::make_unique<Deflater>()) {}

ZipStream::~ZipStream() {
  if (deflater_->ready) deflateEnd(&deflater_->stream);
}

void ZipStream::emit(std::span<const std::uint8_t> bytes) {
  offset_ += bytes.size();
  if (!bytes.empty()) sink_(bytes);
}

Result<void> ZipStream::begin_file(std::string_view name) {
  if (in_file_ || finished_) return Error::usage("zip: begin_file inside a file or after finish");
  if (name.size() > 0xffff) return Error::usage("zip: a file name longer than 65535 bytes");
  if (entries_.size() >= 0xffff) return too_large();
  if (offset_ > zip32_limit) return too_large();
  Deflater& deflater = *deflater_;
  if (!deflater.ready) {
    // windowBits −15: raw deflate, as zip stores it (no zlib header or trailer).
    if (deflateInit2(&deflater.stream, 1, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
      return Error::file("zip: zlib could not start a deflate stream (out of memory)");
    deflater.ready = true;
  } else if (deflateReset(&deflater.stream) != Z_OK) {
    return Error::file("zip: zlib could not reset its deflate stream");
  }
  entries_.push_back(Entry{std::string(name), static_cast<std::uint32_t>(crc32(0, nullptr, 0)), 0, 0, offset_});
  std::vector<std::uint8_t> header;
  put32(header, local_signature);
  put16(header, version_needed);
  put16(header, flags);
  put16(header, method_deflate);
  put16(header, dos_time_);
  put16(header, dos_date_);
  put32(header, 0);  // CRC, compressed and uncompressed sizes: in the descriptor
  put32(header, 0);
  put32(header, 0);
  put16(header, static_cast<std::uint32_t>(name.size()));
  put16(header, 0);  // no extra field
  put_name(header, entries_.back().name);
  emit(header);
  in_file_ = true;
  return {};
}

Result<void> ZipStream::deflate_into_sink(const std::uint8_t* data, std::size_t length, bool finish) {
  Deflater& deflater = *deflater_;
  Entry& entry = entries_.back();
  z_stream& stream = deflater.stream;
  // zlib counts in uInt: feed at most 1 GiB at a time.
  std::size_t left = length;
  do {
    const auto take = static_cast<uInt>(std::min<std::size_t>(left, std::size_t{1} << 30));
    stream.next_in = const_cast<Bytef*>(data + (length - left));
    stream.avail_in = take;
    left -= take;
    const int flush = finish && left == 0 ? Z_FINISH : Z_NO_FLUSH;
    int status = Z_OK;
    do {
      stream.next_out = deflater.out.data();
      stream.avail_out = static_cast<uInt>(deflater.out.size());
      status = deflate(&stream, flush);
      if (status == Z_STREAM_ERROR) return Error::file("zip: zlib's deflate failed");
      const std::size_t produced = deflater.out.size() - stream.avail_out;
      entry.compressed += produced;
      emit(std::span<const std::uint8_t>(deflater.out.data(), produced));
    } while (stream.avail_out == 0 || (flush == Z_FINISH && status != Z_STREAM_END));
  } while (left > 0);
  return {};
}

Result<void> ZipStream::write(std::string_view bytes) {
  if (!in_file_) return Error::usage("zip: write outside a file");
  Entry& entry = entries_.back();
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  for (std::size_t at = 0; at < bytes.size();) {
    const auto take = static_cast<uInt>(std::min<std::size_t>(bytes.size() - at, std::size_t{1} << 30));
    entry.crc = static_cast<std::uint32_t>(crc32(entry.crc, data + at, take));
    at += take;
  }
  entry.size += bytes.size();
  total_in_ += bytes.size();
  if (entry.size > zip32_limit) return too_large();
  return deflate_into_sink(data, bytes.size(), false);
}

Result<void> ZipStream::end_file() {
  if (!in_file_) return Error::usage("zip: end_file outside a file");
  if (Result<void> flushed = deflate_into_sink(nullptr, 0, true); !flushed.ok()) return flushed;
  in_file_ = false;
  const Entry& entry = entries_.back();
  if (entry.compressed > zip32_limit) return too_large();
  std::vector<std::uint8_t> descriptor;
  put32(descriptor, descriptor_signature);
  put32(descriptor, entry.crc);
  put32(descriptor, entry.compressed);
  put32(descriptor, entry.size);
  emit(descriptor);
  return {};
}

Result<void> ZipStream::finish() {
  if (in_file_ || finished_) return Error::usage("zip: finish inside a file or twice");
  const std::uint64_t directory_offset = offset_;
  std::vector<std::uint8_t> directory;
  for (const Entry& entry : entries_) {
    put32(directory, central_signature);
    put16(directory, 0x0300 | version_needed);  // made by: Unix, zip 2.0
    put16(directory, version_needed);
    put16(directory, flags);
    put16(directory, method_deflate);
    put16(directory, dos_time_);
    put16(directory, dos_date_);
    put32(directory, entry.crc);
    put32(directory, entry.compressed);
    put32(directory, entry.size);
    put16(directory, static_cast<std::uint32_t>(entry.name.size()));
    put16(directory, 0);               // extra
    put16(directory, 0);               // comment
    put16(directory, 0);               // disk
    put16(directory, 0);               // internal attributes
    put32(directory, 0100644u << 16);  // external: a regular file, rw-r--r--
    put32(directory, entry.offset);
    put_name(directory, entry.name);
  }
  if (directory_offset + directory.size() > zip32_limit) return too_large();
  std::vector<std::uint8_t> end;
  put32(end, end_signature);
  put16(end, 0);
  put16(end, 0);
  put16(end, static_cast<std::uint32_t>(entries_.size()));
  put16(end, static_cast<std::uint32_t>(entries_.size()));
  put32(end, directory.size());
  put32(end, directory_offset);
  put16(end, 0);
  emit(directory);
  emit(end);
  finished_ = true;
  return {};
}

}  // namespace smlab::web
