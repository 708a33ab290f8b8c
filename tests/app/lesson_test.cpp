// Lessons: the shipped files pass the loader, bad files give one-line errors, the
// Params animation stays valid and lands exactly, every step of every lesson renders headless
// with its highlight, sessions keep the lesson position, and the command line's lesson flags.
#include <gtest/gtest.h>

#include "cli_support.hpp"

#include <imgui_internal.h>  // ImTextCharFromUtf8
#include <stb_image.h>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes: io.KeysDown is indexed by GLFW key
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "frame/app.hpp"
#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lesson_corpus.hpp"
#include "lessons/lessons.hpp"
#include "panels/lesson_panel.hpp"
#include "platform/offscreen.hpp"
#include "plot/plot.hpp"
#include "smlab/evaluate.hpp"
#include "state/presets.hpp"
#include "state/session.hpp"

namespace smlab::app {
namespace {

namespace fs = std::filesystem;
using cli_test::Outcome;
using cli_test::read_all;

fs::path lessons_dir() { return find_assets_dir() / "lessons"; }

const LessonList& shipped() {
  static const LessonList list = load_lessons(lessons_dir());
  return list;
}

bool one_line(const std::string& text) { return text.find('\n') == std::string::npos && !text.empty(); }

// A valid lesson to mutate: two steps, the second raising the temperature.
std::string lesson_json(const std::string& second_step_set = R"({"temperature": 2})",
                        const std::string& second_view = R"("dashboard")",
                        const std::string& second_panel = R"("gradient")") {
  return R"({"name": "demo", "title": {"en": "Demo", "zh-CN": "演示"}, "steps": [
    {"title": {"en": "One", "zh-CN": "一"}, "text": {"en": "First.", "zh-CN": "第一步。"}, "view": "dashboard", "panel": "distribution"},
    {"title": {"en": "Two", "zh-CN": "二"}, "text": {"en": "Second.", "zh-CN": "第二步。"}, "set": )" +
         second_step_set + R"(, "view": )" + second_view + R"(, "panel": )" + second_panel + "}]}";
}

// ─── The shipped lessons ──────────────────────────────────────────────────────────────────────

TEST(LessonFiles, EveryShippedLessonLoadsWithFiveToNineStepsInBothLanguages) {
  const LessonList& list = shipped();
  ASSERT_FALSE(list.error) << list.error->message;
  ASSERT_GE(list.lessons.size(), 6u);
  for (const char* name : {"why-softmax", "stability", "temperature", "saturation", "scaling", "toolbox"})
    EXPECT_TRUE(find_lesson(list, name).has_value()) << "missing lesson " << name;
  for (const Lesson& lesson : list.lessons) {
    EXPECT_GE(lesson.steps.size(), 5u) << lesson.name;
    EXPECT_LE(lesson.steps.size(), 9u) << lesson.name;
    Params expected;  // the steps build on each other, starting from the defaults
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      for (const auto& [key, value] : step.settings)
        ASSERT_TRUE(set_param(expected, key, value).ok()) << lesson.name << " step " << k + 1 << " " << key;
      EXPECT_EQ(step.params, expected) << lesson.name << " step " << k + 1 << ": Params are not the running sum";
      EXPECT_TRUE(validate(step.params).ok()) << lesson.name << " step " << k + 1;
      EXPECT_FALSE(panel_entry_plots(step.view, step.panel).empty()) << lesson.name << " step " << k + 1;
      // Real Chinese: at least a few CJK ideographs in every Chinese text.
      int ideographs = 0;
      for (std::size_t i = 0; i + 2 < step.text.chinese.size(); ++i)
        if (static_cast<unsigned char>(step.text.chinese[i]) >= 0xE4 &&
            static_cast<unsigned char>(step.text.chinese[i]) <= 0xE9)
          ++ideographs;
      EXPECT_GE(ideographs, 10) << lesson.name << " step " << k + 1 << " zh-CN text is not Chinese";
      EXPECT_NE(step.text.english, step.text.chinese) << lesson.name << " step " << k + 1;
    }
  }
}

TEST(LessonFiles, TheLessonsUseTheViewsTheirTopicsNeed) {
  const LessonList& list = shipped();
  auto uses = [&](const char* lesson, View view) {
    const auto index = find_lesson(list, lesson);
    if (!index) return false;
    for (const LessonStep& step : list.lessons[*index].steps)
      if (step.view == view) return true;
    return false;
  };
  EXPECT_TRUE(uses("why-softmax", View::normalizers));
  EXPECT_TRUE(uses("stability", View::stability));
  EXPECT_TRUE(uses("temperature", View::temperature));
  EXPECT_TRUE(uses("saturation", View::gradients));
  EXPECT_TRUE(uses("scaling", View::scaling));
  EXPECT_TRUE(uses("scaling", View::dashboard));
  EXPECT_TRUE(uses("toolbox", View::attention_variants));
  EXPECT_TRUE(uses("toolbox", View::heads));
  // The attention story: values and output, sampling temperature, the loss and the
  // gradients to Q and K, geometry and initialisation, and softmax's relatives.
  EXPECT_TRUE(uses("values", View::values));
  EXPECT_TRUE(uses("sampling", View::sampling));
  EXPECT_TRUE(uses("loss-gradients", View::loss));
  EXPECT_TRUE(uses("geometry-init", View::geometry));
  EXPECT_TRUE(uses("geometry-init", View::init));
  EXPECT_TRUE(uses("relatives", View::normalizers));
  // The stability lesson shows fp16 and bf16.
  const Lesson& stability = list.lessons[*find_lesson(list, "stability")];
  std::set<Format> formats;
  for (const LessonStep& step : stability.steps) formats.insert(step.params.format);
  EXPECT_TRUE(formats.count(Format::fp16) && formats.count(Format::bf16));
}

// ─── Bad lesson files ─────────────────────────────────────────────────────────────────────────

TEST(LessonLoader, BadFilesGiveOneLineErrorsNamingWhatIsWrong) {
  ASSERT_TRUE(parse_lesson(lesson_json()).ok()) << parse_lesson(lesson_json()).error().message;
  const std::string huge = R"({"name": "x", "title": {"en": ")" + std::string(lesson_max_bytes, 'a') + "\"}}";
  const struct {
    std::string text, needle;
  } cases[] = {
      {"", "not valid JSON"},
      {"{", "not valid JSON"},
      {lesson_json().substr(0, 120), "not valid JSON"},
      {"[1, 2]", "must be a JSON object"},
      {std::string(100000, '[') + std::string(100000, ']'), "nests deeper"},
      {huge, "larger than 1 MB"},
      {R"({"name": 5, "title": {"en": "a", "zh-CN": "b"}, "steps": []})", "\"name\""},
      {R"({"name": "Has Space", "title": {"en": "a", "zh-CN": "b"}, "steps": []})", "\"name\""},
      {R"({"name": "x", "title": "plain", "steps": []})", "lesson 'x' title must be an object"},
      {R"({"name": "x", "title": {"en": "a"}, "steps": []})", "needs \"zh-CN\""},
      {R"({"name": "x", "title": {"en": "a", "zh-CN": "b", "fr": "c"}, "steps": []})", "language 'fr'"},
      {R"({"name": "x", "title": {"en": "a", "zh-CN": "b"}, "steps": []})", "\"steps\" array"},
      {R"({"name": "x", "title": {"en": "a", "zh-CN": "b"}, "steps": {}})", "\"steps\" array"},
      {R"({"name": "x", "title": {"en": "a", "zh-CN": "b"}, "steps": [], "extra": 1})", "unknown field 'extra'"},
      {lesson_json(R"({"temperature": 500})"), "lesson 'demo' step 2 key 'temperature'"},
      {lesson_json(R"({"temperature": 500})"), "allowed 0.01 to 100"},
      {lesson_json(R"({"d_k": 0.5})"), "step 2 key 'd_k'"},
      {lesson_json(R"({"scores": "1, nan"})"), "step 2 key 'scores'"},
      {lesson_json(R"({"bogus": 1})"), "step 2 key 'bogus'"},
      {lesson_json(R"({"temperature": [1]})"), "must be a string, number or boolean"},
      {lesson_json(R"([1])"), "\"set\" must be an object"},
      {lesson_json("{}", R"("nowhere")"), "view 'nowhere' is not a view"},
      {lesson_json("{}", "3"), "needs a \"view\""},
      {lesson_json("{}", R"("dashboard")", R"("jacobian")"), "panel 'jacobian' is not a panel of dashboard"},
      {lesson_json("{}", R"("dashboard")", "null"), "needs a \"panel\""},
      {R"({"name": "x", "title": {"en": "a\nb", "zh-CN": "b"}, "steps": []})", "control character"},
  };
  for (const auto& c : cases) {
    const LessonLoad load = parse_lesson(c.text);
    EXPECT_FALSE(load.ok()) << c.text.substr(0, 200);
    EXPECT_TRUE(one_line(load.error().message)) << c.text.substr(0, 200) << "\n-> " << load.error().message;
    EXPECT_NE(load.error().message.find(c.needle), std::string::npos)
        << c.text.substr(0, 200) << "\n-> " << load.error().message;
  }
  // 51 steps is one too many.
  std::string many = R"({"name": "x", "title": {"en": "a", "zh-CN": "b"}, "steps": [)";
  for (int k = 0; k <= static_cast<int>(lesson_max_steps); ++k)
    many +=
        std::string(k ? "," : "") +
        R"({"title": {"en": "a", "zh-CN": "b"}, "text": {"en": "a", "zh-CN": "b"}, "view": "dashboard", "panel": "gradient"})";
  const LessonLoad too_many = parse_lesson(many + "]}");
  EXPECT_FALSE(too_many.ok());
  EXPECT_NE(too_many.error().message.find("51 steps"), std::string::npos) << too_many.error().message;
}

