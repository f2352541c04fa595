"""The Dirichlet distribution (PyTorch's ``torch.distributions.dirichlet``). ``rsample``
normalises independent standard gammas (``g / g.sum(-1)``) and is differentiated through the
normalisation and the gammas' implicit gradients: a valid pathwise gradient whose
per-sample values differ from PyTorch's ``_dirichlet_grad`` (the expectations agree)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.gamma import digamma, lgamma
from ..ops.pointwise import where
from ..ops.xlogy import xlogy
from ..tensor import Tensor
from . import constraints
from ._standard_gamma import standard_gamma
from .distribution import Distribution, expand_params

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """The Dirichlet distribution on the simplex, density
    ``Gamma(sum a) / prod Gamma(a_i) * prod x_i^(a_i - 1)``.

    Args:
        concentration: ``(*batch, K)``, positive.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: ``concentration`` with fewer than one dimension.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Dirichlet
        >>> d = Dirichlet(dyngrad.tensor([1.0, 2.0, 3.0]))
        >>> round(float(d.log_prob(dyngrad.tensor([0.2, 0.3, 0.5]))), 4)                    # PyTorch 2.13: the same
        1.5041
        >>> d.sample((2,)).shape, d.event_shape
        (dyngrad.Size([2, 3]), dyngrad.Size([3]))
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
        total = cm1.sum(-1, keepdim=True)
        mask = (self.concentration._data < 1).all(-1, keepdims=True)
        if not mask.any():
            return cm1 / total
        # the rows that take the vertex divide by 1, not by their zero total: 0 / 0 there would
        # give NaN gradients through where() (the unselected branch still differentiates)
        safe = where(Tensor._make(mask), Tensor._make(np.ones(mask.shape, dtype=total._data.dtype)), total)
        mode = cm1 / safe
        vertex = np.zeros(tuple(mode.shape), dtype=mode._data.dtype)
        vertex[..., 0] = 1
        return where(Tensor._make(np.broadcast_to(mask, vertex.shape)), Tensor._make(vertex), mode)

    @property
    def variance(self) -> Tensor:
        a = self.concentration
        a0 = a.sum(-1, keepdim=True)
        return a * (a0 - a) / (a0.pow(2) * (a0 + 1))

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        g = standard_gamma(self.concentration.expand(shape))
        out = g / g.sum(-1, keepdim=True)
        tiny = float(np.finfo(out._data.dtype).tiny)
        return out.clamp(min=tiny, max=1 - float(np.finfo(out._data.dtype).eps))

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
