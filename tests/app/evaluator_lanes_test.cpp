// The recompute worker's lanes (docs/ARCHITECTURE.md): a Snapshot final in every plot
// but the Monte Carlo curves is published before the sweep's trials run, a newer submission drops
// the stale Monte Carlo lane and, while a final picture is fresh, a stale job's maps, and what is
// finally shown equals a synchronous evaluate(), byte for byte in every CSV. No timings: the order of the published
// results is what is checked.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli_support.hpp"
#include "export/csv.hpp"
#include "smlab/evaluate.hpp"
#include "snapshot_csv.hpp"
#include "work/evaluator.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;

Params lane_params() {
  Params params;
  params.seq_len = 96;  // 56 Monte Carlo trials per point, a coarse estimate of 7
  params.key_dim = 24;
  params.row = 5;
  return params;
}

// What the result callback saw, one entry per publication.
struct Seen {
  Params params;
  bool maps_pending = false, entropy_curve_pending = false, monte_carlo_pending = false, complete = false;
  bool has_images = false;
  std::int64_t trials = 0;
  float attention_max = 0.0f;
};

Seen seen_of(const Evaluator::Latest& latest) {
  return {latest.snapshot->params,
          latest.maps_pending,
          latest.entropy_curve_pending,
          latest.monte_carlo_pending,
          latest.complete,
          latest.images != nullptr,
          latest.snapshot->dk_sweep.trials,
          latest.snapshot->attention_max};
}

std::string describe(const std::vector<Seen>& seen) {
  std::string text;
  for (const Seen& s : seen)
    text += "\n  T=" + std::to_string(s.params.temperature) + " d_k=" + std::to_string(s.params.key_dim) +
            " maps_pending=" + std::to_string(s.maps_pending) + " mc_pending=" + std::to_string(s.monte_carlo_pending) +
            " complete=" + std::to_string(s.complete) + " trials=" + std::to_string(s.trials);
  return text;
}

// Submits `stale`; on the worker, the first time a publication satisfies `supersede_when`, submits
// `newer`, as a slider moving on would. Returns once the newer Params are submitted and the worker
// is idle, with every publication seen so far. What the callback writes is shared with it: a
// callback copied before it was removed may still run after the worker is idle.
template <class When>
std::vector<Seen> supersede(Evaluator& evaluator, const Params& stale, const Params& newer, When supersede_when) {
  struct Watch {
    std::mutex mutex;
    std::vector<Seen> seen;
    bool submitted = false;
  };
  const auto watch = std::make_shared<Watch>();
  evaluator.set_result_callback([&evaluator, watch, stale, newer, supersede_when] {
    const Evaluator::Latest latest = evaluator.latest();
    if (!latest.snapshot) return;
    std::lock_guard lock(watch->mutex);
    watch->seen.push_back(seen_of(latest));
    if (!watch->submitted && latest.snapshot->params == stale && supersede_when(latest)) {
      watch->submitted = true;
      evaluator.submit(newer);
    }
  });
  evaluator.submit(stale);
  // Until the newer Params are submitted (from the callback) and then finished.
  for (;;) {
    evaluator.wait_until_idle();
    std::lock_guard lock(watch->mutex);
    if (watch->submitted) break;
  }
  evaluator.wait_until_idle();
  evaluator.set_result_callback({});
  std::lock_guard lock(watch->mutex);
  return watch->seen;
}

void expect_same_csv(const Snapshot& shown, const Params& params, const fs::path& dir) {
  const auto staged = snapshot_csv_files(shown, dir / "shown");
  const auto fresh = snapshot_csv_files(evaluate(params), dir / "fresh");
  ASSERT_EQ(staged.size(), fresh.size());
  for (std::size_t f = 0; f < staged.size(); ++f) {
    EXPECT_EQ(staged[f].first, fresh[f].first);
    EXPECT_TRUE(staged[f].second == fresh[f].second) << staged[f].first << " differs from a synchronous evaluate()";
  }
}

