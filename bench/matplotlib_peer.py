#!/usr/bin/python3
"""The fair matplotlib peer of `softmax-lab --bench-latency`: the dashboard's four plots (the row's
softmax as bars, entropy versus T with a marker, the S(1−S) parabola with the row's points, the
scaled and unscaled L×L attention maps) in one Agg figure, written the way a competent user writes
it: artists made once, then per slider step only the numbers that step changes are recomputed
(Q·Kᵀ only for d_k and seq_len, the maps only when T, the score scale, d_k or L change), heatmaps
updated with imshow's set_data, lines with set_data, bars with set_height, then
fig.canvas.draw(). Prints one JSON line per (L, slider): median and p95 ms per step.

Usage: matplotlib_peer.py [--steps N] L [L ...]"""
import json
import statistics
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

SLIDERS = ("temperature", "score_scale", "d_k", "seq_len", "scaled", "row", "custom_scores")
TEMPERATURES = np.logspace(-2, 2, 121)  # the app's entropy-versus-T grid


def softmax_rows(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def percentile(values, fraction):
    ordered = sorted(values)
    index = max(int(np.ceil(fraction * len(ordered))) - 1, 0)
    return ordered[min(index, len(ordered) - 1)]


class Figure:
    """The four plots and the state behind them; step() applies one slider change and redraws."""

    def __init__(self, length):
        self.p = {"temperature": 1.0, "score_scale": 1.0, "d_k": 64, "seq_len": length, "scaled": True,
                  "row": 0, "custom": None}
        self.max_length = length
        self.raw_key = self.maps_key = self.curve_key = None
        self.fig, axes = plt.subplots(2, 3, figsize=(16, 9), dpi=100)
        self.ax_bars, self.ax_entropy, self.ax_parabola = axes[0]
        self.ax_scaled, self.ax_unscaled, colorbar_axis = axes[1]
        self.bars = self.ax_bars.bar(np.arange(length), np.zeros(length))
        self.ax_bars.set_ylim(0, 1)
        (self.entropy_line,) = self.ax_entropy.semilogx(TEMPERATURES, np.zeros_like(TEMPERATURES))
        self.t_marker = self.ax_entropy.axvline(1.0, color="k")
        s = np.linspace(0, 1, 200)
        self.ax_parabola.plot(s, s * (1 - s))
        (self.points,) = self.ax_parabola.plot([], [], "o", markersize=2)
        empty = np.zeros((length, length), dtype=np.float32)
        self.image_scaled = self.ax_scaled.imshow(empty, vmin=0, vmax=1, interpolation="nearest")
        self.image_unscaled = self.ax_unscaled.imshow(empty, vmin=0, vmax=1, interpolation="nearest")
        self.fig.colorbar(self.image_unscaled, ax=colorbar_axis)
        self.update()

    def update(self):
        p = self.p
        length, dim = p["seq_len"], p["d_k"]
        raw_key = (length, dim)
        if raw_key != self.raw_key:  # new Q and K: the one L×L×d_k product
            rng = np.random.default_rng(42)
            self.q = rng.standard_normal((length, dim), dtype=np.float32)
            self.k = rng.standard_normal((length, dim), dtype=np.float32)
            self.raw = self.q @ self.k.T
            self.raw_key = raw_key
        logit_scale = p["score_scale"] / p["temperature"]
        maps_key = (raw_key, logit_scale)
        if maps_key != self.maps_key:  # the two maps and their shared colour range
            scaled = softmax_rows(self.raw * np.float32(logit_scale / np.sqrt(dim)))
            unscaled = softmax_rows(self.raw * np.float32(logit_scale))
            top = max(float(scaled.max()), float(unscaled.max()))
            for image, weights in ((self.image_scaled, scaled), (self.image_unscaled, unscaled)):
                image.set_data(weights)
                image.set_extent((-0.5, length - 0.5, length - 0.5, -0.5))
                image.set_clim(0, top)
            self.maps_key = maps_key
        if p["custom"] is not None:
            scores = p["custom"] * p["score_scale"]
        else:
            scores = self.raw[p["row"]].astype(np.float64) * p["score_scale"]
            if p["scaled"]:
                scores /= np.sqrt(dim)
        weights = softmax_rows(scores / p["temperature"])
        for index, bar in enumerate(self.bars):
            bar.set_height(weights[index] if index < len(weights) else 0.0)
        self.ax_bars.set_xlim(-0.5, len(weights) - 0.5)
        curve_key = scores.tobytes()
        if curve_key != self.curve_key:  # H(T) depends on the scores only
            probabilities = softmax_rows(scores[None, :] / TEMPERATURES[:, None])
            entropy = -(probabilities * np.log(np.maximum(probabilities, 1e-300))).sum(axis=1)
            self.entropy_line.set_data(TEMPERATURES, entropy)
            self.ax_entropy.set_ylim(0, max(np.log(len(scores)), 1e-3) * 1.05)
            self.curve_key = curve_key
        self.t_marker.set_xdata([p["temperature"], p["temperature"]])
        self.points.set_data(weights, weights * (1 - weights))
        self.fig.canvas.draw()

    def move(self, slider, step):
        """The slider's value at step `step`, as --bench-latency moves it (app/frame/frame_bench.cpp)."""
        p = self.p
        if slider == "temperature":
            p["temperature"] = 0.05 * (20 / 0.05) ** ((step % 9) / 8)
        elif slider == "score_scale":
            p["score_scale"] = 0.1 * (10 / 0.1) ** ((step % 9) / 8)
        elif slider == "d_k":
            p["d_k"] = 64 + (step + 1) % 2
        elif slider == "seq_len":
            p["seq_len"] = self.max_length - (step + 1) % 2
        elif slider == "scaled":
            p["scaled"] = not p["scaled"]
        elif slider == "row":
            p["row"] = (step * 7919 + 1) % p["seq_len"]
        elif slider == "custom_scores":
            if p["custom"] is None:  # frame_bench.cpp's custom_start
                p["custom"] = 3.0 * np.sin(0.37 * np.arange(p["seq_len"]))
            p["custom"] = p["custom"].copy()
            p["custom"][step % len(p["custom"])] += 1.0

    def reset(self):
        self.p.update(temperature=1.0, score_scale=1.0, d_k=64, seq_len=self.max_length, scaled=True, row=0,
                      custom=None)
        self.update()


def main():
    args = sys.argv[1:]
    steps = 20
    if args[:1] == ["--steps"]:
        steps = int(args[1])
        args = args[2:]
    lengths = [int(arg) for arg in args] or [16, 256, 1024, 4096]
    for length in lengths:
        figure = Figure(length)
        for slider in SLIDERS:
            figure.reset()
            times = []
            for step in range(steps):
                start = time.perf_counter()
                figure.move(slider, step)
                figure.update()
                times.append((time.perf_counter() - start) * 1e3)
            print(json.dumps({"L": length, "slider": slider, "steps": steps, "median_ms": statistics.median(times),
                              "p95_ms": percentile(times, 0.95)}), flush=True)
        plt.close(figure.fig)


if __name__ == "__main__":
    main()
