// The fast kernels (kernels.hpp) against the scalar references they replace: exp against
// std::exp in double, softmax_rows_fast against softmax_rows_inplace, QKᵀ against a double sum.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "smlab/attention.hpp"
#include "smlab/kernels.hpp"
#include "smlab/softmax.hpp"

namespace smlab {
namespace {

constexpr KernelIsa all_isas[] = {KernelIsa::avx512, KernelIsa::avx2, KernelIsa::sse2};
constexpr double float_epsilon = 0x1p-24;  // unit roundoff of float

TEST(ExpFast, RelativeErrorStaysBelowThreeTenthsOfAMillionth) {
  // The documented bound: polynomial truncation 1.2e-7 plus a few float roundings.
  std::vector<float> inputs;
  for (double x = -87.0; x <= 88.0; x += 1.0 / 4096.0) inputs.push_back(static_cast<float>(x));
  std::vector<float> outputs(inputs.size());
  for (KernelIsa isa : all_isas) {
    exp_fast(outputs, inputs, isa);
    double worst = 0.0;
    float worst_x = 0.0f;
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const double exact = std::exp(static_cast<double>(inputs[i]));
      const double error = std::abs(outputs[i] - exact) / exact;
      if (error > worst) worst = error, worst_x = inputs[i];
    }
    EXPECT_LE(worst, 3e-7) << kernel_isa_name(isa) << ": worst at x = " << worst_x;
  }
}

TEST(ExpFast, MaskedAndTinyGiveExactlyZeroAndZeroGivesExactlyOne) {
  const std::vector<float> inputs = {-std::numeric_limits<float>::infinity(), -1000.0f, -87.5f, 0.0f, 88.3f, 200.0f};
  std::vector<float> outputs(inputs.size());
  for (KernelIsa isa : all_isas) {
    exp_fast(outputs, inputs, isa);
    EXPECT_EQ(outputs[0], 0.0f) << kernel_isa_name(isa) << ": exp(-inf)";
    EXPECT_EQ(outputs[1], 0.0f) << kernel_isa_name(isa) << ": exp(-1000)";
    EXPECT_EQ(outputs[2], 0.0f) << kernel_isa_name(isa) << ": exp(-87.5) flushes (would be subnormal)";
    EXPECT_EQ(outputs[3], 1.0f) << kernel_isa_name(isa) << ": exp(0), the max's weight before normalising";
    EXPECT_TRUE(std::isfinite(outputs[4]) && outputs[4] > 1e38f) << kernel_isa_name(isa) << ": " << outputs[4];
    EXPECT_EQ(outputs[5], outputs[4]) << kernel_isa_name(isa) << ": above 88.3 saturates";
  }
}

// Seeded Gaussian rows·spread, the shape of evaluate()'s score maps.
std::vector<float> gaussian_rows(int rows, int cols, double spread, std::uint64_t seed) {
  Matrix draw;
  draw_gaussian(draw, seed, Stream::queries, rows, cols, spread);
  return draw.values;
}

TEST(SoftmaxRowsFast, MatchesTheScalarReferenceWithinTheDocumentedBound) {
  // Tolerance per weight: 5e-6 (exp's 3e-7, the float block sums' worst 25·2⁻²⁴ ≈ 1.5e-6 and the
  // per-block weight's roundings, ~1.2e-7, with margin: the bound the three-pass kernel had)
  // plus gap·2.4e-7, because the fast kernel forms the exponent (max − x)·scale in float and
  // exp turns its rounding (two roundings, ≤ 2⁻²⁴ each, relative to the gap) into relative error.
  // Weights the reference puts under ~1.2e-38 (gap ≥ 87.3, give or take the gap's rounding) may flush to 0.
  for (KernelIsa isa : all_isas)
    for (int cols : {1, 3, 7, 16, 17, 64, 100, 1000, 4097})
      for (double scale : {0.05, 1.0, 8.0}) {
        const int rows = 3;
        const std::vector<float> scores = gaussian_rows(rows, cols, 4.0, static_cast<std::uint64_t>(cols));
        std::vector<float> reference = scores, fast = scores;
        softmax_rows_inplace(reference, rows, cols, scale);
        softmax_rows_fast(fast, rows, cols, scale, {.max_threads = 1, .isa = isa});
        for (int r = 0; r < rows; ++r) {
          float max_score = -std::numeric_limits<float>::infinity();
          for (int c = 0; c < cols; ++c)
            max_score = std::max(max_score, scores[static_cast<std::size_t>(r * cols + c)]);
          for (int c = 0; c < cols; ++c) {
            const auto i = static_cast<std::size_t>(r * cols + c);
            const double gap = (static_cast<double>(max_score) - scores[i]) * scale;
            const double tolerance = (5e-6 + gap * 2.4e-7) * reference[i] + 1.5e-38;
            ASSERT_NEAR(fast[i], reference[i], tolerance)
                << kernel_isa_name(isa) << " cols=" << cols << " scale=" << scale << " row " << r << " col " << c
                << " score " << scores[i] << " max " << max_score;
          }
        }
      }
}

TEST(SoftmaxRowsFast, RowsSumToOneAndMaskedKeysGetExactlyZero) {
  const int rows = 4, cols = 37;
  std::vector<float> scores = gaussian_rows(rows, cols, 3.0, 7);
  for (int c = 0; c < cols; c += 3)
    scores[static_cast<std::size_t>(cols + c)] = -std::numeric_limits<float>::infinity();
  for (KernelIsa isa : all_isas) {
    std::vector<float> weights = scores;
    softmax_rows_fast(weights, rows, cols, 1.0, {.max_threads = 1, .isa = isa});
    for (int r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (int c = 0; c < cols; ++c) sum += weights[static_cast<std::size_t>(r * cols + c)];
      EXPECT_NEAR(sum, 1.0, 1e-5) << kernel_isa_name(isa) << " row " << r;
    }
    for (int c = 0; c < cols; c += 3)
      EXPECT_EQ(weights[static_cast<std::size_t>(cols + c)], 0.0f) << kernel_isa_name(isa) << " masked col " << c;
  }
}

TEST(SoftmaxRowsFast, RowsWithoutADistributionBecomeNaNLikeTheReference) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const int cols = 19;
  // Row 0: one NaN; row 1: one +inf; row 2: all −inf; row 3: ordinary.
  std::vector<float> scores(4 * cols, 0.5f);
  scores[5] = nan;
  scores[cols + 18] = inf;
  for (int c = 0; c < cols; ++c) scores[static_cast<std::size_t>(2 * cols + c)] = -inf;
  for (KernelIsa isa : all_isas) {
    std::vector<float> weights = scores;
    softmax_rows_fast(weights, 4, cols, 1.0, {.max_threads = 1, .isa = isa});
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < cols; ++c)
        EXPECT_TRUE(std::isnan(weights[static_cast<std::size_t>(r * cols + c)]))
            << kernel_isa_name(isa) << " row " << r << " col " << c;
    for (int c = 0; c < cols; ++c)
      EXPECT_NEAR(weights[static_cast<std::size_t>(3 * cols + c)], 1.0 / cols, 1e-7) << kernel_isa_name(isa);
  }
}

