// The lesson panel, the highlight frame and the lesson keys (presentation clickers send PageUp and
// PageDown). Lesson text comes from the lesson files in the current language; the panel's own
// labels come from the i18n catalogue.
//
// [SECTION] Index
//   [SECTION] Highlight frame and lesson keys
//   [SECTION] Predict steps: covers, answer badge, predict box
//   [SECTION] The lesson panel
//   [SECTION] Entry points: highlight, panel, launcher
#include "panels/lesson_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <filesystem>
#include <string>
#include <utility>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/panels.hpp"
#include "plot/text_wrap.hpp"

namespace smlab::app {
namespace {

// [SECTION] Highlight frame and lesson keys

// Text sizes relative to the UI font: the step's title and text must read from the back row.
constexpr float title_font_scale = 1.35f;
constexpr float text_font_scale = 1.2f;
// The panel covers the control column from this fraction of its height down, so the main
// sliders above it stay visible and the class sees them move.
constexpr float panel_top_fraction = 0.34f;

ImU32 highlight_color(Theme theme) {
  // Amber on dark; a deep orange that stays visible on white and on a washed-out projector.
  return theme == Theme::dark ? IM_COL32(255, 176, 0, 255) : IM_COL32(230, 85, 13, 255);
}

void handle_keys(UiState& ui) {
  const ImGuiIO& io = ImGui::GetIO();
  // A text field, a dragged slider or a popup (the session dialog) keeps the keys.
  if (io.WantTextInput || ImGui::IsAnyItemActive() || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId)) return;
  if (io.KeyCtrl || io.KeyAlt) return;
  // Left/Right nudge the slider under the mouse when there is one (interaction_ui.hpp; it then sets
  // io.WantCaptureKeyboard); the clicker's PageUp/PageDown always step, wherever the mouse rests.
  const bool arrows = !ui.interaction.arrows_taken && !io.WantCaptureKeyboard;
  // On a predict step not yet revealed the first Next press reveals (lesson_next).
  // One press is one reveal or one step: no key repeat. A key held past ImGui's repeat delay
  // (0.275 s; a clicker's button held a moment, or a key-up delayed on a loaded machine) would
  // otherwise step again every 0.05 s, past questions and straight to their answers.
  constexpr bool repeat = false;
  if ((arrows && ImGui::IsKeyPressed(GLFW_KEY_RIGHT, repeat)) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, repeat))
    lesson_next(ui);
  else if ((arrows && ImGui::IsKeyPressed(GLFW_KEY_LEFT, repeat)) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, repeat))
    lesson_previous(ui);
  else if (ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false) && !ui.escape_taken)
    close_lesson(ui);  // taken: left presenter mode
}

// The draw list for marks over `placed`: the plot's own (above it, below later windows such as
// dialogs and toasts), clipped to what its window showed, grown by `reach` px each way (a frame
// drawn around a plot at the content's edge). Pop with PopClipRect. The foreground list only for a
// plot that recorded none.
ImDrawList* overlay_list(const PlacedPlot& placed, float reach) {
  if (placed.draw_list == nullptr) {
    ImGui::GetForegroundDrawList()->PushClipRectFullScreen();
    return ImGui::GetForegroundDrawList();
  }
  placed.draw_list->PushClipRect(ImVec2(placed.clip_min.x - reach, placed.clip_min.y - reach),
                                 ImVec2(placed.clip_max.x + reach, placed.clip_max.y + reach), false);
  return placed.draw_list;
}

void draw_frame(const PlacedPlot& placed, Theme theme, float scale) {
  const float pad = 3.0f * scale;
  const ImVec2 min(placed.min.x - pad, placed.min.y - pad);
  const ImVec2 max(placed.max.x + pad, placed.max.y + pad);
  ImDrawList* draw = overlay_list(placed, 7.0f * scale);
  const ImU32 color = highlight_color(theme);
  // A soft halo outside a solid frame: visible on any plot colour, and nothing inside is covered.
  draw->AddRect(ImVec2(min.x - 3.0f * scale, min.y - 3.0f * scale), ImVec2(max.x + 3.0f * scale, max.y + 3.0f * scale),
                (color & ~IM_COL32_A_MASK) | (90u << IM_COL32_A_SHIFT), 6.0f * scale, 0, 3.0f * scale);
  draw->AddRect(min, max, color, 4.0f * scale, 0, 3.5f * scale);
  draw->PopClipRect();
}

