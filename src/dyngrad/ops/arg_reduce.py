"""Reductions without a gradient: argmax, argmin, all, any, count_nonzero (the third file
of the reduction family; one non-differentiable Function so that vmap can batch them)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Op
from ._batching_reduce import reduce_dims
from ._util import norm_dim, wrap
from .reduction import _kept_shape, rdims  # reduction imports this module after defining them

__all__ = ["argmax", "argmin", "all", "any", "count_nonzero"]
TENSOR_METHODS = set(__all__)


class NoGradReduce(Op):
    """Reductions without a gradient: argmax/argmin (int64; over several dims, the index
    into those dims flattened), all/any (bool), count_nonzero (int64). ``fn(data, dims,
    keepdim)`` runs in NumPy; a Function so that vmap can batch it (dims shifted)."""

    _node_name = "NoGradReduce"
    vmap = reduce_dims(2)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, fn: Any, dims: tuple | None, keepdim: bool) -> Tensor:
        out = wrap(B.asarray_any(fn(x._data, dims, keepdim)))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Any) -> tuple:
        return None, None, None, None

    # hand-written: integer/bool output: no tangent
    @staticmethod
    def jvp(ctx: Any, *_: Any) -> Any:
        """Forward mode: no tangent (integer/bool output)."""
        return None


def _flat_arg(fn: Any) -> Any:
    def run(d: np.ndarray, dims: tuple | None, keepdim: bool) -> np.ndarray:
        dims = tuple(range(d.ndim)) if dims is None else dims
        rest = [i for i in range(d.ndim) if i not in dims]
        n = B.prod(tuple(d.shape[i] for i in dims))
        if type(d) is not np.ndarray and not B.native(d):  # an Array API array: the standard's functions
            xp = B.namespace(d)
            f = xp.argmax if fn is np.argmax else xp.argmin
            r = xp.astype(f(xp.reshape(xp.permute_dims(d, tuple(rest + list(dims))),
                                       tuple([d.shape[i] for i in rest] + [n])), axis=-1), xp.int64)
            return xp.reshape(r, _kept_shape(d.shape, dims)) if keepdim else r
        r = fn(np.transpose(d, rest + list(dims)).reshape([d.shape[i] for i in rest] + [n]), axis=-1)
        return r.astype(np.int64).reshape(_kept_shape(d.shape, dims)) if keepdim else r.astype(np.int64)

    return run


_ARGMAX, _ARGMIN = _flat_arg(np.argmax), _flat_arg(np.argmin)


def _keepdims(fn: Any) -> Any:
    return lambda d, dims, keepdim: fn(d, axis=dims, keepdims=keepdim)


def _logical(fn: Any) -> Any:
    """all/any: bool, except that a uint8 input gives uint8 0/1 (PyTorch keeps that legacy dtype)."""
    def run(d: np.ndarray, dims: tuple | None, keepdim: bool) -> np.ndarray:
        if type(d) is not np.ndarray and not B.native(d):  # an Array API array: the standard's functions
            xp = B.namespace(d)
            r = (xp.all if fn is np.all else xp.any)(d, axis=dims, keepdims=keepdim)
            return xp.astype(r, xp.uint8) if B.np_dtype_of(d) == np.uint8 else r
        r = fn(d, axis=dims, keepdims=keepdim)
        return B.asarray_any(r).astype(np.uint8) if d.dtype == np.uint8 else r

    return run


_all, _any = _logical(np.all), _logical(np.any)
def _count_nonzero_any(d: Any, axis: Any, keepdims: bool) -> Any:
    if type(d) is not np.ndarray and not B.native(d):  # an Array API array: the standard's function
        xp = B.namespace(d)
        return xp.astype(xp.count_nonzero(d, axis=axis, keepdims=keepdims), xp.int64)
    return B.asarray_any(np.count_nonzero(d, axis=axis), dtype=np.int64)


_count_nonzero = _keepdims(_count_nonzero_any)


def _arg_reduce(op: str, fn: Any, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    d = input._data
    if d.dtype == np.bool_ or B.kind(d) == "b":
        raise RuntimeError(f"{op}(): does not support bool input")
    if dim is None:
        if d.size == 0:
            raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
        return NoGradReduce.apply(input, fn, None, keepdim)
    ax = norm_dim(dim, d.ndim, op)
    if d.ndim and d.shape[ax] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {ax} to have non-zero size.")
    return NoGradReduce.apply(input, fn, (ax,) if d.ndim else None, keepdim and d.ndim > 0)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The index (int64) of the maximum of ``input`` along ``dim``, or in the flattened input.

    The first occurrence wins on ties; ``nan`` counts as the maximum (as PyTorch).
    Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype but bool.
        dim (int, optional): the dim to reduce (negative counts from the end); ``None``: the
            flattened input. Default: ``None``. (``axis`` is accepted as an alias.)
        keepdim (bool, optional): keep the reduced dim with size 1. Default: ``False``.
            (``keepdims`` is accepted as an alias.)
    Returns:
        Tensor: int64; ``input``'s shape without ``dim`` (with ``keepdim``: size 1 there), or
        ``()`` for the flattened input (``(1, ..., 1)`` with ``keepdim``).
    Raises:
        IndexError: when ``dim`` is out of range, the reduced dim is empty, or ``dim`` is None
            and ``input`` has no elements.
        TypeError: when ``dim`` is a tuple.
        RuntimeError: when ``input`` is a bool tensor.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 5, 2], [7, 0, 7]])
        >>> dyngrad.argmax(x)
        tensor(3)
        >>> dyngrad.argmax(x, dim=1)
        tensor([1, 0])
        >>> dyngrad.argmax(x, dim=0, keepdim=True)
        tensor([[1, 0, 1]])
    """
    return _arg_reduce("argmax", _ARGMAX, input, dim, keepdim)


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """The index (int64) of the minimum of ``input`` along ``dim``, or in the flattened input.

    The first occurrence wins on ties; ``nan`` counts as the minimum (as PyTorch).
    Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype but bool.
        dim (int, optional): the dim to reduce (negative counts from the end); ``None``: the
            flattened input. Default: ``None``. (``axis`` is accepted as an alias.)
        keepdim (bool, optional): keep the reduced dim with size 1. Default: ``False``.
            (``keepdims`` is accepted as an alias.)
    Returns:
        Tensor: int64; ``input``'s shape without ``dim`` (with ``keepdim``: size 1 there), or
        ``()`` for the flattened input (``(1, ..., 1)`` with ``keepdim``).
    Raises:
        IndexError: when ``dim`` is out of range, the reduced dim is empty, or ``dim`` is None
            and ``input`` has no elements.
        TypeError: when ``dim`` is a tuple.
        RuntimeError: when ``input`` is a bool tensor.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 5, 2], [7, 0, 7]])
        >>> dyngrad.argmin(x)
        tensor(4)
        >>> dyngrad.argmin(x, dim=1)
        tensor([0, 1])
    """
    return _arg_reduce("argmin", _ARGMIN, input, dim, keepdim)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Whether every element of ``input`` over ``dim`` is non-zero (``nan`` counts as non-zero).

    The result is bool, except for a uint8 input, which gives uint8 0/1 (as PyTorch). An empty
    reduction gives True. Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int or tuple of ints, optional): the dims to reduce; ``None``: all. Default:
            ``None``. (``axis`` is accepted as an alias.)
        keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.
            (``keepdims`` is accepted as an alias.)
    Returns:
        Tensor: ``input``'s shape without the reduced dims (size 1 with ``keepdim``); bool (uint8
        for a uint8 input).
    Raises:
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 0], [2, 3]])
        >>> dyngrad.all(x)
        tensor(False)
        >>> dyngrad.all(x, dim=1)
        tensor([False,  True])
    """
    return NoGradReduce.apply(input, _all, rdims(dim, input._data.ndim, "all"), keepdim)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """Whether some element of ``input`` over ``dim`` is non-zero (``nan`` counts as non-zero).

    The result is bool, except for a uint8 input, which gives uint8 0/1 (as PyTorch). An empty
    reduction gives False. Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int or tuple of ints, optional): the dims to reduce; ``None``: all. Default:
            ``None``. (``axis`` is accepted as an alias.)
        keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.
            (``keepdims`` is accepted as an alias.)
    Returns:
        Tensor: ``input``'s shape without the reduced dims (size 1 with ``keepdim``); bool (uint8
        for a uint8 input).
    Raises:
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 0], [0, 0]])
        >>> dyngrad.any(x)
        tensor(True)
        >>> dyngrad.any(x, dim=1)
        tensor([ True, False])
    """
    return NoGradReduce.apply(input, _any, rdims(dim, input._data.ndim, "any"), keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number (int64) of non-zero elements of ``input`` over ``dim`` (``nan`` counts).

    Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int or tuple of ints, optional): the dims to count over; ``None``: all. Default:
            ``None``. (``axis`` is accepted as an alias.)
    Returns:
        Tensor: int64, ``input``'s shape without the counted dims.
    Raises:
        IndexError: when a dim is out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 0], [2, 3]])
        >>> dyngrad.count_nonzero(x)
        tensor(3)
        >>> dyngrad.count_nonzero(x, dim=0)
        tensor([2, 1])
    """
    return NoGradReduce.apply(input, _count_nonzero, rdims(dim, input._data.ndim, "count_nonzero"), False)
