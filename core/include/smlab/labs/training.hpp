// The training lab, "Watch attention learn" (docs/TRAINING.md): its settings as Params
// keys (train_*), the runs they ask for (run A, and runs B, C, D that differ from A in one setting,
// each trained over one or more seeds), and what the lab draws at a step: each run's metrics over
// its seeds (mean ± standard error), its probe map beside the task's ideal map, the probe row's
// S(1−S) points, and a sentence's maps per head with its next-token distribution.
//
// [SECTION] Index
//   [SECTION] The keys
//   [SECTION] The runs
//   [SECTION] What the lab draws
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/error.hpp"
#include "smlab/train/corpus.hpp"
#include "smlab/train/run.hpp"
#include "smlab/train/settings.hpp"

namespace smlab {

struct TrainingLimits {
  static constexpr int seeds_min = 1, seeds_max = 8;       // seeds per run (bands over seeds)
  static constexpr int steps_min = 0, steps_max = 100000;  // the step the runs train to
  static constexpr int compare_values_max = 3;             // runs B, C and D
  static constexpr int position_min = 0, position_max = 127;
  // The live lab's pace: steps per second of every run, 0 for as fast as the machine goes.
  static constexpr int speed_min = 0, speed_max = 1000;
  static constexpr std::size_t sentence_max_bytes = 512;  // and at most seq_len_max code points
  // The smoothed loss and accuracy, and steps to 90 %: means over the last 20 steps' batches
  // (640 fresh examples at batch 32), as docs/TRAINING.md measures them.
  static constexpr int window = 20;
  static constexpr double accuracy_threshold = 0.9;
  static constexpr int plot_points_max = 1000;  // points per curve; longer runs are drawn in bucket means
  static constexpr int next_token_shown = 12;   // tokens in the next-token plot
};

// The lab's settings: one member of Params (Params::training), set through the train_* keys.
struct TrainingSettings {
  train::Settings run = train::default_settings(train::Task::recall);  // run A: train_task, train_d_k, ...
  // "" (run A alone) or "KEY=V1[,V2[,V3]]": runs B, C, D are run A with KEY set to V1, V2, V3
  // (KEY a training setting other than task; each value as train_KEY takes it). Kept normalised:
  // the values as get_setting prints them ("temperature=0.1,10").
  std::string compare = "scaled=false";
  int seeds = 1;    // every run trains on seeds seed, seed + 1, …, seed + seeds − 1
  int steps = 500;  // the runs train to this step, then stop
  // The text whose attention the language model shows (other tasks show their probe input).
  std::string sentence = "Softmax turns scores into weights.";
  int position = TrainingLimits::position_max;  // whose next-token distribution: clamped to the last
  // The live lab's pace (steps per second of each run; 0: full speed). Only the window's pace: the
  // runs, their numbers and every export are the same at any speed.
  int speed = 0;
  // The language task's text (the lesson texts, train/corpus.hpp), attached by the app; not a key.
  // Without it the language task reports that it has none. Equality leaves it out, as it leaves
  // out everything that is not a key: Params made from the same keys are equal whether or not
  // the corpus was attached yet (a lesson step's, a session's).
  std::shared_ptr<const train::Corpus> corpus;

