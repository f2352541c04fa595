"""N-d convolution (1-d, 2-d and 3-d) on NumPy (im2col: one strided copy per kernel tap, then
BLAS matmuls in a layout chosen per case, see :func:`_conv_np_cols` and :class:`_Wide`) and
the pooling kernels.

Three Functions close under differentiation. With the trilinear form
``T(x, w, y) = <conv(x, w), y>``:

* ``conv(x, w)``      = dT/dy  (``Conv2dFn``)
* ``conv_t(y, w)``    = dT/dx  (``Conv2dInputGrad``: the transposed convolution)
* ``conv_w(x, y)``    = dT/dw  (``Conv2dWeightGrad``)

so the backward of each is written with the other two and every order of derivative works.
The three are N-d (the ``2d`` in their names is historical; the rank comes from the weight):
``x (N, C, *S)``, ``w (O, C/G, *K)``. Padding is an explicit flat ``(lo_0, hi_0, lo_1, hi_1,
...)`` tuple (for 2-d ``(top, bottom, left, right)``; asymmetric for 'same').
The public functions are in :mod:`dyngrad.nn.functional`.
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import _workspace as ws
from ._bases import Linear, Op
from ._batching import front, leading_batch, logical_ndim
from ._util import wrap

__all__: list[str] = []
TENSOR_METHODS: set[str] = set()


class _Geom:
    """Static geometry of one N-d convolution: stride, padding, dilation (one entry per
    spatial dim) and groups. ``pad`` is flat, ``(lo_0, hi_0, lo_1, hi_1, ...)`` in spatial
    order (for 2-d: ``(top, bottom, left, right)``)."""

    __slots__ = ("stride", "pad", "dil", "groups")

    def __init__(self, stride: tuple, pad: tuple, dil: tuple, groups: int) -> None:
        self.stride, self.pad, self.dil, self.groups = stride, pad, dil, groups

    def out_size(self, size: tuple, kernel: tuple) -> tuple:
        """Output spatial size for input ``size`` and kernel ``kernel``:
        ``(n + lo + hi - d (k - 1) - 1) // s + 1`` per dim."""
        p = self.pad
        return tuple((n + p[2 * i] + p[2 * i + 1] - d * (k - 1) - 1) // s + 1
                     for i, (n, k, s, d) in enumerate(zip(size, kernel, self.stride, self.dil)))

    def out_hw(self, h: int, w: int, kh: int, kw: int) -> tuple:
        """2-d :meth:`out_size`."""
        return self.out_size((h, w), (kh, kw))


def _slices(tap: tuple, g: _Geom, out: tuple) -> tuple:
    """Where kernel tap ``tap`` (one index per spatial dim) reads in the padded input, for
    every output position."""
    return (slice(None), slice(None)) + tuple(
        slice(t * d, t * d + s * (o - 1) + 1, s) for t, s, d, o in zip(tap, g.stride, g.dil, out))


def _padded(x: np.ndarray, g: _Geom, fill: float = 0.0) -> np.ndarray:
    """``x`` padded with ``fill`` (a pooled scratch buffer: callers use it only inside the kernel)."""
    if any(g.pad):
        p = g.pad
        nd = x.ndim - 2
        xp = ws.empty(x.shape[:2] + tuple(x.shape[2 + i] + p[2 * i] + p[2 * i + 1] for i in range(nd)), x.dtype)
        xp.fill(fill)
        xp[(slice(None), slice(None)) + tuple(slice(p[2 * i], p[2 * i] + x.shape[2 + i]) for i in range(nd))] = x
        return xp
    return x


def _nc_swap(nd: int) -> tuple:
    """The axes permutation swapping the first two axes of an ``nd + 2``-d array."""
    return (1, 0) + tuple(range(2, nd + 2))


def _cols(x: np.ndarray, ks: tuple, g: _Geom, out: tuple) -> np.ndarray:
    """im2col in Caffe's layout: ``(C * prod(ks), N * prod(out))``, one strided copy per
    kernel tap."""
    n, c = x.shape[:2]
    xp = _padded(x, g)
    cols = ws.empty((c,) + tuple(ks) + (n,) + tuple(out), x.dtype)
    for tap in np.ndindex(*ks):
        cols[(slice(None),) + tap] = xp[_slices(tap, g, out)].swapaxes(0, 1)
    return cols.reshape(c * int(np.prod(ks)), n * int(np.prod(out)))


