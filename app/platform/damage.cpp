// Frame-to-frame damage from ImGui draw data (platform/damage.hpp).
//
// [SECTION] Index
//   [SECTION] Collecting a frame's triangles
//   [SECTION] Matching the two frames
//   [SECTION] update() and filtered()
#include "platform/damage.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace smlab::platform {

namespace {

// A 64-bit mix of 8-byte words (multiply-xorshift, as in splitmix64's finaliser).
std::uint64_t mix(std::uint64_t hash, std::uint64_t word) {
  hash ^= word + 0x9e3779b97f4a7c15ULL + (hash << 6) + (hash >> 2);
  hash ^= hash >> 30;
  hash *= 0xbf58476d1ce4e5b9ULL;
  hash ^= hash >> 27;
  hash *= 0x94d049bb133111ebULL;
  hash ^= hash >> 31;
  return hash;
}

std::uint64_t mix_bytes(std::uint64_t hash, const void* data, std::size_t size) {
  const auto* bytes = static_cast<const unsigned char*>(data);
  while (size >= 8) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, 8);
    hash = mix(hash, word);
    bytes += 8;
    size -= 8;
  }
  if (size > 0) {
    std::uint64_t word = 0;
    std::memcpy(&word, bytes, size);
    hash = mix(hash, word ^ (static_cast<std::uint64_t>(size) << 56));
  }
  return hash;
}

bool same_vec(const ImVec2& a, const ImVec2& b) { return a.x == b.x && a.y == b.y; }
bool same_vec(const ImVec4& a, const ImVec4& b) { return a.x == b.x && a.y == b.y && a.z == b.z && a.w == b.w; }

}  // namespace

// [SECTION] Collecting a frame's triangles

void DamageTracker::collect(const ImDrawData& draw_data, Frame& frame, bool& has_callback) const {
  frame.triangles.clear();
  has_callback = false;
  const ImVec2 offset = draw_data.DisplayPos;
  const ImVec2 scale = draw_data.FramebufferScale;
  const float width = static_cast<float>(frame.framebuffer.width);
  const float height = static_cast<float>(frame.framebuffer.height);
  for (int list_index = 0; list_index < draw_data.CmdListsCount; ++list_index) {
    const ImDrawList& list = *draw_data.CmdLists[list_index];
    for (const ImDrawCmd& command : list.CmdBuffer) {
      if (command.UserCallback != nullptr) {
        has_callback = true;  // what a callback draws is unknown
        continue;
      }
      std::uint64_t command_key = mix_bytes(0x5eed, &command.ClipRect, sizeof(command.ClipRect));
      const ImTextureID texture = command.GetTexID();
      command_key = mix(command_key, reinterpret_cast<std::uintptr_t>(texture));
      command_key = mix(command_key, texture_upload_count(texture));
      // The clip rectangle in framebuffer pixels, rounded out (a conservative bound of the scissor).
      const float clip_x0 = std::max(0.0f, std::floor((command.ClipRect.x - offset.x) * scale.x));
      const float clip_y0 = std::max(0.0f, std::floor((command.ClipRect.y - offset.y) * scale.y));
      const float clip_x1 = std::min(width, std::ceil((command.ClipRect.z - offset.x) * scale.x));
      const float clip_y1 = std::min(height, std::ceil((command.ClipRect.w - offset.y) * scale.y));
      const bool clip_finite =
          std::isfinite(clip_x0) && std::isfinite(clip_y0) && std::isfinite(clip_x1) && std::isfinite(clip_y1);
      for (unsigned int element = 0; element + 2 < command.ElemCount; element += 3) {
        const ImDrawVert* corners[3];
        for (int corner = 0; corner < 3; ++corner) {
          const ImDrawIdx index = list.IdxBuffer[static_cast<int>(command.IdxOffset + element) + corner];
          corners[corner] = &list.VtxBuffer[static_cast<int>(command.VtxOffset + index)];
        }
        Triangle triangle;
        std::uint64_t key = command_key;
        float x0 = corners[0]->pos.x, x1 = x0, y0 = corners[0]->pos.y, y1 = y0;
        for (const ImDrawVert* vertex : corners) {
          key = mix_bytes(key, vertex, sizeof(ImDrawVert));
          x0 = std::min(x0, vertex->pos.x);
          x1 = std::max(x1, vertex->pos.x);
          y0 = std::min(y0, vertex->pos.y);
          y1 = std::max(y1, vertex->pos.y);
        }
        triangle.key = key;
        // Pixels whose centres the triangle covers lie within its bounding box; one pixel more on
        // each side leaves room for the rasteriser's rounding.
        float px0 = std::floor((x0 - offset.x) * scale.x) - 1.0f, py0 = std::floor((y0 - offset.y) * scale.y) - 1.0f;
        float px1 = std::ceil((x1 - offset.x) * scale.x) + 1.0f, py1 = std::ceil((y1 - offset.y) * scale.y) + 1.0f;
        if (!(std::isfinite(px0) && std::isfinite(py0) && std::isfinite(px1) && std::isfinite(py1) && clip_finite)) {
          px0 = py0 = 0.0f;  // cannot say where it lands: anywhere
          px1 = width;
          py1 = height;
        } else {
          px0 = std::max(px0, clip_x0);
          py0 = std::max(py0, clip_y0);
          px1 = std::min(px1, clip_x1);
          py1 = std::min(py1, clip_y1);
        }
        if (px1 > px0 && py1 > py0) {
          triangle.tx0 = static_cast<int>(px0) / kTile;
          triangle.ty0 = static_cast<int>(py0) / kTile;
          triangle.tx1 = (static_cast<int>(px1) - 1) / kTile;
          triangle.ty1 = (static_cast<int>(py1) - 1) / kTile;
        }
        frame.triangles.push_back(triangle);
      }
    }
  }
}

