// Params: the single source of truth for what the app shows, and the one
// validation every entry point (slider, --set, session file, lesson step) uses.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/import.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/precision.hpp"

namespace smlab {

// Documented ranges. Sliders use the same numbers, so a slider cannot produce a
// value that validate() rejects.
struct ParamLimits {
  static constexpr double temperature_min = 0.01, temperature_max = 100.0;
  static constexpr int key_dim_min = 1, key_dim_max = 4096;
  static constexpr double score_scale_min = 0.01, score_scale_max = 100.0;
  static constexpr int seq_len_min = 2, seq_len_max = 4096;
  static constexpr std::uint64_t seed_max = (std::uint64_t{1} << 53);  // exact in a double / JSON number
  static constexpr std::size_t scores_max_count = 4096;                // same as the longest row
  static constexpr double alpha_min = 1.0, alpha_max = 2.0;
  static constexpr double gamma_min = 0.1, gamma_max = 100.0;
  static constexpr double qk_norm_min = 0.1, qk_norm_max = 20.0;
  static constexpr double pe_amplitude_min = 0.0, pe_amplitude_max = 100.0;
  static constexpr int heads_min = 1, heads_max = 16;
  static constexpr double nudge_min = -3.0, nudge_max = 3.0;
  static constexpr int top_k_min = 1, top_k_max = 50;
  static constexpr double top_p_min = 0.01, top_p_max = 1.0;
  static constexpr int samples_min = 1, samples_max = 1000000;
  static constexpr int target_min = 0, target_max = 4095;
  static constexpr double angle_min = -180.0, angle_max = 180.0;
  static constexpr double key_norm_min = 0.1, key_norm_max = 20.0;
  static constexpr double epsilon_min = 1e-8, epsilon_max = 1.0;
  static constexpr int init_min = 0, init_max = 3;
  static constexpr int activation_min = 0, activation_max = 2;
  static constexpr int depth_min = 1, depth_max = 50;
  static constexpr int imported_seq_len_max = ImportLimits::length_max;  // L of imported Q and K
  static constexpr int batch_max = 65535, head_max = 65535;              // without imported data
};

struct Params {
  double temperature = 1.0;    // T: logits are divided by it. [0.01, 100]
  int key_dim = 64;            // d_k: length of each query and key vector. [1, 4096]
  double score_scale = 1.0;    // multiplies every score q·k (or custom score). [0.01, 100]
  int seq_len = 16;            // L: number of queries and keys. [2, 4096]
  std::uint64_t seed = 42;     // seed of Q and K. [0, 2^53]
  bool scaled = true;          // divide q·k by √d_k
  int row = 0;                 // which query row the distribution shows. [0, L−1]
  std::vector<double> scores;  // custom score vector replacing the row; empty = use QKᵀ row.
                               // 1..4096 entries, each finite or −inf (a masked key), at
                               // least one finite.

  // Settings of the labs (the dashboard ignores them).
  double alpha = 1.5;            // α of α-entmax: 1 = softmax, 2 = sparsemax. [1, 2]
  Format format = Format::fp16;  // number format of the stability lab's emulated arithmetic
  double gamma = 10.0;           // γ of cosine attention: scores lie in [−γ, γ]. [0.1, 100]
  double qk_norm = 1.0;          // σ of the entries of Q and K: their norms grow with it. [0.1, 20]
  double pe_amplitude = 1.0;     // amplitude of the sinusoidal positional encodings. [0, 100]
  int heads = 4;                 // number of attention heads. [1, 16]
  bool causal = false;           // mask keys after the query (−inf scores, weight exactly 0)
  double nudge = 0.0;            // added to the second-largest score in the temperature lab. [−3, 3]
  // Settings of the attention story's labs (smlab/labs/topics.hpp says who reads them).
  int top_k = 5;        // sampling: tokens kept by top-k [1, 50] (clamped to the vocabulary)
  double top_p = 0.9;   // sampling: nucleus mass p [0.01, 1]
  int samples = 1000;   // sampling: draws in the histogram [1, 10^6]
  int target = 0;       // loss: the one-hot target's index in the row [0, 4095] (clamped to the row)
  double angle = 35.0;  // geometry: direction of q in degrees [−180, 180]
  // geometry: key 0 of the 2-D demo, direction in degrees [−180, 180] and length [0.1, 20] (so an
  // exercise's own k = (4, 3) can be drawn); the default is the demo's 0.4 rad, length 1.
  double key_angle = 22.91831180523293;
  double key_norm = 1.0;
  double epsilon = 1e-3;    // geometry: ε of cosine attention's max(‖q‖, ε) [1e-8, 1]
  int init = 1;             // init lab: 0 Var(w) = 1, 1 Xavier, 2 He, 3 σ_w = 0.01
  int activation = 0;       // init lab: 0 linear, 1 tanh, 2 ReLU
  int depth = 10;           // init lab: layers [1, 50]
  bool layer_norm = false;  // init lab: LayerNorm after every layer

  // Imported attention (import.hpp), or null for Q and K drawn from the seed. Attached by
  // attach_import, which also sets seq_len = L (up to 32768) and d_k = d when d is known; those
  // two then stay fixed. The data is immutable and shared, so copying Params stays cheap.
  std::shared_ptr<const ImportedAttention> imported;
  int batch = 0;  // which batch of the imported data: [0, B−1] (0 to 65535 without data)
  int head = 0;   // which head of the imported data: [0, H−1] (0 to 65535 without data)