// One frame per plot of the panel: a group such as "maps" need not be a rectangle.
void draw_highlight(const UiState& ui) {
  for (const PlacedPlot* placed : lesson_highlighted_plots(ui)) draw_frame(*placed, ui.theme, ui.ui_scale);
}

// [SECTION] Predict steps: covers, answer badge, predict box

// The plots a predict step hides: those of its "hides" panel placed this frame.
std::vector<const PlacedPlot*> hidden_plots(const UiState& ui) {
  std::vector<const PlacedPlot*> plots;
  const LessonStep* step = current_step(ui);
  if (step == nullptr || !step->predict || ui.lesson.revealed || step->view != ui.view) return plots;
  const LessonPanel* panel = find_lesson_panel(step->view, step->predict->hides);
  if (panel == nullptr) return plots;
  const std::string prefix = std::string(view_info(step->view).name) + "/";
  for (const PlacedPlot& placed : ui.placed_plots)
    for (std::string_view plot : panel->plots)
      if (placed.name == prefix + std::string(plot)) plots.push_back(&placed);
  return plots;
}

// Covers each hidden plot with an opaque card: the question, large, and how to answer it.
void draw_covers(const UiState& ui, const LessonStep& step) {
  const ImU32 accent = highlight_color(ui.theme);
  ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  background.w = 1.0f;
  const ImU32 fill = ImGui::ColorConvertFloat4ToU32(background);
  const ImU32 text_color = ImGui::GetColorU32(ImGuiCol_Text);
  const ImU32 dim_color = ImGui::GetColorU32(ImGuiCol_TextDisabled);
  ImFont* font = ImGui::GetFont();
  const std::string& question = step.predict->question.in(i18n::language());
  const std::string hint = i18n::tr("lesson.predict.cover_hint");
  for (const PlacedPlot* placed : hidden_plots(ui)) {
    ImDrawList* draw = overlay_list(*placed, 0.0f);
    draw->AddRectFilled(placed->min, placed->max, fill, 4.0f * ui.ui_scale);
    draw->AddRect(placed->min, placed->max, accent, 4.0f * ui.ui_scale, 0, 2.0f * ui.ui_scale);
    const float pad = 12.0f * ui.ui_scale;
    const float width = std::max(placed->max.x - placed->min.x - 2.0f * pad, 1.0f);
    // The question at 1.3× the UI font, then the hint: wrapped by the project's rules (CJK too).
    auto layout = [&](const std::string& text, float size) {
      return plot::wrap_text(text, width, [&](std::string_view piece) {
        return font->CalcTextSizeA(size, FLT_MAX, 0.0f, piece.data(), piece.data() + piece.size()).x;
      });
    };
    const float big = ImGui::GetFontSize() * 1.3f, small = ImGui::GetFontSize();
    const auto question_lines = layout(question, big);
    const auto hint_lines = layout(hint, small);
    const float height = static_cast<float>(question_lines.size()) * big * 1.2f + small * 0.8f +
                         static_cast<float>(hint_lines.size()) * small * 1.2f;
    float y = std::max(placed->min.y + pad, 0.5f * (placed->min.y + placed->max.y) - 0.5f * height);
    draw->PushClipRect(placed->min, placed->max, true);  // inside the plot and what its window shows
    for (const plot::LineSpan& line : question_lines) {
      draw->AddText(font, big, ImVec2(placed->min.x + pad, y), text_color, question.data() + line.begin,
                    question.data() + line.end);
      y += big * 1.2f;
    }
    y += small * 0.8f;
    for (const plot::LineSpan& line : hint_lines) {
      draw->AddText(font, small, ImVec2(placed->min.x + pad, y), dim_color, hint.data() + line.begin,
                    hint.data() + line.end);
      y += small * 1.2f;
    }
    draw->PopClipRect();
    draw->PopClipRect();
  }
}

