// The training lab's reference result (smlab/labs/training_reference.hpp): the experiments the
// lesson and docs/TRAINING.md quote, one seed's numbers, their summaries over seeds, the file.
//
// [SECTION] Index
//   [SECTION] The experiments
//   [SECTION] One seed
//   [SECTION] Summaries over seeds
//   [SECTION] The file
#include "smlab/labs/training_reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "smlab/parallel.hpp"

namespace smlab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();
using TL = TrainingLimits;

// [SECTION] The experiments

// Scaled (A) against unscaled (B) at one d_k, with the optimiser's own learning rate.
ReferenceExperiment scaling(std::string id, std::string description, std::vector<std::string> set) {
  return {std::move(id), std::move(description), std::move(set), {{"A", {}}, {"B", {"train_scaled=false"}}}, 1500,
          false};
}

// Runs at T = 1 (A), 0.1, 0.3, 3 and 10, at d_k 16.
ReferenceExperiment temperatures(std::string id, std::string description, std::vector<std::string> set) {
  return {std::move(id),
          std::move(description),
          std::move(set),
          {{"A", {}},
           {"B", {"train_temperature=0.1"}},
           {"C", {"train_temperature=10"}},
           {"D", {"train_temperature=0.3"}},
           {"E", {"train_temperature=3"}}},
          1500,
          false};
}

std::vector<ReferenceExperiment> make_experiments() {
  std::vector<ReferenceExperiment> list;
  list.push_back({"recall-default",
                  "the recall task at its defaults (d_k 16, scaled, Adam 3e-3), 300 steps: watch-attention-learn:1",
                  {},
                  {{"A", {}}},
                  300,
                  true});
  const std::vector<std::string> sgd = {"train_optimizer=sgd", "train_learning_rate=0.1"};
  for (const int dk : {16, 64, 256}) {
    const std::string d = "train_d_k=" + std::to_string(dk);
    list.push_back(scaling("scaling-dk" + std::to_string(dk),
                           "scaled (A) against unscaled (B) at d_k " + std::to_string(dk) + ", Adam 3e-3", {d}));
  }
  for (const int dk : {16, 64, 256}) {
    const std::string d = "train_d_k=" + std::to_string(dk);
    list.push_back(scaling("sgd-dk" + std::to_string(dk),
                           "scaled (A) against unscaled (B) at d_k " + std::to_string(dk) + ", SGD 0.1",
                           {d, sgd[0], sgd[1]}));
  }
  list.push_back(temperatures("temperature-adam", "T = 1 (A), 0.1 (B), 10 (C), 0.3 (D), 3 (E) at d_k 16, Adam 3e-3",
                              {"train_d_k=16"}));
  list.push_back(temperatures("temperature-sgd", "T = 1 (A), 0.1 (B), 10 (C), 0.3 (D), 3 (E) at d_k 16, SGD 0.1",
                              {"train_d_k=16", sgd[0], sgd[1]}));
  list.push_back({"precision",
                  "the softmax's arithmetic, 400 steps: fp16 naive (A), fp16 stable (B), fp32 naive (C), bf16 naive "
                  "(D), fp32 stable (E)",
                  {},
                  {{"A", {"train_precision=fp16", "train_softmax=naive"}},
                   {"B", {"train_precision=fp16", "train_softmax=stable"}},
                   {"C", {"train_precision=fp32", "train_softmax=naive"}},
                   {"D", {"train_precision=bf16", "train_softmax=naive"}},
                   {"E", {"train_precision=fp32", "train_softmax=stable"}}},
                  400,
                  true});
  return list;
}

const std::vector<ReferenceExperiment>& experiments() {
  static const std::vector<ReferenceExperiment> list = make_experiments();  // built once, never changed
  return list;
}

}  // namespace

std::span<const ReferenceExperiment> training_reference_experiments() { return experiments(); }

const ReferenceExperiment* find_reference_experiment(std::string_view id) {
  for (const ReferenceExperiment& experiment : experiments())
    if (experiment.id == id) return &experiment;
  return nullptr;
}

