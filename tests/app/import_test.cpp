// Import tests: files NumPy writes (every dtype, byte order, memory order and shape) read back and
// checked against NumPy's own softmax; malformed files refused with exit 2 or 3 and one clear line.
#include <gtest/gtest.h>
#include <imgui.h>
#include <imgui_internal.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <sys/stat.h>
#include <unistd.h>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/kernels.hpp"
#include "smlab/import.hpp"
#include "smlab/labs/stability.hpp"
#include "smlab/precision.hpp"
#include "lessons/lessons.hpp"
#include "state/import_files.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"
#include "state/start_state.hpp"
#include "frame/app.hpp"
#include "panels/panels.hpp"
#include "platform/offscreen.hpp"
#include "export/png.hpp"

namespace {

using smlab::cli_test::fresh_test_dir;
using smlab::cli_test::read_all;
using smlab::cli_test::run_program;

// NumPy writes the cases at test time (python3-numpy, Debian's /usr/bin/python3).
std::filesystem::path make_cases(const std::filesystem::path& dir) {
  const std::string command = "/usr/bin/python3 " + std::string(SMLAB_SOURCE_DIR) +
                              "/tests/data/make_import_cases.py " + dir.string() + " >/dev/null";
  EXPECT_EQ(std::system(command.c_str()), 0) << command << " failed: is python3-numpy installed?";
  return dir / "cases.json";
}

void write_bytes(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

// A .npy file with the given header dict text and data bytes (format 1.0, padded to 64 bytes).
std::string npy(const std::string& dict, const std::string& data, int major = 1) {
  std::string header = dict;
  const std::size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + header.size() + 1) % 64 != 0) header += ' ';
  header += '\n';
  std::string out = std::string("\x93NUMPY", 6) + static_cast<char>(major) + '\0';
  const auto length = static_cast<std::uint32_t>(header.size());
  for (std::size_t i = 0; i < (major == 1 ? 2u : 4u); ++i) out += static_cast<char>((length >> (8 * i)) & 0xff);
  return out + header + data;
}

std::string floats(std::initializer_list<float> values) {
  std::string out(values.size() * 4, '\0');
  std::memcpy(out.data(), values.begin(), out.size());
  return out;
}

// Every case: the data through load_import → attach_import → evaluate, against NumPy's softmax.
// Tolerance 2e-5 on weights in [0, 1]: Q and K reach the kernels as float (float64 files round by
// 2^-24 relative), QKᵀ is a float sum of d = 8 products (≤ 8·2^-24·Σ|q_c k_c| ≈ 1e-6 absolute for
// these N(0,1) entries), and softmax_rows_fast's own bound is ~2e-6 relative (kernels.hpp); logit
// errors of ~2e-6 move a weight by at most w·4e-6. The row the distribution shows is computed in
// double from the same floats: 1e-6.
TEST(ImportNumpy, EveryDtypeOrderEndiannessAndShapeMatchesNumpySoftmax) {
  const auto dir = fresh_test_dir("import-cases");
  const nlohmann::json cases = nlohmann::json::parse(read_all(make_cases(dir)));
  ASSERT_EQ(cases.size(), 39u);
  for (const auto& item : cases) {
    SCOPED_TRACE(item["name"].get<std::string>());
    std::vector<std::string> specs;
    for (const auto& file : item["imports"]) specs.push_back((dir / file.get<std::string>()).string());
    const smlab::app::ImportLoad load = smlab::app::load_import(specs, "");
    ASSERT_TRUE(load) << load.error().message;
    smlab::Params params;
    ASSERT_TRUE(smlab::attach_import(params, *load).ok());
    for (const char* key : {"batch", "head", "row", "temperature", "score_scale"})
      ASSERT_TRUE(smlab::set_param(params, key, item[key].dump()).ok());
    params.causal = item["causal"].get<bool>();
    ASSERT_TRUE(smlab::validate(params).ok());
    const smlab::Snapshot snap = smlab::evaluate(params);
    const int length = item["length"].get<int>();
    ASSERT_EQ(snap.attention_size, length);
    const auto& row_reference = item["scaled_map"][params.row];
    ASSERT_EQ(snap.probabilities.size(), static_cast<std::size_t>(length));
    for (int j = 0; j < length; ++j)
      EXPECT_NEAR(snap.probabilities[static_cast<std::size_t>(j)], row_reference[j].get<double>(), 1e-6) << "key " << j;
    std::vector<float> row(static_cast<std::size_t>(length));
    for (const bool scaled : {true, false}) {
      const auto& map = item[scaled ? "scaled_map" : "unscaled_map"];
      for (int i = 0; i < length; ++i) {
        smlab::attention_row(snap, scaled, i, row);
        for (int j = 0; j < length; ++j)
          ASSERT_NEAR(row[static_cast<std::size_t>(j)], map[i][j].get<double>(), 2e-5)
              << (scaled ? "scaled" : "unscaled") << " map, query " << i << ", key " << j;
      }
    }
  }
}

// The long-context path (no stored QKᵀ) gives the same pooled picture as pooling the stored map:
// same score kernel, same softmax, so the block maxima agree to float rounding of the kernels' sums.
TEST(ImportLongContext, TiledPooledMapsEqualPoolingTheStoredMap) {
  smlab::Matrix queries, keys;
  smlab::draw_gaussian(queries, 5, smlab::Stream::queries, 300, 24);
  smlab::draw_gaussian(keys, 5, smlab::Stream::keys, 300, 24);
  smlab::Matrix raw;
  smlab::dot_product_scores_fast(raw, queries, keys);
  for (const bool causal : {false, true}) {
    for (const int factor : {1, 7, 64}) {
      smlab::PooledMaps pooled;
      smlab::pooled_attention_maps(pooled, queries, keys, 0.3, 1.1, causal, factor);
      ASSERT_EQ(pooled.side, (300 + factor - 1) / factor);
      std::vector<float> map = raw.values;
      for (int i = 0; causal && i < 300; ++i)
        for (int j = i + 1; j < 300; ++j)
          map[static_cast<std::size_t>(i) * 300 + static_cast<std::size_t>(j)] = -INFINITY;
      smlab::softmax_rows_fast(map, 300, 300, 0.3);
      float top = 0.0f;
      for (int bi = 0; bi < pooled.side; ++bi)
        for (int bj = 0; bj < pooled.side; ++bj) {
          float expected = 0.0f;
          for (int i = bi * factor; i < std::min(300, (bi + 1) * factor); ++i)
            for (int j = bj * factor; j < std::min(300, (bj + 1) * factor); ++j)
              expected = std::max(expected, map[static_cast<std::size_t>(i) * 300 + static_cast<std::size_t>(j)]);
          top = std::max(top, expected);
          ASSERT_NEAR(pooled.scaled[static_cast<std::size_t>(bi * pooled.side + bj)], expected, 1e-6f)
              << "causal " << causal << " factor " << factor << " cell " << bi << "," << bj;
        }
      EXPECT_GE(pooled.max_weight, top - 1e-6f);
    }
  }
}

// Imported Q and K longer than 4096 keep no L×L matrix; rows come from Q and K on demand and the
// pooled maps exist. (L = 4100, d = 4: small enough for a test, past the stored limit.)
TEST(ImportLongContext, BeyondTheStoredLimitNoQKtIsStored) {
  constexpr int length = 4100, dim = 4;
  smlab::Matrix q, k;
  smlab::draw_gaussian(q, 9, smlab::Stream::queries, length, dim);
  smlab::draw_gaussian(k, 9, smlab::Stream::keys, length, dim);
  std::vector<smlab::RoleArray> arrays;
  arrays.push_back({smlab::ArrayRole::queries, smlab::NdArray{"q", {length, dim}, q.values, "<f4", {}}, "q.npy"});
  arrays.push_back({smlab::ArrayRole::keys, smlab::NdArray{"k", {length, dim}, k.values, "<f4", {}}, "k.npy"});
  const smlab::ImportAssembly assembled = smlab::assemble_import(std::move(arrays), {}, {"q.npy", "k.npy"}, "");
  ASSERT_TRUE(assembled.ok()) << assembled.error().message;
  smlab::Params params;
  ASSERT_TRUE(smlab::attach_import(params, *assembled).ok());
  EXPECT_EQ(params.seq_len, length);
  params.row = 4099;
  const smlab::Snapshot snap = smlab::evaluate(params);
  EXPECT_TRUE(snap.attention_scores->raw.values.empty());
  EXPECT_EQ(snap.pooled.factor, 5);  // ⌈4100 / 1024⌉
  EXPECT_EQ(snap.pooled.side, 820);  // ⌈4100 / 5⌉
  EXPECT_TRUE(smlab::attention_map(snap, true).empty());
  std::vector<float> row(length);
  smlab::attention_row(snap, true, 4099, row);
  double sum = 0.0;
  for (float w : row) sum += w;
  EXPECT_NEAR(sum, 1.0, 1e-5);
  // The distribution's row (double path) and the map's row (float kernel) agree.
  for (int j = 0; j < length; ++j)
    ASSERT_NEAR(row[static_cast<std::size_t>(j)], snap.probabilities[static_cast<std::size_t>(j)], 2e-6);
}