// ─── Bound numbers: {NAME} in a step's text, filled from the Snapshot ──────────────────────────

// A one-step lesson on the normalizers' scores 1, 2, 3 whose texts and "bind" are given.
std::string bound_lesson(const std::string& en, const std::string& zh, const std::string& bind,
                         const std::string& predict = "") {
  return R"({"name": "bound", "title": {"en": "B", "zh-CN": "B"}, "steps": [{"title": {"en": "T", "zh-CN": "T"},
    "text": {"en": ")" +
         en + R"(", "zh-CN": ")" + zh + R"("}, )" + (bind.empty() ? "" : R"("bind": )" + bind + ", ") +
         R"("set": {"scores": "1, 2, 3"}, "view": "normalizers", "panel": "softmax")" +
         (predict.empty() ? "" : ", " + predict) + "}]}";
}

const std::string weight_2 = R"({"w": {"quantity": "weight", "index": 2, "decimals": 3}})";

TEST(LessonBindings, ABoundNumberMustBeNamedInBothTextsAndReadable) {
  const LessonLoad good = parse_lesson(bound_lesson("The 3 gets {w}.", "3 得到 {w}。", weight_2));
  ASSERT_TRUE(good.ok()) << good.error().message;
  ASSERT_EQ(good->steps[0].bindings.size(), 1u);
  EXPECT_EQ(good->steps[0].bindings[0].name, "w");
  EXPECT_EQ(good->steps[0].bindings[0].decimals, 3);
  EXPECT_EQ(good->steps[0].bindings[0].quantity.quantity, "weight");
  EXPECT_EQ(good->steps[0].bindings[0].quantity.index, 2);
  const std::string answer_is_w =
      R"("predict": {"question": {"en": "Q?", "zh-CN": "Q？"}, "quantity": {"quantity": "weight", "index": 2},
         "min": 0, "max": 1, "decimals": 3})";
  const struct {
    std::string text, needle;
  } cases[] = {
      {bound_lesson("The 3 gets {x}.", "3 得到 {x}。", weight_2),
       "writes {x}, which the step's \"bind\" does not name"},
      {bound_lesson("The 3 gets {w}.", "3 得到 0.665。", weight_2), "binds 'w', which text.zh-CN does not write"},
      {bound_lesson("The 3 gets {w}.", "3 得到 {w}。", ""), "writes {w}, which the step's \"bind\" does not name"},
      {bound_lesson("A {brace.", "A。", ""), "not a bound number: write {NAME}"},
      {bound_lesson("A {W}.", "A。", ""), "not a bound number: write {NAME}"},
      {bound_lesson("A } alone.", "A。", ""), "'}' with no '{'"},
      {bound_lesson("{w}", "{w}", R"({"w": {"quantity": "weight", "index": 2}})"), "needs \"decimals\""},
      {bound_lesson("{w}", "{w}", R"({"w": {"quantity": "weight", "index": 2, "decimals": 7}})"), "from 0 to 6"},
      {bound_lesson("{w}", "{w}", R"({"w": {"quantity": "nonsense", "decimals": 2}})"), "bind 'w'"},
      {bound_lesson("{w}", "{w}", R"({"w": {"quantity": "weight", "index": 2, "decimals": 2, "op": "<"}})"),
       "unknown field 'op'"},
      {bound_lesson("{Bad}", "{Bad}", R"({"Bad": {"quantity": "weight", "index": 2, "decimals": 2}})"),
       "a name is a to z"},
      {bound_lesson("{w}", "{w}", R"([1])"), "\"bind\" must be an object"},
      {bound_lesson("The 3 gets {w}.", "3 得到 {w}。", weight_2, answer_is_w), "the predict question's answer"},
  };
  for (const auto& c : cases) {
    const LessonLoad load = parse_lesson(c.text);
    ASSERT_FALSE(load.ok()) << c.text;
    EXPECT_TRUE(one_line(load.error().message)) << load.error().message;
    EXPECT_NE(load.error().message.find(c.needle), std::string::npos) << c.text << "\n-> " << load.error().message;
    EXPECT_NE(load.error().message.find("lesson 'bound' step 1"), std::string::npos) << load.error().message;
  }
}

