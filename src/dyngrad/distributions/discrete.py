"""Discrete distributions: :class:`Bernoulli`, :class:`Categorical`,
:class:`OneHotCategorical`, :class:`Poisson`, :class:`Binomial`. None has a reparameterised
sampler (``sample`` draws with dyngrad's generator, outside the graph). Each takes exactly
one of ``probs`` / ``logits`` where PyTorch does; the other is computed lazily on first use.
Formulas are PyTorch 2.13's, except that ``log(1 + exp(logits))`` is ``logaddexp(0, logits)``
(the same value; its gradient is ``sigmoid(logits)`` at 0 as well, where PyTorch's
``max(x, 0) + log1p(exp(-|x|))`` form needs a special clamp).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.gamma import lgamma
from ..ops.pointwise import logaddexp, where
from ..ops.statistics import logsumexp
from ..ops.xlogy import xlogy
from ..tensor import Tensor
from . import constraints
from .continuous import _batch
from .distribution import Distribution, _shape, expand_params
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits, sample_array

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical", "Poisson", "Binomial"]


def _one_of(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def _softplus(x: Tensor) -> Tensor:
    return logaddexp(x * 0, x)


class Bernoulli(Distribution):
    """The Bernoulli distribution: 1 with probability ``probs``, else 0.

    Args:
        probs: the probability of 1, in ``[0, 1]``.
        logits: the log-odds ``log(p / (1 - p))`` (give one of ``probs``, ``logits``).
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: both or neither of ``probs`` and ``logits``.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        super().__init__(_batch(probs if probs is not None else logits), validate_args=validate_args)

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
        p = np.broadcast_to(self.probs.data, shape)
        return sample_array(lambda g, s: g.random(s) < p, shape, self.probs.data.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return value * logits - _softplus(logits)

    def entropy(self) -> Tensor:
        return _softplus(self.logits) - self.logits * self.probs

    def enumerate_support(self, expand: bool = True) -> Tensor:
        dt = self.probs.data.dtype if "probs" in self.__dict__ else self.logits.data.dtype
        values = Tensor._make(np.arange(2, dtype=dt).reshape((2,) + (1,) * len(self._batch_shape)))
        return values.expand((2,) + self._batch_shape) if expand else values


class Categorical(Distribution):
    """A distribution over ``{0, ..., K-1}`` with probabilities ``probs`` (normalised along
    the last dim) or ``softmax(logits)``.

    Args:
        probs: ``(*batch, K)``, non-negative (normalised to sum to 1).
        logits: ``(*batch, K)`` unnormalised log probabilities.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: both or neither of ``probs`` and ``logits``; a 0-d parameter.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
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
        return Tensor._make(np.full(self._batch_shape, np.nan, dtype=self.probs.data.dtype))

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return self.mean

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = _shape(sample_shape) + self._batch_shape
        cdf = np.cumsum(self.probs.data.astype(np.float64), -1)

        def draw(g: np.random.Generator, s: tuple) -> np.ndarray:
            u = g.random(s)[..., None] * cdf[..., -1:]
            return np.minimum((u >= cdf).sum(-1), self._num_events - 1)

        return sample_array(draw, shape, np.dtype(np.int64))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        idx = value.data.astype(np.int64)[..., None]
        shape = np.broadcast_shapes(idx.shape[:-1], self._batch_shape)
        log_pmf = self.logits.expand(shape + (self._num_events,))
        return log_pmf.gather(-1, Tensor._make(np.broadcast_to(idx, shape + (1,)).copy())).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(np.finfo(self.logits.data.dtype).min)
        logits = self.logits.clamp(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._num_events
        values = Tensor._make(np.arange(n, dtype=np.int64).reshape((n,) + (1,) * len(self._batch_shape)))
        return values.expand((n,) + self._batch_shape) if expand else values


class OneHotCategorical(Distribution):
    """:class:`Categorical` with its samples as one-hot vectors of length ``K``
    (``event_shape == (K,)``). Arguments as :class:`Categorical`."""

    arg_constraints = Categorical.arg_constraints
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        super().__init__(self._categorical._batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, _shape(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def param_shape(self) -> tuple[int, ...]:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        return self._one_hot(self.probs.argmax(-1).data)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def _one_hot(self, idx: np.ndarray) -> Tensor:
        return Tensor._make(np.eye(self._event_shape[0], dtype=self.probs.data.dtype)[idx])

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self._one_hot(self._categorical.sample(sample_shape).data)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(Tensor._make(value.data.argmax(-1)))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._event_shape[0]
        values = Tensor._make(np.eye(n, dtype=self.probs.data.dtype).reshape((n,) + (1,) * len(self._batch_shape) + (n,)))
        return values.expand((n,) + self._batch_shape + (n,)) if expand else values


class Poisson(Distribution):
    """The Poisson distribution, ``P(k) = rate^k e^-rate / k!``.

    Args:
        rate: the mean, non-negative.
        validate_args: see :class:`Distribution`.
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch(rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        return expand_params(self, Poisson, batch_shape, ("rate",), _instance)

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        lam = np.broadcast_to(self.rate.data, shape)
        return sample_array(lambda g, s: g.poisson(lam, s), shape, self.rate.data.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - lgamma(value + 1)


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent Bernoulli(``probs``) trials.

    Args:
        total_count: the number of trials, a non-negative integer (Tensor or int).
        probs: the success probability (give one of ``probs``, ``logits``).
        logits: the success log-odds.
        validate_args: see :class:`Distribution`.

    Raises:
        ValueError: both or neither of ``probs`` and ``logits``.
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Any = 1, probs: Any = None, logits: Any = None,
                 validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
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
        n = np.broadcast_to(self.total_count.data.astype(np.int64), shape)
        p = np.broadcast_to(self.probs.data, shape)
        return sample_array(lambda g, s: g.binomial(n, p, s), shape, self.probs.data.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        normalize = n * _softplus(self.logits) - lgamma(n + 1)
        return value * self.logits - lgamma(value + 1) - lgamma(n - value + 1) - normalize

    def entropy(self) -> Tensor:
        """``-sum_k P(k) log P(k)`` over the support.

        Raises:
            NotImplementedError: ``total_count`` not the same everywhere (PyTorch's message).
        """
        n = self.total_count.data
        if n.size and not (n == n.reshape(-1)[0]).all():
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        values = self.enumerate_support(False)
        lp = self.log_prob(values)
        return -(lp.exp() * lp).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.total_count.data
        total = int(n.max()) if n.size else 0
        if n.size and not (n == total).all():
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        values = Tensor._make(np.arange(1 + total, dtype=self.total_count.data.dtype).reshape(
            (1 + total,) + (1,) * len(self._batch_shape)))
        return values.expand((1 + total,) + self._batch_shape) if expand else values
