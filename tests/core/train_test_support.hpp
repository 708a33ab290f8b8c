// Helpers of the training tests and benches: the lesson texts in the corpus order of corpus.hpp,
// a small corpus for quick tests, and printing settings in failure messages.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "smlab/train/corpus.hpp"
#include "smlab/train/settings.hpp"

namespace smlab::train_test {

// assets/lessons/*.json in name order; for each step its English title and text, then its Chinese
// title and text (corpus.hpp's rule). Empty when the folder cannot be read.
inline std::vector<std::string> lesson_texts(const std::filesystem::path& lessons_dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(lessons_dir, error))
    if (entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  std::vector<std::string> texts;
  for (const auto& file : files) {
    std::ifstream in(file, std::ios::binary);
    const nlohmann::json lesson = nlohmann::json::parse(in, nullptr, false);
    if (lesson.is_discarded() || !lesson.contains("steps")) continue;
    for (const auto& step : lesson["steps"])
      for (const char* language : {"en", "zh-CN"})
        for (const char* field : {"title", "text"})
          if (step.contains(field) && step[field].contains(language))
            texts.push_back(step[field][language].get<std::string>());
  }
  return texts;
}

// A corpus of a few thousand characters with structure a small model can learn quickly:
// repeated words in a fixed pattern (for tests that need the language task but not the lessons).
inline std::shared_ptr<const train::Corpus> small_corpus() {
  std::vector<std::string> texts;
  const char* words[] = {"soft", "max", "attention", "query", "key", "value", "scale", "temperature"};
  for (int i = 0; i < 300; ++i) texts.push_back(std::string(words[i % 8]) + " " + words[(i * 3 + 1) % 8] + ".");
  return train::build_corpus(texts, 1).value();
}

inline std::string describe(const train::Settings& s) {
  std::string out;
  for (const auto& key : train::setting_keys())
    out += std::string(key.name) + "=" + train::get_setting(s, key.name).value_or("?") + " ";
  return out;
}

}  // namespace smlab::train_test
