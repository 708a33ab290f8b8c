// Staged recompute: a first result, then the rest of the stages, and the complete
// Snapshot is exactly an unstaged evaluation's: byte-identical --export-csv files after a T, d_k or
// row change on cached QKᵀ, and the coarse Monte Carlo estimate replaced by the full one. Also the
// --bench-latency harness's output format on a tiny L (its timings are not checked: speed is bench/).
#include <gtest/gtest.h>

#include <filesystem>
#include <mutex>
#include <algorithm>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_support.hpp"
#include "export/csv.hpp"
#include "smlab/evaluate.hpp"
#include "snapshot_csv.hpp"
#include "work/evaluator.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;

Params base_params() {
  Params params;
  params.seq_len = 96;
  params.key_dim = 24;
  params.row = 5;
  return params;
}

struct Published {
  bool complete = false;
  std::int64_t trials = 0;
  Params params;
};

// Through the Evaluator as the app uses it: each change after the first Params (cached QKᵀ for
// T and row; a new one for d_k) first publishes a first result, then a complete Snapshot whose
// CSV files equal those of a fresh, unstaged evaluate() of the same Params, byte for byte.
TEST(Staging, CompleteSnapshotExportsTheSameBytesAsAFreshEvaluation) {
  const fs::path dir = cli_test::fresh_test_dir("staging");
  const Params base = base_params();
  const std::int64_t full = automatic_dk_trials(base.seq_len);
  ASSERT_GT(coarse_dk_trials(full), 0);
  ASSERT_LT(coarse_dk_trials(full), full) << "at L = 96 a coarse estimate must have fewer trials";

  Evaluator evaluator;
  evaluator.set_refine_limit(full);  // no refinement beyond the first estimate: the count is fixed
  // Images as the dashboard asks for them, pooled 2 × 2 (L = 96 > 64): the colour range then comes
  // from the image pass (Evaluator::map_images_with_range).
  evaluator.set_map_image_spec({64, plot::Colormap::Viridis});
  std::mutex mutex;
  std::vector<Published> published;
  evaluator.set_result_callback([&] {
    const Evaluator::Latest latest = evaluator.latest();
    std::lock_guard lock(mutex);
    if (latest.snapshot) published.push_back({latest.complete, latest.sweep->trials, latest.snapshot->params});
  });
  evaluator.submit(base);
  evaluator.wait_until_idle();

  int index = 0;
  for (auto change :
       {+[](Params& p) { p.temperature = 0.37; }, +[](Params& p) { p.score_scale = 2.5; },
        +[](Params& p) { p.row = 17; }, +[](Params& p) { p.key_dim = 40; }, +[](Params& p) { p.scaled = false; }}) {
    Params next = base;
    change(next);
    {
      std::lock_guard lock(mutex);
      published.clear();
    }
    evaluator.submit(next);
    evaluator.wait_until_idle();
    const Evaluator::Latest latest = evaluator.latest();
    ASSERT_TRUE(latest.snapshot != nullptr);
    ASSERT_TRUE(latest.complete);
    ASSERT_EQ(latest.snapshot->params, next);
    EXPECT_EQ(latest.snapshot->dk_sweep.trials, full) << "change " << index;
    // The worker's images are those of the fresh Snapshot's maps, pixel for pixel.
    const Snapshot reference = evaluate(next);
    ASSERT_TRUE(latest.images != nullptr);
    for (const bool scaled : {true, false}) {
      plot::HeatmapImage image;
      std::vector<float> scratch;
      const MapTextureSource source = map_texture_source(reference, scaled);
      plot::prepare_heatmap_image(image, scratch, source.fill_row, source.size, source.size, 0.0,
                                  reference.attention_max, plot::Colormap::Viridis, 64, plot::Pooling::max);
      const plot::HeatmapImage& shown = scaled ? latest.images->scaled : latest.images->unscaled;
      EXPECT_EQ(shown.rows, image.rows);
      EXPECT_TRUE(shown.rgba == image.rgba) << "change " << index << (scaled ? ": scaled" : ": unscaled") << " image";
    }
    const auto staged = snapshot_csv_files(*latest.snapshot, dir / ("staged-" + std::to_string(index)));
    const auto fresh = snapshot_csv_files(evaluate(next), dir / ("fresh-" + std::to_string(index)));
    ASSERT_EQ(staged.size(), fresh.size());
    for (std::size_t f = 0; f < staged.size(); ++f) {
      EXPECT_EQ(staged[f].first, fresh[f].first);
      EXPECT_TRUE(staged[f].second == fresh[f].second) << "change " << index << ": " << staged[f].first << " differs";
    }
    std::vector<Published> of_next;  // (the previous change's last callback may come late)
    {
      std::lock_guard lock(mutex);
      for (const Published& entry : published)
        if (entry.params == next) of_next.push_back(entry);
    }
    ASSERT_FALSE(of_next.empty());
    EXPECT_TRUE(of_next.back().complete);
    EXPECT_EQ(of_next.back().trials, full);
    if (index <= 1) {
      // T and the score scale change the sweep's setting: a coarse estimate first, then the full one.
      ASSERT_GE(of_next.size(), 2u) << "change " << index;
      EXPECT_FALSE(of_next.front().complete);
      EXPECT_EQ(of_next.front().trials, coarse_dk_trials(full));
    }
    ++index;
  }
}

