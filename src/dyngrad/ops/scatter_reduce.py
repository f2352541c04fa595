"""``scatter_reduce`` (sum, prod, mean, amax, amin, with or without the input's own values)
and ``index_put`` / ``index_put_`` (with ``accumulate``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Op
from ._batching_index import batch_operand
from ._util import data_of, inplace, norm_dim, wrap
from .gather import _check_gs, _check_src, _grid, _int_index

__all__ = ["scatter_reduce", "index_put", "index_put_", "index_reduce"]
TENSOR_METHODS = {"scatter_reduce", "index_put", "index_put_", "index_reduce"}

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _forward(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str,
             include_self: bool) -> np.ndarray:
    """:func:`_forward_np`; with a Dask argument one lazy task (_backend.lazy_kernel)."""
    if type(x) is np.ndarray and type(index) is np.ndarray and type(src) is np.ndarray:
        return _forward_np(x, dim, index, src, reduce, include_self)
    if not B.native(x) and isinstance(index, np.ndarray):  # an Array API array: the standard-only form
        return _forward_xp(x, dim, index, src, reduce, include_self)
    return B.lazy_kernel(_forward_np, x.shape, x.dtype, x, dim, index, src, reduce, include_self)


def _forward_np(x: np.ndarray, dim: int, index: np.ndarray, src: np.ndarray, reduce: str,
                include_self: bool) -> np.ndarray:
    out = x.copy()
    flat = out.reshape(-1) if out.ndim == 0 else out
    if index.size == 0:
        return out
    grid = _grid(index, dim)
    sub = src[tuple(slice(0, s) for s in index.shape)]
    if not include_self:
        ident = {"sum": 0, "mean": 0, "prod": 1,
                 "amax": -np.inf if B.kind(x) == "f" else np.iinfo(x.dtype).min if B.kind(x) in "iu" else 0,
                 "amin": np.inf if B.kind(x) == "f" else np.iinfo(x.dtype).max if B.kind(x) in "iu" else 1}
        flat[grid] = ident[reduce]
    if reduce in ("sum", "mean"):
        np.add.at(flat, grid, sub)
    elif reduce == "prod":
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            np.multiply.at(flat, grid, sub)
    elif reduce == "amax":
        np.maximum.at(flat, grid, sub)
    else:
        np.minimum.at(flat, grid, sub)
    if reduce == "mean":
        count = np.full(out.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count.reshape(-1) if count.ndim == 0 else count, grid, 1)
        count = np.maximum(count, 1)
        out = out // count if B.kind(out) in "iu" else (out / count).astype(out.dtype)
    return out


def _forward_xp(x: Any, dim: int, index: np.ndarray, src: Any, reduce: str, include_self: bool) -> Any:
    """:func:`_forward_np` for an Array API array: the ufunc ``.at`` reductions as
    :func:`ops.indexing.reduce_positions` (exact, NumPy's order), the counts of ``mean`` on
    the host (they depend on the index only)."""
    from .indexing import flat_positions, reduce_positions

    if index.size == 0:
        return x
    xp = B.namespace(x)
    shape = tuple(x.shape) if x.ndim else (1,)
    grid = _grid(index, dim) if index.ndim else index
    pos = flat_positions(shape, grid)
    out = B.reshape(x, shape)
    sub = src[tuple(slice(0, s) for s in index.shape)] if index.ndim else src
    dt = B.np_dtype_of(x)
    if not include_self:
        k = B.kind(x)
        ident = {"sum": 0, "mean": 0, "prod": 1,
                 "amax": -np.inf if k == "f" else np.iinfo(dt).min if k in "iu" else 0,
                 "amin": np.inf if k == "f" else np.iinfo(dt).max if k in "iu" else 1}[reduce]
        touched = np.zeros(shape, dtype=bool)
        touched.reshape(-1)[pos.reshape(-1)] = True
        out = xp.where(xp.asarray(touched), xp.asarray(ident, dtype=out.dtype), out)
    op = {"sum": "add", "mean": "add", "prod": "mul", "amax": "max", "amin": "min"}[reduce]
    with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
        out = reduce_positions(out, sub, pos, op)
    if reduce == "mean":
        count = np.full(shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, grid, 1)
        count = np.maximum(count, 1)
        if B.kind(out) in "iu":
            out = out // B.like(count, out, dtype=dt)
        else:  # NumPy divides by the int64 counts in float64
            out = B.astype(xp.astype(out, xp.float64) / B.like(count, out, dtype=np.float64), dt)
    return B.reshape(out, tuple(x.shape))


class ScatterReduce(Op):
    """``out = input`` with ``src[j]`` reduced into ``out[index[j]]`` along ``dim`` by ``reduce``
    (``include_self=False``: positions that receive values start from the reduction's
    identity instead of ``input``'s value).

    Backward, as PyTorch's ``scatter_reduce_backward`` (tools/autograd/FunctionsManual.cpp):

    * ``sum``: ``grad_input = grad``; ``grad_src = grad.gather(dim, index)``.
    * ``mean``: with ``N`` the number of values averaged at each position (``include_self``
      counts the input), ``grad_input = grad / N``, ``grad_src = (grad / N).gather(dim, index)``.
    * ``prod``: ``grad_input = grad * out / input`` and ``grad_src = (grad * out).gather / src``,
      computed without dividing by zero (a zero's gradient is the product of the others; two
      zeros at one position give 0).
    * ``amax``/``amin``: the gradient is split evenly among the values (input's and src's)
      equal to the result.

    With ``include_self=False``, ``grad_input`` is 0 where values were scattered. Every rule is
    written with dyngrad ops, so it differentiates again.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: np.ndarray, src: Tensor, reduce: str,
                include_self: bool) -> Tensor:
        out = wrap(_forward(x._data, dim, index, src._data, reduce, include_self))
        ctx.dim, ctx.index, ctx.reduce, ctx.include_self = dim, index, reduce, include_self
        ctx.save_for_backward(x, src, out)
        return out

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Any, dim: int, index: Any, src: Any, reduce: str, include_self: bool) -> Any:
        """Batching rule: ``x`` and ``src`` batch-first (an unbatched one expanded), the shared
        index broadcast along the batch, ``dim`` shifted; 0-d examples as ``(1,)``."""
        if not isinstance(index, np.ndarray):
            return NotImplemented
        n = info.batch_size
        xb, sb = batch_operand(x, in_dims[0], n), batch_operand(src, in_dims[3], n)
        if xb.ndim == 1:
            out = info.function.apply(xb.reshape(n, 1), 1, np.broadcast_to(index.reshape(1, -1), (n, index.size)).copy(),
                                      sb.reshape(n, -1), reduce, include_self)
            return out.reshape(n), 0
        idx = np.broadcast_to(index, (n,) + index.shape).copy()
        return info.function.apply(xb, dim + 1, idx, sb, reduce, include_self), 0

    @staticmethod
    def _selected(x: Tensor, srcv: Tensor, out: Tensor, dim: int, index: np.ndarray, incl: bool) -> tuple:
        """amax/amin: 1.0 where an input value (``x_is``) or a src value (``s_is``) equals
        the result it took part in. Unlike PyTorch 2.13, an input value that did not take
        part (``include_self=False`` at a position that receives values) is never counted,
        so the shares always add up to the incoming gradient."""
        dt = B.np_dtype_of(out._data)
        x_is = x._data == out._data
        if not B.native(x._data):  # an Array API array (the same steps with its functions)
            xp = B.namespace(x._data)
            if not incl:
                x_is = x_is & B.like(~_touched(x._data.shape, dim, index), x._data)
            value = xp.take_along_axis(B.reshape(out._data, x._data.shape or (1,)), xp.asarray(index), axis=dim) \
                if index.ndim else out._data
            return wrap(B.astype(x_is, dt)), wrap(B.astype(srcv._data == value, dt))
        if not incl:
            x_is &= ~_touched(x._data.shape, dim, index)
        value = np.take_along_axis(out._data.reshape(x._data.shape or (1,)), index, dim) if index.ndim \
            else out._data
        return wrap(x_is.astype(dt)), wrap((srcv._data == value).astype(dt))

    @staticmethod
    def jvp(ctx: Any, ux: Any, _dim: Any, _index: Any, us: Any, *_: Any) -> Any:
        """Forward mode: ``sum``/``mean`` are linear (the op applied to the tangents, with
        ``input``'s tangent where it takes part); ``amax``/``amin`` average the tangents of the
        values equal to the result; ``prod``:
        ``t = out * (u_x / x + scatter_add(u_s / src))`` on non-zero values (a zero raises)."""
        from .gather import ScatterAdd

        x, src, out = ctx.saved_tensors
        dim, index, reduce, incl = ctx.dim, ctx.index, ctx.reduce, ctx.include_self
        dt = out._data.dtype
        sub = tuple(slice(0, k) for k in index.shape)
        ux = wrap(np.zeros(x._data.shape, dtype=dt)) if ux is None else ux
        us = wrap(np.zeros(index.shape, dtype=dt)) if us is None else us[sub]
        srcv = src[sub]
        if reduce in ("sum", "mean"):
            return ScatterReduce.apply(ux, dim, index, us, reduce, incl)
        if reduce == "prod":
            if (x._data == 0).any() or (srcv._data == 0).any():
                raise NotImplementedError("scatter_reduce(reduce='prod'): forward-mode AD with a zero in input or "
                                          "src is not implemented")
            keep = wrap((~_touched(x._data.shape, dim, index) | incl).astype(dt))
            rel = ScatterAdd.apply(ux / x * keep, dim, index, us / srcv)
            return out * rel
        x_is, s_is = ScatterReduce._selected(x, srcv, out, dim, index, incl)
        count = ScatterAdd.apply(x_is, dim, index, s_is)
        return ScatterAdd.apply(x_is * ux, dim, index, s_is * us) / count

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        from .gather import Gather, ScatterAdd
        from .pointwise import where

        x, src, out = ctx.saved_tensors
        dim, index, reduce, incl = ctx.dim, ctx.index, ctx.reduce, ctx.include_self
        dt = B.np_dtype_of(g._data)
        const = (lambda a: wrap(a)) if B.native(g._data) else (lambda a: wrap(B.like(a, g._data)))
        sub_shape = index.shape
        srcv = src[tuple(slice(0, s) for s in sub_shape)] if tuple(src.shape) != sub_shape else src

        def gat(t: Tensor) -> Tensor:
            return Gather.apply(t, dim, index)

        def scat_add(base: np.ndarray, values: Tensor) -> Tensor:
            return ScatterAdd.apply(wrap(base), dim, index, values)

        if reduce == "sum":
            gx, gs = g, gat(g)
        elif reduce == "mean":
            n = np.full(x._data.shape, 1.0 if incl else 0.0, dtype=dt)
            np.add.at(n.reshape(-1) if n.ndim == 0 else n, _grid(index, dim), 1.0)
            n = const(np.maximum(n, 1.0))
            gx = g / n
            gs = gat(gx)
        elif reduce == "prod":
            zero_x = wrap(x._data == 0)
            masked_x = where(zero_x, 1.0, x)
            masked_x_result = ScatterReduce.apply(masked_x, dim, index, srcv, "prod", incl)
            gx = g * masked_x_result / masked_x
            sz = srcv._data == 0
            if not B.native(sz):  # an Array API array: the zero counts by reduce_positions
                from .indexing import flat_positions, reduce_positions

                xp = B.namespace(sz)
                shp = x._data.shape or (1,)
                nz = reduce_positions(xp.zeros(shp, dtype=xp.int64), xp.astype(sz, xp.int64),
                                      flat_positions(shp, _grid(index, dim) if index.ndim else index), "add")
                single = wrap(sz & (xp.take_along_axis(nz, xp.asarray(index), axis=dim) == 1) if index.ndim else sz)
            else:
                n_zero = np.zeros(x._data.shape, dtype=np.int64)
                np.add.at(n_zero.reshape(-1) if n_zero.ndim == 0 else n_zero, _grid(index, dim), sz.astype(np.int64))
                single = wrap(sz & (np.take_along_axis(n_zero.reshape(x._data.shape or (1,)), index, dim) == 1)
                              if index.ndim else sz)
            masked_src = where(single, 1.0, srcv)
            masked_src_result = ScatterReduce.apply(x, dim, index, masked_src, "prod", incl)
            gs = where(single, gat(g * masked_src_result), gat(g * out) / where(wrap(sz), 1.0, srcv))
        else:  # amax / amin: split evenly among the values equal to the result
            x_is, s_is = ScatterReduce._selected(x, srcv, out, dim, index, incl)
            count = scat_add(x_is._data, s_is)
            share = g / count
            gx = x_is * share
            gs = s_is * gat(share)
        if not incl:
            gx = where(const(_touched(x._data.shape, dim, index)), 0.0, gx)
        if tuple(src.shape) != sub_shape:  # src larger than index: zero-pad its gradient
            from .rearrange import pad

            widths = []
            for have, full in zip(reversed(sub_shape), reversed(tuple(src.shape))):
                widths += [0, full - have]
            gs = pad(gs, widths)
        n = ctx.needs_input_grad
        return (gx if n[0] else None), None, None, (gs if n[3] else None), None, None


