"""More of ``torch.linalg``: ``pinv`` (a Function with PyTorch's rules), and the compositions
``lstsq``, ``matrix_power``, ``cholesky_solve``, ``linalg.cross`` (in ops/composite.py).

Public as ``dyngrad.linalg.pinv`` / ``lstsq`` / ``matrix_power`` / ``cross`` and
``dyngrad.cholesky_solve``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._bases import Op
from ._batching import front
from ._util import wrap
from .. import _backend as B
from .. import _backend as _bk  # (lstsq's argument B shadows B)

__all__ = ["cholesky_solve"]
TENSOR_METHODS = {"cholesky_solve"}

LstsqResult = namedtuple("lstsq", ["solution", "residuals", "rank", "singular_values"])


def _eye_like(A: Tensor) -> Tensor:
    n = A._data.shape[-1]
    d = A._data
    if not B.native(d):  # an Array API array: its library's eye
        xp = B.namespace(d)
        return wrap(xp.broadcast_to(B.eye(n, dtype=B.np_dtype_of(d), like=d), tuple(d.shape[:-2]) + (n, n)))
    return wrap(np.broadcast_to(np.eye(n, dtype=A._data.dtype), A._data.shape[:-2] + (n, n)).copy())


def _pinv_xp(a: Any, atol: float, rtol: float) -> Any:
    """:class:`Pinv`'s forward for an Array API array (``linalg.svd`` of the standard)."""
    xp = B.namespace(a)
    u, s, vh = xp.linalg.svd(a, full_matrices=False)
    smax = xp.max(s, axis=-1, keepdims=True) if s.shape[-1] else xp.zeros(tuple(s.shape[:-1]) + (1,), dtype=s.dtype)
    cut = xp.maximum(smax * rtol, atol)
    s_inv = xp.where(s > cut, 1.0 / xp.where(s > cut, s, 1.0), 0.0)
    return xp.matmul(xp.matrix_transpose(vh) * s_inv[..., None, :], xp.matrix_transpose(u))


class Pinv(Op):
    """``P = A^+``, the Moore-Penrose pseudo-inverse, from the SVD with singular values
    ``<= max(atol, rtol * s_max)`` treated as zero. Shapes: ``(*, m, n) -> (*, n, m)``.

    Backward (valid where the rank is locally constant; Golub and Pereyra 1973, eq. 4.12,
    as PyTorch's ``pinv_backward``):
    ``grad_A = -P^T G P^T + (I - A P) G^T P P^T + P^T P G^T (I - P A)``.
    Forward mode: ``dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P``.
    Both are written with dyngrad ops (differentiable again).
    """

    _node_name = "LinalgPinvBackward0"

    @staticmethod
    def vmap(info: Any, in_dims: tuple, A: Tensor, atol: Any, rtol: Any) -> Any:
        """Batching rule: the batch dim to the front (pinv batches over leading dims)."""
        return info.function.apply(front(A, in_dims[0]), atol, rtol), 0

    @staticmethod
    def forward(ctx: Any, A: Tensor, atol: float, rtol: float) -> Tensor:
        a = A._data
        if not B.native(a):  # an Array API array: the same steps with the standard's functions
            out = wrap(_pinv_xp(a, atol, rtol))
            ctx.save_for_backward(A, out)
            return out
        u, s, vh = np.linalg.svd(a, full_matrices=False)
        smax = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,), dtype=s.dtype)
        cut = np.maximum(atol, rtol * smax)
        s_inv = np.where(s > cut, 1.0 / np.where(s > cut, s, 1.0), 0.0).astype(a.dtype)
        p = (np.swapaxes(vh, -1, -2) * s_inv[..., None, :]) @ np.swapaxes(u, -1, -2)
        out = wrap(p.astype(a.dtype))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        A, P = ctx.saved_tensors
        Pt, gt = P.mT, g.mT
        ga = -(Pt @ g @ Pt) + (_eye_like(A @ P) - A @ P) @ gt @ (P @ Pt) + (Pt @ P) @ gt @ (_eye_like(P @ A) - P @ A)
        return ga, None, None

    @staticmethod
    def jvp(ctx: Any, dA: Tensor, *_: Any) -> Tensor:
        A, P = ctx.saved_tensors
        dAt = dA.mT
        return (-(P @ dA @ P) + (P @ P.mT) @ dAt @ (_eye_like(A @ P) - A @ P)
                + (_eye_like(P @ A) - P @ A) @ dAt @ (P.mT @ P))


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """``linalg.pinv``: the Moore-Penrose pseudo-inverse of each matrix of ``A``.

    Args:
        A: ``(*, m, n)`` floating tensor.
        atol: absolute cutoff on singular values (default 0).
        rtol: relative cutoff (times the largest singular value); default
            ``max(m, n) * eps`` when ``atol`` is not given either, else 0.
        hermitian: accepted for PyTorch's signature (the SVD path is used either way).
    Returns:
        ``(*, n, m)`` tensor.
    Raises:
        RuntimeError: fewer than 2 dims or an integer input.
    """
    if A._data.ndim < 2:
        raise RuntimeError("linalg.pinv(A): The input tensor A must have at least 2 dimensions.")
    if B.kind(A._data) not in "f":
        raise RuntimeError(f"linalg.pinv(A): Expected a floating point or complex tensor as input. Got {A.dtype.name}")
    m, n = A._data.shape[-2:]
    at = 0.0 if atol is None else float(atol)
    if rtol is None:
        rt = max(m, n) * float(np.finfo(B.np_dtype_of(A._data)).eps) if atol is None else 0.0
    else:
        rt = float(rtol)
    return Pinv.apply(A, at, rt)


