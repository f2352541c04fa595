"""Matrix functions and decompositions (PyTorch's ``torch.linalg``): inv, det, slogdet,
solve, cholesky, qr, and (from :mod:`dyngrad.ops.spectral`) eigh, svd. All take batches
``(*, m, n)``; the public namespace is
:mod:`dyngrad.linalg`. ``det``, ``slogdet``, ``logdet`` and ``inverse`` are also top-level
functions and Tensor methods, as in PyTorch.

Every backward is written with dyngrad ops (differentiable again) unless stated.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as _B
from ..tensor import Tensor
from ._bases import Op
from ._batching import front, leading_batch, logical_ndim, pad_to
from ._util import wrap
from .linalg import matmul
from .. import _backend as B


class LinAlgError(RuntimeError):
    """Raised by a linear-algebra function whose input does not admit the result: a singular
    matrix for ``linalg.inv``/``solve``, one not positive-definite for ``linalg.cholesky``
    (PyTorch's ``torch.linalg.LinAlgError``, a RuntimeError subclass, so ``except
    RuntimeError`` still catches it).

    Args:
        message (str): what failed and the input's shape.

    Raises:
        Nothing: it is raised, not raising.

    Example:
        >>> import dyngrad
        >>> try:
        ...     dyngrad.linalg.inv(dyngrad.zeros(2, 2))
        ... except dyngrad.linalg.LinAlgError as e:
        ...     print(type(e).__name__, isinstance(e, RuntimeError))
        LinAlgError True
    """

__all__ = ["det", "slogdet", "logdet", "inverse"]
TENSOR_METHODS = set(__all__)

slogdet_return = namedtuple("slogdet", ["sign", "logabsdet"])
qr_return = namedtuple("qr", ["Q", "R"])


def _check(op: str, A: Tensor, square: bool = True) -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{op}(): argument 'A' must be Tensor, not {type(A).__name__}")
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"{op}: The input tensor A must have at least 2 dimensions.")
    if B.kind(d) != "f":
        raise RuntimeError(f"{op}: Expected a floating point or complex tensor as input. Got {A.dtype.name}")
    if square and d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"{op}: A must be batches of square matrices, but they are {d.shape[-2]} by {d.shape[-1]} matrices"
        )


def _eye_like(n: int, dt: Any, like: Any = None) -> Tensor:
    """``eye(n)`` of dtype ``dt`` in the array library of ``like`` (an array; NumPy for None)."""
    if like is None:
        return wrap(np.eye(n, dtype=dt))
    return wrap(B.eye(n, dtype=B.np_dtype_of(like), like=like))


def _linalg(d: Any) -> Any:
    """The ``linalg`` namespace for array ``d``: :mod:`numpy.linalg` for NumPy (CuPy and
    Dask dispatch through it), the standard's ``linalg`` extension for an Array API array."""
    return np.linalg if B.native(d) else B.namespace(d).linalg


class Inv(Op):
    """``out = A^{-1}``, ``A: (*, n, n)``; ``grad_A = -out^T grad out^T`` (Giles 2008,
    "An extended collection of matrix derivative results", sec. 3.1)."""

    _node_name = "LinalgInvExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        try:
            out = wrap(_linalg(A._data).inv(A._data))
        except np.linalg.LinAlgError:
            raise LinAlgError(
                "linalg.inv: The input matrix is singular, the inversion could not be completed "
                f"(input shape {list(A._data.shape)})"
            ) from None
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        oT = out.mT
        return -matmul(matmul(oT, g), oT)

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Any:
        """Forward mode: ``t = -out u out`` (Giles 2008 sec. 3.1)."""
        (out,) = ctx.saved_tensors
        return -matmul(matmul(out, u), out)

    vmap = leading_batch  # batching rule: (*, n, n) already batches over leading dims


def inv(A: Tensor) -> Tensor:
    """``linalg.inv``: inverse of square matrices ``(*, n, n)``.

    ``dyngrad.inverse`` and ``dyngrad.linalg.inv`` are this function.

    Derivative: ``grad_A = -A^{-T} grad_output A^{-T}`` (Giles 2008, "An extended collection
    of matrix derivative results", sec. 3.1; derivatives.yaml ``linalg_inv_ex``).

    Args:
        A (Tensor): ``(*, n, n)``, floating, invertible.
    Returns:
        Tensor: ``(*, n, n)``, ``A``'s dtype.
    Raises:
        RuntimeError: non-square, fewer than 2 dims, integer dtype; for a singular input
            :class:`dyngrad.linalg.LinAlgError` (a RuntimeError subclass, as PyTorch's).

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[2.0, 0.0], [1.0, 1.0]], requires_grad=True)
        >>> Ainv = dyngrad.inverse(A)
        >>> Ainv.detach()
        tensor([[ 0.5000,  0.0000],
                [-0.5000,  1.0000]])
        >>> bool(dyngrad.allclose(A @ Ainv, dyngrad.eye(2)))
        True
    """
    _check("linalg.inv", A)
    return Inv.apply(A)


