// "Predict, then reveal": the lesson schema's predict steps (and one-line errors for bad
// ones), the reveal logic against a Snapshot, the player (a clicker reveals before it moves on), the
// NAME:STEP:GUESS lookup, and headless renders of the covered and the revealed step.
#include <gtest/gtest.h>

#include "cli_support.hpp"
#include "headless_support.hpp"
#include "lesson_support.hpp"

#include <imgui_internal.h>  // ImTextCharFromUtf8
#include <stb_image.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "frame/app.hpp"
#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lessons.hpp"
#include "panels/lesson_panel.hpp"
#include "platform/offscreen.hpp"
#include "smlab/evaluate.hpp"
#include "state/presets.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;
using test_support::differing_pixels;

using lesson_support::shipped;

bool one_line(const std::string& text) { return !text.empty() && text.find('\n') == std::string::npos; }

// A one-step lesson on the dashboard whose step carries `predict` (JSON text).
std::string lesson_with_predict(const std::string& predict) {
  return R"({"name": "guess", "title": {"en": "Guess", "zh-CN": "猜"}, "steps": [
    {"title": {"en": "One", "zh-CN": "一"}, "text": {"en": "First.", "zh-CN": "第一步。"}, "view": "dashboard",
     "panel": "distribution", "predict": )" +
         predict + "}]}";
}

const std::string question = R"("question": {"en": "Largest weight?", "zh-CN": "最大权重？"})";
const std::string max_weight = R"("quantity": {"quantity": "max_weight"})";

TEST(PredictText, NumbersAreWrittenAsAClassReadsThem) {
  EXPECT_EQ(predict_number(-1500.0), "-1500");  // a range's end, not "-1.5e+03"
  EXPECT_EQ(predict_number(1024.0), "1024");
  EXPECT_EQ(predict_number(0.0213), "0.0213");
  EXPECT_EQ(predict_number(1.6812), "1.68");
  EXPECT_EQ(predict_number(2.5e7), "2.5e+07");
}

TEST(PredictSchema, ChoiceAndTypedStepsLoadWithEveryField) {
  const LessonLoad choices = parse_lesson(
      lesson_with_predict("{" + question + ", " + max_weight + R"(, "choices": [0.1, 0.5, 0.9], "hides": "attention",
        "reveal_text": {"en": "So.", "zh-CN": "所以。"}})"));
  ASSERT_TRUE(choices.ok()) << choices.error().message;
  const LessonPredict& picked = *choices->steps[0].predict;
  EXPECT_EQ(picked.question.english, "Largest weight?");
  EXPECT_EQ(picked.quantity.quantity, "max_weight");
  EXPECT_EQ(picked.choices, (std::vector<double>{0.1, 0.5, 0.9}));
  EXPECT_EQ(picked.hides, "attention");
  ASSERT_TRUE(picked.after);
  EXPECT_EQ(picked.after->chinese, "所以。");

  const LessonLoad typed =
      parse_lesson(lesson_with_predict("{" + question + ", " + max_weight + R"(, "min": 0, "max": 1, "decimals": 2})"));
  ASSERT_TRUE(typed.ok()) << typed.error().message;
  const LessonPredict& number = *typed->steps[0].predict;
  EXPECT_TRUE(number.choices.empty());
  EXPECT_EQ(number.min, 0.0);
  EXPECT_EQ(number.max, 1.0);
  EXPECT_EQ(number.precision, (PredictPrecision{PredictPrecision::Kind::decimals, 2}));
  EXPECT_EQ(number.hides, "distribution") << "without \"hides\" the step's own panel is covered";
  EXPECT_FALSE(number.after);
}

