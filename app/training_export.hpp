// The training lab's own files beside --train's CSV export (the headless contract):
//   train-loss.csv       step,run,loss,accuracy,grad_norm_q,grad_norm_k,attention_entropy,max_weight
//                        one line per step of every seed of every run; run is "A seed=1", or with a
//                        comparison "B scaled=false seed=1"
//   train-attention.csv  run,layer,head,query,key,weight,ideal: each run's (first seed's) probe maps
//                        at the last step, every layer and head, and the task's ideal map (0 where
//                        the task scores no row; empty for the language model)
//   train-sentence.npz   run A's sentence (the language model's, or a task's probe input): Q, K, V,
//                        weights per layer and head (train::attention_npz; File → Import shows it)
#pragma once

#include <filesystem>

#include "files/atomic_file.hpp"
#include "smlab/snapshot.hpp"

namespace smlab::exporting {

// Stages the three files of `snapshot`'s training lab into `batch` (nothing when the Snapshot has
// no training lab, or the lab could not make its runs). `directory` must exist.
Result<void> stage_training_files(const Snapshot& snapshot, const std::filesystem::path& directory, FileBatch& batch);

}  // namespace smlab::exporting
