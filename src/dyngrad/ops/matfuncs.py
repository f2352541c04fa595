"""Matrix functions: ``matrix_exp`` (PyTorch's ``torch.matrix_exp`` /
``torch.linalg.matrix_exp``) and ``linalg.householder_product`` (LAPACK's ``orgqr``), the
two maps behind ``nn.utils.parametrizations.orthogonal``; plus ``geqrf`` (not
differentiable, as in PyTorch) to produce Householder reflectors.

Every backward is written with dyngrad ops (differentiable again).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._bases import Op
from ._batching import leading_batch
from ._util import wrap
from .linalg import matmul
from .. import _backend as B

__all__ = ["matrix_exp"]
TENSOR_METHODS = set(__all__)

# Padé [13/13] coefficients and the 1-norm bound under which degree 13 is exact to double
# precision (Higham 2005, "The scaling and squaring method for the matrix exponential
# revisited", table 2.3 and eq. 2.3).
_B13 = (64764752532480000.0, 32382376266240000.0, 7771770303897600.0, 1187353796428800.0, 129060195264000.0,
        10559470521600.0, 670442572800.0, 33522128640.0, 1323241920.0, 40840800.0, 960960.0, 16380.0, 182.0, 1.0)
_THETA13 = 5.371920351148152


def _expm(a: np.ndarray) -> np.ndarray:
    """``exp(a)`` for ``a: (*, n, n)`` by scaling and squaring with a Padé [13/13]
    approximant (Higham 2005, algorithm 2.3, degree 13 only), computed in float64 and cast
    back to ``a``'s dtype."""
    if not B.native(a):
        return _expm_xp(a)
    dt = a.dtype
    x = a.astype(np.float64)
    n = x.shape[-1]
    if x.size == 0:
        return x.astype(dt)
    norm = np.abs(x).sum(-2).max(-1)  # 1-norm of each matrix: (*)
    with np.errstate(divide="ignore"):
        s = np.maximum(0, np.ceil(np.log2(np.where(norm > 0, norm, 1.0) / _THETA13))).astype(np.int64)
    if not np.all(np.isfinite(norm)):
        return np.full_like(x, np.nan).astype(dt)
    x = x / np.exp2(s)[..., None, None]
    b = _B13
    eye = np.broadcast_to(np.eye(n), x.shape)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for k in range(int(s.max()) if s.size else 0):  # square each matrix s times
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            r = np.where((s > k)[..., None, None], r @ r, r)
    return r.astype(dt)


def _expm_xp(a: Any) -> Any:
    """:func:`_expm` with the Array API standard's functions (an array-api-strict array): the
    same steps, so the same numbers (``2**s`` as ``pow(2.0, s)``, exact like ``exp2``)."""
    xp = B.namespace(a)
    dt = B.np_dtype_of(a)
    f64 = xp.float64
    x = xp.astype(a, f64)
    n = x.shape[-1]
    if math.prod(x.shape) == 0:
        return B.astype(x, dt)
    norm = xp.max(xp.sum(xp.abs(x), axis=-2), axis=-1)  # 1-norm of each matrix: (*)
    with np.errstate(divide="ignore"):
        s = xp.astype(xp.clip(xp.ceil(xp.log2(xp.where(norm > 0, norm, 1.0) / _THETA13)), min=0.0), xp.int64)
    if not B.all_true(xp.isfinite(norm)):
        return B.astype(xp.full(x.shape, math.nan, dtype=f64), dt)
    x = x / xp.pow(2.0, xp.astype(s, f64))[..., None, None]
    b = _B13
    eye = xp.broadcast_to(xp.eye(n, dtype=f64), x.shape)
    x2 = x @ x
    x4 = x2 @ x2
    x6 = x4 @ x2
    u = x @ (x6 @ (b[13] * x6 + b[11] * x4 + b[9] * x2) + b[7] * x6 + b[5] * x4 + b[3] * x2 + b[1] * eye)
    v = x6 @ (b[12] * x6 + b[10] * x4 + b[8] * x2) + b[6] * x6 + b[4] * x4 + b[2] * x2 + b[0] * eye
    r = xp.linalg.solve(v - u, v + u)
    for k in range(int(xp.max(s))):  # square each matrix s times
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            r = xp.where((s > k)[..., None, None], r @ r, r)
    return B.astype(r, dt)


def _block_upper(A: Tensor, B_: Tensor) -> Tensor:
    """``[[A, B], [0, A]]`` for ``A, B: (*, n, n)`` (differentiable in both)."""
    from .splitting import cat

    z = A * 0
    return cat([cat([A, B_], -1), cat([z, A], -1)], -2)


class MatrixExp(Op):
    """``out = exp(A) = sum_k A^k / k!``, ``A: (*, n, n)``, ``out: (*, n, n)``.

    Backward: ``grad_A = exp([[A^T, grad], [0, A^T]])[:n, n:]``, the Fréchet derivative of
    ``exp`` at ``A^T`` in the direction ``grad`` (Najfeld & Havel 1995, "Derivatives of the
    matrix exponential and their computation", eq. 11 — the block-triangular identity
    PyTorch's ``linalg_matrix_exp_differential`` uses).
    """

    _node_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor) -> Tensor:
        ctx.save_for_backward(A)
        return wrap(_expm(A._data))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> Tensor:
        (A,) = ctx.saved_tensors
        n = A._data.shape[-1]
        return MatrixExp.apply(_block_upper(A.mT, g))[..., :n, n:]

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor) -> Tensor:
        """Forward mode: ``t = exp([[A, u], [0, A]])[:n, n:]`` (same identity)."""
        (A,) = ctx.saved_tensors
        n = A._data.shape[-1]
        return MatrixExp.apply(_block_upper(A, u))[..., :n, n:]

    vmap = leading_batch  # batching rule: (*, n, n) already batches over leading dims


