#!/usr/bin/python3
"""NumPy peer of smlab-bench: the same softmax rows (16M float32 elements in all), QKᵀ sizes and a
STREAM-like copy, timed in this process. Prints one JSON object; bench/report.py reads it."""
import json
import os
import sys
import time

import numpy as np


def best_seconds(run, repeats):
    """The fastest of `repeats` runs: the least disturbed by other work on a shared machine."""
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - start)
    return best


def softmax_rows(x):
    # The textbook stable softmax as a notebook writes it: subtract the row max, exp, normalise.
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def main():
    rng = np.random.default_rng(1)
    total = 16 << 20
    results = {"numpy_version": np.__version__, "softmax": {}, "qk": {}}
    for cols in (64, 1024, 16384, 262144, 1 << 20):
        x = (rng.standard_normal((total // cols, cols), dtype=np.float32) * 1.5)
        seconds = best_seconds(lambda: softmax_rows(x), 3)
        results["softmax"][str(cols)] = {"ms": seconds * 1e3, "bytes_per_second": total * 8 / seconds}
    source = np.ones(total, dtype=np.float32)
    destination = np.empty_like(source)
    seconds = best_seconds(lambda: np.copyto(destination, source), 5)
    results["copy_bytes_per_second"] = total * 8 / seconds
    for length, dim in ((256, 64), (1024, 64), (1024, 1024), (4096, 64), (4096, 1024)):
        q = rng.standard_normal((length, dim), dtype=np.float32)
        k = rng.standard_normal((length, dim), dtype=np.float32)
        seconds = best_seconds(lambda: q @ k.T, 3)
        results["qk"][f"{length}x{dim}"] = {"ms": seconds * 1e3, "flops": 2.0 * length * length * dim / seconds}
    # Which BLAS `q @ k.T` ran on: Debian's libblas.so.3 is an alternative (reference BLAS or
    # OpenBLAS), so read what this process actually mapped.
    with open("/proc/self/maps") as maps:
        results["blas"] = sorted({os.path.realpath(line.split()[-1]) for line in maps
                                  if "blas" in line and line.split()[-1].startswith("/")})
    json.dump(results, sys.stdout)
    print()


if __name__ == "__main__":
    main()
