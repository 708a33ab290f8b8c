// Progressive Monte Carlo of entropy, max weight and Jacobian norm versus d_k.
#include "smlab/montecarlo.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {

void RunningStats::add(double value) {
  ++count;
  const double delta = value - mean;
  mean += delta / static_cast<double>(count);
  sum_squared_deviation += delta * (value - mean);
}

double RunningStats::variance() const {
  return count < 2 ? 0.0 : sum_squared_deviation / static_cast<double>(count - 1);
}

double RunningStats::standard_error() const {
  return count < 2 ? 0.0 : std::sqrt(variance() / static_cast<double>(count));
}

std::vector<int> power_of_two_key_dims(int max_key_dim) {
  std::vector<int> dims;
  for (int d = 1; d <= max_key_dim; d *= 2) dims.push_back(d);
  return dims;
}

DkSweep make_dk_sweep(DkSweepConfig config) {
  DkSweep sweep;
  sweep.scaled.resize(config.key_dims.size());
  sweep.unscaled.resize(config.key_dims.size());
  sweep.config = std::move(config);
  return sweep;
}

void add_dk_trials(DkSweep& sweep, std::int64_t trials) {
  const DkSweepConfig& config = sweep.config;
  const auto length = static_cast<std::size_t>(config.seq_len);
  std::vector<double> normals(length), logits(length), probabilities(length);
  auto record = [&](RowStats& stats) {
    softmax(probabilities, logits, config.temperature);
    stats.entropy_nats.add(entropy_nats(probabilities));
    stats.max_weight.add(*std::max_element(probabilities.begin(), probabilities.end()));
    stats.jacobian_norm.add(jacobian_frobenius_norm(probabilities));
  };
  for (std::int64_t t = sweep.trials; t < sweep.trials + trials; ++t) {
    for (std::size_t point = 0; point < config.key_dims.size(); ++point) {
      const int key_dim = config.key_dims[point];
      NormalGenerator rng(stream_seed(config.seed, static_cast<std::uint64_t>(Stream::monte_carlo),
                                      (static_cast<std::uint64_t>(t) << 16) | point));
      const double query_norm = std::sqrt(2.0 * gamma_sample(rng, 0.5 * key_dim));
      for (double& z : normals) z = query_norm * rng.next();
      const double unscaled_factor = config.score_scale;
      for (std::size_t j = 0; j < length; ++j) logits[j] = normals[j] * unscaled_factor;
      record(sweep.unscaled[point]);
      const double inverse_sqrt_dim = 1.0 / std::sqrt(static_cast<double>(key_dim));
      for (std::size_t j = 0; j < length; ++j) logits[j] = normals[j] * unscaled_factor * inverse_sqrt_dim;
      record(sweep.scaled[point]);
    }
  }
  sweep.trials += trials;
}

}  // namespace smlab
