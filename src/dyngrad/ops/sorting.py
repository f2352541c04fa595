"""Sorting and selection: ``sort``, ``argsort``, ``topk``, ``msort``, ``nonzero``/``argwhere``.

Values are differentiable (the gradient goes back to the position each value came from);
indices are int64 and not differentiable.
"""

from __future__ import annotations

from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching_reduce import sort_dim
from ._util import norm_dim, wrap

__all__ = ["sort", "argsort", "msort", "topk", "nonzero", "argwhere"]
TENSOR_METHODS = {"sort", "argsort", "msort", "topk", "nonzero", "argwhere"}

#: ``torch.return_types.sort`` / ``topk``: tuples with ``.values`` and ``.indices``.
SortResult = namedtuple("sort", ["values", "indices"])
TopkResult = namedtuple("topk", ["values", "indices"])


def _stable_argsort(d: np.ndarray, dim: int, descending: bool) -> np.ndarray:
    """Stable argsort along ``dim``; NaN sorts as the largest value (as PyTorch). For
    ``descending``, equal values keep their original order."""
    if not descending:
        return np.argsort(d, axis=dim, kind="stable")
    n = d.shape[dim]
    rev = np.argsort(np.flip(d, dim), axis=dim, kind="stable")  # ties: later original first
    return np.flip(n - 1 - rev, dim)


class Sort(Op):
    """``values = x.gather(dim, indices)`` with ``indices`` the (stable) sorting permutation,
    truncated to the first ``k`` along ``dim`` for topk.

    Shapes: ``x: (*)``; ``values, indices: (*)`` with ``size(dim) = k``. ``grad_x =
    zeros_like(x).scatter_add(dim, indices, grad_values)``.
    """

    vmap = staticmethod(sort_dim)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, descending: bool, k: int | None) -> tuple:
        if type(x._data) is not np.ndarray and not B.native(x._data):
            return _sort_xp(ctx, x, dim, descending, k)
        d = x._data.reshape(1) if x._data.ndim == 0 else x._data
        idx = _stable_argsort(d, dim, descending)
        if k is not None:
            idx = idx[(slice(None),) * dim + (slice(0, k),)]
        vals = np.take_along_axis(d, idx, axis=dim)
        if x._data.ndim == 0:
            vals, idx = vals.reshape(()), idx.reshape(())
        idx = idx.astype(np.int64)
        ctx.dim, ctx.idx, ctx.shape = dim, idx, x._data.shape
        ind = wrap(idx)
        ctx.mark_non_differentiable(ind)
        return wrap(vals), ind

    @staticmethod
    def backward(ctx: Any, g: Tensor, _gi: Any) -> tuple:
        from .gather import ScatterAdd

        if getattr(ctx, "inv", None) is not None:  # an Array API array: the gather adjoint
            return SortScatter.apply(g, ctx.dim, ctx.idx, ctx.inv), None, None, None
        if not ctx.shape and not B.native(g._data):
            return g, None, None, None
        z = wrap(np.zeros(ctx.shape, dtype=g._data.dtype))
        return ScatterAdd.apply(z, ctx.dim, ctx.idx, g), None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t_values = u.gather(dim, indices)``; the indices get no tangent."""
        from .gather import Gather

        if u._data.ndim == 0:
            return u, None
        if getattr(ctx, "inv", None) is not None:
            return TakeAlong.apply(u, ctx.dim, ctx.idx, ctx.inv), None
        return Gather.apply(u, ctx.dim, ctx.idx), None


def _sort_xp(ctx: Any, x: Tensor, dim: int, descending: bool, k: int | None) -> tuple:
    """:class:`Sort`'s forward with the standard's functions (an Array API array): the same
    stable order as :func:`_stable_argsort` (descending: argsort of the flipped array,
    flipped back, so ties keep their original order), and ``ctx.inv``, the inverse
    permutation, for the backward (a gather instead of a scatter-add)."""
    d0 = x._data
    xp = B.namespace(d0)
    ctx.dim, ctx.shape, ctx.inv = dim, d0.shape, None
    if d0.ndim == 0:
        ctx.idx = idx = xp.zeros((), dtype=xp.int64)
        ind = wrap(idx)
        ctx.mark_non_differentiable(ind)
        return wrap(B.copy(d0)), ind
    if not descending:
        full = xp.argsort(d0, axis=dim, stable=True)
    else:
        rev = xp.argsort(xp.flip(d0, axis=dim), axis=dim, stable=True)  # ties: later original first
        full = xp.flip(d0.shape[dim] - 1 - rev, axis=dim)
    full = xp.astype(full, xp.int64)
    idx = full if k is None else full[(slice(None),) * dim + (slice(0, k), Ellipsis)]
    vals = xp.take_along_axis(d0, idx, axis=dim)
    ctx.idx, ctx.inv = idx, xp.argsort(full, axis=dim)  # (the inverse of a permutation)
    ind = wrap(idx)
    ctx.mark_non_differentiable(ind)
    return wrap(vals), ind


class SortScatter(Linear):
    """The gradient of :class:`Sort` on an Array API array: ``g`` (the sorted values'
    gradient, ``k`` of the ``n`` entries along ``dim``) put back at the entries it came from,
    zeros elsewhere, by a gather with the inverse permutation ``inv`` (exact; there is no
    scatter-add in the standard). ``grad_g = take_along_axis(gg, idx)`` (:class:`TakeAlong`)."""

    @staticmethod
    def forward(ctx: Any, g: Tensor, dim: int, idx: Any, inv: Any) -> Tensor:
        ctx.dim, ctx.idx, ctx.inv = dim, idx, inv
        gd = g._data
        xp = B.namespace(gd)
        n, k = inv.shape[dim], gd.shape[dim]
        if k < n:
            pad = gd.shape[:dim] + (n - k,) + gd.shape[dim + 1:]
            gd = xp.concat([gd, xp.zeros(pad, dtype=gd.dtype)], axis=dim)
        return wrap(xp.take_along_axis(gd, inv, axis=dim))

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple:
        return TakeAlong.apply(gg, ctx.dim, ctx.idx, ctx.inv), None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, *args: Any) -> Any:
        """Batching rule: scan.py's ``_along_rule`` (batch first, indices repeated)."""
        from .scan import _along_rule

        return _along_rule(info, in_dims, *args)


