// Counts uploads into each texture, so partial redraw (platform/damage.hpp) sees a triangle whose
// texture changed as changed although its vertices did not. Everything that changes a texture's
// pixels (heatmaps, the font atlas) calls note_texture_upload. Header-only: plot/ notes its
// uploads without linking the platform library.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <unordered_map>

namespace smlab::platform {

namespace detail {
inline std::unordered_map<ImTextureID, std::uint64_t>& texture_upload_counts() {
  static std::unordered_map<ImTextureID, std::uint64_t> counts;  // GL calls come from one thread
  return counts;
}
}  // namespace detail

inline void note_texture_upload(ImTextureID texture) { ++detail::texture_upload_counts()[texture]; }

[[nodiscard]] inline std::uint64_t texture_upload_count(ImTextureID texture) {
  const auto& counts = detail::texture_upload_counts();
  const auto found = counts.find(texture);
  return found == counts.end() ? 0 : found->second;
}

}  // namespace smlab::platform
