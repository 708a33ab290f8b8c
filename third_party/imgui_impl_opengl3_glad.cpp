// Dear ImGui's OpenGL3 backend, compiled from the source Debian ships (libimgui-dev's examples; the
// path comes from third_party/CMakeLists.txt) with glad as its loader instead of its own, which dlopens libGL.so.1.
#include <glad/gl.h>

#include SMLAB_IMGUI_OPENGL3_SOURCE