// The first map of a long context is a preview (one query per pooled row, 1/factor of
// the work), exact for the query it shows and never above the complete map's block maxima.
TEST(ImportLongContext, PreviewMapsAreTheFirstQueryOfEachPooledRow) {
  constexpr int length = 4100, dim = 4;
  smlab::Matrix q, k;
  smlab::draw_gaussian(q, 9, smlab::Stream::queries, length, dim);
  smlab::draw_gaussian(k, 9, smlab::Stream::keys, length, dim);
  std::vector<smlab::RoleArray> arrays;
  arrays.push_back({smlab::ArrayRole::queries, smlab::NdArray{"q", {length, dim}, q.values, "<f4", {}}, "q.npy"});
  arrays.push_back({smlab::ArrayRole::keys, smlab::NdArray{"k", {length, dim}, k.values, "<f4", {}}, "k.npy"});
  const smlab::ImportAssembly assembled = smlab::assemble_import(std::move(arrays), {}, {"q.npy", "k.npy"}, "");
  ASSERT_TRUE(assembled.ok()) << assembled.error().message;
  for (const bool causal : {false, true}) {
    smlab::Params params;
    ASSERT_TRUE(smlab::attach_import(params, *assembled).ok());
    params.causal = causal;
    params.temperature = 0.3;  // peaked rows: block maxima differ between queries of a block
    smlab::EvaluateOptions options;
    options.defer_pooled_maps = true;
    smlab::Snapshot snap = *smlab::evaluate(params, options);
    ASSERT_TRUE(smlab::pooled_maps_pending(snap));
    smlab::Snapshot preview = snap;
    ASSERT_TRUE(smlab::preview_pooled_maps(preview));
    ASSERT_TRUE(smlab::complete_pooled_maps(snap));
    EXPECT_TRUE(preview.pooled.preview);
    EXPECT_FALSE(snap.pooled.preview);
    ASSERT_EQ(preview.pooled.factor, 5);
    ASSERT_EQ(preview.pooled.side, snap.pooled.side);
    const int factor = 5, side = snap.pooled.side;
    std::vector<float> row(length);
    int below = 0;
    for (const bool scaled : {true, false}) {
      const auto& shown = scaled ? preview.pooled.scaled : preview.pooled.unscaled;
      const auto& full = scaled ? snap.pooled.scaled : snap.pooled.unscaled;
      for (int p = 0; p < side; p += 37) {
        smlab::attention_row(snap, scaled, p * factor, row);
        for (int cell = 0; cell < side; ++cell) {
          float top = 0.0f;
          for (int j = cell * factor; j < std::min(length, (cell + 1) * factor); ++j)
            top = std::max(top, row[static_cast<std::size_t>(j)]);
          const auto at = static_cast<std::size_t>(p) * static_cast<std::size_t>(side) + static_cast<std::size_t>(cell);
          ASSERT_EQ(shown[at], top) << "pooled row " << p << " cell " << cell << (causal ? " causal" : "");
          ASSERT_LE(shown[at], full[at]);
          below += shown[at] < full[at] ? 1 : 0;
        }
      }
    }
    EXPECT_GT(below, 0) << "the preview shows fewer queries than the complete map";
  }
}

// The stability lab's fp16 maps come from the imported data of the chosen head (the
// first L' queries and keys, or the imported scores), not from the seeded random draws. The
// direct computation is the same core calls on the slice (bit-identical, NaN where NaN).
namespace stability_import {

struct Maps {
  std::vector<double> naive, stable;
};

Maps direct_maps(const smlab::Matrix& raw, int size, double factor, double temperature) {
  Maps maps;
  std::vector<double> scores(static_cast<std::size_t>(size)), weights(scores.size());
  for (int i = 0; i < size; ++i) {
    for (int j = 0; j < size; ++j) scores[static_cast<std::size_t>(j)] = factor * static_cast<double>(raw(i, j));
    smlab::softmax_in_format(weights, scores, smlab::Format::fp16, smlab::SoftmaxVariant::naive, temperature);
    maps.naive.insert(maps.naive.end(), weights.begin(), weights.end());
    smlab::softmax_in_format(weights, scores, smlab::Format::fp16, smlab::SoftmaxVariant::stable, temperature);
    maps.stable.insert(maps.stable.end(), weights.begin(), weights.end());
  }
  return maps;
}

void expect_maps(const smlab::StabilityMap& map, const std::vector<double>& direct) {
  ASSERT_EQ(map.weights.size(), direct.size());
  for (std::size_t cell = 0; cell < direct.size(); ++cell) {
    const double got = map.weights[cell];
    if (std::isnan(direct[cell])) {
      ASSERT_TRUE(std::isnan(got)) << "cell " << cell;
    } else {
      ASSERT_EQ(got, direct[cell]) << "cell " << cell;
    }
  }
}

smlab::Snapshot stability_snapshot(const smlab::Params& params) {
  smlab::EvaluateOptions options;
  options.view = smlab::View::stability;
  const auto snap = smlab::evaluate(params, options);
  EXPECT_TRUE(snap && snap->labs.has(smlab::View::stability));
  return *snap;
}

}  // namespace stability_import

TEST(ImportStability, MapsComeFromTheImportedQueriesAndKeysOfTheChosenHead) {
  using namespace stability_import;
  constexpr int heads = 2, length = 40, dim = 16;
  smlab::Matrix all_q, all_k;  // [H, L, d]: head 1 is rows L … 2L−1
  smlab::draw_gaussian(all_q, 31, smlab::Stream::queries, heads * length, dim);
  smlab::draw_gaussian(all_k, 31, smlab::Stream::keys, heads * length, dim);
  for (float& v : all_q.values) v *= 3.0f;  // logits of std ~9 unscaled: fp16's naive exp overflows
  std::vector<smlab::RoleArray> arrays;
  arrays.push_back(
      {smlab::ArrayRole::queries, smlab::NdArray{"q", {heads, length, dim}, all_q.values, "<f4", {}}, "q.npy"});
  arrays.push_back(
      {smlab::ArrayRole::keys, smlab::NdArray{"k", {heads, length, dim}, all_k.values, "<f4", {}}, "k.npy"});
  const smlab::ImportAssembly assembled = smlab::assemble_import(std::move(arrays), {}, {"q.npy", "k.npy"}, "");
  ASSERT_TRUE(assembled.ok()) << assembled.error().message;
  for (const bool scaled : {true, false}) {
    smlab::Params params;
    ASSERT_TRUE(smlab::attach_import(params, *assembled).ok());
    params.head = 1;
    params.row = 7;
    params.scaled = scaled;
    params.temperature = 0.8;
    const smlab::Snapshot snap = stability_snapshot(params);
    const smlab::StabilityLab& lab = *snap.lab<smlab::StabilityLab>();
    ASSERT_EQ(lab.map_size, length);
    const auto rows = [&](const smlab::Matrix& all) {
      const auto first = all.values.begin() + static_cast<std::ptrdiff_t>(length) * dim;  // head 1
      return smlab::Matrix{length, dim, std::vector<float>(first, first + static_cast<std::ptrdiff_t>(length) * dim)};
    };
    smlab::Matrix raw;
    smlab::dot_product_scores(raw, rows(all_q), rows(all_k));
    const double factor = scaled ? 1.0 / std::sqrt(static_cast<double>(dim)) : 1.0;
    const Maps direct = direct_maps(raw, length, factor, params.temperature);
    expect_maps(lab.naive_fp16, direct.naive);
    expect_maps(lab.stable_fp16, direct.stable);
    if (!scaled) {
      EXPECT_GT(lab.naive_fp16.nan_cells, 0);  // the point of the lab, on the user's data
    }
    // The row is the imported row too (the dashboard's).
    ASSERT_EQ(lab.scores.size(), snap.scores.size());
    for (std::size_t j = 0; j < lab.scores.size(); ++j) ASSERT_EQ(lab.scores[j], snap.scores[j]);
  }
}

