#!/usr/bin/python3
"""Reads one `make bench` run's results (smlab-bench JSON, frame harness, NumPy and matplotlib
peers) from the folder given and prints each target with its measured ratio, met or missed."""
import json
import pathlib
import sys


def load_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def main():
    folder = pathlib.Path(sys.argv[1])
    kernels = {b["name"]: b for b in json.loads((folder / "kernels.json").read_text())["benchmarks"]}
    numpy_peer = json.loads((folder / "numpy.json").read_text()) if (folder / "numpy.json").exists() else None
    frames = load_lines(folder / "frames.jsonl")
    figure = {row["L"]: row["median_ms"] for row in load_lines(folder / "matplotlib.jsonl")}

    def best(prefix, key):
        values = [b[key] for name, b in kernels.items() if name.startswith(prefix) and key in b]
        return max(values) if values else float("nan")

    def verdict(ok):
        return "MET" if ok else "MISSED"

    # The bandwidth is a STREAM-like copy (memcpy). An in-place scale is softmax's own
    # access pattern and reaches more here (memcpy also reads each destination line before writing
    # it), so each softmax line also gives its share of that, the stricter reference.
    copy = best("BM_MemoryCopy/", "bytes_per_second")
    in_place = best("BM_MemoryScaleInPlace/", "bytes_per_second")
    print(f"memory bandwidth (best of 1 and 2 threads): copy {copy / 1e9:.2f} GB/s, in-place scale {in_place / 1e9:.2f} GB/s")
    for cols in (64, 1024, 16384, 262144, 1 << 20):
        fast = best(f"BM_SoftmaxRowsFast/cols:{cols}/", "bytes_per_second")
        line = (f"softmax 16M float32, rows of {cols:>7}: {fast / 1e9:6.2f} GB/s = {fast / copy:5.0%} of copy, "
                f"{fast / in_place:4.0%} of in-place")
        if numpy_peer:
            numpy = numpy_peer["softmax"][str(cols)]["bytes_per_second"]
            line += f", {fast / numpy:5.1f}x NumPy"
        print(line + f"  [≥60% of copy: {verdict(fast >= 0.6 * copy)}" +
              (f", ≥10x NumPy: {verdict(fast >= 10 * numpy)}]" if numpy_peer else "]"))

    blas = "NumPy"
    if numpy_peer and numpy_peer.get("blas"):
        blas = "NumPy/" + ("OpenBLAS" if any("openblas" in path for path in numpy_peer["blas"]) else "reference BLAS")
        print(f"NumPy's BLAS: {', '.join(numpy_peer['blas'])}")
    peak = best("BM_PeakFmaAvx512/real_time/threads:2", "flops")
    peak_one = best("BM_PeakFmaAvx512/real_time/threads:1", "flops")
    print(f"peak FMA (AVX-512, register-only): {peak_one / 1e9:.1f} GFLOP/s one thread, {peak / 1e9:.1f} two threads")
    for length, dim in ((256, 64), (1024, 64), (1024, 1024), (4096, 64), (4096, 1024)):
        fast = best(f"BM_QkFast/L:{length}/d_k:{dim}/", "flops")
        line = f"QK^T L={length:>4} d_k={dim:>4}: {fast / 1e9:6.1f} GFLOP/s = {fast / peak:5.0%} of peak"
        if numpy_peer:
            numpy = numpy_peer["qk"][f"{length}x{dim}"]["flops"]
            line += f", {fast / numpy:4.1f}x {blas}"
        print(line + f"  [≥50% of peak: {verdict(fast >= 0.5 * peak)}]")

    for name, b in kernels.items():
        if name.startswith("BM_MonteCarloDkCurve"):
            seconds = b["real_time"] / 1e3
            print(f"Monte Carlo d_k curve ({name}): {seconds:.3f} s, {b['trials_per_point']:.0f} trials/point, "
                  f"worst SE {b['worst_standard_error']:.4f}  [<1 s: {verdict(seconds < 1.0)}]")

    for row in frames:
        length, result = row["L"], row["result"]
        dim, key = row.get("d_k", 64), row.get("key", "temperature")
        pixels = result["median_recompute_ms"] + result["median_frame_ms"]
        line = (f"frames L={length:>4} d_k={dim:>4}, dragging {key}: median {result['median_frame_ms']:.1f} ms, "
                f"p95 {result['p95_frame_ms']:.1f} ms, recompute {result['median_recompute_ms']:.1f} ms, "
                f"max blocked {result['max_blocked_ms']:.1f} ms")
        if length <= 1024:
            line += f"  [median ≤16.7: {verdict(result['median_frame_ms'] <= 16.7)}, p95 ≤25: {verdict(result['p95_frame_ms'] <= 25)}]"
        else:
            line += f"  [≥30 fps: {verdict(result['median_frame_ms'] <= 33.3)}, blocked ≤20 ms: {verdict(result['max_blocked_ms'] <= 20)}]"
        print(line)
        memory = f"  first frame {result['first_frame_ms']:.0f} ms, peak RSS {result['peak_rss_mib']:.0f} MiB"
        memory += f"  [first frame ≤1 s: {verdict(result['first_frame_ms'] <= 1000)}"
        if length >= 4096:
            # The "300 MB" read as MB (10^6 bytes): the stricter of MB and MiB.
            memory += f", RSS <300 MB: {verdict(result['peak_rss_mib'] * 1.048576 < 300)}"
        print(memory + "]")
        if length in figure and dim == 64 and key == "temperature":
            ratio = figure[length] / pixels
            print(f"  slider→pixels {pixels:.1f} ms vs matplotlib figure {figure[length]:.0f} ms: {ratio:.1f}x"
                  + (f"  [≥10x: {verdict(ratio >= 10)}]" if length == 1024 else ""))

if __name__ == "__main__":
    main()
