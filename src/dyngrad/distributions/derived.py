"""Distributions defined as transforms of another (PyTorch's construction, with the closed
forms it overrides): :class:`LogNormal` (``exp`` of a Normal) and :class:`Gumbel`
(``loc - scale * log(-log(u))`` of a uniform ``u``). Both are reparameterised through
their base distribution."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import constraints
from .continuous import Normal, Uniform
from .distribution import _shape
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .utils import broadcast_all

__all__ = ["LogNormal", "Gumbel"]

_EULER = 0.57721566490153286060


class LogNormal(TransformedDistribution):
    """``exp(x)`` for ``x ~ Normal(loc, scale)``.

    Args:
        loc: the mean of ``log(value)``.
        scale: the standard deviation of ``log(value)``, positive.
        validate_args: see :class:`~.distribution.Distribution`.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc  # type: ignore[attr-defined]

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale  # type: ignore[attr-defined]

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution, density
    ``exp(-(z + exp(-z))) / scale`` with ``z = (x - loc) / scale``.

    Args:
        loc: the location.
        scale: the scale, positive.
        validate_args: see :class:`~.distribution.Distribution`.
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = np.finfo(self.loc.data.dtype)
        tiny, top = float(finfo.tiny), 1 - float(finfo.eps)
        if isinstance(loc, (int, float)) and isinstance(scale, (int, float)):
            base = Uniform(tiny, top, validate_args=validate_args)
        else:
            dt = self.loc.data.dtype
            base = Uniform(Tensor._make(np.full(tuple(self.loc.shape), tiny, dt)),
                           Tensor._make(np.full(tuple(self.loc.shape), top, dt)), validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-Tensor._make(np.ones_like(self.scale.data))),
                      ExpTransform().inv, AffineTransform(loc=loc, scale=-self.scale)]
        super().__init__(base, transforms, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gumbel:
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(_shape(batch_shape))
        new.scale = self.scale.expand(_shape(batch_shape))
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self) -> Tensor:
        return self.loc + self.scale * _EULER

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def entropy(self) -> Tensor:
        return self.scale.log() + (1 + _EULER)
