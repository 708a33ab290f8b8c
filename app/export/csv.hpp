// CSV export (--export-csv DIR): the numbers behind every dashboard plot, one file per plot,
// with stable column names (docs/ARCHITECTURE.md, "CSV files"), written atomically and printed so they round-trip.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "files/atomic_file.hpp"
#include "smlab/snapshot.hpp"

namespace smlab::exporting {

// The files, in the order they are written. Every file has one header row; numbers are the
// shortest text that parses back to the same double (float for attention weights) via
// std::to_chars, so `std::from_chars` / `float(x)` / `numpy.float32` recover them exactly.
// Non-finite values are written as inf, -inf, nan.
//
//   distribution.csv         index,score,logit,probability,gradient,log_probability,log_max_gradient,
//                            max_gradient
//                            one row per entry of the shown row (n = L, or the custom scores);
//                            gradient = s_i (1 − s_i); log_probability = log-softmax;
//                            log_max_gradient = ∂ log s_k / ∂z_i for k = argmax (δ_ik − s_i);
//                            max_gradient = ∂s_k/∂z_i = s_k (δ_ik − s_i) (softmax_vjp, g = e_k)
//   row_summary.csv          quantity,value: entropy_nats, entropy_bits, effective_choices,
//                            max_weight, argmax, logsumexp, kl_from_uniform_nats,
//                            jacobian_frobenius_norm of the shown row
//   entropy_temperature.csv  temperature,entropy_nats
//                            the row's entropy on the temperature grid (121 points, 0.01 … 100)
//   entropy_dk.csv           d_k,variant,entropy_mean,entropy_se,max_weight_mean,max_weight_se,
//                            jacobian_norm_mean,jacobian_norm_se,trials
//                            variant is "scaled" or "unscaled"; all scaled rows (d_k = 1, 2, 4, …,
//                            4096) come first, then all unscaled ones: 26 rows; se = standard error
//   attention.csv            key_0,key_1,…,key_{L−1}, then the L×L weights of the map the
//                            current `scaled` setting selects (docs/ARCHITECTURE.md, "CSV files"); the same
//                            layout holds for the two explicit maps:
//   attention_scaled.csv     key_0,key_1,…,key_{L−1}
//   attention_unscaled.csv   then L lines of L weights: line i is query i (softmax over keys);
//                            the header names the key columns so the body is a plain L×L matrix
//   attention_output.csv     dim,scaled,unscaled: the selected query row's output Σ_j a_ij v_j
//                            (attention_output) through each map, d_k rows; V is drawn from the
//                            seed (Stream::values, d_v = d_k). With custom scores it is still the
//                            row of the Q·K maps.
//                            (numpy.loadtxt(path, delimiter=",", skiprows=1))
//   params.csv               key,value
//                            every Params key (param_keys()) as get_param() prints it, so
//                            `--set key=value` reproduces the export; values with commas quoted
std::span<const std::string_view> csv_file_names();

struct CsvOptions {
  bool overwrite = false;              // replace existing files; otherwise refuse before writing any
  std::int64_t min_dk_trials = 20000;  // entropy_dk.csv: Monte Carlo trials per point, at least
  int threads = 0;                     // for topping up the d_k sweep (≤ 0: all; bit-identical for any count)
};

// Writes the files above into `directory`, which must already exist (the caller decides
// whether to create it, e.g. with ensure_directory). Before anything is written every target
// is checked: an existing file without `overwrite`, or a target that is a directory, fails
// the whole export with nothing written. Each file is staged in a temporary file and all are
// renamed into place at the end (FileBatch), so no reader ever sees a half-written file and a
// failure (disk full) leaves the folder as it was: new files removed, replaced files restored.
// With `batch` the files are only staged there, and the caller commits them together with others.
// The files come back in csv_file_names() order.
//
// If the Snapshot's d_k sweep has fewer than min_dk_trials trials (or was made for another
// configuration), a copy is topped up with add_dk_trials on `threads` threads. Monte Carlo
// accumulation is blocked, so the result is bit-identical to a single sequential sweep of
// that many trials: the file depends only on Params and the trial count. At L = 4096 this
// step takes seconds.
files::WrittenFiles export_csv(const Snapshot& snapshot, const std::filesystem::path& directory,
                               const CsvOptions& options = {}, files::FileBatch* batch = nullptr);

// export_csv in pieces, for a caller that writes the files itself a little at a time (the web page
// streams them into a zip between frames); put together, the pieces are export_csv's files byte
// for byte.
//   csv_sweep_start: the d_k sweep entropy_dk.csv starts from (the Snapshot's own when it is of its
//     Params' configuration, else an empty one); add_dk_trials tops it up to CsvOptions::min_dk_trials,
//     in as many calls as the caller likes (the result does not depend on the split).
//   csv_file_text: one file of csv_file_names(), with that topped-up sweep.
//   csv_attention_map: for the three attention files, which map (true: scaled); nullopt otherwise.
//     Their text is csv_attention_header, then rows 0 … csv_attention_rows − 1 in any blocks
//     (append_csv_attention_rows): ~230 MB per file at L = 4096.
DkSweep csv_sweep_start(const Snapshot& snapshot);
std::string csv_file_text(const Snapshot& snapshot, const DkSweep& sweep, std::string_view name);
std::optional<bool> csv_attention_map(const Snapshot& snapshot, std::string_view name);
int csv_attention_rows(const Snapshot& snapshot);
std::string csv_attention_header(const Snapshot& snapshot);
void append_csv_attention_rows(std::string& out, const Snapshot& snapshot, bool scaled, int first, int count);

}  // namespace smlab::exporting
