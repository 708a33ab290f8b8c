#!/usr/bin/python3
"""Reads one `make bench` run's results (smlab-bench JSON, frame harness, NumPy peer, and the
slider-to-pixels latency of the app against its matplotlib peer) from the folder given and prints
each target with its measured ratio, met or missed."""
import json
import pathlib
import statistics
import sys


def verdict(ok):
    return "MET" if ok else "MISSED"


def load_lines(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()] if path.exists() else []


def main():
    folder = pathlib.Path(sys.argv[1])
    if not (folder / "kernels.json").exists():  # a bench/latency.sh run alone
        report_latency(load_lines(folder / "latency.jsonl"))
        return
    kernels = {b["name"]: b for b in json.loads((folder / "kernels.json").read_text())["benchmarks"]}
    numpy_peer = json.loads((folder / "numpy.json").read_text()) if (folder / "numpy.json").exists() else None
    frames = load_lines(folder / "frames.jsonl")

    def best(prefix, key):
        values = [b[key] for name, b in kernels.items() if name.startswith(prefix) and key in b]
        return max(values) if values else float("nan")

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

    report_latency(load_lines(folder / "latency.jsonl"))


# Issue #20's targets at L = 1024, as ratios of the peer's median step to the app's median.
LATENCY_TARGETS = {"temperature": 15, "score_scale": 15, "row": 15, "d_k": 8, "seq_len": 8}


def report_latency(lines):
    """Per L and slider: the app's first and final result (median over repeats of each run's
    median and p95), the peer's step, their ratios, and the L = 4096 targets."""
    if not lines:
        return
    app, peer, loads = {}, {}, []
    for line in lines:
        loads.append(line["load"])
        if "app" in line:
            for s in line["app"]["sliders"]:
                app.setdefault((line["L"], s["slider"]), []).append(s)
        else:
            peer.setdefault((line["L"], line["peer"]["slider"]), []).append(line["peer"])
    print(f"slider -> pixels (load average {min(loads):.1f}-{max(loads):.1f} during the runs; medians over "
          f"{max(len(v) for v in app.values())} repeats)")
    print(f"{'L':>5} {'slider':<14} {'first':>8} {'p95':>8} {'final':>8} {'p95':>8} {'max frame':>9} {'peer':>8} "
          f"{'first x':>7} {'final x':>7}")
    for (length, slider), runs in sorted(app.items(), key=lambda item: item[0][0]):
        def med(key, values=runs):
            return statistics.median(v[key] for v in values)
        peer_ms = statistics.median(p["median_ms"] for p in peer.get((length, slider), [])) \
            if (length, slider) in peer else float("nan")
        first, final = med("first_median_ms"), med("final_median_ms")
        line = (f"{length:>5} {slider:<14} {first:8.1f} {med('first_p95_ms'):8.1f} {final:8.1f} "
                f"{med('final_p95_ms'):8.1f} {max(v['max_frame_ms'] for v in runs):9.1f} {peer_ms:8.1f} "
                f"{peer_ms / first:7.1f} {peer_ms / final:7.1f}")
        if length == 1024 and slider in LATENCY_TARGETS:
            target = LATENCY_TARGETS[slider]
            line += f"  [first >= {target}x: {verdict(peer_ms / first >= target)}, final: {verdict(peer_ms / final >= target)}]"
        if length == 4096:
            line += (f"  [first <= 100 ms: {verdict(first <= 100)}, "
                     f"frames < 20 ms: {verdict(max(v['p95_frame_ms'] for v in runs) < 20)} (p95)]")
        print(line)


if __name__ == "__main__":
    main()
