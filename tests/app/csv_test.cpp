// CSV export schema: exact headers, row counts, values that parse back to the Snapshot's bits,
// params.csv that reproduces the Params, and the no-overwrite / no-partial-file guarantees.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "export/csv.hpp"
#include "smlab/attention.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/params.hpp"

namespace smlab::exporting {
namespace {

namespace fs = std::filesystem;

// A fresh, empty directory per test, removed afterwards.
class CsvExport : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    directory_ = fs::temp_directory_path() / ("smlab_csv_" + std::to_string(::getpid()) + "_" + info->name());
    fs::remove_all(directory_);
    fs::create_directories(directory_);
  }
  void TearDown() override {
    std::error_code ignored;
    fs::permissions(directory_, fs::perms::owner_all, fs::perm_options::add, ignored);
    fs::remove_all(directory_, ignored);
  }
  fs::path directory_;
};

using Table = std::vector<std::vector<std::string>>;

// Splits CSV text into rows of fields (RFC 4180 quoting: "a, b" and doubled quotes).
Table parse_csv(const std::string& text) {
  Table rows;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
        field += '"';
        ++i;
      } else if (c == '"') {
        quoted = false;
      } else {
        field += c;
      }
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      row.push_back(std::move(field));
      field.clear();
    } else if (c == '\n') {
      row.push_back(std::move(field));
      field.clear();
      rows.push_back(std::move(row));
      row.clear();
    } else {
      field += c;
    }
  }
  EXPECT_TRUE(row.empty() && field.empty()) << "file does not end with a newline";
  return rows;
}

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Table read_csv(const fs::path& path) { return parse_csv(read_text(path)); }

template <class Number>
Number parse_number(const std::string& text) {
  Number value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  EXPECT_TRUE(ec == std::errc{} && end == text.data() + text.size()) << "not a number: '" << text << "'";
  return value;
}

std::string join(const std::vector<std::string>& fields) {
  std::string line;
  for (const std::string& f : fields) line += (line.empty() ? "" : ",") + f;
  return line;
}

std::vector<std::string> directory_listing(const fs::path& directory) {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(directory)) names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

Snapshot snapshot_with_trials(Params params, std::int64_t dk_trials) {
  EvaluateOptions options;
  options.dk_trials = dk_trials;
  return *evaluate(params, options);
}

Params small_params() {
  Params params;
  params.seq_len = 8;
  params.key_dim = 16;
  params.temperature = 0.8;
  params.row = 3;
  return params;
}

TEST_F(CsvExport, WritesEveryFileWithExactlyTheDocumentedHeader) {
  const Snapshot snap = snapshot_with_trials(small_params(), 20000);
  const files::WrittenFiles result = export_csv(snap, directory_);
  ASSERT_TRUE(result.ok()) << result.error().message;
  ASSERT_EQ(result->size(), csv_file_names().size());
  for (std::size_t i = 0; i < result->size(); ++i) EXPECT_EQ((*result)[i], directory_ / csv_file_names()[i]);
  EXPECT_EQ(directory_listing(directory_),
            (std::vector<std::string>{"attention.csv", "attention_output.csv", "attention_scaled.csv",
                                      "attention_unscaled.csv", "distribution.csv", "entropy_dk.csv",
                                      "entropy_temperature.csv", "params.csv", "row_summary.csv"}));
  EXPECT_EQ(join(read_csv(directory_ / "distribution.csv")[0]),
            "index,score,logit,probability,gradient,log_probability,log_max_gradient,max_gradient");
  EXPECT_EQ(join(read_csv(directory_ / "attention_output.csv")[0]), "dim,scaled,unscaled");
  EXPECT_EQ(join(read_csv(directory_ / "row_summary.csv")[0]), "quantity,value");
  EXPECT_EQ(join(read_csv(directory_ / "entropy_temperature.csv")[0]), "temperature,entropy_nats");
  EXPECT_EQ(join(read_csv(directory_ / "entropy_dk.csv")[0]),
            "d_k,variant,entropy_mean,entropy_se,max_weight_mean,max_weight_se,jacobian_norm_mean,jacobian_norm_se,"
            "trials");
  EXPECT_EQ(join(read_csv(directory_ / "attention_scaled.csv")[0]), "key_0,key_1,key_2,key_3,key_4,key_5,key_6,key_7");
  EXPECT_EQ(join(read_csv(directory_ / "attention_unscaled.csv")[0]),
            "key_0,key_1,key_2,key_3,key_4,key_5,key_6,key_7");
  EXPECT_EQ(join(read_csv(directory_ / "params.csv")[0]), "key,value");
}

