// The settings of a tiny attention model trained live (docs/TRAINING.md): the task, the model's
// sizes, the softmax's knobs and the optimiser, with one validation and a key table of their own.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "smlab/error.hpp"
#include "smlab/precision.hpp"

namespace smlab::train {

// The tasks. Each but the language model has a known correct attention pattern (tasks.hpp):
//   recall    associative recall: L − 1 (key, value) pairs, then a query key; answer its value
//             (attend to the pair whose key matches the query).
//   copy      the first ⌈L/2⌉ positions hold symbols; then a separator and the answer so far
//             (teacher forcing): output i must repeat input i (attend by position). Causal.
//   reverse   the same, repeated backwards (output i to input ⌈L/2⌉ − 1 − i). Causal.
//   maximum   L − 1 distinct numbers, then a query; answer the largest (attend to it).
//   language  a causal character-level language model over a corpus (corpus.hpp): predict every
//             next character.
enum class Task { recall, copy, reverse, maximum, language };
inline constexpr std::array<Task, 5> all_tasks{Task::recall, Task::copy, Task::reverse, Task::maximum, Task::language};
std::string_view task_name(Task task);  // "recall", "copy", "reverse", "maximum", "language"
std::optional<Task> task_from_name(std::string_view name);
std::string_view task_description(Task task);  // one line, for --list-tasks

enum class Optimizer { adam, sgd };

// Documented ranges; the sliders of the training lab use the same numbers.
struct Limits {
  static constexpr int seq_len_min = 3, seq_len_max = 128;  // L, positions per example
  static constexpr int vocab_min = 2, vocab_max = 256;      // symbols of the synthetic tasks
  static constexpr int model_dim_min = 2, model_dim_max = 256;
  static constexpr int key_dim_min = 1, key_dim_max = 512;
  static constexpr int heads_min = 1, heads_max = 8;
  static constexpr int layers_min = 1, layers_max = 2;
  static constexpr int batch_min = 1, batch_max = 256;
  static constexpr double temperature_min = 0.01, temperature_max = 100.0;  // as Params::temperature
  static constexpr double learning_rate_min = 1e-6, learning_rate_max = 10.0;
  static constexpr double init_scale_min = 0.01, init_scale_max = 100.0;
  static constexpr std::uint64_t seed_max = std::uint64_t{1} << 53;  // exact in a double / JSON number
};

// Everything a run depends on. Two runs with equal settings (and corpus) are identical step for
// step. Units: temperature divides the logits; learning_rate is Adam's α or SGD's step size.
struct Settings {
  Task task = Task::recall;
  int seq_len = 9;     // L. recall and maximum: L − 1 items and a query, so vocab ≥ L − 1
  int vocab = 16;      // symbols of recall/copy/reverse/maximum (the language model's comes from its corpus)
  int model_dim = 32;  // D: width of the embeddings and of the residual stream
  int key_dim = 16;    // d_k: width of each head's queries and keys
  int heads = 1;       // H; each head's values have d_v = max(1, D / H) entries
  int layers = 1;
  bool residual = true;             // x ← x + attention(x) (else x ← attention(x))
  bool positions = true;            // add sinusoidal position encodings to the embeddings
  bool causal = false;              // mask keys after the query; the language model is always causal
  bool scaled = true;               // divide q·k by √d_k
  double temperature = 1;           // T: weights = softmax(q·k · c / T)
  Format precision = Format::fp32;  // the softmax's arithmetic: fp64, fp32, fp16 or bf16 (every op rounded)
  SoftmaxVariant softmax = SoftmaxVariant::stable;  // naive or stable (precision.hpp)
  Optimizer optimizer = Optimizer::adam;
  double learning_rate = 3e-3;
  double init_scale = 1.0;  // σ of W_Q and W_K relative to 1/√D (so q, k entries have std ≈ init_scale)
  int batch = 32;           // examples per step
  std::uint64_t seed = 1;   // weights, data and probe

  friend bool operator==(const Settings&, const Settings&) = default;
};

// The settings a task starts from: its sizes and learning rate, tuned so that it learns within
// seconds (docs/TRAINING.md). Settings{} are recall's.
Settings default_settings(Task task);

// How a change reaches a running training (Run::change, run.hpp):
//   live     the next step uses it (temperature, scaled, precision, softmax, learning rate, ...)
//   reshape  d_k: each head's W_Q and W_K keep their first min(old, new) columns, new columns are
//            drawn as at the start (so a change at step 0 equals a new run), moments of new entries 0
//   rescale  init_scale: W_Q and W_K are multiplied by new/old (at step 0: a new run, to rounding)
//   restart  the task, a size, the seed: the run starts again from step 0 with new weights
enum class Effect { live, reshape, rescale, restart };

// The key table: one row per setting. Save files (run.hpp), the phase-2 Params keys and
// --list-keys style listings read it; set_setting and validate use its ranges.
struct SettingKey {
  std::string_view name;  // "task", "seq_len", "d_k", ...
  std::string_view description;
  std::string_view allowed;  // e.g. "a whole number from 1 to 512"
  Effect effect = Effect::live;
};
std::span<const SettingKey> setting_keys();
const SettingKey* find_setting_key(std::string_view name);

// The whole validation: the first problem as an Error::usage naming the key, the value and what
// is allowed ("d_k=0 is out of range: allowed a whole number from 1 to 512"); success when valid.
Result<void> validate(const Settings& settings);

// Parses `text` for `key` and assigns it only if the result passes validate(); otherwise the
// settings are unchanged and the error (Error::usage) names the key, the text and what is allowed.
// Setting seq_len or task raises vocab to seq_len − 1 where recall or maximum needs that many
// distinct symbols (a vocab below it is refused when set itself).
Result<void> set_setting(Settings& settings, std::string_view key, std::string_view text);
// set_setting without the checks between keys (vocab against seq_len), for a reader that sets
// every key and then calls validate() once (the weights file, run.hpp).
Result<void> set_setting_unchecked(Settings& settings, std::string_view key, std::string_view text);
// The value as text that set_setting reads back exactly; nullopt for an unknown key.
std::optional<std::string> get_setting(const Settings& settings, std::string_view key);

// Whether keys after the query are masked: the setting, or the task's own need (copy and reverse
// hold their answers teacher-forced, and a language model must not read the next character).
inline bool is_causal(const Settings& settings) {
  return settings.causal || settings.task == Task::copy || settings.task == Task::reverse ||
         settings.task == Task::language;
}

// The value widths that follow from the settings.
inline int value_dim(const Settings& settings) {
  return settings.model_dim / settings.heads > 0 ? settings.model_dim / settings.heads : 1;
}

}  // namespace smlab::train
