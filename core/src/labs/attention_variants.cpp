// The attention variants lab's computations: five maps at the user's σ and their mean entropy
// over a σ sweep, all through attention_weights() with one workspace per call.
#include "smlab/labs/attention_variants.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "smlab/views.hpp"

namespace smlab {
namespace {

// attention_setup(params) fixes L, d_k, seed, score_scale, T and the causal mask; the lab adds its own settings.
// params.scaled is not used: whether to divide by √d_k is what tells the variants apart.
AttentionSetup variant_setup(const Params& params, ScoreVariant variant, int seq_len, double sigma) {
  AttentionSetup setup = attention_setup(params);
  setup.seq_len = seq_len;
  setup.variant = variant;
  setup.sigma = sigma;
  setup.cosine_gamma = params.gamma;
  return setup;
}

}  // namespace

double mean_row_max_weight(const Matrix& weights) {
  if (weights.rows == 0) return 0.0;
  double total = 0.0;
  for (int r = 0; r < weights.rows; ++r) {
    const auto first = weights.values.begin() + static_cast<std::ptrdiff_t>(r) * weights.cols;
    const float top = *std::max_element(first, first + weights.cols);
    if (std::isnan(top)) return std::numeric_limits<double>::quiet_NaN();
    total += top;
  }
  return total / weights.rows;
}

int budgeted_length(int seq_len, int max_len, int min_len, long long budget, long long width) {
  const long long fitting = std::max<long long>(min_len, budget / std::max<long long>(width, 1));
  return static_cast<int>(std::min<long long>({seq_len, max_len, fitting}));
}

std::vector<double> log_grid(double first, double last, int points) {
  std::vector<double> grid(static_cast<std::size_t>(std::max(points, 2)));
  const double ratio = last / first;
  for (std::size_t k = 0; k < grid.size(); ++k)
    grid[k] = first * std::pow(ratio, static_cast<double>(k) / static_cast<double>(grid.size() - 1));
  grid.front() = first;  // exactly, for the CSV and the axis ends
  grid.back() = last;
  return grid;
}

double max_mean_row_entropy_nats(int seq_len, bool causal) {
  if (seq_len <= 0) return 0.0;
  if (!causal) return std::log(static_cast<double>(seq_len));
  // Row i sees keys 0…i: at most ln(i + 1) nats, reached by the uniform row.
  double total = 0.0;
  for (int i = 0; i < seq_len; ++i) total += std::log(static_cast<double>(i + 1));
  return total / seq_len;
}

void evaluate_attention_variants_lab(AttentionVariantsLab& out, const Params& params) {
  using Lab = AttentionVariantsLab;
  AttentionWorkspace workspace;  // reused by every call below; freed when the lab is done

  out.seq_len =
      budgeted_length(params.seq_len, Lab::max_map_len, Lab::min_map_len, Lab::map_draw_budget, params.key_dim);
  out.capped = out.seq_len < params.seq_len;
  out.sigma = params.qk_norm;
  const double root_dim = std::sqrt(static_cast<double>(params.key_dim));
  out.expected_query_norm = out.sigma * root_dim;
  out.dot_score_std = out.sigma * out.sigma * root_dim;  // Var(q·k) = d_k σ⁴ for independent entries
  out.scaled_score_std = out.sigma * out.sigma;
  out.max_entropy_nats = max_mean_row_entropy_nats(out.seq_len, params.causal);

  for (std::size_t v = 0; v < Lab::variants.size(); ++v) {
    attention_weights(out.weights[v], variant_setup(params, Lab::variants[v], out.seq_len, out.sigma), workspace);
    out.entropy_nats[v] = mean_row_entropy_nats(out.weights[v]);
    out.mean_max_weight[v] = mean_row_max_weight(out.weights[v]);
  }

  // σ sweep: log-spaced from qk_norm_min to qk_norm_max, plus the current σ for the marker.
  out.sweep_seq_len =
      budgeted_length(out.seq_len, Lab::max_sweep_len, Lab::min_sweep_len, Lab::sweep_draw_budget, params.key_dim);
  out.sweep_max_entropy_nats = max_mean_row_entropy_nats(out.sweep_seq_len, params.causal);
  out.sweep_sigmas = log_grid(ParamLimits::qk_norm_min, ParamLimits::qk_norm_max, Lab::sweep_points);
  Matrix map;
  for (std::size_t v = 0; v < Lab::variants.size(); ++v) {
    std::vector<double>& curve = out.sweep_entropy[v];
    curve.resize(out.sweep_sigmas.size());
    for (std::size_t k = 0; k < out.sweep_sigmas.size(); ++k) {
      attention_weights(map, variant_setup(params, Lab::variants[v], out.sweep_seq_len, out.sweep_sigmas[k]),
                        workspace);
      curve[k] = mean_row_entropy_nats(map);
    }
    if (out.sweep_seq_len == out.seq_len) {
      out.sweep_entropy_now[v] = out.entropy_nats[v];  // the same map as above: no need to recompute
    } else {
      attention_weights(map, variant_setup(params, Lab::variants[v], out.sweep_seq_len, out.sigma), workspace);
      out.sweep_entropy_now[v] = mean_row_entropy_nats(map);
    }
  }
  out.largest_weight = 0.0f;
  for (const Matrix& map : out.weights) out.largest_weight = std::max(out.largest_weight, largest_finite(map));
}

// The lab's row in the registry (smlab/lab_list.hpp lists it).
extern const LabInfo attention_variants_lab_info{
    "attention-variants", "dot, scaled dot, cosine, additive and QK-LayerNorm as the norms of q and k grow",
    lab_evaluator<AttentionVariantsLab, evaluate_attention_variants_lab>};

}  // namespace smlab
