"""The Laplace distribution (PyTorch's ``torch.distributions.laplace``); ``rsample`` is the
inverse CDF of a uniform draw, differentiable in ``loc`` and ``scale``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.special import expm1, log1p
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all, sample_array

__all__ = ["Laplace"]


class Laplace(Distribution):
    """The Laplace distribution, density ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc: the location (Tensor or number).
        scale: the scale, positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``scale <= 0``; and from ``log_prob`` a value outside the support.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Laplace
        >>> d = Laplace(dyngrad.tensor(0.0), dyngrad.tensor(2.0))
        >>> round(float(d.log_prob(dyngrad.tensor(1.0))), 4)                    # PyTorch 2.13: the same
        -1.8863
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(batch_of(loc, scale), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Laplace:
        return expand_params(self, Laplace, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2**0.5) * self.scale

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        dt = self.loc._data.dtype
        eps = float(np.finfo(dt).eps)
        u = sample_array(lambda g, s: g.uniform(eps - 1, 1, s), self._extended_shape(sample_shape), dt)
        return self.loc - self.scale * u.sign() * log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -(2 * self.scale).log() - (value - self.loc).abs() / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * expm1(-(value - self.loc).abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + (2 * self.scale).log()
