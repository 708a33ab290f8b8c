// glibc mallopt() thresholds and Dear ImGui's allocator; see allocator.hpp for why.
#include "platform/allocator.hpp"

#include <imgui.h>
#include <malloc.h>

#include <cstdlib>
#include <new>

namespace smlab::platform {

void keep_freed_memory_mapped() {
#if defined(__GLIBC__)
  // Blocks below 32 MiB come from the heap and are reused; bigger ones (L = 4096 attention maps,
  // 64 MiB each) still get their own mapping, so the resident set stays bounded.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  // Keep up to 128 MiB of free heap top instead of trimming it back after each frame.
  mallopt(M_TRIM_THRESHOLD, 128 << 20);
#endif
}

void imgui_allocations_throw_when_out_of_memory() {
  ImGui::SetAllocatorFunctions(
      [](std::size_t size, void*) -> void* {
        void* block = std::malloc(size == 0 ? 1 : size);
        if (block == nullptr) throw std::bad_alloc();
        return block;
      },
      [](void* block, void*) { std::free(block); });
}

}  // namespace smlab::platform