// "the answer to 3 decimals", "… to 4 significant digits", "… to the nearest whole number".
std::string precision_words(const PredictPrecision& precision) {
  if (precision.kind == PredictPrecision::Kind::significant)
    return i18n::format("lesson.predict.significant", {std::to_string(precision.digits)});
  if (precision.digits == 0) return i18n::tr("lesson.predict.whole");
  return i18n::format("lesson.predict.decimals", {std::to_string(precision.digits)});
}

// The revealed answer's two lines, as the question asks for its digits: "Your guess: -1003    The
// app's number: -1000" and the verdict by the one rule for close (lessons.hpp: close_within).
struct RevealLines {
  std::string answer, verdict;
};
RevealLines reveal_lines(const LessonPredict& predict, const PredictionReveal& reveal) {
  std::string answer =
      predict.choices.empty() ? predict_answer(predict.precision, reveal.answer) : predict_number(reveal.answer);
  // A Monte Carlo mean also says how sure it is: "0.1 (mean 0.0914 ± 0.0017, 15872 trials)".
  if (reveal.standard_error)
    answer = i18n::format("lesson.predict.monte_carlo",
                          {answer, predict_answer({PredictPrecision::Kind::significant, 3}, reveal.answer),
                           predict_off_by(*reveal.standard_error), std::to_string(reveal.trials)});
  RevealLines lines;
  lines.answer =
      reveal.guess
          ? i18n::format(
                "lesson.predict.answer_guess",
                {predict.choices.empty() ? predict_guess(*reveal.guess) : predict_number(*reveal.guess), answer})
          : i18n::format("lesson.predict.answer", {answer});
  if (!reveal.guess) return lines;
  if (reveal.nearest_choice)
    lines.verdict = reveal.close ? i18n::tr("lesson.predict.nearest")
                                 : i18n::format("lesson.predict.not_nearest", {predict_number(*reveal.nearest_choice)});
  else
    lines.verdict = i18n::format(reveal.close ? "lesson.predict.close" : "lesson.predict.off",
                                 {predict_off_by(reveal.off_by), predict_answer(predict.precision, reveal.answer),
                                  predict_off_by(reveal.margin)});
  return lines;
}

// In presenter mode (no lesson panel) the revealed answer sits on the plot itself: a card in the
// top-right corner of the first plot the step hid, under its title.
void draw_reveal_badge(const UiState& ui, const LessonStep& step, const Snapshot* snapshot, const DkSweep* sweep) {
  if (snapshot == nullptr || ui.lesson.animating || step.view != ui.view) return;
  const Result<PredictionReveal> revealed = reveal_prediction(*step.predict, *snapshot, ui.lesson.guess, sweep);
  if (!revealed.ok() || !revealed->converged) return;
  const PredictionReveal& reveal = *revealed;
  const LessonPanel* panel = find_lesson_panel(step.view, step.predict->hides);
  if (panel == nullptr) return;
  const std::string wanted = std::string(view_info(step.view).name) + "/";
  const PlacedPlot* target = nullptr;
  for (const PlacedPlot& placed : ui.placed_plots)
    for (std::string_view plot : panel->plots)
      if (target == nullptr && placed.name == wanted + std::string(plot)) target = &placed;
  if (target == nullptr) return;
  const RevealLines lines = reveal_lines(*step.predict, reveal);
  const std::string& first = lines.answer;
  const std::string& second = lines.verdict;
  ImFont* font = ImGui::GetFont();
  const float size = ImGui::GetFontSize() * 1.2f, pad = 8.0f * ui.ui_scale;
  const float width = std::max(font->CalcTextSizeA(size, FLT_MAX, 0.0f, first.c_str()).x,
                               font->CalcTextSizeA(size, FLT_MAX, 0.0f, second.c_str()).x) +
                      2.0f * pad;
  const float height = (second.empty() ? 1.0f : 2.0f) * size * 1.2f + 2.0f * pad;
  const ImVec2 max(target->max.x - pad, target->min.y + 2.6f * ImGui::GetFontSize() + height);
  const ImVec2 min(std::max(target->min.x + pad, max.x - width), max.y - height);
  ImDrawList* draw = overlay_list(*target, 0.0f);
  ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  background.w = 0.94f;
  draw->AddRectFilled(min, max, ImGui::ColorConvertFloat4ToU32(background), 4.0f * ui.ui_scale);
  draw->AddRect(min, max, highlight_color(ui.theme), 4.0f * ui.ui_scale, 0, 2.0f * ui.ui_scale);
  draw->AddText(font, size, ImVec2(min.x + pad, min.y + pad), ImGui::GetColorU32(ImGuiCol_Text), first.c_str());
  if (!second.empty())
    draw->AddText(font, size, ImVec2(min.x + pad, min.y + pad + size * 1.2f), highlight_color(ui.theme),
                  second.c_str());
  draw->PopClipRect();
}

