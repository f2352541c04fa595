"""The exponential distribution (PyTorch's ``torch.distributions.exponential``); ``rsample``
is a standard exponential draw over ``rate``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.special import log1p
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all, sample_array

__all__ = ["Exponential"]


class Exponential(Distribution):
    """The exponential distribution, density ``rate * exp(-rate * x)`` on ``x >= 0``.

    Args:
        rate: the rate ``1 / mean``, positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``rate <= 0``; and from ``log_prob`` a value outside the support ``[0, inf)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Exponential
        >>> d = Exponential(dyngrad.tensor(2.0))
        >>> round(float(d.log_prob(dyngrad.tensor(1.0))), 4)                    # PyTorch 2.13: the same
        -1.3069
        >>> round(float(d.mean), 4)
        0.5
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(batch_of(rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return expand_params(self, Exponential, batch_shape, ("rate",), _instance)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return Tensor._make(np.zeros_like(self.rate._data))

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        e = sample_array(lambda g, s: g.standard_exponential(s), self._extended_shape(sample_shape), self.rate._data.dtype)
        return e / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - (-self.rate * value).exp()

    def icdf(self, value: Tensor) -> Tensor:
        return -log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - self.rate.log()
