"""Matrix products. Batch dims broadcast; the engine sums broadcast batch gradients down."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import binary_operands, wrap

__all__ = ["matmul", "mm"]
TENSOR_METHODS = set(__all__)


class Matmul(Function):
    """``out = a @ b`` with NumPy/PyTorch semantics (1-D operands are promoted to a row
    or column and the added dim removed; batch dims broadcast).

    ``grad_a = grad @ b^T``, ``grad_b = a^T @ grad`` (matrix calculus; e.g. Giles, "An
    extended collection of matrix derivative results", 2008), with the 1-D promotions
    undone.
    """

    _builtin = True
    _node_name = "MmBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        ad, bd, rt = binary_operands(a, b)
        if ad.ndim == 0 or bd.ndim == 0:
            raise RuntimeError(
                f"matmul: both arguments to matmul need to be at least 1D, but they are {ad.ndim}D and {bd.ndim}D"
            )
        try:
            out = np.matmul(ad, bd)
        except ValueError:
            raise RuntimeError(
                f"matmul: mat1 and mat2 shapes cannot be multiplied ({_fmt(ad.shape)} and {_fmt(bd.shape)})"
            ) from None
        n = ctx.needs_input_grad
        ctx.save_for_backward(a if n[1] else None, b if n[0] else None)
        ctx.nd = (ad.ndim, bd.ndim)
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        a, b = ctx.saved_tensors
        na, nb = ctx.nd
        n = ctx.needs_input_grad
        if na == 1 and nb == 1:
            return (g * b if n[0] else None), (g * a if n[1] else None)
        if na == 1:
            g = g.unsqueeze(-2)
        if nb == 1:
            g = g.unsqueeze(-1)
        ga = gb = None
        if n[0]:
            bm = b.unsqueeze(-1) if nb == 1 else b
            ga = g @ bm.mT
            if na == 1:
                ga = ga.squeeze(-2)
        if n[1]:
            am = a.unsqueeze(-2) if na == 1 else a
            gb = am.mT @ g
            if nb == 1:
                gb = gb.squeeze(-1)
        return ga, gb


def _fmt(s: tuple) -> str:
    return "x".join(str(x) for x in s)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product with broadcasting: ``(*, n, m) @ (*, m, p) -> (*, n, p)``; 1-D
    operands act as vectors.

    Raises:
        RuntimeError: inner dimensions differ (both shapes named) or a 0-d operand.
    """
    return Matmul.apply(input, other)


def mm(input: Tensor, mat2: Tensor) -> Tensor:
    """``(n, m) @ (m, p) -> (n, p)``; both must be 2-D.

    Raises:
        RuntimeError: when an operand is not 2-D or inner sizes differ.
    """
    if input.data.ndim != 2 or mat2.data.ndim != 2:
        raise RuntimeError(f"mm: both arguments must be 2D, got {input.data.ndim}D and {mat2.data.ndim}D")
    return Matmul.apply(input, mat2)
