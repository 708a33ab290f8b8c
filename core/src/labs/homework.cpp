// The homework's exercises with answers from the core's functions, and the checker of typed answers.
#include "smlab/labs/homework.hpp"

#include <charconv>
#include <cmath>

#include "smlab/labs/geometry.hpp"
#include "smlab/labs/init.hpp"
#include "smlab/labs/loss.hpp"
#include "smlab/labs/sampling.hpp"
#include "smlab/montecarlo.hpp"
#include "smlab/normalizers.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr std::string_view kHand = "three decimals, as worked by hand with a calculator";

double softmax_entry(std::vector<double> scores, std::size_t index, double temperature) {
  std::vector<double> p(scores.size());
  softmax(p, scores, temperature);
  return p[index];
}

}  // namespace

std::vector<Exercise> homework_exercises() {
  std::vector<Exercise> out;
  // 1. softmax([1, 2, 3]): the weight of 3.
  out.push_back({"softmax_top", "normalizers", softmax_entry({1, 2, 3}, 2, 1.0), 0.0015, kHand});
  // 2. the same at T = 0.5: sharper.
  out.push_back({"softmax_half_temperature", "temperature", softmax_entry({1, 2, 3}, 2, 0.5), 0.0015, kHand});
  // 3. entropy of the uniform distribution over 16 keys, in nats.
  {
    std::vector<double> uniform(16, 1.0 / 16);
    out.push_back({"entropy_uniform", "temperature", entropy_nats(uniform), 0.0015, kHand});
  }
  // 4. Var(q·k) for d_k = 64, entries N(0, 1); 5. the std of q·k/√d_k.
  out.push_back({"score_variance", "scaling", qk_variance(64, 1.0, false), 0.5, "a whole number is expected; ±0.5"});
  out.push_back({"scaled_score_std", "scaling", std::sqrt(qk_variance(64, 1.0, true)), 0.0015, kHand});
  // 6. cross-entropy of logits [2, 1, 0.1] with target 0; 7. its gradient at the target, s₀ − 1.
  const std::vector<double> logits{2.0, 1.0, 0.1};
  out.push_back({"cross_entropy", "loss", cross_entropy(logits, 0), 0.0015, kHand});
  {
    std::vector<double> gradient(3);
    cross_entropy_gradient(gradient, logits, 0);
    out.push_back({"cross_entropy_gradient", "loss", gradient[0], 0.0015, kHand});
  }
  // 8. how many NaN the naive softmax of [1000, 1001, 1002] gives.
  {
    std::vector<double> scores{1000, 1001, 1002}, p(3);
    naive_softmax(p, scores);
    int nans = 0;
    for (double x : p) nans += std::isnan(x) ? 1 : 0;
    out.push_back({"naive_overflow_nans", "stability", static_cast<double>(nans), 0.0, "a count", true});
  }
  // 9. log-softmax of the first entry of [0, 1000] (the naive route gives −inf).
  {
    std::vector<double> scores{0, 1000}, log_p(2);
    log_softmax(log_p, scores);
    out.push_back({"log_softmax_far", "loss", log_p[0], 0.5, "the nearest whole number is enough"});
  }
  // 10. how many tokens top-p = 0.9 keeps for logits [2, 1, 0, −1] at T = 1.
  {
    std::vector<double> scores{2, 1, 0, -1}, p(4), kept(4);
    softmax(p, scores);
    out.push_back({"top_p_count", "sampling", static_cast<double>(top_p_filter(kept, p, 0.9)), 0.0, "a count", true});
  }
  // 11. the factor on the KD gradient at T = 4 (loss / KL).
  {
    Distillation d;
    const std::vector<double> teacher{2, 1, 0}, student{0.5, 1, 0};
    distillation(d, teacher, student, 4.0);
    out.push_back({"distillation_factor", "sampling", d.loss / d.kl_nats, 0.05, "a whole number is expected"});
  }
  // 12. Xavier's weight variance for 256 inputs and 256 outputs; 13. He's standard deviation for 512 inputs.
  out.push_back({"xavier_variance", "init", weight_variance(Initialization::xavier, 256), 0.00005,
                 "four significant digits of 1/256"});
  out.push_back({"he_std", "init", std::sqrt(weight_variance(Initialization::he, 512)), 0.0005, "three decimals"});
  // 14. cos θ between q = (3, 4) and k = (4, 3).
  {
    Alignment a;
    const std::vector<double> query{3, 4}, key{4, 3};
    alignment(a, query, key);
    out.push_back({"cosine_alignment", "geometry", a.cosines[0], 0.0015, kHand});
  }
  // 15. how many zeros sparsemax([3, 1, 0.2]) has.
  {
    std::vector<double> scores{3, 1, 0.2}, p(3);
    sparsemax(p, scores);
    int zeros = 0;
    for (double x : p) zeros += x == 0.0 ? 1 : 0;
    out.push_back({"sparsemax_zeros", "normalizers", static_cast<double>(zeros), 0.0, "a count", true});
  }
  return out;
}

Result<AnswerCheck> check_answer(const Exercise& exercise, std::string_view typed) {
  constexpr std::size_t max_length = 64;
  while (!typed.empty() && (typed.front() == ' ' || typed.front() == '\t')) typed.remove_prefix(1);
  while (!typed.empty() &&
         (typed.back() == ' ' || typed.back() == '\t' || typed.back() == '\n' || typed.back() == '\r'))
    typed.remove_suffix(1);
  if (typed.empty()) return Error::usage("answer is empty: type a number, e.g. 0.665");
  if (typed.size() > max_length)
    return Error::usage("answer is " + std::to_string(typed.size()) + " characters long: allowed at most 64");
  std::string text(typed);
  for (char& c : text)
    if (c == ',') c = '.';  // a decimal comma, as many students write it
  if (!text.empty() && text.front() == '+') text.erase(0, 1);
  double value = 0.0;
  const auto [end, status] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (status != std::errc{} || end != text.data() + text.size() || !std::isfinite(value)) {
    // Only printable ASCII is echoed back; anything else shows as '?'.
    std::string shown;
    for (char c : typed) shown += (c >= 0x20 && c < 0x7F) ? c : '?';
    return Error::usage("answer '" + shown + "' is not a number: type a decimal such as 0.665 or -2");
  }
  if (exercise.integer && value != std::floor(value))
    return Error::usage("answer " + text + " is not a whole number: this exercise asks for a count");
  AnswerCheck out;
  out.typed = value;
  out.error = value - exercise.answer;
  out.correct = std::abs(out.error) <= exercise.tolerance;
  return out;
}

}  // namespace smlab
