// HeatmapTexture: colours a matrix through a colormap on the CPU and keeps it in one GL texture.
#include "plot/heatmap_texture.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include <glad/gl.h>

#include "platform/texture_uploads.hpp"

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

void downsample_mean(std::vector<float>& out, std::span<const float> values, int rows, int cols, int factor) {
  downsample(out, rows_of(values, cols), rows, cols, factor, Pooling::mean);
}

namespace {

// Block rows [first_block_row, end_block_row) of downsample's output (out already sized).
void downsample_block_rows(std::vector<float>& out, const RowFiller& fill_row, int rows, int cols, int factor,
                           Pooling pooling, int first_block_row, int end_block_row) {
  const int out_cols = (cols + factor - 1) / factor;
  const auto width = static_cast<std::size_t>(cols);
  std::vector<float> cells(width);
  if (factor == 1) {
    for (int row = first_block_row; row < end_block_row; ++row)
      fill_row(row, std::span(out).subspan(static_cast<std::size_t>(row) * width, width));
    return;
  }
  // Per column over a block's rows (one vectorisable operation per cell, no branch), then each
  // block's ≤ factor columns.
  //   mean: sums in double. A sum of floats in double cannot overflow (4096² · 3.4e38 is far
  //         below 1.8e308), so a block's sum is non-finite exactly when one of its cells is: NaN,
  //         or ±inf (inf − inf gives NaN, also caught).
  //   max:  the maximum, and beside it Σ (v − v), which is 0 for finite cells and NaN otherwise
  //         (std::max alone would drop a NaN), so the same blocks become NaN as for the mean.
  std::vector<double> column_sums(width);
  std::vector<float> column_max(width), column_invalid(width);
  for (int block_row = first_block_row; block_row < end_block_row; ++block_row) {
    std::fill(column_sums.begin(), column_sums.end(), 0.0);
    std::fill(column_max.begin(), column_max.end(), -std::numeric_limits<float>::infinity());
    std::fill(column_invalid.begin(), column_invalid.end(), 0.0f);
    const int first_row = block_row * factor, last_row = std::min(first_row + factor, rows);
    for (int row = first_row; row < last_row; ++row) {
      fill_row(row, cells);
      if (pooling == Pooling::mean) {
        for (std::size_t col = 0; col < width; ++col) column_sums[col] += cells[col];
      } else {
        for (std::size_t col = 0; col < width; ++col) {
          column_max[col] = std::max(column_max[col], cells[col]);
          column_invalid[col] += cells[col] - cells[col];
        }
      }
    }
    float* target = out.data() + static_cast<std::size_t>(block_row) * static_cast<std::size_t>(out_cols);
    for (int block_col = 0; block_col < out_cols; ++block_col) {
      const auto first_col = static_cast<std::size_t>(block_col) * static_cast<std::size_t>(factor);
      const std::size_t last_col = std::min(first_col + static_cast<std::size_t>(factor), width);
      double sum = 0.0;
      float top = -std::numeric_limits<float>::infinity(), invalid = 0.0f;
      for (std::size_t col = first_col; col < last_col; ++col) {
        sum += column_sums[col];
        top = std::max(top, column_max[col]);
        invalid += column_invalid[col];
      }
      const auto count = static_cast<double>((last_col - first_col) * static_cast<std::size_t>(last_row - first_row));
      const bool valid = pooling == Pooling::mean ? std::isfinite(sum) : !std::isnan(invalid);
      const float value = pooling == Pooling::mean ? static_cast<float>(sum / count) : top;
      target[block_col] = valid ? value : std::numeric_limits<float>::quiet_NaN();
    }
  }
}

}  // namespace

