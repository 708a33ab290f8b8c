// The lesson view's parts: a step's "panels" read with one-line errors, the layout's
// choice between text beside and under the plots (geometry only, with made-up text heights and
// plot margins), and a predict step answered from the keyboard in presenter mode.
#include <gtest/gtest.h>
#include <imgui.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only

#include "export/png.hpp"
#include "headless_support.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lessons.hpp"
#include "panels/lesson_layout.hpp"

namespace smlab::app {
namespace {

// [panels] A one-step lesson on `view` with `panel` and the "panels" (and "predict") fields given.
std::string one_step(const std::string& view, const std::string& panel, const std::string& extra) {
  return R"({"name": "demo", "title": {"en": "Demo", "zh-CN": "演示"}, "steps": [{"title": {"en": "a", "zh-CN": "b"},
    "text": {"en": "a", "zh-CN": "b"}, "view": ")" +
         view + R"(", "panel": ")" + panel + "\"" + extra + "}]}";
}

TEST(LessonPanels, AStepShowsItsPanelsInTheirOrderAndTheirPlotsOnce) {
  const LessonLoad load =
      parse_lesson(one_step("temperature", "panel-5", R"(, "panels": ["panel-8", "panel-5", "entropy", "notes"])"));
  ASSERT_TRUE(load.ok()) << load.error().message;
  const LessonStep& step = load->steps[0];
  EXPECT_EQ(step_plots(step), (std::vector<std::string_view>{"panel-8", "panel-5", "entropy"}));
  EXPECT_TRUE(step_shows_notes(step));
  // A group stands for its plots; without "panels" a step shows its own panel.
  const LessonLoad group = parse_lesson(one_step("dashboard", "attention", ""));
  ASSERT_TRUE(group.ok()) << group.error().message;
  EXPECT_EQ(step_plots(group->steps[0]), (std::vector<std::string_view>{"attention_scaled", "attention_unscaled"}));
  EXPECT_FALSE(step_shows_notes(group->steps[0]));
  // A predict step without "panels" shows the panel it hides beside its own.
  const LessonLoad predict = parse_lesson(
      one_step("dashboard", "distribution",
               R"(, "predict": {"question": {"en": "q", "zh-CN": "问"}, "quantity": {"quantity": "max_weight"},
          "min": 0, "max": 1, "decimals": 1, "hides": "gradient"})"));
  ASSERT_TRUE(predict.ok()) << predict.error().message;
  EXPECT_EQ(step_plots(predict->steps[0]), (std::vector<std::string_view>{"distribution", "gradient"}));
}

TEST(LessonPanels, BadPanelsGiveOneLineErrorsNamingTheStepAndWhatIsAllowed) {
  const struct {
    std::string text, needle;
  } cases[] = {
      {one_step("dashboard", "distribution", R"(, "panels": "distribution")"), "must be an array of 1 to 8 names"},
      {one_step("dashboard", "distribution", R"(, "panels": [])"), "must be an array of 1 to 8 names"},
      {one_step("dashboard", "distribution", R"(, "panels": ["distribution", 3])"), "\"panels\" holds 3"},
      {one_step("dashboard", "distribution", R"(, "panels": ["distribution", "sweeps"])"),
       "'sweeps', not a panel of dashboard: allowed distribution, entropy, entropy_t, entropy_dk, gradient"},
      {one_step("dashboard", "distribution", R"(, "panels": ["distribution", "notes"])"), "'notes', not a panel"},
      {one_step("dashboard", "distribution", R"(, "panels": ["attention", "attention_scaled", "distribution"])"),
       "shows plot 'attention_scaled' twice"},
      {one_step("dashboard", "distribution", R"(, "panels": ["gradient"])"),
       "panel 'distribution' is not among its \"panels\""},
      {one_step("temperature", "panel-9", ""), "panel 'panel-9' is not a panel of temperature"},
      {one_step("normalizers", "softmax", R"(, "panels": ["softmax", "notes", "notes"])"), "names 'notes' twice"},
      {one_step("dashboard", "distribution",
                R"(, "panels": ["distribution"], "predict": {"question": {"en": "q", "zh-CN": "问"},
                    "quantity": {"quantity": "max_weight"}, "min": 0, "max": 1, "decimals": 1, "hides": "gradient"})"),
       "hides 'gradient', which its \"panels\" do not show"},
  };
  for (const auto& c : cases) {
    const LessonLoad load = parse_lesson(c.text);
    ASSERT_FALSE(load.ok()) << c.text;
    EXPECT_EQ(load.error().message.find('\n'), std::string::npos) << load.error().message;
    EXPECT_NE(load.error().message.find("lesson 'demo' step 1"), std::string::npos) << load.error().message;
    EXPECT_NE(load.error().message.find(c.needle), std::string::npos) << c.text << "\n-> " << load.error().message;
  }
}

// [layout] Plots with fixed margins (a series plot: 130 px across, 160 px down) and a text block
// whose height is its length over its width: a stand-in for the measured ones.
LessonLayoutRequest request_for(std::size_t plots, float text_area, ImVec2 window) {
  LessonLayoutRequest request;
  request.min = ImVec2(0.0f, 0.0f);
  request.max = window;
  request.plots = plots;
  request.cell_min = ImVec2(230.0f, 200.0f);
  request.gap = 8.0f;
  request.text_min_width = 290.0f;
  request.text_scales = {1.2f, 1.0f};
  request.text_height = [text_area](float width, float scale) { return scale * scale * text_area / width; };
  request.fit = [](std::size_t, ImVec2 size) {
    plot::PlotFit fit;
    fit.size = size;
    fit.has_data_area = size.x > 130.0f && size.y > 160.0f;
    fit.complete = true;
    fit.data = {100.0f, 70.0f, size.x - 30.0f, size.y - 90.0f};
    return fit;
  };
  return request;
}

bool overlap(ImVec2 a0, ImVec2 a1, ImVec2 b0, ImVec2 b1) {
  return std::min(a1.x, b1.x) > std::max(a0.x, b0.x) && std::min(a1.y, b1.y) > std::max(a0.y, b0.y);
}

TEST(LessonLayout, TextAndPlotsFitSideBySideOrStackedWithoutOverlapping) {
  for (const std::size_t plots : {1u, 2u, 3u})
    for (const float text_area : {60000.0f, 150000.0f, 250000.0f}) {
      const LessonLayoutRequest request = request_for(plots, text_area, ImVec2(1280.0f, 700.0f));
      const LessonLayout layout = plan_lesson_layout(request);
      const std::string where = std::to_string(plots) + " plots, text " + std::to_string(text_area) + " px²";
      ASSERT_EQ(layout.plot_min.size(), plots) << where;
      EXPECT_TRUE(layout.text_fits && layout.plots_fit && layout.readable) << where;
      EXPECT_LE(request.text_height(layout.text_max.x - layout.text_min.x, layout.text_scale),
                layout.text_max.y - layout.text_min.y + 0.5f)
          << where;
      for (std::size_t k = 0; k < plots; ++k) {
        EXPECT_FALSE(overlap(layout.plot_min[k], layout.plot_max[k], layout.text_min, layout.text_max)) << where;
        EXPECT_GE(layout.plot_min[k].x, -0.5f) << where;
        EXPECT_LE(layout.plot_max[k].y, 700.5f) << where;
        EXPECT_TRUE(readable_data_area(request.fit(
            k, ImVec2(layout.plot_max[k].x - layout.plot_min[k].x, layout.plot_max[k].y - layout.plot_min[k].y))))
            << where << " plot " << k;
        for (std::size_t other = k + 1; other < plots; ++other)
          EXPECT_FALSE(overlap(layout.plot_min[k], layout.plot_max[k], layout.plot_min[other], layout.plot_max[other]))
              << where;
      }
    }
}

TEST(LessonLayout, ALargerTextScaleWinsOnlyWhereItStillFits) {
  // A short text keeps 1.2×; a long one gives it up for the plots' sake rather than scroll.
  EXPECT_EQ(plan_lesson_layout(request_for(1, 60000.0f, ImVec2(1280.0f, 700.0f))).text_scale, 1.2f);
  const LessonLayout crowded = plan_lesson_layout(request_for(2, 330000.0f, ImVec2(1024.0f, 740.0f)));
  EXPECT_EQ(crowded.text_scale, 1.0f);
  EXPECT_TRUE(crowded.text_fits && crowded.readable);
}

TEST(LessonLayout, WhenNothingFitsItSaysSo) {
  const LessonLayout layout = plan_lesson_layout(request_for(6, 900000.0f, ImVec2(800.0f, 500.0f)));
  EXPECT_FALSE(layout.text_fits && layout.plots_fit && layout.readable);
  EXPECT_EQ(layout.plot_min.size(), 6u);
}

// [presenter] A predict step answered in presenter mode from the keyboard: no field to click.
class PresenterGuess : public test_support::HeadlessRender {
 protected:
  PresenterGuess() : HeadlessRender(1280, 720) {}