// The predict box under the step's text: the question, the guess (choice buttons or a typed
// number and Commit) and, once revealed, the answer beside the guess and how close it was.
void draw_predict(UiState& ui, const LessonStep& step, const Snapshot* snapshot, const DkSweep* sweep, ImU32 accent) {
  const LessonPredict& predict = *step.predict;
  const i18n::Language language = i18n::language();
  ImGui::Separator();
  ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(accent));
  plot::wrapped_text(i18n::format("lesson.predict.question", {predict.question.in(language)}),
                     ImGui::GetContentRegionAvail().x);
  ImGui::PopStyleColor();
  if (!ui.lesson.revealed) {
    if (!predict.choices.empty()) {
      for (std::size_t k = 0; k < predict.choices.size(); ++k) {
        if (k > 0) ImGui::SameLine();
        ImGui::PushID(static_cast<int>(k));
        // A refused guess shows its line in ui.lesson.guess_error.
        if (ImGui::Button(predict_number(predict.choices[k]).c_str())) (void)commit_guess(ui, predict.choices[k]);
        ImGui::PopID();
      }
    } else {
      const std::string commit = i18n::label("lesson.predict.commit", "predict-commit");
      ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - ImGui::CalcTextSize(commit.c_str()).x -
                                           4.0f * ImGui::GetStyle().FramePadding.x,
                                       40.0f));
      // The field keeps the text as typed, updated on every key (no EnterReturnsTrue: with it a
      // number field applies the text on Enter only, and a click on Commit committed the old value).
      // Enter ends the edit; then, like the click, it commits what the field shows.
      ImGui::InputTextWithHint("##typed-guess", i18n::tr("lesson.predict.type_hint"), &ui.lesson.typed_guess);
      const bool entered =
          ImGui::IsItemDeactivated() && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)) ||
                                         ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter)));
      ImGui::SameLine();
      if (ImGui::Button(commit.c_str()) || entered) (void)commit_typed_guess(ui, ui.lesson.typed_guess);
      plot::wrapped_text(i18n::format("lesson.predict.range", {predict_number(predict.min), predict_number(predict.max),
                                                               precision_words(predict.precision)}),
                         ImGui::GetContentRegionAvail().x, true);
    }
    if (!ui.lesson.guess_error.empty())
      ImGui::TextColored(ImVec4(1.0f, 0.4f, 0.35f, 1.0f), "%s", ui.lesson.guess_error.c_str());
    return;
  }
  if (snapshot == nullptr || ui.lesson.animating) {
    ImGui::TextDisabled("%s", i18n::tr("lesson.predict.computing"));
    return;
  }
  const Result<PredictionReveal> revealed = reveal_prediction(predict, *snapshot, ui.lesson.guess, sweep);
  if (!revealed.ok()) {
    ImGui::TextDisabled("%s", revealed.error().message.c_str());
    return;
  }
  if (!revealed->converged) {  // a Monte Carlo mean still refining: no number until it has converged
    ImGui::TextDisabled("%s", i18n::format("lesson.predict.converging", {std::to_string(revealed->trials)}).c_str());
    return;
  }
  const PredictionReveal& reveal = *revealed;
  const float width = ImGui::GetContentRegionAvail().x;
  const RevealLines lines = reveal_lines(predict, reveal);
  plot::wrapped_text(lines.answer, width);
  if (reveal.guess) {
    const std::string& verdict = lines.verdict;
    // Green for close, orange for off: light shades on dark, deep ones on white (and a projector).
    const bool dark = ui.theme == Theme::dark;
    const ImVec4 good = dark ? ImVec4(0.35f, 0.8f, 0.45f, 1.0f) : ImVec4(0.05f, 0.45f, 0.15f, 1.0f);
    const ImVec4 bad = dark ? ImVec4(1.0f, 0.55f, 0.35f, 1.0f) : ImVec4(0.75f, 0.3f, 0.0f, 1.0f);
    ImGui::PushStyleColor(ImGuiCol_Text, reveal.close ? good : bad);
    plot::wrapped_text(verdict, width);
    ImGui::PopStyleColor();
  }
  if (predict.after) plot::wrapped_text(predict.after->in(language), width);
}

