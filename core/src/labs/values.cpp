// The values lab's computations: one query's weighted sum of value rows, its path as T moves, and
// multi-head attention as concatenation then W_O, beside the (wrong) average of the heads' maps.
#include "smlab/labs/values.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>

#include "smlab/attention.hpp"
#include "smlab/labs/attention_variants.hpp"  // log_grid
#include "smlab/shown_row.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

void shape(DenseMatrix& m, int rows, int cols) {
  m.rows = rows;
  m.cols = cols;
  m.values.assign(static_cast<std::size_t>(rows) * static_cast<std::size_t>(cols), 0.0);
}

DenseMatrix to_dense(const Matrix& in) {
  DenseMatrix out;
  out.rows = in.rows;
  out.cols = in.cols;
  out.values.assign(in.values.begin(), in.values.end());
  return out;
}

}  // namespace

void draw_dense_gaussian(DenseMatrix& out, unsigned long long seed, unsigned long long stream, int rows, int cols,
                         double sigma) {
  Matrix drawn;
  draw_gaussian(drawn, seed, static_cast<Stream>(stream), rows, cols, sigma);
  out = to_dense(drawn);
}

void matrix_product(DenseMatrix& out, const DenseMatrix& a, const DenseMatrix& b) {
  assert(a.cols == b.rows);
  shape(out, a.rows, b.cols);
  for (int i = 0; i < a.rows; ++i)
    for (int k = 0; k < a.cols; ++k) {
      const double left = a(i, k);
      for (int j = 0; j < b.cols; ++j) out.at(i, j) += left * b(k, j);
    }
}

bool query_output(std::span<double> weights, std::span<double> output, std::span<const double> scores,
                  const DenseMatrix& values, double temperature) {
  assert(weights.size() == scores.size() && static_cast<int>(scores.size()) == values.rows);
  assert(static_cast<int>(output.size()) == values.cols);
  // 1. the weights (stable softmax)
  if (!softmax(weights, scores, temperature)) {
    std::fill(output.begin(), output.end(), std::numeric_limits<double>::quiet_NaN());
    return false;
  }
  // 2. the weighted sum of value rows; a masked key (w = 0) adds nothing
  std::fill(output.begin(), output.end(), 0.0);
  for (int j = 0; j < values.rows; ++j) {
    const double w = weights[static_cast<std::size_t>(j)];
    if (w == 0.0) continue;
    for (int c = 0; c < values.cols; ++c) output[static_cast<std::size_t>(c)] += w * values(j, c);
  }
  return true;
}

void multi_head_attention(MultiHeadAttention& out, const DenseMatrix& queries, const DenseMatrix& keys,
                          const DenseMatrix& values, const DenseMatrix& output_projection, int heads,
                          double temperature, bool scaled, bool causal) {
  const int length = queries.rows, model_dim = queries.cols;
  assert(heads >= 1 && model_dim % heads == 0);
  assert(keys.rows == length && values.rows == length && keys.cols == model_dim && values.cols == model_dim);
  assert(output_projection.rows == model_dim && output_projection.cols == model_dim);
  const int head_dim = model_dim / heads;
  const double scale = scaled ? 1.0 / std::sqrt(static_cast<double>(head_dim)) : 1.0;
  out.seq_len = length;
  out.model_dim = model_dim;
  out.heads = heads;
  out.head_dim = head_dim;
  out.head_weights.resize(static_cast<std::size_t>(heads));
  out.head_outputs.resize(static_cast<std::size_t>(heads));
  shape(out.concatenated, length, model_dim);
  DenseMatrix average_map;
  shape(average_map, length, length);

  std::vector<double> scores(static_cast<std::size_t>(length)), weights(scores.size());
  for (int m = 0; m < heads; ++m) {
    const int first = m * head_dim;
    DenseMatrix& map = out.head_weights[static_cast<std::size_t>(m)];
    DenseMatrix& head_out = out.head_outputs[static_cast<std::size_t>(m)];
    shape(map, length, length);
    shape(head_out, length, head_dim);
    for (int i = 0; i < length; ++i) {
      // 1. scores of query i against every key, on this head's columns only (causal: −inf after i)
      for (int j = 0; j < length; ++j) {
        double dot = 0.0;
        for (int c = first; c < first + head_dim; ++c) dot += queries(i, c) * keys(j, c);
        scores[static_cast<std::size_t>(j)] = scale * dot;
      }
      mask_future_keys(std::span<double>(scores), causal, i);
      // 2. the head's weights
      softmax(weights, scores, temperature);
      for (int j = 0; j < length; ++j) {
        map.at(i, j) = weights[static_cast<std::size_t>(j)];
        average_map.at(i, j) += weights[static_cast<std::size_t>(j)] / heads;
      }
      // 3. O_m = A_m V_m, written into its own block of the concatenation
      for (int j = 0; j < length; ++j)
        for (int c = 0; c < head_dim; ++c)
          head_out.at(i, c) += weights[static_cast<std::size_t>(j)] * values(j, first + c);
      for (int c = 0; c < head_dim; ++c) out.concatenated.at(i, first + c) = head_out(i, c);
    }
  }
  // 4. the mix of heads: concat · W_O
  matrix_product(out.output, out.concatenated, output_projection);
  DenseMatrix mixed;
  matrix_product(mixed, average_map, values);
  matrix_product(out.averaged_map_output, mixed, output_projection);
}

