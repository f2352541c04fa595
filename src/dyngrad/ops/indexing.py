"""Indexing: ``x[idx]``, ``x[idx] = v``, masked fills, narrow/select.

Indices follow PyTorch's rules: ints, slices, None, Ellipsis, bools, bool masks and integer
tensors, arrays or lists (advanced indexing). PyTorch and NumPy differ in one place: NumPy
counts an int as an advanced index when another advanced index is present, so
``x[0, :, [1, 2]]`` of a ``(3, 4, 5)`` array is ``(2, 4)`` in NumPy but ``(4, 2)`` in
PyTorch, which first applies ints, slices, None and bools (a view) and then the tensor
indices to what is left. dyngrad does the same: every index is split into a *basic* step
(a view) and an *advanced* step (a copy, whose gradient accumulates over repeated indices).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.grad_mode import state as _ctx
from ..tensor import Tensor
from . import _batching_index as bx
from ._bases import Linear, Op
from ._batching import front
from ._util import check_no_partial_overlap, data_of, inplace, make_view, norm_dim, recording, wrap

__all__ = ["getitem", "setitem_", "narrow", "select", "index_put_add"]
TENSOR_METHODS = {"narrow", "select"}

_FULL = slice(None)


def _bad(i: Any) -> IndexError:
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid "
        f"indices (got {type(i).__name__})"
    )


def _conv(i: Any) -> Any:
    """One index item -> int, slice, None, Ellipsis, bool or an int/bool ndarray."""
    if i is None or i is Ellipsis or isinstance(i, (bool, slice)):
        return i
    if isinstance(i, (int, np.integer)):
        return int(i)
    if isinstance(i, np.bool_):
        return bool(i)
    if isinstance(i, Tensor):
        d = i._data
        if not B.native(d):  # an index tensor of an Array API library: a host computation (the plan
            d = B.to_host(d)  # checks bounds and, for masks, finds the shape; as for Dask index tensors)
    elif isinstance(i, (list, tuple, np.ndarray, range)):  # (range: PyTorch's nn tutorial's x[range(n), y])
        d = B.asarray_any(i) if not isinstance(i, np.ndarray) else i
        if isinstance(i, range) and d.size == 0:
            d = d.astype(np.int64)
        if d.dtype == object:
            raise IndexError("index lists must contain only integers or bools")
        if d.size == 0 and B.kind(d) == "f":  # x[[]] selects nothing, as in PyTorch
            d = d.astype(np.int64)
    else:
        raise _bad(i)
    if B.kind(d) == "f" or B.kind(d) not in "iub":
        raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, got {d.dtype}")
    if d.dtype == np.uint8:
        d = d.astype(bool)
    if d.ndim == 0:
        return bool(d) if d.dtype == np.bool_ else int(d)
    return d


def _consumed(i: Any) -> int:
    if i is None or isinstance(i, bool):
        return 0
    if isinstance(i, np.ndarray) and i.dtype == np.bool_:
        return i.ndim
    return 1


def plan_index(index: Any, shape: tuple) -> tuple:
    """Split ``index`` into ``(basic, advanced)`` NumPy indices with PyTorch's semantics.

    ``basic`` (ints, slices, None; a view) is applied first, then ``advanced`` (a tuple of
    slices and int arrays, or None when there is no advanced part) to its result.

    Raises:
        IndexError: float indices, too many indices, out-of-range ints or index tensors
            (naming the dimension and its size), a bool mask of the wrong shape.
        ValueError: a slice step <= 0 (PyTorch has no negative steps; use ``flip``).
    """
    t = type(index)
    if (t is int or t is slice) and shape:  # fast path for x[i] and x[a:b]
        if t is int and not -shape[0] <= index < shape[0]:
            raise IndexError(f"index {index} is out of bounds for dimension 0 with size {shape[0]}")
        if t is slice and index.step is not None and index.step <= 0:
            raise ValueError("step must be greater than zero")
        return (index, Ellipsis), None
    items = index if isinstance(index, tuple) else (index,)
    items = [_conv(i) for i in items]
    if sum(1 for i in items if i is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    used = sum(_consumed(i) for i in items if i is not Ellipsis)
    if used > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    if any(i is Ellipsis for i in items):
        k = next(n for n, i in enumerate(items) if i is Ellipsis)
        items[k : k + 1] = [_FULL] * (len(shape) - used)
    basic: list = []
    adv: list = []  # per dim of the basic result
    any_adv = False
    d = 0  # dim of the input
    for i in items:
        if i is None:
            basic.append(None)
            adv.append(_FULL)
        elif isinstance(i, bool):  # PyTorch: unsqueeze, then index that dim by [0] or []
            basic.append(None)
            adv.append(np.zeros(1 if i else 0, dtype=np.intp))
            any_adv = True
        elif isinstance(i, int):
            size = shape[d]
            if not -size <= i < size:
                raise IndexError(f"index {i} is out of bounds for dimension {d} with size {size}")
            basic.append(i)
            d += 1
        elif isinstance(i, slice):
            if i.step is not None and i.step <= 0:
                raise ValueError("step must be greater than zero")
            basic.append(i)
            adv.append(_FULL)
            d += 1
        elif i.dtype == np.bool_:
            k = i.ndim
            if i.shape != shape[d : d + k]:
                raise IndexError(
                    f"The shape of the mask {list(i.shape)} at index {d} does not match the shape "
                    f"of the indexed tensor {list(shape)} at index {d}"
                )
            basic.extend([_FULL] * k)
            adv.extend(np.nonzero(i))
            any_adv = True
            d += k
        else:
            size = shape[d]
            if i.size and (i.max() >= size or i.min() < -size):
                bad = int(i.max()) if i.max() >= size else int(i.min())
                raise IndexError(f"index {bad} is out of bounds for dimension {d} with size {size}")
            basic.append(_FULL)
            adv.append(i)
            any_adv = True
            d += 1
    while basic and isinstance(basic[-1], slice) and basic[-1] == _FULL:
        basic.pop()
    b = tuple(basic) + (Ellipsis,) if basic else None  # trailing ... keeps 0-d results views
    if not any_adv:
        return b, None
    while adv and isinstance(adv[-1], slice):
        adv.pop()
    arrays = [a.shape for a in adv if isinstance(a, np.ndarray)]
    try:
        np.broadcast_shapes(*arrays)
    except ValueError:
        raise IndexError(
            "shape mismatch: indexing tensors could not be broadcast together with shapes "
            + ", ".join(str(list(s)) for s in arrays)
        ) from None
    return b, tuple(adv)


def _as_plan(index: Any, shape: tuple) -> tuple:
    return plan_index(index, shape)


class Index(Linear):
    """``out = x[idx]`` for one NumPy index ``idx`` (basic: a view; advanced: a copy).

    Shapes: ``x: (*)`` -> NumPy's result shape. ``grad_x = zeros(x.shape)`` with ``grad``
    added at ``idx`` (repeated indices accumulate), i.e. :class:`IndexPutAdd`.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, idx: Any, basic: bool) -> Tensor:
        ctx.shape = x._data.shape
        ctx.idx = idx
        ctx.basic = basic
        d = x._data
        if type(d) is np.ndarray:
            out = wrap(d[idx])
        elif B.native(d) or basic:
            out = wrap(B.take(d, idx))
        else:
            out = wrap(gather_positions(d, idx))
        return make_view(out, x) if basic else out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return IndexPutAdd.apply(g, ctx.shape, ctx.idx, ctx.basic), None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, idx: Any, basic: bool) -> tuple:
        """Batching rule: batch dim to the front and a full slice prepended to the index;
        advanced indices separated by a slice put their dims first (NumPy), so the batch
        dim then follows them. Batched index tensors (``in_dims[1]`` a tuple): see
        :func:`ops._batching_index.index_by_batched`."""
        if isinstance(in_dims[1], tuple):
            return bx.index_by_batched(info, in_dims, x, idx)
        idx = bx.as_tuple(idx)
        out = info.function.apply(front(x, in_dims[0]), (slice(None),) + idx, basic)
        return out, 0 if basic else bx.batch_pos(idx)