TEST(PredictSchema, BadPredictStepsAreOneLineErrorsNamingTheStepAndField) {
  const std::string q = question + ", " + max_weight;
  const struct {
    std::string predict, needle;
  } cases[] = {
      {"3", "step 1 predict must be an object"},
      {"{" + q + R"(, "choices": [1, 2], "answer": 0.5})", "unknown field 'answer'"},
      {"{" + max_weight + R"(, "choices": [1, 2]})", "needs a \"question\""},
      {R"({"question": {"en": "a"}, )" + max_weight + R"(, "choices": [1, 2]})", "needs \"zh-CN\""},
      {"{" + question + R"(, "choices": [1, 2]})", "needs a \"quantity\""},
      {"{" + question + R"(, "quantity": {"quantity": "nonesuch"}, "choices": [1, 2]})",
       "quantity 'nonesuch' is not known"},
      {"{" + question + R"(, "quantity": {"quantity": "weight"}, "choices": [1, 2]})", "needs an \"index\""},
      {"{" + question + R"(, "quantity": {"quantity": "max_weight", "op": "<"}, "choices": [1, 2]})",
       "unknown field 'op'"},
      {"{" + q + "}", "not neither"},
      {"{" + q + R"(, "choices": [1, 2], "min": 0})", "not both"},
      {"{" + q + R"(, "choices": [1]})", "2 to 6 numbers"},
      {"{" + q + R"(, "choices": [1, 2, 3, 4, 5, 6, 7]})", "2 to 6 numbers"},
      {"{" + q + R"(, "choices": "1, 2"})", "2 to 6 numbers"},
      {"{" + q + R"(, "choices": [1, "2"]})", "allowed finite numbers"},
      {"{" + q + R"(, "choices": [0.5, 0.5]})", "holds 0.5 twice"},
      {"{" + q + R"(, "min": 0, "max": 1})", "needs one of \"decimals\" (0 to 12) or \"significant\""},
      {"{" + q + R"(, "min": 0, "max": 1, "decimals": 2, "significant": 3})", "needs one of \"decimals\""},
      {"{" + q + R"(, "min": 1, "max": 1, "decimals": 1})", "must be below \"max\""},
      {"{" + q + R"(, "min": 0, "max": 1, "decimals": 1.5})", "\"decimals\" must be a whole number from 0 to 12"},
      {"{" + q + R"(, "min": 0, "max": 1, "significant": 0})", "\"significant\" must be a whole number from 1 to 15"},
      {"{" + q + R"(, "min": 0, "max": 1, "tolerance": 0.1})", "unknown field 'tolerance'"},
      {"{" + q + R"(, "min": "0", "max": 1, "decimals": 1})", "needs \"min\" as a finite number"},
      {"{" + q + R"(, "choices": [1, 2], "hides": "jacobian"})", "hides 'jacobian', not a panel of dashboard"},
      {"{" + q + R"(, "choices": [1, 2], "hides": 4})", "\"hides\" must be a panel name"},
      {"{" + q + R"(, "choices": [1, 2], "reveal_text": "plain"})", "reveal_text must be an object"},
  };
  for (const auto& c : cases) {
    const LessonLoad load = parse_lesson(lesson_with_predict(c.predict));
    EXPECT_FALSE(load.ok()) << c.predict;
    EXPECT_TRUE(one_line(load.error().message)) << c.predict << "\n-> " << load.error().message;
    EXPECT_NE(load.error().message.find(c.needle), std::string::npos) << c.predict << "\n-> " << load.error().message;
    EXPECT_NE(load.error().message.find("lesson 'guess' step 1"), std::string::npos) << load.error().message;
  }
}

TEST(PredictReveal, TheAnswerIsTheSnapshotsNumberAndClosenessFollowsTheRule) {
  Params params;
  params.temperature = 0.5;
  const Snapshot snap = evaluate(params);
  LessonPredict typed;
  typed.quantity.quantity = "max_weight";
  typed.min = 0.0;
  typed.max = 1.0;
  typed.precision = {PredictPrecision::Kind::decimals, 1};  // close: within 0.05
  const Result<PredictionReveal> none = reveal_prediction(typed, snap, std::nullopt);
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(none->answer, snap.max_weight) << "the answer is read from the Snapshot, not stored";
  EXPECT_FALSE(none->guess);
  EXPECT_FALSE(none->close);

  const Result<PredictionReveal> near = reveal_prediction(typed, snap, snap.max_weight + 0.04);
  ASSERT_TRUE(near.ok());
  EXPECT_TRUE(near->close);
  EXPECT_NEAR(near->off_by, 0.04, 1e-12);
  const Result<PredictionReveal> far = reveal_prediction(typed, snap, snap.max_weight - 0.06);
  ASSERT_TRUE(far.ok());
  EXPECT_FALSE(far->close);
  EXPECT_NEAR(far->off_by, 0.06, 1e-12);

  // Choices: right when the guess is the choice nearest the answer, however far that is.
  LessonPredict picked = typed;
  picked.choices = {snap.max_weight - 0.3, snap.max_weight + 0.1, snap.max_weight + 0.2};
  const Result<PredictionReveal> best = reveal_prediction(picked, snap, picked.choices[1]);
  ASSERT_TRUE(best.ok());
  ASSERT_TRUE(best->nearest_choice);
  EXPECT_EQ(*best->nearest_choice, picked.choices[1]);
  EXPECT_TRUE(best->close);
  EXPECT_FALSE(reveal_prediction(picked, snap, picked.choices[2])->close);

  // A quantity the Snapshot lacks is an error, not a made-up number.
  LessonPredict lab = typed;
  lab.quantity.quantity = "small_gap_softmax_ratio";
  const Result<PredictionReveal> missing = reveal_prediction(lab, snap, 1.0);
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().message.find("normalizers"), std::string::npos) << missing.error().message;
}