  friend bool operator==(const TrainingSettings& a, const TrainingSettings& b) {
    return a.run == b.run && a.compare == b.compare && a.seeds == b.seeds && a.steps == b.steps &&
           a.sentence == b.sentence && a.position == b.position && a.speed == b.speed;
  }
};

// [SECTION] The keys
// Every training setting as train_<setting> (train_task, train_d_k, ...), then train_compare, train_seeds, train_steps,
// train_sentence, train_position, train_speed. The Params key table (params.cpp) lists them after its own keys, so
// --set, sessions, URLs, lessons and --list-keys take them through this one validation.
//
// Why a prefix: the lab's temperature, d_k, scaled, seed, heads, causal, seq_len and batch are
// not the dashboard's. Their ranges differ (d_k 1–512 against 1–4096, seq_len 3–128 against
// 2–4096, heads 1–8 against 1–16), `batch` already names the imported batch shown, and a model
// that trains must not change because the dashboard's T slider moved. One prefix for every
// training key keeps them together in --list-keys and in a session.
enum class TrainingKeyKind { integer, real, flag, choice, text };
struct TrainingKey {
  std::string_view name;     // "train_d_k"
  std::string_view setting;  // "d_k": the training setting it sets; "" for the lab's own keys
  std::string_view description;
  std::string_view allowed;
  TrainingKeyKind kind = TrainingKeyKind::choice;
  double min = 0.0, max = 0.0;  // integer and real keys
  bool logarithmic = false;     // a slider moves it by factors
  // A number that is no slider (no nudge, no sweep): the seed (a neighbouring seed means nothing)
  // and the vocabulary (its lower end moves with seq_len).
  bool slider = true;
};
std::span<const TrainingKey> training_keys();
const TrainingKey* find_training_key(std::string_view name);

// The whole validation: run A's settings, the comparison's values against them, the seeds' range,
// the sentence. The first problem as an Error::usage of one line naming the train_* key.
Result<void> validate(const TrainingSettings& settings);
// Parses `text` for key `name` (train_*) and assigns it only when the result passes validate();
// otherwise `settings` is unchanged and the error names the key, the value and what is allowed.
Result<void> set_training_key(TrainingSettings& settings, std::string_view name, std::string_view text);
// The value as text that set_training_key reads back exactly; nullopt for an unknown key.
std::optional<std::string> get_training_key(const TrainingSettings& settings, std::string_view name);

// [SECTION] The runs

// Run A (the settings' run) and one run per compared value, in that order.
struct TrainingRunSpec {
  std::string name;   // "A", "B", "C", "D"
  std::string label;  // the compared setting's value as "KEY=VALUE" ("scaled=false"); "" without a comparison
  train::Settings settings;
};
std::vector<TrainingRunSpec> training_run_specs(const TrainingSettings& settings);  // requires validate()
// The settings of seed `index` (0-based) of a run: its seed plus the index.
train::Settings seed_settings(const train::Settings& run, int index);

// Every run's seeds, created at step 0: run r's seed s at [r · settings.seeds + s]. Errors
// (Error::usage, one line): the language task without a corpus, or a seq_len too long for it.
Result<std::vector<train::Run>> make_training_runs(const TrainingSettings& settings);

// [SECTION] What the lab draws

// A metric over a run's seeds: the mean at each plotted step and mean ∓ 1 standard error (low,
// high; empty with one seed), and each seed's own curve (`seeds[s]`, at the same steps): the
// standard error says how well the mean is known, a single seed's curve strays much further.
struct SeedBand {
  std::vector<double> mean, low, high;
  std::vector<std::vector<double>> seeds;
};

struct TrainingRun {
  std::string name, label;   // as TrainingRunSpec
  train::Settings settings;  // its first seed's
  int seeds = 1;
  int steps_done = 0;
  // The plotted steps: every step while there are at most plot_points_max, else the last step of
  // each of plot_points_max equal buckets. Each point of a curve is the mean over the last
  // `window` steps' batches, or over its bucket when that is longer (a batch of 32 is noisy; the
  // CSV export keeps every step).
  std::vector<double> steps;
  SeedBand loss, accuracy, grad_norm_q, grad_norm_k, entropy, max_weight, saturated, probe_match;
  // Steps to 90 %: for each seed, the first step at which the mean accuracy of the last `window`
  // steps is ≥ 0.9. A seed that has not got there counts as steps_done, so the mean is a lower
  // bound unless reached_90 == seeds. NaN before `window` steps.
  double steps_to_90 = 0.0, steps_to_90_se = 0.0;
  int reached_90 = 0;
  // The same seeds' median and quartiles (Q1, Q3), with the seeds that have not got there ranked
  // last: +inf where the quantile falls on one of them (it is beyond steps_done). NaN before
  // `window` steps. Unlike the mean they do not depend on how long the runs trained.
  double steps_to_90_median = 0.0, steps_to_90_q1 = 0.0, steps_to_90_q3 = 0.0;
  std::vector<int> seed_steps_to_90;  // each seed's, 0 for not yet
  // Step 1's numbers (means over seeds; NaN before the first step): how saturated the model starts.
  double start_loss = 0.0, start_max_weight = 0.0, start_saturated = 0.0, start_grad_norm_q = 0.0,
         start_grad_norm_k = 0.0;
  // The last `window` steps (means over seeds; NaN before the first step).
  double final_loss = 0.0, final_accuracy = 0.0;
  std::optional<int> first_nonfinite;  // the earliest step, over seeds, whose loss or a gradient was not finite
  int nonfinite_seeds = 0;             // seeds that had such a step
  std::vector<int> seed_nonfinite;     // each seed's first such step, 0 for none
  double skipped_fraction = 0.0;       // of all its seeds' steps, the fraction skipped
  // The first seed's probe at its current weights, and the map drawn for it: the layer and head
  // whose match to the ideal is largest (the language model: the last layer's first head).
  train::ProbeMaps probe;
  int shown_layer = 0, shown_head = 0;
  std::vector<float> shown_map, ideal_map;  // L × L each; ideal_map empty without an ideal (language)
  double shown_match = 0.0;                 // ideal_match of the shown map (NaN for the language model)
};

// A sentence through run A's first seed: the language model's typed sentence, or a task's probe
// input. Every layer's and head's attention, and one position's next-token distribution.
struct TrainingSentence {
  std::vector<std::string> labels;  // L token labels
  int length = 0, layers = 0, heads = 0;
  std::vector<float> weights;  // [layer][head][L][L]
  int position = 0;            // min(settings.position, L − 1)
  // The readout's logits z at `position` and softmax(z) (T = 1), V_out each; their token labels.
  std::vector<double> logits, probabilities;
  std::vector<std::string> vocabulary;
  std::vector<int> top;  // the next_token_shown most probable tokens, most probable first (ties: lower id)
  std::shared_ptr<const train::SentenceAttention> attention;  // for the .npz export (train::attention_npz)
  std::string error;                                          // why there is none (a sentence too long): one line
  const float* map(int layer, int head) const {
    return weights.data() +
           (static_cast<std::size_t>(layer) * static_cast<std::size_t>(heads) + static_cast<std::size_t>(head)) *
               static_cast<std::size_t>(length) * static_cast<std::size_t>(length);
  }
};

// One seed's whole history, for train-loss.csv.
struct TrainingHistory {
  std::string run;  // "A", "B", ...
  std::string label;
  std::uint64_t seed = 0;
  std::vector<train::StepMetrics> steps;
};

struct TrainingLab {
  int steps_done = 0;  // of every seed (they train in step)
  int goal = 0;        // settings.steps
  std::vector<TrainingRun> runs;
  TrainingSentence sentence;
  std::string error;  // why there are no runs (the language task without its corpus): one line
  // The language task's corpus: its characters and vocabulary (0 for the other tasks).
  std::size_t corpus_characters = 0;
  int vocabulary = 0;
  // Every seed's history; null unless asked for (exports: evaluate_training_lab fills it).
  std::shared_ptr<const std::vector<TrainingHistory>> histories;
};

// The lab's picture of `runs` (as make_training_runs orders them, trained any number of steps,
// all the same number): the live trainer calls it as the runs train, evaluate_training_lab at the
// end. `histories`: also copy every seed's history into out.histories.
void summarize_training(TrainingLab& out, const TrainingSettings& settings, std::span<const train::Run> runs,
                        bool histories = false);
// Only the sentence part (a new sentence or position on runs that did not change).
void inspect_training_sentence(TrainingSentence& out, const TrainingSettings& settings, const train::Run& run);

// The lab at `settings.steps`: every seed of every run created and trained that far (the seeds in
// parallel, each on one thread: the same bits as one after another), then summarised with
// histories. What exports, screenshots and lesson claims show; the live lab trains the same runs
// step by step on a worker thread and shows the same numbers when it gets there unchanged.
// The last few labs evaluated are kept (by settings and corpus, small trainings only) and copied
// when asked for again: the same bits as training them again.
void evaluate_training_lab(TrainingLab& out, const TrainingSettings& settings);
// The same lab, always trained anew, never kept.
void train_training_lab(TrainingLab& out, const TrainingSettings& settings);

}  // namespace smlab
