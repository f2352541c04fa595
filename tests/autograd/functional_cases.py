"""Test functions shared by tests/golden/gen_functional.py (run with torch) and the
dyngrad tests: each is written with operators and methods both libraries have, and built
for a library module ``lib`` (``torch`` or ``dyngrad``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

_rng = np.random.default_rng(20260606)
X_MLP = _rng.standard_normal((5, 3))
Y_MLP = _rng.standard_normal((5, 1))
ONEHOT = np.eye(4)[[0, 3, 1]]


def make_cube(lib: Any) -> type:
    """A custom Function ``x ** 3`` whose backward (``3 x^2 g``) is written with tensor ops."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    return Cube


def cases(lib: Any) -> dict[str, tuple[Callable, list[tuple[int, ...]], str]]:
    """name -> (function, input shapes, 'scalar' | 'vector' output)."""
    t = lambda a: lib.tensor(a, dtype=lib.float64)  # noqa: E731
    X, Y, OH = t(X_MLP), t(Y_MLP), t(ONEHOT)
    Cube = make_cube(lib)

    def poly(x: Any) -> Any:
        return (x ** 3 - 2 * x ** 2 + x).sum() + x[0] * x[1] * x[2]

    def poly_vec(x: Any) -> Any:
        return x ** 2 * x.sum() + x[0]

    def rosenbrock(x: Any) -> Any:
        return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()

    def softmax_ce(z: Any) -> Any:
        lse = z.exp().sum(-1, keepdim=True).log()
        return -(OH[:3] * (z - lse)).sum() / 3

    def softmax(z: Any) -> Any:
        e = z.exp()
        return e / e.sum()

    def mlp_loss(w1: Any, b1: Any, w2: Any) -> Any:
        return (((X @ w1 + b1).tanh() @ w2 - Y) ** 2).mean()

    def mlp_out(w1: Any, b1: Any, w2: Any) -> Any:
        h = (X @ w1 + b1).tanh()
        return h.sum(0), (h @ w2).reshape(-1)

    def custom(x: Any) -> Any:
        return (Cube.apply(x) * x.exp()).sum() + Cube.apply(x[0] * x[1])

    def custom_vec(x: Any) -> Any:
        return Cube.apply(x) / (1 + x * x)

    mlp_shapes = [(3, 4), (4,), (4, 1)]
    return {
        "poly": (poly, [(4,)], "scalar"),
        "poly_vec": (poly_vec, [(3,)], "vector"),
        "rosenbrock": (rosenbrock, [(5,)], "scalar"),
        "softmax_ce": (softmax_ce, [(3, 4)], "scalar"),
        "softmax": (softmax, [(4,)], "vector"),
        "mlp_loss": (mlp_loss, mlp_shapes, "scalar"),
        "mlp_out": (mlp_out, mlp_shapes, "vector"),
        "custom": (custom, [(3,)], "scalar"),
        "custom_vec": (custom_vec, [(3,)], "vector"),
    }


def inputs(name: str, shapes: list[tuple[int, ...]]) -> list[np.ndarray]:
    """Fixed float64 inputs for a case (the same values in both libraries)."""
    rng = np.random.default_rng(sum(map(ord, name)))
    return [rng.uniform(-1.0, 1.0, s) * 0.8 for s in shapes]