// Any thread count (0: every available thread; 3 and 16 split into more parts than this machine
// has threads, as a 16-core machine would) gives the one-thread bits.
TEST(SoftmaxRowsFast, AnyThreadCountGivesBitIdenticalWeights) {
  const int rows = 600, cols = 7000;  // 4.2 M elements: ~1.7 ms, enough for 11 parts
  const std::vector<float> scores = gaussian_rows(rows, cols, 2.0, 11);
  std::vector<float> one = scores;
  softmax_rows_fast(one, rows, cols, 0.7, {.max_threads = 1});
  for (int threads : {2, 3, 16, 0}) {
    std::vector<float> many = scores;
    softmax_rows_fast(many, rows, cols, 0.7, {.max_threads = threads});
    EXPECT_EQ(one, many) << threads << " threads";
  }
}

// The app recomputes single rows of a softmax'ed map on demand (softmax_rows_fast(row, 1, cols,
// scale)) and expects exactly the bits the whole-map call gave that row: a row's result may depend
// only on its own input, cols and scale, never on the rows around it, on how many rows one call
// holds, or on the split between threads. Rows here mix Gaussian logits, masked (−inf) keys and
// one all-masked, one NaN row; cols 4096 spans several of the kernel's blocks for every ISA, and
// the row counts are large enough that the two-thread calls really split.
TEST(SoftmaxRowsFast, EachRowAloneIsBitIdenticalToTheSameRowInsideTheMatrix) {
  const auto bits = [](const std::vector<float>& values, std::size_t first, std::size_t count) {
    std::vector<std::uint32_t> out(count);
    std::memcpy(out.data(), values.data() + first, count * sizeof(float));
    return out;
  };
  for (KernelIsa isa : all_isas)
    for (int cols : {1, 7, 64, 1000, 4096}) {
      const int rows = std::max(100, 400000 / cols + 1);  // ≥ 400,000 elements: above the threading threshold
      std::vector<float> scores = gaussian_rows(rows, cols, 5.0, static_cast<std::uint64_t>(1000 + cols));
      const float inf = std::numeric_limits<float>::infinity();
      for (std::size_t i = 5; i < scores.size(); i += 11) scores[i] = -inf;              // scattered masked keys
      for (int c = 0; c < cols; ++c) scores[static_cast<std::size_t>(cols + c)] = -inf;  // row 1: all masked
      scores[static_cast<std::size_t>(2 * cols + cols / 2)] = std::numeric_limits<float>::quiet_NaN();  // row 2
      for (int threads : {1, 2, 5}) {
        const double scale = 0.3;
        std::vector<float> matrix = scores;
        softmax_rows_fast(matrix, rows, cols, scale, {.max_threads = threads, .isa = isa});
        for (int r = 0; r < rows; ++r) {
          const auto first = static_cast<std::size_t>(r) * static_cast<std::size_t>(cols);
          std::vector<float> alone(
              scores.begin() + static_cast<std::ptrdiff_t>(first),
              scores.begin() + static_cast<std::ptrdiff_t>(first + static_cast<std::size_t>(cols)));
          softmax_rows_fast(alone, 1, cols, scale, {.max_threads = 1, .isa = isa});
          ASSERT_EQ(bits(alone, 0, alone.size()), bits(matrix, first, alone.size()))
              << kernel_isa_name(isa) << " cols=" << cols << " threads=" << threads << " row " << r;
        }
      }
    }
}

