// libFuzzer target for the CSV matrix and token list readers (import.hpp): never crashes, a
// rejection is one line, an accepted matrix is rectangular with only allowed values (finite floats
// or -inf) within the cell limit, and accepted tokens are valid UTF-8, at least one, each at most
// 1024 bytes. The first byte picks the file name the text is read under (.csv/.txt or .json).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>

#include "fuzz_support.hpp"
#include "smlab/import.hpp"
#include "smlab/utf8.hpp"

using smlab::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const bool as_json = (data[0] & 1) != 0;
  const std::string_view text(reinterpret_cast<const char*>(data + 1), size - 1);

  const smlab::ArrayParse matrix = smlab::parse_csv_matrix(text, "fuzz.csv");
  if (!matrix.ok()) {
    smlab::fuzz::require_one_line_error(matrix.error().message);
  } else {
    require(matrix->shape.size() == 2 && matrix->shape[0] >= 1 && matrix->shape[1] >= 1);
    const auto cells = static_cast<std::uint64_t>(matrix->shape[0]) * static_cast<std::uint64_t>(matrix->shape[1]);
    require(cells == matrix->values.size() && cells <= smlab::ImportLimits::csv_cells_max);
    for (float value : matrix->values)
      require(std::isfinite(value) || value == -std::numeric_limits<float>::infinity());
    for (const std::string& warning : matrix->warnings) smlab::fuzz::require_one_line_error(warning);
  }

  const smlab::TokenParse tokens = smlab::parse_tokens(text, as_json ? "fuzz.json" : "fuzz.txt");
  if (!tokens.ok()) {
    smlab::fuzz::require_one_line_error(tokens.error().message);
  } else {
    require(!tokens->empty() && tokens->size() <= smlab::ImportLimits::tokens_max);
    for (const std::string& token : *tokens) {
      require(token.size() <= smlab::ImportLimits::token_bytes_max);
      require(smlab::first_invalid_utf8(token) == std::string_view::npos);
    }
  }
  return 0;
}
