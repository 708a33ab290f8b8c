// HeatmapTexture: colours a matrix through a colormap on the CPU and keeps it in one GL texture.
#include "plot/heatmap_texture.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

#include <glad/gl.h>

namespace smlab::plot {

void colorize(std::span<std::uint32_t> out_rgba, std::span<const float> values, double vmin, double vmax,
              Colormap cmap) {
  // A lookup table of the colormap: sampling it per cell (interpolation, clamping,
  // rounding) cost ~10 ns, and a 1024² map is recoloured on every slider step.
  // 1024 entries quantise t to 1/1023, finer than the 1/255 step of an 8-bit channel.
  constexpr int table_size = 1024;
  const auto to_byte = [](float channel) {
    return static_cast<unsigned char>(std::lround(std::clamp(channel, 0.0f, 1.0f) * 255.0f));
  };
  const auto pack = [&](Color color) {
    const unsigned char bytes[4] = {to_byte(color.r), to_byte(color.g), to_byte(color.b), 255};
    std::uint32_t packed = 0;
    // memcpy keeps the byte order R, G, B, A in memory whatever the host's endianness.
    std::memcpy(&packed, bytes, sizeof bytes);
    return packed;
  };
  std::array<std::uint32_t, table_size> table{};
  for (int k = 0; k < table_size; ++k) table[static_cast<std::size_t>(k)] = pack(sample(cmap, k / (table_size - 1.0)));
  const std::uint32_t invalid = pack(invalid_color());
  const std::uint32_t middle = pack(sample(cmap, 0.5));

  const double span = vmax - vmin;
  const double scale = span == 0.0 ? 0.0 : (table_size - 1) / span;
  const std::size_t count = std::min(out_rgba.size(), values.size());
  for (std::size_t index = 0; index < count; ++index) {
    const float value = values[index];
    if (!std::isfinite(value)) {
      out_rgba[index] = invalid;
    } else if (span == 0.0) {
      out_rgba[index] = middle;
    } else {
      const double position = std::clamp((value - vmin) * scale, 0.0, table_size - 1.0);
      out_rgba[index] = table[static_cast<std::size_t>(position + 0.5)];
    }
  }
}

HeatmapTexture::~HeatmapTexture() { release(); }

HeatmapTexture::HeatmapTexture(HeatmapTexture&& other) noexcept
    : texture_(std::exchange(other.texture_, 0u)),
      rows_(std::exchange(other.rows_, 0)),
      cols_(std::exchange(other.cols_, 0)),
      rgba_(std::move(other.rgba_)) {}

HeatmapTexture& HeatmapTexture::operator=(HeatmapTexture&& other) noexcept {
  if (this != &other) {
    release();
    texture_ = std::exchange(other.texture_, 0u);
    rows_ = std::exchange(other.rows_, 0);
    cols_ = std::exchange(other.cols_, 0);
    rgba_ = std::move(other.rgba_);
  }
  return *this;
}

void HeatmapTexture::release() {
  if (texture_ != 0) {
    const GLuint name = texture_;
    glDeleteTextures(1, &name);
  }
  texture_ = 0;
  rows_ = cols_ = 0;
}

void HeatmapTexture::update(std::span<const float> values, int rows, int cols, double vmin, double vmax,
                            Colormap cmap) {
  if (rows <= 0 || cols <= 0) return;
  const std::size_t cells = static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols);
  if (values.size() < cells) return;
  rgba_.resize(cells);
  colorize(rgba_, values.first(cells), vmin, vmax, cmap);

  // Leave the caller's texture binding and unpack alignment as they were (ImGui's backend
  // relies on its own state between frames).
  GLint previous_binding = 0;
  GLint previous_alignment = 4;
  glGetIntegerv(GL_TEXTURE_BINDING_2D, &previous_binding);
  glGetIntegerv(GL_UNPACK_ALIGNMENT, &previous_alignment);
  glPixelStorei(GL_UNPACK_ALIGNMENT, 4);

  if (texture_ == 0) {
    GLuint name = 0;
    glGenTextures(1, &name);
    texture_ = name;
    glBindTexture(GL_TEXTURE_2D, texture_);
    // Nearest: each cell is a crisp block, however far it is magnified.
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
  } else {
    glBindTexture(GL_TEXTURE_2D, texture_);
  }
  if (rows != rows_ || cols != cols_) {
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, cols, rows, 0, GL_RGBA, GL_UNSIGNED_BYTE, rgba_.data());
    rows_ = rows;
    cols_ = cols;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols, rows, GL_RGBA, GL_UNSIGNED_BYTE, rgba_.data());
  }

  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous_binding));
  glPixelStorei(GL_UNPACK_ALIGNMENT, previous_alignment);
}

}  // namespace smlab::plot
