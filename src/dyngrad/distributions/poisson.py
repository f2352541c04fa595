"""The Poisson distribution (PyTorch's ``torch.distributions.poisson``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.gamma import lgamma
from ..ops.xlogy import xlogy
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all, sample_array

__all__ = ["Poisson"]


class Poisson(Distribution):
    """The Poisson distribution, ``P(k) = rate^k e^-rate / k!``.

    Args:
        rate: the mean, non-negative.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``rate < 0``; and from ``log_prob`` a value outside the support (non-negative integers).

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Poisson
        >>> d = Poisson(dyngrad.tensor(3.0))
        >>> round(float(d.log_prob(dyngrad.tensor(2.0))), 4)                    # PyTorch 2.13: the same
        -1.4959
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(batch_of(rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        return expand_params(self, Poisson, batch_shape, ("rate",), _instance)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        lam = np.broadcast_to(self.rate._data, shape)
        return sample_array(lambda g, s: g.poisson(lam, s), shape, self.rate._data.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - lgamma(value + 1)
