// The background-work engine (app/work/work_runner.hpp) in both of its modes: pumped, as the web page
// runs it between frames, and on a thread, as the desktop does; and BackgroundJob, the work that
// runs whole, on it. Nothing here is timed: a thread's progress is waited for on a condition (with
// a generous limit that only a hang reaches), and "nothing more ran" is read after the runner
// joined its thread.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/progress.hpp"
#include "work/background_job.hpp"
#include "work/work_runner.hpp"

namespace smlab::app {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
constexpr auto hang = 30s;  // far beyond any slice here: reached only if the runner never runs it

// What a scripted work saw, kept by the test so it can be read after the runner joined its thread.
struct Record {
  std::mutex mutex;
  std::condition_variable changed;
  int slices = 0;
  bool held = false;  // a slice waits at its start until released (or stopped)
  bool stopped_seen = false;
  std::vector<NextSlice> script;  // what the slices answer, in turn; then when_poked
  std::vector<Clock::duration> budgets;

  void set_held(bool value) {
    {
      const std::lock_guard lock(mutex);
      held = value;
    }
    changed.notify_all();
  }
  // Waits until `count` slices have started; false if that never happens.
  bool wait_for(int count) {
    std::unique_lock lock(mutex);
    return changed.wait_for(lock, hang, [&] { return slices >= count; });
  }
};

class Scripted final : public SlicedWork {
 public:
  Scripted(Record& record, WorkRunner::Mode mode) : record_(record), runner(*this, {"smlab-test", 5ms, mode, {}}) {}

  NextSlice run_slice(Clock::duration budget, const std::stop_token& stop) override {
    std::unique_lock lock(record_.mutex);
    ++record_.slices;
    record_.budgets.push_back(budget);
    record_.changed.notify_all();
    record_.changed.wait(lock, [&] { return !record_.held || stop.stop_requested(); });
    record_.stopped_seen = record_.stopped_seen || stop.stop_requested();
    if (record_.script.empty()) return NextSlice::when_poked();
    const NextSlice next = record_.script.front();
    record_.script.erase(record_.script.begin());
    return next;
  }

 private:
  Record& record_;

