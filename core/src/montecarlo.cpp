// Progressive Monte Carlo of entropy, max weight and Jacobian norm versus d_k, and of q·k,
// accumulated in fixed blocks so that any split across calls or threads gives the same bits.
//
// [SECTION] Index
//   [SECTION] Blocks: the same bits for any split of the trials
//   [SECTION] d_k sweep: trials and merging
//   [SECTION] q·k statistics: trials and merging
//   [SECTION] Running statistics
//   [SECTION] d_k sweep and one row's summary
//   [SECTION] q·k: variance, histogram, statistics
#include "smlab/montecarlo.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <span>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/kernels.hpp"
#include "smlab/parallel.hpp"
#include "smlab/random.hpp"

namespace smlab {
namespace {

// [SECTION] Blocks: the same bits for any split of the trials

// Adds trials [done, done + trials) to the block state (folded ⊕ open). `run(state, first,
// last)` adds trials first..last−1 in order to `state`; `merge(into, later)` folds `later`
// in. Passes:
//   1. finish the open block (its trials continue an existing sequential pass);
//   2. whole blocks, each from `empty`, spread over threads, then folded in block order;
//   3. the remainder starts a new open block.
// Whether a block was filled in one call or ten, on this thread or another, it receives
// the same adds in the same order and is folded at the same position.
template <class State, class Run, class Merge>
void advance_in_blocks(State& folded, State& open, const State& empty, std::int64_t done, std::int64_t trials,
                       int threads, const Run& run, const Merge& merge) {
  constexpr std::int64_t block = monte_carlo_block_trials;
  std::int64_t next = done;
  const std::int64_t end = done + trials;
  // Pass 1.
  if (next % block != 0 && next < end) {
    const std::int64_t boundary = std::min(end, (next / block + 1) * block);
    run(open, next, boundary);
    next = boundary;
    if (next % block == 0) {
      merge(folded, open);
      open = empty;
    }
  }
  // Pass 2.
  const std::int64_t whole_blocks = (end - next) / block;
  if (whole_blocks > 0) {
    std::vector<State> finished(static_cast<std::size_t>(whole_blocks), empty);
    const auto workers = static_cast<int>(std::clamp<std::int64_t>(threads, 1, whole_blocks));
    // Contiguous shares on the pool; which thread ran a block does not change its contents.
    parallel_for(workers, [&](int worker) {
      for (std::int64_t b = worker * whole_blocks / workers; b < (worker + 1) * whole_blocks / workers; ++b)
        run(finished[static_cast<std::size_t>(b)], next + b * block, next + (b + 1) * block);
    });
    for (const State& state : finished) merge(folded, state);
    next += whole_blocks * block;
  }
  // Pass 3.
  if (next < end) run(open, next, end);
}

// [SECTION] d_k sweep: trials and merging

using DkPart = DkSweepBlocks::Part;

DkPart empty_dk_part(std::size_t points) {
  DkPart part;
  part.scaled.resize(points);
  part.unscaled.resize(points);
  return part;
}

void merge_row_stats(RowStats& into, const RowStats& later) {
  into.entropy_nats.merge(later.entropy_nats);
  into.max_weight.merge(later.max_weight);
  into.jacobian_norm.merge(later.jacobian_norm);
}

void merge_dk_parts(DkPart& into, const DkPart& later) {
  for (std::size_t p = 0; p < into.scaled.size(); ++p) {
    merge_row_stats(into.scaled[p], later.scaled[p]);
    merge_row_stats(into.unscaled[p], later.unscaled[p]);
  }
}

// Trials [first, last) of the sweep into `part`. Every statistic (a point and a variant: the
// unscaled ones, then the scaled) draws each trial from a stream of its own, index
// (t << 16) | statistic: the trial's ‖q‖² ~ χ²_{d_k}, then its L normals z_j (ZigguratNormal).
// No two points or variants share a number, so each point's error is independent of every
// other's. Shared normals (common random numbers) would make the whole curve err together: one
// seed could put every unscaled point 2–3 SE low at once, which per-point error bars do not show.
// Up to `threads` parts run at once on the pool, a part per range of statistics, each statistic
// receiving its trials in trial order; so every RowStats gets the same adds in the same order
// whatever the thread count, and the bits do not change with it.
void run_dk_trials(DkPart& part, const DkSweepConfig& config, std::int64_t first, std::int64_t last, int threads) {
  const auto length = static_cast<std::size_t>(config.seq_len);
  const std::size_t gap_count = length > 0 ? length - 1 : 0;
  const std::size_t points = config.key_dims.size();
  const std::size_t statistics = 2 * points;  // unscaled then scaled, per point
  assert(statistics < 0x10000);
  constexpr auto stream = static_cast<std::uint64_t>(Stream::monte_carlo);
  // A part is split off for every ~64 K exps (~60 µs of them, more with the normals), so small
  // calls stay on this thread.
  const auto exps = static_cast<std::int64_t>(length) * (last - first) * static_cast<std::int64_t>(statistics);
  const int parts = static_cast<int>(std::clamp<std::int64_t>(
      exps / 65536, 1,
      std::max<std::int64_t>(1, std::min<std::int64_t>(threads, static_cast<std::int64_t>(statistics)))));
  parallel_for(parts, [&](int stat_part) {
    std::vector<double> normals(length);
    std::vector<float> gaps(gap_count), scratch(2 * gap_count);
    const std::size_t stat_first = statistics * static_cast<std::size_t>(stat_part) / static_cast<std::size_t>(parts);
    const std::size_t stat_end = statistics * static_cast<std::size_t>(stat_part + 1) / static_cast<std::size_t>(parts);
    for (std::size_t stat = stat_first; stat < stat_end; ++stat) {
      const std::size_t point = stat % points;
      const bool scaled = stat >= points;
      const int key_dim = config.key_dims[point];
      RowStats& stats = scaled ? part.scaled[point] : part.unscaled[point];
      for (std::int64_t t = first; t < last; ++t) {
        ZigguratNormal rng(stream_seed(config.seed, stream, (static_cast<std::uint64_t>(t) << 16) | stat));
        const double query_norm = std::sqrt(2.0 * gamma_sample(rng, 0.5 * key_dim));
        for (double& z : normals) z = rng.next();
        // logits_j = score_scale · ‖q‖ z_j / T (÷ √d_k when scaled); a > 0, so z's argmax is the row's.
        const auto top = static_cast<std::size_t>(std::max_element(normals.begin(), normals.end()) - normals.begin());
        for (std::size_t j = 0, k = 0; j < length; ++j)
          if (j != top) gaps[k++] = static_cast<float>(normals[j] - normals[top]);
        const double unscaled_logit_scale = config.score_scale * query_norm / config.temperature;
        // Division by √d_k (not multiplication by its inverse) keeps d_k = 1 exact: a / 1 = a.
        const double logit_scale =
            scaled ? unscaled_logit_scale / std::sqrt(static_cast<double>(key_dim)) : unscaled_logit_scale;
        const SoftmaxRowSummary row = summarize_softmax_gaps_fast(gaps, logit_scale, scratch);
        stats.entropy_nats.add(row.entropy_nats);
        stats.max_weight.add(row.max_weight);
        stats.jacobian_norm.add(row.jacobian_norm);
      }
    }
  });
}

// [SECTION] q·k statistics: trials and merging

std::vector<QkPoint> empty_qk_points(const QkStatisticsConfig& config) {
  std::vector<QkPoint> points(config.key_dims.size());
  for (std::size_t p = 0; p < points.size(); ++p) {
    const int key_dim = config.key_dims[p];
    points[p].key_dim = key_dim;
    // Edges from the closed-form std, fixed before any trial, so counts from any block add up.
    const double unscaled_std = std::sqrt(qk_variance(key_dim, config.sigma, false));
    const double scaled_std = std::sqrt(qk_variance(key_dim, config.sigma, true));
    points[p].unscaled.histogram =
        make_histogram(-config.range_in_std * unscaled_std, config.range_in_std * unscaled_std, config.bins);
    points[p].scaled.histogram =
        make_histogram(-config.range_in_std * scaled_std, config.range_in_std * scaled_std, config.bins);
  }
  return points;
}

void merge_qk_moments(QkMoments& into, const QkMoments& later) {
  into.value.merge(later.value);
  into.square.merge(later.square);
  into.histogram.merge(later.histogram);
}

void merge_qk_points(std::vector<QkPoint>& into, const std::vector<QkPoint>& later) {
  for (std::size_t p = 0; p < into.size(); ++p) {
    merge_qk_moments(into[p].unscaled, later[p].unscaled);
    merge_qk_moments(into[p].scaled, later[p].scaled);
  }
}

void record_qk(QkMoments& moments, double dot) {
  moments.value.add(dot);
  moments.square.add(dot * dot);
  moments.histogram.add(dot);
}

void run_qk_trials(std::vector<QkPoint>& points, const QkStatisticsConfig& config, std::int64_t first,
                   std::int64_t last) {
  const double variance = config.sigma * config.sigma;
  for (std::int64_t t = first; t < last; ++t) {
    for (std::size_t point = 0; point < points.size(); ++point) {
      const int key_dim = config.key_dims[point];
      NormalGenerator rng(stream_seed(config.seed, static_cast<std::uint64_t>(Stream::qk_statistics),
                                      (static_cast<std::uint64_t>(t) << 16) | point));
      double dot = 0.0;
      if (config.sampling == QkSampling::norm_shortcut) {
        const double chi_squared = 2.0 * gamma_sample(rng, 0.5 * key_dim);
        dot = variance * std::sqrt(chi_squared) * rng.next();
      } else {
        for (int c = 0; c < key_dim; ++c) {
          const double q = config.sigma * rng.next();
          const double k = config.sigma * rng.next();
          dot += q * k;
        }
      }
      record_qk(points[point].unscaled, dot);
      // Division (not multiplication by 1/√d_k) keeps d_k = 1 exact: x / 1 = x.
      record_qk(points[point].scaled, dot / std::sqrt(static_cast<double>(key_dim)));
    }
  }
}

}  // namespace

// [SECTION] Running statistics

void RunningStats::add(double value) {
  ++count;
  const double delta = value - mean;
  mean += delta / static_cast<double>(count);
  sum_squared_deviation += delta * (value - mean);
}

void RunningStats::merge(const RunningStats& later) {
  if (later.count == 0) return;
  if (count == 0) {
    *this = later;
    return;
  }
  const auto count_a = static_cast<double>(count), count_b = static_cast<double>(later.count);
  const double total = count_a + count_b;
  const double delta = later.mean - mean;
  mean += delta * (count_b / total);
  sum_squared_deviation += later.sum_squared_deviation + delta * delta * (count_a * count_b / total);
  count += later.count;
}

double RunningStats::variance() const {
  return count < 2 ? 0.0 : sum_squared_deviation / static_cast<double>(count - 1);
}

double RunningStats::standard_error() const {
  return count < 2 ? 0.0 : std::sqrt(variance() / static_cast<double>(count));
}

// [SECTION] d_k sweep and one row's summary

std::vector<int> power_of_two_key_dims(int max_key_dim) {
  std::vector<int> dims;
  for (int d = 1; d <= max_key_dim; d *= 2) dims.push_back(d);
  return dims;
}

DkSweep make_dk_sweep(DkSweepConfig config) {
  DkSweep sweep;
  const std::size_t points = config.key_dims.size();
  sweep.scaled.resize(points);
  sweep.unscaled.resize(points);
  sweep.blocks.folded = empty_dk_part(points);
  sweep.blocks.open = empty_dk_part(points);
  sweep.max_entropy_nats = std::log(static_cast<double>(std::max(config.seq_len, 2)));
  sweep.config = std::move(config);
  return sweep;
}

void add_dk_trials(DkSweep& sweep, std::int64_t trials, int threads) {
  assert(trials >= 0);
  if (threads <= 0) threads = available_threads();
  const std::size_t points = sweep.config.key_dims.size();
  if (sweep.blocks.folded.scaled.size() != points) {  // a DkSweep not made by make_dk_sweep
    assert(sweep.trials == 0);
    sweep.blocks.folded = empty_dk_part(points);
    sweep.blocks.open = empty_dk_part(points);
  }
  const DkPart empty = empty_dk_part(points);
  advance_in_blocks(
      sweep.blocks.folded, sweep.blocks.open, empty, sweep.trials, trials, threads,
      [&](DkPart& part, std::int64_t first, std::int64_t last) {
        run_dk_trials(part, sweep.config, first, last, threads);
      },
      merge_dk_parts);
  sweep.trials += trials;
  DkPart visible = sweep.blocks.folded;
  merge_dk_parts(visible, sweep.blocks.open);
  sweep.scaled = std::move(visible.scaled);
  sweep.unscaled = std::move(visible.unscaled);
}

double monte_carlo_target_standard_error(double mean) { return std::max(0.01 * std::abs(mean), 0.002); }

bool monte_carlo_converged(const RunningStats& stats) {
  return stats.count >= 2 && stats.standard_error() <= monte_carlo_target_standard_error(stats.mean);
}

DkSweep make_dk_pilot(const DkSweepConfig& config) {
  // The same setting drawn from another seed (its streams share none of the sweep's).
  DkSweepConfig pilot_config = config;
  constexpr std::uint64_t pilot_stream = 0x70696C6F74ull;  // "pilot"
  pilot_config.seed = stream_seed(config.seed, pilot_stream);
  return make_dk_sweep(std::move(pilot_config));
}

std::int64_t dk_pilot_trials(const DkSweepConfig& config) {
  // About 2·10⁶ draws: 4096 trials at L = 16, 256 at L ≥ 512 (whose row means vary little).
  const auto draws_per_trial =
      static_cast<std::int64_t>(std::max(config.seq_len, 1)) * static_cast<std::int64_t>(config.key_dims.size());
  return std::clamp<std::int64_t>(2'000'000 / std::max<std::int64_t>(draws_per_trial, 1), 256, 4096);
}

std::int64_t planned_dk_trials_from_pilot(const DkSweep& pilot, std::int64_t limit) {
  if (limit <= 0 || pilot.config.key_dims.empty()) return std::max<std::int64_t>(limit, 0);
  double needed = 1.0;
  constexpr double safety = 1.5;
  for (const auto* variant : {&pilot.scaled, &pilot.unscaled})
    for (const RowStats& point : *variant)
      for (const RunningStats* stats : {&point.entropy_nats, &point.max_weight, &point.jacobian_norm}) {
        const double target = monte_carlo_target_standard_error(stats->mean);
        needed = std::max(needed, safety * stats->variance() / (target * target));
      }
  return std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(needed)), 1, limit);
}

