"""Scans beyond cumsum/cumprod: ``logcumsumexp``, ``cummax``, ``cummin``.

Each is one Function along one dim, shapes ``(*) -> (*)``; its batching rule moves the batch
dim to the front (ops/_batching_reduce.py).
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching import front, only_first_batched, shift_dim
from ._batching_reduce import along_dim
from ._util import norm_dim, wrap
from .. import _backend as B

__all__ = ["logcumsumexp", "cummax", "cummin"]
TENSOR_METHODS = {"logcumsumexp", "cummax", "cummin"}

#: ``torch.return_types.cummax`` / ``cummin``
CummaxResult = namedtuple("cummax", ["values", "indices"])
CumminResult = namedtuple("cummin", ["values", "indices"])


class Logcumsumexp(Op):
    """``out_i = log(sum_{j <= i} exp(x_j))`` along ``dim``.

    ``grad_x_j = sum_{i >= j} grad_i * exp(x_j - out_i)``: every exponent is ``<= 0``
    (``out_i >= x_j`` for ``j <= i``), so no term overflows. Written with dyngrad ops over an
    ``(n, n)`` table per slice (masked where ``i < j``), so it is differentiable again.
    Forward mode: ``t_i = sum_{j <= i} u_j * exp(x_j - out_i)`` (the softmax-weighted prefix sum
    of the tangent). Source: differentiating the definition; PyTorch's
    ``logcumsumexp_backward`` computes the same sum.
    """

    vmap = staticmethod(along_dim)

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        d = x._data
        if B.kind(d) not in "fc":
            raise RuntimeError(f"\"logcumsumexp_out_cpu\" not implemented for '{d.dtype.name.capitalize()}'")
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            if type(d) is np.ndarray or B.native(d):
                out = np.logaddexp.accumulate(d, axis=dim) if d.ndim else d.copy()
            else:
                out = _logaddexp_accumulate_xp(d, dim)
        res = wrap(out)
        ctx.dim = dim
        ctx.save_for_backward(x, res)
        return res

    @staticmethod
    def _weights(x: Tensor, out: Tensor, dim: int) -> Tensor:
        """``W[..., j, i] = exp(x_j - out_i)`` for ``i >= j``, else 0 (``dim`` moved last)."""
        from .pointwise import where

        xl, ol = x.movedim(dim, -1), out.movedim(dim, -1)
        n = xl.shape[-1]
        upper = wrap(B.like(np.triu(np.ones((n, n), dtype=bool)), x._data))  # i >= j (a host constant)
        diff = xl.unsqueeze(-1) - ol.unsqueeze(-2)
        return where(upper, diff, float("-inf")).exp()

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        if x._data.ndim == 0:
            return g, None
        w = Logcumsumexp._weights(x, out, ctx.dim)
        gl = g.movedim(ctx.dim, -1).unsqueeze(-2)
        return (w * gl).sum(-1).movedim(-1, ctx.dim), None

    @staticmethod
    def jvp(ctx: Any, u: Tensor, _dim: Any) -> Tensor:
        x, out = ctx.saved_tensors
        if x._data.ndim == 0:
            return u
        w = Logcumsumexp._weights(x, out, ctx.dim)
        ul = u.movedim(ctx.dim, -1).unsqueeze(-1)
        return (w * ul).sum(-2).movedim(-1, ctx.dim)


def _logaddexp_accumulate_xp(d: Any, dim: int) -> Any:
    """``np.logaddexp.accumulate(d, axis=dim)`` with the standard's ``logaddexp`` (an Array
    API array): the same sequence of pairwise steps, one per position along ``dim``."""
    xp = B.namespace(d)
    if d.ndim == 0:
        return B.copy(d)
    m = xp.moveaxis(d, dim, 0)
    acc = [m[0, ...]]
    for i in range(1, m.shape[0]):
        acc.append(xp.logaddexp(acc[-1], m[i, ...]))
    if not acc or m.shape[0] == 0:
        return B.copy(d)
    return xp.moveaxis(xp.stack(acc, axis=0), 0, dim)


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """``log(cumsum(exp(input), dim))``, computed without overflow.

    Args:
        input: ``(*)`` floating tensor.
        dim: the dim to scan along.
    Returns:
        ``(*)`` tensor of ``input``'s dtype.
    Raises:
        IndexError: ``dim`` out of range. RuntimeError: an integer input.

    Example:
        >>> import dyngrad
        >>> [round(v, 4) for v in dyngrad.logcumsumexp(dyngrad.zeros(3), 0).tolist()]
        [0.0, 0.6931, 1.0986]
    """
    return Logcumsumexp.apply(input, norm_dim(dim, input._data.ndim, "logcumsumexp"))


def _cum_select(d: np.ndarray, dim: int, largest: bool) -> np.ndarray:
    """Index of the running max (min) along ``dim``: ties take the later index and a NaN,
    once seen, stays selected (as PyTorch)."""
    m = np.moveaxis(d, dim, -1)
    idx = np.zeros(m.shape, dtype=np.int64)
    best = m[..., 0].copy()
    cur = np.zeros(m.shape[:-1], dtype=np.int64)
    for i in range(m.shape[-1]):
        v = m[..., i]
        take = (v >= best if largest else v <= best) | np.isnan(v)
        take &= ~np.isnan(best) | (i == 0)
        best = np.where(take, v, best)
        cur = np.where(take, i, cur)
        idx[..., i] = cur
    return np.moveaxis(idx, -1, dim)


def _cum_select_xp(d: Any, dim: int, largest: bool) -> Any:
    """:func:`_cum_select` with the standard's functions (an Array API array)."""
    xp = B.namespace(d)
    m = xp.moveaxis(d, dim, -1)
    best = m[..., 0]
    cur = xp.zeros(m.shape[:-1], dtype=xp.int64)
    out = []
    for i in range(m.shape[-1]):
        v = m[..., i]
        take = (v >= best if largest else v <= best) | xp.isnan(v)
        if i:
            take = take & ~xp.isnan(best)
        best = xp.where(take, v, best)
        cur = xp.where(take, i, cur)
        out.append(cur)
    return xp.moveaxis(xp.stack(out, axis=-1), -1, dim)


