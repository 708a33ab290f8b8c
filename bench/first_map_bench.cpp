// first-map-bench: time to the first attention map of a long imported context (Q, K of L × d),
// the preview (one query per pooled row) against the complete pooled maps; one run each.
// Usage: first-map-bench [L [d]] (default 32768 128)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include "smlab/attention.hpp"
#include "smlab/evaluate.hpp"
#include "smlab/import.hpp"
int main(int argc, char** argv) {
  using clock = std::chrono::steady_clock;
  const int length = argc > 1 ? std::atoi(argv[1]) : 32768, dim = argc > 2 ? std::atoi(argv[2]) : 128;
  if (length < 1 || dim < 1) {
    std::fprintf(stderr, "first-map-bench: L and d must be positive integers (usage: first-map-bench [L [d]])\n");
    return 2;
  }
  smlab::Matrix q, k;
  smlab::draw_gaussian(q, 1, smlab::Stream::queries, length, dim);
  smlab::draw_gaussian(k, 1, smlab::Stream::keys, length, dim);
  std::vector<smlab::RoleArray> arrays;
  arrays.push_back({smlab::ArrayRole::queries, smlab::NdArray{"q", {length, dim}, q.values, "<f4", {}}, "q.npy"});
  arrays.push_back({smlab::ArrayRole::keys, smlab::NdArray{"k", {length, dim}, k.values, "<f4", {}}, "k.npy"});
  const auto assembled = smlab::assemble_import(std::move(arrays), {}, {"q.npy", "k.npy"}, "");
  smlab::Params params;
  if (!assembled.ok() || !smlab::attach_import(params, *assembled).ok()) return 2;
  smlab::EvaluateOptions options;
  options.defer_pooled_maps = true;
  const auto t0 = clock::now();
  auto snap = *smlab::evaluate(params, options);
  const auto t1 = clock::now();
  smlab::Snapshot preview = snap;
  smlab::preview_pooled_maps(preview);
  const auto t2 = clock::now();
  smlab::complete_pooled_maps(snap);
  const auto t3 = clock::now();
  const auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  std::printf(
      "L=%d d=%d: evaluate without maps %.0f ms; preview maps %.0f ms; complete maps %.0f ms; "
      "first map after %.0f ms now (preview), %.0f ms before (complete)\n",
      length, dim, ms(t0, t1), ms(t1, t2), ms(t2, t3), ms(t0, t2), ms(t0, t1) + ms(t2, t3));
}