Result<train::Settings> reference_settings(const ReferenceExperiment& experiment, std::size_t run, std::uint64_t seed) {
  TrainingSettings settings;
  settings.compare.clear();
  std::vector<std::string> assignments = experiment.assignments;
  if (run < experiment.runs.size())
    assignments.insert(assignments.end(), experiment.runs[run].assignments.begin(),
                       experiment.runs[run].assignments.end());
  assignments.push_back("train_seed=" + std::to_string(seed));
  for (const std::string& assignment : assignments) {
    const std::size_t equals = assignment.find('=');
    if (equals == std::string::npos) return Error::usage(experiment.id + ": '" + assignment + "' is not KEY=VALUE");
    if (Result<void> set = set_training_key(settings, assignment.substr(0, equals), assignment.substr(equals + 1));
        !set.ok())
      return Error::usage(experiment.id + ": " + set.error().message);
  }
  return settings.run;
}

// [SECTION] One seed

ReferenceSeed measure_reference_seed(const train::Settings& settings, int steps, bool whole) {
  ReferenceSeed out;
  out.seed = settings.seed;
  Result<train::Run> created = train::Run::create(settings);
  if (!created.ok()) return out;
  train::Run& run = *created;
  run.set_max_threads(1);  // the seeds take the cores
  double window_sum = 0.0;
  while (run.steps_done() < steps && (whole || out.steps_to_90 == 0)) {
    run.step(1);
    const std::vector<train::StepMetrics>& history = run.history();
    const std::size_t t = history.size() - 1;
    window_sum += history[t].accuracy;
    if (t >= static_cast<std::size_t>(TL::window)) window_sum -= history[t - TL::window].accuracy;
    if (out.steps_to_90 == 0 && t + 1 >= static_cast<std::size_t>(TL::window) &&
        window_sum / TL::window >= TL::accuracy_threshold)
      out.steps_to_90 = static_cast<int>(t + 1);
  }
  const std::vector<train::StepMetrics>& history = run.history();
  if (!history.empty()) {
    const train::StepMetrics& first = history.front();
    out.start_loss = first.loss, out.start_max_weight = first.max_weight,
    out.start_saturated = first.saturated_fraction;
    out.start_grad_norm_q = first.grad_norm_q, out.start_grad_norm_k = first.grad_norm_k;
  }
  if (!whole) {
    out.final_accuracy = out.final_loss = out.probe_match = out.skipped_fraction = kNaN;
    return out;
  }
  // The last `window` batches, as the lab's notes average them (finite losses only).
  const std::size_t from = history.size() > static_cast<std::size_t>(TL::window) ? history.size() - TL::window : 0;
  double accuracy = 0.0, loss = 0.0;
  int losses = 0, skipped = 0;
  for (std::size_t t = from; t < history.size(); ++t) {
    accuracy += history[t].accuracy;
    if (std::isfinite(history[t].loss)) loss += history[t].loss, ++losses;
  }
  for (const train::StepMetrics& m : history) skipped += m.skipped ? 1 : 0;
  out.final_accuracy = accuracy / static_cast<double>(history.size() - from);
  out.final_loss = losses > 0 ? loss / losses : kNaN;
  out.skipped_fraction = static_cast<double>(skipped) / static_cast<double>(history.size());
  out.first_nonfinite = run.first_nonfinite_step().value_or(0);
  const train::ProbeMaps probe = run.probe_maps();
  out.probe_match = *std::max_element(probe.match.begin(), probe.match.end());
  return out;
}

// [SECTION] Summaries over seeds

