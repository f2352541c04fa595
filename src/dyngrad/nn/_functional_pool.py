"""Pooling functions of :mod:`dyngrad.nn.functional` (re-exported there): max, average and
adaptive average pooling in 1-d, 2-d and 3-d (``ceil_mode``, ``count_include_pad``,
``divisor_override``, ``return_indices``). Max pooling gathers the window maxima found by
:func:`dyngrad.ops.conv.max_pool`; average pooling is a depthwise convolution with a constant
kernel; adaptive average pooling multiplies by constant averaging matrices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..ops import conv as _conv
from ..tensor import Tensor
from ._functional_conv import _ntuple, _single

__all__ = ["max_pool2d", "avg_pool2d", "adaptive_avg_pool2d", "max_pool1d", "avg_pool1d", "max_pool3d", "avg_pool3d",
           "adaptive_avg_pool3d"]


def _pool_args(op: str, x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any = 1,
               nd: int = 2) -> tuple:
    if x.ndim not in (nd + 1, nd + 2) or (nd == 3 and x.numel() == 0):
        if nd == 3:
            raise RuntimeError(f"{op}: non-empty 4D or 5D (batch mode) tensor expected for input, but got: "
                               f"{list(x.shape)}")
        raise RuntimeError(f"{op}: Expected 3D or 4D (batch mode) tensor for input, but got: {list(x.shape)}")
    k = _ntuple(kernel_size, nd, "kernel_size", op)
    s = (
        k
        if stride is None or (not isinstance(stride, int) and len(stride) == 0)
        else _ntuple(stride, nd, "stride", op)
    )
    p = _ntuple(padding, nd, "padding", op)
    d = _ntuple(dilation, nd, "dilation", op)
    if any(pi * 2 > ki for pi, ki in zip(p, k)):
        raise RuntimeError(
            f"{op}: pad should be at most half of effective kernel size, but got pad={list(p)}, kernel_size={list(k)}"
        )
    if min(k) < 1 or min(s) < 1:
        raise RuntimeError(
            f"{op}: kernel_size and stride must be positive, got kernel_size={list(k)}, stride={list(s)}"
        )
    return k, s, tuple(v for pi in p for v in (pi, pi)), d


def _ceil_pad(x: Tensor, k: tuple, s: tuple, pad: tuple, d: tuple) -> tuple:
    """``ceil_mode``: the flat padding ``(lo, hi, ...)`` with extra rows at the end of each
    spatial dim so that the floor formula gives PyTorch's ceil-mode size (the last window
    must start inside the input or its left padding)."""
    res: tuple = ()
    for i, (n, kk, ss, dd) in enumerate(zip(x.shape[2:], k, s, d)):
        pp = pad[2 * i]
        span = n + 2 * pp - dd * (kk - 1) - 1
        out = -(-span // ss) + 1
        if (out - 1) * ss >= n + pp:
            out -= 1
        res += (pp, pad[2 * i + 1] + max((out - 1) * ss + dd * (kk - 1) + 1 - (n + 2 * pp), 0))
    return res


def _max_poolnd(op: str, nd: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
                ceil_mode: bool, return_indices: bool) -> Any:
    """The ``nd``-d max pooling behind :func:`max_pool2d` and :func:`max_pool3d`."""
    k, s, pad, d = _pool_args(op, input, kernel_size, stride, padding, dilation, nd)
    unbatched = input.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    if ceil_mode:
        pad = _ceil_pad(x, k, s, pad, d)
    if any(n + 2 * pad[2 * i] < d[i] * (k[i] - 1) + 1 for i, n in enumerate(x.shape[2:])):
        raise RuntimeError(
            f"{op}: Output size is too small (input {list(input.shape)}, kernel_size {list(k)})"
        )
    unique = all(si >= di * (ki - 1) + 1 for si, di, ki in zip(s, d, k))  # windows do not overlap
    out, idx = _conv.max_pool(x, k, s, pad, d, unique, return_indices)
    if unbatched:
        out, idx = out.squeeze(0), (None if idx is None else idx.squeeze(0))
    return (out, idx) if return_indices else out


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

    Derivative: each output's gradient goes to the (first) maximal element of its window (PyTorch's
    ``max_pool2d_with_indices_backward``).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window, an int or a pair.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides, at most half the kernel.
            Default: ``0``.
        dilation (int or tuple): spacing between window elements. Default: ``1``.
        ceil_mode (bool): round the output size up (a last, partial window). Default: ``False``.
        return_indices (bool): also return the indices of the maxima. Default: ``False``.
    Returns:
        Tensor: ``(N, C, H_out, W_out)`` (or unbatched), ``H_out = floor((H + 2 * padding - dilation
            * (kernel_size - 1) - 1) / stride) + 1``; with ``return_indices`` also the int64 flat
            indices into ``H * W`` of each maximum (as PyTorch).
    Raises:
        RuntimeError: bad ranks, padding above half the kernel, a non-positive kernel or stride, an
            empty output.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.max_pool2d(dyngrad.arange(16.0).reshape(1, 1, 4, 4), 2)
        tensor([[[[ 5.,  7.],
                  [13., 15.]]]])
    """
    return _max_poolnd("max_pool2d", 2, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """3-D max pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``; padding counts as
    ``-inf``; the gradient goes to the (first) maximal element of each window.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size: window size, an int or a triple ``(kD, kH, kW)``.
        stride: step of the window (default ``kernel_size``).
        padding: implicit ``-inf`` padding on each side, at most half the kernel.
        dilation: spacing between window elements.
        ceil_mode: round the output size up (a last, partial window) instead of down.
        return_indices: also return the position of each maximum.
    Returns:
        ``(N, C, D_out, H_out, W_out)``, and with ``return_indices`` also int64 flat indices
        into ``D * H * W`` of each maximum (as PyTorch).
    Raises:
        RuntimeError: bad ranks, padding above half the kernel, an empty output.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> x = dyngrad.arange(8.0).reshape(1, 1, 2, 2, 2)
        >>> F.max_pool3d(x, 2).flatten().tolist()
        [7.0]
    """
    return _max_poolnd("max_pool3d", 3, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)


def _avg_poolnd(op: str, nd: int, input: Tensor, kernel_size: Any, stride: Any, padding: Any, ceil_mode: bool,
                count_include_pad: bool, divisor_override: int | None) -> Tensor:
    """The ``nd``-d average pooling behind :func:`avg_pool2d` and :func:`avg_pool3d`: a
    depthwise convolution with a constant kernel, divided by each window's count."""
    k, s, pad, _ = _pool_args(op, input, kernel_size, stride, padding, 1, nd)
    unbatched = input.ndim == nd + 1
    x = input.unsqueeze(0) if unbatched else input
    sym = pad
    if ceil_mode:
        pad = _ceil_pad(x, k, s, pad, (1,) * nd)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError(f"{op}: divisor must be not zero")
    if any(n + pad[2 * i] + pad[2 * i + 1] < k[i] for i, n in enumerate(x.shape[2:])):
        raise RuntimeError(
            f"{op}: Output size is too small (input {list(input.shape)}, kernel_size {list(k)})"
        )
    c = x.shape[1]
    if not x.is_floating_point():
        raise RuntimeError(f"{op}: not implemented for '{x.dtype.name}'")
    xd = x._data
    xdt = B.np_dtype_of(xd)
    ones = Tensor._make(B.like(np.ones((c, 1) + k, dtype=xdt), xd))  # (a host constant, in x's library)
    geom = _conv._Geom(s, pad, (1,) * nd, c)
    total = _conv.Conv2dFn.apply(x, ones, geom)
    if divisor_override:
        out = total / divisor_override
    elif not any(pad) or (count_include_pad and pad == sym):
        out = total / int(np.prod(k))
    else:  # divide by the positions each window covers: real pixels (and the padding if counted)
        sz = x.shape[2:]
        if count_include_pad:
            cnt_in = np.ones((1, 1) + tuple(n + sym[2 * i] + sym[2 * i + 1] for i, n in enumerate(sz)), xdt)
            cpad = tuple(v for i in range(nd) for v in (0, pad[2 * i + 1] - sym[2 * i + 1]))
        else:
            cnt_in, cpad = np.ones((1, 1) + tuple(sz), xdt), pad
        cnt = _conv._conv_np(cnt_in, np.ones((1, 1) + k, xdt), _conv._Geom(s, cpad, (1,) * nd, 1))
        out = total / Tensor._make(B.like(cnt, xd))  # (the window counts: a host constant)
    return out.squeeze(0) if unbatched else out


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """2-D average pooling: the mean of each window (a depthwise convolution with a constant kernel).

    Derivative: each output's gradient spread evenly over its window, divided by the same divisor
    (PyTorch's ``avg_pool2d_backward``).

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        kernel_size (int or tuple): the window, an int or a pair.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides, at most half the kernel.
            Default: ``0``.
        ceil_mode (bool): keep the partial windows at the bottom/right; their divisor counts only
            the positions inside the (padded) input, as PyTorch's. Default: ``False``.
        count_include_pad (bool): count the padding zeros in the divisor (``False``: only real
            pixels). Default: ``True``.
        divisor_override (int, optional): divide every window's sum by this instead. Default:
            ``None``.
    Returns:
        Tensor: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``, ``H_out = floor((H + 2 * padding
            - kernel_size) / stride) + 1``.
    Raises:
        RuntimeError: bad ranks, padding above half the kernel, an empty output, ``divisor_override
            == 0``, an integer input.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.avg_pool2d(dyngrad.ones(1, 1, 3, 3), 2, padding=1, count_include_pad=False).flatten().tolist()
        [1.0, 1.0, 1.0, 1.0]
    """
    return _avg_poolnd("avg_pool2d", 2, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """3-D average pooling over ``(N, C, D, H, W)`` or ``(C, D, H, W)``: a depthwise
    convolution with a constant kernel, so ``grad_input`` spreads each output's gradient
    evenly over its window.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        kernel_size: window size, an int or a triple.
        stride: step of the window (default ``kernel_size``).
        padding: implicit zero padding on each side, at most half the kernel.
        ceil_mode: round the output size up instead of down.
        count_include_pad: count padded zeros in each window's divisor.
        divisor_override: divide every window by this number instead.

    Returns:
        ``(N, C, D_out, H_out, W_out)`` or ``(C, D_out, H_out, W_out)``.
    Raises:
        RuntimeError: for bad ranks or padding.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.avg_pool3d(dyngrad.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten().tolist()
        [3.5]
    """
    return _avg_poolnd("avg_pool3d", 3, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                       divisor_override)


def _adaptive_matrix(n_in: int, n_out: int, dtype: np.dtype) -> np.ndarray:
    m = np.zeros((n_out, n_in), dtype=dtype)
    for i in range(n_out):
        lo = (i * n_in) // n_out
        hi = -((-(i + 1) * n_in) // n_out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average over the windows ``[floor(i H / H_out), ceil((i + 1) H / H_out))`` (PyTorch's bins;
    likewise for ``W``), computed as ``A_h @ x @ A_w^T`` with constant averaging matrices.

    Derivative: linear, ``grad_input = A_h^T @ grad_output @ A_w``.

    Args:
        input (Tensor): ``(N, C, H, W)`` or ``(C, H, W)``.
        output_size (int or tuple): an int (both) or a pair; ``None`` in the pair keeps that dim.
    Returns:
        Tensor: ``(N, C, H_out, W_out)`` or ``(C, H_out, W_out)``.
    Raises:
        RuntimeError: bad ranks or a non-positive output size.
        ValueError: an ``output_size`` that is neither an int nor a pair.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.adaptive_avg_pool2d(dyngrad.arange(8.0).reshape(1, 2, 4), (1, 2))
        tensor([[[2.5000, 4.5000]]])
    """
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d: Expected 3D or 4D tensor, but got: {list(input.shape)}")
    h, w = input.shape[-2:]
    if output_size is None or isinstance(output_size, (int, np.integer)):
        output_size = (output_size, output_size)
    if len(output_size) != 2:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be an int or a pair, got {output_size!r}")
    oh, ow = (
        (h if output_size[0] is None else int(output_size[0])),
        (w if output_size[1] is None else int(output_size[1])),
    )
    if oh < 1 or ow < 1:
        raise RuntimeError(f"adaptive_avg_pool2d: output_size must be positive, got {[oh, ow]}")
    d = input._data
    dt = B.np_dtype_of(d) if input.is_floating_point() else B.get_default_dtype().np
    ah = Tensor._make(B.like(_adaptive_matrix(h, oh, dt), d))  # (host constants, in input's library)
    awt = Tensor._make(B.like(np.ascontiguousarray(_adaptive_matrix(w, ow, dt).T), d))
    return (ah @ input) @ awt


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average over PyTorch's adaptive bins in ``D``, ``H`` and ``W`` (see
    :func:`adaptive_avg_pool2d`), computed with three constant averaging matrices.

    Args:
        input: ``(N, C, D, H, W)`` or ``(C, D, H, W)``.
        output_size: an int or a triple ``(Do, Ho, Wo)``; ``None`` keeps that dim's size.

    Returns:
        ``(N, C, Do, Ho, Wo)`` or ``(C, Do, Ho, Wo)``.
    Raises:
        RuntimeError: for bad ranks or a non-positive output size.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.adaptive_avg_pool3d(dyngrad.ones(2, 3, 4, 5, 6), (1, 2, None)).shape
        dyngrad.Size([2, 3, 1, 2, 6])
    """
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    size = tuple(input.shape[-3:])
    if output_size is None or isinstance(output_size, (int, np.integer)):
        output_size = (output_size,) * 3
    out = tuple(n if o is None else int(o) for n, o in zip(size, output_size))
    if min(out) < 1:
        raise RuntimeError(f"adaptive_avg_pool3d(): output_size must be positive, got {list(out)}")
    d = input._data
    dt = B.np_dtype_of(d) if input.is_floating_point() else B.get_default_dtype().np
    ad, ah = (Tensor._make(B.like(_adaptive_matrix(n, o, dt), d)) for n, o in zip(size[:2], out[:2]))
    awt = Tensor._make(B.like(np.ascontiguousarray(_adaptive_matrix(size[2], out[2], dt).T), d))
    lead = tuple(input.shape[:-3])
    y = (ah @ input) @ awt  # (*, D, Ho, Wo)
    y = ad @ y.reshape(lead + (size[0], out[1] * out[2]))
    return y.reshape(lead + out)


def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """1-D max pooling over ``(N, C, L)`` or ``(C, L)`` (:func:`max_pool2d` with height 1); padding
    counts as ``-inf``.

    Derivative: each output's gradient goes to the (first) maximal element of its window.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window, an int.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit ``-inf`` padding on both sides, at most half the kernel.
            Default: ``0``.
        dilation (int): spacing between window elements. Default: ``1``.
        ceil_mode (bool): round the output size up. Default: ``False``.
        return_indices (bool): also return the int64 index of each maximum. Default: ``False``.
    Returns:
        Tensor: ``(N, C, L_out)`` or ``(C, L_out)``, ``L_out = floor((L + 2 * padding - dilation *
            (kernel_size - 1) - 1) / stride) + 1``; with ``return_indices`` a pair.
    Raises:
        RuntimeError: bad ranks, padding above half the kernel, an empty output.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.max_pool1d(dyngrad.tensor([[[1.0, 3.0, 2.0, 0.0, 5.0]]]), 2, ceil_mode=True)
        tensor([[[3., 2., 5.]]])
    """

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
    """1-D average pooling over ``(N, C, L)`` or ``(C, L)`` (:func:`avg_pool2d` with height 1).

    Derivative: each output's gradient spread evenly over its window.

    Args:
        input (Tensor): ``(N, C, L)`` or ``(C, L)``.
        kernel_size (int or tuple): the window, an int.
        stride (int or tuple, optional): the step. Default: ``kernel_size``.
        padding (int or tuple): implicit zero padding on both sides, at most half the kernel.
            Default: ``0``.
        ceil_mode (bool): keep a last, partial window. Default: ``False``.
        count_include_pad (bool): count the padding zeros in the divisor. Default: ``True``.
    Returns:
        Tensor: ``(N, C, L_out)`` or ``(C, L_out)``, ``L_out = floor((L + 2 * padding - kernel_size)
            / stride) + 1``.
    Raises:
        RuntimeError: bad ranks, padding above half the kernel, an empty output.

    Example:
        >>> import dyngrad
        >>> import dyngrad.nn.functional as F
        >>> F.avg_pool1d(dyngrad.tensor([[[1.0, 3.0, 2.0, 0.0, 5.0]]]), 2, ceil_mode=True)
        tensor([[[2., 1., 5.]]])
    """

    st = None if stride is None else (1, _single(stride))
    return avg_pool2d(
        input.unsqueeze(-2), (1, _single(kernel_size)), st, (0, _single(padding)), ceil_mode, count_include_pad
    ).squeeze(-2)
