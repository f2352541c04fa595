"""The beta distribution (PyTorch's ``torch.distributions.beta``), a two-class
:class:`~.dirichlet.Dirichlet` (``rsample`` through it)."""

from __future__ import annotations

from typing import Any

from ..ops.splitting import stack
from ..tensor import Tensor
from . import constraints
from .dirichlet import Dirichlet
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Beta"]


class Beta(Distribution):
    """The beta distribution on ``[0, 1]``, density ``x^(c1-1) (1-x)^(c0-1) / B(c1, c0)``.

    Args:
        concentration1: ``c1`` (alpha), positive.
        concentration0: ``c0`` (beta), positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), a concentration ``<= 0``; and from ``log_prob`` a value outside the support ``[0, 1]``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Beta
        >>> d = Beta(dyngrad.tensor(2.0), dyngrad.tensor(3.0))
        >>> round(float(d.log_prob(dyngrad.tensor(0.25))), 4)                    # PyTorch 2.13: the same
        0.5232
        >>> round(float(d.mean), 4)
        0.4
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