TEST(PredictReveal, GuessesOutsideTheChoicesOrTheRangeAreRefusedInOneLine) {
  LessonPredict typed;
  typed.min = 0.0;
  typed.max = 3.0;
  EXPECT_TRUE(check_guess(typed, 0.0).ok());
  EXPECT_TRUE(check_guess(typed, 3.0).ok());
  for (double bad : {-0.01, 3.5, std::nan(""), std::numeric_limits<double>::infinity()}) {
    const Result<void> refused = check_guess(typed, bad);
    ASSERT_FALSE(refused.ok()) << bad;
    const std::string& problem = refused.error().message;
    EXPECT_TRUE(one_line(problem)) << bad;
    EXPECT_NE(problem.find("a number from 0 to 3"), std::string::npos) << problem;
  }
  LessonPredict picked;
  picked.choices = {0.26, 0.46};
  EXPECT_TRUE(check_guess(picked, 0.46).ok());
  ASSERT_FALSE(check_guess(picked, 0.3).ok());
  EXPECT_NE(check_guess(picked, 0.3).error().message.find("not one of the choices: allowed 0.26, 0.46"),
            std::string::npos);
}

// homework:5 showed a guess of -1003 as "-1e+03", the same as the answer, then "Off by
// 3"; homework:8 asked for 4 significant digits, showed 0.00391 and took 0.0039 as close. Numbers
// are shown with the digits the question asks for, the guess as typed, and close is one rule: half
// a unit in the last digit asked.
TEST(PredictReveal, NumbersShowTheDigitsAskedAndCloseIsHalfAUnitInTheLastOne) {
  const PredictPrecision three_decimals{PredictPrecision::Kind::decimals, 3};
  const PredictPrecision whole{PredictPrecision::Kind::decimals, 0};
  const PredictPrecision four_significant{PredictPrecision::Kind::significant, 4};
  EXPECT_EQ(predict_answer(whole, -1000.0), "-1000");
  EXPECT_EQ(predict_guess(-1003.0), "-1003") << "not -1e+03";
  EXPECT_EQ(predict_off_by(3.0), "3");
  EXPECT_EQ(predict_answer(four_significant, 1.0 / 256.0), "0.003906") << "not 0.00391";
  EXPECT_EQ(predict_guess(0.0039), "0.0039");
  EXPECT_EQ(predict_guess(0.00001), "0.00001") << "never exponent form";
  EXPECT_EQ(predict_answer(three_decimals, 0.96), "0.960");
  EXPECT_EQ(predict_answer(three_decimals, -0.0001), "0.000") << "no '-0.000'";
  EXPECT_EQ(predict_answer(four_significant, 12345.6), "12346");
  EXPECT_EQ(predict_off_by(0.0000062), "0.0000062");

  EXPECT_DOUBLE_EQ(close_within(three_decimals, 0.665241), 0.0005 * (1 + 1e-9));
  EXPECT_DOUBLE_EQ(close_within(whole, -1000.0), 0.5 * (1 + 1e-9));
  EXPECT_DOUBLE_EQ(close_within(four_significant, 1.0 / 256.0), 0.0000005 * (1 + 1e-9));
  EXPECT_DOUBLE_EQ(close_within(four_significant, 16.0), 0.005 * (1 + 1e-9));

  // The rule on the homework's own numbers: the correctly rounded answer is close, a digit off is not.
  const struct {
    PredictPrecision precision;
    double answer, guess;
    bool close;
  } cases[] = {
      {four_significant, 1.0 / 256.0, 0.003906, true},
      {four_significant, 1.0 / 256.0, 0.0039, false},
      {four_significant, 1.0 / 256.0, 0.003907, false},
      {three_decimals, 0.665241, 0.665, true},
      {three_decimals, 0.665241, 0.666, false},
      {whole, -1000.0, -1000.0, true},
      {whole, -1000.0, -1003.0, false},
      {whole, -1000.0, -1001.0, false},
      {three_decimals, 0.96, 0.96, true},
      {PredictPrecision{PredictPrecision::Kind::decimals, 1}, 0.0883, 0.1, true},
      {PredictPrecision{PredictPrecision::Kind::decimals, 1}, 0.0883, 0.3, false},
  };
  for (const auto& c : cases) {
    const bool close = std::abs(c.guess - c.answer) <= close_within(c.precision, c.answer);
    EXPECT_EQ(close, c.close) << "guess " << c.guess << " for answer " << c.answer << " at " << c.precision.digits
                              << (c.precision.kind == PredictPrecision::Kind::decimals ? " decimals" : " significant");
  }
}

