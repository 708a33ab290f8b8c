// Training steps of the tiny attention model timed with Google Benchmark: the default
// task, d_k = 256 at L = 64, and the language model on the lesson corpus, on one thread and on all.
#include <benchmark/benchmark.h>

#include "smlab/parallel.hpp"
#include "smlab/train/run.hpp"
#include "train_test_support.hpp"

namespace smlab::train {
namespace {

// One iteration is one step: a fresh batch, forward, backward, the probe's trace and Adam.
void time_steps(benchmark::State& state, const Settings& settings, std::shared_ptr<const Corpus> corpus) {
  Run run = Run::create(settings, std::move(corpus)).value();
  run.set_max_threads(static_cast<int>(state.range(0)));
  run.step(3);  // buffers sized, pages touched
  for (auto _ : state) run.step(1);
  state.counters["steps/s"] = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["pool"] = available_threads();
}

// threads: 1 = the calling thread only, 0 = the pool (every available thread).
void BM_TrainStepDefault(benchmark::State& state) { time_steps(state, Settings{}, nullptr); }
BENCHMARK(BM_TrainStepDefault)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMicrosecond)->UseRealTime();

void BM_TrainStepKeyDim256Length64(benchmark::State& state) {
  Settings s;
  s.key_dim = 256;
  s.seq_len = 64;
  s.vocab = 64;  // recall needs L − 1 distinct keys
  time_steps(state, s, nullptr);
}
BENCHMARK(BM_TrainStepKeyDim256Length64)
    ->ArgName("threads")
    ->Arg(1)
    ->Arg(0)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_TrainStepLanguage(benchmark::State& state) {
  const auto corpus =
      build_corpus(train_test::lesson_texts(SMLAB_SOURCE_DIR "/assets/lessons"), lesson_corpus_min_count);
  if (!corpus.ok()) {
    state.SkipWithError(corpus.error().message.c_str());
    return;
  }
  time_steps(state, default_settings(Task::language), corpus.value());
}
BENCHMARK(BM_TrainStepLanguage)->ArgName("threads")->Arg(1)->Arg(0)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace smlab::train
