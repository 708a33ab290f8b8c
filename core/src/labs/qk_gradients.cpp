// Gradients of a loss through the attention weights back to the query and the keys, and their
// sizes versus d_k with and without the 1/√d_k scale.
#include "smlab/labs/qk_gradients.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "smlab/parallel.hpp"
#include "smlab/random.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

struct Forward {
  std::vector<double> scores, weights, log_weights;
  double scale = 1.0;
};

Forward forward(const QkGradientInputs& in) {
  const DenseMatrix& keys = *in.keys;
  const int length = keys.rows, dim = keys.cols;
  assert(static_cast<int>(in.query.size()) == dim);
  Forward f;
  f.scale = in.scaled ? 1.0 / std::sqrt(static_cast<double>(dim)) : 1.0;
  f.scores.resize(static_cast<std::size_t>(length));
  for (int j = 0; j < length; ++j) {
    double dot = 0.0;
    for (int c = 0; c < dim; ++c) dot += in.query[static_cast<std::size_t>(c)] * keys(j, c);
    f.scores[static_cast<std::size_t>(j)] = f.scale * dot;
  }
  f.weights.resize(f.scores.size());
  f.log_weights.resize(f.scores.size());
  softmax(f.weights, f.scores);
  log_softmax(f.log_weights, f.scores);
  return f;
}

// ∂L/∂a_j = g·v_j for the output probe.
std::vector<double> probe_weight_gradient(const QkGradientInputs& in) {
  const DenseMatrix& values = *in.values;
  std::vector<double> out(static_cast<std::size_t>(values.rows), 0.0);
  for (int j = 0; j < values.rows; ++j)
    for (int c = 0; c < values.cols; ++c)
      out[static_cast<std::size_t>(j)] += in.probe[static_cast<std::size_t>(c)] * values(j, c);
  return out;
}

double loss_of(const QkGradientInputs& in, const Forward& f) {
  if (in.loss == QkLoss::target_key) return -f.log_weights[static_cast<std::size_t>(in.target)];
  const std::vector<double> weight_gradient = probe_weight_gradient(in);
  double loss = 0.0;  // g·o = Σ_j a_j (g·v_j)
  for (std::size_t j = 0; j < f.weights.size(); ++j) loss += f.weights[j] * weight_gradient[j];
  return loss;
}

}  // namespace

double qk_loss(const QkGradientInputs& in) { return loss_of(in, forward(in)); }

double qk_loss_and_gradients(std::span<double> query_gradient, DenseMatrix& key_gradient, const QkGradientInputs& in) {
  const DenseMatrix& keys = *in.keys;
  const int length = keys.rows, dim = keys.cols;
  assert(static_cast<int>(query_gradient.size()) == dim);
  const Forward f = forward(in);
  // 1. ∂L/∂z
  std::vector<double> score_gradient(static_cast<std::size_t>(length));
  if (in.loss == QkLoss::target_key) {
    for (std::size_t j = 0; j < score_gradient.size(); ++j) score_gradient[j] = f.weights[j];
    score_gradient[static_cast<std::size_t>(in.target)] -= 1.0;  // a − e_target (1 − a_t kept exact below)
    double others = 0.0;
    for (std::size_t j = 0; j < f.weights.size(); ++j)
      if (j != static_cast<std::size_t>(in.target)) others += f.weights[j];
    score_gradient[static_cast<std::size_t>(in.target)] = -others;  // a_t − 1 = −Σ_{j≠t} a_j, no cancellation
  } else {
    softmax_vjp(score_gradient, f.weights, probe_weight_gradient(in));
  }
  // 2. ∂L/∂q = c Kᵀ ∂L/∂z and ∂L/∂k_j = c (∂L/∂z_j) q
  std::fill(query_gradient.begin(), query_gradient.end(), 0.0);
  key_gradient.rows = length;
  key_gradient.cols = dim;
  key_gradient.values.assign(static_cast<std::size_t>(length) * static_cast<std::size_t>(dim), 0.0);
  for (int j = 0; j < length; ++j) {
    const double dz = f.scale * score_gradient[static_cast<std::size_t>(j)];
    for (int c = 0; c < dim; ++c) {
      query_gradient[static_cast<std::size_t>(c)] += dz * keys(j, c);
      key_gradient.at(j, c) = dz * in.query[static_cast<std::size_t>(c)];
    }
  }
  return loss_of(in, f);
}

