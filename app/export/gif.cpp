// Animated GIF export: per-frame palette quantisation and giflib's streaming encoder into memory.
#include "export/gif.hpp"

#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <unordered_map>
#include <utility>

namespace smlab::exporting {
namespace {

constexpr int exact_colours_with_cube = 40;  // 40 + 216 cube entries = 256
constexpr int cube_levels = 6;

std::uint32_t rgb_key(const std::uint8_t* pixel) {
  return (std::uint32_t{pixel[0]} << 16) | (std::uint32_t{pixel[1]} << 8) | std::uint32_t{pixel[2]};
}

Rgba8 from_key(std::uint32_t key) {
  return {static_cast<std::uint8_t>(key >> 16), static_cast<std::uint8_t>(key >> 8), static_cast<std::uint8_t>(key),
          255};
}

// A 4×4 Bayer matrix: thresholds spread evenly so flat areas between two cube levels become a fine,
// even pattern whose average is the original colour.
constexpr std::array<std::array<int, 4>, 4> bayer = {{{0, 8, 2, 10}, {12, 4, 14, 6}, {3, 11, 1, 9}, {15, 7, 13, 5}}};

int dithered_level(std::uint8_t value, int threshold) {
  const double step = 255.0 / (cube_levels - 1);
  const double scaled = value / step + (threshold + 0.5) / 16.0 - 0.5;
  return std::clamp(static_cast<int>(scaled + 0.5), 0, cube_levels - 1);
}

int write_to_vector(GifFileType* gif, const GifByteType* data, int length) {
  auto* out = static_cast<std::vector<std::uint8_t>*>(gif->UserData);
  out->insert(out->end(), data, data + length);
  return length;
}

std::string gif_error(const char* step, int code) {
  const char* reason = GifErrorString(code);
  return std::string("GIF encoder failed at ") + step + ": " + (reason != nullptr ? reason : "unknown error");
}

}  // namespace

QuantisedFrame quantise_frame(const Image& frame) {
  QuantisedFrame result;
  const std::size_t count = static_cast<std::size_t>(frame.width) * static_cast<std::size_t>(frame.height);
  result.indices.resize(count);
  std::unordered_map<std::uint32_t, std::uint32_t> frequency;
  for (std::size_t i = 0; i < count; ++i) ++frequency[rgb_key(&frame.pixels[i * 4])];

  std::vector<std::pair<std::uint32_t, std::uint32_t>> by_frequency(frequency.begin(), frequency.end());
  // Most frequent first; ties by colour so the palette does not depend on hash order.
  std::sort(by_frequency.begin(), by_frequency.end(), [](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : a.first < b.first;
  });
  const bool exact = by_frequency.size() <= 256;
  const std::size_t exact_count = exact ? by_frequency.size() : exact_colours_with_cube;
  std::unordered_map<std::uint32_t, std::uint8_t> exact_index;
  for (std::size_t i = 0; i < exact_count; ++i) {
    exact_index.emplace(by_frequency[i].first, static_cast<std::uint8_t>(i));
    result.palette.push_back(from_key(by_frequency[i].first));
  }
  if (!exact) {
    for (int r = 0; r < cube_levels; ++r)
      for (int g = 0; g < cube_levels; ++g)
        for (int b = 0; b < cube_levels; ++b)
          result.palette.push_back({static_cast<std::uint8_t>(r * 51), static_cast<std::uint8_t>(g * 51),
                                    static_cast<std::uint8_t>(b * 51), 255});
  }
  for (int y = 0; y < frame.height; ++y) {
    for (int x = 0; x < frame.width; ++x) {
      const std::size_t i =
          static_cast<std::size_t>(y) * static_cast<std::size_t>(frame.width) + static_cast<std::size_t>(x);
      const std::uint8_t* pixel = &frame.pixels[i * 4];
      if (auto found = exact_index.find(rgb_key(pixel)); found != exact_index.end()) {
        result.indices[i] = found->second;
        continue;
      }
      const int threshold = bayer[static_cast<std::size_t>(y % 4)][static_cast<std::size_t>(x % 4)];
      const int cube =
          (dithered_level(pixel[0], threshold) * cube_levels + dithered_level(pixel[1], threshold)) * cube_levels +
          dithered_level(pixel[2], threshold);
      result.indices[i] = static_cast<std::uint8_t>(exact_colours_with_cube + cube);
    }
  }
  return result;
}

GifWriter::GifWriter(const GifOptions& options) : options_(options) {}

GifWriter::~GifWriter() {
  if (gif_ != nullptr) EGifCloseFile(gif_, nullptr);
}

Result<void> GifWriter::start(int width, int height) {
  int error = 0;
  gif_ = EGifOpen(&bytes_, write_to_vector, &error);
  if (gif_ == nullptr) return Error::usage(gif_error("open", error));
  EGifSetGifVersion(gif_, true);
  if (EGifPutScreenDesc(gif_, width, height, 8, 0, nullptr) == GIF_ERROR)
    return Error::usage(gif_error("screen", gif_->Error));
  if (options_.loop_forever) {
    // NETSCAPE2.0 sub-block 1 with a loop count of 0 (little-endian): repeat forever.
    const GifByteType application[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    const GifByteType loop[] = {1, 0, 0};
    if (EGifPutExtensionLeader(gif_, APPLICATION_EXT_FUNC_CODE) == GIF_ERROR ||
        EGifPutExtensionBlock(gif_, sizeof application, application) == GIF_ERROR ||
        EGifPutExtensionBlock(gif_, sizeof loop, loop) == GIF_ERROR || EGifPutExtensionTrailer(gif_) == GIF_ERROR)
      return Error::usage(gif_error("loop extension", gif_->Error));
  }
  width_ = width;
  height_ = height;
  return {};
}

Result<void> GifWriter::add_frame(const Image& frame) {
  if (failed_ || finished_) return Error::usage("GIF writer no longer accepts frames");
  auto fail = [&](std::string message) {
    failed_ = true;
    return Error::usage(std::move(message));
  };
  if (!frame.well_formed()) return fail("GIF frame " + std::to_string(frames_ + 1) + " is empty or malformed");
  if (frame.width > 65535 || frame.height > 65535) return fail("GIF frames are at most 65535 pixels wide and high");
  if (gif_ == nullptr) {
    if (Result<void> started = start(frame.width, frame.height); !started.ok()) return fail(started.error().message);
  } else if (frame.width != width_ || frame.height != height_) {
    return fail("GIF frame " + std::to_string(frames_ + 1) + " is " + std::to_string(frame.width) + "x" +
                std::to_string(frame.height) + ": every frame must be " + std::to_string(width_) + "x" +
                std::to_string(height_));
  }
  QuantisedFrame quantised = quantise_frame(frame);
  std::vector<GifColorType> colours(256);  // a GIF colour table has a power-of-two size
  for (std::size_t i = 0; i < quantised.palette.size(); ++i)
    colours[i] = {quantised.palette[i].r, quantised.palette[i].g, quantised.palette[i].b};
  ColorMapObject* map = GifMakeMapObject(256, colours.data());
  if (map == nullptr) return fail("GIF encoder is out of memory");

  GraphicsControlBlock control{};
  control.DisposalMode = DISPOSE_DO_NOT;
  control.UserInputFlag = false;
  control.DelayTime = options_.delay_centiseconds;
  control.TransparentColor = NO_TRANSPARENT_COLOR;
  GifByteType control_bytes[4];
  const auto control_size = static_cast<int>(EGifGCBToExtension(&control, control_bytes));
  bool ok = EGifPutExtension(gif_, GRAPHICS_EXT_FUNC_CODE, control_size, control_bytes) != GIF_ERROR &&
            EGifPutImageDesc(gif_, 0, 0, width_, height_, false, map) != GIF_ERROR;
  for (int y = 0; ok && y < height_; ++y)
    ok = EGifPutLine(gif_, &quantised.indices[static_cast<std::size_t>(y) * static_cast<std::size_t>(width_)],
                     width_) != GIF_ERROR;
  GifFreeMapObject(map);
  if (!ok) return fail(gif_error("frame", gif_->Error));
  ++frames_;
  return {};
}

Result<void> GifWriter::finish() {
  if (finished_) return {};
  if (failed_) return Error::usage("GIF writer failed earlier");
  if (gif_ == nullptr) return Error::usage("a GIF needs at least one frame");
  int error = 0;
  const int closed = EGifCloseFile(gif_, &error);
  gif_ = nullptr;  // EGifCloseFile frees it even on failure
  if (closed == GIF_ERROR) {
    failed_ = true;
    return Error::usage(gif_error("close", error));
  }
  finished_ = true;
  return {};
}

Result<void> write_gif(const std::filesystem::path& path, GifWriter& writer, bool overwrite) {
  if (Result<void> finished = writer.finish(); !finished.ok())
    return Error::file("cannot write '" + path.string() + "': " + finished.error().message);
  return files::write_file_atomically(path, std::span<const std::uint8_t>(writer.bytes()), overwrite);
}

}  // namespace smlab::exporting
