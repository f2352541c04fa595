"""``nn.utils``: gradient clipping, parameter/vector conversion, ``rnn`` (packed sequences),
``parametrize`` / ``parametrizations`` and the older hook-based ``weight_norm`` /
``spectral_norm``."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...tensor import Tensor
from . import parametrizations, parametrize, rnn
from .norm_hooks import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm

__all__ = ["rnn", "parametrize", "parametrizations", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm", "clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]


def _params(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def clip_grad_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Scale all gradients in place so that their joint ``norm_type``-norm is at most
    ``max_norm`` (scale ``min(1, max_norm / (total + 1e-6))``, as PyTorch).

    Returns:
        The total norm of the gradients before clipping (a 0-d tensor).
    Raises:
        RuntimeError: the total norm is nan/inf and ``error_if_nonfinite``.
    """
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    max_norm, norm_type = float(max_norm), float(norm_type)
    if not grads:
        return Tensor._make(np.array(0.0, dtype=np.float32))
    dt = grads[0]._data.dtype
    if norm_type == math.inf:
        total = max(float(np.max(np.abs(g._data))) if g._data.size else 0.0 for g in grads)
    else:
        norms = [np.linalg.norm(g._data.ravel().astype(np.float64), ord=norm_type) for g in grads]
        total = float(np.linalg.norm(np.array(norms), ord=norm_type))
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    coef = min(max_norm / (total + 1e-6), 1.0)
    for g in grads:
        g._data *= np.asarray(coef, dtype=g._data.dtype)
        g._bump()
    return Tensor._make(np.array(total, dtype=dt))


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: Any = None) -> None:
    """Clamp every gradient elementwise into ``[-clip_value, clip_value]`` in place."""
    c = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            np.clip(p.grad._data, -c, c, out=p.grad._data)
            p.grad._bump()


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated (differentiable)."""
    from .. import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    i = 0
    for p in parameters:
        n = p.numel()
        p._data[...] = vec._data[i : i + n].reshape(p.shape)
        p._bump()
        i += n