// The number is the Snapshot's, to the decimals asked, and follows the Params: softmax(1, 2, 3)
// gives the 3 the weight e³/(e + e² + e³) = 0.66524…, and at T = 0.5 (scores 2, 4, 6) 0.86681….
TEST(LessonBindings, TheTextShowsTheSnapshotsNumberAndFollowsTheSliders) {
  const LessonLoad lesson =
      parse_lesson(bound_lesson("The 3 gets {w} of the weight.", "3 得到 {w} 的权重。", weight_2));
  ASSERT_TRUE(lesson.ok()) << lesson.error().message;
  const LessonStep& step = lesson->steps[0];
  EvaluateOptions options;
  options.view = step.view;
  const std::optional<Snapshot> at_one = evaluate(step.params, options);
  ASSERT_TRUE(at_one.has_value());
  const double exact = std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0));
  EXPECT_NEAR(exact, 0.66524, 1e-5);
  EXPECT_EQ(step_text(step, i18n::Language::English, &*at_one), "The 3 gets 0.665 of the weight.");
  EXPECT_EQ(step_text(step, i18n::Language::Chinese, &*at_one), "3 得到 0.665 的权重。");
  Params colder = step.params;
  colder.temperature = 0.5;
  const std::optional<Snapshot> at_half = evaluate(colder, options);
  ASSERT_TRUE(at_half.has_value());
  EXPECT_EQ(step_text(step, i18n::Language::English, &*at_half), "The 3 gets 0.867 of the weight.");
  // Before the first Snapshot, and where the Snapshot lacks the number (an index past the row).
  EXPECT_EQ(step_text(step, i18n::Language::English, nullptr), "The 3 gets … of the weight.");
  Params two_keys = step.params;
  two_keys.scores = {1.0, 2.0};
  const std::optional<Snapshot> short_row = evaluate(two_keys, options);
  ASSERT_TRUE(short_row.has_value());
  EXPECT_EQ(step_text(step, i18n::Language::English, &*short_row), "The 3 gets … of the weight.");
  // A text without bindings is shown as written.
  EXPECT_EQ(bound_text("No numbers here.", {}, &*at_one), "No numbers here.");
}

// The language model learns the lessons' words as the class reads them: a bound number is the
// "…" shown before it has a value, never the file's {NAME}.
TEST(LessonBindings, TheLanguageModelsCorpusHoldsNoPlaceholder) {
  LessonList list;
  for (int copy = 0; copy < 40; ++copy) {  // enough text for build_corpus's minimum count
    LessonLoad lesson = parse_lesson(bound_lesson("The 3 gets {w} of the weight.", "3 得到 {w} 的权重。", weight_2));
    ASSERT_TRUE(lesson.ok()) << lesson.error().message;
    lesson->name += std::to_string(copy);
    list.lessons.push_back(std::move(*lesson));
  }
  const std::shared_ptr<const train::Corpus> corpus = lesson_corpus(list);
  ASSERT_NE(corpus, nullptr);
  const auto has = [&](char32_t symbol) {
    return std::find(corpus->symbols.begin(), corpus->symbols.end(), symbol) != corpus->symbols.end();
  };
  EXPECT_FALSE(has(U'{'));
  EXPECT_FALSE(has(U'}'));
  EXPECT_TRUE(has(U'…'));
}

// "hold" names keys of the key table, each once; the step keeps them at its own values.
TEST(LessonHold, AStepHoldsKeysOfTheKeyTableEachOnce) {
  const LessonLoad good = parse_lesson(bound_lesson("At T = 1 the 3 gets {w}.", "T = 1 时 3 得到 {w}。", weight_2,
                                                    R"("hold": ["temperature", "scores"])"));
  ASSERT_TRUE(good.ok()) << good.error().message;
  EXPECT_EQ(good->steps[0].held, (std::vector<std::string>{"temperature", "scores"}));
  const struct {
    std::string hold, needle;
  } cases[] = {
      {R"("hold": ["temprature"])", "holds 'temprature', which is not a key"},
      {R"("hold": ["temperature", "temperature"])", "holds 'temperature' twice"},
      {R"("hold": [])", "\"hold\" must be an array of 1 to 16 key names"},
      {R"("hold": "temperature")", "\"hold\" must be an array"},
      {R"("hold": [1])", "\"hold\" holds a number, not a key name"},
  };
  for (const auto& c : cases) {
    const LessonLoad bad = parse_lesson(bound_lesson("The 3 gets {w}.", "3 得到 {w}。", weight_2, c.hold));
    ASSERT_FALSE(bad.ok()) << c.hold;
    EXPECT_NE(bad.error().message.find(c.needle), std::string::npos) << bad.error().message;
    EXPECT_NE(bad.error().message.find("step 1"), std::string::npos) << bad.error().message;
  }
}

TEST(LessonLoader, EveryTruncationOfAShippedFileIsAOneLineErrorNotACrash) {
  const std::string text = read_all(lessons_dir() / "01-why-softmax.json");
  ASSERT_GT(text.size(), 1000u);
  ASSERT_TRUE(parse_lesson(text).ok());
  for (std::size_t length = 0; length + 1 < text.size(); length += 7) {
    const LessonLoad load = parse_lesson(text.substr(0, length));
    ASSERT_FALSE(load.ok()) << "prefix of " << length << " bytes loaded";
    ASSERT_TRUE(one_line(load.error().message)) << length;
  }
}

TEST(LessonLoader, AFolderWithABadAndADuplicateFileKeepsTheGoodLessons) {
  const fs::path dir = fs::temp_directory_path() / ("smlab-lessons-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "a.json") << lesson_json();
  std::ofstream(dir / "b.json") << lesson_json(R"({"temperature": -1})");
  std::ofstream(dir / "c.json") << lesson_json();  // "demo" again
  std::ofstream(dir / "notes.txt") << "not a lesson";
  const LessonList list = load_lessons(dir);
  ASSERT_EQ(list.lessons.size(), 1u);
  EXPECT_EQ(list.lessons[0].name, "demo");
  ASSERT_TRUE(list.error);
  EXPECT_TRUE(one_line(list.error->message)) << list.error->message;
  EXPECT_NE(list.error->message.find("b.json"), std::string::npos) << list.error->message;
  // A lesson file that does not load is a file error: a run that needs it exits 3, as before.
  EXPECT_EQ(smlab::exit_code(list.error->kind), 3);
  const LessonList missing = load_lessons(dir / "nope");
  EXPECT_TRUE(missing.lessons.empty());
  ASSERT_TRUE(missing.error);
  EXPECT_NE(missing.error->message.find("nope"), std::string::npos) << missing.error->message;
  fs::remove_all(dir);
}

TEST(LessonLoader, LookupTakesNameAndOneBasedStep) {
  const LessonList& list = shipped();
  const auto first = lookup_lesson(list, "why-softmax");
  ASSERT_TRUE(first.ok()) << first.error().message;
  EXPECT_EQ(first->step, 0u);
  const auto third = lookup_lesson(list, "why-softmax:3");
  ASSERT_TRUE(third.ok()) << third.error().message;
  EXPECT_EQ(third->step, 2u);
  const std::string count = std::to_string(list.lessons[third->lesson].steps.size());
  for (const char* bad : {"why-softmax:0", "why-softmax:99", "why-softmax:x", "why-softmax:", "why-softmax:-1"}) {
    const auto lookup = lookup_lesson(list, bad);
    EXPECT_FALSE(lookup.ok()) << bad;
    EXPECT_NE(lookup.error().message.find("a step from 1 to " + count), std::string::npos)
        << bad << " -> " << lookup.error().message;
  }
  const auto unknown = lookup_lesson(list, "nonesuch:2");
  EXPECT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("'nonesuch' is not a lesson: allowed why-softmax"), std::string::npos)
      << unknown.error().message;
}

