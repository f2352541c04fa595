"""``torch.lobpcg``: the ``k`` largest (or smallest) eigenpairs of a symmetric positive
definite generalized eigenproblem ``A x = lambda B x`` by LOBPCG (Knyazev 2001), with the
robust basis selection of ``method="ortho"`` (Stathopoulos and Wu 2002): each step
B-orthonormalizes the block ``[X, W, P]`` (current vectors, preconditioned residuals,
previous directions), dropping directions that have become dependent, and takes the
Rayleigh-Ritz vectors of ``A`` in that span.

Gradient: as PyTorch's ``LOBPCGAutogradFunction``, with respect to ``A`` only and only when
``B`` is None; ``A`` is symmetrized first (``(A + A^T) / 2``; PyTorch does it when ``A`` requires grad),
so ``A.grad`` is symmetric.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import once_differentiable
from ..tensor import Tensor
from ._bases import Op
from ._batching import front
from ._util import wrap
from .. import _backend

__all__ = ["lobpcg"]
TENSOR_METHODS: set = set()


def _b_orthonormal(S: np.ndarray, B: np.ndarray | None) -> np.ndarray:
    """Columns spanning ``S``'s range, B-orthonormal; directions whose Gram eigenvalue is
    negligible (dependent ones) are dropped (the "ortho" method's robustness)."""
    BS = S if B is None else B @ S
    G = S.T @ BS
    w, V = np.linalg.eigh((G + G.T) / 2)
    keep = w > max(w.max(), 0.0) * S.shape[0] * np.finfo(S.dtype).eps * 10
    return (S @ V[:, keep]) / np.sqrt(w[keep])


def _lobpcg_one(A: np.ndarray, B: np.ndarray | None, X: np.ndarray, iK: np.ndarray | None, k: int, largest: bool,
                niter: int, tol: float) -> tuple:
    def ritz(S: np.ndarray) -> tuple:
        H = S.T @ (A @ S)
        w, C = np.linalg.eigh((H + H.T) / 2)
        order = np.argsort(-w if largest else w, kind="stable")[:n]
        return w[order], S @ C[:, order]

    n = X.shape[1]
    anorm = np.linalg.norm(A)
    bnorm = 1.0 if B is None else np.linalg.norm(B)
    E, X = ritz(_b_orthonormal(X, B))
    P = None
    for _ in range(niter if niter >= 0 else 10 ** 9):
        BX = X if B is None else B @ X
        R = A @ X - BX * E
        rerr = np.linalg.norm(R, axis=0) / ((anorm + np.abs(E) * bnorm) * np.linalg.norm(X, axis=0))
        if (rerr[:k] < tol).all():
            break
        W = R if iK is None else iK @ R
        blocks = [X, W] + ([P] if P is not None else [])
        S = _b_orthonormal(np.concatenate(blocks, axis=1), B)
        if S.shape[1] < n:  # nothing new to search: converged as far as the precision goes
            break
        E_new, X_new = ritz(S)
        P = X_new - X @ (X.T @ (X_new if B is None else B @ X_new))
        E, X = E_new, X_new
    return E[:k], X[:, :k]


class Lobpcg(Op):
    """``E, X = lobpcg(A)`` (``B`` None): eigenpairs of the symmetric ``A (*, m, m)``.

    Backward (exact, for simple eigenvalues): with ``U = [X, U_r]`` and ``D = [E, D_r]``
    all of ``A``'s eigenvectors and eigenvalues (the rest from a full ``eigh``), ``F_ij =
    1 / (D_j - D_i)`` off the diagonal, ``grad_A = U (diag([gE, 0]) + F o (U^T [gX, 0])) U^T``
    (the eigendecomposition derivative, e.g. Giles 2008; PyTorch's lobpcg backward computes
    the same gradient of the partial eigenspace). Forward mode: ``dE_j = x_j^T dA x_j``,
    ``dX = U (F o (U^T dA X))`` restricted to the ``k`` columns. Once differentiable.
    """

    _node_name = "LOBPCGAutogradFunctionBackward"

    @staticmethod
    def vmap(info: Any, in_dims: tuple, A: Tensor, *args: Any) -> Any:
        """Batching rule: the batch dim to the front (the solver loops over leading dims)."""
        return info.function.apply(front(A, in_dims[0]), *args), (0, 0)

    @staticmethod
    def forward(ctx: Any, A: Tensor, B: Any, X0: np.ndarray, iK: Any, k: int, largest: bool, niter: int,
                tol: float) -> tuple:
        a = A._data
        lead = a.shape[:-2]
        m = a.shape[-1]
        af = a.reshape((-1, m, m))
        x0 = np.broadcast_to(X0, lead + X0.shape[-2:]).reshape((-1,) + X0.shape[-2:])
        b = None if B is None else np.broadcast_to(B, a.shape).reshape(af.shape)
        ik = None if iK is None else np.broadcast_to(iK, a.shape).reshape(af.shape)
        outs = [_lobpcg_one(af[i], None if b is None else b[i], x0[i].astype(a.dtype), None if ik is None else ik[i],
                            k, largest, niter, tol) for i in range(af.shape[0])]
        E = np.stack([o[0] for o in outs]).reshape(lead + (k,)).astype(a.dtype)
        X = np.stack([o[1] for o in outs]).reshape(lead + (m, k)).astype(a.dtype)
        ctx.has_B = B is not None
        ctx.largest = largest
        ctx.E, ctx.X, ctx.A = E, X, a
        return wrap(E), wrap(X)

    @staticmethod
    def _basis(ctx: Any) -> tuple:
        """``U = [X, U_rest]``, ``D = [E, D_rest]`` and ``F`` per matrix (NumPy)."""
        a, E, X = ctx.A, ctx.E, ctx.X
        k = E.shape[-1]
        d, u = np.linalg.eigh((a + np.swapaxes(a, -1, -2)) / 2)
        rest = d[..., :-k] if ctx.largest else d[..., k:]
        urest = u[..., :, :-k] if ctx.largest else u[..., :, k:]
        D = np.concatenate([E, rest], axis=-1)
        U = np.concatenate([X, urest], axis=-1)
        diff = D[..., None, :] - D[..., :, None]
        with np.errstate(divide="ignore"):
            F = np.where(np.eye(D.shape[-1], dtype=bool), 0.0, 1.0 / np.where(diff == 0, np.inf, diff))
        return U, D, F.astype(a.dtype)

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, gE: Any, gX: Any) -> Any:
        if ctx.has_B:
            raise ValueError("lobpcg.backward does not support backward with B != I yet.")
        from .linalg import diag_embed
        from .splitting import cat

        U, D, F = Lobpcg._basis(ctx)
        k, m = ctx.E.shape[-1], U.shape[-1]
        dt = U.dtype
        # written with dyngrad ops on the incoming gradients, so is_grads_batched (vmap) works
        gE = gE if gE is not None else wrap(np.zeros(ctx.E.shape, dtype=dt))
        gX = gX if gX is not None else wrap(np.zeros(ctx.X.shape, dtype=dt))
        gd = cat([gE, wrap(np.zeros(ctx.E.shape[:-1] + (m - k,), dtype=dt))], -1)
        gu = cat([gX, wrap(np.zeros(ctx.X.shape[:-1] + (m - k,), dtype=dt))], -1)
        Ut = wrap(U)
        inner = wrap(F) * (Ut.mT @ gu) + diag_embed(gd)
        return (Ut @ inner @ Ut.mT,) + (None,) * 7

    @staticmethod
    def jvp(ctx: Any, dA: Tensor, *_: Any) -> Any:
        U, D, F = Lobpcg._basis(ctx)
        k = ctx.E.shape[-1]
        Ut, Xt = wrap(U), wrap(ctx.X)
        dE = (Xt * (dA @ Xt)).sum(-2)
        dX = Ut @ (wrap(F[..., :, :k]) * (Ut.mT @ dA @ Xt))
        return dE, dX