def _one_hot_along(idx: Any, dim: int, n: int, dtype: Any) -> Any:
    """``onehot[..., j, ...(i)] = (idx[..., i] == j)`` with the new axis ``j`` (size ``n``)
    inserted at ``dim`` (``idx``'s own axis ``i`` moves to ``dim + 1``)."""
    xp = B.namespace(idx)
    pos = xp.reshape(xp.arange(n, dtype=idx.dtype), (n,) + (1,) * (idx.ndim - dim))
    return pos == xp.expand_dims(idx, axis=dim)


def _batched_index(idx: Any, n: int) -> Any:
    """An (unbatched) index array of a gather/scatter along a dim, repeated over a batch
    of ``n`` in front (``take_along_axis`` wants one index per example)."""
    xp = B.namespace(idx)
    return xp.broadcast_to(xp.expand_dims(idx, axis=0), (n,) + tuple(idx.shape))


def _along_rule(info: Any, in_dims: tuple, x: Any, dim: int, *idx: Any) -> Any:
    """Batching rule of :class:`ScatterAlong`, :class:`GatherAlong` (and sorting's
    ``SortScatter``/``TakeAlong``): the tensor batch-first, ``dim`` shifted, the index
    arrays (the trailing arguments that are arrays) repeated over the batch."""
    if not only_first_batched(in_dims):
        return NotImplemented
    n = info.batch_size
    rest = tuple(_batched_index(a, n) if hasattr(a, "shape") and hasattr(a, "dtype") else a for a in idx)
    return info.function.apply(front(x, in_dims[0]), dim + 1, *rest), 0


class ScatterAlong(Linear):
    """The gradient of a gather along ``dim`` (:class:`Cummax`'s backward) on an Array API
    array, which has no scatter-add: ``out[..., j, ...] = sum of g[..., i, ...] over the i
    with idx[..., i, ...] == j``, a ``where`` of a one-hot comparison summed over ``i``
    (exact: in ``i`` order, as ``np.add.at`` adds; no 0/1 multiplication, so inf and nan
    stay where they belong). ``grad_g = take_along_axis(gg, idx)`` (:class:`GatherAlong`)."""

    @staticmethod
    def forward(ctx: Any, g: Tensor, dim: int, idx: Any, n: int) -> Tensor:
        ctx.dim, ctx.idx = dim, idx
        gd = g._data
        xp = B.namespace(gd, idx)
        hot = _one_hot_along(idx, dim, n, gd.dtype)
        parts = xp.where(hot, xp.expand_dims(gd, axis=dim), xp.zeros((), dtype=gd.dtype))
        return wrap(xp.sum(parts, axis=dim + 1))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return GatherAlong.apply(gg, ctx.dim, ctx.idx), None, None, None

    vmap = staticmethod(_along_rule)


class GatherAlong(Linear):
    """``out = take_along_axis(u, idx, dim)`` on an Array API array; ``grad_u`` is
    :class:`ScatterAlong`."""

    @staticmethod
    def forward(ctx: Any, u: Tensor, dim: int, idx: Any) -> Tensor:
        ctx.dim, ctx.idx, ctx.n = dim, idx, u._data.shape[dim]
        return wrap(B.namespace(u._data).take_along_axis(u._data, idx, axis=dim))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return ScatterAlong.apply(g, ctx.dim, ctx.idx, ctx.n), None, None

    vmap = staticmethod(_along_rule)


