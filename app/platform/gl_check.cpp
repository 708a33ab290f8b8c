// glGetError draining, naming and counting (gl_check.hpp).
#include "platform/gl_check.hpp"

#include <glad/gl.h>

#include <atomic>
#include <cstdio>

namespace smlab::platform {
namespace {

std::atomic<std::uint64_t> errors_seen{0};

const char* error_name(GLenum error) {
  switch (error) {
    case GL_INVALID_ENUM: return "GL_INVALID_ENUM";
    case GL_INVALID_VALUE: return "GL_INVALID_VALUE";
    case GL_INVALID_OPERATION: return "GL_INVALID_OPERATION";
    case GL_INVALID_FRAMEBUFFER_OPERATION: return "GL_INVALID_FRAMEBUFFER_OPERATION";
    case GL_OUT_OF_MEMORY: return "GL_OUT_OF_MEMORY";
    default: return "unknown GL error";
  }
}

}  // namespace

bool gl_checks_enabled() {
#if !defined(NDEBUG) || defined(SMLAB_GL_CHECKS)
  return true;
#else
  return false;
#endif
}

void check_gl_errors(const char* where) {
  if (!gl_checks_enabled()) return;
  constexpr std::uint64_t max_lines = 20;
  // A lost context reports GL_CONTEXT_LOST forever in some drivers: bound the loop.
  for (int drained = 0; drained < 16; ++drained) {
    const GLenum error = glGetError();
    if (error == GL_NO_ERROR) return;
    if (errors_seen.fetch_add(1) < max_lines)
      std::fprintf(stderr, "softmax-lab: GL error %s (0x%04X) after %s\n", error_name(error), error, where);
  }
}

std::uint64_t gl_error_count() { return errors_seen.load(); }

}  // namespace smlab::platform
