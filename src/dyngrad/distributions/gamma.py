"""The gamma family: :class:`Gamma`, :class:`Beta`, :class:`Dirichlet`.

``rsample`` is reparameterised through :class:`~._standard_gamma.StandardGamma` (implicit
gradients): Gamma is ``StandardGamma(concentration) / rate``, Dirichlet normalises
independent standard gammas (``g / g.sum(-1)``, differentiated through the normalisation),
Beta is the first component of a two-class Dirichlet. These are valid pathwise gradients;
per sample they differ from PyTorch's (whose Dirichlet uses its own ``_dirichlet_grad``),
their expectations agree. Formulas are PyTorch 2.13's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.gamma import digamma, igamma, lgamma
from ..ops.pointwise import where
from ..ops.splitting import stack
from ..ops.xlogy import xlogy
from ..tensor import Tensor
from . import constraints
from ._standard_gamma import StandardGamma
from .continuous import _batch
from .distribution import Distribution, expand_params
from .utils import broadcast_all

__all__ = ["Gamma", "Beta", "Dirichlet"]


def _standard_gamma(alpha: Tensor) -> Tensor:
    return StandardGamma.apply(alpha)


class Gamma(Distribution):
    """The gamma distribution, density ``rate^c x^(c-1) e^(-rate x) / Gamma(c)``.

    Args:
        concentration: the shape ``c``, positive.
        rate: the rate ``1 / scale``, positive.
        validate_args: see :class:`Distribution`.
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch(concentration, rate), validate_args=validate_args)

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
        return _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)

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


class Dirichlet(Distribution):
    """The Dirichlet distribution on the simplex, density
    ``Gamma(sum a) / prod Gamma(a_i) * prod x_i^(a_i - 1)``.

    Args:
        concentration: ``(*batch, K)``, positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: ``concentration`` with fewer than one dimension.
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(tuple(concentration.shape[:-1]), tuple(concentration.shape[-1:]), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        return expand_params(self, Dirichlet, batch_shape, ("concentration",), _instance)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def mode(self) -> Tensor:
        """``(a - 1) / sum(a - 1)`` with ``a - 1`` clamped at 0; where every ``a_i < 1`` the
        density is unbounded at every vertex and this is PyTorch's choice, the first vertex
        ``(1, 0, ..., 0)``."""
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, keepdim=True)
        mask = (self.concentration.data < 1).all(-1, keepdims=True)
        if not mask.any():
            return mode
        vertex = np.zeros(tuple(mode.shape), dtype=mode.data.dtype)
        vertex[..., 0] = 1
        return where(Tensor._make(np.broadcast_to(mask, vertex.shape)), Tensor._make(vertex), mode)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        a0 = a.sum(-1, keepdim=True)
        return a * (a0 - a) / (a0.pow(2) * (a0 + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        g = _standard_gamma(self.concentration.expand(shape))
        out = g / g.sum(-1, keepdim=True)
        tiny = float(np.finfo(out.data.dtype).tiny)
        return out.clamp(min=tiny, max=1 - float(np.finfo(out.data.dtype).eps))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a = self.concentration
        return xlogy(a - 1.0, value).sum(-1) + lgamma(a.sum(-1)) - lgamma(a).sum(-1)

    def entropy(self) -> Tensor:
        a = self.concentration
        k = a.shape[-1]
        a0 = a.sum(-1)
        return lgamma(a).sum(-1) - lgamma(a0) - (k - a0) * digamma(a0) - ((a - 1.0) * digamma(a)).sum(-1)


class Beta(Distribution):
    """The beta distribution on ``[0, 1]``, density ``x^(c1-1) (1-x)^(c0-1) / B(c1, c0)``.

    Args:
        concentration1: ``c1`` (alpha), positive.
        concentration0: ``c0`` (beta), positive.
        validate_args: see :class:`Distribution`.
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        """As PyTorch: the first component of the Dirichlet mode (1 where both concentrations
        are below 1)."""
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape)[..., 0]

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()
