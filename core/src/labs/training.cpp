// The training lab (smlab/labs/training.hpp): its train_* keys and their one validation, the runs
// the settings ask for, the summary of trained runs that the lab draws, and the lab at a step.
//
// [SECTION] Index
//   [SECTION] Text helpers
//   [SECTION] The key table
//   [SECTION] The comparison: KEY=V1[,V2[,V3]]
//   [SECTION] Validation and one key
//   [SECTION] The runs
//   [SECTION] Summaries over seeds
//   [SECTION] The sentence
//   [SECTION] The lab at a step
//   [SECTION] The lab's row
#include "smlab/labs/training.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <deque>
#include <limits>
#include <mutex>
#include <new>

#include "smlab/parallel.hpp"
#include "smlab/params.hpp"
#include "smlab/train/statistics.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
using Kind = TrainingKeyKind;
using TL = TrainingLimits;

std::size_t at(int i) { return static_cast<std::size_t>(i); }

// [SECTION] Text helpers

// User text in a message: one line, at most 40 bytes.
std::string quoted(std::string_view text) {
  constexpr std::size_t max_shown = 40;
  std::string shown;
  for (char c : text.substr(0, max_shown)) shown += (c == '\n' || c == '\r' || c == '\t') ? ' ' : c;
  if (text.size() > max_shown) shown += "... (" + std::to_string(text.size()) + " bytes)";
  return shown.empty() ? "\"\"" : shown;
}