// ─── Animation ────────────────────────────────────────────────────────────────────────────────

// Every numeric key of `mid` lies between its values in `a` and `b`.
void expect_between(const Params& a, const Params& b, const Params& mid, const std::string& where) {
  auto check = [&](double x, double y, double m, const char* key) {
    EXPECT_GE(m, std::min(x, y)) << where << " " << key;
    EXPECT_LE(m, std::max(x, y)) << where << " " << key;
  };
  check(a.temperature, b.temperature, mid.temperature, "temperature");
  check(a.key_dim, b.key_dim, mid.key_dim, "d_k");
  check(a.score_scale, b.score_scale, mid.score_scale, "score_scale");
  check(a.seq_len, b.seq_len, mid.seq_len, "seq_len");
  check(a.alpha, b.alpha, mid.alpha, "alpha");
  check(a.gamma, b.gamma, mid.gamma, "gamma");
  check(a.qk_norm, b.qk_norm, mid.qk_norm, "qk_norm");
  check(a.pe_amplitude, b.pe_amplitude, mid.pe_amplitude, "pe_amplitude");
  check(a.heads, b.heads, mid.heads, "heads");
  check(a.nudge, b.nudge, mid.nudge, "nudge");
}

TEST(LessonAnimation, EveryStepChangeStaysValidInRangeAndEndsExactlyOnTheTarget) {
  std::vector<Params> all{Params{}};
  Params extreme;  // every numeric key at the other end of its range
  extreme.temperature = 100;
  extreme.key_dim = 4096;
  extreme.score_scale = 0.01;
  extreme.seq_len = 2;
  extreme.row = 1;
  extreme.alpha = 2;
  extreme.gamma = 0.1;
  extreme.qk_norm = 20;
  extreme.pe_amplitude = 100;
  extreme.heads = 16;
  extreme.nudge = -3;
  ASSERT_TRUE(validate(extreme).ok());
  all.push_back(extreme);
  for (const Lesson& lesson : shipped().lessons)
    for (const LessonStep& step : lesson.steps) all.push_back(step.params);
  for (std::size_t i = 0; i + 1 < all.size(); ++i)
    for (const auto& [from, to] : {std::pair{all[i], all[i + 1]}, std::pair{all[i + 1], all[i]}}) {
      for (int k = 0; k <= 50; ++k) {
        const double progress = k / 50.0;
        const Params mid = interpolate_params(from, to, lesson_ease(progress));
        const std::string where = "pair " + std::to_string(i) + " at " + std::to_string(progress);
        ASSERT_TRUE(validate(mid).ok()) << where << ": " << validate(mid).error().message;
        expect_between(from, to, mid, where);
        EXPECT_EQ(mid.scores, to.scores) << "non-numeric keys switch at once";
        EXPECT_EQ(mid.format, to.format);
      }
      EXPECT_EQ(interpolate_params(from, to, 1.0), to) << "pair " << i;
      EXPECT_EQ(interpolate_params(from, to, lesson_ease(1.0)), to) << "pair " << i;
    }
}

TEST(LessonAnimation, LogScaledKeysMoveInLogSpaceAndIntegersAreRounded) {
  Params from, to;
  from.temperature = 0.01;
  to.temperature = 100;
  from.key_dim = 4;
  to.key_dim = 1024;
  from.heads = 1;
  to.heads = 4;
  const Params mid = interpolate_params(from, to, 0.5);
  EXPECT_NEAR(mid.temperature, 1.0, 1e-12) << "the geometric mean of 0.01 and 100";
  EXPECT_EQ(mid.key_dim, 64) << "the geometric mean of 4 and 1024";
  EXPECT_EQ(mid.heads, 3) << "2.5 rounds away from zero";
  EXPECT_EQ(lesson_ease(0.0), 0.0);
  EXPECT_EQ(lesson_ease(1.0), 1.0);
  EXPECT_EQ(lesson_ease(0.5), 0.5);
}

UiState ui_with_lessons() {
  UiState ui;
  ui.lessons = shipped();
  return ui;
}

TEST(LessonPlayer, NextAnimatesOverHalfASecondThroughValidParamsAndLandsExactly) {
  UiState ui = ui_with_lessons();
  const std::size_t lesson = *find_lesson(ui.lessons, "temperature");
  ASSERT_TRUE(open_lesson_step(ui, lesson, 1, false));  // T = 0.1
  EXPECT_EQ(ui.params, ui.lessons.lessons[lesson].steps[1].params);
  EXPECT_EQ(ui.view, View::temperature);
  ASSERT_TRUE(lesson_next(ui));  // T = 10, animated
  const Params& target = ui.lessons.lessons[lesson].steps[2].params;
  EXPECT_TRUE(ui.lesson.animating);
  double last_temperature = 0.0;
  int frames = 0;
  while (ui.lesson.animating && frames < 1000) {
    advance_lesson(ui, 1.0 / 60.0);
    ASSERT_TRUE(validate(ui.params).ok());
    EXPECT_GE(ui.params.temperature, last_temperature) << "frame " << frames;
    last_temperature = ui.params.temperature;
    ++frames;
  }
  EXPECT_EQ(ui.params, target);
  EXPECT_GE(frames, 28);  // ~0.5 s at 60 frames per second
  EXPECT_LE(frames, 32);
  EXPECT_EQ(ui.lesson.open->step, 2u);
}

