// Every lesson step as the class sees it. Each step of each lesson is rendered at the two
// classroom sizes, 1280×720 and 1024×768, with the projector theme at font 1.5, in English and
// Chinese, in the lesson view and in presenter mode, and checked from the frame's own layout
// report (plot::LayoutReport) and the plot descriptions it drew:
//   - the step's panels are all drawn, whole and inside the window: nothing is below the fold;
//   - the step's text fits its box with its controls (nothing scrolls or is cut), inside the window,
//     and the box covers no plot (a caption beside or under the figure, never over it);
//   - each plot keeps a readable data area (at least 40 % of the panel and 120 px each way), its
//     legend and labels cover no data mark, no two labels overlap and the layout gave nothing up;
//   - every number the text quotes with a decimal point or an exponent ("0.72", "2e-4") is a value
//     drawn on the shown panels (PlotRecord::drawn_values) or written on them (titles, ticks,
//     legends, labels, the notes the step shows), within the rounding the text shows (0.30: ±0.005).
//     A drawn value counts only where one pixel of its axis spans at most one unit of the quoted
//     last digit (PlotRecord::drawn_resolution): a quoted 0.006 is not read off a bar on a 0-to-1
//     axis 200 px tall, where a pixel is 0.005; the plot has to write it.
// A failure names the lesson, step, size, language and mode, and what is wrong.
// The full sweep is labelled slow (ctest -L slow: the Release pass only); LessonScreens.Sampled
// renders one step per lesson, rotating through the sizes, languages and modes, in every pass.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "../core/training_reference_file.hpp"
#include "frame/app.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lessons.hpp"
#include "lessons/quoted_numbers.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "platform/offscreen.hpp"
#include "plot/plot.hpp"
#include "smlab/params.hpp"
#include "state/presets.hpp"

