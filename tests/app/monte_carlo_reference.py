#!/usr/bin/python3
# An independent simulation of the d_k sweep's means, for the tests that hold the app's revealed
# Monte Carlo numbers against it: full q and k vectors (not the app's ‖q‖·z shortcut), NumPy's own
# generator, the textbook softmax. Prints "MEAN SE TRIALS" for one statistic of one point.
"""Usage: monte_carlo_reference.py STATISTIC SEQ_LEN D_K SCALED TEMPERATURE SCORE_SCALE TRIALS SEED

STATISTIC is entropy, max_weight or jacobian_norm; SCALED is 1 (scores ÷ √d_k) or 0.
"""

import sys

import numpy as np


def main():
    if len(sys.argv) != 9:
        print(__doc__, file=sys.stderr)
        return 2
    statistic = sys.argv[1]
    seq_len, key_dim = int(sys.argv[2]), int(sys.argv[3])
    scaled = sys.argv[4] == "1"
    temperature, score_scale = float(sys.argv[5]), float(sys.argv[6])
    trials, seed = int(sys.argv[7]), int(sys.argv[8])
    if statistic not in ("entropy", "max_weight", "jacobian_norm"):
        print(f"statistic '{statistic}': allowed entropy, max_weight, jacobian_norm", file=sys.stderr)
        return 2
    rng = np.random.default_rng(seed)
    values = []
    batch = max(1, 4_000_000 // (seq_len * key_dim))
    done = 0
    while done < trials:
        count = min(batch, trials - done)
        query = rng.standard_normal((count, key_dim))
        keys = rng.standard_normal((count, seq_len, key_dim))
        scores = np.einsum("nd,nld->nl", query, keys) * score_scale / temperature
        if scaled:
            scores /= np.sqrt(key_dim)
        scores -= scores.max(axis=1, keepdims=True)
        weights = np.exp(scores)
        weights /= weights.sum(axis=1, keepdims=True)
        if statistic == "entropy":
            logs = np.log(np.where(weights > 0, weights, 1.0))
            values.append(-(weights * logs).sum(axis=1))
        elif statistic == "max_weight":
            values.append(weights.max(axis=1))
        else:
            # ‖diag(s) − s sᵀ‖_F² = Σ_i s_i² − 2 Σ_i s_i³ + (Σ_i s_i²)²
            squares = (weights ** 2).sum(axis=1)
            values.append(np.sqrt(np.maximum(squares - 2 * (weights ** 3).sum(axis=1) + squares ** 2, 0.0)))
        done += count
    sample = np.concatenate(values)
    print(f"{sample.mean():.10g} {sample.std(ddof=1) / np.sqrt(len(sample)):.10g} {len(sample)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
