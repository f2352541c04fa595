"""``dyngrad.linalg``: PyTorch's ``torch.linalg`` namespace.

Decompositions and matrix functions come from :mod:`dyngrad.ops.decomp`, norms from
:mod:`dyngrad.ops.statistics`, products from :mod:`dyngrad.ops.linalg`. Each op's docstring
names its derivative and the source of the formula.
"""

from __future__ import annotations

from typing import Any

from .ops.composite import linalg_cross as cross
from .ops.decomp import LinAlgError, cholesky, det, inv, qr, slogdet, solve
from .ops.linalg import diagonal as _diagonal
from .ops.linalg import matmul
from .ops.linalg_extra import lstsq, matrix_power, pinv
from .ops.lu import linalg_lu as lu
from .ops.lu import linalg_lu_factor as lu_factor
from .ops.lu import linalg_lu_factor_ex as lu_factor_ex
from .ops.lu import linalg_lu_solve as lu_solve
from .ops.matfuncs import householder_product, matrix_exp
from .ops.spectral import eigh, eigvalsh, svd, svdvals
from .ops.statistics import vector_norm
from .ops.triangular import solve_triangular
from .tensor import Tensor

__all__ = [
    "inv", "det", "slogdet", "solve", "cholesky", "qr", "eigh", "eigvalsh", "svd", "svdvals",
    "vector_norm", "matrix_norm", "norm", "matmul", "diagonal", "vecdot", "solve_triangular",
    "matrix_exp", "householder_product",
]
__all__ += ["pinv", "lstsq", "matrix_power", "cross", "lu_factor", "lu_factor_ex", "lu", "lu_solve"]
__all__ += ["LinAlgError"]


def matrix_norm(A: Tensor, ord: Any = "fro", dim: tuple = (-2, -1), keepdim: bool = False) -> Tensor:
    """``linalg.matrix_norm``: ``'fro'`` (Frobenius, the 2-norm of the entries) over the
    two ``dim``; ``'nuc'`` is the sum of singular values; ``1``/``-1``/``inf``/``-inf`` are the
    max/min absolute column/row sums; ``2``/``-2`` the largest/smallest singular value.

    Raises:
        RuntimeError: an unknown ``ord``; fewer than 2 dims.
    """
    if A._data.ndim < 2:
        raise RuntimeError(f"linalg.matrix_norm: The input tensor A must have at least 2 dimensions (got {A._data.ndim}).")
    d0, d1 = (d % A._data.ndim for d in dim)
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim)
    inf = float("inf")
    if ord in (1, -1, inf, -inf):
        # column sums (ord ±1) reduce d0 first; row sums (ord ±inf) reduce d1 first
        first, second = (d0, d1) if ord in (1, -1) else (d1, d0)
        sums = A.abs().sum(first, keepdim=True)
        r = sums.amax(second, keepdim=True) if ord > 0 else sums.amin(second, keepdim=True)
        return r if keepdim else r.reshape([n for i, n in enumerate(r.shape) if i not in (d0, d1)])
    if ord in ("nuc", 2, -2):
        B = A.permute([i for i in range(A._data.ndim) if i not in (d0, d1)] + [d0, d1])
        s = svdvals(B)
        r = s.sum(-1) if ord == "nuc" else (s.amax(-1) if ord == 2 else s.amin(-1))
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
        return r
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(A: Tensor, ord: Any = None, dim: Any = None, keepdim: bool = False) -> Tensor:
    """``linalg.norm``: with ``ord=None`` the 2-norm of the flattened input (or over
    ``dim``); a string ``ord`` or a 2-tuple ``dim`` means a matrix norm, otherwise a vector
    norm (as PyTorch)."""
    if dim is not None and not isinstance(dim, int) and len(dim) == 2 and ord is not None:
        return matrix_norm(A, ord, tuple(dim), keepdim)
    if isinstance(ord, str) or (ord is not None and dim is None and A._data.ndim == 2):
        return matrix_norm(A, ord, (-2, -1), keepdim)
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """``linalg.diagonal``: :func:`dyngrad.diagonal` with the last two dims by default."""
    return _diagonal(A, offset, dim1, dim2)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """``linalg.vecdot``: ``sum(x * y, dim)`` with broadcasting."""
    return (x * y).sum(dim)
