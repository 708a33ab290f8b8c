// Lesson claims: every step's claims hold for the Snapshot its Params give through
// evaluate(), as the app computes it; every step states at least one; every claim can fail (its
// negation does not hold); and bad claims in a lesson file are one-line load errors.
#include <gtest/gtest.h>

#include "plot/text_wrap.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <vector>
#include <string>

#include "state/presets.hpp"
#include "lessons/claims.hpp"
#include "lessons/lessons.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/labs/stability.hpp"
#include "work/evaluator.hpp"
#include "lesson_support.hpp"

namespace smlab::app {
namespace {

using lesson_support::reads_the_sweep;
using lesson_support::shipped;

// The step's Snapshot as the app shows it once the step has settled (lesson_support.hpp), the d_k
// sweep refined when a claim or the question reads it. Kept per step: the training lesson's steps
// train for seconds each.
const Snapshot& snapshot_of(const LessonStep& step) {
  static std::map<const LessonStep*, Snapshot> evaluated;
  if (const auto found = evaluated.find(&step); found != evaluated.end()) return found->second;
  bool sweep = step.predict && reads_the_sweep(step.predict->quantity);
  for (const LessonClaim& claim : step.claims) sweep = sweep || reads_the_sweep(claim);
  return evaluated.emplace(&step, lesson_support::settled_snapshot(step.params, step.view, sweep)).first->second;
}

std::string where(const Lesson& lesson, std::size_t step) { return lesson.name + " step " + std::to_string(step + 1); }

// The claim turned into its negation: the comparison flipped, or a "~" target moved beyond its
// tolerance.
LessonClaim negation_of(const LessonClaim& claim, const Snapshot& snap) {
  LessonClaim broken = claim;
  if (claim.op == "<")
    broken.op = ">=";
  else if (claim.op == "<=")
    broken.op = ">";
  else if (claim.op == ">")
    broken.op = "<=";
  else if (claim.op == ">=")
    broken.op = "<";
  else
    broken.value = evaluate_claim(snap, claim).value + 3.0 * claim.tolerance;
  return broken;
}

// Each claim holds on its step's Snapshot, and each is a real statement: its negation fails on the
// same Snapshot (a claim that held either way would test nothing). One test for both, so the
// steps' Snapshots (seconds each for the training lesson) are computed once.
TEST(LessonClaims, EveryClaimOfEveryStepHoldsAndItsNegationFails) {
  const LessonList& list = shipped();
  ASSERT_FALSE(list.error) << list.error->message;
  int checked = 0;
  for (const Lesson& lesson : list.lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      const Snapshot& snap = snapshot_of(step);
      for (const LessonClaim& claim : step.claims) {
        const ClaimOutcome outcome = evaluate_claim(snap, claim);
        EXPECT_TRUE(outcome.error.empty()) << where(lesson, k) << ": " << outcome.error;
        EXPECT_TRUE(outcome.holds) << where(lesson, k) << ": " << outcome.description << " (value " << outcome.value
                                   << ", bound " << outcome.bound << ")";
        const ClaimOutcome negated = evaluate_claim(snap, negation_of(claim, snap));
        EXPECT_FALSE(negated.holds) << where(lesson, k) << ": the negated claim still holds: " << negated.description;
        ++checked;
      }
    }
  EXPECT_GE(checked, 60);
  std::printf("[ measured ] %d lesson claims checked\n", checked);
}

// A predict step's answer is read from the step's own Snapshot (never written in the file): it
// must be there, and a multiple-choice question must have one clearly nearest choice (the gap to
// the runner-up at least a tenth of the spread, so Monte Carlo refinement cannot flip it).
TEST(LessonClaims, EveryPredictStepHasAnAnswerAndOneClearlyNearestChoice) {
  int checked = 0;
  for (const Lesson& lesson : shipped().lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      if (!step.predict) continue;
      const Snapshot& snap = snapshot_of(step);
      const Result<PredictionReveal> reveal = reveal_prediction(*step.predict, snap, std::nullopt);
      ASSERT_TRUE(reveal.ok()) << where(lesson, k) << ": " << reveal.error().message;
      const double answer = reveal->answer;
      std::printf("[ measured ] %s: %s = %.4g\n", where(lesson, k).c_str(), describe(step.predict->quantity).c_str(),
                  answer);
      const auto& choices = step.predict->choices;
      if (choices.empty()) {
        EXPECT_GE(answer, step.predict->min) << where(lesson, k);
        EXPECT_LE(answer, step.predict->max) << where(lesson, k);
      } else {
        std::vector<double> distances;
        for (double choice : choices) distances.push_back(std::abs(choice - answer));
        std::sort(distances.begin(), distances.end());
        const double spread =
            *std::max_element(choices.begin(), choices.end()) - *std::min_element(choices.begin(), choices.end());
        EXPECT_GE(distances[1] - distances[0], 0.1 * spread)
            << where(lesson, k) << ": two choices are about as near to " << answer;
      }
      ++checked;
    }
  EXPECT_GE(checked, 2);
}

// A step that shows the stability lab's problems plot, where even the stable softmax fails in some
// format, says so and names that format in both languages: "the max trick fixes this" beside a plot
// where stable fails in e4m3 (it cannot store ±1000) leaves the class with a contradiction.
TEST(LessonContent, AStepShowingStableSoftmaxFailNamesTheFormat) {
  int checked = 0;
  for (const Lesson& lesson : shipped().lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      const std::vector<std::string_view> plots = step_plots(step);
      if (step.view != View::stability || std::find(plots.begin(), plots.end(), "problems") == plots.end()) continue;
      const StabilityLab* lab = snapshot_of(step).lab<StabilityLab>();
      ASSERT_NE(lab, nullptr);
      for (Format format : all_formats) {
        if (lab->format(format).run(SoftmaxVariant::stable).problem_count() == 0) continue;
        std::string name(format_name(format));
        if (name.rfind("fp8-", 0) == 0) name = name.substr(4);  // as the plot names it: "e4m3"
        for (const std::string* text : {&step.text.english, &step.text.chinese})
          EXPECT_NE(text->find(name), std::string::npos)
              << where(lesson, k) << " shows stable softmax failing in " << name << " and does not say why: " << *text;
        ++checked;
      }
    }
  EXPECT_GE(checked, 2);
}

// The common explanations' errors (the seed texts' README, and the review of the lessons): each one
// quoted in the step that measures it, in both languages, as "a common explanation says “…”;
// measured here: …", with a claim that checks the measured side against the step's own numbers.
struct CommonError {
  std::string_view lesson;
  std::size_t step;                   // 1-based
  std::string_view english, chinese;  // the quoted claim, as each text quotes it
  std::string_view measured_by;       // a quantity the step's claims read
};
constexpr CommonError kCommonErrors[] = {
    {"why-softmax", 7, "0.326, 0.342, 0.358", "0.326、0.342、0.358", "normalizer_weight"},
    {"why-softmax", 7, "1.64×", "1.64 倍", "small_gap_softmax_ratio"},
    {"saturation", 4, "0.012 … 0.995", "0.012 … 0.995", "weight"},
    {"saturation", 4, "S(1 − S) > 0.01", "S(1 − S) > 0.01", "gradient"},
    {"scaling", 8, "0.8", "0.8", "dk_entropy"},
    {"loss-gradients", 3, "a confident wrong prediction has zero gradient", "自信的错误预测梯度为零", "loss_gradient"},
    {"loss-gradients", 6, "∂L/∂Q ∝ 1/d_k", "∂L/∂Q ∝ 1/d_k", "qk_gradient_median"},
};

TEST(LessonContent, EachCommonErrorStandsBesideItsMeasurement) {
  for (const CommonError& error : kCommonErrors) {
    const auto index = find_lesson(shipped(), error.lesson);
    ASSERT_TRUE(index.has_value()) << error.lesson;
    const Lesson& lesson = shipped().lessons[*index];
    ASSERT_LE(error.step, lesson.steps.size()) << error.lesson;
    const LessonStep& step = lesson.steps[error.step - 1];
    const auto quoted = [](std::string_view text, std::string_view claim) {
      return text.find("\xE2\x80\x9C" + std::string(claim) + "\xE2\x80\x9D") != std::string_view::npos;
    };
    EXPECT_TRUE(quoted(step.text.english, error.english))
        << where(lesson, error.step - 1) << " does not quote \"" << error.english << "\": " << step.text.english;
    EXPECT_TRUE(quoted(step.text.chinese, error.chinese))
        << where(lesson, error.step - 1) << " does not quote \"" << error.chinese << "\": " << step.text.chinese;
    EXPECT_NE(step.text.english.find("common explanation"), std::string::npos) << where(lesson, error.step - 1);
    EXPECT_NE(step.text.chinese.find("常见的讲解"), std::string::npos) << where(lesson, error.step - 1);
    std::string lower = step.text.english;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    EXPECT_NE(lower.find("measured here"), std::string::npos) << where(lesson, error.step - 1);
    EXPECT_NE(step.text.chinese.find("这里测得"), std::string::npos) << where(lesson, error.step - 1);
    EXPECT_TRUE(std::any_of(step.claims.begin(), step.claims.end(),
                            [&](const LessonClaim& claim) { return claim.left.quantity == error.measured_by; }))
        << where(lesson, error.step - 1) << " has no claim on " << error.measured_by;
  }
}

// One Chinese term per thing: 独热 for one-hot (the presets said "one-hot"), 注意力图 for an attention
// map (the lessons mixed in 热图), 热图 only for the colour-map setting (ui.colormap.*) and the web
// page's words for a heatmap element (web.*). In every lesson text and the Chinese string table.
TEST(LessonContent, ChineseUsesOneTermForOneHotAndForTheMaps) {
  std::vector<std::pair<std::string, std::string>> texts;  // where, text
  for (const Lesson& lesson : shipped().lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      texts.push_back({where(lesson, k), step.title.chinese + " " + step.text.chinese});
      if (step.predict) {
        texts.push_back({where(lesson, k) + " question", step.predict->question.chinese});
        if (step.predict->after) texts.push_back({where(lesson, k) + " reveal", step.predict->after->chinese});
      }
    }
  std::ifstream table(find_assets_dir() / "i18n" / "zh-CN.json");
  ASSERT_TRUE(table.good());
  for (std::string line; std::getline(table, line);) {
    const std::size_t open = line.find('"'), close = line.find('"', open + 1);
    if (open == std::string::npos || close == std::string::npos) continue;
    const std::string key = line.substr(open + 1, close - open - 1);
    if (key.rfind("ui.colormap.", 0) == 0 || key.rfind("web.", 0) == 0) continue;
    texts.push_back({"zh-CN.json " + key, line.substr(close + 1)});
  }
  for (const auto& [at, text] : texts) {
    EXPECT_EQ(text.find("one-hot"), std::string::npos) << at << " writes one-hot, not 独热: " << text;
    EXPECT_EQ(text.find("热图"), std::string::npos) << at << " writes 热图 for a map (注意力图): " << text;
  }
  EXPECT_GE(texts.size(), 400u);
}

// docs/LESSONS.md teaches how to write a lesson with a complete example: it loads as a shipped
// lesson would, every claim of it holds (and its negation fails) on its step's Snapshot, and its
// question has an answer in range.
TEST(LessonDocs, TheExampleInLessonsMdLoadsAndItsClaimsHold) {
  std::ifstream doc(find_assets_dir().parent_path() / "docs" / "LESSONS.md");
  ASSERT_TRUE(doc.good()) << "docs/LESSONS.md";
  const std::string text((std::istreambuf_iterator<char>(doc)), std::istreambuf_iterator<char>());
  const std::size_t open = text.find("```json\n");
  ASSERT_NE(open, std::string::npos) << "no ```json example";
  const std::size_t start = open + 8, end = text.find("```", start);
  ASSERT_NE(end, std::string::npos);
  const LessonLoad example = parse_lesson(text.substr(start, end - start));
  ASSERT_TRUE(example.ok()) << example.error().message;
  ASSERT_GE(example->steps.size(), 2u);
  int claims = 0;
  bool predicts = false;
  for (std::size_t k = 0; k < example->steps.size(); ++k) {
    const LessonStep& step = example->steps[k];
    EvaluateOptions options;
    options.view = step.view;
    const Snapshot snap = *evaluate(step.params, options);
    for (const LessonClaim& claim : step.claims) {
      const ClaimOutcome outcome = evaluate_claim(snap, claim);
      EXPECT_TRUE(outcome.holds) << "example step " << k + 1 << ": " << outcome.description << outcome.error;
      EXPECT_FALSE(evaluate_claim(snap, negation_of(claim, snap)).holds) << "example step " << k + 1;
      ++claims;
    }
    if (step.predict) {
      predicts = true;
      const Result<PredictionReveal> reveal = reveal_prediction(*step.predict, snap, std::nullopt);
      ASSERT_TRUE(reveal.ok()) << reveal.error().message;
      EXPECT_GE(reveal->answer, step.predict->min);
      EXPECT_LE(reveal->answer, step.predict->max);
    }
  }
  EXPECT_GE(claims, 3);
  EXPECT_TRUE(predicts) << "the example shows a predict question";
}

TEST(LessonClaims, EveryStepStatesAtLeastOneClaim) {
  for (const Lesson& lesson : shipped().lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k)
      EXPECT_FALSE(lesson.steps[k].claims.empty()) << where(lesson, k) << " has no claims";
}

// Which lab computes a quantity: the one whose reader needs it, and none for the shown row's numbers
// and the d_k sweep's, which every Snapshot holds.
TEST(LessonClaims, AQuantityNamesTheLabThatComputesIt) {
  EXPECT_EQ(claim_quantity_lab({"values_top_key", "", -1, 0}), View::values);
  EXPECT_EQ(claim_quantity_lab({"gradients_stall_scale", "", -1, 0}), View::gradients);
  EXPECT_EQ(claim_quantity_lab({"train_steps_to_90", "a", -1, 0}), View::training);
  EXPECT_EQ(claim_quantity_lab({"weight", "", 0, 0}), std::nullopt);
  EXPECT_EQ(claim_quantity_lab({"dk_entropy", "scaled", -1, 64}), std::nullopt);
  // Every quantity of the vocabulary can be asked, and every lab's view is one of the registry's.
  int labs = 0;
  for (const ClaimQuantityInfo& info : claim_quantities()) {
    const std::string series(info.series.substr(0, info.series.find('|')));
    const std::optional<View> lab =
        claim_quantity_lab({std::string(info.name), series, info.needs_index ? 0 : -1, info.needs_at ? 64 : 0});
    labs += lab ? 1 : 0;
  }
  EXPECT_GE(labs, 50);
}

// A binding of a lab's number on a step that shows another view fails to load, in one line.
TEST(LessonClaims, ABindingOfAnotherViewsLabIsALoadError) {
  const LessonLoad load = parse_lesson(R"({"name": "demo", "title": {"en": "Demo", "zh-CN": "演示"}, "steps": [
      {"title": {"en": "One", "zh-CN": "一"}, "text": {"en": "Top: {top}.", "zh-CN": "最大：{top}。"},
       "bind": {"top": {"quantity": "values_top_weight", "decimals": 2}}, "view": "dashboard",
       "panel": "distribution", "claims": [{"quantity": "max_weight", "op": ">=", "value": 0.1}]}]})");
  ASSERT_FALSE(load.ok());
  EXPECT_NE(load.error().message.find("binds 'top' to values_top_weight, a number of the values lab, but its view is "
                                      "dashboard"),
            std::string::npos)
      << load.error().message;
  EXPECT_EQ(load.error().message.find('\n'), std::string::npos);
}

