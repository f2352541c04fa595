"""The LU family beyond the square pivoted ``linalg.lu_factor`` (ops/linalg_extra.py):
rectangular inputs and ``pivot=False`` for ``linalg.lu_factor`` / ``lu_factor_ex``,
``linalg.lu`` (``P, L, U``), ``lu_unpack``, ``linalg.lu_solve`` and the deprecated
``torch.lu`` / ``torch.lu_solve``.

``A = P L U`` for ``A: (*, m, n)``, ``k = min(m, n)``: ``P (*, m, m)`` a permutation,
``L (*, m, k)`` unit lower trapezoidal, ``U (*, k, n)`` upper trapezoidal. ``LU (*, m, n)``
packs ``L`` below the diagonal and ``U`` on and above it; ``pivots (*, k)`` are LAPACK's
1-based row swaps (int32). All are consistent: ``lu_unpack(*lu_factor(A))`` is
``linalg.lu(A)`` and ``P @ L @ U`` is ``A``.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as _B
from ..tensor import Tensor
from ._bases import Op
from ._batching import front
from ._util import wrap
from .. import _backend as B

__all__ = ["lu_unpack", "lu", "lu_solve"]
TENSOR_METHODS = {"lu", "lu_solve"}

LuResult = namedtuple("lu", ["P", "L", "U"])
LuUnpackResult = namedtuple("lu_unpack", ["P", "L", "U"])
LuFactorResult = namedtuple("lu_factor", ["LU", "pivots"])
LuFactorExResult = namedtuple("lu_factor_ex", ["LU", "pivots", "info"])


def lu_numpy(a: np.ndarray, pivot: bool = True) -> tuple:
    """Gaussian elimination with partial pivoting (LAPACK getrf's choice: the first largest
    magnitude of the column; ``pivot=False``: none) of every ``(m, n)`` matrix of ``a``:
    ``(LU, perm, pivots, info)``; ``A[perm] = L U``; ``info`` is LAPACK's (the first zero
    pivot, 1-based; 0 when none)."""
    lu = np.array(a, copy=True)
    m, n = lu.shape[-2:]
    k = min(m, n)
    batch = lu.shape[:-2]
    lu = lu.reshape((-1, m, n))
    b = np.arange(lu.shape[0])
    perm = np.broadcast_to(np.arange(m), (lu.shape[0], m)).copy()
    piv = np.zeros((lu.shape[0], k), dtype=np.int32)
    info = np.zeros(lu.shape[0], dtype=np.int32)
    if not B.native(a):  # an Array API array: the same elimination with the standard's functions
        return lu_xp(a, pivot)
    for j in range(k):
        p = j + np.argmax(np.abs(lu[:, j:, j]), axis=1) if pivot else np.full(lu.shape[0], j)
        piv[:, j] = p + 1
        rows_j, rows_p = lu[b, j].copy(), lu[b, p].copy()
        lu[b, j], lu[b, p] = rows_p, rows_j
        pj, pp = perm[b, j].copy(), perm[b, p].copy()
        perm[b, j], perm[b, p] = pp, pj
        d = lu[:, j, j]
        info = np.where((info == 0) & (d == 0), j + 1, info)
        with np.errstate(all="ignore"):  # a zero pivot gives inf/NaN silently, as LAPACK
            f = lu[:, j + 1:, j] / d[:, None] if not pivot else np.where(d[:, None] != 0, lu[:, j + 1:, j] / d[:, None], 0.0)
            lu[:, j + 1:, j] = f
            lu[:, j + 1:, j + 1:] -= f[:, :, None] * lu[:, j, None, j + 1:]
    return (lu.reshape(batch + (m, n)), perm.reshape(batch + (m,)), piv.reshape(batch + (k,)),
            info.reshape(batch))


def _swap_index(xp: Any, m: int, j: int, p: Any) -> Any:
    """``(b, m)`` row orders that swap row ``j`` with row ``p[b]`` of each matrix ``b``."""
    ar = xp.reshape(xp.arange(m, dtype=xp.int64), (1, m))
    pc = xp.reshape(p, (-1, 1))
    return xp.where(ar == j, pc, xp.where(ar == pc, j, ar))


def lu_xp(a: Any, pivot: bool = True) -> tuple:
    """:func:`lu_numpy` for an Array API array: each step's row swap as a ``take_along_axis``
    and its update rebuilt by ``concat`` (no index assignment), the same arithmetic, so the
    same numbers; ``perm``, ``pivots`` and ``info`` are arrays of ``a``'s library."""
    xp = B.namespace(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = tuple(a.shape[:-2])
    lu = xp.reshape(a, (-1, m, n))
    nb = lu.shape[0]
    perm = xp.broadcast_to(xp.reshape(xp.arange(m, dtype=xp.int64), (1, m)), (nb, m))
    info = xp.zeros((nb,), dtype=xp.int32)
    pivs = []
    for j in range(k):
        if pivot:
            p = j + xp.argmax(xp.abs(lu[:, j:, j]), axis=1)
            idx = _swap_index(xp, m, j, p)
            lu = xp.take_along_axis(lu, xp.broadcast_to(xp.reshape(idx, (nb, m, 1)), (nb, m, n)), axis=1)
            perm = xp.take_along_axis(perm, idx, axis=1)
        else:
            p = xp.full((nb,), j, dtype=xp.int64)
        pivs.append(xp.astype(p + 1, xp.int32))
        d = lu[:, j, j]
        info = xp.where((info == 0) & (d == 0), j + 1, info)
        with np.errstate(all="ignore"):  # a zero pivot gives inf/NaN silently, as LAPACK
            col = lu[:, j + 1:, j]
            f = col / d[:, None] if not pivot else xp.where(d[:, None] != 0, col / d[:, None], 0.0)
            rest = lu[:, j + 1:, j + 1:] - f[:, :, None] * lu[:, j, None, j + 1:]
        bottom = xp.concat([lu[:, j + 1:, :j], f[:, :, None], rest], axis=2)
        lu = xp.concat([lu[:, :j + 1, :], bottom], axis=1)
    piv = xp.stack(pivs, axis=1) if pivs else xp.zeros((nb, 0), dtype=xp.int32)
    return (xp.reshape(lu, batch + (m, n)), xp.reshape(perm, batch + (m,)), xp.reshape(piv, batch + (k,)),
            xp.reshape(info, batch))


def _perm_matrix(perm: np.ndarray, dtype: Any) -> np.ndarray:
    """``P`` with ``A = P L U`` from the row order ``perm`` (``A[perm] = L U``)."""
    m = perm.shape[-1]
    if not B.native(perm):  # an Array API array: P[r, i] = (perm[i] == r)
        xp = B.namespace(perm)
        hit = xp.reshape(xp.arange(m, dtype=perm.dtype), (m, 1)) == perm[..., None, :]
        return xp.astype(hit, B._dtype_for(perm, B.to_np_dtype(dtype)))
    P = np.zeros(perm.shape + (m,), dtype=dtype)
    np.put_along_axis(P, perm[..., None, :], 1.0, axis=-2)
    return P


def _perm_from_pivots(piv: np.ndarray, m: int) -> np.ndarray:
    """The row order ``perm`` that LAPACK's 1-based swaps ``piv`` (``(*, k)``) apply."""
    if not B.native(piv):  # an Array API array: each swap as a take_along_axis
        xp = B.namespace(piv)
        fl = xp.astype(xp.reshape(piv, (-1, piv.shape[-1])), xp.int64) - 1
        nb = fl.shape[0]
        perm = xp.broadcast_to(xp.reshape(xp.arange(m, dtype=xp.int64), (1, m)), (nb, m))
        for j in range(fl.shape[1]):
            perm = xp.take_along_axis(perm, _swap_index(xp, m, j, fl[:, j]), axis=1)
        return xp.reshape(perm, tuple(piv.shape[:-1]) + (m,))
    flat = piv.reshape(-1, piv.shape[-1]).astype(np.int64) - 1
    perm = np.broadcast_to(np.arange(m), (flat.shape[0], m)).copy()
    rows = np.arange(flat.shape[0])
    for j in range(flat.shape[1]):
        p = flat[:, j]
        a, c = perm[rows, j].copy(), perm[rows, p].copy()
        perm[rows, j], perm[rows, p] = c, a
    return perm.reshape(piv.shape[:-1] + (m,))


class LinalgLu(Op):
    """``A = P L U`` of ``(*, m, n)``; outputs ``P`` (not differentiable), ``L``, ``U``.

    Backward (the formulas of PyTorch's ``linalg_lu_backward``, FunctionsManual.cpp; for
    real inputs, ``k = min(m, n)``):

    - square: ``grad_A = P L^{-T} (tril(L^T G_L, -1) + triu(G_U U^T)) U^{-T}``;
    - wide (``m < n``, ``U = [U1 U2]``): ``X = tril(L^T G_L - triu(G_U) U^T, -1) U1^{-T}``,
      ``grad_A = P L^{-T} [X + triu(G_U1), G_U2]``;
    - tall (``m > n``, ``L = [L1; L2]``): ``X = L1^{-T} triu(G_U U^T - L^T tril(G_L, -1))``,
      ``grad_A = P [X + tril(G_L1, -1); G_L2] U^{-T}``.

    Written with dyngrad ops (triangular solves), so it differentiates again.
    """

    _node_name = "LinalgLuBackward0"

    @staticmethod
    def vmap(info: Any, in_dims: tuple, A: Tensor, pivot: bool) -> Any:
        """Batching rule: the batch dim to the front (LU batches over leading dims)."""
        return info.function.apply(front(A, in_dims[0]), pivot), (0, 0, 0)

    @staticmethod
    def forward(ctx: Any, A: Tensor, pivot: bool) -> tuple:
        lu, perm, _, _ = lu_numpy(A._data, pivot)
        m, n = lu.shape[-2:]
        k = min(m, n)
        if B.native(lu):
            eye = np.eye(m, k, dtype=lu.dtype)
            L = np.tril(lu[..., :, :k], -1) + eye
            U = np.triu(lu[..., :k, :])
        else:  # an Array API array
            xp = B.namespace(lu)
            L = xp.tril(lu[..., :, :k], k=-1) + B.eye(m, k, dtype=B.np_dtype_of(lu), like=lu)
            U = xp.triu(lu[..., :k, :])
        P = wrap(_perm_matrix(perm, B.np_dtype_of(lu)))
        ctx.mark_non_differentiable(P)
        Lt, Ut = wrap(L), wrap(U)
        ctx.save_for_backward(P, Lt, Ut)
        return P, Lt, Ut

    @staticmethod
    def backward(ctx: Any, _gP: Any, gL: Any, gU: Any) -> Any:
        from .splitting import cat
        from .triangular import solve_triangular

        P, L, U = ctx.saved_tensors
        m, k, n = L.shape[-2], L.shape[-1], U.shape[-1]
        gL = gL if gL is not None else L * 0
        gU = gU if gU is not None else U * 0
        if m == n:
            phi = (L.mT @ gL).tril(-1) + (gU @ U.mT).triu()
            x = solve_triangular(L.mT, phi, upper=True, unitriangular=True)
            return P @ solve_triangular(U.mT, x, upper=False, left=False), None
        if m < n:
            x = (L.mT @ gL - gU.triu() @ U.mT).tril(-1)
            x = solve_triangular(U[..., :, :k].mT, x, upper=False, left=False)
            x = cat([x + gU[..., :, :k].triu(), gU[..., :, k:]], -1)
            return P @ solve_triangular(L.mT, x, upper=True, unitriangular=True), None
        x = (gU @ U.mT - L.mT @ gL.tril(-1)).triu()
        x = solve_triangular(L[..., :k, :].mT, x, upper=True, unitriangular=True)
        x = cat([x + gL[..., :k, :].tril(-1), gL[..., k:, :]], -2)
        return P @ solve_triangular(U.mT, x, upper=False, left=False), None


    @staticmethod
    def jvp(ctx: Any, dA: Tensor, *_: Any) -> Any:
        """Forward mode from ``P^T dA = dL U + L dU`` (PyTorch's ``linalg_lu_jvp``): with the
        square blocks ``L1``, ``U1``, ``X = L1^{-1} (P^T dA)_1 U1^{-1}``, ``dL1 = L1 tril(X, -1)``,
        ``dU1 = triu(X) U1``; wide: ``dU2 = L^{-1} ((P^T dA)_2 - dL U2)``; tall:
        ``dL2 = ((P^T dA)_2 - L2 dU) U^{-1}``."""
        from .splitting import cat
        from .triangular import solve_triangular

        P, L, U = ctx.saved_tensors
        m, k, n = L.shape[-2], L.shape[-1], U.shape[-1]
        B = P.mT @ dA
        L1, U1 = L[..., :k, :], U[..., :, :k]
        x = solve_triangular(L1, B[..., :k, :k], upper=False, unitriangular=True)
        x = solve_triangular(U1, x, upper=True, left=False)
        dL1, dU1 = L1 @ x.tril(-1), x.triu() @ U1
        if m == n:
            return None, dL1, dU1
        if m < n:
            dU2 = solve_triangular(L, B[..., :, k:] - dL1 @ U[..., :, k:], upper=False, unitriangular=True)
            return None, dL1, cat([dU1, dU2], -1)
        dL2 = solve_triangular(U, B[..., k:, :] - L[..., k:, :] @ dU1, upper=True, left=False)
        return None, cat([dL1, dL2], -2), dU1


class PermFromPivots(Op):
    """``P (*, m, m)`` from LAPACK's 1-based row swaps ``pivots (*, k)`` (not differentiable;
    its batching rule keeps the swaps of each example apart)."""

    @staticmethod
    def vmap(info: Any, in_dims: tuple, pivots: Tensor, m: int, dtype: Any) -> Any:
        """Batching rule: the batch dim to the front (the swaps batch over leading dims)."""
        return info.function.apply(front(pivots, in_dims[0]), m, dtype), 0

    @staticmethod
    def forward(ctx: Any, pivots: Tensor, m: int, dtype: Any) -> Tensor:
        return wrap(_perm_matrix(_perm_from_pivots(pivots._data, m), dtype))

    @staticmethod
    def jvp(ctx: Any, *_: Any) -> Any:
        """A permutation of integer pivots: no tangent."""
        return None


def _check_lu_input(A: Any, op: str) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    if A._data.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if B.kind(A._data) != "f":
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {A.dtype.name}")


def linalg_lu(A: Tensor, *, pivot: bool = True) -> Any:
    """``torch.linalg.lu``: ``A = P L U`` with partial pivoting (``pivot=False``: none).

    Derivative: PyTorch's ``linalg_lu_backward`` (square, wide and tall cases; see
    :class:`LinalgLu`); ``P`` has no gradient.

    Args:
        A (Tensor): ``(*, m, n)``, floating.
        pivot (bool): pivot rows (LAPACK's partial pivoting). Default: ``True``. ``False``
            factors without row exchanges (``P`` is the identity); it fails (inf/NaN) on a
            zero leading pivot.
    Returns:
        (Tensor, Tensor, Tensor): ``(P, L, U)``, a namedtuple: ``P (*, m, m)``,
        ``L (*, m, k)`` unit lower, ``U (*, k, n)`` upper, ``k = min(m, n)``.
    Raises:
        RuntimeError: fewer than 2 dims or an integer input.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
        >>> P, L, U = dyngrad.linalg.lu(A)
        >>> L.shape, U.shape, bool(dyngrad.allclose(P @ L @ U, A))
        (dyngrad.Size([2, 2]), dyngrad.Size([2, 3]), True)
    """
    _check_lu_input(A, "linalg.lu")
    return LuResult(*LinalgLu.apply(A, bool(pivot)))


def _pack(L: Tensor, U: Tensor) -> Tensor:
    """``LU (*, m, n)``: ``L``'s strictly lower part and ``U``'s upper part in one matrix."""
    from .splitting import cat

    m, k, n = L.shape[-2], L.shape[-1], U.shape[-1]
    lower, upper = L.tril(-1), U.triu()
    if n > k:  # wide: L is (m, m)
        z = wrap(B.zeros(tuple(L.shape[:-1]) + (n - k,), B.np_dtype_of(L._data), like=L._data))
        lower = cat([lower, z], -1)
    if m > k:  # tall: U is (n, n)
        z = wrap(B.zeros(tuple(U.shape[:-2]) + (m - k, n), B.np_dtype_of(U._data), like=U._data))
        upper = cat([upper, z], -2)
    return lower + upper


def linalg_lu_factor(A: Tensor, *, pivot: bool = True) -> Any:
    """``torch.linalg.lu_factor``: the LU decomposition packed as LAPACK's getrf.

    Derivative: square with pivoting, PyTorch's ``linalg_lu_factor_ex`` rule
    (:class:`~dyngrad.ops.linalg_extra.LuFactor`); otherwise through :func:`linalg_lu`'s
    (``LU = tril(L, -1) + U``, padded).

    Args:
        A (Tensor): ``(*, m, n)``, floating.
        pivot (bool): partial pivoting. Default: ``True``. (PyTorch computes
            ``pivot=False`` on CUDA only; dyngrad computes it on the CPU.)
    Returns:
        (Tensor, Tensor): ``(LU, pivots)``, a namedtuple: ``LU (*, m, n)`` packing ``L``
        below the diagonal and ``U``; ``pivots (*, min(m, n))`` int32, 1-based row swaps
        (``1, 2, ...`` with ``pivot=False``).
    Raises:
        RuntimeError: fewer than 2 dims or an integer input.

    Example:
        >>> import dyngrad
        >>> LU, pivots = dyngrad.linalg.lu_factor(dyngrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))
        >>> LU.shape, pivots.tolist()
        (dyngrad.Size([3, 2]), [3, 3])
    """
    from .linalg_extra import LuFactor

    _check_lu_input(A, "linalg.lu_factor")
    m, n = A._data.shape[-2:]
    if pivot and m == n:
        return LuFactorResult(*LuFactor.apply(A))
    _, piv, _ = _pivots(A._data, pivot)
    _P, L, U = LinalgLu.apply(A, bool(pivot))
    return LuFactorResult(_pack(L, U), wrap(piv))


def _pivots(a: np.ndarray, pivot: bool) -> tuple:
    lu, perm, piv, info = lu_numpy(a, pivot)
    return perm, piv, info


def linalg_lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> Any:
    """``torch.linalg.lu_factor_ex``: :func:`linalg_lu_factor` plus LAPACK's ``info``.

    Derivative: :func:`linalg_lu_factor`'s.

    Args:
        A (Tensor): ``(*, m, n)``, floating.
        pivot (bool): partial pivoting. Default: ``True``.
        check_errors (bool): raise when a matrix is singular (a zero pivot). Default:
            ``False``.
    Returns:
        (Tensor, Tensor, Tensor): ``(LU, pivots, info)``; ``info (*)`` int32: 0, or the
        1-based index of the first zero pivot of ``U``.
    Raises:
        RuntimeError: fewer than 2 dims, an integer input, or (``check_errors``) a singular
            matrix.

    Example:
        >>> import dyngrad
        >>> dyngrad.linalg.lu_factor_ex(dyngrad.tensor([[1.0, 2.0], [2.0, 4.0]])).info.item()
        2
    """
    LU, piv = linalg_lu_factor(A, pivot=pivot)
    info = _pivots(A._data, pivot)[2]
    if check_errors and B.any_true(info != 0):
        info_h = B.to_host(info)  # (an error message: the host reads the first bad index)
        bad = int(info_h.reshape(-1)[np.argmax(info_h.reshape(-1) != 0)])
        raise RuntimeError(f"torch.linalg.lu_factor_ex: U[{bad},{bad}] is zero and using it on lu_solve would result "
                           "in a division by zero. If you still want to perform the factorization, consider calling "
                           "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")
    return LuFactorExResult(LU, piv, wrap(B.astype(info, np.int32, copy=False)))


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True) -> Any:
    """``torch.lu_unpack``: ``(P, L, U)`` from :func:`linalg.lu_factor`'s packed output.

    Derivative: ``L = tril(LU, -1)[..., :k] + I`` and ``U = triu(LU)[..., :k, :]``, so the
    gradient reaches ``LU`` through ``tril``/``triu`` and the slices; ``P`` and the
    pivots have none.

    Args:
        LU_data (Tensor): ``(*, m, n)``.
        LU_pivots (Tensor): ``(*, min(m, n))``, int32 or int64, 1-based swaps.
        unpack_data (bool): return ``L`` and ``U`` (else empty tensors). Default: ``True``.
        unpack_pivots (bool): return ``P`` (else an empty tensor). Default: ``True``.
    Returns:
        (Tensor, Tensor, Tensor): ``(P (*, m, m), L (*, m, k), U (*, k, n))``.
    Raises:
        RuntimeError: integer pivots of the wrong shape, or non-integer pivots.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]])
        >>> P, L, U = dyngrad.lu_unpack(*dyngrad.linalg.lu_factor(A))
        >>> bool(dyngrad.allclose(P @ L @ U, A))
        True
    """
    piv = LU_pivots if isinstance(LU_pivots, Tensor) else wrap(_B.asarray_any(LU_pivots))
    if B.kind(piv._data) not in "iu":
        raise RuntimeError(f"lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype. "
                           f"Got {piv.dtype}")
    m, n = tuple(LU_data.shape[-2:])
    k = min(m, n)
    if tuple(piv.shape) != tuple(LU_data.shape[:-2]) + (k,):
        raise RuntimeError(f"lu_unpack: LU_pivots.size(-1) must be equal to min(LU_data.size(-2), LU_data.size(-1)) "
                           f"and its leading dims LU_data's, got {list(piv.shape)} for LU_data {list(LU_data.shape)}")
    ld = LU_data._data
    dt = B.np_dtype_of(ld)
    empty = wrap(B.zeros((0,), dt, like=ld))
    if unpack_data:
        L = LU_data[..., :, :k].tril(-1) + wrap(B.eye(m, k, dtype=dt, like=ld))
        U = LU_data[..., :k, :].triu()
    else:
        L = U = empty
    P = PermFromPivots.apply(piv, m, dt) if unpack_pivots else empty
    return LuUnpackResult(P, L, U)


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """``torch.linalg.lu_solve``: ``X`` with ``A X = B`` from ``A``'s :func:`lu_factor`
    (``left=False``: ``X A = B``; ``adjoint=True``: ``A^T`` in place of ``A``).

    Derivative: the solution is written as permutation and two triangular solves
    (:func:`solve_triangular`), so gradients reach ``LU`` and ``B`` through those
    (PyTorch's ``linalg_lu_solve`` derivatives are the same identities).

    Args:
        LU (Tensor): ``(*, n, n)`` from :func:`linalg.lu_factor`.
        pivots (Tensor): ``(*, n)`` int32.
        B (Tensor): ``(*, n, k)`` (``left=False``: ``(*, k, n)``).
        left (bool): solve ``A X = B``; else ``X A = B``. Default: ``True``.
        adjoint (bool): solve with ``A^T``. Default: ``False``.
    Returns:
        Tensor: ``B``'s shape.
    Raises:
        RuntimeError: a non-square ``LU`` or shapes that do not match.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[2.0, 1.0], [1.0, 3.0]])
        >>> B = dyngrad.tensor([[1.0], [2.0]])
        >>> X = dyngrad.linalg.lu_solve(*dyngrad.linalg.lu_factor(A), B)
        >>> bool(dyngrad.allclose(A @ X, B))
        True
    """
    from .triangular import solve_triangular

    if LU._data.ndim < 2 or LU._data.shape[-1] != LU._data.shape[-2]:
        raise RuntimeError(f"linalg.lu_solve: Expected LU to be a batch of square matrices, got {list(LU.shape)}")
    n = LU._data.shape[-1]
    if B._data.shape[-2 if left else -1] != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and {'x'.join(map(str, B.shape[-2:]))})")
    P, L, U = lu_unpack(LU, pivots)
    if left and not adjoint:  # P L U X = B
        y = solve_triangular(L, P.mT @ B, upper=False, unitriangular=True)
        return solve_triangular(U, y, upper=True)
    if left:  # U^T L^T P^T X = B
        y = solve_triangular(U.mT, B, upper=False)
        return P @ solve_triangular(L.mT, y, upper=True, unitriangular=True)
    if not adjoint:  # X P L U = B
        y = solve_triangular(U, B, upper=True, left=False)
        return solve_triangular(L, y, upper=False, left=False, unitriangular=True) @ P.mT
    y = solve_triangular(L.mT, B @ P, upper=True, left=False, unitriangular=True)  # X U^T L^T P^T = B
    return solve_triangular(U.mT, y, upper=False, left=False)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """The deprecated ``torch.lu``: :func:`linalg.lu_factor` (``get_infos``: also LAPACK's
    ``info``). PyTorch warns that it is deprecated; so does dyngrad.

    Derivative: :func:`linalg.lu_factor`'s.

    Args:
        A (Tensor): ``(*, m, n)``, floating.
        pivot (bool): partial pivoting. Default: ``True``.
        get_infos (bool): return ``info`` too. Default: ``False``.
    Returns:
        (Tensor, Tensor) or (Tensor, Tensor, Tensor): ``(LU, pivots[, info])``.
    Raises:
        RuntimeError: as :func:`linalg.lu_factor`.

    Example:
        >>> import dyngrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     LU, piv = dyngrad.lu(dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
        >>> piv.tolist()
        [2, 2]
    """
    import warnings

    warnings.warn("torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be "
                  "removed in a future PyTorch release.", UserWarning, stacklevel=2)
    r = linalg_lu_factor_ex(A, pivot=pivot)
    return tuple(r) if get_infos else (r.LU, r.pivots)


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """The deprecated ``torch.lu_solve(b, LU_data, LU_pivots)``: :func:`linalg.lu_solve`
    with the arguments in the old order. PyTorch warns that it is deprecated; so does dyngrad.

    Derivative: :func:`linalg.lu_solve`'s.

    Args:
        b (Tensor): ``(*, n, k)``.
        LU_data (Tensor): ``(*, n, n)``.
        LU_pivots (Tensor): ``(*, n)``.
    Returns:
        Tensor: ``(*, n, k)``.
    Raises:
        RuntimeError: as :func:`linalg.lu_solve`.

    Example:
        >>> import dyngrad, warnings
        >>> A = dyngrad.tensor([[2.0, 1.0], [1.0, 3.0]])
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     x = dyngrad.lu_solve(dyngrad.tensor([[3.0], [4.0]]), *dyngrad.linalg.lu_factor(A))
        >>> x.reshape(-1).tolist()
        [1.0, 1.0]
    """
    import warnings

    warnings.warn("torch.lu_solve is deprecated in favor of torch.linalg.lu_solve and will be removed in a future "
                  "PyTorch release.", UserWarning, stacklevel=2)
    return linalg_lu_solve(LU_data, LU_pivots, b)
