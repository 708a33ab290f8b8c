// The loss lab's computations: cross-entropy from log-softmax, its gradient (s − y)/T, and the
// naive log(softmax) beside the stable log-softmax.
#include "smlab/labs/loss.hpp"

#include <cassert>
#include <cmath>
#include <limits>

#include "smlab/softmax.hpp"

namespace smlab {

double cross_entropy(std::span<const double> logits, int target, double temperature) {
  assert(!logits.empty() && target >= 0 && static_cast<std::size_t>(target) < logits.size());
  std::vector<double> log_probabilities(logits.size());
  if (!log_softmax(log_probabilities, logits, temperature)) return std::numeric_limits<double>::quiet_NaN();
  // 0 − ln s_t, not −ln s_t: a target with all the mass has ln s_t = 0, and its loss is 0, not −0.
  return 0.0 - log_probabilities[static_cast<std::size_t>(target)];
}

void cross_entropy_gradient(std::span<double> gradient, std::span<const double> logits, int target,
                            double temperature) {
  assert(gradient.size() == logits.size() && target >= 0 && static_cast<std::size_t>(target) < logits.size());
  std::vector<double> probabilities(logits.size()), minus_target(logits.size(), 0.0);
  softmax(probabilities, logits, temperature);
  minus_target[static_cast<std::size_t>(target)] = -1.0;  // g = ∂L/∂ℓ = −y
  log_softmax_vjp(gradient, probabilities, minus_target, temperature);
  for (double& g : gradient) g += 0.0;  // s_t − 1 = 0 exactly is 0, not −0 (other values keep their bits)
}

void naive_log_softmax(std::span<double> log_probabilities, std::span<const double> logits, double temperature) {
  softmax(log_probabilities, logits, temperature);
  for (double& value : log_probabilities) value = std::log(value);  // ln 0 = −inf: the point of the demo
}

void evaluate_loss_lab(LossLab& out, const LossSettings& settings) {
  out.settings = settings;
  const std::size_t n = settings.logits.size();
  const double t = settings.temperature;
  out.probabilities.resize(n);
  out.log_softmax.resize(n);
  out.naive_log_softmax.resize(n);
  out.gradient.resize(n);
  softmax(out.probabilities, settings.logits, t);
  log_softmax(out.log_softmax, settings.logits, t);
  naive_log_softmax(out.naive_log_softmax, settings.logits, t);
  out.logsumexp = logsumexp(settings.logits, t);
  out.loss = cross_entropy(settings.logits, settings.target, t);
  cross_entropy_gradient(out.gradient, settings.logits, settings.target, t);
  out.gradient_sum = 0.0;
  out.naive_infinite_count = 0;
  for (std::size_t i = 0; i < n; ++i) {
    out.gradient_sum += out.gradient[i];
    if (std::isinf(out.naive_log_softmax[i])) ++out.naive_infinite_count;
  }

  const std::vector<double> demo{0.0, -settings.gap};
  std::vector<double> stable(2), naive(2);
  log_softmax(stable, demo);
  naive_log_softmax(naive, demo);
  out.demo_stable = stable[1];
  out.demo_naive = naive[1];

  constexpr int sweep_points = 201;
  const auto target = static_cast<std::size_t>(settings.target);
  out.sweep_target_logit.clear();
  out.sweep_loss.clear();
  out.sweep_target_gradient.clear();
  if (!std::isfinite(settings.logits[target])) return;  // a masked target: L = +inf, nothing to sweep
  out.sweep_target_logit.resize(sweep_points);
  out.sweep_loss.resize(sweep_points);
  out.sweep_target_gradient.resize(sweep_points);
  std::vector<double> logits = settings.logits, gradient(n);
  for (std::size_t k = 0; k < static_cast<std::size_t>(sweep_points); ++k) {
    logits[target] = settings.logits[target] - 10.0 + 20.0 * static_cast<double>(k) / (sweep_points - 1);
    out.sweep_target_logit[k] = logits[target];
    out.sweep_loss[k] = cross_entropy(logits, settings.target, t);
    cross_entropy_gradient(gradient, logits, settings.target, t);
    out.sweep_target_gradient[k] = gradient[target];
  }
}

}  // namespace smlab