TEST(LessonPlayer, AUserEditDuringTheAnimationWinsAndTheEndsStopNavigation) {
  UiState ui = ui_with_lessons();
  ASSERT_TRUE(open_lesson_step(ui, 0, 0, false));
  EXPECT_FALSE(lesson_previous(ui)) << "no step before the first";
  ASSERT_TRUE(lesson_next(ui));
  advance_lesson(ui, 0.1);
  Params edited = ui.params;
  edited.seed = 7;
  ASSERT_TRUE(apply_params(ui, edited));
  advance_lesson(ui, 0.1);
  EXPECT_FALSE(ui.lesson.animating);
  EXPECT_EQ(ui.params, edited);
  // Closing mid-animation lands on the step's Params.
  ASSERT_TRUE(lesson_next(ui));
  advance_lesson(ui, 0.1);
  close_lesson(ui);
  EXPECT_FALSE(ui.lesson.open);
  EXPECT_EQ(ui.params, ui.lessons.lessons[0].steps[2].params);
  // The last step has no next.
  const std::size_t last = ui.lessons.lessons[0].steps.size() - 1;
  ASSERT_TRUE(open_lesson_step(ui, 0, last, false));
  EXPECT_FALSE(lesson_next(ui));
  EXPECT_FALSE(open_lesson_step(ui, 0, last + 1, false));
  EXPECT_FALSE(open_lesson_step(ui, ui.lessons.lessons.size(), 0, false));
}

// ─── Sessions ─────────────────────────────────────────────────────────────────────────────────

TEST(LessonSession, TheLessonPositionRoundTripsAndBadValuesAreOneLine) {
  Session session;
  session.lesson = SessionLesson{"why-softmax", 3};
  const smlab::Result<Session> loaded = parse_session(serialize_session(session));
  ASSERT_TRUE(loaded) << loaded.error().message;
  EXPECT_EQ(serialize_session(*loaded), serialize_session(session));
  EXPECT_TRUE(*loaded == session);
  Session without;
  const smlab::Result<Session> plain = parse_session(serialize_session(without));
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->lesson);
  for (const char* bad :
       {R"([])", R"("why-softmax")", R"({"name": "why-softmax"})", R"({"name": "why-softmax", "step": 0})",
        R"({"name": "why-softmax", "step": 51})", R"({"name": "why-softmax", "step": "3"})",
        R"({"name": "why-softmax", "step": 1.5})", R"({"name": "Bad Name", "step": 1})", R"({"name": "", "step": 1})",
        R"({"name": "x", "step": 1, "extra": true})"}) {
    const smlab::Result<Session> load = parse_session(std::string(R"({"version": 1, "lesson": )") + bad + "}");
    EXPECT_FALSE(load) << bad;
    EXPECT_TRUE(one_line(load.error().message)) << bad << " -> " << load.error().message;
    EXPECT_NE(load.error().message.find("lesson"), std::string::npos) << bad << " -> " << load.error().message;
  }
}

// ─── Headless renders ─────────────────────────────────────────────────────────────────────────

class LessonRender : public ::testing::Test {
 protected:
  void SetUp() override {
    ::unsetenv("DISPLAY");
    ASSERT_TRUE(i18n::load_catalogue(find_assets_dir()).ok());
    platform::OffscreenOptions options;
    options.width = 1600;
    options.height = 900;
    auto created = platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created);
  }

  Image render_step(App& app, std::size_t lesson, std::size_t step) {
    EXPECT_TRUE(open_lesson_step(app.ui(), lesson, step, false));
    app.evaluator().set_refine_limit(headless_refine_trials(app.ui().params.seq_len));
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();
    return surface_->capture();
  }

  // An App showing step 1 of the one lesson `lesson_json` (bound_lesson's), rendered.
  std::unique_ptr<App> app_on(const std::string& lesson_json) {
    AppOptions options;
    LessonLoad lesson = parse_lesson(lesson_json);
    EXPECT_TRUE(lesson.ok()) << lesson.error().message;
    if (!lesson.ok()) return nullptr;
    options.lessons.lessons.push_back(std::move(*lesson));
    auto app = std::make_unique<App>(*surface_, options);
    render_step(*app, 0, 0);
    return app;
  }

  std::unique_ptr<platform::Offscreen> surface_;
};

// The lesson panel draws the bound text (the number the plots draw) and redraws it as a slider moves.
TEST_F(LessonRender, ABoundNumberIsDrawnAndFollowsASlider) {
  const std::unique_ptr<App> shown =
      app_on(bound_lesson("The 3 gets {w} of the weight.", "3 得到 {w} 的权重。", weight_2));
  ASSERT_NE(shown, nullptr);
  App& app = *shown;
  EXPECT_EQ(app.ui().lesson_report.text, "The 3 gets 0.665 of the weight.");
  app.ui().params.temperature = 0.5;  // as the T slider sets it
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  EXPECT_EQ(app.ui().lesson_report.text, "The 3 gets 0.867 of the weight.");
}

// A held key changed another way than its (disabled) slider, a key press or a gesture as here, is
// put back at once, with a status line saying why, so the text's sentence stays what the plots
// show; a key the step does not hold keeps the user's value, and Close frees the held one.
TEST_F(LessonRender, AHeldSettingStaysWhereTheTextSaysAndCloseFreesIt) {
  const std::unique_ptr<App> shown =
      app_on(bound_lesson("At T = 1 the 3 gets {w}.", "T = 1 时 3 得到 {w}。", weight_2, R"("hold": ["temperature"])"));
  ASSERT_NE(shown, nullptr);
  App& app = *shown;
  EXPECT_EQ(app.ui().lesson_report.text, "At T = 1 the 3 gets 0.665.");
  app.ui().params.temperature = 0.5;
  app.ui().params.seed = 7;
  app.wait_for_snapshot();
  for (int frame = 0; frame < 3; ++frame) app.frame();
  EXPECT_EQ(app.ui().params.temperature, 1.0) << "the held T was not put back";
  EXPECT_EQ(app.ui().params.seed, 7u) << "a key the step does not hold was put back";
  EXPECT_EQ(app.ui().lesson_report.text, "At T = 1 the 3 gets 0.665.");
  EXPECT_NE(app.ui().status.find("temperature: held by this lesson step"), std::string::npos) << app.ui().status;
  EXPECT_FALSE(app.ui().status_is_error);
  // In Chinese the line names the slider as the column does, not by its --set name.
  app.ui().language = i18n::Language::Chinese;
  app.ui().params.temperature = 0.5;
  for (int frame = 0; frame < 3; ++frame) app.frame();
  EXPECT_EQ(app.ui().params.temperature, 1.0);
  EXPECT_EQ(app.ui().status.rfind("温度：", 0), 0u) << app.ui().status;
  app.ui().language = i18n::Language::English;
  close_lesson(app.ui());
  app.ui().params.temperature = 0.5;
  for (int frame = 0; frame < 3; ++frame) app.frame();
  EXPECT_EQ(app.ui().params.temperature, 0.5) << "T is still held after Close";
}

// d_k's slider has no label of its own (its text, "d_k = 64", names it): a held d_k put back is
// named by its key, in both languages.
TEST_F(LessonRender, AHeldKeyWhoseSliderHasNoLabelIsNamedByItsKey) {
  const std::unique_ptr<App> shown =
      app_on(bound_lesson("The 3 gets {w}.", "3 得到 {w}。", weight_2, R"("hold": ["d_k"])"));
  ASSERT_NE(shown, nullptr);
  App& app = *shown;
  const int held = app.ui().params.key_dim;
  for (const i18n::Language language : {i18n::Language::English, i18n::Language::Chinese}) {
    app.ui().language = language;
    app.ui().params.key_dim = held * 2;
    for (int frame = 0; frame < 3; ++frame) app.frame();
    EXPECT_EQ(app.ui().params.key_dim, held);
    EXPECT_EQ(app.ui().status.rfind("d_k", 0), 0u) << app.ui().status;
  }
  app.ui().language = i18n::Language::English;
}

