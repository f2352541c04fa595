"""Tensor methods: linear algebra (``x @ y``, ``matmul``, ``mm``, ``dot``, ``outer``, ``det``,
``inverse``) and matrix structure (``diagonal``, ``trace``, ``tril``, ``triu``).

Each method is a one-line forward: ``x.name(*args)`` is ``dyngrad.ops.name(x, *args)``, reached
as ``_core._ops`` (the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists: see dyngrad/_tensor/__init__.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

if TYPE_CHECKING:
    from ..tensor import Tensor

__all__ = ["LinalgMethods"]


class LinalgMethods:
    """Linear algebra methods of :class:`dyngrad.Tensor`."""

    __slots__ = ()

    # ---- operators
    def __matmul__(self, other: Any) -> Tensor:
        return _core._ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _core._ops.matmul(other, self)

    # ---- ops.linalg
    def bmm(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.bmm(self, *args, **kwargs)

    def diag(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.diag(self, *args, **kwargs)

    def diag_embed(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.diag_embed(self, *args, **kwargs)

    def diagonal(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.diagonal(self, *args, **kwargs)

    def dot(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.dot(self, *args, **kwargs)

    def ger(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.ger(self, *args, **kwargs)

    def inner(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inner(self, *args, **kwargs)

    def matmul(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.matmul(self, *args, **kwargs)

    def mm(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mm(self, *args, **kwargs)

    def mv(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.mv(self, *args, **kwargs)

    def outer(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.outer(self, *args, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.trace(self, *args, **kwargs)

    def tril(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.tril(self, *args, **kwargs)

    def triu(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.triu(self, *args, **kwargs)

    # ---- ops.decomp
    def det(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.det(self, *args, **kwargs)

    def inverse(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.inverse(self, *args, **kwargs)

    def logdet(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.logdet(self, *args, **kwargs)

    def slogdet(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.slogdet(self, *args, **kwargs)

    # --- parametrize (ops.matfuncs)
    def matrix_exp(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.matrix_exp(self, *args, **kwargs)

    # --- apisurface: ops.composite, ops.linalg_extra
    def addbmm(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.addbmm(self, *args, **kwargs)

    def addmm(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.addmm(self, *args, **kwargs)

    def addmv(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.addmv(self, *args, **kwargs)

    def addr(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.addr(self, *args, **kwargs)

    def baddbmm(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.baddbmm(self, *args, **kwargs)

    def cholesky_solve(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cholesky_solve(self, *args, **kwargs)

    def cross(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.cross(self, *args, **kwargs)

    def kron(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.kron(self, *args, **kwargs)

    def lu(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.lu(self, *args, **kwargs)

    def lu_solve(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.lu_solve(self, *args, **kwargs)

    # --- ops/everyday.py
    def vdot(self, *args: Any, **kwargs: Any) -> Any:
        return _core._ops.vdot(self, *args, **kwargs)