TEST(LessonClaims, BadClaimsAreOneLineLoadErrors) {
  auto lesson_with = [](const std::string& claims) {
    return R"({"name": "demo", "title": {"en": "Demo", "zh-CN": "演示"}, "steps": [
      {"title": {"en": "One", "zh-CN": "一"}, "text": {"en": "First.", "zh-CN": "第一步。"}, "view": "dashboard",
       "panel": "distribution", "claims": )" +
           claims + "}]}";
  };
  const LessonLoad good = parse_lesson(lesson_with(R"([{"quantity": "max_weight", "op": ">=", "value": 0.1}])"));
  ASSERT_TRUE(good.ok()) << good.error().message;
  ASSERT_EQ(good->steps[0].claims.size(), 1u);
  const struct {
    std::string claims, needle;
  } cases[] = {
      {R"({})", "\"claims\" must be an array"},
      {R"([{"quantity": "bogus", "op": "<", "value": 1}])", "quantity 'bogus' is not known"},
      {R"([{"quantity": "weight", "op": "<", "value": 1}])", "needs an \"index\""},
      {R"([{"quantity": "max_weight", "index": 2, "op": "<", "value": 1}])", "takes no \"index\""},
      {R"([{"quantity": "dk_entropy", "series": "scaled", "op": "<", "value": 1}])", "needs \"at\""},
      {R"([{"quantity": "dk_entropy", "series": "sideways", "at": 4, "op": "<", "value": 1}])", "series 'sideways'"},
      {R"([{"quantity": "max_weight", "op": "=", "value": 1}])", "op '='"},
      {R"([{"quantity": "max_weight", "op": "~", "value": 1}])", "needs a \"tolerance\""},
      {R"([{"quantity": "max_weight", "op": "<"}])", "needs a \"value\" or a \"than\""},
      {R"([{"quantity": "max_weight", "op": "<", "value": "1"}])", "\"value\" must be a number"},
      {R"([{"quantity": "max_weight", "op": "<", "value": 1, "extra": 2}])", "unknown field 'extra'"},
      {R"([{"quantity": "max_weight", "op": "<", "than": {"quantity": "nope"}}])", "quantity 'nope'"},
      // A lab's number on a step that shows another view: the values lab is not on the dashboard.
      {R"([{"quantity": "values_top_weight", "op": "<", "value": 1}])",
       "claim 1 reads values_top_weight, a number of the values lab, but its view is dashboard"},
      {R"([{"quantity": "max_weight", "op": "<", "times": 2, "than": {"quantity": "gradients_peak_norm"}}])",
       "a number of the gradients lab"},
  };
  for (const auto& c : cases) {
    const LessonLoad load = parse_lesson(lesson_with(c.claims));
    EXPECT_FALSE(load.ok()) << c.claims;
    EXPECT_EQ(load.error().message.find('\n'), std::string::npos) << load.error().message;
    EXPECT_NE(load.error().message.find(c.needle), std::string::npos) << c.claims << "\n-> " << load.error().message;
    EXPECT_NE(load.error().message.find("lesson 'demo' step 1"), std::string::npos) << load.error().message;
  }
}