inverse = inv


def _cofactor(a: np.ndarray) -> np.ndarray:
    """Cofactor matrix ``adj(A)^T`` via the SVD, valid for singular ``A`` too:
    ``adj(A) = det(U) det(V) V diag(prod_{j != i} s_j) U^T``."""
    if not B.native(a):
        xp = B.namespace(a)
        u, s, vh = xp.linalg.svd(a)
        n = s.shape[-1]
        p = xp.stack([xp.prod(xp.concat([s[..., :i], s[..., i + 1:]], axis=-1), axis=-1) for i in range(n)], axis=-1)
        sgn = xp.linalg.det(u) * xp.linalg.det(vh)
        adj = xp.matrix_transpose(vh) @ (p[..., :, None] * xp.matrix_transpose(u))
        return xp.matrix_transpose(adj) * sgn[..., None, None]
    u, s, vh = np.linalg.svd(a)
    n = s.shape[-1]
    p = np.stack([np.prod(np.delete(s, i, axis=-1), axis=-1) for i in range(n)], axis=-1)
    sgn = np.linalg.det(u) * np.linalg.det(vh)
    adj = np.swapaxes(vh, -1, -2) @ (p[..., :, None] * np.swapaxes(u, -1, -2))
    return np.swapaxes(adj, -1, -2) * sgn[..., None, None]