void downsample(std::vector<float>& out, const RowFiller& fill_row, int rows, int cols, int factor, Pooling pooling,
                const PartRunner& run_parts) {
  factor = std::max(factor, 1);
  const int out_rows = (rows + factor - 1) / factor, out_cols = (cols + factor - 1) / factor;
  out.assign(static_cast<std::size_t>(out_rows) * static_cast<std::size_t>(out_cols), 0.0f);
  if (!run_parts) {
    downsample_block_rows(out, fill_row, rows, cols, factor, pooling, 0, out_rows);
    return;
  }
  // Each output row depends only on its own block of input rows: bands of them are independent
  // parts, and the result is the same however many ran at once. ~64 K input cells a band at least.
  const int parts = static_cast<int>(
      std::clamp(static_cast<long long>(rows) * cols / 65536, 1LL, static_cast<long long>(std::max(out_rows, 1))));
  run_parts(parts, [&](int part) {
    downsample_block_rows(out, fill_row, rows, cols, factor, pooling,
                          static_cast<int>(static_cast<long long>(out_rows) * part / parts),
                          static_cast<int>(static_cast<long long>(out_rows) * (part + 1) / parts));
  });
}

HeatmapTexture::~HeatmapTexture() { release(); }

HeatmapTexture::HeatmapTexture(HeatmapTexture&& other) noexcept
    : texture_(std::exchange(other.texture_, 0u)),
      rows_(std::exchange(other.rows_, 0)),
      cols_(std::exchange(other.cols_, 0)),
      staging_(std::move(other.staging_)),
      pooled_(std::move(other.pooled_)) {}

HeatmapTexture& HeatmapTexture::operator=(HeatmapTexture&& other) noexcept {
  if (this != &other) {
    release();
    texture_ = std::exchange(other.texture_, 0u);
    rows_ = std::exchange(other.rows_, 0);
    cols_ = std::exchange(other.cols_, 0);
    staging_ = std::move(other.staging_);
    pooled_ = std::move(other.pooled_);
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

void prepare_heatmap_image(HeatmapImage& image, std::vector<float>& pooled, const RowFiller& fill_row, int rows,
                           int cols, double vmin, double vmax, Colormap cmap, int max_side, Pooling pooling,
                           const PartRunner& run_parts) {
  image.rows = image.cols = 0;
  if (rows <= 0 || cols <= 0 || !fill_row) return;
  const int factor =
      max_side > 0 && std::max(rows, cols) > max_side ? (std::max(rows, cols) + max_side - 1) / max_side : 1;
  downsample(pooled, fill_row, rows, cols, factor, pooling, run_parts);
  rows = (rows + factor - 1) / factor;
  cols = (cols + factor - 1) / factor;
  const std::size_t cells = pooled.size();
  if (image.rgba.capacity() > 4 * cells) image.rgba = {};  // give back a buffer from a much bigger map
  image.rgba.resize(cells);
  colorize(image.rgba, pooled, vmin, vmax, cmap);
  if (pooled.capacity() > 4 * cells) pooled = {};  // nor keep a big scratch buffer
  image.rows = rows;
  image.cols = cols;
}

void HeatmapTexture::update(std::span<const float> values, int rows, int cols, double vmin, double vmax, Colormap cmap,
                            int max_side) {
  if (rows <= 0 || cols <= 0 || values.size() < static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols)) return;
  update(rows_of(values, cols), rows, cols, vmin, vmax, cmap, max_side);
}

void HeatmapTexture::update(const RowFiller& fill_row, int rows, int cols, double vmin, double vmax, Colormap cmap,
                            int max_side, Pooling pooling) {
  prepare_heatmap_image(staging_, pooled_, fill_row, rows, cols, vmin, vmax, cmap, max_side, pooling);
  upload(staging_);
}

void HeatmapTexture::upload(const HeatmapImage& image) {
  const int rows = image.rows, cols = image.cols;
  if (rows <= 0 || cols <= 0 || image.rgba.size() < static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols))
    return;

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
    glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, cols, rows, 0, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
    rows_ = rows;
    cols_ = cols;
  } else {
    glTexSubImage2D(GL_TEXTURE_2D, 0, 0, 0, cols, rows, GL_RGBA, GL_UNSIGNED_BYTE, image.rgba.data());
  }

  glBindTexture(GL_TEXTURE_2D, static_cast<GLuint>(previous_binding));
  glPixelStorei(GL_UNPACK_ALIGNMENT, previous_alignment);
  // Triangles that sample this texture now draw other pixels (partial redraw: platform/damage.hpp).
  platform::note_texture_upload(reinterpret_cast<ImTextureID>(id()));
}

}  // namespace smlab::plot
