"""``nn.utils.parametrizations``: ``weight_norm``, ``spectral_norm`` and ``orthogonal``
(PyTorch's ``torch.nn.utils.parametrizations``), each a Module registered with
:func:`~dyngrad.nn.utils.parametrize.register_parametrization`, so the state dict keys are
PyTorch's (``parametrizations.weight.original0`` / ``original1`` for weight norm,
``parametrizations.weight.original`` and ``parametrizations.weight.0._u`` / ``_v`` for
spectral norm, ``parametrizations.weight.0.base`` for orthogonal).
"""

from __future__ import annotations

from enum import Enum, auto

import numpy as np

from ...autograd.grad_mode import no_grad
from ...ops.linalg import matmul, mv
from ...ops.matfuncs import householder_product, matrix_exp
from ...tensor import Tensor
from .. import functional as F
from ..module import Module
from . import parametrize

__all__ = ["orthogonal", "spectral_norm", "weight_norm"]


# ---------------------------------------------------------------------------- orthogonal
def _np_make_orthogonal(a: np.ndarray) -> np.ndarray:
    """PyTorch's ``_make_orthogonal``: the ``Q`` of ``A = QR`` (LAPACK's Householder QR) with
    its columns multiplied by ``sgn(diag(R))``, so ``Q`` is unique (``A: (*, n, k)``, n >= k)."""
    q, r = np.linalg.qr(a)
    return q * np.sign(np.diagonal(r, axis1=-2, axis2=-1))[..., None, :]


def _np_geqrf(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """LAPACK ``geqrf`` of ``a: (*, m, n)``: (reflectors and R, tau)."""
    flat = a.reshape((-1,) + a.shape[-2:])
    hs, taus = zip(*(np.linalg.qr(x, mode="raw") for x in flat)) if flat.shape[0] else ((), ())
    k = min(a.shape[-2:])
    h = np.array([x.T for x in hs], dtype=a.dtype).reshape(a.shape)
    return h, np.array(taus, dtype=a.dtype).reshape(a.shape[:-2] + (k,))


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


class _Orthogonal(Module):
    """Maps an unconstrained ``(*, n, k)`` tensor to one with orthonormal columns (rows if
    ``n < k``); with ``use_trivialization`` the result is ``base @ map(X)`` for a buffer
    ``base`` that ``right_inverse`` sets (Lezcano-Casado 2019, "Trivializations for
    gradient-based optimization on manifolds"), as PyTorch."""

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *, use_trivialization: bool = True) -> None:
        super().__init__()
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        from ...ops.splitting import cat

        n, k = X.shape[-2], X.shape[-1]
        transposed = n < k
        if transposed:
            X = X.mT
            n, k = k, n
        if self.orthogonal_map in (_OrthMaps.matrix_exp, _OrthMaps.cayley):
            X = X.tril()
            if n != k:
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], -1)
            A = X - X.mT
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                from ...ops.decomp import solve

                Id = Tensor._make(np.eye(n, dtype=A._data.dtype))
                Q = solve(Id - 0.5 * A, Id + 0.5 * A)
            if n != k:
                Q = Q[..., :k]
        else:
            A = X.tril(-1)
            tau = 2.0 / (1.0 + (A * A).sum(-2))
            Q = householder_product(A, tau)
            Q = Q * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        if hasattr(self, "base"):
            Q = matmul(self.base, Q)
        if transposed:
            Q = Q.mT
        return Q

    def right_inverse(self, Q: Tensor) -> Tensor:
        """An original whose image is ``Q``: sets ``base`` (with trivialization) and
        returns ``-I``; without it (householder only), the reflectors of ``Q``'s QR.

        Raises:
            ValueError: a shape other than the parametrized weight's.
            NotImplementedError: matrix_exp / cayley without trivialization.
        """
        with no_grad():
            if Q.shape != self.shape:
                raise ValueError(
                    f"Expected a matrix or batch of matrices of shape {self.shape}. Got a tensor of shape {Q.shape}."
                )
            q_init = Q
            q = Q._data
            n, k = q.shape[-2], q.shape[-1]
            transpose = n < k
            if transpose:
                q = np.swapaxes(q, -1, -2)
                n, k = k, n
            if not hasattr(self, "base"):
                if self.orthogonal_map in (_OrthMaps.cayley, _OrthMaps.matrix_exp):
                    raise NotImplementedError(
                        "It is not possible to assign to the matrix exponential or the Cayley parametrizations when "
                        "use_trivialization=False."
                    )
                a, tau = _np_geqrf(q)
                d = np.sign(np.diagonal(a, axis1=-2, axis2=-1)).copy()
                d[tau == 0.0] *= -1
                idx = np.arange(d.shape[-1])
                a[..., idx, idx] = d
                return Tensor._make(np.swapaxes(a, -1, -2).copy() if transpose else a)
            if n == k:
                eps = 10.0 * n * np.finfo(q.dtype).eps
                if not np.allclose(np.swapaxes(q, -1, -2) @ q, np.eye(k), atol=eps):
                    q = _np_make_orthogonal(q)
                else:
                    q = q.copy()
            else:
                from ...ops.random import randn

                N = randn(*(q.shape[:-2] + (n, n - k)), dtype=Q.dtype)._data
                q = _np_make_orthogonal(np.concatenate([q, N], -1))
            self.base = Tensor._make(q.astype(Q._data.dtype))
            neg_id = np.zeros(q_init.shape, dtype=Q._data.dtype)
            m = min(neg_id.shape[-2:])
            neg_id[..., np.arange(m), np.arange(m)] = -1.0
            return Tensor._make(neg_id)


