// evaluate(): Params → Snapshot. Stages: Q and K, the selected row, entropy versus
// T, the Monte Carlo d_k sweep, then the two L×L attention maps.
#include "smlab/evaluate.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/kernels.hpp"
#include "smlab/parallel.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr int temperature_points = 121;  // 30 per decade over 0.01 … 100

void report(const EvaluateOptions& options, float fraction) {
  if (options.progress != nullptr) options.progress->store(fraction, std::memory_order_relaxed);
}

void fill_row(Snapshot& snap, const Params& params, const Matrix& queries, const Matrix& keys,
              const Snapshot* previous) {
  const double inverse_sqrt_dim = params.scaled ? 1.0 / std::sqrt(static_cast<double>(params.key_dim)) : 1.0;
  if (!params.scores.empty()) {
    snap.custom_scores = true;
    snap.scores = params.scores;
    for (double& s : snap.scores) s *= params.score_scale;  // −inf stays −inf (scale > 0)
  } else {
    snap.scores.resize(static_cast<std::size_t>(params.seq_len));
    dot_product_row(snap.scores, queries, keys, params.row);
    for (double& s : snap.scores) s *= params.score_scale * inverse_sqrt_dim;
  }
  const std::size_t n = snap.scores.size();
  snap.logits.resize(n);
  for (std::size_t i = 0; i < n; ++i) snap.logits[i] = snap.scores[i] / params.temperature;
  snap.probabilities.resize(n);
  softmax(snap.probabilities, snap.scores, params.temperature);
  snap.gradient.resize(n);
  softmax_gradient_diagonal(snap.gradient, snap.probabilities);
  snap.entropy_nats = entropy_nats(snap.probabilities);
  snap.effective_choices = std::exp(snap.entropy_nats);
  snap.max_entropy_nats = std::log(static_cast<double>(n));
  const auto top = std::max_element(snap.probabilities.begin(), snap.probabilities.end());
  snap.max_weight = *top;
  snap.argmax = static_cast<int>(top - snap.probabilities.begin());
  snap.jacobian_norm = jacobian_frobenius_norm(snap.probabilities);
  snap.entropy_bits = entropy_bits(snap.probabilities);
  snap.logsumexp = logsumexp(snap.scores, params.temperature);
  snap.log_probabilities.resize(n);
  log_softmax(snap.log_probabilities, snap.scores, params.temperature);
  std::vector<double> uniform(n, 1.0 / static_cast<double>(n));
  snap.kl_from_uniform = kl_divergence(snap.probabilities, uniform);
  std::vector<double> unit(n, 0.0);
  unit[static_cast<std::size_t>(snap.argmax)] = 1.0;
  snap.log_max_gradient.resize(n);
  log_softmax_vjp(snap.log_max_gradient, snap.probabilities, unit);
  snap.max_gradient.resize(n);
  softmax_vjp(snap.max_gradient, snap.probabilities, unit);

  // H(T) depends on the scores only, not on the current temperature: a temperature drag reuses
  // the curve (121 softmaxes of the row) from the previous Snapshot when its scores are identical.
  if (previous != nullptr && previous->scores == snap.scores &&
      previous->entropy_vs_temperature.size() == temperature_points) {
    snap.temperature_grid = previous->temperature_grid;
    snap.entropy_vs_temperature = previous->entropy_vs_temperature;
    return;
  }
  snap.temperature_grid.resize(temperature_points);
  snap.entropy_vs_temperature.resize(temperature_points);
  std::vector<double> probabilities(n);
  for (int k = 0; k < temperature_points; ++k) {
    const double temperature = std::pow(10.0, -2.0 + 4.0 * k / (temperature_points - 1));
    softmax(probabilities, snap.scores, temperature);
    snap.temperature_grid[static_cast<std::size_t>(k)] = temperature;
    snap.entropy_vs_temperature[static_cast<std::size_t>(k)] = entropy_nats(probabilities);
  }
}

}  // namespace