def matrix_exp(A: Tensor) -> Tensor:
    """``torch.matrix_exp`` / ``linalg.matrix_exp``: the exponential of square matrices.

    Derivative: ``grad_A`` is the top-right block of ``exp([[A^T, grad_output], [0, A^T]])``
    (the block-triangular identity of Mathias 1996; PyTorch's ``linalg_matrix_exp_differential``).

    Args:
        A (Tensor): ``(*, n, n)``, floating.
    Returns:
        Tensor: ``(*, n, n)``: ``exp(A)`` (Padé [13/13] with scaling and squaring, in float64),
        ``A``'s dtype.
    Raises:
        RuntimeError: fewer than 2 dims, non-square, or an integer dtype.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.tensor([[0.0, 1.0], [0.0, 0.0]], requires_grad=True)
        >>> E = dyngrad.matrix_exp(A)
        >>> E.detach()
        tensor([[1., 1.],
                [0., 1.]])
        >>> E.sum().backward()
        >>> A.grad
        tensor([[1.5000, 1.0000],
                [2.1667, 1.5000]])
    """
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"linalg.matrix_exp: The input tensor A must have at least 2 dimensions (got {d.ndim}).")
    if d.shape[-1] != d.shape[-2]:
        raise RuntimeError(
            f"linalg.matrix_exp: A must be batches of square matrices, but they are {d.shape[-2]} by "
            f"{d.shape[-1]} matrices"
        )
    if B.kind(d) not in "f":
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point tensor, but got {A.dtype}")
    return MatrixExp.apply(A)


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """``linalg.householder_product`` (LAPACK ``orgqr``): the first ``n`` columns of
    ``H_1 H_2 ... H_k``, ``H_i = I - tau_i v_i v_i^T``, where ``v_i`` is column ``i`` of
    ``A`` below the diagonal with a 1 on it and zeros above.

    Composed of dyngrad ops (applied right to left, ``Q <- Q - tau_i v_i (v_i^T Q)``), so
    its backward, forward mode and batching come from theirs.

    Args:
        A: ``(*, m, n)``, ``m >= n``.
        tau: ``(*, k)``, ``k <= n``.
    Returns:
        ``(*, m, n)``.
    Raises:
        RuntimeError: fewer than 2 dims, ``m < n``, ``k > n``, batch shapes that differ,
        or different dtypes.
    """
    op = "torch.linalg.householder_product"
    if A._data.ndim < 2:
        raise RuntimeError(f"{op}: input must have at least 2 dimensions.")
    m, n = A._data.shape[-2:]
    if m < n:
        raise RuntimeError(f"{op}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if tau._data.ndim < 1 or n < tau._data.shape[-1]:
        raise RuntimeError(f"{op}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    if A._data.ndim - tau._data.ndim != 1 or A._data.shape[:-2] != tau._data.shape[:-1]:
        raise RuntimeError(
            f"{op}: Expected batch dimensions of tau to be equal to input.shape[:-2], but got "
            f"{list(tau._data.shape[:-1])}"
        )
    if A._data.dtype != tau._data.dtype:
        raise RuntimeError(f"{op}: tau dtype {tau.dtype} does not match input dtype {A.dtype}")
    k = tau._data.shape[-1]
    ad = A._data
    dt = B.np_dtype_of(ad)
    Q = wrap(B.eye(m, n, dtype=dt, like=ad))
    rows = np.arange(m)
    for i in reversed(range(k)):
        below = wrap(B.like((rows > i).astype(dt), ad))  # (constants in A's library)
        unit = wrap(B.like((rows == i).astype(dt), ad))
        v = (A[..., :, i] * below + unit).unsqueeze(-1)  # (*, m, 1)
        Q = Q - tau[..., i, None, None] * matmul(v, matmul(v.mT, Q))
    return Q


def geqrf(A: Tensor) -> tuple[Tensor, Tensor]:
    """``torch.geqrf`` (LAPACK ``geqrf``): ``(a, tau)`` with ``R`` on and above the diagonal
    of ``a`` and the Householder vectors below it. Not differentiable (as in PyTorch).

    Args:
        A: ``(*, m, n)``.
    Returns:
        ``a: (*, m, n)``, ``tau: (*, min(m, n))``.
    """
    d = A._data
    if d.ndim < 2:
        raise RuntimeError(f"geqrf: The input tensor A must have at least 2 dimensions (got {d.ndim}).")
    batch = d.shape[:-2]
    flat = d.reshape((-1,) + d.shape[-2:])
    outs, taus = [], []
    for mat in flat:
        h, t = np.linalg.qr(mat.astype(np.float64), mode="raw")  # h is geqrf's output transposed
        outs.append(h.T)
        taus.append(t)
    k = min(d.shape[-2:])
    a = np.array(outs).reshape(d.shape).astype(d.dtype)
    tau = np.array(taus).reshape(batch + (k,)).astype(d.dtype)
    return wrap(a), wrap(tau)