TEST(ImportStability, MapsComeFromImportedScores) {
  using namespace stability_import;
  constexpr int length = 30;
  smlab::Matrix scores;
  smlab::draw_gaussian(scores, 5, smlab::Stream::queries, length, length);
  for (float& v : scores.values) v *= 6.0f;
  std::vector<smlab::RoleArray> arrays;
  arrays.push_back(
      {smlab::ArrayRole::scores, smlab::NdArray{"scores", {length, length}, scores.values, "<f4", {}}, "s.npy"});
  const smlab::ImportAssembly assembled = smlab::assemble_import(std::move(arrays), {}, {"s.npy"}, "");
  ASSERT_TRUE(assembled.ok()) << assembled.error().message;
  smlab::Params params;
  ASSERT_TRUE(smlab::attach_import(params, *assembled).ok());
  params.score_scale = 2.0;
  const smlab::Snapshot snap = stability_snapshot(params);
  const smlab::StabilityLab& lab = *snap.lab<smlab::StabilityLab>();
  ASSERT_EQ(lab.map_size, length);
  // Scores carry no d_k: no ÷√d_k whatever the switch says.
  const Maps direct = direct_maps(scores, length, params.score_scale, params.temperature);
  expect_maps(lab.naive_fp16, direct.naive);
  expect_maps(lab.stable_fp16, direct.stable);
  EXPECT_GT(lab.naive_fp16.nan_cells, 0);
}

struct BadFile {
  const char* name;
  std::string bytes;
  const char* expected;  // a phrase the one-line error must hold
};

// Malformed files: the CLI exits 2 with one line naming the file and what is allowed; never a crash.
TEST(ImportCli, MalformedFilesAreRefusedWithOneLine) {
  const auto dir = fresh_test_dir("import-bad");
  const std::string data = floats({1, 2, 3, 4});
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  const std::vector<BadFile> files = {
      {"truncated.npy", npy(good, data).substr(0, 140), "truncated"},
      {"huge.npy", npy("{'descr': '<f8', 'fortran_order': False, 'shape': (100000, 100000), }", data), "2^28 values"},
      {"overflow.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (268435456, 1099511627776), }", data),
       "2^28 values"},
      {"baddict.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2 }", data), "bad header"},
      {"dtype.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 2), }", data), "<f2 <f4 <f8"},
      {"object.npy", npy("{'descr': '|O', 'fortran_order': False, 'shape': (2, 2), }", data), "not supported"},
      {"trailing.npy", npy(good, data + "junk"), "after the declared data"},
      {"version.npy", npy(good, data, 9), "format version"},
      {"headerlen.npy", std::string("\x93NUMPY\x02\x00\xff\xff\xff\x7f", 12) + "{", "header of"},
      {"notnpy.npy", "hello, world", "magic"},
      {"badzip.npz", "PK\x03\x04 not really a zip", "zip"},
      {"nan.npy", npy(good, floats({1, NAN, 3, 4})), "not finite"},
  };
  for (const BadFile& file : files) {
    SCOPED_TRACE(file.name);
    write_bytes(dir / file.name, file.bytes);
    write_bytes(dir / "k.npy", npy(good, data));
    const auto result = run_program(SMLAB_BINARY,
                                    {"--import", (dir / file.name).string() + ":Q", "--import",
                                     (dir / "k.npy").string(), "--export-csv", (dir / "out").string()},
                                    dir);
    EXPECT_EQ(result.exit_code, 2) << result.err;
    EXPECT_NE(result.err.find(file.name), std::string::npos) << result.err;
    EXPECT_NE(result.err.find(file.expected), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "distribution.csv"));
  }
}

TEST(ImportCli, MismatchesMissingFilesAndBadSpecs) {
  const auto dir = fresh_test_dir("import-mismatch");
  write_bytes(dir / "q.npy", npy("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }", floats({1, 2, 3, 4})));
  write_bytes(dir / "k3.npy",
              npy("{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }", floats({1, 2, 3, 4, 5, 6})));
  write_bytes(dir / "tokens.txt", "one\ntwo\nthree\n");
  struct Case {
    std::vector<std::string> args;
    int exit_code;
    const char* expected;
  };
  const std::string q = (dir / "q.npy").string(), k3 = (dir / "k3.npy").string();
  const std::vector<Case> cases = {
      {{"--import", q, "--import", k3 + ":K"}, 2, "does not match"},
      {{"--import", q}, 2, "Q and K go together"},
      {{"--import", q, "--import", (dir / "gone.npy").string() + ":K"}, 3, "cannot read"},
      {{"--import", q + ":nonsense"}, 2, "is not a role"},
      {{"--import", (dir / "tokens.txt").string()}, 2, "cannot tell the role"},
      {{"--import", q, "--import", q + ":K", "--tokens", (dir / "tokens.txt").string()}, 2, "3 tokens for L = 2"},
      {{"--import", q, "--import", q + ":K", "--set", "head=1"}, 2, "head"},
      {{"--import", q, "--import", q + ":K", "--set", "seq_len=16"}, 2, "fixed by the imported data"},
      {{"--tokens", (dir / "tokens.txt").string()}, 2, "--tokens goes with --import"},
      {{"--import", std::string(SMLAB_SOURCE_DIR) + "/assets/examples/qkv.npz:q,nothere=K"}, 2, "no array 'nothere'"},
  };
  for (const Case& c : cases) {
    std::vector<std::string> args = c.args;
    args.insert(args.end(), {"--export-csv", (dir / "out").string()});
    const auto result = run_program(SMLAB_BINARY, args, dir);
    EXPECT_EQ(result.exit_code, c.exit_code) << args[1] << ": " << result.err;
    EXPECT_NE(result.err.find(c.expected), std::string::npos) << result.err;
    EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  }
}

// The shipped example: Q, K, V of an 11-token sentence; head 1 looks one token back.
TEST(ImportCli, ShippedExampleExportsItsMapsWithTokens) {
  const auto dir = fresh_test_dir("import-example");
  const std::string examples = std::string(SMLAB_SOURCE_DIR) + "/assets/examples/";
  const auto result = run_program(SMLAB_BINARY,
                                  {"--import", examples + "qkv.npz", "--tokens", examples + "tokens.txt", "--set",
                                   "head=1", "--set", "row=7", "--export-csv", dir.string()},
                                  dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string distribution = read_all(dir / "distribution.csv");
  // Row 7 ("it") of the previous-token head puts its largest weight on key 6 ("because").
  std::istringstream lines(distribution);
  std::string line;
  std::getline(lines, line);
  int best = -1;
  double best_weight = -1.0;
  for (int j = 0; std::getline(lines, line); ++j) {
    std::vector<std::string> cells;
    std::stringstream split(line);
    for (std::string cell; std::getline(split, cell, ',');) cells.push_back(cell);
    const double weight = std::stod(cells.at(3));
    if (weight > best_weight) best_weight = weight, best = j;
  }
  EXPECT_EQ(best, 6);
  EXPECT_GT(best_weight, 0.5);
  EXPECT_EQ(read_all(dir / "attention.csv").substr(0, 6), "key_0,");
}

}  // namespace