class Det(Op):
    """``out = det(A)``, ``A: (*, n, n) -> (*)``; ``grad_A = grad * det(A) * A^{-T}``
    (Jacobi's formula; Giles 2008 sec. 3.1). At an exactly singular ``A`` the cofactor
    matrix ``adj(A)^T`` (from the SVD) is used instead, the true derivative (finite
    differences agree). PyTorch 2.13 returns 0 there instead; dyngrad deliberately differs.
    That branch is not differentiable twice (its gradient is a constant)."""

    _node_name = "LinalgDetBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            out = wrap(_B.asarray_any(_linalg(A._data).det(A._data), dtype=A._data.dtype))
        ctx.save_for_backward(A, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        A, out = ctx.saved_tensors
        gd = (g * out).unsqueeze(-1).unsqueeze(-1)
        if B.all_true(out._data != 0):
            return gd * inv(A).mT
        return g.unsqueeze(-1).unsqueeze(-1) * wrap(B.astype(_cofactor(A._data), B.np_dtype_of(A._data)))

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Any:
        """Forward mode: ``t = det(A) * trace(A^{-1} u)`` (Jacobi's formula); at a singular
        ``A``, ``sum(cofactor(A) * u)``."""
        A, out = ctx.saved_tensors
        if B.all_true(out._data != 0):
            return out * (inv(A).mT * u).sum((-2, -1))
        return (wrap(B.astype(_cofactor(A._data), B.np_dtype_of(A._data))) * u).sum((-2, -1))

    vmap = leading_batch  # batching rule: (*, n, n) already batches over leading dims


def det(A: Tensor) -> Tensor:
    """The determinant of each square matrix in ``A`` (``linalg.det``), via an LU factorization.

    Derivative: ``grad_A = grad_output * adj(A)^T`` (the cofactor matrix; ``det(A) * A^{-T}`` when
    ``A`` is invertible; Jacobi's formula). At a singular ``A`` dyngrad returns the cofactor
    matrix, the true derivative, where PyTorch 2.13 returns zeros (for ``[[1, 2], [2, 4]]``
    dyngrad gives ``[[4, -2], [-2, 1]]``).

    Args:
        A (Tensor): ``(*, n, n)``, floating.
    Returns:
        Tensor: ``(*)``, ``A``'s dtype (an empty ``(0, 0)`` matrix has determinant 1).
    Raises:
        RuntimeError: when ``A`` has fewer than 2 dims, is not square, or is not floating.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> dyngrad.det(A)
        tensor(-2., grad_fn=<LinalgDetBackward0>)
        >>> dyngrad.det(A).backward()
        >>> A.grad
        tensor([[ 4., -3.],
                [-2.,  1.]])
    """
    _check("linalg.det", A)
    return Det.apply(A)


class Slogdet(Op):
    """``(sign, logabsdet) = slogdet(A)``; ``grad_A = grad_logabsdet * A^{-T}``; ``sign`` is
    not differentiable (a real sign is piecewise constant). Source: Giles 2008 sec. 3.1."""

    _node_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            s, logabs = _linalg(A._data).slogdet(A._data)
        dt = A._data.dtype
        sign = wrap(_B.asarray_any(s, dtype=dt))
        ctx.mark_non_differentiable(sign)
        ctx.save_for_backward(A)
        return sign, wrap(_B.asarray_any(logabs, dtype=dt))

    @staticmethod
    def backward(ctx: Any, _gs: Any, g: Tensor) -> Tensor:
        (A,) = ctx.saved_tensors
        return g.unsqueeze(-1).unsqueeze(-1) * inv(A).mT

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Any:
        """Forward mode: ``t_logabsdet = trace(A^{-1} u)``; ``sign`` gets no tangent."""
        (A,) = ctx.saved_tensors
        return None, (inv(A).mT * u).sum((-2, -1))

    vmap = leading_batch  # batching rule: (*, n, n) already batches over leading dims


def slogdet(A: Tensor) -> Any:
    """``linalg.slogdet``: namedtuple ``(sign, logabsdet)`` of ``(*, n, n)``, each ``(*)``.
    A singular matrix gives ``(0, -inf)`` (its backward raises: singular inverse).

    Derivative: ``grad_A = grad_logabsdet * A^{-T}`` (Jacobi's formula, ``d log|det A| =
    tr(A^{-1} dA)``; derivatives.yaml ``slogdet_backward``); ``sign`` has no gradient.

    Args:
        A (Tensor): ``(*, n, n)``, floating.
    Returns:
        tuple of Tensor: ``(sign, logabsdet)`` namedtuple, each ``(*)``; ``sign`` is -1, 0 or 1.
    Raises:
        RuntimeError: non-square, fewer than 2 dims, or an integer dtype.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[-2.0, 0.0], [1.0, 3.0]], requires_grad=True)
        >>> sign, logabsdet = dyngrad.slogdet(A)
        >>> sign, logabsdet.detach()
        (tensor(-1.), tensor(1.7918))
        >>> logabsdet.backward()
        >>> bool(dyngrad.allclose(A.grad, dyngrad.inverse(A).mT.detach()))
        True
    """
    _check("linalg.slogdet", A)
    return slogdet_return(*Slogdet.apply(A))


def logdet(A: Tensor) -> Tensor:
    """``log(det(A))``: nan (with a zero gradient, as in PyTorch) for a negative
    determinant, -inf for a singular matrix. Written with tensor ops only (no branch on
    ``sign``'s values); under vmap it batches once ``<`` has a batching rule.

    Derivative: ``grad_A = grad_output * A^{-T}`` (Jacobi's formula, through
    :func:`slogdet`'s ``logabsdet``).

    Args:
        A (Tensor): ``(*, n, n)``, floating.
    Returns:
        Tensor: ``(*)``, ``A``'s dtype.
    Raises:
        RuntimeError: non-square, fewer than 2 dims, or an integer dtype.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[2.0, 0.0], [1.0, 3.0]], requires_grad=True)
        >>> y = dyngrad.logdet(A)
        >>> y.backward()
        >>> y.detach(), A.grad
        (tensor(1.7918), tensor([[ 0.5000, -0.1667],
                [ 0.0000,  0.3333]]))
        >>> dyngrad.logdet(dyngrad.tensor([[-1.0, 0.0], [0.0, 1.0]]))
        tensor(nan)
    """
    sign, la = slogdet(A)
    return la.masked_fill(sign < 0, float("nan"))


class Solve(Op):
    """``X = A^{-1} B`` for ``A: (*, n, n)``, ``B: (*, n, k)`` (batch dims broadcast);
    ``grad_B = A^{-T} grad`` (a solve with ``A^T``), ``grad_A = -grad_B X^T`` (Giles 2008
    sec. 3.1)."""

    _node_name = "LinalgSolveExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Tensor) -> Tensor:
        try:
            X = wrap(_linalg(A._data).solve(A._data, B._data))
        except np.linalg.LinAlgError:
            raise LinAlgError(
                f"linalg.solve: The solver failed because the input matrix is singular (A shape {list(A._data.shape)})"
            ) from None
        ctx.save_for_backward(A, X)
        return X

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        A, X = ctx.saved_tensors
        gB = Solve.apply(A.mT, g)
        gA = -matmul(gB, X.mT) if ctx.needs_input_grad[0] else None
        return gA, gB

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, uA: Any, uB: Any) -> Any:
        """Forward mode: ``t = A^{-1} (uB - uA X)`` (Giles 2008 sec. 3.1)."""
        A, X = ctx.saved_tensors
        r = uB if uA is None else (-matmul(uA, X) if uB is None else uB - matmul(uA, X))
        return Solve.apply(A, r)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, A: Tensor, B: Tensor) -> Any:
        """Batching rule. :func:`solve` has already made ``B`` a matrix ``(*, n, k)`` (a
        vector right-hand side is unsqueezed on its logical shape), so both arguments batch
        over leading dims, which broadcast: each batched argument gets its batch dim in
        front, then size-1 dims after it up to the larger per-example batch rank, so the
        batch dim never lines up with a per-example dim of the other argument."""
        dA, dB = in_dims
        rank = max(logical_ndim(A, dA), logical_ndim(B, dB))
        A2 = A if dA is None else pad_to(front(A, dA), rank)
        B2 = B if dB is None else pad_to(front(B, dB), rank)
        return info.function.apply(A2, B2), 0


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """``linalg.solve``: ``X`` with ``A X = B`` (``left=False``: ``X A = B``).

    ``B`` is a batch of vectors when ``B.ndim == 1`` or ``B.shape == A.shape[:-1]``,
    else of matrices ``(*, n, k)``; batch dims broadcast.

    Raises:
        RuntimeError: non-square ``A``, mismatched sizes (shapes named), singular ``A``,
            or different dtypes.
    """
    _check("linalg.solve", A)
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type {A.dtype.name} and B of type {B.dtype.name} instead")
    if not left:
        return solve(A.mT, B.mT).mT
    n = A._data.shape[-1]
    vec = B._data.ndim == 1 or B._data.shape == A._data.shape[:-1]
    Bm = B.unsqueeze(-1) if vec else B
    if Bm._data.ndim < 2 or Bm._data.shape[-2] != n:
        raise RuntimeError(
            f"linalg.solve: Incompatible shapes of A and B for the equation AX = B ({list(A._data.shape)} and {list(B._data.shape)})"
        )
    try:
        np.broadcast_shapes(A._data.shape[:-2], Bm._data.shape[:-2])
    except ValueError:
        raise RuntimeError(
            f"linalg.solve: batch dims of A {list(A._data.shape)} and B {list(B._data.shape)} do not broadcast"
        ) from None
    X = Solve.apply(A, Bm)
    return X.squeeze(-1) if vec else X


