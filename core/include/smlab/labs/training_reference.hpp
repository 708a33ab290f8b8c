// The training lab's reference result (assets/training-reference.json, docs/TRAINING.md "Numbers
// over seeds"): every number about training that the lesson and the docs quote, measured over 32
// seeds with the fraction of runs that never get there, a median and quartiles, each with its
// standard error. The experiments are written as the lesson writes its steps (train_KEY=VALUE);
// the same code measures a second group of seeds, against which a slow test checks every number.
//
// [SECTION] Index
//   [SECTION] The experiments
//   [SECTION] One seed
//   [SECTION] Summaries over seeds
//   [SECTION] The file
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/train/statistics.hpp"

namespace smlab {

// [SECTION] The experiments

// One run of an experiment: its train_KEY=VALUE on top of the experiment's.
struct ReferenceRun {
  std::string name;                      // "A", "B", ...
  std::vector<std::string> assignments;  // e.g. {"train_scaled=false"}
};

struct ReferenceExperiment {
  std::string id;  // "scaling-dk64": what the lesson, the docs and the tests call it
  std::string description;
  std::vector<std::string> assignments;  // train_KEY=VALUE on the recall task's defaults
  std::vector<ReferenceRun> runs;
  int steps = 0;  // the step budget: a run that has not reached 90 % by then never did
  // Every seed trains all `steps` (for the final accuracy and loss, the probe's match and the
  // skipped steps); otherwise a seed stops at 90 % (all its other numbers are those of step 1).
  bool whole = false;
};
std::span<const ReferenceExperiment> training_reference_experiments();
const ReferenceExperiment* find_reference_experiment(std::string_view id);

// The training settings of run `run` of `experiment` at seed `seed`; Error::usage if an
// assignment is refused (a program error: the reference test evaluates every one).
Result<train::Settings> reference_settings(const ReferenceExperiment& experiment, std::size_t run, std::uint64_t seed);

// [SECTION] One seed

// What one seed of one run gave. NaN (or 0 for steps) where the experiment does not measure it.
struct ReferenceSeed {
  std::uint64_t seed = 0;
  int steps_to_90 = 0;  // the first step whose last-20-batch accuracy is ≥ 0.9; 0: not within the budget
  // Step 1, at the initial weights: the batch's loss, the mean max weight and the saturated
  // fraction of the rows the loss reads, ‖∂L/∂Q‖ and ‖∂L/∂K‖.
  double start_loss = 0.0, start_max_weight = 0.0, start_saturated = 0.0, start_grad_norm_q = 0.0,
         start_grad_norm_k = 0.0;
  // Whole experiments: the last 20 batches' accuracy and loss, the probe's ideal match at the end,
  // the first step whose loss or gradient was not finite (0: none) and the fraction skipped.
  double final_accuracy = 0.0, final_loss = 0.0, probe_match = 0.0;
  int first_nonfinite = 0;
  double skipped_fraction = 0.0;
};
ReferenceSeed measure_reference_seed(const train::Settings& settings, int steps, bool whole);

// [SECTION] Summaries over seeds

// The numbers the lesson and the docs quote about one run.
struct ReferenceRunResult {
  std::string name;
  std::vector<std::string> assignments;
  std::vector<ReferenceSeed> seeds;
  train::Fraction never_90;          // seeds that did not reach 90 % within the budget
  train::SampleSummary steps_to_90;  // those seeds as +inf: median and quartiles, not the mean
  train::SampleSummary start_saturated, start_max_weight, start_loss, start_grad_norm_q;
  // ‖∂L/∂Q‖ at step 1 over run A's at the same seed (run A: 1), and how many seeds' exceed 2.
  train::SampleSummary start_grad_q_over_a;
  train::Fraction grad_q_over_a_above_2;
  // Whole experiments (n = 0 otherwise).
  train::SampleSummary final_accuracy, final_loss, probe_match, skipped_fraction;
  train::SampleSummary first_nonfinite;  // seeds without one as +inf
  train::Fraction nonfinite_seeds, nonfinite_at_step_1;
};

struct ReferenceExperimentResult {
  const ReferenceExperiment* experiment = nullptr;
  std::vector<ReferenceRunResult> runs;
};

struct TrainingReference {
  std::uint64_t first_seed = 1;
  int seeds = 0;
  std::vector<ReferenceExperimentResult> experiments;
};

// Measures `ids` (every experiment when empty) over seeds first_seed … first_seed + seeds − 1,
// the seeds on parallel_for's pool (each on one thread: the same bits as one after another).
Result<TrainingReference> evaluate_training_reference(std::uint64_t first_seed, int seeds,
                                                      std::span<const std::string> ids = {});
// The summaries from the seeds (evaluate_training_reference calls it; a reader of the file may too).
void summarize_reference_run(ReferenceRunResult& run, const ReferenceRunResult* run_a, bool whole);

// [SECTION] The file

// The command that writes assets/training-reference.json (recorded in it, and in docs/TRAINING.md).
inline constexpr std::string_view training_reference_command =
    "build/tests/training-reference --write assets/training-reference.json";
// Changes when what the file holds changes shape: a reader refuses another version.
inline constexpr int training_reference_format = 1;

// The file's text: the seeds, the command, every experiment as defined, and per run every
// seed's numbers (printed so they parse back exactly) and the summaries.
std::string training_reference_json(const TrainingReference& reference);

// The tables docs/TRAINING.md shows (Markdown, between its "training-reference tables" marks):
// steps to 90 % as median (IQR) with the seeds that never got there, the step-1 numbers, the
// softmax formats. A test makes them again from the shipped file and compares them with the doc.
std::string training_reference_tables(const TrainingReference& reference);

// How the lesson and the tables write a number: a step count ("124", "> 1500" beyond the
// budget), a count of seeds ("8/32"), a percentage ("73 %"), a ratio ("2.9×").
std::string reference_steps(double steps, int budget);
std::string reference_count(const train::Fraction& fraction);
std::string reference_percent(double fraction);
std::string reference_ratio(double ratio);

// What the lesson watch-attention-learn quotes from the reference, per step (index 0 = step 1), in
// the words above: medians, ratios of medians and counts over the file's seeds (the fp16 step also
// its quartiles). A test
// checks that each step's text quotes them; the lesson screens test takes them as bound to the
// shipped reference (they are numbers of 32 seeds, not of the run on the screen).
std::vector<std::vector<std::string>> reference_lesson_quotes(const TrainingReference& reference);

}  // namespace smlab