// [SECTION] Matching the two frames

// Matches the visible triangles of the two frames as multisets (equal keys pair up in order of
// appearance), marks the unmatched ones' tiles, and says whether the matched ones keep their order.
bool DamageTracker::same_order_outside_changes() {
  const auto& a = previous_.triangles;
  const auto& b = current_.triangles;
  // An open-addressing table from key to [occurrences in a, of them still unmatched].
  std::size_t capacity = 16;
  while (capacity < 2 * a.size()) capacity *= 2;
  slots_.assign(capacity, Slot{});
  const std::size_t mask = capacity - 1;
  auto find = [&](std::uint64_t key) -> Slot& {
    for (std::size_t at = static_cast<std::size_t>(mix(key, 1)) & mask;; at = (at + 1) & mask) {
      Slot& slot = slots_[at];
      if (slot.count == 0 || slot.key == key) return slot;
    }
  };
  for (const Triangle& triangle : a) {
    if (!triangle.visible()) continue;
    Slot& slot = find(triangle.key);
    slot.key = triangle.key;
    ++slot.count;
    ++slot.unmatched;
  }
  matched_a_.assign(a.size(), 0);
  matched_b_.assign(b.size(), 0);
  for (std::size_t index = 0; index < b.size(); ++index) {
    if (!b[index].visible()) continue;
    Slot& slot = find(b[index].key);
    if (slot.count != 0 && slot.unmatched > 0) {
      --slot.unmatched;
      matched_b_[index] = 1;
    } else {
      mark(b[index]);
    }
  }
  // In a, the first (count − unmatched) occurrences of each key are the matched ones (counted up
  // in `unmatched`: a used slot's count never returns to 0, the mark of an empty one).
  for (std::size_t index = 0; index < a.size(); ++index) {
    if (!a[index].visible()) continue;
    Slot& slot = find(a[index].key);
    if (slot.unmatched < slot.count) {
      ++slot.unmatched;
      matched_a_[index] = 1;
    } else {
      mark(a[index]);
    }
  }
  // The matched triangles, in each frame's order, must be the same sequence.
  std::size_t next_a = 0, next_b = 0;
  for (;;) {
    while (next_a < a.size() && matched_a_[next_a] == 0) ++next_a;
    while (next_b < b.size() && matched_b_[next_b] == 0) ++next_b;
    if (next_a == a.size() || next_b == b.size()) return next_a == a.size() && next_b == b.size();
    if (a[next_a].key != b[next_b].key) return false;
    ++next_a;
    ++next_b;
  }
}

