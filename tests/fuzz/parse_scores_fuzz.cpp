// libFuzzer target for parse_scores (the custom score vector field and --set scores=...):
// never crashes, and what it accepts is valid and survives a format/parse round trip.
#include <cstddef>
#include <cstdint>
#include <cmath>
#include <cstring>
#include <string_view>

#include "fuzz_support.hpp"
#include "smlab/params.hpp"

using smlab::fuzz::require;

namespace {

// Aborting (rather than returning) makes libFuzzer save the input as a crash.

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const smlab::Result<std::vector<double>> parsed = smlab::parse_scores(text);
  if (!parsed.ok()) {
    // A rejected vector leaves nothing behind (a Result holds no value then), and its message is one line.
    smlab::fuzz::require_one_line_error(parsed.error().message);
    return 0;
  }
  const std::vector<double>& scores = *parsed;
  require(scores.size() <= smlab::ParamLimits::scores_max_count);
  // Whatever parses must survive validate() once at least one entry is finite.
  smlab::Params params;
  params.scores = scores;
  bool any_finite = false;
  for (double s : scores) any_finite = any_finite || std::isfinite(s);
  if (any_finite) require(smlab::validate(params).ok());
  // Formatting and parsing again gives back exactly the same numbers.
  const smlab::Result<std::vector<double>> again = smlab::parse_scores(smlab::format_scores(scores));
  require(again.ok());
  require(again->size() == scores.size());
  for (std::size_t i = 0; i < scores.size(); ++i) require(same_bits((*again)[i], scores[i]));
  return 0;
}
