// CSV export: formats the Snapshot's series as round-trip CSV text and writes each file
// atomically; tops the Monte Carlo d_k sweep up to the export's trial count first.
#include "export/csv.hpp"

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <sys/stat.h>
#include <system_error>
#include <unistd.h>

#include "files/atomic_file.hpp"
#include "smlab/attention.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/montecarlo.hpp"
#include "smlab/params.hpp"

namespace smlab::exporting {
namespace {

namespace fs = std::filesystem;

constexpr std::array<std::string_view, 9> file_names = {
    "distribution.csv",     "row_summary.csv",        "entropy_temperature.csv", "entropy_dk.csv", "attention.csv",
    "attention_scaled.csv", "attention_unscaled.csv", "attention_output.csv",    "params.csv",
};

// Shortest text that parses back to the same value (std::to_chars without a precision). The
// float overload matters: a float printed as a double would carry ~17 digits of noise.
template <class Number>
void append_number(std::string& out, Number value) {
  std::array<char, 48> buffer{};
  const auto [end, ec] = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  out.append(buffer.data(), ec == std::errc{} ? end : buffer.data());
}

// RFC 4180: a field with a comma, quote or line break is quoted, quotes doubled.
void append_field(std::string& out, std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) {
    out += text;
    return;
  }
  out += '"';
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
}

std::string distribution_csv(const Snapshot& snap) {
  std::string out = "index,score,logit,probability,gradient,log_probability,log_max_gradient,max_gradient\n";
  for (std::size_t i = 0; i < snap.scores.size(); ++i) {
    out += std::to_string(i);
    for (const auto* series : {&snap.scores, &snap.logits, &snap.probabilities, &snap.gradient, &snap.log_probabilities,
                               &snap.log_max_gradient, &snap.max_gradient}) {
      out += ',';
      append_number(out, (*series)[i]);
    }
    out += '\n';
  }
  return out;
}

std::string row_summary_csv(const Snapshot& snap) {
  std::string out = "quantity,value\n";
  const std::pair<const char*, double> rows[] = {
      {"entropy_nats", snap.entropy_nats},
      {"entropy_bits", snap.entropy_bits},
      {"effective_choices", snap.effective_choices},
      {"max_weight", snap.max_weight},
      {"argmax", static_cast<double>(snap.argmax)},
      {"logsumexp", snap.logsumexp},
      {"kl_from_uniform_nats", snap.kl_from_uniform},
      {"jacobian_frobenius_norm", snap.jacobian_norm},
  };
  for (const auto& [name, value] : rows) {
    out += name;
    out += ',';
    append_number(out, value);
    out += '\n';
  }
  return out;
}

std::string entropy_temperature_csv(const Snapshot& snap) {
  std::string out = "temperature,entropy_nats\n";
  for (std::size_t k = 0; k < snap.temperature_grid.size(); ++k) {
    append_number(out, snap.temperature_grid[k]);
    out += ',';
    append_number(out, snap.entropy_vs_temperature[k]);
    out += '\n';
  }
  return out;
}

std::string entropy_dk_csv(const DkSweep& sweep) {
  std::string out =
      "d_k,variant,entropy_mean,entropy_se,max_weight_mean,max_weight_se,jacobian_norm_mean,jacobian_norm_se,"
      "trials\n";
  auto rows = [&](const std::vector<RowStats>& points, std::string_view variant) {
    for (std::size_t p = 0; p < points.size(); ++p) {
      out += std::to_string(sweep.config.key_dims[p]);
      out += ',';
      out += variant;
      for (const RunningStats* stats : {&points[p].entropy_nats, &points[p].max_weight, &points[p].jacobian_norm}) {
        out += ',';
        append_number(out, stats->mean);
        out += ',';
        append_number(out, stats->standard_error());
      }
      out += ',';
      out += std::to_string(sweep.trials);
      out += '\n';
    }
  };
  rows(sweep.scaled, "scaled");
  rows(sweep.unscaled, "unscaled");
  return out;
}

// Long imported contexts (no stored L×L map): the pooled block maxima, one column per key block,
// headed by the keys it covers ("keys_0-31"), one row per query block. 32768² weights would be ~15 GB.
std::string pooled_attention_csv(const Snapshot& snap, bool scaled) {
  const PooledMaps& pooled = snap.pooled;
  const std::vector<float>& map = scaled ? pooled.scaled : pooled.unscaled;
  std::string out;
  for (int j = 0; j < pooled.side; ++j) {
    out += j == 0 ? "keys_" : ",keys_";
    out += std::to_string(j * pooled.factor) + "-" +
           std::to_string(std::min((j + 1) * pooled.factor, snap.attention_size) - 1);
  }
  out += '\n';
  for (int i = 0; i < pooled.side; ++i) {
    for (int j = 0; j < pooled.side; ++j) {
      if (j > 0) out += ',';
      append_number(
          out, map[static_cast<std::size_t>(i) * static_cast<std::size_t>(pooled.side) + static_cast<std::size_t>(j)]);
    }
    out += '\n';
  }
  return out;
}

std::string attention_csv(const Snapshot& snap, bool scaled) {
  if (snap.pooled.factor > 0) return pooled_attention_csv(snap, scaled);
  const int size = snap.attention_size;
  std::string out;
  // ~14 characters per weight; reserving avoids repeated copies of a ~200 MB string at L = 4096.
  out.reserve(static_cast<std::size_t>(size) * static_cast<std::size_t>(size) * 14 + 16);
  for (int j = 0; j < size; ++j) {
    out += j == 0 ? "key_" : ",key_";
    out += std::to_string(j);
  }
  out += '\n';
  std::vector<float> row(static_cast<std::size_t>(size));
  for (int i = 0; i < size; ++i) {
    attention_row(snap, scaled, i, row);
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) out += ',';
      append_number(out, row[j]);
    }
    out += '\n';
  }
  return out;
}

