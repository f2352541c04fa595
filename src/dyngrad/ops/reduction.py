"""Reductions over dims: ``input (*) -> output`` with the reduced dims removed (or kept
as size 1 with ``keepdim=True``), and the scans ``cumsum``/``cumprod``.

The statistics (var, std, logsumexp, norms) live in :mod:`dyngrad.ops.statistics` and are
re-exported from here (one family, two files).
"""

from __future__ import annotations

import builtins
from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching_reduce import reduce_dims, select_dim
from ._util import norm_dim, norm_dims, wrap

__all__ = ["sum", "mean", "prod", "amax", "amin", "max", "min"]
TENSOR_METHODS = set(__all__)

#: ``torch.return_types.max``/``min``: ``(values, indices)``.
max_return = namedtuple("max", ["values", "indices"])
min_return = namedtuple("min", ["values", "indices"])


def _kept_shape(shape: tuple, dims: tuple | None) -> tuple:
    if dims is None:
        return (1,) * len(shape)
    return tuple(1 if i in dims else s for i, s in enumerate(shape))


def unreduce(g: Tensor, shape: tuple, dims: tuple | None, keepdim: bool) -> Tensor:
    """Re-insert reduced dims (size 1) into a gradient so it broadcasts against the input."""
    return g if keepdim else g.reshape(_kept_shape(shape, dims))


def const(arr: Any, dtype: Any) -> Tensor:
    """A constant (never requires grad) Tensor of ``arr`` cast to ``dtype`` (masks, counts)."""
    return wrap(B.asarray_any(arr, dtype=dtype))


def host_const(arr: Any, like: Any, dtype: Any = None) -> Tensor:
    """A constant made on the host (``np.eye``, ``np.triu``, index grids: NumPy arrays that
    do not depend on any tensor's values) as a Tensor in the library of ``like`` (a Tensor or
    an array), cast to ``dtype`` (a NumPy dtype; default ``like``'s dtype)."""
    d = like._data if isinstance(like, Tensor) else like
    return wrap(B.like(arr, d, dtype=B.np_dtype_of(d) if dtype is None else dtype))


def _count(shape: tuple, dims: tuple | None) -> int:
    return B.prod(shape) if dims is None else B.prod(tuple(shape[i] for i in dims))


def rdims(dim: Any, ndim: int, op: str) -> tuple | None:
    """``norm_dims`` for reductions: a 0-d input accepts dim 0/-1 and reduces "all" (nothing)."""
    dims = norm_dims(dim, ndim, op)
    return None if ndim == 0 else dims


def _dtype_arg(dtype: Any) -> Any:
    return None if dtype is None else B.to_np_dtype(dtype)


class Sum(Linear):
    """``out = sum(x, dims)``; ``grad_x = expand(grad, x.shape)`` (after re-inserting the
    reduced dims). Shapes: ``(*) -> (*)`` with ``dims`` removed (kept as 1 with keepdim)."""

    _node_name = "SumBackward1"
    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool, dtype: Any) -> Tensor:
        d = x._data
        if dtype is None and B.kind(d) in "biu":
            dtype = np.int64
        ctx.shape, ctx.dims, ctx.keepdim = d.shape, dims, keepdim
        if type(d) is np.ndarray or B.native(d):
            return wrap(np.sum(d, axis=dims, keepdims=keepdim, dtype=dtype))
        return wrap(B.asum(d, axis=dims, keepdims=keepdim, dtype=dtype))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return unreduce(g, ctx.shape, ctx.dims, ctx.keepdim).expand(ctx.shape), None, None, None


class SumAll(Sum):
    """``sum(x)`` over all elements (PyTorch's node name ``SumBackward0``)."""

    _node_name = "SumBackward0"


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    """Sum of elements over ``dim`` (int, tuple of ints, or None for all).

    Args:
        input: ``(*)``.
        dim: dims to reduce; None (or ``()``) reduces all.
        keepdim: keep reduced dims with size 1.
        dtype: accumulate/return in this dtype (bool/int inputs default to int64).
    Returns:
        Tensor with the reduced shape.
    Raises:
        IndexError: dim out of range.

    Derivative: ``grad_input = grad_output`` expanded back to ``input``'s shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.arange(6.0).reshape(2, 3)
        >>> dyngrad.sum(x), dyngrad.sum(x, dim=1), dyngrad.sum(x, 0, keepdim=True).shape
        (tensor(15.), tensor([ 3., 12.]), dyngrad.Size([1, 3]))
    """
    dims = rdims(dim, input._data.ndim, "sum")
    cls = SumAll if dims is None else Sum
    return cls.apply(input, dims, keepdim, _dtype_arg(dtype))