namespace {

// A session remembers the imported files and tokens, and comes back with the data, its head and row.
TEST(ImportSession, RemembersImportedFilesAndSaysWhenOneIsGone) {
  const auto dir = fresh_test_dir("import-session");
  const std::string examples = std::string(SMLAB_SOURCE_DIR) + "/assets/examples/";
  const nlohmann::json good = {{"version", 1},
                               {"params", {{"head", "1"}, {"row", "7"}, {"seq_len", "11"}, {"d_k", "16"}}},
                               {"import", {{"files", {examples + "qkv.npz"}}, {"tokens", examples + "tokens.txt"}}}};
  write_bytes(dir / "good.json", good.dump());
  const smlab::Result<smlab::app::Session> loaded = smlab::app::load_session(dir / "good.json");
  ASSERT_TRUE(loaded) << loaded.error().message;
  const smlab::Params& params = loaded->params;
  ASSERT_NE(params.imported, nullptr);
  EXPECT_EQ(params.head, 1);
  EXPECT_EQ(params.row, 7);
  EXPECT_EQ(params.imported->tokens.at(7), "it");
  EXPECT_TRUE(loaded->import_warning.empty());
  const std::string saved = smlab::app::serialize_session(*loaded);
  EXPECT_NE(saved.find("qkv.npz"), std::string::npos) << saved;
  EXPECT_NE(saved.find("tokens.txt"), std::string::npos) << saved;

  // The same session after the file moved away: it loads, on random data, and says why in one line.
  nlohmann::json gone = good;
  gone["import"]["files"] = {(dir / "moved-away.npz").string()};
  write_bytes(dir / "gone.json", gone.dump());
  const smlab::Result<smlab::app::Session> fallback = smlab::app::load_session(dir / "gone.json");
  ASSERT_TRUE(fallback) << fallback.error().message;
  EXPECT_EQ(fallback->params.imported, nullptr);
  EXPECT_NE(fallback->import_warning.find("moved-away.npz"), std::string::npos);
  EXPECT_EQ(fallback->import_warning.find('\n'), std::string::npos);
  EXPECT_EQ(fallback->imports.size(), 1u);  // still remembered: saving again loses nothing
  // Only the window falls back to random data (and says so in its status line, from
  // import_warning). A headless run exits with the reason, as --import would (it
  // exported random data with exit 0).
  const auto result =
      run_program(SMLAB_BINARY, {"--load", (dir / "gone.json").string(), "--export-csv", (dir / "out").string()}, dir);
  EXPECT_EQ(result.exit_code, 3) << result.err;
  EXPECT_NE(result.err.find("moved-away.npz"), std::string::npos) << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << result.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

// A start that names the files the shown data came from attaches that data again without reading
// them (a student's page applies its class's state at each of the teacher's changes); other names,
// or other selections, are read anew.
TEST(ImportStart, DataLoadedFromTheSameFilesIsAttachedAgainWithoutReading) {
  const auto dir = fresh_test_dir("import-start-loaded");
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  write_bytes(dir / "q.npy", npy(dict, floats({1, 2, 3, 4, 5, 6})));
  write_bytes(dir / "k.npy", npy(dict, floats({6, 5, 4, 3, 2, 1})));
  write_bytes(dir / "tokens.txt", "a\nb\nc\n");
  const std::vector<std::string> specs = {(dir / "q.npy").string(), (dir / "k.npy").string()};
  const smlab::app::ImportLoad first = smlab::app::load_import(specs, (dir / "tokens.txt").string());
  ASSERT_TRUE(first) << first.error().message;
  EXPECT_TRUE(smlab::app::loaded_from(**first, specs, (dir / "tokens.txt").string()));
  EXPECT_FALSE(smlab::app::loaded_from(**first, specs, ""));
  EXPECT_FALSE(smlab::app::loaded_from(**first, std::vector<std::string>{specs[0] + ":Q", specs[1] + ":K"},
                                       (dir / "tokens.txt").string()));
  EXPECT_FALSE(
      smlab::app::loaded_from(**first, std::vector<std::string>{specs[1], specs[0]}, (dir / "tokens.txt").string()));

  // The files gone: the same names still attach the data shown (nothing is read) ...
  std::filesystem::remove(dir / "q.npy");
  smlab::app::StartRequest request;
  request.import_specs = specs;
  request.tokens_path = (dir / "tokens.txt").string();
  request.loaded = *first;
  const smlab::app::PresetList presets = std::vector<smlab::app::Preset>{};
  const smlab::app::LessonList lessons;
  smlab::app::StartState state;
  ASSERT_TRUE(smlab::app::resolve_start(request, presets, lessons, state).ok());
  EXPECT_EQ(state.params.imported, *first);
  EXPECT_EQ(state.params.seq_len, 3);
  // A lesson step's custom scores give way to the data's rows, as the window's import does: the
  // address a teacher's window writes (lesson=…&import=…, no scores) reads back to its picture.
  const smlab::app::LessonList shipped = smlab::app::load_lessons(smlab::app::find_assets_dir() / "lessons");
  smlab::app::StartRequest with_lesson = request;
  with_lesson.lesson_spec = "homework:1";
  smlab::app::StartState stepped;
  ASSERT_TRUE(smlab::app::resolve_start(with_lesson, presets, shipped, stepped).ok());
  EXPECT_TRUE(stepped.params.scores.empty()) << stepped.params.scores.size() << " custom scores kept";
  EXPECT_EQ(stepped.params.imported, *first);
  with_lesson.import_specs.clear();
  smlab::app::StartState without;
  ASSERT_TRUE(smlab::app::resolve_start(with_lesson, presets, shipped, without).ok());
  EXPECT_FALSE(without.params.scores.empty()) << "homework:1 sets scores: the check above means something";
  // ... and other tokens are read, and refused here since q.npy is gone.
  request.tokens_path.clear();
  smlab::app::StartState other;
  const smlab::Result<void> read = smlab::app::resolve_start(request, presets, lessons, other);
  ASSERT_FALSE(read.ok());
  EXPECT_NE(read.error().message.find("q.npy"), std::string::npos) << read.error().message;
}
}  // namespace

namespace {

// The window's import (File → Import, dropped files): the data arrives in the shown Params, and the
// sliders that mean something move its picture (temperature, head); a bad file changes nothing.
TEST(ImportApp, FileImportShowsTheDataAndSlidersMoveIt) {
  ::unsetenv("DISPLAY");
  smlab::platform::OffscreenOptions surface_options;
  surface_options.width = 1600;
  surface_options.height = 900;
  auto created = smlab::platform::Offscreen::create(surface_options);
  ASSERT_TRUE(created) << created.error().message;
  smlab::app::AppOptions options;
  options.refine_trials = smlab::app::headless_refine_trials(16);
  smlab::app::App app(**created, options);
  const std::string examples = std::string(SMLAB_SOURCE_DIR) + "/assets/examples/";
  auto render = [&] {
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();
    return (*created)->capture();
  };
  const smlab::Params before = app.ui().params;
  const smlab::Result<void> refused = app.import_files({examples + "no-such-file.npz"}, "");
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.error().message.find("no-such-file.npz"), std::string::npos);
  EXPECT_EQ(app.ui().params, before);

