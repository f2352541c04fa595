"""Per-example gradients with ``vmap``: dyngrad's batched vmap vs a Python loop over the
examples (same run), and vs PyTorch's ``torch.func.vmap`` when torch is installed.

The workload is the classic use of vmap: the gradient of a 2-layer MLP's loss w.r.t. its
parameters, once per example (``vmap(grad(loss), in_dims=(None, 0, 0))``), as in DP-SGD
or per-example gradient-norm diagnostics. Sizes: 64 inputs, 128 hidden, 10 classes, a
batch of 256 examples, float32. Also times a Jacobian (``jacrev`` of a 64 -> 64 map, which
runs one batched backward pass) against the loop of vjps it replaces.

Times every contender round-robin (one call of each per round, so that load from other
processes hits all alike) and prints the medians and the ratios. Run:
``python benchmarks/vmap.py [--repeat 41] [--threads 1]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
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


CLOCK = time.perf_counter  # main() sets time.process_time for --clock cpu
RATIOS: list[float] = []  # per-round dyngrad / torch.func vmap times of the last round_robin


def round_robin(fns: dict[str, Callable], repeat: int) -> dict[str, float]:
    """Median seconds per call of each function, timed round-robin after one warm-up call
    (the per-round ratios of ``d_vmap`` to ``t_vmap`` go to ``RATIOS``)."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(repeat):
        for k, fn in fns.items():
            t = CLOCK()
            fn()
            times[k].append(CLOCK() - t)
    if "d_vmap" in times and "t_vmap" in times:
        RATIOS[:] = [a / b for a, b in zip(times["d_vmap"], times["t_vmap"])]
    return {k: statistics.median(v) for k, v in times.items()}


def make_loss(lib: Any) -> Callable:
    F = lib.nn.functional

    def loss(params: tuple, x: Any, y: Any) -> Any:
        w1, b1, w2, b2 = params
        h = (x @ w1 + b1).relu()
        return F.cross_entropy((h @ w2 + b2).unsqueeze(0), y.unsqueeze(0))

    return loss


def dyngrad_fns() -> dict[str, Callable]:
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
    return {"vmap": lambda: per_example(params, xs, ys), "jacrev": lambda: jacrev(f)(v0), "jac_loop": jac_loop,
            "loop": loop}


def torch_fns() -> dict[str, Callable]:
    try:
        import torch
    except ImportError:
        return {}
    from torch.func import grad, jacrev, vmap

    loss = make_loss(torch)
    params = tuple(torch.tensor(p) for p in P)
    xs, ys = torch.tensor(X), torch.tensor(Y)
    per_example = vmap(grad(loss), in_dims=(None, 0, 0))
    A = torch.tensor(rng.standard_normal((D, D)).astype(np.float32))
    f = lambda v: (A @ v).tanh() * v  # noqa: E731
    v0 = torch.tensor(X[0])
    return {"vmap": lambda: per_example(params, xs, ys), "jacrev": lambda: jacrev(f)(v0)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=41)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: process CPU time (steadier on a shared machine; single-threaded runs only)")
    args = ap.parse_args()
    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    os.environ.setdefault("OMP_NUM_THREADS", str(args.threads))
    try:
        import torch

        torch.set_num_threads(args.threads)
    except ImportError:
        pass
    dfns, tfns = dyngrad_fns(), torch_fns()
    loop = dfns.pop("loop")
    fns = {**{"d_" + k: v for k, v in dfns.items()}, **{"t_" + k: v for k, v in tfns.items()}}
    m = round_robin(fns, args.repeat)
    d = {k[2:]: v for k, v in m.items() if k.startswith("d_")}
    t = {k[2:]: v for k, v in m.items() if k.startswith("t_")}
    d["loop"] = round_robin({"loop": loop}, max(1, args.repeat // 10))["loop"]
    print(f"per-example gradients, MLP {D}-{H}-{C}, {N} examples, float32, {args.threads} thread(s); "
          f"medians of {args.repeat} round-robin calls")
    print(f"  dyngrad vmap(grad)          {d['vmap'] * 1e3:8.2f} ms")
    print(f"  dyngrad loop of grad        {d['loop'] * 1e3:8.2f} ms   loop / vmap = {d['loop'] / d['vmap']:.1f}x")
    if t:
        q = statistics.quantiles(RATIOS, n=4)
        print(f"  torch.func vmap(grad)       {t['vmap'] * 1e3:8.2f} ms   dyngrad / torch = {d['vmap'] / t['vmap']:.2f}x "
              f"(per-round quartiles {q[0]:.2f} / {q[1]:.2f} / {q[2]:.2f}; {args.clock} clock)")
    print(f"jacobian of a {D} -> {D} map")
    print(f"  dyngrad func.jacrev         {d['jacrev'] * 1e3:8.2f} ms")
    print(f"  dyngrad loop of vjps        {d['jac_loop'] * 1e3:8.2f} ms   loop / jacrev = {d['jac_loop'] / d['jacrev']:.1f}x")
    if t:
        print(f"  torch.func.jacrev           {t['jacrev'] * 1e3:8.2f} ms   dyngrad / torch = {d['jacrev'] / t['jacrev']:.2f}x")


if __name__ == "__main__":
    main()
