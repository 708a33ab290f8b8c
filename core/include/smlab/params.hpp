// Params: the single source of truth for what the app shows, and the one
// validation every entry point (slider, --set, session file, lesson step) uses.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace smlab {

// Documented ranges. Sliders use the same numbers, so a slider cannot produce a
// value that validate() rejects.
struct ParamLimits {
  static constexpr double temperature_min = 0.01, temperature_max = 100.0;
  static constexpr int key_dim_min = 1, key_dim_max = 4096;
  static constexpr double score_scale_min = 0.01, score_scale_max = 100.0;
  static constexpr int seq_len_min = 2, seq_len_max = 4096;
  static constexpr std::uint64_t seed_max = (std::uint64_t{1} << 53);  // exact in a double / JSON number
  static constexpr std::size_t scores_max_count = 4096;                  // same as the longest row
};

struct Params {
  double temperature = 1.0;   // T: logits are divided by it. [0.01, 100]
  int key_dim = 64;           // d_k: length of each query and key vector. [1, 4096]
  double score_scale = 1.0;   // multiplies every score q·k (or custom score). [0.01, 100]
  int seq_len = 16;           // L: number of queries and keys. [2, 4096]
  std::uint64_t seed = 42;    // seed of Q and K. [0, 2^53]
  bool scaled = true;         // divide q·k by √d_k
  int row = 0;                // which query row the distribution shows. [0, L−1]
  std::vector<double> scores; // custom score vector replacing the row; empty = use QKᵀ row.
                              // 1..4096 entries, each finite or −inf (a masked key), at
                              // least one finite.

  friend bool operator==(const Params&, const Params&) = default;
};

// One line naming the field, the offending value and what is allowed, e.g.
// "temperature=-1 is out of range: allowed 0.01 to 100".
struct ParamError {
  std::string message;
};

// The whole validation. Returns the first problem found, or nothing when valid.
std::optional<ParamError> validate(const Params& params);

// Keys accepted by --set, session files and lessons ("temperature", "d_k", ...).
struct ParamKey {
  std::string_view name;
  std::string_view description;
  std::string_view allowed;  // human-readable range, e.g. "0.01 to 100 (log slider)"
};
std::span<const ParamKey> param_keys();

// Parses `text` for `key` and assigns it to `params` only if the result passes
// validate(); otherwise `params` is unchanged and the error names key, value and
// what is allowed. Setting `seq_len` clamps `row` into range rather than failing,
// because the row is a position inside the sequence, not an independent choice.
std::optional<ParamError> set_param(Params& params, std::string_view key, std::string_view text);

// The current value of `key` as text that set_param accepts back (round-trips).
std::optional<std::string> get_param(const Params& params, std::string_view key);

// Parses "1, 2, 3" (commas and/or whitespace; "-inf" allowed for masked keys).
// Errors name the offending token and its position.
struct ScoreParse {
  std::vector<double> scores;
  std::optional<ParamError> error;
};
ScoreParse parse_scores(std::string_view text);

// Formats a score vector as parse_scores reads it back exactly ("1, 2.5, -inf").
std::string format_scores(std::span<const double> scores);

}  // namespace smlab
