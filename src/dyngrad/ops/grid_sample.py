"""``grid_sample``'s kernel: sampling ``input (N, C, *S)`` at the points of ``grid (N, *O,
nd)`` (``nd`` = 2 or 3 spatial dims; ``grid[..., 0]`` indexes the last dim, W, as PyTorch).

Each output is a weighted sum of input taps, separable per spatial dim::

    out[n, c, q] = sum_taps  prod_k w_k(t_k[n, q])  *  x[n, c, idx_taps[n, q]]

with ``c_k`` the source coordinate of dim ``k`` in pixels (``grid`` unnormalised, then
clipped or reflected by ``padding_mode``), ``t_k = c_k - floor(c_k)`` and, per mode,

* nearest:  one tap ``rint(c_k)`` (ties to even, as PyTorch), ``w = 1``;
* bilinear: taps ``floor(c_k) + {0, 1}``, ``w = (1 - t, t)``;
* bicubic:  taps ``floor(c_k) + {-1, 0, 1, 2}``, Keys' cubic convolution with ``A = -0.75``
  (PyTorch's ``get_cubic_upsample_coefficients``); ``padding_mode`` is applied to each tap's
  integer index rather than to the coordinate (as PyTorch's ``get_value_bounded``).

Taps outside the input contribute zero. Derivatives (PyTorch's ``grid_sampler_2d_backward``):

* ``grad_input = sum_taps scatter_add(idx_taps, grad * prod_k w_k)`` (linear in ``grad``);
* ``grad_grid[..., k] = sum_taps sum_c grad * x[idx_taps] * w_k'(t_k) prod_{j != k} w_j * dc_k/dgrid_k``
  with ``dc_k/dgrid_k`` the unnormalisation scale (``(size - 1) / 2`` with align_corners,
  else ``size / 2``) times the clip/reflection slope (0 where clipped, +-1 when reflected).

The first-order backward is fused NumPy (one gather per tap for the grid gradient, one
``bincount`` scatter for the input gradient). Under ``create_graph=True`` the same formulas
are built from differentiable ops (gathers and scatters with constant indices, the weights
as polynomials of a Tensor ``t``), so double backward works as in PyTorch 2.13; the same
path runs under a transform (vmap of the backward, ``is_grads_batched``), whose rules the
ops have.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd._context import context
from ..tensor import Tensor
from ._bases import Op
from ._batching import front
from ._util import wrap
from .conv import PutFlat, TakeFlat
from .splitting import stack

__all__: list[str] = []
TENSOR_METHODS: set[str] = set()

_A = -0.75  # PyTorch's bicubic coefficient


def _reflect(c: np.ndarray, twice_low: int, twice_high: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's ``reflect_coordinates``: ``c`` reflected into ``[low, high]`` and the slope
    ``dc'/dc`` (+-1)."""
    if twice_low == twice_high:
        return np.zeros_like(c), np.zeros_like(c)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = c - lo
    sign = np.where(d < 0, -1.0, 1.0)
    a = np.abs(d)
    extra = np.fmod(a, span)
    flips = np.floor(a / span)
    even = (flips % 2) == 0
    out = np.where(even, extra + lo, span - extra + lo)
    return out.astype(c.dtype, copy=False), (sign * np.where(even, 1.0, -1.0)).astype(c.dtype, copy=False)


def _clip(c: np.ndarray, size: int) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's ``clip_coordinates`` into ``[0, size - 1]`` and its slope: 0 outside and,
    as PyTorch's ``clip_coordinates_set_grad``, on the borders themselves (so the identity
    grid with align_corners=True has a zero grid gradient at the corner pixels, as there)."""
    inside = (c > 0) & (c < size - 1)
    # NaN (also from reflecting an infinite coordinate) clips to 0, as PyTorch's max(NaN, 0)
    return np.where(np.isnan(c), 0, np.clip(c, 0, size - 1)).astype(c.dtype, copy=False), inside.astype(c.dtype)


def _pad_coord(c: np.ndarray, size: int, padding: str, align: bool) -> tuple[np.ndarray, np.ndarray]:
    """PyTorch's ``compute_coordinates``: the padding transform and its slope."""
    if padding == "border":
        return _clip(c, size)
    if padding == "reflection":
        r, s1 = _reflect(c, 0, 2 * (size - 1)) if align else _reflect(c, -1, 2 * size - 1)
        r, s2 = _clip(r, size)
        return r, s1 * s2
    return c, np.ones_like(c)


