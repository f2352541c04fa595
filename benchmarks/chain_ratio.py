"""The chain of ``benchmarks/overhead.py`` against PyTorch eager, as quartiles of per-repeat
ratios, and the backward of a 100,000-op chain.

Each repeat runs dyngrad and PyTorch back to back (interleaved), so a busy machine slows
both alike; the ratio of each repeat is kept and the quartiles of the ratios are printed
(forward, backward, total). The long chain (``--long``, default 100,000 ops) is built once
per repeat per library and only its backward is timed. Run::

    python benchmarks/chain_ratio.py [--repeats 21] [--long 100000] [--long-repeats 5]

Requires PyTorch (the oracle extra).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

import dyngrad  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from overhead import chain_framework, chain_inputs  # noqa: E402

torch.set_num_threads(1)


def _quartiles(xs: list) -> tuple:
    q = statistics.quantiles(xs, n=4)
    return q[0], statistics.median(xs), q[2]


def chain(repeats: int) -> dict:
    x, ws, bs = chain_inputs()
    pairs = {"dyngrad": chain_framework(dyngrad, x, ws, bs), "torch": chain_framework(torch, x, ws, bs)}
    for fwd, bwd in pairs.values():
        bwd(fwd())
    ratios: dict = {"forward": [], "backward": [], "total": []}
    for _ in range(repeats):
        t = {}
        for name, (fwd, bwd) in pairs.items():
            t0 = time.perf_counter()
            loss = fwd()
            t1 = time.perf_counter()
            bwd(loss)
            t2 = time.perf_counter()
            t[name] = (t1 - t0, t2 - t1)
        d, r = t["dyngrad"], t["torch"]
        ratios["forward"].append(d[0] / r[0])
        ratios["backward"].append(d[1] / r[1])
        ratios["total"].append((d[0] + d[1]) / (r[0] + r[1]))
    return {k: _quartiles(v) for k, v in ratios.items()}


def long_backward(n_ops: int, repeats: int) -> tuple:
    rng = np.random.default_rng(0)
    ratios = []
    for _ in range(repeats):
        t = {}
        for name, lib in (("dyngrad", dyngrad), ("torch", torch)):
            x = lib.tensor(rng.standard_normal(16), requires_grad=True)
            y = x
            for _ in range(n_ops // 2):
                y = y * 1.0001
                y = y + 0.001
            loss = y.sum()
            t0 = time.perf_counter()
            loss.backward()
            t[name] = time.perf_counter() - t0
            del y, loss
        ratios.append(t["dyngrad"] / t["torch"])
    return _quartiles(ratios) if len(ratios) >= 2 else (ratios[0],) * 3


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeats", type=int, default=21)
    ap.add_argument("--long", type=int, default=100_000)
    ap.add_argument("--long-repeats", type=int, default=5)
    a = ap.parse_args()
    print(f"dyngrad {dyngrad.__version__}, PyTorch {torch.__version__}, NumPy {np.__version__}")
    res = chain(a.repeats)
    print(f"chain (overhead.py, 2000 ops, 16 float32), dyngrad / torch, quartiles of {a.repeats} interleaved repeats:")
    for k, (q1, q2, q3) in res.items():
        print(f"  {k:9s} {q1:5.2f}x  {q2:5.2f}x  {q3:5.2f}x")
    q1, q2, q3 = long_backward(a.long, a.long_repeats)
    print(f"{a.long}-op chain (mul, add; 16 float64) backward, dyngrad / torch: {q1:5.2f}x  {q2:5.2f}x  {q3:5.2f}x")


if __name__ == "__main__":
    main()