class _Wide:
    """The padded-row layout of a stride-1 transposed convolution. Output position
    ``(o_0, o_1, ...)`` of the forward convolution is laid out at the flat index
    ``sum_i o_i * fs_i`` of the *padded input* (``fs`` its row-major strides), so the
    ``L = out_0 * fs_0`` "wide" positions include, per row, ``sp_i - out_i`` positions past
    the last output, where the spread gradient is zero. Then kernel tap ``t`` adds into the
    flat padded input at ``off_t + [0, L)``: one contiguous run per image and channel
    instead of short strided rows (col2im). Costs ``L / prod(out)`` times the matmul work,
    so it is used only where that is small (:func:`_wide`)."""

    __slots__ = ("sp", "L", "offsets", "size")

    def __init__(self, g: _Geom, in_sz: tuple, ks: tuple, out: tuple) -> None:
        p = g.pad
        self.sp = sp = tuple(n + p[2 * i] + p[2 * i + 1] for i, n in enumerate(in_sz))
        fs = [int(np.prod(sp[i + 1:])) for i in range(len(sp))]
        self.L = out[0] * fs[0]
        self.offsets = [sum(t * d * f for t, d, f in zip(tap, g.dil, fs)) for tap in np.ndindex(*ks)]
        # the last tap's run ends past the padded input by its offset in the inner dims
        self.size = int(np.prod(sp)) + sum((k - 1) * d * f for k, d, f in zip(ks[1:], g.dil[1:], fs[1:]))

    def spread(self, y: np.ndarray) -> np.ndarray:
        """``y (N, O, *out)`` on the wide positions, zeros at the others, channels first:
        ``(O, N * L)``."""
        n, o = y.shape[:2]
        out = y.shape[2:]
        wide = ws.zeros((o, n, out[0]) + self.sp[1:], y.dtype)
        wide[(slice(None), slice(None)) + tuple(slice(0, m) for m in out)] = y.swapaxes(0, 1)
        return wide.reshape(o, n * self.L)


_WIDE_MAX_WASTE = 1.34  # the measured break-even on this machine (benchmarks/RESULTS.md)
_BATCHED_MIN_P = 64  # outputs per image from which the forward uses one matmul per image
_WGRAD_BATCHED_MAX_CK = 96  # the weight gradient's per-image products below this C/G * prod(K) (measured)
_CHUNK_BYTES = 1 << 20  # the transposed convolution's column matrix per chunk of images (L2-sized)


def _wide(g: _Geom, in_sz: tuple, ks: tuple, out: tuple) -> _Wide | None:
    """The :class:`_Wide` layout where it pays: stride 1 and at most ``_WIDE_MAX_WASTE``
    times more matmul columns than outputs."""
    if any(s != 1 for s in g.stride) or min(out, default=0) < 1:
        return None
    p = g.pad
    sp = [n + p[2 * i] + p[2 * i + 1] for i, n in enumerate(in_sz)]
    return _Wide(g, in_sz, ks, out) if np.prod(sp[1:]) <= _WIDE_MAX_WASTE * np.prod(out[1:]) else None


def _conv_np(x: np.ndarray, w: np.ndarray, g: _Geom) -> np.ndarray:
    return _conv_np_cols(x, w, g)[0]


