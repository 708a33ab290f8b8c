// The training lab's live side: where its picture comes from (the live Trainer, a frozen picture
// handed to an offscreen copy, or else the evaluator's lab at train_steps), the Trainer's inbox each
// frame (settings, buttons, lesson steps), and the lab's files: weights saved and loaded, a
// sentence's .npz. The App holds one and calls it around its evaluation: sync before submitting,
// compose after taking the Snapshot, export_npz after drawing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "smlab/labs/training.hpp"
#include "smlab/snapshot.hpp"
#include "smlab/views.hpp"
#include "work/trainer.hpp"
#include "report.hpp"
#include "state/ui_state.hpp"

namespace smlab::app {

struct AppOptions;

class LiveTraining {
 public:
  // The corpus (attached to ui.params), the lab's file paths, the frozen picture and the Trainer
  // that AppOptions ask for. Before the history's first Params: they carry the corpus.
  void start(const AppOptions& options, UiState& ui);
  // The lesson texts the language task trains on. Params set from keys (a lesson step, a session)
  // lack it, and Params' == does not see it: the App attaches it to every Params it submits.
  const std::shared_ptr<const train::Corpus>& corpus() const { return corpus_; }
  // Null unless AppOptions::live_training.
  Trainer* trainer() { return trainer_.get(); }
  // The lab's picture drawn at `settings` (live or frozen); null when the evaluator's Snapshot holds it.
  std::shared_ptr<const TrainingLab> picture(const TrainingSettings& settings) const;
  // The view the evaluator computes for `view`: a picture drawn here need not be trained again.
  View evaluated_view(View view, const TrainingSettings& settings) const;

  // Before submitting: the corpus into ui.params, the Trainer's inbox (settings, the lesson step,
  // the buttons), its newest state into ui.training, and the weights files asked for.
  void sync(UiState& ui, const Report& report);
  // After taking the Snapshot: the live or frozen picture into `snapshot` when the lab is shown.
  // Returns true when the picture drawn is a new one (its maps need new textures).
  bool compose(const UiState& ui, std::shared_ptr<const Snapshot>& snapshot);
  // The sentence's attention as .npz, when its button was pressed this frame.
  void export_npz(UiState& ui, const Snapshot* shown, const Report& report);

 private:
  void weights_files(UiState& ui, const Trainer::Published& published, const Report& report);

  std::shared_ptr<const train::Corpus> corpus_;
  std::unique_ptr<Trainer> trainer_;
  std::shared_ptr<const TrainingLab> frozen_;  // AppOptions::training_shown
  TrainingSettings frozen_settings_;           // the settings it belongs to
  // The Snapshot drawn with the picture spliced in, and what it was made from.
  std::shared_ptr<const Snapshot> composed_, composed_from_;
  std::shared_ptr<const TrainingLab> composed_lab_;
  std::optional<std::pair<std::size_t, std::size_t>> lesson_step_;  // the lesson step last seen
  std::uint64_t weights_request_ = 0;                               // weights asked for, to save
  std::string weights_path_;                                        // where to
};

}  // namespace smlab::app
