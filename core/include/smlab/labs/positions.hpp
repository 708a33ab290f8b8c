// The numbers behind the positions lab (see views.hpp): sinusoidal positional encodings of
// amplitude a added to Q and K, and how the attention map changes as a grows.
#pragma once

#include <string_view>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/params.hpp"

namespace smlab {

// Which of the three regimes of the positional map a = Params::pe_amplitude falls in.
enum class PositionRegime {
  uniform,     // mean row entropy ≥ uniform_ratio · its maximum: positions barely matter
  structured,  // in between: a band around the diagonal, nearby keys favoured
  collapsed,   // mean max weight ≥ collapse_weight: each query attends to (almost) one key
};

struct PositionsLab {
  // The story of the issue — uniform, then structured, then collapsed — is the story of the
  // attention that positions alone produce. With random Q, K of σ = 1 a tiny amplitude leaves
  // the random content map, not a uniform one. So the lab shows two maps:
  //   positional map  Q = K = a·PE  (content σ = 0): uniform at a = 0 exactly, a Toeplitz band
  //                   around the diagonal for moderate a, the diagonal alone for large a;
  //   content map     Q, K ~ N(0, qk_norm²) plus a·PE: what adding positions to content does.
  // Both use the user's d_k, T, score_scale, ÷√d_k, causal and seed (heads = 1, PE over d_k).
  // The maps use the first L' = min(L, 128, max(16, 2^17 / d_k)) positions: a heatmap shows no
  // more than ~128 cells a side, and the budget bounds the L'²·d_k products at large d_k.
  static constexpr int max_map_len = 128;
  static constexpr int min_map_len = 16;
  static constexpr long long map_draw_budget = 1 << 17;  // L'·d_k
  static constexpr int max_encoding_columns = 128;       // PE picture: d_k > 128 shows 64 sampled pairs
  static constexpr int sweep_points = 33;                // amplitudes log-spaced over [0.01, 100], 8 a decade
  static constexpr double sweep_min_amplitude = 0.01, sweep_max_amplitude = 100.0;
  // H / H_max at or above: "uniform-ish". 0.97 rather than 0.9: at 0.9 a map whose largest
  // weight is already twice the uniform 1/L (a visible band) would still count as uniform.
  static constexpr double uniform_ratio = 0.97;
  static constexpr double collapse_weight = 0.9;  // mean max weight at or above: "collapsed"

  int seq_len = 0;      // L' (see max_map_len)
  bool capped = false;  // L' < Params::seq_len
  double amplitude = 0.0;
  double content_sigma = 1.0;  // Params::qk_norm

  // The unit-amplitude encoding PE (positional_encoding over d_k columns), L'×(shown columns):
  // encoding(pos, c) = PE(pos, encoding_columns[c]). All d_k columns when d_k ≤ 128, otherwise
  // 64 (sin, cos) pairs with evenly spaced frequency indices, so slow waves stay in the picture.
  Matrix encoding;
  std::vector<int> encoding_columns;
  int encoding_dim = 0;  // d_k: the width the frequencies 1/10000^{2i/d_k} are defined over

  Matrix position_weights;                                        // L'×L', Q = K = a·PE
  Matrix content_weights;                                         // L'×L', Q, K ~ N(0, σ²) + a·PE
  float position_largest_weight = 0.0f, content_largest_weight = 0.0f;  // largest_finite of each map
  double position_entropy_nats = 0.0, position_max_weight = 0.0;  // mean over rows
  double content_entropy_nats = 0.0, content_max_weight = 0.0;
  double max_entropy_nats = 0.0;  // ln L' (causal: mean of ln(i + 1)), the uniform map's entropy
  double position_entropy_ratio_now = 1.0, content_entropy_ratio_now = 1.0;  // H / max_entropy_nats
  PositionRegime regime = PositionRegime::uniform;                           // of the positional map at a

  // ── Versus amplitude, at L' ──
  // Computed from the decomposition (Q + aP)(K + aP)ᵀ = QKᵀ + a(QPᵀ + PKᵀ) + a²PPᵀ: four
  // products once, then each amplitude is a weighted sum and a softmax. Equal to
  // attention_weights() up to float rounding of the products (tested).
  std::vector<double> sweep_amplitudes;        // sweep_points values
  std::vector<double> position_entropy_ratio;  // H / max_entropy_nats, positional map
  std::vector<double> position_max_weights;    // mean max weight, positional map
  std::vector<double> content_entropy_ratio;   // the same two for the content map
  std::vector<double> content_max_weights;
  // At a = 0 (not on a log axis): the positional map is uniform, the content map the plain one.
  double position_entropy_ratio_at_zero = 1.0, position_max_weight_at_zero = 0.0;
  double content_entropy_ratio_at_zero = 1.0, content_max_weight_at_zero = 0.0;
  // Where the positional curves cross the thresholds, log-interpolated between grid points, so
  // the three regimes are [min, uniform_until], [uniform_until, collapsed_from] and
  // [collapsed_from, max] of the sweep. A threshold never crossed clamps to an end of the
  // sweep, leaving that regime empty (e.g. a tiny score_scale keeps the map uniform-ish
  // throughout: both equal sweep_max_amplitude).
  double uniform_until = 0.0;   // largest a still uniform-ish
  double collapsed_from = 0.0;  // smallest a collapsed
};

std::string_view regime_name(PositionRegime regime);  // "uniform-ish", "structured", "collapsed"

// Pure and deterministic: the same Params give the same PositionsLab.
void evaluate_positions_lab(PositionsLab& out, const Params& params);

}  // namespace smlab
