"""2-D convolution on NumPy (im2col: one strided copy per kernel tap, then one BLAS matmul
per group) and the pooling kernels.

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

from typing import Any, NamedTuple

import numpy as np

from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching import front, leading_batch, logical_ndim
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


def _slices(i: int, j: int, g: _Geom, ho: int, wo: int) -> tuple:
    """Where kernel tap ``(i, j)`` reads in the padded input, for every output pixel."""
    (sh, sw), (dh, dw) = g.stride, g.dil
    return (
        slice(None),
        slice(None),
        slice(i * dh, i * dh + sh * (ho - 1) + 1, sh),
        slice(j * dw, j * dw + sw * (wo - 1) + 1, sw),
    )


def _padded(x: np.ndarray, g: _Geom, fill: float = 0.0) -> np.ndarray:
    pt, pb, pl, pr = g.pad
    if any(g.pad):
        return np.pad(x, ((0, 0), (0, 0), (pt, pb), (pl, pr)), constant_values=fill)
    return x


def _cols(x: np.ndarray, kh: int, kw: int, g: _Geom, ho: int, wo: int) -> np.ndarray:
    """im2col in Caffe's layout: ``(C, kh, kw, N*Ho*Wo)``, one strided copy per kernel tap."""
    n, c = x.shape[:2]
    xp = _padded(x, g)
    cols = np.empty((c, kh, kw, n, ho, wo), dtype=x.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, i, j] = xp[_slices(i, j, g, ho, wo)].transpose(1, 0, 2, 3)
    return cols.reshape(c * kh * kw, n * ho * wo)


def _conv_np(x: np.ndarray, w: np.ndarray, g: _Geom) -> np.ndarray:
    return _conv_np_cols(x, w, g)[0]