// The lane tests' evaluator: refined to `trials` per point at most, the maps' images made.
void set_up_lanes(Evaluator& evaluator, std::int64_t trials) {
  evaluator.set_refine_limit(trials);
  evaluator.set_map_image_spec({64, plot::Colormap::Viridis});
}

// After a stale submission and a newer one: the stale Params' maps were shown exactly when the job
// was not to drop them, and the newer Params are shown complete, equal to a synchronous evaluate().
void expect_newer_final_and_stale_maps(const Evaluator& evaluator, const std::vector<Seen>& seen, const Params& stale,
                                       const Params& newer, bool drop, std::int64_t trials, const std::string& dir) {
  const bool stale_maps_shown =
      std::any_of(seen.begin(), seen.end(), [&](const Seen& s) { return s.params == stale && !s.maps_pending; });
  EXPECT_EQ(stale_maps_shown, !drop) << (drop ? "the stale maps were made" : "the maps starved") << describe(seen);
  const Evaluator::Latest latest = evaluator.latest();
  ASSERT_TRUE(latest.complete) << describe(seen);
  ASSERT_EQ(latest.snapshot->params, newer);
  EXPECT_EQ(latest.snapshot->dk_sweep.trials, trials);
  expect_same_csv(*latest.snapshot, newer, cli_test::fresh_test_dir(dir));
}

// A temperature step changes the sweep's setting, so its full first estimate is the Monte Carlo
// lane's work: the maps (with their colour range) and H(T) must be on screen before it starts.
TEST(EvaluatorLanes, MapsArePublishedFinalBeforeTheMonteCarloCurves) {
  const Params base = lane_params();
  const std::int64_t full = automatic_dk_trials(base.seq_len);
  ASSERT_LT(coarse_dk_trials(full), full);
  Evaluator evaluator;
  set_up_lanes(evaluator, full);
  std::mutex mutex;
  std::condition_variable published;
  std::vector<Seen> seen;
  evaluator.set_result_callback([&] {
    const Evaluator::Latest latest = evaluator.latest();
    std::lock_guard lock(mutex);
    if (latest.snapshot) seen.push_back(seen_of(latest));
    published.notify_all();
  });
  evaluator.submit(base);
  evaluator.wait_until_idle();
  for (const double temperature : {0.37, 3.0}) {
    Params next = base;
    next.temperature = temperature;
    next.key_dim = temperature > 1.0 ? 40 : base.key_dim;  // a new QKᵀ too, the second time
    {
      std::lock_guard lock(mutex);
      seen.clear();
    }
    evaluator.submit(next);
    evaluator.wait_until_idle();
    std::vector<Seen> of_next;
    {
      // The callback of the last publication runs after the worker is idle: wait for it (the
      // bound only keeps a broken worker from hanging the test).
      std::unique_lock lock(mutex);
      published.wait_for(lock, std::chrono::seconds(60), [&] {
        return std::any_of(seen.begin(), seen.end(), [&](const Seen& s) { return s.params == next && s.complete; });
      });
      for (const Seen& s : seen)
        if (s.params == next) of_next.push_back(s);
    }
    const Snapshot reference = evaluate(next);
    // The first publication whose maps are final: not complete (the sweep still coarse), with
    // the final colour range and images, and H(T) whole.
    const auto maps_final = std::find_if(of_next.begin(), of_next.end(), [](const Seen& s) { return !s.maps_pending; });
    ASSERT_NE(maps_final, of_next.end()) << describe(of_next);
    EXPECT_FALSE(maps_final->complete) << "the maps waited for the Monte Carlo curves" << describe(of_next);
    EXPECT_TRUE(maps_final->monte_carlo_pending) << describe(of_next);
    EXPECT_FALSE(maps_final->entropy_curve_pending) << describe(of_next);
    EXPECT_TRUE(maps_final->has_images) << describe(of_next);
    EXPECT_EQ(maps_final->trials, coarse_dk_trials(full)) << describe(of_next);
    EXPECT_EQ(maps_final->attention_max, reference.attention_max) << describe(of_next);
    // Then the complete one, equal to a synchronous evaluation.
    ASSERT_TRUE(of_next.back().complete) << describe(of_next);
    EXPECT_FALSE(of_next.back().monte_carlo_pending);
    EXPECT_EQ(of_next.back().trials, full);
    const Evaluator::Latest latest = evaluator.latest();
    ASSERT_EQ(latest.snapshot->params, next);
    expect_same_csv(
        *latest.snapshot, next,
        cli_test::fresh_test_dir("lanes-maps-first-" + std::to_string(static_cast<int>(temperature * 100))));
  }
}

