// Counts uploads into each texture, so partial redraw (platform/damage.hpp) sees a triangle whose
// texture changed as changed although its vertices did not. Everything that changes a texture's
// pixels (heatmaps, the font atlas) calls note_texture_upload. Header-only: plot/ notes its
// uploads without linking the platform library.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <map>
#include <utility>

namespace smlab::platform {

namespace detail {
// Keyed by the current ImGui context too: texture names are per GL context, one a surface, and
// every surface has its own ImGui context, so texture 5 of an export's offscreen surface is not
// the window's texture 5 and its uploads must not count as the window's.
using TextureKey = std::pair<const ImGuiContext*, ImTextureID>;
inline std::map<TextureKey, std::uint64_t>& texture_upload_counts() {
  static std::map<TextureKey, std::uint64_t> counts;  // GL calls come from one thread
  return counts;
}
}  // namespace detail

inline void note_texture_upload(ImTextureID texture) {
  ++detail::texture_upload_counts()[{ImGui::GetCurrentContext(), texture}];
}

[[nodiscard]] inline std::uint64_t texture_upload_count(ImTextureID texture) {
  const auto& counts = detail::texture_upload_counts();
  const auto found = counts.find({ImGui::GetCurrentContext(), texture});
  return found == counts.end() ? 0 : found->second;
}

}  // namespace smlab::platform