// A bound number is underlined in the text; with the mouse on it, the plots ring the label that
// writes it (0.665 over the softmax's third bar) on the next frame, and the window draws that
// frame without waiting for another event; off it, nothing is ringed.
TEST_F(LessonRender, HoveringABoundNumberRingsTheLabelThatWritesIt) {
  const std::unique_ptr<App> shown =
      app_on(bound_lesson("The 3 gets {w} of the weight.", "3 得到 {w} 的权重。", weight_2));
  ASSERT_NE(shown, nullptr);
  App& app = *shown;
  ASSERT_EQ(app.ui().lesson_report.bound_numbers.size(), 1u);
  EXPECT_TRUE(app.ui().lesson_report.marks.empty());
  const auto [min, max] = app.ui().lesson_report.bound_numbers.front();
  ImGuiIO& io = ImGui::GetIO();
  io.MousePos = ImVec2(0.5f * (min.x + max.x), 0.5f * (min.y + max.y));
  app.frame();
  ASSERT_TRUE(app.ui().lesson_view.hovered_number);
  EXPECT_DOUBLE_EQ(app.ui().lesson_view.hovered_number->first,
                   std::exp(3.0) / (std::exp(1.0) + std::exp(2.0) + std::exp(3.0)));
  EXPECT_EQ(app.idle_wait_seconds(), 0.0) << "the marks would wait for the next event";
  app.frame();
  const std::vector<std::string>& marks = app.ui().lesson_report.marks;
  EXPECT_NE(std::find(marks.begin(), marks.end(), "normalizers/softmax: 0.665"), marks.end())
      << "marked: " << ::testing::PrintToString(marks);
  for (const std::string& mark : marks) EXPECT_EQ(mark.rfind("normalizers/", 0), 0u) << mark;
  io.MousePos = ImVec2(-1.0f, -1.0f);
  for (int frame = 0; frame < 2; ++frame) app.frame();
  EXPECT_TRUE(app.ui().lesson_report.marks.empty()) << ::testing::PrintToString(app.ui().lesson_report.marks);
  EXPECT_FALSE(app.ui().lesson_view.hovered_number);
}

TEST_F(LessonRender, EveryNamedPanelIsAPlotItsViewPlaces) {
  AppOptions options;
  options.params.heads = 8;  // every head map is drawn
  // The training lab's sentence maps too: a model of two layers of four heads (its lesson's).
  options.params.training.run.layers = 2;
  options.params.training.run.heads = 4;
  App app(*surface_, options);
  for (const ViewInfo& info : all_views()) {
    app.ui().view = info.view;
    app.ui().select_view_tab = true;
    app.wait_for_snapshot();
    for (int frame = 0; frame < 3; ++frame) app.frame();
    std::set<std::string> placed;
    for (const PlacedPlot& plot : app.ui().placed_plots) placed.insert(plot.name);
    for (const LessonPanel& panel : lesson_panels(info.view))
      for (std::string_view plot : panel.plots)
        EXPECT_TRUE(placed.count(std::string(info.name) + "/" + std::string(plot)))
            << info.name << " panel '" << panel.name << "' names plot '" << plot << "', which the view does not place";
  }
}

TEST_F(LessonRender, ChineseLessonTextHasAGlyphForEveryCharacter) {
  AppOptions options;
  options.language = i18n::Language::Chinese;
  options.lessons = shipped();
  App app(*surface_, options);
  ASSERT_TRUE(app.language_warning().empty()) << app.language_warning();
  render_step(app, 0, 0);
  const ImFont* font = nullptr;  // taken after the steps below: a step's tokens may rebuild the atlas
  auto check = [&](const std::string& text, const std::string& where) {
    for (const char* p = text.c_str(); *p != 0;) {
      unsigned int c = 0;
      p += ImTextCharFromUtf8(&c, p, nullptr);
      if (c == '\n') continue;
      EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(c)), nullptr)
          << where << ": no glyph for U+" << std::hex << c << " — it would show as '?'";
    }
  };
  for (std::size_t l = 0; l < options.lessons.lessons.size(); ++l)
    for (std::size_t k = 0; k < options.lessons.lessons[l].steps.size(); ++k) {
      ASSERT_TRUE(open_lesson_step(app.ui(), l, k, false));
      app.frame();
      app.frame();
      EXPECT_FALSE(app.ui().lesson_report.text_scrolls)
          << options.lessons.lessons[l].name << ":" << k + 1 << ": the Chinese text does not fit at 1600x900";
    }
  font = ImGui::GetIO().Fonts->Fonts[0];
  for (const Lesson& lesson : options.lessons.lessons) {
    check(lesson.title.chinese, lesson.name);
    check(lesson.title.english, lesson.name);
    for (std::size_t k = 0; k < lesson.steps.size(); ++k)
      for (const std::string* text : {&lesson.steps[k].title.chinese, &lesson.steps[k].text.chinese,
                                      &lesson.steps[k].title.english, &lesson.steps[k].text.english})
        check(*text, lesson.name + ":" + std::to_string(k + 1));
  }
  const i18n::Use language(app.language());  // the texts this App draws: Chinese
  ASSERT_EQ(i18n::language(), i18n::Language::Chinese);
  for (const char* key : {"lesson.previous", "lesson.next", "lesson.keys_hint", "lesson.not_available"})
    check(i18n::tr(key), key);
}

TEST_F(LessonRender, ArrowKeysAndClickerKeysStepAndEscapeLeaves) {
  AppOptions options;
  options.lessons = shipped();
  App app(*surface_, options);
  render_step(app, 0, 0);
  auto press = [&](int key) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[key] = true;
    app.frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[key] = false;
    app.frame();
  };
  press(GLFW_KEY_RIGHT);
  ASSERT_TRUE(app.ui().lesson.open);
  EXPECT_EQ(app.ui().lesson.open->step, 1u) << "Right arrow";
  press(GLFW_KEY_PAGE_DOWN);
  EXPECT_EQ(app.ui().lesson.open->step, 2u) << "PageDown (clicker)";
  press(GLFW_KEY_PAGE_UP);
  EXPECT_EQ(app.ui().lesson.open->step, 1u) << "PageUp (clicker)";
  press(GLFW_KEY_LEFT);
  EXPECT_EQ(app.ui().lesson.open->step, 0u) << "Left arrow";
  press(GLFW_KEY_LEFT);
  EXPECT_EQ(app.ui().lesson.open->step, 0u) << "no step before the first";
  for (int frame = 0; frame < 60; ++frame) app.frame();  // let the animation finish
  EXPECT_EQ(app.ui().params, options.lessons.lessons[0].steps[0].params);
  press(GLFW_KEY_ESCAPE);
  EXPECT_FALSE(app.ui().lesson.open) << "Escape leaves the lesson";
  press(GLFW_KEY_RIGHT);
  EXPECT_FALSE(app.ui().lesson.open);
}

