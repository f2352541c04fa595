"""Convolution functions of :mod:`dyngrad.nn.functional` (re-exported there): conv1d, conv2d,
conv3d; the pooling functions are in :mod:`dyngrad.nn._functional_pool`.

The kernels are in :mod:`dyngrad.ops.conv` (N-d im2col, one strided copy per kernel tap, and
matmuls in a layout chosen per case; backward through the transposed convolution, differentiable to any
order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..ops import conv as _conv
from ..tensor import Tensor
from ._functional_norm import fused_bias_add

__all__ = ["conv1d", "conv2d", "conv3d"]


def _single(v: Any) -> int:
    """A 1-D op's int argument given as an int or a 1-tuple (the 1-D ops run as 2-D ones)."""
    return int(v if isinstance(v, (int, np.integer)) else tuple(v)[0])


def _ntuple(v: Any, n: int, name: str, op: str) -> tuple:
    """An int argument of an ``n``-d op given as an int, a 1-tuple or an ``n``-tuple."""
    if isinstance(v, (int, np.integer)):
        return (int(v),) * n
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return v * n
    if len(v) != n:
        raise RuntimeError(
            f"{op}: expected {name} to be a single integer value or a list of {n} values to match the "
            f"convolution dimensions, but got {name}={list(v)}"
        )
    return v


def _pair(v: Any, name: str, op: str) -> tuple[int, int]:
    return _ntuple(v, 2, name, op)  # type: ignore[return-value]


def _check_conv(op: str, x: Tensor, w: Tensor, groups: int, nd: int) -> None:
    if w.ndim != nd + 2:
        raise RuntimeError(f"{op}: expected weight to be {nd + 2}-D, but got weight of shape {list(w.shape)}")
    if x.ndim != nd + 2:
        raise RuntimeError(
            f"{op}: Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {op}, but got input of size: {list(x.shape)}"
        )
    if groups < 1:
        raise RuntimeError(f"{op}: non-positive groups is not supported (got {groups})")
    if w.shape[0] % groups:
        raise RuntimeError(f"{op}: out_channels ({w.shape[0]}) must be divisible by groups ({groups})")
    if x.shape[1] != w.shape[1] * groups:
        raise RuntimeError(
            f"{op}: Given groups={groups}, weight of size {list(w.shape)}, expected input{list(x.shape)} "
            f"to have {w.shape[1] * groups} channels, but got {x.shape[1]} channels instead"
        )