// Printed with the shortest round-trip text, so every number parses back to the same bits.
TEST_F(CsvExport, RowCountsAndValuesEqualTheSnapshotExactly) {
  const Params params = small_params();
  const Snapshot snap = snapshot_with_trials(params, 20000);
  ASSERT_TRUE(export_csv(snap, directory_).ok());

  const Table distribution = read_csv(directory_ / "distribution.csv");
  ASSERT_EQ(distribution.size(), snap.scores.size() + 1);
  for (std::size_t i = 0; i < snap.scores.size(); ++i) {
    const auto& row = distribution[i + 1];
    ASSERT_EQ(row.size(), 8u) << "row " << i;
    EXPECT_EQ(parse_number<std::size_t>(row[0]), i);
    EXPECT_EQ(parse_number<double>(row[1]), snap.scores[i]) << "row " << i;
    EXPECT_EQ(parse_number<double>(row[2]), snap.logits[i]) << "row " << i;
    EXPECT_EQ(parse_number<double>(row[3]), snap.probabilities[i]) << "row " << i;
    EXPECT_EQ(parse_number<double>(row[4]), snap.gradient[i]) << "row " << i;
    EXPECT_EQ(parse_number<double>(row[5]), snap.log_probabilities[i]) << "row " << i;
    EXPECT_EQ(parse_number<double>(row[6]), snap.log_max_gradient[i]) << "row " << i;
    EXPECT_EQ(parse_number<double>(row[7]), snap.max_gradient[i]) << "row " << i;
  }
  const Table summary = read_csv(directory_ / "row_summary.csv");
  ASSERT_EQ(summary.size(), 9u);
  EXPECT_EQ(summary[6][0], "logsumexp");
  EXPECT_EQ(parse_number<double>(summary[6][1]), snap.logsumexp);
  EXPECT_EQ(summary[7][0], "kl_from_uniform_nats");
  EXPECT_EQ(parse_number<double>(summary[7][1]), snap.kl_from_uniform);

  const Table temperature = read_csv(directory_ / "entropy_temperature.csv");
  ASSERT_EQ(temperature.size(), snap.temperature_grid.size() + 1);
  for (std::size_t k = 0; k < snap.temperature_grid.size(); ++k) {
    EXPECT_EQ(parse_number<double>(temperature[k + 1][0]), snap.temperature_grid[k]) << "k=" << k;
    EXPECT_EQ(parse_number<double>(temperature[k + 1][1]), snap.entropy_vs_temperature[k]) << "k=" << k;
  }

  // 13 d_k points × {scaled, unscaled}, each with at least 20000 trials.
  const Table dk = read_csv(directory_ / "entropy_dk.csv");
  ASSERT_EQ(dk.size(), 27u);
  const std::vector<int> dims = power_of_two_key_dims();
  for (std::size_t r = 0; r < 26; ++r) {
    const auto& row = dk[r + 1];
    ASSERT_EQ(row.size(), 9u) << "row " << r;
    const bool scaled = r < 13;
    const std::size_t p = r % 13;
    const RowStats& stats = scaled ? snap.dk_sweep.scaled[p] : snap.dk_sweep.unscaled[p];
    EXPECT_EQ(parse_number<int>(row[0]), dims[p]) << "row " << r;
    EXPECT_EQ(row[1], scaled ? "scaled" : "unscaled") << "row " << r;
    EXPECT_EQ(parse_number<double>(row[2]), stats.entropy_nats.mean) << "row " << r;
    EXPECT_EQ(parse_number<double>(row[3]), stats.entropy_nats.standard_error()) << "row " << r;
    EXPECT_EQ(parse_number<double>(row[4]), stats.max_weight.mean) << "row " << r;
    EXPECT_EQ(parse_number<double>(row[5]), stats.max_weight.standard_error()) << "row " << r;
    EXPECT_EQ(parse_number<double>(row[6]), stats.jacobian_norm.mean) << "row " << r;
    EXPECT_EQ(parse_number<double>(row[7]), stats.jacobian_norm.standard_error()) << "row " << r;
    EXPECT_EQ(parse_number<std::int64_t>(row[8]), 20000) << "row " << r;
  }

  const std::vector<float> scaled_map = attention_map(snap, true), unscaled_map = attention_map(snap, false);
  for (const auto& [name, map] :
       {std::pair{"attention.csv", snap.params.scaled ? &scaled_map : &unscaled_map},
        std::pair{"attention_scaled.csv", &scaled_map}, std::pair{"attention_unscaled.csv", &unscaled_map}}) {
    const Table attention = read_csv(directory_ / name);
    ASSERT_EQ(attention.size(), static_cast<std::size_t>(params.seq_len) + 1) << name;
    for (int i = 0; i < params.seq_len; ++i) {
      ASSERT_EQ(attention[static_cast<std::size_t>(i) + 1].size(), static_cast<std::size_t>(params.seq_len)) << name;
      for (int j = 0; j < params.seq_len; ++j)
        EXPECT_EQ(parse_number<float>(attention[static_cast<std::size_t>(i) + 1][static_cast<std::size_t>(j)]),
                  (*map)[static_cast<std::size_t>(i * params.seq_len + j)])
            << name << " i=" << i << " j=" << j;
    }
  }
}