// In presenter mode PageDown sometimes skipped steps and landed on a question already
// answered (homework 5→6 revealed, 4→8, 7→9 revealed). Cause: the lesson keys used ImGui's key
// repeat, so a press held past its 0.275 s delay (a clicker's button held a moment, or a key-up
// arriving late on a loaded machine, which presenter mode's large software-rendered plots made
// likely) stepped again every 0.05 s. A hold of any length must be one reveal or one step.
TEST_F(LessonRender, AHeldPageDownIsOneRevealOrOneStepInEveryMode) {
  AppOptions options;
  options.lessons = shipped();
  const auto homework = find_lesson(options.lessons, "homework");
  ASSERT_TRUE(homework);
  for (const bool presenter : {false, true}) {
    for (const std::size_t start : {3u, 4u, 6u}) {  // homework steps 4, 5, 7: predict steps
      App app(*surface_, options);
      app.ui().presenter = presenter;
      ASSERT_TRUE(open_lesson_step(app.ui(), *homework, start, false));
      app.wait_for_snapshot();
      app.frame();
      ASSERT_TRUE(app.ui().lesson.open);
      const LessonStep& step = options.lessons.lessons[*homework].steps[start];
      ASSERT_TRUE(step.predict) << "homework:" << start + 1 << " is a predict step";
      (void)commit_guess(app.ui(), std::nullopt);  // revealed, as after a first press
      // PageDown held for 1.5 s of offscreen frames (1/60 s each): past the repeat delay.
      ImGui::SetCurrentContext(surface_->imgui_context());
      ImGui::GetIO().KeysDown[GLFW_KEY_PAGE_DOWN] = true;
      for (int frame = 0; frame < 90; ++frame) app.frame();
      ImGui::SetCurrentContext(surface_->imgui_context());
      ImGui::GetIO().KeysDown[GLFW_KEY_PAGE_DOWN] = false;
      app.frame();
      ASSERT_TRUE(app.ui().lesson.open);
      EXPECT_EQ(app.ui().lesson.open->step, start + 1) << (presenter ? "presenter mode" : "normal mode")
                                                       << ": PageDown held 1.5 s on revealed homework:" << start + 1
                                                       << " went to step " << app.ui().lesson.open->step + 1;
      EXPECT_FALSE(app.ui().lesson.revealed) << "the next question is shown unanswered";
    }
  }
}

// ─── Command line ─────────────────────────────────────────────────────────────────────────────

class LessonCli : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = smlab::cli_test::fresh_test_dir("lesson-cli"); }
  void TearDown() override { fs::remove_all(dir_); }
  Outcome run(const std::vector<std::string>& args, const std::string& before = "env -u DISPLAY") const {
    return cli_test::run_program(SMLAB_BINARY, args, dir_, before);
  }
  void expect_one_line_error(const Outcome& r, int code, const std::string& needle) const {
    EXPECT_EQ(r.exit_code, code) << r.err;
    ASSERT_FALSE(r.err.empty());
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "more than one line:\n" << r.err;
    EXPECT_NE(r.err.find(needle), std::string::npos) << r.err;
  }
  fs::path dir_;
};

