// The lesson texts as the language model's corpus (lesson_corpus.hpp).
#include "lessons/lesson_corpus.hpp"

#include <string>
#include <vector>

namespace smlab::app {

std::shared_ptr<const train::Corpus> lesson_corpus(const LessonList& list) {
  std::vector<std::string> texts;
  for (const Lesson& lesson : list.lessons)
    for (const LessonStep& step : lesson.steps)
      for (const std::string* text : {&step.title.english, &step.text.english, &step.title.chinese, &step.text.chinese})
        texts.push_back(*text);
  Result<std::shared_ptr<const train::Corpus>> corpus = train::build_corpus(texts, train::lesson_corpus_min_count);
  return corpus.ok() ? *corpus : nullptr;
}

}  // namespace smlab::app