void DamageTracker::mark(const Triangle& triangle) {
  for (int ty = triangle.ty0; ty <= triangle.ty1; ++ty) {
    std::fill_n(tiles_.begin() + static_cast<std::ptrdiff_t>(ty) * tiles_x_ + triangle.tx0,
                triangle.tx1 - triangle.tx0 + 1, std::uint8_t{1});
  }
}

// Damaged tiles → rectangles: runs along each tile row, merged with the run of the same columns in
// the row above. Each rectangle costs the repaint a pass over the triangles and a draw call per
// command it meets, so past kMaxRects the two whose bounding box adds the fewest pixels are merged,
// with every rectangle that box meets (the rectangles stay disjoint: a pixel is drawn once).
void DamageTracker::build_rects(PixelSize framebuffer) {
  auto& rects = damage_.rects;
  rects.clear();
  std::vector<std::size_t> open, still_open;  // rects that end at the previous row
  for (int ty = 0; ty < tiles_y_; ++ty) {
    still_open.clear();
    for (int tx = 0; tx < tiles_x_;) {
      if (tiles_[static_cast<std::size_t>(ty) * tiles_x_ + tx] == 0) {
        ++tx;
        continue;
      }
      const int start = tx;
      while (tx < tiles_x_ && tiles_[static_cast<std::size_t>(ty) * tiles_x_ + tx] != 0) ++tx;
      const PixelRect run{start * kTile, ty * kTile, std::min(tx * kTile, framebuffer.width),
                          std::min((ty + 1) * kTile, framebuffer.height)};
      const auto above = std::find_if(open.begin(), open.end(),
                                      [&](std::size_t k) { return rects[k].x0 == run.x0 && rects[k].x1 == run.x1; });
      if (above != open.end()) {
        rects[*above].y1 = run.y1;
        still_open.push_back(*above);
      } else {
        still_open.push_back(rects.size());
        rects.push_back(run);
      }
    }
    open.swap(still_open);
  }
  const auto area = [](const PixelRect& r) {
    return static_cast<std::int64_t>(r.x1 - r.x0) * static_cast<std::int64_t>(r.y1 - r.y0);
  };
  const auto meet = [](const PixelRect& p, const PixelRect& q) {
    return p.x0 < q.x1 && q.x0 < p.x1 && p.y0 < q.y1 && q.y0 < p.y1;
  };
  const auto box = [](const PixelRect& p, const PixelRect& q) {
    return PixelRect{std::min(p.x0, q.x0), std::min(p.y0, q.y0), std::max(p.x1, q.x1), std::max(p.y1, q.y1)};
  };
  while (rects.size() > static_cast<std::size_t>(kMaxRects)) {
    std::size_t best_i = 0, best_j = 1;
    std::int64_t best_cost = -1;
    for (std::size_t i = 0; i < rects.size(); ++i) {
      for (std::size_t j = i + 1; j < rects.size(); ++j) {
        const std::int64_t cost = area(box(rects[i], rects[j])) - area(rects[i]) - area(rects[j]);
        if (best_cost < 0 || cost < best_cost) {
          best_cost = cost;
          best_i = i;
          best_j = j;
        }
      }
    }
    PixelRect merged = box(rects[best_i], rects[best_j]);
    rects.erase(rects.begin() + static_cast<std::ptrdiff_t>(best_j));
    rects.erase(rects.begin() + static_cast<std::ptrdiff_t>(best_i));
    for (bool grew = true; grew;) {  // absorb whatever the box now meets, until nothing does
      grew = false;
      for (std::size_t k = 0; k < rects.size();) {
        if (meet(merged, rects[k])) {
          merged = box(merged, rects[k]);
          rects.erase(rects.begin() + static_cast<std::ptrdiff_t>(k));
          grew = true;
        } else {
          ++k;
        }
      }
    }
    rects.push_back(merged);
  }
  std::int64_t damaged_pixels = 0;
  for (const PixelRect& rect : rects) damaged_pixels += area(rect);
  const double total = static_cast<double>(framebuffer.width) * static_cast<double>(framebuffer.height);
  damage_.fraction = total > 0.0 ? static_cast<double>(damaged_pixels) / total : 0.0;
}

