"""One training step of a small 3-d conv net and of a spatial transformer, float32: dyngrad
against PyTorch CPU (if installed), same weights, same data, timed round-robin.

* ``conv3d``: Conv3d(2, 8, 3, padding=1) -> ReLU -> MaxPool3d(2) -> Conv3d(8, 16, 3,
  padding=1) -> ReLU -> AdaptiveAvgPool3d(1) -> Flatten -> Linear(16, 4), input (8, 2, 16,
  16, 16), cross-entropy, backward.
* ``grid_sample``: affine_grid of a learnt theta (8, 2, 3) -> grid_sample bilinear of (8, 16,
  32, 32) -> mean, backward to input and theta (the fused Function's first-order backward).

Usage: ``python benchmarks/conv3d_step.py [--steps 15] [--warmup 3] [--threads 1]``. Prints
the median ms/step of each and the ratio dyngrad/PyTorch, after checking that both give the
same loss on the first step.
"""

from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np
from _contenders import contenders

import dyngrad


def conv_net(lib):  # noqa: ANN001, ANN201
    n = lib.nn
    m = n.Sequential(n.Conv3d(2, 8, 3, padding=1), n.ReLU(), n.MaxPool3d(2), n.Conv3d(8, 16, 3, padding=1), n.ReLU(),
                     n.AdaptiveAvgPool3d(1), n.Flatten(), n.Linear(16, 4))
    rng = np.random.default_rng(0)
    with lib.no_grad():
        for _, p in m.named_parameters():
            p.copy_(lib.tensor(rng.uniform(-0.2, 0.2, tuple(p.shape)).astype(np.float32)))
    return m


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=15)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--threads", type=int, default=1)
    a = ap.parse_args()
    libs = [lib for _, lib in contenders(a.threads)]
    rng = np.random.default_rng(1)
    x = rng.standard_normal((8, 2, 16, 16, 16)).astype(np.float32)
    y = rng.integers(0, 4, 8)
    img = rng.standard_normal((8, 16, 32, 32)).astype(np.float32)
    th = (np.tile(np.eye(2, 3), (8, 1, 1)) + 0.1 * rng.standard_normal((8, 2, 3))).astype(np.float32)
    steps = {}
    for lib in libs:
        m = conv_net(lib)
        xt, yt = lib.tensor(x), lib.tensor(y)

        def conv_step(lib=lib, m=m, xt=xt, yt=yt) -> float:  # noqa: ANN001
            m.zero_grad()
            loss = lib.nn.functional.cross_entropy(m(xt), yt)
            loss.backward()
            return float(loss)

        it, tt = lib.tensor(img, requires_grad=True), lib.tensor(th, requires_grad=True)

        def gs_step(lib=lib, it=it, tt=tt) -> float:  # noqa: ANN001
            F = lib.nn.functional
            out = F.grid_sample(it, F.affine_grid(tt, (8, 16, 32, 32), align_corners=False), align_corners=False)
            loss = (out * out).mean()
            loss.backward()
            return float(loss)

        steps[lib.__name__] = {"conv3d": conv_step, "grid_sample": gs_step}
        if lib is dyngrad:  # the same backward built from differentiable ops (create_graph=True)
            def gs_composed(it=it, tt=tt) -> float:  # noqa: ANN001
                F = dyngrad.nn.functional
                out = F.grid_sample(it, F.affine_grid(tt, (8, 16, 32, 32), align_corners=False), align_corners=False)
                loss = (out * out).mean()
                loss.backward(create_graph=True)
                it.grad = tt.grad = None
                return float(loss)

            steps["dyngrad_composed"] = {"grid_sample": gs_composed}
    warnings.simplefilter("ignore")  # align_corners is given; nothing else to hear about
    first = {k: {n: f() for n, f in v.items()} for k, v in steps.items()}
    if "torch" in first:
        for n in ("conv3d", "grid_sample"):
            np.testing.assert_allclose(first["dyngrad"][n], first["torch"][n], rtol=1e-4)
    for name in ("conv3d", "grid_sample"):
        fns = {k: v[name] for k, v in steps.items() if name in v}
        for _ in range(a.warmup):
            for f in fns.values():
                f()
        ts: dict[str, list[float]] = {k: [] for k in fns}
        for _ in range(a.steps):
            for k, f in fns.items():
                t0 = time.perf_counter()
                f()
                ts[k].append(time.perf_counter() - t0)
        med = {k: statistics.median(v) * 1e3 for k, v in ts.items()}
        line = f"{name}: dyngrad {med['dyngrad']:.2f} ms/step"
        if "torch" in med:
            ratios = sorted(d / t for d, t in zip(ts["dyngrad"], ts["torch"]))
            q = statistics.quantiles(ratios, n=4)
            line += f", torch {med['torch']:.2f} ms/step, ratio {med['dyngrad'] / med['torch']:.2f}x " \
                    f"(per-round quartiles {q[0]:.2f}-{q[2]:.2f})"
        if "dyngrad_composed" in med:
            line += f"; backward composed of ops instead of fused: {med['dyngrad_composed']:.2f} ms/step"
        print(line)


if __name__ == "__main__":
    main()