class Mean(Linear):
    """``out = sum(x, dims) / n``; ``grad_x = expand(grad, x.shape) / n`` with ``n`` the
    number of reduced elements (an empty reduction gives nan, as PyTorch)."""

    _node_name = "MeanBackward1"
    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool) -> Tensor:
        d = x._data
        if B.kind(d) != "f":
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating "
                f"point or complex dtype. Got: {x.dtype.name}"
            )
        ctx.shape, ctx.dims, ctx.keepdim = d.shape, dims, keepdim
        ctx.n = _count(d.shape, dims)
        with np.errstate(invalid="ignore", divide="ignore"):  # empty: nan, as PyTorch
            if type(d) is np.ndarray or B.native(d):
                return wrap(B.asarray_any(np.sum(d, axis=dims, keepdims=keepdim) / d.dtype.type(ctx.n), dtype=d.dtype))
            return wrap(B.namespace(d).sum(d, axis=dims, keepdims=keepdim) / ctx.n)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        return unreduce(g, ctx.shape, ctx.dims, ctx.keepdim).expand(ctx.shape) / ctx.n, None, None


class MeanAll(Mean):
    """``mean(x)`` over all elements (node name ``MeanBackward0``)."""

    _node_name = "MeanBackward0"


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean over ``dim`` (int, tuple, or None for all). Same shapes as :func:`sum`.

    Derivative: ``grad_input = grad_output / N`` expanded to ``input``'s shape, ``N`` the
    number of elements averaged.

    Raises:
        RuntimeError: for integer inputs without ``dtype`` (as PyTorch).
        IndexError: dim out of range.

    Args:
        input (Tensor): ``(*)``, floating (or pass ``dtype``).
        dim: an int, a tuple of ints, or None for all dims.
        keepdim (bool): keep the reduced dims with size 1.
        dtype: compute and return in this dtype.
    Returns:
        Tensor: the reduced shape.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0], [3.0, 5.0]], requires_grad=True)
        >>> dyngrad.mean(x, dim=0)
        tensor([2.0000, 3.5000], grad_fn=<MeanBackward1>)
        >>> dyngrad.mean(x).backward()
        >>> x.grad
        tensor([[0.2500, 0.2500],
                [0.2500, 0.2500]])
    """
    if dtype is not None:
        input = input.to(dtype)
    dims = rdims(dim, input._data.ndim, "mean")
    return (MeanAll if dims is None else Mean).apply(input, dims, keepdim)


class Prod(Op):
    """``out = prod(x, dim)``; ``grad_x_i = grad * prod_{k != i} x_k``.

    Without zeros this is ``grad * out / x``. With zeros (the case split of PyTorch's
    ``prod_backward``): a slice with one zero sends ``p`` = the product of its non-zero
    entries to the zero's position and 0 elsewhere; with two or more zeros the gradient is
    0. The zero values are kept as factors (``x_zero * p / x_i``, ...), so the backward,
    written with dyngrad ops, also has exact second derivatives with any number of zeros.
    """

    _node_name = "ProdBackward1"
    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool, dtype: Any) -> Tensor:
        d = x._data
        if dtype is None and B.kind(d) in "biu":
            dtype = np.int64
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            if type(d) is np.ndarray or B.native(d):
                out = wrap(np.prod(d, axis=dims, keepdims=keepdim, dtype=dtype))
            else:
                out = wrap(B.namespace(d).prod(d, axis=dims, keepdims=keepdim, dtype=B.dtype_for(d, dtype)))
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, dims, dt = x._data.shape, ctx.dims, x._data.dtype
        g = unreduce(g, shape, dims, ctx.keepdim)
        zero = x._data == 0
        xp = B.xp_for(zero)
        if not xp.any(zero):
            return g * unreduce(out, shape, dims, ctx.keepdim) / x, None, None, None
        nz = zero.sum(axis=dims, keepdims=True) if xp is np else xp.sum(B.astype(zero, np.int64), axis=dims,
                                                                          keepdims=True)
        if xp.any(nz >= 2):  # several zeros in a slice: division-free, exact at every order
            return g * _prod_of_others(x, dims), None, None, None
        zf = const(zero, dt)
        xs = x * (1 - zf) + zf  # zeros replaced by ones
        p = Prod.apply(xs, dims, True, None)  # product of the non-zero entries
        zsum = (x * zf).sum(dims, keepdim=True)  # 0, but carries d/dx_zero for double backward
        one = zf * p + (1 - zf) * zsum * p / xs
        grad = const(nz == 0, dt) * p / xs + const(nz == 1, dt) * one
        return g * grad, None, None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = sum(u_i * prod_{k != i} x_k, dims)``: the weights are
        backward's gradient for a unit ``grad`` (zeros handled as there)."""
        (_x, out) = ctx.saved_tensors
        w = Prod.backward(ctx, Tensor._make(B.ones_like(out._data, dtype=B.np_dtype_of(u._data))))[0]
        return Sum.apply(u * w, ctx.dims, ctx.keepdim, None)