TEST(PredictReveal, ATypedGuessIsParsedAsWrittenOrRefusedInOneLine) {
  LessonPredict typed;
  typed.min = -1500.0;
  typed.max = 1.0;
  const struct {
    std::string text;
    double value;
  } good[] = {{"0.665", 0.665},
              {" -1003 ", -1003.0},
              {"\xE2\x88\x92"
               "1003",
               -1003.0},
              {"+0.5", 0.5},
              {"0,665", 0.665},
              {"1e-3", 0.001}};
  for (const auto& c : good) {
    const Result<double> parsed = parse_guess(typed, c.text);
    ASSERT_TRUE(parsed.ok()) << "'" << c.text << "': " << parsed.error().message;
    EXPECT_EQ(*parsed, c.value) << "'" << c.text << "'";
  }
  for (const std::string& bad :
       std::vector<std::string>{"", "abc", "0.5x", "1..2", "nan", "inf", "2", std::string(80, '1')}) {
    const Result<double> parsed = parse_guess(typed, bad);
    ASSERT_FALSE(parsed.ok()) << "'" << bad << "'";
    EXPECT_TRUE(one_line(parsed.error().message)) << parsed.error().message;
  }
}

// The sweep a window draws: the Snapshot's first estimate refined as the Evaluator refines it, to
// the planned count (at most refine_max_trials).
DkSweep drawn_sweep(const Snapshot& snap) {
  DkSweep sweep = snap.dk_sweep;
  lesson_support::refine_as_drawn(sweep);
  return sweep;
}

const LessonStep& step_of(const std::string& lesson_name, std::size_t step_number) {
  const LessonList& list = shipped();
  const auto lesson = find_lesson(list, lesson_name);
  EXPECT_TRUE(lesson) << lesson_name;
  return list.lessons[lesson.value_or(0)].steps.at(step_number - 1);
}

// The scaling:4 reveal said 0.0723 "(9615 trials)". The plot drew the refined sweep, but
// the reveal read the Snapshot's own first estimate (288 trials, SE 0.011), a different and
// unconverged number. A reveal reads the sweep that is drawn, and shows no number before it has
// converged.
TEST(PredictReveal, AMonteCarloAnswerIsTheDrawnSweepsAndOnlyOnceConverged) {
  const LessonStep& step = step_of("scaling", 4);
  ASSERT_TRUE(step.predict);
  ASSERT_EQ(step.predict->quantity.quantity, "dk_entropy");
  EvaluateOptions options;
  options.view = step.view;
  const Snapshot snap = *evaluate(step.params, options);
  const DkSweep drawn = drawn_sweep(snap);
  ASSERT_GT(drawn.trials, snap.dk_sweep.trials);

  const Result<PredictionReveal> first = reveal_prediction(*step.predict, snap, 0.1);
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->trials, snap.dk_sweep.trials);
  EXPECT_FALSE(first->converged) << "the first estimate's " << first->trials << " trials give SE "
                                 << first->standard_error.value_or(-1);

  const Result<PredictionReveal> shown = reveal_prediction(*step.predict, snap, 0.1, &drawn);
  ASSERT_TRUE(shown.ok()) << shown.error().message;
  const auto at = static_cast<std::size_t>(std::find(drawn.config.key_dims.begin(), drawn.config.key_dims.end(), 1024) -
                                           drawn.config.key_dims.begin());
  EXPECT_EQ(shown->answer, drawn.unscaled.at(at).entropy_nats.mean) << "the number drawn at d_k = 1024";
  EXPECT_EQ(shown->trials, drawn.trials);
  EXPECT_TRUE(shown->converged) << "SE " << shown->standard_error.value_or(-1) << " at " << shown->trials << " trials";

  // A drawn sweep of another setting (the window between two steps) is not read.
  DkSweep other = drawn;
  other.config.temperature = 2.0;
  EXPECT_EQ(reveal_prediction(*step.predict, snap, 0.1, &other)->trials, snap.dk_sweep.trials);
}