def _touched(shape: tuple, dim: int, index: np.ndarray) -> np.ndarray:
    """Where ``index`` scatters values (a bool array of ``shape``)."""
    touched = np.zeros(shape, dtype=bool)
    (touched.reshape(-1) if touched.ndim == 0 else touched)[_grid(index, dim)] = True
    return touched


def scatter_reduce(input: Tensor, dim: int, index: Any, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """Reduce ``src`` into ``input`` at ``index`` along ``dim``:
    ``out[..., index[j], ...] = reduce(out[..., index[j], ...], src[j])`` (``dim`` shown).

    Args:
        input: ``(*)`` tensor.
        dim: the dim that ``index`` addresses.
        index: int64 tensor of ``input``'s rank, no larger than ``src`` (nor ``input`` off
            ``dim``).
        src: tensor of ``input``'s dtype.
        reduce: ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self: whether ``input``'s own values take part at the positions that receive
            values.
    Returns:
        a new tensor of ``input``'s shape and dtype.
    Raises:
        RuntimeError: an unknown ``reduce``, dtype mismatch, bad index sizes or bounds.

    Example:
        >>> import dyngrad
        >>> src = dyngrad.tensor([1.0, 2.0, 3.0, 4.0])
        >>> dyngrad.zeros(2).scatter_reduce(0, dyngrad.tensor([0, 1, 0, 1]), src, 'amax').tolist()
        [3.0, 4.0]
    """
    reduce = {"max": "amax", "min": "amin"}.get(reduce, reduce)  # PyTorch accepts both spellings
    if reduce not in _REDUCES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    idx = _int_index(index, "scatter_reduce")
    d = norm_dim(dim, input._data.ndim, "scatter_reduce")
    _check_src("scatter_reduce", input, src)
    _check_gs("scatter_reduce", input._data, d, idx, src._data)
    idx = np.where(idx < 0, idx + (input._data.shape[d] if input._data.ndim else 1), idx)
    return ScatterReduce.apply(input, d, idx, src, reduce, bool(include_self))


def index_reduce(input: Tensor, dim: int, index: Any, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """Reduce the slices of ``source`` into the slices of ``input`` that ``index`` names
    along ``dim``: ``out.select(dim, index[i]) = reduce(out.select(dim, index[i]),
    source.select(dim, i))`` for every ``i`` (repeated indices reduce together).

    It is :func:`scatter_reduce` with ``index`` broadcast over ``source``'s other dims, so
    values and gradients are scatter_reduce's: ``prod`` ``grad_input = grad * out / input``
    (the zero-safe form where an input is 0), ``grad_source`` likewise; ``mean`` divides by
    the count (plus 1 with ``include_self``); ``amax``/``amin`` share the gradient equally
    among the positions that attain the result (PyTorch's ``index_reduce_backward`` in
    derivatives.yaml). An integer ``mean`` rounds down, as PyTorch's.

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim that ``index`` addresses.
        index (Tensor): ``(k,)``, int64 or int32, each in ``[0, input.size(dim))``.
        source (Tensor): ``input``'s shape with ``k`` at ``dim``; ``input``'s dtype.
        reduce (str): ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.
        include_self (bool): whether ``input``'s own values take part at the indexed
            slices. Default: ``True``.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: another ``reduce`` (``"sum"``: use :func:`index_add`), a non-integer
            ``index``, ``len(index) != source.size(dim)``, or dtypes that differ.
        IndexError: ``index`` not a vector, an index out of range (negative included), or
            ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.ones(3, 2)
        >>> src = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> x.index_reduce(0, dyngrad.tensor([0, 2, 0]), src, "prod").tolist()
        [[5.0, 12.0], [1.0, 1.0], [3.0, 4.0]]
    """
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = norm_dim(dim, input._data.ndim, "index_reduce")
    idx = data_of(index)
    if not B.native(idx) and hasattr(idx, "shape"):  # an Array API index tensor: read on the host
        idx = B.to_host(idx)  # (the plan's host computation, as gather's _int_index)
    idx = B.asarray_any(idx) if not isinstance(idx, np.ndarray) else idx
    if B.kind(idx) not in "iu" or idx.dtype == np.uint8:
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: {idx.dtype}")
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: {idx.ndim} with size: "
                         f"{list(idx.shape)}")
    idx = idx.reshape(-1)
    if source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.name}) and source ({source.dtype.name}) must have "
                           "the same scalar type")
    xs = input._data.shape if input._data.ndim else (1,)
    ss = source._data.shape if source._data.ndim else (1,)
    if len(ss) != len(xs) or any(a != b for k, (a, b) in enumerate(zip(xs, ss)) if k != d):
        raise RuntimeError(f"index_reduce_(): source {list(source.shape)} must have input's shape {list(input.shape)} "
                           f"apart from dimension {d}")
    if ss[d] != idx.size:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({ss[d]}), for dim: {d}")
    if idx.size and (idx.min() < 0 or idx.max() >= xs[d]):
        bad = int(idx.max()) if idx.max() >= xs[d] else int(idx.min())
        raise IndexError(f"index_reduce(): index {bad} is out of bounds for dimension {d} with size {xs[d]}")
    along = [1] * len(ss)
    along[d] = -1
    full = np.broadcast_to(idx.reshape(along), ss)
    x, src = (input.reshape(1), source.reshape(1)) if input._data.ndim == 0 else (input, source)
    out = ScatterReduce.apply(x, d, np.ascontiguousarray(full), src, reduce, bool(include_self))
    return out.reshape(()) if input._data.ndim == 0 else out


