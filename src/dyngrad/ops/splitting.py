"""Joining and splitting: ``cat``, ``stack``, ``hstack``, ``vstack`` (copies) and
``split``, ``split_with_sizes``, ``chunk``, ``unbind`` (views sharing memory with the
input; one node whose backward concatenates or stacks the piece gradients)."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear
from ._batching import dims_at, front
from ._util import make_view, norm_dim, wrap

__all__ = [
    "cat", "concat", "concatenate", "stack", "hstack", "vstack", "split", "split_with_sizes",
    "chunk", "unbind",
]
TENSOR_METHODS = {"split", "split_with_sizes", "chunk", "unbind"}


def _join_rule(info: Any, in_dims: tuple, dim: int, *xs: Tensor) -> Any:
    """Batching rule of :class:`Cat` and :class:`Stack` (``apply(dim, *xs)``): every
    tensor batch-first, the unbatched ones expanded to the batch, ``dim`` shifted."""
    n = info.batch_size
    new = []
    for x, d in zip(xs, in_dims[1:]):
        if d is None:
            x = x.unsqueeze(0).expand((n,) + tuple(x.shape))
        else:
            x = front(x, d)
        new.append(x)
    return info.function.apply(dim + 1, *new), 0


class Unbind(Linear):
    """Split along ``dim`` into views, one per index; ``grad_x = stack(grads, dim)`` (zeros
    for outputs without gradient)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> tuple:
        ctx.dim = dim
        ctx.set_materialize_grads(True)
        d = x._data
        d = np.moveaxis(d, dim, 0) if type(d) is np.ndarray else B.moveaxis(d, dim, 0)
        # d[i, ...] is a view even for a 0-d piece (d[i] of a 1-d array is a NumPy scalar copy)
        return tuple(make_view(wrap(d[i, ...]), x) for i in range(d.shape[0]))

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        return Stack.apply(ctx.dim, *grads), None

    vmap = dims_at(1)  # batching rule: batch dim to the front, dim shifted; every piece batch-first


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """Tuple of slices along ``dim`` (each without that dim); views of ``input``.

    Derivative: ``grad_input = stack(grad_outputs, dim)`` (a missing gradient counts as
    zeros; derivatives.yaml ``unbind_backward``).

    Args:
        input (Tensor): ``(*)``, at least 1-d.
        dim (int): the dim to remove. Default: ``0``.
    Returns:
        tuple of Tensor: ``input.size(dim)`` tensors, each ``input``'s shape without ``dim``.
    Raises:
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> a, b = dyngrad.unbind(dyngrad.tensor([[1, 2, 3], [4, 5, 6]]))
        >>> a, b
        (tensor([1, 2, 3]), tensor([4, 5, 6]))
    """
    return Unbind.apply(input, norm_dim(dim, input._data.ndim, "unbind"))