std::string_view trim(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// Code points of valid UTF-8 without control characters; nullopt otherwise.
std::optional<std::size_t> printable_code_points(std::string_view text) {
  std::size_t count = 0;
  for (std::size_t i = 0; i < text.size(); ++count) {
    const auto byte = static_cast<unsigned char>(text[i]);
    const std::size_t extra = byte < 0x80             ? 0
                              : (byte & 0xE0) == 0xC0 ? 1
                              : (byte & 0xF0) == 0xE0 ? 2
                              : (byte & 0xF8) == 0xF0 ? 3
                                                      : 4;
    if (extra == 4 || i + extra >= text.size() + (extra == 0 ? 1 : 0) || byte < 0x20 || byte == 0x7F)
      return std::nullopt;
    for (std::size_t k = 1; k <= extra; ++k)
      if ((static_cast<unsigned char>(text[i + k]) & 0xC0) != 0x80) return std::nullopt;
    i += extra + 1;
  }
  return count;
}

// [SECTION] The key table

constexpr std::string_view prefix = "train_";

struct KeyTable {
  std::vector<std::string> names;
  std::vector<TrainingKey> keys;
  KeyTable() {
    const std::span<const train::SettingKey> settings = train::setting_keys();
    names.reserve(settings.size());
    for (const train::SettingKey& setting : settings) names.push_back(std::string(prefix) + std::string(setting.name));
    for (std::size_t i = 0; i < settings.size(); ++i) {
      const train::SettingKey& s = settings[i];
      const Kind kind = s.kind == train::SettingKind::integer ? Kind::integer
                        : s.kind == train::SettingKind::real  ? Kind::real
                        : s.kind == train::SettingKind::flag  ? Kind::flag
                                                              : Kind::choice;
      const bool slider = s.name != "seed" && s.name != "vocab";
      keys.push_back({names[i], s.name, s.description, s.allowed, kind, s.min, s.max, s.logarithmic, slider});
    }
    keys.push_back({"train_compare", "",
                    "runs B, C, D: run A with one training setting changed, KEY=V1[,V2[,V3]] (e.g. scaled=false); "
                    "empty: run A alone",
                    "empty, or KEY=V1[,V2[,V3]] with KEY a training setting other than task", Kind::text});
    keys.push_back({"train_seeds", "", "seeds per run: each trains on seed, seed+1, ... (bands over seeds)",
                    "an integer from 1 to 8", Kind::integer, TL::seeds_min, TL::seeds_max});
    keys.push_back({"train_steps", "", "the training lab's runs train to this step, then stop",
                    "an integer from 0 to 100000", Kind::integer, TL::steps_min, TL::steps_max, true});
    keys.push_back({"train_sentence", "", "the text whose attention the language model shows",
                    "text of 1 to 128 characters on one line", Kind::text});
    keys.push_back({"train_position", "", "whose next-token distribution the training lab shows (the last if beyond)",
                    "an integer from 0 to 127", Kind::integer, TL::position_min, TL::position_max});
    keys.push_back({"train_speed", "",
                    "steps per second of each run while the lab trains in the window (0: as fast as it can); "
                    "the numbers are the same at any speed",
                    "an integer from 0 to 1000", Kind::integer, TL::speed_min, TL::speed_max, true});
  }
};

const KeyTable& key_table() {
  static const KeyTable table;  // built once from the training settings' table, never changed
  return table;
}

// [SECTION] The comparison: KEY=V1[,V2[,V3]]

struct Comparison {
  std::string key;                  // the training setting ("scaled")
  std::vector<std::string> values;  // as get_setting prints them
  std::vector<train::Settings> runs;
};

Result<Comparison> parse_comparison(std::string_view text, const train::Settings& base) {
  Comparison out;
  text = trim(text);
  if (text.empty()) return out;
  const auto refuse = [&](const std::string& why) {
    return Error::usage("train_compare=" + quoted(text) + " is not allowed: " + why);
  };
  const std::size_t equals = text.find('=');
  if (equals == std::string_view::npos) return refuse("expected KEY=V1[,V2[,V3]], e.g. scaled=false");
  out.key = std::string(trim(text.substr(0, equals)));
  if (out.key == "task" || train::find_setting_key(out.key) == nullptr) {
    std::string names;
    for (const train::SettingKey& key : train::setting_keys())
      if (key.name != "task") names += (names.empty() ? "" : ", ") + std::string(key.name);
    return refuse("KEY must be one of " + names);
  }
  std::string_view rest = text.substr(equals + 1);
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view value = trim(rest.substr(0, comma));
    if (out.values.size() == TL::compare_values_max) return refuse("at most 3 values");
    train::Settings run = base;
    if (Result<void> set = train::set_setting(run, out.key, value, prefix); !set.ok())
      return refuse("run " + std::string(1, static_cast<char>('B' + out.values.size())) + ": " + set.error().message);
    out.values.push_back(*train::get_setting(run, out.key));
    out.runs.push_back(run);
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return out;
}

std::string comparison_text(const Comparison& comparison) {
  if (comparison.key.empty()) return "";
  std::string text = comparison.key + "=";
  for (std::size_t i = 0; i < comparison.values.size(); ++i) text += (i ? "," : "") + comparison.values[i];
  return text;
}

// [SECTION] Validation and one key

Result<void> check_sentence(std::string_view sentence) {
  const auto refuse = [&] {
    return Error::usage("train_sentence=" + quoted(sentence) +
                        " is not allowed: text of 1 to 128 characters on one line (UTF-8)");
  };
  if (sentence.empty() || sentence.size() > TL::sentence_max_bytes) return refuse();
  const std::optional<std::size_t> count = printable_code_points(sentence);
  if (!count || *count > at(train::Limits::seq_len_max)) return refuse();
  return {};
}

Error out_of_range(std::string_view name, long long value, const TrainingKey& key) {
  return Error::usage(std::string(name) + "=" + std::to_string(value) + " is out of range: allowed " +
                      std::string(key.allowed));
}

}  // namespace

std::span<const TrainingKey> training_keys() { return key_table().keys; }

const TrainingKey* find_training_key(std::string_view name) {
  for (const TrainingKey& key : key_table().keys)
    if (key.name == name) return &key;
  return nullptr;
}

Result<void> validate(const TrainingSettings& s) {
  if (Result<void> run = train::validate(s.run, prefix); !run.ok()) return run;
  const auto check_integer = [](std::string_view name, int value) -> Result<void> {
    const TrainingKey& key = *find_training_key(name);
    if (value < key.min || value > key.max) return out_of_range(name, value, key);
    return {};
  };
  if (Result<void> r = check_integer("train_seeds", s.seeds); !r.ok()) return r;
  if (Result<void> r = check_integer("train_steps", s.steps); !r.ok()) return r;
  if (Result<void> r = check_integer("train_position", s.position); !r.ok()) return r;
  if (Result<void> r = check_integer("train_speed", s.speed); !r.ok()) return r;
  const Result<Comparison> comparison = parse_comparison(s.compare, s.run);
  if (!comparison.ok()) return comparison.error();
  if (comparison_text(*comparison) != s.compare)
    return Error::usage("train_compare=" + quoted(s.compare) + " is not in its normal form '" +
                        comparison_text(*comparison) + "'");
  std::uint64_t largest_seed = s.run.seed;
  for (const train::Settings& run : comparison->runs) largest_seed = std::max(largest_seed, run.seed);
  if (largest_seed + static_cast<std::uint64_t>(s.seeds - 1) > train::Limits::seed_max)
    return Error::usage("train_seeds=" + std::to_string(s.seeds) + " is too many for train_seed=" +
                        std::to_string(largest_seed) + ": the last seed must be at most 9007199254740992");
  return check_sentence(s.sentence);
}

