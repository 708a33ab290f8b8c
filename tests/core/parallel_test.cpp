// The worker pool (parallel.hpp): every index runs exactly once, from concurrent callers and from
// inside a task, and a task's exception reaches the caller.
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

#include "smlab/parallel.hpp"

namespace smlab {
namespace {

TEST(ParallelFor, RunsEveryIndexExactlyOnce) {
  EXPECT_GE(available_threads(), 1);
  for (int count : {0, 1, 2, 3, 17, 1000}) {
    std::vector<std::atomic<int>> runs(static_cast<std::size_t>(count));
    parallel_for(count, [&](int index) { runs[static_cast<std::size_t>(index)].fetch_add(1); });
    for (int i = 0; i < count; ++i)
      EXPECT_EQ(runs[static_cast<std::size_t>(i)].load(), 1) << "count " << count << ", index " << i;
  }
}

// Four threads each start jobs whose tasks start jobs of their own: nothing deadlocks, nothing is
// lost (each caller sees all of its own work done when its parallel_for returns).
TEST(ParallelFor, ConcurrentAndNestedCallsAllComplete) {
  std::vector<long> totals(4, 0);
  {
    std::vector<std::jthread> callers;
    for (int c = 0; c < 4; ++c)
      callers.emplace_back([&totals, c] {
        for (int round = 0; round < 50; ++round) {
          std::atomic<long> sum{0};
          parallel_for(6,
                       [&](int outer) { parallel_for(5, [&](int inner) { sum.fetch_add(outer * 5 + inner + 1); }); });
          totals[static_cast<std::size_t>(c)] += sum.load();  // 1 + 2 + … + 30 = 465
        }
      });
  }
  for (long total : totals) EXPECT_EQ(total, 50 * 465);
}

TEST(ParallelFor, RethrowsATasksExceptionAfterTheOtherIndicesRan) {
  std::atomic<int> ran{0};
  EXPECT_THROW(parallel_for(8,
                            [&](int index) {
                              ran.fetch_add(1);
                              if (index == 3) throw std::runtime_error("task 3 failed");
                            }),
               std::runtime_error);
  EXPECT_EQ(ran.load(), 8);
}

}  // namespace
}  // namespace smlab