def _index_tuple(indices: Any) -> tuple:
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put(): argument 'indices' must be tuple of Tensors, not {type(indices).__name__}")
    return tuple(indices)


def index_put(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """``out = input.clone(); out[indices] = values`` (``accumulate=True``: ``+=``, with
    repeated indices summed, unlike plain assignment where one of them wins).

    Args:
        input: ``(*)`` tensor.
        indices: a tuple of index tensors (int64 or bool; None entries mean ``:``), as in
            ``input[indices]``.
        values: a tensor (or number) broadcastable to ``input[indices].shape``.
        accumulate: add instead of assigning.
    Returns:
        a new tensor; differentiable in ``input`` and ``values``.
    Raises:
        TypeError: ``indices`` not a tuple or list. RuntimeError/IndexError: as indexing.

    Example:
        >>> import dyngrad
        >>> dyngrad.index_put(dyngrad.zeros(3), (dyngrad.tensor([0, 0, 2]),), dyngrad.ones(3), accumulate=True).tolist()
        [2.0, 0.0, 1.0]
    """
    from .indexing import getitem, index_put_add, setitem_
    from .shape import broadcast_to

    idx = tuple(slice(None) if i is None else i for i in _index_tuple(indices))
    if not accumulate and not B.native(input._data) and not input._is_wrapper:
        # an Array API array is immutable: the functional index_put (the same gradients)
        from .indexing import IndexPut, plan_index

        return IndexPut.apply(input, values, plan_index(idx, tuple(input.shape)))
    if not accumulate:
        out = input.clone()
        setitem_(out, idx, values)
        return out
    shape = tuple(getitem(input.detach(), idx).shape)
    v = values if isinstance(values, Tensor) else wrap(B.asarray_any(values, dtype=input._data.dtype))
    if v._data.dtype != input._data.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got {input.dtype} for the "
                           f"destination and {v.dtype} for the source.")
    return input + index_put_add(broadcast_to(v, shape), tuple(input.shape), idx)