  void type(App& app, const std::string& characters) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    for (const char c : characters) ImGui::GetIO().AddInputCharacter(static_cast<unsigned>(c));
    app.frame();
  }
  void press(App& app, int key) {
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[key] = true;
    app.frame();
    ImGui::SetCurrentContext(surface_->imgui_context());
    ImGui::GetIO().KeysDown[key] = false;
    app.frame();
  }
  static std::size_t step_of(const Lesson& lesson, bool choices) {
    for (std::size_t k = 0; k < lesson.steps.size(); ++k)
      if (lesson.steps[k].predict && lesson.steps[k].predict->choices.empty() != choices) return k;
    return lesson.steps.size();
  }
};

TEST_F(PresenterGuess, DigitsAndEnterCommitATypedGuessAndBackspaceCorrectsIt) {
  AppOptions options;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  options.presenter = true;
  const auto homework = find_lesson(options.lessons, "homework");
  ASSERT_TRUE(homework.has_value());
  const std::size_t step = step_of(options.lessons.lessons[*homework], false);
  ASSERT_LT(step, options.lessons.lessons[*homework].steps.size()) << "no typed predict step";
  const LessonPredict& predict = *options.lessons.lessons[*homework].steps[step].predict;
  App app(*surface_, options);
  ASSERT_TRUE(open_lesson_step(app.ui(), *homework, step, false));
  settle(app);
  // A number inside the allowed range, typed with a slip that Backspace takes back.
  const double guess = 0.5 * (predict.min + predict.max);
  char text[32];
  std::snprintf(text, sizeof text, "%g", guess);
  type(app, std::string(text) + "9");
  press(app, GLFW_KEY_BACKSPACE);
  EXPECT_EQ(app.ui().lesson_view.presenter_typed, text);
  EXPECT_FALSE(app.ui().lesson.revealed);
  press(app, GLFW_KEY_ENTER);
  EXPECT_TRUE(app.ui().lesson.revealed) << "typed " << text;
  ASSERT_TRUE(app.ui().lesson.guess.has_value());
  EXPECT_DOUBLE_EQ(*app.ui().lesson.guess, guess);
  // The caption, not the lesson panel, carries the step: it lies beside or under the plots.
  for (const PlacedPlot& placed : app.ui().placed_plots)
    EXPECT_FALSE(
        overlap(placed.min, placed.max, app.ui().lesson_report.text_box.min, app.ui().lesson_report.text_box.max))
        << placed.name;
}

