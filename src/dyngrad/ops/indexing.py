"""Indexing: ``x[idx]``, ``x[idx] = v``, masked fills, narrow/select.

Indices follow NumPy/PyTorch rules: ints, slices, None, Ellipsis, bool masks and integer
tensors or lists (advanced indexing). Basic indexing returns a view; the gradient of an
advanced index accumulates over repeated indices.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import data_of, inplace, make_view, norm_dim, recording, wrap

__all__ = ["getitem", "setitem_", "masked_fill", "masked_fill_", "narrow", "select", "index_put_add"]
TENSOR_METHODS = {"masked_fill", "masked_fill_", "narrow", "select"}


def _conv(i: Any) -> Any:
    if isinstance(i, Tensor):
        d = i.data
    elif isinstance(i, list):
        d = np.asarray(i)
        if d.dtype.kind == "f" or d.dtype == object:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        return d
    else:
        return i
    if d.dtype.kind == "f":
        raise IndexError(
            f"tensors used as indices must be long, int, byte or bool tensors, got {i.dtype.name}"
        )
    if d.dtype == np.uint8:
        d = d.astype(bool)
    return d


def convert_index(index: Any) -> Any:
    """Turn Tensors/lists inside an index into ndarrays; reject float indices (IndexError)."""
    if isinstance(index, tuple):
        return tuple(_conv(i) for i in index)
    return _conv(index)


def _is_basic(idx: Any) -> bool:
    items = idx if isinstance(idx, tuple) else (idx,)
    for i in items:
        if not (i is None or i is Ellipsis or isinstance(i, (int, slice, np.integer))) or isinstance(i, bool):
            return False
    return True


def _take(d: np.ndarray, idx: Any, shape: tuple) -> np.ndarray:
    try:
        return d[idx]
    except IndexError as e:
        raise IndexError(f"index: {e} (tensor of shape {list(shape)})") from None


class IndexPutAdd(Function):
    """``out = zeros(shape); out[idx] += g`` (accumulating repeated indices), the backward
    of indexing; ``grad_g = grad[idx]``."""

    _builtin = True
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx: Any, g: Tensor, shape: tuple, idx: Any, basic: bool) -> Tensor:
        ctx.idx = idx
        ctx.basic = basic
        out = np.zeros(shape, dtype=g.data.dtype)
        if basic:
            out[idx] = g.data
        else:
            np.add.at(out, idx, g.data)
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return Index.apply(gg, ctx.idx, ctx.basic), None, None, None


def index_put_add(g: Tensor, shape: tuple, idx: Any) -> Tensor:
    """Scatter-add ``g`` into zeros of ``shape`` at ``idx`` (the adjoint of ``x[idx]``)."""
    idx = convert_index(idx)
    return IndexPutAdd.apply(g, tuple(shape), idx, _is_basic(idx))


class Index(Function):
    """``out = x[idx]``; ``grad_x = zeros_like(x)`` with ``grad`` added at ``idx``."""

    _builtin = True
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, idx: Any, basic: bool) -> Tensor:
        ctx.shape = x.data.shape
        ctx.idx = idx
        ctx.basic = basic
        out = wrap(_take(x.data, idx, x.data.shape))
        return make_view(out, x) if basic else out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return IndexPutAdd.apply(g, ctx.shape, ctx.idx, ctx.basic), None, None


def getitem(input: Tensor, index: Any) -> Tensor:
    """``input[index]`` (see module docs for the index forms).

    Raises:
        IndexError: out-of-range or float indices.
    """
    idx = convert_index(index)
    return Index.apply(input, idx, _is_basic(idx))


class IndexPut(Function):
    """``out = x`` with ``out[idx] = v``.

    ``grad_x = grad`` with zeros at ``idx``; ``grad_v = grad[idx]`` (summed down to v's
    shape by the engine when v was broadcast)."""

    _builtin = True
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, v: Any, idx: Any) -> Tensor:
        out = x.data.copy()
        try:
            out[idx] = data_of(v)
        except (ValueError, IndexError) as e:
            raise RuntimeError(f"index_put_: {e} (tensor of shape {list(x.shape)})") from None
        ctx.idx = idx
        ctx.basic = _is_basic(idx)
        ctx.shape = x.data.shape
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gx = gv = None
        if n[0]:
            mask = np.ones(ctx.shape, dtype=g.data.dtype)
            mask[ctx.idx] = 0
            gx = g * wrap(mask)
        if n[1]:
            gv = Index.apply(g, ctx.idx, ctx.basic)
        return gx, gv, None


def _index_put(x: Tensor, v: Any, idx: Any) -> Tensor:
    return IndexPut.apply(x, v, idx)


_index_put.__name__ = "index_put"


def setitem_(input: Tensor, index: Any, value: Any) -> Tensor:
    """``input[index] = value`` in place (bumps the version). When recording, the
    gradient flows to the untouched part of ``input`` and to ``value``.

    Raises:
        RuntimeError: on a leaf that requires grad (outside no_grad); shape mismatch.
    """
    idx = convert_index(index)
    if not recording(input, value):
        if not input.data.flags.writeable:
            raise RuntimeError("index assignment: the tensor's memory is read-only (an expanded view); clone() it first")
        try:
            input.data[idx] = data_of(value)
        except ValueError as e:
            raise RuntimeError(f"index assignment: {e} (tensor of shape {list(input.shape)})") from None
        input._vc[0] += 1
        return input
    return inplace(_index_put, input, value, idx)


class MaskedFill(Function):
    """``out = where(mask, value, x)``; ``grad_x = grad * ~mask``,
    ``grad_value = sum(grad * mask)`` (value a 0-d tensor)."""

    _builtin = True
    _node_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, mask: Any, value: Any) -> Tensor:
        m = data_of(mask)
        if m.dtype != np.bool_:
            raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with dtype {m.dtype}")
        ctx.mask = m
        v = data_of(value)
        out = np.where(m, np.asarray(v, dtype=x.data.dtype), x.data)
        if out.shape != x.data.shape:
            out = np.broadcast_to(out, np.broadcast_shapes(out.shape, x.data.shape)).copy()
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        m = wrap(ctx.mask)
        gx = g * wrap(~ctx.mask) if n[0] else None
        gv = (g * m).sum() if len(n) > 2 and n[2] else None
        return gx, None, gv


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    """Fill positions where ``mask`` (bool, broadcastable) is True with ``value``.

    Raises:
        RuntimeError: non-bool mask; value tensor with more than one element.
    """
    if isinstance(value, Tensor) and value.data.ndim != 0:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.data.ndim} dimension(s)."
        )
    return MaskedFill.apply(input, mask, value)


def masked_fill_(input: Tensor, mask: Any, value: Any) -> Tensor:
    """In-place ``masked_fill``."""
    if not recording(input, value):
        m = data_of(mask)
        if m.dtype != np.bool_:
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {m.dtype}")
        np.copyto(input.data, np.asarray(data_of(value), dtype=input.data.dtype), where=m)
        input._vc[0] += 1
        return input
    return inplace(masked_fill, input, mask, value)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """The slice ``start:start+length`` of ``dim`` (a view).

    Raises:
        IndexError/RuntimeError: dim or range out of bounds.
    """
    d = norm_dim(dim, input.data.ndim, "narrow")
    size = input.data.shape[d]
    if start < 0:
        start += size
    if not (0 <= start <= size and 0 <= length and start + length <= size):
        raise RuntimeError(f"narrow(): start ({start}) + length ({length}) exceeds dimension size ({size}).")
    idx = (slice(None),) * d + (slice(start, start + length),)
    return Index.apply(input, idx, True)


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """``input`` indexed with ``index`` along ``dim`` (that dim removed; a view).

    Raises:
        IndexError: out of range.
    """
    d = norm_dim(dim, input.data.ndim, "select")
    size = input.data.shape[d]
    if not -size <= index < size:
        raise IndexError(
            f"select(): index {index} out of range for tensor of size {list(input.shape)} at dimension {d}"
        )
    idx = (slice(None),) * d + (int(index),)
    return Index.apply(input, idx, True)


_ = recording
