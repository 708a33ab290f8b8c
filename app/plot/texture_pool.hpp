// Heatmap textures for the panels, keyed by name and re-uploaded only when a new
// Snapshot arrives: panels ask for a texture every frame, the GPU sees one upload.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>

#include "plot/color.hpp"
#include "plot/heatmap_texture.hpp"
#include "plot/plot.hpp"

namespace smlab::app {

class TexturePool {
 public:
  // The texture for `key`, (re)uploaded from `values` if this key was not uploaded
  // since the last new_snapshot(). Needs the GL context current (inside a frame).
  std::uintptr_t texture(const std::string& key, std::span<const float> values, int rows, int cols, double vmin,
                         double vmax, plot::Colormap colormap);

  // The same for a matrix read a row at a time (the pins' attention maps), pooled to block maxima
  // of at most max_side texels a side, as App's live maps are. `source` names the matrix (e.g. its
  // Snapshot, which must outlive the texture's use): another source uploads again.
  std::uintptr_t texture(const std::string& key, const void* source, const plot::RowFiller& fill_row, int rows,
                         int cols, double vmin, double vmax, plot::Colormap colormap, int max_side);

  // Marks every texture stale: the next texture() call for a key uploads again.
  void new_snapshot() { ++generation_; }
  std::uint64_t generation() const { return generation_; }  // which Snapshot the textures are of

  // The user's sequential colormap, applied to every non-diverging map (plot::resolve_colormap).
  void set_sequential_colormap(plot::Colormap colormap) { sequential_ = colormap; }

 private:
  struct Entry {
    plot::HeatmapTexture texture;
    std::uint64_t generation = 0;
    double vmin = 0.0, vmax = 0.0;
    plot::Colormap colormap = plot::Colormap::Viridis;
    const void* source = nullptr;
  };
  std::map<std::string, Entry> entries_;
  std::uint64_t generation_ = 1;
  plot::Colormap sequential_ = plot::Colormap::Viridis;
};

}  // namespace smlab::app