def index_put_(input: Tensor, indices: Any, values: Any, accumulate: bool = False) -> Tensor:
    """In-place :func:`index_put`: ``input[indices] = values`` (``+=`` with ``accumulate``);
    returns ``input``.

    Derivative: ``grad_input = grad_output`` with the written positions zeroed (kept when
    ``accumulate``); ``grad_values = grad_output[indices]`` summed to ``values``'s shape
    (derivatives.yaml ``index_put``).

    Args:
        input (Tensor): ``(*)``, overwritten.
        indices (tuple of Tensor or None): one integer or bool index tensor per leading dim
            (None: the whole dim), broadcast together.
        values (Tensor or number): broadcastable to ``input[indices].shape``.
        accumulate (bool): add into ``input`` (repeated indices accumulate) instead of
            writing. Default: ``False``.
    Returns:
        Tensor: ``input`` itself.
    Raises:
        IndexError: an index out of range.
        RuntimeError: ``values`` that do not broadcast, or ``input`` a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(3)
        >>> dyngrad.index_put_(x, (dyngrad.tensor([0, 0]),), dyngrad.tensor([1.0, 2.0]), accumulate=True)
        tensor([3., 0., 0.])
        >>> dyngrad.index_put_(x, (dyngrad.tensor([2]),), dyngrad.tensor(9.0))
        tensor([3., 0., 9.])
    """
    from .indexing import setitem_

    idx = tuple(slice(None) if i is None else i for i in _index_tuple(indices))
    if not accumulate:
        return setitem_(input, idx, values)
    return inplace(index_put, input, idx, values, True)