def _conv_np_cols(x: np.ndarray, w: np.ndarray, g: _Geom) -> tuple[np.ndarray, np.ndarray]:
    """The convolution and its im2col matrix (kept for the weight gradient)."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    ho, wo = g.out_hw(h, wd, kh, kw)
    cols = _cols(x, kh, kw, g, ho, wo)  # (C*kh*kw, N*Ho*Wo)
    G, og, ck = g.groups, o // g.groups, cg * kh * kw
    w2 = w.reshape(o, ck)
    out = np.empty((o, n * ho * wo), dtype=np.result_type(x, w))
    for k in range(G):  # one BLAS matmul per group
        np.matmul(w2[k * og : (k + 1) * og], cols[k * ck : (k + 1) * ck], out=out[k * og : (k + 1) * og])
    return np.ascontiguousarray(out.reshape(o, n, ho, wo).transpose(1, 0, 2, 3)), cols


def _conv_t_np(y: np.ndarray, w: np.ndarray, g: _Geom, in_hw: tuple) -> np.ndarray:
    """Adjoint of ``x -> conv(x, w)``: ``y (N, O, Ho, Wo) -> (N, C, H, W)`` (col2im)."""
    n, o, ho, wo = y.shape
    _, cg, kh, kw = w.shape
    G, og, ck = g.groups, o // g.groups, cg * kh * kw
    yt = y.transpose(1, 0, 2, 3).reshape(o, n * ho * wo)
    w2 = w.reshape(o, ck)
    dt = np.result_type(y, w)
    cols = np.empty((G * ck, n * ho * wo), dtype=dt)
    for k in range(G):
        np.matmul(w2[k * og : (k + 1) * og].T, yt[k * og : (k + 1) * og], out=cols[k * ck : (k + 1) * ck])
    cols = cols.reshape(G * cg, kh, kw, n, ho, wo)
    pt, pb, pl, pr = g.pad
    h, wd = in_hw
    xp = np.zeros((n, G * cg, h + pt + pb, wd + pl + pr), dtype=dt)
    for i in range(kh):
        for j in range(kw):
            xp[_slices(i, j, g, ho, wo)] += cols[:, i, j].transpose(1, 0, 2, 3)
    return np.ascontiguousarray(xp[:, :, pt : pt + h, pl : pl + wd])


def _conv_w_np(
    x: np.ndarray, y: np.ndarray, g: _Geom, k_hw: tuple, cols: np.ndarray | None = None
) -> np.ndarray:
    """Adjoint of ``w -> conv(x, w)``: ``(N, C, H, W), (N, O, Ho, Wo) -> (O, C/G, kh, kw)``."""
    n, o, ho, wo = y.shape
    kh, kw = k_hw
    G = g.groups
    cg = x.shape[1] // G
    og, ck = o // G, cg * kh * kw
    if cols is None:
        cols = _cols(x, kh, kw, g, ho, wo)
    yt = y.transpose(1, 0, 2, 3).reshape(o, n * ho * wo)
    out = np.empty((o, ck), dtype=np.result_type(x, y))
    for k in range(G):
        # (cols @ y^T)^T, not y @ cols^T: OpenBLAS is up to 20x slower on the latter when
        # the reduction (N*Ho*Wo) is long and the output small (measured on this machine).
        out[k * og : (k + 1) * og] = (cols[k * ck : (k + 1) * ck] @ yt[k * og : (k + 1) * og].T).T
    return out.reshape(o, cg, kh, kw)


# ---- batching (vmap) helpers: the batch is folded into N, or, when the weights differ per
# example, into the channels with ``groups * B`` groups (example ``b``'s channels and weights
# side by side), so one convolution computes the whole batch.


def _fold_n(x: Tensor, d: int) -> Tensor:
    """Batched ``(N, C, *)`` -> ``(B*N, C, *)``."""
    x = front(x, d)
    return x.reshape((-1,) + tuple(x.shape[2:]))


def _fold_c(x: Tensor, d: Any, b: int) -> Tensor:
    """``(N, C, H, W)`` (batched at ``d``, or shared by all ``b`` examples) -> ``(N, b*C, H, W)``."""
    if d is None:
        n, c = x.shape[:2]
        return x.unsqueeze(1).expand((n, b) + tuple(x.shape[1:])).reshape((n, b * c) + tuple(x.shape[2:]))
    x = front(x, d)
    x = x.transpose(0, 1)  # (N, B, C, H, W)
    return x.reshape((x.shape[0], -1) + tuple(x.shape[3:]))


def _fold_w(w: Tensor, d: int) -> Tensor:
    """Batched weights ``(O, C/G, kh, kw)`` -> ``(B*O, C/G, kh, kw)``."""
    return _fold_n(w, d)


def _grouped(g: _Geom, b: int) -> _Geom:
    return _Geom(g.stride, g.pad, g.dil, g.groups * b)


def _unfold_c(out: Tensor, b: int) -> tuple:
    """``(N, b*O, Ho, Wo)`` -> ``(N, b, O, Ho, Wo)``, batch dim 1."""
    return out.reshape((out.shape[0], b, -1) + tuple(out.shape[2:])), 1


def _conv_like_rule(info: Any, in_dims: tuple, y: Tensor, w: Tensor, geom: _Geom, *rest: Any) -> tuple:
    """Rule of Conv2dFn / Conv2dInputGrad ``(data (N, *), weight, geom, ...)``."""
    dy, dw = in_dims[:2]
    f, b = info.function, info.batch_size
    if dw is None:  # shared weights: the batch is more images
        yf = _fold_n(y, dy)
        out = f.apply(yf, w, geom, *rest)
        return out.reshape((b, -1) + tuple(out.shape[1:])), 0
    return _unfold_c(f.apply(_fold_c(y, dy, b), _fold_w(w, dw), _grouped(geom, b), *rest), b)


class Conv2dFn(Op):
    """``out[n, o] = sum_{c, i, j} x_pad[n, c, s*h + d*i, s*w + d*j] * w[o, c, i, j]`` per group;
    ``x (N, C, H, W)``, ``w (O, C/groups, kh, kw)`` -> ``(N, O, Ho, Wo)``.

    ``grad_x = conv_t(grad, w)``, ``grad_w = conv_w(x, grad)`` (see the module docstring)."""

    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, geom: _Geom) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(x, w)
        out, cols = _conv_np_cols(x._data, w._data, geom)
        # im2col(x) is reused by the weight gradient (x is version-checked on unpack).
        ctx.cols = cols if ctx.needs_input_grad[1] else None
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = Conv2dInputGrad.apply(g, w, ctx.geom, x.shape[2:]) if n[0] else None
        gw = Conv2dWeightGrad.apply(x, g, ctx.geom, w.shape[2:], ctx.cols) if n[1] else None
        return gx, gw, None

    # hand-written: bilinear (product rule): neither linear nor elementwise
    @staticmethod
    def jvp(ctx: Any, ux: Any, uw: Any, *_: Any) -> Any:
        """Forward mode: ``t = conv(ux, w) + conv(x, uw)`` (bilinear)."""
        x, w = ctx._fwd_inputs[:2]
        ts = [t for t in (None if ux is None else Conv2dFn.apply(ux, w, ctx.geom),
                          None if uw is None else Conv2dFn.apply(x, uw, ctx.geom)) if t is not None]
        return sum(ts[1:], ts[0])

    vmap = staticmethod(_conv_like_rule)  # batching rule: batch into N (shared w) or into groups


class Conv2dInputGrad(Op):
    """The transposed convolution ``conv_t(y, w)`` ``(N, O, Ho, Wo) -> (N, C, H, W)``.

    ``grad_y = conv(grad, w)``, ``grad_w = conv_w(grad, y)``."""

    _node_name = "ConvolutionBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, y: Tensor, w: Tensor, geom: _Geom, in_hw: tuple) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(y, w)
        return wrap(_conv_t_np(y._data, w._data, geom, tuple(in_hw)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        y, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gy = Conv2dFn.apply(g, w, ctx.geom) if n[0] else None
        gw = Conv2dWeightGrad.apply(g, y, ctx.geom, w.shape[2:]) if n[1] else None
        return gy, gw, None, None

    # hand-written: bilinear (product rule): neither linear nor elementwise
    @staticmethod
    def jvp(ctx: Any, uy: Any, uw: Any, *_: Any) -> Any:
        """Forward mode: ``t = conv_t(uy, w) + conv_t(y, uw)`` (bilinear)."""
        y, w = ctx._fwd_inputs[:2]
        ts = [t for t in (None if uy is None else Conv2dInputGrad.apply(uy, w, *ctx._fwd_inputs[2:4]),
                          None if uw is None else Conv2dInputGrad.apply(y, uw, *ctx._fwd_inputs[2:4])) if t is not None]
        return sum(ts[1:], ts[0])

    vmap = staticmethod(_conv_like_rule)  # batching rule: batch into N (shared w) or into groups


class Conv2dWeightGrad(Op):
    """``conv_w(x, y)``: the weight gradient ``(N, C, H, W), (N, O, Ho, Wo) -> (O, C/G, kh, kw)``.

    ``grad_x = conv_t(y, grad)``, ``grad_y = conv(x, grad)``."""

    _node_name = "ConvolutionBackwardBackward1"

    @staticmethod
    def forward(ctx: Any, x: Tensor, y: Tensor, geom: _Geom, k_hw: tuple, cols: Any = None) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(x, y)
        return wrap(_conv_w_np(x._data, y._data, geom, tuple(k_hw), cols))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = Conv2dInputGrad.apply(y, g, ctx.geom, x.shape[2:]) if n[0] else None
        gy = Conv2dFn.apply(x, g, ctx.geom) if n[1] else None
        return gx, gy, None, None, None

    # hand-written: bilinear (product rule): neither linear nor elementwise
    @staticmethod
    def jvp(ctx: Any, ux: Any, uy: Any, *_: Any) -> Any:
        """Forward mode: ``t = conv_w(ux, y) + conv_w(x, uy)`` (bilinear; the cached
        im2col of ``x`` is reused for the second term only)."""
        x, y = ctx._fwd_inputs[:2]
        ts = [t for t in (None if ux is None else Conv2dWeightGrad.apply(ux, y, *ctx._fwd_inputs[2:4]),
                          None if uy is None else Conv2dWeightGrad.apply(x, uy, *ctx._fwd_inputs[2:5])) if t is not None]
        return sum(ts[1:], ts[0])

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, y: Tensor, geom: _Geom, k_hw: tuple, cols: Any = None) -> tuple:
        """Batching rule: each example's weight gradient sums over its own N only, so the
        batch goes into the channels (``groups * B`` groups; a shared operand is repeated);
        the cached im2col is not reused."""
        b = info.batch_size
        out = Conv2dWeightGrad.apply(_fold_c(x, in_dims[0], b), _fold_c(y, in_dims[1], b), _grouped(geom, b), k_hw)
        return out.reshape((b, -1) + tuple(out.shape[1:])), 0


def conv2d_raw(x: Tensor, w: Tensor, stride: tuple, pad: tuple, dil: tuple, groups: int) -> Tensor:
    """Convolution without bias, all arguments already normalised (see nn.functional)."""
    return Conv2dFn.apply(x, w, _Geom(stride, pad, dil, groups))


def max_pool_indices(x: np.ndarray, k: tuple, stride: tuple, pad: tuple, dil: tuple) -> tuple:
    """``(indices, maxima)``: flat ``H * W`` index and value of the maximum of each pooling window of ``x (N, C, H, W)``
    (padding counts as ``-inf``; the first maximum in row-major window order wins; NaN
    counts as the maximum, as PyTorch). One pass per kernel tap, no window copies."""
    g = _Geom(stride, pad, dil, 1)
    h, w = x.shape[2:]
    ho, wo = g.out_hw(h, w, k[0], k[1])
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _padded(x, g, fill)
    nan = x.dtype.kind == "f" and bool(np.isnan(x).any())
    best = xp[_slices(0, 0, g, ho, wo)].copy()
    tap = np.zeros(best.shape, np.int16)  # which kernel tap holds the maximum so far
    upd = np.empty(best.shape, bool)
    for t in range(1, k[0] * k[1]):
        v = xp[_slices(t // k[1], t % k[1], g, ho, wo)]
        np.greater(v, best, out=upd)
        if nan:
            upd |= np.isnan(v) & ~np.isnan(best)
        np.maximum(best, v, out=best)  # NaN propagates, as PyTorch's max pooling
        np.putmask(tap, upd, t)
    taps = np.arange(k[0] * k[1])
    offsets = (taps // k[1]) * dil[0] * w + (taps % k[1]) * dil[1]  # flat offset of each tap
    base = (np.arange(ho) * stride[0] - pad[0])[:, None] * w + (np.arange(wo) * stride[1] - pad[2])[None, :]
    idx = np.take(offsets.astype(np.int64), tap)
    idx += base
    return idx, best


class PoolSpec(NamedTuple):
    """A max pooling window, given to :class:`TakeFlat` instead of indices: its forward then
    finds the maxima itself (so max pooling never reads a batched input outside a Function)."""

    k: tuple
    stride: tuple
    pad: tuple
    dil: tuple


class TakeFlat(Op):
    """``out[n, c, p] = x.reshape(N, C, -1)[n, c, idx[n, c, p]]`` (``idx`` constant), shapes
    ``x (N, C, *)`` -> ``idx.shape``. ``grad_x = put_flat(grad, idx)`` (scatter-add).
    ``idx`` may be a :class:`PoolSpec`: the indices of the window maxima of ``x``."""

    _node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, idx: np.ndarray, values: Any = None, unique: bool = False) -> Tensor:
        if isinstance(idx, PoolSpec):
            idx, values = max_pool_indices(x._data, *idx)
        ctx.idx = idx
        ctx.shape = x._data.shape
        ctx.unique = unique
        if values is not None:  # already gathered by the caller (max pooling)
            return wrap(values)
        n, c = idx.shape[:2]
        flat = x._data.reshape(n, c, -1)
        return wrap(np.take_along_axis(flat, idx.reshape(n, c, -1), axis=2).reshape(idx.shape))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return PutFlat.apply(g, ctx.idx, ctx.shape, ctx.unique), None, None, None

    # hand-written: forward's cached `values` must not be reused for the tangent
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = take_flat(u, idx)`` (linear op)."""
        return TakeFlat.apply(u, ctx.idx, None, ctx.unique)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, idx: np.ndarray, values: Any = None, unique: bool = False) -> tuple:
        """Batching rule: the batch folded into N, the (shared) indices repeated for each
        example; gathered ``values`` are dropped (the gather recomputes them)."""
        b = info.batch_size
        idx = idx if isinstance(idx, PoolSpec) else _tile(idx, b)
        out = TakeFlat.apply(_fold_n(x, in_dims[0]), idx, None, unique)
        return out.reshape((b, -1) + tuple(out.shape[1:])), 0


