// Process-wide allocator tuning for the frame loop.
#pragma once

namespace smlab::platform {

// Keeps freed heap memory mapped instead of returning it to the kernel after every frame.
//
// Mesa's software rasterizer (llvmpipe) and ImGui's OpenGL backend allocate and free buffers of a
// few hundred kilobytes on every frame (vertex data, binned scenes). With glibc's defaults these
// land in fresh mmap()s or a trimmed heap, and every frame first-touches them again: at L = 256
// that was ~850 page faults and ~40% of the process's CPU time per frame (perf stat, see
// docs/PERFORMANCE.md). Raising the mmap and trim thresholds lets the heap reuse the same pages.
// Call once at start, before any thread is created.
void keep_freed_memory_mapped();

// Makes Dear ImGui's allocations throw std::bad_alloc when memory runs out, as every C++
// allocation does, instead of handing ImGui (and the font loader) a null pointer to write through:
// under `ulimit -v` the font atlas segfaulted. What catches it is the caller's (an uncaught one
// is one line and exit 3: files/atomic_file.hpp). Call once at start, before any ImGui context.
void imgui_allocations_throw_when_out_of_memory();

}  // namespace smlab::platform