Result<void> set_training_key(TrainingSettings& settings, std::string_view name, std::string_view text) {
  const TrainingKey* key = find_training_key(name);
  if (key == nullptr) return Error::usage("unknown training key '" + quoted(name) + "'");
  TrainingSettings candidate = settings;
  if (!key->setting.empty()) {
    if (Result<void> set = train::set_setting(candidate.run, key->setting, trim(text), prefix); !set.ok()) return set;
  } else if (name == "train_compare") {
    const Result<Comparison> comparison = parse_comparison(text, candidate.run);
    if (!comparison.ok()) return comparison.error();
    candidate.compare = comparison_text(*comparison);
  } else if (name == "train_sentence") {
    if (Result<void> checked = check_sentence(text); !checked.ok()) return checked;
    candidate.sentence = std::string(text);
  } else {
    const std::string_view body = trim(text).starts_with('+') ? trim(text).substr(1) : trim(text);
    long long value = 0;
    const auto [end, ec] = std::from_chars(body.data(), body.data() + body.size(), value);
    if (body.empty() || ec != std::errc{} || end != body.data() + body.size() || value < key->min || value > key->max)
      return Error::usage(std::string(name) + "=" + quoted(text) + " is not allowed: " + std::string(key->allowed));
    int& member = name == "train_seeds"   ? candidate.seeds
                  : name == "train_steps" ? candidate.steps
                  : name == "train_speed" ? candidate.speed
                                          : candidate.position;
    member = static_cast<int>(value);
  }
  if (Result<void> invalid = validate(candidate); !invalid.ok()) return invalid;
  settings = std::move(candidate);
  return {};
}

std::optional<std::string> get_training_key(const TrainingSettings& settings, std::string_view name) {
  const TrainingKey* key = find_training_key(name);
  if (key == nullptr) return std::nullopt;
  if (!key->setting.empty()) return train::get_setting(settings.run, key->setting);
  if (name == "train_compare") return settings.compare;
  if (name == "train_sentence") return settings.sentence;
  if (name == "train_seeds") return std::to_string(settings.seeds);
  if (name == "train_steps") return std::to_string(settings.steps);
  if (name == "train_speed") return std::to_string(settings.speed);
  return std::to_string(settings.position);
}

// [SECTION] The runs

std::vector<TrainingRunSpec> training_run_specs(const TrainingSettings& settings) {
  std::vector<TrainingRunSpec> specs;
  const Result<Comparison> comparison = parse_comparison(settings.compare, settings.run);
  const bool compared = comparison.ok() && !comparison->key.empty();
  specs.push_back(
      {"A", compared ? comparison->key + "=" + *train::get_setting(settings.run, comparison->key) : "", settings.run});
  if (compared)
    for (std::size_t i = 0; i < comparison->runs.size(); ++i)
      specs.push_back({std::string(1, static_cast<char>('B' + i)), comparison->key + "=" + comparison->values[i],
                       comparison->runs[i]});
  return specs;
}

train::Settings seed_settings(const train::Settings& run, int index) {
  train::Settings out = run;
  out.seed = run.seed + static_cast<std::uint64_t>(index);
  return out;
}

Result<std::vector<train::Run>> make_training_runs(const TrainingSettings& settings) {
  std::vector<train::Run> runs;
  for (const TrainingRunSpec& spec : training_run_specs(settings)) {
    if (spec.settings.task == train::Task::language && settings.corpus == nullptr)
      return Error::usage("train_task=language needs the lesson texts to train on, and none were loaded");
    for (int s = 0; s < settings.seeds; ++s) {
      Result<train::Run> run = train::Run::create(seed_settings(spec.settings, s), settings.corpus);
      if (!run.ok()) return Error::usage("run " + spec.name + ": " + run.error().message);
      run->set_max_threads(1);  // the seeds (or the UI thread) take the other cores
      runs.push_back(std::move(*run));
    }
  }
  return runs;
}