# ---- the same coordinate transforms with the Array API standard's functions (a grid of an
# Array API library: the plan stays on its device)
def _reflect_xp(xp: Any, c: Any, twice_low: int, twice_high: int) -> tuple:
    if twice_low == twice_high:
        return xp.zeros_like(c), xp.zeros_like(c)
    lo = twice_low / 2
    span = (twice_high - twice_low) / 2
    d = c - lo
    one = xp.ones_like(c)
    sign = xp.where(d < 0, -one, one)
    a = xp.abs(d)
    extra = xp.remainder(a, span)  # = fmod for a >= 0
    flips = xp.floor(a / span)
    even = xp.remainder(flips, 2.0) == 0
    out = xp.where(even, extra + lo, span - extra + lo)
    return xp.astype(out, c.dtype), xp.astype(sign * xp.where(even, one, -one), c.dtype)


def _clip_xp(xp: Any, c: Any, size: int) -> tuple:
    inside = (c > 0) & (c < size - 1)
    return xp.astype(xp.where(xp.isnan(c), 0.0, xp.clip(c, 0.0, float(size - 1))), c.dtype), xp.astype(inside, c.dtype)


def _pad_coord_xp(xp: Any, c: Any, size: int, padding: str, align: bool) -> tuple:
    if padding == "border":
        return _clip_xp(xp, c, size)
    if padding == "reflection":
        r, s1 = _reflect_xp(xp, c, 0, 2 * (size - 1)) if align else _reflect_xp(xp, c, -1, 2 * size - 1)
        r, s2 = _clip_xp(xp, r, size)
        return r, s1 * s2
    return c, xp.ones_like(c)


def _plan_xp(plan: Any, grid: Any, size: tuple, mode: str, padding: str, align: bool) -> None:
    """:class:`_Plan`'s fields for a grid of an Array API library (the same steps)."""
    xp = B.namespace(grid)
    nd = len(size)
    n = grid.shape[0]
    g = xp.reshape(grid, (n, -1, nd))
    for k in range(nd):
        s = size[k]
        gk = g[..., nd - 1 - k]
        scale = (s - 1) / 2 if align else s / 2
        c = ((gk + 1) / 2) * (s - 1) if align else ((gk + 1) * s - 1) / 2
        if mode == "bicubic":
            slope = xp.full_like(c, scale)
        else:
            c, sl = _pad_coord_xp(xp, c, s, padding, align)
            slope = sl * scale
        if mode == "nearest":
            base = xp.round(c)  # ties to even, as np.rint
            offs: tuple = (0,)
        else:
            base = xp.floor(c)
            offs = (0, 1) if mode == "bilinear" else (-1, 0, 1, 2)
        idx, valid = [], []
        for o in offs:
            i = base + o
            if mode == "bicubic" and padding != "zeros":
                i = _pad_coord_xp(xp, i, s, padding, align)[0]
            ok = (i >= 0) & (i <= s - 1)
            idx.append(xp.astype(xp.where(ok, i, 0.0), xp.int64))
            valid.append(ok)
        plan.c.append(c)
        plan.slope.append(slope)
        plan.frac.append(c - base)
        plan.idx.append(idx)
        plan.valid.append(valid)
    strides = [int(np.prod(size[k + 1:])) for k in range(nd)]
    for taps in itertools.product(*[range(len(plan.idx[k])) for k in range(nd)]):
        flat = sum(plan.idx[k][t] * strides[k] for k, t in enumerate(taps))
        ok = plan.valid[0][taps[0]]
        for k in range(1, nd):
            ok = ok & plan.valid[k][taps[k]]
        plan.combos.append((flat, ok, taps))


def _gather_cl(xt: Any, flat: Any) -> Any:
    """``xt[rows, flat]`` for ``xt (N, P, C)`` and ``flat (N, Q)`` (Array API arrays)."""
    xp = B.namespace(xt)
    n, q = flat.shape
    ix = xp.broadcast_to(xp.reshape(flat, (n, q, 1)), (n, q, xt.shape[2]))
    return xp.take_along_axis(xt, ix, axis=1)


