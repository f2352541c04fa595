""":class:`LowRankMultivariateNormal`: a multivariate normal whose covariance is
``W W^T + diag(D)`` (``W: (n, m)``, low rank ``m``), computed in O(n m^2) through the
``m x m`` capacitance matrix ``C = I + W^T D^{-1} W``: the Woodbury identity for the
Mahalanobis term and the matrix determinant lemma for the log determinant (PyTorch 2.13's
``LowRankMultivariateNormal``, same formulas)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.decomp import cholesky
from ..ops.linalg import diag_embed, matmul
from ..ops.triangular import solve_triangular
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, _shape
from .multivariate_normal import batch_mahalanobis
from .utils import lazy_property, sample_array

__all__ = ["LowRankMultivariateNormal"]

def _eye_plus(K: Tensor) -> Tensor:
    return K + Tensor._make(np.eye(K.shape[-1], dtype=K._data.dtype))


def _capacitance_tril(W: Tensor, D: Tensor) -> Tensor:
    """Cholesky factor of ``I + W^T D^{-1} W``."""
    return cholesky(_eye_plus(matmul(W.mT / D.unsqueeze(-2), W)))


def _lowrank_logdet(W: Tensor, D: Tensor, C: Tensor) -> Tensor:
    """``log |W W^T + D| = log |C| + log |D|`` (matrix determinant lemma)."""
    return 2 * C.diagonal(0, -2, -1).log().sum(-1) + D.log().sum(-1)


def _lowrank_mahalanobis(W: Tensor, D: Tensor, x: Tensor, C: Tensor) -> Tensor:
    """``x^T (W W^T + D)^{-1} x`` by the Woodbury identity."""
    Wt_Dinv_x = matmul(W.mT / D.unsqueeze(-2), x.unsqueeze(-1)).squeeze(-1)
    return (x.pow(2) / D).sum(-1) - batch_mahalanobis(C, Wt_Dinv_x)




class LowRankMultivariateNormal(Distribution):
    """The multivariate normal with covariance ``cov_factor @ cov_factor.mT + diag(cov_diag)``.

    Args:
        loc: the mean ``(*batch, n)``.
        cov_factor: ``W`` ``(*batch, n, m)``.
        cov_diag: ``D`` ``(*batch, n)``, positive.
        validate_args: see :class:`~.distribution.Distribution`.

    Raises:
        ValueError: a 0-d ``loc``, ``cov_factor`` not ``(*, n, m)``, ``cov_diag`` not
            ``(*, n)``, batch shapes that do not broadcast (PyTorch's messages), or a
            parameter outside its constraint.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import LowRankMultivariateNormal
        >>> d = LowRankMultivariateNormal(dyngrad.zeros(2), dyngrad.ones(2, 1), dyngrad.ones(2))
        >>> round(float(d.log_prob(dyngrad.tensor([1.0, 0.0]))), 4)                    # PyTorch 2.13: the same
        -2.7205
        >>> d.covariance_matrix                  # W W^T + diag(D)
        tensor([[2., 1.],
                [1., 2.]])
    """

    arg_constraints = {"loc": constraints.real_vector, "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = tuple(loc.shape[-1:])
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape {event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        n, m = event_shape[0], cov_factor.shape[-1]
        try:
            batch = tuple(np.broadcast_shapes(tuple(loc.shape[:-1]), tuple(cov_factor.shape[:-2]),
                                              tuple(cov_diag.shape[:-1])))
        except ValueError:
            raise ValueError(f"Incompatible batch shapes: loc {tuple(loc.shape)}, cov_factor "
                             f"{tuple(cov_factor.shape)}, cov_diag {tuple(cov_diag.shape)}") from None
        self.loc = loc.expand(batch + (n,))
        self.cov_factor = cov_factor.expand(batch + (n, m))
        self.cov_diag = cov_diag.expand(batch + (n,))
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LowRankMultivariateNormal:
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = _shape(batch_shape)
        loc_shape = batch_shape + self._event_shape
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + tuple(self.cov_factor.shape[-1:]))
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        v = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return v.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        """``D^{1/2} chol(I + D^{-1/2} W W^T D^{-1/2})`` (well conditioned, as PyTorch)."""
        n = self._event_shape[0]
        sqrt_d = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / sqrt_d
        L = sqrt_d * cholesky(_eye_plus(matmul(Dinvsqrt_W, Dinvsqrt_W.mT)))
        return L.expand(self._batch_shape + (n, n))

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        n = self._event_shape[0]
        W = self._unbroadcasted_cov_factor
        return (matmul(W, W.mT) + diag_embed(self._unbroadcasted_cov_diag)).expand(self._batch_shape + (n, n))

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """``D^{-1} - D^{-1} W C^{-1} W^T D^{-1}`` (Woodbury)."""
        n = self._event_shape[0]
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        P = diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - matmul(A.mT, A)
        return P.expand(self._batch_shape + (n, n))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        dt = self.loc._data.dtype
        eps_W = sample_array(lambda g, s: g.standard_normal(s), shape[:-1] + tuple(self.cov_factor.shape[-1:]), dt)
        eps_D = sample_array(lambda g, s: g.standard_normal(s), shape, dt)
        Wz = matmul(self._unbroadcasted_cov_factor, eps_W.unsqueeze(-1)).squeeze(-1)
        return self.loc + Wz + self._unbroadcasted_cov_diag.sqrt() * eps_D

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        W, D, C = self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril
        M = _lowrank_mahalanobis(W, D, value - self.loc, C)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + _lowrank_logdet(W, D, C) + M)

    def entropy(self) -> Tensor:
        log_det = _lowrank_logdet(self._unbroadcasted_cov_factor, self._unbroadcasted_cov_diag, self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        return H.expand(self._batch_shape) if self._batch_shape else H
