"""2-D convolution on NumPy (im2col through ``sliding_window_view`` + one BLAS matmul per
group) and the pooling kernels.

Three Functions close under differentiation. With the trilinear form
``T(x, w, y) = <conv(x, w), y>``:

* ``conv(x, w)``      = dT/dy  (``Conv2dFn``)
* ``conv_t(y, w)``    = dT/dx  (``Conv2dInputGrad``: the transposed convolution)
* ``conv_w(x, y)``    = dT/dw  (``Conv2dWeightGrad``)

so the backward of each is written with the other two and every order of derivative works.
Padding is an explicit ``(top, bottom, left, right)`` tuple (asymmetric for 'same').
The public functions are in :mod:`dyngrad.nn.functional`.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import wrap

__all__: list[str] = []
TENSOR_METHODS: set[str] = set()


class _Geom:
    """Static geometry of one convolution: stride, padding (t, b, l, r), dilation, groups."""

    __slots__ = ("stride", "pad", "dil", "groups")

    def __init__(self, stride: tuple, pad: tuple, dil: tuple, groups: int) -> None:
        self.stride, self.pad, self.dil, self.groups = stride, pad, dil, groups

    def out_hw(self, h: int, w: int, kh: int, kw: int) -> tuple[int, int]:
        (sh, sw), (pt, pb, pl, pr), (dh, dw) = self.stride, self.pad, self.dil
        return (h + pt + pb - dh * (kh - 1) - 1) // sh + 1, (w + pl + pr - dw * (kw - 1) - 1) // sw + 1


def _windows(x: np.ndarray, kh: int, kw: int, g: _Geom, ho: int, wo: int, fill: float = 0.0) -> np.ndarray:
    """``(N, C, Ho, Wo, kh, kw)`` strided view of the padded input (no copy but the pad)."""
    pt, pb, pl, pr = g.pad
    if any(g.pad):
        x = np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    (sh, sw), (dh, dw) = g.stride, g.dil
    v = sliding_window_view(x, (dh * (kh - 1) + 1, dw * (kw - 1) + 1), axis=(2, 3))
    return v[:, :, : sh * (ho - 1) + 1 : sh, : sw * (wo - 1) + 1 : sw, ::dh, ::dw]


def _cols(x: np.ndarray, kh: int, kw: int, g: _Geom, ho: int, wo: int) -> np.ndarray:
    """im2col: ``(G, N*Ho*Wo, C/G*kh*kw)`` contiguous."""
    n, c = x.shape[:2]
    v = _windows(x, kh, kw, g, ho, wo)  # N C Ho Wo kh kw
    v = v.reshape(n, g.groups, c // g.groups, ho, wo, kh, kw).transpose(1, 0, 3, 4, 2, 5, 6)
    return v.reshape(g.groups, n * ho * wo, (c // g.groups) * kh * kw)


def _conv_np(x: np.ndarray, w: np.ndarray, g: _Geom) -> np.ndarray:
    n, _, h, wd = x.shape
    o, _, kh, kw = w.shape
    ho, wo = g.out_hw(h, wd, kh, kw)
    cols = _cols(x, kh, kw, g, ho, wo)
    wg = w.reshape(g.groups, o // g.groups, -1)
    out = np.matmul(cols, wg.transpose(0, 2, 1))  # G, N*Ho*Wo, O/G
    out = out.reshape(g.groups, n, ho, wo, o // g.groups).transpose(1, 0, 4, 2, 3)
    return np.ascontiguousarray(out.reshape(n, o, ho, wo))


def _conv_t_np(y: np.ndarray, w: np.ndarray, g: _Geom, in_hw: tuple) -> np.ndarray:
    """Adjoint of ``x -> conv(x, w)``: ``y (N, O, Ho, Wo) -> (N, C, H, W)`` (col2im)."""
    n, o, ho, wo = y.shape
    _, cg, kh, kw = w.shape
    G = g.groups
    yg = y.reshape(n, G, o // G, ho, wo).transpose(1, 0, 3, 4, 2).reshape(G, n * ho * wo, o // G)
    cols = np.matmul(yg, w.reshape(G, o // G, cg * kh * kw))  # G, NHoWo, cg*kh*kw
    cols = (
        cols.reshape(G, n, ho, wo, cg, kh, kw)
        .transpose(1, 0, 4, 5, 6, 2, 3)
        .reshape(n, G * cg, kh, kw, ho, wo)
    )
    (sh, sw), (pt, pb, pl, pr), (dh, dw) = g.stride, g.pad, g.dil
    h, wd = in_hw
    xp = np.zeros((n, G * cg, h + pt + pb, wd + pl + pr), dtype=np.result_type(y, w))
    for i in range(kh):
        for j in range(kw):
            xp[:, :, i * dh : i * dh + sh * (ho - 1) + 1 : sh, j * dw : j * dw + sw * (wo - 1) + 1 : sw] += (
                cols[:, :, i, j]
            )
    return np.ascontiguousarray(xp[:, :, pt : pt + h, pl : pl + wd])


def _conv_w_np(x: np.ndarray, y: np.ndarray, g: _Geom, k_hw: tuple) -> np.ndarray:
    """Adjoint of ``w -> conv(x, w)``: ``(N, C, H, W), (N, O, Ho, Wo) -> (O, C/G, kh, kw)``."""
    n, o, ho, wo = y.shape
    kh, kw = k_hw
    G = g.groups
    cols = _cols(x, kh, kw, g, ho, wo)  # G, NHoWo, cg*kh*kw
    yg = y.reshape(n, G, o // G, ho, wo).transpose(1, 2, 0, 3, 4).reshape(G, o // G, n * ho * wo)
    return np.matmul(yg, cols).reshape(o, x.shape[1] // G, kh, kw)


class Conv2dFn(Function):
    """``out[n, o] = sum_{c, i, j} x_pad[n, c, s*h + d*i, s*w + d*j] * w[o, c, i, j]`` per group;
    ``x (N, C, H, W)``, ``w (O, C/groups, kh, kw)`` -> ``(N, O, Ho, Wo)``.

    ``grad_x = conv_t(grad, w)``, ``grad_w = conv_w(x, grad)`` (see the module docstring)."""

    _builtin = True
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, geom: _Geom) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(x, w)
        return wrap(_conv_np(x.data, w.data, geom))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = Conv2dInputGrad.apply(g, w, ctx.geom, x.shape[2:]) if n[0] else None
        gw = Conv2dWeightGrad.apply(x, g, ctx.geom, w.shape[2:]) if n[1] else None
        return gx, gw, None


class Conv2dInputGrad(Function):
    """The transposed convolution ``conv_t(y, w)`` ``(N, O, Ho, Wo) -> (N, C, H, W)``.

    ``grad_y = conv(grad, w)``, ``grad_w = conv_w(grad, y)``."""

    _builtin = True
    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, y: Tensor, w: Tensor, geom: _Geom, in_hw: tuple) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(y, w)
        return wrap(_conv_t_np(y.data, w.data, geom, tuple(in_hw)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        y, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gy = Conv2dFn.apply(g, w, ctx.geom) if n[0] else None
        gw = Conv2dWeightGrad.apply(g, y, ctx.geom, w.shape[2:]) if n[1] else None
        return gy, gw, None, None


class Conv2dWeightGrad(Function):
    """``conv_w(x, y)``: the weight gradient ``(N, C, H, W), (N, O, Ho, Wo) -> (O, C/G, kh, kw)``.

    ``grad_x = conv_t(y, grad)``, ``grad_y = conv(x, grad)``."""

    _builtin = True
    _node_name = "ConvolutionBackwardBackward1"

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, geom: _Geom, k_hw: tuple) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(x, y)
        return wrap(_conv_w_np(x.data, y.data, geom, tuple(k_hw)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = Conv2dInputGrad.apply(y, g, ctx.geom, x.shape[2:]) if n[0] else None
        gy = Conv2dFn.apply(x, g, ctx.geom) if n[1] else None
        return gx, gy, None, None


def conv2d_raw(x: Tensor, w: Tensor, stride: tuple, pad: tuple, dil: tuple, groups: int) -> Tensor:
    """Convolution without bias, all arguments already normalised (see nn.functional)."""
    return Conv2dFn.apply(x, w, _Geom(stride, pad, dil, groups))


def pool_windows(x: np.ndarray, k: tuple, stride: tuple, pad: tuple, dil: tuple, fill: float) -> np.ndarray:
    """``(N, C, Ho, Wo, kh, kw)`` windows of ``x (N, C, H, W)`` padded with ``fill``."""
    g = _Geom(stride, pad, dil, 1)
    ho, wo = g.out_hw(x.shape[2], x.shape[3], k[0], k[1])
    return _windows(x, k[0], k[1], g, ho, wo, fill)


class TakeFlat(Function):
    """``out[n, c, p] = x.reshape(N, C, -1)[n, c, idx[n, c, p]]`` (``idx`` constant), shapes
    ``x (N, C, *)`` -> ``idx.shape``. ``grad_x = put_flat(grad, idx)`` (scatter-add)."""

    _builtin = True
    _node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, idx: np.ndarray) -> Tensor:
        ctx.idx = idx
        ctx.shape = x.data.shape
        n, c = idx.shape[:2]
        flat = x.data.reshape(n, c, -1)
        return wrap(np.take_along_axis(flat, idx.reshape(n, c, -1), axis=2).reshape(idx.shape))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return PutFlat.apply(g, ctx.idx, ctx.shape), None


class PutFlat(Function):
    """Adjoint of :class:`TakeFlat`: zeros of ``shape`` with ``g`` added at ``idx``.
    ``grad_g = take_flat(grad, idx)``."""

    _builtin = True
    _node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, g: Tensor, idx: np.ndarray, shape: tuple) -> Tensor:
        ctx.idx = idx
        n, c = idx.shape[:2]
        hw = int(np.prod(shape[2:]))
        gd = g.data.reshape(n * c, -1)
        base = (np.arange(n * c) * hw)[:, None]
        out = np.bincount((idx.reshape(n * c, -1) + base).ravel(), weights=gd.ravel(), minlength=n * c * hw)
        return wrap(out.astype(g.data.dtype, copy=False).reshape(shape))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return TakeFlat.apply(gg, ctx.idx), None, None


class ConstantPad(Function):
    """Constant padding; ``pad`` is PyTorch's flat list ``(last_lo, last_hi, prev_lo, ...)``
    (negative values crop). ``grad_x = grad[the slice that holds x]``."""

    _builtin = True
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, pad: tuple, value: float) -> Tensor:
        d = x.data
        nd = d.ndim
        widths = [(0, 0)] * nd
        for k in range(len(pad) // 2):
            widths[nd - 1 - k] = (pad[2 * k], pad[2 * k + 1])
        crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for (lo, hi), s in zip(widths, d.shape))
        d = d[crop]
        out = np.pad(d, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], constant_values=value)
        ctx.sl = tuple(slice(max(lo, 0), max(lo, 0) + s) for (lo, _), s in zip(widths, d.shape))
        ctx.widths = widths
        ctx.in_shape = x.data.shape
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        inner = g[ctx.sl]
        back = []
        for lo, hi in reversed(ctx.widths):
            back += [min(lo, 0) * -1, min(hi, 0) * -1]
        if any(back):
            inner = ConstantPad.apply(inner, tuple(back), 0.0)
        return inner, None, None
