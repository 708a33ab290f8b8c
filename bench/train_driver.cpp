// train-driver: the headless measurements of docs/TRAINING.md: steps per second, time
// to 99% on the default task, steps to 90% scaled vs unscaled over seeds, temperature, naive fp16,
// the language model's loss within a minute, and the cost model's estimates against the clock. Every
// figure in that document comes from here.
//
// [SECTION] Index
//   [SECTION] Command line
//   [SECTION] Runs over seeds
//   [SECTION] Measurements
//   [SECTION] main
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "smlab/parallel.hpp"
#include "smlab/train/cost.hpp"
#include "smlab/train/run.hpp"
#include "train_test_support.hpp"

namespace smlab::train {
namespace {

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

// [SECTION] Command line

struct Options {
  std::string command;
  std::vector<std::string> sets;  // --set KEY=VALUE, applied in order to every run
  std::vector<double> values;     // --values: d_k, temperatures, ... (the measurement's axis)
  int seeds = 8;
  int cap = 2000;          // steps before a run counts as not reaching the threshold
  double threshold = 0.9;  // accuracy threshold of "steps to"
  int window = 20;         // steps averaged for the threshold (fresh batches each step)
  double seconds = 60.0;   // language, to99
  std::string lessons = SMLAB_SOURCE_DIR "/assets/lessons";
};

std::vector<double> parse_list(const std::string& text) {
  std::vector<double> out;
  std::size_t at = 0;
  while (at <= text.size()) {
    const std::size_t comma = text.find(',', at);
    out.push_back(std::atof(text.substr(at, comma - at).c_str()));
    if (comma == std::string::npos) break;
    at = comma + 1;
  }
  return out;
}

std::optional<Options> parse(int argc, char** argv) {
  if (argc < 2) return std::nullopt;
  Options o;
  o.command = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    const std::string flag = argv[i], value = argv[i + 1];
    if (flag == "--set")
      o.sets.push_back(value);
    else if (flag == "--values")
      o.values = parse_list(value);
    else if (flag == "--seeds")
      o.seeds = std::atoi(value.c_str());
    else if (flag == "--cap")
      o.cap = std::atoi(value.c_str());
    else if (flag == "--threshold")
      o.threshold = std::atof(value.c_str());
    else if (flag == "--seconds")
      o.seconds = std::atof(value.c_str());
    else if (flag == "--lessons")
      o.lessons = value;
    else
      return std::nullopt;
  }
  if ((argc - 2) % 2 != 0) return std::nullopt;
  return o;
}

// The settings of a measurement: the task's defaults, then every --set in order.
Settings settings_of(const Options& o, Task task = Task::recall) {
  Settings s = default_settings(task);
  for (const std::string& assignment : o.sets) {
    const std::size_t equals = assignment.find('=');
    if (const std::string key = assignment.substr(0, equals); key == "task")
      s = default_settings(task_from_name(assignment.substr(equals + 1)).value_or(task));
    const Result<void> set =
        set_setting(s, assignment.substr(0, equals), equals == std::string::npos ? "" : assignment.substr(equals + 1));
    if (!set.ok()) {
      std::fprintf(stderr, "train-driver: %s\n", set.error().message.c_str());
      std::exit(2);
    }
  }
  return s;
}

std::shared_ptr<const Corpus> lesson_corpus(const Options& o) {
  const auto built = build_corpus(train_test::lesson_texts(o.lessons), lesson_corpus_min_count);
  if (!built.ok()) {
    std::fprintf(stderr, "train-driver: %s (lessons from %s)\n", built.error().message.c_str(), o.lessons.c_str());
    std::exit(3);
  }
  return built.value();
}

// [SECTION] Runs over seeds

// The first step at which the mean batch accuracy of the last `window` steps reaches the threshold
// (each step's batch is fresh data, so this is accuracy on unseen examples), or nullopt by `cap`.
struct Outcome {
  std::optional<int> steps_to_threshold;
  double final_accuracy = 0.0;  // mean batch accuracy of the last window
  std::optional<int> first_nonfinite;
  int skipped = 0;
  double initial_max_weight = 0.0, initial_saturated = 0.0, initial_grad_q = 0.0;
};

Outcome train_until(const Settings& settings, const Options& o, bool stop_at_threshold) {
  Run run = Run::create(settings).value();
  run.set_max_threads(1);  // the seeds run in parallel instead
  Outcome out;
  double window_sum = 0.0;
  for (int step = 0; step < o.cap; ++step) {
    run.step(1);
    const auto& history = run.history();
    window_sum += history.back().accuracy;
    if (history.size() > static_cast<std::size_t>(o.window))
      window_sum -= history[history.size() - 1 - static_cast<std::size_t>(o.window)].accuracy;
    if (step == 0) {
      out.initial_max_weight = history.front().max_weight;
      out.initial_saturated = history.front().saturated_fraction;
      out.initial_grad_q = history.front().grad_norm_q;
    }
    if (!out.steps_to_threshold && history.size() >= static_cast<std::size_t>(o.window) &&
        window_sum / o.window >= o.threshold) {
      out.steps_to_threshold = step + 1;
      if (stop_at_threshold) break;
    }
  }
  out.final_accuracy = window_sum / std::min<double>(o.window, static_cast<double>(run.history().size()));
  out.first_nonfinite = run.first_nonfinite_step();
  for (const StepMetrics& m : run.history()) out.skipped += m.skipped ? 1 : 0;
  return out;
}

// Mean and standard error of the steps to threshold over seeds 1…n, a run that never reaches it
// counting as `cap` (so the mean is a lower bound when any is censored).
struct Summary {
  double mean = 0.0, standard_error = 0.0;
  int reached = 0, runs = 0;
  double initial_max_weight = 0.0, initial_saturated = 0.0, initial_grad_q = 0.0;
  std::vector<Outcome> outcomes;
};

Summary over_seeds(Settings settings, const Options& o, bool stop_at_threshold = true) {
  Summary summary;
  summary.outcomes.resize(static_cast<std::size_t>(o.seeds));
  parallel_for(o.seeds, [&](int index) {
    Settings s = settings;
    s.seed = static_cast<std::uint64_t>(index + 1);
    summary.outcomes[static_cast<std::size_t>(index)] = train_until(s, o, stop_at_threshold);
  });
  std::vector<double> steps;
  for (const Outcome& outcome : summary.outcomes) {
    steps.push_back(outcome.steps_to_threshold.value_or(o.cap));
    summary.reached += outcome.steps_to_threshold ? 1 : 0;
    summary.initial_max_weight += outcome.initial_max_weight / o.seeds;
    summary.initial_saturated += outcome.initial_saturated / o.seeds;
    summary.initial_grad_q += outcome.initial_grad_q / o.seeds;
  }
  summary.runs = o.seeds;
  for (double s : steps) summary.mean += s / static_cast<double>(steps.size());
  double variance = 0.0;
  for (double s : steps) variance += (s - summary.mean) * (s - summary.mean);
  variance /= std::max<std::size_t>(steps.size() - 1, 1);
  summary.standard_error = std::sqrt(variance / static_cast<double>(steps.size()));
  return summary;
}

void print_summary(const char* label, const Summary& s, const Options& o) {
  std::printf(
      "%-28s steps to %.0f%%: %7.1f ± %5.1f  (reached %d/%d within %d)  at step 1: max weight %.3f, "
      "saturated %.2f, |dL/dQ| %.3g\n",
      label, 100 * o.threshold, s.mean, s.standard_error, s.reached, s.runs, o.cap, s.initial_max_weight,
      s.initial_saturated, s.initial_grad_q);
}

// [SECTION] Measurements

// Steps per second on one thread and on every thread, at the default size and at d_k = 256, L = 64.
int measure_speed(const Options& o) {
  const auto rate = [](Settings s, int threads) {
    Run run = Run::create(s).value();
    run.set_max_threads(threads);
    run.step(3);  // first touches
    const auto start = Clock::now();
    int steps = 0;
    while (seconds_since(start) < 3.0) {
      run.step(1);
      ++steps;
    }
    return steps / seconds_since(start);
  };
  Settings base = settings_of(o);
  Settings large = base;
  large.key_dim = 256;
  if (!set_setting(large, "seq_len", "64").ok()) return 2;
  for (const auto& [label, s] : {std::pair{"default (recall, d_k 16, L 9)", base}, std::pair{"d_k 256, L 64", large}})
    std::printf("%-30s %8.1f steps/s on 1 thread, %8.1f on %d threads\n", label, rate(s, 1), rate(s, 0),
                available_threads());
  return 0;
}

// Wall time until held-out accuracy (1024 examples, checked every 25 steps) reaches 99%.
int measure_to99(const Options& o) {
  Settings s = settings_of(o);
  Run run = Run::create(s).value();
  const auto start = Clock::now();
  double accuracy = 0.0;
  while (seconds_since(start) < o.seconds) {
    run.step(25);
    accuracy = run.held_out(1024).accuracy;
    if (accuracy >= 0.99) break;
  }
  std::printf("%s: held-out accuracy %.4f after %d steps, %.2f s (threads %d)\n",
              std::string(task_name(s.task)).c_str(), accuracy, run.steps_done(), seconds_since(start),
              available_threads());
  return accuracy >= 0.99 ? 0 : 1;
}

// Steps to the threshold, scaled and unscaled, at each d_k in --values.
int measure_scaling(const Options& o) {
  const std::vector<double> dims = o.values.empty() ? std::vector<double>{16, 64, 256} : o.values;
  for (double dim : dims) {
    for (bool scaled : {true, false}) {
      Settings s = settings_of(o);
      s.key_dim = static_cast<int>(dim);
      s.scaled = scaled;
      const std::string label = "d_k " + std::to_string(s.key_dim) + (scaled ? " scaled" : " unscaled");
      print_summary(label.c_str(), over_seeds(s, o), o);
      std::fflush(stdout);
    }
  }
  return 0;
}

// Steps to the threshold at each temperature in --values.
int measure_temperature(const Options& o) {
  const std::vector<double> temperatures = o.values.empty() ? std::vector<double>{0.1, 0.3, 1, 3, 10} : o.values;
  for (double temperature : temperatures) {
    Settings s = settings_of(o);
    s.temperature = temperature;
    char label[64];
    std::snprintf(label, sizeof label, "T %g", temperature);
    print_summary(label, over_seeds(s, o), o);
    std::fflush(stdout);
  }
  return 0;
}

// fp32 stable, fp16 stable, fp16 naive and bf16 naive, each run for the whole cap: when the first
// non-finite step comes, how many steps were skipped, and where accuracy ends.
int measure_precision(const Options& o) {
  struct Mode {
    const char* label;
    Format format;
    SoftmaxVariant variant;
  };
  for (const Mode& mode : {Mode{"fp32 stable", Format::fp32, SoftmaxVariant::stable},
                           Mode{"fp32 naive", Format::fp32, SoftmaxVariant::naive},
                           Mode{"fp16 stable", Format::fp16, SoftmaxVariant::stable},
                           Mode{"fp16 naive", Format::fp16, SoftmaxVariant::naive},
                           Mode{"bf16 naive", Format::bf16, SoftmaxVariant::naive}}) {
    Settings s = settings_of(o);
    s.precision = mode.format;
    s.softmax = mode.variant;
    const Summary summary = over_seeds(s, o, false);
    print_summary(mode.label, summary, o);
    std::string nonfinite;
    double final_accuracy = 0.0, skipped = 0.0;
    for (const Outcome& outcome : summary.outcomes) {
      nonfinite += (nonfinite.empty() ? "" : ",") +
                   (outcome.first_nonfinite ? std::to_string(*outcome.first_nonfinite) : std::string("-"));
      final_accuracy += outcome.final_accuracy / summary.runs;
      skipped += outcome.skipped / static_cast<double>(summary.runs);
    }
    std::printf(
        "%-28s first non-finite step per seed: %s; steps skipped %.0f of %d; accuracy of the last %d steps "
        "%.3f\n",
        "", nonfinite.c_str(), skipped, o.cap, o.window, final_accuracy);
    std::fflush(stdout);
  }
  return 0;
}

// The language model for --seconds of wall time: training loss (mean of the last 100 steps) and
// held-out loss every tenth of the time.
int measure_language(const Options& o) {
  const auto corpus = lesson_corpus(o);
  std::printf("corpus: %zu code points, vocabulary %d (min count %d, %zu code points unknown), held out from %d\n",
              corpus->code_points, corpus->vocab_size(), lesson_corpus_min_count, corpus->unknown_count,
              corpus->held_out_from);
  Settings s = settings_of(o, Task::language);
  Run run = Run::create(s, corpus).value();
  std::printf("settings: %s\nparameters: %zu; uniform guess ln V = %.3f nats\n", train_test::describe(s).c_str(),
              run.layout().parameter_count, std::log(corpus->vocab_size()));
  const auto start = Clock::now();
  double next_report = 0.0;
  while (true) {
    run.step(1);
    const double elapsed = seconds_since(start);
    if (elapsed >= next_report || elapsed >= o.seconds) {
      const auto& h = run.history();
      double recent = 0.0;
      const std::size_t from = h.size() > 100 ? h.size() - 100 : 0;
      for (std::size_t i = from; i < h.size(); ++i) recent += h[i].loss / static_cast<double>(h.size() - from);
      const BatchResult held = run.held_out(256);
      std::printf("%6.1f s  step %6d  train loss %.3f  held-out loss %.3f  held-out accuracy %.3f\n", elapsed,
                  run.steps_done(), recent, held.loss, held.accuracy);
      std::fflush(stdout);
      next_report += o.seconds / 10;
      if (elapsed >= o.seconds) break;
    }
  }
  return 0;
}

// The cost model against the clock (smlab/train/cost.hpp): for the settings (the task's defaults and
// every --set), one core's seconds per step measured over --seconds (at least one step), beside the
// model's estimate from its counts. The ratio estimate/measured should stay at or above 1: an
// estimate may be high, not low. Also each count over the time, the rates the model's terms imply.
int measure_cost(const Options& o) {
  const Settings s = settings_of(o);
  const std::shared_ptr<const Corpus> corpus = s.task == Task::language ? lesson_corpus(o) : nullptr;
  const auto created_at = Clock::now();
  Run run = Run::create(s, corpus).value();
  const double created = seconds_since(created_at);
  run.set_max_threads(1);
  run.step(1);  // first-use costs (buffers) not counted
  const auto start = Clock::now();
  int steps = 0;
  do {
    run.step(1);
    ++steps;
  } while (seconds_since(start) < o.seconds);
  const double measured = seconds_since(start) / steps;
  const StepWork work = step_work(s, corpus.get());
  const double estimated = step_seconds(s, corpus.get());
  std::printf(
      "%s\n  steps %d  measured %.6g s/step  estimated %.6g s/step  ratio %.2f  created in %.3g s (est. %.3g s "
      "with the summary)\n  multiply-adds %.4g (%.3g /s)  softmax weights %.4g (%.3g /s)  bytes %.4g\n",
      train_test::describe(s).c_str(), steps, measured, estimated, estimated / measured, created,
      setup_seconds(s, corpus.get()), work.multiply_adds, work.multiply_adds / measured, work.softmax_weights,
      work.softmax_weights / measured, work.bytes);
  return 0;
}

const char* usage =
    "usage: train-driver COMMAND [--set KEY=VALUE]... [--values A,B,...] [--seeds N] [--cap STEPS]\n"
    "                    [--threshold ACC] [--seconds S] [--lessons DIR]\n"
    "commands: speed, to99, scaling (--values: d_k), temperature (--values: T), precision, language, cost\n";

}  // namespace
}  // namespace smlab::train

// [SECTION] main

int main(int argc, char** argv) {
  using namespace smlab::train;
  const auto options = parse(argc, argv);
  if (!options) {
    std::fputs(usage, stderr);
    return 2;
  }
  const std::map<std::string, std::function<int(const Options&)>> commands{{"speed", measure_speed},
                                                                           {"to99", measure_to99},
                                                                           {"scaling", measure_scaling},
                                                                           {"temperature", measure_temperature},
                                                                           {"precision", measure_precision},
                                                                           {"language", measure_language},
                                                                           {"cost", measure_cost}};
  const auto command = commands.find(options->command);
  if (command == commands.end()) {
    std::fputs(usage, stderr);
    return 2;
  }
  return command->second(*options);
}
