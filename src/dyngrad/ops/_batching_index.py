"""Batching helpers of the indexing family (indexing.py, gather.py; see ops/_batching.py
for the rule protocol).

Index plans are computed by the wrappers on the *logical* shape. Under vmap the batch dim
is put first and a full slice is prepended to the plan. NumPy keeps a block of advanced
indices (arrays, and ints when an array is present) in place when it is contiguous in the
index, and puts its dims first when a slice, None or Ellipsis separates them: the batch
dim then follows them (:func:`batch_pos`).

Batched index tensors (a different index per example) are a transform's wrapper tensors
in the wrapper functions (``Tensor._is_wrapper``: their ``._data`` does not hold their
values): :func:`plan_batched` plans around them by shape and dtype alone. Their values are
read inside the rules, where they are ordinary arrays: an ``arange(batch)`` index on the
batch dim pairs each example with its own index (:func:`index_by_batched`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import TransformUnsupported
from ..tensor import Tensor
from ._batching import front, pad_to
from ._util import data_of, is_wrapper
from .. import _backend as B

__all__ = ["batch_pos", "index_shape", "as_tuple", "place_value", "batch_operand", "int_values",
           "plan_batched", "index_by_batched", "put_by_batched", "put_add_by_batched"]

_ARRAY = (np.ndarray, list, tuple, Tensor)


def _shape(i: Any) -> tuple:
    if isinstance(i, Tensor):
        return tuple(i.shape)
    a = np.asarray(i)
    return (int(a.sum()),) if a.dtype == np.bool_ else a.shape


def batch_pos(idx: tuple) -> int:
    """Where the batch dim lands in ``y[(slice(None),) + idx]`` for a batch-first ``y``."""
    if not any(isinstance(i, _ARRAY) for i in idx):
        return 0
    adv = [k for k, i in enumerate(idx) if isinstance(i, (*_ARRAY, int, np.integer))]
    if adv[-1] - adv[0] + 1 == len(adv):
        return 0
    return len(np.broadcast_shapes(*(_shape(idx[k]) for k in adv)))


def index_shape(shape: tuple, idx: Any) -> tuple:
    """The shape of ``zeros(shape)[idx]`` (computed on a zero-stride array; index tensors
    still batched at an outer vmap level count by their shape)."""
    if isinstance(idx, tuple) and any(isinstance(i, Tensor) for i in idx):
        idx = tuple(np.zeros(i.shape, np.intp) if isinstance(i, Tensor) else i for i in idx)
    return np.broadcast_to(np.empty((), np.bool_), shape)[idx].shape


def as_tuple(idx: Any) -> tuple:
    return idx if isinstance(idx, tuple) else (idx,)


def place_value(v: Tensor, d: Any, rank: int, pos: int) -> Tensor:
    """A value ``v`` (batch dim at ``d``, or unbatched when None) laid out to broadcast
    against a target of ``rank`` logical dims whose batch dim sits at ``pos``."""
    if d is None:
        lnd = v.ndim
        v = v.reshape((1,) * (rank - lnd + 1) + tuple(v.shape)) if lnd < rank + 1 else v
    else:
        v = pad_to(front(v, d), rank)
    return v if pos == 0 else v.movedim(0, pos)


def batch_operand(t: Any, d: Any, n: int) -> Any:
    """A tensor operand batch-first; an unbatched one expanded to the batch (non-tensors
    pass through)."""
    if not isinstance(t, Tensor):
        return t
    if d is None:
        return t.unsqueeze(0).expand((n,) + tuple(t.shape))
    return front(t, d)


def int_values(index: Any, d: int, op: str) -> np.ndarray:
    """The values of a batched integer index (batch dim ``d``) as a batch-first array.

    Raises:
        RuntimeError: a non-integer index.
    """
    a = data_of(index)
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if B.kind(a) not in "iu" or a.dtype == np.uint8:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index, got {a.dtype}")
    return np.moveaxis(a, d, 0)


def plan_batched(index: Any, shape: tuple, plan: Any) -> tuple | None:
    """``plan(index, shape)`` for an index holding wrapper tensors (batched index tensors;
    None when it holds none): each integer one stands in the plan as a zero array of its
    logical shape (a 0-d one as an advanced index, like an int) and is put back in the
    advanced part afterwards.

    Raises:
        TransformUnsupported: a batched bool mask (the result's shape would depend on the
            values), or a batched 0-d index next to other index tensors (PyTorch applies
            it as an int first); vmap then runs the function once per example.
    """
    items = index if isinstance(index, tuple) else (index,)
    if not any(is_wrapper(i) for i in items):
        return None
    subs: dict = {}
    new, zero_d = [], False
    for i in items:
        if is_wrapper(i):
            dt = i._data.dtype  # a wrapper's ._data has its logical shape and dtype
            if dt == np.bool_ or dt == np.uint8:
                raise TransformUnsupported("indexing with a batched bool mask (its result shape depends on the values)")
            if dt.kind not in "iu":
                raise IndexError(f"tensors used as indices must be long, int, byte or bool tensors, got {dt}")
            ph = np.zeros(i.shape or (1,), np.int64)
            zero_d |= not i.shape
            subs[id(ph)] = i
            i = ph
        new.append(i)
    basic, adv = plan(tuple(new), shape)
    if zero_d and sum(isinstance(a, np.ndarray) for a in adv) > 1:
        raise TransformUnsupported("a batched 0-d index tensor together with other index tensors")
    return basic, tuple(subs.get(id(a), a) for a in adv)


def _batched_items(n: int, dims: tuple, idx: tuple, shape: tuple) -> tuple:
    """The physical advanced index for a batch-first target of ``shape`` indexed by the
    logical ``idx`` (slices and arrays; ``dims[k]`` the batch dim of a batched array):
    ``(arange(n), *items)`` broadcasting together, the rank ``r`` of the logical index
    broadcast, and the positions of the arrays in ``idx``.

    Raises:
        IndexError: an index out of range for its dim.
    """
    items = list(idx)
    pos = [k for k, i in enumerate(items) if not isinstance(i, slice)]
    shapes = []
    for k in pos:
        if dims[k] is None:
            shapes.append(tuple(np.shape(items[k]) if not isinstance(items[k], Tensor) else items[k].shape))
        elif is_wrapper(items[k]):  # batched at an outer level too: its rule there reads it
            items[k] = front(items[k], dims[k])
            shapes.append(tuple(items[k].shape[1:]))
        else:
            items[k] = a = int_values(items[k], dims[k], "index")
            size = shape[1 + k]
            if a.size and (a.max() >= size or a.min() < -size):
                bad = int(a.max()) if a.max() >= size else int(a.min())
                raise IndexError(f"index {bad} is out of bounds for dimension {k} with size {size}")
            shapes.append(a.shape[1:])
    r = len(np.broadcast_shapes(*shapes))
    for k in pos:
        if dims[k] is not None:
            a = items[k]
            items[k] = a.reshape((n,) + (1,) * (r - a.ndim + 1) + tuple(a.shape[1:]))
    return (np.arange(n).reshape((n,) + (1,) * r), *items), r, pos


def _block_moved(pos: list) -> int:
    """The number of slices before a contiguous block of index arrays (0 when the block
    comes first or the arrays are separated: then NumPy's layout already is the logical
    one, batch first)."""
    p = pos[0]
    return p if p and pos[-1] - p + 1 == len(pos) else 0


def index_by_batched(info: Any, in_dims: tuple, x: Any, idx: tuple) -> tuple:
    """Batched ``x[idx]`` for an advanced index ``idx`` (slices and arrays) some of whose
    arrays are batched (``in_dims[1]`` holds their batch dims): ``arange(batch)`` indexes
    the batch dim together with the (batch-first) arrays; the result's batch dim is first.

    Raises:
        IndexError: an index out of range for its dim.
    """
    x = batch_operand(x, in_dims[0], info.batch_size)
    phys, r, pos = _batched_items(info.batch_size, in_dims[1], idx, tuple(x.shape))
    out = info.function.apply(x, phys, False)
    p = _block_moved(pos)
    if p:  # NumPy put the block (after the batch dim) before the p sliced dims
        out = out.permute([0, *range(1 + r, 1 + r + p), *range(1, 1 + r), *range(1 + r + p, out.ndim)])
    return out, 0


def put_by_batched(info: Any, in_dims: tuple, x: Any, v: Any, plan: tuple) -> tuple:
    """Batched ``IndexPut(x, v, (basic, adv))`` whose advanced index holds batched arrays
    (``in_dims[2] = (None, dims of adv)``): as :func:`index_by_batched`, with ``v`` laid
    out like the indexed region.

    Raises:
        IndexError: an index out of range for its dim.
    """
    n = info.batch_size
    basic, adv = plan
    x = batch_operand(x, in_dims[0], n)
    nb = None if basic is None else (slice(None),) + as_tuple(basic)
    target = index_shape(tuple(x.shape), nb) if nb is not None else tuple(x.shape)
    phys, r, pos = _batched_items(n, in_dims[2][1], adv, target)
    if isinstance(v, Tensor):
        v = _region_value(v, in_dims[1], len(target) - 1, r, pos)
    return info.function.apply(x, v, (nb, phys)), 0


def put_add_by_batched(info: Any, in_dims: tuple, g: Any, shape: tuple, idx: tuple) -> tuple:
    """Batched ``IndexPutAdd(g, shape, idx, False)`` whose index holds batched arrays
    (``in_dims[2]``): zeros of ``(batch, *shape)``, ``g`` laid out like the indexed region.

    Raises:
        IndexError: an index out of range for its dim.
    """
    n = info.batch_size
    shape = (n,) + tuple(shape)
    phys, r, pos = _batched_items(n, in_dims[2], idx, shape)
    g = _region_value(g, in_dims[0], len(shape) - 1, r, pos)
    return info.function.apply(g, shape, phys, False), 0


def _region_value(v: Tensor, d: Any, nd: int, r: int, pos: list) -> Tensor:
    """``v`` (batch dim at ``d`` or None) laid out like ``y[(arange, *items)]`` of a
    batch-first ``y`` with ``nd`` logical dims whose index arrays at ``pos`` broadcast to
    ``r`` dims: batch first, then NumPy's order (the array block first)."""
    rank = nd - len(pos) + r
    v = place_value(v, d, rank, 0)
    p = _block_moved(pos)
    if p:
        v = v.permute([0, *range(1 + p, 1 + p + r), *range(1, 1 + p), *range(1 + p + r, rank + 1)])
    return v