  // The training lab: its runs' settings, the comparison, seeds, steps and sentence,
  // set through the train_* keys (smlab/labs/training.hpp says why they are prefixed).
  TrainingSettings training;

  friend bool operator==(const Params&, const Params&) = default;
};

// The whole validation. Returns the first problem found as an Error::usage whose message is one
// line naming the field, the offending value and what is allowed, e.g.
// "temperature=-1 is out of range: allowed 0.01 to 100"; success when valid.
Result<void> validate(const Params& params);

// Attaches imported data (null detaches it) and makes the Params fit it: seq_len = L, d_k = d
// (when known), row, batch and head clamped into range. Returns validate()'s verdict; on an error
// `params` is unchanged.
Result<void> attach_import(Params& params, std::shared_ptr<const ImportedAttention> data);

// [SECTION] The key table: one row per key accepted by --set, session files and lessons
// ("temperature", "d_k", ...). Validation, set_param/get_param, --list-keys, the slider nudges
// (app/state/nudge.cpp), the --sweep keys (app/frame/offscreen_app.cpp) and a lesson's blend
// between two steps (blend_params) all read this table; a new key is one row in params.cpp's
// table plus its Params member (and a slider, if it has one, in the panel that shows it).

// A key of the training lab (train_*): its value lives in Params::training, and
// smlab/labs/training.hpp parses, prints and checks it.
struct TrainingMember {
  const TrainingKey* key = nullptr;
};

// Where a key's value lives in Params.
using ParamMember = std::variant<double Params::*, int Params::*, std::uint64_t Params::*, bool Params::*,
                                 Format Params::*, std::vector<double> Params::*, TrainingMember>;

// How a numeric key moves: none = not a slider (no nudge, no sweep, a lesson switches it at once);
// linear = by a fixed step; logarithmic = by a factor (and a lesson blends it in log space when
// its range starts above 0). Integer members always step by 1.
enum class KeyScale { none, linear, logarithmic };

struct ParamKey {
  std::string_view name;
  std::string_view description;
  std::string_view allowed;  // human-readable range, e.g. "a number from 0.01 to 100"; derived from
                             // [min, max] for numbers with a fixed range
  ParamMember member;
  double min = 0.0, max = 0.0;  // numbers: the documented range (ParamLimits). row: up to seq_len − 1,
                                // batch and head: up to the imported data's counts (checked in code)
  KeyScale scale = KeyScale::none;
  double step = 0.0;   // linear reals: one nudge; logarithmic from 0: the smallest positive value
  bool blends = true;  // a lesson moves it gradually; false for the seed (an in-between seed means nothing)
  // Its slider is logarithmic though the key is not nudged or swept (scale none): samples, 1 to 10⁶.
  // Keys of logarithmic scale always have logarithmic sliders.
  bool log_slider = false;
  bool is_real() const {
    const auto* training = std::get_if<TrainingMember>(&member);
    return std::holds_alternative<double Params::*>(member) ||
           (training != nullptr && training->key->kind == TrainingKeyKind::real);
  }
  bool is_integer() const {
    const auto* training = std::get_if<TrainingMember>(&member);
    return std::holds_alternative<int Params::*>(member) || std::holds_alternative<std::uint64_t Params::*>(member) ||
           (training != nullptr && training->key->kind == TrainingKeyKind::integer);
  }
};
std::span<const ParamKey> param_keys();
const ParamKey* find_param_key(std::string_view name);

// The value of a numeric key as a double (nullopt for flags, the format and the scores): the web
// page's address rounds real values while a sweep animates (app/frame/url_state.cpp).
std::optional<double> numeric_param(const Params& params, const ParamKey& key);

// Params part of the way from `from` to `to` for t in [0, 1]: every key that blends moves (log
// space for logarithmic keys whose range starts above 0, linearly otherwise, integers rounded,
// each kept between its two ends; row also below the blended seq_len); the rest is `to`'s.
Params blend_params(const Params& from, const Params& to, double t);

// "fp16" ↔ Format::fp16 (the names of format_info: fp64, fp32, fp16, bf16, fp8-e4m3, fp8-e5m2).
std::string_view format_name(Format format);
std::optional<Format> format_from_name(std::string_view name);

// Parses `text` for `key` and assigns it to `params` only if the result passes
// validate(); otherwise `params` is unchanged and the error names key, value and
// what is allowed (Error::usage). Setting `seq_len` clamps `row` into range rather than failing,
// because the row is a position inside the sequence, not an independent choice.
Result<void> set_param(Params& params, std::string_view key, std::string_view text);

// The current value of `key` as text that set_param accepts back (round-trips); nullopt for an
// unknown key (a lookup, not an error channel).
std::optional<std::string> get_param(const Params& params, std::string_view key);

// Parses "1, 2, 3" (commas and/or whitespace; "-inf" allowed for masked keys).
// Errors (Error::usage) name the offending token and its position. Nothing but spaces and
// brackets gives an empty vector ("use the row").
Result<std::vector<double>> parse_scores(std::string_view text);

// Formats a score vector as parse_scores reads it back exactly ("1, 2.5, -inf").
std::string format_scores(std::span<const double> scores);

}  // namespace smlab
