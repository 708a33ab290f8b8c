// The geometry lab's computations: the ‖q‖‖k‖cos θ decomposition, cosine attention's ε and its
// gradient, and the tanh saturation of additive attention with and without LayerNorm.
#include "smlab/labs/geometry.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <numbers>

#include "smlab/attention.hpp"
#include "smlab/labs/attention_variants.hpp"  // log_grid
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

double norm_of(std::span<const double> v) {
  double scale = 0.0;  // hypot-style: no overflow or underflow of the squares
  for (double x : v) scale = std::max(scale, std::abs(x));
  if (scale == 0.0) return 0.0;
  double sum = 0.0;
  for (double x : v) sum += (x / scale) * (x / scale);
  return scale * std::sqrt(sum);
}

double dot_of(std::span<const double> a, std::span<const double> b) {
  double sum = 0.0;
  for (std::size_t i = 0; i < a.size(); ++i) sum += a[i] * b[i];
  return sum;
}

}  // namespace

void alignment(Alignment& out, std::span<const double> query, std::span<const double> keys, double scale,
               double temperature) {
  const std::size_t dim = query.size();
  assert(dim >= 1 && keys.size() % dim == 0);
  const std::size_t n = keys.size() / dim;
  out.query_norm = norm_of(query);
  out.key_norms.resize(n);
  out.angles.resize(n);
  out.cosines.resize(n);
  out.dots.resize(n);
  out.weights.resize(n);
  for (std::size_t j = 0; j < n; ++j) {
    const auto key = keys.subspan(j * dim, dim);
    const double dot = dot_of(query, key);
    double cross_squared = 0.0;  // Lagrange: ‖q‖²‖k‖² − (q·k)² = Σ_{a<b} (q_a k_b − q_b k_a)²
    for (std::size_t a = 0; a < dim; ++a)
      for (std::size_t b = a + 1; b < dim; ++b) {
        const double term = query[a] * key[b] - query[b] * key[a];
        cross_squared += term * term;
      }
    out.dots[j] = dot;
    out.key_norms[j] = norm_of(key);
    if (out.query_norm == 0.0 || out.key_norms[j] == 0.0) {
      out.angles[j] = std::numbers::pi / 2;
      out.cosines[j] = 0.0;
    } else {
      out.angles[j] = std::atan2(std::sqrt(cross_squared), dot);
      out.cosines[j] = dot / out.query_norm / out.key_norms[j];
    }
  }
  std::vector<double> scores(n);
  for (std::size_t j = 0; j < n; ++j) scores[j] = scale * out.dots[j];
  softmax(out.weights, scores, temperature);
}

double cosine_score(std::span<const double> query, std::span<const double> key, double epsilon) {
  const double denominator = std::max(norm_of(query), epsilon) * std::max(norm_of(key), epsilon);
  return dot_of(query, key) / denominator;  // ε = 0 and a zero vector: 0/0 = NaN, the naive failure
}

void cosine_score_gradient(std::span<double> query_gradient, std::span<const double> query, std::span<const double> key,
                           double epsilon) {
  // s = (q·k) / (ρ(q) κ), ρ = max(‖q‖, ε), κ = max(‖k‖, ε).
  // ‖q‖ ≥ ε: ρ = ‖q‖, ∂s/∂q = k/(‖q‖κ) − (q·k) q/(‖q‖³ κ)   (quotient rule, ∂‖q‖/∂q = q/‖q‖)
  // ‖q‖ < ε: ρ = ε constant, ∂s/∂q = k/(ε κ).
  const double q_norm = norm_of(query), k_scale = std::max(norm_of(key), epsilon);
  const double dot = dot_of(query, key);
  for (std::size_t c = 0; c < query.size(); ++c) {
    if (q_norm >= epsilon && q_norm > 0.0)
      query_gradient[c] = key[c] / (q_norm * k_scale) - dot * query[c] / (q_norm * q_norm * q_norm * k_scale);
    else
      query_gradient[c] = key[c] / (epsilon * k_scale);  // ε = 0 at q = 0: k/0 = ±inf, the blow-up
  }
}