// [SECTION] update() and filtered()

const Damage& DamageTracker::update(const ImDrawData& draw_data, PixelSize framebuffer, const ImVec4& clear_color) {
  current_.framebuffer = framebuffer;
  current_.display_pos = draw_data.DisplayPos;
  current_.display_size = draw_data.DisplaySize;
  current_.framebuffer_scale = draw_data.FramebufferScale;
  current_.clear_color = clear_color;
  bool has_callback = false;
  collect(draw_data, current_, has_callback);
  current_.valid = true;

  tiles_x_ = std::max(0, (framebuffer.width + kTile - 1) / kTile);
  tiles_y_ = std::max(0, (framebuffer.height + kTile - 1) / kTile);
  tiles_.assign(static_cast<std::size_t>(tiles_x_) * static_cast<std::size_t>(tiles_y_), 0);
  const bool comparable = previous_.valid && !has_callback && previous_.framebuffer.width == framebuffer.width &&
                          previous_.framebuffer.height == framebuffer.height &&
                          same_vec(previous_.display_pos, current_.display_pos) &&
                          same_vec(previous_.display_size, current_.display_size) &&
                          same_vec(previous_.framebuffer_scale, current_.framebuffer_scale) &&
                          same_vec(previous_.clear_color, current_.clear_color);
  damage_.full = !comparable || !same_order_outside_changes();
  if (damage_.full) {
    std::fill(tiles_.begin(), tiles_.end(), std::uint8_t{1});
    damage_.rects.assign(1, PixelRect{0, 0, framebuffer.width, framebuffer.height});
    damage_.fraction = 1.0;
  } else {
    build_rects(framebuffer);
  }
  std::swap(previous_, current_);
  return damage_;
}

namespace {

// The scissor ImGui's OpenGL3 backend (1.86) sets for a command's clip rectangle, as top-left pixel
// bounds, computed as it computes it (float, then truncation); empty where it skips the command.
PixelRect backend_scissor(const ImVec4& clip, ImVec2 offset, ImVec2 scale, int framebuffer_height) {
  const ImVec2 clip_min((clip.x - offset.x) * scale.x, (clip.y - offset.y) * scale.y);
  const ImVec2 clip_max((clip.z - offset.x) * scale.x, (clip.w - offset.y) * scale.y);
  if (clip_max.x <= clip_min.x || clip_max.y <= clip_min.y) return {};
  const int x = static_cast<int>(clip_min.x);
  const int y = static_cast<int>(static_cast<float>(framebuffer_height) - clip_max.y);  // from the bottom
  const int width = static_cast<int>(clip_max.x - clip_min.x);
  const int height = static_cast<int>(clip_max.y - clip_min.y);
  return {x, framebuffer_height - y - height, x + width, framebuffer_height - y};
}

// A clip rectangle for which the backend sets exactly the scissor `pixels` (non-empty, inside the
// framebuffer): each edge a quarter pixel or more inside the truncation's step.
ImVec4 clip_for_scissor(const PixelRect& pixels, ImVec2 offset, ImVec2 scale) {
  return ImVec4((static_cast<float>(pixels.x0) + 0.5f) / scale.x + offset.x,
                (static_cast<float>(pixels.y0) - 0.5f) / scale.y + offset.y,
                (static_cast<float>(pixels.x1) + 0.75f) / scale.x + offset.x,
                (static_cast<float>(pixels.y1) - 0.25f) / scale.y + offset.y);
}

}  // namespace

