"""Batching rules (``Function.vmap``) shared by the reduction family (reduction.py,
statistics.py), sorting and the fused softmax (see ops/_batching.py for the protocol).

The batch dim is moved to the front, so a logical non-negative dim ``d`` becomes ``d + 1``
and "all dims" (``dims=None``) becomes ``(1, ..., n)``: every per-example dim, never the
batch dim. Examples that are 0-d (physical shape ``(B,)``) have no dim to shift: the
dim-taking ops then run along an inserted size-1 dim, which gives the 0-d results
(softmax 1, cumsum ``x``, ``max(x, 0) = (x, 0)``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ._batching import front, only_first_batched, out_dims_like, shift_dim

__all__ = ["reduce_dims", "along_dim", "select_dim", "sort_dim"]


def reduce_dims(pos: int) -> Callable:
    """Rule factory for reductions with one batched tensor (argument 0) and a ``dims``
    argument at ``pos`` (a tuple of logical dims, or None for all of them): the batch dim
    goes to the front, ``dims`` shift by one, None becomes every per-example dim. Tuple
    outputs (var_mean) are batched at 0 too."""

    def rule(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
        if not only_first_batched(in_dims) or pos >= len(args):
            return NotImplemented
        new = list(args)
        x = new[0] = front(args[0], in_dims[0])
        new[pos] = tuple(range(1, x.ndim)) if args[pos] is None else shift_dim(args[pos])
        out = info.function.apply(*new, **kwargs)
        return out, out_dims_like(out)

    rule.__doc__ = f"Batching rule: batch dim to the front, the dims argument (position {pos}) shifted; None -> all per-example dims."
    return rule


def along_dim(info: Any, in_dims: tuple, x: Any, dim: int, *rest: Any) -> Any:
    """Rule of shape-preserving ops along one dim ``(x, dim, ...)`` (cumsum, cumprod,
    softmax, log_softmax): batch dim to the front, ``dim`` shifted."""
    if not only_first_batched(in_dims):
        return NotImplemented
    x = front(x, in_dims[0])
    if x.ndim == 1:  # 0-d examples: along an inserted size-1 dim
        return info.function.apply(x.unsqueeze(1), 1, *rest).squeeze(1), 0
    return info.function.apply(x, shift_dim(dim), *rest), 0


def select_dim(info: Any, in_dims: tuple, x: Any, dim: int, keepdim: bool) -> Any:
    """Rule of ``(values, indices) = max/min(x, dim, keepdim)``: batch dim to the front,
    ``dim`` shifted; both outputs batched at 0."""
    if not only_first_batched(in_dims):
        return NotImplemented
    x = front(x, in_dims[0])
    if x.ndim == 1:  # 0-d examples: (x, 0) whatever keepdim, as the unbatched op
        return info.function.apply(x.unsqueeze(1), 1, False), (0, 0)
    return info.function.apply(x, shift_dim(dim), keepdim), (0, 0)


def sort_dim(info: Any, in_dims: tuple, x: Any, dim: int, descending: bool, k: Any) -> Any:
    """Rule of ``(values, indices) = sort/topk(x, dim, descending/largest, k)``: batch dim to
    the front, ``dim`` shifted; both outputs batched at 0."""
    if not only_first_batched(in_dims):
        return NotImplemented
    x = front(x, in_dims[0])
    if x.ndim == 1:  # 0-d examples: a sort of one element
        if k == 0:
            return NotImplemented  # empty 0-d topk: left to the op's own error path
        v, i = info.function.apply(x.unsqueeze(1), 1, descending, k)
        return (v.squeeze(1), i.squeeze(1)), (0, 0)
    return info.function.apply(x, shift_dim(dim), descending, k), (0, 0)
