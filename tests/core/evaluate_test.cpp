// evaluate(): determinism and agreement between the snapshot's parts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "smlab/evaluate.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

TEST(Evaluate, SameParamsSameSnapshot) {
  Params p;
  p.seq_len = 32;
  const Snapshot a = evaluate(p), b = evaluate(p);
  EXPECT_EQ(a.probabilities, b.probabilities);
  EXPECT_EQ(attention_map(a, true), attention_map(b, true));
  EXPECT_EQ(a.dk_sweep.scaled[3].entropy_nats.mean, b.dk_sweep.scaled[3].entropy_nats.mean);
}

// The distribution plot's row is the same row of the heatmap (float map: 1e-6).
TEST(Evaluate, RowMatchesHeatmapRow) {
  for (bool scaled : {true, false}) {
    Params p;
    p.seq_len = 24;
    p.row = 5;
    p.scaled = scaled;
    p.temperature = 0.7;
    const Snapshot s = evaluate(p);
    const std::vector<float> map = attention_map(s, scaled);
    for (int j = 0; j < p.seq_len; ++j)
      EXPECT_NEAR(s.probabilities[j], map[p.row * p.seq_len + j], 1e-5) << "scaled=" << scaled << " j=" << j;
  }
}

// The maps are not stored: attention_row recomputes a row from QKᵀ. Every row must be bit for
// bit the row of the whole map (one kernel, one row at a time or all rows over both cores), and
// attention_max the largest weight of both maps, also above the old 2048 cache limit.
TEST(Evaluate, AttentionRowsAreTheRowsOfTheWholeMap) {
  for (const int length : {1, 7, 300, 2051}) {
    Params p;
    p.seq_len = length;
    p.key_dim = 8;
    p.temperature = 0.3;
    p.row = length / 2;
    const Snapshot s = evaluate(p);
    float top = 0.0f;
    std::vector<float> row(static_cast<std::size_t>(length));
    for (const bool scaled : {true, false}) {
      const std::vector<float> map = attention_map(s, scaled);
      ASSERT_EQ(map.size(), static_cast<std::size_t>(length) * static_cast<std::size_t>(length));
      for (float weight : map) top = std::max(top, weight);
      for (int i = 0; i < length; i += std::max(1, length / 40)) {
        attention_row(s, scaled, i, row);
        const auto first = map.begin() + static_cast<std::ptrdiff_t>(i) * length;
        ASSERT_TRUE(std::equal(row.begin(), row.end(), first))
            << "L=" << length << " row " << i << " scaled=" << scaled;
      }
    }
    EXPECT_EQ(s.attention_max, top) << "L=" << length;
    // The row the distribution plot shows is the same row of the map (float map: 1e-5).
    attention_row(s, true, p.row, row);
    for (int j = 0; j < length; j += std::max(1, length / 50))
      EXPECT_NEAR(s.probabilities[static_cast<std::size_t>(j)], row[static_cast<std::size_t>(j)], 1e-5)
          << "L=" << length;
  }
}

TEST(Evaluate, AttentionRowsSumToOne) {
  Params p;
  p.seq_len = 64;
  p.key_dim = 512;
  const Snapshot s = evaluate(p);
  for (const bool scaled : {true, false})
    for (int r = 0; r < p.seq_len; ++r) {
      const std::vector<float> map = attention_map(s, scaled);
      const double sum = std::accumulate(map.begin() + r * p.seq_len, map.begin() + (r + 1) * p.seq_len, 0.0);
      EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << r;
    }
}

TEST(Evaluate, CustomScoresReplaceTheRow) {
  Params p;
  p.scores = {1, 2, 3};
  const Snapshot s = evaluate(p);
  ASSERT_EQ(s.probabilities.size(), 3u);
  EXPECT_NEAR(s.probabilities[2], 0.6652, 5e-5);
  EXPECT_EQ(s.argmax, 2);
  EXPECT_NEAR(s.gradient[2], s.probabilities[2] * (1 - s.probabilities[2]), 1e-16);
  EXPECT_EQ(s.attention_size, p.seq_len);
}

