"""One training step of a small decoder-only transformer language model (Embedding(65, 64) +
positional Embedding(64, 64) -> TransformerEncoder of 2 pre-norm layers (d_model 64, 4 heads,
feed-forward 256, GELU, dropout 0, causal mask) -> LayerNorm -> Linear(64, 65); sequence 64,
batch 16, float32, cross-entropy, AdamW): dyngrad against PyTorch CPU (if installed), same
weights, same data, interleaved.

Usage: ``python benchmarks/transformer_step.py [--steps 15] [--warmup 3] [--threads 1]
[--activation gelu|gelu_tanh|relu] [--profile]``. Prints the median ms/step of each and the
ratio dyngrad/PyTorch (quartiles of per-round ratios); ``--profile`` then prints cProfile's top
functions of 5 dyngrad steps.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import statistics
import time

import numpy as np
from _contenders import contenders

V, D, NH, FF, L, T, B = 65, 64, 4, 256, 2, 64, 16


def build(lib, activation="gelu", seed=0):
    """The model in ``lib`` (dyngrad or torch) with the same weights (LayerNorms at 1 and 0)."""
    if activation == "gelu_tanh":
        def activation(x):
            return lib.nn.functional.gelu(x, approximate="tanh")
    layer = lib.nn.TransformerEncoderLayer(D, NH, FF, 0.0, activation=activation, batch_first=True, norm_first=True)
    m = lib.nn.ModuleDict({
        "tok": lib.nn.Embedding(V, D), "pos": lib.nn.Embedding(T, D),
        "enc": lib.nn.TransformerEncoder(layer, L, norm=lib.nn.LayerNorm(D), enable_nested_tensor=False),
        "out": lib.nn.Linear(D, V),
    })
    rng = np.random.default_rng(seed)
    with lib.no_grad():
        for name, p in m.named_parameters():
            if "norm" in name:
                p.fill_(1.0 if name.endswith("weight") else 0.0)
            else:
                p.copy_(lib.tensor(rng.uniform(-0.1, 0.1, tuple(p.shape)).astype(np.float32)))
    return m


def step(lib, m, opt, x, y, mask, pos):
    opt.zero_grad()
    h = m["enc"](m["tok"](x) + m["pos"](pos), mask=mask, is_causal=True)
    loss = lib.nn.functional.cross_entropy(m["out"](h).reshape(B * T, V), y.reshape(-1))
    loss.backward()
    opt.step()
    return loss.item()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--activation", default="gelu", choices=["gelu", "gelu_tanh", "relu"],
                    help="the feed-forward activation (gelu: erf form, PyTorch's default gelu)")
    ap.add_argument("--profile", action="store_true", help="then cProfile 5 dyngrad steps")
    a = ap.parse_args()
    rng = np.random.default_rng(1)
    xs, ys = rng.integers(0, V, (B, T)), rng.integers(0, V, (B, T))
    libs = contenders(a.threads)
    state = {}
    for name, lib in libs:
        m = build(lib, a.activation)
        opt = lib.optim.AdamW(m.parameters(), lr=1e-3)
        mask = lib.nn.Transformer.generate_square_subsequent_mask(T)
        state[name] = (lib, m, opt, lib.tensor(xs), lib.tensor(ys), mask, lib.arange(T))
    times: dict[str, list[float]] = {n: [] for n, _ in libs}
    losses: dict[str, list[float]] = {n: [] for n, _ in libs}
    for i in range(a.warmup + a.steps):
        for name, _ in libs:  # interleaved
            t0 = time.perf_counter()
            losses[name].append(step(*state[name]))
            if i >= a.warmup:
                times[name].append(time.perf_counter() - t0)
    print(f"activation {a.activation}, {a.steps} steps after {a.warmup} warm-up steps")
    for name, _ in libs:
        print(f"{name:8s} {1e3 * statistics.median(times[name]):8.1f} ms/step   loss {losses[name][0]:.4f} -> {losses[name][-1]:.4f}")
    if "torch" in times:
        r = sorted(d / t for d, t in zip(times["dyngrad"], times["torch"]))
        q = statistics.quantiles(r, n=4)
        print(f"dyngrad/torch: median {statistics.median(r):.2f}x (quartiles {q[0]:.2f}-{q[2]:.2f})")
        print(f"max |loss difference| over the run: {max(abs(p - q) for p, q in zip(losses['dyngrad'], losses['torch'])):.2e}")
    if a.profile:
        prof = cProfile.Profile()
        prof.enable()
        for _ in range(5):
            step(*state["dyngrad"])
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
