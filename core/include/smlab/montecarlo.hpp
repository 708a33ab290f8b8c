// Progressive Monte Carlo statistics: one attention row versus d_k, and q·k itself.
// Each call adds trials to running sums, so a UI can refine a curve frame by frame.
//
// [SECTION] Index
//   [SECTION] Entropy, max weight and Jacobian norm of one attention row versus d_k
//   [SECTION] The distribution of q·k: variance and histogram, scaled and unscaled
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace smlab {

// Welford's running mean and variance; standard error = sqrt(var / n).
struct RunningStats {
  std::int64_t count = 0;
  double mean = 0.0;
  double sum_squared_deviation = 0.0;
  void add(double value);
  // Folds in the statistics of values that come after this one's (Chan, Golub, LeVeque 1979):
  //   n = n_a + n_b,  δ = mean_b − mean_a,  mean = mean_a + δ·n_b/n,
  //   M2 = M2_a + M2_b + δ²·n_a·n_b/n.
  // Equal to adding the values one by one up to rounding; merging with an empty side copies
  // the other exactly.
  void merge(const RunningStats& later);
  double variance() const;        // sample variance (n − 1); 0 for n < 2
  double standard_error() const;  // sqrt(variance / n); 0 for n < 2
};

// Trials are accumulated in blocks of this many: each block is one sequential Welford pass and
// finished blocks are merged in order. Every split of the trials — across calls or across
// threads — therefore performs the same floating-point operations, so results are bit-identical.
inline constexpr std::int64_t monte_carlo_block_trials = 1024;

// [SECTION] Entropy, max weight and Jacobian norm of one attention row versus d_k

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
  friend bool operator==(const DkSweepConfig&, const DkSweepConfig&) = default;
};

// The block bookkeeping behind DkSweep's visible statistics (see monte_carlo_block_trials):
// `folded` holds the merged finished blocks, `open` the block still being filled.
struct DkSweepBlocks {
  struct Part {
    std::vector<RowStats> scaled, unscaled;
  };
  Part folded, open;
};

struct DkSweep {
  DkSweepConfig config;
  std::vector<RowStats> scaled, unscaled;  // one per key_dims entry; = folded ⊕ open
  std::int64_t trials = 0;                 // trials per point so far
  DkSweepBlocks blocks;
  double max_entropy_nats = 0.0;  // ln max(L, 2): the uniform row's entropy, the plots' reference
  // The trial count a refinement goes to (planned_dk_trials), 0 until planned.
  std::int64_t planned_trials = 0;
};

// What "converged" means for a Monte Carlo mean the app shows or a lesson reveals: a standard error
// of at most 1% of the value, or at most 0.002 absolute (whichever is larger).
double monte_carlo_target_standard_error(double mean);
bool monte_carlo_converged(const RunningStats& stats);

// d_k = 1, 2, 4, …, 4096.
std::vector<int> power_of_two_key_dims(int max_key_dim = 4096);

DkSweep make_dk_sweep(DkSweepConfig config);

// Adds `trials` trials to every point. Trials are seeded by index and accumulated in fixed
// blocks, so the result after n trials is bit-identical however the calls were split and
// however many threads did the work. `threads` ≤ 0: every available thread (parallel.hpp); the
// 2 × points statistics are split over the pool, whole blocks too.
// Trial t of each point and variant draws ‖q‖² ~ χ²_{d_k} (as 2·Gamma(d_k/2)) and L standard
// normals z_j (random.hpp's ZigguratNormal): given q, the scores q·k_j are i.i.d. N(0, ‖q‖²), so
// s_j = ‖q‖·z_j is an exact draw of the row at O(L) cost instead of O(L·d_k). Every point and
// variant has streams of its own (none shares a draw with another), so the points' errors are
// independent: a curve that sits low at one d_k is not low at the next for that reason.
// Cost: one normal and one exp per (trial, point, variant, key), about 2·10⁹ each for 20,000
// trials at L = 4096.
void add_dk_trials(DkSweep& sweep, std::int64_t trials, int threads = 0);