namespace smlab::app {
namespace {

struct Size {
  int width, height;
};
constexpr Size kClassroomSizes[] = {{1280, 720}, {1024, 768}};

// The measured numbers of a text: those written with a decimal point or an exponent.
std::vector<QuotedNumber> measured_numbers(std::string_view text) {
  std::vector<QuotedNumber> measured;
  for (QuotedNumber& quoted : quoted_numbers(text))
    if (quoted.measured) measured.push_back(std::move(quoted));
  return measured;
}

// The text without what it quotes between “ and ”: a common explanation's claim that the step shows
// wrong beside its measurement ("says “0.8”; measured here: 0.40"). Those numbers are not drawn.
std::string without_quoted_claims(std::string_view text) {
  constexpr std::string_view open = "\xE2\x80\x9C", close = "\xE2\x80\x9D";  // “ ”
  std::string kept;
  std::size_t at = 0;
  while (at < text.size()) {
    const std::size_t start = text.find(open, at);
    if (start == std::string_view::npos) break;
    const std::size_t end = text.find(close, start + open.size());
    if (end == std::string_view::npos) break;
    kept += text.substr(at, start - at);
    at = end + close.size();
  }
  kept += text.substr(std::min(at, text.size()));
  return kept;
}

TEST(QuotedNumbers, ReadsDecimalsExponentsAndSignsButNotNames) {
  const std::string text = "weights 0.30, 0.33 at T = 10; −0.341 and 2e-4; fp16 and e4m3 stay names; 1.2e24; 3.4·10³⁸";
  const std::vector<QuotedNumber> numbers = measured_numbers(text);
  std::vector<std::string> texts;
  for (const QuotedNumber& quoted : numbers) texts.push_back(quoted.text);
  ASSERT_EQ(texts, (std::vector<std::string>{"0.30", "0.33",
                                             "\xE2\x88\x92"
                                             "0.341",
                                             "2e-4", "1.2e24", "3.4·10³⁸"}))
      << text;
  EXPECT_DOUBLE_EQ(numbers[0].value, 0.3);
  EXPECT_NEAR(numbers[0].tolerance, 0.005, 1e-9);
  EXPECT_DOUBLE_EQ(numbers[2].value, -0.341);
  EXPECT_NEAR(numbers[3].value, 2e-4, 1e-18);
  EXPECT_NEAR(numbers[3].tolerance, 0.5e-4, 1e-12);
  EXPECT_NEAR(numbers[4].value, 1.2e24, 1e12);
  EXPECT_NEAR(numbers[4].tolerance, 0.05e24, 1e15);
  EXPECT_NEAR(numbers[5].value, 3.4e38, 1e30);
  EXPECT_NEAR(numbers[5].tolerance, 0.05e38, 1e30);
  EXPECT_TRUE(matches(numbers[0], 0.3049));
  EXPECT_FALSE(matches(numbers[0], 0.3051));
  EXPECT_EQ(measured_numbers("T = 10 with 3 keys").size(), 0u);
  EXPECT_EQ(quoted_numbers("T = 10 with 3 keys").size(), 2u);
}

// Numbers lesson texts quote that no panel of their step draws, where the fix is the text's (the
// lesson texts' own revision owns them): lesson, quoted number, why. Each entry must
// still apply (LessonScreens.AwaitingTextFixesStillApply): a fixed text takes its entry out.
struct AwaitingTextFix {
  std::string_view lesson, quoted, why;
};
constexpr std::array<AwaitingTextFix, 0> kAwaitingTextFixes{};  // none: every quoted number is drawn

// Whether `list` (kAwaitingTextFixes) names this lesson's quoted number.
template <std::size_t N>
bool listed(const std::array<AwaitingTextFix, N>& list, const Lesson& lesson, std::string_view quoted) {
  return std::any_of(list.begin(), list.end(),
                     [&](const AwaitingTextFix& fix) { return fix.lesson == lesson.name && fix.quoted == quoted; });
}

// The numbers watch-attention-learn quotes from the shipped training reference (medians,
// quartiles and counts of 32 seeds, bound to the file by TrainingReference.TheLessonQuotesTheShippedNumbers):
// they are not the one run on the screen, so no panel draws them.
bool bound_to_reference(const Lesson& lesson, std::size_t step, std::string_view quoted) {
  static const std::vector<std::vector<std::string>> quotes = [] {
    std::ifstream in(find_assets_dir() / "training-reference.json", std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    const Result<TrainingReference> reference = training_reference_file::read(text.str());
    EXPECT_TRUE(reference.ok()) << (reference.ok() ? "" : reference.error().message);
    return reference.ok() ? reference_lesson_quotes(*reference) : std::vector<std::vector<std::string>>{};
  }();
  if (lesson.name != "watch-attention-learn" || step >= quotes.size()) return false;
  return std::any_of(quotes[step].begin(), quotes[step].end(), [&](const std::string& number) {
    const std::vector<QuotedNumber> parts = quoted_numbers(number);
    return std::any_of(parts.begin(), parts.end(), [&](const QuotedNumber& part) { return part.text == quoted; });
  });
}

// [the fixture] One App on one offscreen surface for all renders: a look is a size, a language
// and a mode.
struct Look {
  Size size;
  i18n::Language language;
  bool presenter;
};

std::string describe(const Lesson& lesson, std::size_t step, const Look& look) {
  std::ostringstream out;
  out << lesson.name << ":" << step + 1 << " at " << look.size.width << "x" << look.size.height << " projector 1.5 "
      << (look.language == i18n::Language::Chinese ? "zh-CN" : "en")
      << (look.presenter ? " presenter" : " lesson view");
  return out.str();
}

bool boxes_overlap(ImVec2 a0, ImVec2 a1, ImVec2 b0, ImVec2 b1, float tolerance = 1.0f) {
  return std::min(a1.x, b1.x) - std::max(a0.x, b0.x) > tolerance &&
         std::min(a1.y, b1.y) - std::max(a0.y, b0.y) > tolerance;
}

// SMLAB_SCREEN_LESSONS=name,name limits the full sweeps to those lessons (a text change checked in
// minutes); unset, every lesson.
bool chosen(const Lesson& lesson) {
  const char* names = std::getenv("SMLAB_SCREEN_LESSONS");
  if (names == nullptr || *names == '\0') return true;
  const std::string list = std::string(",") + names + ",";
  return list.find("," + lesson.name + ",") != std::string::npos;
}

class LessonScreens : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ::unsetenv("DISPLAY");
    platform::OffscreenOptions options;
    options.width = 1280;
    options.height = 720;
    auto created = platform::Offscreen::create(options);
    ASSERT_TRUE(created) << created.error().message;
    surface_ = std::move(*created).release();
    AppOptions app_options;
    app_options.lessons = load_lessons(find_assets_dir() / "lessons");
    app_options.theme = Theme::projector;
    app_options.font_scale = 1.5f;
    app_ = new App(*surface_, app_options);
    app_->ui().record_layout = true;
  }
  static void TearDownTestSuite() {
    delete app_;
    delete surface_;
    app_ = nullptr;
    surface_ = nullptr;
  }

  // Renders `step` of `lesson` in `look` and returns its problems, one line each.
  // Opens `step` of `lesson` unrevealed in `look` and draws it as a headless render shows it.
  static void render_step(std::size_t lesson_index, std::size_t step_index, const Look& look) {
    UiState& ui = app_->ui();
    ui.theme = Theme::projector;
    ui.font_scale = 1.5f;
    ui.language = look.language;
    ui.presenter = look.presenter;
    EXPECT_TRUE(surface_->resize(look.size.width, look.size.height).ok());
    EXPECT_TRUE(open_lesson_step(ui, lesson_index, step_index, false));
    ui.select_view_tab = true;
    // As a headless render shows it: the Monte Carlo sweeps refined as --screenshot refines them.
    app_->evaluator().set_refine_limit(headless_refine_trials(ui.params.seq_len));
    for (int frame = 0; frame < 3; ++frame) {
      app_->frame();
      app_->wait_for_snapshot();
    }
    app_->frame();
  }

  static std::vector<std::string> check_step(std::size_t lesson_index, std::size_t step_index, const Look& look) {
    UiState& ui = app_->ui();
    const Lesson& lesson = ui.lessons.lessons[lesson_index];
    const LessonStep& step = lesson.steps[step_index];
    render_step(lesson_index, step_index, look);
    std::vector<std::string> problems = check_frame(lesson, step, look, describe(lesson, step_index, look) + ": ");
    // A predict step once revealed: the answer's lines in place of the question, the covered panel shown.
    if (step.predict) {
      EXPECT_TRUE(commit_guess(ui, std::nullopt).ok());
      for (int frame = 0; frame < 2; ++frame) app_->frame();
      for (std::string& found : check_frame(lesson, step, look, describe(lesson, step_index, look) + " revealed: "))
        problems.push_back(std::move(found));
    }
    return problems;
  }