def _index_backward_kernel(gd: Any, shape: tuple, idx: Any, basic: bool) -> np.ndarray:
    """The gradient of ``x[idx]`` as an array of ``x``'s shape: ``gd`` put (basic) or
    added (advanced: repeated indices accumulate) at ``idx`` in zeros."""
    xp = B.namespace(gd) if type(gd) is not np.ndarray and not B.is_dask(gd) else np
    out = xp.zeros(shape, dtype=gd.dtype)
    if basic:
        out[idx] = gd
    else:
        np.add.at(out, idx, gd)
    return out

def flat_positions(shape: tuple, idx: Any) -> np.ndarray:
    """The flat (C-order) positions in an array of ``shape`` that ``a[idx]`` reads, laid out as
    ``a[idx]`` (``idx`` a NumPy index: ints, slices, None, Ellipsis, NumPy integer arrays). A
    host computation on the index only (no array values): what the Array API paths below
    gather from and scatter to with the standard's ``take``."""
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)[idx]


def gather_positions(d: Any, idx: Any) -> Any:
    """``d[idx]`` for an Array API array ``d`` and any NumPy index ``idx`` (the standard
    allows integer arrays only with integers, on every dim): one ``take`` from the flat array
    at :func:`flat_positions` (exact: a copy of the chosen elements)."""
    xp = B.namespace(d)
    pos = flat_positions(tuple(d.shape), idx)
    out = xp.take(xp.reshape(d, (-1,)), xp.asarray(pos.reshape(-1)), axis=0)
    return xp.reshape(out, pos.shape)


