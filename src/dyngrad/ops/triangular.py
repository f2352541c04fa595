"""Triangular solves: ``linalg.solve_triangular`` (``A: (*, n, n)`` triangular,
``B: (*, n, k)``, batch dims broadcast).

Only the triangle named by ``upper`` is read (with ``unitriangular``, the diagonal is taken
as ones), as PyTorch. NumPy has no triangular solver, so the masked triangle goes to
``np.linalg.solve`` (LU; the same O(n^3) as a substitution, and exact for a triangular
matrix up to rounding). Backward (PyTorch's ``linalg_solve_triangular_backward``,
Giles 2008 sec. 3.1): ``grad_B = A^{-T} grad`` (a triangular solve with the transposed
triangle), ``grad_A = -(grad_B X^T)`` restricted to the triangle (zero diagonal when
unitriangular). Written with dyngrad ops, so differentiable again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as _B
from ..tensor import Tensor
from ._bases import Op
from ._batching import front, logical_ndim, pad_to
from ._util import wrap
from .linalg import matmul

__all__: list[str] = []  # public through dyngrad.linalg.solve_triangular
TENSOR_METHODS: set[str] = set()


def _triangle(a: np.ndarray, upper: bool, unit: bool) -> np.ndarray:
    if type(a) is not np.ndarray and not _B.native(a):  # an Array API array: the standard's triu/tril
        xp = _B.namespace(a)
        t = xp.triu(a) if upper else xp.tril(a)
        if unit:
            t = xp.where(_B.like(np.eye(a.shape[-1], dtype=bool), a), xp.ones((), dtype=a.dtype), t)
        return t
    t = np.triu(a) if upper else np.tril(a)
    if unit:
        t = t.copy()
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    return t


class SolveTriangular(Op):
    """``X = T(A)^{-1} B`` with ``T(A)`` the ``upper``/lower triangle of ``A``;
    ``grad_B = T(A)^{-T} grad``, ``grad_A = T(-grad_B X^T)`` (module docstring)."""

    _node_name = "LinalgSolveTriangularBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor, upper: bool, unitriangular: bool) -> Tensor:
        T = _triangle(A._data, upper, unitriangular)
        bd = B._data
        native = type(bd) is np.ndarray or _B.native(bd)
        with np.errstate(all="ignore"):
            try:  # (an Array API array: the standard's linalg extension)
                X = np.linalg.solve(T, bd) if native else _B.namespace(T, bd).linalg.solve(T, bd)
            except np.linalg.LinAlgError:  # a zero on the diagonal: inf/nan as substitution gives
                shape = np.broadcast_shapes(T.shape[:-2], bd.shape[:-2]) + bd.shape[-2:]
                X = np.full(shape, np.nan) if native else _B.namespace(bd).full(shape, np.nan, dtype=bd.dtype)
        out = wrap(_B.astype(X, _B.np_dtype_of(bd), copy=False))
        ctx.save_for_backward(A, out)
        ctx.upper, ctx.unit = upper, unitriangular
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        A, X = ctx.saved_tensors
        gB = SolveTriangular.apply(A.mT, g, not ctx.upper, ctx.unit)
        gA = None
        if ctx.needs_input_grad[0]:
            full = -matmul(gB, X.mT)
            gA = full.triu(1 if ctx.unit else 0) if ctx.upper else full.tril(-1 if ctx.unit else 0)
        return gA, gB, None, None

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, uA: Any, uB: Any, *_: Any) -> Any:
        """Forward mode: ``t = T(A)^{-1} (uB - T(uA) X)``."""
        A, X = ctx.saved_tensors
        r = uB
        if uA is not None:
            tA = uA.triu(1 if ctx.unit else 0) if ctx.upper else uA.tril(-1 if ctx.unit else 0)
            r = -matmul(tA, X) if uB is None else uB - matmul(tA, X)
        return SolveTriangular.apply(A, r, ctx.upper, ctx.unit)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, A: Tensor, B: Tensor, upper: bool, unitriangular: bool) -> Any:
        """Batching rule (as :class:`~dyngrad.ops.decomp.Solve`'s): both arguments batch over
        leading dims, which broadcast; each batched one gets its batch dim in front and
        size-1 dims after it up to the larger per-example batch rank."""
        dA, dB = in_dims[0], in_dims[1]
        rank = max(logical_ndim(A, dA), logical_ndim(B, dB))
        A2 = A if dA is None else pad_to(front(A, dA), rank)
        B2 = B if dB is None else pad_to(front(B, dB), rank)
        return info.function.apply(A2, B2, upper, unitriangular), 0


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """``linalg.solve_triangular``: ``X`` with ``A X = B`` (``left=False``: ``X A = B``) for
    triangular ``A``.

    Args:
        A: ``(*, n, n)``; only its upper (``upper=True``) or lower triangle is read.
        B: ``(*, n, k)`` (``left=False``: ``(*, k, n)``); batch dims broadcast with ``A``'s.
        upper: whether ``A`` is upper triangular (keyword, required as in PyTorch).
        left: solve ``A X = B`` (True) or ``X A = B``.
        unitriangular: take ``A``'s diagonal as ones.

    Returns:
        ``X`` of the broadcast shape.

    Raises:
        RuntimeError: ``A`` not square or ``B`` not a matrix of matching size, or different
            dtypes (PyTorch's wording).
    """
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.solve_triangular: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() > 1 else 1} by {A.shape[-1]} matrices")
    if B.dim() < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{A.dtype.name} and B of type {B.dtype.name} instead")
    if not left:
        return solve_triangular(A.mT, B.mT, upper=not upper, unitriangular=unitriangular).mT
    if B.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation AX = B "
                           f"({A.shape[-2]}x{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    return SolveTriangular.apply(A, B, bool(upper), bool(unitriangular))
