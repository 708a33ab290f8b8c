// evaluate(): Params → Snapshot. Stages: Q and K, the selected row, entropy versus
// T, the Monte Carlo d_k sweep, then the two L×L attention maps.
//
// [SECTION] Index
//   [SECTION] Stages: score cache, selected row, H(T)
//   [SECTION] Trial counts and reused scores, sweep and range
//   [SECTION] evaluate() and its later stages
//   [SECTION] Pooled maps (large L)
//   [SECTION] Weights on demand: rows, whole maps, max
//   [SECTION] Attention output of the selected row
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
#include "smlab/shown_row.hpp"
#include "smlab/softmax.hpp"
#include "pooled_maps.hpp"

namespace smlab {
namespace {

// [SECTION] Stages: score cache, selected row, H(T)

constexpr int temperature_points = 121;  // 30 per decade over 0.01 … 100

void report(const EvaluateOptions& options, float fraction, std::string_view stage = "computing") {
  if (options.progress != nullptr) options.progress->store(fraction, std::memory_order_relaxed);
  if (options.progress_sink != nullptr) options.progress_sink->update(fraction, stage);
}

// Whether ÷√d_k means anything: d_k is known for random and imported Q, K, not for imported
// scores or weights (then the scaled and the unscaled map are the same).
bool key_dim_known(const Params& params) { return params.imported == nullptr || params.imported->key_dim > 0; }

// QKᵀ of the cache's Q and K through the fast kernel (kernels.hpp; its scalar reference is
// dot_product_scores): the only L×L buffer, shared by both maps and by every Snapshot until seed,
// L or d_k change.
//
// With `previous` of the same seed and d_k but another L (a seq_len step), the overlapping block is
// copied and only the new rows and columns are multiplied: the kernel sums each entry the same
// way wherever its tile falls (kernels.cpp), so q_i · k_j does not depend on L, bit for bit.
void fill_product(ScoreCache& cache, const ScoreCache* previous = nullptr) {
  const int length = cache.queries.rows;
  const auto cells = static_cast<std::size_t>(length) * static_cast<std::size_t>(cache.keys.rows);
  if (previous == nullptr || previous->key_dim != cache.key_dim || previous->raw.values.empty() ||
      previous->raw.rows != previous->queries.rows || cache.keys.rows != length) {
    reserve_with_huge_pages(cache.raw.values, cells);
    dot_product_scores_fast(cache.raw, cache.queries_for_kernels(), cache.keys_for_kernels());
    return;
  }
  const int kept = std::min(length, previous->raw.rows);
  const int old_length = previous->raw.rows;
  reserve_with_huge_pages(cache.raw.values, cells);
  cache.raw.values.resize(cells);
  cache.raw.rows = cache.raw.cols = length;
  const auto row_length = static_cast<std::size_t>(length);
  // Bands of kept rows on the pool: a copy of up to 64 MB at L = 4096.
  const int bands = std::clamp(kept / 256, 1, 64);
  parallel_for(bands, [&](int band) {
    const int end = static_cast<int>(static_cast<std::int64_t>(kept) * (band + 1) / bands);
    for (int r = static_cast<int>(static_cast<std::int64_t>(kept) * band / bands); r < end; ++r) {
      const float* from =
          previous->raw.values.data() + static_cast<std::size_t>(r) * static_cast<std::size_t>(old_length);
      std::copy(from, from + kept, cache.raw.values.data() + static_cast<std::size_t>(r) * row_length);
    }
  });
  if (kept == length) return;  // L shrank: the block is the whole product
  const auto dim = static_cast<std::size_t>(cache.key_dim);
  // New rows [kept, L) against every key, straight into their place.
  const Matrix new_queries{length - kept, cache.key_dim,
                           std::vector<float>(cache.queries.values.begin() + static_cast<std::ptrdiff_t>(kept * dim),
                                              cache.queries.values.end())};
  dot_product_scores_fast(std::span<float>(cache.raw.values).subspan(static_cast<std::size_t>(kept) * row_length),
                          new_queries, cache.keys);
  // The kept rows against the new keys [kept, L), then into columns [kept, L) of those rows.
  const Matrix kept_queries{kept, cache.key_dim,
                            std::vector<float>(cache.queries.values.begin(),
                                               cache.queries.values.begin() + static_cast<std::ptrdiff_t>(kept * dim))};
  const Matrix new_keys{
      length - kept, cache.key_dim,
      std::vector<float>(cache.keys.values.begin() + static_cast<std::ptrdiff_t>(kept * dim), cache.keys.values.end())};
  std::vector<float> block(static_cast<std::size_t>(kept) * static_cast<std::size_t>(length - kept));
  dot_product_scores_fast(block, kept_queries, new_keys);
  for (int r = 0; r < kept; ++r)
    std::copy(block.begin() + static_cast<std::ptrdiff_t>(r) * (length - kept),
              block.begin() + static_cast<std::ptrdiff_t>(r + 1) * (length - kept),
              cache.raw.values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(r) * row_length +
                                                                     static_cast<std::size_t>(kept)));
}

// Q and K so large that q·k could overflow a float sum get kernel copies scaled by powers of two
// (ScoreCache::score_exponent): the bound d·max|q|·max|k| brought to at most 2^64, far from float's
// 2^128, the exponent split between the two.
void prescale_for_kernels(ScoreCache& cache) {
  float q_max = 0.0f, k_max = 0.0f;
  for (const float q : cache.queries.values) q_max = std::max(q_max, std::abs(q));
  for (const float k : cache.keys.values) k_max = std::max(k_max, std::abs(k));
  const double bound =
      static_cast<double>(cache.queries.cols) * static_cast<double>(q_max) * static_cast<double>(k_max);
  constexpr int bound_exponent_max = 64;
  int exponent = 0;
  std::frexp(bound, &exponent);  // bound < 2^exponent
  if (!(bound > 0x1p64) || exponent <= bound_exponent_max) return;
  const int shift = exponent - bound_exponent_max;
  const int query_shift = shift / 2, key_shift = shift - query_shift;
  cache.score_exponent = shift;
  cache.kernel_queries = cache.queries;
  cache.kernel_keys = cache.keys;
  for (float& q : cache.kernel_queries.values) q = std::ldexp(q, -query_shift);
  for (float& k : cache.kernel_keys.values) k = std::ldexp(k, -key_shift);
}

// Q and K (and QKᵀ up to L = 4096) of one (batch, head) of imported data, or its L×L scores.
void fill_imported(ScoreCache& cache, const Params& params) {
  const ImportedAttention& data = *params.imported;
  cache.source = params.imported;
  cache.batch = params.batch;
  cache.head = params.head;
  cache.seq_len = data.length;
  cache.key_dim = data.key_dim;
  const int length = data.length;
  if (data.kind == ImportedAttention::Kind::queries_keys) {
    for (Matrix* m : {&cache.queries, &cache.keys}) {
      const auto slice =
          data.slice(m == &cache.queries ? data.queries : data.keys, params.batch, params.head, data.key_dim);
      *m = Matrix{length, data.key_dim, std::vector<float>(slice.begin(), slice.end())};
    }
    prescale_for_kernels(cache);
    if (length <= stored_scores_max_length) fill_product(cache);
  } else {
    const auto slice = data.slice(data.matrix, params.batch, params.head, length);
    cache.raw = Matrix{length, length, std::vector<float>(slice.begin(), slice.end())};
  }
}

// H(T) of the row over the 121-point grid. Each point depends on its index only, so long rows
// split the points over the pool (parallel.hpp) with the same bits on any number of threads.
// `stride` > 1: a coarse curve of every stride-th grid point (the same values at those points),
// a staged first result's; complete_stages draws the full one.
void fill_entropy_curve(Snapshot& snap, int stride = 1) {
  const std::size_t n = snap.scores.size();
  const int points = (temperature_points - 1) / stride + 1;
  snap.temperature_grid.resize(static_cast<std::size_t>(points));
  snap.entropy_vs_temperature.resize(static_cast<std::size_t>(points));
  constexpr int points_per_part = 8;
  const int parts = n >= 512 ? (points + points_per_part - 1) / points_per_part : 1;
  parallel_for(parts, [&](int part) {
    std::vector<double> probabilities(n);
    const int first = parts == 1 ? 0 : part * points_per_part;
    const int end = parts == 1 ? points : std::min(first + points_per_part, points);
    for (int i = first; i < end; ++i) {
      const int k = i * stride;
      const double temperature = std::pow(10.0, -2.0 + 4.0 * k / (temperature_points - 1));
      softmax(probabilities, snap.scores, temperature);
      snap.temperature_grid[static_cast<std::size_t>(i)] = temperature;
      snap.entropy_vs_temperature[static_cast<std::size_t>(i)] = entropy_nats(probabilities);
    }
  });
}

void fill_row(Snapshot& snap, const Params& params, const ScoreCache& cache, const Snapshot* previous, Stages* stages) {
  // The row every view shows, causal mask included (a custom score vector is no position in the
  // sequence and is left as given).
  snap.shown = shown_row(params, cache);
  snap.custom_scores = snap.shown.custom;
  snap.scores = snap.shown.scores;
  const std::size_t n = snap.scores.size();
  snap.logits.resize(n);
  for (std::size_t i = 0; i < n; ++i) snap.logits[i] = snap.scores[i] / params.temperature;
  snap.probabilities.resize(n);
  softmax(snap.probabilities, snap.scores, params.temperature);
  snap.gradient.resize(n);
  softmax_gradient_diagonal(snap.gradient, snap.probabilities);
  snap.entropy_nats = entropy_nats(snap.probabilities);
  snap.effective_choices = std::exp(snap.entropy_nats);
  // Masked keys (score −inf) are not choices: the uniform reference and ln n count the others.
  const auto unmasked = static_cast<std::size_t>(std::count_if(
      snap.scores.begin(), snap.scores.end(), [](double s) { return s != -std::numeric_limits<double>::infinity(); }));
  snap.unmasked_keys = static_cast<int>(unmasked);
  snap.max_entropy_nats = std::log(static_cast<double>(std::max<std::size_t>(unmasked, 1)));
  const auto top = std::max_element(snap.probabilities.begin(), snap.probabilities.end());
  snap.max_weight = *top;
  snap.argmax = static_cast<int>(top - snap.probabilities.begin());
  snap.jacobian_norm = jacobian_frobenius_norm(snap.probabilities);
  snap.entropy_bits = entropy_bits(snap.probabilities);
  snap.logsumexp = logsumexp(snap.scores, params.temperature);
  snap.log_probabilities.resize(n);
  log_softmax(snap.log_probabilities, snap.scores, params.temperature);
  std::vector<double> uniform(n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    if (snap.scores[i] != -std::numeric_limits<double>::infinity()) uniform[i] = 1.0 / static_cast<double>(unmasked);
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
  // Staged on long rows: 31 of the 121 points now (a quarter of ~1 ms per 1000 keys), the rest later.
  constexpr int coarse_stride = 4;
  const bool coarse = stages != nullptr && n >= 512;
  fill_entropy_curve(snap, coarse ? coarse_stride : 1);
  if (coarse) stages->entropy_curve = true;
}

}  // namespace

// [SECTION] Trial counts and reused scores, sweep and range

std::int64_t automatic_dk_trials(int seq_len) {
  constexpr std::int64_t budget = 60'000;
  const auto points = static_cast<std::int64_t>(power_of_two_key_dims().size());
  return std::clamp<std::int64_t>(budget / (points * seq_len), 4, 2000);
}

DkSweepConfig dk_sweep_config(const Params& params) {
  DkSweepConfig config;
  // Random rows of the random data's lengths (an imported L = 32768 would make it 8× dearer).
  config.seq_len = std::min(params.seq_len, ParamLimits::seq_len_max);
  config.temperature = params.temperature;
  config.score_scale = params.score_scale;
  config.seed = params.seed;
  config.key_dims = power_of_two_key_dims();
  return config;
}

namespace {

// The cache of random data drawn from the same seed as `params` (other L or d_k), whose entries a
// new draw can copy: every entry depends on (seed, stream, row, column) only. Null otherwise.
const ScoreCache* same_seed(const Params& params, const std::shared_ptr<const ScoreCache>* cache) {
  if (cache == nullptr || *cache == nullptr) return nullptr;
  const ScoreCache& previous = **cache;
  if (previous.source != nullptr || previous.seed != params.seed || previous.queries.rows == 0) return nullptr;
  return &previous;
}

// Q and K drawn from the seed; QKᵀ too unless `with_product` is false (a staged first result).
// With `previous` (same seed, other L or d_k), the entries it holds are copied instead of drawn
// (bit-identical: draw_gaussian_reusing), so a d_k or L step draws one column or row of normals.
std::shared_ptr<ScoreCache> draw_scores(const Params& params, bool with_product, const ScoreCache* previous) {
  auto fresh = std::make_shared<ScoreCache>();
  fresh->seed = params.seed;
  fresh->seq_len = params.seq_len;
  fresh->key_dim = params.key_dim;
  if (previous != nullptr) {
    draw_gaussian_reusing(fresh->queries, previous->queries, params.seed, Stream::queries, params.seq_len,
                          params.key_dim);
    draw_gaussian_reusing(fresh->keys, previous->keys, params.seed, Stream::keys, params.seq_len, params.key_dim);
  } else {
    draw_gaussian(fresh->queries, params.seed, Stream::queries, params.seq_len, params.key_dim);
    draw_gaussian(fresh->keys, params.seed, Stream::keys, params.seq_len, params.key_dim);
  }
  if (with_product) fill_product(*fresh, previous);
  return fresh;
}

// Q, K and (unless staged) QKᵀ for the Params: the cached ones when they match.
std::shared_ptr<const ScoreCache> scores_for(const Params& params, const EvaluateOptions& options) {
  if (options.score_cache != nullptr && *options.score_cache != nullptr && (*options.score_cache)->matches(params))
    return *options.score_cache;
  std::shared_ptr<ScoreCache> fresh;
  if (params.imported != nullptr) {
    fresh = std::make_shared<ScoreCache>();
    fill_imported(*fresh, params);
  } else if (options.stages != nullptr) {
    // Staged: the row needs Q and K only (dot_product_row); QKᵀ follows in complete_stages,
    // which also stores the cache. Until then the maps count as pending (pooled_maps_pending).
    options.stages->scores = true;
    return draw_scores(params, false, same_seed(params, options.score_cache));
  } else {
    fresh = draw_scores(params, true, same_seed(params, options.score_cache));
  }
  if (options.score_cache != nullptr) *options.score_cache = fresh;
  return fresh;
}

// The Monte Carlo d_k sweep: the previous one when its config matches, else a fresh estimate
// (a coarse one when staged; complete_stages adds the rest of the trials).
void fill_dk_sweep(Snapshot& snap, const Params& params, const EvaluateOptions& options) {
  DkSweepConfig sweep_config = dk_sweep_config(params);
  const std::int64_t trials = options.dk_trials > 0 ? options.dk_trials : automatic_dk_trials(sweep_config.seq_len);
  const DkSweep* previous = options.previous_sweep;
  if (previous != nullptr && previous->config == sweep_config && previous->trials >= trials) {
    snap.dk_sweep = *previous;
    return;
  }
  // A sweep of this setting whose estimate was stopped part way (the app's Monte Carlo lane, for
  // newer Params) is continued: its trials are the first ones a fresh sweep would draw, bit for bit.
  if (previous != nullptr && previous->config == sweep_config && previous->planned_trials == 0)
    snap.dk_sweep = *previous;
  else
    snap.dk_sweep = make_dk_sweep(std::move(sweep_config));
  const std::int64_t first = options.stages != nullptr ? coarse_dk_trials(trials) : trials;
  if (snap.dk_sweep.trials < first) add_dk_trials(snap.dk_sweep, first - snap.dk_sweep.trials);
  if (snap.dk_sweep.trials < trials && options.stages != nullptr) options.stages->dk_trials = trials;
}

// The maps' shared colour range: the previous Snapshot's when its maps are the same ones (same
// QKᵀ, logit scales and mask: a row, scaled or custom-scores change), else a pass over both maps,
// which a staged evaluation leaves to complete_stages (the previous range stands in meanwhile).
void fill_map_range(Snapshot& snap, const EvaluateOptions& options) {
  const Snapshot* previous = options.previous;
  if (previous != nullptr && previous->attention_scores == snap.attention_scores && previous->pooled.factor == 0 &&
      previous->scaled_logit_scale == snap.scaled_logit_scale &&
      previous->unscaled_logit_scale == snap.unscaled_logit_scale && previous->causal == snap.causal) {
    snap.attention_max = previous->attention_max;
    return;
  }
  if (options.stages != nullptr) {
    snap.attention_max = previous != nullptr ? previous->attention_max : 1.0f;
    options.stages->map_range = true;
    return;
  }
  const float top = std::max(attention_map_max(snap, true), attention_map_max(snap, false));
  snap.attention_max = top > 0.0f ? top : 1.0f;
}

}  // namespace

// [SECTION] evaluate() and its later stages

std::int64_t coarse_dk_trials(std::int64_t full_trials) {
  return std::min(full_trials, std::max<std::int64_t>(2, full_trials / 8));
}

bool complete_stages(Snapshot& snap, Stages& stages, std::shared_ptr<const ScoreCache>* score_cache,
                     const std::stop_token& stop) {
  if (stages.scores) {
    if (stop.stop_requested()) return false;
    auto full = std::make_shared<ScoreCache>(*snap.attention_scores);  // Q and K of these Params
    // The cache still holds the previous Params' QKᵀ: a seq_len step copies its overlap.
    const ScoreCache* previous = score_cache != nullptr ? same_seed(snap.params, score_cache) : nullptr;
    fill_product(*full, previous);
    snap.attention_scores = full;
    if (score_cache != nullptr) *score_cache = std::move(full);
    stages.scores = false;
  }
  if (stages.entropy_curve) {
    if (stop.stop_requested()) return false;
    fill_entropy_curve(snap);
    stages.entropy_curve = false;
  }
  if (stages.map_range) {
    if (stop.stop_requested()) return false;
    const float top = std::max(attention_map_max(snap, true), attention_map_max(snap, false));
    snap.attention_max = top > 0.0f ? top : 1.0f;
    stages.map_range = false;
  }
  if (stages.dk_trials > 0) {
    if (stop.stop_requested()) return false;
    add_dk_trials(snap.dk_sweep, stages.dk_trials - snap.dk_sweep.trials);
    stages.dk_trials = 0;
  }
  return true;
}

std::optional<Snapshot> evaluate(const Params& params, const EvaluateOptions& options) {
  assert(validate(params).ok());
  Snapshot snap;
  snap.params = params;
  report(options, 0.0f);
  if (options.stages != nullptr) *options.stages = Stages{};

  const std::shared_ptr<const ScoreCache> scores = scores_for(params, options);
  if (options.stop.stop_requested()) return std::nullopt;
  report(options, 0.1f);
  fill_row(snap, params, *scores, options.previous, options.stages);
  snap.gradient_parabola = sample_gradient_parabola();
  if (options.stop.stop_requested()) return std::nullopt;

  fill_dk_sweep(snap, params, options);
  if (options.stop.stop_requested()) return std::nullopt;
  report(options, 0.8f);
  const int length = params.seq_len;
  snap.attention_size = length;
  // The maps themselves are rows recomputed on demand (attention_row); only their shared colour
  // range needs a pass now.
  snap.attention_scores = scores;
  snap.unscaled_logit_scale = params.score_scale / params.temperature;
  snap.scaled_logit_scale = key_dim_known(params)
                                ? snap.unscaled_logit_scale / std::sqrt(static_cast<double>(params.key_dim))
                                : snap.unscaled_logit_scale;
  snap.causal = params.causal;
  if (scores->raw.values.empty() && (options.stages == nullptr || !options.stages->scores)) {
    // Long imported contexts: no L×L matrix, the pictures are made tile by tile from Q and K, or
    // copied from the previous Snapshot when they would come out the same (a row drag).
    const Snapshot* previous = options.previous;
    if (previous != nullptr && previous->pooled.factor > 0 && !previous->pooled.preview &&
        previous->attention_scores == scores && previous->scaled_logit_scale == snap.scaled_logit_scale &&
        previous->unscaled_logit_scale == snap.unscaled_logit_scale && previous->causal == snap.causal) {
      snap.pooled = previous->pooled;
      snap.attention_max = previous->attention_max;
    } else if (options.defer_pooled_maps) {
      snap.attention_max = previous != nullptr ? previous->attention_max : 1.0f;
    } else if (!complete_pooled_maps(
                   snap, options.stop,
                   Progress({}, options.progress_sink).part(0.8, 0.9, "computing the attention maps"))) {
      return std::nullopt;
    }
  } else {
    fill_map_range(snap, options);
  }
  if (options.stop.stop_requested()) return std::nullopt;
  report(options, 0.9f);

  // The labs: each one only when its view is shown (or everything for an export).
  auto wanted = [&](View view) { return options.all_labs || options.view == view; };
  // The labs of the shown row (row_lab_evaluator: normalizers, stability, temperature, gradients,
  // loss) are handed snap.shown and the Params, imported data included. The others draw their own
  // random data; with imported data they get its settings at the random data's lengths.
  Params lab = params;
  if (lab.imported != nullptr) {
    lab.imported = nullptr;
    lab.seq_len = std::clamp(lab.seq_len, ParamLimits::seq_len_min, ParamLimits::seq_len_max);
    lab.row = std::min(lab.row, lab.seq_len - 1);
  }
  const auto views = all_views();
  for (std::size_t i = 0; i < views.size(); ++i) {
    const ViewInfo& info = views[i];
    if (info.evaluate == nullptr || !wanted(info.view)) continue;
    if (info.view == View::training && options.training_by_caller) continue;
    if (options.progress_sink != nullptr)
      report(options, 0.9f + 0.1f * static_cast<float>(i) / static_cast<float>(views.size()), "computing the labs");
    snap.labs.set(info.view, info.evaluate(lab, snap));
  }
  report(options, 1.0f);
  return snap;
}

Snapshot evaluate(const Params& params) { return *evaluate(params, EvaluateOptions{}); }

// [SECTION] Pooled maps (large L)

namespace {

// Rows [first, first + rows) of a map, whose raw scores are already in `block` (rows × length),
// turned into weights in place. Causal: query i sees keys 0 … i only, so the softmax runs over
// that prefix and the masked keys get exactly 0 (the weight of a −inf score), the same weights
// as a softmax of the row with −inf written above the diagonal.
void causal_softmax_rows(std::span<float> block, int first, int rows, int length, double scale, bool causal,
                         KernelOptions options = {}) {
  if (!causal) {
    softmax_rows_fast(block, rows, length, scale, options);
    return;
  }
  for (int r = 0; r < rows; ++r) {
    const std::span<float> row =
        block.subspan(static_cast<std::size_t>(r) * static_cast<std::size_t>(length), static_cast<std::size_t>(length));
    const auto seen = static_cast<std::size_t>(visible_keys(true, first + r, length));
    softmax_rows_fast(row.first(seen), 1, static_cast<int>(seen), scale, options);
    std::fill(row.begin() + static_cast<std::ptrdiff_t>(seen), row.end(), 0.0f);
  }
}

// The logit scale the float kernels apply to the cache's raw scores: the map's, times
// 2^score_exponent for pre-scaled imports (ScoreCache). Kept within float: above FLT_MAX every
// nonzero gap the kernels see is already far beyond e^88, so the weights are those of hardmax.
double kernel_logit_scale(const Snapshot& snap, bool scaled) {
  const double scale = scaled ? snap.scaled_logit_scale : snap.unscaled_logit_scale;
  const int exponent = snap.attention_scores != nullptr ? snap.attention_scores->score_exponent : 0;
  if (exponent == 0) return scale;
  return std::min(std::ldexp(scale, exponent), static_cast<double>(std::numeric_limits<float>::max()));
}

void weights_of_rows(const Snapshot& snap, bool scaled, int first, int rows, std::span<float> block,
                     KernelOptions options = {}) {
  causal_softmax_rows(block, first, rows, snap.attention_size, kernel_logit_scale(snap, scaled), snap.causal, options);
}

}  // namespace

bool pooled_maps_pending(const Snapshot& snap) {
  return snap.attention_scores != nullptr && snap.attention_scores->raw.values.empty() && snap.pooled.factor == 0;
}

bool complete_pooled_maps(Snapshot& snap, const std::stop_token& stop, const Progress& progress) {
  const int length = snap.attention_size;
  const int factor = (length + pooled_side_max - 1) / pooled_side_max;
  PooledMaps pooled;
  pooled_attention_maps(pooled, snap.attention_scores->queries_for_kernels(), snap.attention_scores->keys_for_kernels(),
                        kernel_logit_scale(snap, true), kernel_logit_scale(snap, false), snap.causal, factor, stop,
                        progress);
  if (stop.stop_requested()) return false;
  snap.pooled = std::move(pooled);
  snap.attention_max = snap.pooled.max_weight > 0.0f ? snap.pooled.max_weight : 1.0f;
  return true;
}

bool complete_pooled_maps(Snapshot& snap, const std::stop_token& stop, std::atomic<float>* fraction_done) {
  // The window's progress bar reads a float: a sink that stores there (from any pool thread).
  struct StoreFraction final : ProgressSink {
    std::atomic<float>* target = nullptr;
    void update(double fraction, std::string_view) noexcept override {
      if (target != nullptr) target->store(static_cast<float>(fraction), std::memory_order_relaxed);
    }
  } sink;
  sink.target = fraction_done;
  sink.update(0.0, {});
  return complete_pooled_maps(snap, stop, Progress({}, &sink, "computing the attention maps"));
}

bool preview_pooled_maps(Snapshot& snap, const std::stop_token& stop) {
  const int length = snap.attention_size;
  const int factor = (length + pooled_side_max - 1) / pooled_side_max;
  PooledMaps pooled;
  pool_attention_maps(pooled, snap.attention_scores->queries_for_kernels(), snap.attention_scores->keys_for_kernels(),
                      kernel_logit_scale(snap, true), kernel_logit_scale(snap, false), snap.causal, factor, 1, stop, {},
                      KernelIsa::best);
  if (stop.stop_requested()) return false;
  pooled.preview = true;
  snap.pooled = std::move(pooled);
  snap.attention_max = snap.pooled.max_weight > 0.0f ? snap.pooled.max_weight : 1.0f;
  return true;
}

// [SECTION] Weights on demand: rows, whole maps, max

void attention_row(const Snapshot& snap, bool scaled, int row, std::span<float> out) {
  const int length = snap.attention_size;
  assert(snap.attention_scores != nullptr && row >= 0 && row < length &&
         out.size() == static_cast<std::size_t>(length));
  const ScoreCache& cache = *snap.attention_scores;
  if (!cache.raw.values.empty()) {
    const auto first = cache.raw.values.begin() + static_cast<std::ptrdiff_t>(row) * length;
    std::copy(first, first + length, out.begin());
  } else {
    // No stored QKᵀ (long imported contexts): this row's scores through the same kernel the
    // pooled maps use, so the weights equal theirs.
    const Matrix& queries = cache.queries_for_kernels();
    const Matrix query{
        1, queries.cols,
        std::vector<float>(queries.values.begin() + static_cast<std::ptrdiff_t>(row) * queries.cols,
                           queries.values.begin() + static_cast<std::ptrdiff_t>(row + 1) * queries.cols)};
    dot_product_scores_fast(out, query, cache.keys_for_kernels(), KernelOptions{.max_threads = 1});
  }
  weights_of_rows(snap, scaled, row, 1, out);
}

std::vector<float> attention_map(const Snapshot& snap, bool scaled) {
  if (snap.attention_scores == nullptr || snap.attention_scores->raw.values.empty()) return {};
  const int length = snap.attention_size;
  std::vector<float> map = snap.attention_scores->raw.values;
  weights_of_rows(snap, scaled, 0, length, map);
  return map;
}

float attention_map_max(const Snapshot& snap, bool scaled) {
  const int length = snap.attention_size;
  if (snap.attention_scores == nullptr || length <= 0) return 0.0f;
  if (snap.attention_scores->raw.values.empty()) return snap.pooled.max_weight;
  // Blocks of rows (~256 KB) through the same per-row kernel as attention_row, so the maximum is
  // of exactly the weights that are shown and exported, without an L×L buffer. The rows are cut
  // into contiguous parts, up to four per thread (at ≥ 64 K weights a part: ~25 µs of work, more
  // than a pool worker's wake-up); the max of maxima is exact, so the split changes no bit.
  const int block_rows = std::clamp(65536 / std::max(length, 1), 1, length);
  const auto cells = static_cast<std::int64_t>(length) * length;
  // Claimed in turn: a thread preempted by another program holds up a quarter of its share.
  const int parts = static_cast<int>(std::clamp<std::int64_t>(cells / 65536, 1, 4 * available_threads()));
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
      weights_of_rows(snap, scaled, first, rows, block, KernelOptions{.max_threads = 1});
      // Finite weights only (NaN rows and ±inf fail both tests), written so GCC vectorises it.
      constexpr float largest = std::numeric_limits<float>::max();
      for (float weight : block) top = weight > top && weight <= largest ? weight : top;
    }
    part_max[static_cast<std::size_t>(part)] = top;
  });
  return *std::max_element(part_max.begin(), part_max.end());
}

// [SECTION] Attention output of the selected row

RowAttentionOutput row_attention_output(const Snapshot& snap) {
  const Params& params = snap.params;
  const int length = snap.attention_size;
  RowAttentionOutput result;
  Matrix values;
  if (params.imported != nullptr && params.imported->value_dim > 0) {  // the imported V of this batch and head
    const ImportedAttention& data = *params.imported;
    const auto slice = data.slice(data.values, params.batch, params.head, data.value_dim);
    values = Matrix{length, data.value_dim, std::vector<float>(slice.begin(), slice.end())};
  } else {
    draw_gaussian(values, params.seed, Stream::values, length, params.key_dim);
  }
  for (const bool scaled : {true, false}) {
    Matrix row{1, length, std::vector<float>(static_cast<std::size_t>(length))};
    attention_row(snap, scaled, params.row, row.values);
    attention_output(scaled ? result.scaled : result.unscaled, row, values);
  }
  return result;
}

}  // namespace smlab