def scatter_positions(gd: Any, shape: tuple, pos: np.ndarray, accumulate: bool, base: Any = None) -> Any:
    """An Array API array of ``shape``: ``base`` (zeros when None) with ``gd`` (broadcast to
    ``pos.shape``) written at the flat positions ``pos`` (``np.add.at``'s sums when
    ``accumulate``, else NumPy's assignment, the last write of a repeated position winning).

    The standard has no index assignment and no scatter-add; this is both, exactly, with
    ``take`` and ``where``: the positions are grouped on the host (the index is host data),
    and round ``r`` adds the ``r``-th value written to each position (:func:`reduce_positions`),
    so the sums are added in NumPy's order, ``((0 + g_1) + g_2) + ...``; the number of rounds
    is the largest repeat count of one position."""
    xp = B.namespace(gd)
    n = int(np.prod(shape))
    gd = xp.broadcast_to(gd, tuple(pos.shape))
    flat = pos.reshape(-1)
    m = flat.size
    vals = xp.concat([xp.reshape(gd, (-1,)), xp.zeros((1,), dtype=gd.dtype)])  # vals[m] = 0
    order = np.argsort(flat, kind="stable")  # by position, then in write order
    sp = flat[order]
    first = np.ones(m, dtype=bool)
    first[1:] = sp[1:] != sp[:-1]
    rank = np.arange(m) - np.maximum.accumulate(np.where(first, np.arange(m), 0)) if m else np.zeros(0, np.int64)
    if not accumulate:  # the last write of each position only
        last = np.ones(m, dtype=bool)
        last[:-1] = sp[1:] != sp[:-1]
        inv = np.full(n, m, dtype=np.int64)
        inv[sp[last]] = order[last]
        hit = np.zeros(n, dtype=bool)
        hit[sp] = True
        new = xp.take(vals, xp.asarray(inv), axis=0)
        if base is None and bool(hit.all()):
            return xp.reshape(new, tuple(shape))
        old = xp.zeros((n,), dtype=gd.dtype) if base is None else xp.reshape(base, (-1,))
        return xp.reshape(xp.where(xp.asarray(hit), new, old), tuple(shape))
    start = xp.zeros(tuple(shape), dtype=gd.dtype) if base is None else base
    return reduce_positions(start, gd, pos, "add")  # (each round's where: untouched stays exact)


