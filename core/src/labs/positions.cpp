// The positions lab's computations: the encoding, the positional and the content map at the
// current amplitude (attention_weights), and both maps' entropy and max weight versus amplitude.
#include "smlab/labs/positions.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "smlab/labs/attention_variants.hpp"
#include "smlab/shown_row.hpp"
#include "smlab/softmax.hpp"
#include "smlab/views.hpp"

namespace smlab {
namespace {

AttentionSetup positions_setup(const Params& params, int seq_len, double sigma, double amplitude) {
  AttentionSetup setup = attention_setup(params);  // dot or scaled dot, as the user chose
  setup.seq_len = seq_len;
  setup.sigma = sigma;
  setup.positional_amplitude = amplitude;
  return setup;
}

// Columns of the encoding picture: all of them when they fit, else `pairs` (sin, cos) pairs
// with frequency indices ⌊k·P/pairs⌋ out of P = ⌈d/2⌉, spread from the fastest to the slowest.
std::vector<int> shown_encoding_columns(int dim) {
  std::vector<int> columns;
  if (dim <= PositionsLab::max_encoding_columns) {
    for (int c = 0; c < dim; ++c) columns.push_back(c);
    return columns;
  }
  const int pairs = PositionsLab::max_encoding_columns / 2, all_pairs = (dim + 1) / 2;
  for (int k = 0; k < pairs; ++k) {
    const int pair = static_cast<int>(static_cast<long long>(k) * all_pairs / pairs);
    columns.push_back(2 * pair);
    if (2 * pair + 1 < dim) columns.push_back(2 * pair + 1);
  }
  return columns;
}

// First amplitude where `values` (monotone along the grid) crosses `threshold`, interpolated
// in log a; `falling` says which way. Clamps to the ends of the grid when there is no crossing.
double crossing(const std::vector<double>& amplitudes, const std::vector<double>& values, double threshold,
                bool falling) {
  auto beyond = [&](double v) { return falling ? v < threshold : v >= threshold; };
  if (beyond(values.front())) return amplitudes.front();
  for (std::size_t k = 1; k < values.size(); ++k) {
    if (!beyond(values[k])) continue;
    const double fraction = (threshold - values[k - 1]) / (values[k] - values[k - 1]);
    const double log_a =
        std::log(amplitudes[k - 1]) + fraction * (std::log(amplitudes[k]) - std::log(amplitudes[k - 1]));
    return std::exp(log_a);
  }
  return amplitudes.back();
}

// The four products of the decomposition, each L'×L'.
struct ScoreParts {
  Matrix content;    // q_i · k_j
  Matrix cross;      // q_i · p_j + p_i · k_j
  Matrix positions;  // p_i · p_j
};

ScoreParts score_parts(const Params& params, int seq_len) {
  // The same draws attention_weights() makes (entries depend on seed, stream, row, column only).
  Matrix queries, keys, encoding;
  draw_gaussian(queries, params.seed, Stream::queries, seq_len, params.key_dim, params.qk_norm);
  draw_gaussian(keys, params.seed, Stream::keys, seq_len, params.key_dim, params.qk_norm);
  positional_encoding(encoding, seq_len, params.key_dim);
  ScoreParts parts;
  dot_product_scores(parts.content, queries, keys);
  dot_product_scores(parts.positions, encoding, encoding);
  Matrix position_keys;
  dot_product_scores(parts.cross, queries, encoding);
  dot_product_scores(position_keys, encoding, keys);
  for (std::size_t i = 0; i < parts.cross.values.size(); ++i) parts.cross.values[i] += position_keys.values[i];
  return parts;
}

// weights = softmax rows of logit_scale · (C + a·X + a²·P), or of logit_scale · a²·P alone
// without content; causal-masked.
void combine(Matrix& weights, const ScoreParts& parts, bool with_content, double amplitude, double logit_scale,
             bool causal) {
  const int length = parts.content.rows;
  weights.rows = weights.cols = length;
  weights.values.resize(parts.content.values.size());
  const double square = amplitude * amplitude;
  for (std::size_t i = 0; i < weights.values.size(); ++i) {
    const double content = with_content ? parts.content.values[i] + amplitude * parts.cross.values[i] : 0.0;
    weights.values[i] = static_cast<float>(content + square * parts.positions.values[i]);
  }
  mask_future_keys(std::span<float>(weights.values), length, causal);  // exp(−inf) = 0: exactly no weight ahead
  softmax_rows_inplace(weights.values, length, length, logit_scale);
}

}  // namespace

std::string_view regime_name(PositionRegime regime) {
  switch (regime) {
    case PositionRegime::uniform: return "uniform-ish";
    case PositionRegime::structured: return "structured";
    case PositionRegime::collapsed: return "collapsed";
  }
  return "unknown";
}

void evaluate_positions_lab(PositionsLab& out, const Params& params) {
  using Lab = PositionsLab;
  out.seq_len =
      budgeted_length(params.seq_len, Lab::max_map_len, Lab::min_map_len, Lab::map_draw_budget, params.key_dim);
  out.capped = out.seq_len < params.seq_len;
  out.amplitude = params.pe_amplitude;
  out.content_sigma = params.qk_norm;
  out.encoding_dim = params.key_dim;
  out.max_entropy_nats = max_mean_row_entropy_nats(out.seq_len, params.causal);

  // The encoding picture.
  Matrix full_encoding;
  positional_encoding(full_encoding, out.seq_len, params.key_dim);
  out.encoding_columns = shown_encoding_columns(params.key_dim);
  const int shown = static_cast<int>(out.encoding_columns.size());
  out.encoding.rows = out.seq_len;
  out.encoding.cols = shown;
  out.encoding.values.resize(static_cast<std::size_t>(out.seq_len) * static_cast<std::size_t>(shown));
  for (int pos = 0; pos < out.seq_len; ++pos)
    for (int c = 0; c < shown; ++c)
      out.encoding.values[static_cast<std::size_t>(pos) * shown + static_cast<std::size_t>(c)] =
          full_encoding(pos, out.encoding_columns[static_cast<std::size_t>(c)]);

  // The two maps at the current amplitude, by the attention kernel itself. σ = 0 draws exact
  // zeros, so the positional map's Q and K are a·PE and nothing else.
  AttentionWorkspace workspace;
  attention_weights(out.position_weights, positions_setup(params, out.seq_len, 0.0, out.amplitude), workspace);
  attention_weights(out.content_weights, positions_setup(params, out.seq_len, params.qk_norm, out.amplitude),
                    workspace);
  out.position_entropy_nats = mean_row_entropy_nats(out.position_weights);
  out.position_max_weight = mean_row_max_weight(out.position_weights);
  out.content_entropy_nats = mean_row_entropy_nats(out.content_weights);
  out.content_max_weight = mean_row_max_weight(out.content_weights);
  out.position_entropy_ratio_now = out.position_entropy_nats / out.max_entropy_nats;
  out.content_entropy_ratio_now = out.content_entropy_nats / out.max_entropy_nats;
  out.regime = out.position_max_weight >= Lab::collapse_weight        ? PositionRegime::collapsed
               : out.position_entropy_ratio_now >= Lab::uniform_ratio ? PositionRegime::uniform
                                                                      : PositionRegime::structured;

  // The sweep. Same logit scale as attention_weights: (score_scale / T), then ÷√d_k if scaled.
  double logit_scale = params.score_scale / params.temperature;
  if (params.scaled) logit_scale /= std::sqrt(static_cast<double>(params.key_dim));
  const ScoreParts parts = score_parts(params, out.seq_len);
  Matrix map;
  auto measure = [&](bool with_content, double amplitude, double& entropy_ratio, double& max_weight) {
    combine(map, parts, with_content, amplitude, logit_scale, params.causal);
    entropy_ratio = mean_row_entropy_nats(map) / out.max_entropy_nats;
    max_weight = mean_row_max_weight(map);
  };
  measure(false, 0.0, out.position_entropy_ratio_at_zero, out.position_max_weight_at_zero);
  measure(true, 0.0, out.content_entropy_ratio_at_zero, out.content_max_weight_at_zero);
  out.sweep_amplitudes = log_grid(Lab::sweep_min_amplitude, Lab::sweep_max_amplitude, Lab::sweep_points);
  const std::size_t points = out.sweep_amplitudes.size();
  out.position_entropy_ratio.resize(points);
  out.position_max_weights.resize(points);
  out.content_entropy_ratio.resize(points);
  out.content_max_weights.resize(points);
  for (std::size_t k = 0; k < points; ++k) {
    const double amplitude = out.sweep_amplitudes[k];
    measure(false, amplitude, out.position_entropy_ratio[k], out.position_max_weights[k]);
    measure(true, amplitude, out.content_entropy_ratio[k], out.content_max_weights[k]);
  }
  out.uniform_until = crossing(out.sweep_amplitudes, out.position_entropy_ratio, Lab::uniform_ratio, true);
  out.collapsed_from = std::max(out.uniform_until,
                                crossing(out.sweep_amplitudes, out.position_max_weights, Lab::collapse_weight, false));
  out.position_largest_weight = largest_finite(out.position_weights);
  out.content_largest_weight = largest_finite(out.content_weights);
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo positions_lab_info{"positions", "sinusoidal positional encodings and their amplitude",
                                        lab_evaluator<PositionsLab, evaluate_positions_lab>};

}  // namespace smlab
