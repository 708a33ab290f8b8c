// The training reference (assets/training-reference.json, docs/TRAINING.md "Numbers over seeds"):
// the statistics it is made of; the shipped file is the code's (its experiments, and a cheap part
// measured again bit for bit); and, slow, every number it holds is reproduced by a second group of
// seeds within three standard errors of the difference.
//
// [SECTION] Index
//   [SECTION] Statistics over seeds
//   [SECTION] The shipped file
//   [SECTION] A second group of seeds (slow)
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "smlab/labs/training_reference.hpp"
#include "training_reference_file.hpp"

namespace smlab {
namespace {

using nlohmann::json;
constexpr double kInf = std::numeric_limits<double>::infinity();

// [SECTION] Statistics over seeds

TEST(TrainingStatistics, QuantilesInterpolateAndRankRunsThatNeverGotThereLast) {
  const std::vector<double> four = {10, 20, 30, 40};
  EXPECT_DOUBLE_EQ(train::quantile(four, 0.5), 25.0);  // numpy.quantile([10,20,30,40], 0.5)
  EXPECT_DOUBLE_EQ(train::quantile(four, 0.25), 17.5);
  EXPECT_DOUBLE_EQ(train::quantile(four, 0.75), 32.5);
  const std::vector<double> censored = {10, 20, kInf, kInf};
  EXPECT_EQ(train::quantile(censored, 0.5), kInf) << "the median lies between 20 and a run beyond the budget";
  EXPECT_DOUBLE_EQ(train::quantile(censored, 0.25), 17.5);
  EXPECT_TRUE(std::isnan(train::quantile(std::vector<double>{}, 0.5)));
  // 32 values 1..32: the median's 95 % interval runs from the 10th to the 23rd value.
  std::vector<double> ranks(32);
  for (int i = 0; i < 32; ++i) ranks[static_cast<std::size_t>(i)] = i + 1;
  EXPECT_NEAR(train::quantile_se(ranks, 0.5), (23.0 - 10.0) / (2 * 1.959963984540054), 1e-12);
  // Three runs beyond the budget: the upper quartile's interval (24 ± 4.8, up to the 30th) reaches them.
  ranks[29] = ranks[30] = ranks[31] = kInf;
  EXPECT_TRUE(std::isfinite(train::quantile_se(ranks, 0.5)));
  EXPECT_TRUE(std::isfinite(train::quantile(ranks, 0.75)));
  EXPECT_EQ(train::quantile_se(ranks, 0.75), kInf) << "the upper quartile's interval reaches the never-runs";
  const train::SampleSummary s = train::summarize_sample(std::vector<double>{1, 2, 3, kInf});
  EXPECT_EQ(s.n, 4);
  EXPECT_EQ(s.finite, 3);
  EXPECT_DOUBLE_EQ(s.mean, 2.0);
  EXPECT_DOUBLE_EQ(s.sd, 1.0);
}

TEST(TrainingStatistics, AFractionOfNoneOrAllStillHasAStandardError) {
  const train::Fraction none = train::fraction_of(0, 32), quarter = train::fraction_of(8, 32);
  EXPECT_EQ(none.value, 0.0);
  EXPECT_NEAR(none.se, std::sqrt((2.0 / 36) * (34.0 / 36) / 36), 1e-15);  // Agresti–Coull
  EXPECT_NEAR(quarter.value, 0.25, 1e-15);
  EXPECT_NEAR(quarter.se, std::sqrt((10.0 / 36) * (26.0 / 36) / 36), 1e-15);
}

// [SECTION] The shipped file

json shipped() {
  std::ifstream file(SMLAB_SOURCE_DIR "/assets/training-reference.json");
  std::stringstream text;
  text << file.rdbuf();
  return json::parse(text.str());
}

using training_reference_file::read_number;
using training_reference_file::read_seeds;

bool same_number(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// The file was written by this code from these experiments: the same table, its command and
// format, seeds 1-32; every run's step-1 numbers (all seeds) and a few seeds' whole runs measured
// again give the same bits; and its summaries are those of its own per-seed values.
TEST(TrainingReference, TheShippedFileIsCurrent) {
  const json file = shipped();
  ASSERT_EQ(file.at("format").get<int>(), training_reference_format);
  EXPECT_EQ(file.at("command").get<std::string>(), training_reference_command);
  const auto first_seed = file.at("first_seed").get<std::uint64_t>();
  EXPECT_EQ(first_seed, 1u);
  EXPECT_GE(file.at("seeds").get<int>(), 32) << "every quoted number comes from at least 32 seeds";
  const std::span<const ReferenceExperiment> experiments = training_reference_experiments();
  ASSERT_EQ(file.at("experiments").size(), experiments.size()) << "regenerate: " << training_reference_command;
  for (std::size_t e = 0; e < experiments.size(); ++e) {
    const ReferenceExperiment& x = experiments[e];
    const json& fx = file.at("experiments")[e];
    ASSERT_EQ(fx.at("id").get<std::string>(), x.id) << "regenerate: " << training_reference_command;
    ASSERT_EQ(fx.at("set").get<std::vector<std::string>>(), x.assignments) << x.id;
    ASSERT_EQ(fx.at("steps").get<int>(), x.steps) << x.id;
    ASSERT_EQ(fx.at("whole").get<bool>(), x.whole) << x.id;
    ASSERT_EQ(fx.at("runs").size(), x.runs.size()) << x.id;
    std::vector<ReferenceRunResult> runs(x.runs.size());
    for (std::size_t r = 0; r < x.runs.size(); ++r) {
      const json& fr = fx.at("runs")[r];
      ASSERT_EQ(fr.at("name").get<std::string>(), x.runs[r].name) << x.id;
      ASSERT_EQ(fr.at("set").get<std::vector<std::string>>(), x.runs[r].assignments) << x.id;
      runs[r].seeds = read_seeds(fr, first_seed, x.whole);
      // Step 1 of every seed, again.
      for (const ReferenceSeed& seed : runs[r].seeds) {
        const Result<train::Settings> settings = reference_settings(x, r, seed.seed);
        ASSERT_TRUE(settings.ok()) << settings.error().message;
        const ReferenceSeed again = measure_reference_seed(*settings, 1, true);
        ASSERT_TRUE(same_number(again.start_loss, seed.start_loss))
            << x.id << " " << x.runs[r].name << " " << seed.seed;
        ASSERT_TRUE(same_number(again.start_saturated, seed.start_saturated)) << x.id << " " << seed.seed;
        ASSERT_TRUE(same_number(again.start_grad_norm_q, seed.start_grad_norm_q)) << x.id << " " << seed.seed;
        ASSERT_TRUE(same_number(again.start_grad_norm_k, seed.start_grad_norm_k)) << x.id << " " << seed.seed;
      }
    }
    // The summaries are those of the per-seed values.
    for (std::size_t r = 0; r < x.runs.size(); ++r) {
      summarize_reference_run(runs[r], &runs.front(), x.whole);
      const json& fr = fx.at("runs")[r];
      EXPECT_EQ(fr.at("never_90").at("count").get<int>(), runs[r].never_90.count) << x.id << " " << x.runs[r].name;
      EXPECT_TRUE(same_number(read_number(fr.at("steps_to_90").at("median")), runs[r].steps_to_90.median)) << x.id;
      EXPECT_TRUE(same_number(read_number(fr.at("steps_to_90").at("q3")), runs[r].steps_to_90.q3)) << x.id;
      EXPECT_TRUE(
          same_number(read_number(fr.at("start_grad_q_over_a").at("median")), runs[r].start_grad_q_over_a.median))
          << x.id;
      if (x.whole) {
        EXPECT_TRUE(same_number(read_number(fr.at("skipped_fraction").at("median")), runs[r].skipped_fraction.median))
            << x.id;
      }
    }
  }
  // Whole runs of a few seeds, again: the default task's (a step count, final accuracy, the probe)
  // and naive fp16's (the first non-finite step, the skipped steps), and a seed of the unscaled d_k 64
  // run that never learns (its 1500 steps end without 90 %).
  struct Again {
    const char* id;
    std::size_t run;
    std::uint64_t seed;
  };
  for (const Again& again : {Again{"recall-default", 0, 1}, Again{"recall-default", 0, 2}, Again{"precision", 0, 1},
                             Again{"precision", 0, 2}, Again{"precision", 1, 1}}) {
    const ReferenceExperiment& x = *find_reference_experiment(again.id);
    std::size_t e = 0;
    while (experiments[e].id != x.id) ++e;
    const ReferenceSeed shipped_seed =
        read_seeds(file.at("experiments")[e].at("runs")[again.run], first_seed, x.whole)[again.seed - first_seed];
    const ReferenceSeed measured =
        measure_reference_seed(*reference_settings(x, again.run, again.seed), x.steps, x.whole);
    const std::string where = std::string(again.id) + " run " + x.runs[again.run].name + " seed " +
                              std::to_string(again.seed) + ": regenerate with " +
                              std::string(training_reference_command);
    EXPECT_EQ(measured.steps_to_90, shipped_seed.steps_to_90) << where;
    EXPECT_TRUE(same_number(measured.final_accuracy, shipped_seed.final_accuracy)) << where;
    EXPECT_TRUE(same_number(measured.final_loss, shipped_seed.final_loss)) << where;
    EXPECT_TRUE(same_number(measured.probe_match, shipped_seed.probe_match)) << where;
    EXPECT_EQ(measured.first_nonfinite, shipped_seed.first_nonfinite) << where;
    EXPECT_TRUE(same_number(measured.skipped_fraction, shipped_seed.skipped_fraction)) << where;
  }
}

std::string read_text(const char* path) {
  std::ifstream file(path);
  std::stringstream text;
  text << file.rdbuf();
  return text.str();
}

// docs/TRAINING.md shows the tables made from the shipped file, as they are made now.
TEST(TrainingReference, TheDocsShowTheShippedTables) {
  const Result<TrainingReference> reference =
      training_reference_file::read(read_text(SMLAB_SOURCE_DIR "/assets/training-reference.json"));
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  const std::string doc = read_text(SMLAB_SOURCE_DIR "/docs/TRAINING.md");
  const std::string begin =
      "<!-- training-reference tables: build/tests/training-reference --tables-from "
      "assets/training-reference.json -->\n";
  const std::string end = "<!-- end of training-reference tables -->";
  const std::size_t from = doc.find(begin), to = doc.find(end);
  ASSERT_NE(from, std::string::npos) << "docs/TRAINING.md has no line " << begin;
  ASSERT_NE(to, std::string::npos);
  EXPECT_EQ(doc.substr(from + begin.size(), to - from - begin.size()), training_reference_tables(*reference))
      << "paste the output of build/tests/training-reference --tables-from assets/training-reference.json";
}

// Whether `number` is in `text` as a whole number (no digit or decimal point around it).
bool quotes(std::string_view text, std::string_view number) {
  const auto digit = [](char c) { return (c >= '0' && c <= '9') || c == '.'; };
  for (std::size_t at = text.find(number); at != std::string_view::npos; at = text.find(number, at + 1)) {
    const bool before = at > 0 && digit(text[at - 1]);
    const std::size_t end = at + number.size();
    const bool after = end < text.size() && (digit(text[end]) && !(text[end] == '.' && end + 1 == text.size()));
    if (!before && !after) return true;
  }
  return false;
}

// The lesson watch-attention-learn quotes the shipped reference: every number its steps give for
// 32 seeds is the file's, in English and in Chinese.
TEST(TrainingReference, TheLessonQuotesTheShippedNumbers) {
  const Result<TrainingReference> reference =
      training_reference_file::read(read_text(SMLAB_SOURCE_DIR "/assets/training-reference.json"));
  ASSERT_TRUE(reference.ok()) << reference.error().message;
  const json lesson = json::parse(read_text(SMLAB_SOURCE_DIR "/assets/lessons/13-watch-attention-learn.json"));
  const std::vector<std::vector<std::string>> quoted = reference_lesson_quotes(*reference);
  ASSERT_EQ(quoted.size(), 7u) << "the reference holds every experiment the lesson quotes";
  for (std::size_t step = 0; step < quoted.size(); ++step)
    for (const char* language : {"en", "zh-CN"}) {
      const std::string text = lesson.at("steps").at(step).at("text").at(language).get<std::string>();
      for (const std::string& number : quoted[step])
        EXPECT_TRUE(quotes(text, number)) << "watch-attention-learn:" << step + 1 << " (" << language
                                          << ") does not quote the reference's " << number;
    }
}

// [SECTION] A second group of seeds (slow)

// A statistic of the file (seeds 1-32) against the same of seeds 1001-1032: |Δ| ≤ 3·√(SE₁² + SE₂²).
// Both beyond the budget (+inf) agree; an SE that is +inf (a quantile whose interval reaches runs
// beyond the budget) bounds nothing.
struct Compared {
  std::string what;
  double first, first_se, second, second_se;
};

std::string check(const Compared& c) {
  if (std::isnan(c.first) && std::isnan(c.second)) return {};
  if (std::isinf(c.first) && std::isinf(c.second)) return {};
  const double bound = 3.0 * std::sqrt(c.first_se * c.first_se + c.second_se * c.second_se);
  const double delta = std::abs(c.first - c.second);
  if (std::isinf(bound) || delta <= bound) return {};
  std::ostringstream out;
  out << c.what << ": seeds 1-32 " << c.first << " ± " << c.first_se << ", seeds 1001-1032 " << c.second << " ± "
      << c.second_se << " (|Δ| " << delta << " > 3·SE " << bound << ")";
  return out.str();
}

void compare_fraction(std::vector<Compared>& out, const std::string& what, const json& first,
                      const train::Fraction& second) {
  out.push_back({what, read_number(first.at("value")), read_number(first.at("se")), second.value, second.se});
}

void compare_quantiles(std::vector<Compared>& out, const std::string& what, const json& first,
                       const train::SampleSummary& second, bool quartiles) {
  out.push_back({what + " median", read_number(first.at("median")), read_number(first.at("median_se")), second.median,
                 second.median_se});
  if (!quartiles) return;
  out.push_back({what + " Q1", read_number(first.at("q1")), read_number(first.at("q1_se")), second.q1, second.q1_se});
  out.push_back({what + " Q3", read_number(first.at("q3")), read_number(first.at("q3_se")), second.q3, second.q3_se});
}

TEST(TrainingReferenceSlow, EveryQuotedNumberHoldsOnSeeds1001To1032) {
  const json file = shipped();
  const int seeds = file.at("seeds").get<int>();
  const Result<TrainingReference> second = evaluate_training_reference(1001, seeds);
  ASSERT_TRUE(second.ok()) << second.error().message;
  std::vector<Compared> compared;
  for (std::size_t e = 0; e < second->experiments.size(); ++e) {
    const ReferenceExperimentResult& x = second->experiments[e];
    const json& fx = file.at("experiments")[e];
    ASSERT_EQ(fx.at("id").get<std::string>(), x.experiment->id);
    for (std::size_t r = 0; r < x.runs.size(); ++r) {
      const ReferenceRunResult& run = x.runs[r];
      const json& fr = fx.at("runs")[r];
      const std::string name = x.experiment->id + " " + run.name;
      compare_fraction(compared, name + " never reaching 90 %", fr.at("never_90"), run.never_90);
      compare_quantiles(compared, name + " steps to 90 %", fr.at("steps_to_90"), run.steps_to_90, true);
      compare_quantiles(compared, name + " step-1 saturated rows", fr.at("start_saturated"), run.start_saturated, true);
      compare_quantiles(compared, name + " step-1 max weight", fr.at("start_max_weight"), run.start_max_weight, false);
      if (r > 0) {
        compare_quantiles(compared, name + " step-1 ‖∂L/∂Q‖ over A's", fr.at("start_grad_q_over_a"),
                          run.start_grad_q_over_a, true);
        compare_fraction(compared, name + " ‖∂L/∂Q‖ over A's above 2", fr.at("grad_q_over_a_above_2"),
                         run.grad_q_over_a_above_2);
      }
      if (!x.experiment->whole) continue;
      compare_quantiles(compared, name + " final accuracy", fr.at("final_accuracy"), run.final_accuracy, false);
      compare_quantiles(compared, name + " probe match", fr.at("probe_match"), run.probe_match, false);
      compare_quantiles(compared, name + " skipped steps", fr.at("skipped_fraction"), run.skipped_fraction, false);
      compare_quantiles(compared, name + " first non-finite step", fr.at("first_nonfinite"), run.first_nonfinite,
                        false);
      compare_fraction(compared, name + " seeds with a non-finite step", fr.at("nonfinite_seeds"), run.nonfinite_seeds);
      compare_fraction(compared, name + " seeds non-finite at step 1", fr.at("nonfinite_at_step_1"),
                       run.nonfinite_at_step_1);
    }
  }
  int failures = 0;
  for (const Compared& c : compared)
    if (const std::string problem = check(c); !problem.empty()) {
      ADD_FAILURE() << problem;
      ++failures;
    }
  std::printf("[ measured ] %zu numbers compared, %d outside 3 standard errors\n", compared.size(), failures);
}

}  // namespace
}  // namespace smlab
