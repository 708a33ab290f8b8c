// Tests of the Params side of the attention story's labs (core/src/labs/topics.cpp): each key
// reaches its lab, indices are clamped into the row, and the labs are deterministic.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "smlab/labs/normalizers.hpp"
#include "smlab/labs/topics.hpp"

namespace smlab {
namespace {

TEST(TopicLabs, ValuesReadTheirKeysAndClampTheRow) {
  Params params;
  params.seq_len = 40;  // the lab shows the first values_max_keys keys
  params.row = 30;
  params.heads = 3;
  params.temperature = 0.5;
  const ValuesSettings s = values_settings(params);
  EXPECT_EQ(s.seq_len, values_max_keys);
  EXPECT_EQ(s.row, values_max_keys - 1);
  EXPECT_EQ(s.heads, 3);
  EXPECT_EQ(s.temperature, 0.5);
  ValuesLab a, b;
  evaluate_values_lab(a, params);
  evaluate_values_lab(b, params);
  EXPECT_EQ(a.output, b.output);
  EXPECT_EQ(a.multi_head.heads, 3);
}

TEST(TopicLabs, SamplingUsesCustomScoresAndClampsTopK) {
  Params params;
  params.scores = {1.0, 0.0, -std::numeric_limits<double>::infinity()};
  params.top_k = 50;
  params.top_p = 0.5;
  params.samples = 5000;
  SamplingLab lab;
  evaluate_sampling_lab(lab, params);
  ASSERT_EQ(lab.probabilities.size(), 3u);
  EXPECT_EQ(lab.top_k_kept, 3);
  EXPECT_EQ(lab.counts[2], 0) << "a masked token is never drawn";
  EXPECT_TRUE(std::isfinite(lab.distillation.loss)) << "the student keeps the teacher's mask";
  long long total = 0;
  for (long long c : lab.counts) total += c;
  EXPECT_EQ(total, 5000);
}

TEST(TopicLabs, LossUsesTheShownRowAndClampsTheTarget) {
  Params params;
  params.target = 4000;
  const std::vector<double> row = shown_row(params).scores;
  LossGradientsLab lab;
  evaluate_loss_gradients_lab(lab, params, shown_row(params));
  EXPECT_EQ(lab.loss.settings.target, static_cast<int>(row.size()) - 1);
  EXPECT_EQ(lab.loss.settings.logits, row);
  EXPECT_EQ(lab.probe.trials, qk_lab_trials);
  EXPECT_EQ(lab.target.loss, QkLoss::target_key);
}

TEST(TopicLabs, GeometryAndInitReadTheirKeys) {
  Params params;
  params.qk_norm = 2.0;
  params.angle = 90.0;
  params.epsilon = 1e-2;
  GeometryLab geometry;
  evaluate_geometry_lab(geometry, params);
  EXPECT_NEAR(geometry.query[0], 0.0, 1e-15);
  EXPECT_NEAR(geometry.query[1], 2.0, 1e-15);
  EXPECT_EQ(geometry.settings.cosine_epsilon, 1e-2);
  params.init = 2;
  params.activation = 2;
  params.depth = 4;
  params.layer_norm = true;
  InitLab init;
  evaluate_init_lab(init, params);
  EXPECT_EQ(init.settings.init, Initialization::he);
  EXPECT_EQ(init.settings.activation, Activation::relu);
  EXPECT_EQ(init.measured_variance.size(), 5u);
  EXPECT_TRUE(init.settings.layer_norm);
}

}  // namespace
}  // namespace smlab
