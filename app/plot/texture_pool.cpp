// TexturePool: upload-on-change heatmap textures.
#include "plot/texture_pool.hpp"

namespace smlab::app {

std::uintptr_t TexturePool::texture(const std::string& key, std::span<const float> values, int rows, int cols,
                                    double vmin, double vmax, plot::Colormap requested) {
  const plot::Colormap colormap = plot::resolve_colormap(requested, sequential_);
  Entry& entry = entries_[key];
  if (entry.generation != generation_ || entry.vmin != vmin || entry.vmax != vmax || entry.colormap != colormap) {
    entry.texture.update(values, rows, cols, vmin, vmax, colormap);
    entry.generation = generation_;
    entry.source = nullptr;
    entry.vmin = vmin;
    entry.vmax = vmax;
    entry.colormap = colormap;
  }
  return entry.texture.id();
}

std::uintptr_t TexturePool::texture(const std::string& key, const void* source, const plot::RowFiller& fill_row,
                                    int rows, int cols, double vmin, double vmax, plot::Colormap requested,
                                    int max_side) {
  const plot::Colormap colormap = plot::resolve_colormap(requested, sequential_);
  Entry& entry = entries_[key];
  if (entry.generation != generation_ || entry.source != source || entry.vmin != vmin || entry.vmax != vmax ||
      entry.colormap != colormap) {
    entry.texture.update(fill_row, rows, cols, vmin, vmax, colormap, max_side, plot::Pooling::max);
    entry.generation = generation_;
    entry.source = source;
    entry.vmin = vmin;
    entry.vmax = vmax;
    entry.colormap = colormap;
  }
  return entry.texture.id();
}

}  // namespace smlab::app
