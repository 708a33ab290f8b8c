# The section index of the house style ("a [SECTION] index at the top, a matching banner at each
# section", as app/plot/layout.cpp has it): on every git-tracked .cpp/.hpp under app/ and core/,
#   - a .cpp of more than 300 lines has a "// [SECTION] Index" line;
#   - a file with two or more section headings has that index;
#   - the index entries ("//   [SECTION] Name") are the headings ("// [SECTION] Name" at column 0),
#     the same names in the same order, and there are no entries without the "Index" line.
# A single heading with no index is fine (headers that name one part for other files to point at).
# Run: cmake -DSOURCE_DIR=<repo> -P tests/section_index.cmake
cmake_minimum_required(VERSION 3.25)
if(NOT SOURCE_DIR)
  message(FATAL_ERROR "give -DSOURCE_DIR=<repository root>")
endif()

set(max_lines_without_index 300)

# The tracked sources; from a tree without git (an archive), every .cpp/.hpp under app/ and core/.
set(files "")
find_program(GIT_PROGRAM git)
if(GIT_PROGRAM AND EXISTS ${SOURCE_DIR}/.git)
  execute_process(COMMAND ${GIT_PROGRAM} ls-files -- app core WORKING_DIRECTORY ${SOURCE_DIR}
                  RESULT_VARIABLE git_result OUTPUT_VARIABLE git_output ERROR_QUIET)
  if(git_result EQUAL 0)
    string(REGEX MATCHALL "[^\n]+" tracked "${git_output}")
    foreach(path IN LISTS tracked)
      if(path MATCHES "\\.(cpp|hpp)$" AND EXISTS ${SOURCE_DIR}/${path})
        list(APPEND files ${path})
      endif()
    endforeach()
  endif()
endif()
if(NOT files)
  file(GLOB_RECURSE files RELATIVE ${SOURCE_DIR} LIST_DIRECTORIES false ${SOURCE_DIR}/app/*.cpp
       ${SOURCE_DIR}/app/*.hpp ${SOURCE_DIR}/core/*.cpp ${SOURCE_DIR}/core/*.hpp)
endif()
list(LENGTH files count)
if(count LESS 50)
  message(FATAL_ERROR "found only ${count} sources under ${SOURCE_DIR}: is SOURCE_DIR the repository root?")
endif()

set(problems 0)
set(indexed 0)
foreach(path IN LISTS files)
  file(READ ${SOURCE_DIR}/${path} text)
  string(REGEX MATCHALL "\n" newlines "${text}")
  list(LENGTH newlines line_count)

  # Only the lines that mention [SECTION]; headings and entries are whole comment lines. A ';' in a
  # name would split a CMake list: it stands in as <semicolon> until a name is printed.
  string(REPLACE ";" "<semicolon>" text "${text}")
  string(REGEX MATCHALL "[^\n]*\\[SECTION\\][^\n]*" section_lines "${text}")
  set(has_index FALSE)
  set(headings "")
  set(entries "")
  foreach(line IN LISTS section_lines)
    string(REGEX REPLACE "[ \t\r]+$" "" line "${line}")
    if(line STREQUAL "// [SECTION] Index")
      set(has_index TRUE)
    elseif(line MATCHES "^// \\[SECTION\\] (.+)$")
      list(APPEND headings "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^//   \\[SECTION\\] (.+)$")
      list(APPEND entries "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(LENGTH headings heading_count)

  if(path MATCHES "\\.cpp$" AND line_count GREATER max_lines_without_index AND NOT has_index)
    message(SEND_ERROR "${path}: ${line_count} lines and no '// [SECTION] Index': a .cpp of more than "
                       "${max_lines_without_index} lines starts with an index of its sections "
                       "(see app/plot/layout.cpp)")
    math(EXPR problems "${problems} + 1")
    continue()
  endif()

  if(NOT has_index)
    if(heading_count GREATER 1)
      message(SEND_ERROR "${path}: ${heading_count} '// [SECTION]' headings and no '// [SECTION] Index' "
                         "listing them near the top")
      math(EXPR problems "${problems} + 1")
    endif()
    if(entries)
      message(SEND_ERROR "${path}: index entries ('//   [SECTION] ...') without a '// [SECTION] Index' line")
      math(EXPR problems "${problems} + 1")
    endif()
    continue()
  endif()

  math(EXPR indexed "${indexed} + 1")
  if(NOT headings STREQUAL entries)
    foreach(entry IN LISTS entries)
      if(NOT entry IN_LIST headings)
        string(REPLACE "<semicolon>" ";" entry "${entry}")
        message(SEND_ERROR "${path}: index entry '${entry}' has no '// [SECTION] ${entry}' heading")
      endif()
    endforeach()
    foreach(heading IN LISTS headings)
      if(NOT heading IN_LIST entries)
        string(REPLACE "<semicolon>" ";" heading "${heading}")
        message(SEND_ERROR "${path}: heading '// [SECTION] ${heading}' is not in the index")
      endif()
    endforeach()
    string(REPLACE ";" "\n  " listed "${entries}")
    string(REPLACE ";" "\n  " found "${headings}")
    string(REPLACE "<semicolon>" ";" listed "${listed}")
    string(REPLACE "<semicolon>" ";" found "${found}")
    message(SEND_ERROR "${path}: the index and the headings differ.\n index:\n  ${listed}\n headings:\n  ${found}")
    math(EXPR problems "${problems} + 1")
  endif()
endforeach()

if(problems GREATER 0)
  message(FATAL_ERROR "${problems} file(s) against the section index rule (tests/section_index.cmake)")
endif()
message(STATUS "section index: ${count} files checked, ${indexed} with an index matching their headings")
