"""Spectral decompositions (second file of the decomp family, re-exported by
:mod:`dyngrad.ops.decomp`; public as ``dyngrad.linalg.eigh``/``svd``): symmetric
eigendecomposition and singular value decomposition, batched ``(*, m, n)``."""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Op
from ._batching import leading_batch
from ._util import wrap, is_wrapper
from .decomp import _check, _eye_like
from .linalg import diag_embed, diagonal, matmul

__all__: list[str] = []
TENSOR_METHODS: set[str] = set()

eigh_return = namedtuple("eigh", ["eigenvalues", "eigenvectors"])
svd_return = namedtuple("svd", ["U", "S", "Vh"])


def _offdiag_inv(E: Tensor, n: int) -> Tensor:
    """``F_ij = 1 / E_ij`` off the diagonal, 0 on it (the diagonal of ``E`` is ignored)."""
    eye = _eye_like(n, E._data.dtype, E._data)
    return (1 - eye) / (E + eye)


class Eigh(Op):
    """``A = V diag(L) V^T`` for symmetric ``A: (*, n, n)`` (only the lower triangle is
    read), eigenvalues ``L`` ascending.

    ``grad_A = V (diag(grad_L) + F o skew(V^T grad_V)) V^T`` with ``F_ij = 1/(L_j - L_i)``
    (0 on the diagonal) and ``skew(X) = (X - X^T)/2`` (Giles 2008 sec. 3.1; Seeger, Hetzel,
    Dai, Meissner & Lawrence 2017, "Auto-differentiating linear algebra"; PyTorch's
    ``linalg_eig_backward``). Undefined (inf) for repeated eigenvalues when ``grad_V`` is
    not zero; eigenvalue-only gradients (``V diag(grad_L) V^T``) are always defined.

    Forward mode (:meth:`jvp`): with ``P = V^T sym(dA) V``, ``dL = diag(P)``,
    ``dV = V (F o P)`` (Giles 2008 sec. 3.1), the exact adjoint of the backward.
    """

    _node_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, uplo: str) -> tuple:
        d = A._data
        if B.native(d):
            lam, v = np.linalg.eigh(d, UPLO=uplo)
        else:  # the standard's eigh reads one triangle (which is not said): give it a symmetric matrix
            xp = B.namespace(d)
            t = xp.tril(d) if uplo == "L" else xp.triu(d)
            lam, v = xp.linalg.eigh(t + xp.matrix_transpose(xp.tril(d, k=-1) if uplo == "L" else xp.triu(d, k=1)))
        L, V = wrap(lam), wrap(v)
        ctx.save_for_backward(L, V)
        return L, V

    @staticmethod
    def backward(ctx: Any, gL: Tensor, gV: Tensor) -> tuple:
        L, V = ctx.saved_tensors
        n = L._data.shape[-1]
        if not is_wrapper(gV) and not B.any_true(gV._data):  # eigenvalues only: no
            # 1/(L_j - L_i), fine for repeated ones (batched backward: the general formula)
            return matmul(V * gL.unsqueeze(-2), V.mT), None
        VtgV = matmul(V.mT, gV)
        inner = (VtgV - VtgV.mT) * 0.5 * _offdiag_inv(L.unsqueeze(-2) - L.unsqueeze(-1), n)
        inner = inner + diag_embed(gL)
        return matmul(matmul(V, inner), V.mT), None

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, _uplo: Any = None) -> tuple:
        """Forward mode: ``P = V^T sym(u) V``, ``dL = diag(P)``, ``dV = V (F o P)``,
        ``F_ij = 1/(L_j - L_i)`` off the diagonal, 0 on it (Giles 2008 sec. 3.1). The
        tangent is symmetrized, ``sym(u) = (u + u^T)/2``, as the backward's gradient is
        symmetric: this is the exact adjoint of :meth:`backward` for any ``u`` and the
        derivative of the decomposition for symmetric ``u``. ``dV`` keeps each
        eigenvector's norm (``V^T dV`` skew), so it follows whatever sign the forward chose."""
        L, V = ctx.saved_tensors
        n = L._data.shape[-1]
        P = matmul(matmul(V.mT, (u + u.mT) * 0.5), V)
        F = _offdiag_inv(L.unsqueeze(-2) - L.unsqueeze(-1), n)
        return diagonal(P, 0, -2, -1), matmul(V, F * P)

    vmap = leading_batch  # batching rule: (*, n, n) already batches over leading dims