std::int64_t planned_dk_trials(const DkSweepConfig& config, std::int64_t limit, int threads) {
  if (limit <= 0 || config.key_dims.empty()) return std::max<std::int64_t>(limit, 0);
  DkSweep pilot = make_dk_pilot(config);
  add_dk_trials(pilot, dk_pilot_trials(config), threads);
  return planned_dk_trials_from_pilot(pilot, limit);
}

namespace {

// The sums of summarize_softmax_row (R = Σ e_j, W = −Σ e_j y_j, Σ e_j², Σ e_j³ over j ≠ top) to
// the three statistics.
SoftmaxRowSummary finish_row_summary(double rest, double weighted, double squares, double cubes) {
  // The closed forms derived in the header.
  const double normaliser = 1.0 + rest;
  const double top_weight = 1.0 / normaliser;
  const double tail = rest / normaliser;  // 1 − s_top
  const double sigma2 = squares / (normaliser * normaliser);
  const double sigma3 = cubes / (normaliser * normaliser * normaliser);
  const double norm_squared =
      top_weight * top_weight * tail * tail + sigma2 * (1.0 + 2.0 * top_weight * top_weight + sigma2) - 2.0 * sigma3;
  SoftmaxRowSummary summary;
  summary.entropy_nats = std::log1p(rest) + weighted / normaliser;
  summary.max_weight = top_weight;
  summary.jacobian_norm = std::sqrt(std::max(0.0, norm_squared));  // ≥ 0 exactly; rounding guard
  return summary;
}

}  // namespace

