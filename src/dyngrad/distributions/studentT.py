"""Student's t distribution (PyTorch's ``torch.distributions.studentT``); ``rsample`` is
``loc + scale * X / sqrt(Z / df)`` with ``X ~ Normal(0, 1)`` and ``Z ~ Chi2(df)``
(reparameterised in all three parameters: ``df`` through the gamma's implicit gradients)."""

from __future__ import annotations

import math
from typing import Any

from ..ops.gamma import digamma, lgamma
from ..ops.pointwise import where
from ..tensor import Tensor
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution, _shape
from .utils import broadcast_all, sample_array

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location and scale.

    Args:
        df: the degrees of freedom, positive.
        loc: the location (default 0).
        scale: the scale, positive (default 1).
        validate_args: see :class:`~.distribution.Distribution`.

    Raises:
        ValueError: with ``validate_args`` (on by default, as PyTorch's), ``df <= 0`` or ``scale <= 0``; and from ``log_prob`` a value outside the support.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import StudentT
        >>> d = StudentT(dyngrad.tensor(3.0))
        >>> round(float(d.log_prob(dyngrad.tensor(1.0))), 4)                    # PyTorch 2.13: the same
        -1.5763
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(tuple(self.df.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = _shape(batch_shape)
        new.df, new.loc, new.scale = (t.expand(batch_shape) for t in (self.df, self.loc, self.scale))
        new._chi2 = self._chi2.expand(batch_shape)
        Distribution.__init__(new, batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        """``loc`` where ``df > 1``, else nan."""
        return where(Tensor._make(self.df._data <= 1), float("nan"), self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        """``scale^2 df / (df - 2)`` where ``df > 2``; inf for ``1 < df <= 2``; nan for ``df <= 1``."""
        df = self.df._data
        safe_df = where(Tensor._make(df > 2), self.df, 3.0)
        v = self.scale.pow(2) * safe_df / (safe_df - 2)
        v = where(Tensor._make((df <= 2) & (df > 1)), float("inf"), v)
        return where(Tensor._make(df <= 1), float("nan"), v)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        X = sample_array(lambda g, s: g.standard_normal(s), shape, self.df._data.dtype)
        Z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * X * (Z / self.df).rsqrt()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi) + lgamma(0.5 * self.df)
             - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * (y**2.0 / self.df).log1p() - Z

    def entropy(self) -> Tensor:
        lbeta = lgamma(0.5 * self.df) + math.lgamma(0.5) - lgamma(0.5 * (self.df + 1))
        return (self.scale.log() + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1)) - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)