void evaluate_values_lab(ValuesLab& out, const ValuesSettings& settings) {
  out.settings = settings;
  const int length = settings.seq_len, value_dim = settings.value_dim;
  // The dashboard's Q and K (same streams), so the row's scores are the dashboard's row.
  Matrix queries, keys;
  draw_gaussian(queries, settings.seed, Stream::queries, settings.row + 1, settings.key_dim);
  draw_gaussian(keys, settings.seed, Stream::keys, length, settings.key_dim);
  out.scores.resize(static_cast<std::size_t>(length));
  dot_product_row(out.scores, queries, keys, settings.row);
  const double scale =
      settings.score_scale / (settings.scaled ? std::sqrt(static_cast<double>(settings.key_dim)) : 1.0);
  for (double& s : out.scores) s *= scale;
  // Causal: the query at position `row` sees keys 0 … row only, as in the dashboard's maps.
  mask_future_keys(std::span<double>(out.scores), settings.causal, settings.row);
  const int seen = visible_keys(settings.causal, settings.row, length);
  draw_dense_gaussian(out.values, settings.seed, static_cast<unsigned long long>(Stream::values), length, value_dim);
  out.value_cells.assign(out.values.values.begin(), out.values.values.end());
  out.values_abs_max = 0.0;
  for (const double v : out.values.values) out.values_abs_max = std::max(out.values_abs_max, std::abs(v));

  out.weights.resize(static_cast<std::size_t>(length));
  out.output.resize(static_cast<std::size_t>(value_dim));
  query_output(out.weights, out.output, out.scores, out.values, settings.temperature);

  out.argmax = static_cast<int>(std::max_element(out.scores.begin(), out.scores.end()) - out.scores.begin());
  out.value_mean.assign(static_cast<std::size_t>(value_dim), 0.0);
  out.argmax_value.resize(static_cast<std::size_t>(value_dim));
  for (int c = 0; c < value_dim; ++c) {
    for (int j = 0; j < seen; ++j) out.value_mean[static_cast<std::size_t>(c)] += out.values(j, c) / seen;
    out.argmax_value[static_cast<std::size_t>(c)] = out.values(out.argmax, c);
  }

  out.sweep_temperatures = log_grid(0.01, 100.0, values_sweep_points);
  shape(out.sweep_outputs, values_sweep_points, value_dim);
  std::vector<double> weights(static_cast<std::size_t>(length)), output(static_cast<std::size_t>(value_dim));
  for (int k = 0; k < values_sweep_points; ++k) {
    query_output(weights, output, out.scores, out.values, out.sweep_temperatures[static_cast<std::size_t>(k)]);
    for (int c = 0; c < value_dim; ++c) out.sweep_outputs.at(k, c) = output[static_cast<std::size_t>(c)];
  }

  // Multi-head: Q, K, V of width d_model = h·d_v from the same seed (heads own column blocks).
  const int model_dim = settings.heads * value_dim;
  DenseMatrix q, k, v, projection;
  draw_dense_gaussian(q, settings.seed, static_cast<unsigned long long>(Stream::queries), length, model_dim);
  draw_dense_gaussian(k, settings.seed, static_cast<unsigned long long>(Stream::keys), length, model_dim);
  draw_dense_gaussian(v, settings.seed, static_cast<unsigned long long>(Stream::values), length, model_dim);
  // W_O ~ N(0, 1/d_model) keeps each output coordinate's variance that of one input coordinate.
  constexpr unsigned long long output_projection_stream = 101;
  draw_dense_gaussian(projection, settings.seed, output_projection_stream, model_dim, model_dim,
                      1.0 / std::sqrt(static_cast<double>(model_dim)));
  multi_head_attention(out.multi_head, q, k, v, projection, settings.heads, settings.temperature, settings.scaled,
                       settings.causal);
  out.concat_vs_average_difference = 0.0;
  for (std::size_t i = 0; i < out.multi_head.output.values.size(); ++i)
    out.concat_vs_average_difference =
        std::max(out.concat_vs_average_difference,
                 std::abs(out.multi_head.output.values[i] - out.multi_head.averaged_map_output.values[i]));
}

}  // namespace smlab
