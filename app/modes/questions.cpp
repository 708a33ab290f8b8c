// --export-questions NAME FILE.html: a lesson's predict questions as a printable handout in the
// start language, for the class to answer on paper before the lecture reveals each number. Only
// what the lesson panel shows before the reveal is written: the step's title, the question, and its
// choices or range. Never the answer, the after-text or the claims: the answer is not in the
// lesson file at all (it is read from the live numbers when revealed).
#include <algorithm>
#include <cstdio>
#include <string>

#include "files/atomic_file.hpp"
#include "files/printable.hpp"
#include "lessons/lessons.hpp"
#include "modes/modes.hpp"
#include "plot/plot.hpp"

namespace smlab::app {
namespace {

// Printed on A4 or Letter: one column, large type, room under each question to write.
constexpr std::string_view kHandoutStyle =
    "body{font-family:'DejaVu Sans','Noto Sans CJK SC',sans-serif;font-size:13pt;line-height:1.5;"
    "max-width:44em;margin:2em auto;padding:0 1em}"
    "h1{font-size:20pt;margin-bottom:.2em}.name{margin:1em 0 2em}"
    "ol>li{margin-bottom:2.2em;break-inside:avoid}.step{color:#444;margin:0}.question{font-weight:bold;margin:.2em 0}"
    ".choices{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:.5em 2.5em}"
    ".blank{display:inline-block;min-width:12em;border-bottom:1px solid #000;margin-left:.5em}";

void add_escaped(std::string& out, std::string_view text) { plot::append_escaped(out, text); }

std::string handout(const Lesson& lesson, i18n::Language language) {
  const i18n::Use words(language);
  const std::string title = i18n::format("handout.title", {lesson.title.in(language)});
  std::string out = "<!DOCTYPE html>\n<html lang=\"";
  out += i18n::language_code(language);
  out += "\">\n<head>\n<meta charset=\"utf-8\">\n<title>";
  add_escaped(out, title);
  out += "</title>\n<style>";
  out += kHandoutStyle;
  out += "</style>\n</head>\n<body>\n<h1>";
  add_escaped(out, title);
  out += "</h1>\n<p>";
  add_escaped(out, i18n::tr("handout.intro"));
  out += "</p>\n<p class=\"name\">";
  add_escaped(out, i18n::tr("handout.name"));
  out += "<span class=\"blank\"></span></p>\n<ol>\n";
  const std::string steps = std::to_string(lesson.steps.size());
  for (std::size_t index = 0; index < lesson.steps.size(); ++index) {
    const LessonStep& step = lesson.steps[index];
    if (!step.predict) continue;
    const LessonPredict& predict = *step.predict;
    out += "<li>\n<p class=\"step\">";
    add_escaped(out, i18n::format("handout.step", {std::to_string(index + 1), steps, step.title.in(language)}));
    out += "</p>\n<p class=\"question\">";
    add_escaped(out, predict.question.in(language));
    out += "</p>\n";
    if (!predict.choices.empty()) {
      out += "<p>";
      add_escaped(out, i18n::tr("handout.choose"));
      out += "</p>\n<ul class=\"choices\">";
      for (double choice : predict.choices) {
        out += "<li>\u2610 ";
        add_escaped(out, predict_number(choice));
        out += "</li>";
      }
      out += "</ul>\n";
    } else {
      out += "<p>";
      add_escaped(out, i18n::format("handout.answer", {predict_number(predict.min), predict_number(predict.max),
                                                       predict_precision_words(predict.precision)}));
      out += "<span class=\"blank\"></span></p>\n";
    }
    out += "</li>\n";
  }
  out += "</ol>\n</body>\n</html>\n";
  return out;
}

bool asks_questions(const Lesson& lesson) {
  return std::any_of(lesson.steps.begin(), lesson.steps.end(), [](const LessonStep& step) { return step.predict; });
}

// The lessons that ask something, for the refusal of one that does not.
std::string lessons_with_questions(const LessonList& lessons) {
  std::string names;
  for (const Lesson& lesson : lessons.lessons)
    if (asks_questions(lesson)) names += (names.empty() ? "" : ", ") + lesson.name;
  return names.empty() ? "none" : names;
}

}  // namespace

Result<void> run_questions(const Options& o, AppOptions start) {
  const std::string& name = o.export_questions[0];
  const std::string& target = o.export_questions[1];
  Result<std::size_t> index = exported_lesson(start.lessons, name, "--export-questions");
  if (!index) return index.error();
  const Lesson& lesson = start.lessons.lessons[*index];
  if (!asks_questions(lesson))
    return Error::usage("--export-questions: lesson '" + lesson.name + "' asks no questions: the lessons that do are " +
                        lessons_with_questions(start.lessons));
  // Chinese only with its table (as the other exports): otherwise the keys' English.
  const i18n::Language language =
      start.language == i18n::Language::Chinese && !i18n::has_chinese() ? i18n::Language::English : start.language;
  if (Result<void> written = files::write_file_atomically(target, handout(lesson, language), o.overwrite); !written)
    return written;
  std::printf("%s\n", escaped_path(target).c_str());
  return {};
}

}  // namespace smlab::app