def _prod_of_others(x: Tensor, dims: tuple | None) -> Tensor:
    """``prod_{k != i} x_k`` over the reduced ``dims`` for every element ``i`` of ``x``, with
    an ``(m, m)`` table per slice (``m`` reduced elements): no division, so its derivatives
    of every order are exact whatever the zeros."""
    nd = x.ndim
    red = tuple(range(nd)) if dims is None else tuple(dims)
    perm = [d for d in range(nd) if d not in red] + list(red)
    xp = x.permute(*perm) if perm != list(range(nd)) else x
    kshape = tuple(xp.shape[: nd - len(red)])
    m = int(np.prod([x.shape[d] for d in red], dtype=np.int64))
    rows = xp.reshape(*kshape, 1, m)
    off = ~np.eye(m, dtype=bool)  # (a host constant, moved to x's library)
    dt = B.np_dtype_of(x._data)
    others = (rows * const(B.like(off, x._data), dt) + const(B.like(~off, x._data), dt)).prod(-1)
    back = others.reshape(*xp.shape)
    inv = [perm.index(d) for d in range(nd)]
    return back.permute(*inv) if perm != list(range(nd)) else back


class ProdAll(Prod):
    """``prod(x)`` over all elements (node name ``ProdBackward0``)."""

    _node_name = "ProdBackward0"


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Product of elements over ``dim`` (one int) or of all elements (``dim=None``).

    Derivative: ``grad_input = grad_output * output / input``, computed without dividing by
    zero: with one zero in the product its gradient is the product of the others, with two
    or more every gradient is 0 (derivatives.yaml ``prod_backward``).

    Args:
        input (Tensor): ``(*)``.
        dim (int, optional): the dim to reduce (one int; PyTorch has no tuple form). Default:
            ``None`` (all elements).
        keepdim (bool): keep the reduced dim with size 1. Default: ``False``.
        dtype (dtype, optional): keyword only; the result dtype. Default: ``None`` (``input``'s;
            bool and integer inputs give int64).
    Returns:
        Tensor: ``()`` for ``dim=None``, else ``input``'s shape without ``dim``.
    Raises:
        IndexError: dim out of range.
        TypeError: a tuple ``dim``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([2.0, 0.0, 4.0], requires_grad=True)
        >>> y = dyngrad.prod(x)
        >>> y.backward()
        >>> y.detach(), x.grad
        (tensor(0.), tensor([0., 8., 0.]))
        >>> dyngrad.prod(dyngrad.tensor([[1, 2], [3, 4]]), 1)
        tensor([ 2, 12])
    """
    if dim is None:
        return ProdAll.apply(input, None, keepdim, _dtype_arg(dtype))
    dims = (norm_dim(dim, input._data.ndim, "prod"),)
    if input._data.ndim == 0:
        dims = None
    return Prod.apply(input, dims, keepdim, _dtype_arg(dtype))


def _extreme(op: str, d: np.ndarray, dims: tuple | None, keepdim: bool) -> np.ndarray:
    if d.size == 0 and dims is None:  # PyTorch: a RuntimeError without a dim, an IndexError with one
        raise RuntimeError(
            f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify "
            "the reduction dim with the 'dim' argument."
        )
    if d.size == 0 and builtins.any(d.shape[i] == 0 for i in dims):
        raise IndexError(f"{op}(): Expected reduction dim {dims[0]} to have non-zero size.")
    xp = B.xp_for(d)
    if xp is np:
        fn = np.max if op in ("amax", "max") else np.min
    else:
        fn = xp.max if op in ("amax", "max") else xp.min
    return fn(d, axis=dims, keepdims=keepdim)


class Amax(Op):
    """``out = amax(x, dims)``; ``grad_x = grad * (x == out) / count(x == out)``: the
    gradient is split evenly between tied maxima (as PyTorch's ``amax``/``max()``)."""

    vmap = reduce_dims(1)  # batching rule, see ops/_batching_reduce.py
    _op = "amax"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple | None, keepdim: bool) -> Tensor:
        out = wrap(_extreme(type(ctx)._forward_cls._op, x._data, dims, keepdim))
        ctx.dims, ctx.keepdim = dims, keepdim
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        x, out = ctx.saved_tensors
        shape, dt = x._data.shape, x._data.dtype
        if not B.native(x._data):
            w = _tie_weights(x._data, out._data, shape, ctx.dims, ctx.keepdim)
            return unreduce(g, shape, ctx.dims, ctx.keepdim) * wrap(w), None, None
        o = out._data if ctx.keepdim else out._data.reshape(_kept_shape(shape, ctx.dims))
        mask = x._data == o
        count = mask.sum(axis=ctx.dims, keepdims=True)
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            return unreduce(g, shape, ctx.dims, ctx.keepdim) * const(mask / count, dt), None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = sum(u * (x == out) / count(x == out), dims)`` (ties
        share the tangent evenly, as backward shares the gradient)."""
        x, out = ctx.saved_tensors
        shape = x._data.shape
        if not B.native(x._data):
            return Sum.apply(u * wrap(_tie_weights(x._data, out._data, shape, ctx.dims, ctx.keepdim)),
                             ctx.dims, ctx.keepdim, None)
        o = out._data if ctx.keepdim else out._data.reshape(_kept_shape(shape, ctx.dims))
        mask = x._data == o
        w = const(mask / mask.sum(axis=ctx.dims, keepdims=True), x._data.dtype)
        return Sum.apply(u * w, ctx.dims, ctx.keepdim, None)


def _tie_weights(d: Any, o: Any, shape: tuple, dims: tuple | None, keepdim: bool) -> Any:
    """``mask / count`` of :class:`Amax`'s backward with the standard's functions (an Array
    API array): 1/k at each of the k elements equal to the extreme of their slice."""
    xp = B.namespace(d)
    o = o if keepdim else xp.reshape(o, _kept_shape(shape, dims))
    mask = xp.astype(d == o, d.dtype)
    with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
        return mask / xp.sum(mask, axis=dims, keepdims=True)


class Amin(Amax):
    """``out = amin(x, dims)``; gradient split evenly between tied minima."""

    _op = "amin"


class MaxAll(Amax):
    """``max(x)`` (full reduction; node ``MaxBackward1``): ties share the gradient evenly."""

    _node_name = "MaxBackward1"
    _op = "max"


class MinAll(Amax):
    """``min(x)`` (full reduction; node ``MinBackward1``): ties share the gradient evenly."""

    _node_name = "MinBackward1"
    _op = "min"


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The maximum of ``input`` over ``dim`` (an int or a tuple; ``()`` or ``None``: all dims).

    Unlike ``max(input, dim)``, no indices are returned and several dims may be reduced; ``nan``
    propagates.

    Derivative: ``grad_input = grad_output / count`` at every element equal to the maximum
    (tied extrema share the gradient evenly, as PyTorch's derivatives.yaml ``amax``), 0
    elsewhere.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int or tuple of ints, optional): the dims to reduce. Default: ``()`` (all).
            (``axis`` is accepted as an alias.)
        keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.
            (``keepdims`` is accepted as an alias.)
    Returns:
        Tensor: ``input``'s shape without the reduced dims (size 1 with ``keepdim``), ``input``'s
        dtype.
    Raises:
        IndexError: when a dim is out of range, or a reduced dim is empty.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 5.0, 5.0], [7.0, 0.0, 7.0]], requires_grad=True)
        >>> dyngrad.amax(x, dim=1)
        tensor([5., 7.], grad_fn=<AmaxBackward0>)
        >>> dyngrad.amax(x, dim=1).sum().backward()
        >>> x.grad
        tensor([[0.0000, 0.5000, 0.5000],
                [0.5000, 0.0000, 0.5000]])
    """
    return Amax.apply(input, rdims(dim, input._data.ndim, "amax"), keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    """The minimum of ``input`` over ``dim`` (an int or a tuple; ``()`` or ``None``: all dims).

    Unlike ``min(input, dim)``, no indices are returned and several dims may be reduced; ``nan``
    propagates.

    Derivative: ``grad_input = grad_output / count`` at every element equal to the minimum
    (tied extrema share the gradient evenly, as PyTorch's derivatives.yaml ``amin``), 0
    elsewhere.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int or tuple of ints, optional): the dims to reduce. Default: ``()`` (all).
            (``axis`` is accepted as an alias.)
        keepdim (bool, optional): keep the reduced dims with size 1. Default: ``False``.
            (``keepdims`` is accepted as an alias.)
    Returns:
        Tensor: ``input``'s shape without the reduced dims (size 1 with ``keepdim``), ``input``'s
        dtype.
    Raises:
        IndexError: when a dim is out of range, or a reduced dim is empty.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 1.0, 5.0], [7.0, 0.0, 7.0]], requires_grad=True)
        >>> dyngrad.amin(x, dim=(0, 1))
        tensor(0., grad_fn=<AminBackward0>)
        >>> dyngrad.amin(x, dim=1).sum().backward()
        >>> x.grad
        tensor([[0.5000, 0.5000, 0.0000],
                [0.0000, 1.0000, 0.0000]])
    """
    return Amin.apply(input, rdims(dim, input._data.ndim, "amin"), keepdim)


class MaxDim(Op):
    """``values, indices = max(x, dim)``: ``grad_x`` is ``grad`` placed at ``indices``
    along ``dim`` (zeros elsewhere); ``indices`` are int64 and non-differentiable."""

    _node_name = "MaxBackward0"
    vmap = staticmethod(select_dim)  # batching rule, see ops/_batching_reduce.py
    _arg = staticmethod(np.argmax)

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, keepdim: bool) -> tuple:
        cls, d = type(ctx)._forward_cls, x._data
        if type(d) is not np.ndarray and not B.native(d):
            return _max_dim_xp(ctx, cls, d, dim, keepdim)
        if d.ndim == 0:
            idx = np.zeros((), dtype=np.int64)
            vals = d.copy()
        else:
            if d.shape[dim] == 0:
                raise IndexError(f"{cls._node_name[:3].lower()}(): Expected reduction dim {dim} to have non-zero size.")
            idx = np.expand_dims(cls._arg(d, axis=dim).astype(np.int64), dim)
            vals = np.take_along_axis(d, idx, axis=dim)
            if not keepdim:
                idx, vals = idx.squeeze(dim), vals.squeeze(dim)
        ctx.dim, ctx.keepdim, ctx.shape, ctx.idx = dim, keepdim, d.shape, idx
        indices = wrap(idx)
        ctx.mark_non_differentiable(indices)
        return wrap(vals), indices

    @staticmethod
    def backward(ctx: Any, g: Tensor, _gi: Any) -> tuple:
        shape, dim = ctx.shape, ctx.dim
        if not shape:
            return g, None, None
        g = g if ctx.keepdim else g.unsqueeze(dim)
        return g * const(_at_index(ctx), g._data.dtype), None, None

    # hand-written: couples elements along dims: not elementwise
    @staticmethod
    def jvp(ctx: Any, u: Tensor, *_: Any) -> Any:
        """Forward mode: ``t = u`` at ``indices`` along ``dim`` (the indices get no tangent)."""
        shape, dim = ctx.shape, ctx.dim
        if not shape:
            return u, None
        return (u * const(_at_index(ctx), u._data.dtype)).sum(dim, ctx.keepdim), None


