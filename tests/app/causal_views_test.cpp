// causal=true is one setting that every view honours: for every view of the registry (a new lab is
// covered without a line here), every attention map it draws is exactly 0 above its diagonal, and
// every number it shows for the shown row is the dashboard's. Plus the export the review ran.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "cli_support.hpp"
#include "panels/labs.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/labs/gradients.hpp"
#include "smlab/labs/heads.hpp"
#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/stability.hpp"
#include "smlab/labs/temperature.hpp"
#include "smlab/labs/topics.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;

// The settings the test runs: the default data and a longer one (the heads lab capped at its
// map size, the values lab's 16 keys shorter than the row), the first, a middle and the last row,
// two seeds. Each evaluates every lab (the training lab trains, the loss lab's sweeps run: ~1 s).
struct Setting {
  int seq_len;
  int row;
  std::uint64_t seed;
};
std::vector<Setting> settings() {
  std::vector<Setting> out;
  for (const std::uint64_t seed : {42ull, 7ull})
    for (const auto& [seq_len, row] : {std::pair{16, 0}, std::pair{16, 3}, std::pair{16, 15}, std::pair{24, 23}})
      out.push_back({seq_len, row, seed});
  return out;
}

std::string describe(const Setting& s) {
  return "causal=true seq_len=" + std::to_string(s.seq_len) + " row=" + std::to_string(s.row) +
         " seed=" + std::to_string(s.seed);
}

Snapshot causal_snapshot(const Setting& s) {
  Params params;
  params.causal = true;
  params.training.run.causal = true;  // the training lab's model has its own mask: on as well
  params.seq_len = s.seq_len;
  params.row = s.row;
  params.seed = s.seed;
  EXPECT_TRUE(validate(params).ok()) << describe(s);
  EvaluateOptions options;
  options.all_labs = true;
  options.dk_trials = 4;
  return *evaluate(params, options);
}

// Every view's plots as the export writes them (LabCsv.CommandLineExportEqualsCoreNumbers: the CSV
// is the plot's numbers).
std::vector<NamedPlot> plots_of(View view, const Snapshot& snapshot) {
  if (view == View::dashboard) return build_dashboard(snapshot, snapshot.dk_sweep, 0, 0).plots;
  const LabDefinition* lab = lab_definition(view);
  EXPECT_NE(lab, nullptr) << view_info(view).name;
  return lab == nullptr ? std::vector<NamedPlot>{} : lab->build(LabInputs{snapshot, snapshot.dk_sweep, nullptr}).plots;
}

// An attention map: a heatmap of weights (the fixed colour range [0, 1]), queries down, keys across.
bool is_attention_map(const plot::Plot& plot) {
  return plot.heatmap && plot.heatmap->fixed_range == plot::weight_range && plot.heatmap->rows == plot.heatmap->cols;
}

// ─── 1. The maps: every attention map of every view is exactly 0 above its diagonal ─────────

// Counts the maps it checked per view in `maps_per_view`.
void expect_maps_masked(const Snapshot& snapshot, const Setting& s, std::map<std::string, int>& maps_per_view) {
  for (const ViewInfo& info : all_views()) {
    for (const NamedPlot& named : plots_of(info.view, snapshot)) {
      if (!is_attention_map(named.plot)) continue;
      const plot::Heatmap& map = *named.plot.heatmap;
      ASSERT_TRUE(plot::heatmap_has_cells(map)) << info.name << "/" << named.name;
      std::vector<float> scratch;
      int above = 0, first_i = -1, first_j = -1;
      float first_value = 0.0f;
      for (int i = 0; i < map.rows; ++i) {
        const std::span<const float> cells = plot::heatmap_row(map, i, scratch);
        for (int j = i + 1; j < map.cols; ++j)
          if (cells[static_cast<std::size_t>(j)] != 0.0f && above++ == 0)
            first_i = i, first_j = j, first_value = cells[static_cast<std::size_t>(j)];
      }
      EXPECT_EQ(above, 0) << info.name << "/" << named.name << " (" << describe(s) << "): " << above
                          << " cells above the diagonal, the first (" << first_i << ", " << first_j
                          << ") = " << first_value;
      ++maps_per_view[std::string(info.name)];
    }
  }
}

// ─── 2. The shown row's numbers: every lab's are the dashboard's ────────────────────────────

// |a − b| ≤ tolerance, elementwise, and a masked key (the dashboard's weight exactly 0) exactly 0.
template <class A, class B>
void expect_row(const A& lab_row, const B& dashboard, double tolerance, const std::string& what) {
  ASSERT_EQ(lab_row.size(), dashboard.size()) << what;
  for (std::size_t j = 0; j < dashboard.size(); ++j) {
    const double ours = lab_row[j], theirs = dashboard[j];
    if (theirs == 0.0) {
      EXPECT_EQ(ours, 0.0) << what << ": key " << j << " is masked on the dashboard";
    } else {
      EXPECT_NEAR(ours, theirs, tolerance) << what << ": key " << j;
    }
  }
}

