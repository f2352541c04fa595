"""The binomial distribution (PyTorch's ``torch.distributions.binomial``); ``log(1 +
exp(logits))`` as in :mod:`.bernoulli`."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.gamma import lgamma
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import (
    broadcast_all,
    lazy_property,
    logits_to_probs,
    one_of,
    probs_to_logits,
    sample_array,
    softplus,
)

__all__ = ["Binomial"]


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent Bernoulli(``probs``) trials.

    Args:
        total_count: the number of trials, a non-negative integer (Tensor or int).
        probs: the success probability (give one of ``probs``, ``logits``).
        logits: the success log-odds.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: both or neither of ``probs`` and ``logits``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Binomial
        >>> d = Binomial(10, dyngrad.tensor(0.3))
        >>> round(float(d.log_prob(dyngrad.tensor(3.0))), 4)                    # PyTorch 2.13: the same
        -1.3212
        >>> round(float(d.mean), 4)
        3.0
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.to(self.probs.dtype)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.to(self.logits.dtype)
        param = self.probs if probs is not None else self.logits
        super().__init__(tuple(param.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        return expand_params(self, Binomial, batch_shape, ("total_count", "probs", "logits"), _instance)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        n = np.broadcast_to(self.total_count._data.astype(np.int64), shape)
        p = np.broadcast_to(self.probs._data, shape)
        return sample_array(lambda g, s: g.binomial(n, p, s), shape, self.probs._data.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        normalize = n * softplus(self.logits) - lgamma(n + 1)
        return value * self.logits - lgamma(value + 1) - lgamma(n - value + 1) - normalize

    def entropy(self) -> Tensor:
        """``-sum_k P(k) log P(k)`` over the support.

        Raises:
            NotImplementedError: ``total_count`` not the same everywhere (PyTorch's message).
        """
        n = self.total_count._data
        if n.size and not (n == n.reshape(-1)[0]).all():
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        values = self.enumerate_support(False)
        lp = self.log_prob(values)
        return -(lp.exp() * lp).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.total_count._data
        total = int(n.max()) if n.size else 0
        if n.size and not (n == total).all():
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = Tensor._make(np.arange(1 + total, dtype=self.total_count._data.dtype).reshape(
            (1 + total,) + (1,) * len(self._batch_shape)))
        return values.expand((1 + total,) + self._batch_shape) if expand else values