// The revealed Monte Carlo number against an independent simulation (NumPy, full q and k vectors,
// its own generator: tests/app/monte_carlo_reference.py): within 3 combined standard errors.
TEST(PredictReveal, AMonteCarloAnswerAgreesWithAnIndependentSimulation) {
  int checked = 0;
  for (const Lesson& lesson : shipped().lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      if (!step.predict || step.predict->quantity.quantity.rfind("dk_", 0) != 0) continue;
      EvaluateOptions options;
      options.view = step.view;
      const Snapshot snap = *evaluate(step.params, options);
      const DkSweep drawn = drawn_sweep(snap);
      const Result<PredictionReveal> reveal = reveal_prediction(*step.predict, snap, std::nullopt, &drawn);
      ASSERT_TRUE(reveal.ok()) << reveal.error().message;
      ASSERT_TRUE(reveal->converged && reveal->standard_error);
      const ClaimQuantity& q = step.predict->quantity;
      const std::string statistic = q.quantity.substr(3);  // entropy, max_weight, jacobian_norm
      const fs::path dir = cli_test::fresh_test_dir("predict-reference");
      char numbers[128];
      std::snprintf(numbers, sizeof numbers, "%d %d %d %.17g %.17g", step.params.seq_len, q.at,
                    q.series == "scaled" ? 1 : 0, step.params.temperature, step.params.score_scale);
      const std::string script = std::string(SMLAB_SOURCE_DIR) + "/tests/app/monte_carlo_reference.py";
      const std::string command = "/usr/bin/python3 " + cli_test::shell_quote(script) + " " + statistic + " " +
                                  numbers + " 30000 20251127 >" + cli_test::shell_quote((dir / "out").string());
      ASSERT_EQ(std::system(command.c_str()), 0) << command << " failed (python3-numpy missing?)";
      double reference = 0.0, reference_se = 0.0;
      ASSERT_EQ(std::sscanf(cli_test::read_all(dir / "out").c_str(), "%lf %lf", &reference, &reference_se), 2);
      fs::remove_all(dir);
      const double combined = std::hypot(*reveal->standard_error, reference_se);
      EXPECT_LE(std::abs(reveal->answer - reference), 3.0 * combined)
          << lesson.name << ":" << k + 1 << " " << describe(q) << ": app " << reveal->answer << " ± "
          << *reveal->standard_error << " (" << reveal->trials << " trials), independent " << reference << " ± "
          << reference_se;
      std::printf("[ measured ] %s:%zu %s: app %.4f ± %.4f (%lld trials), NumPy %.4f ± %.4f: %.1f SE apart\n",
                  lesson.name.c_str(), k + 1, describe(q).c_str(), reveal->answer, *reveal->standard_error,
                  static_cast<long long>(reveal->trials), reference, reference_se,
                  std::abs(reveal->answer - reference) / combined);
      ++checked;
    }
  EXPECT_GE(checked, 1) << "no lesson reveals a Monte Carlo mean";
}

// The mean entropy of an unscaled row of 16 keys at d_k = 1024 (T = 1, score scale 1), computed
// here with nothing of the app's: the standard library's generator and distributions, the
// textbook softmax. Given q, the scores q·k_j are independent N(0, ‖q‖²) (k_j ~ N(0, I) is
// rotation invariant), so a row is ‖q‖·z with ‖q‖² ~ χ²_1024 and z ~ N(0, I_16). 10⁶ rows: the
// standard error is ≈ 0.0002, a seventh of the app's at its refined trial count.
struct Estimate {
  double mean, standard_error;
};
Estimate independent_unscaled_entropy(int seq_len, int key_dim, std::int64_t rows) {
  std::mt19937_64 generator(20261129);
  std::chi_squared_distribution<double> norm_squared(key_dim);
  std::normal_distribution<double> normal;
  std::vector<double> logits(static_cast<std::size_t>(seq_len));
  double sum = 0.0, sum_squares = 0.0;
  for (std::int64_t r = 0; r < rows; ++r) {
    const double norm = std::sqrt(norm_squared(generator));
    for (double& x : logits) x = norm * normal(generator);
    const double top = *std::max_element(logits.begin(), logits.end());
    double z = 0.0, weighted = 0.0;
    for (const double x : logits) {
      const double e = std::exp(x - top);
      z += e;
      weighted += e * (x - top);
    }
    const double entropy = std::log(z) - weighted / z;  // −Σ p ln p with p = e/z, ln p = (x − top) − ln z
    sum += entropy;
    sum_squares += entropy * entropy;
  }
  const double n = static_cast<double>(rows), mean = sum / n;
  return {mean, std::sqrt((sum_squares / n - mean * mean) / (n - 1.0))};
}