def reduce_positions(base: Any, vals: Any, pos: np.ndarray, op: str) -> Any:
    """``base`` (an Array API array) with ``vals`` (broadcast to ``pos.shape``) reduced into
    the flat positions ``pos`` (host integers) by ``op`` (``'add'``, ``'mul'``, ``'max'``,
    ``'min'``): ``np.add.at`` / ``multiply.at`` / ``maximum.at`` / ``minimum.at`` with the
    standard's functions. Exact and in NumPy's order: round ``r`` combines each position's
    ``r``-th value (grouped on the host, :func:`scatter_positions`), ``where`` leaving the
    other positions untouched."""
    xp = B.namespace(base)
    shape = tuple(base.shape)
    n = int(np.prod(shape))
    fn = {"add": xp.add, "mul": xp.multiply, "max": xp.maximum, "min": xp.minimum}[op]
    flat = pos.reshape(-1)
    m = flat.size
    out = xp.reshape(base, (-1,))
    if m == 0:
        return base
    vals = xp.reshape(xp.broadcast_to(B.astype(vals, B.np_dtype_of(base), copy=False), tuple(pos.shape)), (-1,))
    order = np.argsort(flat, kind="stable")
    sp = flat[order]
    first = np.ones(m, dtype=bool)
    first[1:] = sp[1:] != sp[:-1]
    rank = np.arange(m) - np.maximum.accumulate(np.where(first, np.arange(m), 0))
    for r in range(int(rank.max()) + 1):
        sel = rank == r
        inv = np.zeros(n, dtype=np.int64)
        inv[sp[sel]] = order[sel]
        hit = np.zeros(n, dtype=bool)
        hit[sp[sel]] = True
        out = xp.where(xp.asarray(hit), fn(out, xp.take(vals, xp.asarray(inv), axis=0)), out)
    return xp.reshape(out, shape)


def scatter_device(vals: Any, pos: Any, n: int, accumulate: bool = True) -> Any:
    """Zeros of ``(n,)`` with the 1-d Array API array ``vals`` added (``accumulate``: as
    ``np.add.at`` / ``np.bincount``) or written (the last write wins) at the 1-d integer
    positions ``pos``, an array of the same library (positions computed on the device, e.g.
    the maxima of max pooling), with the standard's functions only.

    Exact and in NumPy's order of additions: a stable ``argsort`` groups the writes by
    position (keeping their order), ``searchsorted`` finds each position's first write and
    count, and round ``r`` adds every position's ``r``-th write (``where`` selects, so a NaN
    or inf reaches only its own position). The number of rounds, the largest count, is read
    on the host (one integer)."""
    xp = B.namespace(vals, pos)
    m = vals.shape[0]
    out = xp.zeros((n,), dtype=vals.dtype)
    if m == 0 or n == 0:
        return out
    order = xp.argsort(pos, stable=True)
    sp = xp.take(pos, order, axis=0)
    sv = xp.take(vals, order, axis=0)
    allp = xp.arange(n, dtype=sp.dtype)
    lo = xp.searchsorted(sp, allp, side="left")
    cnt = xp.searchsorted(sp, allp, side="right") - lo
    zero = xp.zeros((), dtype=vals.dtype)
    if not accumulate:
        last = xp.take(sv, xp.clip(lo + cnt - 1, 0, m - 1), axis=0)
        return xp.where(cnt > 0, last, zero)
    for r in range(int(xp.max(cnt))):
        out = out + xp.where(cnt > r, xp.take(sv, xp.clip(lo + r, 0, m - 1), axis=0), zero)
    return out


def put_plan_xp(xd: Any, basic: Any, adv: Any, v: Any) -> Any:
    """A copy of the Array API array ``xd`` with ``v`` (an array or a number, cast to
    ``xd``'s dtype as NumPy's assignment does) written at the plan's index: the functional
    form of :func:`_assign` (:func:`scatter_positions`)."""
    xp = B.namespace(xd)
    shape = tuple(xd.shape)
    pos = np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)
    if basic is not None:
        pos = pos[basic]
    if adv is not None:
        pos = pos[adv]
    if isinstance(v, (bool, int, float)) or isinstance(v, np.ndarray) and v.ndim == 0:
        v = xp.full(tuple(pos.shape), v.item() if isinstance(v, np.ndarray) else v, dtype=xd.dtype)
    else:
        v = B.astype(v, B.np_dtype_of(xd), copy=False)
    try:
        v = xp.broadcast_to(v, tuple(pos.shape))
    except ValueError:
        raise ValueError(f"could not broadcast input array from shape {tuple(v.shape)} into shape {tuple(pos.shape)}") from None
    return scatter_positions(v, shape, pos, False, base=xd)