// Unscaled q·k has variance d_k: at d_k = 1024 rows are near one-hot, the scaled
// ones are not. This is the app's whole story in one assertion.
TEST(Evaluate, UnscaledRowsAreSharperAtLargeDk) {
  Params p;
  p.seq_len = 32;
  p.key_dim = 1024;
  const Snapshot s = evaluate(p);
  double scaled_max = 0, unscaled_max = 0;
  const std::vector<float> scaled = attention_map(s, true), unscaled = attention_map(s, false);
  for (int r = 0; r < p.seq_len; ++r) {
    scaled_max += *std::max_element(scaled.begin() + r * 32, scaled.begin() + (r + 1) * 32);
    unscaled_max += *std::max_element(unscaled.begin() + r * 32, unscaled.begin() + (r + 1) * 32);
  }
  EXPECT_GT(unscaled_max / 32, 0.9);
  EXPECT_LT(scaled_max / 32, 0.6);
}

TEST(Evaluate, EntropyVersusTemperatureIsMonotoneAndHitsCurrentValue) {
  Params p;
  p.scores = {0.5, 1.5, -0.2, 3.0};
  p.temperature = 1.0;
  const Snapshot s = evaluate(p);
  for (std::size_t k = 1; k < s.entropy_vs_temperature.size(); ++k)
    EXPECT_GE(s.entropy_vs_temperature[k], s.entropy_vs_temperature[k - 1] - 1e-15) << "k=" << k;
  // The grid holds T = 1 exactly at k = 60 (10^(−2 + 4·60/120)).
  EXPECT_NEAR(s.temperature_grid[60], 1.0, 1e-15);
  EXPECT_NEAR(s.entropy_vs_temperature[60], s.entropy_nats, 1e-12);
}

// The row summary obeys the identities that tie its quantities together:
// KL(s‖u) = ln n − H, log s_i = z_i − logsumexp(z), H_bits = H / ln 2, and the
// gradient of log s_k is δ_ik − s_i (its entries sum to 0). Tolerances: a few ulps
// of the O(1..10) values involved, 1e-12.
TEST(Evaluate, RowSummaryIdentities) {
  Params p;
  p.seq_len = 20;
  p.temperature = 0.6;
  const Snapshot s = evaluate(p);
  const auto n = s.probabilities.size();
  EXPECT_NEAR(s.kl_from_uniform, std::log(static_cast<double>(n)) - s.entropy_nats, 1e-12);
  EXPECT_NEAR(s.entropy_bits, s.entropy_nats / std::log(2.0), 1e-12);
  double gradient_sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_NEAR(s.log_probabilities[i], s.logits[i] - s.logsumexp, 1e-12) << "i=" << i;
    const double expected = (static_cast<int>(i) == s.argmax ? 1.0 : 0.0) - s.probabilities[i];
    EXPECT_NEAR(s.log_max_gradient[i], expected, 1e-15) << "i=" << i;
    gradient_sum += s.log_max_gradient[i];
  }
  EXPECT_NEAR(gradient_sum, 0.0, 1e-14);
}

// The score cache must be invisible in the result: a Snapshot computed from a cache filled by
// other Params equals one computed from scratch, bit for bit, and the cache is replaced exactly
// when seed, L or d_k change.
TEST(Evaluate, ScoreCacheIsReusedAcrossTemperatureAndIsInvisible) {
  Params first;
  first.seq_len = 48;
  first.key_dim = 32;
  std::shared_ptr<const ScoreCache> cache;
  EvaluateOptions options;
  options.score_cache = &cache;
  ASSERT_TRUE(evaluate(first, options).has_value());
  ASSERT_NE(cache, nullptr);
  const ScoreCache* filled = cache.get();

  Params hotter = first;
  hotter.temperature = 3.5;
  hotter.score_scale = 0.7;
  hotter.row = 5;
  hotter.scaled = false;
  const std::optional<Snapshot> cached = evaluate(hotter, options);
  ASSERT_TRUE(cached.has_value());
  EXPECT_EQ(cache.get(), filled) << "temperature, scale, row and scaling must reuse Q, K and QKᵀ";
  const Snapshot fresh = evaluate(hotter);
  EXPECT_EQ(cached->attention_scores, cache) << "the Snapshot shares the cache's QKᵀ instead of copying it";
  EXPECT_EQ(attention_map(*cached, true), attention_map(fresh, true));
  EXPECT_EQ(attention_map(*cached, false), attention_map(fresh, false));
  EXPECT_EQ(cached->scores, fresh.scores);
  EXPECT_EQ(cached->probabilities, fresh.probabilities);

  for (auto change :
       {+[](Params& p) { p.key_dim = 64; }, +[](Params& p) { p.seq_len = 49; }, +[](Params& p) { p.seed = 7; }}) {
    Params other = hotter;
    change(other);
    const ScoreCache* before = cache.get();
    const std::optional<Snapshot> result = evaluate(other, options);
    ASSERT_TRUE(result.has_value());
    EXPECT_NE(cache.get(), before);
    EXPECT_TRUE(cache->matches(other));
    EXPECT_EQ(attention_map(*result, true), attention_map(evaluate(other), true));
  }
  // The Snapshot keeps its own QKᵀ alive after the cache moved on to other Params.
  EXPECT_NE(cached->attention_scores, cache);
  EXPECT_EQ(attention_map(*cached, false), attention_map(fresh, false));
}

