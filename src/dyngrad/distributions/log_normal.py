"""The log-normal distribution (PyTorch's ``torch.distributions.log_normal``): ``exp`` of a
Normal, with PyTorch's closed forms."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """``exp(x)`` for ``x ~ Normal(loc, scale)``.

    Args:
        loc: the mean of ``log(value)``.
        scale: the standard deviation of ``log(value)``, positive.
        validate_args: see :class:`~.distribution.Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``scale <= 0``; and from ``log_prob`` a value outside the support ``(0, inf)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import LogNormal
        >>> d = LogNormal(dyngrad.tensor(0.0), dyngrad.tensor(1.0))
        >>> round(float(d.log_prob(dyngrad.tensor(2.0))), 4)                    # PyTorch 2.13: the same
        -1.8523
        >>> round(float(d.mean), 4)              # exp(loc + scale**2 / 2)
        1.6487
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