// A submission that arrives while a job's Monte Carlo curves are still to come makes them stale:
// that lane is dropped (the old Params never get a complete Snapshot), the newer Params run, and
// what they finally show equals a synchronous evaluate(), also when their sweep continued the
// dropped one's trials (a d_k change keeps the sweep's setting).
TEST(EvaluatorLanes, ANewerSubmissionDropsTheStaleMonteCarloLane) {
  const Params base = lane_params();
  const std::int64_t full = automatic_dk_trials(base.seq_len);
  int index = 0;
  for (auto change : {+[](Params& p) { p.key_dim = 31; }, +[](Params& p) { p.score_scale = 2.0; }}) {
    Evaluator evaluator;
    set_up_lanes(evaluator, full);
    evaluator.submit(base);
    evaluator.wait_until_idle();
    Params stale = base, newer = base;
    stale.temperature = 0.5;  // a new sweep setting: the Monte Carlo lane has work
    newer.temperature = 0.5;
    change(newer);
    // Right after the stale Params' maps are published final: the newer Params arrive before its
    // Monte Carlo lane starts.
    const std::vector<Seen> seen = supersede(evaluator, stale, newer, [](const Evaluator::Latest& latest) {
      return !latest.maps_pending && latest.monte_carlo_pending;
    });
    for (const Seen& s : seen)
      EXPECT_FALSE(s.params == stale && s.complete)
          << "change " << index << ": the stale Monte Carlo lane ran" << describe(seen);
    const Evaluator::Latest latest = evaluator.latest();
    ASSERT_TRUE(latest.complete) << describe(seen);
    ASSERT_EQ(latest.snapshot->params, newer);
    EXPECT_EQ(latest.snapshot->dk_sweep.trials, full);
    expect_same_csv(*latest.snapshot, newer, cli_test::fresh_test_dir("lanes-stale-" + std::to_string(index)));
    ++index;
  }
}

// A newer submission while a job's maps are still to come: the job drops its later stages when a
// final picture was on screen a moment ago (the first results keep up with a drag), and finishes
// them when not (the maps still follow a long drag). The age rule is set to hours or to zero so
// the test does not depend on timing.
TEST(EvaluatorLanes, ASupersededJobDropsItsMapsOnlyWhileAFinalPictureIsFresh) {
  const Params base = lane_params();
  const std::int64_t full = automatic_dk_trials(base.seq_len);
  for (const bool drop : {true, false}) {
    Evaluator evaluator;
    set_up_lanes(evaluator, full);
    evaluator.set_stale_work_max_age(drop ? std::chrono::hours(1) : std::chrono::milliseconds(0));
    evaluator.submit(base);
    evaluator.wait_until_idle();
    Params stale = base, newer = base;
    stale.key_dim = 40;  // a new QKᵀ: the maps are later stages
    newer.key_dim = 48;
    // Right after the stale Params' first result: the slider has moved on.
    const std::vector<Seen> seen =
        supersede(evaluator, stale, newer, [](const Evaluator::Latest& latest) { return latest.maps_pending; });
    expect_newer_final_and_stale_maps(evaluator, seen, stale, newer, drop, full, drop ? "lanes-drop" : "lanes-keep");
  }
}