TEST(LessonClaims, AClaimAgainstTheWrongNumberFails) {
  // The issue's saturation step 4 as first written: "practically one-hot" at ×20 (max weight 0.75).
  Params params;
  params.score_scale = 20.0;
  EvaluateOptions options;
  options.view = View::gradients;
  const Snapshot snap = *evaluate(params, options);
  LessonClaim one_hot{{"max_weight", "", -1, 0}, ">=", 0.99, 0.0, std::nullopt, 1.0};
  const ClaimOutcome outcome = evaluate_claim(snap, one_hot);
  EXPECT_FALSE(outcome.holds) << outcome.description;
  EXPECT_NE(outcome.description.find("max_weight = "), std::string::npos) << outcome.description;
}

// The presets whose titles once stated false numbers too; their titles are checked here
// with the same claim vocabulary (presets.json holds no claims of its own).
TEST(LessonClaims, PresetTitlesHold) {
  const PresetList list = load_presets(find_assets_dir() / "presets.json");
  ASSERT_TRUE(list.ok()) << list.error().message;
  const struct {
    const char* preset;
    View view;
    std::vector<LessonClaim> claims;
  } cases[] = {
      {"saturated-gradient",
       View::gradients,
       {{{"max_weight", "", -1, 0}, ">=", 0.998, 0.0, std::nullopt, 1.0},
        {{"jacobian_norm", "", -1, 0}, "<", 0.0, 0.0, ClaimQuantity{"gradients_peak_norm", "", -1, 0}, 0.01}}},
      {"small-dk",
       View::dashboard,
       {{{"map_mean_entropy", "unscaled", -1, 0},
         "<",
         0.0,
         0.0,
         ClaimQuantity{"map_mean_entropy", "scaled", -1, 0},
         0.9},
        {{"map_mean_max_weight", "unscaled", -1, 0}, "<", 0.6, 0.0, std::nullopt, 1.0}}},
      {"large-dk-unscaled",
       View::dashboard,
       {{{"map_mean_max_weight", "unscaled", -1, 0}, ">", 0.99, 0.0, std::nullopt, 1.0}}},
      {"causal",
       View::dashboard,
       {{{"map_masked_weight_max", "scaled", -1, 0}, "<=", 0.0, 0.0, std::nullopt, 1.0},
        {{"map_masked_weight_max", "unscaled", -1, 0}, "<=", 0.0, 0.0, std::nullopt, 1.0},
        {{"masked_weight_max", "", -1, 0}, "<=", 0.0, 0.0, std::nullopt, 1.0}}},
  };
  for (const auto& c : cases) {
    const Preset* preset = find_preset(list, c.preset);
    ASSERT_NE(preset, nullptr) << c.preset;
    EvaluateOptions options;
    options.view = c.view;
    const Snapshot snap = *evaluate(preset->params, options);
    for (const LessonClaim& claim : c.claims) {
      ASSERT_TRUE(check_claim(claim).ok()) << check_claim(claim).error().message;
      const ClaimOutcome outcome = evaluate_claim(snap, claim);
      EXPECT_TRUE(outcome.holds) << "preset " << c.preset << " (" << preset->title << "): " << outcome.description;
    }
  }
}