  ASSERT_TRUE(app.import_files({examples + "qkv.npz"}, examples + "tokens.txt").ok());
  ASSERT_NE(app.ui().params.imported, nullptr);
  EXPECT_EQ(app.ui().params.seq_len, 11);
  EXPECT_EQ(app.ui().params.key_dim, 16);
  const smlab::Image first = render();
  // The fraction of the scaled attention map's panel (as the frame placed it) that differs.
  auto changed = [&](const smlab::Image& a, const smlab::Image& b) {
    const smlab::app::PlacedPlot* map = nullptr;
    for (const smlab::app::PlacedPlot& placed : app.ui().placed_plots)
      if (placed.name == "dashboard/attention_scaled") map = &placed;
    if (map == nullptr) {
      ADD_FAILURE() << "dashboard/attention_scaled not placed";
      return 0.0;
    }
    // Its part inside the window: a grid that scrolls may place it partly below the fold.
    int differing = 0, total = 0;
    for (int y = static_cast<int>(map->min.y); y < std::min(static_cast<int>(map->max.y), a.height); ++y)
      for (int x = static_cast<int>(map->min.x); x < std::min(static_cast<int>(map->max.x), a.width); ++x, ++total)
        differing += !(a.pixel(x, y) == b.pixel(x, y));
    return static_cast<double>(differing) / std::max(total, 1);
  };
  smlab::Params colder = app.ui().params;
  ASSERT_TRUE(smlab::set_param(colder, "temperature", "0.2").ok());
  ASSERT_TRUE(smlab::app::apply_params(app.ui(), colder));
  const smlab::Image cold = render();
  EXPECT_GT(changed(first, cold), 0.02) << "the imported maps did not change with T";
  smlab::Params other_head = app.ui().params;
  ASSERT_TRUE(smlab::set_param(other_head, "head", "1").ok());
  ASSERT_TRUE(smlab::app::apply_params(app.ui(), other_head));
  const smlab::Image head_one = render();
  EXPECT_GT(changed(cold, head_one), 0.02) << "the maps did not change with the head";
  // Latin token labels need no CJK font (the web page would fetch one for them).
  EXPECT_FALSE(app.extra_glyphs_need_cjk());
  // Token labels alone relabel the data already imported.
  ASSERT_TRUE(app.import_files({}, examples + "tokens-zh.json").ok());
  EXPECT_EQ(app.ui().params.imported->tokens.at(1), "猫");
  app.frame();  // the atlas's text follows the labels between frames
  EXPECT_TRUE(app.extra_glyphs_need_cjk()) << "Chinese token labels do not ask for the Chinese font";
  // File → Import opens its popup over the window (three path fields and two buttons).
  const smlab::Image without_popup = render();
  // The English atlas gained the tokens' CJK glyphs (猫 U+732B, 垫 U+57AB), so they do not show as '?'.
  ASSERT_NE(app.ui_font(), nullptr);
  EXPECT_NE(app.ui_font()->FindGlyphNoFallback(static_cast<ImWchar>(0x732B)), nullptr);
  EXPECT_NE(app.ui_font()->FindGlyphNoFallback(static_cast<ImWchar>(0x57AB)), nullptr);
  app.ui().interaction.commands.push(smlab::app::Command::import_files);
  const smlab::Image with_popup = render();
  int differing = 0;
  for (int y = 350; y < 550; ++y)
    for (int x = 500; x < 1100; ++x) differing += !(without_popup.pixel(x, y) == with_popup.pixel(x, y));
  EXPECT_GT(differing, 20000) << "File -> Import drew no popup";
  if (const char* keep = std::getenv("SMLAB_KEEP_IMPORT_PNG")) {  // to look at it
    EXPECT_TRUE(smlab::exporting::write_png(keep, with_popup, true).ok());
  }
}

// The window's refusals say what to change in the window (add the role to the path), not on the
// command line (--import), in the window's language; the command line keeps its own words. A
// status line that says what was imported goes once the data is no longer shown.
TEST(ImportApp, RefusalsSayWhatToChangeInTheWindowAndTheImportLineGoesWithTheData) {
  ::unsetenv("DISPLAY");
  const auto dir = fresh_test_dir("import-window-words");
  const std::string data = floats({1, 2, 3, 4});
  const std::string two_by_two = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  write_bytes(dir / "mystery.npy", npy(two_by_two, data));
  write_bytes(dir / "v.npy", npy(two_by_two, data));
  const std::string mystery = (dir / "mystery.npy").string();

  const smlab::app::ImportLoad command_line = smlab::app::load_import(std::vector<std::string>{mystery}, "");
  ASSERT_FALSE(command_line.ok());
  EXPECT_NE(command_line.error().message.find("e.g. --import " + mystery + ":Q"), std::string::npos)
      << command_line.error().message;

  smlab::platform::OffscreenOptions surface_options;
  surface_options.width = 1280;
  surface_options.height = 720;
  auto created = smlab::platform::Offscreen::create(surface_options);
  ASSERT_TRUE(created) << created.error().message;
  smlab::app::AppOptions options;
  options.refine_trials = smlab::app::headless_refine_trials(16);
  smlab::app::App app(**created, options);
  const auto refusal = [&](std::vector<std::string> specs) {
    const smlab::Result<void> imported = app.import_files(specs, "");
    EXPECT_FALSE(imported.ok());
    return imported.ok() ? std::string() : imported.error().message;
  };
  for (const std::string& line :
       {refusal({mystery}), refusal({mystery + ":nonsense"}), refusal({(dir / "v.npy").string()}), refusal({})}) {
    EXPECT_EQ(line.find("--import"), std::string::npos) << "command-line words in the window: " << line;
    EXPECT_FALSE(line.empty());
  }
  EXPECT_NE(refusal({mystery}).find("add it to the path, e.g. " + mystery + ":Q"), std::string::npos);
  EXPECT_NE(refusal({(dir / "v.npy").string()}).find("V alone"), std::string::npos);

  app.ui().language = smlab::i18n::Language::Chinese;
  app.frame();  // the language applies between frames
  ASSERT_EQ(app.language(), smlab::i18n::Language::Chinese) << app.language_warning();
  const std::string chinese = refusal({mystery});
  EXPECT_NE(chinese.find("请在路径后加上角色，例如 " + mystery + ":Q"), std::string::npos) << chinese;
  app.ui().language = smlab::i18n::Language::English;
  app.frame();

  const std::string examples = std::string(SMLAB_SOURCE_DIR) + "/assets/examples/";
  ASSERT_TRUE(app.import_files({examples + "qkv.npz"}, "").ok());
  app.frame();
  EXPECT_EQ(app.ui().status.rfind("Imported", 0), 0u) << app.ui().status;
  smlab::Params random = app.ui().params;
  ASSERT_TRUE(smlab::attach_import(random, nullptr).ok());  // what Back to random data does
  ASSERT_TRUE(smlab::app::apply_params(app.ui(), random));
  app.frame();
  EXPECT_EQ(app.ui().status, "") << "the status line still reports the import after Back to random data";
}

// The window `window_id` ("###id", its title in any language) drawn in the last frame, or null.
ImGuiWindow* shown_window(const char* window_id) {
  ImGuiWindow* window = ImGui::FindWindowByName(window_id);
  return window != nullptr && window->Active ? window : nullptr;
}

// Clicks the item `item_id` ("###id": its label in any language) of the window `window_id`, found
// by moving the mouse down the window's left side, just inside where its items start, a few pixels
// a frame until Dear ImGui hovers it (no
// coordinates typed in, so a font or a language that moves the item does not break the test).
bool click_item(smlab::app::App& app, smlab::platform::Offscreen& surface, const char* window_id, const char* item_id) {
  ImGui::SetCurrentContext(surface.imgui_context());
  ImGuiWindow* window = shown_window(window_id);
  if (window == nullptr) return false;
  const ImGuiID item = window->GetID(item_id);  // a label's "###id" part alone gives its ID
  const ImRect box = window->Rect();
  ImGuiIO& io = ImGui::GetIO();
  for (float y = box.Min.y + 2.0f; y < box.Max.y; y += 3.0f) {
    io.MousePos = ImVec2(box.Min.x + ImGui::GetStyle().WindowPadding.x + 6.0f, y);
    app.frame();
    ImGui::SetCurrentContext(surface.imgui_context());
    if (ImGui::GetCurrentContext()->HoveredId != item) continue;
    io.MouseDown[0] = true;
    app.frame();
    ImGui::SetCurrentContext(surface.imgui_context());
    io.MouseDown[0] = false;
    app.frame();
    ImGui::SetCurrentContext(surface.imgui_context());
    io.MousePos = ImVec2(-1.0f, -1.0f);
    return true;
  }
  return false;
}

// Frames until the window's import is in (it reads on a thread of its own); false after 10 s.
bool frames_until_imported(smlab::app::App& app) {
  for (int frame = 0; frame < 1000; ++frame) {
    app.frame();
    if (!app.importing() && app.ui().params.imported != nullptr) return true;
    ::usleep(10000);
  }
  return false;
}

// A file whose name says no role (layer3_head0.npy) dropped onto the window, or typed in File →
// Import, is not refused: a role chooser asks what it holds, in the window's language, and the
// chosen role imports FILE:ROLE with the checks of --import FILE:ROLE; Cancel imports nothing.
TEST(ImportApp, AFileWhoseNameSaysNoRoleIsAskedAboutDroppedOrTyped) {
  ::unsetenv("DISPLAY");
  const auto dir = fresh_test_dir("import-role-chooser");
  const std::string four_by_four = "{'descr': '<f4', 'fortran_order': False, 'shape': (4, 4), }";
  write_bytes(dir / "layer3_head0.npy", npy(four_by_four, floats({0, 1, 2, 3, 1, 0, 2, 1, 3, 2, 1, 0, 0, 0, 4, 1})));
  const std::string mystery = (dir / "layer3_head0.npy").string();
  ASSERT_EQ(smlab::app::roles_needed(std::vector<std::string>{mystery, mystery + ":K", (dir / "q.npy").string()}),
            (std::vector<bool>{true, false, false}));

  smlab::platform::OffscreenOptions surface_options;
  surface_options.width = 1280;
  surface_options.height = 720;
  auto created = smlab::platform::Offscreen::create(surface_options);
  ASSERT_TRUE(created) << created.error().message;
  smlab::platform::Offscreen& surface = **created;
  smlab::app::AppOptions options;
  options.refine_trials = smlab::app::headless_refine_trials(16);
  smlab::app::App app(surface, options);
  app.wait_for_snapshot();
  app.frame();
  const smlab::Params before = app.ui().params;

  // Dropped, in Chinese: asked in Chinese; Cancel imports nothing and says no refusal.
  app.ui().language = smlab::i18n::Language::Chinese;
  app.frame();
  ASSERT_EQ(app.language(), smlab::i18n::Language::Chinese) << app.language_warning();
  surface.drop({mystery});
  for (int frame = 0; frame < 3; ++frame) app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
  ImGuiWindow* chooser = shown_window("###import-role");
  ASSERT_NE(chooser, nullptr) << "no role chooser for a dropped file whose name says no role";
  if (const char* keep = std::getenv("SMLAB_KEEP_ROLE_PNG")) {  // to look at it
    EXPECT_TRUE(smlab::exporting::write_png(keep, surface.capture(), true).ok());
  }
  // Its title in the window's language (Dear ImGui keeps the title a window was first made with).
  EXPECT_NE(std::string(chooser->Name).find("文件的角色"), std::string::npos) << chooser->Name;
  EXPECT_EQ(app.ui().params.imported, nullptr);
  ASSERT_TRUE(click_item(app, surface, "###import-role", "###import-role-cancel"));
  for (int frame = 0; frame < 3; ++frame) app.frame();
  EXPECT_EQ(shown_window("###import-role"), nullptr) << "Cancel left the chooser open";
  EXPECT_EQ(app.ui().params, before) << "Cancel imported something";
  EXPECT_FALSE(app.ui().status_is_error) << app.ui().status;

  // Dropped, in English: "scores" imports FILE:scores.
  app.ui().language = smlab::i18n::Language::English;
  app.frame();
  surface.drop({mystery});
  for (int frame = 0; frame < 3; ++frame) app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
  chooser = shown_window("###import-role");
  ASSERT_NE(chooser, nullptr);
  ASSERT_TRUE(click_item(app, surface, "###import-role", "###scores"));
  ASSERT_TRUE(frames_until_imported(app)) << app.ui().status;
  ASSERT_EQ(app.ui().params.imported->sources.size(), 1u);
  EXPECT_TRUE(app.ui().params.imported->sources[0].ends_with("layer3_head0.npy:scores"))
      << app.ui().params.imported->sources[0];
  EXPECT_EQ(app.ui().params.seq_len, 4);
  EXPECT_EQ(shown_window("###import-role"), nullptr);

  // The same role through the same checks: K alone is refused as --import FILE:K is.
  ASSERT_TRUE(smlab::attach_import(app.ui().params, nullptr).ok());
  app.frame();
  surface.drop({mystery});
  for (int frame = 0; frame < 3; ++frame) app.frame();
  ASSERT_TRUE(click_item(app, surface, "###import-role", "###K"));
  for (int frame = 0; frame < 200 && app.importing(); ++frame) {
    app.frame();
    ::usleep(10000);
  }
  app.frame();
  EXPECT_EQ(app.ui().params.imported, nullptr);
  smlab::app::ImportOptions typed;
  typed.asked_by = smlab::app::ImportAskedBy::window;
  const smlab::app::ImportLoad as_typed = smlab::app::load_import(std::vector<std::string>{mystery + ":K"}, "", typed);
  ASSERT_FALSE(as_typed.ok());
  EXPECT_TRUE(app.ui().status_is_error) << app.ui().status;
  EXPECT_EQ(app.ui().status, as_typed.error().message);

  // Typed in File → Import: the chooser stacks over the dialog, whose field then shows the role.
  app.ui().interaction.commands.push(smlab::app::Command::import_files);
  for (int frame = 0; frame < 3; ++frame) app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
  ImGui::GetIO().AddInputCharactersUTF8(mystery.c_str());
  for (int frame = 0; frame < 2; ++frame) app.frame();
  ASSERT_TRUE(click_item(app, surface, "###import-popup", "###import-open"));
  for (int frame = 0; frame < 2; ++frame) app.frame();
  ImGui::SetCurrentContext(surface.imgui_context());
  ASSERT_NE(shown_window("###import-role"), nullptr) << "no role chooser over File -> Import";
  ASSERT_NE(shown_window("###import-popup"), nullptr) << "the chooser replaced the dialog";
  ASSERT_TRUE(click_item(app, surface, "###import-role", "###scores"));
  ASSERT_TRUE(frames_until_imported(app)) << app.ui().status;
  EXPECT_TRUE(app.ui().params.imported->sources[0].ends_with("layer3_head0.npy:scores"));
  for (int frame = 0; frame < 3; ++frame) app.frame();
  EXPECT_EQ(shown_window("###import-popup"), nullptr) << "the dialog stayed open after its import";
}

}  // namespace

