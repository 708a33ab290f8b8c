// One OpenGL texture holding a heatmap's colours, so a big matrix is one textured quad on screen
// (thousands of ImDrawList rectangles would cost 100+ ms per frame in software rendering).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "plot/color.hpp"
#include "plot/plot.hpp"

namespace smlab::plot {

// How a map bigger than the texture is reduced to it, factor × factor cells per texel.
//   mean: the area average, right for a map whose values vary smoothly.
//   max:  the block's largest value, right for sparse peaks. An attention map's rows each sum to
//         one, so block means of a one-hot row and of a uniform one are alike at big factors:
//         at L = 4096 the unscaled map averaged looks as flat as the scaled one. Block maxima keep
//         the peaks the map is about.
enum class Pooling { mean, max };

// A heatmap's colours ready for upload: the matrix after the max_side cap, coloured.
struct HeatmapImage {
  int rows = 0, cols = 0;
  std::vector<std::uint32_t> rgba;  // rows × cols, row-major, R G B A bytes in memory order
};

// Runs run_part(0) … run_part(parts − 1), in any order and possibly at once, returning when all
// are done (e.g. smlab::parallel_for). An empty PartRunner means one after the other, here.
using PartRunner = std::function<void(int parts, const std::function<void(int part)>& run_part)>;

// What HeatmapTexture::update uploads, computed without GL, so the evaluator thread can do it
// for every new Snapshot instead of the UI thread (at L = 1024 that was ~4 ms of each frame).
// `pooled` is scratch for the block means. Leaves `image` empty on the inputs update() ignores.
// The matrix is read a row at a time (fill_row, see plot.hpp), so it need not be stored whole.
// With run_parts (see downsample) the rows are read in parallel bands; fill_row must then be safe
// to call from several threads at once.
void prepare_heatmap_image(HeatmapImage& image, std::vector<float>& pooled, const RowFiller& fill_row, int rows,
                           int cols, double vmin, double vmax, Colormap cmap, int max_side = 0,
                           Pooling pooling = Pooling::mean, const PartRunner& run_parts = {});

// Owns one RGBA8 texture (GL_NEAREST, clamp-to-edge). Every member, including the destructor,
// needs the GL context that was current at construction to be current, and glad loaded;
// destroy it before the context. Move-only.
//
//   HeatmapTexture texture;                        // creates no GL object yet
//   texture.update(values, rows, cols, vmin, vmax, Colormap::Viridis);
//   heatmap.texture = texture.id();
class HeatmapTexture {
 public:
  HeatmapTexture() = default;
  ~HeatmapTexture();
  HeatmapTexture(HeatmapTexture&& other) noexcept;
  HeatmapTexture& operator=(HeatmapTexture&& other) noexcept;
  HeatmapTexture(const HeatmapTexture&) = delete;
  HeatmapTexture& operator=(const HeatmapTexture&) = delete;

  // values: row-major rows × cols (row 0 at the top of the image). Each value maps to
  // sample(cmap, (v − vmin) / (vmax − vmin)); NaN/inf become invalid_color(). vmin == vmax
  // maps everything to the middle colour. Creates the texture on first use, reallocates it
  // when the size changes (glTexImage2D), else overwrites it (glTexSubImage2D).
  // Does nothing if rows or cols ≤ 0 or values.size() < rows * cols.
  //
  // max_side > 0 caps the texture's sides: a bigger matrix is first pooled over f×f blocks,
  // f = ⌈max(rows, cols) / max_side⌉ (downsample; averaged unless `pooling` says max). A 4096² map shown in a 300-pixel
  // panel then costs a 683² texture (1.9 MB) instead of 64 MB of staging and 64 MB in the driver, and the picture is a
  // block mean or maximum rather than the one-cell-in-six sample that GL_NEAREST minification would show. Hover
  // read-outs and exports read the full matrix, never this.
  void update(std::span<const float> values, int rows, int cols, double vmin, double vmax, Colormap cmap,
              int max_side = 0);
  // The same for a matrix read a row at a time (plot.hpp's RowFiller).
  void update(const RowFiller& fill_row, int rows, int cols, double vmin, double vmax, Colormap cmap, int max_side = 0,
              Pooling pooling = Pooling::mean);

  // Uploads an image from prepare_heatmap_image (update() is prepare + upload). Empty: no-op.
  void upload(const HeatmapImage& image);

  // GL texture name as ImTextureID-compatible integer; 0 before the first update().
  std::uintptr_t id() const { return static_cast<std::uintptr_t>(texture_); }
  int rows() const { return rows_; }
  int cols() const { return cols_; }

 private:
  void release();

  unsigned int texture_ = 0;
  int rows_ = 0, cols_ = 0;
  HeatmapImage staging_;       // reused by update()
  std::vector<float> pooled_;  // the block means when max_side caps the size
};

// The rows × cols matrix averaged over factor × factor blocks (the last block of a row or column
// may be smaller): out is ⌈rows/factor⌉ × ⌈cols/factor⌉, row-major. A block holding any NaN or
// ±inf becomes NaN, so it still shows in the invalid colour. factor 1 copies.
void downsample_mean(std::vector<float>& out, std::span<const float> values, int rows, int cols, int factor);
// The same, or the block maxima (same blocks, same rule for non-finite cells), reading the
// matrix a row at a time (one row of scratch instead of the whole matrix).
// run_parts, when given, runs bands of output rows as parts (e.g. on a thread pool: the plot
// module has none of its own); the result is the same bits either way.
void downsample(std::vector<float>& out, const RowFiller& fill_row, int rows, int cols, int factor,
                Pooling pooling = Pooling::mean, const PartRunner& run_parts = {});

// Colours of a heatmap as RGBA8 bytes (R, G, B, A in memory order), row-major; shared by the
// texture upload and the SVG's embedded PNG. Pure CPU code, usable without GL.
void colorize(std::span<std::uint32_t> out_rgba, std::span<const float> values, double vmin, double vmax,
              Colormap cmap);

}  // namespace smlab::plot