// The web page's pace (Evaluator::Pace::sliced, run here on the test's thread with the worker held):
// a first result, then one phase per step, each published result a stage of the one job, and the
// last equal to a synchronous evaluate(), byte for byte in every CSV and in the maps' pixels. A
// row of ≥ 512 keys stages H(T) too, and a new d_k a QKᵀ: every phase runs.
TEST(EvaluatorLanes, TheWebPagesSlicesPublishTheSameFinalSnapshot) {
  Params params = lane_params();
  params.seq_len = 520;
  params.temperature = 0.7;
  const std::int64_t full = automatic_dk_trials(params.seq_len);
  Evaluator sliced, worker;
  for (Evaluator* evaluator : {&sliced, &worker}) {
    set_up_lanes(*evaluator, full);
  }
  sliced.hold_for_testing(true);
  EXPECT_FALSE(sliced.slice_for_testing()) << "a slice with nothing submitted did something";
  sliced.submit(params);
  std::vector<Seen> seen;
  int slices = 0;
  std::uint64_t version = 0;
  while (sliced.slice_for_testing() && slices < 100000) {
    ++slices;
    const Evaluator::Latest latest = sliced.latest();
    ASSERT_TRUE(latest.snapshot) << "slice " << slices << " published nothing yet";
    if (latest.version != version) seen.push_back(seen_of(latest));
    version = latest.version;
  }
  ASSERT_FALSE(seen.empty());
  // First result, QKᵀ, two maps' passes, their colours, H(T), and at least one Monte Carlo chunk.
  EXPECT_GE(slices, 7) << describe(seen);
  EXPECT_TRUE(seen.front().maps_pending) << "the first slice did not publish a first result" << describe(seen);
  EXPECT_TRUE(seen.front().entropy_curve_pending) << describe(seen);
  const auto maps_final = std::find_if(seen.begin(), seen.end(), [](const Seen& s) { return !s.maps_pending; });
  ASSERT_NE(maps_final, seen.end()) << describe(seen);
  EXPECT_TRUE(maps_final->monte_carlo_pending) << "the maps waited for the Monte Carlo curves" << describe(seen);
  EXPECT_TRUE(maps_final->has_images) << describe(seen);
  ASSERT_TRUE(seen.back().complete) << describe(seen);
  EXPECT_EQ(seen.back().trials, full);

  worker.submit(params);
  worker.wait_until_idle();
  const Evaluator::Latest page = sliced.latest(), desktop = worker.latest();
  ASSERT_TRUE(desktop.complete);
  EXPECT_EQ(page.snapshot->attention_max, desktop.snapshot->attention_max);
  ASSERT_TRUE(page.images && desktop.images);
  EXPECT_TRUE(page.images->scaled.rgba == desktop.images->scaled.rgba) << "the page's scaled map differs";
  EXPECT_TRUE(page.images->unscaled.rgba == desktop.images->unscaled.rgba) << "the page's unscaled map differs";
  expect_same_csv(*page.snapshot, params, cli_test::fresh_test_dir("lanes-sliced"));
}

