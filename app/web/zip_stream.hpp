// A .zip written front to back in pieces (the web page's exports): each file deflated as its text
// arrives, its CRC and sizes in a data descriptor after it, the central directory at the end, so
// nothing is ever held whole and nothing is written twice. Plain zip (no zip64): every file and the
// whole archive stay below 4 GiB, or the write fails.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "export/export_sink.hpp"
#include "smlab/error.hpp"

namespace smlab::web {

class ZipStream final : public exporting::ExportSink {
 public:
  // Receives the archive's bytes in order, as they are made (a few kB to ~64 kB at a time).
  using Sink = std::function<void(std::span<const std::uint8_t>)>;

  // `dos_time` and `dos_date`: the files' modification time in MS-DOS form (every entry the same).
  ZipStream(Sink sink, std::uint16_t dos_time, std::uint16_t dos_date);
  ~ZipStream() override;
  ZipStream(const ZipStream&) = delete;
  ZipStream& operator=(const ZipStream&) = delete;

  // One file: begin_file, any number of write calls, end_file. `name` is UTF-8, at most 65535 bytes.
  Result<void> begin_file(std::string_view name) override;
  Result<void> write(std::string_view bytes) override;
  Result<void> end_file() override;
  // The central directory and its end record; nothing may be written after it.
  Result<void> finish() override;

  // Bytes of the archive handed to the sink so far, and of file text taken in.
  std::uint64_t bytes_out() const { return offset_; }
  std::uint64_t bytes_in() const { return total_in_; }

 private:
  struct Entry {
    std::string name;
    std::uint32_t crc = 0;
    std::uint64_t compressed = 0, size = 0, offset = 0;
  };
  Result<void> deflate_into_sink(const std::uint8_t* data, std::size_t length, bool finish);
  void emit(std::span<const std::uint8_t> bytes);

  Sink sink_;
  std::uint16_t dos_time_, dos_date_;
  struct Deflater;  // zlib's z_stream, kept out of this header
  std::unique_ptr<Deflater> deflater_;
  std::vector<Entry> entries_;
  bool in_file_ = false, finished_ = false;
  std::uint64_t offset_ = 0, total_in_ = 0;
};

// MS-DOS time and date fields of a local civil time (years before 1980 become 1980-01-01).
std::uint16_t dos_time(int hour, int minute, int second);
std::uint16_t dos_date(int year, int month, int day);

}  // namespace smlab::web
