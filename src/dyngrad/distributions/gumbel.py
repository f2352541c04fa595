"""The Gumbel distribution (PyTorch's ``torch.distributions.gumbel``):
``loc - scale * log(-log(u))`` of a uniform ``u``, with PyTorch's closed forms."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import constraints
from .distribution import _shape
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Gumbel"]

_EULER = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """The Gumbel (type-I extreme value) distribution, density
    ``exp(-(z + exp(-z))) / scale`` with ``z = (x - loc) / scale``.

    Args:
        loc: the location.
        scale: the scale, positive.
        validate_args: see :class:`~.distribution.Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``scale <= 0``; and from ``log_prob`` a value outside the support.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Gumbel
        >>> d = Gumbel(dyngrad.tensor(1.0), dyngrad.tensor(2.0))
        >>> round(float(d.log_prob(dyngrad.tensor(0.0))), 4)                    # PyTorch 2.13: the same
        -1.8419
        >>> round(float(d.mean), 4)              # loc + scale * Euler's gamma
        2.1544
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        finfo = np.finfo(self.loc._data.dtype)
        tiny, top = float(finfo.tiny), 1 - float(finfo.eps)
        if isinstance(loc, (int, float)) and isinstance(scale, (int, float)):
            base = Uniform(tiny, top, validate_args=validate_args)
        else:
            dt = self.loc._data.dtype
            base = Uniform(Tensor._make(np.full(tuple(self.loc.shape), tiny, dt)),
                           Tensor._make(np.full(tuple(self.loc.shape), top, dt)), validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-Tensor._make(np.ones_like(self.scale._data))),
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
