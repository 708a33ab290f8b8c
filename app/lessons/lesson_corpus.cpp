// The lesson texts as the language model's corpus (lesson_corpus.hpp).
#include "lessons/lesson_corpus.hpp"

#include <string>
#include <vector>

namespace smlab::app {

std::shared_ptr<const train::Corpus> lesson_corpus(const LessonList& list) {
  std::vector<std::string> texts;
  for (const Lesson& lesson : list.lessons)
    for (const LessonStep& step : lesson.steps)
      for (const i18n::Language language : {i18n::Language::English, i18n::Language::Chinese}) {
        // The texts as the class reads them, a bound number ({NAME}) as the "…" shown before it
        // has a value: the braces and names are the file's syntax, not the lessons' words.
        texts.push_back(step.title.in(language));
        texts.push_back(step_text(step, language, nullptr));
      }
  Result<std::shared_ptr<const train::Corpus>> corpus = train::build_corpus(texts, train::lesson_corpus_min_count);
  return corpus.ok() ? *corpus : nullptr;
}

}  // namespace smlab::app