def _sample_xp(x: Any, plan: Any) -> Any:
    """:func:`_sample_np` with the standard's functions."""
    xp = B.namespace(x)
    n, c = x.shape[:2]
    xt = xp.permute_dims(xp.reshape(x, (n, c, -1)), (0, 2, 1))
    w, _ = plan.weights(plan.frac)
    out = xp.zeros((n, plan.combos[0][0].shape[1], c), dtype=x.dtype)
    for flat, ok, taps in plan.combos:
        wt = _prod([w[k][t] for k, t in enumerate(taps)]) * xp.astype(ok, x.dtype)
        with np.errstate(all="ignore"):
            out = out + xp.astype(wt, x.dtype)[..., None] * _gather_cl(xt, flat)
    return xp.reshape(xp.permute_dims(out, (0, 2, 1)), (n, c) + tuple(plan.out))


def _grads_xp(g: Any, x: Any, plan: Any, need_x: bool, need_grid: bool) -> tuple:
    """:func:`_grads_np` with the standard's functions: the input gradient as an exact
    device scatter per tap combination (:func:`ops.indexing.scatter_device`, summed in
    float64 as ``np.bincount``)."""
    from .indexing import scatter_device

    xp = B.namespace(g, x)
    n, c = x.shape[:2]
    p = int(np.prod(x.shape[2:]))
    gq = xp.reshape(g, (n, c, -1))
    w, dw = plan.weights(plan.frac)
    gx = xp.zeros((n * c * p,), dtype=xp.float64) if need_x else None
    base = xp.reshape(xp.arange(n * c, dtype=xp.int64), (n, c, 1)) * p
    gk = [xp.zeros((n, gq.shape[2]), dtype=x.dtype) for _ in range(plan.nd)] if need_grid else None
    if need_grid and plan.mode != "nearest":
        xt, g3 = xp.permute_dims(xp.reshape(x, (n, c, -1)), (0, 2, 1)), xp.permute_dims(gq, (0, 2, 1))
    for flat, ok, taps in plan.combos:
        ws = [w[k][t] for k, t in enumerate(taps)]
        if need_x:
            wt = xp.astype(_prod(ws) * xp.astype(ok, x.dtype), x.dtype)
            pos = xp.reshape(base + flat[:, None, :], (-1,))
            vals = xp.astype(xp.reshape(gq * wt[:, None, :], (-1,)), xp.float64)
            gx = gx + scatter_device(vals, pos, n * c * p)
        if need_grid and plan.mode != "nearest":
            with np.errstate(all="ignore"):
                dot = xp.sum(g3 * _gather_cl(xt, flat), axis=-1) * xp.astype(ok, x.dtype)
                for k in range(plan.nd):
                    gk[k] = gk[k] + dot * _prod([dw[k][taps[k]]] + [ws[j] for j in range(plan.nd) if j != k])
    gin = B.astype(xp.reshape(gx, tuple(x.shape)), B.np_dtype_of(x)) if need_x else None
    ggrid = None
    if need_grid:
        ggrid = xp.stack([gk[k] * plan.slope[k] for k in reversed(range(plan.nd))], axis=-1)
        ggrid = B.astype(xp.reshape(ggrid, (n,) + tuple(plan.out) + (plan.nd,)), B.np_dtype_of(x))
    return gin, ggrid


def _cubic(t: Any) -> tuple:
    """Keys' cubic weights of taps ``-1, 0, 1, 2`` at offset ``t`` and their ``d/dt``
    (``t`` an ndarray or a Tensor: only ``+``, ``-``, ``*``)."""
    a = _A
    x0, x1, x2, x3 = t + 1, t, 1 - t, 2 - t  # distances of the four taps
    far = lambda x: ((a * x - 5 * a) * x + 8 * a) * x - 4 * a  # noqa: E731  (1 < x < 2)
    near = lambda x: ((a + 2) * x - (a + 3)) * x * x + 1  # noqa: E731  (x <= 1)
    dfar = lambda x: (3 * a * x - 10 * a) * x + 8 * a  # noqa: E731
    dnear = lambda x: (3 * (a + 2) * x - 2 * (a + 3)) * x  # noqa: E731
    w = (far(x0), near(x1), near(x2), far(x3))
    dw = (dfar(x0), dnear(x1), -dnear(x2), -dfar(x3))  # d/dt (x2, x3 decrease with t)
    return w, dw


