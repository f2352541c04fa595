"""Masked ops: ``masked_fill`` (in place too), ``masked_select`` and ``index_fill``.
A mask selects positions; the gradient flows to the unselected positions of the input
(fill) or only to the selected ones (select)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd.grad_mode import state as _ctx
from ..tensor import Tensor
from ._bases import Op
from ._batching import front, logical_ndim, pad_to
from ._util import data_of, inplace, recording, wrap

__all__ = ["masked_fill", "masked_fill_", "masked_select", "index_fill"]
TENSOR_METHODS = set(__all__)


class MaskedFill(Op):
    """``out = where(mask, value, x)`` (shapes broadcast); ``grad_x = grad`` where ``~mask``
    else 0, ``grad_value = sum(grad where mask)`` (value a 0-d tensor)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, mask: Any, value: Any) -> Tensor:
        m = data_of(mask)
        if m.dtype != np.bool_ and B.kind(m) != "b":
            raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with dtype {m.dtype}")
        ctx.mask = m
        v = data_of(value)
        d = x._data
        if type(d) is not np.ndarray and not B.native(d):
            return wrap(_masked_fill_xp(d, m, v))
        out = np.where(m, B.asarray_any(v, dtype=x._data.dtype), x._data)
        if out.shape != x._data.shape:
            out = np.broadcast_to(out, np.broadcast_shapes(out.shape, x._data.shape)).copy()
        return wrap(out)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, mask: Any, value: Any) -> Any:
        """Batching rule: ``x`` and ``mask`` broadcast right-aligned (batch dims to the front,
        ranks padded); a shared ``value`` fills as is; a batched 0-d ``value`` (one per
        example) becomes ``where(mask, value, x)`` with ``value`` cast to ``x``'s dtype
        (MaskedFill's ``grad_value`` sums over the whole tensor, batch included)."""
        dx, dm, dv = in_dims
        if not all(d is None or isinstance(d, int) for d in in_dims):
            return NotImplemented
        m = mask if isinstance(mask, Tensor) else wrap(B.asarray_any(data_of(mask)))
        if m._data.dtype != np.bool_ and B.kind(m._data) != "b":
            raise RuntimeError(f"masked_fill only supports boolean masks, but got mask with dtype {m._data.dtype}")
        rank = max(logical_ndim(x, dx), logical_ndim(m, dm))
        xb = x if dx is None else pad_to(front(x, dx), rank)
        mb = m if dm is None else pad_to(front(m, dm), rank)
        if dv is None:
            out = MaskedFill.apply(xb, mb, value)
        else:
            from .copying import ToDtype
            from .pointwise import Where

            v = pad_to(front(value, dv), rank)
            if v._data.dtype != x._data.dtype:
                v = ToDtype.apply(v, x._data.dtype)
            out = Where.apply(mb, v, xb)
        return out, 0

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        # masked_fill, not a product with the mask: inf/nan gradients don't leak (as PyTorch)
        gx = g.masked_fill(wrap(ctx.mask), 0) if n[0] else None
        gv = g.masked_fill(wrap(~ctx.mask), 0).sum() if len(n) > 2 and n[2] else None
        return gx, None, gv

    # hand-written: affine in a number value (a constant carries no tangent), so not Linear
    @staticmethod
    def jvp(ctx: Any, ux: Any, um: Any = None, uv: Any = None) -> Any:
        """Forward mode: ``t = where(mask, uv, ux)`` (a None tangent is 0)."""
        m = wrap(ctx.mask)
        ts = [t for t in (None if ux is None else ux.masked_fill(m, 0), None if uv is None else uv * m)
              if t is not None]
        return sum(ts[1:], ts[0])


def _masked_fill_xp(d: Any, m: Any, v: Any) -> Any:
    """:class:`MaskedFill`'s forward with the standard's functions (an Array API array ``d``;
    a number ``v`` is cast to ``d``'s dtype on the host, as NumPy's ``asarray`` would)."""
    xp = B.namespace(d, m)
    if isinstance(m, np.ndarray):  # a 0-d NumPy mask joins as a constant (namespace())
        m = B.like(m, d)
    nd = B.np_dtype_of(d)
    if isinstance(v, (bool, int, float, np.generic)) or (isinstance(v, np.ndarray) and v.ndim == 0):
        with np.errstate(all="ignore"):
            v = B.like(np.asarray(v).astype(nd), d)
    else:
        v = B.astype(v, nd, copy=False)
    out = xp.where(m, v, d)
    if out.shape != d.shape:
        out = xp.broadcast_to(out, np.broadcast_shapes(out.shape, d.shape))
    return out


def masked_fill(input: Tensor, mask: Any, value: Any) -> Tensor:
    """Fill positions where ``mask`` is True with ``value``.

    Derivative: ``grad_input = grad_output.masked_fill(mask, 0)``; ``grad_value =
    sum(grad_output * mask)`` for a 0-d tensor value (derivatives.yaml ``masked_fill``).

    Args:
        input (Tensor): ``(*)``.
        mask (Tensor): bool, broadcastable with ``input``.
        value (number or Tensor): a number or a 0-d tensor, cast to ``input``'s dtype
            (differentiable).
    Returns:
        Tensor: the broadcast shape, ``input``'s dtype.
    Raises:
        RuntimeError: non-bool mask; value tensor with more than one element; shapes that do
            not broadcast.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> v = dyngrad.tensor(-1.0, requires_grad=True)
        >>> y = dyngrad.masked_fill(x, dyngrad.tensor([True, False, True]), v)
        >>> y.detach()
        tensor([-1.,  2., -1.])
        >>> y.sum().backward()
        >>> x.grad, v.grad
        (tensor([0., 1., 0.]), tensor(2.))
    """
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(
            f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value._data.ndim} dimension(s)."
        )
    return MaskedFill.apply(input, mask, value)