SoftmaxRowSummary summarize_softmax_row(std::span<const double> scores, std::size_t top, double logit_scale) {
  assert(top < scores.size() && logit_scale > 0.0);
  const double top_score = scores[top];
  // Pass 1 (the only one): e_j = exp(y_j) ≤ 1 for j ≠ top, so nothing overflows; the sums
  // accumulate in double in index order (deterministic).
  double rest = 0.0, weighted = 0.0, squares = 0.0, cubes = 0.0;
  auto accumulate = [&](std::size_t from, std::size_t to) {
    for (std::size_t j = from; j < to; ++j) {
      const double y = logit_scale * (scores[j] - top_score);
      const double e = std::exp(y);
      rest += e;
      weighted -= e * y;
      const double e_squared = e * e;
      squares += e_squared;
      cubes += e_squared * e;
    }
  };
  accumulate(0, top);
  accumulate(top + 1, scores.size());
  return finish_row_summary(rest, weighted, squares, cubes);
}

SoftmaxRowSummary summarize_softmax_gaps_fast(std::span<const float> gaps, double logit_scale,
                                              std::span<float> scratch) {
  assert(scratch.size() >= 2 * gaps.size() && logit_scale > 0.0);
  const std::span<float> exponents = scratch.first(gaps.size());
  const std::span<float> weights = scratch.subspan(gaps.size(), gaps.size());
  const auto scale = static_cast<float>(logit_scale);
  for (std::size_t j = 0; j < gaps.size(); ++j) exponents[j] = scale * gaps[j];
  exp_fast(weights, exponents);
  double rest = 0.0, weighted = 0.0, squares = 0.0, cubes = 0.0;
  for (std::size_t j = 0; j < gaps.size(); ++j) {
    const double e = weights[j], y = exponents[j];
    rest += e;
    weighted -= e * y;
    const double e_squared = e * e;
    squares += e_squared;
    cubes += e_squared * e;
  }
  return finish_row_summary(rest, weighted, squares, cubes);
}

