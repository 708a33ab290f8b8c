// The core kernels timed with Google Benchmark: softmax rows (fast and the scalar reference),
// QKᵀ (both), the d_k Monte Carlo sweep, a recompute at L = 4096, and two probes of the machine: memory copy and peak
// FMA.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/kernels.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/montecarlo.hpp"
#include "smlab/parallel.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr std::int64_t softmax_total = 16 << 20;  // 16M float elements = 64 MiB, beyond every cache

// Rows of `cols` elements, 16M in all; softmax in place again and again (a softmax of weights is
// still a valid input). Bytes counted: one read and one write of each element.
std::vector<float> softmax_input(int cols) {
  Matrix draw;
  draw_gaussian(draw, 1, Stream::queries, static_cast<int>(softmax_total / cols), cols, 3.0);
  return std::move(draw.values);
}

void BM_SoftmaxRowsFast(benchmark::State& state) {
  const auto cols = static_cast<int>(state.range(0));
  const auto threads = static_cast<int>(state.range(1));
  std::vector<float> matrix = softmax_input(cols);
  const int rows = static_cast<int>(softmax_total / cols);
  for (auto _ : state) {
    softmax_rows_fast(matrix, rows, cols, 0.5, {.max_threads = threads});
    benchmark::DoNotOptimize(matrix.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * softmax_total * 8);
  state.SetItemsProcessed(state.iterations() * softmax_total);
  state.SetLabel(std::string(kernel_isa_name()));
}
BENCHMARK(BM_SoftmaxRowsFast)
    ->ArgNames({"cols", "threads"})
    ->ArgsProduct({{64, 1024, 16384, 262144, 1 << 20}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// One row recomputed on its own (the app's on-demand path: softmax_rows_fast(row, 1, cols, …)),
// bit-identical to the row inside a whole-map call. The row stays in cache: this is the per-call
// cost (dispatch, no threads, no allocation up to 64 K floats), not memory bandwidth.
void BM_SoftmaxOneRow(benchmark::State& state) {
  const auto cols = static_cast<int>(state.range(0));
  std::vector<float> row = softmax_input(cols);
  row.resize(static_cast<std::size_t>(cols));
  for (auto _ : state) {
    softmax_rows_fast(row, 1, cols, 0.5);
    benchmark::DoNotOptimize(row.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(state.iterations() * cols);
}
BENCHMARK(BM_SoftmaxOneRow)->ArgName("cols")->Arg(64)->Arg(1024)->Arg(4096);

void BM_SoftmaxRowsReference(benchmark::State& state) {
  const auto cols = static_cast<int>(state.range(0));
  std::vector<float> matrix = softmax_input(cols);
  const int rows = static_cast<int>(softmax_total / cols);
  for (auto _ : state) {
    softmax_rows_inplace(matrix, rows, cols, 0.5);
    benchmark::DoNotOptimize(matrix.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * softmax_total * 8);
  state.SetItemsProcessed(state.iterations() * softmax_total);
}
BENCHMARK(BM_SoftmaxRowsReference)
    ->ArgName("cols")
    ->Arg(1024)
    ->Arg(1 << 20)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// STREAM-style copy of 64 MiB, split over `threads` threads: the bandwidth softmax is held to.
// Bytes counted as STREAM counts them: one read and one write per element.
void BM_MemoryCopy(benchmark::State& state) {
  const auto threads = static_cast<int>(state.range(0));
  std::vector<float> source(softmax_total, 1.0f), destination(softmax_total, 0.0f);
  for (auto _ : state) {
    std::vector<std::jthread> helpers;
    const std::int64_t share = softmax_total / threads;
    for (int t = 1; t < threads; ++t)
      helpers.emplace_back([&, t] {
        std::memcpy(destination.data() + t * share, source.data() + t * share, static_cast<std::size_t>(share) * 4);
      });
    std::memcpy(destination.data(), source.data(), static_cast<std::size_t>(share) * 4);
    helpers.clear();
    benchmark::DoNotOptimize(destination.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * softmax_total * 8);
}
BENCHMARK(BM_MemoryCopy)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The same 64 MiB scaled in place, a[i] *= s: softmax's own access pattern (each line read once
// and written back once). A copy with ordinary stores also reads each destination line before
// writing it, three bytes moved for every two credited, so it understates what an in-place
// kernel can reach (here 88 against 49 GB/s on two threads). The report gives softmax's share
// of both: of the copy, the measure, and of this, the stricter one.
void BM_MemoryScaleInPlace(benchmark::State& state) {
  const auto threads = static_cast<int>(state.range(0));
  std::vector<float> data(softmax_total, 1.0f);
  const std::int64_t share = softmax_total / threads;
  auto scale = [&](int t) {
    float* first = data.data() + t * share;
    for (std::int64_t i = 0; i < share; ++i) first[i] *= 0.999f;
  };
  for (auto _ : state) {
    std::vector<std::jthread> helpers;
    for (int t = 1; t < threads; ++t) helpers.emplace_back(scale, t);
    scale(0);
    helpers.clear();
    benchmark::DoNotOptimize(data.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(state.iterations() * softmax_total * 8);
}
BENCHMARK(BM_MemoryScaleInPlace)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Seeded Q and K for the QKᵀ benchmarks; flops counted as 2·L²·d (one multiply, one add).
struct QkInputs {
  Matrix queries, keys, out;
  QkInputs(int length, int dim) {
    draw_gaussian(queries, 1, Stream::queries, length, dim);
    draw_gaussian(keys, 1, Stream::keys, length, dim);
  }
};

void BM_QkFast(benchmark::State& state) {
  const auto length = static_cast<int>(state.range(0)), dim = static_cast<int>(state.range(1));
  const auto threads = static_cast<int>(state.range(2));
  QkInputs inputs(length, dim);
  // One untimed call first: it allocates the map and takes its first-touch page faults (64 MiB
  // at L = 4096, which the app avoids with reserve_with_huge_pages), so the loop times the kernel.
  dot_product_scores_fast(inputs.out, inputs.queries, inputs.keys, {.max_threads = threads});
  for (auto _ : state) {
    dot_product_scores_fast(inputs.out, inputs.queries, inputs.keys, {.max_threads = threads});
    benchmark::DoNotOptimize(inputs.out.values.data());
  }
  state.counters["flops"] = benchmark::Counter(2.0 * length * length * dim * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
  state.SetLabel(std::string(kernel_isa_name()));
}
BENCHMARK(BM_QkFast)
    ->ArgNames({"L", "d_k", "threads"})
    ->ArgsProduct({{256, 1024, 4096}, {64, 1024}, {1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The maps of a long imported context, tile by tile from Q and K (both maps, block maxima into
// ≤ 1024² cells): what a temperature change costs beyond L = 4096, where no QKᵀ is stored.
void BM_PooledAttentionMaps(benchmark::State& state) {
  const auto length = static_cast<int>(state.range(0)), dim = static_cast<int>(state.range(1));
  QkInputs inputs(length, dim);
  PooledMaps pooled;
  const int factor = (length + pooled_side_max - 1) / pooled_side_max;
  for (auto _ : state) {
    pooled_attention_maps(pooled, inputs.queries, inputs.keys, 0.088, 1.0, false, factor);
    benchmark::DoNotOptimize(pooled.scaled.data());
  }
  state.counters["flops"] = benchmark::Counter(2.0 * length * length * dim * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PooledAttentionMaps)
    ->ArgNames({"L", "d"})
    ->ArgsProduct({{4096, 16384, 32768}, {64, 128}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// The scores alone of BM_PooledAttentionMaps' work: the same chunks of 128 queries against every
// key through the QKᵀ kernel, one thread per chunk, each thread taking the next chunk. What is left
// of the pooled maps' time beyond this is the two softmaxes and the pooling (docs/PERFORMANCE.md).
void BM_PooledMapsScoresOnly(benchmark::State& state) {
  const auto length = static_cast<int>(state.range(0)), dim = static_cast<int>(state.range(1));
  QkInputs inputs(length, dim);
  constexpr int chunk_rows = 128;
  const int chunks = (length + chunk_rows - 1) / chunk_rows;
  for (auto _ : state) {
    std::atomic<int> next_chunk{0};
    parallel_for(available_threads(), [&](int) {
      std::vector<float> raw;
      Matrix chunk{0, dim, {}};
      for (int index = next_chunk.fetch_add(1); index < chunks; index = next_chunk.fetch_add(1)) {
        const int first = index * chunk_rows, rows = std::min(chunk_rows, length - first);
        chunk.rows = rows;
        chunk.values.assign(inputs.queries.values.begin() + static_cast<std::ptrdiff_t>(first) * dim,
                            inputs.queries.values.begin() + static_cast<std::ptrdiff_t>(first + rows) * dim);
        reserve_with_huge_pages(raw, static_cast<std::size_t>(rows) * static_cast<std::size_t>(length));
        raw.resize(static_cast<std::size_t>(rows) * static_cast<std::size_t>(length));
        dot_product_scores_fast(raw, chunk, inputs.keys, {.max_threads = 1});
        benchmark::DoNotOptimize(raw.data());
      }
    });
  }
  state.counters["flops"] = benchmark::Counter(2.0 * length * length * dim * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_PooledMapsScoresOnly)
    ->ArgNames({"L", "d"})
    ->ArgsProduct({{4096, 16384, 32768}, {64, 128}})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_QkReference(benchmark::State& state) {
  const auto length = static_cast<int>(state.range(0)), dim = static_cast<int>(state.range(1));
  QkInputs inputs(length, dim);
  for (auto _ : state) {
    dot_product_scores(inputs.out, inputs.queries, inputs.keys);
    benchmark::DoNotOptimize(inputs.out.values.data());
  }
  state.counters["flops"] = benchmark::Counter(2.0 * length * length * dim * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}
BENCHMARK(BM_QkReference)
    ->ArgNames({"L", "d_k"})
    ->ArgsProduct({{256, 1024}, {64, 1024}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

// Peak FMA throughput of one core: 12 independent accumulator chains (enough to cover FMA latency
// on two pipes), no memory traffic. Run with 2 threads for both cores.
typedef float Floats16 __attribute__((vector_size(64)));
typedef float Floats8 __attribute__((vector_size(32)));

template <class F>
[[gnu::always_inline]] inline void fma_chains(benchmark::State& state) {
  constexpr int chains = 12, steps = 1 << 16;
  F sums[chains];
  for (int k = 0; k < chains; ++k) sums[k] = F{} + static_cast<float>(k);
  const F multiplier = F{} + 0.999999f, addend = F{} + 1e-7f;
  for (auto _ : state) {
    for (int s = 0; s < steps; ++s)
      for (int k = 0; k < chains; ++k) sums[k] = sums[k] * multiplier + addend;
    benchmark::DoNotOptimize(sums);
  }
  state.counters["flops"] = benchmark::Counter(
      2.0 * chains * steps * (sizeof(F) / 4) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
[[gnu::target("avx512f,fma")]] void BM_PeakFmaAvx512(benchmark::State& state) { fma_chains<Floats16>(state); }
[[gnu::target("avx2,fma")]] void BM_PeakFmaAvx2(benchmark::State& state) { fma_chains<Floats8>(state); }
BENCHMARK(BM_PeakFmaAvx2)->Threads(1)->Threads(2)->UseRealTime();
BENCHMARK(BM_PeakFmaAvx512)->Threads(1)->Threads(2)->UseRealTime();

void BM_Exp(benchmark::State& state) {
  std::vector<float> values(1 << 16);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = -20.0f + 20.0f * static_cast<float>(i) / 65536.0f;
  std::vector<float> out(values.size());
  for (auto _ : state) {
    exp_fast(out, values);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(values.size()));
}
BENCHMARK(BM_Exp);

// The dashboard's entropy-versus-d_k curve: 13 points (d_k = 1 … 4096), L = 10, trials added in
// rounds of 100 until every point's standard error is below 0.005. Reports the trials needed.
void BM_MonteCarloDkCurve(benchmark::State& state) {
  const auto threads = static_cast<int>(state.range(0));
  std::int64_t trials = 0;
  double worst_error = 0.0;
  for (auto _ : state) {
    DkSweepConfig config;
    config.seq_len = 10;
    config.key_dims = power_of_two_key_dims();
    DkSweep sweep = make_dk_sweep(config);
    do {
      add_dk_trials(sweep, 100, threads);
      worst_error = 0.0;
      for (std::size_t p = 0; p < sweep.scaled.size(); ++p)
        worst_error = std::max({worst_error, sweep.scaled[p].entropy_nats.standard_error(),
                                sweep.unscaled[p].entropy_nats.standard_error()});
    } while (worst_error >= 0.005);
    trials = sweep.trials;
  }
  state.counters["trials_per_point"] = static_cast<double>(trials);
  state.counters["worst_standard_error"] = worst_error;
  state.counters["trials_per_second"] = benchmark::Counter(
      static_cast<double>(trials) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_MonteCarloDkCurve)->ArgName("threads")->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// The recompute after a temperature step at L = 4096, d_k = 64 (the issue's "229 ms on 16 cores
// as on 2"): evaluate() with QKᵀ cached, so the d_k sweep (4 trials a point), both maps' colour
// range (attention_map_max: two 16 M-weight softmaxes) and the row. Threads: every available one;
// compare `taskset -c 0` with all CPUs. The app's recompute adds the two maps' images (app/plot).
void BM_RecomputeAfterTemperature(benchmark::State& state) {
  Params params;
  params.seq_len = static_cast<int>(state.range(0));
  std::shared_ptr<const ScoreCache> cache;
  EvaluateOptions options;
  options.score_cache = &cache;
  (void)evaluate(params, options);
  bool low = false;
  for (auto _ : state) {
    params.temperature = (low = !low) ? 0.8 : 1.25;
    benchmark::DoNotOptimize(evaluate(params, options));
  }
  state.counters["threads"] = available_threads();
}
BENCHMARK(BM_RecomputeAfterTemperature)->ArgName("L")->Arg(4096)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace smlab

BENCHMARK_MAIN();
