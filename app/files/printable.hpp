// One printable line from any text: what the command line's errors and warnings go through before
// they reach a terminal (a file name or a value may hold control characters or broken UTF-8).
#pragma once

#include <string>
#include <string_view>

namespace smlab::app {

// `text` safe to print on one line: control characters become spaces, bytes that are not
// well-formed UTF-8 (files/utf8.hpp) become '?', and any run of more than 80 characters without a
// space (a long path, a 100 KB value) is cut in the middle to its first and last 38 characters.
std::string printable(std::string_view text);

// A path as one unambiguous line of a list (the files a run wrote, on stdout): nothing is cut, and
// a backslash, a control character (a newline in a folder's name) and a byte that is not UTF-8 are
// written as C escapes (\\, \n, \t, \r, \xNN), so every other name comes out as it is and each
// printed line names exactly one file.
std::string escaped_path(std::string_view text);

}  // namespace smlab::app
