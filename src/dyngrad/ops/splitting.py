"""Splitting and joining: ``split``, ``split_with_sizes``, ``chunk`` (views sharing
memory with the input; one node whose backward concatenates the piece gradients) and
``hstack``/``vstack`` (built on ``cat``)."""

from __future__ import annotations

from typing import Any

from ..autograd.function import Function
from ..tensor import Tensor
from ._util import make_view, norm_dim, wrap
from .shape import Cat, _seq_check, cat

__all__ = ["split", "split_with_sizes", "chunk", "hstack", "vstack"]
TENSOR_METHODS = {"split", "split_with_sizes", "chunk"}


class SplitWithSizes(Function):
    """``outs[i] = x.narrow(dim, offset_i, sizes[i])`` (views); ``grad_x = cat(grads, dim)``
    (zeros for pieces that got no gradient)."""

    _builtin = True
    _node_name = "SplitWithSizesBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, sizes: tuple, dim: int) -> tuple:
        ctx.dim = dim
        out, start = [], 0
        for z in sizes:
            idx = (slice(None),) * dim + (slice(start, start + z), Ellipsis)
            out.append(make_view(wrap(x.data[idx]), x))
            start += z
        return tuple(out)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        return Cat.apply(ctx.dim, *grads), None, None


def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple:
    """Split into pieces of ``split_sizes`` along ``dim`` (views).

    Raises:
        RuntimeError: sizes that do not sum to ``input.size(dim)`` or are negative.
    """
    if input.data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = norm_dim(dim, input.data.ndim, "split")
    sizes = tuple(int(z) for z in split_sizes)
    n = input.data.shape[d]
    if sum(sizes) != n or any(z < 0 for z in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
            f"dimension {d}), but got split_sizes={list(sizes)}"
        )
    return SplitWithSizes.apply(input, sizes, d)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Split into pieces of ``split_size_or_sections`` elements along ``dim`` (the last
    piece may be smaller), or into pieces of the listed sizes. Returns a tuple of views;
    ``grad = cat(piece grads)``.

    Raises:
        RuntimeError: split size 0 on a non-empty dim, sizes that do not sum to the dim size.
    """
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    if tensor.data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = norm_dim(dim, tensor.data.ndim, "split")
    n = tensor.data.shape[d]
    ss = int(split_size_or_sections)
    if ss < 0 or (ss == 0 and n):
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    if n == 0:
        return SplitWithSizes.apply(tensor, (0,), d)
    sizes = tuple(min(ss, n - i) for i in range(0, n, ss))
    return SplitWithSizes.apply(tensor, sizes, d)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split into ``chunks`` pieces of ``ceil(size / chunks)`` along ``dim`` (possibly fewer
    pieces, as PyTorch).

    Raises:
        RuntimeError: ``chunks <= 0`` or a 0-d input.
    """
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input.data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = norm_dim(dim, input.data.ndim, "chunk")
    n = input.data.shape[d]
    return split(input, max(-(-n // chunks), 1) if n else 0, d)


def hstack(tensors: Any) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-d tensors); 0-d tensors count as 1-d."""
    ts = [t.reshape(1) if t.data.ndim == 0 else t for t in _seq_check(tensors, "hstack")]
    return cat(ts, 0 if ts[0].data.ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Concatenate along dim 0 after making every tensor at least 2-d (``(n,)`` -> ``(1, n)``)."""
    ts = [t.reshape(1, -1) if t.data.ndim < 2 else t for t in _seq_check(tensors, "vstack")]
    return cat(ts, 0)
