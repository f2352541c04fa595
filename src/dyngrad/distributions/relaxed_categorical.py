"""The relaxed one-hot categorical (Gumbel-softmax / Concrete) distribution and its log
(PyTorch's ``torch.distributions.relaxed_categorical``; Maddison et al. 2017, Jang et al.
2017), reparameterised."""

from __future__ import annotations

from typing import Any

from ..ops.gamma import lgamma
from ..ops.statistics import logsumexp
from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution, _shape
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs, sample_array, temperature_tensor

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


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
        self.temperature = temperature_tensor(temperature, self._categorical.logits)
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
        u = clamp_probs(sample_array(lambda g, s: g.random(s), shape, self.logits._data.dtype))
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
    """A relaxed one-hot categorical on the simplex: ``softmax((logits + g) / T)`` with Gumbel noise
    ``g`` (the Gumbel-softmax / Concrete distribution, Jang et al. 2017, Maddison et al. 2017),
    ``exp`` of an :class:`ExpRelaxedCategorical`; ``rsample`` is differentiable.

    Args:
        temperature (Tensor or float): ``T > 0``.
        probs (Tensor, optional): ``(*batch, K)``, non-negative.
        logits (Tensor, optional): ``(*batch, K)`` (give exactly one of the two).
        validate_args (bool, optional): see :class:`Distribution`. Default: ``None``.
    Raises:
        ValueError: both or neither of ``probs`` and ``logits``; with validation, negative
            probabilities, or a ``log_prob`` value off the simplex.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import RelaxedOneHotCategorical
        >>> d = RelaxedOneHotCategorical(dyngrad.tensor(0.5), probs=dyngrad.tensor([0.2, 0.8]))
        >>> round(float(d.log_prob(dyngrad.tensor([0.4, 0.6]))), 4)           # PyTorch 2.13: the same
        -0.9838
        >>> d.rsample((3,)).shape
        dyngrad.Size([3, 2])
    """

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
