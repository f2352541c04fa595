"""Location-scale and simple continuous distributions: :class:`Normal`, :class:`Laplace`,
:class:`Uniform`, :class:`Exponential`. Each ``rsample`` is the location-scale (or inverse
CDF) map of a parameter-free draw, so it is differentiable in the parameters. Formulas are
PyTorch 2.13's (torch/distributions/<name>.py)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..ops.special import erf, erfinv, expm1, log1p
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import broadcast_all, sample_array

__all__ = ["Normal", "Laplace", "Uniform", "Exponential"]

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _batch(*params: Any) -> tuple[int, ...]:
    return () if all(isinstance(p, (int, float)) for p in params) else tuple(np.broadcast_shapes(
        *(tuple(p.shape) for p in params if isinstance(p, Tensor))))


class Normal(Distribution):
    """The normal distribution ``N(loc, scale**2)``.

    Args:
        loc: the mean (Tensor or number).
        scale: the standard deviation, positive.
        validate_args: see :class:`Distribution`.

    Example::

        >>> m = Normal(dyngrad.tensor([0.0]), dyngrad.tensor([1.0]))
        >>> m.rsample().shape
        (1,)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch(loc, scale), validate_args=validate_args)

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
        eps = sample_array(lambda g, s: g.standard_normal(s), self._extended_shape(sample_shape), self.loc.data.dtype)
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


class Laplace(Distribution):
    """The Laplace distribution, density ``exp(-|x - loc| / scale) / (2 scale)``.

    Args:
        loc: the location (Tensor or number).
        scale: the scale, positive.
        validate_args: see :class:`Distribution`.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch(loc, scale), validate_args=validate_args)

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
        dt = self.loc.data.dtype
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


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``.

    Args:
        low: the lower bound (inclusive).
        high: the upper bound (exclusive), greater than ``low``.
        validate_args: see :class:`Distribution`.
    """

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch(low, high), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        return expand_params(self, Uniform, batch_shape, ("low", "high"), _instance)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return self.high * float("nan")

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12**0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        u = sample_array(lambda g, s: g.random(s), self._extended_shape(sample_shape), self.low.data.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = ((self.low <= value) & (self.high > value)).to(self.low.dtype)
        return inside.log() - (self.high - self.low).log()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Exponential(Distribution):
    """The exponential distribution, density ``rate * exp(-rate * x)`` on ``x >= 0``.

    Args:
        rate: the rate ``1 / mean``, positive.
        validate_args: see :class:`Distribution`.
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch(rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        return expand_params(self, Exponential, batch_shape, ("rate",), _instance)

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return Tensor._make(np.zeros_like(self.rate.data))

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        e = sample_array(lambda g, s: g.standard_exponential(s), self._extended_shape(sample_shape), self.rate.data.dtype)
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
