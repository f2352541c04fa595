"""Convolution and pooling functions of :mod:`dyngrad.nn.functional` (re-exported there).

The kernels are in :mod:`dyngrad.ops.conv` (im2col with ``sliding_window_view`` and one
matmul per group; backward through the transposed convolution, differentiable to any order).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..ops import conv as _conv
from ..tensor import Tensor
from ._functional_norm import fused_bias_add

__all__ = ["conv1d", "conv2d", "max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "max_pool1d", "avg_pool1d"]


def _single(v: Any) -> int:
    """A 1-D op's int argument given as an int or a 1-tuple (the 1-D ops run as 2-D ones)."""
    return int(v if isinstance(v, (int, np.integer)) else tuple(v)[0])


def _pair(v: Any, name: str, op: str) -> tuple[int, int]:
    if isinstance(v, (int, np.integer)):
        return int(v), int(v)
    v = tuple(int(a) for a in v)
    if len(v) == 1:
        return v[0], v[0]
    if len(v) != 2:
        raise RuntimeError(
            f"{op}: expected {name} to be a single integer value or a list of 2 values, got {list(v)}"
        )
    return v  # type: ignore[return-value]


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
            than the padded input, or 'same' with stride > 1. ValueError: unknown padding string.
    """
    unbatched = input.ndim == 3
    if unbatched:
        input = input.unsqueeze(0)
    _check_conv("conv2d", input, weight, groups, 2)
    s = _pair(stride, "stride", "conv2d")
    d = _pair(dilation, "dilation", "conv2d")
    kh, kw = weight.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pad = (0, 0, 0, 0)
        elif padding == "same":
            if s != (1, 1):
                raise RuntimeError("conv2d: padding='same' is not supported for strided convolutions")
            th, tw = d[0] * (kh - 1), d[1] * (kw - 1)
            pad = (th // 2, th - th // 2, tw // 2, tw - tw // 2)
        else:
            raise ValueError(
                f"conv2d: Invalid padding string '{padding}', should be one of {{'valid', 'same'}}"
            )
    else:
        ph, pw = _pair(padding, "padding", "conv2d")
        pad = (ph, ph, pw, pw)
    if min(s) < 1 or min(d) < 1 or min(pad) < 0:
        raise RuntimeError(
            f"conv2d: stride and dilation must be positive and padding non-negative (stride={s}, dilation={d}, padding={padding})"
        )
    geom = _conv._Geom(s, pad, d, groups)
    ho, wo = geom.out_hw(input.shape[2], input.shape[3], kh, kw)
    if ho < 1 or wo < 1:
        raise RuntimeError(
            f"conv2d: Calculated padded input size per channel: ({input.shape[2] + pad[0] + pad[1]} x "
            f"{input.shape[3] + pad[2] + pad[3]}). Kernel size: ({d[0] * (kh - 1) + 1} x {d[1] * (kw - 1) + 1}). "
            "Kernel size can't be greater than actual input size"
        )
    if input.dtype != weight.dtype:
        raise RuntimeError(
            f"conv2d: Input type ({input.dtype.name}) and weight type ({weight.dtype.name}) should be the same"
        )
    out = _conv.Conv2dFn.apply(input, weight, geom)
    if bias is not None:
        out = fused_bias_add(out, bias.reshape(1, -1, 1, 1))  # (requires grad as PyTorch's)
    return out.squeeze(0) if unbatched else out


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D cross-correlation: ``input (N, C_in, L)`` or ``(C_in, L)``, ``weight (C_out,
    C_in / groups, k)`` -> ``(N, C_out, L_out)``; computed as :func:`conv2d` with height 1.
    Same arguments and errors as :func:`conv2d` (int or 1-tuples)."""
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


def _pool_args(op: str, x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any = 1) -> tuple:
    if x.ndim not in (3, 4):
        raise RuntimeError(f"{op}: Expected 3D or 4D (batch mode) tensor for input, but got: {list(x.shape)}")
    k = _pair(kernel_size, "kernel_size", op)
    s = (
        k
        if stride is None or (not isinstance(stride, int) and len(stride) == 0)
        else _pair(stride, "stride", op)
    )
    p = _pair(padding, "padding", op)
    d = _pair(dilation, "dilation", op)
    if p[0] * 2 > k[0] or p[1] * 2 > k[1]:
        raise RuntimeError(
            f"{op}: pad should be at most half of effective kernel size, but got pad={list(p)}, kernel_size={list(k)}"
        )
    if min(k) < 1 or min(s) < 1:
        raise RuntimeError(
            f"{op}: kernel_size and stride must be positive, got kernel_size={list(k)}, stride={list(s)}"
        )
    return k, s, (p[0], p[0], p[1], p[1]), d