def _cum_rule(info: Any, in_dims: tuple, x: Any, dim: int, largest: bool) -> Any:
    """Batching rule: batch dim to the front, ``dim`` shifted; both outputs batched at 0."""
    if not only_first_batched(in_dims):
        return NotImplemented
    x = front(x, in_dims[0])
    if x.ndim == 1:
        v, i = info.function.apply(x.unsqueeze(1), 1, largest)
        return (v.squeeze(1), i.squeeze(1)), (0, 0)
    return info.function.apply(x, shift_dim(dim), largest), (0, 0)


class Cummax(Op):
    """``values_i = max_{j <= i} x_j``, ``indices_i`` its position (``cummin``: min).

    ``grad_x = zeros_like(x).scatter_add(dim, indices, grad_values)``: each output's gradient
    goes to the element it selected. Forward mode: ``t = u.gather(dim, indices)``.
    """

    vmap = staticmethod(_cum_rule)

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, largest: bool) -> tuple:
        d = x._data
        if type(d) is not np.ndarray and not B.native(d):
            xp = B.namespace(d)
            if d.ndim == 0:
                idx, vals = xp.zeros((), dtype=xp.int64), B.copy(d)
            else:
                idx = _cum_select_xp(d, dim, largest) if d.size else xp.zeros(d.shape, dtype=xp.int64)
                vals = xp.take_along_axis(d, idx, axis=dim)
            ctx.dim, ctx.idx, ctx.shape = dim, idx, d.shape
            ind = wrap(idx)
            ctx.mark_non_differentiable(ind)
            return wrap(vals), ind
        if d.ndim == 0:
            idx = np.zeros((), dtype=np.int64)
            vals = d.copy()
        else:
            idx = _cum_select(d, dim, largest) if d.size else np.zeros(d.shape, dtype=np.int64)
            vals = np.take_along_axis(d, idx, axis=dim)
        ctx.dim, ctx.idx, ctx.shape = dim, idx, d.shape
        ind = wrap(idx)
        ctx.mark_non_differentiable(ind)
        return wrap(vals), ind

    @staticmethod
    def backward(ctx: Any, g: Tensor, _gi: Any) -> tuple:
        from .gather import ScatterAdd

        if g._data.ndim == 0:
            return g, None, None
        if not B.native(g._data):  # an Array API array: no scatter-add; the one-hot adjoint
            return ScatterAlong.apply(g, ctx.dim, ctx.idx, ctx.shape[ctx.dim]), None, None
        z = wrap(np.zeros(ctx.shape, dtype=g._data.dtype))
        return ScatterAdd.apply(z, ctx.dim, ctx.idx, g), None, None

    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        from .gather import Gather

        if u._data.ndim == 0:
            return u, None
        if not B.native(u._data):
            return GatherAlong.apply(u, ctx.dim, ctx.idx), None
        return Gather.apply(u, ctx.dim, ctx.idx), None


class Cummin(Cummax):
    """The running minimum; see :class:`Cummax`."""


def cummax(input: Tensor, dim: int) -> Any:
    """Running maximum along ``dim`` and where it was found.

    Args:
        input: ``(*)`` tensor.
        dim: the dim to scan along.
    Returns:
        ``(values, indices)`` namedtuple, both ``(*)``; ties take the later index, and a NaN
        propagates (with its index), as PyTorch.
    Raises:
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.cummax(dyngrad.tensor([1.0, 3.0, 2.0, 5.0]), 0)
        cummax(values=tensor([1., 3., 3., 5.]), indices=tensor([0, 1, 1, 3]))
    """
    return CummaxResult(*Cummax.apply(input, norm_dim(dim, input._data.ndim, "cummax"), True))


def cummin(input: Tensor, dim: int) -> Any:
    """Running minimum along ``dim`` and where it was found; see :func:`cummax` (the
    gradient goes to the element each running minimum came from).

    Args:
        input: ``(*)``.
        dim: the dimension to scan.

    Returns:
        ``(values, indices)``, both of ``input``'s shape (indices int64).
    Raises:
        IndexError: a ``dim`` out of range.
        TypeError: a ``dim`` that is not an int.
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.cummin(dyngrad.tensor([3.0, 1.0, 2.0]), 0)
        cummin(values=tensor([3., 1., 1.]), indices=tensor([0, 1, 1]))
    """
    return CumminResult(*Cummin.apply(input, norm_dim(dim, input._data.ndim, "cummin"), False))