TEST_F(PresenterGuess, AChoicesNumberAndEnterCommitThatChoice) {
  AppOptions options;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  options.presenter = true;
  std::optional<LessonPosition> position;
  for (std::size_t l = 0; l < options.lessons.lessons.size() && !position; ++l) {
    const std::size_t step = step_of(options.lessons.lessons[l], true);
    if (step < options.lessons.lessons[l].steps.size()) position = LessonPosition{l, step, std::nullopt};
  }
  ASSERT_TRUE(position.has_value()) << "no multiple-choice predict step";
  const LessonPredict& predict = *options.lessons.lessons[position->lesson].steps[position->step].predict;
  App app(*surface_, options);
  ASSERT_TRUE(open_lesson_step(app.ui(), position->lesson, position->step, false));
  settle(app);
  type(app, "2");
  EXPECT_EQ(app.ui().lesson_view.presenter_choice, 1);
  EXPECT_FALSE(app.ui().lesson.revealed) << "a digit picks; Enter commits";
  press(app, GLFW_KEY_KP_ENTER);
  ASSERT_TRUE(app.ui().lesson.guess.has_value());
  EXPECT_EQ(*app.ui().lesson.guess, predict.choices[1]);
}

TEST_F(PresenterGuess, TextThatIsNotANumberIsRefusedWithItsLine) {
  AppOptions options;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  options.presenter = true;
  const auto homework = find_lesson(options.lessons, "homework");
  ASSERT_TRUE(homework.has_value());
  const std::size_t step = step_of(options.lessons.lessons[*homework], false);
  App app(*surface_, options);
  ASSERT_TRUE(open_lesson_step(app.ui(), *homework, step, false));
  settle(app);
  type(app, "1e-e");
  press(app, GLFW_KEY_ENTER);
  EXPECT_FALSE(app.ui().lesson.revealed);
  EXPECT_NE(app.ui().lesson_view.guess_error.find("1e-e"), std::string::npos) << app.ui().lesson_view.guess_error;
}

