"""The multivariate normal distribution, parameterised by a covariance matrix, a precision
matrix or a lower Cholesky factor (PyTorch 2.13's ``MultivariateNormal``). Everything is
computed from the lower Cholesky factor ``L`` of the covariance (``Sigma = L L^T``), with
triangular solves (:func:`dyngrad.linalg.solve_triangular`), so all are differentiable."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.decomp import cholesky
from ..ops.linalg import matmul
from ..ops.triangular import solve_triangular
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, _shape
from .utils import lazy_property, sample_array

__all__ = ["MultivariateNormal"]


def batch_mahalanobis(L: Tensor, x: Tensor) -> Tensor:
    """``x^T (L L^T)^{-1} x`` over the last dim: ``L: (*A, n, n)``, ``x: (*B, n)`` -> the
    broadcast of ``A`` and ``B``."""
    batch = np.broadcast_shapes(tuple(L.shape[:-2]), tuple(x.shape[:-1]))
    n = x.shape[-1]
    y = solve_triangular(L.expand(batch + (n, n)), x.expand(batch + (n,)).unsqueeze(-1), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _half_log_det(L: Tensor) -> Tensor:
    return L.diagonal(0, -2, -1).log().sum(-1)


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    """The lower Cholesky factor of ``P^{-1}``, without inverting ``P`` (PyTorch's
    ``_precision_to_scale_tril``: the Cholesky factor of the flipped matrix)."""
    Lf = cholesky(P.flip((-2, -1)))
    L_inv = Lf.flip((-2, -1)).mT
    eye = Tensor._make(np.broadcast_to(np.eye(P.shape[-1], dtype=P._data.dtype), tuple(P.shape)).copy())
    return solve_triangular(L_inv, eye, upper=False)


class MultivariateNormal(Distribution):
    """The multivariate normal ``N(loc, Sigma)``, ``event_shape == (n,)``.

    Args:
        loc: the mean ``(*batch, n)``.
        covariance_matrix: ``Sigma`` ``(*batch, n, n)``, positive definite.
        precision_matrix: ``Sigma^{-1}`` ``(*batch, n, n)``, positive definite.
        scale_tril: ``L`` with ``Sigma = L L^T``, lower triangular with a positive diagonal.
            Give exactly one of the three.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: not exactly one of the matrix parameters, a 0-d ``loc``, a matrix
            parameter with fewer than 2 dims, or a parameter outside its constraint.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import MultivariateNormal
        >>> d = MultivariateNormal(dyngrad.zeros(2), dyngrad.eye(2))
        >>> round(float(d.log_prob(dyngrad.tensor([1.0, 0.0]))), 4)                    # PyTorch 2.13: the same
        -2.3379
        >>> d.rsample((3,)).shape
        dyngrad.Size([3, 2])
    """

    arg_constraints = {"loc": constraints.real_vector, "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite, "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix: Tensor | None = None, precision_matrix: Tensor | None = None,
                 scale_tril: Tensor | None = None, validate_args: bool | None = None) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        named = (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                 ("precision_matrix", precision_matrix))
        name, M = next((k, v) for k, v in named if v is not None)
        assert M is not None
        if M.dim() < 2:
            raise ValueError(f"{name} matrix must be at least two-dimensional, with optional leading batch dimensions")
        batch = tuple(np.broadcast_shapes(tuple(M.shape[:-2]), tuple(loc.shape[:-1])))
        n = loc.shape[-1]
        setattr(self, name, M.expand(batch + (n, n)))
        self.loc = loc.expand(batch + (n,))
        super().__init__(batch, (n,), validate_args=validate_args)
        if name == "scale_tril":
            self._unbroadcasted_scale_tril = M
        elif name == "covariance_matrix":
            self._unbroadcasted_scale_tril = cholesky(M)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(M)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = _shape(batch_shape)
        n = self._event_shape[0]
        new.loc = self.loc.expand(batch_shape + (n,))
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for k in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if k in self.__dict__:
                new.__dict__[k] = self.__dict__[k].expand(batch_shape + (n, n))
        Distribution.__init__(new, batch_shape, self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        n = self._event_shape[0]
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + (n, n))

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        n = self._event_shape[0]
        return matmul(L, L.mT).expand(self._batch_shape + (n, n))

    @lazy_property
    def precision_matrix(self) -> Tensor:
        L = self._unbroadcasted_scale_tril
        n = self._event_shape[0]
        eye = Tensor._make(np.broadcast_to(np.eye(n, dtype=L._data.dtype), tuple(L.shape)).copy())
        Linv = solve_triangular(L, eye, upper=False)
        return matmul(Linv.mT, Linv).expand(self._batch_shape + (n, n))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = sample_array(lambda g, s: g.standard_normal(s), shape, self.loc._data.dtype)
        return self.loc + matmul(self._unbroadcasted_scale_tril, eps.unsqueeze(-1)).squeeze(-1)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + M) - _half_log_det(self._unbroadcasted_scale_tril)

    def entropy(self) -> Tensor:
        n = self._event_shape[0]
        H = 0.5 * n * (1.0 + math.log(2 * math.pi)) + _half_log_det(self._unbroadcasted_scale_tril)
        return H.expand(self._batch_shape) if self._batch_shape else H
