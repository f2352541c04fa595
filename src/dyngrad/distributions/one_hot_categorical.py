"""The one-hot categorical distribution (PyTorch's
``torch.distributions.one_hot_categorical``): :class:`~.categorical.Categorical` with one-hot
samples."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..tensor import Tensor
from . import constraints
from .categorical import Categorical
from .distribution import Distribution, _shape

__all__ = ["OneHotCategorical"]


class OneHotCategorical(Distribution):
    """:class:`Categorical` with its samples as one-hot vectors of length ``K`` (``event_shape ==
    (K,)``).

    Not reparameterisable (``has_rsample`` is False); ``log_prob`` is differentiable in the
    parameters.

    Args:
        probs (Tensor, optional): ``(*batch, K)``, non-negative (normalised to sum to 1).
        logits (Tensor, optional): ``(*batch, K)`` unnormalised log probabilities (give exactly one
            of the two).
        validate_args (bool, optional): see :class:`Distribution`. Default: ``None``.
    Raises:
        ValueError: both or neither of ``probs`` and ``logits``; with validation, negative
            probabilities, or a ``log_prob`` value that is not one-hot.

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import OneHotCategorical
        >>> d = OneHotCategorical(dyngrad.tensor([0.2, 0.3, 0.5]))
        >>> d.sample((4,)).shape, d.event_shape
        (dyngrad.Size([4, 3]), dyngrad.Size([3]))
        >>> round(float(d.log_prob(dyngrad.tensor([0.0, 0.0, 1.0]))), 4)    # log 0.5
        -0.6931
    """

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
        return self._one_hot(self.probs.argmax(-1)._data)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def _one_hot(self, idx: np.ndarray) -> Tensor:
        return Tensor._make(np.eye(self._event_shape[0], dtype=self.probs._data.dtype)[idx])

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self._one_hot(self._categorical.sample(sample_shape)._data)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(Tensor._make(value._data.argmax(-1)))

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self._event_shape[0]
        values = Tensor._make(np.eye(n, dtype=self.probs._data.dtype).reshape((n,) + (1,) * len(self._batch_shape) + (n,)))
        return values.expand((n,) + self._batch_shape + (n,)) if expand else values