// Output o_i = Σ_j a_ij v_j of the selected query row through both maps (core: row_attention_output).
std::string attention_output_csv(const Snapshot& snap) {
  const RowAttentionOutput output = row_attention_output(snap);
  const Matrix& scaled = output.scaled;
  const Matrix& unscaled = output.unscaled;
  std::string out = "dim,scaled,unscaled\n";
  for (int c = 0; c < scaled.cols; ++c) {
    out += std::to_string(c);
    out += ',';
    append_number(out, scaled(0, c));
    out += ',';
    append_number(out, unscaled(0, c));
    out += '\n';
  }
  return out;
}

std::string params_csv(const Params& params) {
  std::string out = "key,value\n";
  for (const ParamKey& key : param_keys()) {
    append_field(out, key.name);
    out += ',';
    append_field(out, get_param(params, key.name).value_or(""));
    out += '\n';
  }
  return out;
}

// The sweep evaluate() runs for these Params (one config, core's dk_sweep_config), topped up.
DkSweep sweep_for_export(const Snapshot& snap, const CsvOptions& options) {
  DkSweepConfig config = dk_sweep_config(snap.params);
  DkSweep sweep = snap.dk_sweep.config == config ? snap.dk_sweep : make_dk_sweep(std::move(config));
  if (sweep.trials < options.min_dk_trials) add_dk_trials(sweep, options.min_dk_trials - sweep.trials, options.threads);
  return sweep;
}

std::string quoted(const fs::path& path) { return "'" + path.string() + "'"; }

// Everything that can be known to fail before a byte is written.
Result<void> check_targets(const fs::path& directory, const CsvOptions& options) {
  struct stat status {};
  if (::stat(directory.c_str(), &status) != 0)
    return Error::file("cannot export CSV to " + quoted(directory) + ": " + std::generic_category().message(errno));
  if (!S_ISDIR(status.st_mode)) return Error::file("cannot export CSV to " + quoted(directory) + ": not a directory");
  if (::access(directory.c_str(), W_OK | X_OK) != 0)
    return Error::file("cannot export CSV to " + quoted(directory) + ": " + std::generic_category().message(errno));
  for (std::string_view name : file_names)
    if (Result<void> checked = check_target(directory / name, options.overwrite); !checked.ok()) return checked;
  return {};
}

}  // namespace

std::span<const std::string_view> csv_file_names() { return file_names; }

WrittenFiles export_csv(const Snapshot& snapshot, const fs::path& directory, const CsvOptions& options,
                        FileBatch* shared) {
  if (Result<void> checked = check_targets(directory, options); !checked.ok()) return checked.error();
  const DkSweep sweep = sweep_for_export(snapshot, options);

  auto text_of = [&](std::string_view name) {
    if (name == "distribution.csv") return distribution_csv(snapshot);
    if (name == "row_summary.csv") return row_summary_csv(snapshot);
    if (name == "entropy_temperature.csv") return entropy_temperature_csv(snapshot);
    if (name == "entropy_dk.csv") return entropy_dk_csv(sweep);
    if (name == "attention.csv")  // the map the current `scaled` setting selects (docs/ARCHITECTURE.md, "CSV files")
      return attention_csv(snapshot, snapshot.params.scaled);
    if (name == "attention_scaled.csv") return attention_csv(snapshot, true);
    if (name == "attention_unscaled.csv") return attention_csv(snapshot, false);
    if (name == "attention_output.csv") return attention_output_csv(snapshot);
    return params_csv(snapshot.params);
  };

  FileBatch own(options.overwrite);
  FileBatch& batch = shared != nullptr ? *shared : own;
  for (std::string_view name : file_names) {
    // One file's text at a time: the attention maps are ~200 MB each at L = 4096.
    if (Result<void> staged = batch.stage(directory / name, text_of(name)); !staged.ok())
      return staged.error();  // the batch removes what it staged
  }
  if (shared == nullptr)
    if (Result<void> committed = own.commit(); !committed.ok()) return committed.error();
  std::vector<fs::path> files;
  for (std::string_view name : file_names) files.push_back(directory / name);
  return files;
}

}  // namespace smlab::exporting