// [SECTION] Summaries over seeds

namespace {

// Prefix sums of one metric of one seed's history, over its finite values.
struct Prefix {
  std::vector<double> sum;  // sum[t] = Σ of the finite values of steps 1 … t
  std::vector<int> count;   // how many of them were finite
  Prefix(const std::vector<train::StepMetrics>& history, double train::StepMetrics::*member) {
    sum.assign(history.size() + 1, 0.0);
    count.assign(history.size() + 1, 0);
    for (std::size_t t = 0; t < history.size(); ++t) {
      const double value = history[t].*member;
      const bool finite = std::isfinite(value);
      sum[t + 1] = sum[t] + (finite ? value : 0.0);
      count[t + 1] = count[t] + (finite ? 1 : 0);
    }
  }
  // The mean of the finite values of steps first+1 … last (NaN when none). Steps past the recorded
  // history have no values: a run resumed from saved weights counts its earlier steps but has no
  // history of them (AddressSanitizer caught reading past the sums in Trainer's weights test).
  double mean(std::size_t first, std::size_t last) const {
    last = std::min(last, count.size() - 1);
    first = std::min(first, last);
    const int n = count[last] - count[first];
    return n > 0 ? (sum[last] - sum[first]) / n : kNaN;
  }
};

// Mean and mean ∓ SE over the seeds' values at one point (NaN ones left out), and each seed's.
void add_point(SeedBand& band, std::span<const double> values, bool with_band) {
  band.seeds.resize(values.size());
  for (std::size_t s = 0; s < values.size(); ++s) band.seeds[s].push_back(values[s]);
  double total = 0.0;
  int n = 0;
  for (double v : values)
    if (std::isfinite(v)) total += v, ++n;
  const double mean = n > 0 ? total / n : kNaN;
  band.mean.push_back(mean);
  if (!with_band) return;
  double squares = 0.0;
  for (double v : values)
    if (std::isfinite(v)) squares += (v - mean) * (v - mean);
  const double se = n > 1 ? std::sqrt(squares / (n - 1) / n) : 0.0;
  band.low.push_back(mean - se);
  band.high.push_back(mean + se);
}

double mean_of(std::span<const double> values) {
  double total = 0.0;
  int n = 0;
  for (double v : values)
    if (std::isfinite(v)) total += v, ++n;
  return n > 0 ? total / n : kNaN;
}

void summarize_run(TrainingRun& out, std::span<const train::Run> seeds) {
  const int done = seeds.front().steps_done();
  out.seeds = static_cast<int>(seeds.size());
  out.steps_done = done;
  const bool band = seeds.size() > 1;

  // The plotted steps: every step, or the ends of plot_points_max equal buckets.
  const int points = std::min(done, TL::plot_points_max);
  std::vector<std::size_t> ends(at(points));
  for (int k = 0; k < points; ++k)
    ends[at(k)] = static_cast<std::size_t>(std::llround(static_cast<double>(k + 1) * done / points));
  for (std::size_t end : ends) out.steps.push_back(static_cast<double>(end));

  struct Curve {
    SeedBand TrainingRun::*band;
    double train::StepMetrics::*member;
  };
  const Curve curves[] = {
      {&TrainingRun::loss, &train::StepMetrics::loss},
      {&TrainingRun::accuracy, &train::StepMetrics::accuracy},
      {&TrainingRun::grad_norm_q, &train::StepMetrics::grad_norm_q},
      {&TrainingRun::grad_norm_k, &train::StepMetrics::grad_norm_k},
      {&TrainingRun::entropy, &train::StepMetrics::entropy},
      {&TrainingRun::max_weight, &train::StepMetrics::max_weight},
      {&TrainingRun::saturated, &train::StepMetrics::saturated_fraction},
      {&TrainingRun::probe_match, &train::StepMetrics::probe_match},
  };
  std::vector<double> at_point(seeds.size());
  for (const Curve& curve : curves) {
    std::vector<Prefix> prefixes;
    for (const train::Run& seed : seeds) prefixes.emplace_back(seed.history(), curve.member);
    SeedBand& target = out.*curve.band;
    for (int k = 0; k < points; ++k) {
      const std::size_t end = ends[at(k)], bucket_start = k > 0 ? ends[at(k - 1)] : 0;
      const std::size_t span = std::max(end - bucket_start, at(TL::window));
      const std::size_t start = end > span ? end - span : 0;
      for (std::size_t s = 0; s < seeds.size(); ++s) at_point[s] = prefixes[s].mean(start, end);
      add_point(target, at_point, band);
    }
  }

  // Steps to 90 %, the first step's numbers, the last window, non-finite steps.
  std::vector<double> reached(seeds.size()), start_loss(seeds.size()), start_max(seeds.size()),
      start_saturated(seeds.size()), start_q(seeds.size()), start_k(seeds.size()), final_loss(seeds.size()),
      final_accuracy(seeds.size());
  out.reached_90 = 0;
  out.nonfinite_seeds = 0;
  long long skipped = 0, steps = 0;
  out.first_nonfinite.reset();
  out.seed_nonfinite.assign(seeds.size(), 0);
  out.seed_steps_to_90.assign(seeds.size(), 0);
  for (std::size_t s = 0; s < seeds.size(); ++s) {
    const std::vector<train::StepMetrics>& history = seeds[s].history();
    double window_sum = 0.0;
    std::optional<int> hit;
    for (std::size_t t = 0; t < history.size(); ++t) {
      window_sum += history[t].accuracy;
      if (t >= at(TL::window)) window_sum -= history[t - at(TL::window)].accuracy;
      if (!hit && t + 1 >= at(TL::window) && window_sum / TL::window >= TL::accuracy_threshold)
        hit = static_cast<int>(t + 1);
      skipped += history[t].skipped ? 1 : 0;
    }
    steps += static_cast<long long>(history.size());
    out.reached_90 += hit ? 1 : 0;
    out.seed_steps_to_90[s] = hit.value_or(0);
    reached[s] = done < TL::window ? kNaN : static_cast<double>(hit.value_or(done));
    start_loss[s] = history.empty() ? kNaN : history.front().loss;
    start_max[s] = history.empty() ? kNaN : history.front().max_weight;
    start_saturated[s] = history.empty() ? kNaN : history.front().saturated_fraction;
    start_q[s] = history.empty() ? kNaN : history.front().grad_norm_q;
    start_k[s] = history.empty() ? kNaN : history.front().grad_norm_k;
    const Prefix loss(history, &train::StepMetrics::loss), accuracy(history, &train::StepMetrics::accuracy);
    const std::size_t last = history.size(), from = last > at(TL::window) ? last - at(TL::window) : 0;
    final_loss[s] = loss.mean(from, last);
    final_accuracy[s] = accuracy.mean(from, last);
    if (const std::optional<int> bad = seeds[s].first_nonfinite_step()) {
      ++out.nonfinite_seeds;
      out.seed_nonfinite[s] = *bad;
      out.first_nonfinite = out.first_nonfinite ? std::min(*out.first_nonfinite, *bad) : *bad;
    }
  }
  out.steps_to_90 = mean_of(reached);
  // Median and quartiles: a seed that has not got there ranks last (+inf).
  std::vector<double> ranked(seeds.size());
  for (std::size_t s = 0; s < seeds.size(); ++s)
    ranked[s] = out.seed_steps_to_90[s] > 0 ? out.seed_steps_to_90[s] : std::numeric_limits<double>::infinity();
  std::sort(ranked.begin(), ranked.end());
  const bool none_yet = done < TL::window;
  out.steps_to_90_median = none_yet ? kNaN : train::quantile(ranked, 0.5);
  out.steps_to_90_q1 = none_yet ? kNaN : train::quantile(ranked, 0.25);
  out.steps_to_90_q3 = none_yet ? kNaN : train::quantile(ranked, 0.75);
  double squares = 0.0;
  for (double r : reached)
    if (std::isfinite(r)) squares += (r - out.steps_to_90) * (r - out.steps_to_90);
  out.steps_to_90_se =
      seeds.size() > 1 && std::isfinite(out.steps_to_90)
          ? std::sqrt(squares / static_cast<double>(seeds.size() - 1) / static_cast<double>(seeds.size()))
          : (std::isfinite(out.steps_to_90) ? 0.0 : kNaN);
  out.start_loss = mean_of(start_loss);
  out.start_max_weight = mean_of(start_max);
  out.start_saturated = mean_of(start_saturated);
  out.start_grad_norm_q = mean_of(start_q);
  out.start_grad_norm_k = mean_of(start_k);
  out.final_loss = mean_of(final_loss);
  out.final_accuracy = mean_of(final_accuracy);
  out.skipped_fraction = steps > 0 ? static_cast<double>(skipped) / static_cast<double>(steps) : 0.0;

  // The first seed's probe, and the head drawn for it.
  out.probe = seeds.front().probe_maps();
  const train::ProbeMaps& probe = out.probe;
  const bool language = out.settings.task == train::Task::language;
  out.shown_layer = language ? probe.layers - 1 : 0;
  out.shown_head = 0;
  if (!language) {
    double best = -1.0;
    for (int l = 0; l < probe.layers; ++l)
      for (int h = 0; h < probe.heads; ++h) {
        const double match = probe.match[at(l * probe.heads + h)];
        if (std::isfinite(match) && match > best) best = match, out.shown_layer = l, out.shown_head = h;
      }
  }
  out.shown_match = language ? kNaN : probe.match[at(out.shown_layer * probe.heads + out.shown_head)];
  const double* map = probe.map(out.shown_layer, out.shown_head);
  const std::size_t cells = at(probe.length) * at(probe.length);
  out.shown_map.assign(map, map + cells);
  out.ideal_map.clear();
  if (std::any_of(probe.ideal_rows.begin(), probe.ideal_rows.end(), [](unsigned char r) { return r != 0; }))
    out.ideal_map.assign(probe.ideal.begin(), probe.ideal.end());
}

}  // namespace

