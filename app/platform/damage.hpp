// Which pixels of a frame can differ from the frame before, from the two frames' ImGui draw data,
// and the draw data that repaints just those pixels (docs/ARCHITECTURE.md, "Partial redraw").
// CPU only: platform/retained_draw.hpp does the GL side.
//
// A frame is a sequence of triangles; each one is keyed by everything that decides its pixels: its
// three vertices (position, UV, colour), its texture and that texture's upload count, and its clip
// rectangle. Triangles present in one frame and not in the other (as multisets) damage the
// framebuffer tiles their bounding boxes touch. The triangles present in both must also keep their
// order (blending is order dependent): if they do not, or the framebuffer, the clear colour or a
// draw callback says so, the whole frame is damaged. A pixel outside the damage is then covered by
// the same triangles in the same order in both frames, so it keeps its value; inside it, the
// repaint draws every triangle that covers it, in order, clipped by scissors to the damage.
#pragma once

#include <imgui.h>

#include <cstdint>
#include <memory>
#include <vector>

#include "platform/surface.hpp"
#include "platform/texture_uploads.hpp"

namespace smlab::platform {

// A rectangle of framebuffer pixels, top-left origin, [x0, x1) × [y0, y1).
struct PixelRect {
  int x0 = 0, y0 = 0, x1 = 0, y1 = 0;
  friend bool operator==(const PixelRect&, const PixelRect&) = default;
};

struct Damage {
  bool full = true;              // repaint everything (first frame, new size, new clear colour, ...)
  std::vector<PixelRect> rects;  // when !full: disjoint rectangles, empty when nothing changed
  double fraction = 1.0;         // damaged share of the framebuffer's pixels
};

class DamageTracker {
 public:
  // The tile side in framebuffer pixels: damage is rounded out to whole tiles.
  static constexpr int kTile = 16;
  // At most this many damaged rectangles (build_rects merges the closest past it).
  static constexpr int kMaxRects = 24;

  // Compares `draw_data` with the frame passed to the previous call (each call's frame becomes the
  // next call's previous one) and returns what to repaint. `clear_color` is part of the frame.
  const Damage& update(const ImDrawData& draw_data, PixelSize framebuffer, const ImVec4& clear_color);
  // The next update() damages everything (the pixels the previous frame left are gone).
  void invalidate() { previous_.valid = false; }

  // The draw data that repaints the damage of the last update(): for each damaged rectangle, the
  // commands that meet it, with only the triangles whose bounding box touches it, clipped to it by
  // their scissor. Valid until the next update() or filtered(). Null when there is nothing to
  // repaint, or everything (then draw `draw_data` itself).
  ImDrawData* filtered(const ImDrawData& draw_data);

 private:
  struct Triangle {
    std::uint64_t key = 0;
    int tx0 = 0, ty0 = 0, tx1 = -1, ty1 = -1;  // tiles touched, inclusive; tx1 < tx0: none (clipped away)
    [[nodiscard]] bool visible() const { return tx1 >= tx0 && ty1 >= ty0; }
  };
  struct Frame {
    bool valid = false;
    PixelSize framebuffer;
    ImVec2 display_pos, display_size, framebuffer_scale;
    ImVec4 clear_color;
    std::vector<Triangle> triangles;
  };
  void collect(const ImDrawData& draw_data, Frame& frame, bool& has_callback) const;
  [[nodiscard]] bool same_order_outside_changes();
  void mark(const Triangle& triangle);
  void build_rects(PixelSize framebuffer);

  Frame previous_, current_;
  Damage damage_;
  int tiles_x_ = 0, tiles_y_ = 0;
  std::vector<std::uint8_t> tiles_;  // 1 = damaged, row-major
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t count = 0, unmatched = 0;  // count 0: an empty slot
  };
  std::vector<Slot> slots_;
  std::vector<std::uint8_t> matched_a_, matched_b_;
  // filtered(): one draw list per input list, reused from frame to frame.
  std::vector<ImDrawList*> lists_;
  std::vector<std::unique_ptr<ImDrawList>> list_storage_;
  ImDrawData filtered_data_;
};

}  // namespace smlab::platform
