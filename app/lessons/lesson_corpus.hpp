// The language model's text: the lesson texts in both languages (smlab/train/corpus.hpp gives the
// order), built from the lessons the app loaded, and attached to Params for the training lab.
#pragma once

#include <memory>

#include "lessons/lessons.hpp"
#include "smlab/params.hpp"
#include "smlab/train/corpus.hpp"

namespace smlab::app {

// For each lesson in `list` (file name order), for each step: its English title and text, then its
// Chinese title and text, with train::lesson_corpus_min_count. Null when the lessons hold too little
// text to train on (fewer than 1000 characters: none loaded).
std::shared_ptr<const train::Corpus> lesson_corpus(const LessonList& list);

// Gives `params` the corpus when it has none; the corpus is not a key, so Params made from keys
// alone (a session, a lesson step, a URL) get it here.
inline void attach_corpus(Params& params, const std::shared_ptr<const train::Corpus>& corpus) {
  if (params.training.corpus == nullptr) params.training.corpus = corpus;
}

}  // namespace smlab::app
