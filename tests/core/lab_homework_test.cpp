// Tests of the homework (core/src/labs/homework.cpp): each exercise's answer against an
// independent long-double computation, and the checker of typed answers.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>

#include "smlab/labs/homework.hpp"

namespace smlab {
namespace {

std::map<std::string, Exercise> by_id() {
  std::map<std::string, Exercise> out;
  for (const Exercise& e : homework_exercises()) out.emplace(std::string(e.id), e);
  return out;
}

// Independent references: closed forms in long double, not the core's functions.
TEST(Homework, AnswersMatchIndependentReferences) {
  const auto all = by_id();
  ASSERT_EQ(all.size(), homework_exercises().size()) << "ids are unique";
  const long double e1 = std::exp(1.0L), e2 = std::exp(2.0L), e3 = std::exp(3.0L);
  std::map<std::string, long double> reference{
      {"softmax_top", e3 / (e1 + e2 + e3)},
      {"softmax_half_temperature", std::exp(6.0L) / (std::exp(2.0L) + std::exp(4.0L) + std::exp(6.0L))},
      {"entropy_uniform", std::log(16.0L)},
      {"score_variance", 64.0L},
      {"scaled_score_std", 1.0L},
      {"cross_entropy", std::log(e2 + e1 + std::exp(0.1L)) - 2.0L},
      {"cross_entropy_gradient", e2 / (e2 + e1 + std::exp(0.1L)) - 1.0L},
      {"naive_overflow_nans", 3.0L},
      {"log_softmax_far", -1000.0L},
      {"top_p_count", 3.0L},  // softmax(2,1,0,−1) = .644, .237, .087, .032: .644+.237 = .881 < .9
      {"distillation_factor", 16.0L},
      {"xavier_variance", 1.0L / 256},
      {"he_std", 0.0625L},
      {"cosine_alignment", 24.0L / 25},
      {"sparsemax_zeros", 2.0L},  // τ = 2: p = (1, 0, 0)
  };
  for (const auto& [id, exercise] : all) {
    ASSERT_TRUE(reference.count(id)) << "no reference for " << id;
    // The core's answer is within 1e-12 of the closed form (or exactly the count), far inside the
    // tolerance a student gets.
    EXPECT_NEAR(exercise.answer, static_cast<double>(reference[id]), 1e-12 * std::max(1.0L, std::abs(reference[id])))
        << id;
    EXPECT_GE(exercise.tolerance, 0.0) << id;
    EXPECT_FALSE(exercise.tolerance_reason.empty()) << id;
  }
}

TEST(Homework, CheckerAcceptsWithinToleranceAndRejectsOutside) {
  for (const Exercise& e : homework_exercises()) {
    SCOPED_TRACE(std::string(e.id));
    auto text = [](double x) {
      char buffer[64];
      std::snprintf(buffer, sizeof buffer, "%.17g", x);
      return std::string(buffer);
    };
    EXPECT_TRUE(check_answer(e, text(e.answer))->correct);
    if (!e.integer) {
      EXPECT_TRUE(check_answer(e, text(e.answer + 0.9 * e.tolerance))->correct);
      EXPECT_FALSE(check_answer(e, text(e.answer + 1.1 * e.tolerance + 1e-9))->correct);
      EXPECT_FALSE(check_answer(e, text(e.answer - 1.1 * e.tolerance - 1e-9))->correct);
    } else {
      EXPECT_FALSE(check_answer(e, text(e.answer + 1))->correct);
      EXPECT_FALSE(check_answer(e, text(e.answer) + ".5").ok());
    }
  }
}

TEST(Homework, CheckerParsesPeoplesNumbersAndRejectsTheRestInOneLine) {
  const Exercise e = by_id().at("softmax_top");
  EXPECT_TRUE(check_answer(e, " 0.665 ")->correct);
  EXPECT_TRUE(check_answer(e, "0,665")->correct);
  EXPECT_TRUE(check_answer(e, "+0.6652")->correct);
  EXPECT_FALSE(check_answer(e, "0.7")->correct);
  EXPECT_TRUE(check_answer(e, "0.7").ok());
  for (const char* bad : {"", "abc", "0.6x", "nan", "inf", "1e999", "%s%n", "\x01\xff"}) {
    const Result<AnswerCheck> check = check_answer(e, bad);
    ASSERT_FALSE(check.ok()) << bad;
    EXPECT_FALSE(check.error().message.empty()) << bad;
    EXPECT_EQ(check.error().message.find('\n'), std::string::npos) << bad;
    for (char c : check.error().message) EXPECT_TRUE(c >= 0x20 && c < 0x7F) << "non-printable in message for " << bad;
  }
  EXPECT_FALSE(check_answer(e, std::string(65, '1')).ok());
  EXPECT_NE(check_answer(e, std::string(65, '1')).error().message.find("64"), std::string::npos);
}

}  // namespace
}  // namespace smlab