def orthogonal(
    module: Module, name: str = "weight", orthogonal_map: str | None = None, *, use_trivialization: bool = True
) -> Module:
    """Constrain ``module.<name>`` (a matrix or batch of matrices ``(*, n, k)``) to have
    orthonormal columns (``n >= k``) or rows (``n < k``).

    Args:
        module: the module.
        name: the tensor's name.
        orthogonal_map: ``"matrix_exp"`` (default for square), ``"cayley"`` or
            ``"householder"`` (default otherwise).
        use_trivialization: parametrize as ``base @ map(X)`` with a ``base`` buffer set on
            assignment (so ``module.<name> = Q`` works for every map).
    Returns:
        ``module``, registered with the parametrization (unsafe: the original is ``-I``).
    Raises:
        ValueError: no such tensor, fewer than 2 dims, or an unknown map.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError(f"Expected a matrix or batch of matrices. Got a tensor of {weight.ndim} dimensions.")
    if orthogonal_map is None:
        orthogonal_map = "matrix_exp" if weight.shape[-2] == weight.shape[-1] else "householder"
    orth_enum = getattr(_OrthMaps, orthogonal_map, None)
    if orth_enum is None:
        raise ValueError(
            f'orthogonal_map has to be one of "matrix_exp", "cayley", "householder". Got: {orthogonal_map}'
        )
    orth = _Orthogonal(weight, orth_enum, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, orth, unsafe=True)
    return module


# ---------------------------------------------------------------------------- weight norm
def _norm_except_dim(v: Tensor, dim: int) -> Tensor:
    """``torch.norm_except_dim(v, 2, dim)``: the 2-norm over every dim but ``dim`` (kept as
    size-1 dims); ``dim=-1`` is the norm of the whole tensor (a 0-d tensor), as PyTorch."""
    if dim == -1:
        return (v * v).sum().sqrt()
    dims = tuple(d for d in range(v.ndim) if d != dim)
    return (v * v).sum(dims, keepdim=True).sqrt() if dims else v.abs()


class _WeightNorm(Module):
    """``weight = g * v / ||v||`` with the norm over every dim but ``dim`` (Salimans & Kingma
    2016, "Weight normalization"); originals ``(g, v)``."""

    def __init__(self, dim: int | None = 0) -> None:
        super().__init__()
        self.dim = -1 if dim is None else dim

    def forward(self, weight_g: Tensor, weight_v: Tensor) -> Tensor:
        return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

    def right_inverse(self, weight: Tensor) -> tuple[Tensor, Tensor]:
        return _norm_except_dim(weight, self.dim), weight


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Reparametrize ``module.<name>`` as ``g * v / ||v||``: ``original0`` is the magnitude
    ``g`` (the norm over every dim but ``dim``, kept as size-1 dims; a 0-d tensor for
    ``dim=None`` or ``dim=-1``, as PyTorch), ``original1`` the direction ``v``.

    Args:
        module: the module.
        name: the tensor's name.
        dim: the dim that keeps its own norm (``None``: one norm for the whole tensor).
    Returns:
        ``module``.
    Raises:
        ValueError: no parameter or buffer ``name``.
    """
    parametrize.register_parametrization(module, name, _WeightNorm(dim), unsafe=True)
    return module


