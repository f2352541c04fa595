"""``nn.utils``: gradient clipping, parameter/vector conversion, ``rnn`` (packed sequences),
``parametrize`` / ``parametrizations`` and the older hook-based ``weight_norm`` /
``spectral_norm``."""

from __future__ import annotations

import math
import types
import warnings
from collections.abc import Iterable
from typing import Any

import numpy as np

from ...tensor import Tensor
from . import parametrizations, parametrize, rnn
from .norm_hooks import remove_spectral_norm, remove_weight_norm, spectral_norm, weight_norm
from ... import _backend as B

__all__ = ["rnn", "parametrize", "parametrizations", "weight_norm", "remove_weight_norm", "spectral_norm",
           "remove_spectral_norm", "clip_grad_norm_", "clip_grad_norm", "clip_grad_value_", "get_total_norm",
           "clip_grads_with_norm_", "parameters_to_vector", "vector_to_parameters"]


def _params(parameters: Any) -> list[Tensor]:
    if isinstance(parameters, Tensor):
        return [parameters]
    return list(parameters)


def _total_norm(grads: list[Tensor], norm_type: float) -> float:
    if norm_type == math.inf:
        return max(float(np.max(np.abs(g._data))) if g._data.size else 0.0 for g in grads)
    if norm_type == -math.inf:
        return min(float(np.min(np.abs(g._data))) if g._data.size else math.inf for g in grads)
    norms = [np.linalg.norm(g._data.ravel().astype(np.float64), ord=norm_type) if g._data.size else 0.0
             for g in grads]
    return float(np.linalg.norm(np.array(norms), ord=norm_type))


def get_total_norm(
    tensors: Iterable[Tensor] | Tensor,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """The ``norm_type``-norm of several tensors taken together, as if they were concatenated
    into one vector (PyTorch 2.6+): the norm of the vector of their norms.

    Computed in float64 and returned in the tensors' promoted dtype, without recording
    (not differentiable, as PyTorch's, which runs under ``no_grad``). As in PyTorch,
    ``norm_type=0`` counts the tensors with a non-zero norm (the 0-"norm" of the norms),
    not the non-zero elements.

    Args:
        tensors (Iterable[Tensor] or Tensor): the tensors (typically the gradients,
            ``[p.grad for p in model.parameters()]``), any shapes ``(*)``.
        norm_type (float, optional): the order of the p-norm; ``inf`` for the largest
            absolute value, ``0`` counts the non-zeros. Default: ``2.0``.
        error_if_nonfinite (bool, optional): raise when the total is nan or +-inf.
            Default: ``False``.
        foreach (bool, optional): accepted for compatibility (one NumPy implementation).
            Default: ``None``.

    Returns:
        Tensor: the total norm, ``()``; ``tensor(0.)`` (float32) for no tensors.

    Raises:
        RuntimeError: the total norm is not finite and ``error_if_nonfinite`` is True
            (PyTorch's message), or a tensor is not floating.

    Example:
        >>> import dyngrad
        >>> dyngrad.nn.utils.get_total_norm([dyngrad.tensor([3.0]), dyngrad.tensor([4.0])])
        tensor(5.)
    """
    ts = [tensors] if isinstance(tensors, Tensor) else list(tensors)
    norm_type = float(norm_type)
    if not ts:
        return Tensor._make(np.array(0.0, dtype=np.float32))
    for t in ts:
        if B.kind(t._data) not in "fc":
            raise RuntimeError(
                f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {t.dtype}"
            )
    total = _total_norm(ts, norm_type)
    if error_if_nonfinite and not math.isfinite(total):
        raise RuntimeError(
            f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot be "
            "clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
            "`error_if_nonfinite=False`"
        )
    return Tensor._make(np.array(total, dtype=np.result_type(*[t._data.dtype for t in ts])))


def clip_grads_with_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    total_norm: Tensor | float,
    foreach: bool | None = None,
) -> None:
    """Scale the gradients of ``parameters`` in place by ``min(1, max_norm / (total_norm +
    1e-6))``, with a total norm computed beforehand (PyTorch 2.6+; ``clip_grad_norm_`` is
    ``get_total_norm`` of the gradients followed by this).

    The coefficient is computed in ``total_norm``'s dtype, as PyTorch's. Parameters whose
    ``.grad`` is None are skipped; nothing is recorded and each gradient's version counter
    is bumped.

    Args:
        parameters (Iterable[Tensor] or Tensor): the parameters whose ``.grad`` (any shape
            ``(*)``) is scaled.
        max_norm (float): the largest total norm kept.
        total_norm (Tensor or float): the total norm of the gradients, ``()``, e.g. from
            :func:`get_total_norm` (possibly reduced across processes first).
        foreach (bool, optional): accepted for compatibility. Default: ``None``.

    Returns:
        None: the gradients are changed in place.

    Raises:
        TypeError: a parameter is not a Tensor (its ``.grad`` cannot be read).

    Example:
        >>> import dyngrad
        >>> w = dyngrad.tensor([3.0, 4.0], requires_grad=True)
        >>> (w * w / 2).sum().backward()
        >>> total = dyngrad.nn.utils.get_total_norm([w.grad])
        >>> dyngrad.nn.utils.clip_grads_with_norm_([w], 1.0, total)
        >>> w.grad
        tensor([0.6000, 0.8000])
    """
    params = _params(parameters)
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError(f"clip_grads_with_norm_: expected Tensors, got {type(p).__name__}")
    grads = [p.grad for p in params if p.grad is not None]
    if not grads:
        return
    tn = np.asarray(total_norm._data if isinstance(total_norm, Tensor) else total_norm)
    if B.kind(tn) != "f":
        tn = tn.astype(np.float32)
    coef = np.minimum(np.asarray(float(max_norm), tn.dtype) / (tn + np.asarray(1e-6, tn.dtype)), np.asarray(1.0, tn.dtype))
    for g in grads:
        g._data *= coef.astype(g._data.dtype)
        g._bump()