class IndexPutAdd(Linear):
    """``out = zeros(shape); out[idx] += g`` (repeated indices accumulate): the adjoint of
    :class:`Index`. ``grad_g = grad[idx]``."""

    @staticmethod
    def forward(ctx: Any, g: Tensor, shape: tuple, idx: Any, basic: bool) -> Tensor:
        ctx.idx = idx
        ctx.basic = basic
        gd = g._data
        if type(gd) is not np.ndarray:
            if not B.native(gd):  # an Array API array: no index assignment in the standard
                return wrap(scatter_positions(gd, tuple(shape), flat_positions(tuple(shape), idx), not basic))
            # Dask (one lazy task), CuPy: _backend.lazy_kernel
            return wrap(B.lazy_kernel(_index_backward_kernel, shape, gd.dtype, gd, shape, idx, basic))
        return wrap(_index_backward_kernel(gd, shape, idx, basic))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return Index.apply(gg, ctx.idx, ctx.basic), None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, g: Tensor, shape: tuple, idx: Any, basic: bool) -> tuple:
        """Batching rule: the zeros get a leading batch dim and the index a leading full
        slice; ``g`` is laid out like the indexed region (batch dim after the advanced
        dims when those are separated)."""
        if in_dims[2] is not None:  # index tensors that differ per example
            return bx.put_add_by_batched(info, in_dims, g, shape, idx)
        idx = bx.as_tuple(idx)
        shape = tuple(shape)
        pos = 0 if basic else bx.batch_pos(idx)
        g = bx.place_value(g, in_dims[0], len(bx.index_shape(shape, idx)), pos)
        out = info.function.apply(g, (info.batch_size,) + shape, (slice(None),) + idx, basic)
        return out, 0


class Select(Index):
    """A basic index whose last effective item is an int: :class:`Index`, PyTorch's name."""



class Slice(Index):
    """A basic index whose last effective item is a slice: :class:`Index`, PyTorch's name."""



class UnsqueezeIndex(Index):
    """A basic index whose last effective item is None: :class:`Index`, PyTorch's name."""

    _node_name = "UnsqueezeBackward0"


class Alias(Index):
    """``x[...]`` / ``x[:]``: a view of all of ``x``; :class:`Index`, PyTorch's name."""



def _basic_cls(idx: tuple) -> type:
    """PyTorch applies index items left to right; its outermost node is the last one that
    is not a no-op full slice."""
    for i in reversed(idx):
        if i is Ellipsis or (isinstance(i, slice) and i == _FULL):
            continue
        return UnsqueezeIndex if i is None else Slice if isinstance(i, slice) else Select
    return Alias


def index_put_add(g: Tensor, shape: tuple, idx: Any) -> Tensor:
    """Scatter-add ``g`` into zeros of ``shape`` at ``idx`` (the adjoint of ``x[idx]``).

    What backward of :func:`getitem` computes (repeated indices accumulate); dyngrad's own
    name, not PyTorch's (``zeros(shape).index_put_(idx, g, accumulate=True)`` there).

    Derivative: ``grad_g = grad_output[idx]`` (the op is linear in ``g``).

    Args:
        g (Tensor): ``zeros(shape)[idx].shape``, the values to add.
        shape (tuple of int): the result's shape ``(*shape)``.
        idx: any index :func:`getitem` accepts for a tensor of ``shape``.
    Returns:
        Tensor: ``(*shape)``, ``g``'s dtype.
    Raises:
        IndexError: as :func:`getitem`, for an index out of range of ``shape``.

    Example:
        >>> import dyngrad
        >>> dyngrad.index_put_add(dyngrad.tensor([1.0, 2.0, 3.0]), (4,), (dyngrad.tensor([0, 0, 3]),))
        tensor([3., 0., 0., 3.])
    """
    basic, adv = plan_index(idx, tuple(shape))
    if adv is not None:
        mid = np.empty(shape, dtype=np.bool_)[basic].shape if basic is not None else tuple(shape)
        g = IndexPutAdd.apply(g, mid, adv, False)
    if basic is not None:
        g = IndexPutAdd.apply(g, tuple(shape), basic, True)
    return g


