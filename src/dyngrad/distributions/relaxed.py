"""Continuous relaxations of discrete distributions (Maddison et al. 2017, "The Concrete
Distribution"; Jang et al. 2017, "Gumbel-Softmax"), reparameterised:
:class:`ExpRelaxedCategorical` / :class:`RelaxedOneHotCategorical` and
:class:`LogitRelaxedBernoulli` / :class:`RelaxedBernoulli`. Formulas are PyTorch 2.13's,
except that ``log1p(exp(d))`` in ``LogitRelaxedBernoulli.log_prob`` is evaluated as
``logaddexp(0, d)`` (equal where PyTorch's is finite; finite where PyTorch's overflows)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops.gamma import lgamma
from ..ops.pointwise import logaddexp
from ..ops.statistics import logsumexp
from ..tensor import Tensor
from . import constraints
from .continuous import _batch
from .discrete import Categorical, _one_of
from .distribution import Distribution, _shape, expand_params
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform, SigmoidTransform
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits, sample_array

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical", "LogitRelaxedBernoulli", "RelaxedBernoulli"]


def _temperature(t: Any, like: Tensor) -> Tensor:
    return t if isinstance(t, Tensor) else Tensor._make(np.asarray(t, dtype=like.data.dtype))


class ExpRelaxedCategorical(Distribution):
    """The log of a relaxed one-hot categorical sample: ``log softmax((logits + g) / T)``
    with Gumbel noise ``g`` (``event_shape == (K,)``).

    Args:
        temperature: ``T``, positive.
        probs: ``(*batch, K)`` (give one of ``probs``, ``logits``).
        logits: ``(*batch, K)``.
        validate_args: see :class:`~.distribution.Distribution`.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature: Any, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        self.temperature = _temperature(temperature, self._categorical.logits)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        Distribution.__init__(new, _shape(batch_shape), self._event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def param_shape(self) -> tuple[int, ...]:
        return self._categorical.param_shape

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = clamp_probs(sample_array(lambda g, s: g.random(s), shape, self.logits.data.dtype))
        gumbels = -((-(u.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - logsumexp(scores, -1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = lgamma(self.temperature * 0 + float(K)) - self.temperature.log() * -(K - 1)
        score = logits - value * self.temperature
        score = (score - logsumexp(score, -1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """A relaxed one-hot categorical on the simplex: ``softmax((logits + g) / T)`` (the
    Gumbel-softmax / Concrete distribution), ``exp`` of an :class:`ExpRelaxedCategorical`.
    Arguments as :class:`ExpRelaxedCategorical`."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex

    def __init__(self, temperature: Any, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        base = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(base, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature  # type: ignore[attr-defined]

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits  # type: ignore[attr-defined]

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs  # type: ignore[attr-defined]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a relaxed Bernoulli sample: ``(logit(u) + logits) / T`` for a uniform
    ``u``.

    Args:
        temperature: ``T``, positive.
        probs: the probability (give one of ``probs``, ``logits``).
        logits: the log-odds.
        validate_args: see :class:`~.distribution.Distribution`.
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real
    has_rsample = True

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        _one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            param = self.logits
        self.temperature = _temperature(temperature, param)
        super().__init__(_batch(probs if probs is not None else logits), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        new = expand_params(self, LogitRelaxedBernoulli, batch_shape, ("probs", "logits"), _instance)
        new.temperature = self.temperature
        return new

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return logits_to_probs(self.logits, is_binary=True)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(sample_array(lambda g, s: g.random(s), shape, probs.data.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * logaddexp(diff * 0, diff)


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli on ``(0, 1)``: ``sigmoid`` of a :class:`LogitRelaxedBernoulli`.
    Arguments as :class:`LogitRelaxedBernoulli`."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval

    def __init__(self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature  # type: ignore[attr-defined]

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits  # type: ignore[attr-defined]

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs  # type: ignore[attr-defined]