def _tile(idx: np.ndarray, b: int) -> np.ndarray:
    """Indices ``(N, C, *)`` shared by ``b`` examples -> ``(b*N, C, *)``."""
    return np.broadcast_to(idx, (b,) + idx.shape).reshape((-1,) + idx.shape[1:])


class MaxPoolIndices(Op):
    """int64 flat ``H * W`` index of each window maximum of ``x (N, C, H, W)`` (``spec`` a
    :class:`PoolSpec`), ``-> (N, C, Ho, Wo)``; not differentiable (call on ``x.detach()``)."""

    _node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, spec: PoolSpec) -> Tensor:
        return wrap(max_pool_indices(x._data, *spec)[0])

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        raise RuntimeError("MaxPoolIndices is not differentiable (apply it to a detached input)")

    # hand-written: integer/bool output: no tangent
    @staticmethod
    def jvp(ctx: Any, *_: Any) -> None:
        """Forward mode: integer indices carry no tangent."""
        return None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, spec: PoolSpec) -> tuple:
        """Batching rule: the batch folded into N."""
        out = MaxPoolIndices.apply(_fold_n(x, in_dims[0]), spec)
        return out.reshape((info.batch_size, -1) + tuple(out.shape[1:])), 0


def max_pool(x: Tensor, k: tuple, stride: tuple, pad: tuple, dil: tuple, unique: bool, indices: bool = False) -> tuple:
    """``(maxima, flat indices or None)`` of the pooling windows of ``x (N, C, H, W)``,
    arguments already normalised (see nn.functional.max_pool2d); works under vmap."""
    spec = PoolSpec(tuple(k), tuple(stride), tuple(pad), tuple(dil))
    out = TakeFlat.apply(x, spec, None, unique)
    return out, (MaxPoolIndices.apply(x.detach(), spec) if indices else None)