def _convnd(op: str, nd: int, input: Tensor, weight: Tensor, bias: Tensor | None, stride: Any, padding: Any,
            dilation: Any, groups: int) -> Tensor:
    """The ``nd``-d convolution behind :func:`conv2d` and :func:`conv3d` (checks, padding
    strings, then one :class:`~dyngrad.ops.conv.Conv2dFn`, which is N-d)."""
    unbatched = input.ndim == nd + 1
    if unbatched:
        input = input.unsqueeze(0)
    _check_conv(op, input, weight, groups, nd)
    s = _ntuple(stride, nd, "stride", op)
    d = _ntuple(dilation, nd, "dilation", op)
    ks = tuple(weight.shape[2:])
    pad: tuple
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0,) * (2 * nd)
        elif padding == "same":
            if any(v != 1 for v in s):
                raise RuntimeError(f"{op}: padding='same' is not supported for strided convolutions")
            pad = ()
            for di, k in zip(d, ks):
                t = di * (k - 1)  # the extra pixel of an odd total goes to the end, as PyTorch
                pad += (t // 2, t - t // 2)
        else:
            raise RuntimeError(  # PyTorch 2.13: RuntimeError (the nn.Conv constructors: ValueError)
                f"{op}: Invalid padding string '{padding}', should be one of {{'valid', 'same'}}"
            )
    else:
        pad = tuple(v for p in _ntuple(padding, nd, "padding", op) for v in (p, p))
    if min(s) < 1 or min(d) < 1 or min(pad) < 0:
        raise RuntimeError(
            f"{op}: stride and dilation must be positive and padding non-negative (stride={s}, dilation={d}, padding={padding})"
        )
    geom = _conv._Geom(s, pad, d, groups)
    if min(geom.out_size(input.shape[2:], ks)) < 1:
        padded = " x ".join(str(input.shape[2 + i] + pad[2 * i] + pad[2 * i + 1]) for i in range(nd))
        kernel = " x ".join(str(di * (k - 1) + 1) for di, k in zip(d, ks))
        raise RuntimeError(
            f"{op}: Calculated padded input size per channel: ({padded}). Kernel size: ({kernel}). "
            "Kernel size can't be greater than actual input size"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"{op}: Input type ({input.dtype.name}) and weight type ({weight.dtype.name}) should be the same"
        )
    out = _conv.Conv2dFn.apply(input, weight, geom)
    if bias is not None:
        out = fused_bias_add(out, bias.reshape((1, -1) + (1,) * nd))  # (requires grad as PyTorch's)
    return out.squeeze(0) if unbatched else out


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D cross-correlation (PyTorch's convolution).

    Args:
        input: ``(N, C_in, H, W)`` or unbatched ``(C_in, H, W)``.
        weight: ``(C_out, C_in / groups, kH, kW)``. bias: ``(C_out)``.
        stride, dilation: int or pair. padding: int, pair, 'valid' or 'same' (stride 1 only;
            the extra pixel of an odd total goes to the bottom/right, as PyTorch).
        groups: split channels into groups convolved separately.
    Returns:
        ``(N, C_out, H_out, W_out)``, ``H_out = (H + 2p - d (k - 1) - 1) // s + 1``.
    Raises:
        RuntimeError: wrong ranks, channel counts not matching ``groups``, a kernel larger
            than the padded input, 'same' with stride > 1, or an unknown padding string.

    Derivative: ``grad_input`` is the transposed convolution of ``grad_output`` with
    ``weight``; ``grad_weight`` correlates ``input`` with ``grad_output``; ``grad_bias`` sums
    ``grad_output`` over all but the channel dim (PyTorch's ``convolution_backward``).

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.conv2d(dyngrad.ones(1, 1, 3, 3), dyngrad.ones(1, 1, 2, 2))
        tensor([[[[4., 4.],
                  [4., 4.]]]])
    """
    return _convnd("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D cross-correlation (PyTorch's convolution), the same kernels as :func:`conv2d`.

    Args:
        input: ``(N, C_in, D, H, W)`` or unbatched ``(C_in, D, H, W)``.
        weight: ``(C_out, C_in / groups, kD, kH, kW)``. bias: ``(C_out)``.
        stride, dilation: int or triple. padding: int, triple, 'valid' or 'same' (stride 1
            only; the extra voxel of an odd total goes to the end, as PyTorch).
        groups: split channels into groups convolved separately.
    Returns:
        ``(N, C_out, D_out, H_out, W_out)``, ``D_out = (D + 2p - d (k - 1) - 1) // s + 1``.
    Raises:
        RuntimeError: wrong ranks, channel counts not matching ``groups``, a kernel larger
            than the padded input, 'same' with stride > 1, or an unknown padding string.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> list(F.conv3d(dyngrad.ones(1, 2, 4, 5, 6), dyngrad.ones(3, 2, 3, 3, 3), padding=1).shape)
        [1, 3, 4, 5, 6]
    """
    return _convnd("conv3d", 3, input, weight, bias, stride, padding, dilation, groups)


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D cross-correlation (PyTorch's convolution), computed as :func:`conv2d` with height 1.

    Derivative: ``grad_input`` is the transposed convolution of ``grad_output`` with ``weight``;
    ``grad_weight`` correlates ``input`` with ``grad_output``; ``grad_bias = grad_output.sum((0,
    2))`` (PyTorch's ``convolution_backward``).

    Args:
        input (Tensor): ``(N, C_in, L)`` or ``(C_in, L)``.
        weight (Tensor): ``(C_out, C_in / groups, k)``.
        bias (Tensor, optional): ``(C_out,)``. Default: ``None``.
        stride (int or tuple): the step. Default: ``1``.
        padding (int, tuple or str): zeros on both sides, or ``'valid'`` / ``'same'`` (stride 1
            only). Default: ``0``.
        dilation (int or tuple): spacing between kernel elements. Default: ``1``.
        groups (int): split the channels into groups convolved separately. Default: ``1``.
    Returns:
        Tensor: ``(N, C_out, L_out)`` or ``(C_out, L_out)``, ``L_out = floor((L + 2 * padding -
            dilation * (k - 1) - 1) / stride) + 1``.
    Raises:
        RuntimeError: wrong ranks, channel counts not matching ``groups``, a kernel larger than the
            padded input, ``'same'`` with a stride, a bias that does not fit, or an unknown padding
            string.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.conv1d(dyngrad.ones(1, 2, 5), dyngrad.ones(3, 2, 3), padding=1)[0, 0]
        tensor([4., 6., 6., 6., 4.])
    """
    if weight.ndim != 3:
        raise RuntimeError(f"conv1d: expected weight to be 3-D, but got weight of shape {list(weight.shape)}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"conv1d: Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: {list(input.shape)}"
        )

    s = (1, _single(stride))
    d = (1, _single(dilation))
    p = (
        padding
        if isinstance(padding, str)
        else (0, _single(padding))
    )
    out = conv2d(input.unsqueeze(-2), weight.unsqueeze(2), bias, s, p, d, groups)
    return out.squeeze(-2)
