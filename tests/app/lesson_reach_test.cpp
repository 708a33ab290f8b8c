// Lesson text stays true wherever the class can take it: a step's typed numbers and statements
// (its claims, bar those of a number it binds, which follows the sliders) hold at every setting the
// step lets a student reach with one slider the window shows, or the step holds that slider.
// A step's own Snapshot is checked by lesson_claims_test; this walks its neighbours.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <cstdio>
#include <set>
#include <string>
#include <vector>

#include <imgui.h>

#include "lessons/claims.hpp"
#include "lessons/lessons.hpp"
#include "lessons/quoted_numbers.hpp"
#include "panels/labs.hpp"
#include "panels/panels.hpp"
#include "plot/ticks.hpp"
#include "smlab/evaluate.hpp"
#include "work/evaluator.hpp"
#include "lesson_support.hpp"

namespace smlab::app {
namespace {

using lesson_support::shipped;

// The keys a student can move in `view`'s window: the dashboard's sliders and its "scaled" box,
// which the column shows above every lab but one that trains a model of its own (controls.cpp,
// dashboard_controls), the lab's own sliders (its controls, drawn in a frame of a bare ImGui
// context) and its main keys (the control strip, with its checkboxes: causal).
std::set<std::string> reachable_keys(View view) {
  const LabDefinition* lab = lab_definition(view);
  std::set<std::string> keys;
  if (lab == nullptr || !lab->own_model)
    keys = {"temperature", "score_scale", "d_k", "scaled", "seq_len", "row", "seed"};
  for (const MainKey& key : main_keys(view)) keys.insert(key.key);
  if (lab != nullptr) {
    ImGuiContext* previous = ImGui::GetCurrentContext();  // another test's, if any, stays current
    ImGuiContext* context = ImGui::CreateContext();
    ImGuiIO& io = ImGui::GetIO();
    io.IniFilename = nullptr;  // no imgui.ini left in the test's folder
    io.DisplaySize = ImVec2(1600.0f, 900.0f);
    io.DeltaTime = 1.0f / 60.0f;
    unsigned char* pixels = nullptr;
    int width = 0, height = 0;
    io.Fonts->GetTexDataAsRGBA32(&pixels, &width, &height);
    ImGui::NewFrame();
    ImGui::Begin("controls");
    Params edit;
    const ControlsReport report = lab->controls(edit);
    ImGui::End();
    ImGui::EndFrame();
    ImGui::DestroyContext(context);
    ImGui::SetCurrentContext(previous);
    for (std::string_view key : report.keys) keys.insert(std::string(key));
  }
  return keys;
}

// Two moves of `key` from its value in `params`, as far as a drag or a click takes it: a flag
// toggled; a real value halved and doubled; an integer one up and doubled (the seed: the next one
// and one far off). A move the key's range refuses is left out.
std::vector<Params> moves_of(const Params& params, const std::string& key) {
  const ParamKey* info = find_param_key(key);
  std::vector<std::string> texts;
  if (const std::optional<double> value = info != nullptr ? numeric_param(params, *info) : std::nullopt) {
    char text[64];
    const auto add = [&](double x) {
      std::snprintf(text, sizeof text, info->is_integer() ? "%.0f" : "%.17g", x);
      texts.push_back(text);
    };
    if (key == "seed") {
      add(*value + 1);
      add(*value + 1000);
    } else if (info->is_integer()) {
      add(*value + 1);
      add(std::max(2.0 * *value, *value + 2));
    } else {
      add(*value / 2);
      add(*value * 2);
    }
  } else if (const std::optional<std::string> flag = get_param(params, key); flag == "true" || flag == "false") {
    texts.push_back(*flag == "true" ? "false" : "true");
  }
  std::vector<Params> moved;
  for (const std::string& text : texts) {
    Params p = params;
    if (set_param(p, key, text)) moved.push_back(std::move(p));
  }
  return moved;
}

// The claims of `step` that its text types: every comparison ("the top weight passes 1/2") and a
// "~" whose value the text writes ("0.665", "about 91"), unless the step binds that quantity (the
// number is then written as measured, so it follows the slider). A "~" the text does not write
// pins the step's picture for the other tests, not a sentence; nor does a number written far coarser
// than the claim checks ("length 1" is not a ratio of 0.769 ± 0.01).
std::vector<const LessonClaim*> typed_claims(const LessonStep& step) {
  // What the class reads: the text, and on a predict step the reveal text and the choices it may
  // point to ("its mean max weight is the first choice").
  std::vector<QuotedNumber> written = quoted_numbers(step.text.english);
  if (step.predict) {
    if (step.predict->after)
      for (QuotedNumber& number : quoted_numbers(step.predict->after->english)) written.push_back(std::move(number));
    for (const double choice : step.predict->choices) {
      const std::vector<QuotedNumber> as_written = quoted_numbers(plot::format_number(choice));
      written.insert(written.end(), as_written.begin(), as_written.end());
    }
  }
  std::vector<const LessonClaim*> typed;
  for (const LessonClaim& claim : step.claims) {
    if (claim.op != "~") {
      typed.push_back(&claim);
      continue;
    }
    const bool bound = std::any_of(step.bindings.begin(), step.bindings.end(),
                                   [&](const LessonBinding& b) { return b.quantity == claim.left; });
    const bool quoted = std::any_of(written.begin(), written.end(), [&](const QuotedNumber& number) {
      return std::abs(number.value - claim.value) <= std::max(number.tolerance, claim.tolerance) &&
             number.tolerance <= 10.0 * claim.tolerance;
    });
    if (!bound && quoted) typed.push_back(&claim);
  }
  return typed;
}

// Every typed claim of every step holds after any one move of a key the step leaves free. A fault
// names the step, the move and the claim, so the step can bind that number or hold that key. The
// training lab's steps are left out: its sliders are its own, and its numbers over 32 seeds are the
// shipped reference's (tests/core/training_reference_test.cpp).
TEST(LessonReach, EveryTypedClaimHoldsWhereverTheClassMovesOneFreeSlider) {
  const LessonList& list = shipped();
  ASSERT_FALSE(list.error) << list.error->message;
  int moves = 0, faults = 0;
  for (const Lesson& lesson : list.lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      const LabDefinition* lab = lab_definition(step.view);
      if (lab != nullptr && lab->own_model) continue;
      const std::vector<const LessonClaim*> typed = typed_claims(step);
      if (typed.empty()) continue;
      bool sweep = false;
      for (const LessonClaim* claim : typed) sweep = sweep || lesson_support::reads_the_sweep(*claim);
      for (const std::string& key : reachable_keys(step.view)) {
        if (std::find(step.held.begin(), step.held.end(), key) != step.held.end()) continue;
        for (const Params& moved : moves_of(step.params, key)) {
          const Snapshot snap = lesson_support::settled_snapshot(moved, step.view, sweep);
          ++moves;
          for (const LessonClaim* claim : typed) {
            const ClaimOutcome outcome = evaluate_claim(snap, *claim);
            if (outcome.holds) continue;
            ++faults;
            ADD_FAILURE() << lesson.name << ":" << k + 1 << " with " << key << "=" << *get_param(moved, key) << ": "
                          << outcome.description << " (value " << outcome.value << "): bind the number or hold " << key;
          }
        }
      }
    }
  EXPECT_GE(moves, 500);
  std::printf("[ measured ] %d moves of free keys, %d faults\n", moves, faults);
}

// The symbol a main key's slider writes before its value ("T = %.3g": T; "‖q‖ = σ = %.3g": σ).
std::string slider_symbol(const MainKey& key) {
  if (key.format == nullptr) return {};
  const std::string_view format = key.format;
  const std::size_t equals = format.rfind(" = ");
  if (equals == std::string_view::npos) return {};
  const std::size_t start = format.rfind(' ', equals == 0 ? 0 : equals - 1);
  return std::string(format.substr(start == std::string_view::npos ? 0 : start + 1,
                                   equals - (start == std::string_view::npos ? 0 : start + 1)));
}

// A setting the text names as its slider writes it ("at T = 0.01", "σ = 4", "d_k = 1024"), at the
// value the step sets, is held: a student who moves that slider would read a sentence about a
// setting no longer shown. The symbols are those of the step's view's main keys and, where the
// column shows them, the dashboard's.
TEST(LessonReach, EverySettingATextNamesAtItsValueIsHeld) {
  const LessonList& list = shipped();
  ASSERT_FALSE(list.error) << list.error->message;
  int named = 0;
  for (const Lesson& lesson : list.lessons)
    for (std::size_t k = 0; k < lesson.steps.size(); ++k) {
      const LessonStep& step = lesson.steps[k];
      const LabDefinition* lab = lab_definition(step.view);
      if (lab != nullptr && lab->own_model) continue;
      std::vector<std::pair<std::string, std::string>> symbols;  // symbol, key
      for (const View view : {step.view, View::dashboard})
        for (const MainKey& key : main_keys(view))
          if (const std::string symbol = slider_symbol(key); !symbol.empty()) symbols.emplace_back(symbol, key.key);
      const std::string& text = step.text.english;
      for (const auto& [symbol, key] : symbols) {
        const std::optional<double> value = numeric_param(step.params, *find_param_key(key));
        if (!value) continue;
        const std::string pattern = symbol + " = ";
        for (std::size_t at = text.find(pattern); at != std::string::npos; at = text.find(pattern, at + 1)) {
          const bool glued = at > 0 && (std::isalnum(static_cast<unsigned char>(text[at - 1])) || text[at - 1] == '_');
          if (glued) continue;
          const std::vector<QuotedNumber> numbers = quoted_numbers(text.substr(at + pattern.size(), 24));
          if (numbers.empty() || text.compare(at + pattern.size(), numbers.front().text.size(), numbers.front().text))
            continue;
          // "T = 1/8" names a ratio, not T = 1.
          if (const std::size_t after = at + pattern.size() + numbers.front().text.size();
              after < text.size() && text[after] == '/')
            continue;
          if (std::abs(numbers.front().value - *value) > 1e-9 * std::max(1.0, std::abs(*value))) continue;
          ++named;
          EXPECT_NE(std::find(step.held.begin(), step.held.end(), key), step.held.end())
              << lesson.name << ":" << k + 1 << " names \"" << pattern << numbers.front().text << "\", the step's own "
              << key << ", and does not hold it";
        }
      }
    }
  EXPECT_GE(named, 20);
  std::printf("[ measured ] %d settings named at their values\n", named);
}

// The walk above can fail: a step that typed a weight the slider moves, and held nothing, is caught.
TEST(LessonReach, ATypedWeightThatTheSliderMovesIsCaught) {
  const LessonLoad lesson = parse_lesson(R"({"name": "reach", "title": {"en": "Reach", "zh-CN": "可达"},
    "steps": [{"title": {"en": "T", "zh-CN": "T"},
      "text": {"en": "The top weight is 0.665.", "zh-CN": "最大的权重是 0.665。"},
      "set": {"scores": "1, 2, 3", "temperature": 1}, "view": "dashboard", "panel": "distribution",
      "claims": [{"quantity": "max_weight", "op": "~", "value": 0.665, "tolerance": 0.001}]}]})");
  ASSERT_TRUE(lesson.ok()) << lesson.error().message;
  const LessonStep& step = lesson->steps.at(0);
  ASSERT_EQ(typed_claims(step).size(), 1u);
  int failed = 0;
  for (const Params& moved : moves_of(step.params, "temperature"))
    failed +=
        evaluate_claim(lesson_support::settled_snapshot(moved, step.view, false), *typed_claims(step).front()).holds
            ? 0
            : 1;
  EXPECT_EQ(failed, 2) << "T halved and doubled both move the top weight off 0.665";
  EXPECT_TRUE(reachable_keys(View::dashboard).contains("temperature"));
}

}  // namespace
}  // namespace smlab::app