def eigh(A: Tensor, UPLO: str = "L") -> Any:
    """``linalg.eigh``: namedtuple ``(eigenvalues, eigenvectors)`` of symmetric
    ``(*, n, n)``: eigenvalues ``(*, n)`` ascending, eigenvectors the columns of
    ``(*, n, n)`` (each determined up to sign).

    Raises:
        RuntimeError: non-square, integer dtype, UPLO not 'L'/'U'.
    """
    _check("linalg.eigh", A)
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"linalg.eigh: UPLO must be 'L' or 'U', got {UPLO!r}")
    return eigh_return(*Eigh.apply(A, UPLO))


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """``linalg.eigvalsh``: the eigenvalues of :func:`eigh`."""
    return eigh(A, UPLO).eigenvalues


class Svd(Op):
    """``A = U diag(S) Vh``, ``A: (*, m, n)``, k = min(m, n), ``U: (*, m, k)``,
    ``S: (*, k)`` descending, ``Vh: (*, k, n)`` (reduced; see :func:`svd`).

    With ``V = Vh^T``, ``F_ij = 1/(s_j^2 - s_i^2)`` (0 on the diagonal) (Townsend 2016,
    "Differentiating the singular value decomposition"; Seeger et al. 2017)::

        grad_A = U [ (F o (U^T gU - gU^T U)) S + diag(gS) + S (F o (V^T gV - gV^T V)) ] V^T
                 + (I - U U^T) gU S^{-1} V^T + U S^{-1} gV^T (I - V V^T)

    Limitation: repeated singular values make ``F`` infinite and zero singular values make
    ``S^{-1}`` infinite when ``gU``/``gVh`` are non-zero; gradients of ``S`` alone
    (``U diag(gS) Vh``) are always defined, as in PyTorch.

    Forward mode (:meth:`jvp`): with ``P = U^T dA V`` (Townsend 2016 eqs. for dU, dS, dV;
    Giles 2008)::

        dS = diag(P),   dU = U (F o (P S + S P^T)) + (I - U U^T) dA V S^{-1},
        dV = V (F o (S P + P^T S)) + (I - V V^T) dA^T U S^{-1},   dVh = dV^T

    With ``full_matrices=True`` and ``m != n`` the extra columns of ``U`` / rows of ``Vh``
    (an arbitrary basis of a complement) get a zero tangent, as in PyTorch 2.13.
    """

    _node_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx: Any, A: Tensor, full_matrices: bool) -> tuple:
        d = A._data
        u, s, vh = (np.linalg if B.native(d) else B.namespace(d).linalg).svd(d, full_matrices=full_matrices)
        U, S, Vh = wrap(u), wrap(s), wrap(vh)
        ctx.full = full_matrices
        ctx.save_for_backward(U, S, Vh)
        return U, S, Vh

    @staticmethod
    def backward(ctx: Any, gU: Tensor, gS: Tensor, gVh: Tensor) -> tuple:
        U, S, Vh = ctx.saved_tensors
        m, n = U._data.shape[-2], Vh._data.shape[-1]
        k = S._data.shape[-1]
        batched = is_wrapper(gU) or is_wrapper(gVh)  # (under vmap)
        if ctx.full and m != n:
            if not batched and (B.any_true(gU._data[..., k:]) or B.any_true(gVh._data[..., k:, :])):
                raise RuntimeError(
                    "linalg.svd: the derivative with full_matrices=True is not defined for the extra "
                    "columns of U / rows of Vh; use full_matrices=False"
                )
            U, gU, Vh, gVh = U[..., :, :k], gU[..., :, :k], Vh[..., :k, :], gVh[..., :k, :]
        if not batched and not B.any_true(gU._data) and not B.any_true(gVh._data):  # only S: no F (defined
            return matmul(U * gS.unsqueeze(-2), Vh), None  # for repeated singular values)
        V, gV = Vh.mT, gVh.mT
        S2 = S * S
        F = _offdiag_inv(S2.unsqueeze(-2) - S2.unsqueeze(-1), k)
        UtgU, VtgV = matmul(U.mT, gU), matmul(V.mT, gV)
        Sm = diag_embed(S)
        inner = matmul(F * (UtgU - UtgU.mT), Sm) + diag_embed(gS) + matmul(Sm, F * (VtgV - VtgV.mT))
        gA = matmul(matmul(U, inner), Vh)
        Sinv = (1 / S).unsqueeze(-2)  # (*, 1, k): scales columns
        if m > k:
            gA = gA + matmul((gU - matmul(U, UtgU)) * Sinv, Vh)
        if n > k:
            gA = gA + matmul(U * Sinv, gV.mT - matmul(VtgV.mT, Vh))
        return gA, None

    # hand-written: a matrix function: its Jacobian is not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, _full: Any = None) -> tuple:
        """Forward mode (Townsend 2016; see the class docstring): ``dU``, ``dS``, ``dVh``.
        ``U^T dU`` and ``V^T dV`` are skew, so the tangents follow the forward's signs."""
        U, S, Vh = ctx.saved_tensors
        m, n = U._data.shape[-2], Vh._data.shape[-1]
        k = S._data.shape[-1]
        pad = ctx.full and m != n
        if pad:
            U, Vh = U[..., :, :k], Vh[..., :k, :]
        V = Vh.mT
        uV = matmul(u, V)  # dA V, (*, m, k)
        P = matmul(U.mT, uV)
        S2 = S * S
        F = _offdiag_inv(S2.unsqueeze(-2) - S2.unsqueeze(-1), k)
        PS = P * S.unsqueeze(-2)  # P S
        SP = S.unsqueeze(-1) * P  # S P
        dU = matmul(U, F * (PS + PS.mT))
        dV = matmul(V, F * (SP + SP.mT))
        Sinv = (1 / S).unsqueeze(-2)
        if m > k:
            dU = dU + (uV - matmul(U, P)) * Sinv
        if n > k:
            uTU = matmul(u.mT, U)  # dA^T U, (*, n, k)
            dV = dV + (uTU - matmul(V, P.mT)) * Sinv
        dVh = dV.mT
        if pad:
            from .splitting import cat

            if m > k:
                dU = cat([dU, wrap(B.zeros(dU._data.shape[:-1] + (m - k,), B.np_dtype_of(dU._data), like=dU._data))], -1)
            else:
                dVh = cat([dVh, wrap(B.zeros(dVh._data.shape[:-2] + (n - k, n), B.np_dtype_of(dVh._data), like=dVh._data))], -2)
        return dU, diagonal(P, 0, -2, -1), dVh

    vmap = leading_batch  # batching rule: (*, m, n) already batches over leading dims


def svd(A: Tensor, full_matrices: bool = True) -> Any:
    """``linalg.svd``: namedtuple ``(U, S, Vh)`` with ``A = U diag(S) Vh``; ``S``
    descending. ``full_matrices=True`` (PyTorch's default) returns square ``U``/``Vh``;
    gradients flow only through the reduced part (an error if the extra columns get one).

    Raises:
        RuntimeError: fewer than 2 dims or integer dtype.
    """
    _check("linalg.svd", A, square=False)
    return svd_return(*Svd.apply(A, bool(full_matrices)))


def svdvals(A: Tensor) -> Tensor:
    """``linalg.svdvals``: the singular values (descending) of ``(*, m, n)``."""
    return svd(A, full_matrices=False).S