namespace {

// Past L = 4096 the attention CSVs hold the pooled block maxima (a 4100² map would be 17 M cells):
// one column per key block, named by the keys it covers; the distribution keeps every key.
TEST(ImportCli, LongContextExportsThePooledMap) {
  const auto dir = fresh_test_dir("import-long");
  constexpr int length = 4100, dim = 4;
  for (const auto& [name, stream] :
       {std::pair{"q.npy", smlab::Stream::queries}, std::pair{"k.npy", smlab::Stream::keys}}) {
    smlab::Matrix m;
    smlab::draw_gaussian(m, 3, stream, length, dim);
    std::string data(m.values.size() * 4, '\0');
    std::memcpy(data.data(), m.values.data(), data.size());
    write_bytes(dir / name, npy("{'descr': '<f4', 'fortran_order': False, 'shape': (4100, 4), }", data));
  }
  const auto result = run_program(SMLAB_BINARY,
                                  {"--import", (dir / "q.npy").string(), "--import", (dir / "k.npy").string(),
                                   "--export-csv", (dir / "out").string()},
                                  dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string map = read_all(dir / "out" / "attention.csv");
  EXPECT_EQ(map.substr(0, 19), "keys_0-4,keys_5-9,k");
  EXPECT_NE(map.find(",keys_4095-4099\n"), std::string::npos);
  EXPECT_EQ(std::count(map.begin(), map.end(), '\n'), 821);  // header + ⌈4100 / 5⌉ rows
  const std::string distribution = read_all(dir / "out" / "distribution.csv");
  EXPECT_EQ(std::count(distribution.begin(), distribution.end(), '\n'), length + 1);
}

// A token line longer than 1024 bytes is named by its own line number (it always said line 1), and
// bad token content is a usage error (exit 2).
TEST(ImportTokens, ATooLongLineIsNamedByItsNumber) {
  const std::string text = "The\ncat\nsat\n" + std::string(1025, 'x') + "\non\n";
  const smlab::TokenParse parsed = smlab::parse_tokens(text, "tokens.txt");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message, "tokens.txt: line 4 is longer than 1024 bytes");
  EXPECT_EQ(smlab::exit_code(parsed.error().kind), 2);
  const smlab::TokenParse fine = smlab::parse_tokens("The\ncat\n", "tokens.txt");
  ASSERT_TRUE(fine.ok()) << fine.error().message;
  EXPECT_EQ(*fine, (std::vector<std::string>{"The", "cat"}));
}

}  // namespace

// ─── Memory bounds, zip bombs, CSV and token quirks ─────────────────────────────────────────