class Cholesky(Op):
    """``L = cholesky(A)`` (lower, ``A = L L^T``, only ``A``'s lower triangle is read);
    ``grad_A = sym(L^{-T} Phi(L^T grad) L^{-1})`` with ``Phi`` the lower triangle with a
    halved diagonal and ``sym(X) = (X + X^T) / 2`` (Murray 2016, "Differentiation of the
    Cholesky decomposition", and PyTorch's ``cholesky_backward``)."""

    _node_name = "LinalgCholeskyExBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        try:
            L = wrap(_linalg(A._data).cholesky(A._data))
        except np.linalg.LinAlgError:
            raise LinAlgError(
                "linalg.cholesky: The factorization could not be completed because the input is not "
                f"positive-definite (input shape {list(A._data.shape)})"
            ) from None
        ctx.save_for_backward(L)
        return L

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (L,) = ctx.saved_tensors
        n = L._data.shape[-1]
        P = matmul(L.mT, g).tril()
        P = P - P * (0.5 * _eye_like(n, L._data.dtype, L._data))
        Linv = inv(L)
        S = matmul(matmul(Linv.mT, P), Linv)
        return (S + S.mT) * 0.5

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Any:
        """Forward mode: ``t = L Phi(L^{-1} sym(u) L^{-T})`` (Murray 2016, the
        convention of backward: ``u`` symmetrized; ``Phi`` as there)."""
        (L,) = ctx.saved_tensors
        Li = inv(L)
        X = matmul(matmul(Li, (u + u.mT) * 0.5), Li.mT)
        eye = _eye_like(X.shape[-1], X._data.dtype, X._data)
        return matmul(L, X.tril(-1) + X * eye * 0.5)

    vmap = leading_batch  # batching rule: (*, n, n) already batches over leading dims


def cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """``linalg.cholesky``: ``L`` (lower) with ``A = L L^T`` for symmetric positive-definite
    ``(*, n, n)``; ``upper=True`` returns ``L^T``.

    Raises:
        RuntimeError: non-square, or not positive-definite.
    """
    _check("linalg.cholesky", A)
    L = Cholesky.apply(A)
    return L.mT if upper else L


