// The training lab in headless runs: what training it costs, refused before any work when it would
// take hours (docs/TRAINING.md, "What a run costs"); the lab trained here with its progress on the
// terminal ("training: step N of M"); and its own files beside --train's CSV export (the
// headless contract):
//   train-loss.csv       step,run,loss,accuracy,grad_norm_q,grad_norm_k,attention_entropy,max_weight
//                        one line per step of every seed of every run; run is "A seed=1", or with a
//                        comparison "B scaled=false seed=1"
//   train-attention.csv  run,layer,head,query,key,weight,ideal: each run's (first seed's) probe maps
//                        at the last step, every layer and head, and the task's ideal map (0 where
//                        the task scores no row; empty for the language model)
//   train-sentence.npz   run A's sentence (the language model's, or a task's probe input): Q, K, V,
//                        weights per layer and head (train::attention_npz; File → Import shows it).
//                        Written only when it can be imported: every array finite (a naive fp16
//                        softmax that overflowed gives NaN weights); otherwise a warning line says
//                        why and the other files are written.
//
// [SECTION] Index
//   [SECTION] What a training costs
//   [SECTION] The lab trained here
//   [SECTION] The training files
#pragma once

#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "files/atomic_file.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/progress.hpp"
#include "smlab/snapshot.hpp"

namespace smlab::exporting {

// [SECTION] What a training costs

// The longest training a headless run starts: longer ones are refused with their estimate.
inline constexpr double training_seconds_max = 600.0;

// Seconds to train the lab of `settings` to settings.steps on this machine: every seed of every run
// (train::step_seconds each), the runs spread over the available threads as evaluate_training_lab
// spreads them (each run on one).
double training_seconds(const TrainingSettings& settings);

// Refuses, before any work, a run that would train for more than training_seconds_max: one
// Error::usage line with the estimate, the limit and what to change ("…: lower train_steps to at
// most 5000, or the model's sizes"). `trainings`: how many times the run trains the lab (a bench
// evaluates it once per frame; 0: the lab trains live, only its runs are checked). Also refuses
// settings whose runs cannot be made (the language task without its texts, or texts too short for
// train_seq_len) with that reason.
Result<void> check_training(const TrainingSettings& settings, int trainings = 1);

// The same for a run that trains the lab once for each of `frames` (a GIF sweep of a train_* key),
// named `what` ("the GIF's 1000 frames").
Result<void> check_training_frames(std::span<const TrainingSettings> frames, std::string_view what);

// [SECTION] The lab trained here

// The lab at settings.steps, as evaluate_training_lab makes it (the same bits: every run on one
// thread, summarised with histories), reporting to `sink` after every step as "training: step N of M"
// (sink may be null). The runs' error (check_training's) is an Error::usage.
Result<std::shared_ptr<const TrainingLab>> train_lab(const TrainingSettings& settings, ProgressSink* sink = nullptr);

// [SECTION] The training files

// Whether --import would take a sentence's .npz (train::attention_npz): every array finite, the
// scores finite or −inf. The Error (usage) names the first value that is not, by array, layer, head
// and row: a naive fp16 softmax that overflowed gives NaN weights.
Result<void> importable(const train::SentenceAttention& sentence);

// What stage_training_files staged.
struct TrainingFilesStaged {
  // Why train-sentence.npz is not among them (one line, for a warning); empty when it is.
  std::string sentence_left_out;
};

// Stages the three files of `snapshot`'s training lab into `batch` (nothing when the Snapshot has
// no training lab, or the lab could not make its runs). `directory` must exist.
Result<TrainingFilesStaged> stage_training_files(const Snapshot& snapshot, const std::filesystem::path& directory,
                                                 files::FileBatch& batch);

}  // namespace smlab::exporting
