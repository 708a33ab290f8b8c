// Non-inline parts of the project's random number generators.
#include "smlab/random.hpp"

#include <array>
#include <cmath>
#include <cstddef>

namespace smlab {

namespace {

// Marsaglia and Tsang's method for shape ≥ 1 (lifted below 1), from any generator of normals and
// uniforms.
template <class Normals>
double gamma_from(Normals& rng, double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) · U^{1/a} lifts shapes below 1 into the method's range.
    const double lifted = gamma_from(rng, shape + 1.0);
    return lifted * std::pow(rng.uniform(), 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    double x = 0.0, v = 0.0;
    do {
      x = rng.next();
      v = 1.0 + c * x;
    } while (v <= 0.0);
    v = v * v * v;
    const double u = rng.uniform();
    if (u < 1.0 - 0.0331 * x * x * x * x) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

constexpr double ziggurat_r = 3.6541528853610088, ziggurat_v = 4.92867323399e-3;

}  // namespace

// The ziggurat's layers for f(x) = e^{−x²/2}: x[0] = v / f(r) (the base layer's width, whose area
// v includes the tail beyond r), x[1] = r, x[i+1] = f⁻¹(v / x[i] + f(x[i])) so that every layer
// x[i] · (f(x[i+1]) − f(x[i])) has the area v, x[256] = 0 (the top). r and v are Marsaglia and
// Tsang's for 256 layers.
const ZigguratTable& ziggurat_table() {
  static const ZigguratTable table = [] {
    ZigguratTable t;
    const auto f = [](double x) { return std::exp(-0.5 * x * x); };
    t.x[0] = ziggurat_v / f(ziggurat_r);
    t.x[1] = ziggurat_r;
    for (std::size_t i = 1; i + 2 < t.x.size(); ++i)
      t.x[i + 1] = std::sqrt(-2.0 * std::log(ziggurat_v / t.x[i] + f(t.x[i])));
    t.x.back() = 0.0;
    for (std::size_t i = 0; i < t.x.size(); ++i) t.f[i] = f(t.x[i]);
    return t;
  }();
  return table;
}

double ZigguratNormal::outside(std::size_t layer, double x) {
  if (layer == 0) {
    // The tail beyond r (Marsaglia 1964): r + a with a ~ Exp(r), accepted with probability e^{−a²/2}.
    double a = 0.0, b = 0.0;
    do {
      a = -std::log(bits_.uniform()) / ziggurat_r;
      b = -std::log(bits_.uniform());
    } while (b + b < a * a);
    return ziggurat_r + a;
  }
  // The wedge: accepted when a uniform height in [f(x[i]), f(x[i+1])] lies under the curve.
  const double height = table_->f[layer] + bits_.uniform() * (table_->f[layer + 1] - table_->f[layer]);
  return height < std::exp(-0.5 * x * x) ? x : -1.0;
}

double gamma_sample(NormalGenerator& rng, double shape) { return gamma_from(rng, shape); }

double gamma_sample(ZigguratNormal& rng, double shape) { return gamma_from(rng, shape); }

}  // namespace smlab