  // The problems of the frame just drawn of `step` in `look`, each prefixed with `where`.
  static std::vector<std::string> check_frame(const Lesson& lesson, const LessonStep& step, const Look& look,
                                              const std::string& where) {
    const UiState& ui = app_->ui();
    std::vector<std::string> problems;
    const auto problem = [&](const std::string& what) { problems.push_back(where + what); };

    // The text block: laid out, whole, inside the window, over no plot.
    const LessonReport::TextBox& box = ui.lesson_report.text_box;
    const ImVec2 display(static_cast<float>(look.size.width), static_cast<float>(look.size.height));
    if (!box.placed) problem("the step's text was not laid out");
    if (!box.fits || ui.lesson_report.text_scrolls) problem("the step's text does not fit its box (it scrolls)");
    // The text as drawn, its bound numbers ({NAME}) filled in from the Snapshot the plots draw.
    if (ui.lesson_report.text.empty()) problem("the step's text was not drawn");
    const auto ellipses = [](std::string_view text) {
      std::size_t count = 0;
      for (std::size_t at = text.find("…"); at != std::string_view::npos; at = text.find("…", at + 1)) ++count;
      return count;
    };
    if (ui.lesson_report.text.find('{') != std::string::npos ||
        ellipses(ui.lesson_report.text) > ellipses(step.text.in(look.language)))
      problem("a bound number is not filled in (\"…\" or {NAME}): '" + ui.lesson_report.text.substr(0, 120) + "'");
    if (box.min.x < -0.5f || box.min.y < -0.5f || box.max.x > display.x + 0.5f || box.max.y > display.y + 0.5f)
      problem("the text box runs off the window");

    // The step's panels: every plot drawn, whole, in the window, under no text.
    for (std::string_view name : step_plots(step)) {
      const std::string full = std::string(view_info(step.view).name) + "/" + std::string(name);
      const auto placed = std::find_if(ui.placed_plots.begin(), ui.placed_plots.end(),
                                       [&](const PlacedPlot& plot) { return plot.name == full; });
      if (placed == ui.placed_plots.end()) {
        problem("panel " + full + " is not drawn");
        continue;
      }
      if (placed->min.x < -0.5f || placed->min.y < -0.5f || placed->max.x > display.x + 0.5f ||
          placed->max.y > display.y + 0.5f)
        problem("panel " + full + " is off screen (below the fold or cut)");
      if (box.placed && boxes_overlap(placed->min, placed->max, box.min, box.max))
        problem("the step's text lies over panel " + full);
    }
    // Only the step's panels (and a lesson shows no others).
    if (ui.placed_plots.size() != step_plots(step).size())
      problem(std::to_string(ui.placed_plots.size()) + " plots drawn for the step's " +
              std::to_string(step_plots(step).size()));

    // Each plot readable.
    struct Shown {
      double value, resolution;  // data units per pixel where it is drawn; 0: written as text
    };
    std::vector<Shown> drawn;
    std::vector<std::string> written;
    for (const plot::PlotRecord& record : ui.layout_report.plots) {
      const std::string at = "plot " + record.id + ": ";
      const float width = record.x1 - record.x0, height = record.y1 - record.y0;
      if (!record.has_data_area) {
        problem(at + "no data area");
      } else {
        // A map's colour bar is part of its data graphic (the key to every cell), as plot::fit_plot counts it.
        const float data_right = record.colorbar ? std::max(record.data_x1, record.colorbar->x1) : record.data_x1;
        const float data_width = data_right - record.data_x0, data_height = record.data_y1 - record.data_y0;
        if (data_width < 119.5f || data_height < 119.5f || data_width * data_height < 0.4f * width * height)
          problem(at + "data area " + std::to_string(static_cast<int>(data_width)) + "x" +
                  std::to_string(static_cast<int>(data_height)) + " px in a panel of " +
                  std::to_string(static_cast<int>(width)) + "x" + std::to_string(static_cast<int>(height)) +
                  " (at least 120 px each way and 40 % of the panel)");
      }
      for (const std::string& gave_up : record.problems) problem(at + gave_up);
      for (const auto& [a, b] : plot::overlapping_texts(record.texts))
        problem(at + "labels overlap: \"" + record.texts[a].text + "\" and \"" + record.texts[b].text + "\"");
      for (const std::string& covering : plot::covering_data(record, true)) problem(at + covering);
      for (std::size_t k = 0; k < record.drawn_values.size(); ++k)
        drawn.push_back(
            {record.drawn_values[k], k < record.drawn_resolution.size() ? record.drawn_resolution[k] : 0.0});
      for (const plot::PlacedText& text : record.texts) written.push_back(text.text);
    }
    if (step_shows_notes(step))
      for (const std::string& note : ui.lesson_report.notes) written.push_back(note);

    // Every measured number the text quotes is on screen. A value the step itself sets (its
    // Params: the scores 2.0, 2.1, 2.2, T = 0.5) is the input the class watched being set, not a
    // result to read off a plot.
    std::vector<Shown> shown = drawn;
    for (const std::string& text : written)
      for (const QuotedNumber& quoted : quoted_numbers(text)) shown.push_back({quoted.value, 0.0});
    for (const ParamKey& key : param_keys())
      if (const std::optional<std::string> value = get_param(step.params, key.name))
        for (const QuotedNumber& quoted : quoted_numbers(*value)) shown.push_back({quoted.value, 0.0});
    // Once revealed, the answer's lines too, where they quote a number the step claims as measured
    // ("~" claims: 0.644 for a top-p bar, 1.68 for the unscaled map's mean entropy): those are read
    // off the panels. Their worked arithmetic (20.09 / 30.19) is the student's, not the plots'.
    std::vector<QuotedNumber> quoted_here = measured_numbers(without_quoted_claims(ui.lesson_report.text));
    if (step.predict && step.predict->after && ui.lesson.revealed)
      for (QuotedNumber& quoted : measured_numbers(step.predict->after->in(look.language)))
        if (std::any_of(step.claims.begin(), step.claims.end(), [&](const LessonClaim& claim) {
              return claim.op == "~" && !claim.than && claim.left.quantity != "homework_answer" &&
                     matches(quoted, claim.value);
            }))
          quoted_here.push_back(std::move(quoted));
    for (const QuotedNumber& quoted : quoted_here) {
      const auto readable = [&](const Shown& at) {
        return matches(quoted, at.value) && at.resolution <= 2.0 * quoted.tolerance;
      };
      const auto drawn_coarsely = [&](const Shown& at) { return matches(quoted, at.value); };
      if (std::any_of(shown.begin(), shown.end(), readable) || listed(kAwaitingTextFixes, lesson, quoted.text) ||
          bound_to_reference(lesson, static_cast<std::size_t>(&step - lesson.steps.data()), quoted.text))
        continue;
      // A number read off a curve, an arrow or an unlabelled bar to fewer digits than quoted is not
      // shown: the panels write such numbers (bar values, annotations at the point).
      if (std::any_of(shown.begin(), shown.end(), drawn_coarsely)) {
        problem("the text quotes " + quoted.text + ", drawn too coarsely to read it (no panel writes it)");
      } else {
        problem("the text quotes " + quoted.text + ", which no shown panel draws");
      }
    }
    return problems;
  }

