"""The gamma distribution (PyTorch's ``torch.distributions.gamma``). ``rsample`` is
``StandardGamma(concentration) / rate`` with implicit reparameterisation gradients
(:mod:`._standard_gamma`)."""

from __future__ import annotations

from typing import Any

from ..ops.gamma import digamma, igamma, lgamma
from ..ops.xlogy import xlogy
from ..tensor import Tensor
from . import constraints
from ._standard_gamma import standard_gamma
from .distribution import Distribution, expand_params
from .utils import batch_of, broadcast_all

__all__ = ["Gamma"]


class Gamma(Distribution):
    """The gamma distribution, density ``rate^c x^(c-1) e^(-rate x) / Gamma(c)``.

    Args:
        concentration: the shape ``c``, positive.
        rate: the rate ``1 / scale``, positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), a concentration or rate ``<= 0``; and from ``log_prob`` a value outside the support ``(0, inf)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Gamma
        >>> d = Gamma(dyngrad.tensor(2.0), dyngrad.tensor(3.0))
        >>> round(float(d.log_prob(dyngrad.tensor(0.5))), 4)                    # PyTorch 2.13: the same
        0.0041
        >>> round(float(d.mean), 4)
        0.6667
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(batch_of(concentration, rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        return expand_params(self, Gamma, batch_shape, ("concentration", "rate"), _instance)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        return xlogy(c, r) + xlogy(c - 1, value) - r * value - lgamma(c)

    def cdf(self, value: Tensor) -> Tensor:
        """``P(concentration, rate * value)`` (differentiable in ``rate`` and ``value``; not in
        ``concentration``, as PyTorch)."""
        if self._validate_args:
            self._validate_sample(value)
        return igamma(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        c = self.concentration
        return c - self.rate.log() + lgamma(c) + (1.0 - c) * digamma(c)
