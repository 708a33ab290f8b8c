// The training lab (smlab/labs/training.hpp): its train_* keys go through the Params key table
// and its one validation; the live path (runs stepped in pieces, summarised) equals the lab at a
// step (evaluate_training_lab) bit for bit; the summaries over seeds against direct computations;
// the sentence's maps attend to no future token.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "smlab/labs/training.hpp"
#include "smlab/params.hpp"
#include "train_test_support.hpp"

namespace smlab {
namespace {

TrainingSettings quick(int steps, int seeds = 1) {
  TrainingSettings s;
  s.steps = steps;
  s.seeds = seeds;
  s.run.batch = 8;
  return s;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expect_same_band(const SeedBand& a, const SeedBand& b, const char* what) {
  ASSERT_EQ(a.mean.size(), b.mean.size()) << what;
  for (std::size_t i = 0; i < a.mean.size(); ++i) EXPECT_TRUE(same_bits(a.mean[i], b.mean[i])) << what << " at " << i;
  ASSERT_EQ(a.low.size(), b.low.size()) << what;
  for (std::size_t i = 0; i < a.low.size(); ++i) EXPECT_TRUE(same_bits(a.low[i], b.low[i])) << what << " at " << i;
}

// Every training setting is a Params key train_<name>; each reads back what it was given, and a
// refusal names the train_ key in one line and changes nothing.
TEST(TrainingKeys, EveryTrainingSettingIsAParamsKeyWithThePrefix) {
  for (const train::SettingKey& setting : train::setting_keys()) {
    const std::string name = "train_" + std::string(setting.name);
    const ParamKey* key = find_param_key(name);
    ASSERT_NE(key, nullptr) << name;
    EXPECT_EQ(key->allowed, setting.allowed) << name;
    EXPECT_EQ(key->is_integer(), setting.kind == train::SettingKind::integer) << name;
    EXPECT_EQ(key->is_real(), setting.kind == train::SettingKind::real) << name;
  }
  for (const char* name : {"train_compare", "train_seeds", "train_steps", "train_sentence", "train_position"})
    EXPECT_NE(find_param_key(name), nullptr) << name;

  Params p;
  ASSERT_TRUE(set_param(p, "train_d_k", "256").ok());
  ASSERT_TRUE(set_param(p, "train_temperature", "0.3").ok());
  ASSERT_TRUE(set_param(p, "train_precision", "fp16").ok());
  ASSERT_TRUE(set_param(p, "train_compare", " temperature = 0.10, 10 ").ok());
  ASSERT_TRUE(set_param(p, "train_seeds", "8").ok());
  ASSERT_TRUE(set_param(p, "train_sentence", "  two spaces kept ").ok());
  EXPECT_EQ(p.training.run.key_dim, 256);
  EXPECT_EQ(p.training.run.temperature, 0.3);
  EXPECT_EQ(p.training.run.precision, Format::fp16);
  EXPECT_EQ(p.training.compare, "temperature=0.1,10");  // normalised as get_setting prints
  EXPECT_EQ(p.training.seeds, 8);
  EXPECT_EQ(p.training.sentence, "  two spaces kept ");
  EXPECT_EQ(p.key_dim, Params{}.key_dim) << "the dashboard's d_k moved with the lab's";
  Params copy;
  for (const ParamKey& key : param_keys()) {
    const auto text = get_param(p, key.name);
    ASSERT_TRUE(text) << key.name;
    ASSERT_TRUE(set_param(copy, key.name, *text).ok()) << key.name << "=" << *text;
  }
  EXPECT_EQ(copy, p);

  struct Bad {
    const char* key;
    const char* value;
    const char* part;  // of the one-line message
  };
  for (const Bad& bad :
       {Bad{"train_d_k", "0", "train_d_k=0 is not allowed: an integer from 1 to 512"},
        Bad{"train_vocab", "3", "train_vocab=3 is too small for train_seq_len=9"},
        Bad{"train_compare", "task=copy", "KEY must be one of"}, Bad{"train_compare", "scaled", "expected KEY=V1"},
        Bad{"train_compare", "d_k=1,2,3,4", "at most 3 values"},
        Bad{"train_compare", "d_k=4096", "run B: train_d_k=4096 is not allowed"},
        Bad{"train_seeds", "9", "train_seeds=9 is not allowed: an integer from 1 to 8"},
        Bad{"train_steps", "-1", "train_steps=-1"}, Bad{"train_sentence", "", "text of 1 to 128 characters"},
        Bad{"train_sentence", "two\nlines", "text of 1 to 128 characters"},
        Bad{"train_sentence", "\xff", "text of 1 to 128 characters"},
        Bad{"train_task", "sort", "recall, copy, reverse, maximum or language"}}) {
    Params at = p;
    const Result<void> set = set_param(at, bad.key, bad.value);
    ASSERT_FALSE(set.ok()) << bad.key << "=" << bad.value;
    EXPECT_NE(set.error().message.find(bad.part), std::string::npos) << set.error().message;
    EXPECT_EQ(set.error().message.find('\n'), std::string::npos) << set.error().message;
    EXPECT_EQ(at, p) << bad.key << "=" << bad.value << " changed Params";
  }
  // A comparison that the new run A no longer allows is refused with the key that made it so.
  Params vocab = Params{};
  ASSERT_TRUE(set_param(vocab, "train_compare", "vocab=8").ok());
  const Result<void> longer = set_param(vocab, "train_seq_len", "12");
  ASSERT_FALSE(longer.ok());
  EXPECT_NE(longer.error().message.find("train_compare=vocab=8"), std::string::npos) << longer.error().message;
}

// A mistyped key gets one line short enough to read: a training-like name is told the training
// keys (without their common prefix), any other Params' own keys (all 55 names were 630 bytes).
TEST(TrainingKeys, AnUnknownKeyNamesTheKeysItMayHaveMeantInOneShortLine) {
  for (const char* typo : {"train_dk", "tempreature"}) {
    Params params;
    const Result<void> set = set_param(params, typo, "1");
    ASSERT_FALSE(set.ok()) << typo;
    const std::string& message = set.error().message;
    EXPECT_LT(message.size(), 300u) << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
    const bool training = std::string(typo).starts_with("train");
    EXPECT_EQ(message.find("train_ and one of task, vocab, seq_len") != std::string::npos, training) << message;
    EXPECT_EQ(message.find("temperature, d_k") != std::string::npos, !training) << message;
  }
}

TEST(TrainingKeys, RunsAreRunAThenOnePerComparedValue) {
  TrainingSettings s;
  s.compare = "d_k=64,256";
  const std::vector<TrainingRunSpec> specs = training_run_specs(s);
  ASSERT_EQ(specs.size(), 3u);
  EXPECT_EQ(specs[0].label, "d_k=16");
  EXPECT_EQ(specs[1].label, "d_k=64");
  EXPECT_EQ(specs[2].name, "C");
  EXPECT_EQ(specs[2].settings.key_dim, 256);
  train::Settings expected = s.run;
  expected.key_dim = 256;
  EXPECT_EQ(specs[2].settings, expected) << "a compared run differs from run A in its one key only";
  s.compare = "";
  EXPECT_EQ(training_run_specs(s).size(), 1u);
  EXPECT_EQ(training_run_specs(s)[0].label, "");
}

// What the live lab shows after stepping its runs in pieces equals the lab evaluated at that step
// (every series, bit for bit): a lesson's numbers are the ones the live lab draws.
TEST(TrainingLabs, StepsInPiecesEqualTheLabAtThatStep) {
  TrainingSettings s = quick(45, 2);
  s.compare = "scaled=false";
  TrainingLab whole;
  evaluate_training_lab(whole, s);
  ASSERT_TRUE(whole.error.empty()) << whole.error;
  Result<std::vector<train::Run>> runs = make_training_runs(s);
  ASSERT_TRUE(runs.ok());
  for (int piece : {7, 13, 25}) {
    for (train::Run& run : *runs) run.step(piece);
  }
  TrainingLab live;
  summarize_training(live, s, *runs);
  ASSERT_EQ(live.runs.size(), whole.runs.size());
  EXPECT_EQ(live.steps_done, 45);
  for (std::size_t r = 0; r < live.runs.size(); ++r) {
    const TrainingRun &a = live.runs[r], &b = whole.runs[r];
    EXPECT_EQ(a.label, b.label);
    EXPECT_EQ(a.steps, b.steps);
    expect_same_band(a.loss, b.loss, "loss");
    expect_same_band(a.accuracy, b.accuracy, "accuracy");
    expect_same_band(a.grad_norm_q, b.grad_norm_q, "grad_norm_q");
    expect_same_band(a.saturated, b.saturated, "saturated");
    EXPECT_TRUE(same_bits(a.steps_to_90, b.steps_to_90));
    EXPECT_EQ(a.shown_map, b.shown_map);
  }
  EXPECT_EQ(live.histories, nullptr) << "the live summary copies no histories unless asked";
  ASSERT_NE(whole.histories, nullptr);
  EXPECT_EQ(whole.histories->size(), 4u);  // 2 runs x 2 seeds
  EXPECT_EQ(whole.histories->at(3).seed, 2u);
  EXPECT_EQ(whole.histories->at(3).run, "B");
}

// A lab asked for again is the kept one (its histories the same object), and it is the same bits
// as the lab trained anew; a different corpus or step count is a different training.
TEST(TrainingLabs, AKeptLabIsTheSameBitsAsATrainingAnewAndKnowsItsCorpus) {
  TrainingSettings s = quick(40, 2);
  s.compare = "scaled=false";
  TrainingLab first, again, fresh, longer;
  evaluate_training_lab(first, s);
  evaluate_training_lab(again, s);
  train_training_lab(fresh, s);
  ASSERT_TRUE(first.error.empty()) << first.error;
  EXPECT_EQ(again.histories, first.histories) << "the second evaluation trained again";
  EXPECT_NE(fresh.histories, first.histories);
  ASSERT_EQ(fresh.runs.size(), again.runs.size());
  for (std::size_t r = 0; r < fresh.runs.size(); ++r) {
    expect_same_band(again.runs[r].loss, fresh.runs[r].loss, "loss");
    expect_same_band(again.runs[r].probe_match, fresh.runs[r].probe_match, "probe_match");
    EXPECT_TRUE(same_bits(again.runs[r].final_accuracy, fresh.runs[r].final_accuracy));
    EXPECT_EQ(again.runs[r].shown_map, fresh.runs[r].shown_map);
  }
  s.steps = 41;
  evaluate_training_lab(longer, s);
  EXPECT_EQ(longer.steps_done, 41);

  TrainingSettings language = quick(2);
  language.compare = "";
  language.run = train::default_settings(train::Task::language);
  language.run.batch = 2;
  language.corpus = train_test::small_corpus();
  TrainingLab small, other;
  evaluate_training_lab(small, language);
  const std::vector<std::string> texts(300, "abc cab bac.");
  language.corpus = train::build_corpus(texts, 1).value();
  evaluate_training_lab(other, language);
  ASSERT_TRUE(small.error.empty() && other.error.empty()) << small.error << other.error;
  EXPECT_NE(other.vocabulary, small.vocabulary) << "the kept lab of another corpus was shown";
}

// Steps to 90 %, the bands and the first step's numbers against direct computations from the
// seeds' histories (the definition of docs/TRAINING.md: mean batch accuracy of the last 20 steps).
TEST(TrainingLabs, SummariesMatchTheSeedsHistories) {
  TrainingSettings s = quick(300, 3);
  s.compare = "";
  TrainingLab lab;
  evaluate_training_lab(lab, s);
  ASSERT_EQ(lab.runs.size(), 1u);
  const TrainingRun& run = lab.runs[0];
  const auto& histories = *lab.histories;
  std::vector<double> reached;
  for (const TrainingHistory& h : histories) {
    int hit = 300;
    for (std::size_t t = 19; t < h.steps.size(); ++t) {
      double sum = 0.0;
      for (std::size_t k = t - 19; k <= t; ++k) sum += h.steps[k].accuracy;
      if (sum / 20.0 >= 0.9) {
        hit = static_cast<int>(t + 1);
        break;
      }
    }
    reached.push_back(hit);
  }
  const double mean = (reached[0] + reached[1] + reached[2]) / 3.0;
  double squares = 0.0;
  for (double r : reached) squares += (r - mean) * (r - mean);
  EXPECT_NEAR(run.steps_to_90, mean, 1e-9) << reached[0] << " " << reached[1] << " " << reached[2];
  EXPECT_NEAR(run.steps_to_90_se, std::sqrt(squares / 2.0 / 3.0), 1e-9);
  EXPECT_EQ(run.reached_90, 3) << "recall at its defaults reaches 90% within 300 steps";
  // Point 100 (step 101) of the accuracy band: the mean over seeds of each seed's last-20 mean.
  std::vector<double> at_point;
  for (const TrainingHistory& h : histories) {
    double sum = 0.0;
    for (std::size_t k = 81; k <= 100; ++k) sum += h.steps[k].accuracy;
    at_point.push_back(sum / 20.0);
  }
  const double point_mean = (at_point[0] + at_point[1] + at_point[2]) / 3.0;
  EXPECT_NEAR(run.accuracy.mean[100], point_mean, 1e-12);
  double sq = 0.0;
  for (double v : at_point) sq += (v - point_mean) * (v - point_mean);
  EXPECT_NEAR(run.accuracy.high[100] - run.accuracy.mean[100], std::sqrt(sq / 2.0 / 3.0), 1e-12);
  EXPECT_NEAR(run.start_saturated,
              (histories[0].steps[0].saturated_fraction + histories[1].steps[0].saturated_fraction +
               histories[2].steps[0].saturated_fraction) /
                  3.0,
              1e-12);
  EXPECT_GT(run.final_accuracy, run.accuracy.mean.front()) << "accuracy rises";
  EXPECT_EQ(run.shown_map.size(), 81u);
  EXPECT_EQ(run.ideal_map.size(), 81u);
}

// Past plot_points_max steps the curves have one point per bucket, the last at the last step, each
// the mean of the last 20 steps (or of its bucket, were it longer).
TEST(TrainingLabs, LongRunsAreDrawnInBucketMeans) {
  TrainingSettings s = quick(1500);
  s.compare = "";
  s.run.batch = 2;
  TrainingLab lab;
  evaluate_training_lab(lab, s);
  const TrainingRun& run = lab.runs[0];
  ASSERT_EQ(run.steps.size(), 1000u);
  EXPECT_EQ(run.steps.back(), 1500.0);
  EXPECT_EQ(run.steps[1], 3.0);  // buckets (0, 2], (2, 3], ... of 1.5 steps on average
  const auto& h = lab.histories->at(0).steps;
  EXPECT_NEAR(run.entropy.mean[1], (h[0].entropy + h[1].entropy + h[2].entropy) / 3.0, 1e-12);  // steps 1-3
  double last = 0.0;
  for (std::size_t t = 1480; t < 1500; ++t) last += h[t].entropy;
  EXPECT_NEAR(run.entropy.mean.back(), last / 20.0, 1e-12);  // steps 1481-1500
}

// Naive fp16: the lab marks the earliest first non-finite step over the seeds.
TEST(TrainingLabs, NaiveHalfPrecisionMarksItsFirstNonFiniteStep) {
  TrainingSettings s = quick(150, 2);
  s.compare = "softmax=stable";
  s.run.precision = Format::fp16;
  s.run.softmax = SoftmaxVariant::naive;
  s.run.batch = 32;
  TrainingLab lab;
  evaluate_training_lab(lab, s);
  ASSERT_EQ(lab.runs.size(), 2u);
  std::optional<int> earliest;
  for (const TrainingHistory& h : *lab.histories) {
    if (h.run != "A") continue;
    for (const train::StepMetrics& m : h.steps)
      if (m.skipped) {
        earliest = earliest ? std::min(*earliest, m.step) : m.step;
        break;
      }
  }
  ASSERT_TRUE(earliest) << "seeds 1 and 2 of naive fp16 overflow within 150 steps (docs/TRAINING.md: steps 127, 1)";
  EXPECT_EQ(lab.runs[0].first_nonfinite, earliest);
  EXPECT_GT(lab.runs[0].skipped_fraction, 0.0);
  EXPECT_FALSE(lab.runs[1].first_nonfinite) << "stable fp16 has no non-finite step";
}

// The language model's sentence: its maps put exactly 0 on every key after the query, the
// next-token distribution sums to 1, and the position is clamped to the last character.
TEST(TrainingLabs, TheSentenceAttendsToNoFutureToken) {
  TrainingSettings s = quick(3);
  s.compare = "";
  s.run = train::default_settings(train::Task::language);
  s.run.batch = 2;
  s.corpus = train_test::small_corpus();
  s.sentence = "soft max attention";
  TrainingLab lab;
  evaluate_training_lab(lab, s);
  ASSERT_TRUE(lab.error.empty()) << lab.error;
  const TrainingSentence& sentence = lab.sentence;
  ASSERT_TRUE(sentence.error.empty()) << sentence.error;
  ASSERT_EQ(sentence.length, 18);
  EXPECT_EQ(sentence.labels[4], "␣");
  EXPECT_EQ(sentence.position, 17);
  for (int l = 0; l < sentence.layers; ++l)
    for (int h = 0; h < sentence.heads; ++h)
      for (int i = 0; i < sentence.length; ++i)
        for (int j = i + 1; j < sentence.length; ++j)
          ASSERT_EQ(sentence.map(l, h)[i * sentence.length + j], 0.0f)
              << "layer " << l << " head " << h << " row " << i;
  double total = 0.0;
  for (double p : sentence.probabilities) total += p;
  EXPECT_NEAR(total, 1.0, 1e-12);
  EXPECT_EQ(sentence.vocabulary.size(), sentence.probabilities.size());

  TrainingSettings none = s;
  none.corpus = nullptr;
  TrainingLab missing;
  evaluate_training_lab(missing, none);
  EXPECT_NE(missing.error.find("train_task=language needs the lesson texts"), std::string::npos) << missing.error;
}

}  // namespace
}  // namespace smlab
