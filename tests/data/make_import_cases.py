#!/usr/bin/python3
# Writes the files the import tests read (every dtype, byte order, memory order and shape, as
# NumPy itself saves them) and NumPy's own softmax of each as the reference: OUTDIR/cases.json.
# Run by tests/app/import_test.cpp: /usr/bin/python3 make_import_cases.py OUTDIR
import json
import os
import sys

import numpy as np


def softmax(x):
    """Row-wise stable softmax in float64 (max subtracted; -inf gives weight 0)."""
    x = np.asarray(x, dtype=np.float64)
    m = np.max(x, axis=-1, keepdims=True)
    e = np.exp(x - m)
    return e / np.sum(e, axis=-1, keepdims=True)


def save(path, array, order):
    # np.save writes Fortran-ordered arrays with fortran_order: True.
    np.save(path, np.asfortranarray(array) if order == "F" else np.ascontiguousarray(array))


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(7)
    cases = []
    shapes = {"2d": (9, 8), "3d": (3, 9, 8), "4d": (2, 3, 9, 8)}
    n = 0
    for dtype in ("f2", "f4", "f8"):
        for endian in ("<", ">"):
            for order in ("C", "F"):
                for shape_name, shape in shapes.items():
                    n += 1
                    name = "qk-%s%s-%s-%s" % ("le" if endian == "<" else "be", dtype, order, shape_name)
                    dt = np.dtype(endian + dtype)
                    q = rng.standard_normal(shape).astype(dt)
                    k = rng.standard_normal(shape).astype(dt)
                    batch = shape[0] - 1 if len(shape) == 4 else 0
                    head = shape[-3] - 1 if len(shape) >= 3 else 0
                    row, temperature, scale = 4, 0.7, 1.5
                    qs = q.astype(np.float64)
                    ks = k.astype(np.float64)
                    if len(shape) == 4:
                        qs, ks = qs[batch, head], ks[batch, head]
                    elif len(shape) == 3:
                        qs, ks = qs[head], ks[head]
                    raw = qs @ ks.T
                    d = shape[-1]
                    # One case in three is an .npz (stored or deflated), the rest two .npy files.
                    if n % 3 == 0:
                        files = [name + ".npz"]
                        saver = np.savez_compressed if n % 2 == 0 else np.savez
                        saver(os.path.join(out, name + ".npz"), q=np.asfortranarray(q) if order == "F" else q,
                              k=np.asfortranarray(k) if order == "F" else k)
                    else:
                        files = [name + "-q.npy:Q", name + "-k.npy:K"]
                        save(os.path.join(out, name + "-q.npy"), q, order)
                        save(os.path.join(out, name + "-k.npy"), k, order)
                    cases.append({
                        "name": name, "imports": files, "batch": batch, "head": head, "row": row,
                        "temperature": temperature, "score_scale": scale, "causal": n % 4 == 0,
                        "length": shape[-2],
                        "scaled_map": softmax(np.where(np.triu(np.ones_like(raw), 1) > 0, -np.inf, raw) * scale / np.sqrt(d) / temperature
                                              if n % 4 == 0 else raw * scale / np.sqrt(d) / temperature).tolist(),
                        "unscaled_map": softmax(np.where(np.triu(np.ones_like(raw), 1) > 0, -np.inf, raw) * scale / temperature
                                                if n % 4 == 0 else raw * scale / temperature).tolist(),
                    })
    # Scores [L, L] (big-endian float64, Fortran order), weights [H, L, L] (float32), scores as CSV.
    scores = rng.standard_normal((7, 7)) * 3.0
    save(os.path.join(out, "scores-be.npy"), scores.astype(">f8"), "F")
    cases.append({"name": "scores-be-f8-F", "imports": ["scores-be.npy:scores"], "batch": 0, "head": 0, "row": 2,
                  "temperature": 2.0, "score_scale": 1.0, "causal": False, "length": 7,
                  "scaled_map": softmax(scores / 2.0).tolist(), "unscaled_map": softmax(scores / 2.0).tolist()})
    weights = softmax(rng.standard_normal((2, 6, 6)) * 2.0).astype(np.float32)
    np.savez(os.path.join(out, "attn.npz"), attn=weights)
    w = weights[1].astype(np.float64)
    cases.append({"name": "weights-f4-3d", "imports": ["attn.npz"], "batch": 0, "head": 1, "row": 3,
                  "temperature": 0.5, "score_scale": 1.0, "causal": False, "length": 6,
                  "scaled_map": softmax(np.log(w) / 0.5).tolist(), "unscaled_map": softmax(np.log(w) / 0.5).tolist()})
    csv_scores = np.round(rng.standard_normal((5, 5)) * 2.0, 3)
    with open(os.path.join(out, "scores.csv"), "w") as f:
        f.write(",".join("key_%d" % j for j in range(5)) + "\n")
        for r in csv_scores:
            f.write(",".join(repr(float(x)) for x in r) + "\n")
    cases.append({"name": "scores-csv", "imports": ["scores.csv:scores"], "batch": 0, "head": 0, "row": 1,
                  "temperature": 1.0, "score_scale": 2.0, "causal": False, "length": 5,
                  "scaled_map": softmax(csv_scores.astype(np.float32).astype(np.float64) * 2.0).tolist(),
                  "unscaled_map": softmax(csv_scores.astype(np.float32).astype(np.float64) * 2.0).tolist()})
    with open(os.path.join(out, "cases.json"), "w") as f:
        json.dump(cases, f)
    print(len(cases), "cases")


if __name__ == "__main__":
    main(sys.argv[1])
