// The lesson panel, the highlight frame and the lesson keys (presentation clickers send PageUp and
// PageDown). Lesson text comes from the lesson files in the current language; the panel's own
// labels come from the i18n catalogue.
//
// [SECTION] Index
//   [SECTION] Highlight frame and lesson keys
//   [SECTION] Predict steps: covers, answer badge
//   [SECTION] The text block: measured and drawn by the same list of items
//   [SECTION] Presenter mode: the caption and a guess typed on the keyboard
//   [SECTION] The lesson panel
//   [SECTION] Entry points: highlight, panel, launcher
#include "panels/lesson_panel.hpp"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>  // key codes only: the GLFW backend fills io.KeysDown by GLFW key

#include "i18n/i18n.hpp"
#include "lesson_player/lesson_player.hpp"
#include "panels/panels.hpp"
#include "lessons/quoted_numbers.hpp"
#include "plot/text_wrap.hpp"

namespace smlab::app {
namespace {

// [SECTION] Highlight frame and lesson keys

ImU32 highlight_color(Theme theme) {
  // Amber on dark; a deep orange that stays visible on white and on a washed-out projector.
  return theme == Theme::dark ? IM_COL32(255, 176, 0, 255) : IM_COL32(230, 85, 13, 255);
}

// What presenter mode shows of the guess typed so far: the number and a cursor, or the choices with
// their keys, the picked one in brackets.
std::string presenter_guess_line(const UiState& ui, const LessonPredict& predict) {
  if (predict.choices.empty()) return i18n::format("lesson.predict.typed", {ui.lesson_view.presenter_typed + "_"});
  std::string line;
  for (std::size_t k = 0; k < predict.choices.size(); ++k) {
    const std::string entry = std::to_string(k + 1) + ": " + predict_number(predict.choices[k]);
    line += (line.empty() ? "" : "    ") +
            (static_cast<int>(k) == ui.lesson_view.presenter_choice ? "[" + entry + "]" : entry);
  }
  return line;
}

const char* presenter_predict_hint(const LessonPredict& predict) {
  return i18n::tr(predict.choices.empty() ? "lesson.predict.presenter_hint" : "lesson.predict.presenter_choice_hint");
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

// [SECTION] Predict steps: covers, answer badge

// The plots a predict step hides: those of its "hides" panel placed this frame.
std::vector<const PlacedPlot*> hidden_plots(const UiState& ui) {
  std::vector<const PlacedPlot*> plots;
  const LessonStep* step = current_step(ui);
  if (step == nullptr || !step->predict || ui.lesson.revealed || step->view != ui.view) return plots;
  const std::vector<std::string_view> hidden = panel_entry_plots(step->view, step->predict->hides);
  const std::string prefix = std::string(view_info(step->view).name) + "/";
  for (const PlacedPlot& placed : ui.placed_plots)
    for (std::string_view plot : hidden)
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
  // In presenter mode there is no lesson panel: the guess is typed on the keyboard, and shows here.
  // A student's page in a class: their keys and answer reveal nothing; the teacher reveals.
  const std::string hint = ui.presenter
                               ? presenter_guess_line(ui, *step.predict) + "\n" + presenter_predict_hint(*step.predict)
                           : ui.lesson.reveal_held ? std::string(i18n::tr("lesson.predict.cover_hint_class"))
                                                   : std::string(i18n::tr("lesson.predict.cover_hint"));
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

// [SECTION] The text block: measured and drawn by the same list of items

// The items of the lesson text block (normal mode) and of the presenter caption, in order, so that
// the height the lesson layout plans with is the height drawn. `Items` is called once with a
// Measure (adds heights) and once with a Draw (ImGui calls) that mirror each other item by item.
// A step that shows the training lab while a live trainer runs it: its Train/Pause, Step, pace.
bool shows_live_training(const UiState& ui, const LessonStep& step) {
  return step.view == View::training && ui.view == View::training && ui.training.live;
}

// Presenter mode has no buttons: the status and the key that starts and pauses the training.
std::string presenter_training_line(const UiState& ui, const TrainingLab* lab) {
  return training_status(ui, lab) + "    " + i18n::tr("lesson.training_keys");
}

struct Measure {
  float width = 0.0f;  // the content width
  float height = 0.0f;
  // A paragraph wrapped at `width` with text `scale`× the UI font: one line height per line.
  void lines(std::string_view text, float scale) {
    if (text.empty()) return;
    const float size = ImGui::GetFontSize() * scale;
    ImFont* font = ImGui::GetFont();
    const auto count = plot::wrap_text(text, width, [&](std::string_view piece) {
                         return font->CalcTextSizeA(size, FLT_MAX, 0.0f, piece.data(), piece.data() + piece.size()).x;
                       }).size();
    height += static_cast<float>(count) * (size + ImGui::GetStyle().ItemSpacing.y);
  }
  void row(float row_height) { height += row_height + ImGui::GetStyle().ItemSpacing.y; }
  void separator() { height += ImGui::GetStyle().ItemSpacing.y; }
};

// The width the text block's lines wrap to in a box `box_width` px wide: the window's padding and
// border off, and a pixel more, so that measuring and drawing wrap alike whatever ImGui rounds.
float block_text_width(float box_width, float ui_scale) {
  return box_width - 2.0f * (ImGui::GetStyle().WindowPadding.x + 2.0f * ui_scale) - 1.0f;
}

// Lines of text at `scale`× the UI font, wrapped to the content width, optionally coloured;
// `after_line` as plot::wrapped_text calls it.
void draw_lines(float width, std::string_view text, float scale, std::optional<ImVec4> color = std::nullopt,
                bool disabled = false, const plot::DrawnLine& after_line = {}) {
  if (text.empty()) return;
  ImGui::SetWindowFontScale(scale);
  if (color) ImGui::PushStyleColor(ImGuiCol_Text, readable_text(*color));
  plot::wrapped_text(text, width, disabled, after_line);
  if (color) ImGui::PopStyleColor();
  ImGui::SetWindowFontScale(1.0f);
}

// The step's text at `scale`× the UI font, drawn by draw_lines, each bound number underlined with
// dots (it follows the sliders; hovering it marks it on the plots). Writes each number's box to the
// report and the one under the mouse to ui.lesson_view.hovered_number.
void draw_bound_lines(UiState& ui, float width, std::string_view text, float scale, std::span<const BoundSpan> spans) {
  std::optional<std::pair<double, int>> hovered;
  draw_lines(width, text, scale, std::nullopt, false, [&](const plot::LineSpan& line) {
    ImFont* font = ImGui::GetFont();
    const float size = ImGui::GetFontSize();
    const auto measure = [&](std::string_view piece) {
      return font->CalcTextSizeA(size, FLT_MAX, 0.0f, piece.data(), piece.data() + piece.size()).x;
    };
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const float dot = std::max(1.0f, std::round(size / 12.0f));
    const ImVec2 origin = ImGui::GetItemRectMin();
    for (const BoundSpan& span : spans) {
      if (span.begin < line.begin || span.end > line.end) continue;  // a number has no space: never split
      const float x0 = origin.x + measure(text.substr(line.begin, span.begin - line.begin));
      const float x1 = x0 + measure(text.substr(span.begin, span.end - span.begin));
      const ImVec2 min(x0, origin.y), max(x1, origin.y + size);
      const bool over = ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(min, max);
      const ImU32 colour = over ? highlight_color(ui.theme) : ImGui::GetColorU32(ImGuiCol_Text, 0.6f);
      for (float x = x0; x < x1; x += 2.0f * dot)
        draw->AddRectFilled(ImVec2(x, max.y), ImVec2(std::min(x + dot, x1), max.y + dot), colour);
      if (over) {
        draw->AddRect(ImVec2(x0 - 2.0f * dot, min.y - dot), ImVec2(x1 + 2.0f * dot, max.y + 2.0f * dot), colour,
                      2.0f * dot, 0, dot);
        hovered = std::make_pair(span.value, span.decimals);
      }
      ui.lesson_report.bound_numbers.emplace_back(min, max);
    }
  });
  ui.lesson_view.hovered_number = hovered;
}

// The reveal's lines: the answer beside the guess, the verdict, the step's after-text.
struct RevealLines {
  std::string answer, verdict, after;
  bool close = false;
  std::string problem;  // the answer cannot be read (yet): shown instead
};

// The revealed answer as the question asks for its digits ("Your guess: -1003    The app's number:
// -1000") and the verdict by the one rule for close (lessons.hpp: close_within). A Monte Carlo mean
// shows no number until it has converged, and then says how sure it is.
RevealLines reveal_lines(const UiState& ui, const LessonStep& step, const Snapshot* snapshot, const DkSweep* sweep) {
  RevealLines lines;
  const LessonPredict& predict = *step.predict;
  if (predict.after) lines.after = predict.after->in(i18n::language());
  if (snapshot == nullptr || ui.lesson.animating) {
    lines.problem = i18n::tr("lesson.predict.computing");
    return lines;
  }
  const Result<PredictionReveal> revealed = reveal_prediction(predict, *snapshot, ui.lesson.guess, sweep);
  if (!revealed.ok()) {
    lines.problem = revealed.error().message;
    return lines;
  }
  const PredictionReveal& reveal = *revealed;
  if (!reveal.converged) {  // a Monte Carlo mean still refining: no number until it has converged
    lines.problem = i18n::format("lesson.predict.converging", {std::to_string(reveal.trials)});
    return lines;
  }
  std::string answer = predict_answer(predict, reveal.answer);
  // "0.1 (mean 0.0914 ± 0.0017, 15872 trials)".
  if (reveal.standard_error)
    answer = i18n::format("lesson.predict.monte_carlo",
                          {answer, predict_answer({PredictPrecision::Kind::significant, 3}, reveal.answer),
                           predict_off_by(*reveal.standard_error), std::to_string(reveal.trials)});
  lines.answer =
      reveal.guess
          ? i18n::format(
                "lesson.predict.answer_guess",
                {predict.choices.empty() ? predict_guess(*reveal.guess) : predict_number(*reveal.guess), answer})
          : i18n::format("lesson.predict.answer", {answer});
  if (reveal.guess) {
    if (reveal.nearest_choice)
      lines.verdict = reveal.close
                          ? i18n::tr("lesson.predict.nearest")
                          : i18n::format("lesson.predict.not_nearest", {predict_number(*reveal.nearest_choice)});
    else
      lines.verdict = i18n::format(reveal.close ? "lesson.predict.close" : "lesson.predict.off",
                                   {predict_off_by(reveal.off_by), predict_answer(predict.precision, reveal.answer),
                                    predict_off_by(reveal.margin)});
  }
  lines.close = reveal.close;
  return lines;
}

ImVec4 verdict_color(const UiState& ui, bool close) {
  // Green for close, orange for off: light shades on dark, deep ones on white (and a projector).
  const bool dark = ui.theme == Theme::dark;
  const ImVec4 good = dark ? ImVec4(0.35f, 0.8f, 0.45f, 1.0f) : ImVec4(0.05f, 0.45f, 0.15f, 1.0f);
  const ImVec4 bad = dark ? ImVec4(1.0f, 0.55f, 0.35f, 1.0f) : ImVec4(0.75f, 0.3f, 0.0f, 1.0f);
  return close ? good : bad;
}

// The guess buttons of a multiple-choice question, as many to a row as fit `width`: the rows'
// first indices (and the end), for drawing and measuring alike.
std::vector<std::size_t> choice_rows(const LessonPredict& predict, float width) {
  const ImGuiStyle& style = ImGui::GetStyle();
  std::vector<std::size_t> starts{0};
  float used = 0.0f;
  for (std::size_t k = 0; k < predict.choices.size(); ++k) {
    const float button =
        ImGui::CalcTextSize(predict_number(predict.choices[k]).c_str()).x + 2.0f * style.FramePadding.x;
    if (used > 0.0f && used + style.ItemSpacing.x + button > width) {
      starts.push_back(k);
      used = 0.0f;
    }
    used += (used > 0.0f ? style.ItemSpacing.x : 0.0f) + button;
  }
  starts.push_back(predict.choices.size());
  return starts;
}

// Whether the typed-guess field goes on a line of its own, Commit under it: beside Commit it would be
// narrower than a guess such as "-1003.05" (a narrow text column at a large font).
// The Commit button and the gap before it (its text alone: the label's "###id" is not drawn).
float commit_button_width() {
  return ImGui::CalcTextSize(i18n::tr("lesson.predict.commit")).x + 2.0f * ImGui::GetStyle().FramePadding.x +
         ImGui::GetStyle().ItemSpacing.x;
}
bool guess_field_alone(float width) { return width - commit_button_width() < 6.0f * ImGui::GetFontSize(); }

// A student's answer in a hosted class, kept unrevealed until the teacher reveals (LessonState::
// reveal_held); empty otherwise.
std::string held_answer_line(const UiState& ui) {
  if (!ui.lesson.reveal_held || !ui.lesson.guess) return {};
  return i18n::format("lesson.predict.held", {predict_guess(*ui.lesson.guess)});
}

// The predict box under the step's text, measured: the question and the guess controls before the
// reveal, the answer lines after it (the lesson layout plans again on the reveal).
void measure_predict(Measure& block, const UiState& ui, const LessonStep& step, const Snapshot* snapshot,
                     const DkSweep* sweep, float scale) {
  const LessonPredict& predict = *step.predict;
  block.separator();
  // The question until the reveal, then the answer in its place.
  Measure before = block, after = block;
  before.lines(i18n::format("lesson.predict.question", {predict.question.in(i18n::language())}), scale);
  if (!predict.choices.empty()) {
    before.height += static_cast<float>(choice_rows(predict, block.width).size() - 1) *
                     (ImGui::GetFrameHeight() + ImGui::GetStyle().ItemSpacing.y);
  } else {
    before.row(ImGui::GetFrameHeight());
    if (guess_field_alone(block.width)) before.row(ImGui::GetFrameHeight());
    before.lines(predict_range_words(predict), 1.0f);
  }
  before.lines(ui.lesson_view.guess_error, 1.0f);
  before.lines(held_answer_line(ui), 1.0f);
  const RevealLines reveal = reveal_lines(ui, step, snapshot, sweep);
  if (!reveal.problem.empty()) {
    after.lines(reveal.problem, 1.0f);
  } else {
    after.lines(reveal.answer, scale);
    // Before a guess is committed the verdict's length is unknown: the longest verdict's words.
    after.lines(reveal.verdict, scale);
  }
  after.lines(reveal.after, scale);
  block.height = ui.lesson.revealed ? after.height : before.height;
}

// What of the last item the window shows: its rectangle cut to the current clip rectangle.
LessonReport::Shown shown_item() {
  const ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 clip_min = draw->GetClipRectMin(), clip_max = draw->GetClipRectMax();
  const ImVec2 min = ImGui::GetItemRectMin(), max = ImGui::GetItemRectMax();
  return {ImVec2(std::max(min.x, clip_min.x), std::max(min.y, clip_min.y)),
          ImVec2(std::min(max.x, clip_max.x), std::min(max.y, clip_max.y))};
}

// The predict box: the question, the guess (choice buttons or a typed number and Commit) and, once
// revealed, the answer beside the guess and how close it was.
void draw_predict(UiState& ui, const LessonStep& step, const Snapshot* snapshot, const DkSweep* sweep, ImU32 accent,
                  float scale, float width) {
  const LessonPredict& predict = *step.predict;
  const i18n::Language language = i18n::language();
  ImGui::Separator();
  if (!ui.lesson.revealed) {
    draw_lines(width, i18n::format("lesson.predict.question", {predict.question.in(language)}), scale,
               ImGui::ColorConvertU32ToFloat4(accent));
    if (!predict.choices.empty()) {
      const std::vector<std::size_t> rows = choice_rows(predict, width);
      for (std::size_t row = 0; row + 1 < rows.size(); ++row)
        for (std::size_t k = rows[row]; k < rows[row + 1]; ++k) {
          if (k > rows[row]) ImGui::SameLine();
          ImGui::PushID(static_cast<int>(k));
          // A refused guess shows its line in ui.lesson_view.guess_error.
          if (ImGui::Button(predict_number(predict.choices[k]).c_str())) (void)commit_guess(ui, predict.choices[k]);
          ImGui::PopID();
        }
    } else {
      const std::string commit = i18n::label("lesson.predict.commit", "predict-commit");
      const bool alone = guess_field_alone(width);
      ImGui::SetNextItemWidth(alone ? width : width - commit_button_width());
      // The field keeps the text as typed, updated on every key (no EnterReturnsTrue: with it a
      // number field applies the text on Enter only, and a click on Commit committed the old value).
      // Enter ends the edit; then, like the click, it commits what the field shows.
      ImGui::InputTextWithHint("##typed-guess", i18n::tr("lesson.predict.type_hint"), &ui.lesson_view.typed_guess);
      ui.lesson_report.guess_field = shown_item();
      const bool entered =
          ImGui::IsItemDeactivated() && (ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_Enter)) ||
                                         ImGui::IsKeyPressed(ImGui::GetKeyIndex(ImGuiKey_KeyPadEnter)));
      if (!alone) ImGui::SameLine();
      if (ImGui::Button(commit.c_str()) || entered) (void)commit_typed_guess(ui, ui.lesson_view.typed_guess);
      draw_lines(width, predict_range_words(predict), 1.0f, std::nullopt, true);
    }
    draw_lines(width, ui.lesson_view.guess_error, 1.0f, ImVec4(1.0f, 0.4f, 0.35f, 1.0f));
    draw_lines(width, held_answer_line(ui), 1.0f, ImGui::ColorConvertU32ToFloat4(accent));
    return;
  }
  const RevealLines reveal = reveal_lines(ui, step, snapshot, sweep);
  if (!reveal.problem.empty()) {
    draw_lines(width, reveal.problem, 1.0f, std::nullopt, true);
  } else {
    draw_lines(width, reveal.answer, scale);
    draw_lines(width, reveal.verdict, scale, verdict_color(ui, reveal.close));
  }
  draw_lines(width, reveal.after, scale);
}

// [SECTION] Presenter mode: the caption and a guess typed on the keyboard

// The title in the text block is this much larger than its text.
float title_scale(float text_scale) { return 1.15f * text_scale; }

// Data imported over a lesson step that has its own: the text describes the lesson's numbers, not
// these, and says so before it is read (empty otherwise).
std::string imported_note(const UiState& ui, const LessonStep& step) {
  if (ui.params.imported == nullptr || step.params.imported != nullptr) return {};
  std::string files;
  for (const std::string& source : ui.params.imported->sources)
    files += (files.empty() ? "" : ", ") + std::filesystem::path(source).filename().string();
  return i18n::format("lesson.imported_data", {files});
}

std::string presenter_heading(const UiState& ui, const LessonStep& step) {
  return std::to_string(ui.lesson.open->step + 1) + "/" + std::to_string(current_lesson(ui)->steps.size()) + "  " +
         step.title.in(i18n::language());
}

void measure_presenter_predict(Measure& block, const UiState& ui, const LessonStep& step, const Snapshot* snapshot,
                               const DkSweep* sweep, float scale) {
  const LessonPredict& predict = *step.predict;
  Measure before = block, after = block;
  before.lines(i18n::format("lesson.predict.question", {predict.question.in(i18n::language())}), scale);
  before.lines(presenter_guess_line(ui, predict), scale);
  before.lines(presenter_predict_hint(predict), 1.0f);
  before.lines(ui.lesson_view.guess_error, 1.0f);
  const RevealLines reveal = reveal_lines(ui, step, snapshot, sweep);
  if (!reveal.problem.empty()) {
    after.lines(reveal.problem, 1.0f);
  } else {
    after.lines(reveal.answer, scale);
    after.lines(reveal.verdict, scale);
  }
  after.lines(reveal.after, scale);
  block.height = ui.lesson.revealed ? after.height : before.height;
}

// The caption beside or under the step's panels (never over them): heading, text, the lab's notes
// where the step shows them, and a predict step's question with the guess typed so far or, revealed,
// the answer.
void draw_presenter_caption(UiState& ui, const LessonStep& step, const Snapshot* snapshot, const DkSweep* sweep) {
  const LessonReport::TextBox& box = ui.lesson_report.text_box;
  ImGui::SetNextWindowPos(box.min);
  ImGui::SetNextWindowSize(ImVec2(box.max.x - box.min.x, box.max.y - box.min.y));
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing |
                                     ImGuiWindowFlags_NoNav | ImGuiWindowFlags_NoBackground;
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 0.0f);
  ImGui::Begin("##presenter-caption", nullptr, box.fits ? flags | ImGuiWindowFlags_NoScrollbar : flags);
  ImGui::PopStyleVar();
  const float scale = box.scale;
  const float width = block_text_width(box.max.x - box.min.x, ui.ui_scale);
  draw_lines(width, presenter_heading(ui, step), title_scale(scale));
  draw_lines(width, imported_note(ui, step), scale, ImGui::ColorConvertU32ToFloat4(highlight_color(ui.theme)));
  std::vector<BoundSpan> spans;
  ui.lesson_report.text = step_text(step, i18n::language(), snapshot, sweep, &spans);
  draw_bound_lines(ui, width, ui.lesson_report.text, scale, spans);
  if (step_shows_notes(step))
    for (const std::string& note : ui.lesson_report.notes)
      draw_lines(width, note, std::max(1.0f, 0.8f * scale), std::nullopt, true);
  if (shows_live_training(ui, step))
    draw_lines(width, presenter_training_line(ui, snapshot != nullptr ? snapshot->lab<TrainingLab>() : nullptr), 1.0f,
               std::nullopt, true);
  if (step.predict) {
    const LessonPredict& predict = *step.predict;
    const ImVec4 accent = ImGui::ColorConvertU32ToFloat4(highlight_color(ui.theme));
    if (!ui.lesson.revealed) {
      draw_lines(width, i18n::format("lesson.predict.question", {predict.question.in(i18n::language())}), scale,
                 accent);
      draw_lines(width, presenter_guess_line(ui, predict), scale);
      draw_lines(width, presenter_predict_hint(predict), 1.0f, std::nullopt, true);
      draw_lines(width, ui.lesson_view.guess_error, 1.0f, ImVec4(1.0f, 0.4f, 0.35f, 1.0f));
    } else {
      const RevealLines reveal = reveal_lines(ui, step, snapshot, sweep);
      if (!reveal.problem.empty()) {
        draw_lines(width, reveal.problem, 1.0f, std::nullopt, true);
      } else {
        draw_lines(width, reveal.answer, scale);
        draw_lines(width, reveal.verdict, scale, verdict_color(ui, reveal.close));
      }
      draw_lines(width, reveal.after, scale);
    }
  }
  ui.lesson_report.text_scrolls = ImGui::GetScrollMaxY() > 0.0f;
  ImGui::End();
}

// A predict step in presenter mode is answered from the keyboard, with no field to click: digits
// (and . - e) build a typed guess, Backspace takes one back, a choice's number picks it, Enter
// commits. PageDown still reveals without a guess (handle_keys).
void handle_presenter_guess_keys(UiState& ui) {
  const LessonStep* step = current_step(ui);
  if (step == nullptr || !step->predict) return;
  const std::pair<std::size_t, std::size_t> here{ui.lesson.open->lesson, ui.lesson.open->step};
  if (ui.lesson_view.presenter_typed_step != here || ui.lesson.revealed) {
    ui.lesson_view.presenter_typed.clear();
    ui.lesson_view.presenter_choice = -1;
    ui.lesson_view.presenter_typed_step = here;
  }
  if (ui.lesson.revealed) return;
  ImGuiIO& io = ImGui::GetIO();
  if (io.WantTextInput || ImGui::IsPopupOpen("", ImGuiPopupFlags_AnyPopupId) || io.KeyCtrl || io.KeyAlt) return;
  const LessonPredict& predict = *step->predict;
  constexpr std::size_t longest_guess = 24;
  for (const ImWchar c : io.InputQueueCharacters) {
    if (!predict.choices.empty()) {
      if (c >= '1' && c < '1' + static_cast<int>(predict.choices.size())) ui.lesson_view.presenter_choice = c - '1';
    } else if (((c >= '0' && c <= '9') || c == '.' || c == '-' || c == 'e' || c == 'E') &&
               ui.lesson_view.presenter_typed.size() < longest_guess) {
      ui.lesson_view.presenter_typed.push_back(static_cast<char>(c));
    }
  }
  if (ImGui::IsKeyPressed(GLFW_KEY_BACKSPACE) && !ui.lesson_view.presenter_typed.empty())
    ui.lesson_view.presenter_typed.pop_back();
  if (!ImGui::IsKeyPressed(GLFW_KEY_ENTER, false) && !ImGui::IsKeyPressed(GLFW_KEY_KP_ENTER, false)) return;
  if (!predict.choices.empty()) {
    if (ui.lesson_view.presenter_choice >= 0)
      (void)commit_guess(ui, predict.choices[static_cast<std::size_t>(ui.lesson_view.presenter_choice)]);
    return;
  }
  // The same reading as the lesson panel's field (parse_guess); a refused guess leaves its line in guess_error.
  (void)commit_typed_guess(ui, ui.lesson_view.presenter_typed);
}

// The keys that step through a lesson: beside the buttons where there is room, else in Next's tooltip.
const char* keys_hint(const UiState& ui) {
  return i18n::tr(lesson_awaiting_prediction(ui) ? "lesson.predict.keys_hint" : "lesson.keys_hint");
}

// ≡: the menus' button (a glyph the UI font has: Mathematical Operators).
constexpr const char* menus_glyph = "\xe2\x89\xa1";

// The bottom row of the lesson panel: Previous, Next and Close, each as wide as its text (at least
// 4 em for the first two), and the keys hint between them when the row has room for it.
struct ButtonRow {
  float previous = 0.0f, next = 0.0f, close = 0.0f, toggle = 0.0f;
  float menus = 0.0f;  // the ≡ button of the File, Edit and View menus: while the column (which has them) is hidden
  bool hint = false;
  bool close_below = false;  // a narrow column: « » and Close on a line of their own, at the right
  bool next_below = false;   // narrower still: Next under Previous (a button's text is never cut)
};
ButtonRow button_row(const UiState& ui, float width) {
  const ImGuiStyle& style = ImGui::GetStyle();
  const auto button = [&](const char* key, float least) {
    return std::max(ImGui::CalcTextSize(i18n::tr(key)).x + 2.0f * style.FramePadding.x, least);
  };
  const float least = 4.0f * ImGui::GetFontSize();
  ButtonRow row;
  row.previous = button("lesson.previous", least);
  row.next =
      std::max({button("lesson.next", least), button("lesson.finish", least), button("lesson.predict.reveal", least)});
  row.close = button("lesson.close", 0.0f);
  row.toggle = ImGui::CalcTextSize(">>").x + 2.0f * style.FramePadding.x;
  if (!ui.lesson_view.controls_shown) row.menus = ImGui::CalcTextSize(menus_glyph).x + 2.0f * style.FramePadding.x;
  const float buttons = row.previous + row.next + row.toggle + row.close + 3.0f * style.ItemSpacing.x +
                        (row.menus > 0.0f ? row.menus + style.ItemSpacing.x : 0.0f);
  row.hint = buttons + 4.0f * style.ItemSpacing.x + ImGui::CalcTextSize(keys_hint(ui)).x <= width;
  // A column too narrow for all four: « » and Close go under Previous and Next; too narrow even for
  // those two, Next goes under Previous.
  if (buttons > width) {
    row.close_below = true;
    row.next_below = row.previous + row.next + style.ItemSpacing.x > width;
  }
  return row;
}

float block_height(const UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, float width, float scale,
                   bool presenter) {
  const LessonStep* step = current_step(ui);
  if (step == nullptr) return 0.0f;
  const i18n::Language language = i18n::language();
  const ImGuiStyle& style = ImGui::GetStyle();
  Measure block{block_text_width(width, ui.ui_scale), 0.0f};
  block.lines(presenter_heading(ui, *step), title_scale(scale));
  block.lines(imported_note(ui, *step), scale);
  if (!presenter) block.separator();
  block.lines(step_text(*step, language, snapshot, sweep), scale);
  if (step_shows_notes(*step))
    for (const std::string& note : ui.lesson_report.notes)
      block.lines(note, presenter ? std::max(1.0f, 0.8f * scale) : 1.0f);
  if (shows_live_training(ui, *step)) {
    // Planned with the status at its longest: the plan stays while the status changes.
    if (presenter) {
      block.lines(longest_training_status(ui) + "    " + i18n::tr("lesson.training_keys"), 1.0f);
    } else {
      block.lines(longest_training_status(ui), 1.0f);
      const int rows = training_run_control_rows(block.width);
      for (int r = 0; r < rows; ++r) block.row(ImGui::GetFrameHeight());
    }
  }
  if (step->predict) {
    if (presenter)
      measure_presenter_predict(block, ui, *step, snapshot, sweep, scale);
    else
      measure_predict(block, ui, *step, snapshot, sweep, scale);
  }
  if (!presenter) {
    const ButtonRow row = button_row(ui, block.width);
    block.row(ImGui::GetFrameHeight());  // the buttons
    if (row.next_below) block.row(ImGui::GetFrameHeight());
    if (row.close_below) block.row(ImGui::GetFrameHeight());
  }
  return block.height + 2.0f * style.WindowPadding.y;
}

// [SECTION] The lesson panel

void draw_panel(UiState& ui, const Lesson& lesson, std::size_t step_index, const Snapshot* snapshot,
                const DkSweep* sweep) {
  const LessonStep& step = lesson.steps[step_index];
  const i18n::Language language = i18n::language();
  const LessonReport::TextBox& box = ui.lesson_report.text_box;
  ImGui::SetNextWindowPos(box.min);
  ImGui::SetNextWindowSize(ImVec2(box.max.x - box.min.x, box.max.y - box.min.y));
  constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove |
                                     ImGuiWindowFlags_NoSavedSettings | ImGuiWindowFlags_NoFocusOnAppearing;
  const ImU32 accent = highlight_color(ui.theme);
  // Opaque: nothing underneath shows through the lesson text.
  ImVec4 background = ImGui::GetStyle().Colors[ImGuiCol_WindowBg];
  background.w = 1.0f;
  ImGui::PushStyleColor(ImGuiCol_WindowBg, background);
  ImGui::PushStyleColor(ImGuiCol_Border, ImGui::ColorConvertU32ToFloat4(accent));
  ImGui::PushStyleVar(ImGuiStyleVar_WindowBorderSize, 2.0f * ui.ui_scale);
  // The layout made room for all of it. Where it found no arrangement that fits (a phone, a large
  // font), the text scrolls in a box of its own above the buttons, which stay in view.
  ImGui::Begin("##lesson-panel", nullptr, flags | ImGuiWindowFlags_NoScrollbar);
  ImGui::PopStyleVar();
  ImGui::PopStyleColor(2);

  // "3/7  Title", the text, the lab's notes where the step shows them, the predict box; then
  // Previous / Next (Reveal on a predict step, Finish on the last step) and Close. Nothing else: at a
  // classroom size every line is room the step's plots need (the lesson list is the control
  // column's, Ctrl+B; the keys are in Next's tooltip, and beside the buttons where there is room).
  const ImGuiStyle& style = ImGui::GetStyle();
  float width = block_text_width(box.max.x - box.min.x, ui.ui_scale);
  const ButtonRow row = button_row(ui, width);
  // A predict step's question and answer field stay with the buttons too, where the text keeps
  // room for two lines to scroll in (a finger scrolls them).
  bool predict_pinned = false;
  if (!box.fits) {
    const int rows = 1 + (row.next_below ? 1 : 0) + (row.close_below ? 1 : 0);
    float pinned = static_cast<float>(rows) * (ImGui::GetFrameHeight() + style.ItemSpacing.y);
    if (step.predict) {
      Measure predict{width, 0.0f};
      measure_predict(predict, ui, step, snapshot, sweep, box.scale);
      const float text_room = ImGui::GetContentRegionAvail().y - pinned - predict.height;
      predict_pinned = text_room >= 2.0f * (ImGui::GetFontSize() * box.scale + style.ItemSpacing.y);
      if (predict_pinned) pinned += predict.height;
    }
    ImGui::BeginChild("##lesson-text", ImVec2(0.0f, -pinned), false);
    width = std::min(width, ImGui::GetContentRegionAvail().x);  // the box's scroll bar takes its share
  }
  draw_lines(width, presenter_heading(ui, step), title_scale(box.scale));
  draw_lines(width, imported_note(ui, step), box.scale, ImGui::ColorConvertU32ToFloat4(accent));
  ImGui::Separator();
  std::vector<BoundSpan> spans;
  ui.lesson_report.text = step_text(step, language, snapshot, sweep, &spans);
  draw_bound_lines(ui, width, ui.lesson_report.text, box.scale, spans);
  if (step_shows_notes(step))
    for (const std::string& note : ui.lesson_report.notes) draw_lines(width, note, 1.0f, std::nullopt, true);
  if (shows_live_training(ui, step)) {
    // The training's own buttons with the step: the class watches the map form at the pace set.
    const TrainingLab* lab = snapshot != nullptr ? snapshot->lab<TrainingLab>() : nullptr;
    draw_lines(width, training_status(ui, lab), 1.0f);
    Params edit = ui.params;
    training_run_controls(ui, edit, lab);
    if (edit != ui.params) (void)apply_params(ui, edit);
  }
  if (step.predict && !predict_pinned) {
    draw_predict(ui, step, snapshot, sweep, accent, box.scale, width);
    // The question longer than the room beside the buttons (a small phone, a large font): the box
    // opens scrolled to the question and its field, once a step; a finger scrolls back to the text.
    ImGuiStorage* seen = ImGui::GetStateStorage();
    const ImGuiID opened = ImGui::GetID(("##predict-in-view:" + lesson.name).c_str());  // per lesson
    if (!box.fits && seen->GetInt(opened, -1) != static_cast<int>(step_index)) {
      ImGui::SetScrollHereY(1.0f);
      seen->SetInt(opened, static_cast<int>(step_index));
    }
  }
  ui.lesson_report.text_scrolls = ImGui::GetScrollMaxY() > 0.0f;
  if (!box.fits) {
    scroll_by_drag();
    ImGui::EndChild();
    width = block_text_width(box.max.x - box.min.x, ui.ui_scale);  // the panel's width again
  }
  if (predict_pinned) draw_predict(ui, step, snapshot, sweep, accent, box.scale, width);

  ImGui::BeginDisabled(step_index == 0);
  if (ImGui::Button(i18n::label("lesson.previous", "lesson-previous").c_str(), ImVec2(row.previous, 0.0f)))
    lesson_previous(ui);
  ImGui::EndDisabled();
  if (!row.next_below) ImGui::SameLine();
  const bool last = step_index + 1 >= lesson.steps.size();
  const bool awaiting = lesson_awaiting_prediction(ui);
  const char* next_key = awaiting ? "lesson.predict.reveal" : last ? "lesson.finish" : "lesson.next";
  const bool next_pressed = ImGui::Button(i18n::label(next_key, "lesson-next").c_str(), ImVec2(row.next, 0.0f));
  ui.lesson_report.next_button = shown_item();
  if (next_pressed) {
    if (awaiting)
      (void)commit_guess(ui, std::nullopt);
    else if (last)
      close_lesson(ui);
    else
      lesson_next(ui);
  }
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", keys_hint(ui));
  if (row.hint) {
    ImGui::SameLine(0.0f, 2.0f * style.ItemSpacing.x);
    ImGui::AlignTextToFramePadding();
    ImGui::TextDisabled("%s", keys_hint(ui));
  }
  // ≡ (the menus, while the column is hidden), « » (the control column, Ctrl+B) and Close (Escape)
  // at the row's right end, or under it. The menus cost the step no line of its own.
  const float right_group =
      (row.menus > 0.0f ? row.menus + style.ItemSpacing.x : 0.0f) + row.toggle + style.ItemSpacing.x + row.close;
  if (row.close_below)
    ImGui::SetCursorPosX(ImGui::GetWindowContentRegionMin().x + width - right_group);
  else
    ImGui::SameLine(std::max(ImGui::GetCursorPosX(), ImGui::GetWindowContentRegionMin().x + width - right_group));
  if (row.menus > 0.0f) {
    if (ImGui::Button((std::string(menus_glyph) + "###lesson-menus").c_str(), ImVec2(row.menus, 0.0f)))
      ImGui::OpenPopup("##lesson-menus");
    if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("lesson.menus_tooltip"));
    if (ImGui::BeginPopup("##lesson-menus")) {
      draw_file_menu(ui);  // File, Edit and View as submenus
      ImGui::EndPopup();
    }
    ImGui::SameLine();
  }
  if (ImGui::Button(ui.lesson_view.controls_shown ? "<<###lesson-controls" : ">>###lesson-controls",
                    ImVec2(row.toggle, 0.0f)))
    ui.lesson_view.controls_shown = !ui.lesson_view.controls_shown;
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("layout.controls_toggle"));
  ImGui::SameLine();
  if (ImGui::Button(i18n::label("lesson.close", "lesson-close").c_str(), ImVec2(row.close, 0.0f))) close_lesson(ui);
  if (ImGui::IsItemHovered()) ImGui::SetTooltip("%s", i18n::tr("lesson.close_tooltip"));
  ImGui::End();
}

}  // namespace