// [phone] A lesson in a phone-sized window (390×844, font 1) stacks: the step's text with its
// controls across the full width at the top, then the step's plots one under another, each the
// full width and readable; the content scrolls to those below the fold. Side by side the text was a
// 170 px column beside 200 px plots.
class PhoneLesson : public test_support::HeadlessRender {
 protected:
  PhoneLesson() : HeadlessRender(390, 844) {}
};

TEST_F(PhoneLesson, TheTextComesFirstAndThePlotsFollowFullWidthAndReadable) {
  AppOptions options;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  App app(*surface_, options);
  app.ui().record_layout = true;
  const struct {
    const char* lesson;
    std::size_t step;
  } steps[] = {{"temperature", 2}, {"geometry-init", 0}, {"why-softmax", 0}};
  for (const auto& [name, step] : steps) {
    const auto lesson = find_lesson(options.lessons, name);
    ASSERT_TRUE(lesson.has_value()) << name;
    ASSERT_TRUE(open_lesson_step(app.ui(), *lesson, step, false)) << name;
    app.ui().select_view_tab = true;
    settle(app);
    const std::string where = std::string(name) + " step " + std::to_string(step + 1) + " at 390x844";
    const UiState& ui = app.ui();
    ASSERT_TRUE(ui.lesson_report.text_box.placed) << where;
    const LessonReport::TextBox& text = ui.lesson_report.text_box;
    EXPECT_GE(text.max.x - text.min.x, 0.9f * 390.0f) << where << ": the text is a column, not the full width";
    ASSERT_FALSE(ui.lesson_view.plan.plot_min.empty()) << where;
    float above = text.max.y;
    for (std::size_t k = 0; k < ui.lesson_view.plan.plot_min.size(); ++k) {
      const ImVec2 frame_min = ui.lesson_view.plan.plot_min[k], frame_max = ui.lesson_view.plan.plot_max[k];
      EXPECT_GE(frame_min.y, above - 0.5f) << where << " plot " << k << ": not under the text and the plot before";
      const bool map = frame_max.x - frame_min.x < frame_max.y - frame_min.y;  // a map hugs its square grid
      if (!map) {
        EXPECT_GE(frame_max.x - frame_min.x, 0.9f * 390.0f) << where << " plot " << k << ": not the full width";
      }
      above = frame_max.y;
    }
    // Each plot reads (the layout tests' rule: 120 px each way and 40 % of its panel).
    ASSERT_FALSE(ui.layout_report.plots.empty()) << where;
    for (const plot::PlotRecord& record : ui.layout_report.plots) {
      const float width = record.x1 - record.x0, height = record.y1 - record.y0;
      const float right = record.colorbar ? std::max(record.data_x1, record.colorbar->x1) : record.data_x1;
      const float data_width = right - record.data_x0, data_height = record.data_y1 - record.data_y0;
      EXPECT_TRUE(record.has_data_area && data_width >= 119.5f && data_height >= 119.5f &&
                  data_width * data_height >= 0.4f * width * height)
          << where << " " << record.id << ": data area " << data_width << "x" << data_height << " px in a panel of "
          << width << "x" << height;
    }
  }
}

// [phone] On a small phone (360×640) at font 1.5 in Chinese, the README's link, a step's text does
// not fit its box: the text scrolls in a box of its own and the buttons stay under it, whole and on
// screen (they scrolled away with the text, and only a two-finger drag reached them); a predict
// step's answer field is on screen too.
class SmallPhoneLesson : public test_support::HeadlessRender {
 protected:
  SmallPhoneLesson() : HeadlessRender(360, 640) {}

