"""Reductions over dims: ``input (*) -> output`` with the reduced dims removed (or kept
as size 1 with ``keepdim=True``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import float_data, norm_dims, wrap

__all__ = ["sum", "mean"]
TENSOR_METHODS = set(__all__)


def _kept_shape(shape: tuple, dims: tuple | None) -> tuple:
    if dims is None:
        return (1,) * len(shape)
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


class Sum(Function):
    """``out = sum(x, dims)``; ``grad_x = expand(grad, x.shape)`` (after re-inserting the
    reduced dims)."""

    _builtin = True
    _node_name = "SumBackward1"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool, dtype: Any) -> Tensor:
        d = x.data
        if dtype is None and d.dtype.kind in "biu":
            dtype = np.int64
        ctx.shape = d.shape
        ctx.dims = dims
        ctx.keepdim = keepdim
        return wrap(np.sum(d, axis=dims, keepdims=keepdim, dtype=dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        if not ctx.keepdim:
            g = g.reshape(_kept_shape(ctx.shape, ctx.dims))
        return g.expand(ctx.shape), None, None, None


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    """Sum of elements over ``dim`` (int, tuple of ints, or None for all).

    Args:
        input: ``(*)``.
        dim: dims to reduce; None reduces all.
        keepdim: keep reduced dims with size 1.
        dtype: accumulate/return in this dtype (bool/int inputs default to int64).
    Returns:
        Tensor with the reduced shape.
    Raises:
        IndexError: dim out of range.
    """
    dims = norm_dims(dim, input.data.ndim, "sum")
    if dtype is not None:
        from .. import _backend as B

        dtype = B.to_np_dtype(dtype)
    return Sum.apply(input, dims, keepdim, dtype)


class Mean(Function):
    """``out = sum(x, dims) / n``; ``grad_x = expand(grad, x.shape) / n`` with ``n`` the
    number of reduced elements."""

    _builtin = True
    _node_name = "MeanBackward1"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool) -> Tensor:
        d = x.data
        if d.dtype.kind != "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {x.dtype.name}"
            )
        ctx.shape = d.shape
        ctx.dims = dims
        ctx.keepdim = keepdim
        n = d.size if dims is None else int(np.prod([d.shape[i] for i in dims]))
        ctx.n = n
        with np.errstate(invalid="ignore", divide="ignore"):
            return wrap(np.asarray(np.mean(d, axis=dims, keepdims=keepdim), dtype=d.dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        if not ctx.keepdim:
            g = g.reshape(_kept_shape(ctx.shape, ctx.dims))
        return g.expand(ctx.shape) / ctx.n, None, None


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean over ``dim`` (int, tuple, or None for all).

    Raises:
        RuntimeError: for integer inputs without ``dtype`` (as PyTorch).
    """
    if dtype is not None:
        input = input.to(dtype)
    return Mean.apply(input, norm_dims(dim, input.data.ndim, "mean"), keepdim)


_ = float_data


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum ``input`` down to ``size``, which must broadcast to ``input.shape`` (the inverse of
    ``expand``). ``grad_input = expand(grad, input.shape)``.

    Raises:
        RuntimeError: when ``size`` is not expandable to ``input.shape``.
    """
    from .. import _backend as B
    from ..autograd.engine import _SumToSize
    from ._util import shape_arg

    shape = shape_arg(size)
    if not B.is_broadcastable_to(shape, input.data.shape):
        raise RuntimeError(f"sum_to_size: size {list(shape)} is not expandable to size {list(input.shape)}")
    if shape == input.data.shape:
        return input
    return _SumToSize.apply(input, shape)


__all__.append("sum_to_size")
TENSOR_METHODS.add("sum_to_size")
