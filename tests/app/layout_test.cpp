// Classroom sizes: every view and every lesson step rendered headless at projector and
// laptop sizes, checked from the layout itself (the report the frame fills): each plot has its
// readable minimum, no title or legend was dropped or shortened, and no two labels overlap.
//
// What is rendered (the layout depends on the window size, the font's px size and the text's
// language; a theme's colours do not move anything, its 2× lines and 1.15× font do):
//   views:   4 sizes (1024×768, 1280×720, 1920×1080, 3840×2160) × {dark at font 1, projector at
//            1.5 (the smallest and the largest text)} × {en, zh-CN}, every view;
//   lessons: every step at 1280×720 projector 1.5 (the tightest common projector) in en and
//            zh-CN, and at 1024×768 dark 1 in en;
//   presenter mode: one lesson step per lesson at 1280×720, the step's panel fills the window.
// The middle looks (dark 1.5, projector 1) have font sizes between those two and are left out.
#include <gtest/gtest.h>
#include <imgui_internal.h>  // ImGuiWindow: the control column's content size

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "app.hpp"
#include "lesson_player/lesson_player.hpp"
#include "lessons/lessons.hpp"
#include "panels/lesson_panel.hpp"
#include "panels/panels.hpp"
#include "platform/offscreen.hpp"
#include "plot/color.hpp"
#include "scaled_screenshot.hpp"
#include "smlab/views.hpp"
#include "state/presets.hpp"

namespace smlab::app {
namespace {

struct Look {
  Theme theme;
  float font_scale;
  i18n::Language language;
  const char* name;
};

struct Size {
  int width, height;
};

constexpr Size kSizes[] = {{1024, 768}, {1280, 720}, {1920, 1080}, {3840, 2160}};

std::string describe(const char* what, Size size, const Look& look) {
  std::ostringstream out;
  out << what << " at " << size.width << "x" << size.height << " " << look.name;
  return out.str();
}

// Every defect of this frame's layout, one line each. `minimum_size`: each plot has the grid's
// readable minimum (a view's grid); a lesson step's plots are sized by what they leave their data
// instead (panels/lesson_layout.hpp), which lesson_screens_test checks. `readable_data`: each data
// area is readable (asked of lesson steps and of every view at the projector's font).
std::vector<std::string> layout_defects(const FrameReport& report, const std::string& where, bool minimum_size = true,
                                        bool readable_data = true) {
  std::vector<std::string> defects;
  if (report.layout_report.plots.empty()) defects.push_back(where + ": no plot was laid out");
  for (const plot::PlotRecord& record : report.layout_report.plots) {
    const std::string at = where + " " + record.id + ": ";
    std::vector<std::string> found;
    const float em = record.font_size;
    const float width = record.x1 - record.x0, height = record.y1 - record.y0;
    if (minimum_size && (width + 1.0f < min_plot_width_em * em || height + 1.0f < min_plot_height_em * em))
      defects.push_back(at + "smaller than the minimum: " + std::to_string(width) + "x" + std::to_string(height) +
                        " px at " + std::to_string(em) + " px font");
    if (!record.has_data_area) defects.push_back(at + "no data area");
    for (const std::string& problem : record.problems) found.push_back(problem);
    for (const auto& [a, b] : plot::overlapping_texts(record.texts))
      found.push_back("labels overlap: \"" + record.texts[a].text + "\" and \"" + record.texts[b].text + "\"");
    // Legends and annotations keep off the data marks. The data area is readable:
    // 120 px each way and 40 % of the panel (a map's colour bar counts: it is the key to its cells).
    for (std::string& covering : plot::covering_data(record, true)) found.push_back(std::move(covering));
    if (readable_data && record.has_data_area) {
      const float right = record.colorbar ? std::max(record.data_x1, record.colorbar->x1) : record.data_x1;
      const float data_width = right - record.data_x0, data_height = record.data_y1 - record.data_y0;
      if (data_width < 119.5f || data_height < 119.5f || data_width * data_height < 0.4f * width * height)
        found.push_back("data area " + std::to_string(static_cast<int>(data_width)) + "x" +
                        std::to_string(static_cast<int>(data_height)) + " px in a panel of " +
                        std::to_string(static_cast<int>(width)) + "x" + std::to_string(static_cast<int>(height)));
    }
    for (const std::string& defect : found) defects.push_back(at + defect);
  }
  return defects;
}

class ClassroomLayout : public ::testing::Test {
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
    app_options.refine_trials = 2000;  // the d_k curves need not converge for a layout check
    app_ = new App(*surface_, app_options);
    app_->ui().record_layout = true;
  }
  static void TearDownTestSuite() {
    delete app_;
    delete surface_;
    app_ = nullptr;
    surface_ = nullptr;
  }

