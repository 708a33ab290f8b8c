// The variance argument's relatives: Xavier/He initialisation and normalisation layers keep the
// variance of activations at 1 through a stack of layers, for the reason ÷√d_k keeps the score's.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace smlab {

// A stack of `depth` fully connected layers of width n (no bias): h_{l+1} = W_l φ(h_l), entries of
// W_l ~ N(0, σ_w²) with σ_w² from the initialisation, h_0 ~ N(0, 1) the first pre-activation (so
// every layer, the first included, sees φ of a pre-activation: He keeps Var(h_l) = 1 exactly).
enum class Initialization : int {
  unit = 0,    // σ_w² = 1          (what a naive N(0, 1) draw gives: variance × n per layer)
  xavier = 1,  // σ_w² = 2/(n_in + n_out) = 1/n here (Glorot & Bengio 2010)
  he = 2,      // σ_w² = 2/n_in    (He et al. 2015, for ReLU)
  small = 3,   // σ_w = 0.01       (variance × 1e-4·n per layer: vanishes)
};
enum class Activation : int { linear = 0, tanh = 1, relu = 2 };
std::string_view initialization_name(Initialization init);  // "unit", "xavier", "he", "small"
std::string_view activation_name(Activation activation);    // "linear", "tanh", "relu"

double weight_variance(Initialization init, int width);

// The mean-field prediction of Var(h_l) (infinite width):
//   Var(h_{l+1}) = n σ_w² · E[φ(h)²],  h ~ N(0, Var(h_l))
//   linear: E[h²] = v;  ReLU: E[relu(h)²] = v/2;  tanh: E[tanh²(√v Z)] by quadrature.
// With layer_norm, each layer's pre-activation is normalised over its n units before φ, so
// Var = 1 after it by construction (gain 1, bias 0), and the next product sees E[φ(Z)²] again.
// The score q·k with q, k ~ N(0, 1)^d has variance d; ÷√d_k is the same move as Xavier's 1/n.
std::vector<double> predicted_layer_variances(Initialization init, Activation activation, int width, int depth,
                                              bool layer_norm);

struct InitSettings {
  Initialization init = Initialization::xavier;
  Activation activation = Activation::linear;
  int width = 256;  // n [8, 1024]
  int depth = 10;   // layers [1, 50]
  int batch = 64;   // inputs pushed through at once
  bool layer_norm = false;
  std::uint64_t seed = 42;
};

struct InitLab {
  InitSettings settings;
  double weight_variance = 0.0;
  // Index 0 is the input; l = 1 … depth the pre-activations after layer l (after LayerNorm when on).
  // measured: the variance over batch × width entries (mean removed); predicted: above.
  std::vector<double> measured_variance, predicted_variance;
  // The prediction for every initialisation at the same activation and LayerNorm setting, in
  // Initialization order (unit, xavier, he, small): the lines the chosen one is compared with.
  std::vector<std::vector<double>> predicted_by_init;
};

// Pure and deterministic for given settings; layers' rows run on parallel_for, each row's value
// depending only on its index. Cost depth·batch·width² multiply-adds (≈ 42 M at the defaults).
void evaluate_init_lab(InitLab& out, const InitSettings& settings);

}  // namespace smlab