// Double-precision numbers of one row: the same softmax of the same scores, to a few roundings.
constexpr double row_tolerance = 1e-14;
// The labs' float maps against the dashboard's double row: float rounding of weights ≤ 1.
constexpr double float_tolerance = 2e-6;

using RowCheck = std::function<void(const Snapshot&, const std::string&)>;

// What each view shows of the shown row, against the dashboard. Every view of the registry must
// have an entry: a new lab fails here until it says which of its numbers are the shown row's.
const std::map<std::string, RowCheck>& row_checks() {
  static const std::map<std::string, RowCheck> checks{
      {"dashboard",
       [](const Snapshot& snap, const std::string& what) {
         // The reference itself: masked keys weigh 0, and ln n counts the visible keys only.
         const int visible = snap.params.row + 1;
         for (std::size_t j = 0; j < snap.probabilities.size(); ++j)
           if (static_cast<int>(j) >= visible) {
             EXPECT_EQ(snap.probabilities[j], 0.0) << what << ": key " << j;
           }
         EXPECT_EQ(snap.unmasked_keys, visible) << what;
         EXPECT_NEAR(snap.max_entropy_nats, std::log(static_cast<double>(visible)), 1e-15) << what;
       }},
      {"normalizers",
       [](const Snapshot& snap, const std::string& what) {
         const NormalizersLab& lab = *snap.lab<NormalizersLab>();
         EXPECT_EQ(lab.scores, snap.scores) << what;
         ASSERT_EQ(lab.columns.front().kind, Normalizer::softmax);
         expect_row(lab.columns.front().result.weights, snap.probabilities, row_tolerance, what + " softmax");
       }},
      {"stability",
       [](const Snapshot& snap, const std::string& what) {
         const StabilityLab& lab = *snap.lab<StabilityLab>();
         EXPECT_EQ(lab.scores, snap.scores) << what;
         expect_row(lab.format(Format::fp64).run(SoftmaxVariant::stable).weights, snap.probabilities, row_tolerance,
                    what + " fp64 stable");
       }},
      {"temperature",
       [](const Snapshot& snap, const std::string& what) {
         const TemperatureLab& lab = *snap.lab<TemperatureLab>();
         EXPECT_EQ(lab.base_scores, snap.scores) << what;
         EXPECT_NEAR(lab.current_entropy_nats, snap.entropy_nats, row_tolerance) << what << " H at the current T";
         expect_row(lab.curve_entropy_nats, snap.entropy_vs_temperature, 1e-13, what + " H(T)");
         const TemperatureMultiple& now = lab.multiples[static_cast<std::size_t>(lab.current_multiple)];
         expect_row(now.probabilities, snap.probabilities, row_tolerance, what + " the current T's panel");
         EXPECT_NEAR(now.max_weight, snap.max_weight, row_tolerance) << what;
         EXPECT_NEAR(lab.uniform_limit_entropy_nats, snap.max_entropy_nats, 1e-15) << what << " the T → ∞ limit";
       }},
      {"scaling", nullptr},  // Monte Carlo of q·k and of random rows: no shown row
      {"gradients",
       [](const Snapshot& snap, const std::string& what) {
         const GradientsLab& lab = *snap.lab<GradientsLab>();
         expect_row(lab.probabilities, snap.probabilities, row_tolerance, what + " weights");
         expect_row(lab.diagonal, snap.gradient, row_tolerance, what + " s(1 − s)");
         EXPECT_NEAR(lab.frobenius_norm, snap.jacobian_norm, row_tolerance) << what << " ‖J‖_F";
         const int m = lab.jacobian_size;
         for (int r = 0; r < m; ++r)
           for (int c = 0; c < m; ++c) {
             const int i = lab.jacobian_first + r, j = lab.jacobian_first + c;
             if (i > snap.params.row || j > snap.params.row) {
               EXPECT_EQ(lab.jacobian[static_cast<std::size_t>(r * m + c)], 0.0f)
                   << what << ": J(" << i << ", " << j << ") of a masked key";
             }
           }
       }},
      {"attention-variants", nullptr},  // maps of its own variants (checked above), no shown row
      {"positions", nullptr},           // maps with positions (checked above), no shown row
      {"heads",
       [](const Snapshot& snap, const std::string& what) {
         // Head 0 is the single-head map of the same Params: its row is the dashboard's, in float.
         const HeadsLab& lab = *snap.lab<HeadsLab>();
         if (lab.capped || lab.row != snap.params.row) return;
         expect_row(lab.head_rows.front(), snap.probabilities, float_tolerance, what + " head 0's row");
       }},
      {"values",
       [](const Snapshot& snap, const std::string& what) {
         // Its own L' = min(L, 16) keys: the dashboard's row when L ≤ 16.
         const ValuesLab& lab = *snap.lab<ValuesLab>();
         if (lab.settings.seq_len != snap.params.seq_len) return;
         expect_row(lab.weights, snap.probabilities, row_tolerance, what + " weights");
       }},
      {"sampling", nullptr},  // its own vocabulary, or the custom scores: no query row
      {"loss",
       [](const Snapshot& snap, const std::string& what) {
         const LossGradientsLab& lab = *snap.lab<LossGradientsLab>();
         EXPECT_EQ(lab.loss.settings.logits, snap.scores) << what;
         expect_row(lab.loss.probabilities, snap.probabilities, row_tolerance, what + " weights");
         for (std::size_t j = 0; j < snap.log_probabilities.size(); ++j)
           EXPECT_EQ(lab.loss.log_softmax[j] == -INFINITY, snap.log_probabilities[j] == -INFINITY)
               << what << ": log-softmax of key " << j;
       }},
      {"geometry", nullptr},  // 2-D vectors of its own: no shown row
      {"init", nullptr},      // layer variances: no shown row
      {"training", nullptr},  // its own model (train_* keys); its maps are checked above
  };
  return checks;
}