// [SECTION] q·k: variance, histogram, statistics

double qk_variance(int key_dim, double sigma, bool scaled) {
  const double sigma_fourth = sigma * sigma * sigma * sigma;
  return scaled ? sigma_fourth : key_dim * sigma_fourth;
}

Histogram make_histogram(double lower, double upper, int bins) {
  assert(upper > lower && bins >= 1);
  Histogram histogram;
  histogram.lower = lower;
  histogram.upper = upper;
  histogram.counts.assign(static_cast<std::size_t>(bins), 0);
  return histogram;
}

void Histogram::add(double value) {
  if (value < lower) {
    ++below;
  } else if (!(value < upper)) {  // written so that NaN lands here too
    ++above;
  } else {
    const auto bin = static_cast<std::size_t>((value - lower) / bin_width());
    // (value − lower)/width can round up to `bins` just below `upper`.
    ++counts[std::min(bin, counts.size() - 1)];
  }
}

void Histogram::merge(const Histogram& other) {
  assert(other.lower == lower && other.upper == upper && other.counts.size() == counts.size());
  for (std::size_t b = 0; b < counts.size(); ++b) counts[b] += other.counts[b];
  below += other.below;
  above += other.above;
}

double Histogram::bin_width() const { return (upper - lower) / static_cast<double>(counts.size()); }

