// printable(): control characters, broken UTF-8 and endless words made fit for one terminal line.
#include "files/printable.hpp"

#include <vector>

#include "files/utf8.hpp"

namespace smlab::app {

std::string printable(std::string_view text) {
  std::string clean;
  clean.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_char_length(text, i);
    if (length == 0) {
      clean += '?';
      ++i;
      continue;
    }
    if (length == 1 && (byte < 0x20 || byte == 0x7f))
      clean += ' ';
    else
      clean.append(text.substr(i, length));
    i += length;
  }
  std::string out;
  std::size_t start = 0;
  while (start <= clean.size()) {
    std::size_t end = clean.find(' ', start);
    if (end == std::string::npos) end = clean.size();
    const std::string_view word = std::string_view(clean).substr(start, end - start);
    // Count characters, not bytes, and cut only at character starts.
    std::vector<std::size_t> starts;
    for (std::size_t k = 0; k < word.size(); ++k)
      if ((static_cast<unsigned char>(word[k]) >> 6) != 0x2) starts.push_back(k);
    if (starts.size() > 80) {
      out.append(word.substr(0, starts[38]));
      out.append("…");
      out.append(word.substr(starts[starts.size() - 38]));
    } else {
      out.append(word);
    }
    if (end == clean.size()) break;
    out += ' ';
    start = end + 1;
  }
  return out;
}

std::string escaped_path(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size();) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t length = utf8_char_length(text, i);
    if (length > 1 || (length == 1 && byte >= 0x20 && byte != 0x7f && byte != '\\')) {
      out.append(text.substr(i, length));
      i += length;
      continue;
    }
    if (byte == '\\') {
      out += "\\\\";
    } else if (byte == '\n') {
      out += "\\n";
    } else if (byte == '\t') {
      out += "\\t";
    } else if (byte == '\r') {
      out += "\\r";
    } else {
      constexpr char digits[] = "0123456789abcdef";
      out += "\\x";
      out += digits[byte >> 4];
      out += digits[byte & 0xF];
    }
    ++i;
  }
  return out;
}

}  // namespace smlab::app