// In core: what a staged evaluate() leaves out, and complete_stages() making it whole.
TEST(Staging, CompleteStagesGivesTheUnstagedSnapshot) {
  const Params base = base_params();
  std::shared_ptr<const ScoreCache> cache;
  EvaluateOptions first_options;
  first_options.score_cache = &cache;
  const Snapshot first = *evaluate(base, first_options);
  ASSERT_TRUE(cache != nullptr);

  Params next = base;
  next.key_dim = 33;  // a new QKᵀ: staged
  next.temperature = 2.0;
  Stages stages;
  EvaluateOptions options;
  options.score_cache = &cache;
  options.previous = &first;
  options.stages = &stages;
  Snapshot staged = *evaluate(next, options);
  EXPECT_TRUE(stages.scores);
  EXPECT_TRUE(stages.map_range);
  EXPECT_EQ(stages.dk_trials, automatic_dk_trials(next.seq_len));
  EXPECT_EQ(staged.dk_sweep.trials, coarse_dk_trials(stages.dk_trials));
  EXPECT_TRUE(pooled_maps_pending(staged)) << "the maps count as pending until QKᵀ is there";
  EXPECT_FALSE(cache->matches(next)) << "the cache is replaced only by the complete QKᵀ";
  const Snapshot fresh = evaluate(next);
  EXPECT_EQ(staged.probabilities, fresh.probabilities) << "the first result's row is already exact";
  EXPECT_EQ(staged.entropy_vs_temperature, fresh.entropy_vs_temperature);

  ASSERT_TRUE(complete_stages(staged, stages, &cache));
  EXPECT_FALSE(stages.any());
  EXPECT_TRUE(cache->matches(next));
  EXPECT_EQ(staged.attention_scores, cache);
  EXPECT_FALSE(pooled_maps_pending(staged));
  EXPECT_EQ(staged.attention_max, fresh.attention_max);
  EXPECT_EQ(attention_map(staged, true), attention_map(fresh, true));
  EXPECT_EQ(attention_map(staged, false), attention_map(fresh, false));
  ASSERT_EQ(staged.dk_sweep.trials, fresh.dk_sweep.trials);
  for (std::size_t i = 0; i < fresh.dk_sweep.scaled.size(); ++i) {
    EXPECT_EQ(staged.dk_sweep.scaled[i].entropy_nats.mean, fresh.dk_sweep.scaled[i].entropy_nats.mean);
    EXPECT_EQ(staged.dk_sweep.unscaled[i].jacobian_norm.sum_squared_deviation,
              fresh.dk_sweep.unscaled[i].jacobian_norm.sum_squared_deviation);
  }

  // A row change on the same maps: nothing left to stage, the colour range copied.
  Params row = next;
  row.row = 40;
  Stages row_stages;
  options.previous = &staged;
  options.previous_sweep = &staged.dk_sweep;
  options.stages = &row_stages;
  const Snapshot moved = *evaluate(row, options);
  EXPECT_FALSE(row_stages.any());
  EXPECT_EQ(moved.attention_scores, staged.attention_scores);
  EXPECT_EQ(moved.attention_max, evaluate(row).attention_max);
}

