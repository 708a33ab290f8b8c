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


# The first-result targets at L = 1024, as ratios of the peer's median step to the app's first result.
LATENCY_TARGETS = {"temperature": 15, "score_scale": 15, "row": 15, "d_k": 8, "seq_len": 8}
# The final-result targets: every plot but the Monte Carlo curves final ("final"), quiet and with busy threads.
FINAL_PEER_RATIO_1024, FINAL_P95_1024 = 10, 25.0
FINAL_P95_4096 = {"d_k": 150.0, "seq_len": 150.0}  # others: 100 ms
LOADED_P95_FACTOR = {1024: 2.0, 4096: 3.0}


def report_latency(lines):
    """Per load, L and slider: the app's first result, every plot but the Monte Carlo curves final
    ("final"), the Monte Carlo curves final (median over repeats of each run's median and p95), the
    peer's step, their ratios, and targets; then each plot's final median."""
    if not lines:
        return
    app, peer, loads = {}, {}, []
    for line in lines:
        loads.append(line["load"])
        busy = line.get("load_threads", 0)
        if "app" in line:
            for s in line["app"]["sliders"]:
                app.setdefault((busy, line["L"], s["slider"]), []).append(s)
        else:
            peer.setdefault((busy, line["L"], line["peer"]["slider"]), []).append(line["peer"])
    print(f"slider -> pixels (load average {min(loads):.1f}-{max(loads):.1f} during the runs; medians over "
          f"{max(len(v) for v in app.values())} repeats)")
    print(f"{'busy':>4} {'L':>5} {'slider':<14} {'first':>7} {'p95':>7} {'final':>7} {'p95':>7} {'mc':>7} "
          f"{'mc p95':>7} {'peer':>7} {'first x':>7} {'final x':>7}")

    def med(runs, key):
        return statistics.median(v[key] for v in runs)

    for (busy, length, slider), runs in sorted(app.items(), key=lambda item: item[0][:2]):
        peer_runs = peer.get((busy, length, slider), [])
        peer_ms = statistics.median(p["median_ms"] for p in peer_runs) if peer_runs else float("nan")
        first, final, final_p95 = med(runs, "first_median_ms"), med(runs, "final_median_ms"), med(runs, "final_p95_ms")
        mc = med(runs, "mc_final_median_ms") if "mc_final_median_ms" in runs[0] else float("nan")
        mc_p95 = med(runs, "mc_final_p95_ms") if "mc_final_p95_ms" in runs[0] else float("nan")
        line = (f"{busy:>4} {length:>5} {slider:<14} {first:7.1f} {med(runs, 'first_p95_ms'):7.1f} {final:7.1f} "
                f"{final_p95:7.1f} {mc:7.1f} {mc_p95:7.1f} {peer_ms:7.1f} {peer_ms / first:7.1f} "
                f"{peer_ms / final:7.1f}")
        if busy == 0 and length == 1024:
            line += (f"  [final >= {FINAL_PEER_RATIO_1024}x peer: {verdict(peer_ms / final >= FINAL_PEER_RATIO_1024)}, "
                     f"p95 <= {FINAL_P95_1024:.0f} ms: {verdict(final_p95 <= FINAL_P95_1024)}]")
        if busy == 0 and length == 4096:
            target = FINAL_P95_4096.get(slider, 100.0)
            line += f"  [p95 <= {target:.0f} ms: {verdict(final_p95 <= target)}]"
        quiet = app.get((0, length, slider))
        if busy > 0 and quiet and length in LOADED_P95_FACTOR:
            factor = LOADED_P95_FACTOR[length]
            quiet_p95 = med(quiet, "final_p95_ms")
            line += f"  [p95 <= {factor:.0f}x quiet ({quiet_p95:.1f}): {verdict(final_p95 <= factor * quiet_p95)}]"
        print(line)
    plots = list(next(iter(app.values()))[0].get("plots", {}))
    if plots:
        print("each plot final, median (p95) ms:")
        print(f"{'busy':>4} {'L':>5} {'slider':<14} " + " ".join(f"{name:>20}" for name in plots))
        for (busy, length, slider), runs in sorted(app.items(), key=lambda item: item[0][:2]):
            cells = []
            for name in plots:
                cells.append(f"{statistics.median(v['plots'][name]['median_ms'] for v in runs):8.1f} "
                             f"({statistics.median(v['plots'][name]['p95_ms'] for v in runs):8.1f})")
            print(f"{busy:>4} {length:>5} {slider:<14} " + " ".join(f"{c:>20}" for c in cells))
    rss = [line["app"]["peak_rss_mib"] for line in lines if "app" in line and "peak_rss_mib" in line["app"]]
    if rss:
        by_length = {}
        for line in lines:
            if "app" in line and "peak_rss_mib" in line["app"]:
                by_length.setdefault(line["L"], []).append(line["app"]["peak_rss_mib"])
        for length, values in sorted(by_length.items()):
            text = f"peak RSS L={length}: {max(values):.0f} MiB"
            if length == 4096:
                text += f"  [<= 256 MiB: {verdict(max(values) <= 256)}]"
            print(text)


if __name__ == "__main__":
    main()