// The lesson text's line breaking (plot::wrap_text, which the panel uses): never inside a number
// (ImGui's wrap breaks after '.'), lines within the width, Chinese broken between characters but
// not before "，" or after "（".
std::string wrap_lines(std::string_view text, float width) {
  const auto bytes = [](std::string_view part) { return static_cast<float>(part.size()); };
  std::string out;
  for (const plot::LineSpan& span : plot::wrap_text(text, width, bytes)) {
    if (!out.empty()) out += '\n';
    out.append(text.substr(span.begin, span.end - span.begin));
  }
  return out;
}

TEST(LessonText, WrapsAtSpacesAndBetweenChineseCharactersButNeverInsideANumber) {
  const std::string english = wrap_lines("and d = 1, 1 + e^-1 = 1.37, 1.37·e^-1 + 1 = 1.50, written above", 12.0f);
  EXPECT_NE(english.find("1.37·e^-1"), std::string::npos) << english;
  EXPECT_EQ(english.find("1.\n"), std::string::npos) << english;
  std::size_t start = 0;
  while (start < english.size()) {
    const std::size_t end = std::min(english.find('\n', start), english.size());
    const std::string line = english.substr(start, end - start);
    EXPECT_LE(line.size(), 12u) << "'" << line << "' in\n" << english;
    EXPECT_FALSE(line.empty() || line.front() == ' ' || line.back() == ' ') << "'" << line << "'";
    start = end + 1;
  }
  EXPECT_EQ(wrap_lines("one\n\ntwo", 100.0f), "one\n\ntwo");  // paragraphs kept
  // Chinese: 3 bytes a character, width 12 = 4 characters; "，" never starts a line, "（" never ends one.
  const std::string chinese = wrap_lines("最大的权重从0.12升到0.34，它的圆点（爬升）", 12.0f);
  EXPECT_NE(chinese.find("0.12"), std::string::npos) << chinese;
  EXPECT_NE(chinese.find("0.34"), std::string::npos) << chinese;
  EXPECT_EQ(chinese.find("\n，"), std::string::npos) << chinese;
  EXPECT_EQ(chinese.find("（\n"), std::string::npos) << chinese;
  EXPECT_NE(chinese.find('\n'), std::string::npos) << chinese;
}