// A seq_len or d_k step copies what the cache of the last Params holds (Q and K entries, and for a
// seq_len step the overlapping block of QKᵀ) instead of drawing and multiplying it again: the cache
// and the Snapshot must be the bits of a fresh evaluation. Lengths cross the kernel's 12-row and
// 32-key tiles and its 512-key blocks; widths cross odd columns (half a Box–Muller pair) and the
// 256-deep blocks; staged (first result, then complete_stages) and whole evaluations.
TEST(Evaluate, ScoreCacheOfAnotherLengthOrWidthGivesTheSameBits) {
  struct Shape {
    int seq_len, key_dim;
  };
  const Shape walk[] = {{100, 8}, {37, 8},  {130, 8},   {131, 8},   {130, 9},  {130, 8}, {600, 7},
                        {700, 7}, {599, 7}, {599, 300}, {612, 301}, {40, 257}, {41, 1}};
  for (const bool staged : {false, true}) {
    std::shared_ptr<const ScoreCache> cache;
    for (const Shape& shape : walk) {
      Params params;
      params.seq_len = shape.seq_len;
      params.key_dim = shape.key_dim;
      params.row = shape.seq_len / 2;
      Stages stages;
      EvaluateOptions options;
      options.score_cache = &cache;
      if (staged) options.stages = &stages;
      std::optional<Snapshot> result = evaluate(params, options);
      ASSERT_TRUE(result.has_value());
      const Snapshot fresh = evaluate(params);
      const std::string where = "L = " + std::to_string(shape.seq_len) + ", d_k = " + std::to_string(shape.key_dim) +
                                (staged ? ", staged" : "");
      if (staged) {
        // The first result's row (what its first frame shows) is already the final one.
        EXPECT_EQ(result->probabilities, fresh.probabilities) << where;
        EXPECT_EQ(result->entropy_nats, fresh.entropy_nats) << where;
        ASSERT_TRUE(complete_stages(*result, stages, &cache));
      }
      ASSERT_NE(cache, nullptr) << where;
      ASSERT_TRUE(cache->matches(params)) << where;
      EXPECT_EQ(cache->queries.values, fresh.attention_scores->queries.values) << where;
      EXPECT_EQ(cache->keys.values, fresh.attention_scores->keys.values) << where;
      EXPECT_EQ(cache->raw.values, fresh.attention_scores->raw.values) << where;
      EXPECT_EQ(cache->raw.rows, shape.seq_len) << where;
      EXPECT_EQ(result->scores, fresh.scores) << where;
      EXPECT_EQ(result->attention_max, fresh.attention_max) << where;
    }
  }
}

// `previous` only saves work: with the same scores (a temperature change) or different ones
// (another row), the result equals an evaluation without it, field by field that it touches.
TEST(Evaluate, PreviousSnapshotSavesWorkButNeverChangesTheResult) {
  Params base;
  base.seq_len = 32;
  const Snapshot first = evaluate(base);
  for (auto change :
       {+[](Params& p) { p.temperature = 0.2; }, +[](Params& p) { p.row = 7; }, +[](Params& p) { p.score_scale = 3.0; },
        +[](Params& p) {
          p.scores = {1.0, 2.0, 3.0};
        }}) {
    Params next = base;
    change(next);
    EvaluateOptions options;
    options.previous = &first;
    const std::optional<Snapshot> reused = evaluate(next, options);
    ASSERT_TRUE(reused.has_value());
    const Snapshot fresh = evaluate(next);
    EXPECT_EQ(reused->temperature_grid, fresh.temperature_grid);
    EXPECT_EQ(reused->entropy_vs_temperature, fresh.entropy_vs_temperature);
    EXPECT_EQ(reused->probabilities, fresh.probabilities);
  }
}