def _conv_np_cols(x: np.ndarray, w: np.ndarray, g: _Geom) -> tuple[np.ndarray, np.ndarray]:
    """The convolution ``x (N, C, *S)``, ``w (O, C/G, *K)`` -> ``(N, O, *S_out)`` and its
    im2col matrix (kept for the weight gradient). With ``P = prod(S_out) >= 64`` one matmul
    call ``(G, O/G, ck) @ (N, G, ck, P)`` over a view of the im2col matrix gives the
    ``(N, O, P)`` layout without a transposing copy; below that, one product per group
    (``(O/G, ck) @ (ck, N * P)``, fewer and larger BLAS calls) and a transposing copy."""
    n = x.shape[0]
    o, cg = w.shape[:2]
    ks = w.shape[2:]
    out_sz = g.out_size(x.shape[2:], ks)
    cols = _cols(x, ks, g, out_sz)  # (C*prod(K), N*prod(S_out))
    G, og, ck = g.groups, o // g.groups, cg * int(np.prod(ks))
    p = int(np.prod(out_sz))
    if p >= _BATCHED_MIN_P:
        out = np.empty((n, G, og, p), dtype=np.result_type(x, w))
        np.matmul(w.reshape(G, og, ck), cols.reshape(G, ck, n, p).transpose(2, 0, 1, 3), out=out)
        return out.reshape((n, o) + out_sz), cols
    w2 = w.reshape(o, ck)
    out = np.empty((o, cols.shape[1]), dtype=np.result_type(x, w))
    for k in range(G):  # one BLAS matmul per group
        np.matmul(w2[k * og : (k + 1) * og], cols[k * ck : (k + 1) * ck], out=out[k * og : (k + 1) * og])
    return np.ascontiguousarray(out.reshape((o, n) + out_sz).transpose(_nc_swap(len(ks)))), cols


