// The table of views.
#include "smlab/views.hpp"

#include <array>

namespace smlab {
namespace {

constexpr std::array<ViewInfo, 9> views{{
    {View::dashboard, "dashboard", "Dashboard", "distribution, entropy, S(1-S) gradient and attention side by side"},
    {View::normalizers, "normalizers", "Normalizers",
     "softmax vs linear, sparsemax, alpha-entmax, hardmax, sigmoid and ReLU on one score vector"},
    {View::stability, "stability", "Stability",
     "naive vs stable vs online softmax in fp64, fp32, fp16, bf16 and fp8: overflow, underflow, NaN"},
    {View::temperature, "temperature", "Temperature", "small multiples over T, entropy vs T, the argmax limit"},
    {View::scaling, "scaling", "Scaling",
     "the variance of q.k grows with d_k: histograms, entropy, max weight and gradient norm vs d_k"},
    {View::gradients, "gradients", "Gradients", "the softmax Jacobian, S(1-S), and where learning stalls"},
    {View::attention_variants, "attention-variants", "Attention variants",
     "dot, scaled dot, cosine, additive and QK-LayerNorm as the norms of q and k grow"},
    {View::positions, "positions", "Positions", "sinusoidal positional encodings and their amplitude"},
    {View::heads, "heads", "Heads", "sharp heads and their multi-modal average"},
}};

}  // namespace

std::span<const ViewInfo> all_views() { return views; }

const ViewInfo& view_info(View view) { return views[static_cast<std::size_t>(view)]; }

std::optional<View> view_from_name(std::string_view name) {
  for (const ViewInfo& info : views)
    if (info.name == name) return info.view;
  return std::nullopt;
}

}  // namespace smlab
