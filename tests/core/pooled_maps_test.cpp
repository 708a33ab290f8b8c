// The pooled maps of long contexts (pooled_attention_maps, core/src/pooled_maps.cpp) against the
// straightforward path they replace, bit for bit, and against a long double softmax; and their stop.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <stop_token>
#include <string>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/kernels.hpp"
#include "smlab/snapshot.hpp"

namespace smlab {
namespace {

constexpr KernelIsa all_isas[] = {KernelIsa::avx512, KernelIsa::avx2, KernelIsa::sse2};

// The path before the fused pass: every query's scores (the same QKᵀ kernel), each row's weights
// through softmax_rows_fast (a causal row over its keys 0 … i, the rest exactly 0), then block
// maxima cell by cell, NaN wherever a NaN weight falls, and the largest finite cell as it grows.
PooledMaps pooled_by_softmax_rows(const Matrix& queries, const Matrix& keys, double scaled_scale, double unscaled_scale,
                                  bool causal, int factor, KernelIsa isa) {
  const int length = queries.rows;
  PooledMaps out;
  out.factor = factor;
  out.side = (length + factor - 1) / factor;
  const auto side = static_cast<std::size_t>(out.side);
  out.scaled.assign(side * side, 0.0f);
  out.unscaled.assign(side * side, 0.0f);
  Matrix raw;
  dot_product_scores_fast(raw, queries, keys, KernelOptions{.isa = isa});
  for (const bool scaled : {true, false}) {
    std::vector<float>& pooled = scaled ? out.scaled : out.unscaled;
    for (int i = 0; i < length; ++i) {
      std::vector<float> row(raw.values.begin() + static_cast<std::ptrdiff_t>(i) * length,
                             raw.values.begin() + static_cast<std::ptrdiff_t>(i + 1) * length);
      const int seen = causal ? i + 1 : length;
      softmax_rows_fast(std::span<float>(row).first(static_cast<std::size_t>(seen)), 1, seen,
                        scaled ? scaled_scale : unscaled_scale, KernelOptions{.isa = isa});
      std::fill(row.begin() + seen, row.end(), 0.0f);
      float* cells = pooled.data() + static_cast<std::size_t>(i / factor) * side;
      for (int cell = 0; cell < out.side; ++cell) {
        float top = cells[cell];
        bool invalid = std::isnan(top);
        for (int j = cell * factor; j < std::min((cell + 1) * factor, length); ++j) {
          top = std::max(top, row[static_cast<std::size_t>(j)]);
          invalid = invalid || std::isnan(row[static_cast<std::size_t>(j)]);
        }
        cells[cell] = invalid ? std::numeric_limits<float>::quiet_NaN() : top;
        if (!invalid && std::isfinite(top)) out.max_weight = std::max(out.max_weight, top);
      }
    }
  }
  return out;
}

bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Q and K with the edges a pooled map meets: ties (repeated keys, an all-zero query: a uniform
// row), overflow-range scores (a query of 1e37 whose q·k is ±inf or near ±FLT_MAX: NaN rows, and
// rows whose gaps put every weight but one far below e^−87), a NaN query, and ordinary Gaussian rows.
struct Inputs {
  Matrix queries, keys;
};
Inputs edge_inputs(int length, int dim) {
  Inputs in;
  draw_gaussian(in.queries, 3, Stream::queries, length, dim);
  draw_gaussian(in.keys, 3, Stream::keys, length, dim);
  const auto at = [dim](Matrix& m, int row, int col) -> float& {
    return m.values[static_cast<std::size_t>(row) * static_cast<std::size_t>(dim) + static_cast<std::size_t>(col)];
  };
  for (int j = 0; j < length; j += 5)  // ties: every fifth key equals key 1
    for (int c = 0; c < dim; ++c) at(in.keys, j, c) = at(in.keys, 1, c);
  for (int c = 0; c < dim; ++c) {
    at(in.queries, 2, c) = 0.0f;                                      // every score 0: uniform
    at(in.queries, 7, c) = c == 0 ? 3e38f : 0.0f;                     // scores 3e38·k: ±inf for |k| > 1.13
    at(in.queries, 11, c) = c == 0 ? 3e36f : 0.0f;                    // huge finite gaps
    at(in.queries, 13, c) = std::numeric_limits<float>::quiet_NaN();  // a NaN row
  }
  return in;
}

TEST(PooledMaps, EqualTheBlockMaximaOfSoftmaxRowsFastBitForBit) {
  // Lengths past one and two softmax blocks (1024 floats with AVX-512, 512 with AVX2, 256 with
  // SSE2) with a tail of part of a vector; factors whose cells straddle blocks (3, 7, 300) or
  // align with them (1, 32).
  for (const KernelIsa isa : all_isas)
    for (const int length : {37, 1100, 2081})
      for (const int factor : {1, 3, 7, 32, 300})
        for (const bool causal : {false, true})
          for (const double scale : {0.35, 40.0}) {  // 40: gaps far beyond e^−87 (underflow to 0)
            const Inputs in = edge_inputs(length, 6);
            const PooledMaps expected =
                pooled_by_softmax_rows(in.queries, in.keys, scale / 3.0, scale, causal, factor, isa);
            PooledMaps pooled;
            pooled_attention_maps(pooled, in.queries, in.keys, scale / 3.0, scale, causal, factor, {}, {}, isa);
            const std::string where = std::string(kernel_isa_name(isa)) + " L " + std::to_string(length) + " factor " +
                                      std::to_string(factor) + (causal ? " causal" : "") + " scale " +
                                      std::to_string(scale);
            ASSERT_EQ(pooled.side, expected.side) << where;
            ASSERT_EQ(pooled.factor, factor) << where;
            ASSERT_TRUE(same_bits(pooled.max_weight, expected.max_weight))
                << where << ": largest weight " << pooled.max_weight << " against " << expected.max_weight;
            int nan_cells = 0;
            for (std::size_t cell = 0; cell < expected.scaled.size(); ++cell) {
              ASSERT_TRUE(same_bits(pooled.scaled[cell], expected.scaled[cell]))
                  << where << ", scaled cell " << cell << ": " << pooled.scaled[cell] << " against "
                  << expected.scaled[cell];
              ASSERT_TRUE(same_bits(pooled.unscaled[cell], expected.unscaled[cell]))
                  << where << ", unscaled cell " << cell << ": " << pooled.unscaled[cell] << " against "
                  << expected.unscaled[cell];
              nan_cells += std::isnan(expected.scaled[cell]) ? 1 : 0;
            }
            EXPECT_GT(nan_cells, 0) << where << ": the NaN and +inf rows show as NaN cells";
          }
}

// Against the softmax itself: each row in long double from long double scores, pooled the same
// way. Tolerance 2e-6 + 1e-5 of the weight: the float QKᵀ sums (d·2⁻²⁴·Σ|q k| ≈ 1e-6 here, times the
// logit scale ≤ 2) and the fast softmax's float exp and sums (kernels.hpp: ≤ 3e-7 + a·1.2e-7 + 1.5e-6).
TEST(PooledMaps, MatchALongDoubleSoftmaxOfEveryRow) {
  constexpr int length = 700, dim = 8;
  Matrix queries, keys;
  draw_gaussian(queries, 8, Stream::queries, length, dim);
  draw_gaussian(keys, 8, Stream::keys, length, dim);
  for (int i = 0; i < length; i += 9) queries.values[static_cast<std::size_t>(i) * dim] = 0.0f;
  for (const bool causal : {false, true}) {
    const int factor = 6;
    PooledMaps pooled;
    const double scales[2] = {2.0 / std::sqrt(8.0), 2.0};
    pooled_attention_maps(pooled, queries, keys, scales[0], scales[1], causal, factor);
    for (int s = 0; s < 2; ++s) {
      std::vector<long double> cells(static_cast<std::size_t>(pooled.side) * static_cast<std::size_t>(pooled.side));
      for (int i = 0; i < length; ++i) {
        const int seen = causal ? i + 1 : length;
        std::vector<long double> logits(static_cast<std::size_t>(seen));
        for (int j = 0; j < seen; ++j) {
          long double dot = 0.0L;
          for (int c = 0; c < dim; ++c)
            dot += static_cast<long double>(queries.values[static_cast<std::size_t>(i * dim + c)]) *
                   keys.values[static_cast<std::size_t>(j * dim + c)];
          logits[static_cast<std::size_t>(j)] = dot * scales[s];
        }
        const long double top = *std::max_element(logits.begin(), logits.end());
        long double sum = 0.0L;
        for (long double& l : logits) sum += (l = std::exp(l - top));
        for (int j = 0; j < seen; ++j) {
          long double& cell = cells[static_cast<std::size_t>(i / factor) * static_cast<std::size_t>(pooled.side) +
                                    static_cast<std::size_t>(j / factor)];
          cell = std::max(cell, logits[static_cast<std::size_t>(j)] / sum);
        }
      }
      const std::vector<float>& map = s == 0 ? pooled.scaled : pooled.unscaled;
      for (std::size_t cell = 0; cell < cells.size(); ++cell)
        ASSERT_NEAR(map[cell], static_cast<double>(cells[cell]), 2e-6 + 1e-5 * static_cast<double>(cells[cell]))
            << (s == 0 ? "scaled" : "unscaled") << (causal ? " causal" : "") << " cell " << cell;
    }
  }
}

// A Snapshot of a long context whose pooled maps are still to come (as evaluate() leaves it with
// defer_pooled_maps): Q and K, no stored QKᵀ.
Snapshot pending_snapshot(int length) {
  auto cache = std::make_shared<ScoreCache>();
  draw_gaussian(cache->queries, 4, Stream::queries, length, 8);
  draw_gaussian(cache->keys, 4, Stream::keys, length, 8);
  Snapshot snap;
  snap.attention_size = length;
  snap.attention_scores = cache;
  snap.scaled_logit_scale = 0.5;
  snap.unscaled_logit_scale = 1.4;
  snap.attention_max = 0.25f;
  return snap;
}

// Stops the job at its first report (the first chunk done), as a newer slider position does.
struct StopAtFirstReport final : ProgressSink {
  std::stop_source* source = nullptr;
  std::atomic<int> reports{0};
  void update(double, std::string_view) noexcept override {
    reports.fetch_add(1);
    source->request_stop();
  }
};

TEST(PooledMaps, AStopBetweenChunksReturnsFalseAndPublishesNothing) {
  constexpr int length = 3000;  // factor 3: 1000 pooled rows, chunks of 42, so 24 chunks
  Snapshot snap = pending_snapshot(length);
  ASSERT_TRUE(pooled_maps_pending(snap));
  std::stop_source source;
  StopAtFirstReport sink;
  sink.source = &source;
  EXPECT_FALSE(complete_pooled_maps(snap, source.get_token(), Progress({}, &sink)));
  EXPECT_TRUE(pooled_maps_pending(snap)) << "a stopped job leaves the Snapshot without maps";
  EXPECT_EQ(snap.pooled.factor, 0);
  EXPECT_TRUE(snap.pooled.scaled.empty());
  EXPECT_EQ(snap.attention_max, 0.25f) << "the colour range is left as it was";
  // One report per chunk finished: one from each thread that was inside a chunk, never all 24.
  EXPECT_GE(sink.reports.load(), 1);
  EXPECT_LT(sink.reports.load(), 24) << "the other chunks were not computed after the stop";
  EXPECT_FALSE(preview_pooled_maps(snap, source.get_token())) << "an already stopped token";
  EXPECT_TRUE(pooled_maps_pending(snap));
}

// The window's bar (Evaluator::progress) is told the fraction done as the chunks finish.
struct RecordFractions final : ProgressSink {
  std::atomic<int> reports{0};
  std::atomic<double> largest{0.0};
  void update(double fraction, std::string_view) noexcept override {
    reports.fetch_add(1);
    double seen = largest.load();
    while (fraction > seen && !largest.compare_exchange_weak(seen, fraction)) {
    }
  }
};

TEST(PooledMaps, ProgressReachesOneAfterEveryChunkAndTheAtomicFollows) {
  Snapshot snap = pending_snapshot(3000);
  RecordFractions sink;
  ASSERT_TRUE(complete_pooled_maps(snap, {}, Progress({}, &sink)));
  EXPECT_EQ(sink.reports.load(), 24) << "one report per chunk of 42 pooled rows";
  EXPECT_EQ(sink.largest.load(), 1.0);
  Snapshot again = pending_snapshot(3000);
  std::atomic<float> fraction{0.75f};
  ASSERT_TRUE(complete_pooled_maps(again, {}, &fraction));
  EXPECT_EQ(fraction.load(), 1.0f);
  ASSERT_EQ(again.pooled.scaled.size(), snap.pooled.scaled.size());
  EXPECT_EQ(std::memcmp(again.pooled.scaled.data(), snap.pooled.scaled.data(), snap.pooled.scaled.size() * 4), 0)
      << "the same maps whichever way progress is reported";
}

}  // namespace
}  // namespace smlab