def lobpcg(A: Tensor, k: int | None = None, B: Tensor | None = None, X: Tensor | None = None, n: int | None = None,
           iK: Tensor | None = None, niter: int | None = None, tol: float | None = None, largest: bool | None = None,
           method: str | None = None, tracker: Any = None, ortho_iparams: dict | None = None,
           ortho_fparams: dict | None = None, ortho_bparams: dict | None = None) -> tuple:
    """``torch.lobpcg``: the ``k`` largest (``largest=False``: smallest) eigenvalues and
    eigenvectors of ``A x = lambda B x`` for symmetric positive definite ``A`` (and ``B``),
    by LOBPCG with the "ortho" basis selection (the module docstring).

    Derivative: with respect to ``A`` only, and only without ``B`` (PyTorch's rule: a
    ValueError in backward otherwise): the eigendecomposition derivative of the returned
    eigenpairs (:class:`Lobpcg`), through ``A``'s symmetrization ``(A + A^T) / 2`` so that
    ``A.grad`` is symmetric. Once differentiable.

    Args:
        A (Tensor): ``(*, m, m)``, floating, symmetric.
        k (int, optional): number of eigenpairs. Default: ``X``'s columns, else 1.
        B (Tensor, optional): ``(*, m, m)`` symmetric positive definite. Default: identity.
        X (Tensor, optional): ``(*, m, n)`` initial vectors (``k <= n``). Default: random
            ``(m, n)`` from dyngrad's generator.
        n (int, optional): block size when ``X`` is None. Default: ``k``.
        iK (Tensor, optional): ``(*, m, m)`` preconditioner applied to the residuals.
        niter (int, optional): the most iterations (``-1``: until converged). Default: 1000.
        tol (float, optional): relative residual tolerance. Default: ``eps ** 0.5`` of
            ``A``'s dtype.
        largest (bool, optional): the largest eigenpairs. Default: ``True``.
        method (str, optional): ``"ortho"`` (default) or ``"basic"`` (computed with the
            same robust iteration here).
        tracker, ortho_iparams, ortho_fparams, ortho_bparams: accepted for compatibility;
            dyngrad does not call a tracker nor read the ortho parameters.
    Returns:
        (Tensor, Tensor): ``E (*, k)`` ordered from the most extreme, and ``X (*, m, k)``
        B-orthonormal eigenvectors (each up to sign).
    Raises:
        ValueError: ``m < 3 n`` (PyTorch's "LOBPCG algorithm is not applicable"), ``k``
            larger than ``X``'s columns, or an unknown ``method``.
        RuntimeError: ``A`` not square or not floating.

    Example:
        >>> import dyngrad
        >>> A = dyngrad.diag(dyngrad.arange(1.0, 13.0, dtype=dyngrad.float64))
        >>> E, X = dyngrad.lobpcg(A, k=2)
        >>> [round(e, 6) for e in E.tolist()], X.shape
        ([12.0, 11.0], dyngrad.Size([12, 2]))
    """
    from .random import randn

    if A._data.ndim < 2 or A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError(f"lobpcg: A must be square, got shape {list(A.shape)}")
    if _backend.kind(A._data) != "f":
        raise RuntimeError(f"lobpcg: expected a floating point A, got {A.dtype.name}")
    if method not in (None, "ortho", "basic"):
        raise ValueError(f"lobpcg: method must be 'ortho' or 'basic', got {method!r}")
    m = A._data.shape[-1]
    if X is not None:
        n = X._data.shape[-1]
        k = n if k is None else k
        if k > n:
            raise ValueError(f"lobpcg: k (={k}) must not exceed the number of columns of X (={n})")
        x0 = X._data
    else:
        k = 1 if k is None else k
        n = k if n is None else n
        x0 = None
    if m < 3 * n:
        raise ValueError(f"LOBPCG algorithm is not applicable when the number of A rows (={m}) is smaller than 3 x the "
                         f"number of requested eigenpairs (={n})")
    if x0 is None:
        x0 = randn(m, n, dtype=A.dtype)._data
    dt = A._data.dtype
    tol = float(np.finfo(dt).eps) ** 0.5 if tol is None else float(tol)
    niter = 1000 if niter is None else int(niter)
    largest = True if largest is None else bool(largest)
    # symmetrized (exactly A for a symmetric A): A.grad and A's tangent stay symmetric
    a = (A + A.mT) / 2
    Bd = None if B is None else B._data.astype(dt)
    ik = None if iK is None else iK._data.astype(dt)
    E, Xo = Lobpcg.apply(a, Bd, x0, ik, int(k), largest, niter, tol)
    return E, Xo
