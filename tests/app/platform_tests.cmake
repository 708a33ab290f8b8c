# Platform layer and exporter tests: headless EGL rendering (no DISPLAY needed), fonts, atomic
# writes, PNG round trips. Included from tests/CMakeLists.txt after find_package(GTest) and include(GoogleTest).
add_executable(platform_tests ${CMAKE_CURRENT_LIST_DIR}/platform_test.cpp)
target_link_libraries(platform_tests PRIVATE smlab_app smlab::platform smlab::stb GTest::gtest_main)
smlab_warnings(platform_tests)
gtest_discover_tests(platform_tests DISCOVERY_TIMEOUT 60)
