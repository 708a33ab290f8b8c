// Which queued key events one frame takes (platform/key_queue.hpp).
#include "platform/key_queue.hpp"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>

#include <algorithm>
#include <vector>

namespace smlab::platform {

bool is_modifier_key(int key) {
  switch (key) {
    case GLFW_KEY_LEFT_SHIFT:
    case GLFW_KEY_RIGHT_SHIFT:
    case GLFW_KEY_LEFT_CONTROL:
    case GLFW_KEY_RIGHT_CONTROL:
    case GLFW_KEY_LEFT_ALT:
    case GLFW_KEY_RIGHT_ALT:
    case GLFW_KEY_LEFT_SUPER:
    case GLFW_KEY_RIGHT_SUPER: return true;
    default: return false;
  }
}

std::size_t keys_for_one_frame(const std::deque<QueuedKey>& queue) {
  std::vector<int> changed;
  bool other_key_pressed = false;
  std::size_t taken = 0;
  for (const QueuedKey& event : queue) {
    if (event.key >= 0) {
      if (std::find(changed.begin(), changed.end(), event.key) != changed.end()) break;
      const bool modifier = is_modifier_key(event.key);
      if (modifier && other_key_pressed) break;
      changed.push_back(event.key);
      other_key_pressed = other_key_pressed || (!modifier && event.action == GLFW_PRESS);
    }
    ++taken;
  }
  return taken;
}

}  // namespace smlab::platform