TEST(DotProductScoresFast, WithinTheFloatDotProductBoundOfTheExactSumLikeTheReference) {
  // A float sum of d products (any order, with or without FMA) is within d·2⁻²⁴·Σ|q_c k_c| of the
  // exact value (the standard γ_d bound); both kernels must meet it, against a double sum.
  struct Shape {
    int queries, keys, dim;
  };
  for (KernelIsa isa : all_isas)
    for (const Shape shape : {Shape{1, 1, 1}, Shape{5, 7, 3}, Shape{7, 33, 64}, Shape{13, 70, 300}, Shape{200, 45, 520},
                              Shape{29, 1500, 300}}) {  // several key blocks, an edge panel and an edge tile
      Matrix queries, keys, reference, fast;
      draw_gaussian(queries, 3, Stream::queries, shape.queries, shape.dim);
      draw_gaussian(keys, 3, Stream::keys, shape.keys, shape.dim);
      dot_product_scores(reference, queries, keys);
      dot_product_scores_fast(fast, queries, keys, {.max_threads = 1, .isa = isa});
      ASSERT_EQ(fast.rows, shape.queries);
      ASSERT_EQ(fast.cols, shape.keys);
      for (int i = 0; i < shape.queries; ++i)
        for (int j = 0; j < shape.keys; ++j) {
          double exact = 0.0, magnitude = 0.0;
          for (int c = 0; c < shape.dim; ++c) {
            const double product = static_cast<double>(queries(i, c)) * keys(j, c);
            exact += product;
            magnitude += std::abs(product);
          }
          const double bound = shape.dim * float_epsilon * magnitude;
          ASSERT_NEAR(fast(i, j), exact, bound)
              << kernel_isa_name(isa) << " L=" << shape.queries << " L'=" << shape.keys << " d=" << shape.dim << " at ("
              << i << ", " << j << ")";
          ASSERT_NEAR(reference(i, j), exact, bound) << "reference at (" << i << ", " << j << ")";
        }
    }
}

TEST(DotProductScoresFast, ThreadCountDoesNotChangeOneBit) {
  Matrix queries, keys, one, many;
  // Large enough for the split to happen (46 M flops: up to 3 parts); rows split mid-tile, two
  // depth blocks.
  draw_gaussian(queries, 5, Stream::queries, 301, 300);
  draw_gaussian(keys, 5, Stream::keys, 257, 300);
  dot_product_scores_fast(one, queries, keys, {.max_threads = 1});
  for (int threads : {2, 3, 16, 0}) {
    dot_product_scores_fast(many, queries, keys, {.max_threads = threads});
    EXPECT_EQ(one.values, many.values) << threads << " threads";
  }
}

}  // namespace
}  // namespace smlab

namespace smlab {
namespace {

// Only capacity changes: size and contents stay, and a buffer that is big enough already is left
// alone (its pages may be in use). Whether the kernel grants huge pages is not observable here.
TEST(ReserveWithHugePages, ChangesCapacityOnly) {
  std::vector<float> buffer{1.0f, 2.0f, 3.0f};
  reserve_with_huge_pages(buffer, std::size_t{3} << 20);  // 12 MiB: takes the madvise path
  EXPECT_GE(buffer.capacity(), std::size_t{3} << 20);
  EXPECT_EQ(buffer, (std::vector<float>{1.0f, 2.0f, 3.0f}));
  const float* data = buffer.data();
  reserve_with_huge_pages(buffer, 1000);
  EXPECT_EQ(buffer.data(), data);
  buffer.resize(std::size_t{3} << 20, 7.0f);
  EXPECT_EQ(buffer.data(), data) << "the reserved capacity is what resize uses";
  EXPECT_EQ(buffer.back(), 7.0f);
}

}  // namespace
}  // namespace smlab
