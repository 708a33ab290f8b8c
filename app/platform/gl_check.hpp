// OpenGL error checks. glGetError flags stay set until read, so one check after a frame's draw
// catches every error the frame raised (texture uploads included); the `where` says which frame
// step found it. On in Debug builds and in the sanitizer build (SMLAB_GL_CHECKS, see
// platform/CMakeLists.txt), a no-op otherwise so Release frames pay nothing.
#pragma once

#include <cstdint>

namespace smlab::platform {

// True when this build checks (Debug or SMLAB_GL_CHECKS).
bool gl_checks_enabled();

// With checks enabled: reads every pending GL error, prints each as one line on stderr
// ("softmax-lab: GL error GL_INVALID_OPERATION (0x0502) after <where>"; at most 20 lines per
// process, so a broken driver cannot flood the terminal) and counts it. Needs a current context.
void check_gl_errors(const char* where);

// GL errors seen by check_gl_errors since the start (tests assert it stays 0).
std::uint64_t gl_error_count();

}  // namespace smlab::platform
