// The training lab's CSV and .npz files (training_export.hpp).
#include "training_export.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <string>

#include "plot_export.hpp"
#include "smlab/labs/training.hpp"

namespace smlab::exporting {
namespace {

// The shortest text that reads back as the same double; nan, inf and -inf by name.

std::string run_id(const TrainingHistory& history) {
  return history.run + (history.label.empty() ? "" : " " + history.label) + " seed=" + std::to_string(history.seed);
}

std::string loss_csv(const TrainingLab& lab) {
  std::string out = "step,run,loss,accuracy,grad_norm_q,grad_norm_k,attention_entropy,max_weight\n";
  if (lab.histories == nullptr) return out;
  for (const TrainingHistory& history : *lab.histories) {
    const std::string run = run_id(history);
    for (const train::StepMetrics& m : history.steps) {
      out += std::to_string(m.step) + "," + run;
      for (double value : {m.loss, m.accuracy, m.grad_norm_q, m.grad_norm_k, m.entropy, m.max_weight}) {
        out += ',';
        append_csv_number(out, value);
      }
      out += '\n';
    }
  }
  return out;
}

std::string attention_csv(const TrainingLab& lab) {
  std::string out = "run,layer,head,query,key,weight,ideal\n";
  for (const TrainingRun& run : lab.runs) {
    const train::ProbeMaps& probe = run.probe;
    const std::string name = run.name + (run.label.empty() ? "" : " " + run.label);
    const auto L = static_cast<std::size_t>(probe.length);
    for (int l = 0; l < probe.layers; ++l)
      for (int h = 0; h < probe.heads; ++h) {
        const double* map = probe.map(l, h);
        for (std::size_t i = 0; i < L; ++i)
          for (std::size_t j = 0; j < L; ++j) {
            out += name + "," + std::to_string(l) + "," + std::to_string(h) + "," + std::to_string(i) + "," +
                   std::to_string(j) + ",";
            append_csv_number(out, map[i * L + j]);
            out += ',';
            if (probe.ideal.size() == L * L) append_csv_number(out, probe.ideal[i * L + j]);
            out += '\n';
          }
      }
  }
  return out;
}

}  // namespace

Result<void> stage_training_files(const Snapshot& snapshot, const std::filesystem::path& directory, FileBatch& batch) {
  const TrainingLab* lab = snapshot.lab<TrainingLab>();
  if (lab == nullptr || !lab->error.empty()) return {};
  if (Result<void> staged = batch.stage(directory / "train-loss.csv", loss_csv(*lab)); !staged) return staged;
  if (Result<void> staged = batch.stage(directory / "train-attention.csv", attention_csv(*lab)); !staged) return staged;
  if (lab->sentence.attention != nullptr)
    if (Result<void> staged =
            batch.stage(directory / "train-sentence.npz", train::attention_npz(*lab->sentence.attention));
        !staged)
      return staged;
  return {};
}

}  // namespace smlab::exporting