double tanh_derivative_expectation(double standard_deviation) {
  // In u = s·z: E = (1/s) ∫ sech²(u) φ(u/s) du over |u| ≤ U = min(12 s, 40): φ(u/s) < 1e-31 beyond
  // 12 s and sech²(u) < 1e-34 beyond 40, so the cut is invisible; both factors are resolved by the
  // step 2U/4800 ≤ 0.017 whatever s is (in z, a large s made sech² narrower than the step).
  constexpr int intervals = 4800;  // even, for Simpson
  const double s = standard_deviation;
  const double limit = std::min(12.0 * s, 40.0);
  const double h = 2.0 * limit / intervals;
  auto integrand = [&](double u) {
    const double c = std::cosh(u);
    return std::exp(-0.5 * (u / s) * (u / s)) / (c * c);
  };
  double sum = integrand(-limit) + integrand(limit);
  for (int i = 1; i < intervals; ++i) sum += (i % 2 ? 4.0 : 2.0) * integrand(-limit + h * i);
  return sum * h / 3.0 / (s * std::sqrt(2.0 * std::numbers::pi));
}

Saturation additive_saturation(double sigma, bool layer_norm, int key_dim, int additive_dim, std::uint64_t seed) {
  constexpr int length = 16;
  Matrix queries, keys, query_weights, key_weights;
  draw_gaussian(queries, seed, Stream::queries, length, key_dim, sigma);
  draw_gaussian(keys, seed, Stream::keys, length, key_dim, sigma);
  const double weight_sigma = 1.0 / std::sqrt(static_cast<double>(key_dim));
  draw_gaussian(query_weights, seed, Stream::additive_query_weights, additive_dim, key_dim, weight_sigma);
  draw_gaussian(key_weights, seed, Stream::additive_key_weights, additive_dim, key_dim, weight_sigma);
  if (layer_norm) {
    Matrix normed;
    layer_norm_rows(normed, queries, 1e-5);
    queries = normed;
    layer_norm_rows(normed, keys, 1e-5);
    keys = normed;
  }
  // W q_i and W k_j once each; u = W_q q_i + W_k k_j for every pair.
  auto project = [&](const Matrix& weights, const Matrix& inputs) {
    std::vector<double> out(static_cast<std::size_t>(length) * static_cast<std::size_t>(additive_dim), 0.0);
    for (int i = 0; i < length; ++i)
      for (int a = 0; a < additive_dim; ++a) {
        double sum = 0.0;
        for (int c = 0; c < key_dim; ++c) sum += static_cast<double>(weights(a, c)) * inputs(i, c);
        out[static_cast<std::size_t>(i * additive_dim + a)] = sum;
      }
    return out;
  };
  const std::vector<double> projected_queries = project(query_weights, queries);
  const std::vector<double> projected_keys = project(key_weights, keys);
  double derivative = 0.0, saturated = 0.0, squares = 0.0;
  for (int i = 0; i < length; ++i)
    for (int j = 0; j < length; ++j)
      for (int a = 0; a < additive_dim; ++a) {
        const double u = projected_queries[static_cast<std::size_t>(i * additive_dim + a)] +
                         projected_keys[static_cast<std::size_t>(j * additive_dim + a)];
        const double t = std::tanh(u);
        derivative += 1.0 - t * t;
        saturated += std::abs(t) > 0.99 ? 1.0 : 0.0;
        squares += u * u;
      }
  const double count = static_cast<double>(length) * length * additive_dim;
  return {derivative / count, saturated / count, std::sqrt(squares / count)};
}