class PutFlat(Linear):
    """Adjoint of :class:`TakeFlat`: zeros of ``shape`` with ``g`` added at ``idx``.
    ``grad_g = take_flat(grad, idx)``."""

    _node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, g: Tensor, idx: np.ndarray, shape: tuple, unique: bool = False) -> Tensor:
        ctx.idx = idx
        n, c = idx.shape[:2]
        if unique:  # no index repeats within a (n, c) slice: a plain scatter, no accumulation
            out = np.zeros((n, c, int(np.prod(shape[2:]))), dtype=g._data.dtype)
            np.put_along_axis(out, idx.reshape(n, c, -1), g._data.reshape(n, c, -1), axis=2)
            return wrap(out.reshape(shape))
        hw = int(np.prod(shape[2:]))
        gd = g._data.reshape(n * c, -1)
        base = (np.arange(n * c) * hw)[:, None]
        out = np.bincount((idx.reshape(n * c, -1) + base).ravel(), weights=gd.ravel(), minlength=n * c * hw)
        return wrap(out.astype(g._data.dtype, copy=False).reshape(shape))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return TakeFlat.apply(gg, ctx.idx), None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, g: Tensor, idx: np.ndarray, shape: tuple, unique: bool = False) -> tuple:
        """Batching rule: the batch folded into N, the (shared) indices repeated."""
        b = info.batch_size
        out = PutFlat.apply(_fold_n(g, in_dims[0]), _tile(idx, b), (b * shape[0],) + tuple(shape[1:]), unique)
        return out.reshape((b,) + tuple(shape)), 0


