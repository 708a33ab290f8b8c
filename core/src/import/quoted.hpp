// File-provided text quoted in an import error message: printable ASCII only (other bytes,
// UTF-8 included, become '?'), cut to `max_shown` characters. Private to core/src/import.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace smlab::import_detail {

inline std::string shown(std::string_view text, std::size_t max_shown = 40) {
  std::string out;
  for (char c : text.substr(0, max_shown)) {
    const auto byte = static_cast<unsigned char>(c);
    out += (byte >= 0x20 && byte < 0x7f) ? c : '?';
  }
  if (text.size() > max_shown) out += "...";
  return out;
}

}  // namespace smlab::import_detail
