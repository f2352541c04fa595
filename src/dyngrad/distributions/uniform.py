"""The uniform distribution (PyTorch's ``torch.distributions.uniform``); ``rsample`` is
``low + u (high - low)``."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all, sample_array

__all__ = ["Uniform"]


class Uniform(Distribution):
    """The uniform distribution on the half-open interval ``[low, high)``.

    Args:
        low: the lower bound (inclusive).
        high: the upper bound (exclusive), greater than ``low``.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``low >= high``; and from ``log_prob`` a value outside the support ``[low, high)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Uniform
        >>> d = Uniform(dyngrad.tensor(0.0), dyngrad.tensor(2.0))
        >>> round(float(d.log_prob(dyngrad.tensor(0.5))), 4)                    # PyTorch 2.13: the same
        -0.6931
        >>> round(float(d.mean), 4)
        1.0
    """

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(batch_of(low, high), validate_args=validate_args)

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
        u = sample_array(lambda g, s: g.random(s), self._extended_shape(sample_shape), self.low._data.dtype)
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
