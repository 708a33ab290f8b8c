// The training model's hand-derived gradients against central finite differences in double
// precision: every parameter tensor, the Q and K activations, and the emulated softmax against
// the precision lab's kernel, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>
#include <vector>

#include "smlab/precision.hpp"
#include "smlab/random.hpp"
#include "smlab/train/model.hpp"
#include "smlab/train/run.hpp"
#include "train_test_support.hpp"

namespace smlab::train {
namespace {

// The tolerance of the issue: |analytic − numeric| ≤ 1e-6·|numeric|, or ≤ 1e-9 absolute for
// entries whose gradient is near 0. Central differences with h = 1e-5·max(1, |θ|) carry a
// truncation error ~h²·|∂³L/∂θ³|/6 ≈ 1e-10 at these loss scales and a rounding error
// ~ε·|L|/h ≈ 1e-11, both under the floor; a wrong term in a derivation shows up as O(|g|).
constexpr double relative_tolerance = 1e-6, absolute_floor = 1e-9;

bool close(double analytic, double numeric) {
  const double error = std::abs(analytic - numeric);
  return error <= relative_tolerance * std::abs(numeric) || error <= absolute_floor;
}

// How much of its allowance an entry used (≤ 1 passes): printed, so the margin is on record.
double used_allowance(double analytic, double numeric) {
  return std::abs(analytic - numeric) / std::max(relative_tolerance * std::abs(numeric), absolute_floor);
}

struct GradientCase {
  std::string name;
  Settings settings;
};

// Small models covering every branch the backward pass has: each task, one and two layers,
// several heads (with d_v = D/H rounded down), residual on and off, causal or not, positions on
// and off, scaled and unscaled, T ≠ 1, and batches of several chunks.
std::vector<GradientCase> gradient_cases() {
  const auto small = [](Task task) {
    Settings s = default_settings(task);
    s.precision = Format::fp64;  // the derivative of the exact softmax: fp64 is exact to rounding
    s.seq_len = 5;
    s.vocab = 6;
    s.model_dim = 8;
    s.key_dim = 4;
    s.batch = 3;
    s.seed = 7;
    return s;
  };
  std::vector<GradientCase> cases;
  Settings s = small(Task::recall);
  s.layers = 2, s.heads = 2, s.temperature = 0.7;
  cases.push_back({"recall, 2 layers x 2 heads, T 0.7", s});
  s = small(Task::recall);
  s.residual = false, s.causal = true, s.scaled = false, s.init_scale = 0.5;
  cases.push_back({"recall, no residual, causal, unscaled", s});
  s = small(Task::copy);
  s.heads = 3, s.batch = 10, s.temperature = 1.3;
  cases.push_back({"copy, 3 heads (d_v 2), 10 examples in 8 chunks", s});
  s = small(Task::reverse);
  s.layers = 2, s.positions = false, s.key_dim = 1;
  cases.push_back({"reverse, 2 layers, no positions, d_k 1", s});
  s = small(Task::maximum);
  s.layers = 2, s.heads = 2, s.residual = false;
  cases.push_back({"maximum, 2 layers x 2 heads, no residual", s});
  s = small(Task::language);
  s.seq_len = 6, s.heads = 2;
  cases.push_back({"language, 2 layers x 2 heads, causal", s});
  return cases;
}

// A run of the case after a few steps (so biases and weights are away from their initial draws)
// and a batch of held-out examples to differentiate on.
struct Point {
  train::Run run;
  std::vector<Example> batch;
};
Point point_of(const GradientCase& c) {
  const auto corpus = c.settings.task == Task::language ? train_test::small_corpus() : nullptr;
  Point p{train::Run::create(c.settings, corpus).value(), {}};
  p.run.step(5);
  p.batch.resize(static_cast<std::size_t>(c.settings.batch));
  for (std::size_t i = 0; i < p.batch.size(); ++i)
    draw_example(p.batch[i], c.settings, corpus.get(), DataStream::held_out, i);
  return p;
}

TEST(TrainGradients, EveryParameterTensorMatchesCentralDifferences) {
  double worst = 0.0;
  std::size_t checked = 0;
  for (const GradientCase& c : gradient_cases()) {
    Point p = point_of(c);
    const Layout& layout = p.run.layout();
    std::vector<double> weights(p.run.weights().begin(), p.run.weights().end());
    std::vector<double> gradients(layout.parameter_count);
    Workspace workspace;
    const BatchResult result = forward_backward(gradients, workspace, weights, layout, c.settings, p.batch);
    ASSERT_TRUE(result.finite) << c.name;
    const auto loss_at = [&](std::size_t index, double value) {
      const double kept = weights[index];
      weights[index] = value;
      const double loss = forward_only(workspace, weights, layout, c.settings, p.batch).loss;
      weights[index] = kept;
      return loss;
    };
    for (const Tensor& tensor : layout.tensors) {
      int failures = 0;
      double largest_gradient = 0.0;
      for (std::size_t e = 0; e < tensor.size(); ++e) {
        const std::size_t index = tensor.offset + e;
        const double theta = weights[index];
        const double h = 1e-5 * std::max(1.0, std::abs(theta));
        const double up = theta + h, down = theta - h;
        const double numeric = (loss_at(index, up) - loss_at(index, down)) / (up - down);
        largest_gradient = std::max(largest_gradient, std::abs(numeric));
        worst = std::max(worst, used_allowance(gradients[index], numeric));
        ++checked;
        if (!close(gradients[index], numeric) && ++failures <= 3)
          ADD_FAILURE() << c.name << ": " << tensor.name << "[" << e / static_cast<std::size_t>(tensor.cols) << ", "
                        << e % static_cast<std::size_t>(tensor.cols) << "] analytic " << gradients[index] << " numeric "
                        << numeric << " (θ = " << theta << ")\n  settings: " << train_test::describe(c.settings);
      }
      EXPECT_EQ(failures, 0) << c.name << ": " << tensor.name;
      // A tensor whose every gradient is 0 would pass vacuously: each must carry signal here.
      EXPECT_GT(largest_gradient, 1e-6) << c.name << ": " << tensor.name << " has no gradient to check";
    }
  }
  std::printf("%zu parameter entries checked; the worst used %.3f of its allowance\n", checked, worst);
}

// ∂L/∂Q and ∂L/∂K of every entry of one example's activations, by nudging the entry after the
// projection. In the last layer the rows without a target get no gradient (their query is read by
// nothing); the check covers those zeros too.
TEST(TrainGradients, QueryAndKeyActivationGradientsMatchCentralDifferences) {
  for (const GradientCase& c : gradient_cases()) {
    Point p = point_of(c);
    const Layout& layout = p.run.layout();
    const std::vector<double> weights(p.run.weights().begin(), p.run.weights().end());
    std::vector<double> gradients(layout.parameter_count);
    Workspace workspace;
    for (int layer = 0; layer < c.settings.layers; ++layer) {
      ActivationProbe capture;
      capture.example = static_cast<int>(p.batch.size()) - 1;  // the last chunk's last example
      capture.layer = layer;
      capture.head = c.settings.heads - 1;
      ASSERT_TRUE(
          forward_backward(gradients, workspace, weights, layout, c.settings, p.batch, {.probe = &capture}).finite);
      const int key_dim = c.settings.key_dim;
      for (bool key : {false, true}) {
        const std::vector<double>& analytic = key ? capture.key_gradient : capture.query_gradient;
        ASSERT_EQ(analytic.size(), static_cast<std::size_t>(c.settings.seq_len * key_dim)) << c.name;
        for (std::size_t e = 0; e < analytic.size(); ++e) {
          ActivationProbe nudge = capture;
          nudge.key = key;
          nudge.row = static_cast<int>(e) / key_dim;
          nudge.col = static_cast<int>(e) % key_dim;
          const double h = 1e-5;
          nudge.delta = h;
          const double up = forward_only(workspace, weights, layout, c.settings, p.batch, {.probe = &nudge}).loss;
          nudge.delta = -h;
          const double down = forward_only(workspace, weights, layout, c.settings, p.batch, {.probe = &nudge}).loss;
          const double numeric = (up - down) / (2 * h);
          EXPECT_TRUE(close(analytic[e], numeric))
              << c.name << ": ∂L/∂" << (key ? "K" : "Q") << " layer " << layer << " head " << capture.head << " ["
              << nudge.row << ", " << nudge.col << "] analytic " << analytic[e] << " numeric " << numeric;
        }
      }
    }
  }
}

// With one example, one layer and one head the reported norms are the norms of those tensors.
TEST(TrainGradients, ReportedNormsAreTheFrobeniusNormsOfTheActivationGradients) {
  Settings s = default_settings(Task::copy);
  s.batch = 1;
  train::Run run = train::Run::create(s).value();
  std::vector<Example> batch(1);
  draw_example(batch[0], s, nullptr, DataStream::held_out, 0);
  std::vector<double> gradients(run.layout().parameter_count);
  Workspace workspace;
  ActivationProbe capture;
  const BatchResult result =
      forward_backward(gradients, workspace, run.weights(), run.layout(), s, batch, {.probe = &capture});
  double q = 0.0, k = 0.0;
  for (double g : capture.query_gradient) q += g * g;
  for (double g : capture.key_gradient) k += g * g;
  EXPECT_DOUBLE_EQ(result.grad_norm_q, std::sqrt(q));
  EXPECT_DOUBLE_EQ(result.grad_norm_k, std::sqrt(k));
  EXPECT_GT(result.grad_norm_q, 0.0);
  EXPECT_GT(result.grad_norm_k, 0.0);
}

// The training softmax is the precision lab's kernel (softmax_in_format) without the report: the
// same bits for every format, variant, temperature, masked keys and rows that overflow.
TEST(TrainSoftmax, EqualsThePrecisionLabKernelBitForBit) {
  NormalGenerator normal(11);
  for (Format format : {Format::fp64, Format::fp32, Format::fp16, Format::bf16})
    for (SoftmaxVariant variant : {SoftmaxVariant::naive, SoftmaxVariant::stable})
      for (double temperature : {1.0, 0.3, 2.5})
        for (double spread : {1.0, 6.0, 40.0, 400.0})
          for (int trial = 0; trial < 20; ++trial) {
            std::vector<double> scores(9);
            for (double& x : scores) x = spread * normal.next();
            if (trial % 3 == 1) scores[3] = scores[7] = -std::numeric_limits<double>::infinity();
            std::vector<double> ours(scores.size()), lab(scores.size());
            softmax_row(ours, scores, temperature, format, variant);
            softmax_in_format(lab, scores, format, variant, temperature);
            for (std::size_t j = 0; j < scores.size(); ++j) {
              const bool same = (std::isnan(ours[j]) && std::isnan(lab[j])) || ours[j] == lab[j];
              EXPECT_TRUE(same) << format_info(format).name << " variant " << static_cast<int>(variant) << " T "
                                << temperature << " spread " << spread << " trial " << trial << " j " << j << ": "
                                << ours[j] << " vs " << lab[j];
            }
          }
}

}  // namespace
}  // namespace smlab::train