TEST_F(LessonCli, ListLessonsShowsNameStepCountAndTitle) {
  const Outcome r = run({"--list-lessons"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const Lesson& lesson : shipped().lessons) {
    const std::string line_start = lesson.name;
    const auto at = r.out.find(line_start + " ");
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    EXPECT_NE(line.find(std::to_string(lesson.steps.size()) + " steps"), std::string::npos) << line;
    EXPECT_NE(line.find(lesson.title.english), std::string::npos) << line;
  }
}

TEST_F(LessonCli, UnknownLessonOrStepExitsTwoWithOneLine) {
  expect_one_line_error(run({"--lesson", "nonesuch", "--screenshot", (dir_ / "a.png").string()}), 2,
                        "'nonesuch' is not a lesson: allowed why-softmax");
  const std::string count = std::to_string(shipped().lessons[*find_lesson(shipped(), "why-softmax")].steps.size());
  for (const char* step : {"why-softmax:0", "why-softmax:99", "why-softmax:two"})
    expect_one_line_error(run({"--lesson", step, "--screenshot", (dir_ / "a.png").string()}), 2,
                          "a step from 1 to " + count);
  expect_one_line_error(run({"--export-lesson", "nonesuch", dir_.string()}), 2, "'nonesuch' is not a lesson");
  const Outcome one_argument = run({"--export-lesson", "why-softmax"});
  EXPECT_EQ(one_argument.exit_code, 2) << one_argument.err;
  EXPECT_FALSE(fs::exists(dir_ / "a.png"));
}

// A step holds what its text describes (temperature:3: T = 10); a --set that moves a held key was
// dropped without a word (the window puts the step's value back). It is refused, naming the value;
// the same value, or a key the step leaves free, is taken.
TEST_F(LessonCli, ASetThatMovesAKeyTheStepHoldsExitsTwoNamingItsValue) {
  const LessonStep& step = shipped().lessons[*find_lesson(shipped(), "temperature")].steps[2];
  ASSERT_NE(std::find(step.held.begin(), step.held.end(), "temperature"), step.held.end());
  ASSERT_EQ(step.params.temperature, 10.0);
  expect_one_line_error(
      run({"--lesson", "temperature:3", "--set", "temperature=5", "--screenshot", (dir_ / "a.png").string()}), 2,
      "temperature=5 is not allowed here: lesson step temperature:3 holds temperature at 10");
  EXPECT_FALSE(fs::exists(dir_ / "a.png"));
  const Outcome same = run({"--lesson", "temperature:3", "--set", "temperature=10", "--set", "seed=3", "--size",
                            "640x480", "--screenshot", (dir_ / "b.png").string()});
  EXPECT_EQ(same.exit_code, 0) << same.err;
  EXPECT_TRUE(fs::exists(dir_ / "b.png"));
}

std::string as_html(std::string_view text) {
  std::string out;
  plot::append_escaped(out, text);
  return out;
}

// The questions handout: every predict step of the lesson, its question, choices or range, in the
// --lang language, and nothing the reveal shows (its after-text); refusals write nothing.
TEST_F(LessonCli, TheQuestionsHandoutHoldsEveryQuestionAndNoReveal) {
  for (const char* name : {"scaling", "homework"}) {
    const Lesson& lesson = shipped().lessons[*find_lesson(shipped(), name)];
    for (const auto& [code, language] :
         {std::pair{"en", i18n::Language::English}, std::pair{"zh-CN", i18n::Language::Chinese}}) {
      SCOPED_TRACE(std::string(name) + " " + code);
      const fs::path file = dir_ / (std::string(name) + "-" + code + ".html");
      const Outcome r = run({"--export-questions", name, file.string(), "--lang", code});
      ASSERT_EQ(r.exit_code, 0) << r.err;
      EXPECT_EQ(r.out, file.string() + "\n");
      const std::string html = read_all(file);
      EXPECT_NE(html.find(std::string("<html lang=\"") + code + "\">"), std::string::npos);
      EXPECT_NE(html.find(as_html(lesson.title.in(language))), std::string::npos);
      std::size_t questions = 0, after = 0;
      for (const LessonStep& step : lesson.steps) {
        if (!step.predict) continue;
        ++questions;
        EXPECT_NE(html.find(as_html(step.predict->question.in(language))), std::string::npos)
            << step.predict->question.english;
        for (double choice : step.predict->choices)
          EXPECT_NE(html.find("\u2610 " + predict_number(choice) + "<"), std::string::npos) << choice;
        if (step.predict->after) {
          ++after;
          EXPECT_EQ(html.find(as_html(step.predict->after->in(language))), std::string::npos)
              << "the reveal's text is written";
        }
      }
      EXPECT_GE(questions, 2u);
      std::size_t items = 0;
      for (std::size_t at = html.find("<p class=\"question\">"); at != std::string::npos;
           at = html.find("<p class=\"question\">", at + 1))
        ++items;
      EXPECT_EQ(items, questions);
      if (std::string(name) == "homework") {
        EXPECT_GT(after, 0u) << "no step's reveal text was checked";
      }
    }
  }
  const fs::path kept = dir_ / "kept.html";
  std::ofstream(kept) << "precious";
  expect_one_line_error(run({"--export-questions", "scaling", kept.string()}), 3, "already exists");
  EXPECT_EQ(read_all(kept), "precious");
  expect_one_line_error(run({"--export-questions", "why-softmax", (dir_ / "none.html").string()}), 2,
                        "'why-softmax' asks no questions: the lessons that do are scaling");
  expect_one_line_error(run({"--export-questions", "scaling", (dir_ / "q.pdf").string()}), 2, "must end in .html");
  expect_one_line_error(run({"--export-questions", "scaling", (dir_ / "set.html").string(), "--set", "d_k=8"}), 2,
                        "--set does not apply");
  for (const char* refused : {"none.html", "q.pdf", "set.html"}) EXPECT_FALSE(fs::exists(dir_ / refused)) << refused;
}

TEST_F(LessonCli, ScreenshotOfAStepMatchesTheExportedStep) {
  const fs::path shot = dir_ / "step.png", exported = dir_ / "export";
  const Outcome r = run({"--lesson", "temperature:3", "--screenshot", shot.string(), "--size", "800x450"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const Outcome e = run({"--export-lesson", "temperature", exported.string(), "--size", "800x450"});
  ASSERT_EQ(e.exit_code, 0) << e.err;
  const std::size_t steps = shipped().lessons[*find_lesson(shipped(), "temperature")].steps.size();
  for (std::size_t k = 1; k <= steps; ++k) {
    char name[64];
    std::snprintf(name, sizeof name, "temperature-%02zu.png", k);
    EXPECT_TRUE(fs::exists(exported / name)) << name;
    EXPECT_NE(e.out.find(name), std::string::npos) << e.out;
  }
  EXPECT_FALSE(fs::exists(exported / ("temperature-" + std::to_string(steps + 1) + ".png")));
  int w1 = 0, h1 = 0, w2 = 0, h2 = 0, channels = 0;
  unsigned char* a = stbi_load(shot.string().c_str(), &w1, &h1, &channels, 4);
  unsigned char* b = stbi_load((exported / "temperature-03.png").string().c_str(), &w2, &h2, &channels, 4);
  ASSERT_NE(a, nullptr);
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(w1, 800);
  EXPECT_EQ(h1, 450);
  ASSERT_EQ(w1 * h1, w2 * h2);
  std::size_t differing = 0;
  for (int i = 0; i < w1 * h1 * 4; i += 4) differing += std::memcmp(a + i, b + i, 4) != 0;
  stbi_image_free(a);
  stbi_image_free(b);
  EXPECT_LT(static_cast<double>(differing) / (w1 * h1), 0.01)
      << "--lesson temperature:3 and step 3 of the export differ";
}

TEST_F(LessonCli, ExportNeverOverwritesAndWritesNothingWhenRefused) {
  const fs::path out = dir_ / "out";
  fs::create_directories(out);
  std::ofstream(out / "saturation-04.png") << "precious";
  const Outcome refused = run({"--export-lesson", "saturation", out.string(), "--size", "640x360"});
  expect_one_line_error(refused, 3, "--overwrite");
  EXPECT_EQ(read_all(out / "saturation-04.png"), "precious");
  EXPECT_FALSE(fs::exists(out / "saturation-01.png")) << "a refused export wrote a file";
  const Outcome allowed = run({"--export-lesson", "saturation", out.string(), "--size", "640x360", "--overwrite"});
  ASSERT_EQ(allowed.exit_code, 0) << allowed.err;
  EXPECT_EQ(read_all(out / "saturation-04.png").substr(1, 3), "PNG");
  for (const auto& entry : fs::directory_iterator(out))
    EXPECT_EQ(entry.path().extension(), ".png") << "left behind: " << entry.path();
  // A parent that is a file: exit 3.
  std::ofstream(dir_ / "file") << "x";
  expect_one_line_error(run({"--export-lesson", "saturation", (dir_ / "file" / "sub").string()}), 3, "file");
}

TEST_F(LessonCli, ABrokenLessonFileIsReportedAndTheOthersStillWork) {
  const fs::path assets = dir_ / "assets";
  fs::create_directories(assets / "lessons");
  fs::copy_file(lessons_dir() / "03-temperature.json", assets / "lessons" / "03-temperature.json");
  std::ofstream(assets / "lessons" / "99-broken.json") << lesson_json(R"({"temperature": 1000})");
  const std::string env = "env -u DISPLAY SOFTMAX_LAB_ASSETS=" + cli_test::shell_quote(assets.string());
  const Outcome listed = run({"--list-lessons"}, env);
  expect_one_line_error(listed, 3, "99-broken.json");
  EXPECT_NE(listed.err.find("step 2 key 'temperature'"), std::string::npos) << listed.err;
  EXPECT_NE(listed.out.find("temperature"), std::string::npos) << listed.out;
  const Outcome shot =
      run({"--lesson", "temperature:2", "--screenshot", (dir_ / "t.png").string(), "--size", "640x360"}, env);
  EXPECT_EQ(shot.exit_code, 0) << shot.err;
  expect_one_line_error(run({"--lesson", "demo", "--screenshot", (dir_ / "d.png").string()}, env), 2,
                        "allowed temperature");
}

}  // namespace
}  // namespace smlab::app