// The web page's Evaluator itself (a pumped runner, WorkRunner::Mode::pumped), driven as the page's
// tick drives it: wait_for_latest with the tick's slice, and nothing else runs it. It publishes the
// stages one after another, never runs without a submission, and its final picture is the desktop
// thread's, byte for byte.
TEST(EvaluatorLanes, ThePagesPumpedEvaluatorPublishesTheDesktopsPicture) {
  Params params = lane_params();
  params.seq_len = 520;
  const std::int64_t full = automatic_dk_trials(params.seq_len);
  Evaluator page(WorkRunner::Mode::pumped), desktop;
  set_up_lanes(page, full);
  set_up_lanes(desktop, full);
  page.wait_for_latest(std::chrono::microseconds(0));
  EXPECT_FALSE(page.latest().snapshot) << "a tick with nothing submitted computed something";
  page.submit(params);
  std::vector<Seen> seen;
  std::uint64_t version = 0;
  int ticks = 0;
  while (!page.latest().complete && ticks < 100000) {
    page.wait_for_latest(std::chrono::microseconds(0));  // one phase per tick
    ++ticks;
    const Evaluator::Latest latest = page.latest();
    if (latest.version != version) seen.push_back(seen_of(latest));
    version = latest.version;
  }
  ASSERT_TRUE(page.latest().complete) << "the page's evaluator never completed" << describe(seen);
  EXPECT_GE(ticks, 7) << "the page ran the whole job in fewer ticks than it has phases" << describe(seen);
  ASSERT_FALSE(seen.empty());
  EXPECT_TRUE(seen.front().maps_pending) << "the first tick did not publish a first result" << describe(seen);
  desktop.submit(params);
  desktop.wait_until_idle();
  const Evaluator::Latest shown = page.latest(), reference = desktop.latest();
  ASSERT_TRUE(shown.images && reference.images);
  EXPECT_TRUE(shown.images->scaled.rgba == reference.images->scaled.rgba) << "the page's scaled map differs";
  EXPECT_TRUE(shown.images->unscaled.rgba == reference.images->unscaled.rgba) << "the page's unscaled map differs";
  EXPECT_EQ(shown.snapshot->dk_sweep.trials, reference.snapshot->dk_sweep.trials);
  expect_same_csv(*shown.snapshot, params, cli_test::fresh_test_dir("lanes-pumped"));
}

// On the page a frame comes between two phases, and with it the slider's next position: while a
// final picture is fresh, the stale job's remaining phases are dropped and the newer job's first
// result comes in the same slice; when none is fresh, the stale job's maps are finished first (a
// long drag still shows maps). The age rule is hours or zero, so no timing decides.
TEST(EvaluatorLanes, TheWebPagesSlicesDropAStaleJobOnlyWhileAFinalPictureIsFresh) {
  const Params base = lane_params();
  const std::int64_t full = automatic_dk_trials(base.seq_len);
  for (const bool drop : {true, false}) {
    Evaluator evaluator;
    set_up_lanes(evaluator, full);
    evaluator.set_stale_work_max_age(drop ? std::chrono::hours(1) : std::chrono::milliseconds(0));
    evaluator.hold_for_testing(true);
    evaluator.submit(base);
    while (evaluator.slice_for_testing()) {
    }
    Params stale = base, newer = base;
    stale.key_dim = 40;  // a new QKᵀ: the maps are later phases
    newer.key_dim = 48;
    evaluator.submit(stale);
    ASSERT_TRUE(evaluator.slice_for_testing());
    ASSERT_TRUE(evaluator.latest().maps_pending) << "the first slice was not a first result";
    evaluator.submit(newer);
    ASSERT_TRUE(evaluator.slice_for_testing());
    std::vector<Seen> seen{seen_of(evaluator.latest())};
    if (drop) {
      EXPECT_EQ(seen.back().params, newer) << "the stale job's phase ran before the newer first result";
      EXPECT_TRUE(seen.back().maps_pending);
    } else {
      EXPECT_EQ(seen.back().params, stale) << "the stale job was dropped with no fresh final picture";
    }
    while (evaluator.slice_for_testing()) seen.push_back(seen_of(evaluator.latest()));
    expect_newer_final_and_stale_maps(evaluator, seen, stale, newer, drop, full,
                                      drop ? "lanes-sliced-drop" : "lanes-sliced-keep");
  }
}

