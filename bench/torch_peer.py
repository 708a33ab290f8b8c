#!/usr/bin/python3
"""PyTorch peer of the training lab's default task (bench/train_peer.sh runs it beside the app).

The recall task as docs/TRAINING.md describes it: L - 1 pairs (key, value) and a query key with the
mark '?'; the two channels' embeddings summed with sinusoidal positions; one attention layer with
one head whose query is the last position (the only row a target reads, the rows the app computes
in fp32 with a stable softmax), a residual and a linear readout; cross-entropy on the query's
answer; Adam (lr 3e-3, betas 0.9/0.999, eps 1e-8). fp32, eager, CPU, one thread, the way a notebook
trains it. Every batch is made before the clock starts, so only the steps are timed.

Usage: torch_peer.py D_K SEQ_LEN [SECONDS]. Prints one JSON object: the settings, steps, seconds,
steps_per_second and the last loss (which must fall: a peer that does not learn measures nothing).
"""
import json
import math
import os
import sys
import time

# One thread, as the app's side is measured: Debian's PyTorch multiplies through OpenBLAS, whose own
# threads (not torch.set_num_threads) otherwise contend with it, at 1/4 to 1/9 of the single-thread
# rate on this 2-core machine.
os.environ["OPENBLAS_NUM_THREADS"] = "1"
os.environ["OMP_NUM_THREADS"] = "1"

import torch  # noqa: E402  (after the thread settings, which it reads when loaded)


def sinusoid(length, width):
    position = torch.arange(length, dtype=torch.float32)[:, None]
    index = torch.arange(width, dtype=torch.float32)[None, :]
    angle = position / torch.pow(10000.0, (2 * torch.div(index, 2, rounding_mode="floor")) / width)
    return torch.where(index.long() % 2 == 0, torch.sin(angle), torch.cos(angle))


def make_batches(count, batch, length, vocab, generator):
    """Recall examples: distinct keys, random values, a query that is one of the keys."""
    pairs = length - 1
    keys = torch.argsort(torch.rand(count, batch, vocab, generator=generator), dim=-1)[..., :pairs]
    values = torch.randint(0, vocab, (count, batch, pairs), generator=generator)
    pick = torch.randint(0, pairs, (count, batch, 1), generator=generator)
    query = torch.gather(keys, 2, pick)
    answer = torch.gather(values, 2, pick).squeeze(-1)
    key_channel = torch.cat([keys, query], dim=2)
    value_channel = torch.cat([values, torch.full((count, batch, 1), vocab)], dim=2)  # '?' is symbol V
    return key_channel, value_channel, answer


def main():
    d_k = int(sys.argv[1])
    length = int(sys.argv[2])
    seconds = float(sys.argv[3]) if len(sys.argv) > 3 else 3.0
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    vocab = max(16, length - 1)  # the app raises vocab to L - 1 for recall
    width, batch = 32, 32  # D, and the default batch
    d_v = width  # one head: d_v = D / H
    generator = torch.Generator().manual_seed(1)

    def normal(*shape, std):
        return (torch.randn(*shape, generator=generator) * std).requires_grad_()

    params = {
        "key_embedding": normal(vocab, width, std=1.0),
        "value_embedding": normal(vocab + 1, width, std=1.0),
        "w_q": normal(width, d_k, std=1.0 / math.sqrt(width)),
        "w_k": normal(width, d_k, std=1.0 / math.sqrt(width)),
        "w_v": normal(width, d_v, std=1.0 / math.sqrt(width)),
        "w_o": normal(d_v, width, std=1.0 / math.sqrt(d_v)),
        "w_r": normal(width, vocab, std=1.0 / math.sqrt(width)),
        "b_r": torch.zeros(vocab, requires_grad=True),
    }
    positions = sinusoid(length, width)
    optimizer = torch.optim.Adam(params.values(), lr=3e-3, betas=(0.9, 0.999), eps=1e-8)
    scale = 1.0 / math.sqrt(d_k)

    def step(key_channel, value_channel, answer):
        x = params["key_embedding"][key_channel] + params["value_embedding"][value_channel] + positions
        q = x[:, -1] @ params["w_q"]  # the query row only
        k = x @ params["w_k"]
        v = x @ params["w_v"]
        weights = torch.softmax(torch.einsum("bd,bld->bl", q, k) * scale, dim=-1)
        out = torch.einsum("bl,bld->bd", weights, v) @ params["w_o"]
        logits = (x[:, -1] + out) @ params["w_r"] + params["b_r"]
        loss = torch.nn.functional.cross_entropy(logits, answer)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        return loss

    # Enough batches for the timed seconds at any plausible rate, made first.
    count = 4000 if d_k <= 64 and length <= 16 else 600
    keys, values, answers = make_batches(count, batch, length, vocab, generator)
    first = step(keys[0], values[0], answers[0]).item()
    for warm in range(1, 20):
        step(keys[warm], values[warm], answers[warm])
    steps = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds and 20 + steps < count:
        loss = step(keys[20 + steps], values[20 + steps], answers[20 + steps])
        steps += 1
    elapsed = time.perf_counter() - start
    print(json.dumps({"peer": "pytorch " + torch.__version__, "d_k": d_k, "seq_len": length, "vocab": vocab,
                      "batch": batch, "threads": torch.get_num_threads(), "steps": steps, "seconds": elapsed,
                      "steps_per_second": steps / elapsed, "first_loss": first, "last_loss": loss.item()}))


if __name__ == "__main__":
    main()
