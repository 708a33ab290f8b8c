// The geometry of scores: the dot product as alignment (score = ‖q‖‖k‖cos θ), cosine attention's ε
// as ‖q‖ → 0, and additive attention's tanh saturation with and without LayerNorm in front.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace smlab {

// ─── Dot product as alignment ─────────────────────────────────────────────────────────────
// For a query q and keys k_j (any dimension d ≥ 1): dot_j = q·k_j, and its decomposition
// ‖q‖ · ‖k_j‖ · cos θ_j. θ_j = atan2(‖q × k_j‖, q·k_j) with ‖q × k‖² = ‖q‖²‖k‖² − (q·k)² taken
// from Lagrange's identity summed pairwise (Σ_{a<b} (q_a k_b − q_b k_a)²), which stays accurate at
// θ ≈ 0 and π where acos(cos θ) loses half its digits. Zero vectors get θ = π/2 and cos θ = 0
// (no direction). Shapes: query d, keys n×d row-major (n = keys.size()/d).
struct Alignment {
  double query_norm = 0.0;
  std::vector<double> key_norms, angles, cosines, dots, weights;  // weights = softmax(dots · scale / T)
};
void alignment(Alignment& out, std::span<const double> query, std::span<const double> keys, double scale = 1.0,
               double temperature = 1.0);

// The 2-D demo: q at (query_norm, query_angle), keys at (key_norms[j], key_angles[j]) (radians).
struct GeometrySettings {
  double query_norm = 1.5, query_angle = 0.6;
  std::vector<double> key_norms{1.0, 2.0, 1.0, 0.5};
  std::vector<double> key_angles{0.4, 1.4, 2.8, 0.6};
  double temperature = 1.0;
  double cosine_epsilon = 1e-3;  // ε of cosine attention
  double sigma = 1.0;            // input scale of the saturation demo (entries of q, k ~ N(0, σ²))
  int key_dim = 64, additive_dim = 32;
  std::uint64_t seed = 42;
};

// ─── Cosine attention's ε ─────────────────────────────────────────────────────────────────
// cos_ε(q, k) = q·k / (max(‖q‖, ε) · max(‖k‖, ε)), the form attention.hpp's cosine variant uses.
// Along q = r·u (u a unit vector, r = ‖q‖) and a unit key k:
//   naive (ε = 0): cos = u·k for every r > 0, and ‖∂cos/∂q‖ = sin θ / r → ∞ as r → 0 (0/0 at r = 0);
//   with ε:        for r ≥ ε the same; for r < ε, cos_ε = r (u·k)/ε → 0 and ∂cos_ε/∂q = k/ε,
//                  ‖∂/∂q‖ = 1/ε: the gradient is capped at 1/ε and the score goes to 0, not NaN.
// The gradient is returned exactly (the formulas above); the tests check it by finite differences.
double cosine_score(std::span<const double> query, std::span<const double> key, double epsilon);
void cosine_score_gradient(std::span<double> query_gradient, std::span<const double> query, std::span<const double> key,
                           double epsilon);

// ─── Additive attention's tanh ────────────────────────────────────────────────────────────
// score = vᵀ tanh(u), u = W_q q + W_k k (W ~ N(0, 1/d_k), d_a×d_k; v ~ N(0, 1/d_a)). With q, k
// entries ~ N(0, σ²), each u_a ~ N(0, 2σ²). The gradient through the tanh is scaled by
// tanh'(u) = 1 − tanh²(u), which → 0 once |u| ≫ 1: mean_derivative = (1/d_a) Σ_a (1 − tanh² u_a)
// falls like ~ 1/σ; saturated_fraction counts |tanh u_a| > 0.99 (tanh' < 0.02).
// With LayerNorm on q and k first (gain 1, bias 0), each has entries of variance 1 whatever σ
// is, so u ~ N(0, 2) and the mean derivative stays at its σ = 1 value:
//   predicted E[1 − tanh²(√2σ Z)], Z ~ N(0, 1), by quadrature (tanh_derivative_expectation).
struct Saturation {
  double mean_derivative = 0.0, saturated_fraction = 0.0, preactivation_std = 0.0;
};
// E[1 − tanh²(s Z)] for Z ~ N(0, 1), s > 0: composite Simpson with 4800 intervals in u = s·z over
// |u| ≤ min(12 s, 40) (geometry.cpp says why), relative error < 1e-10 for s in [1e-3, 1e4].
double tanh_derivative_expectation(double standard_deviation);

struct GeometryLab {
  GeometrySettings settings;
  std::vector<double> query;  // 2
  std::vector<double> keys;   // n×2
  Alignment alignment;        // of the 2-D demo (scale 1)
  // Cosine ε sweep over r = ‖q‖ on a log grid 1e-8 … 10 (the demo's first key, unit length):
  std::vector<double> sweep_query_norms, sweep_cosine_naive, sweep_cosine_epsilon;
  std::vector<double> sweep_gradient_naive, sweep_gradient_epsilon;  // ‖∂cos/∂q‖
  // Saturation sweep over σ on a log grid 0.1 … 100 (L = 16 queries × 16 keys of the seed):
  std::vector<double> sweep_sigmas;
  std::vector<double> plain_mean_derivative, plain_saturated_fraction;
  std::vector<double> normed_mean_derivative, normed_saturated_fraction;
  std::vector<double> predicted_plain_derivative, predicted_normed_derivative;
  Saturation plain_now, normed_now;  // at settings.sigma
};

void evaluate_geometry_lab(GeometryLab& out, const GeometrySettings& settings);

// The saturation of additive attention on seeded q, k (16×16 pairs) at input scale σ.
Saturation additive_saturation(double sigma, bool layer_norm, int key_dim, int additive_dim, std::uint64_t seed);

}  // namespace smlab