// The trial count at which every mean of the sweep (entropy, max weight and ‖J‖_F, scaled and
// unscaled, every d_k) is expected to have converged, at most `limit`: from each statistic's variance
// in a pilot run on a stream independent of the sweep's own (about 2·10⁶ draws, 256 to 4096 trials),
// N = 1.5 · variance / target², the 1.5 covering the pilot's own error.
// Why a plan and not "stop once every standard error is small": the sweep's means are unbiased at
// any trial count fixed in advance, but not at one chosen by looking at them. The mean entropy of
// nearly one-hot rows is made of rare high-entropy trials; a run that has seen few of them has both
// a low mean and a low standard error, so stopping at the first small standard error favours runs
// that are low (measured: the unscaled entropy at d_k = 1024, L = 16 came out 2–3 SE low). The
// pilot's trials are never part of the sweep, so the planned count is independent of its means.
std::int64_t planned_dk_trials(const DkSweepConfig& config, std::int64_t limit, int threads = 0);

// planned_dk_trials in parts, for a caller that must stay interruptible (the app's recompute
// worker, where a new slider position waits for the step it is in): the empty pilot sweep of
// `config`, the trials it takes, and the plan from the filled pilot. Filling the pilot in chunks
// with add_dk_trials gives the same plan, bit for bit, as planned_dk_trials.
DkSweep make_dk_pilot(const DkSweepConfig& config);
std::int64_t dk_pilot_trials(const DkSweepConfig& config);
std::int64_t planned_dk_trials_from_pilot(const DkSweep& pilot, std::int64_t limit);

// Entropy (nats), max weight and Jacobian Frobenius norm of s = softmax(a·x) for a > 0, where
// x[top] is a maximum of x: one pass, one exp per entry, no logarithms, no stored s.
// With y_j = a(x_j − x_top) ≤ 0, e_j = exp(y_j), R = Σ_{j≠top} e_j and Z = 1 + R:
//   s_top = 1/Z is the max weight, and 1 − s_top = R/Z without cancellation.
//   H = −Σ s_j ln s_j = −Σ s_j (y_j − ln Z) = log1p(R) + Σ_j e_j(−y_j) / Z   (two terms ≥ 0).
//   ‖J‖²_F = Σ_i (s_i − s_i²)² + Σ_{i≠k} s_i² s_k², J = diag(s) − s sᵀ. Splitting off s_top and
//   writing σ_m = Σ_{j≠top} s_j^m:
//     Σ_i (s_i − s_i²)²   = s_top²(R/Z)² + σ₂ − 2σ₃ + σ₄
//     Σ_{i≠k} s_i² s_k²   = 2 s_top² σ₂ + σ₂² − σ₄
//     ‖J‖²_F              = s_top²(R/Z)² + σ₂(1 + 2 s_top² + σ₂) − 2σ₃.
//   Every s_j ≤ 1/2 for j ≠ top, so σ₂ − 2σ₃ = Σ s_j²(1 − 2 s_j) ≥ 0: all terms are
//   non-negative and a near one-hot row keeps full relative accuracy, unlike the textbook
//   Σs² − 2Σs³ + (Σs²)², which cancels to rounding noise there.
struct SoftmaxRowSummary {
  double entropy_nats = 0.0, max_weight = 0.0, jacobian_norm = 0.0;
};
SoftmaxRowSummary summarize_softmax_row(std::span<const double> scores, std::size_t top, double logit_scale);

// The same statistics for the row whose gaps to its maximum are `gaps` (x_j − x_top ≤ 0 for every
// j ≠ top, in float), with the exponentials from exp_fast (kernels.hpp) and the four sums in
// double: the Monte Carlo's inner loop (26 softmaxes per trial), ~4× faster than libm's exp.
// Relative error ≤ 2e-5 against summarize_softmax_row (float gaps and products: ~6e-8 relative
// each, i.e. ≤ 1e-5 absolute in exponents down to −87; exp_fast 3e-7), plus ≤ 1e-30 absolute
// where exp_fast flushes weights below 1.2e-38 to zero — 250× below the 0.005 standard error the
// curves are refined to. `scratch` holds at least 2·gaps.size() floats.
SoftmaxRowSummary summarize_softmax_gaps_fast(std::span<const float> gaps, double logit_scale,
                                              std::span<float> scratch);

