"""One training step of a character-level LSTM language model (Embedding(65, 32) ->
LSTM(32, 128) -> Linear(128, 65), sequence 35, batch 16, float32, cross-entropy, SGD):
dyngrad against PyTorch CPU (if installed), same weights, same data, interleaved.

Usage: ``python benchmarks/lstm_step.py [--steps 15] [--warmup 3] [--threads 1]``. Prints
the median ms/step of each and the ratio dyngrad/PyTorch (quartiles of per-round ratios).
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from _contenders import contenders

V, E, H, T, B = 65, 32, 128, 35, 16


def build(lib, seed=0):
    """The model in ``lib`` (dyngrad or torch) with the same weights."""
    m = lib.nn.ModuleDict({"emb": lib.nn.Embedding(V, E), "lstm": lib.nn.LSTM(E, H), "out": lib.nn.Linear(H, V)})
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for _, p in m.named_parameters():
            p.copy_(lib.tensor(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
    return m


def step(lib, m, opt, x, y):
    opt.zero_grad()
    h, _ = m["lstm"](m["emb"](x))
    loss = lib.nn.functional.cross_entropy(m["out"](h).reshape(T * B, V), y.reshape(-1))
    loss.backward()
    opt.step()
    return loss.item()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    xs, ys = rng.integers(0, V, (T, B)), rng.integers(0, V, (T, B))
    libs = contenders(a.threads)
    state = {}
    for name, lib in libs:
        m = build(lib)
        opt = lib.optim.SGD(m.parameters(), lr=0.5)
        state[name] = (lib, m, opt, lib.tensor(xs), lib.tensor(ys))
    times: dict[str, list[float]] = {n: [] for n, _ in libs}
    losses: dict[str, list[float]] = {n: [] for n, _ in libs}
    for i in range(a.warmup + a.steps):
        for name, _ in libs:  # interleaved
            lib, m, opt, x, y = state[name]
            t0 = time.perf_counter()
            losses[name].append(step(lib, m, opt, x, y))
            if i >= a.warmup:
                times[name].append(time.perf_counter() - t0)
    for name, _ in libs:
        print(f"{name:8s} {1e3 * statistics.median(times[name]):8.1f} ms/step   loss {losses[name][0]:.4f} -> {losses[name][-1]:.4f}")
    if "torch" in times:
        r = sorted(d / t for d, t in zip(times["dyngrad"], times["torch"]))
        q = statistics.quantiles(r, n=4)
        print(f"dyngrad/torch: median {statistics.median(r):.2f}x (quartiles {q[0]:.2f}-{q[2]:.2f})")
        print(f"max |loss difference| over the run: {max(abs(p - q) for p, q in zip(losses['dyngrad'], losses['torch'])):.2e}")


if __name__ == "__main__":
    main()