def lstsq(A: Tensor, B: Tensor, rcond: Any = None, *, driver: str | None = None) -> Any:
    """``linalg.lstsq``: the least-squares solution ``X`` minimising ``||A X - B||`` (the
    minimum-norm one when ``A`` has more columns than rank), as ``pinv(A) @ B``.

    Args:
        A: ``(*, m, n)``. B: ``(*, m, k)`` (a ``(*, m)`` vector is taken as ``k = 1``).
        rcond: singular values below ``rcond * s_max`` are treated as zero.
        driver: ``"gelsy"`` (PyTorch's CPU default), ``"gelsd"``, ``"gelss"`` or ``"gels"``;
            the solution is the same (full rank); ``residuals`` and ``singular_values`` are
            filled for ``gelsd``/``gelss`` as PyTorch does, empty otherwise.
    Returns:
        ``(solution, residuals, rank, singular_values)`` namedtuple; the solution is
        differentiable (through :func:`pinv`, as PyTorch's ``linalg_lstsq`` backward).
    Raises:
        RuntimeError: mismatched rows, or an unknown driver.
    """
    from .spectral import svdvals

    if driver not in (None, "gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A._data.ndim < 2 or B._data.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    vec = B._data.ndim == A._data.ndim - 1
    Bm = B.unsqueeze(-1) if vec else B
    if Bm._data.shape[-2] != A._data.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A._data.shape[-2:]
    eps = float(np.finfo(_bk.np_dtype_of(A._data)).eps)
    rc = max(m, n) * eps if rcond is None else float(rcond)
    X = pinv(A, rtol=rc) @ Bm
    if vec:
        X = X.squeeze(-1)
    if _bk.native(A._data):
        s = np.linalg.svd(A._data, compute_uv=False)
        rank = wrap((s > rc * s.max(axis=-1, keepdims=True)).sum(-1).astype(np.int64))
        empty = wrap(np.zeros(0, dtype=A._data.dtype))
    else:  # an Array API array: the standard's svdvals
        xp = _bk.namespace(A._data)
        s = xp.linalg.svdvals(A._data)
        rank = wrap(xp.sum(xp.astype(s > rc * xp.max(s, axis=-1, keepdims=True), xp.int64), axis=-1))
        empty = wrap(xp.zeros((0,), dtype=A._data.dtype))
    if driver in ("gelsd", "gelss"):
        sv = svdvals(A.detach())
        res = empty
        if m > n and _bk.all_true(rank._data == n):
            r = (A.detach() @ X.detach().unsqueeze(-1) if vec else A.detach() @ X.detach()) - Bm.detach()
            res = (r * r).sum(-2)
        return LstsqResult(X, res, rank, sv)
    return LstsqResult(X, empty, rank, empty)


def matrix_power(A: Tensor, n: int) -> Tensor:
    """``linalg.matrix_power``: ``A^n`` by repeated squaring (``n < 0``: of ``inv(A)``,
    ``n = 0``: the identity).

    Raises:
        RuntimeError: a non-square input.
    """
    from .decomp import inv

    if A._data.ndim < 2 or A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError("linalg.matrix_power: A must be batches of square matrices, but they are "
                           f"{A._data.shape[-2] if A._data.ndim >= 2 else 0} by {A._data.shape[-1] if A._data.ndim else 0} matrices")
    n = int(n)
    if n == 0:
        return _eye_like(A)
    base = inv(A) if n < 0 else A
    n = abs(n)
    result: Tensor | None = None
    while True:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if not n:
            break
        base = base @ base
    assert result is not None
    return result


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False) -> Tensor:
    """``X`` with ``A X = B`` where ``A = L L^T`` (``upper``: ``A = U^T U``), ``L`` a Cholesky
    factor (``linalg.cholesky(A)``).

    The solution is ``solve(L L^T, B)``; its gradient with respect to ``L`` treats every entry
    of ``L`` as taking part in ``L L^T``, as PyTorch's ``cholesky_solve_backward``
    (``grad_L = -(H + H^T) L`` with ``H = A^{-1} grad X^T``).

    Args:
        B: ``(*, n, k)`` right-hand sides. L: ``(*, n, n)``.
        upper: whether ``L`` is the upper factor.
    Returns:
        ``(*, n, k)``.
    Raises:
        RuntimeError: wrong ranks or mismatched sizes.

    Example:
        >>> import dyngrad
        >>> L = dyngrad.tensor([[2.0, 0.0], [1.0, 1.0]])
        >>> dyngrad.cholesky_solve(L @ L.T @ dyngrad.tensor([[1.0], [2.0]]), L).flatten().tolist()
        [1.0, 2.0]
    """
    from .decomp import solve

    if B._data.ndim < 2 or L._data.ndim < 2:
        raise RuntimeError("cholesky_solve: b and u should have at least 2 dimensions")
    A = L.mT @ L if upper else L @ L.mT
    return solve(A, B)