// max_gradient is ds_k/dz_i (k = argmax) for the logits z = x/T: checked against central finite
// differences of a double softmax. h = 1e-5 gives truncation error ~h² ≈ 1e-10 and rounding
// ~1e-16/h ≈ 1e-11, so 1e-8 cannot pass by accident and cannot fail from noise.
// attention_output.csv is Σ_j a_ij v_j recomputed here in double from the exported float
// weights and the seeded V: float products summed over L = 8 terms agree to 1e-6.
TEST_F(CsvExport, VjpAndAttentionOutputColumnsMatchIndependentComputations) {
  Params params = small_params();
  params.scores = {0.5, 2.0, -1.0, 1.5, 0.25};
  const Snapshot snap = snapshot_with_trials(params, 4);
  ASSERT_TRUE(export_csv(snap, directory_).ok());
  const Table distribution = read_csv(directory_ / "distribution.csv");
  const std::size_t n = snap.scores.size();
  ASSERT_EQ(distribution.size(), n + 1);
  auto softmax_of_logits = [](std::vector<double> z) {
    const double top = *std::max_element(z.begin(), z.end());
    double sum = 0.0;
    for (double& v : z) sum += (v = std::exp(v - top));
    for (double& v : z) v /= sum;
    return z;
  };
  double column_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double h = 1e-5;
    std::vector<double> up = snap.logits, down = snap.logits;
    up[i] += h;
    down[i] -= h;
    const auto k = static_cast<std::size_t>(snap.argmax);
    const double finite_difference = (softmax_of_logits(up)[k] - softmax_of_logits(down)[k]) / (2 * h);
    const double exported = parse_number<double>(distribution[i + 1][7]);
    EXPECT_NEAR(exported, finite_difference, 1e-8) << "i=" << i;
    column_sum += exported;
  }
  EXPECT_NEAR(column_sum, 0.0, 1e-15);

  Matrix values;
  draw_gaussian(values, params.seed, Stream::values, params.seq_len, params.key_dim);
  const Table output = read_csv(directory_ / "attention_output.csv");
  ASSERT_EQ(output.size(), static_cast<std::size_t>(params.key_dim) + 1);
  const std::vector<float> scaled_map = attention_map(snap, true), unscaled_map = attention_map(snap, false);
  for (int c = 0; c < params.key_dim; ++c) {
    for (const auto& [column, map] : {std::pair{1, &scaled_map}, std::pair{2, &unscaled_map}}) {
      double expected = 0.0;
      for (int j = 0; j < params.seq_len; ++j)
        expected +=
            static_cast<double>((*map)[static_cast<std::size_t>(params.row * params.seq_len + j)]) * values(j, c);
      EXPECT_NEAR(parse_number<double>(output[static_cast<std::size_t>(c) + 1][static_cast<std::size_t>(column)]),
                  expected, 1e-6)
          << "dim " << c << " column " << column;
    }
  }
}

// A snapshot with the UI's small automatic budget is topped up to 20000 trials; because Monte
// Carlo accumulates in fixed blocks, the file equals a 20000-trial evaluate() bit for bit.
TEST_F(CsvExport, TopsUpTheDkSweepToTwentyThousandTrialsReproducibly) {
  const Params params = small_params();
  const Snapshot quick = evaluate(params);
  ASSERT_LT(quick.dk_sweep.trials, 20000);
  ASSERT_TRUE(export_csv(quick, directory_).ok());
  const Snapshot reference = snapshot_with_trials(params, 20000);
  const Table dk = read_csv(directory_ / "entropy_dk.csv");
  ASSERT_EQ(dk.size(), 27u);
  for (std::size_t r = 0; r < 26; ++r) {
    const RowStats& stats = r < 13 ? reference.dk_sweep.scaled[r % 13] : reference.dk_sweep.unscaled[r % 13];
    EXPECT_EQ(parse_number<std::int64_t>(dk[r + 1][8]), 20000) << "row " << r;
    EXPECT_EQ(parse_number<double>(dk[r + 1][2]), stats.entropy_nats.mean) << "row " << r;
    EXPECT_EQ(parse_number<double>(dk[r + 1][7]), stats.jacobian_norm.standard_error()) << "row " << r;
  }
}