// [SECTION] The sentence

void inspect_training_sentence(TrainingSentence& out, const TrainingSettings& settings, const train::Run& run) {
  out = TrainingSentence{};
  const train::Settings& s = run.settings();
  const Result<train::SentenceAttention> inspected =
      s.task == train::Task::language ? run.inspect_text(settings.sentence) : run.inspect(run.probe().example.tokens);
  if (!inspected.ok()) {
    out.error = "train_sentence: " + inspected.error().message;
    return;
  }
  const train::Trace& trace = inspected->trace;
  out.labels = inspected->labels;
  out.length = trace.length;
  out.layers = trace.layers;
  out.heads = trace.heads;
  for (const std::vector<double>& map : trace.weights) out.weights.insert(out.weights.end(), map.begin(), map.end());
  out.position = std::min(settings.position, trace.length - 1);
  const std::size_t V = at(trace.output_vocab), row = at(out.position) * V;
  out.logits.assign(trace.readout_logits.begin() + static_cast<std::ptrdiff_t>(row),
                    trace.readout_logits.begin() + static_cast<std::ptrdiff_t>(row + V));
  out.probabilities.assign(inspected->next_token.begin() + static_cast<std::ptrdiff_t>(row),
                           inspected->next_token.begin() + static_cast<std::ptrdiff_t>(row + V));
  const train::Corpus* corpus = run.corpus().get();
  for (std::size_t v = 0; v < V; ++v)
    out.vocabulary.push_back(s.task == train::Task::language && corpus != nullptr ? corpus->label(static_cast<int>(v))
                                                                                  : std::to_string(v));
  out.top.resize(V);
  for (std::size_t v = 0; v < V; ++v) out.top[v] = static_cast<int>(v);
  const std::size_t shown = std::min(V, at(TL::next_token_shown));
  std::partial_sort(out.top.begin(), out.top.begin() + static_cast<std::ptrdiff_t>(shown), out.top.end(),
                    [&](int a, int b) {
                      const double pa = out.probabilities[at(a)], pb = out.probabilities[at(b)];
                      return pa > pb || (pa == pb && a < b);
                    });
  out.top.resize(shown);
  out.attention = std::make_shared<const train::SentenceAttention>(*inspected);
}

