// The training lab in the app: the live Trainer shows the numbers of the lab at that
// step, pauses while hidden, applies a setting to the running training, starts over for a lesson
// step, adopts loaded weights and hands out its weights; the command line's --train, --steps and
// --list-tasks with their files and one-line errors; sessions carry the training settings; the
// live lab in an App draws its runs as they train, and a window's offscreen copy draws the same.
//
// [SECTION] Index
//   [SECTION] The Trainer
//   [SECTION] Headless training
//   [SECTION] The command line
//   [SECTION] Sessions and the App
#include <gtest/gtest.h>
#include <imgui.h>

#include <GLFW/glfw3.h>  // key codes only

#include <cfloat>
#include <chrono>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "frame/app.hpp"
#include "cli_support.hpp"
#include "headless_support.hpp"
#include "i18n/i18n.hpp"
#include "lessons/lesson_corpus.hpp"
#include "smlab/labs/training.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/panels.hpp"
#include "state/session.hpp"
#include "state/start_state.hpp"
#include "work/trainer.hpp"
#include "export/training_export.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;

// [SECTION] The Trainer

TrainingSettings quick(int steps, int seeds = 1) {
  TrainingSettings s;
  s.steps = steps;
  s.seeds = seeds;
  s.run.batch = 8;
  return s;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_runs(const TrainingLab& live, const TrainingLab& evaluated) {
  ASSERT_EQ(live.runs.size(), evaluated.runs.size());
  EXPECT_EQ(live.steps_done, evaluated.steps_done);
  for (std::size_t r = 0; r < live.runs.size(); ++r) {
    const TrainingRun &a = live.runs[r], &b = evaluated.runs[r];
    ASSERT_EQ(a.loss.mean.size(), b.loss.mean.size()) << a.name;
    for (std::size_t i = 0; i < a.loss.mean.size(); ++i)
      ASSERT_TRUE(same_bits(a.loss.mean[i], b.loss.mean[i])) << a.name << " point " << i;
    EXPECT_TRUE(same_bits(a.steps_to_90, b.steps_to_90)) << a.name;
    EXPECT_EQ(a.shown_map, b.shown_map) << a.name;
  }
}

TEST(Trainer, TheLiveLabAtItsGoalIsTheLabEvaluatedAtThatStep) {
  const TrainingSettings settings = quick(60, 2);
  Trainer trainer;
  trainer.update(settings, true);
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  const Trainer::Published published = trainer.latest();
  ASSERT_NE(published.lab, nullptr);
  EXPECT_FALSE(published.running) << "at its goal the training stops";
  EXPECT_TRUE(published.error.empty()) << published.error;
  TrainingLab evaluated;
  evaluate_training_lab(evaluated, settings);
  expect_same_runs(*published.lab, evaluated);
}

TEST(Trainer, AHiddenLabWaitsAndTrainsWhenShown) {
  const TrainingSettings settings = quick(25);
  Trainer trainer;
  trainer.update(settings, false);
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  ASSERT_NE(trainer.latest().lab, nullptr);
  EXPECT_EQ(trainer.latest().lab->steps_done, 0) << "hidden: no step";
  trainer.command(Trainer::Command::step);
  trainer.command(Trainer::Command::step);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 2) << "Step trains one step even while hidden";
  trainer.command(Trainer::Command::reset);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 0);
  trainer.command(Trainer::Command::train);  // Step paused it
  trainer.update(settings, true);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 25);
}

// Closing the window while the lab trains: the Trainer's destructor stops the worker within one
// slice and joins it (a worker that never looked at `stopping_` would hang here until ctest's
// timeout). The runs were mid-way, far from a goal they could reach in the test's lifetime.
TEST(Trainer, DestroyedWhileTrainingItsWorkerStopsAndJoins) {
  const TrainingSettings settings = quick(TrainingLimits::steps_max);
  int steps_seen = 0;
  bool running = false;
  {
    Trainer trainer;
    trainer.update(settings, true);
    trainer.command(Trainer::Command::train);
    for (int look = 0; look < 2000 && steps_seen == 0; ++look) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      const Trainer::Published published = trainer.latest();
      if (published.lab != nullptr) steps_seen = published.lab->steps_done;
      running = published.running;
    }
  }
  EXPECT_GT(steps_seen, 0) << "the worker trained before it was stopped";
  EXPECT_LT(steps_seen, TrainingLimits::steps_max);
  EXPECT_TRUE(running) << "it was stopped mid-training, not at its goal";
}