 public:
  WorkRunner runner;  // last: joined before record_ goes
};

TEST(WorkRunner, PumpedRunsASliceOnlyWhenPokedOrDue) {
  Record record;
  Scripted work(record, WorkRunner::Mode::pumped);
  EXPECT_FALSE(work.runner.threaded());
  EXPECT_FALSE(work.runner.pump(1ms)) << "a runner never poked said it has work";
  EXPECT_EQ(record.slices, 0);
  record.script = {NextSlice::now(), NextSlice::at(Clock::now() + 1h), NextSlice::at(Clock::now() - 1s)};
  work.runner.poke();
  EXPECT_TRUE(work.runner.pump(3ms)) << "now: more to do";
  EXPECT_EQ(record.slices, 1);
  ASSERT_EQ(record.budgets.size(), 1u);
  EXPECT_EQ(record.budgets.front(), Clock::duration(3ms)) << "the slice was not given the pump's budget";
  EXPECT_TRUE(work.runner.pump(1ms)) << "at an hour from now: still work to do, later";
  EXPECT_EQ(record.slices, 2);
  EXPECT_TRUE(work.runner.pump(1ms)) << "not due yet, but due later";
  EXPECT_EQ(record.slices, 2) << "a slice ran an hour before it was due";
  work.runner.poke();  // new input wakes a paced work early
  EXPECT_TRUE(work.runner.pump(1ms));
  EXPECT_EQ(record.slices, 3);
  EXPECT_FALSE(work.runner.pump(1ms)) << "due in the past: it runs, then the script says when_poked";
  EXPECT_EQ(record.slices, 4);
  EXPECT_FALSE(work.runner.pump(1ms));
  EXPECT_EQ(record.slices, 4) << "a slice ran with nothing poked";
}

TEST(WorkRunner, FinishedWorkRunsNoMoreSlices) {
  Record record;
  Scripted work(record, WorkRunner::Mode::pumped);
  record.script = {NextSlice::finished()};
  work.runner.poke();
  EXPECT_FALSE(work.runner.pump(1ms));
  EXPECT_TRUE(work.runner.finished());
  work.runner.poke();
  EXPECT_FALSE(work.runner.pump(1ms));
  EXPECT_EQ(record.slices, 1) << "a finished work was run again";
}

// Pokes while a slice runs are not lost and do not pile up: exactly one more slice follows.
TEST(WorkRunner, AThreadRunsOneSliceForThePokesDuringASlice) {
  Record record;
  {
    Scripted work(record, WorkRunner::Mode::thread);
    EXPECT_TRUE(work.runner.threaded());
    EXPECT_FALSE(work.runner.pump(1ms)) << "pump ran a threaded runner's work on the caller's thread";
    record.set_held(true);
    work.runner.poke();
    ASSERT_TRUE(record.wait_for(1)) << "the thread never ran the poked work";
    for (int k = 0; k < 5; ++k) work.runner.poke();
    record.set_held(false);
    ASSERT_TRUE(record.wait_for(2)) << "the pokes during the slice were lost";
  }  // the runner joined its thread: every slice it ran is counted
  EXPECT_EQ(record.slices, 2) << "five pokes during one slice ran more than one slice after it";
}

TEST(WorkRunner, AThreadSleepsUntilItsWorkIsDue) {
  Record record;
  {
    Scripted work(record, WorkRunner::Mode::thread);
    record.script = {NextSlice::at(Clock::now() + 20ms)};
    work.runner.poke();
    ASSERT_TRUE(record.wait_for(2)) << "a paced work was never woken at its time";
  }
  EXPECT_EQ(record.slices, 2) << "the thread ran a slice that was not poked or due";
}

TEST(WorkRunner, CancelReachesTheRunningSlice) {
  Record record;
  Scripted work(record, WorkRunner::Mode::thread);
  record.set_held(true);  // held until the stop
  work.runner.poke();
  ASSERT_TRUE(record.wait_for(1));
  EXPECT_FALSE(work.runner.cancel_requested());
  work.runner.cancel();
  EXPECT_TRUE(work.runner.cancel_requested());
  std::unique_lock lock(record.mutex);
  record.changed.notify_all();  // the held slice reads its stop token on waking
  EXPECT_TRUE(record.changed.wait_for(lock, hang, [&] { return record.stopped_seen; }))
      << "the running slice never saw the cancel";
}

TEST(WorkRunner, ProgressIsKeptAndWakesAtMostTenTimesASecond) {
  std::atomic<int> wakes{0};
  Record record;
  Scripted work(record, WorkRunner::Mode::pumped);
  WorkRunner runner(work, {"smlab-test", 5ms, WorkRunner::Mode::pumped, [&] { ++wakes; }});
  runner.update(0.25, "reading q.npy");
  runner.update(0.5, "reading k.npy");
  const JobProgress progress = runner.progress();
  EXPECT_EQ(progress.fraction, 0.5);
  EXPECT_EQ(progress.stage, "reading k.npy");
  EXPECT_EQ(wakes.load(), 1) << "two reports within 100 ms woke the window twice";
}

// [BackgroundJob]

Result<std::string> greeting(const Progress& progress) {
  progress.part(0.0, 0.5, "first half").report(1.0);
  if (progress.cancelled()) return cancelled_error("greeting");
  return std::string("hello");
}

TEST(BackgroundJob, PumpedRunsWhenTheFrameAsksForTheResult) {
  int runs = 0;
  BackgroundJob<Result<std::string>> job(
      [&](const Progress& progress) {
        ++runs;
        return greeting(progress);
      },
      {}, WorkRunner::Mode::pumped);
  EXPECT_EQ(runs, 0) << "the page's job ran before the frame asked for it";
  EXPECT_FALSE(job.done());
  const std::optional<Result<std::string>> result = job.take_result();
  ASSERT_TRUE(result.has_value());
  ASSERT_TRUE(result->ok());
  EXPECT_EQ(**result, "hello");
  EXPECT_EQ(job.progress().fraction, 0.5);
  EXPECT_EQ(job.progress().stage, "first half");
  EXPECT_FALSE(job.take_result().has_value()) << "a result was taken twice";
  EXPECT_EQ(runs, 1);
}

TEST(BackgroundJob, OnAThreadTheResultArrivesAndCancelEndsItsWay) {
  std::mutex mutex;
  std::condition_variable woken;
  BackgroundJob<Result<std::string>> job(
      [&](const Progress& progress) -> Result<std::string> {
        while (!progress.cancelled()) std::this_thread::yield();  // until Cancel
        return greeting(progress);
      },
      [&] {
        const std::lock_guard lock(mutex);
        woken.notify_all();
      });
  job.cancel();
  {
    // The wake comes for the progress too; the last one, after the result.
    std::unique_lock lock(mutex);
    ASSERT_TRUE(woken.wait_for(lock, hang, [&] { return job.done(); })) << "the job's result never came";
  }
  const std::optional<Result<std::string>> result = job.take_result();
  ASSERT_TRUE(result.has_value());
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().message, "greeting cancelled: nothing was changed");
}

TEST(BackgroundJob, AnExceptionBecomesTheResultsError) {
  BackgroundJob<Result<std::string>> job(
      [](const Progress&) -> Result<std::string> { throw std::runtime_error("the disk fell off"); }, {},
      WorkRunner::Mode::pumped);
  const std::optional<Result<std::string>> result = job.take_result();
  ASSERT_TRUE(result.has_value());
  ASSERT_FALSE(result->ok());
  EXPECT_EQ(result->error().message, "failed: the disk fell off");
}

}  // namespace
}  // namespace smlab::app