def _at_index(ctx: Any) -> Any:
    """The boolean mask of :class:`MaxDim`'s indices along ``ctx.dim`` (in the indices'
    library): where its backward puts the gradient."""
    shape, dim, idx = ctx.shape, ctx.dim, ctx.idx
    if type(idx) is np.ndarray or B.native(idx):
        idx = idx if ctx.keepdim else np.expand_dims(idx, dim)
        pos = np.arange(shape[dim]).reshape((-1,) + (1,) * (len(shape) - dim - 1))
        return pos == idx
    xp = B.namespace(idx)
    idx = idx if ctx.keepdim else xp.expand_dims(idx, axis=dim)
    pos = xp.reshape(xp.arange(shape[dim], dtype=idx.dtype), (-1,) + (1,) * (len(shape) - dim - 1))
    return pos == idx


def _max_dim_xp(ctx: Any, cls: Any, d: Any, dim: int, keepdim: bool) -> tuple:
    """:class:`MaxDim`'s forward with the standard's functions (an Array API array)."""
    xp = B.namespace(d)
    if d.ndim == 0:
        idx = xp.zeros((), dtype=xp.int64)
        vals = B.copy(d)
    else:
        if d.shape[dim] == 0:
            raise IndexError(f"{cls._node_name[:3].lower()}(): Expected reduction dim {dim} to have non-zero size.")
        arg = xp.argmax if cls._arg is np.argmax else xp.argmin
        idx = xp.astype(arg(d, axis=dim, keepdims=True), xp.int64)
        vals = xp.take_along_axis(d, idx, axis=dim)
        if not keepdim:
            idx, vals = xp.squeeze(idx, axis=dim), xp.squeeze(vals, axis=dim)
    ctx.dim, ctx.keepdim, ctx.shape, ctx.idx = dim, keepdim, d.shape, idx
    indices = wrap(idx)
    ctx.mark_non_differentiable(indices)
    return wrap(vals), indices