// A live key reaches the running training (its history goes on, the change shows in later steps);
// a lesson step's restart gives back exactly a fresh training of its settings.
TEST(Trainer, ALiveChangeActsOnTheRunningTrainingAndALessonStepStartsOver) {
  TrainingSettings settings = quick(30);
  settings.compare = "";
  Trainer trainer;
  trainer.update(settings, true);
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  TrainingSettings hotter = settings;
  hotter.run.temperature = 0.2;
  hotter.steps = 50;
  trainer.update(hotter, true);
  trainer.wait_until_idle();
  const std::shared_ptr<const TrainingLab> live = trainer.latest().lab;
  ASSERT_EQ(live->steps_done, 50);
  EXPECT_EQ(live->runs[0].settings.temperature, 0.2);
  TrainingLab before, fresh;
  evaluate_training_lab(before, quick(30));
  evaluate_training_lab(fresh, hotter);
  // Steps 1-30 are the old training's (the curve's point at step 30 is its last-20 mean there).
  before.runs.erase(before.runs.begin() + 1, before.runs.end());
  EXPECT_TRUE(same_bits(live->runs[0].loss.mean[29], before.runs[0].loss.mean[29]));
  EXPECT_FALSE(same_bits(live->runs[0].loss.mean[49], fresh.runs[0].loss.mean[49]))
      << "the change was applied from step 31, not from the start";
  trainer.update(hotter, true, /*restart=*/true);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 0) << "a lesson step starts over, paused at step 0";
  EXPECT_FALSE(trainer.latest().running);
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  expect_same_runs(*trainer.latest().lab, fresh);
  // A second restart of a training that is already fresh keeps it (no work thrown away).
  const std::uint64_t version = trainer.latest().version;
  trainer.update(hotter, true, true);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 50);
  EXPECT_GE(trainer.latest().version, version);
}

TEST(Trainer, WeightsGoOutAndLoadedWeightsComeIn) {
  TrainingSettings settings = quick(12);
  settings.compare = "";
  Trainer trainer;
  trainer.update(settings, true);
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  const std::uint64_t request = trainer.request_weights();
  trainer.wait_until_idle();
  const Trainer::Published published = trainer.latest();
  ASSERT_EQ(published.weights_request, request);
  ASSERT_NE(published.weights, nullptr);
  Result<train::Run> same = train::Run::create(settings.run);
  ASSERT_TRUE(same.ok());
  same->step(12);
  EXPECT_EQ(*published.weights, same->save()) << "run A's first seed, at its step";

  Result<train::Run> loaded = train::Run::load(*published.weights, "weights");
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  TrainingSettings adopted = settings;
  adopted.steps = 40;
  trainer.adopt(std::move(*loaded), adopted);
  trainer.update(adopted, true);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 40) << "the loaded run trains on from its step 12";
}

// The largest model the settings allow, at batch 1 (a step of seconds, not minutes; about 200 MB),
// one run of one seed.
TrainingSettings largest_model(int steps) {
  TrainingSettings s;
  s.compare = "";
  s.steps = steps;
  s.run.seq_len = train::Limits::seq_len_max;
  s.run.vocab = train::Limits::vocab_max;
  s.run.model_dim = train::Limits::model_dim_max;
  s.run.key_dim = train::Limits::key_dim_max;
  s.run.heads = train::Limits::heads_max;
  s.run.layers = train::Limits::layers_max;
  s.run.batch = 1;
  return s;
}

// A large model's step takes seconds here (minutes at batch 256): Pause, a new setting or closing
// the window reach it inside the step, which is abandoned (trained again when training resumes,
// with the same bits). Waiting for it cannot take the step's time: the Pause below finds the first
// step unfinished, and the destructor returns without waiting for a step either.
TEST(Trainer, PauseAndCloseReachALargeModelInsideItsStep) {
  Trainer trainer;
  trainer.update(largest_model(5), true);
  trainer.command(Trainer::Command::train);
  for (int look = 0; look < 20000 && !trainer.latest().running; ++look)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  ASSERT_TRUE(trainer.latest().running) << "the runs were made and training started";
  trainer.command(Trainer::Command::pause);
  trainer.wait_until_idle();
  const Trainer::Published paused = trainer.latest();
  ASSERT_NE(paused.lab, nullptr);
  EXPECT_FALSE(paused.running);
  EXPECT_EQ(paused.lab->steps_done, 0) << "Pause waited for the step to end";
  EXPECT_TRUE(paused.error.empty()) << paused.error;
  trainer.command(Trainer::Command::train);  // and the destructor stops this one inside its step
}

// The web page's Trainer itself (a pumped runner): nothing happens outside the page's ticks, a tick
// with a budget of zero trains one round, and the training reaches the thread's bits.
TEST(Trainer, ThePagesPumpedTrainerTrainsInItsTicksToTheSameBits) {
  const TrainingSettings settings = quick(40, 2);
  Trainer trainer(WorkRunner::Mode::pumped);
  trainer.update(settings, true);
  trainer.command(Trainer::Command::train);
  EXPECT_EQ(trainer.latest().lab, nullptr) << "the page's trainer worked outside a tick";
  int ticks = 0;
  while (trainer.pump(std::chrono::milliseconds(0)) && ticks < 100000) ++ticks;
  // The 40th tick trained the last round and said the training is done.
  EXPECT_EQ(ticks, 39) << "a tick with no budget trained other than one round";
  ASSERT_NE(trainer.latest().lab, nullptr);
  EXPECT_EQ(trainer.latest().lab->steps_done, 40);
  EXPECT_FALSE(trainer.pump(std::chrono::milliseconds(0))) << "at its goal the page's trainer still works";
  TrainingLab evaluated;
  evaluate_training_lab(evaluated, settings);
  expect_same_runs(*trainer.latest().lab, evaluated);
}

