"""Peak memory of one training step of a 32-layer MLP with and without activation
checkpointing (``dyngrad.utils.checkpoint.checkpoint_sequential``).

Peak = the largest amount of memory traced by ``tracemalloc`` (NumPy reports its array
allocations to it) during forward + backward, minus what was allocated before the step
(parameters, input). Usage: ``python benchmarks/checkpoint_memory.py [--width 256]
[--batch 1024] [--layers 32] [--segments 8]``.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np

import dyngrad
from dyngrad.nn.functional import linear
from dyngrad.utils.checkpoint import checkpoint_sequential


def make_layers(n: int, width: int, seed: int = 0) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    params, layers = [], []
    bound = 1 / np.sqrt(width)
    for _ in range(n):
        w = dyngrad.tensor(rng.uniform(-bound, bound, (width, width)).astype(np.float32), requires_grad=True)
        b = dyngrad.tensor(rng.uniform(-bound, bound, width).astype(np.float32), requires_grad=True)
        params += [w, b]
        layers.append(lambda x, w=w, b=b: dyngrad.relu(linear(x, w, b)) + x)  # residual keeps signal alive
    return layers, params


def step(layers: list, params: list, x: dyngrad.Tensor, segments: int | None) -> float:
    for p in params:
        p.grad = None
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    t0 = time.perf_counter()
    if segments:
        h = checkpoint_sequential(layers, segments, x)
    else:
        h = x
        for f in layers:
            h = f(h)
    (h * h).mean().backward()
    dt = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (peak - base) / 2**20, dt


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=32)
    ap.add_argument("--width", type=int, default=256)
    ap.add_argument("--batch", type=int, default=1024)
    ap.add_argument("--segments", type=int, default=8)
    a = ap.parse_args()
    layers, params = make_layers(a.layers, a.width)
    x = dyngrad.randn(a.batch, a.width)
    plain, t_plain = step(layers, params, x, None)
    grads = [p.grad._data.copy() for p in params]
    ckpt, t_ckpt = step(layers, params, x, a.segments)
    same = all(np.array_equal(g, p.grad._data) for g, p in zip(grads, params))
    act = a.batch * a.width * 4 / 2**20
    print(f"{a.layers}-layer MLP, width {a.width}, batch {a.batch}, float32 "
          f"(one activation = {act:.2f} MiB)")
    print(f"  no checkpointing      : peak {plain:8.1f} MiB   {t_plain * 1e3:7.1f} ms")
    print(f"  checkpoint_sequential : peak {ckpt:8.1f} MiB   {t_ckpt * 1e3:7.1f} ms   ({a.segments} segments)")
    print(f"  memory ratio {plain / ckpt:.2f}x lower, time ratio {t_ckpt / t_plain:.2f}x; gradients identical: {same}")


if __name__ == "__main__":
    main()