def clip_grad_norm_(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Scale all gradients in place so that their joint ``norm_type``-norm is at most
    ``max_norm`` (scale ``min(1, max_norm / (total + 1e-6))``, as PyTorch): the same as
    :func:`get_total_norm` of the gradients followed by :func:`clip_grads_with_norm_`.
    An empty generator of parameters warns, as in PyTorch.

    Returns:
        The total norm of the gradients before clipping (a 0-d tensor).
    Raises:
        RuntimeError: the total norm is nan/inf and ``error_if_nonfinite``.
    """
    if isinstance(parameters, Tensor):
        params = [parameters]
    else:
        is_generator = isinstance(parameters, types.GeneratorType)
        params = list(parameters)
        if is_generator and not params:
            warnings.warn("`parameters` is an empty generator, no gradient clipping will occur.", stacklevel=2)
    grads = [p.grad for p in params if p.grad is not None]
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


def clip_grad_norm(
    parameters: Iterable[Tensor] | Tensor,
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: Any = None,
) -> Tensor:
    """Deprecated name of :func:`clip_grad_norm_` (warns with PyTorch's FutureWarning).

    Args:
        parameters (Iterable[Tensor] or Tensor): as :func:`clip_grad_norm_`.
        max_norm (float): as :func:`clip_grad_norm_`.
        norm_type (float, optional): as :func:`clip_grad_norm_`. Default: ``2.0``.
        error_if_nonfinite (bool, optional): as :func:`clip_grad_norm_`. Default: ``False``.
        foreach (bool, optional): accepted for compatibility. Default: ``None``.

    Returns:
        Tensor: the total norm before clipping, ``()``.

    Raises:
        RuntimeError: the total norm is nan/inf and ``error_if_nonfinite``.

    Example:
        >>> import warnings, dyngrad
        >>> w = dyngrad.tensor([3.0, 4.0], requires_grad=True)
        >>> (w * w / 2).sum().backward()
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     dyngrad.nn.utils.clip_grad_norm([w], 1.0)
        tensor(5.)
    """
    warnings.warn(
        "`torch.nn.utils.clip_grad_norm` is now deprecated in favor of `torch.nn.utils.clip_grad_norm_`.",
        FutureWarning,
        stacklevel=2,
    )
    return clip_grad_norm_(parameters, max_norm, norm_type, error_if_nonfinite, foreach)


def clip_grad_value_(parameters: Iterable[Tensor] | Tensor, clip_value: float, foreach: Any = None) -> None:
    """Clamp every gradient elementwise into ``[-clip_value, clip_value]`` in place."""
    c = float(clip_value)
    for p in _params(parameters):
        if p.grad is not None:
            np.clip(p.grad._data, -c, c, out=p.grad._data)
            p.grad._bump()


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated (differentiable)."""
    from ...ops import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' data."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"vector_to_parameters: expected a Tensor for vec, but got: {type(vec).__name__}")
    parameters = list(parameters)
    total = sum(p.numel() for p in parameters)
    if vec.numel() != total:  # checked first: no parameter is left half-updated
        raise RuntimeError(f"vector_to_parameters: vec has {vec.numel()} elements but the parameters "
                           f"hold {total}")
    i = 0
    for p in parameters:
        n = p.numel()
        p._data[...] = vec._data[i : i + n].reshape(p.shape)
        p._bump()
        i += n


# PyTorch's module paths (torch.nn.utils.clip_grad, .weight_norm, ...). Importing the submodules
# weight_norm and spectral_norm binds those names to the modules: bind the functions again.
from . import clip_grad, stateless  # noqa: E402,F401
from .spectral_norm import spectral_norm  # noqa: E402,F811
from .weight_norm import weight_norm  # noqa: E402,F811
