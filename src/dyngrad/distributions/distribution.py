"""The :class:`Distribution` base class (PyTorch's ``torch.distributions.Distribution``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._tensor.metadata import Size
from ..tensor import Tensor
from . import constraints

__all__ = ["Distribution"]


def _shape(s: Any) -> tuple[int, ...]:
    if isinstance(s, int):
        return (s,)
    return tuple(int(v) for v in s)


class Distribution:
    """Base of all probability distributions, with PyTorch's API.

    A distribution has a ``batch_shape`` (independent, not identically distributed copies)
    and an ``event_shape`` (the shape of one draw); ``sample(sample_shape)`` returns
    ``sample_shape + batch_shape + event_shape``. ``rsample`` draws a reparameterised sample
    (differentiable in the parameters) where ``has_rsample`` is True. ``log_prob(value)``
    returns ``value``'s broadcast batch shape.

    Args:
        batch_shape: the batch shape.
        event_shape: the event shape.
        validate_args: check the parameters now, and values given to ``log_prob``/``cdf``/
            ``icdf`` later, against ``arg_constraints`` and ``support``. None takes the
            default (on, as PyTorch's under ``__debug__``; see
            :meth:`set_default_validate_args`).

    Raises:
        ValueError: with validation on, a parameter outside its constraint (PyTorch's
            message).

    Example:
        >>> import dyngrad
        >>> from dyngrad.distributions import Distribution, constraints
        >>> class Unit(Distribution):                 # the standard normal, batch shape (2,)
        ...     arg_constraints = {}
        ...     support = constraints.real
        ...     def __init__(self):
        ...         super().__init__(batch_shape=(2,))
        ...     def log_prob(self, value):
        ...         return -0.5 * value ** 2 - 0.9189385332046727
        >>> d = Unit()
        >>> d.batch_shape, d.log_prob(dyngrad.zeros(2))
        (dyngrad.Size([2]), tensor([-0.9189, -0.9189]))
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions created afterwards without an
        explicit ``validate_args``.

        Raises:
            ValueError: ``value`` not a bool.
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: bool | None = None) -> None:
        self._batch_shape = _shape(batch_shape)
        self._event_shape = _shape(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and _is_lazy(type(self), param):
                    continue  # lazily-constructed (probs from logits): not given, not checked
                value = getattr(self, param)
                if not bool(np.all(constraint.check(value)._data)):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{value}")

    # ------------------------------------------------------------------ shapes
    @property
    def batch_shape(self) -> tuple[int, ...]:
        """The shape over which parameters are batched."""
        return Size(self._batch_shape)  # a Size, as PyTorch's torch.Size

    @property
    def event_shape(self) -> tuple[int, ...]:
        """The shape of a single sample (without batching)."""
        return Size(self._event_shape)

    def _extended_shape(self, sample_shape: Any = ()) -> tuple[int, ...]:
        return _shape(sample_shape) + self._batch_shape + self._event_shape

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A new distribution with the parameters expanded to ``batch_shape`` (no copy, no
        re-validation)."""
        raise NotImplementedError

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    # ------------------------------------------------------------------ what subclasses state
    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:
        """Parameter name -> the constraint it must satisfy."""
        raise NotImplementedError

    @property
    def support(self) -> Any:
        """The constraint a sample satisfies."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        """The standard deviation, ``variance.sqrt()``."""
        return self.variance.sqrt()

    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A sample of shape ``sample_shape + batch_shape + event_shape``, detached from the
        parameters (``rsample`` without its graph where there is one)."""
        from ..autograd.grad_mode import no_grad

        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterised sample: differentiable in the parameters.

        Raises:
            NotImplementedError: the distribution has no reparameterised sampler.
        """
        raise NotImplementedError

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy, of shape ``batch_shape``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All values of a discrete support along a new leading dim."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return self.entropy().exp()

    # ------------------------------------------------------------------ validation
    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        shape = tuple(value.shape)
        start = len(shape) - len(self._event_shape)
        if shape[start:] != self._event_shape:
            raise ValueError(f"The right-most size of value must match event_shape: {shape} vs {self._event_shape}.")
        expected = self._batch_shape + self._event_shape
        for i, j in zip(reversed(shape), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: {shape} vs {expected}.")
        support = self.support
        if constraints.is_dependent(support):
            return
        if not bool(np.all(support.check(value)._data)):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {shape}) to be within the support "
                f"({support!r}) of the distribution {self!r}, but found invalid values:\n{value}")

    def __repr__(self) -> str:
        names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args = ", ".join(f"{p}: {_brief(self.__dict__[p])}" for p in names)
        return f"{self.__class__.__name__}({args})"


def _brief(v: Any) -> Any:
    return (v.item() if v.numel() == 1 else tuple(v.shape)) if isinstance(v, Tensor) else v


def _is_lazy(cls: type, name: str) -> bool:
    from .utils import lazy_property

    return isinstance(getattr(cls, name, None), lazy_property)



def expand_params(self: Distribution, cls: type, batch_shape: Any, names: tuple[str, ...], _instance: Any = None,
                  event_shape: tuple[int, ...] = ()) -> Any:
    """``Distribution.expand`` for a distribution whose state is the parameters ``names``
    (each expanded to ``batch_shape`` + its own trailing ``event`` dims); the new instance
    keeps ``validate_args`` without re-checking."""
    new = self._get_checked_instance(cls, _instance)
    batch_shape = _shape(batch_shape)
    for n in names:
        if n in self.__dict__:
            v = self.__dict__[n]
            tail = tuple(v.shape[len(self._batch_shape):])
            new.__dict__[n] = v.expand(batch_shape + tail)
    Distribution.__init__(new, batch_shape, event_shape or self._event_shape, validate_args=False)
    new._validate_args = self._validate_args
    return new