# --- lu_factor
LuFactorResult = namedtuple("lu_factor", ["LU", "pivots"])


def _lu(a: np.ndarray) -> tuple:
    """LU with partial pivoting (LAPACK getrf's choice: the largest magnitude in the column)
    of each ``(n, n)`` matrix of ``a``: ``(LU, perm, pivots)``, ``LU`` packing unit-lower ``L``
    and ``U``, ``perm`` the row order (``A[perm] = L U``), ``pivots`` LAPACK's 1-based swaps."""
    if not B.native(a):  # an Array API array: lu.py's standard-only elimination (the same steps)
        from .lu import lu_xp

        lu_, perm_, piv_, _ = lu_xp(a, True)
        return lu_, perm_, piv_
    lu = a.astype(a.dtype, copy=True)
    n = lu.shape[-1]
    batch = lu.shape[:-2]
    lu = lu.reshape((-1, n, n))
    b = np.arange(lu.shape[0])
    perm = np.broadcast_to(np.arange(n), (lu.shape[0], n)).copy()
    piv = np.zeros((lu.shape[0], n), dtype=np.int32)
    for k in range(n):
        p = k + np.argmax(np.abs(lu[:, k:, k]), axis=1)
        piv[:, k] = p + 1
        rows_k, rows_p = lu[b, k].copy(), lu[b, p].copy()
        lu[b, k], lu[b, p] = rows_p, rows_k
        pk, pp = perm[b, k].copy(), perm[b, p].copy()
        perm[b, k], perm[b, p] = pp, pk
        d = lu[:, k, k]
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(d[:, None] != 0, lu[:, k + 1:, k] / d[:, None], 0.0)
        lu[:, k + 1:, k] = f
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            lu[:, k + 1:, k + 1:] -= f[:, :, None] * lu[:, k, None, k + 1:]
    return lu.reshape(batch + (n, n)), perm.reshape(batch + (n,)), piv.reshape(batch + (n,))