  // The shown step's Next (Reveal, Finish) whole on the screen and inside the lesson's box, and, on
  // a step that asks for a typed number, its answer field on the screen.
  void expect_on_screen(App& app, const LessonStep& step, const std::string& where) {
    const LessonReport& report = app.ui().lesson_report;
    const LessonReport::Shown next = report.next_button;
    ImGui::SetCurrentContext(surface_->imgui_context());
    EXPECT_FALSE(next.empty()) << where << ": Next is not on screen";
    EXPECT_GE(next.max.y - next.min.y, ImGui::GetFrameHeight() - 0.5f) << where << ": Next is cut";
    EXPECT_LE(next.max.y, 640.0f) << where;
    EXPECT_GE(next.min.y, report.text_box.min.y) << where;
    EXPECT_LE(next.max.y, report.text_box.max.y) << where << ": Next lies outside the lesson's box";
    if (step.predict && step.predict->choices.empty()) {
      EXPECT_FALSE(report.guess_field.empty()) << where << ": the answer field is not on screen";
    }
  }
};

TEST_F(SmallPhoneLesson, TheButtonsStayOnScreenWhenTheTextScrolls) {
  AppOptions options;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  options.theme = Theme::projector;
  options.font_scale = 1.5f;
  App app(*surface_, options);
  const struct {
    const char* lesson;
    std::size_t step;
    i18n::Language language;
    float font_scale;
  } steps[] = {{"scaling", 2, i18n::Language::Chinese, 1.5f},
               {"scaling", 3, i18n::Language::Chinese, 1.5f},
               {"scaling", 3, i18n::Language::English, 1.0f},
               {"why-softmax", 0, i18n::Language::English, 1.5f}};
  bool some_text_scrolled = false;
  for (const auto& [name, step, language, font_scale] : steps) {
    const auto lesson = find_lesson(options.lessons, name);
    ASSERT_TRUE(lesson.has_value()) << name;
    app.ui().language = language;
    app.ui().font_scale = font_scale;
    ASSERT_TRUE(open_lesson_step(app.ui(), *lesson, step, false)) << name;
    app.ui().select_view_tab = true;
    settle(app);
    const Image shot = settle(app);                                // the language and the font apply between frames
    if (const char* keep = std::getenv("SMLAB_KEEP_PHONE_PNG")) {  // to look at them
      const std::string path = std::string(keep) + "-" + name + "-" + std::to_string(step + 1) + "-" +
                               (language == i18n::Language::Chinese ? "zh" : "en") + ".png";
      EXPECT_TRUE(exporting::write_png(path, shot, true).ok());
    }
    const std::string where = std::string(name) + " step " + std::to_string(step + 1) + " at 360x640, font " +
                              std::to_string(font_scale) + (language == i18n::Language::Chinese ? ", zh-CN" : ", en");
    const LessonReport& report = app.ui().lesson_report;
    ASSERT_TRUE(report.text_box.placed) << where;
    some_text_scrolled |= report.text_scrolls;
    expect_on_screen(app, options.lessons.lessons[*lesson].steps[step], where);
  }
  EXPECT_TRUE(some_text_scrolled) << "no step's text scrolled: the case this test is about was not reached";
}

// [phone] A whole course on the small phone: every step of every lesson at 360×640, font 1.5, in
// Chinese (the longest texts) has its Next (Reveal, Finish) whole on screen inside the lesson's box,
// and every step that asks for a typed number its answer field.
TEST_F(SmallPhoneLesson, EveryStepKeepsItsButtonsAndAnswerFieldOnScreen) {
  AppOptions options;
  options.lessons = load_lessons(find_assets_dir() / "lessons");
  options.font_scale = 1.5f;
  App app(*surface_, options);
  app.ui().language = i18n::Language::Chinese;
  settle(app);
  int steps = 0;
  for (std::size_t lesson = 0; lesson < options.lessons.lessons.size(); ++lesson)
    for (std::size_t step = 0; step < options.lessons.lessons[lesson].steps.size(); ++step, ++steps) {
      ASSERT_TRUE(open_lesson_step(app.ui(), lesson, step, false));
      app.ui().select_view_tab = true;
      settle(app);
      expect_on_screen(app, options.lessons.lessons[lesson].steps[step],
                       options.lessons.lessons[lesson].name + ":" + std::to_string(step + 1));
    }
  EXPECT_GT(steps, 90);
}

}  // namespace
}  // namespace smlab::app