ImDrawData* DamageTracker::filtered(const ImDrawData& draw_data) {
  if (damage_.full || damage_.rects.empty()) return nullptr;
  // update() left this frame's triangles in previous_, in the order collect() walks them.
  const std::vector<Triangle>& triangles = previous_.triangles;
  const ImVec2 offset = draw_data.DisplayPos, scale = draw_data.FramebufferScale;
  const int height = previous_.framebuffer.height;
  while (list_storage_.size() < static_cast<std::size_t>(draw_data.CmdListsCount)) {
    list_storage_.push_back(std::make_unique<ImDrawList>(nullptr));
  }
  lists_.clear();
  std::size_t first_of_list = 0;
  int total_indices = 0, total_vertices = 0;
  for (int list_index = 0; list_index < draw_data.CmdListsCount; ++list_index) {
    const ImDrawList& source = *draw_data.CmdLists[list_index];
    ImDrawList& out = *list_storage_[static_cast<std::size_t>(list_index)];
    out.CmdBuffer.resize(0);
    out.IdxBuffer.resize(0);
    out.VtxBuffer = source.VtxBuffer;
    out.Flags = source.Flags;
    // Rectangle by rectangle (they are disjoint, so each pixel still sees this list's triangles,
    // then the next list's, in order), each command clipped to the rectangle by its scissor.
    std::size_t next = first_of_list;
    for (const PixelRect& rect : damage_.rects) {
      const int tx0 = rect.x0 / kTile, ty0 = rect.y0 / kTile, tx1 = (rect.x1 - 1) / kTile, ty1 = (rect.y1 - 1) / kTile;
      next = first_of_list;
      for (const ImDrawCmd& command : source.CmdBuffer) {
        const std::size_t first = next;
        next += command.ElemCount / 3;
        if (command.UserCallback != nullptr) continue;  // none here: a callback damages the whole frame
        const PixelRect scissor = backend_scissor(command.ClipRect, offset, scale, height);
        const PixelRect part{std::max(scissor.x0, rect.x0), std::max(scissor.y0, rect.y0),
                             std::min(scissor.x1, rect.x1), std::min(scissor.y1, rect.y1)};
        if (part.x1 <= part.x0 || part.y1 <= part.y0) continue;
        ImDrawCmd kept = command;
        kept.ClipRect = clip_for_scissor(part, offset, scale);
        kept.IdxOffset = static_cast<unsigned int>(out.IdxBuffer.Size);
        for (std::size_t k = first; k < next; ++k) {
          const Triangle& triangle = triangles[k];
          if (!triangle.visible() || triangle.tx1 < tx0 || triangle.tx0 > tx1 || triangle.ty1 < ty0 ||
              triangle.ty0 > ty1) {
            continue;
          }
          const int element = static_cast<int>(command.IdxOffset) + 3 * static_cast<int>(k - first);
          for (int corner = 0; corner < 3; ++corner) out.IdxBuffer.push_back(source.IdxBuffer[element + corner]);
        }
        kept.ElemCount = static_cast<unsigned int>(out.IdxBuffer.Size) - kept.IdxOffset;
        if (kept.ElemCount > 0) out.CmdBuffer.push_back(kept);
      }
    }
    first_of_list = next;
    total_indices += out.IdxBuffer.Size;
    total_vertices += out.VtxBuffer.Size;
    lists_.push_back(&out);
  }
  filtered_data_.Clear();
  filtered_data_.Valid = true;
  filtered_data_.CmdListsCount = static_cast<int>(lists_.size());
  filtered_data_.CmdLists = lists_.data();
  filtered_data_.TotalIdxCount = total_indices;
  filtered_data_.TotalVtxCount = total_vertices;
  filtered_data_.DisplayPos = draw_data.DisplayPos;
  filtered_data_.DisplaySize = draw_data.DisplaySize;
  filtered_data_.FramebufferScale = draw_data.FramebufferScale;
  return &filtered_data_;
}

}  // namespace smlab::platform
