#!/usr/bin/python3
# Builds the example attention data softmax-lab --import reads: Q, K, V of one short sentence from
# a fixed, seeded embedding and projections (no downloads). Run: /usr/bin/python3 make_example.py
import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOKENS = ["The", "cat", "sat", "on", "the", "mat", "because", "it", "was", "tired", "."]
HEADS, D_HEAD = 2, 16
D_MODEL = HEADS * D_HEAD


def sinusoidal(positions, dim):
    """PE(pos, 2i) = sin(pos / 10000^(2i/dim)), PE(pos, 2i+1) = cos(...) (Vaswani et al. 2017)."""
    pe = np.zeros((positions, dim))
    for pos in range(positions):
        for i in range(0, dim, 2):
            angle = pos / 10000 ** (i / dim)
            pe[pos, i] = np.sin(angle)
            pe[pos, i + 1] = np.cos(angle)
    return pe


def main():
    rng = np.random.default_rng(20240607)
    # One embedding per lower-cased word, so "The" and "the" share theirs.
    vocabulary = sorted({t.lower() for t in TOKENS})
    table = {word: rng.standard_normal(D_MODEL) for word in vocabulary}
    x = np.stack([table[t.lower()] for t in TOKENS]) + 0.5 * sinusoidal(len(TOKENS), D_MODEL)
    w_q, w_k, w_v = (rng.standard_normal((D_MODEL, D_MODEL)) / np.sqrt(D_MODEL) for _ in range(3))

    def heads(m):  # [L, D_MODEL] -> [H, L, D_HEAD]
        return m.reshape(len(TOKENS), HEADS, D_HEAD).transpose(1, 0, 2)

    q, k, v = heads(x @ w_q), heads(x @ w_k), heads(x @ w_v)
    # Head 1 looks one token back, as "previous-token heads" do: q_i = 4 e_i and k_j = 4 e_(j+1),
    # so q_i . k_j = 16 exactly when j = i - 1 (plus a little noise).
    eye = np.eye(D_HEAD)
    q[1] = 4.0 * eye[: len(TOKENS)] + 0.1 * rng.standard_normal((len(TOKENS), D_HEAD))
    k[1] = 4.0 * eye[1 : len(TOKENS) + 1] + 0.1 * rng.standard_normal((len(TOKENS), D_HEAD))
    np.savez(os.path.join(HERE, "qkv.npz"), q=q.astype(np.float32), k=k.astype(np.float32), v=v.astype(np.float32))
    with open(os.path.join(HERE, "tokens.txt"), "w", encoding="utf-8") as out:
        out.write("\n".join(TOKENS) + "\n")
    with open(os.path.join(HERE, "tokens-zh.json"), "w", encoding="utf-8") as out:
        json.dump(["那只", "猫", "坐", "在", "那张", "垫子", "因为", "它", "很", "累", "。"], out, ensure_ascii=False)
    print("wrote qkv.npz (q, k, v: [%d, %d, %d] float32), tokens.txt, tokens-zh.json" % (HEADS, len(TOKENS), D_HEAD))


if __name__ == "__main__":
    main()
