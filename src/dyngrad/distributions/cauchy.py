"""The Cauchy distribution (PyTorch's ``torch.distributions.cauchy``); ``rsample`` is
``loc + scale * tan(pi (u - 1/2))``, differentiable in both parameters."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all, sample_array

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """The Cauchy (Lorentz) distribution, density ``1 / (pi scale (1 + z^2))`` with
    ``z = (x - loc) / scale``; its mean is undefined (nan) and its variance infinite.

    Args:
        loc: the median.
        scale: the half width at half maximum, positive.
        validate_args: see :class:`~.distribution.Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``scale <= 0``; and from ``log_prob`` a value outside the support.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Cauchy
        >>> d = Cauchy(dyngrad.tensor(0.0), dyngrad.tensor(2.0))
        >>> round(float(d.log_prob(dyngrad.tensor(1.0))), 4)                    # PyTorch 2.13: the same
        -2.061
        >>> d.sample((2,)).shape
        dyngrad.Size([2])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(batch_of(loc, scale), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Cauchy:
        return expand_params(self, Cauchy, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self) -> Tensor:
        return Tensor._make(np.full(self._extended_shape(), np.nan, dtype=self.loc._data.dtype))

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return Tensor._make(np.full(self._extended_shape(), np.inf, dtype=self.loc._data.dtype))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = sample_array(lambda g, s: g.standard_cauchy(s), self._extended_shape(sample_shape), self.loc._data.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.loc) / self.scale).atan() / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return (math.pi * (value - 0.5)).tan() * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
