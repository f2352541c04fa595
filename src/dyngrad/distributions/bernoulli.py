"""The Bernoulli distribution (PyTorch's ``torch.distributions.bernoulli``). ``log(1 +
exp(logits))`` is ``logaddexp(0, logits)``: PyTorch's value, with the gradient
``sigmoid(logits)`` everywhere (PyTorch's ``max(x, 0) + log1p(exp(-|x|))`` form needs a clamp
at 0)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.pointwise import where
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .utils import (
    batch_of,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    one_of,
    probs_to_logits,
    sample_array,
    softplus,
)

__all__ = ["Bernoulli"]


class Bernoulli(Distribution):
    """The Bernoulli distribution: 1 with probability ``probs``, else 0.

    Args:
        probs: the probability of 1, in ``[0, 1]``.
        logits: the log-odds ``log(p / (1 - p))`` (give one of ``probs``, ``logits``).
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: both or neither of ``probs`` and ``logits``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Bernoulli
        >>> d = Bernoulli(dyngrad.tensor(0.3))
        >>> round(float(d.log_prob(dyngrad.tensor(1.0))), 4)                    # PyTorch 2.13: the same
        -1.204
        >>> d.sample((2,)).shape
        dyngrad.Size([2])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        super().__init__(batch_of(probs if probs is not None else logits), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        return expand_params(self, Bernoulli, batch_shape, ("probs", "logits"), _instance)

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> tuple[int, ...]:
        return tuple((self.__dict__.get("probs") or self.__dict__["logits"]).shape)

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        p = self.probs
        return where(p == 0.5, float("nan"), (p >= 0.5).to(p.dtype))

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        p = np.broadcast_to(self.probs._data, shape)
        return sample_array(lambda g, s: g.random(s) < p, shape, self.probs._data.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return value * logits - softplus(logits)

    def entropy(self) -> Tensor:
        return softplus(self.logits) - self.logits * self.probs

    def enumerate_support(self, expand: bool = True) -> Tensor:
        dt = self.probs._data.dtype if "probs" in self.__dict__ else self.logits._data.dtype
        values = Tensor._make(np.arange(2, dtype=dt).reshape((2,) + (1,) * len(self._batch_shape)))
        return values.expand((2,) + self._batch_shape) if expand else values
