# The web build's third_party: the target names third_party/CMakeLists.txt gives the native build
# (smlab::imgui, smlab::glad, glfw, ZLIB::ZLIB, ...), made here for emcc from Debian's source
# packages (imgui, zlib, giflib: app/web/fetch-sources.sh puts them in the build folder) and from
# emscripten's own GLFW 3 and WebGL 2 libraries. Header-only Debian packages (nlohmann-json3-dev,
# libstb-dev) are reached through a folder of links, never all of /usr/include.
set(SMLAB_WEB_SOURCES ${CMAKE_BINARY_DIR}/debian-sources)
execute_process(COMMAND ${PROJECT_SOURCE_DIR}/app/web/fetch-sources.sh ${SMLAB_WEB_SOURCES} imgui zlib giflib
                RESULT_VARIABLE fetch_result)
if(NOT fetch_result EQUAL 0)
  message(FATAL_ERROR "could not fetch Debian's imgui, zlib and giflib source packages (app/web/fetch-sources.sh)")
endif()

# Emscripten's compile flags for every target: WebGL 2 through GLES 3 headers, wasm SIMD128.
add_compile_options(-msimd128 -fexceptions)
add_link_options(-fexceptions)

# Header-only packages: a folder holding links to just those headers.
set(SMLAB_WEB_HEADERS ${CMAKE_BINARY_DIR}/debian-headers)
file(MAKE_DIRECTORY ${SMLAB_WEB_HEADERS})
foreach(dir nlohmann stb)
  if(NOT EXISTS /usr/include/${dir})
    message(FATAL_ERROR "/usr/include/${dir} is missing (third_party/install-deps.sh installs it)")
  endif()
  file(CREATE_LINK /usr/include/${dir} ${SMLAB_WEB_HEADERS}/${dir} SYMBOLIC)
endforeach()

# glad's place: <glad/gl.h> is a shim onto emscripten's GLES 3 (WebGL 2) headers.
set(IMGUI_DIR ${SMLAB_WEB_SOURCES}/imgui)
add_library(smlab_imgui STATIC
  ${IMGUI_DIR}/imgui.cpp ${IMGUI_DIR}/imgui_draw.cpp ${IMGUI_DIR}/imgui_tables.cpp ${IMGUI_DIR}/imgui_widgets.cpp
  ${IMGUI_DIR}/misc/cpp/imgui_stdlib.cpp ${IMGUI_DIR}/backends/imgui_impl_glfw.cpp
  ${IMGUI_DIR}/backends/imgui_impl_opengl3.cpp)
target_include_directories(smlab_imgui SYSTEM PUBLIC ${IMGUI_DIR} ${IMGUI_DIR}/backends ${IMGUI_DIR}/misc/cpp)
# 1.86 picks GLES 2 under emscripten unless told: WebGL 2 is GLES 3 (GLSL "#version 300 es").
target_compile_definitions(smlab_imgui PUBLIC IMGUI_IMPL_OPENGL_ES3)
target_link_options(smlab_imgui PUBLIC -sUSE_GLFW=3 -sFULL_ES3=1 -sMIN_WEBGL_VERSION=2 -sMAX_WEBGL_VERSION=2)
add_library(smlab::imgui ALIAS smlab_imgui)
add_library(smlab_imgui_opengl3 INTERFACE)  # inside smlab_imgui here
add_library(smlab::imgui_opengl3 ALIAS smlab_imgui_opengl3)
add_library(glfw INTERFACE)
target_link_options(glfw INTERFACE -sUSE_GLFW=3)
add_library(smlab_glad INTERFACE)
target_include_directories(smlab_glad SYSTEM INTERFACE ${PROJECT_SOURCE_DIR}/app/web/include)
add_library(smlab::glad ALIAS smlab_glad)
add_library(smlab_egl INTERFACE)  # no EGL offscreen in a browser (platform/offscreen_webgl.cpp instead)
add_library(smlab::egl ALIAS smlab_egl)

add_library(smlab_json INTERFACE)
target_include_directories(smlab_json SYSTEM INTERFACE ${SMLAB_WEB_HEADERS})
add_library(smlab::json ALIAS smlab_json)
add_library(smlab_cli11 INTERFACE)
add_library(smlab::cli11 ALIAS smlab_cli11)

# stb_image_write: its implementation compiled here (Debian's libstb.so is native code).
add_library(smlab_stb STATIC ${PROJECT_SOURCE_DIR}/app/web/stb_implementation.c)
target_include_directories(smlab_stb SYSTEM PUBLIC ${SMLAB_WEB_HEADERS}/stb)
add_library(smlab::stb ALIAS smlab_stb)

# zlib (the .npz reader) and giflib (the GIF export) from their Debian source packages.
set(ZLIB_DIR ${SMLAB_WEB_SOURCES}/zlib)
add_library(smlab_web_zlib STATIC
  ${ZLIB_DIR}/adler32.c ${ZLIB_DIR}/crc32.c ${ZLIB_DIR}/inffast.c ${ZLIB_DIR}/inflate.c ${ZLIB_DIR}/inftrees.c
  ${ZLIB_DIR}/zutil.c ${ZLIB_DIR}/deflate.c ${ZLIB_DIR}/trees.c ${ZLIB_DIR}/compress.c ${ZLIB_DIR}/uncompr.c)
target_include_directories(smlab_web_zlib SYSTEM PUBLIC ${ZLIB_DIR})
target_compile_options(smlab_web_zlib PRIVATE -w)
add_library(ZLIB::ZLIB ALIAS smlab_web_zlib)
set(ZLIB_FOUND TRUE)
set(ZLIB_INCLUDE_DIR ${ZLIB_DIR} CACHE PATH "" FORCE)
set(ZLIB_LIBRARY smlab_web_zlib CACHE STRING "" FORCE)

set(GIF_DIR ${SMLAB_WEB_SOURCES}/giflib)
add_library(smlab_gif STATIC
  ${GIF_DIR}/dgif_lib.c ${GIF_DIR}/egif_lib.c ${GIF_DIR}/gif_err.c ${GIF_DIR}/gif_hash.c ${GIF_DIR}/gifalloc.c
  ${GIF_DIR}/openbsd-reallocarray.c ${GIF_DIR}/quantize.c)
target_include_directories(smlab_gif SYSTEM PUBLIC ${GIF_DIR})
target_compile_options(smlab_gif PRIVATE -w)
add_library(smlab::gif ALIAS smlab_gif)

# C++20 library pieces emscripten 3.1.6's libc++ lacks (bit_cast, floating to_chars/from_chars,
# stop_token, jthread): app/web/compat, included first in every C++ file of this tree.
add_compile_options("$<$<COMPILE_LANGUAGE:CXX>:SHELL:-include ${PROJECT_SOURCE_DIR}/app/web/compat/web_compat.hpp>")
include_directories(SYSTEM ${PROJECT_SOURCE_DIR}/app/web/compat)
