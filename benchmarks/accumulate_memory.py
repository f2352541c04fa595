"""Peak memory of a backward pass that accumulates into existing ``.grad`` (gradient
accumulation over micro-batches) against the first backward of the same model, with the
default in-place accumulation and with ``autograd.atomic_accumulation()`` (all or nothing).

Model: a 16-layer MLP, 512 wide, float32, ReLU, batch 64. Peak = the largest amount of
memory traced by ``tracemalloc`` (NumPy reports its array allocations to it) during the
backward pass alone (the forward ran before tracing started), minus what was allocated
before it. The gradients of both accumulation modes are checked equal.
Usage: ``python benchmarks/accumulate_memory.py [--layers 16] [--width 512] [--batch 64]``.
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import tracemalloc

import numpy as np

import dyngrad
from dyngrad import nn


def model(layers: int, width: int) -> nn.Module:
    dyngrad.manual_seed(0)
    mods: list = []
    for _ in range(layers):
        mods += [nn.Linear(width, width), nn.ReLU()]
    return nn.Sequential(*mods)


def backward_peak(net: nn.Module, x: dyngrad.Tensor, atomic: bool) -> float:
    """MiB peak of one backward pass of ``net(x).pow(2).mean()``."""
    loss = net(x).pow(2).mean()
    gc.collect()
    tracemalloc.start()
    base, _ = tracemalloc.get_traced_memory()
    with dyngrad.autograd.atomic_accumulation() if atomic else contextlib.nullcontext():
        loss.backward()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return (peak - base) / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--width", type=int, default=512)
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    x = dyngrad.randn(a.batch, a.width)
    grads = {}
    rows = []
    for atomic in (False, True):
        net = model(a.layers, a.width)
        first = backward_peak(net, x, atomic)
        acc = backward_peak(net, x, atomic)  # .grad exists now: accumulates
        grads[atomic] = [p.grad.numpy().copy() for p in net.parameters()]
        rows.append((atomic, first, acc))
    for g0, g1 in zip(grads[False], grads[True]):
        np.testing.assert_array_equal(g0, g1)
    nbytes = sum(g.nbytes for g in grads[False]) / 2**20
    print(f"{a.layers}-layer MLP, width {a.width}, batch {a.batch}, float32: gradients {nbytes:.1f} MiB")
    print(f"{'mode':<28}{'first backward':>16}{'accumulating':>14}{'ratio':>8}")
    for atomic, first, acc in rows:
        name = "atomic_accumulation()" if atomic else "default (in place)"
        print(f"{name:<28}{first:>13.1f} MiB{acc:>10.1f} MiB{acc / first:>8.2f}")
    print("gradients of both modes equal: yes")


if __name__ == "__main__":
    main()
