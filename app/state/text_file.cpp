// read_text_file and json_nesting_depth (text_file.hpp).
#include "state/text_file.hpp"

#include <algorithm>
#include <fstream>
#include <iterator>
#include <system_error>

namespace smlab::app {

TextFile read_text_file(const std::filesystem::path& path, std::uintmax_t max_bytes) {
  TextFile file;
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (error) {
    file.status = TextFile::Status::unreadable;
    file.reason = error.message();
    return file;
  }
  if (size > max_bytes) {
    file.status = TextFile::Status::too_large;
    return file;
  }
  std::ifstream stream(path, std::ios::binary);
  if (stream) file.text.assign(std::istreambuf_iterator<char>(stream), std::istreambuf_iterator<char>());
  if (!stream && !stream.eof()) {
    file.status = TextFile::Status::unreadable;
    file.text.clear();
  }
  return file;
}

std::string cannot_read(const std::string& what, const TextFile& file) {
  return "cannot read " + what + (file.reason.empty() ? "" : ": " + file.reason);
}

int json_nesting_depth(std::string_view text) {
  int depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      deepest = std::max(deepest, ++depth);
    } else if (c == '}' || c == ']') {
      --depth;
    }
  }
  return deepest;
}

}  // namespace smlab::app
