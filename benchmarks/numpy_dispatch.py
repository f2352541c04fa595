"""Cost of NumPy's protocols on Tensors: a NumPy call on a Tensor (``np.exp(t)``,
``arr + t``, ``np.sum(t, axis=0)``, ``np.linalg.solve(A, b)``, ...) against the same op called
as a dyngrad function (``dyngrad.exp(t)``, ...), on small tensors that require grad, where
the per-call overhead is all there is (the forward only; backward is the same graph).
Goal (issue 14): at most 1.2x. Each pair runs interleaved, best of ``--repeat`` rounds of
``--number`` calls (thread CPU time, so a busy machine
skews it less); the ratio is NumPy-call time / dyngrad-call time, measured in this run.
Usage: ``python benchmarks/numpy_dispatch.py [--number 2000] [--repeat 7]``.
"""

from __future__ import annotations

import argparse
import time
import timeit

import numpy as np

import dyngrad


def cases() -> list[tuple[str, object, object]]:
    rng = np.random.default_rng(0)
    t = dyngrad.tensor(rng.standard_normal((8, 8)), requires_grad=True)
    u = dyngrad.tensor(rng.standard_normal((8, 8)), requires_grad=True)
    a = rng.standard_normal((8, 8))
    A = dyngrad.tensor(rng.standard_normal((4, 4)) + 4 * np.eye(4), requires_grad=True)
    b = dyngrad.tensor(rng.standard_normal(4), requires_grad=True)
    return [
        ("np.exp(t)", lambda: np.exp(t), lambda: dyngrad.exp(t)),
        ("np.add(t, u)", lambda: np.add(t, u), lambda: dyngrad.add(t, u)),
        ("np.multiply(t, 2.0)", lambda: np.multiply(t, 2.0), lambda: dyngrad.mul(t, 2.0)),
        ("arr + t (ndarray operator)", lambda: a + t, lambda: dyngrad.add(a, t)),
        ("np.float64(2) * t", lambda: np.float64(2.0) * t, lambda: dyngrad.mul(np.float64(2.0), t)),
        ("np.maximum(t, u)", lambda: np.maximum(t, u), lambda: dyngrad.maximum(t, u)),
        ("np.matmul(t, u)", lambda: np.matmul(t, u), lambda: dyngrad.matmul(t, u)),
        ("np.sum(t)", lambda: np.sum(t), lambda: dyngrad.sum(t)),
        ("np.sum(t, axis=0)", lambda: np.sum(t, axis=0), lambda: dyngrad.sum(t, 0)),
        ("np.mean(t, axis=1)", lambda: np.mean(t, axis=1), lambda: dyngrad.mean(t, 1)),
        ("np.tanh(t) @ u", lambda: np.tanh(t) @ u, lambda: dyngrad.tanh(t) @ u),
        ("np.concatenate([t, u])", lambda: np.concatenate([t, u]), lambda: dyngrad.cat([t, u])),
        ("np.linalg.solve(A, b)", lambda: np.linalg.solve(A, b), lambda: dyngrad.linalg.solve(A, b.unsqueeze(-1)).squeeze(-1)),
    ]


def best(fn: object, number: int) -> float:
    # the thread's CPU time, not wall time: other processes on a shared machine do not count
    return timeit.Timer(fn, timer=time.thread_time).timeit(number) / number  # type: ignore[arg-type]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--number", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    print(f"{'call':32s} {'NumPy call':>11s} {'dyngrad':>11s} {'ratio':>7s}")
    worst = 0.0
    for name, via_numpy, direct in cases():
        tn, td = [], []
        for _ in range(args.repeat):  # interleaved, so drift hits both
            tn.append(best(via_numpy, args.number))
            td.append(best(direct, args.number))
        r = min(tn) / min(td)
        worst = max(worst, r)
        print(f"{name:32s} {min(tn) * 1e6:9.2f}us {min(td) * 1e6:9.2f}us {r:6.2f}x")
    print(f"worst ratio: {worst:.2f}x (goal <= 1.2x)")


if __name__ == "__main__":
    main()
