// Non-inline parts of the project's random number generators.
#include "smlab/random.hpp"

#include <cmath>

namespace smlab {

double gamma_sample(NormalGenerator& rng, double shape) {
  if (shape < 1.0) {
    // Gamma(a) = Gamma(a + 1) · U^{1/a} lifts shapes below 1 into the method's range.
    const double lifted = gamma_sample(rng, shape + 1.0);
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

}  // namespace smlab