// The number the scaling:4 reveal shows at the default seed is within 2 of its standard errors of
// the truth. With every d_k point drawn from one shared stream, seed 42 put the whole unscaled
// curve 2–3 SE low together, and this reveal showed 0.0898 ± 0.0014 against 0.0936 (z = −2.65).
TEST(PredictReveal, TheScalingRevealIsWithinTwoStandardErrorsOfAnIndependentTruth) {
  const LessonStep& step = step_of("scaling", 4);
  ASSERT_TRUE(step.predict);
  const ClaimQuantity& q = step.predict->quantity;
  ASSERT_EQ(q.quantity, "dk_entropy");
  ASSERT_EQ(q.series, "unscaled");
  ASSERT_EQ(step.params.seed, Params{}.seed) << "the lesson's step is at the default seed";
  ASSERT_EQ(step.params.temperature, 1.0);
  ASSERT_EQ(step.params.score_scale, 1.0);
  EvaluateOptions options;
  options.view = step.view;
  const Snapshot snap = *evaluate(step.params, options);
  const DkSweep drawn = drawn_sweep(snap);
  const Result<PredictionReveal> reveal = reveal_prediction(*step.predict, snap, std::nullopt, &drawn);
  ASSERT_TRUE(reveal.ok()) << reveal.error().message;
  ASSERT_TRUE(reveal->converged && reveal->standard_error);
  const Estimate truth = independent_unscaled_entropy(step.params.seq_len, q.at, 1'000'000);
  ASSERT_LT(truth.standard_error, 0.25 * *reveal->standard_error) << "the reference is not accurate enough";
  const double combined = std::hypot(*reveal->standard_error, truth.standard_error);
  EXPECT_LE(std::abs(reveal->answer - truth.mean), 2.0 * combined)
      << "the reveal shows " << reveal->answer << " ± " << *reveal->standard_error << " (" << reveal->trials
      << " trials); independent " << truth.mean << " ± " << truth.standard_error;
  std::printf("[ measured ] scaling:4 reveal %.5f ± %.5f (%lld trials), independent %.5f ± %.5f: z = %.2f\n",
              reveal->answer, *reveal->standard_error, static_cast<long long>(reveal->trials), truth.mean,
              truth.standard_error, (reveal->answer - truth.mean) / combined);
}

TEST(PredictLookup, NameStepGuessNeedsAPredictStepAndAnAllowedGuess) {
  const LessonList& list = shipped();
  ASSERT_FALSE(list.error) << list.error->message;
  const auto scaling = find_lesson(list, "scaling");
  ASSERT_TRUE(scaling);
  std::vector<std::size_t> typed, chosen;
  for (std::size_t k = 0; k < list.lessons[*scaling].steps.size(); ++k)
    if (const auto& predict = list.lessons[*scaling].steps[k].predict)
      (predict->choices.empty() ? typed : chosen).push_back(k + 1);
  ASSERT_FALSE(typed.empty()) << "the scaling lesson asks a typed prediction";
  ASSERT_FALSE(chosen.empty()) << "the scaling lesson asks a multiple-choice prediction";
  const std::string typed_step = "scaling:" + std::to_string(typed[0]);
  const auto ok = lookup_lesson(list, typed_step + ":0.25");
  ASSERT_TRUE(ok.ok()) << ok.error().message;
  EXPECT_EQ(ok->step, typed[0] - 1);
  ASSERT_TRUE(ok->guess);
  EXPECT_EQ(*ok->guess, 0.25);
  EXPECT_FALSE(lookup_lesson(list, typed_step)->guess);
  const struct {
    std::string spec, needle;
  } bad[] = {
      {typed_step + ":99", "outside the allowed range"},
      {typed_step + ":abc", "guess 'abc' is not a number"},
      {typed_step + ":", "no guess typed"},
      {typed_step + ":1x", "is not a number"},
      {"scaling:" + std::to_string(chosen[0]) + ":0.3", "not one of the choices"},
      {"scaling:1:0.5", "goes with a predict step only: steps " + std::to_string(typed[0])},
      {"why-softmax:1:0.5", "goes with a predict step only"},
      {"scaling:99:0.5", "a step from 1 to"},
  };
  for (const auto& c : bad) {
    const auto lookup = lookup_lesson(list, c.spec);
    EXPECT_FALSE(lookup.ok()) << c.spec;
    EXPECT_TRUE(one_line(lookup.error().message)) << c.spec;
    EXPECT_NE(lookup.error().message.find(c.needle), std::string::npos) << c.spec << " -> " << lookup.error().message;
  }
}

