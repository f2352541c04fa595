"""Hessian of a 100-parameter function: dyngrad vs PyTorch, measured in the same run.

The function is an MLP-style loss in its 100 parameters (``w`` reshaped to 10 x 10, a tanh
layer and a quadratic readout on a fixed 32 x 10 batch), float64. Timed:

* ``dyngrad.autograd.functional.hessian`` (reverse-over-reverse, 100 vjps through the
  recorded gradient graph) and with ``outer_jacobian_strategy="forward-mode"``
  (forward-over-reverse, 100 dual passes through the double-vjp construction);
* the same with ``vectorize=True`` (all rows in one batched backward pass) and
  ``dyngrad.func.hessian`` (``jacrev(jacrev)``, both vectorised);
* ``torch.autograd.functional.hessian`` (default, and ``vectorize=True``) and
  ``torch.func.hessian`` when torch is installed.

Reports the best of ``--repeat`` runs (CPU time) and the ratio dyngrad / torch; checks the
two Hessians agree. Run: ``python benchmarks/hessian.py [--repeat 5]``.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import dyngrad
from dyngrad.autograd.functional import hessian

rng = np.random.default_rng(0)
X = rng.standard_normal((32, 10))
V = rng.standard_normal((10,))
W0 = rng.standard_normal(100) * 0.3


def make_f(lib: Any) -> Callable:
    x, v = lib.tensor(X), lib.tensor(V)

    def f(w: Any) -> Any:
        h = (x @ w.reshape(10, 10)).tanh()
        return ((h @ v) ** 2).mean() + (w ** 4).sum() * 1e-3

    return f


def best(fn: Callable, repeat: int) -> tuple[float, Any]:
    times, out = [], None
    for _ in range(repeat):
        t0 = time.process_time()
        out = fn()
        times.append(time.process_time() - t0)
    return min(times), out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    f = make_f(dyngrad)
    w = dyngrad.tensor(W0)
    t_rev, H = best(lambda: hessian(f, w), args.repeat)
    t_fwd, H2 = best(lambda: hessian(f, w, outer_jacobian_strategy="forward-mode"), max(1, args.repeat // 2))
    t_vec, H3 = best(lambda: hessian(f, w, vectorize=True), args.repeat)
    t_func, H4 = best(lambda: dyngrad.func.hessian(f)(w), args.repeat)
    for other in (H2, H3, H4):
        assert np.allclose(H.numpy(), other.numpy(), rtol=1e-9, atol=1e-12)
    print(f"dyngrad hessian, 100 params, reverse-over-reverse: {t_rev * 1e3:8.1f} ms")
    print(f"dyngrad hessian, 100 params, forward-over-reverse: {t_fwd * 1e3:8.1f} ms")
    print(f"dyngrad hessian, vectorize=True (batched backward):{t_vec * 1e3:8.1f} ms")
    print(f"dyngrad func.hessian (jacrev(jacrev), batched):    {t_func * 1e3:8.1f} ms")
    try:
        import torch
    except ImportError:
        print("torch not installed: no reference timing")
        return
    torch.set_num_threads(1)
    tf = make_f(torch)
    tw = torch.tensor(W0)
    t_t, TH = best(lambda: torch.autograd.functional.hessian(tf, tw), args.repeat)
    t_tv, _ = best(lambda: torch.autograd.functional.hessian(tf, tw, vectorize=True), args.repeat)
    assert np.allclose(H.numpy(), TH.numpy(), rtol=1e-9, atol=1e-12), "Hessians differ from torch"
    print(f"torch hessian (loop):                              {t_t * 1e3:8.1f} ms")
    print(f"torch hessian (vectorize=True):                    {t_tv * 1e3:8.1f} ms")
    print(f"ratio dyngrad reverse / torch loop:       {t_rev / t_t:6.2f}x")
    print(f"ratio dyngrad reverse / torch vectorized: {t_rev / t_tv:6.2f}x")
    print(f"ratio dyngrad forward-over-reverse / torch loop: {t_fwd / t_t:6.2f}x")
    print(f"ratio dyngrad vectorize=True / torch vectorize=True: {t_vec / t_tv:6.2f}x")
    t_tf, _ = best(lambda: torch.func.hessian(tf)(tw), args.repeat)
    print(f"torch.func.hessian:                                {t_tf * 1e3:8.1f} ms")
    print(f"ratio dyngrad func.hessian / torch.func.hessian: {t_func / t_tf:6.2f}x")


if __name__ == "__main__":
    main()
