"""More normalisation functions of :mod:`dyngrad.nn.functional` (re-exported there):
instance_norm, rms_norm and local_response_norm, composed of differentiable ops (so
double backward and forward mode work)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd import grad_mode
from ..ops import fused as _fused
from ..tensor import Tensor
from ._functional_norm import _affine, batch_norm

__all__ = ["instance_norm", "rms_norm", "local_response_norm"]


def _update_instance_running(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                             momentum: float) -> None:
    """PyTorch's instance-norm update: the batch norm of the ``(1, N*C, *)`` view updates
    ``N`` copies of each running stat, which are then averaged over ``N``:
    ``running = (1 - momentum) * running + momentum * mean_n(stat[n, c])`` (the variance of
    each instance unbiased). In place, without grad."""
    n, c = input.shape[:2]
    dims = tuple(range(2, input.ndim))
    with grad_mode.no_grad():
        x = input.detach()
        new = []
        if running_mean is not None:
            m = x.mean(dims).mean(0).to(running_mean.dtype)
            new.append((running_mean, running_mean * (1 - momentum) + m * momentum))
        if running_var is not None:
            v = x.var(dims, correction=1).mean(0).to(running_var.dtype)
            new.append((running_var, running_var * (1 - momentum) + v * momentum))
        for buf, value in new:
            buf.copy_(value)


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample over its spatial dims (biased variance), then
    the per-channel affine ``* weight + bias``.

    With ``use_input_stats`` the statistics are the instance's own and the running stats
    (when given) are updated in place as PyTorch's; otherwise the running stats are used.

    Args:
        input (Tensor): ``(N, C, *)`` with at least one spatial dim.
        running_mean, running_var (Tensor, optional): ``(C)``.
        weight, bias (Tensor, optional): ``(C)``.
        use_input_stats (bool): normalise with each instance's statistics.
        momentum (float): the running stats' update factor.
        eps (float): added to the variance.

    Returns:
        Tensor: ``input``'s shape.

    Raises:
        ValueError: one spatial element per instance with ``use_input_stats``.
        RuntimeError: fewer than 3 dims, stat or affine sizes that are not ``C``, or no
            running stats without ``use_input_stats``.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> y = F.instance_norm(dyngrad.arange(8.0).reshape(1, 2, 4))
        >>> [round(v, 4) for v in y[0, 0].tolist()]
        [-1.3416, -0.4472, 0.4472, 1.3416]
    """
    if input.ndim < 3:
        raise RuntimeError(
            f"instance_norm: expected an input of at least 3 dims (N, C, *), got {list(input.shape)}"
        )
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight), ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"instance_norm: {name} should contain {c} elements not {t.numel()}")
    shape = (1, c) + (1,) * (input.ndim - 2)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        return batch_norm(input, running_mean, running_var, weight, bias, False, momentum, eps)
    if int(np.prod(input.shape[2:])) == 1:
        raise ValueError(f"Expected more than 1 spatial element when training, got input size {list(input.shape)}")
    out = _fused.normalize_stats(input, tuple(range(2, input.ndim)), eps)
    if running_mean is not None or running_var is not None:
        _update_instance_running(input, running_mean, running_var, momentum)
    return _affine(out, weight, bias, shape)


def rms_norm(
    input: Tensor,
    normalized_shape: Any,
    weight: Tensor | None = None,
    eps: float | None = None,
) -> Tensor:
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims:
    ``input * rsqrt(mean(input ** 2) + eps) * weight``.

    Args:
        input (Tensor): ``(*, *normalized_shape)``.
        normalized_shape (int or sequence of int): the trailing dims to normalise.
        weight (Tensor, optional): ``normalized_shape``.
        eps (float, optional): default ``finfo(input.dtype).eps`` (as PyTorch).

    Returns:
        Tensor: ``input``'s shape.

    Raises:
        RuntimeError: trailing dims that are not ``normalized_shape``, or a weight of
            another shape.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.rms_norm(dyngrad.tensor([[3.0, 4.0]]), [2], eps=0.0).tolist()
        [[0.8485281467437744, 1.1313709020614624]]
    """
    ns = (
        (int(normalized_shape),)
        if isinstance(normalized_shape, (int, np.integer))
        else tuple(int(s) for s in normalized_shape)
    )
    if not ns or input.ndim < len(ns) or tuple(input.shape[input.ndim - len(ns):]) != ns:
        raise RuntimeError(
            f"Given normalized_shape={list(ns)}, expected input with shape [*, {', '.join(map(str, ns))}], "
            f"but got input of size{list(input.shape)}"
        )
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(
            f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
            f"{list(weight.shape)} and normalized_shape = {list(ns)}"
        )
    if eps is None:
        eps = float(np.finfo(B.np_dtype_of(input._data)).eps) if input.is_floating_point() else float(np.finfo(np.float32).eps)
    dims = tuple(range(input.ndim - len(ns), input.ndim))
    out = input * (input * input).mean(dims, keepdim=True).add(eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(
    input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0
) -> Tensor:
    """Local response normalisation across channels:
    ``input / (k + alpha * mean_window(input ** 2)) ** beta``, the window covering
    ``size`` channels (``size // 2`` before, ``(size - 1) // 2`` after, zero-padded), as
    PyTorch's.

    Args:
        input (Tensor): ``(N, C, *)``, at least 3 dims.
        size (int): channels in the window.
        alpha, beta, k (float): the formula's constants.

    Returns:
        Tensor: ``input``'s shape.

    Raises:
        ValueError: fewer than 3 dims.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.local_response_norm(dyngrad.ones(1, 3, 1), 2, alpha=1.0, beta=1.0).flatten().tolist()
        [0.6666666865348816, 0.5, 0.5]
    """
    dim = input.ndim
    if dim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {dim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    widths = (0, 0) * (dim - 2) + (size // 2, (size - 1) // 2)
    from ..ops import pad as _pad

    padded = _pad(sq, widths)
    div = padded.narrow(1, 0, c)
    for i in range(1, size):
        div = div + padded.narrow(1, i, c)
    div = (div / size * alpha).add(k) ** beta
    return input / div
