"""Per-example gradients with ``vmap``: dyngrad's batched vmap vs a Python loop over the
examples (same run), and vs PyTorch's ``torch.func.vmap`` when torch is installed.

The workload is the classic use of vmap: the gradient of a 2-layer MLP's loss w.r.t. its
parameters, once per example (``vmap(grad(loss), in_dims=(None, 0, 0))``), as in DP-SGD
or per-example gradient-norm diagnostics. Sizes: 64 inputs, 128 hidden, 10 classes, a
batch of 256 examples, float32. Also times a Jacobian (``jacrev`` of a 64 -> 64 map, which
runs one batched backward pass) against the loop of vjps it replaces.

Prints the best of ``--repeat`` timings (seconds) and the ratios. Run:
``python benchmarks/vmap.py [--repeat 5] [--threads 1]``.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

rng = np.random.default_rng(0)
N, D, H, C = 256, 64, 128, 10
X = rng.standard_normal((N, D)).astype(np.float32)
Y = rng.integers(0, C, N)
P = [rng.standard_normal((D, H)).astype(np.float32) * 0.1, np.zeros(H, np.float32),
     rng.standard_normal((H, C)).astype(np.float32) * 0.1, np.zeros(C, np.float32)]


def best(fn: Callable, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def make_loss(lib: Any) -> Callable:
    F = lib.nn.functional

    def loss(params: tuple, x: Any, y: Any) -> Any:
        w1, b1, w2, b2 = params
        h = (x @ w1 + b1).relu()
        return F.cross_entropy((h @ w2 + b2).unsqueeze(0), y.unsqueeze(0))

    return loss


def run_dyngrad(repeat: int) -> dict:
    import dyngrad
    from dyngrad.func import grad, jacrev, vmap

    loss = make_loss(dyngrad)
    params = tuple(dyngrad.tensor(p) for p in P)
    xs, ys = dyngrad.tensor(X), dyngrad.tensor(Y)
    per_example = vmap(grad(loss), in_dims=(None, 0, 0))
    g = grad(loss)

    def loop() -> list:
        return [g(params, xs[i], ys[i]) for i in range(N)]

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a loop fallback would make the comparison meaningless
        batched = per_example(params, xs, ys)
    looped = loop()
    for j in range(4):
        np.testing.assert_allclose(batched[j]._data, np.stack([r[j]._data for r in looped]), rtol=1e-4, atol=1e-6)
    A = dyngrad.tensor(rng.standard_normal((D, D)).astype(np.float32))
    f = lambda v: (A @ v).tanh() * v  # noqa: E731
    v0 = dyngrad.tensor(X[0])

    def jac_loop() -> Any:
        return dyngrad.autograd.functional.jacobian(f, v0)

    np.testing.assert_allclose(jacrev(f)(v0)._data, jac_loop()._data, rtol=1e-5, atol=1e-6)
    return {
        "vmap": best(lambda: per_example(params, xs, ys), repeat),
        "loop": best(loop, max(1, repeat // 2)),
        "jacrev": best(lambda: jacrev(f)(v0), repeat),
        "jac_loop": best(jac_loop, repeat),
    }


def run_torch(repeat: int) -> dict | None:
    try:
        import torch
    except ImportError:
        return None
    from torch.func import grad, jacrev, vmap

    loss = make_loss(torch)
    params = tuple(torch.tensor(p) for p in P)
    xs, ys = torch.tensor(X), torch.tensor(Y)
    per_example = vmap(grad(loss), in_dims=(None, 0, 0))
    A = torch.tensor(rng.standard_normal((D, D)).astype(np.float32))
    f = lambda v: (A @ v).tanh() * v  # noqa: E731
    v0 = torch.tensor(X[0])
    return {"vmap": best(lambda: per_example(params, xs, ys), repeat), "jacrev": best(lambda: jacrev(f)(v0), repeat)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--threads", type=int, default=1)
    args = ap.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    d = run_dyngrad(args.repeat)
    t = run_torch(args.repeat)
    print(f"per-example gradients, MLP {D}-{H}-{C}, {N} examples, float32, {args.threads} thread(s)")
    print(f"  dyngrad vmap(grad)          {d['vmap'] * 1e3:8.2f} ms")
    print(f"  dyngrad loop of grad        {d['loop'] * 1e3:8.2f} ms   loop / vmap = {d['loop'] / d['vmap']:.1f}x")
    if t:
        print(f"  torch.func vmap(grad)       {t['vmap'] * 1e3:8.2f} ms   dyngrad / torch = {d['vmap'] / t['vmap']:.2f}x")
    print(f"jacobian of a {D} -> {D} map")
    print(f"  dyngrad func.jacrev         {d['jacrev'] * 1e3:8.2f} ms")
    print(f"  dyngrad loop of vjps        {d['jac_loop'] * 1e3:8.2f} ms   loop / jacrev = {d['jac_loop'] / d['jacrev']:.1f}x")
    if t:
        print(f"  torch.func.jacrev           {t['jacrev'] * 1e3:8.2f} ms   dyngrad / torch = {d['jacrev'] / t['jacrev']:.2f}x")


if __name__ == "__main__":
    main()