// The first Next on an unanswered predict step reveals and stays; the second moves on. A refused
// guess leaves the step unrevealed; opening a step starts it fresh.
TEST(PredictPlayer, NextRevealsFirstThenMovesAndAGuessIsChecked) {
  UiState ui;
  ui.lessons = shipped();
  const std::size_t lesson = *find_lesson(ui.lessons, "scaling");
  std::size_t step = 0;
  while (!ui.lessons.lessons[lesson].steps[step].predict) ++step;
  const LessonPredict& predict = *ui.lessons.lessons[lesson].steps[step].predict;
  ASSERT_TRUE(open_lesson_step(ui, lesson, step, false));
  EXPECT_TRUE(lesson_awaiting_prediction(ui));
  const Result<void> refused = commit_guess(ui, predict.choices.empty() ? predict.max + 1.0 : -12345.0);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(one_line(refused.error().message)) << refused.error().message;
  EXPECT_EQ(ui.lesson_view.guess_error, refused.error().message);
  EXPECT_TRUE(lesson_awaiting_prediction(ui)) << "a refused guess reveals nothing";

  ASSERT_TRUE(lesson_next(ui));
  EXPECT_EQ(ui.lesson.open->step, step) << "the first press reveals and stays on the question";
  EXPECT_TRUE(ui.lesson.revealed);
  EXPECT_FALSE(ui.lesson.guess) << "revealed without a guess";
  ASSERT_TRUE(lesson_next(ui));
  EXPECT_EQ(ui.lesson.open->step, step + 1) << "the second press moves on";

  ASSERT_TRUE(lesson_previous(ui));
  EXPECT_EQ(ui.lesson.open->step, step);
  EXPECT_TRUE(lesson_awaiting_prediction(ui)) << "coming back asks again";
  const double good = predict.choices.empty() ? predict.min : predict.choices.back();
  EXPECT_TRUE(commit_guess(ui, good).ok());
  EXPECT_TRUE(ui.lesson.revealed);
  ASSERT_TRUE(ui.lesson.guess);
  EXPECT_EQ(*ui.lesson.guess, good);
  EXPECT_TRUE(ui.lesson_view.guess_error.empty());
}

// ─── Headless renders ─────────────────────────────────────────────────────────────────────────

class PredictRender : public test_support::HeadlessRender {
 protected:
  PredictRender() : HeadlessRender(1600, 900) {}
};

// Distinct colours in a rectangle: a cover card is one fill with a few lines of text; a plot has
// curves, bands and a colormap.
// Every predict step of every lesson (the homework covers a group of two plots on some).
TEST_F(PredictRender, TheHiddenPanelIsCoveredUntilRevealedAndTheOthersAreNot) {
  AppOptions options;
  options.lessons = shipped();
  int checked = 0;
  for (std::size_t lesson = 0; lesson < options.lessons.lessons.size(); ++lesson)
    for (std::size_t step = 0; step < options.lessons.lessons[lesson].steps.size(); ++step) {
      const LessonStep& target = options.lessons.lessons[lesson].steps[step];
      if (!target.predict) continue;
      options.params = target.params;
      options.view = target.view;
      options.lesson = LessonPosition{lesson, step, std::nullopt};
      // One App at a time on the surface: the covered render, then the revealed one.
      Image covered;
      std::vector<PlacedPlot> hidden_plots, other_plots;
      {
        App covered_app(*surface_, options);
        covered = settle(covered_app);
        const LessonPanel* hidden = find_lesson_panel(target.view, target.predict->hides);
        ASSERT_NE(hidden, nullptr);
        for (const PlacedPlot& placed : covered_app.ui().placed_plots) {
          bool is_hidden = false;
          for (std::string_view plot : hidden->plots)
            is_hidden |= placed.name == std::string(view_info(target.view).name) + "/" + std::string(plot);
          // Only what is on screen (a lab view scrolls at small sizes).
          if (placed.max.y > 900.0f || placed.min.y < 0.0f) continue;
          (is_hidden ? hidden_plots : other_plots).push_back(placed);
        }
      }
      if (hidden_plots.empty()) continue;  // scrolled below (the CLI test covers presenter mode)
      ++checked;

      options.lesson->guess = target.predict->choices.empty() ? target.predict->min : target.predict->choices.front();
      Image revealed;
      {
        App revealed_app(*surface_, options);
        EXPECT_TRUE(revealed_app.ui().lesson.revealed) << "NAME:STEP:GUESS opens the step revealed";
        revealed = settle(revealed_app);
      }
      const std::string name = options.lessons.lessons[lesson].name + ":" + std::to_string(step + 1);
      for (const PlacedPlot& plot : hidden_plots) {
        const int area = static_cast<int>((plot.max.x - plot.min.x) * (plot.max.y - plot.min.y));
        EXPECT_GT(differing_pixels(covered, revealed, plot.min, plot.max, 2), area / 20)
            << name << " " << plot.name << ": the cover hides too little";
      }
      for (const PlacedPlot& plot : other_plots)
        EXPECT_LT(differing_pixels(covered, revealed, plot.min, plot.max, 2), 50)
            << name << " " << plot.name << " is covered but not in the hidden panel";
    }
  EXPECT_GE(checked, 10) << "too few predict steps had their hidden panel on screen at 1600x900";
}

