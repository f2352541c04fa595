"""One SGD training step of a 784-512-512-10 MLP (batch 256, float32): dyngrad
(nn.Linear + ReLU + cross_entropy + optim.SGD) against the same step hand-written in NumPy
and against PyTorch CPU (if installed), all measured in the same run.

Usage: ``python benchmarks/mlp_step.py [--steps 30] [--warmup 5] [--threads N]``. Prints the median
ms/step of each and the ratios dyngrad/NumPy and torch/NumPy.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import dyngrad
from dyngrad import nn, optim

SIZES = (784, 512, 512, 10)
BATCH, LR = 256, 0.01


def init(seed: int = 0) -> list[np.ndarray]:
    """PyTorch's default Linear init, float32: [W1, b1, W2, b2, W3, b3]."""
    rng = np.random.default_rng(seed)
    ps = []
    for a, b in zip(SIZES[:-1], SIZES[1:]):
        bound = 1 / np.sqrt(a)
        ps += [rng.uniform(-bound, bound, (b, a)).astype(np.float32), rng.uniform(-bound, bound, b).astype(np.float32)]
    return ps


def numpy_step(ps: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> float:
    """Forward, cross-entropy, hand-derived backward and SGD update, in place."""
    W1, b1, W2, b2, W3, b3 = ps
    h1 = x @ W1.T + b1
    a1 = np.maximum(h1, 0)
    h2 = a1 @ W2.T + b2
    a2 = np.maximum(h2, 0)
    z = a2 @ W3.T + b3
    z = z - z.max(1, keepdims=True)
    e = np.exp(z)
    s = e.sum(1, keepdims=True)
    n = np.arange(len(y))
    loss = float(np.log(s[:, 0]).mean() - z[n, y].mean())
    dz = e / s
    dz[n, y] -= 1
    dz /= len(y)
    dW3, db3 = dz.T @ a2, dz.sum(0)
    dh2 = (dz @ W3) * (h2 > 0)
    dW2, db2 = dh2.T @ a1, dh2.sum(0)
    dh1 = (dh2 @ W2) * (h1 > 0)
    dW1, db1 = dh1.T @ x, dh1.sum(0)
    for p, g in zip(ps, (dW1, db1, dW2, db2, dW3, db3)):
        p -= LR * g
    return loss


def dyngrad_setup(ps: list[np.ndarray]) -> tuple[Callable, Callable]:
    model = nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))
    with dyngrad.no_grad():
        for p, v in zip(model.parameters(), ps):
            p._data[...] = v
    opt = optim.SGD(model.parameters(), lr=LR)

    def step(x: dyngrad.Tensor, y: dyngrad.Tensor) -> float:
        opt.zero_grad()
        loss = nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step, model


def torch_setup(ps: list[np.ndarray]):  # noqa: ANN201
    import torch

    model = torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    with torch.no_grad():
        for p, v in zip(model.parameters(), ps):
            p.copy_(torch.from_numpy(v))
    opt = torch.optim.SGD(model.parameters(), lr=LR)

    def step(x, y) -> float:  # noqa: ANN001
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        return float(loss.item())

    return step, torch


def settle_allocator() -> None:
    """Allocate and free one 16 MiB array, so that glibc's malloc serves the step's
    0.5-1.6 MiB arrays from its heap and stops returning it to the kernel after each step.

    glibc raises its mmap threshold (and its trim threshold, to twice that) to the size of
    the largest block it has freed that was mmap()ed. Without this, whether the numbers are
    fair depends on what else the process did: importing PyTorch raises the thresholds as a
    side effect, and without it the hand-written NumPy step page-faults ~900 times
    per step (~3.5 MiB of fresh pages) against dyngrad's ~750 -- that, not a faster
    dyngrad, was the 0.97x "without torch" (RESULTS.md, perf11). Every contender runs
    after this, in the same process, so the comparison stays even."""
    big = np.ones(2 << 20)
    del big


def bench(fns: dict[str, Callable[[], float]], steps: int, warmup: int,
          clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median ms/step of each function, timed round-robin (one step of each per round) so
    that load from other processes hits all of them alike; also ``"q_dyngrad"``: the
    quartiles of the per-round ratio dyngrad / numpy."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    ts: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(steps):
        for k, fn in fns.items():
            t0 = clock()
            fn()
            ts[k].append(clock() - t0)
    res: dict[str, Any] = {k: statistics.median(v) * 1e3 for k, v in ts.items()}
    res["q_dyngrad"] = statistics.quantiles([d / n for d, n in zip(ts["dyngrad"], ts["numpy"])], n=4)
    return res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--threads", type=int, default=0,
                    help="BLAS/torch threads for all three (0: library defaults); needs threadpoolctl for NumPy")
    ap.add_argument("--no-settle", action="store_true",
                    help="skip settle_allocator() (see it: the ratio then depends on whether torch is imported)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: process CPU time (steadier on a shared machine; single-threaded runs only)")
    a = ap.parse_args()
    if a.threads > 0:
        from threadpoolctl import threadpool_limits

        threadpool_limits(limits=a.threads, user_api="blas")
        try:
            import torch

            torch.set_num_threads(a.threads)
        except ImportError:
            pass
    if not a.no_settle:
        settle_allocator()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((BATCH, 784)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)

    l0_np = numpy_step(init(), x, y)
    l0_dg = dyngrad_setup(init())[0](dyngrad.tensor(x), dyngrad.tensor(y))
    ps_np = init()
    step, _ = dyngrad_setup(init())
    xd, yd = dyngrad.tensor(x), dyngrad.tensor(y)
    fns: dict[str, Callable[[], float]] = {"numpy": lambda: numpy_step(ps_np, x, y), "dyngrad": lambda: step(xd, yd)}
    torch = None
    try:
        tstep, torch = torch_setup(init())
        xt, yt = torch.from_numpy(x), torch.from_numpy(y)
        fns["torch"] = lambda: tstep(xt, yt)
    except ImportError:
        pass
    t = bench(fns, a.steps, a.warmup, time.process_time if a.clock == "cpu" else time.perf_counter)
    print(f"MLP {'-'.join(map(str, SIZES))}, batch {BATCH}, float32, SGD(lr={LR}); median of {a.steps} "
          "round-robin steps")
    print(f"  first-step loss: numpy {l0_np:.6f}  dyngrad {l0_dg:.6f}")
    print(f"  numpy (hand-written) : {t['numpy']:8.2f} ms/step")
    q = t["q_dyngrad"]
    print(f"  dyngrad              : {t['dyngrad']:8.2f} ms/step   ratio vs numpy {t['dyngrad'] / t['numpy']:.2f}x "
          f"(per-round quartiles {q[0]:.3f} / {q[1]:.3f} / {q[2]:.3f}; {a.clock} clock)")
    if torch is None:
        print("  torch                : not installed")
    else:
        print(f"  torch {torch.__version__:<14} : {t['torch']:8.2f} ms/step   ratio vs numpy "
              f"{t['torch'] / t['numpy']:.2f}x ({torch.get_num_threads()} threads)")


if __name__ == "__main__":
    main()