std::int64_t automatic_dk_trials(int seq_len) {
  constexpr std::int64_t budget = 60'000;
  const auto points = static_cast<std::int64_t>(power_of_two_key_dims().size());
  return std::clamp<std::int64_t>(budget / (points * seq_len), 4, 2000);
}

std::optional<Snapshot> evaluate(const Params& params, const EvaluateOptions& options) {
  assert(!validate(params));
  Snapshot snap;
  snap.params = params;
  report(options, 0.0f);

  std::shared_ptr<const ScoreCache> scores;
  if (options.score_cache != nullptr && *options.score_cache != nullptr && (*options.score_cache)->matches(params)) {
    scores = *options.score_cache;
  } else {
    auto fresh = std::make_shared<ScoreCache>();
    fresh->seed = params.seed;
    fresh->seq_len = params.seq_len;
    fresh->key_dim = params.key_dim;
    draw_gaussian(fresh->queries, params.seed, Stream::queries, params.seq_len, params.key_dim);
    draw_gaussian(fresh->keys, params.seed, Stream::keys, params.seq_len, params.key_dim);
    if (options.stop.stop_requested()) return std::nullopt;
    // One QKᵀ through the fast kernel (kernels.hpp; its scalar reference is dot_product_scores):
    // the only L×L buffer, shared by both maps and by every Snapshot until seed, L or d_k change.
    const auto cells = static_cast<std::size_t>(params.seq_len) * static_cast<std::size_t>(params.seq_len);
    reserve_with_huge_pages(fresh->raw.values, cells);
    dot_product_scores_fast(fresh->raw, fresh->queries, fresh->keys);
    scores = std::move(fresh);
    if (options.score_cache != nullptr) *options.score_cache = scores;
  }
  const Matrix& queries = scores->queries;
  const Matrix& keys = scores->keys;
  if (options.stop.stop_requested()) return std::nullopt;
  report(options, 0.1f);
  fill_row(snap, params, queries, keys, options.previous);
  if (options.stop.stop_requested()) return std::nullopt;

  DkSweepConfig sweep_config;
  sweep_config.seq_len = params.seq_len;
  sweep_config.temperature = params.temperature;
  sweep_config.score_scale = params.score_scale;
  sweep_config.seed = params.seed;
  sweep_config.key_dims = power_of_two_key_dims();
  const std::int64_t trials = options.dk_trials > 0 ? options.dk_trials : automatic_dk_trials(params.seq_len);
  if (options.previous_sweep != nullptr && options.previous_sweep->config == sweep_config &&
      options.previous_sweep->trials >= trials) {
    snap.dk_sweep = *options.previous_sweep;
  } else {
    snap.dk_sweep = make_dk_sweep(std::move(sweep_config));
    add_dk_trials(snap.dk_sweep, trials);
  }
  if (options.stop.stop_requested()) return std::nullopt;
  report(options, 0.8f);
  const int length = params.seq_len;
  snap.attention_size = length;
  // The maps themselves are rows recomputed on demand (attention_row); only their shared colour
  // range needs a pass now.
  snap.attention_scores = scores;
  snap.unscaled_logit_scale = params.score_scale / params.temperature;
  snap.scaled_logit_scale = snap.unscaled_logit_scale / std::sqrt(static_cast<double>(params.key_dim));
  const float top = std::max(attention_map_max(snap, true), attention_map_max(snap, false));
  snap.attention_max = top > 0.0f ? top : 1.0f;
  if (options.stop.stop_requested()) return std::nullopt;
  report(options, 0.9f);

  // The labs: each one only when its view is shown (or everything for an export).
  auto wanted = [&](View view) { return options.all_labs || options.view == view; };
  if (wanted(View::normalizers)) evaluate_normalizers_lab(snap.normalizers.emplace(), params);
  if (wanted(View::stability)) evaluate_stability_lab(snap.stability.emplace(), params, snap.scores);
  if (wanted(View::temperature)) evaluate_temperature_lab(snap.temperature.emplace(), params);
  if (wanted(View::scaling)) evaluate_scaling_lab(snap.scaling.emplace(), params);
  if (wanted(View::gradients)) evaluate_gradients_lab(snap.gradients.emplace(), params);
  if (wanted(View::attention_variants)) evaluate_attention_variants_lab(snap.attention_variants.emplace(), params);
  if (wanted(View::positions)) evaluate_positions_lab(snap.positions.emplace(), params);
  if (wanted(View::heads)) evaluate_heads_lab(snap.heads.emplace(), params);
  report(options, 1.0f);
  return snap;
}