class MinDim(MaxDim):
    """``values, indices = min(x, dim)``; gradient placed at ``indices``."""

    _node_name = "MinBackward0"
    _arg = staticmethod(np.argmin)


def _max_min(op: str, input: Tensor, dim: Any, keepdim: bool) -> Any:
    if isinstance(dim, Tensor):  # binary form: max(input, other) == maximum
        from . import elementwise

        fn = getattr(elementwise, "maximum" if op == "max" else "minimum", None)
        if fn is None:  # pragma: no cover - depends on the elementwise family
            raise NotImplementedError(f"{op}(input, other) needs ops.elementwise.{'maximum' if op == 'max' else 'minimum'}")
        return fn(input, dim)
    if dim is None:
        return (MaxAll if op == "max" else MinAll).apply(input, None, False)
    d = norm_dim(dim, input._data.ndim, op)
    vals, idx = (MaxDim if op == "max" else MinDim).apply(input, d, keepdim)
    return (max_return if op == "max" else min_return)(vals, idx)


def max(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``max(input)``: the largest element (0-d; ties share the gradient).
    ``max(input, dim, keepdim=False)``: namedtuple ``(values, indices)``; the gradient goes
    to the returned index. ``max(input, other)``: elementwise ``maximum``.

    ``nan`` is the largest value (it propagates), as in PyTorch.

    Derivative: ``max(input)``: ``grad_output`` split evenly between the tied maxima
    (derivatives.yaml ``evenly_distribute_backward``); with ``dim``: ``grad_output`` at the
    returned index, 0 elsewhere (``value_selecting_reduction_backward``); with ``other``: as
    :func:`maximum`.

    Args:
        input (Tensor): ``(*)``.
        dim (int or Tensor, optional): the dim to reduce, or the Tensor ``other`` to compare
            with elementwise. Default: ``None`` (all elements).
        keepdim (bool): keep the reduced dim with size 1. Default: ``False``.
    Returns:
        Tensor or tuple of Tensor: ``()`` without ``dim``; with ``dim`` a namedtuple
        ``(values, indices)``, each ``input``'s shape without ``dim`` (indices int64); with
        ``other`` the broadcast shape.
    Raises:
        IndexError: dim out of range, or a dim of size 0.
        RuntimeError: an empty tensor without ``dim``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 3.0, 3.0], [4.0, 0.0, 1.0]], requires_grad=True)
        >>> dyngrad.max(x).detach()
        tensor(4.)
        >>> values, indices = dyngrad.max(x, 1)
        >>> values.sum().backward()
        >>> values.detach(), indices
        (tensor([3., 4.]), tensor([1, 0]))
        >>> x.grad
        tensor([[0., 1., 0.],
                [1., 0., 0.]])
    """
    return _max_min("max", input, dim, keepdim)


def min(input: Tensor, dim: Any = None, keepdim: bool = False) -> Any:  # noqa: A001
    """``min`` counterpart of :func:`max` (``(values, indices)`` with ``dim``).

    ``min(input)``: the smallest element; ``min(input, dim, keepdim=False)``: namedtuple
    ``(values, indices)``; ``min(input, other)``: elementwise :func:`minimum`. ``nan``
    propagates.

    Derivative: as :func:`max`'s: ties share it evenly without ``dim``; with ``dim`` it goes
    to the returned index.

    Args:
        input (Tensor): ``(*)``.
        dim (int or Tensor, optional): the dim to reduce, or the Tensor ``other``. Default:
            ``None`` (all elements).
        keepdim (bool): keep the reduced dim with size 1. Default: ``False``.
    Returns:
        Tensor or tuple of Tensor: ``()`` without ``dim``; with ``dim`` a namedtuple
        ``(values, indices)``; with ``other`` the broadcast shape.
    Raises:
        IndexError: dim out of range, or a dim of size 0.
        RuntimeError: an empty tensor without ``dim``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1, 5], [4, 2]])
        >>> dyngrad.min(x)
        tensor(1)
        >>> dyngrad.min(x, dim=0, keepdim=True)
        min(values=tensor([[1, 2]]), indices=tensor([[0, 1]]))
    """
    return _max_min("min", input, dim, keepdim)


class SumToSize(Linear):
    """Reduce a broadcast gradient to its input's shape: ``grad_input = expand(grad)``.

    The engine reduces a gradient whose shape its input broadcasts to with this op when the
    reduction must be differentiable (``create_graph``) or batched (inside vmap). Linear: its
    jvp is the op applied to the tangent.
    """

    @staticmethod
    def forward(ctx: Any, g: Tensor, shape: tuple) -> Tensor:
        ctx.shape, ctx.target = g._data.shape, shape
        return Tensor._make(B.sum_to_size(g._data, shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        return grad.expand(ctx.shape), None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, g: Tensor, shape: tuple) -> tuple:
        """Batching rule: sum the per-example dims only (the batch dim, moved to the front,
        is kept; ``shape`` is padded so that it stays aligned)."""
        if in_dims[0] != 0:
            g = g.movedim(in_dims[0], 0)
        n = g.shape[0]
        target = (n,) + (1,) * (g.ndim - 1 - len(shape)) + tuple(shape)
        out = SumToSize.apply(g, target) if target != tuple(g.shape) else g
        return out.reshape((n, *shape)), 0


def sum_to_size(input: Tensor, *size: Any) -> Tensor:
    """Sum ``input`` down to ``size``, which must broadcast to ``input.shape`` (the inverse of
    ``expand``). ``Tensor.sum_to_size`` in PyTorch; dyngrad also has the function.

    Derivative: ``grad_input = grad_output.expand(input.shape)``.

    Args:
        input (Tensor): ``(*)``.
        *size (int or sequence of int): the target shape, broadcastable to ``input.shape``.
    Returns:
        Tensor: ``size``, ``input``'s dtype (``input`` itself when the shapes are equal).
    Raises:
        RuntimeError: when ``size`` is not expandable to ``input.shape``.

    Example:
        >>> import dyngrad
        >>> dyngrad.sum_to_size(dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, 2)
        tensor([[4., 6.]])
    """
    from ._util import shape_arg

    shape = shape_arg(size)
    if not B.is_broadcastable_to(shape, input._data.shape):
        raise RuntimeError(f"sum_to_size: size {list(shape)} is not expandable to size {list(input.shape)}")
    if shape == input._data.shape:
        return input
    return SumToSize.apply(input, shape)


__all__.append("sum_to_size")
TENSOR_METHODS.add("sum_to_size")