class TakeAlong(Linear):
    """``out = take_along_axis(u, idx, dim)`` on an Array API array (the sorted values of a
    tangent or of a gradient's gradient); ``grad_u`` is :class:`SortScatter`."""

    @staticmethod
    def forward(ctx: Any, u: Tensor, dim: int, idx: Any, inv: Any) -> Tensor:
        ctx.dim, ctx.idx, ctx.inv = dim, idx, inv
        return wrap(B.namespace(u._data).take_along_axis(u._data, idx, axis=dim))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return SortScatter.apply(g, ctx.dim, ctx.idx, ctx.inv), None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, *args: Any) -> Any:
        """Batching rule: scan.py's ``_along_rule`` (batch first, indices repeated)."""
        from .scan import _along_rule

        return _along_rule(info, in_dims, *args)


class Topk(Sort):
    """Sort restricted to the ``k`` largest (or smallest) entries; see :class:`Sort`."""



def sort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Any:
    """Sort along ``dim``; always stable here (ties keep their order, also when descending).

    ``nan`` sorts as the largest value, as in PyTorch.

    Derivative: ``grad_input`` is ``grad_values`` scattered back to ``indices`` along ``dim``
    (derivatives.yaml ``sort``: ``value_selecting_reduction_backward``).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to sort along. Default: ``-1``.
        descending (bool): largest first. Default: ``False``.
        stable (bool): accepted for PyTorch's signature; the sort is always stable. Default:
            ``False``.
    Returns:
        tuple of Tensor: ``(values, indices)`` namedtuple, both ``input``'s shape; ``values``
        keeps ``input``'s dtype, ``indices`` int64.
    Raises:
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.sort(dyngrad.tensor([3, 1, 2, 1]))
        sort(values=tensor([1, 1, 2, 3]), indices=tensor([1, 3, 2, 0]))
        >>> x = dyngrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
        >>> values, indices = dyngrad.sort(x, descending=True)
        >>> (values * dyngrad.tensor([1.0, 2.0, 3.0])).sum().backward()
        >>> x.grad
        tensor([1., 3., 2.])
    """
    d = norm_dim(dim, input._data.ndim, "sort")
    return SortResult(*Sort.apply(input, d, bool(descending), None))