class Cat(Linear):
    """``out = concatenate(xs, dim)``; ``grad_xs[i]`` = the slice of ``grad`` that came from
    ``xs[i]``."""

    @staticmethod
    def forward(ctx: Any, dim: int, *xs: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.sizes = [x._data.shape[dim] for x in xs]
        rt = B.result_type(*xs)
        if type(xs[0]._data) is np.ndarray and all(type(x._data) is np.ndarray for x in xs):
            return wrap(np.concatenate([x._data.astype(rt, copy=False) for x in xs], axis=dim))
        return wrap(B.concat([B.astype(x._data, rt, copy=False) for x in xs], dim))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        out: list = [None]
        start = 0
        for n, s in zip(ctx.needs_input_grad[1:], ctx.sizes):
            out.append(g.narrow(ctx.dim, start, s) if n else None)
            start += s
        return tuple(out)

    vmap = staticmethod(_join_rule)


def _seq_check(tensors: Any, op: str) -> list:
    if isinstance(tensors, Tensor) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{op}(): argument 'tensors' must be a tuple or list of Tensors, not {type(tensors).__name__}")
    if not tensors:
        raise RuntimeError(f"{op}(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"{op}(): expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


def cat(tensors: Any, dim: int = 0) -> Tensor:
    """Concatenate tensors along an existing ``dim``; other dims must match.

    Raises:
        RuntimeError: mismatched shapes (naming the tensor index and sizes).

    Derivative: each input gets its slice of ``grad_output`` along ``dim``.

    Args:
        tensors (sequence of Tensor): shapes equal except in ``dim``; 1-D empty tensors are
            skipped, as in PyTorch.
        dim (int): the dimension to join along (negative counts from the end).
    Returns:
        Tensor: the inputs' shape with ``dim`` the sum of their sizes there: ``(N1 + N2, C)``
            from ``(N1, C)`` and ``(N2, C)`` with ``dim=0``.

    Example:
        >>> import dyngrad
        >>> dyngrad.cat([dyngrad.zeros(1, 2), dyngrad.ones(2, 2)]).shape
        dyngrad.Size([3, 2])
    """
    ts = _seq_check(tensors, "cat")
    for i, t in enumerate(ts):
        if t._data.ndim == 0:
            raise RuntimeError(f"cat(): zero-dimensional tensor (at position {i}) cannot be concatenated")
    ts = [t for t in ts if not (t._data.ndim == 1 and t._data.shape[0] == 0)] or ts[:1]
    nd = ts[0]._data.ndim
    d = norm_dim(dim, nd, "cat")
    ref = ts[0]._data.shape
    for i, t in enumerate(ts):
        s = t._data.shape
        if len(s) != nd or any(a != b for j, (a, b) in enumerate(zip(s, ref)) if j != d):
            raise RuntimeError(
                f"cat(): Sizes of tensors must match except in dimension {d}. Expected size "
                f"{list(ref)} but got size {list(s)} for tensor number {i} in the list."
            )
    return Cat.apply(d, *ts)


concat = concatenate = cat


class Stack(Linear):
    """``out = numpy.stack(xs, dim)`` (promoted dtype); ``grad_xs[i] = grad.select(dim, i)``."""

    @staticmethod
    def forward(ctx: Any, dim: int, *xs: Tensor) -> Tensor:
        ctx.dim = dim
        rt = B.result_type(*xs)
        if type(xs[0]._data) is np.ndarray and all(type(x._data) is np.ndarray for x in xs):
            return wrap(np.stack([x._data.astype(rt, copy=False) for x in xs], axis=dim))
        return wrap(B.stack([B.astype(x._data, rt, copy=False) for x in xs], dim))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return (None,) + tuple(
            g.select(ctx.dim, i) if n else None for i, n in enumerate(ctx.needs_input_grad[1:])
        )

    vmap = staticmethod(_join_rule)


def stack(tensors: Any, dim: int = 0) -> Tensor:
    """Stack equally shaped tensors along a new ``dim``.

    Raises:
        RuntimeError: when shapes differ (naming the first mismatch).

    Derivative: input ``i`` gets ``grad_output.select(dim, i)``.

    Args:
        tensors (sequence of Tensor): all of one shape ``(*)``.
        dim (int): where the new dimension goes (``0 <= dim <= ndim``, or negative).
    Returns:
        Tensor: ``(*)`` with a new dimension of size ``len(tensors)`` at ``dim``.

    Example:
        >>> import dyngrad
        >>> dyngrad.stack([dyngrad.zeros(3), dyngrad.ones(3)], dim=1)
        tensor([[0., 1.],
                [0., 1.],
                [0., 1.]])
    """
    ts = _seq_check(tensors, "stack")
    ref = ts[0]._data.shape
    for i, t in enumerate(ts):
        if t._data.shape != ref:
            raise RuntimeError(
                f"stack expects each tensor to be equal size, but got {list(ref)} at entry 0 and "
                f"{list(t._data.shape)} at entry {i}"
            )
    d = norm_dim(dim, len(ref) + 1, "stack")
    return Stack.apply(d, *ts)


class SplitWithSizes(Linear):
    """``outs[i] = x.narrow(dim, offset_i, sizes[i])`` (views); ``grad_x = cat(grads, dim)``
    (zeros for pieces that got no gradient)."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, sizes: tuple, dim: int) -> tuple:
        ctx.dim = dim
        out, start = [], 0
        for z in sizes:
            idx = (slice(None),) * dim + (slice(start, start + z), Ellipsis)
            out.append(make_view(wrap(x._data[idx]), x))
            start += z
        return tuple(out)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        return Cat.apply(ctx.dim, *grads), None, None

    vmap = dims_at(2)  # batching rule: batch dim to the front, dim shifted; every piece batch-first


class Split(SplitWithSizes):
    """``split(int)``: :class:`SplitWithSizes` named as PyTorch's node."""



def split_with_sizes(input: Tensor, split_sizes: Any, dim: int = 0) -> tuple:
    """Split into pieces of ``split_sizes`` along ``dim`` (views).

    Derivative: ``grad_input = cat(grad_outputs, dim)`` (a missing gradient counts as zeros).

    Args:
        input (Tensor): ``(*)``, at least 1-d.
        split_sizes (sequence of int): the pieces' sizes along ``dim``, summing to
            ``input.size(dim)``.
        dim (int): the dim to split. Default: ``0``.
    Returns:
        tuple of Tensor: one view per size, ``input``'s shape with ``split_sizes[i]`` at ``dim``.
    Raises:
        RuntimeError: sizes that do not sum to ``input.size(dim)`` or are negative, or a 0-d
            input.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> [t.shape for t in dyngrad.split_with_sizes(dyngrad.zeros(5, 2), [2, 3])]
        [dyngrad.Size([2, 2]), dyngrad.Size([3, 2])]
    """
    if input._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = norm_dim(dim, input._data.ndim, "split")
    sizes = tuple(int(z) for z in split_sizes)
    n = input._data.shape[d]
    if sum(sizes) != n or any(z < 0 for z in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
            f"dimension {d}), but got split_sizes={list(sizes)}"
        )
    return SplitWithSizes.apply(input, sizes, d)


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple:
    """Split into pieces of ``split_size_or_sections`` elements along ``dim`` (the last
    piece may be smaller), or into pieces of the listed sizes. Returns a tuple of views.

    Derivative: ``grad_input = cat(grad_outputs, dim)`` (a missing gradient counts as zeros).

    Args:
        tensor (Tensor): ``(*)``, at least 1-d.
        split_size_or_sections (int or sequence of int): each piece's size, or the list of
            sizes (as :func:`split_with_sizes`).
        dim (int): the dim to split. Default: ``0``.
    Returns:
        tuple of Tensor: views of ``tensor``, ``ceil(n / split_size)`` of them for an int.
    Raises:
        RuntimeError: split size 0 on a non-empty dim, sizes that do not sum to the dim size,
            or a 0-d input.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(5.0, requires_grad=True)
        >>> a, b, c = dyngrad.split(x, 2)
        >>> a, c
        (tensor([0., 1.], grad_fn=<SplitBackward0>), tensor([4.], grad_fn=<SplitBackward0>))
        >>> (c * 3).sum().backward()
        >>> x.grad
        tensor([0., 0., 0., 0., 3.])
    """
    if isinstance(split_size_or_sections, (list, tuple)):
        return split_with_sizes(tensor, split_size_or_sections, dim)
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = norm_dim(dim, tensor._data.ndim, "split")
    n = tensor._data.shape[d]
    ss = int(split_size_or_sections)
    if ss < 0 or (ss == 0 and n):
        raise RuntimeError(
            f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}"
        )
    if n == 0:
        return Split.apply(tensor, (0,), d)
    sizes = tuple(min(ss, n - i) for i in range(0, n, ss))
    return Split.apply(tensor, sizes, d)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split ``input`` into ``chunks`` pieces along ``dim``, each of ``ceil(size / chunks)`` elements.

    As PyTorch, the last piece may be smaller and there may be fewer than ``chunks`` pieces
    (``chunk(arange(6), 4)`` gives three of 2); an empty dim gives ``chunks`` empty pieces.
    The pieces are views.

    Derivative: ``grad_input = cat(grad of each piece, dim)`` (zeros for unused pieces).

    Args:
        input (Tensor): ``(*)``, at least 1-d.
        chunks (int): the number of pieces wanted, ``> 0``.
        dim (int, optional): the dim to split. Default: ``0``.
    Returns:
        tuple of Tensor: the pieces, ``input``'s shape except along ``dim``.
    Raises:
        RuntimeError: when ``chunks <= 0`` or ``input`` is 0-d.
        TypeError: when ``chunks`` is not an int.
        IndexError: when ``dim`` is out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.chunk(dyngrad.arange(5), 2)
        (tensor([0, 1, 2]), tensor([3, 4]))
        >>> x = dyngrad.arange(5.0, requires_grad=True)
        >>> dyngrad.chunk(x, 2)[1].sum().backward()
        >>> x.grad
        tensor([0., 0., 0., 1., 1.])
    """
    if isinstance(chunks, (bool, np.bool_)) or not isinstance(chunks, (int, np.integer)):
        raise TypeError(f"chunk(): argument 'chunks' must be int, not {type(chunks).__name__}")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    d = norm_dim(dim, input._data.ndim, "chunk")
    n = input._data.shape[d]
    if n == 0:  # PyTorch: ``chunks`` empty pieces
        return split_with_sizes(input, (0,) * int(chunks), d)
    return split(input, -(-n // chunks), d)


def hstack(tensors: Any) -> Tensor:
    """Concatenate along dim 1 (dim 0 for 1-d tensors); 0-d tensors count as 1-d.

    Derivative: each input gets its slice of ``grad_output`` (as :func:`cat`).

    Args:
        tensors (sequence of Tensor): ``(n_i)`` or ``(m, n_i, *)``, equal in every dim but 1;
            promoted together.
    Returns:
        Tensor: ``(sum n_i)`` for 1-d inputs, else ``(m, sum n_i, *)``.
    Raises:
        RuntimeError: an empty sequence, or sizes that differ outside the joined dim.
        TypeError: ``tensors`` is not a list or tuple of Tensors.

    Example:
        >>> import dyngrad
        >>> dyngrad.hstack([dyngrad.tensor([1, 2]), dyngrad.tensor([3])])
        tensor([1, 2, 3])
        >>> dyngrad.hstack([dyngrad.zeros(2, 1), dyngrad.ones(2, 2)]).shape
        dyngrad.Size([2, 3])
    """
    ts = [t.reshape(1) if t._data.ndim == 0 else t for t in _seq_check(tensors, "hstack")]
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Concatenate along dim 0 after making every tensor at least 2-d (``(n,)`` -> ``(1, n)``).

    Derivative: each input gets its slice of ``grad_output`` (as :func:`cat`).

    Args:
        tensors (sequence of Tensor): ``(n)`` or ``(m_i, n, *)``, equal in every dim but 0;
            promoted together.
    Returns:
        Tensor: ``(sum m_i, n, *)`` (a 1-d input counts as ``m_i = 1``).
    Raises:
        RuntimeError: an empty sequence, or sizes that differ outside dim 0.
        TypeError: ``tensors`` is not a list or tuple of Tensors.

    Example:
        >>> import dyngrad
        >>> dyngrad.vstack([dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4])])
        tensor([[1, 2],
                [3, 4]])
    """
    ts = [t.reshape(1, -1) if t._data.ndim < 2 else t for t in _seq_check(tensors, "vstack")]
    return cat(ts, 0)