class ConstantPad(Op):
    """Constant padding; ``pad`` is PyTorch's flat list ``(last_lo, last_hi, prev_lo, ...)``
    (negative values crop). ``grad_x = grad[the slice that holds x]``."""

    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, pad: tuple, value: float) -> Tensor:
        d = x._data
        nd = d.ndim
        widths = [(0, 0)] * nd
        for k in range(len(pad) // 2):
            widths[nd - 1 - k] = (pad[2 * k], pad[2 * k + 1])
        crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for (lo, hi), s in zip(widths, d.shape))
        d = d[crop]
        out = np.pad(d, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], constant_values=value)
        ctx.sl = tuple(slice(max(lo, 0), max(lo, 0) + s) for (lo, _), s in zip(widths, d.shape))
        ctx.widths = widths
        ctx.in_shape = x._data.shape
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

    # hand-written: affine (the pad value is a constant), so not Linear
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = pad(u, pad, 0)`` (linear op; the pad value is a constant)."""
        return ConstantPad.apply(u, ctx._fwd_inputs[1], 0.0)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, pad: tuple, value: float) -> Any:
        """Batching rule: ``pad`` names trailing dims only, so the batch dim leads."""
        if len(pad) // 2 > logical_ndim(x, in_dims[0]):
            return NotImplemented
        return leading_batch(info, in_dims, x, pad, value)