def argsort(input: Tensor, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
    """The int64 indices that sort ``input`` along ``dim`` (``sort(input, dim, descending)[1]``).

    dyngrad's sort is always stable (ties keep their order, also when descending), so
    ``stable`` changes nothing; ``nan`` sorts last (first when descending), as PyTorch.
    Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int, optional): the dim to sort along. Default: ``-1``.
        descending (bool, optional): largest first. Default: ``False``.
        stable (bool, optional): accepted; the sort is always stable. Default: ``False``.
    Returns:
        Tensor: int64, ``input``'s shape.
    Raises:
        IndexError: when ``dim`` is out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.argsort(dyngrad.tensor([[3, 1, 2], [0, 5, 5]]))
        tensor([[1, 2, 0],
                [0, 1, 2]])
        >>> dyngrad.argsort(dyngrad.tensor([3, 1, 3, 1]), descending=True)
        tensor([0, 2, 1, 3])
    """
    from ..autograd.grad_mode import no_grad

    d = norm_dim(dim, input._data.ndim, "argsort")
    with no_grad():  # the indices of Sort (so that vmap batches it); values unused
        return Sort.apply(input, d, bool(descending), None)[1]


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values``: each column sorted, ascending.

    Derivative: as :func:`sort`'s values.

    Args:
        input (Tensor): ``(*)``.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.msort(dyngrad.tensor([[3, 1], [1, 2]]))
        tensor([[1, 1],
                [3, 2]])
    """
    return sort(input, 0).values


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> Any:  # noqa: A002
    """The ``k`` largest (``largest=False``: smallest) entries along ``dim``.

    Derivative: ``grad_input`` is ``grad_values`` scattered back to ``indices`` along ``dim``,
    0 elsewhere (derivatives.yaml ``topk``).

    Args:
        input (Tensor): ``(*)``.
        k (int): how many, ``0 <= k <= input.size(dim)``.
        dim (int): the dim to select along. Default: ``-1``.
        largest (bool): the largest entries (else the smallest). Default: ``True``.
        sorted (bool): accepted for PyTorch's signature; the result is always sorted.
            Default: ``True``.
    Returns:
        tuple of Tensor: ``(values, indices)`` namedtuple, ``input``'s shape with ``k`` at
        ``dim``, always in sorted order (also with ``sorted=False``, which PyTorch leaves
        unspecified); ``indices`` int64.
    Raises:
        RuntimeError: ``k`` negative or larger than the dim size.
        IndexError: bad ``dim``.

    Example:
        >>> import dyngrad
        >>> dyngrad.topk(dyngrad.tensor([1, 5, 3, 5]), 2)
        topk(values=tensor([5, 5]), indices=tensor([1, 3]))
        >>> dyngrad.topk(dyngrad.tensor([1, 5, 3, 5]), 2, largest=False)
        topk(values=tensor([1, 3]), indices=tensor([0, 2]))
    """
    d = norm_dim(dim, input._data.ndim, "topk")
    n = input._data.shape[d] if input._data.ndim else 1
    if not 0 <= int(k) <= n:
        raise RuntimeError(f"selected index k out of range (k={k}, size {n} at dimension {d})")
    return TopkResult(*Topk.apply(input, d, bool(largest), int(k)))


def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """The indices of non-zero entries, in C order (not differentiable).

    Not differentiable: the result is an int64 index tensor.

    Args:
        input (Tensor): ``(*)``, any dtype.
        as_tuple (bool): keyword only; return one index tensor per dim. Default: ``False``.
    Returns:
        Tensor or tuple of Tensor: ``(n, input.ndim)`` int64 tensor, or with ``as_tuple`` one
        ``(n,)`` tensor per dim (a 0-d input is treated as 1-d there, as PyTorch).
    Raises:
        TypeError: when ``input`` is not a Tensor.
        TypeError: ``as_tuple`` given positionally (it is keyword-only) or not a bool (as
            PyTorch).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 0], [0, 2]])
        >>> dyngrad.nonzero(x)
        tensor([[0, 0],
                [1, 1]])
        >>> dyngrad.nonzero(x, as_tuple=True)
        (tensor([0, 1]), tensor([0, 1]))
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    if not isinstance(as_tuple, (bool, np.bool_)):
        raise TypeError(f"nonzero(): argument 'as_tuple' must be bool, not {type(as_tuple).__name__}")
    d = input._data
    if as_tuple:
        return tuple(wrap(i.astype(np.int64)) for i in np.nonzero(d.reshape(1) if d.ndim == 0 else d))
    if d.ndim == 0:
        return wrap(np.zeros((int(d != 0), 0), dtype=np.int64))
    return wrap(np.argwhere(d).astype(np.int64))


def argwhere(input: Tensor) -> Tensor:
    """The indices of the non-zero elements of ``input``, one row per element, in C order.

    The same as ``nonzero(input)`` (``nan`` counts as non-zero). Not differentiable.

    Args:
        input (Tensor): ``(*)``, any dtype.
    Returns:
        Tensor: ``(n, input.ndim)``, int64, ``n`` the number of non-zero elements (a 0-d input
        gives ``(1, 0)`` or ``(0, 0)``).
    Raises:
        AttributeError: when ``input`` is not a Tensor.

    Example:
        >>> import dyngrad
        >>> dyngrad.argwhere(dyngrad.tensor([[1, 0], [0, 3]]))
        tensor([[0, 0],
                [1, 1]])
    """
    return nonzero(input)