TEST_F(PredictRender, ArrowKeyRevealsThenStepsAndChineseTextsHaveGlyphs) {
  AppOptions options;
  options.lessons = shipped();
  options.language = i18n::Language::Chinese;
  const std::size_t lesson = *find_lesson(options.lessons, "scaling");
  std::size_t step = 0;
  while (!options.lessons.lessons[lesson].steps[step].predict) ++step;
  App app(*surface_, options);
  ASSERT_TRUE(open_lesson_step(app.ui(), lesson, step, false));
  settle(app);
  auto press = [&](int key) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[key] = true;
    app.frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[key] = false;
    app.frame();
  };
  press(GLFW_KEY_PAGE_DOWN);
  EXPECT_EQ(app.ui().lesson.open->step, step) << "the clicker's first press reveals";
  EXPECT_TRUE(app.ui().lesson.revealed);
  press(GLFW_KEY_PAGE_DOWN);
  EXPECT_EQ(app.ui().lesson.open->step, step + 1);
  const ImFont* font = ImGui::GetIO().Fonts->Fonts[0];
  auto check = [&](const std::string& text) {
    for (const char* p = text.c_str(); *p != 0;) {
      unsigned int c = 0;
      p += ImTextCharFromUtf8(&c, p, nullptr);
      EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(c)), nullptr) << text << ": U+" << std::hex << c;
    }
  };
  for (const LessonStep& s : options.lessons.lessons[lesson].steps)
    if (s.predict) {
      check(s.predict->question.chinese);
      if (s.predict->after) check(s.predict->after->chinese);
    }
  const i18n::Use language(app.language());  // the texts this App draws: Chinese
  ASSERT_EQ(i18n::language(), i18n::Language::Chinese);
  for (const char* key :
       {"lesson.predict.question", "lesson.predict.cover_hint", "lesson.predict.commit", "lesson.predict.answer_guess",
        "lesson.predict.not_nearest", "lesson.predict.off", "lesson.predict.reveal", "lesson.predict.keys_hint"})
    check(i18n::tr(key));
}

// The command line: --lesson NAME:STEP renders the covered step, NAME:STEP:GUESS the revealed one.
TEST(PredictCli, ScreenshotsOfTheCoveredAndTheRevealedStepDifferAndABadGuessIsRefused) {
  const fs::path dir = cli_test::fresh_test_dir("predict-cli");
  const LessonList& list = shipped();
  const std::size_t lesson = *find_lesson(list, "scaling");
  std::size_t step = 0;
  while (!list.lessons[lesson].steps[step].predict) ++step;
  const std::string spec = "scaling:" + std::to_string(step + 1);
  const LessonPredict& predict = *list.lessons[lesson].steps[step].predict;
  const std::string guess = predict_number(predict.choices.empty() ? predict.min : predict.choices.front());
  auto run = [&](const std::vector<std::string>& args) {
    return cli_test::run_program(SMLAB_BINARY, args, dir, "env -u DISPLAY");
  };
  // Presenter mode: the step's panel fills the picture, so the cover is on screen at any size.
  const cli_test::Outcome a =
      run({"--lesson", spec, "--presenter", "--screenshot", (dir / "covered.png").string(), "--size", "800x450"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  const cli_test::Outcome b = run({"--lesson", spec + ":" + guess, "--presenter", "--screenshot",
                                   (dir / "revealed.png").string(), "--size", "800x450"});
  ASSERT_EQ(b.exit_code, 0) << b.err;
  int w = 0, h = 0, channels = 0, w2 = 0, h2 = 0;
  unsigned char* covered = stbi_load((dir / "covered.png").string().c_str(), &w, &h, &channels, 4);
  unsigned char* revealed = stbi_load((dir / "revealed.png").string().c_str(), &w2, &h2, &channels, 4);
  ASSERT_NE(covered, nullptr);
  ASSERT_NE(revealed, nullptr);
  ASSERT_EQ(w * h, w2 * h2);
  int differing = 0;
  for (int i = 0; i < w * h * 4; i += 4)
    differing += std::abs(covered[i] - revealed[i]) + std::abs(covered[i + 1] - revealed[i + 1]) > 30;
  stbi_image_free(covered);
  stbi_image_free(revealed);
  EXPECT_GT(differing, w * h / 50) << "the revealed step looks like the covered one";

  const cli_test::Outcome bad = run({"--lesson", spec + ":1e9", "--screenshot", (dir / "bad.png").string()});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_EQ(bad.err.find('\n'), bad.err.size() - 1) << bad.err;
  EXPECT_FALSE(fs::exists(dir / "bad.png"));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace smlab::app
