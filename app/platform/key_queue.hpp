// The window's own queue of key events (Dear ImGui 1.86 has none): which of them one frame hands to
// ImGui, so that every press is seen, in order, with the modifiers held when it was pressed.
#pragma once

#include <cstddef>
#include <deque>

namespace smlab::platform {

// One GLFW key event (key ≥ 0: GLFW_PRESS or GLFW_RELEASE; repeats are not queued), or a typed
// character (key < 0, `codepoint` set).
struct QueuedKey {
  int key = -1, scancode = 0, action = 0, mods = 0;
  unsigned int codepoint = 0;
};

// Whether `key` is Shift, Ctrl, Alt or Super (left or right): ImGui derives io.KeyCtrl and the
// others from these keys' state.
[[nodiscard]] bool is_modifier_key(int key);

// How many events from the front of `queue` the next frame takes. ImGui reads a frame's keys once,
// after all its events, so a frame stops before
//  - a second change of a key it already changed: a press and release within one frame would be
//    lost (a presentation clicker's tap);
//  - a change of a modifier after a press of another key: X delivers `xdotool key ctrl+z`, remote
//    desktops and macro keys as Ctrl↓ Z↓ Ctrl↑ Z↑ in one batch, and were Ctrl↑ given in Z↓'s frame
//    io.KeyCtrl would already be false when Ctrl+Z is read: the chord would be a plain Z.
// Characters go with the keys around them. The rest waits for the frames after, in order.
[[nodiscard]] std::size_t keys_for_one_frame(const std::deque<QueuedKey>& queue);

}  // namespace smlab::platform
