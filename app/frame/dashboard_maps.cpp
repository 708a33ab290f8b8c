// The dashboard's two attention maps on the GPU (dashboard_maps.hpp).
#include "dashboard_maps.hpp"

#include <algorithm>

namespace smlab::app {

Evaluator::MapImageSpec DashboardMaps::spec(plot::Colormap colormap, bool fixed_range,
                                            platform::PixelSize framebuffer) {
  const int max_side = std::max({256, framebuffer.width / 2, framebuffer.height / 2});
  return Evaluator::MapImageSpec{max_side, colormap, fixed_range};
}

bool DashboardMaps::update(const Evaluator::Latest& latest, bool new_snapshot, const Evaluator::MapImageSpec& spec) {
  if ((!new_snapshot && spec == uploaded_) || !latest.snapshot) return false;
  uploaded_ = spec;
  // A first result whose maps follow: the textures of the maps before stay until they do.
  if (latest.maps_pending) return true;
  const Snapshot& snap = *latest.snapshot;
  const double vmax = spec.fixed_range ? 1.0 : snap.attention_max;
  if (latest.images != nullptr && latest.images->spec == spec) {  // coloured by the worker
    if (latest.images == uploaded_images_) return true;           // the same maps (a row change): on the GPU already
    uploaded_images_ = latest.images;
    scaled_.upload(latest.images->scaled);
    unscaled_.upload(latest.images->unscaled);
    return true;
  }
  uploaded_images_ = nullptr;
  for (const bool scaled : {true, false}) {
    const MapTextureSource source = map_texture_source(snap, scaled);
    if (source.size == 0) continue;  // maps still being computed: the old texture stays
    (scaled ? scaled_ : unscaled_)
        .update(source.fill_row, source.size, source.size, 0.0, vmax, spec.colormap, spec.max_side, plot::Pooling::max);
  }
  return true;
}

}  // namespace smlab::app