# ---------------------------------------------------------------------------- spectral norm
class _SpectralNorm(Module):
    """``weight / sigma`` with ``sigma = u^T W v`` estimated by power iteration on the
    weight reshaped to a matrix ``W`` (``dim`` first); ``u, v`` are the buffers ``_u``,
    ``_v``, updated in place at every forward in training mode (Miyato et al. 2018,
    "Spectral normalization for GANs"). A 1-d weight is just normalized."""

    def __init__(self, weight: Tensor, n_power_iterations: int = 1, dim: int = 0, eps: float = 1e-12) -> None:
        super().__init__()
        ndim = weight.ndim
        if dim >= ndim or dim < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [-{ndim}, {ndim - 1}] but got {dim})")
        if n_power_iterations <= 0:
            raise ValueError(
                f"Expected n_power_iterations to be positive, but got n_power_iterations={n_power_iterations}"
            )
        self.dim = dim if dim >= 0 else dim + ndim
        self.eps = eps
        if ndim > 1:
            from ...ops.random import randn

            self.n_power_iterations = n_power_iterations
            weight_mat = self._reshape_weight_to_matrix(weight.detach())
            h, w = weight_mat.shape
            u = randn(h, dtype=weight.dtype)
            v = randn(w, dtype=weight.dtype)
            self.register_buffer("_u", F.normalize(u, dim=0, eps=self.eps))
            self.register_buffer("_v", F.normalize(v, dim=0, eps=self.eps))
            self._power_method(weight_mat, 15)

    def _reshape_weight_to_matrix(self, weight: Tensor) -> Tensor:
        if self.dim != 0:
            weight = weight.permute(self.dim, *(d for d in range(weight.ndim) if d != self.dim))
        return weight.flatten(1)

    def _power_method(self, weight_mat: Tensor, n_power_iterations: int) -> None:
        """``n_power_iterations`` steps ``u <- normalize(W v)``, ``v <- normalize(W^T u)``,
        written into the buffers in place (their identity is kept, as PyTorch's ``out=``)."""
        with no_grad():
            wm = weight_mat.detach()
            for _ in range(n_power_iterations):
                self._u._data[...] = F.normalize(mv(wm, self._v), dim=0, eps=self.eps)._data
                self._u._bump()
                self._v._data[...] = F.normalize(mv(wm.mT, self._u), dim=0, eps=self.eps)._data
                self._v._bump()

    def forward(self, weight: Tensor) -> Tensor:
        if weight.ndim == 1:
            return F.normalize(weight, dim=0, eps=self.eps)
        weight_mat = self._reshape_weight_to_matrix(weight)
        if self.training:
            self._power_method(weight_mat, self.n_power_iterations)
        u, v = self._u.clone(), self._v.clone()
        sigma = (u * mv(weight_mat, v)).sum()
        return weight / sigma

    def right_inverse(self, value: Tensor) -> Tensor:
        return value


def spectral_norm(
    module: Module, name: str = "weight", n_power_iterations: int = 1, eps: float = 1e-12, dim: int | None = None
) -> Module:
    """Divide ``module.<name>`` by its spectral norm, estimated by power iteration.

    In training mode each access runs ``n_power_iterations`` steps and updates the buffers
    ``parametrizations.<name>.0._u`` / ``_v`` in place; in eval mode they are used as they
    are. Registration runs 15 steps from random ``u``, ``v`` (from dyngrad's generator, so
    they differ from PyTorch's for the same seed: load PyTorch's state dict to match it).

    Args:
        module: the module.
        name: the tensor's name.
        n_power_iterations: power-iteration steps per forward in training mode.
        eps: the norm floor of ``normalize``.
        dim: the output dim (default 1 for ``ConvTranspose*``, else 0).
    Returns:
        ``module``.
    Raises:
        ValueError: no such tensor; ``n_power_iterations <= 0``.
        IndexError: ``dim`` out of range.
    """
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if dim is None:
        from ..conv_layers import _ConvTransposeNd

        dim = 1 if isinstance(module, _ConvTransposeNd) else 0  # ConvTranspose1d/2d/3d
    parametrize.register_parametrization(module, name, _SpectralNorm(weight, n_power_iterations, dim, eps))
    return module

