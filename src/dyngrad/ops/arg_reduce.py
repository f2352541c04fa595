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
        out = wrap(np.asarray(fn(x._data, dims, keepdim)))
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
        r = fn(np.transpose(d, rest + list(dims)).reshape([d.shape[i] for i in rest] + [n]), axis=-1)
        return r.astype(np.int64).reshape(_kept_shape(d.shape, dims)) if keepdim else r.astype(np.int64)

    return run


_ARGMAX, _ARGMIN = _flat_arg(np.argmax), _flat_arg(np.argmin)


def _keepdims(fn: Any) -> Any:
    return lambda d, dims, keepdim: fn(d, axis=dims, keepdims=keepdim)


_all, _any = _keepdims(np.all), _keepdims(np.any)
_count_nonzero = _keepdims(lambda d, axis, keepdims: np.asarray(np.count_nonzero(d, axis=axis), dtype=np.int64))


def _arg_reduce(op: str, fn: Any, input: Tensor, dim: Any, keepdim: bool) -> Tensor:
    d = input._data
    if dim is None:
        if d.size == 0:
            raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
        return NoGradReduce.apply(input, fn, None, keepdim)
    ax = norm_dim(dim, d.ndim, op)
    if d.ndim and d.shape[ax] == 0:
        raise IndexError(f"{op}(): Expected reduction dim {ax} to have non-zero size.")
    return NoGradReduce.apply(input, fn, (ax,) if d.ndim else None, keepdim and d.ndim > 0)


def argmax(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the maximum over ``dim``, or in the flattened input when None.
    Not differentiable. Raises: IndexError for a bad or empty dim."""
    return _arg_reduce("argmax", _ARGMAX, input, dim, keepdim)


def argmin(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:
    """Index (int64) of the minimum over ``dim`` (flattened when None). Not differentiable."""
    return _arg_reduce("argmin", _ARGMIN, input, dim, keepdim)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where every element over ``dim`` is non-zero (bool result, no gradient)."""
    return NoGradReduce.apply(input, _all, rdims(dim, input._data.ndim, "all"), keepdim)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    """True where some element over ``dim`` is non-zero (bool result, no gradient)."""
    return NoGradReduce.apply(input, _any, rdims(dim, input._data.ndim, "any"), keepdim)


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """Number (int64) of non-zero elements over ``dim`` (int, tuple or None). No gradient."""
    return NoGradReduce.apply(input, _count_nonzero, rdims(dim, input._data.ndim, "count_nonzero"), False)