// [SECTION] The lesson panel

void draw_panel(UiState& ui, const Lesson& lesson, std::size_t step_index, const Snapshot* snapshot,
                const DkSweep* sweep) {
  const LessonStep& step = lesson.steps[step_index];
  const i18n::Language language = i18n::language();
  const ImGuiIO& io = ImGui::GetIO();
  const DashboardLayout layout = dashboard_layout(io.DisplaySize, ui.ui_scale, true);
  const float column_height = layout.controls_max.y - layout.controls_min.y;
  // With the controls hidden the lesson has the whole column.
  const float top_fraction = ui.controls_shown ? panel_top_fraction : 0.0f;
  const ImVec2 min(layout.controls_min.x, layout.controls_min.y + top_fraction * column_height);
  const ImVec2 size(layout.controls_max.x - layout.controls_min.x, layout.controls_max.y - min.y);
  ImGui::SetNextWindowPos(min);
  ImGui::SetNextWindowSize(size);
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
  const ImU32 accent = highlight_color(ui.theme);
  // Opaque: the control column underneath must not show through the lesson text.
  ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  background.w = 1.0f;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, background);
  ImGui::PushStyleColor(ImGuiCol_Border, ImGui::ColorConvertU32ToFloat4(accent));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 2.0f * ui.ui_scale);
  ImGui::Begin("##lesson-panel", nullptr, flags);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);

  // Lesson list and close button on one line.
  const ImGuiStyle& style = ImGui::GetStyle();
  const std::string close_label = i18n::label("lesson.close", "lesson-close");
  const float close_width = ImGui::CalcTextSize(i18n::tr("lesson.close")).x + 2.0f * style.FramePadding.x;
  ImGui::SetNextItemWidth(ImGui::GetContentRegionAvail().x - close_width - style.ItemSpacing.x);
  if (ImGui::BeginCombo("##lesson-list", lesson.title.in(language).c_str())) {
    for (std::size_t index = 0; index < ui.lessons.lessons.size(); ++index) {
      const Lesson& entry = ui.lessons.lessons[index];
      ImGui::PushID(static_cast<int>(index));
      if (ImGui::Selectable(entry.title.in(language).c_str(), index == ui.lesson.open->lesson))
        open_lesson_step(ui, index, 0, true);
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::SameLine();
  if (ImGui::Button(close_label.c_str())) close_lesson(ui);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("lesson.close_tooltip"));
  if (!ui.lesson.open) {  // the Close button
    ImGui::End();
    return;
  }

  ImGui::TextColored(
      ImGui::ColorConvertU32ToFloat4(accent), "%s",
      i18n::format("lesson.step_counter", {std::to_string(step_index + 1), std::to_string(lesson.steps.size())})
          .c_str());
  ImGui::SetWindowFontScale(title_font_scale);
  plot::wrapped_text(step.title.in(language), ImGui::GetContentRegionAvail().x);
  ImGui::SetWindowFontScale(1.0f);
  // Data imported over a lesson step that has its own: the text describes the lesson's numbers, not
  // these, and says so before it is read.
  if (ui.params.imported != nullptr && step.params.imported == nullptr) {
    std::string files;
    for (const std::string& source : ui.params.imported->sources)
      files += (files.empty() ? "" : ", ") + std::filesystem::path(source).filename().string();
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(accent));
    plot::wrapped_text(i18n::format("lesson.imported_data", {files}), ImGui::GetContentRegionAvail().x);
    ImGui::PopStyleColor();
  }
  ImGui::Separator();

  // The text scrolls if a large font scale makes it taller than the room left above the buttons.
  // Below it: the buttons and the key hint, as many lines as the hint wraps into.
  const char* const keys_hint =
      i18n::tr(lesson_awaiting_prediction(ui) ? "lesson.predict.keys_hint" : "lesson.keys_hint");
  const plot::MeasureText measure = [](std::string_view text) {
    return ImGui::CalcTextSize(text.data(), text.data() + text.size()).x;
  };
  const auto hint_lines = static_cast<float>(
      std::max<std::size_t>(1, plot::wrap_text(keys_hint, ImGui::GetContentRegionAvail().x, measure).size()));
  const float buttons_height =
      ImGui::GetFrameHeight() * 1.3f + hint_lines * ImGui::GetTextLineHeightWithSpacing() + 2.0f * style.ItemSpacing.y;
  // A predict step keeps a box of its own under the text (question, guess, answer), about seven
  // lines: the guess buttons must stay on screen however long the text is.
  const float predict_height = step.predict ? 7.0f * ImGui::GetTextLineHeightWithSpacing() : 0.0f;
  ImGui::BeginChild("##lesson-text",
                    ImVec2(0.0f, std::max(ImGui::GetContentRegionAvail().y - buttons_height - predict_height, 1.0f)));
  ImGui::SetWindowFontScale(text_font_scale);
  plot::wrapped_text(step.text.in(language), ImGui::GetContentRegionAvail().x);
  ui.lesson.text_scrolls = ImGui::GetScrollMaxY() > 0.0f;
  ImGui::EndChild();
  if (step.predict) {
    ImGui::BeginChild("##lesson-predict", ImVec2(0.0f, predict_height));
    draw_predict(ui, step, snapshot, sweep, accent);
    ImGui::EndChild();
  }

  // Previous / Next (Finish on the last step), each half the width and a little taller than usual.
  const float half = (ImGui::GetContentRegionAvail().x - style.ItemSpacing.x) / 2.0f;
  const ImVec2 button(half, ImGui::GetFrameHeight() * 1.3f);
  ImGui::BeginDisabled(step_index == 0);
  if (ImGui::Button(i18n::label("lesson.previous", "lesson-previous").c_str(), button)) lesson_previous(ui);
  ImGui::EndDisabled();
  ImGui::SameLine();
  const bool last = step_index + 1 >= lesson.steps.size();
  const bool awaiting = lesson_awaiting_prediction(ui);
  const char* next_key = awaiting ? "lesson.predict.reveal" : last ? "lesson.finish" : "lesson.next";
  if (ImGui::Button(i18n::label(next_key, "lesson-next").c_str(), button)) {
    if (awaiting)
      (void)commit_guess(ui, std::nullopt);
    else if (last)
      close_lesson(ui);
    else
      lesson_next(ui);
  }
  // Wrapped: at 1280×720 with font 1.5 the hint ran past the panel's edge ("Es").
  plot::wrapped_text(i18n::tr(awaiting ? "lesson.predict.keys_hint" : "lesson.keys_hint"),
                     ImGui::GetContentRegionAvail().x, true);
  ImGui::End();
}

}  // namespace