namespace {

using smlab::cli_test::Outcome;

// One line on stderr, the exit code, and the phrase; nothing exported.
void expect_refused(const Outcome& result, int exit_code, const std::string& phrase, const std::string& what) {
  EXPECT_EQ(result.exit_code, exit_code) << what << ": " << result.err;
  EXPECT_NE(result.err.find(phrase), std::string::npos) << what << ": " << result.err;
  EXPECT_EQ(std::count(result.err.begin(), result.err.end(), '\n'), 1) << what << ": " << result.err;
}

// A valid .npy whose data is a hole (no disk space): float32 of `shape`.
void sparse_npy(const std::filesystem::path& path, const std::string& shape, std::uintmax_t values,
                const char* dtype = "<f4") {
  write_bytes(path,
              npy(std::string("{'descr': '") + dtype + "', 'fortran_order': False, 'shape': " + shape + ", }", ""));
  std::filesystem::resize_file(path, std::filesystem::file_size(path) + values * (dtype[2] - '0'));
}

// `ulimit -v` bounds a run's address space; AddressSanitizer's shadow memory reserves terabytes of
// it, so under the sanitizer build these limits stop the sanitizer itself, not the program: the
// plain build runs the memory tests (the issue: "not in the sanitizer pass").
#if defined(SMLAB_SANITIZED_BUILD)
constexpr bool address_space_limits_apply = false;
#else
constexpr bool address_space_limits_apply = true;
#endif

// The crafted archives of tests/data/make_hostile_imports.py, each refused at once, in one line, and
// without the memory its directory or header claims: run under `ulimit -v` of 300 MB (the old
// reader took 2.1 GB for the first, zero-filled 2 GiB for the second and 4 GB for the third).
TEST(ImportHostile, CraftedArchivesAreRefusedBeforeTheirClaimsCostMemory) {
  if (!address_space_limits_apply) GTEST_SKIP() << "ulimit -v does not apply under AddressSanitizer";
  const auto dir = fresh_test_dir("import-hostile");
  const std::string command =
      "/usr/bin/python3 " + std::string(SMLAB_SOURCE_DIR) + "/tests/data/make_hostile_imports.py " + dir.string();
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  struct Case {
    const char* file;
    int exit_code;
    const char* phrase;
  };
  for (const Case& c : {Case{"overlap.npz", 2, "overlap"}, Case{"huge-d.npz", 2, "d = 16384 is not allowed"},
                        Case{"claims-2gib.npz", 2, "shorter than its declared size"}}) {
    const Outcome result =
        run_program(SMLAB_BINARY, {"--import", (dir / c.file).string(), "--export-csv", (dir / "out").string()}, dir,
                    "ulimit -v 307200;");
    expect_refused(result, c.exit_code, c.phrase, c.file);
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << c.file;
  }
  // A session that imports one: refused the same way (headless runs never fall back).
  write_bytes(dir / "s.json",
              nlohmann::json({{"version", 1}, {"import", {{"files", {(dir / "huge-d.npz").string()}}}}}).dump());
  expect_refused(
      run_program(SMLAB_BINARY, {"--load", (dir / "s.json").string(), "--export-csv", (dir / "out").string()}, dir,
                  "ulimit -v 307200;"),
      2, "d = 16384", "--load s.json");
}

// The same 2 GB file given three times was read twice (5.1 GB) before "a second Q"; the roles are
// now checked before any value is read, so 100 MB of address space is plenty.
TEST(ImportHostile, ASecondArrayForOneRoleIsRefusedBeforeAnythingIsRead) {
  if (!address_space_limits_apply) GTEST_SKIP() << "ulimit -v does not apply under AddressSanitizer";
  const auto dir = fresh_test_dir("import-thrice");
  sparse_npy(dir / "big.npy", "(2, 32768, 4096)", 2ull * 32768 * 4096, "<f8");  // 2 GiB, a hole
  const std::string big = (dir / "big.npy").string();
  expect_refused(run_program(SMLAB_BINARY,
                             {"--import", big + ":Q", "--import", big + ":K", "--import", big + ":Q", "--export-csv",
                              (dir / "out").string()},
                             dir, "ulimit -v 102400;"),
                 2, "a second Q", "three times");
}

// Running out of memory (ulimit -v: allocation fails for real) is one line and exit 3, never an
// abort: Q and K of [32768, 2048] float32 (256 MiB each) under 1 GiB, and under 300 MB.
TEST(ImportHostile, OutOfMemoryIsOneLineAndExitThree) {
  if (!address_space_limits_apply) GTEST_SKIP() << "ulimit -v does not apply under AddressSanitizer";
  const auto dir = fresh_test_dir("import-oom");
  sparse_npy(dir / "q.npy", "(32768, 2048)", 32768ull * 2048);
  const std::string q = (dir / "q.npy").string();
  for (const char* limit : {"ulimit -v 1048576;", "ulimit -v 307200;"}) {
    const Outcome result = run_program(
        SMLAB_BINARY, {"--import", q + ":Q", "--import", q + ":K", "--export-csv", (dir / "out").string()}, dir, limit);
    expect_refused(result, 3, "memory", limit);
    EXPECT_FALSE(std::filesystem::exists(dir / "out" / "distribution.csv")) << limit;
  }
}

// An --import path that is swapped for a FIFO between its checks by name and its opening: the old
// reader checked the size by name and then fopen()ed, blocking forever (3 of 25 raced runs). The
// hook swaps it deterministically; the file is opened without blocking and refused as a FIFO.
TEST(ImportHostile, AFileSwappedForAFifoBetweenTheChecksIsRefusedNotWaitedOn) {
  const auto dir = fresh_test_dir("import-fifo-race");
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  write_bytes(dir / "q.npy", npy(good, floats({1, 2, 3, 4})));
  write_bytes(dir / "k.npy", npy(good, floats({1, 2, 3, 4})));
  smlab::app::ImportOptions options;
  int swapped = 0;
  options.before_open = [&](const std::string& path) {
    if (path != (dir / "q.npy").string()) return;
    std::filesystem::remove(path);
    ASSERT_EQ(::mkfifo(path.c_str(), 0600), 0);
    ++swapped;
  };
  const std::vector<std::string> specs = {(dir / "q.npy").string() + ":Q", (dir / "k.npy").string() + ":K"};
  const smlab::app::ImportLoad load = smlab::app::load_import(specs, "", options);
  EXPECT_EQ(swapped, 1);
  ASSERT_FALSE(load.ok());
  EXPECT_EQ(load.error().kind, smlab::Error::Kind::file);
  EXPECT_NE(load.error().message.find("is a FIFO, not a regular file"), std::string::npos) << load.error().message;
}

// An import that cannot be read says why, in the system's words ("cannot read 'x'" said nothing).
TEST(ImportHostile, AnUnreadableImportGivesTheSystemsReason) {
  if (::geteuid() != 0 || ::access("/usr/bin/setpriv", X_OK) != 0) GTEST_SKIP() << "needs root to run as nobody";
  const auto dir = fresh_test_dir("import-unreadable");
  std::filesystem::permissions(dir, std::filesystem::perms::all);
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2), }";
  write_bytes(dir / "q.npy", npy(good, floats({1, 2, 3, 4})));
  std::filesystem::permissions(dir / "q.npy", std::filesystem::perms::none);
  const Outcome result = run_program(SMLAB_BINARY,
                                     {"--import", (dir / "q.npy").string() + ":Q", "--import",
                                      (dir / "q.npy").string() + ":K", "--export-csv", (dir / "out").string()},
                                     dir, "exec setpriv --reuid=65534 --regid=65534 --clear-groups");
  expect_refused(result, 3, "Permission denied", "chmod 000");
}

