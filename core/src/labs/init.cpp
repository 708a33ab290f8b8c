// The init lab's computations: activations pushed through a seeded stack of layers, their
// variance per layer, and the mean-field prediction it is compared with.
#include "smlab/labs/init.hpp"

#include <cassert>
#include <cmath>
#include <numbers>

#include "smlab/labs/geometry.hpp"  // tanh_derivative_expectation
#include "smlab/parallel.hpp"
#include "smlab/random.hpp"

namespace smlab {
namespace {

constexpr std::uint64_t init_stream = 0x494E4954;  // "INIT"

double activate(Activation activation, double x) {
  switch (activation) {
    case Activation::linear: return x;
    case Activation::tanh: return std::tanh(x);
    case Activation::relu: return x > 0.0 ? x : 0.0;
  }
  return x;
}

// E[φ(√v Z)²] for Z ~ N(0, 1).
double second_moment(Activation activation, double variance) {
  switch (activation) {
    case Activation::linear: return variance;
    case Activation::relu: return variance / 2.0;
    case Activation::tanh: {
      // v ≥ 1: E[tanh²] = 1 − E[sech²] ≥ 0.39 (geometry.hpp's quadrature, no cancellation).
      // v < 1: tanh²(√v z) φ(z) directly in z (no narrow features; 1 − E[sech²] would cancel to
      // nothing as v → 0, where E[tanh²] ≈ v), Simpson on [−12, 12], error < 1e-12 relative.
      if (variance >= 1.0) return 1.0 - tanh_derivative_expectation(std::sqrt(variance));
      constexpr int intervals = 4800;
      constexpr double limit = 12.0;
      const double h = 2.0 * limit / intervals, s = std::sqrt(variance);
      auto f = [&](double z) {
        const double t = std::tanh(s * z);
        return t * t * std::exp(-0.5 * z * z);
      };
      double sum = f(-limit) + f(limit);
      for (int i = 1; i < intervals; ++i) sum += (i % 2 ? 4.0 : 2.0) * f(-limit + h * i);
      return sum * h / 3.0 / std::sqrt(2.0 * std::numbers::pi);
    }
  }
  return variance;
}

// Population mean and variance of a row, in place normalised when asked (LayerNorm, ε = 1e-5).
void layer_norm_in_place(std::vector<double>& row) {
  double mean = 0.0;
  for (double x : row) mean += x;
  mean /= static_cast<double>(row.size());
  double variance = 0.0;
  for (double x : row) variance += (x - mean) * (x - mean);
  variance /= static_cast<double>(row.size());
  const double inverse = 1.0 / std::sqrt(variance + 1e-5);
  for (double& x : row) x = (x - mean) * inverse;
}

}  // namespace

std::string_view initialization_name(Initialization init) {
  switch (init) {
    case Initialization::unit: return "unit";
    case Initialization::xavier: return "xavier";
    case Initialization::he: return "he";
    case Initialization::small: return "small";
  }
  return "unit";
}

std::string_view activation_name(Activation activation) {
  switch (activation) {
    case Activation::linear: return "linear";
    case Activation::tanh: return "tanh";
    case Activation::relu: return "relu";
  }
  return "linear";
}

double weight_variance(Initialization init, int width) {
  const double n = static_cast<double>(width);
  switch (init) {
    case Initialization::unit: return 1.0;
    case Initialization::xavier: return 2.0 / (n + n);
    case Initialization::he: return 2.0 / n;
    case Initialization::small: return 1e-4;
  }
  return 1.0;
}

std::vector<double> predicted_layer_variances(Initialization init, Activation activation, int width, int depth,
                                              bool layer_norm) {
  const double gain = width * weight_variance(init, width);
  std::vector<double> out(static_cast<std::size_t>(depth) + 1);
  out[0] = 1.0;
  double variance = 1.0;
  for (int l = 1; l <= depth; ++l) {
    const double moment = second_moment(activation, variance);
    variance = layer_norm ? 1.0 : gain * moment;
    out[static_cast<std::size_t>(l)] = variance;
  }
  return out;
}

void evaluate_init_lab(InitLab& out, const InitSettings& settings) {
  out.settings = settings;
  const int n = settings.width, batch = settings.batch, depth = settings.depth;
  assert(n >= 1 && batch >= 1 && depth >= 1);
  out.weight_variance = weight_variance(settings.init, n);
  out.predicted_variance = predicted_layer_variances(settings.init, settings.activation, n, depth, settings.layer_norm);
  out.measured_variance.assign(static_cast<std::size_t>(depth) + 1, 0.0);
  out.predicted_by_init.clear();
  for (Initialization init : {Initialization::unit, Initialization::xavier, Initialization::he, Initialization::small})
    out.predicted_by_init.push_back(
        predicted_layer_variances(init, settings.activation, n, depth, settings.layer_norm));

  auto variance_of = [&](const std::vector<std::vector<double>>& h) {
    double mean = 0.0, squares = 0.0;
    for (const auto& row : h)
      for (double x : row) mean += x;
    mean /= static_cast<double>(batch) * n;
    for (const auto& row : h)
      for (double x : row) squares += (x - mean) * (x - mean);
    return squares / (static_cast<double>(batch) * n);
  };

  std::vector<std::vector<double>> h(static_cast<std::size_t>(batch), std::vector<double>(static_cast<std::size_t>(n)));
  for (int b = 0; b < batch; ++b) {
    NormalGenerator normal(stream_seed(settings.seed, init_stream, static_cast<std::uint64_t>(b)));
    for (double& x : h[static_cast<std::size_t>(b)]) x = normal.next();
  }
  out.measured_variance[0] = variance_of(h);
  const double weight_sigma = std::sqrt(out.weight_variance);
  std::vector<double> weights(static_cast<std::size_t>(n) * static_cast<std::size_t>(n));
  std::vector<std::vector<double>> next = h;
  for (int l = 1; l <= depth; ++l) {
    // W_l: row r drawn from its own stream (layer, row), so rows can be drawn in parallel.
    parallel_for(n, [&](int r) {
      NormalGenerator normal(
          stream_seed(settings.seed, init_stream + 1 + static_cast<std::uint64_t>(l), static_cast<std::uint64_t>(r)));
      for (int c = 0; c < n; ++c)
        weights[static_cast<std::size_t>(r) * n + static_cast<std::size_t>(c)] = weight_sigma * normal.next();
    });
    parallel_for(batch, [&](int b) {
      const auto& input = h[static_cast<std::size_t>(b)];
      std::vector<double> activated(static_cast<std::size_t>(n));
      for (int c = 0; c < n; ++c)
        activated[static_cast<std::size_t>(c)] = activate(settings.activation, input[static_cast<std::size_t>(c)]);
      auto& output = next[static_cast<std::size_t>(b)];
      for (int r = 0; r < n; ++r) {
        double sum = 0.0;
        const double* w = weights.data() + static_cast<std::size_t>(r) * n;
        for (int c = 0; c < n; ++c) sum += w[c] * activated[static_cast<std::size_t>(c)];
        output[static_cast<std::size_t>(r)] = sum;
      }
      if (settings.layer_norm) layer_norm_in_place(output);
    });
    std::swap(h, next);
    out.measured_variance[static_cast<std::size_t>(l)] = variance_of(h);
  }
}

}  // namespace smlab
