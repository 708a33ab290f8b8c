// The training lab in headless runs (training_export.hpp): its cost before any work, the lab
// trained with its progress, and its CSV and .npz files.
//
// [SECTION] Index
//   [SECTION] What a training costs
//   [SECTION] The lab trained here
//   [SECTION] The training files
#include "training_export.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <charconv>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "plot_export.hpp"
#include "smlab/labs/training.hpp"
#include "smlab/parallel.hpp"
#include "smlab/train/cost.hpp"

namespace smlab::exporting {

// [SECTION] What a training costs

namespace {

// "7 h 5 min", "12 min", "45 s": an estimate, so whole units.
std::string duration_text(double seconds) {
  if (!(seconds < 1e9)) return "more than 30 years";
  const auto whole = static_cast<long long>(std::ceil(seconds));
  const auto unit = [](long long count, const char* name, long long rest, const char* rest_name) {
    return std::to_string(count) + " " + name + (rest > 0 ? " " + std::to_string(rest) + " " + rest_name : "");
  };
  if (whole >= 86400 * 2) return std::to_string(whole / 86400) + " days";
  if (whole >= 3600) return unit(whole / 3600, "h", whole % 3600 / 60, "min");
  if (whole >= 60) return unit(whole / 60, "min", whole % 60, "s");
  return std::to_string(whole) + " s";
}

struct TrainingCost {
  double setup = 0.0, per_step = 0.0;  // seconds, wall: the runs spread over the threads
  int runs = 0;
};

TrainingCost training_cost(const TrainingSettings& settings) {
  TrainingCost cost;
  double setup = 0.0, per_step = 0.0;
  for (const TrainingRunSpec& spec : training_run_specs(settings)) {
    const double one_setup = train::setup_seconds(spec.settings, settings.corpus.get());
    const double one_step = train::step_seconds(spec.settings, settings.corpus.get());
    setup = std::max(setup, one_setup);
    per_step = std::max(per_step, one_step);
    cost.runs += settings.seeds;
  }
  // evaluate_training_lab trains each run on one thread of the pool, all at once: as many rounds
  // as it takes the threads to get through them, each as long as the slowest run.
  const double rounds = std::ceil(static_cast<double>(cost.runs) / static_cast<double>(available_threads()));
  cost.setup = rounds * setup;
  cost.per_step = rounds * per_step;
  return cost;
}

}  // namespace

double training_seconds(const TrainingSettings& settings) {
  const TrainingCost cost = training_cost(settings);
  return cost.setup + cost.per_step * settings.steps;
}

namespace {

Result<void> check_runs(const TrainingSettings& settings) {
  for (const TrainingRunSpec& spec : training_run_specs(settings)) {
    if (spec.settings.task != train::Task::language) continue;
    if (settings.corpus == nullptr)
      return Error::usage("train_task=language needs the lesson texts to train on, and none were loaded");
    if (Result<void> fits = train::check_corpus(spec.settings, settings.corpus.get()); !fits)
      return Error::usage("run " + spec.name + ": train_" + fits.error().message + " (the lesson texts)");
  }
  return {};
}

const char* const model_sizes =
    "the model's sizes (train_batch, train_seq_len, train_d_model, train_d_k, train_heads, train_layers)";

// "is estimated at 3 h 4 min on this machine, more than the 10 min a run may train: "
std::string too_long(double seconds) {
  return "is estimated at " + duration_text(seconds) + " on this machine, more than the " +
         duration_text(training_seconds_max) + " a run may train: ";
}

}  // namespace

Result<void> check_training(const TrainingSettings& settings, int trainings) {
  if (Result<void> runs = check_runs(settings); !runs) return runs;
  const TrainingCost cost = training_cost(settings);
  const double seconds = trainings * (cost.setup + cost.per_step * settings.steps);
  if (seconds <= training_seconds_max) return {};
  std::string line = "training " + std::to_string(cost.runs) + (cost.runs == 1 ? " run" : " runs") +
                     " to train_steps=" + std::to_string(settings.steps) +
                     (trainings > 1 ? ", " + std::to_string(trainings) + " times, " : " ") + too_long(seconds);
  const double fitting = (training_seconds_max / trainings - cost.setup) / cost.per_step;
  if (fitting >= 1.0)
    line += "lower train_steps to at most " + std::to_string(static_cast<long long>(std::floor(fitting))) + ", or " +
            model_sizes;
  else
    line += "one step alone takes " + duration_text(cost.per_step) + ": lower " + model_sizes;
  if (cost.runs > 1) line += ", or the runs (train_compare, train_seeds)";
  return Error::usage(line);
}

Result<void> check_training_frames(std::span<const TrainingSettings> frames, std::string_view what) {
  double seconds = 0.0;
  for (const TrainingSettings& frame : frames) {
    if (Result<void> runs = check_runs(frame); !runs) return runs;
    seconds += training_seconds(frame);
  }
  if (seconds <= training_seconds_max) return {};
  return Error::usage("training the lab for each of " + std::string(what) + " " + too_long(seconds) +
                      "lower the frames, the sweep's train_steps, or " + model_sizes);
}

// [SECTION] The lab trained here

Result<std::shared_ptr<const TrainingLab>> train_lab(const TrainingSettings& settings, ProgressSink* sink) {
  auto lab = std::make_shared<TrainingLab>();
  lab->goal = settings.steps;
  Result<std::vector<train::Run>> made = make_training_runs(settings);
  if (!made.ok()) return made.error();
  std::vector<train::Run>& runs = *made;
  // As evaluate_training_lab: each run on one thread (make_training_runs set it), so its bits do
  // not depend on which; step by step here, for the progress line.
  const long long total = static_cast<long long>(runs.size()) * settings.steps;
  std::atomic<long long> done{0};
  const std::string of = " of " + std::to_string(settings.steps);
  parallel_for(static_cast<int>(runs.size()), [&](int index) {
    for (int step = 0; step < settings.steps; ++step) {
      runs[static_cast<std::size_t>(index)].step(1);
      const long long now = ++done;
      if (sink != nullptr)
        sink->update(static_cast<double>(now) / static_cast<double>(total),
                     "training: step " + std::to_string(now / static_cast<long long>(runs.size())) + of);
    }
  });
  summarize_training(*lab, settings, runs, true);
  return std::shared_ptr<const TrainingLab>(std::move(lab));
}

// [SECTION] The training files

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

Result<void> importable(const train::SentenceAttention& sentence) {
  const train::Trace& t = sentence.trace;
  const auto first_bad = [&](const char* array, const std::vector<std::vector<double>>& per_head, std::size_t cols,
                             bool scores) -> Result<void> {
    const auto heads = static_cast<std::size_t>(std::max(t.heads, 1));
    for (std::size_t head = 0; head < per_head.size(); ++head)
      for (std::size_t i = 0; i < per_head[head].size(); ++i) {
        const double v = per_head[head][i];
        if (std::isfinite(v) || (scores && v == -std::numeric_limits<double>::infinity())) continue;
        return Error::usage("run A's attention on its sentence holds " + std::string(std::isnan(v) ? "NaN" : "inf") +
                            " in '" + array + "' (layer " + std::to_string(head / heads + 1) + ", head " +
                            std::to_string(head % heads + 1) + ", row " +
                            std::to_string(i / std::max<std::size_t>(cols, 1) + 1) + "), which --import refuses");
      }
    return {};
  };
  const auto L = static_cast<std::size_t>(t.length);
  if (Result<void> r = first_bad("weights", t.weights, L, false); !r) return r;
  if (Result<void> r = first_bad("score_map", t.logits, L, true); !r) return r;
  if (Result<void> r = first_bad("query_activations", t.queries, static_cast<std::size_t>(t.key_dim), false); !r)
    return r;
  if (Result<void> r = first_bad("key_activations", t.keys, static_cast<std::size_t>(t.key_dim), false); !r) return r;
  if (Result<void> r = first_bad("value_activations", t.values, static_cast<std::size_t>(t.value_dim), false); !r)
    return r;
  return first_bad("next_token", {sentence.next_token}, static_cast<std::size_t>(t.output_vocab), false);
}

Result<TrainingFilesStaged> stage_training_files(const Snapshot& snapshot, const std::filesystem::path& directory,
                                                 files::FileBatch& batch) {
  TrainingFilesStaged staged;
  const TrainingLab* lab = snapshot.lab<TrainingLab>();
  if (lab == nullptr || !lab->error.empty()) return staged;
  if (Result<void> loss = batch.stage(directory / "train-loss.csv", loss_csv(*lab)); !loss) return loss.error();
  if (Result<void> maps = batch.stage(directory / "train-attention.csv", attention_csv(*lab)); !maps)
    return maps.error();
  if (lab->sentence.attention == nullptr) return staged;
  // The file is for --import: one that it refuses is not written. Its weights come out NaN when
  // run A's softmax overflowed (naive, in fp16): the lab and train-attention.csv show that as it is.
  if (Result<void> readable = importable(*lab->sentence.attention); !readable) {
    staged.sentence_left_out =
        "train-sentence.npz is not written: " + readable.error().message + "; the other files are written";
    return staged;
  }
  if (Result<void> npz = batch.stage(directory / "train-sentence.npz", train::attention_npz(*lab->sentence.attention));
      !npz)
    return npz.error();
  return staged;
}

}  // namespace smlab::exporting