double Histogram::bin_lower_edge(int bin) const { return lower + bin * bin_width(); }

std::int64_t Histogram::total() const {
  std::int64_t sum = below + above;
  for (std::int64_t c : counts) sum += c;
  return sum;
}

QkStatistics make_qk_statistics(QkStatisticsConfig config) {
  QkStatistics statistics;
  statistics.points = empty_qk_points(config);
  statistics.blocks.folded = statistics.points;
  statistics.blocks.open = statistics.points;
  statistics.config = std::move(config);
  return statistics;
}

void add_qk_trials(QkStatistics& statistics, std::int64_t trials, int threads) {
  assert(trials >= 0 && statistics.blocks.folded.size() == statistics.config.key_dims.size());
  if (threads <= 0) threads = available_threads();
  const std::vector<QkPoint> empty = empty_qk_points(statistics.config);
  advance_in_blocks(
      statistics.blocks.folded, statistics.blocks.open, empty, statistics.trials, trials, threads,
      [&](std::vector<QkPoint>& points, std::int64_t first, std::int64_t last) {
        run_qk_trials(points, statistics.config, first, last);
      },
      merge_qk_points);
  statistics.trials += trials;
  statistics.points = statistics.blocks.folded;
  merge_qk_points(statistics.points, statistics.blocks.open);
}

}  // namespace smlab
