"""Helpers shared by the distributions: broadcasting parameters, probs <-> logits,
drawing NumPy samples from dyngrad's generator (PyTorch's ``torch.distributions.utils``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.grad_mode import no_grad
from ..creation import _gen
from ..ops.elementwise import clamp, log, sigmoid
from ..ops.fused import softmax
from ..ops.pointwise import logaddexp
from ..ops.shape import expand
from ..ops.special import log1p
from ..ops.statistics import logsumexp
from ..tensor import Tensor

__all__ = ["broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values as Tensors of one broadcast shape (numbers take the dtype of the first
    floating tensor, else the default dtype), as PyTorch's ``broadcast_all``.

    Raises:
        ValueError: a value that is neither a Tensor nor a number.
    """
    if not all(isinstance(v, (Tensor, int, float)) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, torch.Tensor or objects "
                         "implementing __torch_function__.")
    tensors = [v for v in values if isinstance(v, Tensor)]
    dt = next((t._data.dtype for t in tensors if B.kind(t._data) == "f"), B.get_default_dtype().np)
    ts = [v if isinstance(v, Tensor) else Tensor._make(np.asarray(v, dtype=dt)) for v in values]
    shape = np.broadcast_shapes(*(t.shape for t in ts))
    return tuple(t if t.shape == shape else expand(t, shape) for t in ts)


def float_dtype_of(*values: Any) -> np.dtype:
    return next((v._data.dtype for v in values if isinstance(v, Tensor) and B.kind(v._data) == "f"),
                B.get_default_dtype().np)


def sample_array(draw: Any, shape: tuple, dtype: np.dtype) -> Tensor:
    """A Tensor (no grad) from ``draw(rng, shape)`` with dyngrad's default generator."""
    arr = np.asarray(draw(_gen(None), tuple(shape)))
    return Tensor._make(arr.astype(dtype, copy=False))


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits of probabilities (``log p - log(1 - p)`` when ``is_binary``, else ``log p``),
    probabilities clamped away from 0 and 1 first."""
    ps = clamp_probs(probs)
    return log(ps) - log1p(-ps) if is_binary else log(ps)


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """``sigmoid(logits)`` when ``is_binary``, else ``softmax(logits, -1)``."""
    return sigmoid(logits) if is_binary else softmax(logits, -1)


def clamp_probs(probs: Tensor) -> Tensor:
    """Probabilities clamped into ``[eps, 1 - eps]`` (``eps`` of their dtype)."""
    eps = float(np.finfo(probs._data.dtype if B.kind(probs._data) == "f" else np.float32).eps)
    return clamp(probs, min=eps, max=1 - eps)


def normalize_logits(logits: Tensor) -> Tensor:
    """``logits - logsumexp(logits, -1)``: log probabilities along the last dim."""
    return logits - logsumexp(logits, -1, keepdim=True)


class lazy_property:
    """A property computed once on first access and then stored on the instance (PyTorch's
    ``lazy_property``: ``probs`` from ``logits`` and back)."""

    def __init__(self, wrapped: Any) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        value = self.wrapped(instance)
        instance.__dict__[self.wrapped.__name__] = value
        return value


def detached(fn: Any) -> Any:
    """Run ``fn`` under no_grad (samples that are not reparameterised)."""
    with no_grad():
        return fn()


def batch_of(*params: Any) -> tuple[int, ...]:
    """The batch shape of scalar parameters: ``()`` when all are numbers, else the broadcast
    of the tensors' shapes (PyTorch's rule)."""
    if all(isinstance(p, (int, float)) for p in params):
        return ()
    return tuple(np.broadcast_shapes(*(tuple(p.shape) for p in params if isinstance(p, Tensor))))


def one_of(probs: Any, logits: Any) -> None:
    """Raise PyTorch's ValueError unless exactly one of ``probs`` and ``logits`` is given."""
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


def softplus(x: Tensor) -> Tensor:
    """``log(1 + exp(x))`` as ``logaddexp(0, x)``: exact for every ``x``, gradient
    ``sigmoid(x)`` (the nn softplus switches to ``x`` above a threshold)."""
    return logaddexp(x * 0, x)


def temperature_tensor(t: Any, like: Tensor) -> Tensor:
    """A temperature as a Tensor of ``like``'s dtype (numbers accepted)."""
    return t if isinstance(t, Tensor) else Tensor._make(np.asarray(t, dtype=like._data.dtype))
