// --set KEY=VALUE (the command line, the web page's URL) and a session's "params": every value
// applied through set_param, the sliders' validation, in param_keys() order (seq_len before row,
// whatever the order given), and the keys that depend on each other checked on the whole set. One
// piece for every entry point that takes several keys at once.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/params.hpp"

namespace smlab {

struct KeyValue {
  std::string key, value;
};

// A key apply_key_values could not take, and set_param's reason.
struct RefusedKey {
  std::string key;
  Error error;
};

// Applies every (key, value) of `values` to `params` as one set: the typed values are what the
// result holds, and a check between keys is made on the whole set, not on the half applied so far
// (train_vocab=2 with train_seq_len=3: recall needs vocab ≥ L − 1, true of the pair though not
// of vocab 2 beside the default L = 9). So a value that set_param refuses waits until the others are
// applied and is tried again; what stays refused is the result, the first in key order. A later key
// that would silently change a typed one (train_seq_len raising a typed train_vocab to L − 1, as it
// raises an untyped one) makes the typed one refused instead. A repeated key: its last value.
// Keys for which `skip_if_refused` is true are left as they were when refused (a session's sizes of
// imported data that is gone). On a refusal `params` may hold part of the set.
std::optional<RefusedKey> apply_key_values(Params& params, std::span<const KeyValue> values,
                                           const std::function<bool(std::string_view key)>& skip_if_refused = {});

// The same for "KEY=VALUE" texts, each split at its first '='; the first refused one is a usage Error
// with set_param's line (or "--set '…' is not KEY=VALUE, …").
Result<void> apply_assignments(Params& params, const std::vector<std::string>& assignments);

}  // namespace smlab
