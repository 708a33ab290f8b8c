// When a window that sleeps between events may sleep: Dear ImGui 1.86 acts on an input over the
// next frames (a button's action, a menu closing, a popup measuring itself, then drawing), so the
// window draws after every input until its picture stops changing.
#pragma once

#include <cstdint>

struct ImDrawData;

namespace smlab::platform {

// A digest of everything a frame draws (vertices, indices, textures, clip rectangles): equal for two
// frames that put the same pixels on screen, and in practice different when anything moved.
std::uint64_t draw_data_fingerprint(const ImDrawData& draw_data);

// Counts frames since the last input and remembers whether the last frame drew something new.
// The rule: after an input, at least min_frames frames; beyond that, keep drawing while each frame
// differs from the one before, up to max_frames (something that changes every frame, such as a
// live frame-time readout, must not keep the window awake for ever).
class FrameSettle {
 public:
  static constexpr int min_frames = 3;   // the click's frame, the frame it acts in, the frame that shows it
  static constexpr int max_frames = 30;  // ~0.5 s at 60 Hz: longer than any popup or auto-size settles

  // An input arrived (mouse, key, scroll, resize, focus) or the window woke for another reason.
  void input() {
    frames_since_input_ = 0;
    changed_ = true;
  }
  // Whether the next frame's draw data is worth fingerprinting (the window is still settling).
  bool settling() const { return frames_since_input_ < max_frames; }
  // A frame was drawn; `fingerprint` is its draw_data_fingerprint (only needed while settling()).
  void frame_drawn(std::uint64_t fingerprint) {
    changed_ = fingerprint != last_fingerprint_;
    last_fingerprint_ = fingerprint;
    if (frames_since_input_ < max_frames) ++frames_since_input_;
  }
  // True once the window may sleep until the next event.
  bool may_sleep() const {
    return frames_since_input_ >= max_frames || (frames_since_input_ >= min_frames && !changed_);
  }
  int frames_since_input() const { return frames_since_input_; }

 private:
  int frames_since_input_ = 0;  // starts settling: the first frames after the window opens
  bool changed_ = true;
  std::uint64_t last_fingerprint_ = 0;
};

}  // namespace smlab::platform