class Qr(Op):
    """Reduced ``A = Q R``, ``A: (*, m, n)``, ``Q: (*, m, k)``, ``R: (*, k, n)``, k = min(m, n).

    For ``m >= n``: ``M = R grad_R^T - grad_Q^T Q``,
    ``grad_A = (grad_Q + Q copyltu(M)) R^{-T}`` with ``copyltu(M) = tril(M) + tril(M, -1)^T``
    (Liao, Liu, Wang & Xiang 2019, "Differentiable programming tensor networks", eq. 7;
    Walter & Lehmann 2018). For ``m < n``, ``A = [X | Y]``, ``R = [U | V]``: ``grad_Y = Q
    grad_V`` and ``grad_X`` is the square rule with ``grad_Q + Y grad_V^T`` (same source).
    Needs ``R`` invertible (full-rank ``A``).

    Forward mode (:meth:`jvp`), ``m >= n``: ``Z = dA R^{-1}``, ``X = Q^T Z``,
    ``Omega = tril(X, -1) - tril(X, -1)^T`` (``= Q^T dQ``, skew), ``dR = (X - Omega) R``
    (upper triangular), ``dQ = Z - Q (X - Omega)`` (Walter & Lehmann 2018, "On evaluating
    higher-order derivatives of the QR decomposition"; Roberts et al. 2020, forward form:
    differentiate ``A = Q R`` with ``Q^T dQ`` skew and ``dR R^{-1}`` upper triangular).
    ``m < n``: the square rule on ``X = A[:, :m]`` gives ``dQ, dU``, and
    ``dV = dQ^T Y + Q^T dY`` for ``R = [U | V]``, ``A = [X | Y]``.
    """

    _node_name = "LinalgQrBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> tuple:
        q, r = _linalg(A._data).qr(A._data, mode="reduced")
        Q, R = wrap(q), wrap(r)
        ctx.save_for_backward(A, Q, R)
        return Q, R

    @staticmethod
    def backward(ctx: Any, gQ: Tensor, gR: Tensor) -> Tensor:
        A, Q, R = ctx.saved_tensors
        m, n = A._data.shape[-2:]
        if m >= n:
            return _qr_square_grad(Q, R, gQ, gR)
        Y = A[..., :, m:]
        U, gU, gV = R[..., :, :m], gR[..., :, :m], gR[..., :, m:]
        gX = _qr_square_grad(Q, U, gQ + matmul(Y, gV.mT), gU)
        gY = matmul(Q, gV)
        from .splitting import cat

        return cat([gX, gY], -1)

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> tuple:
        """Forward mode (class docstring): tangents ``(dQ, dR)``."""
        A, Q, R = ctx.saved_tensors
        m, n = A._data.shape[-2:]
        if m >= n:
            return _qr_square_jvp(Q, R, u)
        dQ, dU = _qr_square_jvp(Q, R[..., :, :m], u[..., :, :m])
        dV = matmul(dQ.mT, A[..., :, m:]) + matmul(Q.mT, u[..., :, m:])
        from .splitting import cat

        return dQ, cat([dU, dV], -1)

    vmap = leading_batch  # batching rule: (*, m, n) already batches over leading dims


def _qr_square_jvp(Q: Tensor, R: Tensor, u: Tensor) -> tuple:
    Z = Solve.apply(R.mT, u.mT).mT  # u R^{-1}
    X = matmul(Q.mT, Z)
    lo = X.tril(-1)
    W = X - (lo - lo.mT)  # dR R^{-1}: upper triangular
    return Z - matmul(Q, W), matmul(W, R)


def _qr_square_grad(Q: Tensor, R: Tensor, gQ: Tensor, gR: Tensor) -> Tensor:
    M = matmul(R, gR.mT) - matmul(gQ.mT, Q)
    copyltu = M.tril() + M.tril(-1).mT
    b = gQ + matmul(Q, copyltu)
    return Solve.apply(R, b.mT).mT  # b R^{-T}


def qr(A: Tensor, mode: str = "reduced") -> Any:
    """``linalg.qr``: namedtuple ``(Q, R)``; only ``mode='reduced'`` is supported.

    Raises:
        RuntimeError: other modes, fewer than 2 dims, integer dtype.
    """
    _check("linalg.qr", A, square=False)
    if mode != "reduced":
        raise RuntimeError(f"linalg.qr: mode={mode!r} is not supported by dyngrad (only 'reduced')")
    return qr_return(*Qr.apply(A))

