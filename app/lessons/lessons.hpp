// Lessons: guided steps from assets/lessons/*.json. Each step sets Params (checked by set_param),
// shows a view and highlights one named panel of it; the text comes in English and Chinese.
// No GUI here: the loader, the panel names and the Params animation are shared with the CLI and tests.
#pragma once

#include <cstddef>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "i18n/i18n.hpp"
#include "lessons/claims.hpp"
#include "smlab/error.hpp"
#include "smlab/params.hpp"
#include "smlab/views.hpp"

namespace smlab::app {

// One text in the two languages a lesson file must carry ("en" and "zh-CN").
struct LessonText {
  std::string english, chinese;
  const std::string& in(i18n::Language language) const {
    return language == i18n::Language::Chinese ? chinese : english;
  }
  friend bool operator==(const LessonText&, const LessonText&) = default;
};

// "Predict, then reveal": a question the class answers before the step shows the number.
// The answer is never written in the lesson: it is a claim quantity (claims.hpp) read from the live
// Snapshot when revealed, so it is what the plots show, whatever the sliders did since.
// The precision a typed question asks for ("to 3 decimals", "to 4 significant digits", "to the
// nearest whole number" = 0 decimals). It says how the answer is shown and what counts as close.
struct PredictPrecision {
  enum class Kind { decimals, significant } kind = Kind::decimals;
  int digits = 3;  // decimals: 0 to 12; significant: 1 to 15
  friend bool operator==(const PredictPrecision&, const PredictPrecision&) = default;
};

struct LessonPredict {
  LessonText question;              // one line: "Mean entropy of an unscaled row at d_k = 1024?"
  ClaimQuantity quantity;           // the answer
  std::vector<double> choices;      // 2 to 6 distinct guesses to pick from; empty: a typed number
  double min = 0.0, max = 0.0;      // typed guesses: allowed from min to max (min < max)
  PredictPrecision precision;       // typed guesses: "decimals": N or "significant": N
  std::string hides;                // the panel (or plot) of the step's view covered until the reveal
  std::optional<LessonText> after;  // shown beside the answer once revealed ("reveal_text")
  friend bool operator==(const LessonPredict&, const LessonPredict&) = default;
};

// A number the step's text shows live: where the text (either language) writes {NAME}, the app
// writes this quantity (a claim quantity, claims.hpp) read from the Snapshot the plots draw, with
// `decimals` digits after the point. It follows the sliders, as the plots do. "bind": {"NAME":
// {"quantity": …, "series"/"index"/"at" as claims take them, "decimals": D}}.
struct LessonBinding {
  std::string name;  // [a-z][a-z0-9_]*, at most lesson_binding_name_max bytes
  ClaimQuantity quantity;
  int decimals = 2;  // 0 to lesson_binding_max_decimals
  friend bool operator==(const LessonBinding&, const LessonBinding&) = default;
};

struct LessonStep {
  LessonText title, text;
  // The numbers the text binds ({NAME}); each is written in both languages' texts, and none is a
  // predict step's answer (it would show before the reveal).
  std::vector<LessonBinding> bindings;
  std::vector<std::pair<std::string, std::string>> settings;  // KEY, VALUE as set_param reads them, in file order
  // Keys the step holds at their values in `params` while it is open ("hold": ["temperature"]): the
  // settings its sentences describe, so that what the text says stays what the plots show. Their
  // sliders are drawn disabled, and a change made another way (a key, undo, a gesture) is put back
  // (lesson_player.hpp, hold_step_settings). Key table names, each once.
  std::vector<std::string> held;
  View view = View::dashboard;
  std::string panel;  // one of lesson_panels(view) or one of their plots: what the highlight frame goes around
  // What the step shows, in reading order (left to right, top to bottom): lesson panel names of
  // `view` ("attention"), plot names of it ("panel-8") or "notes" (those of the lab's live read-outs
  // that write a number the text quotes, shown under the text). The lesson view draws just these
  // around the text (panels/lesson_layout.hpp). Always holds `panel`'s plots and a predict step's
  // hidden ones; [panel] when the file names none.
  std::vector<std::string> panels;
  // Params{} with the settings of every step up to this one applied in order: always valid, and the
  // same whichever way the step was reached (--lesson NAME:STEP renders exactly what Next shows).
  Params params;
  // What the text says about the step's numbers, checked by lesson_claims_test against the
  // Snapshot of `params` evaluated for `view` (claims.hpp).
  std::vector<LessonClaim> claims;
  std::optional<LessonPredict> predict;  // "predict": {…}; absent: the step shows everything at once
};

struct Lesson {
  std::string name;  // "why-softmax": what --lesson takes
  LessonText title;
  std::vector<LessonStep> steps;  // 1 to lesson_max_steps
};

inline constexpr std::size_t lesson_max_bytes = 1 << 20;
inline constexpr int lesson_max_depth = 8;            // the format nests 4 deep
inline constexpr std::size_t lesson_max_keys = 1024;  // keys in one object; a step has 5, a "set" 16
inline constexpr std::size_t lesson_max_steps = 50;
inline constexpr std::size_t lesson_max_claims = 20;  // per step
inline constexpr std::size_t lesson_max_files = 100;
inline constexpr std::size_t lesson_title_max_chars = 200;  // bytes of UTF-8
inline constexpr std::size_t lesson_text_max_chars = 4000;  // bytes of UTF-8
inline constexpr std::size_t lesson_min_choices = 2, lesson_max_choices = 6;
inline constexpr std::size_t lesson_max_panels = 8;    // entries of a step's "panels"
inline constexpr std::size_t lesson_max_bindings = 8;  // entries of a step's "bind"
inline constexpr std::size_t lesson_max_held = 16;     // entries of a step's "hold"
inline constexpr std::size_t lesson_binding_name_max = 32;
inline constexpr int lesson_binding_max_decimals = 6;
// The "panels" entry that shows a lab's notes (live read-outs) with the step's text.
inline constexpr std::string_view lesson_notes_panel = "notes";

// The lesson, or an Error::usage of one line naming the lesson, step and field.
using LessonLoad = Result<Lesson>;

// Parses one lesson file's text:
//   {"name": "why-softmax", "title": {"en": "…", "zh-CN": "…"},
//    "steps": [{"title": {…}, "text": {…}, "set": {"temperature": 0.5, "scores": "1, 2, 3"},
//               "view": "normalizers", "panel": "linear", "panels": ["softmax", "linear"],
//               "claims": [{"quantity": "weight", "index": 2, "op": "~", "value": 0.665, "tolerance": 5e-4},
//                          {"quantity": "dk_entropy", "series": "unscaled", "at": 1024, "op": "<",
//                           "than": {"quantity": "dk_entropy", "series": "scaled", "at": 1024}, "times": 0.5}],
//               "predict": {"question": {…}, "quantity": {"quantity": "dk_entropy", "series": "unscaled", "at": 1024},
//                           "choices": [0.01, 0.5, 1.5, 2.3]  (or "min": 0, "max": 4, "decimals": 1,
//                           or "significant": 4 in place of "decimals"),
//                           "hides": "sweeps", "reveal_text": {…}}}, …]}
// Size and nesting are checked before parsing; unknown fields are errors (they are typos in a
// hand-written file); every "set" value goes through set_param.
LessonLoad parse_lesson(std::string_view json_text);

// Not a Result: the lessons that loaded are kept beside the problem with the others.
struct LessonList {
  std::vector<Lesson> lessons;  // the files that loaded, ordered by file name
  // The first file that did not load, as an Error::file of one line (the lessons belong to the
  // installation: a run that needs the missing ones exits 3); none when every file loaded.
  std::optional<Error> error;
};

// Loads every *.json in `dir` (ordered by file name, so "01-…" comes first). A bad file is left out
// and reported in `error`; so is a missing folder or a lesson name used twice.
LessonList load_lessons(const std::filesystem::path& dir);

// Index of the lesson called `name`, or nullopt.
std::optional<std::size_t> find_lesson(const LessonList& list, std::string_view name);
// "why-softmax, stability, …" for error messages.
std::string lesson_names(const LessonList& list);

// "NAME", "NAME:STEP" (STEP 1-based) or "NAME:STEP:GUESS" against `list`: the lesson index and
// 0-based step, or an Error::usage of one line naming the value and what is allowed. GUESS (a number; check_guess)
// goes with a predict step only and shows it revealed beside that guess (headless renders, tests).
struct LessonPosition {
  std::size_t lesson = 0;
  std::size_t step = 0;
  std::optional<double> guess{};
};
using LessonLookup = Result<LessonPosition>;
LessonLookup lookup_lesson(const LessonList& list, std::string_view spec);

// The panels a lesson step may highlight in `view` (lesson_panels.cpp's table): a panel is one plot
// ("distribution") or a named group of plots ("attention" = both maps). Members are the plot names
// the view places ("<view>/<plot>" in the app's placed plots, "<view>-<plot>.csv" in an export).
struct LessonPanel {
  std::string_view name;
  std::vector<std::string_view> plots;
};
std::span<const LessonPanel> lesson_panels(View view);
const LessonPanel* find_lesson_panel(View view, std::string_view name);
// The plots a "panels" entry names in `view`: a lesson panel's plots, or the one plot of that name
// (any plot some lesson panel of the view holds); empty for "notes" and for a name that is neither.
std::vector<std::string_view> panel_entry_plots(View view, std::string_view entry);
// The plots a step shows, in its "panels" order, each once.
std::vector<std::string_view> step_plots(const LessonStep& step);
// Whether the step shows the lab's notes with its text ("notes" among its panels).
bool step_shows_notes(const LessonStep& step);

// [predict] Checking a guess and revealing the answer.

// Success when `guess` may be committed (one of the choices, or a finite number from min to max),
// else an Error::usage of one line naming the guess and what is allowed.
Result<void> check_guess(const LessonPredict& predict, double guess);

// A typed guess as the field holds it: a decimal number ('.' or ',' as the decimal point, a leading
// '+' or '-' or '−', spaces around), at most 64 bytes, then check_guess. An Error::usage of one line
// otherwise ("guess 'abc' is not a number: …").
Result<double> parse_guess(const LessonPredict& predict, std::string_view text);

// The one rule for "close" on a typed question: the guess is the answer rounded to the precision
// the question asks for, i.e. |guess − answer| ≤ half a unit in the last digit asked (3 decimals:
// 0.0005; 4 significant digits of 0.003906: 0.0000005; the nearest whole number: 0.5). A choice
// question's guess is close when it is the choice nearest the answer.
double close_within(const PredictPrecision& precision, double answer);

// The answer read from `snap` (a Monte Carlo mean from `drawn_sweep`, the sweep the plots draw:
// claim_reading) beside the guess, with closeness by the rule above. An Error::usage when the
// Snapshot lacks the answer or it is not a finite number. A Monte Carlo answer not converged yet
// (`converged` false) is not to be shown: the window keeps refining until it is.
struct PredictionReveal {
  double answer = 0.0;
  bool converged = true;
  std::optional<double> standard_error;  // a Monte Carlo answer's
  std::int64_t trials = 0;
  std::optional<double> guess;  // nullopt: revealed without a guess
  double off_by = 0.0;          // |guess − answer|
  bool close = false;
  double margin = 0.0;                   // typed: close_within(precision, answer)
  std::optional<double> nearest_choice;  // choices only: the one nearest the answer
};
Result<PredictionReveal> reveal_prediction(const LessonPredict& predict, const Snapshot& snap,
                                           std::optional<double> guess, const DkSweep* drawn_sweep = nullptr);

// [bind] Bound numbers in the text.

// Each number written, for the panel that marks it and finds it on the plots: its bytes in the
// text, the value and its decimals (bound_text's `spans`).
struct BoundSpan {
  std::size_t begin = 0, end = 0;
  double value = 0.0;
  int decimals = 0;
};

// The text as the class reads it: each {NAME} of `text` replaced by its binding's value in
// `snap` (a Monte Carlo mean from `drawn_sweep`, the sweep the plots draw, as claim_reading reads
// it) to its decimals ("0.05"); "…" while the Snapshot lacks it (none yet, or a
// lab not evaluated) or it is not finite. A text without bindings is returned as it is. `spans`,
// when given, gets one BoundSpan per {NAME} that had a value.
std::string bound_text(std::string_view text, std::span<const LessonBinding> bindings, const Snapshot* snap,
                       const DkSweep* drawn_sweep = nullptr, std::vector<BoundSpan>* spans = nullptr);
// The step's text in `language`, bound as above.
std::string step_text(const LessonStep& step, i18n::Language language, const Snapshot* snap,
                      const DkSweep* drawn_sweep = nullptr, std::vector<BoundSpan>* spans = nullptr);

// A number as the predict texts show it: 3 significant digits ("0.0213", "1.68"), whole numbers in
// plain digits ("1024", "-1500"): choices, ranges.
std::string predict_number(double value);
// In the UI's language: "the answer to 3 decimals", "… to 4 significant digits", "… to the nearest
// whole number"; and a typed question's range with it ("a number from 0 to 3; close: the answer to 1
// decimal"). The lesson panel's words; the handout uses the first.
std::string predict_precision_words(const PredictPrecision& precision);
std::string predict_range_words(const LessonPredict& predict);
// The answer as the question asks for it: "0.665" (3 decimals), "0.003906" (4 significant
// digits), "-1000" (0 decimals). Never in exponent form.
std::string predict_answer(const PredictPrecision& precision, double value);
// The answer as `predict` shows it: its choice's label ("3", "0.46") for a choice question, else
// predict_answer with its precision. The lesson panel and the class's reveal both write this.
std::string predict_answer(const LessonPredict& predict, double value);
// A guess as typed: the shortest text that reads back as the same double ("-1003", "0.0039").
std::string predict_guess(double value);
// How far off, to 2 significant digits and never in exponent form ("3", "0.21", "0.0000062").
std::string predict_off_by(double value);

// Params part of the way from `from` to `to` for progress in [0, 1] (eased by the caller).
// Numeric keys move: log-scaled ones (temperature, d_k, score_scale, seq_len, gamma, qk_norm) in log
// space, the others linearly; integer keys are rounded; the seed, booleans, the format and the score
// vector switch at once (an in-between seed or format means nothing). Every result is valid, and
// progress >= 1 gives exactly `to`.
Params interpolate_params(const Params& from, const Params& to, double progress);

// Smoothstep 3t² − 2t³ on [0, 1] (clamped): starts and ends at rest, so the eye follows the change.
double lesson_ease(double progress);

}  // namespace smlab::app