class _Plan:
    """The taps of one sampling, from ``grid`` alone (NumPy): per spatial dim ``k`` (in input
    order D, H, W), ``c[k]`` the coordinate in pixels, ``slope[k]`` = ``dc_k / dgrid``, ``base``
    (floor, or the nearest index) and the per-tap integer index and validity."""

    def __init__(self, grid: np.ndarray, size: tuple, mode: str, padding: str, align: bool) -> None:
        nd = len(size)
        self.size, self.mode, self.nd = size, mode, nd
        n = grid.shape[0]
        self.out = grid.shape[1:-1]
        self.c, self.slope, self.frac, self.idx, self.valid = [], [], [], [], []
        self.combos = []  # (flat index (N, Q), validity (N, Q), tap number per dim)
        if not B.native(grid):  # an Array API grid: the plan in its library
            _plan_xp(self, grid, size, mode, padding, align)
            return
        g = grid.reshape(n, -1, nd)
        for k in range(nd):
            s = size[k]
            gk = g[..., nd - 1 - k]
            scale = (s - 1) / 2 if align else s / 2
            c = ((gk + 1) / 2) * (s - 1) if align else ((gk + 1) * s - 1) / 2
            if mode == "bicubic":
                slope = np.full_like(c, scale)
            else:
                c, sl = _pad_coord(c, s, padding, align)
                slope = sl * scale
            if mode == "nearest":
                base = np.rint(c)
                offs = (0,)
            else:
                base = np.floor(c)
                offs = (0, 1) if mode == "bilinear" else (-1, 0, 1, 2)
            idx, valid = [], []
            for o in offs:
                i = base + o
                if mode == "bicubic" and padding != "zeros":
                    i = _pad_coord(i, s, padding, align)[0]
                ok = (i >= 0) & (i <= s - 1)
                idx.append(np.where(ok, i, 0).astype(np.int64))
                valid.append(ok)
            self.c.append(c)
            self.slope.append(slope)
            self.frac.append(c - base)
            self.idx.append(idx)
            self.valid.append(valid)
        strides = [int(np.prod(size[k + 1:])) for k in range(nd)]
        for taps in itertools.product(*[range(len(self.idx[k])) for k in range(nd)]):
            flat = sum(self.idx[k][t] * strides[k] for k, t in enumerate(taps))
            ok = np.logical_and.reduce([self.valid[k][t] for k, t in enumerate(taps)])
            self.combos.append((flat, ok, taps))

    def weights(self, t: list) -> tuple[list, list]:
        """Per dim, the tap weights and their ``d/dt`` at offsets ``t[k]`` (ndarrays or
        Tensors)."""
        w, dw = [], []
        for k in range(self.nd):
            if self.mode == "nearest":
                w.append((1.0,))
                dw.append((0.0,))
            elif self.mode == "bilinear":
                w.append((1 - t[k], t[k]))
                dw.append((-1.0, 1.0))
            else:
                a, b = _cubic(t[k])
                w.append(a)
                dw.append(b)
        return w, dw


def _prod(xs: list) -> Any:
    out = xs[0]
    for x in xs[1:]:
        out = out * x
    return out


def _channels_last(x: np.ndarray) -> np.ndarray:
    """``(N, C, *S)`` -> contiguous ``(N, prod(S), C)``: one gather then reads C contiguous
    values (a gather through the transposed view is ~8x slower, measured)."""
    n, c = x.shape[:2]
    return np.ascontiguousarray(x.reshape(n, c, -1).transpose(0, 2, 1))


def _sample_np(x: np.ndarray, plan: _Plan) -> np.ndarray:
    n, c = x.shape[:2]
    xt = _channels_last(x)
    rows = np.arange(n)[:, None]
    w, _ = plan.weights(plan.frac)
    out = np.zeros((n, plan.combos[0][0].shape[1], c), dtype=x.dtype)
    for flat, ok, taps in plan.combos:
        wt = _prod([w[k][t] for k, t in enumerate(taps)]) * ok
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            out += wt.astype(x.dtype, copy=False)[..., None] * xt[rows, flat]
    return np.ascontiguousarray(out.transpose(0, 2, 1)).reshape((n, c) + tuple(plan.out))