  // Every step in all eight looks, the looks inside the step: a step's numbers (lesson 13's
  // trainings above all) are evaluated once and drawn eight times, where a sweep per look
  // evaluated every step again in each.
  static void check_all() {
    std::vector<std::string> problems;
    UiState& ui = app_->ui();
    for (std::size_t lesson = 0; lesson < ui.lessons.lessons.size(); ++lesson) {
      if (!chosen(ui.lessons.lessons[lesson])) continue;
      for (std::size_t step = 0; step < ui.lessons.lessons[lesson].steps.size(); ++step)
        for (const Size size : kClassroomSizes)
          for (const i18n::Language language : {i18n::Language::English, i18n::Language::Chinese})
            for (const bool presenter : {false, true})
              for (std::string& found : check_step(lesson, step, {size, language, presenter}))
                problems.push_back(std::move(found));
    }
    close_lesson(ui);
    ui.presenter = false;
    report(problems);
  }

  static void report(const std::vector<std::string>& problems) {
    std::string text;
    for (std::size_t k = 0; k < problems.size() && k < 120; ++k) text += problems[k] + "\n";
    EXPECT_TRUE(problems.empty()) << problems.size() << " problems:\n" << text;
  }

  static platform::Offscreen* surface_;
  static App* app_;
};

platform::Offscreen* LessonScreens::surface_ = nullptr;
App* LessonScreens::app_ = nullptr;

// Each awaiting entry still names a number its lesson quotes (in both languages): a revised text
// that no longer quotes it takes the entry out of the list, so no exemption outlives its reason.
TEST(LessonScreensList, EveryAwaitingTextFixStillApplies) {
  const LessonList lessons = load_lessons(find_assets_dir() / "lessons");
  ASSERT_FALSE(lessons.error) << lessons.error->message;
  std::vector<AwaitingTextFix> entries(std::begin(kAwaitingTextFixes), std::end(kAwaitingTextFixes));
  for (const AwaitingTextFix& fix : entries) {
    const auto index = find_lesson(lessons, fix.lesson);
    ASSERT_TRUE(index.has_value()) << fix.lesson;
    bool quoted = false;
    for (const LessonStep& step : lessons.lessons[*index].steps)
      for (const QuotedNumber& number : quoted_numbers(step.text.english)) quoted |= number.text == fix.quoted;
    EXPECT_TRUE(quoted) << fix.lesson << " no longer quotes " << fix.quoted << " (" << fix.why
                        << "): take it out of its list";
  }
}

// [No answer before the reveal] A predict step rendered unrevealed writes nothing that gives its
// answer away: no text drawn on it (the lesson text, the question, every label, title, legend and
// note of the panels not covered) holds a number that, typed as the guess, would count as close to
// the answer (close_within: the precision the question asks; for choices, the digits the choices are
// written to), nor its negation (log s_0 = −0.417 gives L = 0.417), its complement 1 − x, or, for an
// angle written in degrees, its cosine (θ = 16.3° gives cos θ = 0.960). A number the step sets (its
// scores, T) is the exercise's input, not its answer. The choices themselves are drawn by the lesson
// panel and the presenter's cover card, which are not read here.
struct LeakCheck {
  std::string where, text;
};

// The numbers of `text` that give `answer` away within `margin`, each with the form that does.
std::vector<std::string> leaks_of(std::string_view text, double answer, double margin,
                                  const std::vector<double>& inputs) {
  std::vector<std::string> found;
  constexpr std::string_view degree = "\xC2\xB0";
  for (const QuotedNumber& quoted : quoted_numbers(text)) {
    const bool input = std::any_of(inputs.begin(), inputs.end(), [&](double value) { return matches(quoted, value); });
    if (input) continue;
    const auto at = text.find(quoted.text);
    const bool angle = at != std::string_view::npos && text.substr(at + quoted.text.size(), degree.size()) == degree;
    const auto close = [&](double form) { return std::abs(form - answer) <= margin; };
    if (close(quoted.value)) found.push_back(quoted.text + " (the answer)");
    if (close(-quoted.value)) found.push_back(quoted.text + " (its negation)");
    if (close(1.0 - quoted.value)) found.push_back(quoted.text + " (1 minus it)");
    if (angle && close(std::cos(quoted.value * 3.14159265358979323846 / 180.0)))
      found.push_back(quoted.text + "° (its cosine)");
  }
  return found;
}

TEST(QuotedNumbers, AQuotedClaimIsNotANumberTheScreenMustDraw) {
  const std::string text =
      "a table says \xE2\x80\x9C"
      "0.8\xE2\x80\x9D; measured here: 0.40 and \xE2\x80\x9C"
      "1.64\xC3\x97\xE2\x80\x9D";
  const std::vector<QuotedNumber> numbers = measured_numbers(without_quoted_claims(text));
  ASSERT_EQ(numbers.size(), 1u) << without_quoted_claims(text);
  EXPECT_EQ(numbers.front().text, "0.40");
  EXPECT_EQ(without_quoted_claims("no quotes 1.5"), "no quotes 1.5");
  EXPECT_EQ(measured_numbers(without_quoted_claims("an open \xE2\x80\x9C"
                                                   "2.5 never closed"))
                .size(),
            1u);
}

TEST(AnswerLeaks, FindsTheAnswerItsNegationComplementAndCosine) {
  EXPECT_EQ(leaks_of("log s_0 = \xE2\x88\x92"
                     "0.417",
                     0.41703, 0.0005, {})
                .size(),
            1u);
  EXPECT_EQ(leaks_of("k0  \xCE\xB8=16.3\xC2\xB0", 0.96, 0.0005, {}).size(), 1u);
  EXPECT_EQ(leaks_of("s = 0.583", 0.417, 0.0005, {}).size(), 1u);
  EXPECT_EQ(leaks_of("loss 16", 16.0, 0.5, {}).size(), 1u);
  EXPECT_TRUE(leaks_of("about 0.42 or 0.4", 0.41703, 0.0005, {}).empty()) << "coarser than asked is no answer";
  EXPECT_TRUE(leaks_of("scores 0, 1000", -1000.0, 0.5, {0.0, 1000.0}).empty()) << "the inputs are exempt";
  EXPECT_TRUE(leaks_of("\xCE\xB8=16.3", 0.96, 0.0005, {}).empty()) << "no degree sign: not an angle";
}

TEST_F(LessonScreens, NoPredictStepWritesItsAnswerBeforeTheReveal) {
  std::vector<std::string> problems;
  UiState& ui = app_->ui();
  const Look looks[] = {{{1280, 720}, i18n::Language::English, false},
                        {{1280, 720}, i18n::Language::Chinese, false},
                        {{1024, 768}, i18n::Language::English, true},
                        {{1024, 768}, i18n::Language::Chinese, true}};
  int checked = 0;
  for (std::size_t lesson_index = 0; lesson_index < ui.lessons.lessons.size(); ++lesson_index) {
    const Lesson& lesson = ui.lessons.lessons[lesson_index];
    for (std::size_t step_index = 0; step_index < lesson.steps.size(); ++step_index) {
      const LessonStep& step = lesson.steps[step_index];
      if (!step.predict) continue;
      const LessonPredict& predict = *step.predict;
      std::vector<double> inputs;
      for (const ParamKey& key : param_keys())
        if (const std::optional<std::string> value = get_param(step.params, key.name))
          for (const QuotedNumber& quoted : quoted_numbers(*value)) inputs.push_back(quoted.value);
      std::vector<std::string> hidden;
      for (std::string_view plot : panel_entry_plots(step.view, predict.hides))
        hidden.push_back(std::string(view_info(step.view).name) + "/" + std::string(plot));
      for (const Look& look : looks) {
        render_step(lesson_index, step_index, look);
        const std::string where = describe(lesson, step_index, look) + " unrevealed: ";
        ASSERT_NE(app_->latest_snapshot(), nullptr);
        const Result<PredictionReveal> reveal = reveal_prediction(predict, *app_->latest_snapshot(), std::nullopt);
        ASSERT_TRUE(reveal.ok()) << where << reveal.error().message;
        double margin = close_within(predict.precision, reveal->answer);
        if (!predict.choices.empty()) {
          margin = 0.5;
          for (double choice : predict.choices)
            for (const QuotedNumber& written : quoted_numbers(predict_number(choice)))
              margin = std::min(margin, written.tolerance);
        }
        std::vector<LeakCheck> texts{{"the step's text", ui.lesson_report.text},
                                     {"the question", predict.question.in(look.language)}};
        for (const std::string& note : ui.lesson_report.notes) texts.push_back({"a note", note});
        for (const plot::PlotRecord& record : ui.layout_report.plots) {
          const bool covered = std::find(hidden.begin(), hidden.end(), record.id) != hidden.end();
          if (covered) continue;
          for (const plot::PlacedText& text : record.texts) texts.push_back({"plot " + record.id, text.text});
        }
        for (const std::string& plot : hidden)
          if (std::none_of(ui.placed_plots.begin(), ui.placed_plots.end(),
                           [&](const PlacedPlot& placed) { return placed.name == plot; }))
            problems.push_back(where + "the covered plot " + plot + " is not placed (its cover goes nowhere)");
        for (const LeakCheck& text : texts)
          for (const std::string& leak : leaks_of(text.text, reveal->answer, margin, inputs))
            problems.push_back(where + text.where + " writes " + leak + " for the answer " +
                               predict_answer(predict.precision, reveal->answer) + ": \"" + text.text + "\"");
        ++checked;
      }
    }
  }
  close_lesson(ui);
  ui.presenter = false;
  EXPECT_GE(checked, 40) << "every predict step in every look";
  report(problems);
}

// [Lessons refer to what is there] A lesson text that points somewhere on the screen ("each plot to
// the right", "the distribution on the left", "(next panel)", "the lab's notes", "the note under the
// plots", "further down in the lab") is checked against the layout the step draws, in each look:
// the lesson layout puts the text beside or under the plots and the plots in one to n columns by
// size and mode, so a side named in the text has to hold in every one of them. A reference:
//   - to a side of the plots (plots to the right/left): every plot lies on that side of the text;
//   - to a side of a named plot ("the distribution on the left"): that plot lies on that side of
//     every other plot of the step;
//   - to the notes, or the notes above/under the plots: the step shows notes in that look, and the
//     text block that holds them lies on that side of every plot;
//   - to the next panel: there is none to point at in a lesson view that shows only the step's own
//     panels, each named by its title; "further down in the lab" likewise. These always fail;
//   - to one of the dashboard's two maps by name ("the scaled map", "旁边缩放后的图"): the step draws
//     it (or covers it until the reveal), so the class can look at what the text compares with.
struct PlaceReference {
  enum class Kind { plots_side, named_side, notes, notes_side, nowhere, named_drawn } kind;
  bool right_or_below = false;  // the side: right (plots) / below (notes); else left / above
  std::string subject;          // named_side: the plot-name word it names ("distribution"); named_drawn: the plot
  std::string phrase;
};

// The references a text makes to where things are on screen (English and Chinese).
std::vector<PlaceReference> place_references(std::string_view text) {
  std::vector<PlaceReference> found;
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const auto each = [&](std::string_view needle, const auto& make) {
    for (std::size_t at = lower.find(needle); at != std::string::npos; at = lower.find(needle, at + 1))
      found.push_back(make(std::string(needle)));
  };
  using K = PlaceReference::Kind;
  for (std::string_view noun : {"plot", "plots", "panel", "panels", "figure"})
    for (std::string_view side : {" to the right", " on the right", " to the left", " on the left"}) {
      const std::string needle = std::string(noun) + std::string(side);
      each(needle, [&](std::string p) {
        return PlaceReference{K::plots_side, side.find("right") != side.npos, "", p};
      });
    }
  for (std::string_view noun : {"distribution", "map", "histogram", "curve", "bars"})
    for (std::string_view side : {" on the right", " on the left", " to the right", " to the left"}) {
      const std::string needle = std::string(noun) + std::string(side);
      each(needle, [&](std::string p) {
        return PlaceReference{K::named_side, side.find("right") != side.npos, std::string(noun), p};
      });
    }
  for (std::string_view side : {"above the plots", "under the plots", "below the plots", "above the panels",
                                "under the panels", "below the panels"})
    each(side, [&](std::string p) { return PlaceReference{K::notes_side, side.find("above") == side.npos, "", p}; });
  for (std::string_view notes : {"the lab's notes", "the notes", "the note ", "the note,", "the note:"})
    each(notes, [&](std::string p) { return PlaceReference{K::notes, false, "", p}; });
  for (std::string_view nowhere : {"next panel", "previous panel", "further down"})
    each(nowhere, [&](std::string p) { return PlaceReference{K::nowhere, false, "", p}; });
  // "the scaled map" is not inside "the unscaled map": the article comes first.
  for (const auto& [needle, plot] :
       {std::pair<std::string_view, std::string_view>{"the scaled map", "attention_scaled"},
        {"the unscaled map", "attention_unscaled"}})
    each(needle, [&, plot = plot](std::string p) {
      return PlaceReference{K::named_drawn, false, std::string(plot), p};
    });
  // Chinese: 右边/左边的图 (the plots to the right/left), 左边的分布 (the distribution on the left),
  // 图上方/图下方的说明 (the notes above/under the plots), 实验的说明 (the lab's notes), 下一个面板,
  // 更下方 (further down).
  for (std::string_view side : {"右边的", "右侧的", "左边的", "左侧的"}) {
    const bool right = side.substr(0, 3) == "右";
    for (std::string_view noun : {"图", "每张图", "面板"})
      each(std::string(side) + std::string(noun), [&](std::string p) {
        return PlaceReference{K::plots_side, right, "", p};
      });
    for (const auto& [noun, word] : {std::pair<std::string_view, std::string_view>{"分布", "distribution"},
                                     {"注意力图", "map"},
                                     {"直方图", "histogram"},
                                     {"曲线", "curve"}})
      each(std::string(side) + std::string(noun), [&, word = word](std::string p) {
        return PlaceReference{K::named_side, right, std::string(word), p};
      });
  }
  for (std::string_view side : {"图上方", "图下方", "图的上方", "图的下方"})
    each(side, [&](std::string p) { return PlaceReference{K::notes_side, side.find("下") != side.npos, "", p}; });
  each("说明", [&](std::string p) { return PlaceReference{K::notes, false, "", p}; });
  for (std::string_view nowhere : {"下一个面板", "上一个面板", "更下方"})
    each(nowhere, [&](std::string p) { return PlaceReference{K::nowhere, false, "", p}; });
  // Chinese has no article: only the maps pointed at (这里显示的, 旁边) are references.
  for (const auto& [needle, plot] :
       {std::pair<std::string_view, std::string_view>{"这里显示的缩放后的图", "attention_scaled"},
        {"旁边缩放后的图", "attention_scaled"},
        {"旁边被遮住的未缩放的图", "attention_unscaled"}})
    each(needle, [&, plot = plot](std::string p) {
      return PlaceReference{K::named_drawn, false, std::string(plot), p};
    });
  // "the plots" inside "the notes above the plots" is one reference, not two.
  return found;
}

TEST(PlaceReferences, ReadsSidesNotesAndPanelsInBothLanguages) {
  EXPECT_EQ(place_references("Each plot to the right turns them").size(), 1u);
  EXPECT_EQ(place_references("The distribution on the left is").front().subject, "distribution");
  EXPECT_EQ(place_references("as the lab's notes list them above the plots").size(), 2u);
  EXPECT_EQ(place_references("α-entmax (next panel) sits").front().kind, PlaceReference::Kind::nowhere);
  EXPECT_EQ(place_references("左边的分布现在是").front().subject, "distribution");
  EXPECT_EQ(place_references("列在图上方的说明里").size(), 2u);
  EXPECT_TRUE(place_references("At the left edge of the plot; right of the dashed line; the bar below 0").empty())
      << "places inside a plot are the plot's own";
  const std::vector<PlaceReference> unscaled = place_references("sharper than the unscaled map's rows");
  ASSERT_EQ(unscaled.size(), 1u) << "'the scaled map' was also found inside 'the unscaled map'";
  EXPECT_EQ(unscaled.front().subject, "attention_unscaled");
  EXPECT_TRUE(place_references("A scaled map spreads each row").empty()) << "a map in general is no reference";
  EXPECT_EQ(place_references("比旁边缩放后的图的行更尖锐").front().subject, "attention_scaled");
}

// Steps of a lesson another change owns that still make a reference the layout does not show: lesson,
// step (1-based), phrase. Each must still apply (LessonScreensList.EveryOwnedReferenceStillApplies).
struct OwnedReference {
  std::string_view lesson;
  std::size_t step;
  std::string_view phrase;
};
constexpr std::array<OwnedReference, 0> kReferencesOwnedElsewhere{};  // none: every reference is checked

bool owned_elsewhere(const Lesson& lesson, std::size_t step, std::string_view phrase) {
  return std::any_of(std::begin(kReferencesOwnedElsewhere), std::end(kReferencesOwnedElsewhere),
                     [&](const OwnedReference& owned) {
                       return owned.lesson == lesson.name && owned.step == step + 1 && owned.phrase == phrase;
                     });
}

TEST(LessonScreensList, EveryOwnedReferenceStillApplies) {
  const LessonList lessons = load_lessons(find_assets_dir() / "lessons");
  ASSERT_FALSE(lessons.error) << lessons.error->message;
  for (const OwnedReference& owned : kReferencesOwnedElsewhere) {
    const auto index = find_lesson(lessons, owned.lesson);
    ASSERT_TRUE(index.has_value()) << owned.lesson;
    ASSERT_LE(owned.step, lessons.lessons[*index].steps.size());
    const LessonStep& step = lessons.lessons[*index].steps[owned.step - 1];
    bool made = false;
    for (const std::string* text : {&step.text.english, &step.text.chinese})
      for (const PlaceReference& reference : place_references(*text)) made |= reference.phrase == owned.phrase;
    EXPECT_TRUE(made) << owned.lesson << ":" << owned.step << " no longer says '" << owned.phrase
                      << "': take it out of kReferencesOwnedElsewhere";
  }
}

TEST_F(LessonScreens, EveryPlaceATextPointsToIsWhereTheStepDrawsIt) {
  std::vector<std::string> problems;
  UiState& ui = app_->ui();
  const Look looks[] = {{{1280, 720}, i18n::Language::English, false}, {{1024, 768}, i18n::Language::English, false},
                        {{1280, 720}, i18n::Language::English, true},  {{1024, 768}, i18n::Language::English, true},
                        {{1280, 720}, i18n::Language::Chinese, false}, {{1024, 768}, i18n::Language::Chinese, true}};
  int references = 0;
  for (std::size_t lesson_index = 0; lesson_index < ui.lessons.lessons.size(); ++lesson_index) {
    const Lesson& lesson = ui.lessons.lessons[lesson_index];
    for (std::size_t step_index = 0; step_index < lesson.steps.size(); ++step_index) {
      const LessonStep& step = lesson.steps[step_index];
      for (const Look& look : looks) {
        // The texts shown before and after a reveal, each with whether it needs the reveal.
        std::vector<std::pair<std::string, bool>> texts{{step.text.in(look.language), false}};
        if (step.predict) {
          texts.push_back({step.predict->question.in(look.language), false});
          if (step.predict->after) texts.push_back({step.predict->after->in(look.language), true});
        }
        bool any = false;
        for (const auto& [text, revealed] : texts) any |= !place_references(text).empty();
        if (!any) continue;
        render_step(lesson_index, step_index, look);
        for (const bool revealed_now : {false, true}) {
          if (revealed_now) {
            if (!step.predict) break;
            EXPECT_TRUE(commit_guess(ui, std::nullopt).ok());
            for (int frame = 0; frame < 2; ++frame) app_->frame();
          }
          const std::string where =
              describe(lesson, step_index, look) + (revealed_now ? " revealed" : "") + ": the text says '";
          const LessonReport::TextBox& box = ui.lesson_report.text_box;
          std::vector<const PlacedPlot*> plots;
          for (const PlacedPlot& placed : ui.placed_plots) plots.push_back(&placed);
          for (const auto& [text, needs_reveal] : texts) {
            if (needs_reveal && !revealed_now) continue;
            for (const PlaceReference& reference : place_references(text)) {
              if (owned_elsewhere(lesson, step_index, reference.phrase)) continue;
              ++references;
              const auto fail = [&](const std::string& why) {
                problems.push_back(where + reference.phrase + "', " + why);
              };
              using K = PlaceReference::Kind;
              switch (reference.kind) {
                case K::nowhere: fail("but the lesson view draws only the step's own panels: name the panel"); break;
                case K::notes:
                  if (!step_shows_notes(step) || ui.lesson_report.notes.empty())
                    fail("but no note is shown with the text");
                  break;
                case K::notes_side:
                  if (!step_shows_notes(step) || ui.lesson_report.notes.empty()) {
                    fail("but no note is shown with the text");
                    break;
                  }
                  for (const PlacedPlot* plot : plots)
                    if (reference.right_or_below ? box.min.y < plot->max.y - 1.0f : box.max.y > plot->min.y + 1.0f)
                      fail("but the notes (with the text) are not " +
                           std::string(reference.right_or_below ? "under" : "above") + " plot " + plot->name);
                  break;
                case K::plots_side:
                  for (const PlacedPlot* plot : plots)
                    if (reference.right_or_below ? plot->min.x < box.max.x - 1.0f : plot->max.x > box.min.x + 1.0f)
                      fail("but plot " + plot->name + " is not on that side of the text");
                  break;
                case K::named_drawn:
                  if (std::none_of(plots.begin(), plots.end(), [&](const PlacedPlot* plot) {
                        const std::string& name = plot->name;
                        return name == reference.subject || name.ends_with("/" + reference.subject);
                      })) {
                    std::string drawn;
                    for (const PlacedPlot* plot : plots) drawn += (drawn.empty() ? "" : ", ") + plot->name;
                    fail("but the step does not draw " + reference.subject + " (it draws " + drawn + ")");
                  }
                  break;
                case K::named_side: {
                  std::vector<const PlacedPlot*> named, others;
                  for (const PlacedPlot* plot : plots)
                    (plot->name.find(reference.subject) != std::string::npos ? named : others).push_back(plot);
                  if (named.empty()) fail("but the step draws no " + reference.subject);
                  for (const PlacedPlot* subject : named)
                    for (const PlacedPlot* other : others)
                      if (reference.right_or_below ? subject->min.x < other->max.x - 1.0f
                                                   : subject->max.x > other->min.x + 1.0f)
                        fail("but " + subject->name + " is not on that side of " + other->name);
                  break;
                }
              }
            }
          }
        }
      }
    }
  }
  close_lesson(ui);
  ui.presenter = false;
  report(problems);
  std::printf("%d references checked\n", references);
}

TEST_F(LessonScreens, EveryStepInEveryLook) { check_all(); }

// Every pass: one step per lesson (a different one each lesson), its size, language and mode taken
// in turn, so every lesson and every look is rendered at least once. The offset 6 makes the
// training lesson's sample its step 7: a comparison over seeds (8 runs of 400 steps), as its longest
// steps are, in a seventh of their steps (16 runs of 1500 took 60 s of this test's 63 s in the
// sanitizer pass).
TEST_F(LessonScreens, Sampled) {
  std::vector<std::string> problems;
  UiState& ui = app_->ui();
  for (std::size_t lesson = 0; lesson < ui.lessons.lessons.size(); ++lesson) {
    const std::size_t step = (3 * lesson + 6) % ui.lessons.lessons[lesson].steps.size();
    const Look look{kClassroomSizes[lesson % 2],
                    (lesson / 2) % 2 == 0 ? i18n::Language::English : i18n::Language::Chinese, (lesson / 4) % 2 == 1};
    for (std::string& found : check_step(lesson, step, look)) problems.push_back(std::move(found));
  }
  close_lesson(ui);
  ui.presenter = false;
  report(problems);
}

}  // namespace
}  // namespace smlab::app