// Custom scores with a masked key: the distribution has n rows and −inf survives the trip;
// params.csv quotes the comma-separated scores, and feeding every row back through set_param
// reproduces the Params exactly.
TEST_F(CsvExport, CustomScoresAndParamsRoundTrip) {
  Params params = small_params();
  params.scores = {1.5, -std::numeric_limits<double>::infinity(), 0.1, 3.0, -2.25};
  params.seed = 123456789;
  params.scaled = false;
  const Snapshot snap = snapshot_with_trials(params, 20000);
  ASSERT_TRUE(export_csv(snap, directory_).ok());
  const Table distribution = read_csv(directory_ / "distribution.csv");
  ASSERT_EQ(distribution.size(), 6u);
  EXPECT_EQ(distribution[2][1], "-inf");
  EXPECT_EQ(parse_number<double>(distribution[2][3]), 0.0);

  const Table rows = read_csv(directory_ / "params.csv");
  ASSERT_EQ(rows.size(), param_keys().size() + 1);
  Params restored;
  for (std::size_t i = 1; i < rows.size(); ++i) {
    ASSERT_EQ(rows[i].size(), 2u) << "row " << i;
    EXPECT_EQ(rows[i][0], param_keys()[i - 1].name);
    const Result<void> set = set_param(restored, rows[i][0], rows[i][1]);
    EXPECT_TRUE(set.ok()) << rows[i][0] << "=" << rows[i][1] << ": " << set.error().message;
  }
  EXPECT_EQ(restored, params);
}

// Without the flag nothing is touched — not the existing file, and no other file either.
TEST_F(CsvExport, ExistingFileIsNotOverwrittenWithoutTheFlag) {
  const Snapshot snap = snapshot_with_trials(small_params(), 20000);
  const fs::path existing = directory_ / "entropy_dk.csv";
  std::ofstream(existing) << "precious\n";
  const files::WrittenFiles refused = export_csv(snap, directory_);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find(existing.string()), std::string::npos) << refused.error().message;
  EXPECT_EQ(refused.error().message.find('\n'), std::string::npos) << "one line: " << refused.error().message;
  EXPECT_EQ(refused.error().kind, smlab::Error::Kind::file) << "exit 3";
  EXPECT_EQ(read_text(existing), "precious\n");
  EXPECT_EQ(directory_listing(directory_), std::vector<std::string>{"entropy_dk.csv"});

  CsvOptions options;
  options.overwrite = true;
  const files::WrittenFiles replaced = export_csv(snap, directory_, options);
  ASSERT_TRUE(replaced.ok()) << replaced.error().message;
  EXPECT_EQ(replaced->size(), csv_file_names().size());
  EXPECT_EQ(read_text(existing).substr(0, 4), "d_k,");
}

// A missing directory, a path through a regular file, and (when not root, who may write
// anywhere) a read-only directory: an error naming the path, and nothing written anywhere.
TEST_F(CsvExport, MissingOrUnwritableDirectoryGivesAnErrorAndNoFiles) {
  const Snapshot snap = snapshot_with_trials(small_params(), 20000);
  const fs::path missing = directory_ / "does_not_exist";
  files::WrittenFiles result = export_csv(snap, missing);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find(missing.string()), std::string::npos) << result.error().message;
  EXPECT_FALSE(fs::exists(missing));

  std::ofstream(directory_ / "plain_file") << "x";
  const fs::path through_file = directory_ / "plain_file" / "out";
  result = export_csv(snap, through_file);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find(through_file.string()), std::string::npos) << result.error().message;
  EXPECT_EQ(directory_listing(directory_), std::vector<std::string>{"plain_file"});

  if (::geteuid() != 0) {
    const fs::path read_only = directory_ / "read_only";
    fs::create_directory(read_only);
    fs::permissions(read_only, fs::perms::owner_read | fs::perms::owner_exec);
    result = export_csv(snap, read_only);
    ASSERT_FALSE(result.ok());
    EXPECT_NE(result.error().message.find(read_only.string()), std::string::npos) << result.error().message;
    EXPECT_TRUE(directory_listing(read_only).empty());
    fs::permissions(read_only, fs::perms::owner_all);
  }
}

// A target that is a directory cannot be replaced, even with the flag: refused up front, so no
// file and no temporary file is left behind.
TEST_F(CsvExport, TargetThatIsADirectoryFailsBeforeWritingAnything) {
  const Snapshot snap = snapshot_with_trials(small_params(), 20000);
  fs::create_directory(directory_ / "attention_unscaled.csv");
  CsvOptions options;
  options.overwrite = true;
  const files::WrittenFiles result = export_csv(snap, directory_, options);
  ASSERT_FALSE(result.ok());
  EXPECT_NE(result.error().message.find("attention_unscaled.csv"), std::string::npos) << result.error().message;
  EXPECT_EQ(directory_listing(directory_), std::vector<std::string>{"attention_unscaled.csv"});
}

}  // namespace
}  // namespace smlab::exporting
