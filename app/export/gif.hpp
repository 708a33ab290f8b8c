// Animated GIF export (giflib 5): RGBA frames → 256-colour frames in memory, looping forever,
// then written atomically like every other export.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "files/atomic_file.hpp"
#include "platform/image.hpp"

struct GifFileType;

namespace smlab::exporting {

struct GifOptions {
  int delay_centiseconds = 8;  // time each frame shows; GIF counts in 1/100 s
  bool loop_forever = true;    // the NETSCAPE2.0 loop extension with count 0
};

// Frames are quantised one by one, so a long sweep never holds more than one RGBA frame: each frame
// gets its own palette: its colours exactly when it has at most 256 (flat plots usually do), else
// its 40 most frequent colours exactly (background, text, lines) plus a 6×6×6 colour cube with a
// 4×4 ordered dither for the rest (heatmaps, antialiased edges). Alpha is ignored (frames are opaque).
class GifWriter {
 public:
  explicit GifWriter(const GifOptions& options = {});
  ~GifWriter();
  GifWriter(const GifWriter&) = delete;
  GifWriter& operator=(const GifWriter&) = delete;

  // Appends a frame. The first frame fixes the size; a later frame of another size, a malformed
  // image or an encoder failure is an Error::usage (one line: frames the writer cannot take, as
  // --gif's exit 2 has always said), and the writer then refuses more frames.
  Result<void> add_frame(const Image& frame);

  // Ends the file; bytes() is then the complete GIF. Fails (Error::usage) if no frame was added.
  Result<void> finish();
  [[nodiscard]] const std::vector<std::uint8_t>& bytes() const { return bytes_; }
  [[nodiscard]] int frame_count() const { return frames_; }

 private:
  Result<void> start(int width, int height);

  GifOptions options_;
  GifFileType* gif_ = nullptr;
  std::vector<std::uint8_t> bytes_;
  int width_ = 0, height_ = 0, frames_ = 0;
  bool failed_ = false, finished_ = false;
};

// The palette and per-pixel indices of one frame (what GifWriter stores); exposed for tests.
struct QuantisedFrame {
  std::vector<Rgba8> palette;         // 256 entries at most
  std::vector<std::uint8_t> indices;  // width × height, row-major
};
[[nodiscard]] QuantisedFrame quantise_frame(const Image& frame);

// finish()es `writer` and writes its bytes with write_file_atomically (same overwrite rule).
// Any failure is an Error::file naming `path`.
Result<void> write_gif(const std::filesystem::path& path, GifWriter& writer, bool overwrite = false);

}  // namespace smlab::exporting