void summarize_training(TrainingLab& out, const TrainingSettings& settings, std::span<const train::Run> runs,
                        bool histories) {
  out.runs.clear();
  out.error.clear();
  out.goal = settings.steps;
  out.steps_done = runs.empty() ? 0 : runs.front().steps_done();
  const std::vector<TrainingRunSpec> specs = training_run_specs(settings);
  const std::size_t seeds = at(std::max(settings.seeds, 1));
  auto all = histories ? std::make_shared<std::vector<TrainingHistory>>() : nullptr;
  for (std::size_t r = 0; r < specs.size() && (r + 1) * seeds <= runs.size(); ++r) {
    TrainingRun run;
    run.name = specs[r].name;
    run.label = specs[r].label;
    run.settings = runs[r * seeds].settings();
    summarize_run(run, runs.subspan(r * seeds, seeds));
    out.runs.push_back(std::move(run));
    if (all)
      for (std::size_t s = 0; s < seeds; ++s)
        all->push_back(
            {specs[r].name, specs[r].label, runs[r * seeds + s].settings().seed, runs[r * seeds + s].history()});
  }
  out.histories = std::move(all);
  if (!runs.empty()) inspect_training_sentence(out.sentence, settings, runs.front());
  const bool language = !runs.empty() && runs.front().settings().task == train::Task::language;
  if (language && runs.front().corpus() != nullptr) {
    out.corpus_characters = runs.front().corpus()->code_points;
    out.vocabulary = runs.front().corpus()->vocab_size();
  }
}

