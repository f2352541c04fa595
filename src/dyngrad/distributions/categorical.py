"""The categorical distribution over ``{0, ..., K-1}`` (PyTorch's
``torch.distributions.categorical``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.statistics import logsumexp
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, _shape, expand_params
from .utils import lazy_property, logits_to_probs, one_of, probs_to_logits, sample_array

__all__ = ["Categorical"]


class Categorical(Distribution):
    """A distribution over ``{0, ..., K-1}`` with probabilities ``probs`` (normalised along
    the last dim) or ``softmax(logits)``.

    Args:
        probs: ``(*batch, K)``, non-negative (normalised to sum to 1).
        logits: ``(*batch, K)`` unnormalised log probabilities.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: both or neither of ``probs`` and ``logits``; a 0-d parameter.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Categorical
        >>> d = Categorical(dyngrad.tensor([0.2, 0.3, 0.5]))
        >>> round(float(d.log_prob(dyngrad.tensor(2))), 4)                    # PyTorch 2.13: the same
        -0.6931
        >>> d.sample((4,)).shape
        dyngrad.Size([4])
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        one_of(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            assert logits is not None
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logsumexp(logits, -1, keepdim=True)
        param = self.probs if probs is not None else self.logits
        self._num_events = param.shape[-1]
        super().__init__(tuple(param.shape[:-1]), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        new = expand_params(self, Categorical, batch_shape, ("probs", "logits"), _instance)
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return self._batch_shape + (self._num_events,)

    @property
    def mean(self) -> Tensor:
        return Tensor._make(np.full(self._batch_shape, np.nan, dtype=self.probs._data.dtype))

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self.mean

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = _shape(sample_shape) + self._batch_shape
        cdf = np.cumsum(self.probs._data.astype(np.float64), -1)

        def draw(g: np.random.Generator, s: tuple) -> np.ndarray:
            u = g.random(s)[..., None] * cdf[..., -1:]
            return np.minimum((u >= cdf).sum(-1), self._num_events - 1)

        return sample_array(draw, shape, np.dtype(np.int64))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        idx = value._data.astype(np.int64)[..., None]
        shape = np.broadcast_shapes(idx.shape[:-1], self._batch_shape)
        log_pmf = self.logits.expand(shape + (self._num_events,))
        return log_pmf.gather(-1, Tensor._make(np.broadcast_to(idx, shape + (1,)).copy())).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(np.finfo(self.logits._data.dtype).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._num_events
        values = Tensor._make(np.arange(n, dtype=np.int64).reshape((n,) + (1,) * len(self._batch_shape)))
        return values.expand((n,) + self._batch_shape) if expand else values