def _conv_t_np(y: np.ndarray, w: np.ndarray, g: _Geom, in_sz: tuple) -> np.ndarray:
    """Adjoint of ``x -> conv(x, w)``: ``y (N, O, *S_out) -> (N, C, *in_sz)`` (col2im):
    one product per group ``(ck, O/G) @ (O/G, n * P)``, then one strided add per kernel tap;
    for stride 1 mostly in the :class:`_Wide` layout (one contiguous run per tap, image and
    channel). The images go through in chunks of ``n`` whose column matrix fits in
    ``_CHUNK_BYTES`` (the taps then add from cache: 0.86x of one pass over the batch)."""
    n, o = y.shape[:2]
    out_sz = y.shape[2:]
    cg = w.shape[1]
    ks = w.shape[2:]
    nd = len(ks)
    G, og, ck = g.groups, o // g.groups, cg * int(np.prod(ks))
    wl = _wide(g, tuple(in_sz), tuple(ks), tuple(out_sz))
    dt = np.result_type(y, w)
    p = g.pad
    if wl is not None:
        yt = wl.spread(y)  # (O, N * L)
        q = wl.L
        flat = ws.zeros((n, G * cg, wl.size), dt)
    else:
        q = int(np.prod(out_sz))
        xp = ws.zeros((n, G * cg) + tuple(s + p[2 * i] + p[2 * i + 1] for i, s in enumerate(in_sz)), dt)
    nb = n if G > 4 else max(1, min(n, _CHUNK_BYTES // max(1, G * ck * q * dt.itemsize)))
    w2 = w.reshape(o, ck)
    buf = ws.empty((G * ck * nb * q,), dt)
    for s in range(0, n, nb):
        e = min(n, s + nb)
        m = e - s
        if wl is None:  # this chunk's y, channels first: (O, m * P)
            yt = y[s:e].transpose(_nc_swap(nd)).reshape(o, -1)
            ys = slice(None)
        else:
            ys = slice(s * q, e * q)
        cols = buf[: G * ck * m * q].reshape(G * ck, m * q)
        for k in range(G):
            np.matmul(w2[k * og : (k + 1) * og].T, yt[k * og : (k + 1) * og, ys], out=cols[k * ck : (k + 1) * ck])
        if wl is not None:
            c4 = cols.reshape(G * cg, len(wl.offsets), m, q)
            f = flat[s:e]
            for t, off in enumerate(wl.offsets):
                f[:, :, off : off + q] += c4[:, t].swapaxes(0, 1)
        else:
            cn = cols.reshape((G * cg,) + tuple(ks) + (m,) + tuple(out_sz))
            xs = xp[s:e]
            for tap in np.ndindex(*ks):
                xs[_slices(tap, g, out_sz)] += cn[(slice(None),) + tap].swapaxes(0, 1)
    if wl is not None:
        xp = flat[:, :, : int(np.prod(wl.sp))].reshape((n, G * cg) + wl.sp)
    crop = (slice(None), slice(None)) + tuple(slice(p[2 * i], p[2 * i] + s) for i, s in enumerate(in_sz))
    return np.ascontiguousarray(xp[crop])


def _conv_w_np(
    x: np.ndarray, y: np.ndarray, g: _Geom, k_sz: tuple, cols: np.ndarray | None = None
) -> np.ndarray:
    """Adjoint of ``w -> conv(x, w)``: ``(N, C, *S), (N, O, *S_out) -> (O, C/G, *k_sz)``."""
    o = y.shape[1]
    ks = tuple(k_sz)
    G = g.groups
    cg = x.shape[1] // G
    og, ck = o // G, cg * int(np.prod(ks))
    if cols is None:
        cols = _cols(x, ks, g, y.shape[2:])
    n, p = y.shape[0], int(np.prod(y.shape[2:]))
    if ck <= _WGRAD_BATCHED_MAX_CK:
        # one product per image and group, ``(ck, P) @ (P, O/G)``, summed over the images:
        # no transposing copy of y, and OpenBLAS runs these short reductions 1.3-3.7x faster
        # than one product whose reduction is N * P long (measured, benchmarks/RESULTS.md)
        per = np.matmul(cols.reshape(G, ck, n, p).transpose(2, 0, 1, 3),
                        y.reshape(n, G, og, p).transpose(0, 1, 3, 2))  # (N, G, ck, O/G)
        return np.ascontiguousarray(per.sum(0).transpose(0, 2, 1)).reshape((o, cg) + ks)
    yt = ws.empty((o, y.shape[0]) + y.shape[2:], y.dtype)
    np.copyto(yt, y.swapaxes(0, 1))
    yt = yt.reshape(o, -1)
    out = np.empty((o, ck), dtype=np.result_type(x, y))
    for k in range(G):
        # (cols @ y^T)^T, not y @ cols^T: OpenBLAS is up to 20x slower on the latter when
        # the reduction (N*prod(S_out)) is long and the output small (measured on this machine).
        out[k * og : (k + 1) * og] = (cols[k * ck : (k + 1) * ck] @ yt[k * og : (k + 1) * og].T).T
    return out.reshape((o, cg) + ks)


# ---- the three kernels with the Array API standard's functions only (array-api-strict and
# other Array API arrays: no index assignment, no strided views, no ``out=``). The same sums
# as the NumPy kernels, rounded possibly differently; not tuned for speed.
def _pad_xp(x: Any, widths: list, fill: Any = 0.0) -> Any:
    """``x`` padded with ``fill`` by ``widths`` (one ``(lo, hi)`` per dim), by ``concat``."""
    xp = B.namespace(x)
    for ax, (lo, hi) in enumerate(widths):
        if lo or hi:
            shp = list(x.shape)
            parts = []
            if lo:
                shp[ax] = lo
                parts.append(xp.full(tuple(shp), fill, dtype=x.dtype))
            parts.append(x)
            if hi:
                shp[ax] = hi
                parts.append(xp.full(tuple(shp), fill, dtype=x.dtype))
            x = xp.concat(parts, axis=ax)
    return x


def _geom_pad_xp(x: Any, g: _Geom, fill: Any = 0.0) -> Any:
    nd = x.ndim - 2
    return _pad_xp(x, [(0, 0), (0, 0)] + [(g.pad[2 * i], g.pad[2 * i + 1]) for i in range(nd)], fill)


def _cols_xp(x: Any, ks: tuple, g: _Geom, out: tuple) -> Any:
    """im2col ``(N, G, C/G * prod(ks), prod(out))`` (channel-major, then tap: ``w``'s order)."""
    xp = B.namespace(x)
    n, c = x.shape[:2]
    xpd = _geom_pad_xp(x, g)
    p = int(np.prod(out))
    taps = [xp.reshape(xpd[_slices(tap, g, out)], (n, c, p)) for tap in np.ndindex(*ks)]
    cols = xp.stack(taps, axis=2)  # (N, C, K, P)
    return xp.reshape(cols, (n, g.groups, (c // g.groups) * len(taps), p))


def _conv_xp(x: Any, w: Any, g: _Geom) -> Any:
    """:func:`_conv_np` with the standard's functions: one batched matmul on the im2col."""
    xp = B.namespace(x, w)
    n = x.shape[0]
    o, cg = w.shape[:2]
    ks = tuple(w.shape[2:])
    out_sz = g.out_size(tuple(x.shape[2:]), ks)
    G = g.groups
    cols = _cols_xp(x, ks, g, out_sz)
    out = xp.matmul(xp.reshape(w, (G, o // G, cg * int(np.prod(ks)))), cols)  # (N, G, O/G, P)
    return xp.reshape(out, (n, o) + tuple(out_sz))


def _conv_w_xp(x: Any, y: Any, g: _Geom, k_sz: tuple) -> Any:
    """:func:`_conv_w_np`: per group ``y (O/G, P) @ cols^T (P, ck)``, summed over the images."""
    xp = B.namespace(x, y)
    n, o = y.shape[:2]
    ks = tuple(k_sz)
    G = g.groups
    cg = x.shape[1] // G
    p = int(np.prod(y.shape[2:]))
    cols = _cols_xp(x, ks, g, tuple(y.shape[2:]))  # (N, G, ck, P)
    per = xp.matmul(xp.reshape(y, (n, G, o // G, p)), xp.matrix_transpose(cols))  # (N, G, O/G, ck)
    return xp.reshape(xp.sum(per, axis=0), (o, cg) + ks)


def _dilate_place(a: Any, axis: int, step: int, front: int, size: int) -> Any:
    """``a`` spread along ``axis`` with ``step - 1`` zeros between its entries, after ``front``
    zeros, in a dim of ``size`` (the strided placement ``out[front::step] = a`` as concats)."""
    xp = B.namespace(a)
    o = a.shape[axis]
    if step > 1 and o > 1:
        shp = list(a.shape)
        z = xp.zeros(tuple(shp[:axis + 1]) + (step - 1,) + tuple(shp[axis + 1:]), dtype=a.dtype)
        a2 = xp.concat([xp.expand_dims(a, axis=axis + 1), z], axis=axis + 1)  # (.., o, step, ..)
        a = xp.reshape(a2, tuple(shp[:axis]) + (o * step,) + tuple(shp[axis + 1:]))
        a = a[(slice(None),) * axis + (slice(0, (o - 1) * step + 1), Ellipsis)]
    span = a.shape[axis]
    widths = [(0, 0)] * a.ndim
    widths[axis] = (front, size - front - span)
    return _pad_xp(a, widths)


def _conv_t_xp(y: Any, w: Any, g: _Geom, in_sz: tuple) -> Any:
    """:func:`_conv_t_np` with the standard's functions: the column matrix by one batched
    matmul, then col2im as a sum over kernel taps of each tap's columns placed (zeros between,
    :func:`_dilate_place`) in the padded input, which is then cropped."""
    xp = B.namespace(y, w)
    n, o = y.shape[:2]
    out_sz = tuple(y.shape[2:])
    cg = w.shape[1]
    ks = tuple(w.shape[2:])
    G = g.groups
    p = int(np.prod(out_sz))
    ck = cg * int(np.prod(ks))
    w3 = xp.reshape(w, (G, o // G, ck))
    cols = xp.matmul(xp.matrix_transpose(w3), xp.reshape(y, (n, G, o // G, p)))  # (N, G, ck, P)
    cols = xp.reshape(cols, (n, G * cg, int(np.prod(ks))) + out_sz)
    pd = g.pad
    padded = tuple(s + pd[2 * i] + pd[2 * i + 1] for i, s in enumerate(in_sz))
    acc = xp.zeros((n, G * cg) + padded, dtype=cols.dtype)
    for t, tap in enumerate(np.ndindex(*ks)):
        part = cols[:, :, t, ...]
        for i, (ti, st, d) in enumerate(zip(tap, g.stride, g.dil)):
            part = _dilate_place(part, 2 + i, st, ti * d, padded[i])
        acc = acc + part
    crop = (slice(None), slice(None)) + tuple(slice(pd[2 * i], pd[2 * i] + s) for i, s in enumerate(in_sz))
    return acc[crop]


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


def _conv_sized(x: Tensor, w: Tensor, geom: _Geom, size: tuple) -> Tensor:
    """``conv(x, w)`` cut to the spatial ``size``: the adjoint of a transposed convolution
    whose ``output_padding`` reached past a stride (allowed when below the dilation) makes
    ``x`` larger than the convolution of its input size needs; the extra outputs are cut."""
    out = Conv2dFn.apply(x, w, geom)
    if tuple(out.shape[2:]) != tuple(size):
        out = out[(slice(None), slice(None)) + tuple(slice(0, n) for n in size)]
    return out


class Conv2dFn(Op):
    """``out[n, o] = sum_{c, i, j} x_pad[n, c, s*h + d*i, s*w + d*j] * w[o, c, i, j]`` per group;
    ``x (N, C, H, W)``, ``w (O, C/groups, kh, kw)`` -> ``(N, O, Ho, Wo)`` (and the same in 1-d
    and 3-d: ``x (N, C, *S)``, ``w (O, C/groups, *K)`` -> ``(N, O, *S_out)``).

    ``grad_x = conv_t(grad, w)``, ``grad_w = conv_w(x, grad)`` (see the module docstring)."""

    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, w: Tensor, geom: _Geom) -> Tensor:
        ctx.geom = geom
        ctx.save_for_backward(x, w)
        xd, wd = x._data, w._data
        if type(xd) is not np.ndarray and B.is_dask(xd) or type(wd) is not np.ndarray and B.is_dask(wd):
            # Dask: the whole NumPy kernel as one lazy task (_backend.lazy_kernel), no im2col reuse
            shape = (xd.shape[0], wd.shape[0]) + tuple(geom.out_size(xd.shape[2:], wd.shape[2:]))
            ctx.cols = None
            return wrap(B.lazy_kernel(_conv_np, shape, np.result_type(xd.dtype, wd.dtype), xd, wd, geom))
        if not B.native(xd):  # an Array API array: the standard-only kernel
            ctx.cols = None
            return wrap(_conv_xp(xd, wd, geom))
        out, cols = _conv_np_cols(xd, wd, geom)
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
        yd, wd = y._data, w._data
        if type(yd) is not np.ndarray and B.is_dask(yd) or type(wd) is not np.ndarray and B.is_dask(wd):
            shape = (yd.shape[0], wd.shape[1] * geom.groups) + tuple(in_hw)
            return wrap(B.lazy_kernel(_conv_t_np, shape, np.result_type(yd.dtype, wd.dtype), yd, wd, geom,
                                      tuple(in_hw)))
        if not B.native(yd):  # an Array API array: the standard-only kernel
            return wrap(_conv_t_xp(yd, wd, geom, tuple(in_hw)))
        return wrap(_conv_t_np(yd, wd, geom, tuple(in_hw)))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        y, w = ctx.saved_tensors
        n = ctx.needs_input_grad
        gy = _conv_sized(g, w, ctx.geom, y.shape[2:]) if n[0] else None
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
        xd, yd = x._data, y._data
        if type(xd) is not np.ndarray and B.is_dask(xd) or type(yd) is not np.ndarray and B.is_dask(yd):
            shape = (yd.shape[1], xd.shape[1] // geom.groups) + tuple(k_hw)
            return wrap(B.lazy_kernel(_conv_w_np, shape, np.result_type(xd.dtype, yd.dtype), xd, yd, geom,
                                      tuple(k_hw)))
        if not B.native(xd):  # an Array API array: the standard-only kernel
            return wrap(_conv_w_xp(xd, yd, geom, tuple(k_hw)))
        return wrap(_conv_w_np(xd, yd, geom, tuple(k_hw), cols))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, y = ctx.saved_tensors
        n = ctx.needs_input_grad
        gx = Conv2dInputGrad.apply(y, g, ctx.geom, x.shape[2:]) if n[0] else None
        gy = _conv_sized(x, g, ctx.geom, y.shape[2:]) if n[1] else None
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
    """``(indices, maxima)``: flat index into the spatial dims (``H * W``, or ``D * H * W``)
    and value of the maximum of each pooling window of ``x (N, C, *S)`` (padding counts as
    ``-inf``; the first maximum in row-major window order wins; NaN counts as the maximum, as
    PyTorch). One pass per kernel tap, no window copies. ``pad`` is flat ``(lo, hi, ...)``."""
    if not B.native(x):
        return _max_pool_indices_xp(x, k, stride, pad, dil)
    g = _Geom(stride, pad, dil, 1)
    size = x.shape[2:]
    out = g.out_size(size, k)
    fill = -np.inf if B.kind(x) == "f" else np.iinfo(x.dtype).min
    xp = _padded(x, g, fill)
    nan = B.kind(x) == "f" and bool(np.isnan(x).any())
    taps = list(np.ndindex(*k))
    best = xp[_slices(taps[0], g, out)].copy()
    tap = np.zeros(best.shape, np.int16)  # which kernel tap holds the maximum so far
    upd = np.empty(best.shape, bool)
    upd_t = np.empty(best.shape, np.int16)
    for t in range(1, len(taps)):
        v = xp[_slices(taps[t], g, out)]
        np.greater(v, best, out=upd)
        if nan:
            upd |= np.isnan(v) & ~np.isnan(best)
        np.maximum(best, v, out=best)  # NaN propagates, as PyTorch's max pooling
        # tap = t where updated: taps only grow, so a branch-free maximum does it (putmask
        # and where= on a random mask cost ~4 ns an element in mispredicted branches)
        np.maximum(tap, np.multiply(upd, t, out=upd_t, dtype=np.int16), out=tap)
    strides = [int(np.prod(size[i + 1:])) for i in range(len(size))]  # flat stride of each dim
    offsets = np.array([sum(ti * d * st for ti, d, st in zip(tp, dil, strides)) for tp in taps], np.int64)
    base = np.zeros(out, np.int64)
    for i, (o, s, st) in enumerate(zip(out, stride, strides)):
        shape = [1] * len(out)
        shape[i] = o
        base = base + ((np.arange(o) * s - pad[2 * i]) * st).reshape(shape)
    idx = np.take(offsets, tap)
    idx += base
    if any(pad) and bool((x == fill).any()):
        idx = _first_inside(idx, tap, taps, size, out, stride, pad, dil, strides)
    return idx, best


def _max_pool_indices_xp(x: Any, k: tuple, stride: tuple, pad: tuple, dil: tuple) -> tuple:
    """:func:`max_pool_indices` with the Array API standard's functions (the same taps, ties
    and NaN rule; the indices an int64 array of ``x``'s library)."""
    xp = B.namespace(x)
    g = _Geom(stride, pad, dil, 1)
    size = tuple(x.shape[2:])
    out = g.out_size(size, k)
    fill = -math.inf if B.kind(x) == "f" else int(np.iinfo(B.np_dtype_of(x)).min)
    xpd = _geom_pad_xp(x, g, fill)
    nan = B.kind(x) == "f" and B.any_true(xp.isnan(x))
    taps = list(np.ndindex(*k))
    best = xpd[_slices(taps[0], g, out)]
    tap = xp.zeros(best.shape, dtype=xp.int64)
    for t in range(1, len(taps)):
        v = xpd[_slices(taps[t], g, out)]
        upd = v > best
        if nan:
            upd = upd | (xp.isnan(v) & ~xp.isnan(best))
        best = xp.maximum(best, v)
        tap = xp.where(upd, t, tap)
    strides = [int(np.prod(size[i + 1:])) for i in range(len(size))]
    offsets = np.array([sum(ti * d * st for ti, d, st in zip(tp, dil, strides)) for tp in taps], np.int64)
    base = np.zeros(out, np.int64)
    for i, (o, s, st) in enumerate(zip(out, stride, strides)):
        shape = [1] * len(out)
        shape[i] = o
        base = base + ((np.arange(o) * s - pad[2 * i]) * st).reshape(shape)

    def at(table: np.ndarray) -> Any:  # table[tap], on the device
        return xp.reshape(xp.take(xp.asarray(table), xp.reshape(tap, (-1,)), axis=0), tuple(tap.shape))

    idx = at(offsets) + xp.asarray(base)
    if any(pad) and B.any_true(x == fill):
        coords = np.array(taps, np.int64).T
        outside = xp.zeros(tuple(tap.shape), dtype=xp.bool)
        first = np.zeros(out, np.int64)
        for i, (o, s, d, n, st) in enumerate(zip(out, stride, dil, size, strides)):
            shape = [1] * len(out)
            shape[i] = o
            start = np.arange(o) * s - pad[2 * i]
            pos = xp.asarray(start.reshape(shape)) + at(coords[i]) * d
            outside = outside | (pos < 0) | (pos >= n)
            first = first + ((start + np.maximum(0, -(start // d)) * d) * st).reshape(shape)
        idx = xp.where(outside, xp.asarray(first), idx)
    return idx, best


def _first_inside(idx: np.ndarray, tap: np.ndarray, taps: list, size: tuple, out: tuple, stride: tuple, pad: tuple,
                  dil: tuple, strides: list) -> np.ndarray:
    """A window whose maximum equals the padding's fill (``-inf``, or the integer minimum)
    may have picked a padded position; PyTorch's index is then the window's first position
    inside the input (its row-major first valid tap), which this puts there."""
    coords = np.array(taps, np.int64).T  # (ndim, n_taps): each tap's offset per dim
    outside = np.zeros(tap.shape, bool)
    first = np.zeros(out, np.int64)
    for i, (o, s, d, n, st) in enumerate(zip(out, stride, dil, size, strides)):
        shape = [1] * len(out)
        shape[i] = o
        start = np.arange(o) * s - pad[2 * i]  # the window's first position in dim i
        pos = start.reshape(shape) + np.take(coords[i], tap) * d
        outside |= (pos < 0) | (pos >= n)
        first = first + ((start + np.maximum(0, -(start // d)) * d) * st).reshape(shape)  # first tap at >= 0
    return np.where(outside, first, idx)


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
        if not B.native(x._data):  # an Array API array (idx NumPy, or of its library)
            xp = B.namespace(x._data)
            flat = xp.reshape(x._data, (n, c, -1))
            ix = xp.reshape(xp.asarray(idx) if isinstance(idx, np.ndarray) else idx, (n, c, -1))
            return wrap(xp.reshape(xp.take_along_axis(flat, ix, axis=2), tuple(idx.shape)))
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


class TakeFlat3d(TakeFlat):
    """:class:`TakeFlat` under 3-d max pooling's node name (same rules)."""

    _node_name = "MaxPool3DWithIndicesBackward0"


def max_pool(x: Tensor, k: tuple, stride: tuple, pad: tuple, dil: tuple, unique: bool, indices: bool = False) -> tuple:
    """``(maxima, flat indices or None)`` of the pooling windows of ``x (N, C, *S)`` (2-d or
    3-d), arguments already normalised (see nn.functional.max_pool2d); works under vmap."""
    spec = PoolSpec(tuple(k), tuple(stride), tuple(pad), tuple(dil))
    out = (TakeFlat3d if len(k) == 3 else TakeFlat).apply(x, spec, None, unique)
    return out, (MaxPoolIndices.apply(x.detach(), spec) if indices else None)


class PutFlat(Linear):
    """Adjoint of :class:`TakeFlat`: zeros of ``shape`` with ``g`` added at ``idx``.
    ``grad_g = take_flat(grad, idx)``."""

    _node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx: Any, g: Tensor, idx: np.ndarray, shape: tuple, unique: bool = False) -> Tensor:
        ctx.idx = idx
        n, c = idx.shape[:2]
        hw = int(np.prod(shape[2:]))
        if not B.native(g._data):  # an Array API array: an exact scatter with the standard's functions
            from .indexing import scatter_device

            xp = B.namespace(g._data)
            ix = xp.asarray(idx) if isinstance(idx, np.ndarray) else idx
            pos = xp.reshape(xp.reshape(ix, (n * c, -1)) + xp.reshape(B.arange(n * c, like=g._data) * hw, (-1, 1)), (-1,))
            vals = xp.reshape(g._data, (-1,))  # (summed in float64, as np.bincount's weights)
            out = scatter_device(vals if unique else xp.astype(vals, xp.float64), pos, n * c * hw, accumulate=not unique)
            return wrap(xp.reshape(B.astype(out, B.np_dtype_of(g._data), copy=False), tuple(shape)))
        if unique:  # no index repeats within a (n, c) slice: a plain scatter, no accumulation
            out = ws.zeros((n * c * hw,), g._data.dtype)  # pooled: a fresh np.zeros faults every page in
            # one flat fancy assignment (put_along_axis builds broadcast index grids: 1.4x slower)
            out[(idx.reshape(n * c, -1) + (np.arange(n * c) * hw)[:, None]).ravel()] = g._data.ravel()
            return wrap(out.reshape(shape))
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
        if B.native(d):
            out = np.pad(d, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], constant_values=value)
        else:  # an Array API array: concats
            out = _pad_xp(d, [(max(lo, 0), max(hi, 0)) for lo, hi in widths], value)
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