// [SECTION] Entry points: highlight, panel, launcher

std::vector<const PlacedPlot*> lesson_highlighted_plots(const UiState& ui) {
  std::vector<const PlacedPlot*> plots;
  const LessonStep* step = current_step(ui);
  if (step == nullptr || step->view != ui.view) return plots;
  const LessonPanel* panel = find_lesson_panel(step->view, step->panel);
  if (panel == nullptr) return plots;
  const std::string prefix = std::string(view_info(step->view).name) + "/";
  for (const PlacedPlot& placed : ui.placed_plots) {
    if (placed.name.size() <= prefix.size() || placed.name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string_view plot = std::string_view(placed.name).substr(prefix.size());
    if (std::find(panel->plots.begin(), panel->plots.end(), plot) != panel->plots.end()) plots.push_back(&placed);
  }
  return plots;
}

void draw_lesson(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep) {
  if (const auto start = std::exchange(ui.lesson.start_requested, std::nullopt)) open_lesson_step(ui, *start, 0, true);
  if (current_step(ui) == nullptr) {
    ui.lesson.open.reset();
    return;
  }
  handle_keys(ui);
  if (!ui.lesson.open) return;  // Escape
  if (const LessonStep* step = current_step(ui); step != nullptr && step->predict) {
    draw_covers(ui, *step);
    if (ui.presenter && ui.lesson.revealed) draw_reveal_badge(ui, *step, snapshot, sweep);
  }
  if (ui.presenter) return;  // the step's panel fills the window and its text is the caption
  draw_highlight(ui);
  draw_panel(ui, *current_lesson(ui), ui.lesson.open->step, snapshot, sweep);
}

void draw_lesson_launcher(UiState& ui) {
  ImGui::Spacing();
  ImGui::TextColored(ImGui::GetStyle().Colors[ImGuiCol_CheckMark], "%s", i18n::tr("lesson.section"));
  ImGui::Separator();
  const auto& lessons = ui.lessons.lessons;
  if (lessons.empty()) {
    ImGui::TextDisabled("%s", ui.lessons.error ? ui.lessons.error->message.c_str() : i18n::tr("lesson.none"));
    return;
  }
  const i18n::Language language = i18n::language();
  const int count = static_cast<int>(lessons.size());
  ui.lesson.launcher_index = std::clamp(ui.lesson.launcher_index, 0, count - 1);
  const Lesson& selected = lessons[static_cast<std::size_t>(ui.lesson.launcher_index)];
  const std::string start = i18n::label("lesson.start", "lesson-start");
  ImGui::PushItemWidth(-ImGui::CalcTextSize(i18n::tr("lesson.start")).x - 3.0f * ImGui::GetStyle().FramePadding.x -
                       ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::BeginCombo("##lesson-launcher", selected.title.in(language).c_str())) {
    for (int index = 0; index < count; ++index) {
      const Lesson& lesson = lessons[static_cast<std::size_t>(index)];
      ImGui::PushID(index);
      if (ImGui::Selectable(lesson.title.in(language).c_str(), index == ui.lesson.launcher_index))
        ui.lesson.launcher_index = index;
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::PopItemWidth();
  ImGui::SameLine();
  // The control column edits a copy of Params that draw_main_window applies after this: the step
  // opens in draw_lesson, after that copy is applied, or the copy would undo it.
  if (ImGui::Button(start.c_str())) ui.lesson.start_requested = static_cast<std::size_t>(ui.lesson.launcher_index);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", i18n::format("lesson.start_tooltip", {std::to_string(selected.steps.size())}).c_str());
  if (ui.lessons.error) ImGui::TextDisabled("%s", ui.lessons.error->message.c_str());
}

}  // namespace smlab::app