// Training starts only when asked: the first settings make the runs at step 0 and wait, however
// far the goal; Train trains them to it, Pause stops them, and Step trains exactly one step.
TEST(Trainer, TrainsOnlyWhenAsked) {
  const TrainingSettings settings = quick(30, 2);
  Trainer trainer;
  trainer.update(settings, true);
  trainer.wait_until_idle();
  ASSERT_NE(trainer.latest().lab, nullptr) << "the runs are made and shown at step 0";
  EXPECT_EQ(trainer.latest().lab->steps_done, 0);
  EXPECT_FALSE(trainer.latest().running);
  TrainingSettings later = settings;
  later.steps = 40;  // a new goal (as a slider or a session would set) is not a Train press
  trainer.update(later, true);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 0);
  trainer.command(Trainer::Command::step);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 1);
  EXPECT_FALSE(trainer.latest().running) << "Step leaves it paused";
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  EXPECT_EQ(trainer.latest().lab->steps_done, 40);
}

// The pace: the first step at once, then one every 1/speed s; asleep in between.
TEST(Trainer, APacedTrainingIsDueOneStepPerPeriod) {
  using namespace std::chrono;
  EXPECT_EQ(Trainer::paced_steps_due(10, milliseconds(0)), 1);
  EXPECT_EQ(Trainer::paced_steps_due(10, milliseconds(99)), 1);
  EXPECT_EQ(Trainer::paced_steps_due(10, milliseconds(100)), 2);
  EXPECT_EQ(Trainer::paced_steps_due(10, milliseconds(1050)), 11);
  EXPECT_EQ(Trainer::paced_steps_due(1, seconds(5)), 6);
  EXPECT_EQ(Trainer::paced_steps_due(100, seconds(-1)), 1) << "a clock that went back owes nothing";
  const steady_clock::time_point start{};
  EXPECT_EQ(Trainer::next_paced_step(10, start, 1) - start, milliseconds(100));
  EXPECT_EQ(Trainer::next_paced_step(4, start, 3) - start, milliseconds(750));
  // Paced or not, a training reaches the same bits (only its pace differs).
  TrainingSettings paced = quick(3);
  paced.speed = 1000;
  Trainer trainer;
  trainer.update(paced, true);
  trainer.command(Trainer::Command::train);
  trainer.wait_until_idle();
  TrainingLab evaluated;
  evaluate_training_lab(evaluated, paced);
  expect_same_runs(*trainer.latest().lab, evaluated);
}

TEST(Trainer, ALanguageTaskWithoutItsTextSaysSoInOneLine) {
  TrainingSettings settings = quick(5);
  settings.run = train::default_settings(train::Task::language);
  Trainer trainer;
  trainer.update(settings, true);
  trainer.wait_until_idle();
  const std::string& error = trainer.latest().error;
  EXPECT_NE(error.find("train_task=language needs the lesson texts"), std::string::npos) << error;
  EXPECT_EQ(error.find('\n'), std::string::npos);
}

// [SECTION] Headless training

// The lab a headless run trains itself (with its progress line) is the lab evaluate() would give:
// every run, seed and step, bit for bit.
TEST(TrainingHeadless, TheLabTrainedHereIsTheEvaluatedLab) {
  TrainingSettings settings = quick(30, 2);
  settings.compare = "temperature=0.5,2";
  // Told from every run's thread: the count of reports and the stage of the largest fraction.
  struct Counting final : ProgressSink {
    std::mutex mutex;
    int updates = 0;
    double furthest = -1.0;
    std::string last;
    void update(double fraction, std::string_view stage) noexcept override {
      const std::lock_guard lock(mutex);
      ++updates;
      if (fraction > furthest) {
        furthest = fraction;
        last = std::string(stage);
      }
    }
  } progress;
  const auto trained = exporting::train_lab(settings, &progress);
  ASSERT_TRUE(trained.ok()) << trained.error().message;
  TrainingLab evaluated;
  evaluate_training_lab(evaluated, settings);
  expect_same_runs(**trained, evaluated);
  ASSERT_NE((*trained)->histories, nullptr);
  ASSERT_EQ((*trained)->histories->size(), evaluated.histories->size());
  for (std::size_t h = 0; h < evaluated.histories->size(); ++h) {
    const auto &a = (*trained)->histories->at(h).steps, &b = evaluated.histories->at(h).steps;
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) ASSERT_TRUE(same_bits(a[i].loss, b[i].loss)) << h << " step " << i;
  }
  EXPECT_EQ(progress.updates, 30 * 3 * 2) << "one report per step of each of 3 runs x 2 seeds";
  EXPECT_EQ(progress.last, "training: step 30 of 30");
}