def getitem(input: Tensor, index: Any) -> Tensor:
    """``input[index]`` (see the module docstring for the index forms).

    What ``Tensor.__getitem__`` calls; dyngrad's name for it (PyTorch has no function).

    Derivative: ``grad_input = zeros_like(input)`` with ``grad_output`` added at ``index``
    (repeated advanced indices accumulate; :func:`index_put_add`).

    Args:
        input (Tensor): ``(*)``, any dtype.
        index: int, slice, None, Ellipsis, bool, bool mask, integer Tensor/array/list, or a
            tuple of these. Negative indices count from the end.
    Returns:
        Tensor: a view for basic indices, a copy when an advanced index is present; same dtype.
    Raises:
        IndexError: out-of-range index (naming the dim and its size), float index, too
            many indices, mask of the wrong shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(6.0).reshape(2, 3).requires_grad_()
        >>> y = dyngrad.getitem(x, (slice(None), [0, 0, 2]))
        >>> y.detach()
        tensor([[0., 0., 2.],
                [3., 3., 5.]])
        >>> y.sum().backward()
        >>> x.grad
        tensor([[2., 0., 1.],
                [2., 0., 1.]])
    """
    plan = bx.plan_batched(index, input._data.shape, plan_index)  # index tensors that differ per example
    basic, adv = plan_index(index, input._data.shape) if plan is None else plan
    out = input
    if basic is not None:
        out = _basic_cls(basic).apply(out, basic, True)
    if adv is not None:
        out = Index.apply(out, adv, False)
    elif basic is None:
        out = Alias.apply(out, (Ellipsis,), True)  # x[...] / x[:]: a fresh view, as PyTorch
    return out


def _assign(out: np.ndarray, basic: Any, adv: Any, v: Any) -> None:
    target = out[basic] if basic is not None else out
    if adv is None:
        if basic is None:
            out[...] = v
        else:
            out[basic] = v
    else:
        target[adv] = v


def _assigned(x: np.ndarray, basic: Any, adv: Any, v: Any) -> np.ndarray:
    """A copy of ``x`` with ``v`` assigned at the plan's index (:func:`_assign`)."""
    out = np.array(x, copy=True)
    _assign(out, basic, adv, v)
    return out