def _ceil_pad(x: Tensor, k: tuple, s: tuple, pad: tuple, d: tuple) -> tuple:
    """``ceil_mode``: the padding ``(t, b, l, r)`` with extra bottom/right rows so that the
    floor formula gives PyTorch's ceil-mode size (the last window must start inside the
    input or its left padding)."""
    extra = []
    for n, kk, ss, pp, dd in zip(x.shape[2:], k, s, (pad[0], pad[2]), d):
        span = n + 2 * pp - dd * (kk - 1) - 1
        out = -(-span // ss) + 1
        if (out - 1) * ss >= n + pp:
            out -= 1
        extra.append(max((out - 1) * ss + dd * (kk - 1) + 1 - (n + 2 * pp), 0))
    return (pad[0], pad[1] + extra[0], pad[2], pad[3] + extra[1])


def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """2-D max pooling over ``(N, C, H, W)`` or ``(C, H, W)``; padding counts as ``-inf``.

    The gradient goes to the (first) maximal element of each window.
    Returns:
        ``(N, C, H_out, W_out)``, and with ``return_indices`` also int64 flat indices into
        ``H * W`` of each maximum (as PyTorch).
    Raises:
        RuntimeError: bad ranks, padding above half the kernel, an empty output.
    """
    unbatched = input.ndim == 3
    k, s, pad, d = _pool_args("max_pool2d", input, kernel_size, stride, padding, dilation)
    x = input.unsqueeze(0) if unbatched else input
    if ceil_mode:
        pad = _ceil_pad(x, k, s, pad, d)
    h, w = x.shape[2:]
    hp, wp = h + 2 * pad[0], w + 2 * pad[2]
    if hp < d[0] * (k[0] - 1) + 1 or wp < d[1] * (k[1] - 1) + 1:
        raise RuntimeError(
            f"max_pool2d: Output size is too small (input {list(input.shape)}, kernel_size {list(k)})"
        )
    unique = s[0] >= d[0] * (k[0] - 1) + 1 and s[1] >= d[1] * (k[1] - 1) + 1  # windows do not overlap
    out, idx = _conv.max_pool(x, k, s, pad, d, unique, return_indices)
    if unbatched:
        out, idx = out.squeeze(0), (None if idx is None else idx.squeeze(0))
    return (out, idx) if return_indices else out


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """2-D average pooling (a depthwise convolution with a constant kernel).

    Args: as PyTorch; ``count_include_pad=False`` divides by the number of real pixels;
    ``divisor_override`` replaces the divisor.
    Returns: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.
    ``ceil_mode=True`` keeps the partial windows at the bottom/right; their divisor counts
    only the positions inside the (padded) input, as PyTorch's.
    Raises: RuntimeError for bad ranks/padding.
    """
    unbatched = input.ndim == 3
    k, s, pad, _ = _pool_args("avg_pool2d", input, kernel_size, stride, padding)
    x = input.unsqueeze(0) if unbatched else input
    sym = pad
    if ceil_mode:
        pad = _ceil_pad(x, k, s, pad, (1, 1))
    c = x.shape[1]
    if not x.is_floating_point():
        raise RuntimeError(f"avg_pool2d: not implemented for '{x.dtype.name}'")
    ones = Tensor._make(np.ones((c, 1) + k, dtype=x._data.dtype))
    geom = _conv._Geom(s, pad, (1, 1), c)
    total = _conv.Conv2dFn.apply(x, ones, geom)
    if divisor_override:
        out = total / divisor_override
    elif not any(pad) or (count_include_pad and pad == sym):
        out = total / (k[0] * k[1])
    else:  # divide by the positions each window covers: real pixels (and the padding if counted)
        h, w = x.shape[2:]
        if count_include_pad:
            ones = np.ones((1, 1, h + sym[0] + sym[1], w + sym[2] + sym[3]), x._data.dtype)
            cpad = (0, pad[1] - sym[1], 0, pad[3] - sym[3])
        else:
            ones, cpad = np.ones((1, 1, h, w), x._data.dtype), pad
        cnt = _conv._conv_np(ones, np.ones((1, 1) + k, x._data.dtype), _conv._Geom(s, cpad, (1, 1), 1))
        out = total / Tensor._make(cnt)
    return out.squeeze(0) if unbatched else out


def _adaptive_matrix(n_in: int, n_out: int, dtype: np.dtype) -> np.ndarray:
    m = np.zeros((n_out, n_in), dtype=dtype)
    for i in range(n_out):
        lo = (i * n_in) // n_out
        hi = -((-(i + 1) * n_in) // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average over the windows ``[floor(i H / Ho), ceil((i + 1) H / Ho))`` (PyTorch's
    bins), computed as ``A_h @ x @ A_w^T`` with constant averaging matrices.

    Args: input ``(N, C, H, W)`` or ``(C, H, W)``; output_size int or pair (None keeps a dim).
    Returns: ``(N, C, Ho, Wo)`` or ``(C, Ho, Wo)``.
    Raises: RuntimeError for bad ranks or a non-positive output size.
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d: Expected 3D or 4D tensor, but got: {list(input.shape)}")
    h, w = input.shape[-2:]
    if output_size is None or isinstance(output_size, (int, np.integer)):
        output_size = (output_size, output_size)
    oh, ow = (
        (h if output_size[0] is None else int(output_size[0])),
        (w if output_size[1] is None else int(output_size[1])),
    )
    if oh < 1 or ow < 1:
        raise RuntimeError(f"adaptive_avg_pool2d: output_size must be positive, got {[oh, ow]}")
    dt = input._data.dtype if input.is_floating_point() else B.get_default_dtype().np
    ah = Tensor._make(_adaptive_matrix(h, oh, dt))
    awt = Tensor._make(np.ascontiguousarray(_adaptive_matrix(w, ow, dt).T))
    return (ah @ input) @ awt


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """1-D max pooling ``(N, C, L)`` via :func:`max_pool2d` with height 1."""

    st = None if stride is None else (1, _single(stride))
    r = max_pool2d(
        input.unsqueeze(-2),
        (1, _single(kernel_size)),
        st,
        (0, _single(padding)),
        (1, _single(dilation)),
        ceil_mode,
        return_indices,
    )
    if return_indices:
        return r[0].squeeze(-2), r[1].squeeze(-2)
    return r.squeeze(-2)


def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """1-D average pooling ``(N, C, L)`` via :func:`avg_pool2d` with height 1."""

    st = None if stride is None else (1, _single(stride))
    return avg_pool2d(
        input.unsqueeze(-2), (1, _single(kernel_size)), st, (0, _single(padding)), ceil_mode, count_include_pad
    ).squeeze(-2)
