// The value side of attention: one query's output o = Σ_j w_j v_j with w = softmax(scores/T), and
// multi-head attention as concatenation of the heads' outputs then W_O (not an average of maps).
#pragma once

#include <span>
#include <vector>

namespace smlab {

// Row-major double matrices of the value side. Shapes are stated per function.
struct DenseMatrix {
  int rows = 0, cols = 0;
  std::vector<double> values;
  double operator()(int r, int c) const {
    return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
  double& at(int r, int c) {
    return values[static_cast<std::size_t>(r) * static_cast<std::size_t>(cols) + static_cast<std::size_t>(c)];
  }
};

// Fills rows×cols with i.i.d. N(0, σ²) from the project's seeded streams (random.hpp): entry (r, c)
// depends only on (seed, stream, r, c), as draw_gaussian's do, so growing a shape keeps old entries.
void draw_dense_gaussian(DenseMatrix& out, unsigned long long seed, unsigned long long stream, int rows, int cols,
                         double sigma = 1.0);

// One query's side of attention. Shapes: scores has L entries (already ÷√d_k and × scale as the
// caller wants), values is L×d_v; weights gets L entries, output d_v.
//   w = softmax(scores / T)                 (softmax.hpp's stable kernel; −inf keys get 0)
//   o_c = Σ_j w_j V_jc                      (a convex combination of the value rows)
// Returns false (all NaN) when the scores have no distribution (softmax.hpp's conventions).
bool query_output(std::span<double> weights, std::span<double> output, std::span<const double> scores,
                  const DenseMatrix& values, double temperature);

// Multi-head attention (Vaswani et al. 2017) on Q, K, V (L×d_model each), d_model = h·d_head:
//   head m owns columns [m·d_head, (m+1)·d_head) of Q, K and V;
//   A_m = softmax(Q_m K_mᵀ · c / T) row by row, c = 1/√d_head when scaled, else 1;
//   O_m = A_m V_m                                   (L×d_head)
//   concat = [O_0 | O_1 | … | O_{h−1}]              (L×d_model)
//   output = concat · W_O                           (W_O is d_model×d_model)
// For contrast, averaged_map_output = ((1/h) Σ_m A_m) · V · W_O, what "averaging the heads' maps"
// would give: it is not multi-head attention (each head's weights would act on every value
// column), and differs from `output` unless all heads' maps agree.
struct MultiHeadAttention {
  int seq_len = 0, model_dim = 0, heads = 1, head_dim = 0;
  std::vector<DenseMatrix> head_weights;  // h maps, L×L, rows sum to 1
  std::vector<DenseMatrix> head_outputs;  // h, L×d_head
  DenseMatrix concatenated;               // L×d_model
  DenseMatrix output;                     // L×d_model
  DenseMatrix averaged_map_output;        // L×d_model
};
// Requires heads ≥ 1 dividing model_dim = Q.cols = K.cols = V.cols, Q.rows = K.rows = V.rows ≥ 1,
// W_O d_model×d_model, T > 0. All in double. `causal`: query i sees keys 0 … i only (the scores of
// later keys are −inf, so their weights are exactly 0), as the dashboard's causal maps.
void multi_head_attention(MultiHeadAttention& out, const DenseMatrix& queries, const DenseMatrix& keys,
                          const DenseMatrix& values, const DenseMatrix& output_projection, int heads,
                          double temperature, bool scaled, bool causal = false);

// C = A·B for A (m×k) and B (k×n), summed in double in index order.
void matrix_product(DenseMatrix& out, const DenseMatrix& a, const DenseMatrix& b);

// ─── The values lab: seeded Q, K, V and the selected query's output as T moves ──────────────
struct ValuesSettings {
  int seq_len = 8;    // L: keys and values (the view shows all of them) [2, 64]
  int key_dim = 64;   // d_k of q and k
  int value_dim = 4;  // d_v: short so each output coordinate can be drawn [1, 16]
  int row = 0;        // the query
  int heads = 2;      // h of the multi-head part (d_model = h·d_v)
  double temperature = 1.0;
  double score_scale = 1.0;
  bool scaled = true;   // ÷√d_k
  bool causal = false;  // the query (row) sees keys 0 … row only, as the dashboard's causal mask
  unsigned long long seed = 42;
};

inline constexpr int values_sweep_points = 81;  // T log-spaced 0.01 … 100, 20 per decade

struct ValuesLab {
  ValuesSettings settings;
  DenseMatrix values;                // L×d_v, V ~ N(0, 1) (stream values)
  std::vector<float> value_cells;    // the same, rounded to float for the heatmap
  double values_abs_max = 0.0;       // max_jc |v_jc|: the heatmap's symmetric colour range ±that
  std::vector<double> scores;        // L: score_scale · q_row·k_j (÷√d_k when scaled), Q, K as the dashboard's;
                                     //    causal: −inf for the keys after the row
  std::vector<double> weights;       // L: softmax(scores / T) (causal: 0 after the row)
  std::vector<double> output;        // d_v: Σ_j w_j v_j
  std::vector<double> value_mean;    // d_v: the mean of the value rows the query sees, the T → ∞ limit
  std::vector<double> argmax_value;  // d_v: v of the largest score, the T → 0 limit (no ties)
  int argmax = 0;
  // The output's path as T sweeps the log grid: sweep_outputs is points×d_v.
  std::vector<double> sweep_temperatures;
  DenseMatrix sweep_outputs;
  // Multi-head on seeded Q, K, V (L×h·d_v) and W_O ~ N(0, 1/d_model).
  MultiHeadAttention multi_head;
  double concat_vs_average_difference = 0.0;  // max_ij |output − averaged_map_output|
};

// Pure and deterministic for given settings. Cost O(L·d_k + points·L·d_v + h·L²·d_v).
void evaluate_values_lab(ValuesLab& out, const ValuesSettings& settings);

}  // namespace smlab
