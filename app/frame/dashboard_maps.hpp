// The dashboard's two attention maps on the GPU. The worker colours them (Evaluator::MapImages) to
// the spec the App asks for, and they are uploaded only when the data or the look changed: a 4096²
// texture costs milliseconds. Where the worker's images do not match the spec (a first result, a
// colormap just changed), the maps are coloured here from the Snapshot's rows.
#pragma once

#include <memory>

#include "panels/panels.hpp"
#include "platform/surface.hpp"
#include "plot/heatmap_texture.hpp"
#include "work/evaluator.hpp"

namespace smlab::app {

class DashboardMaps {
 public:
  // The images the worker should colour: `colormap`, a fixed [0, 1] or automatic colour scale, and
  // no more texels than half the framebuffer's longer side (the dashboard shows each map in well
  // under that; a 4× export has a 4× framebuffer and gets 4× the texels).
  static Evaluator::MapImageSpec spec(plot::Colormap colormap, bool fixed_range, platform::PixelSize framebuffer);

  // Brings the textures up to `latest` at `spec`. Returns whether the picture or its look is new
  // (a new Snapshot, colormap, colour scale or texel cap): the labs' textures are then stale too.
  bool update(const Evaluator::Latest& latest, bool new_snapshot, const Evaluator::MapImageSpec& spec);

  HeatmapTextures textures() const { return {scaled_.id(), unscaled_.id()}; }

 private:
  plot::HeatmapTexture scaled_, unscaled_;
  std::shared_ptr<const Evaluator::MapImages> uploaded_images_;  // the worker's images on the GPU now
  Evaluator::MapImageSpec uploaded_;                             // the look of the textures
};

}  // namespace smlab::app