// Rows of ≥ 512 keys: the first result's H(T) is every 4th point of the grid, exactly those
// values, and complete_stages() draws the full curve.
TEST(Staging, CoarseEntropyCurveIsReplacedByTheFullOne) {
  Params base = base_params();
  base.seq_len = 640;
  const Snapshot first = evaluate(base);
  Params next = base;
  next.row = 300;
  Stages stages;
  EvaluateOptions options;
  options.previous = &first;
  options.previous_sweep = &first.dk_sweep;
  options.stages = &stages;
  Snapshot staged = *evaluate(next, options);
  const Snapshot fresh = evaluate(next);
  ASSERT_TRUE(stages.entropy_curve);
  ASSERT_EQ(fresh.entropy_vs_temperature.size(), 121u);
  ASSERT_EQ(staged.entropy_vs_temperature.size(), 31u);
  for (std::size_t i = 0; i < 31; ++i) {
    EXPECT_EQ(staged.temperature_grid[i], fresh.temperature_grid[4 * i]);
    EXPECT_EQ(staged.entropy_vs_temperature[i], fresh.entropy_vs_temperature[4 * i]);
  }
  ASSERT_TRUE(complete_stages(staged, stages, nullptr));
  EXPECT_EQ(staged.temperature_grid, fresh.temperature_grid);
  EXPECT_EQ(staged.entropy_vs_temperature, fresh.entropy_vs_temperature);
}

TEST(Staging, BenchLatencyPrintsOneLineForEverySlider) {
  const fs::path dir = cli_test::fresh_test_dir("latency");
  const cli_test::Outcome run =
      cli_test::run_program(SMLAB_BINARY, {"--bench-latency", "2", "--set", "seq_len=16"}, dir, "env -u DISPLAY");
  if (run.exit_code == 4) GTEST_SKIP() << "no OpenGL: " << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // One JSON line: {"L":16,"d_k":64,"sliders":[{"slider":NAME,"steps":2,<times in ms>}, ...]} with
  // every slider in this order and every time a number written with 3 decimals. (Parsed as JSON,
  // not matched by std::regex: GCC 12's <regex> trips a false -Wmaybe-uninitialized under ASan.)
  ASSERT_FALSE(run.out.empty());
  EXPECT_EQ(run.out.back(), '\n');
  EXPECT_EQ(std::count(run.out.begin(), run.out.end(), '\n'), 1) << run.out;
  const nlohmann::ordered_json report = nlohmann::ordered_json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  std::vector<std::string> top_keys;
  for (const auto& item : report.items()) top_keys.push_back(item.key());
  EXPECT_EQ(top_keys, (std::vector<std::string>{"L", "d_k", "load_threads", "sliders", "peak_rss_mib"}));
  EXPECT_EQ(report.value("load_threads", -1), 0);
  EXPECT_TRUE(report["peak_rss_mib"].is_number() && report["peak_rss_mib"].get<double>() > 0.0) << run.out;
  EXPECT_EQ(report.value("L", 0), 16);
  EXPECT_EQ(report.value("d_k", 0), 64);
  const std::vector<std::string> sliders{"temperature", "score_scale", "d_k",          "seq_len",
                                         "scaled",      "row",         "custom_scores"};
  const std::vector<std::string> fields{"slider",
                                        "steps",
                                        "first_median_ms",
                                        "first_p95_ms",
                                        "final_median_ms",
                                        "final_p95_ms",
                                        "mc_final_median_ms",
                                        "mc_final_p95_ms",
                                        "median_frame_ms",
                                        "p95_frame_ms",
                                        "max_frame_ms",
                                        "first_compute_median_ms",
                                        "final_compute_median_ms"};
  // Then the slider's peak RSS and each plot's final median and p95, by --panel name.
  std::vector<std::string> all_fields = fields;
  all_fields.insert(all_fields.end(), {"peak_rss_mib", "plots"});
  const std::vector<std::string> plots{"distribution", "entropy_t",        "entropy_dk",
                                       "gradient",     "attention_scaled", "attention_unscaled"};
  ASSERT_TRUE(report["sliders"].is_array());
  ASSERT_EQ(report["sliders"].size(), sliders.size()) << run.out;
  for (std::size_t i = 0; i < sliders.size(); ++i) {
    const auto& entry = report["sliders"][i];
    std::vector<std::string> keys;
    for (const auto& item : entry.items()) keys.push_back(item.key());
    EXPECT_EQ(keys, all_fields) << entry.dump();
    EXPECT_TRUE(entry["peak_rss_mib"].is_number() && entry["peak_rss_mib"].get<double>() > 0.0) << entry.dump();
    ASSERT_TRUE(entry["plots"].is_object()) << entry.dump();
    std::vector<std::string> plot_keys;
    for (const auto& item : entry["plots"].items()) plot_keys.push_back(item.key());
    EXPECT_EQ(plot_keys, plots) << entry.dump();
    // Per step, first ≤ each plot's final ≤ the step's end, and "final" is the latest plot but
    // the Monte Carlo curves: medians keep those orders.
    const double first = entry.value("first_median_ms", -1.0), final = entry.value("final_median_ms", -1.0);
    for (const std::string& plot : plots) {
      const double median = entry["plots"][plot].value("median_ms", -1.0);
      EXPECT_LE(first, median) << plot << ": " << entry.dump();
      EXPECT_LE(median, entry["plots"][plot].value("p95_ms", -1.0)) << plot << ": " << entry.dump();
      if (plot != "entropy_dk") {
        EXPECT_LE(median, final) << plot << ": " << entry.dump();
      }
    }
    EXPECT_EQ(entry.value("mc_final_median_ms", -1.0), entry["plots"]["entropy_dk"].value("median_ms", -2.0));
    EXPECT_EQ(entry.value("slider", ""), sliders[i]);
    EXPECT_EQ(entry.value("steps", 0), 2);
    for (std::size_t f = 2; f < fields.size(); ++f) {
      EXPECT_TRUE(entry[fields[f]].is_number() && entry[fields[f]].get<double>() >= 0.0) << entry.dump();
      // Written with three decimals: the text holds "<field>":<digits>.<3 digits>.
      const std::string key = "\"" + fields[f] + "\":";
      const std::string line = entry.dump();
      const std::size_t at = run.out.find(key, run.out.find("\"slider\":\"" + sliders[i] + "\""));
      ASSERT_NE(at, std::string::npos) << line;
      const std::size_t begin = at + key.size(), dot = run.out.find_first_not_of("0123456789", begin);
      ASSERT_TRUE(dot != std::string::npos && dot > begin && run.out[dot] == '.') << run.out.substr(at, 30);
      EXPECT_EQ(run.out.find_first_not_of("0123456789", dot + 1), dot + 4) << run.out.substr(at, 30);
    }
  }
  EXPECT_TRUE(run.err.empty()) << run.err;

  const cli_test::Outcome wrong =
      cli_test::run_program(SMLAB_BINARY, {"--bench-latency", "2", "--bench-key", "colour"}, dir, "env -u DISPLAY");
  EXPECT_EQ(wrong.exit_code, 2);
  EXPECT_NE(wrong.err.find("--bench-key 'colour' is not allowed with --bench-latency"), std::string::npos) << wrong.err;
}

