"""The chi-squared distribution (PyTorch's ``torch.distributions.chi2``):
``Gamma(df / 2, 1 / 2)``, reparameterised through the gamma's implicit gradients."""

from __future__ import annotations

from typing import Any

from ..tensor import Tensor
from . import constraints
from .gamma import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The chi-squared distribution with ``df`` degrees of freedom.

    Args:
        df: the degrees of freedom, positive.
        validate_args: see :class:`~.distribution.Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``df <= 0``; and from ``log_prob`` a value outside the support ``[0, inf)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Chi2
        >>> d = Chi2(dyngrad.tensor(3.0))
        >>> round(float(d.log_prob(dyngrad.tensor(2.0))), 4)                    # PyTorch 2.13: the same
        -1.5724
        >>> round(float(d.mean), 4)
        3.0
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
