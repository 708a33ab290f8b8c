# Platform layer and exporter tests: headless EGL rendering (no DISPLAY needed), fonts, atomic
# writes, PNG round trips. Included from tests/CMakeLists.txt after find_package(GTest) and include(GoogleTest).
add_executable(platform_tests ${CMAKE_CURRENT_LIST_DIR}/platform_test.cpp)
target_link_libraries(platform_tests PRIVATE smlab_frame smlab::platform smlab::stb GTest::gtest_main)
smlab_warnings(platform_tests)
gtest_discover_tests(platform_tests DISCOVERY_TIMEOUT 60)

# Headless rendering with EGL alone: libGL.so.1 and GLX hidden in a private mount namespace, as on a
# GPU server without them; skipped (exit 77) where unshare is refused.
add_test(NAME Platform.HeadlessRendersWithEglAloneLibGLHidden
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/egl_only_test.sh $<TARGET_FILE:softmax-lab>
                 ${CMAKE_CURRENT_BINARY_DIR}/egl-only)
set_tests_properties(Platform.HeadlessRendersWithEglAloneLibGLHidden PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120)
# The same through the EGL-device fallback (EGL_EXT_platform_device), for drivers without Mesa's
# surfaceless platform.
add_test(NAME Platform.HeadlessRendersOnAnEglDeviceLibGLHidden
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/egl_only_test.sh $<TARGET_FILE:softmax-lab>
                 ${CMAKE_CURRENT_BINARY_DIR}/egl-only-device)
set_tests_properties(Platform.HeadlessRendersOnAnEglDeviceLibGLHidden PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                     ENVIRONMENT SMLAB_EGL_PLATFORM=device)
