"""The relaxed Bernoulli distribution and its logit (PyTorch's
``torch.distributions.relaxed_bernoulli``), reparameterised. ``log1p(exp(d))`` in
``LogitRelaxedBernoulli.log_prob`` is ``logaddexp(0, d)`` (PyTorch's value where finite; finite
where PyTorch's overflows)."""

from __future__ import annotations

from typing import Any

from ..ops.pointwise import logaddexp
from ..tensor import Tensor
from . import constraints
from .distribution import Distribution, expand_params
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import (
    batch_of,
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    one_of,
    probs_to_logits,
    sample_array,
    temperature_tensor,
)

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


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
        one_of(probs, logits)
        if probs is not None:
            (self.probs,) = broadcast_all(probs)
            param = self.probs
        else:
            (self.logits,) = broadcast_all(logits)
            param = self.logits
        self.temperature = temperature_tensor(temperature, param)
        super().__init__(batch_of(probs if probs is not None else logits), validate_args=validate_args)

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
        u = clamp_probs(sample_array(lambda g, s: g.random(s), shape, probs._data.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * logaddexp(diff * 0, diff)


class RelaxedBernoulli(TransformedDistribution):
    """A relaxed Bernoulli on ``(0, 1)``: ``sigmoid`` of a :class:`LogitRelaxedBernoulli` (the binary
    Concrete distribution, Maddison et al. 2017); ``rsample`` is differentiable in the parameters.

    Args:
        temperature (Tensor or float): ``> 0``; small values approach a Bernoulli.
        probs (Tensor or float, optional): in [0, 1], shape ``(*batch)``.
        logits (Tensor or float, optional): log-odds (give exactly one of the two).
        validate_args (bool, optional): see :class:`Distribution`. Default: ``None``.
    Raises:
        ValueError: both or neither of ``probs`` and ``logits``; with validation, probabilities
            outside [0, 1], or a ``log_prob`` value outside ``(0, 1)``.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import RelaxedBernoulli
        >>> d = RelaxedBernoulli(dyngrad.tensor(0.5), probs=dyngrad.tensor(0.3))
        >>> round(float(d.log_prob(dyngrad.tensor(0.4))), 4)                  # PyTorch 2.13: the same
        -0.7544
        >>> d.rsample((2,)).shape
        dyngrad.Size([2])
    """

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