// [SECTION] Entry points: highlight, panel, launcher

std::vector<const PlacedPlot*> lesson_highlighted_plots(const UiState& ui) {
  std::vector<const PlacedPlot*> plots;
  const LessonStep* step = current_step(ui);
  if (step == nullptr || step->view != ui.view) return plots;
  const std::vector<std::string_view> highlighted = panel_entry_plots(step->view, step->panel);
  const std::string prefix = std::string(view_info(step->view).name) + "/";
  for (const PlacedPlot& placed : ui.placed_plots) {
    if (placed.name.size() <= prefix.size() || placed.name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string_view plot = std::string_view(placed.name).substr(prefix.size());
    if (std::find(highlighted.begin(), highlighted.end(), plot) != highlighted.end()) plots.push_back(&placed);
  }
  return plots;
}

void mark_hovered_number(UiState& ui, std::span<const std::pair<const plot::PlotRecord*, const PlacedPlot*>> plots) {
  if (!ui.lesson_view.hovered_number || current_step(ui) == nullptr) return;
  // Named, not a structured binding: clang 14 (the web build's) lets no lambda capture one.
  const double value = ui.lesson_view.hovered_number->first;
  const int decimals = ui.lesson_view.hovered_number->second;
  // The text's own rounding: a label "0.301" writes the text's "0.30", and so does a bar 0.3008 tall.
  const double half_unit = 0.5 * std::pow(10.0, -decimals);
  const float scale = ui.ui_scale, pad = 3.0f * scale;
  const ImU32 colour = highlight_color(ui.theme);
  const auto ring = [&](const PlacedPlot& placed, ImVec2 min, ImVec2 max) {
    ImDrawList* draw = overlay_list(placed, 6.0f * scale);
    draw->AddRect(min, max, colour, 3.0f * scale, 0, 2.5f * scale);
    draw->PopClipRect();
  };
  for (const auto& [record, placed] : plots)
    for (const plot::PlacedText& text : record->texts) {
      // A tick writes a place on the axis, not this value.
      if (text.role == plot::TextRole::TickLabel || text.role == plot::TextRole::AxisLabel) continue;
      // A label writes the number only to the text's digits or finer: "query 0" in a title is no
      // writing of 0.12, though 0.12 lies within the half unit of that 0.
      const std::vector<QuotedNumber> numbers = quoted_numbers(text.text);
      if (std::none_of(numbers.begin(), numbers.end(), [&](const QuotedNumber& number) {
            return number.tolerance <= 1.0001 * half_unit && std::abs(number.value - value) <= half_unit;
          }))
        continue;
      ring(*placed, ImVec2(text.x0 - pad, text.y0 - pad), ImVec2(text.x1 + pad, text.y1 + pad));
      ui.lesson_report.marks.push_back(placed->name + ": " + text.text);
    }
  if (!ui.lesson_report.marks.empty()) return;
  // No label writes it: the plots that draw it (a bar's height, a point on a curve).
  for (const auto& [record, placed] : plots)
    for (std::size_t k = 0; k < record->drawn_values.size(); ++k) {
      const double resolution = k < record->drawn_resolution.size() ? record->drawn_resolution[k] : 0.0;
      if (std::abs(record->drawn_values[k] - value) > std::max(half_unit, resolution)) continue;
      ring(*placed, ImVec2(record->data_x0, record->data_y0), ImVec2(record->data_x1, record->data_y1));
      ui.lesson_report.marks.push_back(placed->name);
      break;
    }
}

void draw_lesson(UiState& ui, const Snapshot* snapshot, const DkSweep* sweep) {
  ui.lesson_view.hovered_number.reset();  // the text below sets it again while a number is under the mouse
  if (const auto start = std::exchange(ui.lesson_view.start_requested, std::nullopt))
    open_lesson_step(ui, *start, 0, true);
  if (current_step(ui) == nullptr) {
    ui.lesson.open.reset();
    return;
  }
  handle_keys(ui);
  if (!ui.lesson.open) return;  // Escape
  const LessonStep& step = *current_step(ui);
  if (ui.presenter) handle_presenter_guess_keys(ui);
  if (step.predict) draw_covers(ui, step);
  if (!ui.lesson_report.text_box.placed) return;  // not laid out this frame
  if (ui.presenter) {
    draw_presenter_caption(ui, step, snapshot, sweep);  // beside or under the panels, which fill the rest
    return;
  }
  draw_highlight(ui);
  draw_panel(ui, *current_lesson(ui), ui.lesson.open->step, snapshot, sweep);
}

float lesson_block_height(const UiState& ui, const Snapshot* snapshot, const DkSweep* sweep, float width, float scale,
                          bool presenter) {
  return block_height(ui, snapshot, sweep, width, scale, presenter);
}

void draw_lesson_launcher(UiState& ui) {
  ImGui::Spacing();
  ImGui::TextColored(readable_text(ImGui::GetStyle().Colors[ImGuiCol_CheckMark]), "%s", i18n::tr("lesson.section"));
  ImGui::Separator();
  const auto& lessons = ui.lessons.lessons;
  if (lessons.empty()) {
    ImGui::TextDisabled("%s", ui.lessons.error ? ui.lessons.error->message.c_str() : i18n::tr("lesson.none"));
    return;
  }
  const i18n::Language language = i18n::language();
  const int count = static_cast<int>(lessons.size());
  ui.lesson_view.launcher_index = std::clamp(ui.lesson_view.launcher_index, 0, count - 1);
  const Lesson& selected = lessons[static_cast<std::size_t>(ui.lesson_view.launcher_index)];
  const std::string start = i18n::label("lesson.start", "lesson-start");
  ImGui::PushItemWidth(-ImGui::CalcTextSize(i18n::tr("lesson.start")).x - 3.0f * ImGui::GetStyle().FramePadding.x -
                       ImGui::GetStyle().ItemSpacing.x);
  if (ImGui::BeginCombo("##lesson-launcher", selected.title.in(language).c_str())) {
    for (int index = 0; index < count; ++index) {
      const Lesson& lesson = lessons[static_cast<std::size_t>(index)];
      ImGui::PushID(index);
      if (ImGui::Selectable(lesson.title.in(language).c_str(), index == ui.lesson_view.launcher_index))
        ui.lesson_view.launcher_index = index;
      ImGui::PopID();
    }
    ImGui::EndCombo();
  }
  ImGui::PopItemWidth();
  ImGui::SameLine();
  // The control column edits a copy of Params that draw_main_window applies after this: the step
  // opens in draw_lesson, after that copy is applied, or the copy would undo it.
  if (ImGui::Button(start.c_str()))
    ui.lesson_view.start_requested = static_cast<std::size_t>(ui.lesson_view.launcher_index);
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s", i18n::format("lesson.start_tooltip", {std::to_string(selected.steps.size())}).c_str());
  if (ui.lessons.error) ImGui::TextDisabled("%s", ui.lessons.error->message.c_str());
}

}  // namespace smlab::app