void summarize_reference_run(ReferenceRunResult& run, const ReferenceRunResult* run_a, bool whole) {
  const std::size_t n = run.seeds.size();
  const auto sample = [&](auto value) {
    std::vector<double> values(n);
    for (std::size_t s = 0; s < n; ++s) values[s] = value(run.seeds[s]);
    return train::summarize_sample(values);
  };
  int never = 0;
  for (const ReferenceSeed& seed : run.seeds) never += seed.steps_to_90 == 0 ? 1 : 0;
  run.never_90 = train::fraction_of(never, static_cast<int>(n));
  run.steps_to_90 = sample([](const ReferenceSeed& s) { return s.steps_to_90 > 0 ? s.steps_to_90 : kInf; });
  run.start_saturated = sample([](const ReferenceSeed& s) { return s.start_saturated; });
  run.start_max_weight = sample([](const ReferenceSeed& s) { return s.start_max_weight; });
  run.start_loss = sample([](const ReferenceSeed& s) { return s.start_loss; });
  run.start_grad_norm_q = sample([](const ReferenceSeed& s) { return s.start_grad_norm_q; });
  std::vector<double> ratios(n, kNaN);
  int above = 0;
  if (run_a != nullptr && run_a->seeds.size() == n)
    for (std::size_t s = 0; s < n; ++s) {
      ratios[s] = run.seeds[s].start_grad_norm_q / run_a->seeds[s].start_grad_norm_q;
      above += ratios[s] > 2.0 ? 1 : 0;
    }
  run.start_grad_q_over_a = train::summarize_sample(ratios);
  run.grad_q_over_a_above_2 = train::fraction_of(above, static_cast<int>(n));
  if (!whole) return;
  run.final_accuracy = sample([](const ReferenceSeed& s) { return s.final_accuracy; });
  run.final_loss = sample([](const ReferenceSeed& s) { return s.final_loss; });
  run.probe_match = sample([](const ReferenceSeed& s) { return s.probe_match; });
  run.skipped_fraction = sample([](const ReferenceSeed& s) { return s.skipped_fraction; });
  run.first_nonfinite = sample([](const ReferenceSeed& s) { return s.first_nonfinite > 0 ? s.first_nonfinite : kInf; });
  int nonfinite = 0, at_first = 0;
  for (const ReferenceSeed& seed : run.seeds) {
    nonfinite += seed.first_nonfinite > 0 ? 1 : 0;
    at_first += seed.first_nonfinite == 1 ? 1 : 0;
  }
  run.nonfinite_seeds = train::fraction_of(nonfinite, static_cast<int>(n));
  run.nonfinite_at_step_1 = train::fraction_of(at_first, static_cast<int>(n));
}

Result<TrainingReference> evaluate_training_reference(std::uint64_t first_seed, int seeds,
                                                      std::span<const std::string> ids) {
  TrainingReference out;
  out.first_seed = first_seed;
  out.seeds = seeds;
  struct Task {
    std::size_t experiment, run;
    train::Settings settings;
  };
  std::vector<Task> tasks;
  for (const ReferenceExperiment& experiment : experiments()) {
    if (!ids.empty() && std::find(ids.begin(), ids.end(), experiment.id) == ids.end()) continue;
    ReferenceExperimentResult result;
    result.experiment = &experiment;
    for (std::size_t r = 0; r < experiment.runs.size(); ++r) {
      ReferenceRunResult run;
      run.name = experiment.runs[r].name;
      run.assignments = experiment.runs[r].assignments;
      run.seeds.resize(static_cast<std::size_t>(seeds));
      for (int s = 0; s < seeds; ++s) {
        Result<train::Settings> settings =
            reference_settings(experiment, r, first_seed + static_cast<std::uint64_t>(s));
        if (!settings.ok()) return settings.error();
        tasks.push_back({out.experiments.size(), r, *settings});
      }
      result.runs.push_back(std::move(run));
    }
    out.experiments.push_back(std::move(result));
  }
  for (const std::string& id : ids)
    if (find_reference_experiment(id) == nullptr) return Error::usage("no reference experiment '" + id + "'");
  // The longest seeds first, so the pool does not end on one of them.
  std::vector<std::size_t> order(tasks.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  const auto cost = [&](const Task& task) {
    return static_cast<double>(task.settings.key_dim) * (task.settings.scaled ? 1.0 : 4.0) *
           (task.settings.optimizer == train::Optimizer::sgd ? 2.0 : 1.0);
  };
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return cost(tasks[a]) > cost(tasks[b]); });
  parallel_for(static_cast<int>(tasks.size()), [&](int index) {
    const Task& task = tasks[order[static_cast<std::size_t>(index)]];
    const ReferenceExperiment& experiment = *out.experiments[task.experiment].experiment;
    const ReferenceSeed seed = measure_reference_seed(task.settings, experiment.steps, experiment.whole);
    out.experiments[task.experiment].runs[task.run].seeds[seed.seed - first_seed] = seed;
  });
  for (ReferenceExperimentResult& experiment : out.experiments)
    for (ReferenceRunResult& run : experiment.runs)
      summarize_reference_run(run, &experiment.runs.front(), experiment.experiment->whole);
  return out;
}

// [SECTION] The file