// --bench-load N: N busy threads beside the bench, reported in its JSON; N through the option
// table's count check (one line, exit 2), and only with a bench.
TEST(Staging, BenchLoadIsReportedAndChecked) {
  const fs::path dir = cli_test::fresh_test_dir("bench-load");
  const cli_test::Outcome run = cli_test::run_program(
      SMLAB_BINARY, {"--bench-latency", "1", "--bench-key", "row", "--bench-load", "1", "--set", "seq_len=16"}, dir,
      "env -u DISPLAY");
  if (run.exit_code == 4) GTEST_SKIP() << "no OpenGL: " << run.err;
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const nlohmann::json report = nlohmann::json::parse(run.out, nullptr, false);
  ASSERT_TRUE(report.is_object()) << run.out;
  EXPECT_EQ(report.value("load_threads", -1), 1) << run.out;
  ASSERT_EQ(report["sliders"].size(), 1u) << run.out;

  for (const char* bad : {"x", "65", "1.5"}) {
    const cli_test::Outcome refused =
        cli_test::run_program(SMLAB_BINARY, {"--bench-latency", "1", "--bench-load", bad}, dir, "env -u DISPLAY");
    EXPECT_EQ(refused.exit_code, 2) << bad << ": " << refused.err;
    EXPECT_EQ(refused.err,
              "softmax-lab: --bench-load '" + std::string(bad) + "' is not allowed: an integer from 0 to 64\n")
        << bad;
    EXPECT_TRUE(refused.out.empty()) << bad;
  }
  const cli_test::Outcome alone = cli_test::run_program(SMLAB_BINARY, {"--bench-load", "1"}, dir, "env -u DISPLAY");
  EXPECT_EQ(alone.exit_code, 2) << alone.err;
  EXPECT_EQ(alone.err, "softmax-lab: --bench-load goes with --bench-frames N or --bench-latency N\n");
}

}  // namespace
}  // namespace smlab::app