// For lesson authors (run with --gtest_also_run_disabled_tests): every quantity of the vocabulary
// at every step, to write claims against. Index quantities are shown for the first keys.
TEST(LessonClaims, DISABLED_PrintEveryQuantityAtEveryStep) {
  const std::string series_for_all[] = {"",         "scaled", "unscaled",   "naive",  "stable",   "online",
                                        "softmax",  "linear", "hardmax",    "fp16",   "bf16",     "fp32",
                                        "fp8-e5m2", "dot",    "scaled_dot", "cosine", "additive", "layer_norm"};
  for (const Lesson& lesson : shipped().lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const Snapshot snap = snapshot_of(lesson.steps[k]);
      std::printf("== %s\n", where(lesson, k).c_str());
      for (const ClaimQuantityInfo& info : claim_quantities())
        for (const std::string& series : series_for_all)
          for (int index : {-1, 0, 1, 2})
            for (int at : {0, 4, 64, 1024}) {
              const ClaimQuantity q{std::string(info.name), series, index, at};
              if (!check_claim_quantity(q).ok()) continue;
              const Result<double> value = claim_value(snap, q);
              if (value.ok()) std::printf("  %s = %.6g\n", describe(q).c_str(), *value);
            }
    }
}

}  // namespace
}  // namespace smlab::app