class LuFactor(Op):
    """``A = P L U`` (partial pivoting); output ``LU`` packs ``L`` (unit lower, below the
    diagonal) and ``U``; the pivots are int32 and not differentiable. Square ``(*, n, n)``.

    Backward (PyTorch's ``linalg_lu_backward`` for square inputs, tools/autograd/
    FunctionsManual.cpp): with ``G_L = tril(G, -1)``,
    ``G_U = triu(G)``, ``grad_A = P L^{-T} (tril(L^T G_L, -1) + triu(G_U U^T)) U^{-T}``.
    Forward mode: ``X = L^{-1} P^T dA U^{-1}``, ``dLU = L tril(X, -1) + triu(X) U``. Both
    are written with dyngrad ops (triangular solves), so they differentiate again.
    """

    _node_name = "LinalgLuFactorExBackward0"

    @staticmethod
    def vmap(info: Any, in_dims: tuple, A: Tensor) -> Any:
        """Batching rule: the batch dim to the front (LU batches over leading dims)."""
        return info.function.apply(front(A, in_dims[0])), (0, 0)

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        lu, perm, piv = _lu(A._data)
        n = lu.shape[-1]
        if B.native(lu):
            P = np.zeros(lu.shape, dtype=lu.dtype)  # A = P L U: P[perm[i], i] = 1
            np.put_along_axis(P, perm[..., None, :], 1.0, axis=-2)
        else:  # an Array API array
            from .lu import _perm_matrix

            P = _perm_matrix(perm, B.np_dtype_of(lu))
        ctx.P = P
        out, pivots = wrap(lu), wrap(piv)
        ctx.mark_non_differentiable(pivots)
        ctx.save_for_backward(out)
        ctx.n = n
        return out, pivots

    @staticmethod
    def _factors(lu: Tensor) -> tuple:
        n = lu.shape[-1]
        eye = wrap(B.eye(n, dtype=B.np_dtype_of(lu._data), like=lu._data))
        return lu.tril(-1) + eye, lu.triu()

    @staticmethod
    def backward(ctx: Any, g: Tensor, _gp: Any) -> Any:
        from .triangular import solve_triangular

        (lu,) = ctx.saved_tensors
        L, U = LuFactor._factors(lu)
        phi = (L.mT @ g.tril(-1)).tril(-1) + (g.triu() @ U.mT).triu()
        x = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
        x = solve_triangular(U.mT, x, upper=False, left=False)
        return wrap(ctx.P) @ x

    @staticmethod
    def jvp(ctx: Any, dA: Tensor) -> Any:
        from .triangular import solve_triangular

        (lu,) = ctx.saved_tensors
        L, U = LuFactor._factors(lu)
        x = solve_triangular(L, wrap(B.swapaxes(ctx.P, -1, -2)) @ dA, upper=False, unitriangular=True)
        x = solve_triangular(U, x, upper=True, left=False)
        return L @ x.tril(-1) + x.triu() @ U, None


def lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``linalg.lu_factor``: see :func:`dyngrad.ops.lu.linalg_lu_factor` (rectangular inputs
    and ``pivot=False`` included); this square pivoted case's Function is :class:`LuFactor`."""
    from .lu import linalg_lu_factor

    return linalg_lu_factor(A, pivot=pivot)