def _grads_np(g: np.ndarray, x: np.ndarray, plan: _Plan, need_x: bool, need_grid: bool) -> tuple:
    """Fused first-order backward: ``(grad_input, grad_grid)`` (None where not needed).
    The input gradient is one ``bincount`` per tap combination in the ``(N, C, Q)`` layout
    (index ``(n C + c) P + p``): 3.5x faster than in the channels-last layout, and faster
    than one bincount over all combinations (measured)."""
    n, c = x.shape[:2]
    p = int(np.prod(x.shape[2:]))
    gq = np.ascontiguousarray(g.reshape(n, c, -1))  # (N, C, Q)
    rows = np.arange(n)[:, None]
    w, dw = plan.weights(plan.frac)
    gx = np.zeros(n * c * p, dtype=np.float64) if need_x else None
    base = np.arange(n * c).reshape(n, c, 1) * p
    gk = [np.zeros(gq.shape[::2], dtype=x.dtype) for _ in range(plan.nd)] if need_grid else None
    if need_grid and plan.mode != "nearest":
        xt, g3 = _channels_last(x), np.ascontiguousarray(gq.transpose(0, 2, 1))  # (N, P, C), (N, Q, C)
    for flat, ok, taps in plan.combos:
        ws = [w[k][t] for k, t in enumerate(taps)]
        if need_x:
            wt = (_prod(ws) * ok).astype(x.dtype, copy=False)
            gx += np.bincount((base + flat[:, None, :]).ravel(), weights=(gq * wt[:, None, :]).ravel(),
                              minlength=n * c * p)
        if need_grid and plan.mode != "nearest":
            with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
                dot = np.einsum("nqc,nqc->nq", g3, xt[rows, flat]) * ok
                for k in range(plan.nd):
                    gk[k] += dot * _prod([dw[k][taps[k]]] + [ws[j] for j in range(plan.nd) if j != k])
    gin = None
    if need_x:
        gin = gx.reshape(x.shape).astype(x.dtype, copy=False)
    ggrid = None
    if need_grid:
        ggrid = np.stack([gk[k] * plan.slope[k] for k in reversed(range(plan.nd))], axis=-1)
        ggrid = ggrid.reshape((n,) + tuple(plan.out) + (plan.nd,)).astype(x.dtype, copy=False)
    return gin, ggrid


def _tap_index(flat: Any, n: int, c: int) -> Any:
    """A tap's flat indices ``(N, Q)`` for every channel, ``(N, C, Q)``, in their library."""
    if B.native(flat):
        return np.ascontiguousarray(np.broadcast_to(flat[:, None, :], (n, c, flat.shape[1])))
    return B.namespace(flat).broadcast_to(flat[:, None, :], (n, c, flat.shape[1]))


def _offsets(grid: Tensor, plan: _Plan) -> list:
    """``t_k`` as Tensors of ``grid``: ``grid`` times the (piecewise constant) slope plus a
    constant, so its derivatives are exact."""
    nd = plan.nd
    g = grid.reshape((grid.shape[0], -1, nd))
    ts = []
    for k in range(nd):
        gk = g[..., nd - 1 - k]
        sl = Tensor._make(B.astype(plan.slope[k], B.np_dtype_of(grid._data), copy=False))
        const = plan.frac[k] - gk._data * plan.slope[k]
        ts.append(gk * sl + Tensor._make(B.astype(const, B.np_dtype_of(grid._data), copy=False)))
    return ts


def _grads_graph(g: Tensor, x: Tensor, grid: Tensor, plan: _Plan, need_x: bool, need_grid: bool) -> tuple:
    """The backward formulas of the module docstring built from differentiable ops (for
    ``create_graph=True``)."""
    n, c = x.shape[:2]
    g3 = g.reshape((n, c, -1))
    t = _offsets(grid, plan)
    w, dw = plan.weights(t)
    gin = None
    gk: list = [None] * plan.nd
    for flat, ok, taps in plan.combos:
        idx = _tap_index(flat, n, c)
        mask = Tensor._make(B.astype(ok, B.np_dtype_of(x._data)))
        ws = [w[k][tp] for k, tp in enumerate(taps)]
        if need_x:
            wt = _prod(ws + [mask]) if plan.mode != "nearest" else mask
            term = PutFlat.apply(g3 * wt.unsqueeze(1), idx, tuple(x.shape))
            gin = term if gin is None else gin + term
        if need_grid and plan.mode != "nearest":
            dot = (g3 * TakeFlat.apply(x, idx)).sum(1) * mask
            for k in range(plan.nd):
                term = dot * _prod([dw[k][taps[k]]] + [ws[j] for j in range(plan.nd) if j != k])
                gk[k] = term if gk[k] is None else gk[k] + term
    ggrid = None
    if need_grid:
        if plan.mode == "nearest":
            ggrid = grid * 0
        else:
            cols = [gk[k] * Tensor._make(B.astype(plan.slope[k], B.np_dtype_of(x._data), copy=False)) for k in range(plan.nd)]
            ggrid = stack(cols[::-1], -1).reshape(tuple(grid.shape))
    return gin, ggrid