TEST(Evaluate, CancelledEvaluationReturnsNothing) {
  std::stop_source source;
  source.request_stop();
  EvaluateOptions options;
  options.stop = source.get_token();
  EXPECT_FALSE(evaluate(Params{}, options).has_value());
}

}  // namespace
}  // namespace smlab

namespace smlab {
namespace {

// Causal: query i sees keys 0 … i only, in the shown row and in both maps, which
// are what the dashboard draws, colours (attention_max), exports (attention_row) and reads out.
TEST(Evaluate, CausalMasksTheRowTheMapsAndTheReadOuts) {
  Params params;
  params.causal = true;
  params.seq_len = 32;
  params.row = 5;
  const Snapshot snap = evaluate(params);
  ASSERT_EQ(snap.probabilities.size(), 32u);
  double row_sum = 0.0;
  for (std::size_t j = 0; j < snap.probabilities.size(); ++j) {
    if (j > 5) {
      EXPECT_EQ(snap.scores[j], -std::numeric_limits<double>::infinity()) << "key " << j;
      EXPECT_EQ(snap.probabilities[j], 0.0) << "key " << j;
    } else {
      EXPECT_GT(snap.probabilities[j], 0.0) << "key " << j;
    }
    row_sum += snap.probabilities[j];
  }
  EXPECT_NEAR(row_sum, 1.0, 1e-12);
  // The read-outs count the six visible keys: uniform over them is ln 6, and KL = ln 6 − H.
  EXPECT_EQ(snap.unmasked_keys, 6);
  EXPECT_NEAR(snap.max_entropy_nats, std::log(6.0), 1e-15);
  EXPECT_NEAR(snap.kl_from_uniform, std::log(6.0) - snap.entropy_nats, 1e-12);
  for (const bool scaled : {true, false}) {
    const std::vector<float> map = attention_map(snap, scaled);
    std::vector<float> row(32);
    for (int i = 0; i < 32; ++i) {
      attention_row(snap, scaled, i, row);
      double sum = 0.0;
      for (int j = 0; j < 32; ++j) {
        EXPECT_EQ(row[static_cast<std::size_t>(j)], map[static_cast<std::size_t>(i * 32 + j)]) << i << "," << j;
        if (j > i) {
          EXPECT_EQ(row[static_cast<std::size_t>(j)], 0.0f) << "scaled=" << scaled << " row " << i << " key " << j;
        }
        sum += row[static_cast<std::size_t>(j)];
      }
      EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
    }
    // Row 0 sees only key 0: weight exactly 1, which is then the colour range's top.
    EXPECT_EQ(map[0], 1.0f);
  }
  EXPECT_EQ(snap.attention_max, 1.0f);
  // The map's row 5 is the shown row (scaled, as the dashboard's row is by default).
  std::vector<float> shown(32);
  attention_row(snap, true, 5, shown);
  for (std::size_t j = 0; j < 6; ++j) EXPECT_NEAR(shown[j], snap.probabilities[j], 2e-6) << "key " << j;
  // Without the mask the same row has weight after key 5.
  params.causal = false;
  const Snapshot open = evaluate(params);
  EXPECT_GT(*std::max_element(open.probabilities.begin() + 6, open.probabilities.end()), 0.0);
}

// One d_k sweep config: the one evaluate() uses is dk_sweep_config's, and it caps the rows at the
// random data's longest (an imported 32768-long context would make the sweep 8x dearer).
TEST(Evaluate, SweepConfigIsTheOneTheSnapshotUses) {
  Params params;
  params.temperature = 0.4;
  params.seq_len = 24;
  const Snapshot snap = evaluate(params);
  EXPECT_TRUE(snap.dk_sweep.config == dk_sweep_config(params));
  EXPECT_EQ(snap.dk_sweep.max_entropy_nats, std::log(24.0));
  Params longer = params;
  longer.seq_len = 32768;  // as attach_import sets it; dk_sweep_config reads only the numbers
  EXPECT_EQ(dk_sweep_config(longer).seq_len, ParamLimits::seq_len_max);
}

}  // namespace
}  // namespace smlab