// CSV matrices: a byte-order mark is not a header; a first row is a header only when none of its
// cells is a number; a bad cell is named by row and column; a number too small for a double reads
// as 0 and one too large is "not allowed", never "not a number"; decimal commas get a warning.
TEST(ImportCsv, HeadersBomsBadCellsAndDecimalCommas) {
  struct Case {
    const char* text;
    std::vector<std::int64_t> shape;  // empty: refused with `phrase`
    const char* phrase;
  };
  const std::vector<Case> cases = {
      {"\xef\xbb\xbf"
       "1,2,3\n4,5,6\n7,8,9\n",
       {3, 3},
       ""},  // the BOM ate the first row, as a header
      {"\xef\xbb\xbf"
       "q0,q1\n1,2\n3,4\n",
       {2, 2},
       ""},
      {"a,b,c\n1,2,3\n", {1, 3}, ""},
      {"1,2,x,4,5\n1,2,3,4,5\n", {}, "row 1, column 3: 'x' is not a number"},
      {"1,1e400,3\n1,2,3\n", {}, "row 1, column 2: '1e400' is not allowed"},
      {"0x10,1\n1,2\n", {}, "row 1, column 1: '0x10' is not a number"},
      {"1,2\n3,oops\n", {}, "row 2, column 2: 'oops' is not a number"},
      {"1,2\n\n3,nan\n", {}, "row 3, column 2: 'nan' is not allowed"},
      {"1e-400,1\n1,2\n", {2, 2}, ""},
      {"1,2\n3,4,5\n", {}, "row 2 has 3 numbers"},
  };
  for (const Case& c : cases) {
    const smlab::ArrayParse parsed = smlab::parse_csv_matrix(c.text, "m.csv");
    if (c.shape.empty()) {
      ASSERT_FALSE(parsed.ok()) << c.text;
      EXPECT_NE(parsed.error().message.find(c.phrase), std::string::npos) << parsed.error().message;
      continue;
    }
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.error().message;
    EXPECT_EQ(parsed->shape, c.shape) << c.text;
    EXPECT_TRUE(parsed->warnings.empty()) << c.text;
  }
  const smlab::ArrayParse tiny = smlab::parse_csv_matrix("1e-400,-1e-400\n1,2\n", "m.csv");
  ASSERT_TRUE(tiny.ok());
  EXPECT_EQ(tiny->values[0], 0.0f);
  EXPECT_TRUE(std::signbit(tiny->values[1]));
  // Four rows of "0,125,1,250": whole numbers in pairs, read as written (4 x 4) with one warning.
  const smlab::ArrayParse commas = smlab::parse_csv_matrix("0,125,1,250\n0,5,0,75\n1,0,2,5\n0,25,0,5\n", "c.csv");
  ASSERT_TRUE(commas.ok()) << commas.error().message;
  EXPECT_EQ(commas->shape, (std::vector<std::int64_t>{4, 4}));
  ASSERT_EQ(commas->warnings.size(), 1u);
  EXPECT_NE(commas->warnings[0].find("decimal commas"), std::string::npos) << commas->warnings[0];
  const smlab::ArrayParse integers = smlab::parse_csv_matrix("1,2\n3,4\n", "i.csv");
  ASSERT_TRUE(integers.ok());
  EXPECT_TRUE(integers->warnings.empty()) << "plain small integers are not decimal commas";
  // Through the command line: the BOM file is 3 x 3 (it was 2 x 3, the shape error), the warning
  // is one line on stderr and the run goes on.
  const auto dir = fresh_test_dir("import-csv");
  write_bytes(dir / "bom.csv",
              "\xef\xbb\xbf"
              "1,2,3\n4,5,6\n7,8,9\n");
  const Outcome bom = run_program(
      SMLAB_BINARY, {"--import", (dir / "bom.csv").string() + ":scores", "--export-csv", (dir / "a").string()}, dir);
  EXPECT_EQ(bom.exit_code, 0) << bom.err;
  EXPECT_EQ(bom.err, "");
  write_bytes(dir / "comma.csv", "0,125,1,250\n0,5,0,75\n1,0,2,5\n0,25,0,5\n");
  const Outcome comma = run_program(
      SMLAB_BINARY, {"--import", (dir / "comma.csv").string() + ":scores", "--export-csv", (dir / "b").string()}, dir);
  EXPECT_EQ(comma.exit_code, 0) << comma.err;
  EXPECT_NE(comma.err.find("decimal commas"), std::string::npos) << comma.err;
  EXPECT_EQ(std::count(comma.err.begin(), comma.err.end(), '\n'), 1) << comma.err;
}

// Token lists: JSON only for .json files or when the whole text is a JSON list of strings, so
// BERT's "[CLS]" on the first line is a token; no tokens at all is an error; a JSON object is
// called one (it was "1 tokens for L = 8").
TEST(ImportTokens, PlainTextJsonEmptyAndObjects) {
  const smlab::TokenParse bert = smlab::parse_tokens("[CLS]\nthe\ncat\n[SEP]\n", "vocab.txt");
  ASSERT_TRUE(bert.ok()) << bert.error().message;
  EXPECT_EQ(*bert, (std::vector<std::string>{"[CLS]", "the", "cat", "[SEP]"}));
  const smlab::TokenParse json = smlab::parse_tokens(" [\"a\", \"b\\u00e9\"] ", "tokens.txt");
  ASSERT_TRUE(json.ok());
  EXPECT_EQ(*json, (std::vector<std::string>{"a", "b\xc3\xa9"}));
  const smlab::TokenParse bad_json = smlab::parse_tokens("[1, 2]", "tokens.json");
  ASSERT_FALSE(bad_json.ok());
  EXPECT_NE(bad_json.error().message.find("not a string"), std::string::npos) << bad_json.error().message;
  for (const char* empty : {"", "[]", "\xef\xbb\xbf", " [ ] "}) {
    for (const char* file : {"t.txt", "t.json"}) {
      const smlab::TokenParse parsed = smlab::parse_tokens(empty, file);
      ASSERT_FALSE(parsed.ok()) << "'" << empty << "' as " << file;
      EXPECT_NE(parsed.error().message.find("no tokens"), std::string::npos) << parsed.error().message;
    }
  }
  const smlab::TokenParse object = smlab::parse_tokens("{\"tokens\": [\"a\"]}", "t.txt");
  ASSERT_FALSE(object.ok());
  EXPECT_NE(object.error().message.find("JSON object"), std::string::npos) << object.error().message;
  const smlab::TokenParse object_json = smlab::parse_tokens("{\"tokens\": [\"a\"]}", "t.json");
  ASSERT_FALSE(object_json.ok());
  EXPECT_NE(object_json.error().message.find("JSON list"), std::string::npos) << object_json.error().message;
}

// Tokens holding U+FFFE and U+FFFF (and U+FDD0) exported exit 0 but three SVGs were not well-formed
// XML: those code points cannot be XML characters. Now every SVG parses (python3's expat).
TEST(ImportTokens, NonCharactersInTokensLeaveEverySvgWellFormed) {
  const auto dir = fresh_test_dir("import-noncharacters");
  const std::string good = "{'descr': '<f4', 'fortran_order': False, 'shape': (3, 2), }";
  write_bytes(dir / "q.npy", npy(good, floats({1, 2, 3, 4, 5, 6})));
  write_bytes(dir / "k.npy", npy(good, floats({6, 5, 4, 3, 2, 1})));
  write_bytes(dir / "tokens.txt",
              "a\xef\xbf\xbe"
              "b\n\xef\xbf\xbf\nc\xef\xb7\x90<&>\n");
  const Outcome result =
      run_program(SMLAB_BINARY,
                  {"--import", (dir / "q.npy").string() + ":Q", "--import", (dir / "k.npy").string() + ":K", "--tokens",
                   (dir / "tokens.txt").string(), "--export-svg", (dir / "svg").string()},
                  dir);
  ASSERT_EQ(result.exit_code, 0) << result.err;
  const std::string check =
      "/usr/bin/python3 -c \"import sys, glob, xml.dom.minidom as m\n"
      "bad = []\n"
      "for f in glob.glob(sys.argv[1] + '/*.svg'):\n"
      "    try: m.parse(f)\n"
      "    except Exception as e: bad.append(f)\n"
      "print(len(bad)); sys.exit(1 if bad else 0)\" " +
      (dir / "svg").string() + " > " + (dir / "bad").string();
  EXPECT_EQ(std::system(check.c_str()), 0) << "SVGs that are not well-formed XML: " << read_all(dir / "bad");
}

// A .npz whose entries are listed twice or overlap is refused (a zip bomb) before inflating;
// numpy's own archives (entries apart) still read. In-process, so the message is exact.
TEST(ImportHostile, OverlappingOrRepeatedZipEntriesAreRefused) {
  const auto dir = fresh_test_dir("import-overlap");
  const std::string command =
      "/usr/bin/python3 " + std::string(SMLAB_SOURCE_DIR) + "/tests/data/make_hostile_imports.py " + dir.string();
  ASSERT_EQ(std::system(command.c_str()), 0);
  const std::string archive = read_all(dir / "overlap.npz");
  const std::span<const std::uint8_t> bytes(reinterpret_cast<const std::uint8_t*>(archive.data()), archive.size());
  const smlab::ArchiveParse listed = smlab::list_npz(bytes, "overlap.npz");
  ASSERT_FALSE(listed.ok());
  EXPECT_NE(listed.error().message.find("overlap"), std::string::npos) << listed.error().message;
  const std::string examples = read_all(std::string(SMLAB_SOURCE_DIR) + "/assets/examples/qkv.npz");
  const smlab::ArchiveParse shipped = smlab::parse_npz(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(examples.data()), examples.size()),
      "qkv.npz");
  ASSERT_TRUE(shipped.ok()) << shipped.error().message;
  EXPECT_EQ(shipped->size(), 3u);
}

}  // namespace