def masked_fill_(input: Tensor, mask: Any, value: Any) -> Tensor:
    """In-place :func:`masked_fill` (``mask`` must broadcast to ``input``'s shape).

    Derivative: as :func:`masked_fill`'s; ``input`` takes over the new history.

    Args:
        input (Tensor): ``(*)``, overwritten.
        mask (Tensor): bool, broadcastable to ``input``'s shape.
        value (number or Tensor): a number or a 0-d tensor, cast to ``input``'s dtype.
    Returns:
        Tensor: ``input`` itself.
    Raises:
        RuntimeError: non-bool mask, a mask that does not broadcast to ``input``'s shape, or
            ``input`` a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(2, 2)
        >>> dyngrad.masked_fill_(x, dyngrad.tensor([True, False]), 5.0) is x
        True
        >>> x
        tensor([[5., 0.],
                [5., 0.]])
    """
    if not recording(input, value) and not _ctx.interpreters:  # a transform (forward mode's tangents) goes via inplace()
        m = data_of(mask)
        if m.dtype != np.bool_ and B.kind(m) != "b":
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {m.dtype}")
        if type(input._data) is not np.ndarray:
            B.writeable(input._data)  # (Dask: immutable, refused)
        try:
            np.copyto(input._data, B.asarray_any(data_of(value), dtype=input._data.dtype), where=m)
        except ValueError:  # a mask that does not broadcast to input's shape: PyTorch's RuntimeError
            from ._util import inplace_shape_error

            raise RuntimeError(f"masked_fill_: {inplace_shape_error(input._data.shape, m.shape)}") from None
        input._vc[0] += 1
        return input
    return inplace(masked_fill, input, mask, value)


def masked_select(input: Tensor, mask: Any) -> Tensor:
    """The 1-d tensor of ``input``'s entries where ``mask`` (bool, broadcast with ``input``)
    is True, in C order.

    Derivative: ``grad_input`` scatters ``grad_output`` back to those positions (zeros
    elsewhere, summed over the broadcast; derivatives.yaml ``masked_select_backward``).

    Args:
        input (Tensor): ``(*)``.
        mask (Tensor): bool, broadcastable with ``input``.
    Returns:
        Tensor: ``(k)``, ``k`` the number of True entries of the broadcast mask; ``input``'s
        dtype.
    Raises:
        RuntimeError: non-bool mask, shapes that do not broadcast.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 2], [3, 4]])
        >>> dyngrad.masked_select(x, dyngrad.tensor([[True, False], [False, True]]))
        tensor([1, 4])
        >>> dyngrad.masked_select(x, dyngrad.tensor([True, False]))
        tensor([1, 3])
    """
    m = data_of(mask)
    m = B.asarray_any(m) if not isinstance(m, np.ndarray) else m
    if B.kind(m) != "b":
        raise RuntimeError(f"masked_select: expected BoolTensor for mask, got {m.dtype}")
    try:
        shape = np.broadcast_shapes(m.shape, input._data.shape)
    except ValueError:
        raise RuntimeError(
            f"masked_select(): mask {list(m.shape)} and input {list(input.shape)} do not broadcast"
        ) from None
    x = input.expand(*shape) if shape != input._data.shape else input
    from .indexing import Index

    if not shape:  # 0-d: NumPy has no nonzero() of a 0-d array
        x, shape, m = x.reshape(1), (1,), B.reshape(m, (1,))
    if not B.native(m) or not B.native(x._data):  # an Array API array: the standard's nonzero
        xp = B.namespace(x._data, m)
        if isinstance(m, np.ndarray):
            m = B.like(m, x._data)
        return Index.apply(x, tuple(xp.nonzero(xp.broadcast_to(m, shape))), False)
    return Index.apply(x, np.nonzero(np.broadcast_to(m, shape)), False)


def index_fill(input: Tensor, dim: int, index: Any, value: Any) -> Tensor:
    """``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number or 0-d
    tensor, differentiable as in :func:`masked_fill`).

    Derivative: ``grad_input = grad_output`` with the filled slices zeroed; ``grad_value`` is
    the sum of ``grad_output`` over them (derivatives.yaml ``index_fill``).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to index along.
        index (Tensor): int64/int32, ``(k)``, entries in ``[-size, size)``.
        value (number or Tensor): a number or a 0-d tensor.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: non-integer index, a value tensor with more than one element.
        IndexError: index or dim out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.index_fill(dyngrad.zeros(2, 3), 1, dyngrad.tensor([0, 2]), 7.0)
        tensor([[7., 0., 7.],
                [7., 0., 7.]])
    """
    from .gather import _dim_index

    d, adv = _dim_index(input, dim, index, "index_fill", negative=True)
    mask = np.zeros(input._data.shape, dtype=np.bool_)
    mask[adv] = True
    if not B.native(input._data):  # the positions' mask, made on the host, in input's library
        mask = B.like(mask, input._data)
    return masked_fill(input, wrap(mask), value)
