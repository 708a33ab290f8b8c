#!/usr/bin/python3
# Writes seeded Q and K of a long context for the import benchmark: OUTDIR/long-L.npz with
# q, k of shape [L, d] float32 (N(0, 1) entries). Run: /usr/bin/python3 make_long_context.py OUTDIR L [d]
import os
import sys

import numpy as np


def main(out, length, dim):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(length)
    q = rng.standard_normal((length, dim), dtype=np.float32)
    k = rng.standard_normal((length, dim), dtype=np.float32)
    path = os.path.join(out, "long-%d.npz" % length)
    np.savez(path, q=q, k=k)
    print(path)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]) if len(sys.argv) > 3 else 128)
