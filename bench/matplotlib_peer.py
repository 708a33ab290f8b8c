#!/usr/bin/python3
"""What a teacher would otherwise use: a NumPy + matplotlib (Agg) figure with the dashboard's four
plots — one softmax row, entropy versus T, S(1−S) with the live points, and the two L×L attention
maps — redrawn per slider change. Prints {"L": …, "median_ms": …} per L as JSON lines."""
import json
import statistics
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def time_slider(length, dim=64, changes=8):
    rng = np.random.default_rng(42)
    q = rng.standard_normal((length, dim), dtype=np.float32)
    k = rng.standard_normal((length, dim), dtype=np.float32)
    fig, axes = plt.subplots(2, 3, figsize=(16, 9), dpi=100)
    temperatures = np.logspace(-2, 2, 200)
    times = []
    for change in range(changes):
        temperature = 0.3 + 0.1 * change  # the slider moves
        start = time.perf_counter()
        raw = q @ k.T
        scaled = softmax(raw / (np.sqrt(dim) * temperature))
        unscaled = softmax(raw / temperature)
        row = scaled[0]
        entropy = [-(p * np.log(np.maximum(p, 1e-30))).sum() for p in (softmax(raw[0] / t) for t in temperatures)]
        for axis in axes.flat:
            axis.clear()
        axes[0, 0].bar(np.arange(length), row)
        axes[0, 1].semilogx(temperatures, entropy)
        axes[0, 1].axvline(temperature)
        s = np.linspace(0, 1, 200)
        axes[0, 2].plot(s, s * (1 - s))
        axes[0, 2].scatter(row, row * (1 - row), s=4)
        top = max(scaled.max(), unscaled.max())
        axes[1, 0].imshow(scaled, vmin=0, vmax=top)
        image = axes[1, 1].imshow(unscaled, vmin=0, vmax=top)
        if change == 0:
            fig.colorbar(image, ax=axes[1, 2])
        fig.canvas.draw()  # the pixels, as a slider callback in a notebook would produce them
        times.append((time.perf_counter() - start) * 1e3)
    plt.close(fig)
    return statistics.median(times[1:])  # the first draw pays for setup


def main():
    lengths = [int(arg) for arg in sys.argv[1:]] or [64, 256, 1024, 2048]
    for length in lengths:
        print(json.dumps({"L": length, "median_ms": time_slider(length)}), flush=True)


if __name__ == "__main__":
    main()