  static void set_look(const Look& look, Size size) {
    UiState& ui = app_->ui();
    ui.theme = look.theme;
    ui.font_scale = look.font_scale;
    ui.language = look.language;
    ASSERT_TRUE(surface_->resize(size.width, size.height).ok());
  }

  // Two frames once the numbers are in: the first applies a new look, view or tab selection.
  static void render() {
    app_->frame();
    app_->wait_for_snapshot();
    app_->frame();
    app_->wait_for_snapshot();
    app_->frame();
  }

  static void check_views(const Look& look) {
    std::vector<std::string> defects;
    for (const Size size : kSizes) {
      set_look(look, size);
      for (const ViewInfo& info : all_views()) {
        UiState& ui = app_->ui();
        ui.view = info.view;
        ui.select_view_tab = true;
        render();
        // The data-area rule at the projector's font, the back row's look; at font 1 a
        // plot's minimum cell is the grid's em minimum, which the rule does not size.
        for (std::string& defect :
             layout_defects(ui, describe(std::string(info.name).c_str(), size, look), true, look.font_scale >= 1.5f))
          defects.push_back(std::move(defect));
      }
    }
    report(defects);
  }

  // Every lesson step in each of `looks`, the looks inside the step: a step's numbers (lesson 13's
  // trainings above all) are evaluated once and laid out in every look.
  static void check_lessons(const std::vector<std::pair<Look, Size>>& looks) {
    std::vector<std::string> defects;
    UiState& ui = app_->ui();
    for (std::size_t lesson = 0; lesson < ui.lessons.lessons.size(); ++lesson) {
      for (std::size_t step = 0; step < ui.lessons.lessons[lesson].steps.size(); ++step) {
        for (const auto& [look, size] : looks) {
          set_look(look, size);
          ASSERT_TRUE(open_lesson_step(ui, lesson, step, false));
          ui.select_view_tab = true;
          render();
          const std::string where = ui.lessons.lessons[lesson].name + " step " + std::to_string(step + 1);
          for (std::string& defect : layout_defects(ui, describe(where.c_str(), size, look), false))
            defects.push_back(std::move(defect));
          // The step's highlighted panel is on screen: the content scrolled to it if it was below.
          const ImGuiWindow* content = nullptr;
          for (const ImGuiWindow* window : ImGui::GetCurrentContext()->Windows)
            if (const std::string_view name(window->Name);
                window->Active && name.substr(name.rfind('/') + 1).rfind("##content_", 0) == 0)
              content = window;  // the scrolling content child itself, not a child inside it
          if (content == nullptr) continue;
          const float view_top = content->Pos.y, view_bottom = content->Pos.y + content->Size.y;
          // The panel (its plots together): its top shows, and all of it where it is not taller than
          // the view (2 px for rounding).
          const std::vector<const PlacedPlot*> panel = lesson_highlighted_plots(ui);
          if (panel.empty()) continue;
          float top = panel.front()->min.y, bottom = panel.front()->max.y;
          for (const PlacedPlot* placed : panel) {
            top = std::min(top, placed->min.y);
            bottom = std::max(bottom, placed->max.y);
          }
          const bool top_shows = top >= view_top - 2.0f && top < view_bottom;
          const bool fits = bottom - top <= view_bottom - view_top;
          if (!top_shows || (fits && bottom > view_bottom + 2.0f))
            defects.push_back(describe(where.c_str(), size, look) + " " + panel.front()->name +
                              ": highlighted panel at y " + std::to_string(top) + ".." + std::to_string(bottom) +
                              " outside the visible content " + std::to_string(view_top) + ".." +
                              std::to_string(view_bottom));
        }
      }
    }
    close_lesson(ui);
    report(defects);
  }