// What cannot train, or would train for hours, is refused before any work, in one line naming the
// reason and the setting to change: no lesson texts for the language model, texts too short for
// its train_seq_len, or a model and step count estimated over ten minutes on this machine.
TEST(TrainingHeadless, ARunThatCannotTrainOrWouldTakeHoursIsRefusedFirst) {
  const auto refusal = [](const TrainingSettings& settings) {
    const Result<void> checked = exporting::check_training(settings);
    EXPECT_FALSE(checked.ok());
    if (checked.ok()) return std::string();
    EXPECT_EQ(checked.error().kind, Error::Kind::usage);
    EXPECT_EQ(checked.error().message.find('\n'), std::string::npos) << checked.error().message;
    return checked.error().message;
  };
  TrainingSettings language = quick(5);
  language.run = train::default_settings(train::Task::language);
  EXPECT_NE(refusal(language).find("train_task=language needs the lesson texts"), std::string::npos);
  // About 1,100 characters: a held-out tenth of ~110, too short for L = 128.
  std::string text;
  while (text.size() < 1100) text += "Softmax turns scores into weights. ";
  language.corpus = train::build_corpus(std::vector<std::string>{text}, 1).value();
  language.run.seq_len = 128;
  EXPECT_NE(refusal(language).find("train_seq_len=128 is too long"), std::string::npos) << refusal(language);
  language.run.seq_len = 16;
  EXPECT_TRUE(exporting::check_training(language).ok());

  // Steps: the line names the most that fit, and that many do fit.
  TrainingSettings many = largest_model(TrainingLimits::steps_max);
  const std::string steps_line = refusal(many);
  EXPECT_NE(steps_line.find("is estimated at"), std::string::npos) << steps_line;
  const std::size_t at_most = steps_line.find("lower train_steps to at most ");
  ASSERT_NE(at_most, std::string::npos) << steps_line;
  many.steps = std::stoi(steps_line.substr(at_most + 29));
  EXPECT_GE(many.steps, 1);
  EXPECT_TRUE(exporting::check_training(many).ok()) << "the suggested train_steps=" << many.steps;
  EXPECT_LE(exporting::training_seconds(many), exporting::training_seconds_max);
  // When not even one step fits (here: trained again for each of 100,000 bench frames), the sizes are
  // named instead.
  const Result<void> per_frame = exporting::check_training(largest_model(1), 100000);
  ASSERT_FALSE(per_frame.ok());
  EXPECT_NE(per_frame.error().message.find("one step alone takes"), std::string::npos) << per_frame.error().message;
  EXPECT_NE(per_frame.error().message.find("train_batch"), std::string::npos) << per_frame.error().message;
  // Live training (a bench's frames) checks the runs only.
  EXPECT_TRUE(exporting::check_training(largest_model(TrainingLimits::steps_max), 0).ok());
}

// train-sentence.npz is for --import, which refuses NaN weights: the sentence of a run whose naive
// fp16 softmax overflowed is not importable, and says where; an ordinary one is.
TEST(TrainingHeadless, ASentenceThatImportWouldRefuseIsNamedAsSuch) {
  TrainingSettings blown = quick(20);
  blown.compare = "";
  blown.run.precision = Format::fp16;
  blown.run.softmax = SoftmaxVariant::naive;
  blown.run.init_scale = 100;
  blown.run.scaled = false;
  const auto lab = exporting::train_lab(blown);
  ASSERT_TRUE(lab.ok());
  ASSERT_NE((*lab)->sentence.attention, nullptr);
  const Result<void> refused = exporting::importable(*(*lab)->sentence.attention);
  ASSERT_FALSE(refused.ok()) << "naive fp16 at init scale 100 overflowed in no row";
  EXPECT_NE(refused.error().message.find("NaN in 'weights'"), std::string::npos) << refused.error().message;
  const auto fine = exporting::train_lab(quick(20));
  ASSERT_TRUE(fine.ok());
  EXPECT_TRUE(exporting::importable(*(*fine)->sentence.attention).ok());
}

// [SECTION] The command line

class TrainCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = cli_test::fresh_test_dir("train"); }
  void TearDown() override { fs::remove_all(dir_); }
  cli_test::Outcome run(const std::vector<std::string>& args) const {
    return cli_test::run_program(SMLAB_BINARY, args, dir_, "env -u DISPLAY");
  }
  void expect_one_line_error(const std::vector<std::string>& args, int code, const std::string& needle) const {
    const cli_test::Outcome r = run(args);
    std::string joined;
    for (const auto& a : args) joined += a + " ";
    EXPECT_EQ(r.exit_code, code) << joined << "\nstderr: " << r.err;
    ASSERT_FALSE(r.err.empty()) << joined;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line for: " << joined << "\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << joined << "\nstderr: " << r.err;
  }
  fs::path dir_;
};