// One test, so each setting's Snapshot (every lab evaluated) serves both checks.
TEST(CausalViews, EveryViewMasksItsMapsAndShowsTheDashboardsRow) {
  for (const ViewInfo& info : all_views()) {
    const auto check = row_checks().find(std::string(info.name));
    ASSERT_NE(check, row_checks().end()) << "view '" << info.name
                                         << "' is new: say in row_checks() which of its numbers are the shown "
                                            "row's (and compare them with the dashboard's), or why none are";
  }
  std::map<std::string, int> maps_per_view;
  for (const Setting& s : settings()) {
    const Snapshot snapshot = causal_snapshot(s);
    expect_maps_masked(snapshot, s, maps_per_view);
    for (const ViewInfo& info : all_views()) {
      const RowCheck& check = row_checks().at(std::string(info.name));
      if (check) check(snapshot, std::string(info.name) + " (" + describe(s) + ")");
    }
  }
  // The views known to draw maps did (so the check ran on them): if one stops drawing a weight map,
  // or draws it with another colour range, this says so instead of passing silently.
  for (const char* view : {"dashboard", "stability", "attention-variants", "positions", "heads", "training"})
    EXPECT_GT(maps_per_view[view], 0) << view << " drew no attention map";
}

// ─── 3. The export the review ran ───────────────────────────────────────────────────────────

std::vector<std::vector<std::string>> csv_rows(const fs::path& file) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(cli_test::read_all(file));
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells;
    std::istringstream fields(line);
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// `--set causal=true --set row=3 --export-csv X` gave normalizers-softmax key 5 = 0.17236,
// temperature-entropy H(T = 1) = 2.4518 (the dashboard's 1.3502), gradients-jacobian diagonal
// entry 5 = 0.1427, stability-map-stable-fp16 up to 0.40 above the diagonal.
TEST(CausalViews, TheExportOfEveryViewAgreesWithTheDashboard) {
  const fs::path dir = cli_test::fresh_test_dir("causal-export");
  const cli_test::Outcome run = cli_test::run_program(
      SMLAB_BINARY, {"--set", "causal=true", "--set", "row=3", "--export-csv", (dir / "X").string()}, dir);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const fs::path x = dir / "X";
  // The dashboard's row and H(T).
  double dashboard_entropy = NAN;
  for (const auto& row : csv_rows(x / "entropy_temperature.csv"))
    if (row.size() == 2 && row[0] == "1") dashboard_entropy = std::stod(row[1]);
  ASSERT_FALSE(std::isnan(dashboard_entropy)) << "entropy_temperature.csv has no T = 1";
  EXPECT_NEAR(dashboard_entropy, 1.3502, 5e-5);
  for (const auto& row : csv_rows(x / "normalizers-softmax.csv"))
    if (row.size() >= 4 && row[1] == "bar" && std::stoi(row[2]) > 3) {
      EXPECT_EQ(std::stod(row[3]), 0.0) << "key " << row[2];
    }
  bool found = false;
  for (const auto& row : csv_rows(x / "temperature-entropy.csv"))
    if (row.size() >= 4 && row[1] == "line" && row[2] == "1") {
      EXPECT_EQ(std::stod(row[3]), dashboard_entropy) << "temperature lab's H(T = 1)";
      found = true;
      break;
    }
  EXPECT_TRUE(found) << "temperature-entropy.csv has no T = 1";
  const auto jacobian = csv_rows(x / "gradients-jacobian.csv");
  const auto stable = csv_rows(x / "stability-map-stable-fp16.csv");
  // Matrices: a header row, then L rows of L numbers.
  ASSERT_EQ(jacobian.size(), 17u);
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      if (i > 3 || j > 3) {
        EXPECT_EQ(std::stod(jacobian[static_cast<std::size_t>(i + 1)][static_cast<std::size_t>(j)]), 0.0)
            << "J(" << i << ", " << j << ")";
      }
  ASSERT_EQ(stable.size(), 17u);
  for (int i = 0; i < 16; ++i)
    for (int j = i + 1; j < 16; ++j)
      EXPECT_EQ(std::stod(stable[static_cast<std::size_t>(i + 1)][static_cast<std::size_t>(j)]), 0.0)
          << "stable fp16 map (" << i << ", " << j << ")";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace smlab::app
