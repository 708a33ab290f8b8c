// Progressive Monte Carlo statistics of one attention row versus d_k: each call
// adds trials to running sums, so a UI can refine a curve frame by frame.
#pragma once

#include <cstdint>
#include <vector>

namespace smlab {

// Welford's running mean and variance; standard error = sqrt(var / n).
struct RunningStats {
  std::int64_t count = 0;
  double mean = 0.0;
  double sum_squared_deviation = 0.0;
  void add(double value);
  double variance() const;        // sample variance (n − 1); 0 for n < 2
  double standard_error() const;  // sqrt(variance / n); 0 for n < 2
};

struct RowStats {
  RunningStats entropy_nats, max_weight, jacobian_norm;
};

// Setting of the sweep: q, k ~ N(0, I_{d_k}); logits_j = score_scale · q·k_j / T,
// additionally divided by √d_k for the scaled variant.
struct DkSweepConfig {
  int seq_len = 16;
  double temperature = 1.0;
  double score_scale = 1.0;
  std::uint64_t seed = 42;
  std::vector<int> key_dims;  // e.g. 1, 2, 4, …, 4096
};

struct DkSweep {
  DkSweepConfig config;
  std::vector<RowStats> scaled, unscaled;  // one per key_dims entry
  std::int64_t trials = 0;                 // trials per point so far
};

// d_k = 1, 2, 4, …, 4096.
std::vector<int> power_of_two_key_dims(int max_key_dim = 4096);

DkSweep make_dk_sweep(DkSweepConfig config);

// Adds `trials` trials to every point. Trial t of point p uses its own seeded
// stream, so the result after n trials is the same however the calls were split.
// Each trial draws ‖q‖² ~ χ²_{d_k} (as 2·Gamma(d_k/2)) and L standard normals z_j:
// given q, the scores q·k_j are i.i.d. N(0, ‖q‖²), so s_j = ‖q‖·z_j is an exact
// draw of the row at O(L) cost instead of O(L·d_k). Scaled and unscaled use the
// same draws (common random numbers), so their difference is not noise.
void add_dk_trials(DkSweep& sweep, std::int64_t trials);

}  // namespace smlab
