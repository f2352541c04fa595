"""Per-op overhead of dyngrad vs hand-written NumPy and (when installed) PyTorch eager CPU.

Two workloads, all measured in the same run with ``time.perf_counter`` (median of
several repeats):

* ``chain``: a 2,000-op elementwise chain on a 16-element float32 vector
  (``[mul w, add b, tanh, mul 0.5]`` repeated), forward then backward. This is pure
  framework overhead: the arithmetic itself is nanoseconds.
* ``mlp``: one training step of a 512-wide MLP (batch 64, 512 -> 512 -> 512 -> 10, ReLU,
  MSE loss): forward, backward and an SGD update.

Printed per workload: time per op for forward and backward, and the ratios
dyngrad / NumPy and dyngrad / PyTorch. Run::

    python benchmarks/overhead.py [--repeats 7]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import time

# One BLAS thread for every library, so that the comparison is per-op work and overhead,
# not thread scheduling (set before NumPy/PyTorch load their BLAS).
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

import dyngrad  # noqa: E402

try:  # the oracle extra; optional
    import torch

    torch.set_num_threads(1)
except ImportError:  # pragma: no cover
    torch = None

N_ELEM = 16
CHAIN_BLOCKS = 500  # 4 ops per block -> 2,000 ops
CHAIN_OPS = 4 * CHAIN_BLOCKS
BATCH, WIDTH, OUT = 64, 512, 10
MLP_FWD_OPS = 3 * 2 + 2 + 3  # 3 x (matmul, add) + 2 relu + (sub, pow, mean)


# =============================================================================== chain
def chain_inputs():
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N_ELEM).astype(np.float32)
    ws = rng.uniform(0.9, 1.1, (CHAIN_BLOCKS, N_ELEM)).astype(np.float32)
    bs = rng.uniform(-0.1, 0.1, (CHAIN_BLOCKS, N_ELEM)).astype(np.float32)
    return x, ws, bs


def chain_numpy(x, ws, bs):
    """Forward saving what backward needs, then the hand-written chain rule."""

    def fwd():
        y = x
        saved = []
        for w, b in zip(ws, bs):
            y = y * w
            y = y + b
            y = np.tanh(y)
            saved.append(y)
            y = y * np.float32(0.5)
        return y, saved

    def bwd(saved):
        g = np.ones(N_ELEM, dtype=np.float32)
        for w, t in zip(ws[::-1], saved[::-1]):
            g = g * np.float32(0.5)
            g = g * (1 - t * t)
            g = g * w
        return g

    return fwd, bwd


def chain_framework(lib, x, ws, bs):
    xt = lib.tensor(x, requires_grad=True)
    wt = [lib.tensor(w) for w in ws]
    bt = [lib.tensor(b) for b in bs]

    def fwd():
        y = xt
        for w, b in zip(wt, bt):
            y = y * w
            y = y + b
            y = y.tanh()
            y = y * 0.5
        return y.sum()

    def bwd(loss):
        xt.grad = None
        loss.backward()
        return xt.grad

    return fwd, bwd


def bench_interleaved(pairs: dict, repeats: int) -> dict:
    """Median forward and backward time of each ``name -> (fwd, bwd)``. The libraries
    take turns within each repeat, so a busy machine slows them alike and the ratios
    stay meaningful. Backward needs a fresh forward, so each repeat runs both."""
    times = {name: ([], []) for name in pairs}
    for fwd, bwd in pairs.values():  # warm-up
        out = fwd()
        bwd(out[1] if isinstance(out, tuple) else out)
    for _ in range(repeats):
        for name, (fwd, bwd) in pairs.items():
            t0 = time.perf_counter()
            out = fwd()
            t1 = time.perf_counter()
            bwd(out[1] if isinstance(out, tuple) else out)
            t2 = time.perf_counter()
            times[name][0].append(t1 - t0)
            times[name][1].append(t2 - t1)
    return {name: (statistics.median(f), statistics.median(b)) for name, (f, b) in times.items()}


# =============================================================================== mlp
def mlp_inputs():
    rng = np.random.default_rng(1)
    shapes = [(WIDTH, WIDTH), (WIDTH,), (WIDTH, WIDTH), (WIDTH,), (WIDTH, OUT), (OUT,)]
    params = [(rng.standard_normal(s) * 0.04).astype(np.float32) for s in shapes]
    x = rng.standard_normal((BATCH, WIDTH)).astype(np.float32)
    y = rng.standard_normal((BATCH, OUT)).astype(np.float32)
    return params, x, y


def mlp_numpy(params, x, y, lr=1e-3):
    params = [p.copy() for p in params]

    def fwd():
        w1, b1, w2, b2, w3, b3 = params
        z1 = x @ w1 + b1
        h1 = np.maximum(z1, 0)
        z2 = h1 @ w2 + b2
        h2 = np.maximum(z2, 0)
        out = h2 @ w3 + b3
        d = out - y
        loss = (d * d).mean()
        return loss, (z1, h1, z2, h2, d)

    def bwd(cache):
        z1, h1, z2, h2, d = cache
        w1, b1, w2, b2, w3, b3 = params
        g = d * (2.0 / d.size)
        gw3, gb3 = h2.T @ g, g.sum(0)
        g = (g @ w3.T) * (z2 > 0)
        gw2, gb2 = h1.T @ g, g.sum(0)
        g = (g @ w2.T) * (z1 > 0)
        gw1, gb1 = x.T @ g, g.sum(0)
        for p, gp in zip(params, (gw1, gb1, gw2, gb2, gw3, gb3)):
            p -= lr * gp

    return fwd, bwd


def mlp_framework(lib, params, x, y, lr=1e-3):
    ps = [lib.tensor(p, requires_grad=True) for p in params]
    xt, yt = lib.tensor(x), lib.tensor(y)

    def fwd():
        w1, b1, w2, b2, w3, b3 = ps
        h = (xt @ w1 + b1).relu()
        h = (h @ w2 + b2).relu()
        out = h @ w3 + b3
        return ((out - yt) ** 2).mean()

    def bwd(loss):
        loss.backward()
        with lib.no_grad():
            for p in ps:
                p -= lr * p.grad
                p.grad = None

    return fwd, bwd


# =============================================================================== main
def run(repeats: int) -> None:
    print(f"dyngrad {dyngrad.__version__}, NumPy {np.__version__}"
          + (f", PyTorch {torch.__version__} ({torch.get_num_threads()} threads)" if torch else ", PyTorch not installed"))
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"median of {repeats} repeats\n")
    rows = []

    x, ws, bs = chain_inputs()
    pairs = {"numpy": chain_numpy(x, ws, bs), "dyngrad": chain_framework(dyngrad, x, ws, bs)}
    if torch is not None:
        pairs["torch"] = chain_framework(torch, x, ws, bs)
    rows.append((f"chain ({CHAIN_OPS} ops, {N_ELEM} elems)", CHAIN_OPS, bench_interleaved(pairs, repeats)))

    params, mx, my = mlp_inputs()
    pairs = {"numpy": mlp_numpy(params, mx, my), "dyngrad": mlp_framework(dyngrad, params, mx, my)}
    if torch is not None:
        pairs["torch"] = mlp_framework(torch, params, mx, my)
    rows.append((f"mlp step (width {WIDTH}, batch {BATCH})", MLP_FWD_OPS, bench_interleaved(pairs, repeats)))

    for name, nops, res in rows:
        print(f"== {name}: {nops} forward ops")
        print(f"   {'':8s} {'fwd/op':>10s} {'bwd/op':>10s} {'fwd total':>11s} {'bwd total':>11s}")
        for lib, (f, b) in res.items():
            print(f"   {lib:8s} {f / nops * 1e6:8.2f}us {b / nops * 1e6:8.2f}us {f * 1e3:9.2f}ms {b * 1e3:9.2f}ms")
        df, db = res["dyngrad"]
        for ref in ("numpy", "torch"):
            if ref in res:
                rf, rb = res[ref]
                print(f"   dyngrad / {ref:5s}: forward {df / rf:6.2f}x  backward {db / rb:6.2f}x  "
                      f"total {(df + db) / (rf + rb):6.2f}x")
        print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=15)
    run(ap.parse_args().repeats)


if __name__ == "__main__":
    main()