void qk_gradient_sweep(QkGradientSweep& out, QkLoss loss, int seq_len, int trials, std::uint64_t seed) {
  constexpr int value_dim = 8;
  constexpr std::uint64_t sweep_stream = 0x514B4752;  // "QKGR"
  out.loss = loss;
  out.seq_len = seq_len;
  out.trials = trials;
  out.key_dims.assign(std::begin(qk_sweep_dims), std::end(qk_sweep_dims));
  const std::size_t points = out.key_dims.size();
  // Per (point, trial): q-norm, K-norm, max weight, loss; scaled then unscaled.
  struct Trial {
    double values[2][4];
  };
  std::vector<Trial> results(points * static_cast<std::size_t>(trials));
  parallel_for(static_cast<int>(results.size()), [&](int index) {
    const std::size_t point = static_cast<std::size_t>(index) / static_cast<std::size_t>(trials);
    const int dim = out.key_dims[point];
    NormalGenerator normal(stream_seed(seed, sweep_stream, static_cast<std::uint64_t>(index)));
    std::vector<double> query(static_cast<std::size_t>(dim)), probe(value_dim);
    DenseMatrix keys{seq_len, dim,
                     std::vector<double>(static_cast<std::size_t>(seq_len) * static_cast<std::size_t>(dim))};
    DenseMatrix values{seq_len, value_dim, std::vector<double>(static_cast<std::size_t>(seq_len) * value_dim)};
    for (double& x : query) x = normal.next();
    for (double& x : keys.values) x = normal.next();
    for (double& x : values.values) x = normal.next();
    for (double& x : probe) x = normal.next();
    QkGradientInputs in{query, &keys, &values, probe, 0, loss, true};
    std::vector<double> query_gradient(static_cast<std::size_t>(dim));
    DenseMatrix key_gradient;
    Trial& trial = results[static_cast<std::size_t>(index)];
    for (int variant = 0; variant < 2; ++variant) {
      in.scaled = variant == 0;
      const double value = qk_loss_and_gradients(query_gradient, key_gradient, in);
      double q_norm = 0.0, k_norm = 0.0;
      for (double g : query_gradient) q_norm += g * g;
      for (double g : key_gradient.values) k_norm += g * g;
      const Forward f = forward(in);
      trial.values[variant][0] = std::sqrt(q_norm);
      trial.values[variant][1] = std::sqrt(k_norm);
      trial.values[variant][2] = *std::max_element(f.weights.begin(), f.weights.end());
      trial.values[variant][3] = value;
    }
  });
  std::vector<double>* means[2][4] = {
      {&out.scaled_query_norm, &out.scaled_key_norm, &out.scaled_max_weight, &out.scaled_loss},
      {&out.unscaled_query_norm, &out.unscaled_key_norm, &out.unscaled_max_weight, &out.unscaled_loss}};
  std::vector<double>* medians[2][2] = {{&out.scaled_query_norm_median, &out.scaled_key_norm_median},
                                        {&out.unscaled_query_norm_median, &out.unscaled_key_norm_median}};
  for (int variant = 0; variant < 2; ++variant) {
    for (auto* s : means[variant]) s->assign(points, 0.0);
    for (auto* s : medians[variant]) s->assign(points, 0.0);
  }
  std::vector<double> column(static_cast<std::size_t>(trials));
  for (std::size_t point = 0; point < points; ++point)
    for (int variant = 0; variant < 2; ++variant)
      for (int k = 0; k < 4; ++k) {
        for (int t = 0; t < trials; ++t)
          column[static_cast<std::size_t>(t)] =
              results[point * static_cast<std::size_t>(trials) + static_cast<std::size_t>(t)].values[variant][k];
        double sum = 0.0;
        for (double x : column) sum += x;  // in trial order: independent of the thread count
        (*means[variant][k])[point] = sum / trials;
        if (k < 2) {
          std::sort(column.begin(), column.end());
          const std::size_t half = column.size() / 2;
          (*medians[variant][k])[point] = column.size() % 2 ? column[half] : 0.5 * (column[half - 1] + column[half]);
        }
      }
}

}  // namespace smlab