// [SECTION] The lab at a step

namespace {

// The labs trained last, by their settings and corpus. A lesson walked step by step, a sweep of
// screenshots, an export of several files and a step that only changes the panel ask for the same
// training again, and a training is the same bits for the same settings, so the lab is copied
// instead of trained again (its histories and the sentence's attention are shared, immutable).
// The entry's settings hold their corpus, so its address names the same text while the entry
// lives. Only trainings of at most kept_step_records steps over all seeds are kept (~35 MB).
struct TrainedLab {
  TrainingSettings settings;
  TrainingLab lab;
};
constexpr std::size_t trained_labs_kept = 4;
constexpr double kept_step_records = 400'000;

struct TrainedLabs {
  std::mutex mutex;
  std::deque<TrainedLab> labs;  // newest first
};

TrainedLabs& trained_labs() {
  // Leaked on purpose, as the worker pool is: an evaluation still running on another thread at
  // exit never meets a destroyed mutex.
  static TrainedLabs* const kept = new TrainedLabs;
  return *kept;
}

bool same_training(const TrainedLab& entry, const TrainingSettings& settings) {
  return entry.settings == settings && entry.settings.corpus == settings.corpus;
}

}  // namespace

void evaluate_training_lab(TrainingLab& out, const TrainingSettings& settings) {
  TrainedLabs& kept = trained_labs();
  {
    std::lock_guard lock(kept.mutex);
    const auto found = std::find_if(kept.labs.begin(), kept.labs.end(),
                                    [&](const TrainedLab& entry) { return same_training(entry, settings); });
    if (found != kept.labs.end()) {
      out = found->lab;
      std::rotate(kept.labs.begin(), found, std::next(found));
      return;
    }
  }
  train_training_lab(out, settings);
  if (!out.error.empty()) return;
  double records = 0.0;
  for (const TrainingRun& run : out.runs) records += static_cast<double>(run.seeds) * out.steps_done;
  if (records > kept_step_records) return;
  try {
    std::lock_guard lock(kept.mutex);
    if (std::none_of(kept.labs.begin(), kept.labs.end(),
                     [&](const TrainedLab& entry) { return same_training(entry, settings); }))
      kept.labs.push_front({settings, out});
    if (kept.labs.size() > trained_labs_kept) kept.labs.pop_back();
  } catch (const std::bad_alloc&) {
    // Out of memory for the copy: the lab is shown, only not kept.
  }
}

void train_training_lab(TrainingLab& out, const TrainingSettings& settings) {
  out = TrainingLab{};
  out.goal = settings.steps;
  Result<std::vector<train::Run>> made = make_training_runs(settings);
  if (!made.ok()) {
    out.error = made.error().message;
    return;
  }
  std::vector<train::Run>& runs = *made;
  // Each seed on one thread (set by make_training_runs): its bits do not depend on which.
  parallel_for(static_cast<int>(runs.size()), [&](int index) { runs[at(index)].step(settings.steps); });
  summarize_training(out, settings, runs, true);
}

// [SECTION] The lab's row

namespace {

// The runs trained to train_steps (the app's live lab trains the same runs on a worker thread
// instead, and draws its newest picture; the Snapshot is not needed: the lab has no shown row).
std::any training_evaluator(const Params& lab_params, const Snapshot&) {
  TrainingLab lab;
  evaluate_training_lab(lab, lab_params.training);
  return lab;
}

}  // namespace

extern const LabInfo training_lab_info{
    "training",
    "a tiny attention model trained live: runs side by side, loss, maps, saturation, gradients, real tokens",
    training_evaluator};

}  // namespace smlab
