// Tests of sampling and distillation (core/src/labs/sampling.cpp): top-k and top-p against their
// definitions, seeded draws against the binomial spread, and the KD loss against a long-double
// reference and finite differences.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "smlab/labs/sampling.hpp"
#include "lab_test_support.hpp"

namespace smlab {
namespace {

using lab_test::show;
using lab_test::softmax_of;

TEST(SamplingLab, TopKKeepsTheKLargestRenormalised) {
  const std::vector<double> p = softmax_of({0.3, 2.0, -1.0, 2.0, 0.9, 1.5}, 1.0);
  for (int k = 1; k <= 7; ++k) {
    std::vector<double> out(p.size());
    const int kept = top_k_filter(out, p, k);
    EXPECT_EQ(kept, std::min(k, 6));
    // Reference: the kept set is the k largest; ties (entries 1 and 3) by index.
    std::vector<std::size_t> order(p.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return p[a] > p[b]; });
    long double mass = 0;
    for (int r = 0; r < kept; ++r) mass += p[order[static_cast<std::size_t>(r)]];
    for (std::size_t r = 0; r < p.size(); ++r) {
      const std::size_t i = order[r];
      const double expected = static_cast<int>(r) < kept ? static_cast<double>(p[i] / mass) : 0.0;
      EXPECT_NEAR(out[i], expected, 4e-16 * std::max(expected, 1.0)) << "k=" << k << " i=" << i;  // one division
    }
  }
}

// The nucleus is the shortest prefix (descending) whose mass reaches p: the kept mass is ≥ p and
// dropping its smallest entry leaves < p.
TEST(SamplingLab, TopPKeepsTheShortestPrefixReachingP) {
  for (double t : {0.3, 1.0, 3.0}) {
    const std::vector<double> p = softmax_of({3.2, 2.9, 2.1, 1.5, 0.8, 0.3, -0.4, -1.2, -2.0, -3.1}, t);
    for (double nucleus : {0.05, 0.5, 0.8, 0.9, 0.95, 0.999, 1.0}) {
      std::vector<double> out(p.size());
      const int kept = top_p_filter(out, p, nucleus);
      std::vector<double> sorted = p;
      std::sort(sorted.rbegin(), sorted.rend());
      long double mass = 0, before = 0;
      for (int r = 0; r < kept; ++r) {
        before = mass;
        mass += sorted[static_cast<std::size_t>(r)];
      }
      SCOPED_TRACE("T=" + std::to_string(t) + " p=" + std::to_string(nucleus) + " probabilities=" + show(p));
      if (nucleus < 1.0) {
        EXPECT_GE(mass, nucleus - 1e-15L);
        EXPECT_LT(before, static_cast<long double>(nucleus));
      } else {
        EXPECT_EQ(kept, 10);  // every entry has mass
      }
      EXPECT_NEAR(std::accumulate(out.begin(), out.end(), 0.0), 1.0, 1e-15);
      EXPECT_EQ(std::count_if(out.begin(), out.end(), [](double x) { return x > 0.0; }), kept);
    }
  }
}

// Each count is Binomial(N, p_i): |c_i − N p_i| ≤ 5σ + 1 with σ = √(N p_i (1 − p_i)) (a 5σ bound
// fails with probability ~6e-7 per entry; the draws are seeded, so a pass is reproducible).
TEST(SamplingLab, DrawCountsFollowTheDistribution) {
  const std::vector<double> p = softmax_of({1.0, 0.0, -1.0, 2.0, -std::numeric_limits<double>::infinity(), 0.5}, 0.8);
  for (long long draws : {1LL, 1000LL, 4096LL, 4097LL, 200000LL}) {
    std::vector<long long> counts(p.size());
    draw_counts(counts, p, draws, 7);
    EXPECT_EQ(std::accumulate(counts.begin(), counts.end(), 0LL), draws);
    EXPECT_EQ(counts[4], 0) << "a masked entry (p = 0) was drawn";
    for (std::size_t i = 0; i < p.size(); ++i) {
      const double expected = static_cast<double>(draws) * p[i];
      EXPECT_LE(std::abs(static_cast<double>(counts[i]) - expected), 5.0 * std::sqrt(expected * (1 - p[i])) + 1.0)
          << "draws=" << draws << " i=" << i;
    }
    std::vector<long long> again(p.size());
    draw_counts(again, p, draws, 7);
    EXPECT_EQ(again, counts) << "same seed, same counts";
  }
  std::vector<long long> a(p.size()), b(p.size());
  draw_counts(a, p, 10000, 1);
  draw_counts(b, p, 10000, 2);
  EXPECT_NE(a, b) << "different seeds draw differently";
}

TEST(SamplingLab, DistillationLossMatchesLongDoubleReference) {
  const std::vector<double> teacher{3.0, 1.0, 0.2, -1.0, 2.5}, student{1.0, 2.0, 0.0, -0.5, 0.3};
  for (double t : {0.5, 1.0, 2.0, 4.0, 10.0, 50.0}) {
    Distillation d;
    distillation(d, teacher, student, t);
    long double zp = 0, zq = 0;
    for (std::size_t i = 0; i < teacher.size(); ++i) {
      zp += std::exp(static_cast<long double>(teacher[i]) / t);
      zq += std::exp(static_cast<long double>(student[i]) / t);
    }
    long double kl = 0;
    for (std::size_t i = 0; i < teacher.size(); ++i) {
      const long double lp = teacher[i] / static_cast<long double>(t) - std::log(zp);
      const long double lq = student[i] / static_cast<long double>(t) - std::log(zq);
      kl += std::exp(lp) * (lp - lq);
    }
    // KL is a sum of n terms p(ℓp − ℓq), each ℓ accurate to ~4 ulp of its size (≤ ~10): the sum's
    // absolute error ≤ ~1e-14; relative 1e-12 of KL plus that absolute part.
    EXPECT_NEAR(d.kl_nats, static_cast<double>(kl), 1e-12 * static_cast<double>(kl) + 1e-14) << "T=" << t;
    EXPECT_NEAR(d.loss, t * t * d.kl_nats, 1e-15 * d.loss) << "T=" << t;
  }
}

// ∂L/∂student against a Richardson-extrapolated central difference of the loss (h = 1e-3, 5e-4:
// truncation O(h⁴) ≈ 1e-12; rounding ≈ ε·L/h ≈ 1e-12·L): 1e-7 relative to the gradient's norm.
TEST(SamplingLab, DistillationGradientMatchesFiniteDifferences) {
  const std::vector<double> teacher{3.0, 1.0, 0.2, -1.0, 2.5}, student{1.0, 2.0, 0.0, -0.5, 0.3};
  for (double t : {0.7, 1.0, 4.0, 20.0}) {
    Distillation d;
    distillation(d, teacher, student, t);
    double norm = 0.0;
    for (double g : d.gradient) norm += g * g;
    norm = std::sqrt(norm);
    for (std::size_t i = 0; i < student.size(); ++i) {
      auto loss_at = [&](double delta) {
        std::vector<double> s = student;
        s[i] += delta;
        Distillation e;
        distillation(e, teacher, s, t);
        return e.loss;
      };
      auto central = [&](double h) { return (loss_at(h) - loss_at(-h)) / (2 * h); };
      const double reference = (4 * central(5e-4) - central(1e-3)) / 3;
      EXPECT_NEAR(d.gradient[i], reference, 1e-7 * norm + 1e-12) << "T=" << t << " i=" << i;
    }
  }
}

// Hinton et al.: with zero-mean logits, T (q_i − p_i) → (s_i − t_i)/n as T → ∞, so the T² factor
// keeps the gradient's size fixed; without it (the plain KL gradient) it falls as 1/T². Second-order
// terms are ~ max|logit|²/(T n): ≤ 2e-3 at T = 1000 for these logits (|x| ≤ 3.1, n = 10).
TEST(SamplingLab, TSquaredKeepsTheDistillationGradientsScale) {
  SamplingSettings settings;
  std::vector<double> teacher = settings.logits, student = settings.student_logits;
  auto centre = [](std::vector<double>& v) {
    const double mean = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
    for (double& x : v) x -= mean;
  };
  centre(teacher);
  centre(student);
  Distillation d;
  distillation(d, teacher, student, 1000.0);
  for (std::size_t i = 0; i < teacher.size(); ++i)
    EXPECT_NEAR(d.gradient[i], (student[i] - teacher[i]) / 10.0, 2e-3) << i;

  SamplingLab lab;
  evaluate_sampling_lab(lab, settings);
  // On the sweep (0.1 … 100, 20 per decade): T = 10 is point 40, T = 100 is point 60.
  ASSERT_NEAR(lab.sweep_temperatures[40], 10.0, 1e-12);
  ASSERT_NEAR(lab.sweep_temperatures[60], 100.0, 1e-12);
  EXPECT_NEAR(lab.sweep_gradient_norm[60] / lab.sweep_gradient_norm[40], 1.0, 0.05);
  EXPECT_NEAR(lab.sweep_unscaled_gradient_norm[40] / lab.sweep_unscaled_gradient_norm[60], 100.0, 5.0);
  // Soft targets flatten: entropy rises towards ln 10 with T.
  for (std::size_t k = 1; k < lab.sweep_soft_entropy.size(); ++k)
    EXPECT_GE(lab.sweep_soft_entropy[k], lab.sweep_soft_entropy[k - 1] - 1e-15) << k;
  EXPECT_NEAR(lab.sweep_soft_entropy.back(), std::log(10.0), 2e-3);
}

TEST(SamplingLab, LabFiltersAndHistogramAgree) {
  SamplingSettings settings;
  settings.draws = 100000;
  for (double t : {0.3, 1.0, 1.5}) {
    settings.temperature = t;
    SamplingLab lab;
    evaluate_sampling_lab(lab, settings);
    EXPECT_EQ(lab.top_k_kept, 5);
    EXPECT_GE(lab.top_p_kept, 1);
    // Frequencies: binomial spread ≤ 5·√(p(1−p)/N) ≤ 5·0.5/316 ≈ 0.008.
    EXPECT_LT(lab.max_frequency_error, 0.008) << "T=" << t;
    // The nucleus has no more entropy than the full distribution's support allows.
    EXPECT_LE(lab.top_p_entropy_nats, std::log(static_cast<double>(lab.top_p_kept)) + 1e-12);
  }
  // Lower T concentrates the nucleus: fewer tokens reach 90 %.
  SamplingLab cold, hot;
  settings.temperature = 0.3;
  evaluate_sampling_lab(cold, settings);
  settings.temperature = 1.5;
  evaluate_sampling_lab(hot, settings);
  EXPECT_LT(cold.top_p_kept, hot.top_p_kept);
}

}  // namespace
}  // namespace smlab