// [SECTION] The distribution of q·k: variance and histogram, scaled and unscaled

// Closed form, for q, k ~ N(0, σ² I_{d_k}) independent: q·k = Σ_c q_c k_c is a sum of d_k
// independent products with E[q_c k_c] = 0 and E[(q_c k_c)²] = E[q_c²] E[k_c²] = σ⁴, so
//   Var(q·k) = d_k σ⁴   and   Var(q·k / √d_k) = σ⁴.
// The second is why attention divides by √d_k: the logits' spread stops growing with d_k.
double qk_variance(int key_dim, double sigma, bool scaled);

// Equal-width bins over [lower, upper), plus counts of values below and at-or-above the range.
struct Histogram {
  double lower = 0.0, upper = 0.0;
  std::vector<std::int64_t> counts;
  std::int64_t below = 0, above = 0;  // NaN counts as above: nothing is silently dropped
  void add(double value);
  void merge(const Histogram& other);  // same edges; counts add exactly
  double bin_width() const;
  double bin_lower_edge(int bin) const;  // lower + bin·width
  std::int64_t total() const;            // Σ counts + below + above = values added
};
Histogram make_histogram(double lower, double upper, int bins);

// One variant (scaled or unscaled) of q·k at one d_k.
struct QkMoments {
  RunningStats value;   // q·k: mean → 0, variance() → the closed form
  RunningStats square;  // (q·k)²: since E[q·k] = 0, its mean estimates Var(q·k) and its
                        // standard_error() is that estimate's own standard error
  Histogram histogram;  // edges ±range_in_std·(closed-form std), fixed before any trial
};

struct QkPoint {
  int key_dim = 1;
  QkMoments unscaled, scaled;
};

enum class QkSampling : int {
  // q·k = σ²·sqrt(χ²_{d_k})·z, z ~ N(0, 1): given q, q·k ~ N(0, σ²‖q‖²) and ‖q‖² = σ²χ²_{d_k}.
  // Exact in distribution and O(1) per trial.
  norm_shortcut,
  // Draw q and k (d_k normals each) and take the dot product: what the lesson describes;
  // O(d_k) per trial. Tests use it to check the closed form independently of the shortcut.
  explicit_vectors,
};

struct QkStatisticsConfig {
  std::vector<int> key_dims;  // e.g. power_of_two_key_dims()
  double sigma = 1.0;         // entries of q and k ~ N(0, σ²)
  std::uint64_t seed = 42;
  int bins = 64;              // histogram bins per variant and point
  double range_in_std = 4.0;  // histogram covers ±range_in_std closed-form standard deviations;
                              // with 64 bins over ±4 std the edges fall on every 1/8 std, ±1 included
  QkSampling sampling = QkSampling::norm_shortcut;
};

struct QkStatisticsBlocks {
  std::vector<QkPoint> folded, open;
};

struct QkStatistics {
  QkStatisticsConfig config;
  std::vector<QkPoint> points;  // one per key_dims entry; = folded ⊕ open
  std::int64_t trials = 0;      // trials per point so far
  QkStatisticsBlocks blocks;
};

QkStatistics make_qk_statistics(QkStatisticsConfig config);

// Adds `trials` draws of (q, k) to every point; scaled and unscaled share each draw (so at
// d_k = 1 they are identical). Deterministic per seed and bit-identical however the trials
// are split across calls and threads, like add_dk_trials (`threads` ≤ 0: every available thread).
void add_qk_trials(QkStatistics& statistics, std::int64_t trials, int threads = 0);

}  // namespace smlab
