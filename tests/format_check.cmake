# The clang-format check: every C and C++ source of the project (app/, core/, tests/, bench/,
# third_party/) must be formatted as .clang-format says (clang-format --dry-run --Werror).
# Run: cmake -DSOURCE_DIR=<repo> -DCLANG_FORMAT=<path> -P tests/format_check.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "give -DSOURCE_DIR=<repository root>")
endif()
if(NOT CLANG_FORMAT OR NOT EXISTS "${CLANG_FORMAT}")
  message(FATAL_ERROR "give -DCLANG_FORMAT=<path to clang-format>")
endif()
set(files "")
foreach(directory IN ITEMS app core tests bench third_party)
  file(GLOB_RECURSE found RELATIVE ${SOURCE_DIR} LIST_DIRECTORIES false
       ${SOURCE_DIR}/${directory}/*.cpp ${SOURCE_DIR}/${directory}/*.hpp ${SOURCE_DIR}/${directory}/*.h
       ${SOURCE_DIR}/${directory}/*.c)
  list(APPEND files ${found})
endforeach()
list(LENGTH files count)
if(count LESS 100)
  message(FATAL_ERROR "found only ${count} sources under ${SOURCE_DIR}: is SOURCE_DIR the repository root?")
endif()
execute_process(COMMAND ${CLANG_FORMAT} --dry-run --Werror ${files}
                WORKING_DIRECTORY ${SOURCE_DIR} RESULT_VARIABLE result ERROR_VARIABLE output)
if(NOT result EQUAL 0)
  message(FATAL_ERROR "${output}\nNot formatted as .clang-format says: run clang-format-14 -i on the files above")
endif()
message(STATUS "format check: ${count} files formatted as .clang-format says")
