// The one guarded JSON parse of the files users edit (lessons, sessions, presets, string tables):
// size, then the checks before parsing (text_file.hpp), then nlohmann's parser, whose exceptions
// become one Error.
#pragma once

#include <cstddef>
#include <string_view>

#include <nlohmann/json_fwd.hpp>

#include "smlab/error.hpp"

namespace smlab::app {

// What one kind of file may hold before its parser sees it.
struct JsonLimits {
  std::size_t max_bytes = 0;  // said as "larger than 1 MB" (whole MB) or "larger than N bytes"
  int max_depth = 0;          // nesting of objects and arrays
  std::size_t max_keys = 0;   // keys in one object
};

// Parses `text` as one JSON document (nlohmann::json or nlohmann::ordered_json) within `limits`,
// or an Error::usage of one line: "<subject> is larger than 1 MB", "<subject> nests deeper than 8
// levels", "<subject> is not valid JSON at line 3, column 14", ... (without "<subject> is " when
// `subject` is empty: the caller names the file). Never throws a JSON exception.
template <typename Json>
Result<Json> parse_json(std::string_view text, std::string_view subject, const JsonLimits& limits);

extern template Result<nlohmann::json> parse_json<nlohmann::json>(std::string_view, std::string_view,
                                                                  const JsonLimits&);
extern template Result<nlohmann::ordered_json> parse_json<nlohmann::ordered_json>(std::string_view, std::string_view,
                                                                                  const JsonLimits&);

}  // namespace smlab::app