  static void report(const std::vector<std::string>& defects) {
    std::string text;
    for (std::size_t k = 0; k < defects.size() && k < 60; ++k) text += defects[k] + "\n";
    EXPECT_TRUE(defects.empty()) << defects.size() << " layout defects:\n" << text;
  }

  static platform::Offscreen* surface_;
  static App* app_;
};

platform::Offscreen* ClassroomLayout::surface_ = nullptr;
App* ClassroomLayout::app_ = nullptr;

TEST_F(ClassroomLayout, EveryViewDarkFont1English) {
  check_views({Theme::dark, 1.0f, i18n::Language::English, "dark font 1 en"});
}
TEST_F(ClassroomLayout, EveryViewProjectorFont15English) {
  check_views({Theme::projector, 1.5f, i18n::Language::English, "projector font 1.5 en"});
}
TEST_F(ClassroomLayout, EveryViewDarkFont1Chinese) {
  check_views({Theme::dark, 1.0f, i18n::Language::Chinese, "dark font 1 zh-CN"});
}
TEST_F(ClassroomLayout, EveryViewProjectorFont15Chinese) {
  check_views({Theme::projector, 1.5f, i18n::Language::Chinese, "projector font 1.5 zh-CN"});
}
TEST_F(ClassroomLayout, EveryLessonStepInThreeLooks) {
  check_lessons({{{Theme::projector, 1.5f, i18n::Language::English, "projector font 1.5 en"}, {1280, 720}},
                 {{Theme::projector, 1.5f, i18n::Language::Chinese, "projector font 1.5 zh-CN"}, {1280, 720}},
                 {{Theme::dark, 1.0f, i18n::Language::English, "dark font 1 en"}, {1024, 768}}});
}

// The control column: sliders wide enough to read their value at every size and look;
// at the default size (1600×900, font 1) the labels stay beside the sliders (the live-window test
// clicks controls by position there); at 1024×768 with the projector's 1.5× font they go above.
TEST_F(ClassroomLayout, ControlColumnSlidersAreAtLeastEightEmWide) {
  const Look looks[] = {{Theme::dark, 1.0f, i18n::Language::English, "dark font 1 en"},
                        {Theme::projector, 1.5f, i18n::Language::English, "projector font 1.5 en"},
                        {Theme::projector, 1.5f, i18n::Language::Chinese, "projector font 1.5 zh-CN"}};
  UiState& ui = app_->ui();
  for (const Look& look : looks)
    for (const Size size : {Size{1024, 768}, Size{1280, 720}, Size{1600, 900}, Size{1920, 1080}}) {
      set_look(look, size);
      ui.view = View::geometry;
      ui.select_view_tab = true;
      render();
      const std::string where = describe("controls", size, look);
      // Beside its label a slider keeps 8 em; with the label above it takes the column less the
      // "(?)" marker: 207 px = 7.1 em at 1024×768, font 1.5 (a few px beside the labels before).
      EXPECT_GE(ui.controls_slider_width, (ui.controls_labels_above ? 6.0f : 8.0f) * ui.controls_font_size - 0.5f)
          << where;
      if (size.width == 1600 && look.font_scale == 1.0f) {
        EXPECT_FALSE(ui.controls_labels_above) << where;
      }
      if (size.width == 1024 && look.font_scale == 1.5f) {
        EXPECT_TRUE(ui.controls_labels_above) << where;
      }
    }
}

// Nothing in the control column runs past its right edge (a cut "divide by sqrt(d_k" or read-out
// number at 1024×768 with font 1.5): the column's content is no wider than the column, at every
// size and look, on the dashboard (read-out lines) and every lab (their own controls).
TEST_F(ClassroomLayout, ControlColumnContentFitsTheColumn) {
  const Look looks[] = {{Theme::dark, 1.0f, i18n::Language::English, "dark font 1 en"},
                        {Theme::projector, 1.5f, i18n::Language::English, "projector font 1.5 en"},
                        {Theme::projector, 1.5f, i18n::Language::Chinese, "projector font 1.5 zh-CN"}};
  UiState& ui = app_->ui();
  for (const Look& look : looks)
    for (const Size size : {Size{1024, 768}, Size{1280, 720}, Size{1920, 1080}})
      for (const ViewInfo& info : all_views()) {
        const View view = info.view;
        set_look(look, size);
        ui.view = view;
        ui.select_view_tab = true;
        render();
        const ImGuiWindow* column = nullptr;
        for (const ImGuiWindow* window : ImGui::GetCurrentContext()->Windows)
          if (std::string_view(window->Name).find("/controls_") != std::string_view::npos) column = window;
        const std::string where = describe("controls", size, look) + " on " + std::string(view_info(view).name);
        ASSERT_NE(column, nullptr) << where << ": no control column window";
        EXPECT_LE(column->ContentSize.x, column->ContentRegionRect.GetWidth() + 1.0f)
            << where << ": content " << column->ContentSize.x << " px wide in a column of "
            << column->ContentRegionRect.GetWidth() << " px";
      }
}

// A slider is seen as one in every theme: its edge (the frame's border where one is drawn, else
// its fill) against the column behind it has a contrast ratio of at least 1.4:1. The dark theme's
// blue fill on near-black measures 1.42 and plainly reads as a slider; the light theme's white fill
// on 94 % grey measured 1.14, and its sliders looked like bare text (seen at 1280×720).
TEST_F(ClassroomLayout, SliderFramesStandOutFromTheColumnInEveryTheme) {
  const auto color = [](const ImVec4& c) { return plot::Color{c.x, c.y, c.z, c.w}; };
  for (const Theme theme : {Theme::dark, Theme::light, Theme::projector}) {
    set_look({theme, 1.0f, i18n::Language::English, "font 1 en"}, {1280, 720});
    render();
    const ImGuiStyle& style = ImGui::GetStyle();
    const plot::Color column = color(style.Colors[ImGuiCol_WindowBg]);
    const plot::Color drawn = color(style.Colors[style.FrameBorderSize > 0.0f ? ImGuiCol_Border : ImGuiCol_FrameBg]);
    const plot::Color edge = plot::mix(column, drawn, drawn.a);
    EXPECT_GE(plot::contrast_ratio(edge, column), 1.4f) << theme_name(theme);
  }
}

// Presenter mode: the step's panels take a large part of the window (at least a third: the caption
// beside or under them has the rest, a map's frame hugs its grid), and the caption covers none of them.
TEST_F(ClassroomLayout, PresenterModeFillsTheWindowWithTheStepsPanel) {
  const Look look{Theme::projector, 1.5f, i18n::Language::English, "projector font 1.5 en"};
  set_look(look, {1280, 720});
  UiState& ui = app_->ui();
  ui.presenter = true;
  for (std::size_t lesson = 0; lesson < ui.lessons.lessons.size(); ++lesson) {
    ASSERT_TRUE(open_lesson_step(ui, lesson, 0, false));
    ui.select_view_tab = true;
    render();
    const std::string where = ui.lessons.lessons[lesson].name + " step 1 presenter";
    ASSERT_FALSE(ui.placed_plots.empty()) << where;
    float area = 0.0f;
    const LessonReport::TextBox& caption = ui.lesson_report.text_box;
    for (const PlacedPlot& placed : ui.placed_plots) {
      area += (placed.max.x - placed.min.x) * (placed.max.y - placed.min.y);
      const bool covered = std::min(placed.max.x, caption.max.x) - std::max(placed.min.x, caption.min.x) > 1.0f &&
                           std::min(placed.max.y, caption.max.y) - std::max(placed.min.y, caption.min.y) > 1.0f;
      EXPECT_FALSE(covered) << where << ": the caption lies over " << placed.name;
    }
    EXPECT_GT(area, 1280.0f * 720.0f / 3.0f) << where;
    report(layout_defects(ui, describe(where.c_str(), {1280, 720}, look), false));
  }
  ui.presenter = false;
  close_lesson(ui);
}

// `--panel controls` in a lesson: the column is hidden there, so the step's controls
// (Previous/Next, the guess field) are the lesson panel's, and that is the panel cut out; with the
// lesson's column shown (>> or Ctrl+B), the column. It read the column flag outside lessons and cut
// out the text and plots where the column would have been.
TEST_F(ClassroomLayout, PanelControlsInALessonIsWhatTheLessonShowsAsItsControls) {
  const Look look{Theme::projector, 1.5f, i18n::Language::English, "projector font 1.5 en"};
  set_look(look, {1280, 720});
  UiState& ui = app_->ui();
  ui.controls_shown = true;  // the flag outside lessons, which the lesson does not follow
  for (const bool presenter : {false, true}) {
    ui.presenter = presenter;
    ASSERT_TRUE(open_lesson_step(ui, 0, 0, false));
    ui.select_view_tab = true;
    render();
    const std::string where = std::string("why-softmax step 1") + (presenter ? " presenter" : "");
    ASSERT_FALSE(ui.lesson_view.controls_shown) << where;
    ASSERT_TRUE(ui.lesson_report.text_box.placed) << where;
    const std::optional<PanelRect> panel = find_panel(ui, ImVec2(1280, 720), "controls");
    ASSERT_TRUE(panel) << where;
    EXPECT_EQ(panel->min.x, ui.lesson_report.text_box.min.x) << where;
    EXPECT_EQ(panel->min.y, ui.lesson_report.text_box.min.y) << where;
    EXPECT_EQ(panel->max.x, ui.lesson_report.text_box.max.x) << where;
    EXPECT_EQ(panel->max.y, ui.lesson_report.text_box.max.y) << where;
  }
  ui.presenter = false;
  ui.lesson_view.controls_shown = true;
  render();
  const std::optional<PanelRect> column = find_panel(ui, ImVec2(1280, 720), "controls");
  const DashboardLayout layout = dashboard_layout(ImVec2(1280, 720), ui.ui_scale, true);
  ASSERT_TRUE(column);
  EXPECT_EQ(column->min.x, layout.controls_min.x);
  EXPECT_EQ(column->max.x, layout.controls_max.x);
  EXPECT_EQ(column->max.y, layout.controls_max.y);
  ui.lesson_view.controls_shown = false;
  close_lesson(ui);
}

// The grid: fewer plots per row when the space is narrow, never a cell under the minimum.
TEST(FlowGrid, FewerColumnsWhenNarrowAndNeverBelowTheMinimum) {
  const std::vector<int> six(6, 1);
  const float em = 20.0f, gap = 8.0f;
  const FlowGrid wide = flow_grid(six, 3, ImVec2(0, 0), ImVec2(1800, 900), gap, em);
  EXPECT_EQ(wide.columns, 3);
  const FlowGrid narrow = flow_grid(six, 3, ImVec2(0, 0), ImVec2(600, 900), gap, em);
  EXPECT_EQ(narrow.columns, 2);  // 3 × 280 px + gaps > 600; 2 × 296 ≥ 280
  const FlowGrid tiny = flow_grid(six, 3, ImVec2(0, 0), ImVec2(300, 400), gap, em);
  EXPECT_EQ(tiny.columns, 1);
  for (const FlowGrid* grid : {&wide, &narrow, &tiny}) {
    ASSERT_EQ(grid->min.size(), 6u);
    for (std::size_t k = 0; k < 6; ++k) {
      EXPECT_GE(grid->max[k].y - grid->min[k].y, min_plot_height_em * em - 0.5f);
      if (grid->columns > 1) {
        EXPECT_GE(grid->max[k].x - grid->min[k].x, min_plot_width_em * em - 0.5f);
      }
    }
  }
  EXPECT_GT(tiny.bottom, 400.0f);  // six minimum-height rows do not fit: the caller scrolls
}

TEST(OverlappingTexts, FindsOverlapsAndIgnoresTouchingBoxes) {
  std::vector<plot::PlacedText> texts{{"a", plot::TextRole::DataLabel, 0, 0, 50, 10},
                                      {"b", plot::TextRole::DataLabel, 40, 5, 90, 15},
                                      {"c", plot::TextRole::DataLabel, 90, 5, 120, 15}};
  const auto pairs = plot::overlapping_texts(texts);
  ASSERT_EQ(pairs.size(), 1u);
  EXPECT_EQ(pairs[0], std::make_pair(std::size_t{0}, std::size_t{1}));
}

}  // namespace
}  // namespace smlab::app