class IndexPut(Op):
    """``out = x`` with ``out[idx] = v`` (``v`` broadcast to the indexed shape).

    ``grad_x = grad`` with zeros at ``idx``; ``grad_v = grad[idx]`` (summed down to v's
    shape by the engine when v was broadcast)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, v: Any, plan: tuple) -> Tensor:
        xd = x._data
        if type(xd) is not np.ndarray and B.is_dask(xd) or B.is_dask(data_of(v)):
            # Dask: the chained write out[basic][adv] = v would go into a temporary: one lazy task
            ctx.plan, ctx.shape = plan, xd.shape
            return wrap(B.lazy_kernel(_assigned, xd.shape, xd.dtype, xd, plan[0], plan[1], data_of(v)))
        if not B.native(xd):  # an Array API array: no index assignment in the standard
            try:
                out = put_plan_xp(xd, plan[0], plan[1], data_of(v))
            except ValueError as e:
                raise RuntimeError(f"index_put_: {e} (tensor of shape {list(x.shape)})") from None
            ctx.plan, ctx.shape = plan, xd.shape
            return wrap(out)
        out = xd.copy()
        try:
            _assign(out, plan[0], plan[1], data_of(v))
        except ValueError as e:
            raise RuntimeError(f"index_put_: {e} (tensor of shape {list(x.shape)})") from None
        ctx.plan = plan
        ctx.shape = x._data.shape
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gx = gv = None
        basic, adv = ctx.plan
        if n[0]:
            mask = np.ones(ctx.shape, dtype=B.np_dtype_of(g._data))
            _assign(mask, basic, adv, 0)
            gx = g * wrap(B.like(mask, g._data))
        if n[1]:
            gv = g
            if basic is not None:
                gv = Index.apply(gv, basic, True)
            if adv is not None:
                gv = Index.apply(gv, adv, False)
        return gx, gv, None

    # hand-written: affine in a number value (a constant carries no tangent), so not Linear
    @staticmethod
    def jvp(ctx: Any, ux: Any, uv: Any, *_: Any) -> Any:
        """Forward mode: ``t = ux`` with ``t[idx] = uv`` (None tangents are 0)."""
        x = ctx._fwd_inputs[0]
        ux = ux if ux is not None else Tensor._make(np.zeros_like(x._data))
        return IndexPut.apply(ux, uv if uv is not None else 0.0, ctx.plan)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, v: Any, plan: tuple) -> tuple:
        """Batching rule: ``x`` batch-first (expanded when only ``v`` is batched), a full
        slice prepended to the index plan, ``v`` laid out like the indexed region (batch
        dim after the advanced dims when those are separated by a slice)."""
        dx, dv = in_dims[0], in_dims[1]
        basic, adv = plan
        if in_dims[2] is not None:  # index tensors that differ per example
            return bx.put_by_batched(info, in_dims, x, v, plan)
        x = bx.batch_operand(x, dx, info.batch_size)
        lshape = tuple(x.shape[1:])
        nb = None if basic is None else (slice(None),) + bx.as_tuple(basic)
        na = None if adv is None else (slice(None),) + bx.as_tuple(adv)
        if isinstance(v, Tensor):
            region = bx.index_shape(lshape, basic) if basic is not None else lshape
            pos = 0
            if adv is not None:
                pos = bx.batch_pos(bx.as_tuple(adv))
                region = bx.index_shape(region, adv)
            v = bx.place_value(v, dv, len(region), pos)
        return info.function.apply(x, v, (nb, na)), 0


def _index_put(x: Tensor, v: Any, plan: tuple) -> Tensor:
    return IndexPut.apply(x, v, plan)


_index_put.__name__ = "index_put"
_index_put._own_overlap_check = True  # type: ignore[attr-defined]  # setitem_ compares the written region


def _is_basic(index: Any) -> bool:
    """Whether ``index`` selects a view (ints, slices, None, Ellipsis; no tensors or lists)."""
    parts = index if isinstance(index, tuple) else (index,)
    return all(p is None or p is Ellipsis or isinstance(p, slice) or (type(p) is int) for p in parts)


def _check_assign_overlap(input: Tensor, index: Any, value: Tensor) -> None:
    """PyTorch's overlap check of ``input[index] = value``: with a view index, ``value`` must not
    partially overlap the written elements (``x[1:] = x[:-1]``; ``x[0] = x[1]`` is fine); with
    tensor or list indices (``index_put_``), not ``input`` at all."""
    d = input._data
    if type(d) is not np.ndarray or type(value._data) is not np.ndarray or not np.may_share_memory(d, value._data):
        return
    if _is_basic(index):
        try:
            target = d[index]
        except (IndexError, TypeError):
            return  # (the assignment itself reports a bad index)
        if isinstance(target, np.ndarray):
            check_no_partial_overlap(Tensor._make(target), (value,), {})
        return
    check_no_partial_overlap(input, (value,), {})


def setitem_(input: Tensor, index: Any, value: Any) -> Tensor:
    """``input[index] = value`` in place (bumps the version counter shared with views).

    What ``Tensor.__setitem__`` calls; dyngrad's name for it (PyTorch's is ``index_put_``
    for tensor indices).

    Derivative: ``grad_input = grad_output`` with the written positions zeroed; ``grad_value
    = grad_output[index]`` summed to ``value``'s shape (``input`` takes over the new history).

    Args:
        input (Tensor): ``(*)``, overwritten.
        index: any index accepted by :func:`getitem`.
        value (Tensor or number): broadcastable to ``input[index].shape`` (cast to
            ``input``'s dtype).
    Returns:
        Tensor: ``input`` itself.
    Raises:
        RuntimeError: on a leaf that requires grad (outside no_grad), on a read-only
            (expanded) tensor, when ``value`` does not broadcast to the indexed shape, or
            when ``value`` partially overlaps the written elements (as PyTorch).
        IndexError: as :func:`getitem`.

    Example:
        >>> import dyngrad
        >>> z = dyngrad.zeros(2, 3)
        >>> dyngrad.setitem_(z, (0, slice(1, None)), 5.0) is z
        True
        >>> z
        tensor([[0., 5., 5.],
                [0., 0., 0.]])
    """
    if isinstance(value, Tensor):
        _check_assign_overlap(input, index, value)
    plan = bx.plan_batched(index, input._data.shape, plan_index) or plan_index(index, input._data.shape)
    # the fast path writes ._data and tells no one: with an interpreter active (a transform
    # may keep per-tensor state, _util.inplace) go through IndexPut and its rules
    if not recording(input, value) and not _ctx.interpreters:
        if not B.writeable(input._data):
            raise RuntimeError("index assignment: the tensor's memory is read-only (an expanded view); clone() it first")
        try:
            _assign(input._data, plan[0], plan[1], data_of(value))
        except ValueError as e:
            raise RuntimeError(f"index assignment: {e} (tensor of shape {list(input.shape)})") from None
        input._vc[0] += 1
        return input
    if input._retains_grad and input.grad_fn is None:
        # retain_grad() then detach_(): PyTorch writes through a view (copy_ on x[index]),
        # which retains nothing (autograd/graph.py rebase_retain_grad)
        input._retains_grad = False
        try:
            return inplace(_index_put, input, value, plan)
        finally:
            input._retains_grad = True
    return inplace(_index_put, input, value, plan)


def narrow(input: Tensor, dim: int, start: Any, length: int) -> Tensor:
    """The slice ``start:start+length`` of ``dim`` (a view sharing memory).

    Derivative: ``grad_input`` is ``grad_output`` placed in that slice of zeros
    (derivatives.yaml ``narrow`` / ``slice_backward``).

    Args:
        input (Tensor): ``(*)``, at least 1-d.
        dim (int): the dim to narrow (negative counts from the end).
        start (int or 0-d Tensor): the first index, in ``[-size, size]`` (negative counts
            from the end).
        length (int): how many elements, ``>= 0``.
    Returns:
        Tensor: ``input``'s shape with ``length`` at ``dim``, a view.
    Raises:
        IndexError: dim out of range, start out of range.
        RuntimeError: ``start + length`` past the end, negative length, 0-d input.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(5)
        >>> dyngrad.narrow(x, 0, 1, 3), dyngrad.narrow(x, 0, -2, 2)
        (tensor([1, 2, 3]), tensor([3, 4]))
    """
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, input._data.ndim, "narrow")
    size = input._data.shape[d]
    start = int(start)
    if not -size <= start <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if length < 0 or start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    idx = (_FULL,) * d + (slice(start, start + length), Ellipsis)
    return Slice.apply(input, idx, True)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``input`` indexed with ``index`` along ``dim`` (that dim removed; a view).

    Derivative: ``grad_input`` is ``grad_output`` placed at ``index`` of ``dim`` in zeros
    (derivatives.yaml ``select_backward``).

    Args:
        input (Tensor): ``(*)``, at least 1-d.
        dim (int): the dim to index (negative counts from the end).
        index (int): in ``[-size, size)``.
    Returns:
        Tensor: ``input``'s shape without ``dim``, a view.
    Raises:
        IndexError: dim or index out of range (naming the dim and the size), or a 0-d input.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        >>> y = dyngrad.select(x, 1, -1)
        >>> y.detach()
        tensor([3., 6.])
        >>> y.sum().backward()
        >>> x.grad
        tensor([[0., 0., 1.],
                [0., 0., 1.]])
    """
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = norm_dim(dim, input._data.ndim, "select")
    size = input._data.shape[d]
    index = int(index)
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}"
        )
    idx = (_FULL,) * d + (index, Ellipsis)
    return Select.apply(input, idx, True)