Snapshot evaluate(const Params& params) { return *evaluate(params, EvaluateOptions{}); }

void attention_row(const Snapshot& snap, bool scaled, int row, std::span<float> out) {
  const int length = snap.attention_size;
  assert(snap.attention_scores != nullptr && row >= 0 && row < length && out.size() == static_cast<std::size_t>(length));
  const auto first = snap.attention_scores->raw.values.begin() + static_cast<std::ptrdiff_t>(row) * length;
  std::copy(first, first + length, out.begin());
  softmax_rows_fast(out, 1, length, scaled ? snap.scaled_logit_scale : snap.unscaled_logit_scale);
}

std::vector<float> attention_map(const Snapshot& snap, bool scaled) {
  if (snap.attention_scores == nullptr) return {};
  const int length = snap.attention_size;
  std::vector<float> map = snap.attention_scores->raw.values;
  softmax_rows_fast(map, length, length, scaled ? snap.scaled_logit_scale : snap.unscaled_logit_scale);
  return map;
}

float attention_map_max(const Snapshot& snap, bool scaled) {
  const int length = snap.attention_size;
  if (snap.attention_scores == nullptr || length <= 0) return 0.0f;
  // Blocks of rows (~256 KB) through the same per-row kernel as attention_row, so the maximum is
  // of exactly the weights that are shown and exported, without an L×L buffer. The rows are cut
  // into one contiguous part per thread (at ≥ 64 K weights a part: ~25 µs of work, more than a
  // pool worker's wake-up); the max of maxima is exact, so the thread count changes no bit.
  const int block_rows = std::clamp(65536 / std::max(length, 1), 1, length);
  const auto cells = static_cast<std::int64_t>(length) * length;
  const int parts = static_cast<int>(std::clamp<std::int64_t>(cells / 65536, 1, available_threads()));
  const double logit_scale = scaled ? snap.scaled_logit_scale : snap.unscaled_logit_scale;
  std::vector<float> part_max(static_cast<std::size_t>(parts), 0.0f);
  parallel_for(parts, [&](int part) {
    const int part_first = static_cast<int>(static_cast<std::int64_t>(length) * part / parts);
    const int part_end = static_cast<int>(static_cast<std::int64_t>(length) * (part + 1) / parts);
    std::vector<float> block;
    float top = 0.0f;
    for (int first = part_first; first < part_end; first += block_rows) {
      const int rows = std::min(block_rows, part_end - first);
      const auto begin = snap.attention_scores->raw.values.begin() + static_cast<std::ptrdiff_t>(first) * length;
      block.assign(begin, begin + static_cast<std::ptrdiff_t>(rows) * length);
      softmax_rows_fast(block, rows, length, logit_scale, KernelOptions{.max_threads = 1});
      // Finite weights only (NaN rows and ±inf fail both tests), written so GCC vectorises it.
      constexpr float largest = std::numeric_limits<float>::max();
      for (float weight : block) top = weight > top && weight <= largest ? weight : top;
    }
    part_max[static_cast<std::size_t>(part)] = top;
  });
  return *std::max_element(part_max.begin(), part_max.end());
}

}  // namespace smlab