TEST_F(TrainCli, ListTasksNamesEveryTask) {
  const cli_test::Outcome r = run({"--list-tasks"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const train::Task task : train::all_tasks)
    EXPECT_NE(r.out.find(std::string(train::task_name(task)) + " "), std::string::npos) << r.out;
}

TEST_F(TrainCli, BadTrainingInputExitsTwoWithOneLine) {
  expect_one_line_error({"--train", "sort", "--export-csv", (dir_ / "a").string()}, 2,
                        "--train 'sort' is not allowed: recall, copy, reverse, maximum, language");
  expect_one_line_error({"--steps", "5", "--export-csv", (dir_ / "b").string()}, 2, "--steps goes with --train TASK");
  expect_one_line_error({"--train", "recall", "--steps", "ten", "--export-csv", (dir_ / "c").string()}, 2,
                        "--steps 'ten' is not allowed: an integer from 0 to 100000");
  expect_one_line_error({"--train", "recall", "--set", "train_d_k=0", "--export-csv", (dir_ / "d").string()}, 2,
                        "train_d_k=0 is not allowed: an integer from 1 to 512");
  expect_one_line_error({"--set", "train_compare=task=copy", "--export-csv", (dir_ / "e").string()}, 2,
                        "train_compare=task=copy is not allowed");
  expect_one_line_error({"--train", "copy", "--set", "train_vocab=1", "--export-csv", (dir_ / "f").string()}, 2,
                        "train_vocab=1");
  EXPECT_FALSE(fs::exists(dir_ / "d" / "train-loss.csv")) << "no file from a refused run";
}

// The headless contract: train-loss.csv's columns and one line per step of every seed of every
// run; each run's final maps; params.csv with the training keys; the .npz that --import shows.
TEST_F(TrainCli, TrainWritesTheLossCurvesTheFinalMapsAndTheParams) {
  const fs::path out = dir_ / "out";
  const cli_test::Outcome r =
      run({"--train", "copy", "--steps", "40", "--set", "train_seeds=2", "--export-csv", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::istringstream loss(cli_test::read_all(out / "train-loss.csv"));
  std::string line;
  std::getline(loss, line);
  EXPECT_EQ(line, "step,run,loss,accuracy,grad_norm_q,grad_norm_k,attention_entropy,max_weight");
  int rows = 0, last_step = 0;
  std::vector<std::string> runs;
  while (std::getline(loss, line)) {
    ++rows;
    const std::size_t comma = line.find(','), second = line.find(',', comma + 1);
    last_step = std::stoi(line.substr(0, comma));
    const std::string run = line.substr(comma + 1, second - comma - 1);
    if (std::find(runs.begin(), runs.end(), run) == runs.end()) runs.push_back(run);
    EXPECT_EQ(std::count(line.begin(), line.end(), ','), 7) << line;
  }
  EXPECT_EQ(rows, 40 * 2 * 2) << "40 steps, runs A and B, 2 seeds each";
  EXPECT_EQ(last_step, 40);
  EXPECT_EQ(runs, (std::vector<std::string>{"A scaled=true seed=1", "A scaled=true seed=2", "B scaled=false seed=1",
                                            "B scaled=false seed=2"}));
  const std::string params = cli_test::read_all(out / "params.csv");
  EXPECT_NE(params.find("train_task,copy\n"), std::string::npos);
  EXPECT_NE(params.find("train_seq_len,12\n"), std::string::npos) << "--train copy starts from copy's own sizes";
  EXPECT_NE(params.find("train_steps,40\n"), std::string::npos);
  const std::string maps = cli_test::read_all(out / "train-attention.csv");
  EXPECT_EQ(maps.substr(0, maps.find('\n')), "run,layer,head,query,key,weight,ideal");
  EXPECT_EQ(std::count(maps.begin(), maps.end(), '\n'), 1 + 2 * 12 * 12) << "two runs' 12x12 maps";
  ASSERT_TRUE(fs::exists(out / "training-accuracy.csv"));
  ASSERT_TRUE(fs::exists(out / "train-sentence.npz"));
  const cli_test::Outcome shown = run({"--import", (out / "train-sentence.npz").string(), "--size", "640x480",
                                       "--screenshot", (dir_ / "imported.png").string()});
  EXPECT_EQ(shown.exit_code, 0) << shown.err;
  EXPECT_TRUE(fs::exists(dir_ / "imported.png"));
}

// --train puts the task's own settings before the typed ones; a longer sequence must still be
// accepted, its vocabulary raised to L - 1 as recall needs (the task's train_vocab=16 was applied
// after train_seq_len=64 and refused it, before train_vocab moved ahead of train_seq_len).
TEST_F(TrainCli, ALongerSequenceThanTheTasksOwnIsAccepted) {
  const fs::path out = dir_ / "long";
  const cli_test::Outcome r = run({"--train", "recall", "--steps", "2", "--set", "train_seq_len=64", "--set",
                                   "train_d_k=256", "--set", "train_compare=", "--export-csv", out.string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string params = cli_test::read_all(out / "params.csv");
  EXPECT_NE(params.find("train_seq_len,64\n"), std::string::npos) << params;
  EXPECT_NE(params.find("train_vocab,63\n"), std::string::npos) << params;
  EXPECT_NE(params.find("train_d_k,256\n"), std::string::npos) << params;
}

TEST_F(TrainCli, TrainWithScreenshotRendersTheTrainedView) {
  const cli_test::Outcome r =
      run({"--train", "recall", "--steps", "30", "--size", "800x600", "--screenshot", (dir_ / "trained.png").string()});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(r.err.empty()) << r.err;
  EXPECT_GT(fs::file_size(dir_ / "trained.png"), 10000u);
}

// [SECTION] Sessions and the App

TEST(TrainingSession, ASessionCarriesTheTrainingSettings) {
  Session session;
  ASSERT_TRUE(set_param(session.params, "train_task", "maximum").ok());
  ASSERT_TRUE(set_param(session.params, "train_compare", "d_k=64,256").ok());
  ASSERT_TRUE(set_param(session.params, "train_sentence", "注意力 attends").ok());
  session.view = View::training;
  const Result<Session> read = parse_session(serialize_session(session));
  ASSERT_TRUE(read.ok()) << read.error().message;
  EXPECT_EQ(read->params.training, session.params.training);
  EXPECT_EQ(read->view, View::training);
}

class TrainingApp : public test_support::HeadlessRender {
 protected:
  TrainingApp() : HeadlessRender(1280, 720) {}
  // One frame with Space held, then one with it released (the offscreen surface has no keyboard).
  void press_space(App& app) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[GLFW_KEY_SPACE] = true;
    app.frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[GLFW_KEY_SPACE] = false;
    app.frame();
  }
};

// The window's lab trains while frames are drawn, and an offscreen copy of the window (a PNG
// export) draws the very picture the window shows, not a training of its own.
TEST_F(TrainingApp, TheLiveLabGrowsWhileFramesAreDrawnAndACopyShowsTheSamePicture) {
  AppOptions options;
  options.live_training = true;
  options.view = View::training;
  options.params.training.steps = 80;
  options.params.training.run.batch = 8;
  App app(*surface_, options);
  app.ui().interaction.commands.push(Command::training_train);  // the Train button
  for (int frame = 0; frame < 3; ++frame) app.frame();
  app.trainer()->wait_until_idle();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  ASSERT_NE(app.training_picture(), nullptr);
  EXPECT_EQ(app.training_picture()->steps_done, 80);
  EXPECT_EQ(app.ui().training.steps_done, 80);
  ASSERT_NE(app.shown_view(), nullptr);
  bool map_a = false;
  for (const NamedPlot& plot : app.shown_view()->plots) map_a = map_a || plot.name == "map-a";
  EXPECT_TRUE(map_a) << "the lab's plots are drawn from the live picture";
  // The model's map frames the cells where the task's ideal map puts its weight (one a scored row).
  const TrainingLab& picture = *app.training_picture();
  for (const NamedPlot& plot : app.shown_view()->plots) {
    if (plot.name != "map-a") continue;
    ASSERT_TRUE(plot.plot.heatmap);
    const std::vector<float>& ideal = picture.runs.front().ideal_map;
    const int length = plot.plot.heatmap->rows;
    ASSERT_EQ(ideal.size(), static_cast<std::size_t>(length * length));
    std::vector<std::pair<int, int>> expected;
    for (int cell = 0; cell < length * length; ++cell)
      if (ideal[static_cast<std::size_t>(cell)] > 0.0f) expected.emplace_back(cell / length, cell % length);
    EXPECT_FALSE(expected.empty());
    EXPECT_EQ(plot.plot.heatmap->framed_cells, expected);
  }

  AppOptions copy_options = options;
  copy_options.live_training = false;
  copy_options.training_shown = app.training_picture();
  copy_options.params = app.ui().params;
  platform::OffscreenOptions size;
  size.width = 640;
  size.height = 480;
  auto surface = platform::Offscreen::create(size);
  ASSERT_TRUE(surface) << surface.error().message;
  App copy(**surface, copy_options);
  for (int frame = 0; frame < 3; ++frame) copy.frame();
  EXPECT_EQ(copy.training_picture(), app.training_picture());
}

// The lab's file buttons are Commands as every other button: Save weights writes run A's weights to
// the path field's file (refusing to replace one unless Overwrite is ticked), Load weights brings
// them back into the lab at their step, and a window without live runs drops the commands rather
// than keeping them queued (which would keep the window awake).
TEST_F(TrainingApp, TheWeightsButtonsAreCommandsThatWriteAndReadTheWeightsFile) {
  const fs::path dir = cli_test::fresh_test_dir("training-weights-commands");
  AppOptions options;
  options.live_training = true;
  options.view = View::training;
  options.params.training.steps = 12;
  options.params.training.run.batch = 8;
  App app(*surface_, options);
  app.ui().training.weights_path = (dir / "run-a.smlab-weights").string();
  app.ui().interaction.commands.push(Command::training_train);
  app.frame();
  app.trainer()->wait_until_idle();
  app.frame();
  ASSERT_EQ(app.ui().training.steps_done, 12);
  app.ui().interaction.commands.push(Command::save_weights);
  for (int frame = 0; frame < 200 && app.ui().training.message.empty(); ++frame) {
    app.frame();
    app.trainer()->wait_until_idle();
  }
  EXPECT_FALSE(app.ui().training.message_is_error) << app.ui().training.message;
  ASSERT_TRUE(fs::is_regular_file(dir / "run-a.smlab-weights")) << app.ui().training.message;
  EXPECT_FALSE(app.ui().interaction.commands.contains(Command::save_weights));

  app.ui().training.message.clear();
  app.ui().interaction.commands.push(Command::save_weights);  // the file is there now
  for (int frame = 0; frame < 200 && app.ui().training.message.empty(); ++frame) {
    app.frame();
    app.trainer()->wait_until_idle();
  }
  EXPECT_TRUE(app.ui().training.message_is_error) << "an existing weights file was replaced unasked";

  app.ui().interaction.commands.push(Command::training_pause);  // else Reset trains to the goal again
  app.ui().interaction.commands.push(Command::training_reset);
  app.frame();
  app.trainer()->wait_until_idle();
  app.frame();
  ASSERT_EQ(app.ui().training.steps_done, 0);
  app.ui().training.message.clear();
  app.ui().interaction.commands.push(Command::load_weights);
  app.frame();
  app.trainer()->wait_until_idle();
  app.frame();
  EXPECT_FALSE(app.ui().training.message_is_error) << app.ui().training.message;
  EXPECT_EQ(app.ui().training.steps_done, 12) << "the loaded weights did not bring their step";

  AppOptions still = options;
  still.live_training = false;
  App headless(*surface_, still);
  for (const Command asked : {Command::training_train, Command::save_weights, Command::load_weights})
    headless.ui().interaction.commands.push(asked);
  headless.frame();
  EXPECT_TRUE(headless.ui().interaction.commands.empty()) << "a window without live runs kept the lab's commands";
}

// A restart that restores a session left in the training lab, with a long many-seed goal, opens
// the lab at step 0 and waits for Train, and so does a second window restored from the same
// session: neither starts a training nobody asked for. Space (or Train) starts it.
TEST_F(TrainingApp, ARestoredSessionAndASecondWindowWaitAtStepZeroUntilAsked) {
  Session saved;
  ASSERT_TRUE(set_param(saved.params, "train_steps", "100000").ok());
  ASSERT_TRUE(set_param(saved.params, "train_seeds", "8").ok());
  ASSERT_TRUE(set_param(saved.params, "train_batch", "8").ok());
  saved.view = View::training;
  const fs::path dir = fs::path(::testing::TempDir()) / "training-restore";
  fs::create_directories(dir);
  { std::ofstream(dir / "session.json") << serialize_session(saved); }
  const Result<Session> restored = load_session(dir / "session.json");
  ASSERT_TRUE(restored.ok()) << restored.error().message;
  AppOptions options;
  options.live_training = true;  // as the window's
  ASSERT_TRUE(apply_session(*restored, options.lessons, {}, options).ok());
  ASSERT_EQ(options.view, View::training);
  App first(*surface_, options);
  platform::OffscreenOptions size;
  size.width = 800;
  size.height = 600;
  auto other = platform::Offscreen::create(size);
  ASSERT_TRUE(other) << other.error().message;
  App second(**other, options);
  for (int frame = 0; frame < 3; ++frame) first.frame(), second.frame();
  first.trainer()->wait_until_idle();
  second.trainer()->wait_until_idle();
  for (int frame = 0; frame < 2; ++frame) first.frame(), second.frame();
  for (App* app : {&first, &second}) {
    ASSERT_NE(app->training_picture(), nullptr) << "the lab is shown, at step 0";
    EXPECT_EQ(app->training_picture()->steps_done, 0);
    EXPECT_EQ(app->training_picture()->goal, 100000);
    EXPECT_FALSE(app->ui().training.running);
  }
  // Train in the first window trains it (and only it).
  first.ui().interaction.commands.push(Command::training_train);
  first.frame();
  int steps = 0;
  for (int look = 0; look < 2000 && steps == 0; ++look) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    first.frame();
    steps = first.ui().training.steps_done;
  }
  EXPECT_GT(steps, 0);
  EXPECT_TRUE(first.ui().training.running);
  first.ui().interaction.commands.push(Command::training_pause);
  first.frame();
  second.frame();
  EXPECT_EQ(second.training_picture()->steps_done, 0);
}

// In the training view the column starts with the lab's own controls (Train first) and has none of
// the dashboard's sliders, whose T and d_k do not touch the training; the dashboard keeps them.
TEST_F(TrainingApp, TheTrainingViewsColumnHasTheTrainingControlsFirstAndNoDashboardSliders) {
  AppOptions options;
  options.live_training = true;
  options.view = View::training;
  options.params.training.run.batch = 8;
  options.params.training.steps = 5;
  App app(*surface_, options);
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  const std::vector<std::string>& items = app.ui().control_items;
  ASSERT_FALSE(items.empty());
  EXPECT_EQ(items.front(), "train-toggle") << "the Train button comes first";
  EXPECT_NE(std::find(items.begin(), items.end(), "train_d_k"), items.end());
  for (const char* dashboard : {"temperature", "score_scale", "d_k", "seq_len", "row", "seed"})
    EXPECT_EQ(std::find(items.begin(), items.end(), dashboard), items.end()) << dashboard;
  app.ui().view = View::dashboard;
  app.ui().select_view_tab = true;
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  const std::vector<std::string>& dashboard = app.ui().control_items;
  EXPECT_NE(std::find(dashboard.begin(), dashboard.end(), "d_k"), dashboard.end());
  EXPECT_EQ(std::find(dashboard.begin(), dashboard.end(), "train-toggle"), dashboard.end());
}

// A lesson step that shows the lab opens it paused at step 0, with the probe's map, at the step's
// pace; Space starts it and the map forms.
TEST_F(TrainingApp, ALessonStepOpensTheLabPausedAtStepZeroWithItsMap) {
  AppOptions options;
  options.live_training = true;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  App app(*surface_, options);
  const std::optional<std::size_t> lesson = find_lesson(app.ui().lessons, "watch-attention-learn");
  ASSERT_TRUE(lesson);
  ASSERT_TRUE(open_lesson_step(app.ui(), *lesson, 0, false));
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  app.trainer()->wait_until_idle();
  for (int frame = 0; frame < 2; ++frame) app.frame();
  ASSERT_NE(app.training_picture(), nullptr);
  EXPECT_EQ(app.training_picture()->steps_done, 0);
  EXPECT_FALSE(app.ui().training.running);
  EXPECT_GT(app.ui().params.training.speed, 0) << "a pace a class can watch";
  EXPECT_LE(app.ui().params.training.speed, 30);
  bool map_a = false;
  for (const PlacedPlot& placed : app.ui().placed_plots) map_a = map_a || placed.name == "training/map-a";
  EXPECT_TRUE(map_a) << "the probe's map";
  const std::vector<float> untrained = app.training_picture()->runs.front().shown_map;
  const double temperature = app.ui().params.temperature;
  press_space(app);
  int steps = 0;
  for (int look = 0; look < 4000 && steps < 2; ++look) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    app.frame();
    steps = app.ui().training.steps_done;
  }
  EXPECT_GE(steps, 2) << "Space started it";
  EXPECT_NE(app.training_picture()->runs.front().shown_map, untrained) << "the map changes as it trains";
  // Space is Train alone here: it also started the temperature sweep, which moved T unseen and kept
  // the window recomputing every frame after the training had stopped (120 % CPU, seen live).
  EXPECT_FALSE(app.ui().interaction.sweep_playing) << "Space also played the sweep";
  EXPECT_EQ(app.ui().params.temperature, temperature);
}

// Run names in the lab's legends and titles name the compared setting in the shown language: "A
// scaled=true" in English, "A 除以 √d_k=是" in Chinese, where it was left in English.
TEST_F(TrainingApp, TheRunsAreNamedByTheComparedSettingInTheShownLanguage) {
  for (const i18n::Language language : {i18n::Language::English, i18n::Language::Chinese}) {
    AppOptions options;
    options.view = View::training;
    options.language = language;
    options.params.training.steps = 20;
    options.params.training.run.batch = 8;
    App app(*surface_, options);
    for (int frame = 0; frame < 3; ++frame) app.frame();
    app.wait_for_snapshot();
    app.frame();
    ASSERT_NE(app.shown_view(), nullptr);
    std::vector<std::string> labels;
    for (const NamedPlot& plot : app.shown_view()->plots)
      for (const auto& line : plot.plot.lines) labels.push_back(line.label);
    const bool chinese = language == i18n::Language::Chinese;
    const std::string a = chinese ? "A 除以 √d_k=是" : "A scaled=true",
                      b = chinese ? "B 除以 √d_k=否" : "B scaled=false";
    EXPECT_NE(std::find(labels.begin(), labels.end(), a), labels.end()) << i18n::language_code(language);
    EXPECT_NE(std::find(labels.begin(), labels.end(), b), labels.end()) << i18n::language_code(language);
    if (chinese) {
      for (const std::string& label : labels)
        EXPECT_EQ(label.find("scaled="), std::string::npos) << "an English setting in a Chinese legend: " << label;
    }
  }
}

// A lesson step's layout is planned once and measures the training status at its longest, so the
// status a running or paused training writes later never pushes the step's buttons out of its
// panel (the plan made while the status was short left Previous and Next clipped).
TEST_F(TrainingApp, TheLongestStatusIsAtLeastAsLongAsEveryStatusTheLabWrites) {
  AppOptions options;
  App app(*surface_, options);  // the string tables and the font
  ImGui::SetCurrentContext(surface_->imgui_context());
  const ImFont* font = app.ui_font();
  ASSERT_NE(font, nullptr);
  const auto width = [font](const std::string& text) {
    return font->CalcTextSizeA(font->FontSize, FLT_MAX, 0.0f, text.c_str(), text.c_str() + text.size()).x;
  };
  for (const i18n::Language language : {i18n::Language::English, i18n::Language::Chinese}) {
    const i18n::Use use(language);
    UiState ui;
    ui.params.training.steps = 1500;
    const std::string longest = longest_training_status(ui);
    TrainingLab lab;
    lab.goal = 1500;
    for (const bool live : {false, true})
      for (const bool running : {false, true})
        for (const int done : {0, 7, 1500}) {
          ui.training.live = live;
          ui.training.running = running;
          ui.training.steps_per_second = 123.456;
          lab.steps_done = done;
          const std::string status = training_status(ui, &lab);
          EXPECT_LE(width(status), width(longest))
              << i18n::language_code(language) << ": '" << status << "' is longer than '" << longest << "'";
        }
  }
}

// The language model labels its maps and bars with the lesson texts' characters, Chinese ones
// too: an English window carries their glyphs (they were drawn as "?"), and the typed sentence's.
TEST_F(TrainingApp, AnEnglishWindowHasTheGlyphsOfTheLanguageModelsTokens) {
  AppOptions options;
  options.view = View::training;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  ASSERT_TRUE(set_param(options.params, "train_task", "language").ok());
  ASSERT_TRUE(set_param(options.params, "train_sentence", "Softmax 把分数变成权重").ok());
  ASSERT_TRUE(set_param(options.params, "train_steps", "2").ok());  // the glyphs, not a trained model
  App app(*surface_, options);
  ASSERT_EQ(app.language(), i18n::Language::English);
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  ImGui::SetCurrentContext(surface_->imgui_context());
  ImFont* font = app.ui_font();
  ASSERT_NE(font, nullptr);
  for (const char32_t c : {U'把', U'分', U'权', U'的', U'注'})
    EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(c)), nullptr) << "U+" << std::hex << static_cast<int>(c);
}

}  // namespace
}  // namespace smlab::app