class GridSampler2d(Op):
    """``grid_sample`` (see the module docstring): ``input (N, C, H_in, W_in)``, ``grid (N,
    H_out, W_out, 2)`` -> ``(N, C, H_out, W_out)``; 3-d inputs use :class:`GridSampler3d`.

    ``grad_input`` = scatter-add of ``grad`` times the tap weights; ``grad_grid`` = the tap
    values times the weights' derivatives (module docstring)."""

    _node_name = "GridSampler2DBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, grid: Tensor, mode: str, padding: str, align: bool) -> Tensor:
        with np.errstate(invalid="ignore"):  # non-finite grid points are sampled as PyTorch, silently
            plan = _Plan(grid._data, tuple(x.shape[2:]), mode, padding, align)
        ctx.plan = plan
        ctx.save_for_backward(x, grid)
        if not B.native(x._data):
            return wrap(_sample_xp(x._data, plan))
        return wrap(_sample_np(x._data, plan))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, grid = ctx.saved_tensors
        nx, ng = ctx.needs_input_grad[:2]
        if context.enabled or context.interpreters:  # create_graph=True or a transform: in ops
            gx, gg = _grads_graph(g, x, grid, ctx.plan, nx, ng)
        else:
            a, b = (_grads_np if B.native(x._data) else _grads_xp)(g._data, x._data, ctx.plan, nx, ng)
            gx, gg = (None if a is None else wrap(a)), (None if b is None else wrap(b))
        return gx, gg, None, None, None

    # hand-written: nonlinear in grid, linear in input
    @staticmethod
    def jvp(ctx: Any, ux: Any, ug: Any, *_: Any) -> Any:
        """Forward mode: ``t = grid_sample(ux, grid) + sum_k d out / d grid_k * ug_k``."""
        x, grid = ctx._fwd_inputs[:2]
        plan = ctx.plan
        out = None
        if ux is not None:
            out = grid_sample_raw(ux, grid, *ctx._fwd_inputs[2:])
        if ug is not None and plan.mode != "nearest":
            n, c = x.shape[:2]
            t = _offsets(grid, plan)
            w, dw = plan.weights(t)
            u = ug.reshape((n, -1, plan.nd))
            uk = [u[..., plan.nd - 1 - k] * Tensor._make(B.astype(plan.slope[k], B.np_dtype_of(x._data), copy=False))
                  for k in range(plan.nd)]
            for flat, ok, taps in plan.combos:
                ws = [w[k][tp] for k, tp in enumerate(taps)]
                dirn = None
                for k in range(plan.nd):
                    term = uk[k] * _prod([dw[k][taps[k]]] + [ws[j] for j in range(plan.nd) if j != k])
                    dirn = term if dirn is None else dirn + term
                idx = _tap_index(flat, n, c)
                val = TakeFlat.apply(x, idx) * (dirn * Tensor._make(B.astype(ok, B.np_dtype_of(x._data)))).unsqueeze(1)
                val = val.reshape((n, c) + tuple(plan.out))
                out = val if out is None else out + val
        if out is None:
            return None
        return out

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, grid: Tensor, mode: str, padding: str, align: bool) -> tuple:
        """Batching rule: the batch folded into N (an unbatched operand repeated)."""
        b = info.batch_size

        def fold(t: Tensor, d: Any) -> Tensor:
            if d is None:
                t = t.unsqueeze(0).expand((b,) + tuple(t.shape))
            else:
                t = front(t, d)
            return t.reshape((-1,) + tuple(t.shape[2:]))

        out = info.function.apply(fold(x, in_dims[0]), fold(grid, in_dims[1]), mode, padding, align)
        return out.reshape((b, -1) + tuple(out.shape[1:])), 0


class GridSampler3d(GridSampler2d):
    """``grid_sample`` of ``input (N, C, D, H, W)`` at ``grid (N, D_out, H_out, W_out, 3)``
    (bilinear, i.e. trilinear, or nearest); the rules of :class:`GridSampler2d`."""

    _node_name = "GridSampler3DBackward0"


def grid_sample_raw(x: Tensor, grid: Tensor, mode: str, padding: str, align: bool) -> Tensor:
    """The sampling without argument checks (see nn.functional.grid_sample)."""
    fn = GridSampler3d if x.ndim == 5 else GridSampler2d
    return fn.apply(x, grid, mode, padding, align)