void evaluate_geometry_lab(GeometryLab& out, const GeometrySettings& settings) {
  out.settings = settings;
  out.query = {settings.query_norm * std::cos(settings.query_angle),
               settings.query_norm * std::sin(settings.query_angle)};
  const std::size_t n = settings.key_norms.size();
  assert(settings.key_angles.size() == n && n >= 1);
  out.keys.resize(2 * n);
  for (std::size_t j = 0; j < n; ++j) {
    out.keys[2 * j] = settings.key_norms[j] * std::cos(settings.key_angles[j]);
    out.keys[2 * j + 1] = settings.key_norms[j] * std::sin(settings.key_angles[j]);
  }
  alignment(out.alignment, out.query, out.keys, 1.0, settings.temperature);

  // Cosine ε: q = r·u along the query's direction, against the first key made unit length.
  const std::vector<double> direction{std::cos(settings.query_angle), std::sin(settings.query_angle)};
  const std::vector<double> key{std::cos(settings.key_angles[0]), std::sin(settings.key_angles[0])};
  constexpr int cosine_points = 91;  // 10 per decade
  out.sweep_query_norms = log_grid(1e-8, 10.0, cosine_points);
  out.sweep_cosine_naive.resize(cosine_points);
  out.sweep_cosine_epsilon.resize(cosine_points);
  out.sweep_gradient_naive.resize(cosine_points);
  out.sweep_gradient_epsilon.resize(cosine_points);
  std::vector<double> query(2), gradient(2);
  // ‖∂cos/∂q‖ = ‖k‖ sin θ / (‖q‖ κ) where the query is r·u (‖q‖ ≥ ε): the vector formula's two
  // terms of size 1/r cancel to ~2⁻⁵³/r when q and k are nearly parallel (1.5e-8 at r = 1e-8
  // where it is exactly 0). Below sin θ = 1e-4, where that error would exceed 1e-12 relative, the
  // norm is taken from sin θ as the cross product of the unit directions (exactly 0 for one
  // angle); above it, from the vector formula as always.
  // The 2×2 determinant d0·k1 − d1·k0 with Kahan's fused multiply-adds: correctly rounded to a few
  // ulps even when it cancels (a plain difference of two ~0.4 products leaves ~1e-17 of noise, a
  // 1e-11 relative error at an angle of 1e-6), and exactly 0 for equal directions.
  const double cross_rounded = direction[1] * key[0];
  const double cross_error = std::fma(direction[1], key[0], -cross_rounded);
  const double direction_cross = std::fma(direction[0], key[1], -cross_rounded) - cross_error;
  const double sine = std::abs(direction_cross) / (norm_of(direction) * norm_of(key));
  const auto sweep_gradient_norm = [&](std::span<const double> vector_gradient, double q_norm, double epsilon) {
    if (sine >= 1e-4 || q_norm < epsilon || q_norm == 0.0) return norm_of(vector_gradient);
    return norm_of(key) * sine / (q_norm * std::max(norm_of(key), epsilon));
  };
  for (std::size_t k = 0; k < static_cast<std::size_t>(cosine_points); ++k) {
    const double r = out.sweep_query_norms[k];
    query = {r * direction[0], r * direction[1]};
    out.sweep_cosine_naive[k] = cosine_score(query, key, 0.0);
    out.sweep_cosine_epsilon[k] = cosine_score(query, key, settings.cosine_epsilon);
    cosine_score_gradient(gradient, query, key, 0.0);
    out.sweep_gradient_naive[k] = sweep_gradient_norm(gradient, norm_of(query), 0.0);
    cosine_score_gradient(gradient, query, key, settings.cosine_epsilon);
    out.sweep_gradient_epsilon[k] = sweep_gradient_norm(gradient, norm_of(query), settings.cosine_epsilon);
  }

  // Additive saturation versus σ.
  constexpr int sigma_points = 31;  // 10 per decade
  out.sweep_sigmas = log_grid(0.1, 100.0, sigma_points);
  for (auto* v : {&out.plain_mean_derivative, &out.plain_saturated_fraction, &out.normed_mean_derivative,
                  &out.normed_saturated_fraction, &out.predicted_plain_derivative, &out.predicted_normed_derivative})
    v->resize(sigma_points);
  const double normed_prediction = tanh_derivative_expectation(std::sqrt(2.0));
  for (std::size_t k = 0; k < static_cast<std::size_t>(sigma_points); ++k) {
    const double sigma = out.sweep_sigmas[k];
    const Saturation plain = additive_saturation(sigma, false, settings.key_dim, settings.additive_dim, settings.seed);
    const Saturation normed = additive_saturation(sigma, true, settings.key_dim, settings.additive_dim, settings.seed);
    out.plain_mean_derivative[k] = plain.mean_derivative;
    out.plain_saturated_fraction[k] = plain.saturated_fraction;
    out.normed_mean_derivative[k] = normed.mean_derivative;
    out.normed_saturated_fraction[k] = normed.saturated_fraction;
    out.predicted_plain_derivative[k] = tanh_derivative_expectation(std::sqrt(2.0) * sigma);
    out.predicted_normed_derivative[k] = normed_prediction;
  }
  out.plain_now = additive_saturation(settings.sigma, false, settings.key_dim, settings.additive_dim, settings.seed);
  out.normed_now = additive_saturation(settings.sigma, true, settings.key_dim, settings.additive_dim, settings.seed);
}

}  // namespace smlab
