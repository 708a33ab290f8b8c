// An RGBA8 image in memory: what a Surface captures and what the PNG/GIF writers encode.
// Shared by platform/ (which produces images) and export/ (which writes them), so it has no GL or file code.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace smlab {

// One pixel, 8 bits per channel, straight (not premultiplied) alpha.
struct Rgba8 {
  std::uint8_t r = 0;
  std::uint8_t g = 0;
  std::uint8_t b = 0;
  std::uint8_t a = 0;
  friend bool operator==(const Rgba8&, const Rgba8&) = default;
};

// Pixels are row-major, top row first, 4 bytes per pixel (R, G, B, A), rows packed without padding.
// A well-formed image has pixels.size() == width * height * 4; an empty image has width == height == 0.
struct Image {
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t> pixels;

  static constexpr int kChannels = 4;

  [[nodiscard]] bool empty() const { return width <= 0 || height <= 0 || pixels.empty(); }

  // True when the buffer size matches the dimensions (what the writers check before encoding).
  [[nodiscard]] bool well_formed() const {
    return width > 0 && height > 0 &&
           pixels.size() == static_cast<std::size_t>(width) * static_cast<std::size_t>(height) * kChannels;
  }

  // Precondition: well_formed() and 0 <= x < width, 0 <= y < height (y = 0 is the top row).
  [[nodiscard]] Rgba8 pixel(int x, int y) const {
    const std::size_t offset =
        (static_cast<std::size_t>(y) * static_cast<std::size_t>(width) + static_cast<std::size_t>(x)) * kChannels;
    return {pixels[offset], pixels[offset + 1], pixels[offset + 2], pixels[offset + 3]};
  }
};

}  // namespace smlab
