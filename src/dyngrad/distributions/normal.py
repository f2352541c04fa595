"""The normal distribution (PyTorch's ``torch.distributions.normal``). ``rsample`` is
``loc + scale * eps``: differentiable in both parameters. Formulas are PyTorch 2.13's."""

from __future__ import annotations

import math
from typing import Any

from ..ops.special import erf, erfinv
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all, sample_array

__all__ = ["Normal"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


class Normal(Distribution):
    """The normal distribution ``N(loc, scale**2)``.

    Args:
        loc: the mean (Tensor or number).
        scale: the standard deviation, positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``scale <= 0``; and from ``log_prob`` a value outside the support.

    Example::

        >>> m = Normal(dyngrad.tensor([0.0]), dyngrad.tensor([1.0]))
        >>> m.rsample().shape
        dyngrad.Size([1])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(batch_of(loc, scale), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Normal:
        return expand_params(self, Normal, batch_shape, ("loc", "scale"), _instance)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        eps = sample_array(lambda g, s: g.standard_normal(s), self._extended_shape(sample_shape), self.loc._data.dtype)
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        return -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - _LOG_SQRT_2PI

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + erf((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)))

    def icdf(self, value: Tensor) -> Tensor:
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self) -> Tensor:
        return 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
