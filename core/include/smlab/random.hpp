// The project's own deterministic random numbers: splitmix64, Box–Muller and the ziggurat, so the
// same seed gives the same Q, K and Monte Carlo draws on every compiler.
#pragma once

#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>

namespace smlab {

// splitmix64 finaliser: a bijective mix of 64 bits (Steele, Lea, Flood 2014).
constexpr std::uint64_t mix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Uniform in (0, 1]: 53 random bits, shifted so log() never sees 0.
constexpr double uniform_open0(std::uint64_t bits) { return static_cast<double>((bits >> 11) + 1) * 0x1.0p-53; }

// A sequential generator: state advances by the golden-ratio increment.
class SplitMix64 {
 public:
  explicit constexpr SplitMix64(std::uint64_t seed) : state_(seed) {}
  constexpr std::uint64_t next() {
    const std::uint64_t out = mix64(state_);
    state_ += 0x9E3779B97F4A7C15ull;
    return out;
  }
  constexpr double uniform() { return uniform_open0(next()); }

 private:
  std::uint64_t state_;
};

// Standard normals by Box–Muller, using both outputs of each pair.
class NormalGenerator {
 public:
  explicit NormalGenerator(std::uint64_t seed) : bits_(seed) {}
  double next() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double radius = std::sqrt(-2.0 * std::log(bits_.uniform()));
    const double angle = 2.0 * std::numbers::pi * bits_.uniform();
    spare_ = radius * std::sin(angle);
    has_spare_ = true;
    return radius * std::cos(angle);
  }
  double uniform() { return bits_.uniform(); }

 private:
  SplitMix64 bits_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

// The ziggurat's layers (random.cpp says how they are made), computed once.
struct ZigguratTable {
  std::array<double, 257> x{}, f{};  // layer edges x[0] > x[1] = r > … > x[256] = 0, and e^{−x²/2} at them
};
const ZigguratTable& ziggurat_table();

// Standard normals by the ziggurat method (Marsaglia and Tsang 2000), 256 layers of equal area
// under e^{−x²/2}: one 64-bit draw gives the layer (bits 0–7), the sign (bit 8) and the position
// (bits 11–63), and about 99 % of draws are accepted on one comparison, with no logarithm or sine
// (Box–Muller needs a logarithm, a square root, a sine and a cosine per pair: ~7× slower here).
// Exact in distribution: the rest are the wedges, tested against e^{−x²/2}, and the tail beyond
// the base layer, drawn by Marsaglia's method (outside()). The Monte Carlo sweep draws its rows
// with it.
class ZigguratNormal {
 public:
  explicit ZigguratNormal(std::uint64_t seed) : bits_(seed), table_(&ziggurat_table()) {}
  double next() {
    for (;;) {
      const std::uint64_t bits = bits_.next();
      const auto layer = static_cast<std::size_t>(bits & 0xFF);
      // Bit 8 becomes the sign bit without a branch: a branch on a coin flip is mispredicted half
      // the time, which cost more than the rest of a draw.
      const std::uint64_t sign = (bits & 0x100) << 55;
      double x = static_cast<double>(bits >> 11) * 0x1.0p-53 * table_->x[layer];
      if (x >= table_->x[layer + 1]) x = outside(layer, x);  // rarely: a wedge or the tail
      if (x >= 0.0) return std::bit_cast<double>(std::bit_cast<std::uint64_t>(x) | sign);
    }
  }
  double uniform() { return bits_.uniform(); }

 private:
  // A draw at |x| beyond the next layer's width: the accepted magnitude, or −1 to draw again.
  double outside(std::size_t layer, double x);
  SplitMix64 bits_;
  const ZigguratTable* table_;
};

// Derives independent seeds for named streams (Q, K, Monte Carlo, ...) so that
// changing one quantity's length does not reshuffle another's numbers.
constexpr std::uint64_t stream_seed(std::uint64_t seed, std::uint64_t stream, std::uint64_t index = 0) {
  return mix64(mix64(seed ^ mix64(stream)) ^ mix64(index + 0x632BE59BD9B4E019ull));
}

// Gamma(shape, 1) by Marsaglia and Tsang (2000); shape ≥ 1. Used to draw ‖q‖² ~ χ²_d
// = 2·Gamma(d/2) in O(1) instead of summing d squared normals.
double gamma_sample(NormalGenerator& rng, double shape);
double gamma_sample(ZigguratNormal& rng, double shape);

}  // namespace smlab
