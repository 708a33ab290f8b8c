// --set KEY=VALUE (the command line, the web page's URL): every assignment split at its first '=',
// applied in param_keys() order (seq_len before row, whatever the order given), each through
// set_param, the sliders' validation. One piece for every entry point that takes assignments.
#pragma once

#include <string>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/params.hpp"

namespace smlab {

// Applies `assignments` to `params`; the first refused one is a usage Error with set_param's line
// (or "--set '…' is not KEY=VALUE, …"), and `params` may then hold the assignments before it.
Result<void> apply_assignments(Params& params, const std::vector<std::string>& assignments);

}  // namespace smlab