// Refinement plans its trial count from a pilot run (up to ~0.1 s): the worker makes the pilot a
// refinement chunk's worth per step, so a slider moved meanwhile waits for one chunk, and the plan
// it reaches is planned_dk_trials's. With the worker held the test's thread takes the steps; the
// only sleep waits out the settle time refinement needs (nothing is timed).
TEST(EvaluatorLanes, ANewerSubmissionWaitsForOnePilotChunkNotTheWholePilot) {
  const Params params = lane_params();
  Evaluator evaluator;
  evaluator.hold_for_testing(true);
  evaluator.submit(params);
  while (evaluator.slice_for_testing()) {
  }
  const std::int64_t trials = evaluator.latest().sweep->trials;
  ASSERT_EQ(evaluator.latest().sweep->planned_trials, 0);
  std::this_thread::sleep_for(Evaluator::refine_settle_time + std::chrono::milliseconds(50));
  ASSERT_TRUE(evaluator.slice_for_testing()) << "no refinement step after the settle time";
  EXPECT_EQ(evaluator.latest().sweep->trials, trials) << "the first step planned and refined in one go";
  Params newer = params;
  newer.row = 6;  // the same sweep setting: the pilot goes on where it stopped
  evaluator.submit(newer);
  ASSERT_TRUE(evaluator.slice_for_testing());
  EXPECT_EQ(evaluator.latest().snapshot->params, newer);
  while (evaluator.slice_for_testing()) {
  }
  std::this_thread::sleep_for(Evaluator::refine_settle_time + std::chrono::milliseconds(50));
  int steps = 0;
  while (evaluator.latest().sweep->planned_trials == 0 && evaluator.slice_for_testing()) ++steps;
  EXPECT_GT(steps, 2) << "the pilot was not made in chunks";
  EXPECT_EQ(evaluator.latest().sweep->planned_trials,
            planned_dk_trials(evaluator.latest().sweep->config, Evaluator::refine_max_trials));
}

// In core: a sweep stopped part way is continued by the next evaluation of its setting, and the
// result is the fresh sweep's, bit for bit (trials are seeded by index, montecarlo.hpp).
TEST(EvaluatorLanes, AStoppedSweepIsContinuedBitForBit) {
  const Params params = lane_params();
  DkSweep partial = make_dk_sweep(dk_sweep_config(params));
  add_dk_trials(partial, 3);
  EvaluateOptions options;
  options.previous_sweep = &partial;
  const Snapshot continued = *evaluate(params, options);
  const Snapshot fresh = evaluate(params);
  ASSERT_EQ(continued.dk_sweep.trials, fresh.dk_sweep.trials);
  ASSERT_EQ(continued.dk_sweep.scaled.size(), fresh.dk_sweep.scaled.size());
  for (std::size_t i = 0; i < fresh.dk_sweep.scaled.size(); ++i) {
    for (const bool scaled : {true, false}) {
      const RowStats& a = (scaled ? continued.dk_sweep.scaled : continued.dk_sweep.unscaled)[i];
      const RowStats& b = (scaled ? fresh.dk_sweep.scaled : fresh.dk_sweep.unscaled)[i];
      EXPECT_EQ(a.entropy_nats.mean, b.entropy_nats.mean) << "point " << i << (scaled ? " scaled" : " unscaled");
      EXPECT_EQ(a.max_weight.sum_squared_deviation, b.max_weight.sum_squared_deviation) << "point " << i;
      EXPECT_EQ(a.jacobian_norm.mean, b.jacobian_norm.mean) << "point " << i;
    }
  }
  // A sweep of another setting is not continued: a fresh one is drawn.
  Params other = params;
  other.temperature = 2.0;
  const Snapshot elsewhere = *evaluate(other, options);
  EXPECT_EQ(elsewhere.dk_sweep.config, dk_sweep_config(other));
  EXPECT_EQ(elsewhere.dk_sweep.scaled[0].entropy_nats.mean, evaluate(other).dk_sweep.scaled[0].entropy_nats.mean);
}

}  // namespace
}  // namespace smlab::app
