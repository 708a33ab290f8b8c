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
std::string attention_header(const Snapshot& snap) {
  std::string out;
  if (snap.pooled.factor > 0) {
    for (int j = 0; j < snap.pooled.side; ++j) {
      out += j == 0 ? "keys_" : ",keys_";
      out += std::to_string(j * snap.pooled.factor) + "-" +
             std::to_string(std::min((j + 1) * snap.pooled.factor, snap.attention_size) - 1);
    }
  } else {
    for (int j = 0; j < snap.attention_size; ++j) {
      out += j == 0 ? "key_" : ",key_";
      out += std::to_string(j);
    }
  }
  out += '\n';
  return out;
}

void append_attention_rows(std::string& out, const Snapshot& snap, bool scaled, int first, int count) {
  if (snap.pooled.factor > 0) {
    const PooledMaps& pooled = snap.pooled;
    const std::vector<float>& map = scaled ? pooled.scaled : pooled.unscaled;
    const auto side = static_cast<std::size_t>(pooled.side);
    for (int i = first; i < first + count; ++i) {
      for (std::size_t j = 0; j < side; ++j) {
        if (j > 0) out += ',';
        append_number(out, map[static_cast<std::size_t>(i) * side + j]);
      }
      out += '\n';
    }
    return;
  }
  std::vector<float> row(static_cast<std::size_t>(snap.attention_size));
  for (int i = first; i < first + count; ++i) {
    attention_row(snap, scaled, i, row);
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j > 0) out += ',';
      append_number(out, row[j]);
    }
    out += '\n';
  }
}

std::string attention_csv(const Snapshot& snap, bool scaled) {
  std::string out = attention_header(snap);
  const int rows = csv_attention_rows(snap);
  // ~14 characters per weight; reserving avoids repeated copies of a ~200 MB string at L = 4096.
  if (snap.pooled.factor == 0)
    out.reserve(static_cast<std::size_t>(rows) * static_cast<std::size_t>(rows) * 14 + out.size());
  append_attention_rows(out, snap, scaled, 0, rows);
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
  DkSweep sweep = csv_sweep_start(snap);
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
    if (Result<void> checked = files::check_target(directory / name, options.overwrite); !checked.ok()) return checked;
  return {};
}

}  // namespace

std::span<const std::string_view> csv_file_names() { return file_names; }

DkSweep csv_sweep_start(const Snapshot& snapshot) {
  DkSweepConfig config = dk_sweep_config(snapshot.params);
  return snapshot.dk_sweep.config == config ? snapshot.dk_sweep : make_dk_sweep(std::move(config));
}

std::optional<bool> csv_attention_map(const Snapshot& snapshot, std::string_view name) {
  if (name == "attention.csv")
    return snapshot.params.scaled;  // the map `scaled` selects (docs/ARCHITECTURE.md, "CSV files")
  if (name == "attention_scaled.csv") return true;
  if (name == "attention_unscaled.csv") return false;
  return std::nullopt;
}

int csv_attention_rows(const Snapshot& snapshot) {
  return snapshot.pooled.factor > 0 ? snapshot.pooled.side : snapshot.attention_size;
}

std::string csv_attention_header(const Snapshot& snapshot) { return attention_header(snapshot); }

void append_csv_attention_rows(std::string& out, const Snapshot& snapshot, bool scaled, int first, int count) {
  append_attention_rows(out, snapshot, scaled, first, count);
}

std::string csv_file_text(const Snapshot& snapshot, const DkSweep& sweep, std::string_view name) {
  if (const auto scaled = csv_attention_map(snapshot, name)) return attention_csv(snapshot, *scaled);
  if (name == "distribution.csv") return distribution_csv(snapshot);
  if (name == "row_summary.csv") return row_summary_csv(snapshot);
  if (name == "entropy_temperature.csv") return entropy_temperature_csv(snapshot);
  if (name == "entropy_dk.csv") return entropy_dk_csv(sweep);
  if (name == "attention_output.csv") return attention_output_csv(snapshot);
  return params_csv(snapshot.params);
}

files::WrittenFiles export_csv(const Snapshot& snapshot, const fs::path& directory, const CsvOptions& options,
                               files::FileBatch* shared) {
  if (Result<void> checked = check_targets(directory, options); !checked.ok()) return checked.error();
  const DkSweep sweep = sweep_for_export(snapshot, options);

  files::FileBatch own(options.overwrite);
  files::FileBatch& batch = shared != nullptr ? *shared : own;
  for (std::string_view name : file_names) {
    // One file's text at a time: the attention maps are ~200 MB each at L = 4096.
    if (Result<void> staged = batch.stage(directory / name, csv_file_text(snapshot, sweep, name)); !staged.ok())
      return staged.error();  // the batch removes what it staged
  }
  if (shared == nullptr)
    if (Result<void> committed = own.commit(); !committed.ok()) return committed.error();
  std::vector<fs::path> files;
  for (std::string_view name : file_names) files.push_back(directory / name);
  return files;
}

}  // namespace smlab::exporting
