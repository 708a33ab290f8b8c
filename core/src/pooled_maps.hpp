// The pooled maps' driver shared by pooled_attention_maps and the preview (evaluate.cpp): either
// every query of a pooled row, or only its first ones. Private to core/src.
#pragma once

#include <stop_token>

#include "smlab/kernels.hpp"
#include "smlab/progress.hpp"
#include "smlab/snapshot.hpp"

namespace smlab {

// pooled_attention_maps with the first `queries_per_cell` queries of each pooled row (factor: all
// of them, 1: the preview's one). Cells of no query stay 0. Returns early when `stop` is requested
// (out is then partly filled: callers drop it).
void pool_attention_maps(PooledMaps& out, const Matrix& queries, const Matrix& keys, double scaled_logit_scale,
                         double unscaled_logit_scale, bool causal, int factor, int queries_per_cell,
                         const std::stop_token& stop, const Progress& progress, KernelIsa isa);

}  // namespace smlab
