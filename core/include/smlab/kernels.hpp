// Fast float kernels behind the attention maps: softmax of rows and QKᵀ, vectorised (AVX-512,
// AVX2 or SSE2, picked at run time) and split over every available thread (parallel.hpp). The scalar versions in
// softmax.hpp / attention.hpp stay the tested reference; kernels_test.cpp holds the two together.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "smlab/attention.hpp"

namespace smlab {

// The instruction sets the kernels are compiled for. `best` asks the CPU (__builtin_cpu_supports,
// once per call), so one binary runs on any x86-64; naming a set the CPU lacks gets the best one
// below it. Tests name each set to check all three paths on one machine.
enum class KernelIsa { best, avx512, avx2, sse2 };

struct KernelOptions {
  int max_threads = 0;  // ≤ 0: every available thread; work is split only when it is large enough
  KernelIsa isa = KernelIsa::best;
};

// The set `wanted` resolves to on this CPU, as a name: "avx512", "avx2" or "sse2".
std::string_view kernel_isa_name(KernelIsa wanted = KernelIsa::best);

// exp(x) for each element, float in, float out: Cody–Waite reduction x = n·ln2 + r with
// |r| ≤ ln2/2, a degree-6 Taylor polynomial for e^r, and 2^n from the exponent bits.
// Max relative error ≤ 3e-7 (≈ 2.5 float ulp; measured over [−87, 88] in kernels_test) for
// x in [−87.3, 88.7]; below −87.3 it returns exactly 0 (so −inf, a masked key, gives 0, and
// weights under 1.2e-38 — which would be subnormal — flush to 0); above 88.7 it returns
// the value at 88.7. Shapes: out and in have the same length (they may be the same span).
void exp_fast(std::span<float> out, std::span<const float> in, KernelIsa isa = KernelIsa::best);

// The same contract as softmax_rows_inplace (softmax.hpp): stable softmax of each row of a
// row-major rows×cols matrix, in place, with logits x·logit_scale; NaN, +inf or all-−inf rows
// become NaN. Differences: each row is read once and exp evaluated once per element, against
// the max of the element's block of 64 vectors; one multiply per block (its e^{(block max −
// row max)·scale} / sum, in double) then normalises. The exponent and exp run in float, so a
// weight with logit gap a = (max − x)·logit_scale carries relative error ≤ 3e-7 + a·1.2e-7
// (float roundings of a), the float block sums add ≤ 25·2⁻²⁴ ≈ 1.5e-6 at worst, the block
// weight ~1.2e-7; weights under 1.2e-38 become 0 (or, in rows of several blocks, may keep a
// subnormal value). A row's result depends only on that row, cols, logit_scale and the
// instruction set: one row computed alone (rows = 1) has the same bits as inside a whole
// matrix, whatever the thread count.
void softmax_rows_fast(std::span<float> matrix, int rows, int cols, double logit_scale, KernelOptions options = {});

// raw(i, j) = q_i · k_j for Q (L×d) and K (L'×d); out becomes L×L'. Same result as
// dot_product_scores up to float rounding: each entry is a float sum of d products in a
// different order (fused multiply-adds, d split in blocks of 256), so both are within
// d·2⁻²⁴·Σ_c |q_c k_c| of the exact value. Cache-blocked (GotoBLAS-style packing of Q and K
// panels, keys in blocks that fit L2, a 12×(2 vectors) register tile with AVX-512, 6×2 with
// AVX2/SSE2) and split by rows between threads. Each entry's sum runs in the same order
// whatever the thread count, so results do not depend on it.
void dot_product_scores_fast(Matrix& out, const Matrix& queries, const Matrix& keys, KernelOptions options = {});
// The same into a caller's L×L' buffer (e.g. one head's map in a workspace).
void dot_product_scores_fast(std::span<float> out, const Matrix& queries, const Matrix& keys,
                             KernelOptions options = {});

// Gives `buffer` capacity for `count` floats; when that is 4 MiB or more and the capacity is new,
// asks Linux to back it with transparent huge pages (madvise MADV_HUGEPAGE) before any page of it
// is touched. An L = 4096 map is 64 MiB: 16,384 first-touch page faults with 4 KiB pages, which
// on a paravirtualised machine cost over a second per map; 32 with 2 MiB pages. Contents and
// size are unchanged; on other systems, or if the kernel says no, it is a plain reserve().
void reserve_with_huge_pages(std::vector<float>& buffer, std::size_t count);

}  // namespace smlab
