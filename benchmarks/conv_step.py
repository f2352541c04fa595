"""One training step (forward, cross_entropy, backward) of a small conv net on 28x28 input,
batch 64, float32: dyngrad against the same model in PyTorch CPU (if installed), measured
in the same run with identical weights.

Model: Conv2d(1, 16, 3, padding=1) -> ReLU -> MaxPool2d(2) -> Conv2d(16, 32, 3, padding=1)
-> ReLU -> MaxPool2d(2) -> Flatten -> Linear(32*7*7, 10).

Usage: ``python benchmarks/conv_step.py [--steps 20] [--warmup 3] [--threads N]``. Prints
the median ms/step of each and the ratio dyngrad/torch, after checking that both give the
same loss and gradients on the first step.

On a loaded machine, multi-threaded BLAS (NumPy's OpenBLAS, torch's intra-op pool) can be
many times slower than one thread; for a like-for-like single-thread comparison run
``OPENBLAS_NUM_THREADS=1 python benchmarks/conv_step.py --threads 1``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

import dyngrad
from dyngrad import nn

BATCH = 64


def dyngrad_model() -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(32 * 7 * 7, 10),
    )  # fmt: skip


def torch_model(torch):  # noqa: ANN001, ANN201
    tnn = torch.nn
    return tnn.Sequential(
        tnn.Conv2d(1, 16, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Conv2d(16, 32, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Flatten(), tnn.Linear(32 * 7 * 7, 10),
    )  # fmt: skip


def bench(fns: dict[str, Callable[[], object]], steps: int, warmup: int,
          clock: Callable[[], float] = time.perf_counter) -> dict[str, float]:
    """Median ms/step of each function, timed round-robin so machine load hits all alike;
    with two contenders also ``"ratio_q1"``, ``"ratio_med"``, ``"ratio_q3"``: the quartiles
    of the per-round ratio first / second."""
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    ts: dict[str, list[float]] = {k: [] for k in fns}
    for _ in range(steps):
        for k, fn in fns.items():
            t0 = clock()
            fn()
            ts[k].append(clock() - t0)
    res = {k: statistics.median(v) * 1e3 for k, v in ts.items()}
    if len(ts) == 2:
        a, b = ts.values()
        q = statistics.quantiles([x / y for x, y in zip(a, b)], n=4)
        res.update(ratio_q1=q[0], ratio_med=q[1], ratio_q3=q[2])
    return res


def main(argv: list[str] | None = None) -> dict[str, float]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=20)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=0, help="torch.set_num_threads (0: torch's default)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="cpu: process CPU time (steadier on a shared machine; single-threaded runs only)")
    a = ap.parse_args(argv)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH)

    dyngrad.manual_seed(0)
    model = dyngrad_model()
    xd, yd = dyngrad.tensor(x), dyngrad.tensor(y)

    def dstep() -> float:
        model.zero_grad()
        loss = nn.functional.cross_entropy(model(xd), yd)
        loss.backward()
        return loss.item()

    fns: dict[str, Callable[[], object]] = {"dyngrad": dstep}
    torch = None
    try:
        import torch
    except ImportError:
        pass
    if torch is not None:
        if a.threads:
            torch.set_num_threads(a.threads)
        tm = torch_model(torch)
        with torch.no_grad():
            for tp, dp in zip(tm.parameters(), model.parameters()):
                tp.copy_(torch.from_numpy(dp._data))
        xt, yt = torch.from_numpy(x), torch.from_numpy(y)

        def tstep() -> float:
            tm.zero_grad()
            loss = torch.nn.functional.cross_entropy(tm(xt), yt)
            loss.backward()
            return loss.item()

        ld, lt = dstep(), tstep()
        gerr = max(
            float(np.abs(dp.grad._data - tp.grad.numpy()).max() / (np.abs(tp.grad.numpy()).max() + 1e-12))
            for dp, tp in zip(model.parameters(), tm.parameters())
        )
        print(
            f"first step: loss dyngrad {ld:.6f}  torch {lt:.6f}; max relative gradient difference {gerr:.2e}"
        )
        fns["torch"] = tstep
    t = bench(fns, a.steps, a.warmup, time.process_time if a.clock == "cpu" else time.perf_counter)
    print(
        f"conv net step (2x conv2d + max-pool + linear, 28x28, batch {BATCH}, float32); median of {a.steps} steps"
    )
    print(f"  dyngrad          : {t['dyngrad']:8.2f} ms/step")
    if torch is None:
        print("  torch            : not installed")
    else:
        print(
            f"  torch {torch.__version__:<10} : {t['torch']:8.2f} ms/step ({torch.get_num_threads()} threads)"
        )
        print(f"  ratio dyngrad / torch: {t['dyngrad'] / t['torch']:.2f}x (per-round ratio quartiles "
              f"{t['ratio_q1']:.2f} / {t['ratio_med']:.2f} / {t['ratio_q3']:.2f}; {a.clock} clock)")
    return t


if __name__ == "__main__":
    main()
