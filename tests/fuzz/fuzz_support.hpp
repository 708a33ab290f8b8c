// What every fuzz target checks with: a property that does not hold aborts (libFuzzer then saves
// the input that broke it), and a rejected input's error is one non-empty line.
#pragma once

#include <cstdlib>
#include <string_view>

namespace smlab::fuzz {

inline void require(bool property) {
  if (!property) std::abort();
}

inline void require_one_line_error(std::string_view error) {
  require(!error.empty());
  require(error.find('\n') == std::string_view::npos);
}

}  // namespace smlab::fuzz