namespace {

// A double that parses back to the same bits (17 significant digits); JSON has no inf or NaN:
// null for NaN, and the sample summaries' +inf ("beyond the budget") as the string "inf".
std::string number(double value) {
  if (std::isnan(value)) return "null";
  if (std::isinf(value)) return value > 0 ? "\"inf\"" : "\"-inf\"";
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string quoted(std::string_view text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string strings(const std::vector<std::string>& list) {
  std::string out = "[";
  for (std::size_t i = 0; i < list.size(); ++i) out += (i ? ", " : "") + quoted(list[i]);
  return out + "]";
}

std::string summary(const train::SampleSummary& s) {
  return "{\"n\": " + std::to_string(s.n) + ", \"median\": " + number(s.median) +
         ", \"median_se\": " + number(s.median_se) + ", \"q1\": " + number(s.q1) + ", \"q1_se\": " + number(s.q1_se) +
         ", \"q3\": " + number(s.q3) + ", \"q3_se\": " + number(s.q3_se) + ", \"mean\": " + number(s.mean) +
         ", \"sd\": " + number(s.sd) + ", \"se\": " + number(s.se) + ", \"finite\": " + std::to_string(s.finite) + "}";
}

std::string fraction(const train::Fraction& f) {
  return "{\"count\": " + std::to_string(f.count) + ", \"n\": " + std::to_string(f.n) +
         ", \"value\": " + number(f.value) + ", \"se\": " + number(f.se) + "}";
}

template <class Value>
std::string per_seed(const std::vector<ReferenceSeed>& seeds, Value value) {
  std::string out = "[";
  for (std::size_t s = 0; s < seeds.size(); ++s) out += (s ? ", " : "") + number(value(seeds[s]));
  return out + "]";
}

}  // namespace

std::string training_reference_json(const TrainingReference& reference) {
  std::string out = "{\n";
  out += "  \"format\": " + std::to_string(training_reference_format) + ",\n";
  out += "  \"what\": \"softmax-lab's training reference: docs/TRAINING.md, Numbers over seeds\",\n";
  out += "  \"command\": " + quoted(training_reference_command) + ",\n";
  out += "  \"first_seed\": " + std::to_string(reference.first_seed) + ",\n";
  out += "  \"seeds\": " + std::to_string(reference.seeds) + ",\n";
  out += "  \"threshold\": " + number(TL::accuracy_threshold) + ",\n";
  out += "  \"window\": " + std::to_string(TL::window) + ",\n";
  out += "  \"experiments\": [\n";
  for (std::size_t e = 0; e < reference.experiments.size(); ++e) {
    const ReferenceExperimentResult& result = reference.experiments[e];
    const ReferenceExperiment& x = *result.experiment;
    out += "    {\n      \"id\": " + quoted(x.id) + ",\n      \"description\": " + quoted(x.description) +
           ",\n      \"set\": " + strings(x.assignments) + ",\n      \"steps\": " + std::to_string(x.steps) +
           ",\n      \"whole\": " + (x.whole ? "true" : "false") + ",\n      \"runs\": [\n";
    for (std::size_t r = 0; r < result.runs.size(); ++r) {
      const ReferenceRunResult& run = result.runs[r];
      const auto& seeds = run.seeds;
      out += "        {\n          \"name\": " + quoted(run.name) +
             ",\n          \"set\": " + strings(run.assignments) + ",\n";
      out += "          \"never_90\": " + fraction(run.never_90) + ",\n";
      out += "          \"steps_to_90\": " + summary(run.steps_to_90) + ",\n";
      out += "          \"start_saturated\": " + summary(run.start_saturated) + ",\n";
      out += "          \"start_max_weight\": " + summary(run.start_max_weight) + ",\n";
      out += "          \"start_loss\": " + summary(run.start_loss) + ",\n";
      out += "          \"start_grad_norm_q\": " + summary(run.start_grad_norm_q) + ",\n";
      out += "          \"start_grad_q_over_a\": " + summary(run.start_grad_q_over_a) + ",\n";
      out += "          \"grad_q_over_a_above_2\": " + fraction(run.grad_q_over_a_above_2) + ",\n";
      if (x.whole) {
        out += "          \"final_accuracy\": " + summary(run.final_accuracy) + ",\n";
        out += "          \"final_loss\": " + summary(run.final_loss) + ",\n";
        out += "          \"probe_match\": " + summary(run.probe_match) + ",\n";
        out += "          \"skipped_fraction\": " + summary(run.skipped_fraction) + ",\n";
        out += "          \"first_nonfinite\": " + summary(run.first_nonfinite) + ",\n";
        out += "          \"nonfinite_seeds\": " + fraction(run.nonfinite_seeds) + ",\n";
        out += "          \"nonfinite_at_step_1\": " + fraction(run.nonfinite_at_step_1) + ",\n";
      }
      out += "          \"per_seed\": {\n";
      out += "            \"steps_to_90\": " + per_seed(seeds, [](const ReferenceSeed& s) { return s.steps_to_90; }) +
             ",\n";
      out +=
          "            \"start_loss\": " + per_seed(seeds, [](const ReferenceSeed& s) { return s.start_loss; }) + ",\n";
      out += "            \"start_max_weight\": " +
             per_seed(seeds, [](const ReferenceSeed& s) { return s.start_max_weight; }) + ",\n";
      out += "            \"start_saturated\": " +
             per_seed(seeds, [](const ReferenceSeed& s) { return s.start_saturated; }) + ",\n";
      out += "            \"start_grad_norm_q\": " +
             per_seed(seeds, [](const ReferenceSeed& s) { return s.start_grad_norm_q; }) + ",\n";
      out += "            \"start_grad_norm_k\": " +
             per_seed(seeds, [](const ReferenceSeed& s) { return s.start_grad_norm_k; });
      if (x.whole) {
        out += ",\n            \"final_accuracy\": " +
               per_seed(seeds, [](const ReferenceSeed& s) { return s.final_accuracy; }) + ",\n";
        out += "            \"final_loss\": " + per_seed(seeds, [](const ReferenceSeed& s) { return s.final_loss; }) +
               ",\n";
        out += "            \"probe_match\": " + per_seed(seeds, [](const ReferenceSeed& s) { return s.probe_match; }) +
               ",\n";
        out += "            \"first_nonfinite\": " +
               per_seed(seeds, [](const ReferenceSeed& s) { return s.first_nonfinite; }) + ",\n";
        out += "            \"skipped_fraction\": " +
               per_seed(seeds, [](const ReferenceSeed& s) { return s.skipped_fraction; });
      }
      out += "\n          }\n        }" + std::string(r + 1 < result.runs.size() ? "," : "") + "\n";
    }
    out += "      ]\n    }" + std::string(e + 1 < reference.experiments.size() ? "," : "") + "\n";
  }
  out += "  ]\n}\n";
  return out;
}

std::string reference_steps(double steps, int budget) {
  if (std::isnan(steps)) return "—";
  if (std::isinf(steps)) return "> " + std::to_string(budget);
  return std::to_string(std::llround(steps));
}

std::string reference_count(const train::Fraction& fraction) {
  return std::to_string(fraction.count) + "/" + std::to_string(fraction.n);
}

std::string reference_percent(double fraction) {
  if (std::isnan(fraction)) return "—";
  return std::to_string(std::llround(100.0 * fraction)) + " %";
}

std::string reference_ratio(double ratio) {
  if (std::isnan(ratio)) return "—";
  if (std::isinf(ratio)) return "∞";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f×", ratio);
  return text;
}

namespace {

const ReferenceExperimentResult* find_result(const TrainingReference& reference, std::string_view id) {
  for (const ReferenceExperimentResult& result : reference.experiments)
    if (result.experiment->id == id) return &result;
  return nullptr;
}

// "124 (118–131)": median (IQR) of the steps to 90 %.
std::string steps_iqr(const ReferenceRunResult& run, int budget) {
  const train::SampleSummary& s = run.steps_to_90;
  return reference_steps(s.median, budget) + " (" + reference_steps(s.q1, budget) + "–" +
         reference_steps(s.q3, budget) + ")";
}

std::string ratio_iqr(const train::SampleSummary& s) {
  return reference_ratio(s.median) + " (" + reference_ratio(s.q1) + "–" + reference_ratio(s.q3) + ")";
}

// The median of B's steps over A's: +inf when B's median is beyond the budget.
double median_ratio(const ReferenceRunResult& a, const ReferenceRunResult& b) {
  return b.steps_to_90.median / a.steps_to_90.median;
}

std::string fixed(double value, int decimals) {
  if (std::isnan(value)) return "—";
  char text[32];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

}  // namespace

std::vector<std::vector<std::string>> reference_lesson_quotes(const TrainingReference& reference) {
  const auto run = [&](std::string_view id, std::size_t index) -> const ReferenceRunResult* {
    for (const ReferenceExperimentResult& x : reference.experiments)
      if (x.experiment != nullptr && x.experiment->id == id && index < x.runs.size()) return &x.runs[index];
    return nullptr;
  };
  const auto steps = [](double value) { return reference_steps(value, 1500); };
  const auto ratio = [](const ReferenceRunResult& a, const ReferenceRunResult& b) {
    return reference_ratio(median_ratio(a, b));
  };
  const ReferenceRunResult *a64 = run("scaling-dk64", 0), *b64 = run("scaling-dk64", 1),
                           *a256 = run("scaling-dk256", 0), *b256 = run("scaling-dk256", 1), *sa64 = run("sgd-dk64", 0),
                           *sb64 = run("sgd-dk64", 1), *t1 = run("temperature-adam", 0),
                           *t01 = run("temperature-adam", 1), *t10 = run("temperature-adam", 2),
                           *s1 = run("temperature-sgd", 0), *s10 = run("temperature-sgd", 2),
                           *naive = run("precision", 0);
  for (const ReferenceRunResult* r : {a64, b64, a256, b256, sa64, sb64, t1, t01, t10, s1, s10, naive})
    if (r == nullptr) return {};  // a reference of other experiments: it backs none of the lesson's numbers
  // Medians, ratios of medians and the runs that never got there; the quartiles are in
  // docs/TRAINING.md. Step 1 quotes none: each text is short enough to leave its plots readable at a
  // classroom size (LessonScreens).
  const auto median = [&](const ReferenceRunResult& r) { return steps(r.steps_to_90.median); };
  const auto never = [](const ReferenceRunResult& r) { return std::to_string(r.never_90.count); };
  return {
      {},
      {median(*a64), median(*b64), ratio(*a64, *b64), never(*b64)},
      {reference_percent(b64->start_saturated.median), reference_percent(a64->start_saturated.median),
       reference_ratio(b64->start_grad_q_over_a.median)},
      {median(*a256), median(*b256), ratio(*a256, *b256), never(*b256),
       reference_percent(b256->start_saturated.median)},
      {median(*sa64), median(*sb64), ratio(*sa64, *sb64), never(*sb64), ratio(*a64, *b64), never(*b64)},
      {median(*t01), median(*t1), median(*t10), reference_percent(t01->start_saturated.median), never(*t01),
       ratio(*s1, *s10)},
      {std::to_string(naive->nonfinite_at_step_1.count), steps(naive->first_nonfinite.median),
       steps(naive->first_nonfinite.q1), steps(naive->first_nonfinite.q3),
       reference_percent(naive->skipped_fraction.median), fixed(naive->final_accuracy.median, 3),
       fixed(naive->final_accuracy.q1, 3), fixed(naive->final_accuracy.q3, 3)},
  };
}

std::string training_reference_tables(const TrainingReference& reference) {
  const std::string seeds = std::to_string(reference.seeds);
  const std::string group = "seeds " + std::to_string(reference.first_seed) + "–" +
                            std::to_string(reference.first_seed + static_cast<std::uint64_t>(reference.seeds) - 1);
  std::string out;
  out += "Steps to 90 %: median (IQR) over " + group + ", and how many of the " + seeds +
         " seeds never got there within the budget (counted as beyond it: each moves the median and the "
         "quartiles by one rank).\n\n";
  // Scaling, with Adam and with SGD.
  out +=
      "| d_k, optimiser (1,500 steps) | scaled | never | unscaled | never | unscaled/scaled (medians) | "
      "step 1, unscaled: saturated rows | step 1: unscaled ‖∂L/∂Q‖ over scaled | above 2× |\n";
  out += "|---|---|---|---|---|---|---|---|---|\n";
  for (const char* id : {"scaling-dk16", "scaling-dk64", "scaling-dk256", "sgd-dk16", "sgd-dk64", "sgd-dk256"}) {
    const ReferenceExperimentResult* result = find_result(reference, id);
    if (result == nullptr) continue;
    const ReferenceExperiment& x = *result->experiment;
    const ReferenceRunResult &a = result->runs[0], &b = result->runs[1];
    const std::string name = std::string(id).substr(std::string(id).find("dk") + 2) +
                             (std::string(id).starts_with("sgd") ? ", SGD 0.1" : ", Adam 3e-3");
    out += "| " + name + " | " + steps_iqr(a, x.steps) + " | " + reference_count(a.never_90) + " | " +
           steps_iqr(b, x.steps) + " | " + reference_count(b.never_90) + " | " + reference_ratio(median_ratio(a, b)) +
           " | " + reference_percent(b.start_saturated.median) + " (" + reference_percent(b.start_saturated.q1) + "–" +
           reference_percent(b.start_saturated.q3) + ") | " + ratio_iqr(b.start_grad_q_over_a) + " | " +
           reference_count(b.grad_q_over_a_above_2) + " |\n";
  }
  out += "\n";
  // Temperature, with Adam and with SGD.
  const ReferenceExperimentResult* adam = find_result(reference, "temperature-adam");
  const ReferenceExperimentResult* sgd = find_result(reference, "temperature-sgd");
  if (adam != nullptr && sgd != nullptr) {
    out +=
        "| T (d_k 16, 1,500 steps) | Adam 3e-3 | never | SGD 0.1 | never | step 1: max weight | "
        "step 1: saturated rows |\n";
    out += "|---|---|---|---|---|---|---|\n";
    const std::pair<std::size_t, const char*> order[] = {{1, "0.1"}, {3, "0.3"}, {0, "1"}, {4, "3"}, {2, "10"}};
    for (const auto& [run, t] : order) {
      const ReferenceRunResult &ra = adam->runs[run], &rs = sgd->runs[run];
      out += std::string("| ") + t + " | " + steps_iqr(ra, adam->experiment->steps) + " | " +
             reference_count(ra.never_90) + " | " + steps_iqr(rs, sgd->experiment->steps) + " | " +
             reference_count(rs.never_90) + " | " + fixed(ra.start_max_weight.median, 2) + " | " +
             reference_percent(ra.start_saturated.median) + " |\n";
    }
    out += "\n";
  }
  // The softmax's arithmetic.
  if (const ReferenceExperimentResult* precision = find_result(reference, "precision")) {
    const int steps = precision->experiment->steps;
    out += "| softmax (" + std::to_string(steps) +
           " steps) | seeds with a non-finite step | at step 1 | first non-finite step | steps skipped | "
           "accuracy, last 20 steps |\n";
    out += "|---|---|---|---|---|---|\n";
    const char* names[] = {"fp16 naive", "fp16 stable", "fp32 naive", "bf16 naive", "fp32 stable"};
    for (std::size_t r = 0; r < precision->runs.size() && r < 5; ++r) {
      const ReferenceRunResult& run = precision->runs[r];
      const std::string first = run.nonfinite_seeds.count == 0
                                    ? std::string("never")
                                    : reference_steps(run.first_nonfinite.median, steps) + " (" +
                                          reference_steps(run.first_nonfinite.q1, steps) + "–" +
                                          reference_steps(run.first_nonfinite.q3, steps) + ")";
      out += std::string("| ") + names[r] + " | " + reference_count(run.nonfinite_seeds) + " | " +
             reference_count(run.nonfinite_at_step_1) + " | " + first + " | " +
             reference_percent(run.skipped_fraction.median) + " (" + reference_percent(run.skipped_fraction.q1) + "–" +
             reference_percent(run.skipped_fraction.q3) + ") | " + fixed(run.final_accuracy.median, 3) + " (" +
             fixed(run.final_accuracy.q1, 3) + "–" + fixed(run.final_accuracy.q3, 3) + ") |\n";
    }
    out += "\n";
  }
  // The default task.
  if (const ReferenceExperimentResult* recall = find_result(reference, "recall-default")) {
    const ReferenceRunResult& run = recall->runs.front();
    out += "| recall at its defaults (" + std::to_string(recall->experiment->steps) +
           " steps) | steps to 90 % | never | accuracy, last 20 steps | ideal match of the probe's map |\n";
    out += "|---|---|---|---|---|\n";
    out += "| " + group + " | " + steps_iqr(run, recall->experiment->steps) + " | " + reference_count(run.never_90) +
           " | " + fixed(run.final_accuracy.median, 3) + " (" + fixed(run.final_accuracy.q1, 3) + "–" +
           fixed(run.final_accuracy.q3, 3) + ") | " + fixed(run.probe_match.median, 2) + " (" +
           fixed(run.probe_match.q1, 2) + "–" + fixed(run.probe_match.q3, 2) + ") |\n";
  }
  return out;
}

}  // namespace smlab
