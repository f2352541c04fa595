"""Index-driven gathers and scatters: ``index_select``, ``gather``, ``scatter``,
``scatter_add``, ``take_along_dim``, ``take``, ``index_add``, ``index_copy``.

``gather`` and ``scatter_add`` are each other's adjoints, so every backward here is written
with these ops and stays differentiable.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as _B
from ..tensor import Tensor
from ._bases import Linear, Op
from ._batching_index import batch_operand
from ._util import data_of, inplace, is_wrapper, norm_dim, wrap
from .. import _backend as B

__all__ = [
    "index_select", "gather", "scatter", "scatter_", "scatter_add", "scatter_add_",
    "take_along_dim", "index_add", "index_copy", "take",
]
TENSOR_METHODS = set(__all__)


def _int_index(index: Any, op: str) -> np.ndarray:
    d = data_of(index)
    if not B.native(d) and hasattr(d, "shape"):  # an Array API index tensor: read on the host (a host
        d = B.to_host(d)  # computation, as for Dask: the bounds check and the gather positions)
    if not isinstance(d, np.ndarray):
        d = _B.asarray_any(d)
    if B.kind(d) not in "iu" or d.dtype == np.uint8:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index, got {d.dtype}")
    return d


def _grid(index: np.ndarray, dim: int) -> tuple:
    """The NumPy index that reads ``t[i0, .., index[i], .., in]`` for every position of ``index``."""
    idx = list(np.ix_(*[np.arange(s) for s in index.shape])) if index.ndim else []
    if index.ndim:
        idx[dim] = index
    return tuple(idx)


def _phys_index(index: Any, d: Any, n: int, op: str) -> Any:
    """The batch-first index of a batching rule: an index shared by every example (an
    ndarray) broadcast along the batch; a batched one read (an ndarray), or left a Tensor
    when it is still batched at an outer vmap level (whose rule reads it)."""
    if isinstance(index, np.ndarray):
        return np.broadcast_to(index, (n,) + index.shape)
    t = batch_operand(index, d, n)
    return t if is_wrapper(t) else _int_index(t, op)


def _gs_rule(info: Any, in_dims: tuple, x: Tensor, dim: int, index: Any, src: Any = None) -> Any:
    """Batching rule of :class:`Gather`, :class:`Scatter` and :class:`ScatterAdd`: ``x``
    and a tensor ``src`` batch-first (an unbatched one expanded), the index batch-first
    (a shared one broadcast along the batch; a batched one, which the wrapper could not
    check, checked here), ``dim`` shifted; 0-d examples as ``(1,)``."""
    n, op = info.batch_size, info.function.__name__.lower()
    scatter = len(in_dims) > 3
    x = batch_operand(x, in_dims[0], n)
    if in_dims[2] is None and isinstance(index, np.ndarray) and index.ndim + 1 != x.ndim:
        return NotImplemented  # an empty index of another rank: loop
    idx = _phys_index(index, in_dims[2], n, op)
    src = batch_operand(src, in_dims[3], n) if scatter else None
    if in_dims[2] is not None and isinstance(idx, np.ndarray):
        _check_gs(op, x._data, dim + 1, idx, src._data if isinstance(src, Tensor) else None)
    args = (src,) if scatter else ()
    if x.ndim == 1:  # 0-d examples
        if isinstance(src, Tensor):
            args = (src.reshape(n, -1),)
        out = info.function.apply(x.reshape(n, 1), 1, idx.reshape(n, -1), *args)
        return out.reshape((n,) + tuple(idx.shape[1:]) if not scatter else (n,)), 0
    return info.function.apply(x, dim + 1, idx, *args), 0


def _check_gs(op: str, x: np.ndarray, dim: int, index: np.ndarray, src: Any = None) -> None:
    xs = x.shape if x.ndim else (1,)
    ix = index.shape if index.ndim else (1,)
    if index.size == 0:
        return
    if len(ix) != len(xs):
        raise RuntimeError(f"{op}(): Index tensor must have the same number of dimensions as input tensor")
    for d in range(len(xs)):
        if d != dim and ix[d] > xs[d]:
            raise RuntimeError(
                f"{op}(): Size does not match at dimension {d} expected index {list(ix)} to be no "
                f"larger than self {list(xs)} apart from dimension {dim}"
            )
        if src is not None and ix[d] > (src.shape if src.ndim else (1,))[d]:
            raise RuntimeError(
                f"{op}(): Expected index {list(ix)} to be no larger size than src {list(src.shape)}"
            )
    lo, hi = index.min(), index.max()
    if lo < 0 or hi >= xs[dim]:  # PyTorch refuses negative indices here (no wrap-around)
        bad = int(hi) if hi >= xs[dim] else int(lo)
        raise RuntimeError(f"{op}(): index {bad} is out of bounds for dimension {dim} with size {xs[dim]}")


class Gather(Linear):
    """``out[i][j][k] = x[i][index[i][j][k]][k]`` (for ``dim == 1``); ``out: index.shape``.

    ``grad_x = zeros_like(x).scatter_add(dim, index, grad)`` (repeated indices accumulate).
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: np.ndarray) -> Tensor:
        ctx.dim, ctx.index, ctx.shape = dim, index, x._data.shape
        xd = B.reshape(x._data, (-1,)) if x._data.ndim == 0 else x._data
        if type(xd) is not np.ndarray and not B.native(xd):  # an Array API array: one take at the flat positions
            from .indexing import gather_positions

            return wrap(B.reshape(gather_positions(xd, _grid(index, dim) if index.ndim else index), index.shape))
        take = xd.__getitem__ if type(xd) is np.ndarray else lambda i: _B.take(xd, i)
        out = take(_grid(index, dim)) if index.ndim else take(index)
        return wrap(out.reshape(index.shape))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        z = wrap(B.zeros(ctx.shape, B.np_dtype_of(g._data), like=g._data))
        return ScatterAdd.apply(z, ctx.dim, ctx.index, g), None, None

    vmap = staticmethod(_gs_rule)


def gather(input: Tensor, dim: int, index: Any, *, sparse_grad: bool = False) -> Tensor:
    """Gather values along ``dim`` at ``index``: ``out[i][j] = input[i][index[i][j]]`` for
    ``dim == 1`` (and likewise for other dims and ranks).

    Derivative: ``grad_input = zeros_like(input).scatter_add(dim, index, grad_output)``
    (repeated indices accumulate; derivatives.yaml ``gather_backward``).

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        dim (int): the dim to index along (negative counts from the end).
        index (Tensor): int64/int32, ``n`` dims, ``index.size(d) <= input.size(d)`` for
            ``d != dim``; entries in ``[0, input.size(dim))``.
        sparse_grad (bool): keyword only; accepted for PyTorch's signature, the gradient is
            dense. Default: ``False``.
    Returns:
        Tensor: ``index.shape``, ``input``'s dtype.
    Raises:
        RuntimeError: non-integer index, dims mismatch, size too large, index out of bounds.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> y = dyngrad.gather(x, 1, dyngrad.tensor([[0, 0], [1, 0]]))
        >>> y.detach()
        tensor([[1., 1.],
                [4., 3.]])
        >>> y.sum().backward()
        >>> x.grad
        tensor([[2., 0.],
                [1., 1.]])
    """
    if is_wrapper(index):  # differs per example under vmap: the rule checks it
        return Gather.apply(input, norm_dim(dim, input._data.ndim, "gather"), index)
    idx = _int_index(index, "gather")
    d = norm_dim(dim, input._data.ndim, "gather")
    _check_gs("gather", input._data, d, idx)
    return Gather.apply(input, d, idx)



def _scatter_add_kernel(xd: np.ndarray, dim: int, index: np.ndarray, sd: np.ndarray) -> np.ndarray:
    """``x`` with ``src`` added at ``index`` along ``dim`` (a copy; NumPy's ``add.at``)."""
    out = xd.copy()
    if index.size:
        sub = sd[tuple(slice(0, s) for s in index.shape)]
        with np.errstate(all="ignore"):  # PyTorch computes inf/NaN silently
            np.add.at(out.reshape(-1) if out.ndim == 0 else out, _grid(index, dim), sub)
    return out

def _scatter_xp(xd: Any, dim: int, index: np.ndarray, v: Any, accumulate: bool) -> Any:
    """``x`` with ``v`` (an array at least ``index``'s size, or a number) added
    (``accumulate``) or written at ``index`` along ``dim``, for an Array API array: the
    scatter of :func:`ops.indexing.scatter_positions` at the flat positions of the grid."""
    from .indexing import flat_positions, scatter_positions

    if not index.size:
        return xd
    shape = tuple(xd.shape) if xd.ndim else (1,)
    pos = flat_positions(shape, _grid(index, dim) if index.ndim else index)
    xp = B.namespace(xd)
    if isinstance(v, (bool, int, float)):
        v = xp.full(tuple(pos.shape), v, dtype=xd.dtype)
    elif index.ndim:
        v = v[tuple(slice(0, s) for s in index.shape)]
    out = scatter_positions(v, shape, pos, accumulate, base=B.reshape(xd, shape))
    return B.reshape(out, tuple(xd.shape))


class ScatterAdd(Linear):
    """``out = x`` with ``out[i][index[i][j]] += src[i][j]`` (for ``dim == 1``).

    ``grad_x = grad``; ``grad_src = grad.gather(dim, index)`` (zero-padded to ``src.shape``
    when ``src`` is larger than ``index``).
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: np.ndarray, src: Tensor) -> Tensor:
        ctx.dim, ctx.index, ctx.src_shape = dim, index, src._data.shape
        xd = x._data
        if not B.native(xd) and isinstance(index, np.ndarray):  # an Array API array: exact, no add.at
            return wrap(_scatter_xp(xd, dim, index, src._data, True))
        if type(xd) is not np.ndarray or type(src._data) is not np.ndarray or type(index) is not np.ndarray:
            return wrap(_B.lazy_kernel(_scatter_add_kernel, xd.shape, xd.dtype, xd, dim, index, src._data))
        return wrap(_scatter_add_kernel(xd, dim, index, src._data))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gs = None
        if n[3]:
            gs = _gather_padded(g, ctx.dim, ctx.index, ctx.src_shape)
        return (g if n[0] else None), None, None, gs

    vmap = staticmethod(_gs_rule)


def _gather_padded(g: Tensor, dim: int, index: np.ndarray, src_shape: tuple) -> Tensor:
    gs = Gather.apply(g, dim, index)
    if gs._data.shape != src_shape:
        from .rearrange import pad

        widths: list = []
        for a, b in zip(reversed(index.shape), reversed(src_shape)):
            widths += [0, b - a]
        gs = pad(gs, tuple(widths))
    return gs


def _check_src(op: str, x: Tensor, src: Tensor) -> None:
    if src._data.dtype != x._data.dtype:
        raise RuntimeError(
            f"{op}(): Expected self.dtype to be equal to src.dtype, got {x.dtype.name} and {src.dtype.name}"
        )


def scatter_add(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """``input`` with ``src`` added at ``index`` along ``dim`` (repeated indices accumulate):
    ``out[i][index[i][j]] += src[i][j]`` for ``dim == 1``.

    Derivative: ``grad_input = grad_output``; ``grad_src = grad_output.gather(dim, index)``
    (zero where ``src`` is larger than ``index``; derivatives.yaml ``scatter_add``).

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        dim (int): the dim to index along (negative counts from the end).
        index (Tensor): int64/int32, ``n`` dims, ``index.size(d) <= input.size(d)`` for
            ``d != dim`` and ``<= src.size(d)`` for every ``d``; entries in
            ``[0, input.size(dim))``.
        src (Tensor): ``input``'s dtype, at least ``index``'s size in every dim.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: dtype mismatch of ``src``, non-integer index, bad sizes, index out of bounds.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.scatter_add(dyngrad.zeros(3), 0, dyngrad.tensor([0, 0, 2]), dyngrad.tensor([1.0, 2.0, 3.0]))
        tensor([3., 0., 3.])
    """
    batched = is_wrapper(index)  # differs per example under vmap: the rule checks it
    idx = index if batched else _int_index(index, "scatter_add")
    d = norm_dim(dim, input._data.ndim, "scatter_add")
    _check_src("scatter_add", input, src)
    if not batched:
        _check_gs("scatter_add", input._data, d, idx, src._data)
    return ScatterAdd.apply(input, d, idx, src)


class Scatter(Op):
    """``out = x`` with ``out[i][index[i][j]] = src[i][j]`` (``dim == 1``; ``src`` a tensor
    or a number). With repeated indices the last write wins (PyTorch leaves it unspecified).

    ``grad_x = grad.scatter(dim, index, 0)``; ``grad_src = grad.gather(dim, index)``.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: np.ndarray, src: Any) -> Tensor:
        ctx.dim, ctx.index = dim, index
        ctx.src_shape = src._data.shape if isinstance(src, Tensor) else None
        if not B.native(x._data):  # an Array API array: no index assignment in the standard
            return wrap(_scatter_xp(x._data, dim, index, data_of(src), False))
        out = x._data.copy()
        if index.size:
            v = data_of(src)
            if isinstance(src, Tensor):
                v = v[tuple(slice(0, s) for s in index.shape)]
            (out.reshape(-1) if out.ndim == 0 else out)[_grid(index, dim)] = v
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        n = ctx.needs_input_grad
        gx = gs = None
        if n[0]:
            gx = Scatter.apply(g, ctx.dim, ctx.index, 0.0)
        if len(n) > 3 and n[3]:
            gs = _gather_padded(g, ctx.dim, ctx.index, ctx.src_shape)
        return gx, None, None, gs

    # hand-written: affine in a number value (a constant carries no tangent), so not Linear
    @staticmethod
    def jvp(ctx: Any, ux: Any, _d: Any, _i: Any, us: Any = None) -> Any:
        """Forward mode: ``t = scatter(ux, dim, index, us)`` (0 where a number was scattered;
        a None tangent is zeros)."""
        x = ctx._fwd_inputs[0]
        ux = ux if ux is not None else Tensor._make(np.zeros_like(x._data))
        return Scatter.apply(ux, ctx.dim, ctx.index, us if us is not None else 0.0)

    vmap = staticmethod(_gs_rule)


def scatter(input: Tensor, dim: int, index: Any, src: Any = None, *, value: Any = None, reduce: str | None = None) -> Tensor:
    """``input`` with ``src`` (a tensor, or the number ``value``) written at ``index`` along
    ``dim``: ``out[i][index[i][j]] = src[i][j]`` for ``dim == 1``. With repeated indices the
    last write wins (PyTorch leaves it unspecified).

    Derivative: ``grad_input = grad_output.scatter(dim, index, 0)``; ``grad_src =
    grad_output.gather(dim, index)`` (derivatives.yaml ``scatter.src``).

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        dim (int): the dim to index along (negative counts from the end).
        index (Tensor): int64/int32, ``n`` dims, ``index.size(d) <= input.size(d)`` for
            ``d != dim`` and ``<= src.size(d)`` for every ``d``; entries in
            ``[0, input.size(dim))``.
        src (Tensor or number, optional): the values, ``input``'s dtype. Default: ``None``.
        value (number, optional): keyword only, a scalar to write instead of ``src``.
        reduce (str, optional): keyword only; ``None``, or ``'add'`` (same as
            :func:`scatter_add`); ``'multiply'`` is not supported. Default: ``None``.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: dtype mismatch, bad sizes, index out of bounds, unsupported reduce.
        TypeError: neither ``src`` nor ``value`` given.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> src = dyngrad.tensor([5.0, 6.0], requires_grad=True)
        >>> y = dyngrad.scatter(x, 0, dyngrad.tensor([2, 0]), src)
        >>> y.detach()
        tensor([6., 2., 5.])
        >>> y.sum().backward()
        >>> x.grad, src.grad
        (tensor([0., 1., 0.]), tensor([1., 1.]))
    """
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter() missing required argument 'src' or 'value'")
    batched = is_wrapper(index)  # differs per example under vmap: the rule checks it
    idx = index if batched else _int_index(index, "scatter")
    d = norm_dim(dim, input._data.ndim, "scatter")
    if isinstance(src, Tensor):
        _check_src("scatter", input, src)
    if not batched:
        _check_gs("scatter", input._data, d, idx, src._data if isinstance(src, Tensor) else None)
    if reduce is not None:
        if reduce != "add":
            raise RuntimeError(f"scatter(): reduce={reduce!r} is not supported by dyngrad (only 'add')")
        if not isinstance(src, Tensor):
            src = wrap(np.full(idx.shape, src, dtype=input._data.dtype))
        return ScatterAdd.apply(input, d, idx, src)
    return Scatter.apply(input, d, idx, src)


def scatter_(input: Tensor, dim: int, index: Any, src: Any = None, *, value: Any = None, reduce: str | None = None) -> Tensor:
    """In-place :func:`scatter` (bumps the version).

    Derivative: as :func:`scatter`'s; ``input`` takes over the new history.

    Args:
        input (Tensor): ``(*)``, overwritten.
        dim, index, src, value, reduce: as :func:`scatter`.
    Returns:
        Tensor: ``input`` itself.
    Raises:
        RuntimeError: as :func:`scatter`, and when ``input`` is a leaf that requires grad.
        TypeError: neither ``src`` nor ``value`` given.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(3)
        >>> dyngrad.scatter_(x, 0, dyngrad.tensor([2, 0]), dyngrad.tensor([5.0, 6.0])) is x
        True
        >>> x
        tensor([6., 0., 5.])
    """
    return inplace(scatter, input, dim, index, src, value=value, reduce=reduce)


def scatter_add_(input: Tensor, dim: int, index: Any, src: Tensor) -> Tensor:
    """In-place :func:`scatter_add` (bumps the version).

    Derivative: as :func:`scatter_add`'s; ``input`` takes over the new history.

    Args:
        input (Tensor): ``(*)``, overwritten.
        dim, index, src: as :func:`scatter_add`.
    Returns:
        Tensor: ``input`` itself.
    Raises:
        RuntimeError: as :func:`scatter_add`, and when ``input`` is a leaf that requires grad.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.zeros(3)
        >>> dyngrad.scatter_add_(x, 0, dyngrad.tensor([2, 2]), dyngrad.tensor([5.0, 6.0])) is x
        True
        >>> x
        tensor([ 0.,  0., 11.])
    """
    return inplace(scatter_add, input, dim, index, src)


class IndexSelect(Linear):
    """``out = x`` indexed by the vector ``index`` along ``dim``; ``out.shape[dim] = len(index)``.

    ``grad_x = zeros_like(x).index_add(dim, index, grad)`` (repeated indices accumulate).
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: np.ndarray) -> Tensor:
        ctx.shape, ctx.idx = x._data.shape, (slice(None),) * dim + (index,)
        if not B.native(x._data):  # an Array API array: one take at the flat positions
            from .indexing import gather_positions

            return wrap(gather_positions(x._data, ctx.idx) if x._data.ndim else
                        B.reshape(gather_positions(B.reshape(x._data, (1,)), index), ()))
        return wrap(x._data[ctx.idx] if x._data.ndim else x._data.reshape(1)[index].reshape(()))

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple:
        from .indexing import IndexPutAdd

        if not ctx.shape:
            return IndexPutAdd.apply(g.reshape(-1), (1,), ctx.idx, False).reshape(()), None, None
        return IndexPutAdd.apply(g, ctx.shape, ctx.idx, False), None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple, x: Tensor, dim: int, index: np.ndarray) -> Any:
        """Batching rule: ``x`` batch-first, ``dim`` shifted (0-d examples viewed as
        ``(1,)``); a shared index vector is used as is, a batched one ``(B, k)`` becomes a
        :class:`Gather` along ``dim`` (its values checked here)."""
        n = info.batch_size
        x = batch_operand(x, in_dims[0], n)
        lnd = x.ndim - 1
        if in_dims[2] is None:
            if lnd == 0:
                return info.function.apply(x.reshape(n, 1), 1, index).reshape(n), 0
            return info.function.apply(x, dim + 1, index), 0
        idx = _phys_index(index, in_dims[2], n, "index_select").reshape(n, -1)
        size = x.shape[1 + dim] if lnd else 1
        if isinstance(idx, np.ndarray) and idx.size and (idx.min() < 0 or idx.max() >= size):
            raise IndexError(f"index_select(): index out of range in self (dimension {dim} with size {size})")
        if lnd == 0:
            return Gather.apply(x.reshape(n, 1), 1, idx).reshape(n), 0
        k = idx.shape[1]
        shape = tuple(x.shape[:1 + dim]) + (k,) + tuple(x.shape[2 + dim:])
        idx = idx.reshape((n,) + (1,) * dim + (k,) + (1,) * (lnd - dim - 1))
        idx = np.broadcast_to(idx, shape) if isinstance(idx, np.ndarray) else idx.expand(shape)
        return Gather.apply(x, dim + 1, idx), 0


def index_select(input: Tensor, dim: int, index: Any) -> Tensor:
    """The entries of ``input`` at positions ``index`` (a 0-d or 1-d integer tensor) along ``dim``.

    Derivative: ``grad_input = zeros_like(input).index_add(dim, index, grad_output)``
    (repeated indices accumulate; derivatives.yaml ``index_select_backward``).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to index along (negative counts from the end).
        index (Tensor): int64/int32, ``(k)`` or ``()``, entries in ``[0, input.size(dim))``.
    Returns:
        Tensor: ``input``'s shape with size ``k`` at ``dim`` (a copy).
    Raises:
        RuntimeError: non-integer index.
        IndexError: index with more than one dim, index out of range, dim out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = dyngrad.index_select(x, 0, dyngrad.tensor([1, 1, 0]))
        >>> y.detach()
        tensor([2., 2., 1.])
        >>> y.sum().backward()
        >>> x.grad
        tensor([1., 2., 0.])
    """
    if is_wrapper(index):  # differs per example under vmap: the rule checks it
        return _index_select_batched(input, dim, index)
    idx = data_of(index)
    if not B.native(idx) and hasattr(idx, "shape"):  # an Array API index tensor: the host computation
        idx = B.to_host(idx)  # of _int_index
    idx = _B.asarray_any(idx) if not isinstance(idx, np.ndarray) else idx
    if B.kind(idx) not in "iu" or idx.dtype == np.uint8:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    d = norm_dim(dim, input._data.ndim, "index_select")
    if input._data.ndim == 0 and idx.size != 1:
        raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got {idx.size} value(s)")
    size = input._data.shape[d] if input._data.ndim else 1
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise IndexError(f"index_select(): index out of range in self (dimension {d} with size {size})")
    return IndexSelect.apply(input, d, idx.reshape(-1))


def _index_select_batched(input: Tensor, dim: int, index: Tensor) -> Tensor:
    if B.kind(index._data) not in "iu" or index._data.dtype == np.uint8:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    return IndexSelect.apply(input, norm_dim(dim, input._data.ndim, "index_select"), index)


def take_along_dim(input: Tensor, indices: Any, dim: int | None = None) -> Tensor:
    """``gather`` after broadcasting ``input`` and ``indices`` in every dim but ``dim``;
    with ``dim=None`` both are flattened first. Differentiable through :func:`gather`.

    Derivative: as :func:`gather`'s (``grad_input`` is ``grad_output`` scatter-added at
    ``indices``, summed over the broadcast).

    Args:
        input (Tensor): ``(*)``, ``n`` dims.
        indices (Tensor): int64/int32, ``n`` dims (any shape when ``dim`` is None), e.g. from
            ``argsort`` or ``argmax(keepdim=True)``.
        dim (int, optional): the dim to select along. Default: ``None`` (the flattened input).
    Returns:
        Tensor: the broadcast shape with ``indices.size(dim)`` at ``dim``; ``indices``'s
        flattened shape when ``dim`` is None.
    Raises:
        RuntimeError: shapes that do not broadcast, different numbers of dims, non-integer
            indices, indices out of bounds.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[10, 30, 20]])
        >>> dyngrad.take_along_dim(x, dyngrad.argsort(x, dim=1), 1)
        tensor([[10, 20, 30]])
    """
    batched = is_wrapper(indices)  # differs per example under vmap: gather's rule checks it
    idx = indices if batched else _int_index(indices, "take_along_dim")
    if dim is None:
        return gather(input.reshape(-1), 0, idx.reshape(-1))
    nd = input._data.ndim
    if nd == 0:
        raise IndexError(f"take_along_dim(): Dimension specified as {dim} but tensor has no dimensions")
    d = norm_dim(dim, nd, "take_along_dim")
    xs, ix = list(input._data.shape), list(idx.shape)
    if len(ix) != nd:
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions")
    xs[d] = ix[d] = 1
    try:
        b = list(np.broadcast_shapes(tuple(xs), tuple(ix)))
    except ValueError:
        raise RuntimeError(
            f"take_along_dim(): shapes {list(input.shape)} and {list(idx.shape)} do not broadcast "
            f"outside dimension {d}"
        ) from None
    bx, bi = list(b), list(b)
    bx[d], bi[d] = input._data.shape[d], idx.shape[d]
    if not batched and idx.size and idx.min() < 0 and idx.min() >= -input._data.shape[d]:
        idx = np.where(idx < 0, idx + input._data.shape[d], idx)  # PyTorch wraps them here (not with dim=None)
    x = input.expand(*bx) if tuple(bx) != input._data.shape else input
    return gather(x, d, idx.expand(*bi) if batched else np.broadcast_to(idx, bi))


def _dim_index(input: Tensor, dim: int, index: Any, op: str, negative: bool = False) -> tuple:
    """Validate a vector ``index`` along ``dim``; return (dim, NumPy advanced index).
    ``negative``: indices from ``-size`` count from the end (``index_fill``); otherwise, as
    in PyTorch's ``index_add`` / ``index_copy`` / ``index_reduce``, a negative index raises."""
    d = norm_dim(dim, input._data.ndim, op)
    if is_wrapper(index):  # differs per example under vmap: the rule checks it
        if B.kind(index._data) not in "iu" or index._data.dtype == np.uint8 or index.ndim > 1:
            raise RuntimeError(f"{op}(): index must be an integer vector, got {index.dtype} of shape {list(index.shape)}")
        return d, (slice(None),) * d + (index.reshape(-1),)
    idx = _int_index(index, op).reshape(-1)
    size = input._data.shape[d] if input._data.ndim else 1
    if idx.size and (idx.min() < (-size if negative else 0) or idx.max() >= size):
        bad = int(idx.max()) if idx.max() >= size else int(idx.min())
        raise IndexError(f"{op}(): index {bad} is out of bounds for dimension {d} with size {size}")
    return d, (slice(None),) * d + (idx,)


def index_add(input: Tensor, dim: int, index: Any, source: Tensor, *, alpha: Any = 1) -> Tensor:
    """``input`` with ``alpha * source[i]`` added to slice ``index[i]`` along ``dim``
    (repeated indices accumulate).

    Derivative: ``grad_input = grad_output``; ``grad_source = alpha *
    grad_output.index_select(dim, index)`` (derivatives.yaml ``index_add``; through the
    differentiable index-put-add).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to index along.
        index (Tensor): int64/int32, ``(k)``, entries in ``[0, input.size(dim))`` (dyngrad
            also takes negative entries, counting from the end; PyTorch refuses them).
        source (Tensor): ``input``'s dtype and shape, with size ``k`` at ``dim``.
        alpha (number): keyword only, the multiplier of ``source``. Default: ``1``.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: non-integer index, or ``source``'s dtype is not ``input``'s.
        IndexError: index or dim out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> src = dyngrad.tensor([5.0, 6.0], requires_grad=True)
        >>> y = dyngrad.index_add(x, 0, dyngrad.tensor([0, 0]), src, alpha=2)
        >>> y.detach()
        tensor([23.,  2.,  3.])
        >>> y.sum().backward()
        >>> src.grad
        tensor([2., 2.])
    """
    from .indexing import IndexPutAdd

    if isinstance(source, Tensor) and source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_add(): self ({input.dtype}) and source ({source.dtype}) must have the same "
                           "scalar type")
    d, adv = _dim_index(input, dim, index, "index_add")
    src = source * alpha if alpha != 1 else source
    return input + IndexPutAdd.apply(src, input._data.shape, adv, False)


def index_copy(input: Tensor, dim: int, index: Any, source: Tensor) -> Tensor:
    """``input`` with slice ``index[i]`` along ``dim`` replaced by ``source[i]``.

    Derivative: ``grad_input = grad_output`` with the replaced slices zeroed; ``grad_source =
    grad_output.index_select(dim, index)`` (derivatives.yaml ``index_copy``).

    Args:
        input (Tensor): ``(*)``.
        dim (int): the dim to index along.
        index (Tensor): int64/int32, ``(k)``, entries in ``[0, input.size(dim))`` (dyngrad
            also takes negative entries, counting from the end; PyTorch refuses them).
        source (Tensor): ``input``'s dtype and shape, with size ``k`` at ``dim``.
    Returns:
        Tensor: ``input``'s shape and dtype.
    Raises:
        RuntimeError: non-integer index, or ``source``'s dtype is not ``input``'s.
        IndexError: index or dim out of range.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> src = dyngrad.tensor([5.0, 6.0], requires_grad=True)
        >>> y = dyngrad.index_copy(x, 0, dyngrad.tensor([2, 0]), src)
        >>> y.detach()
        tensor([6., 2., 5.])
        >>> y.sum().backward()
        >>> x.grad, src.grad
        (tensor([0., 1., 0.]), tensor([1., 1.]))
    """
    from .indexing import IndexPut

    if isinstance(source, Tensor) and source._data.dtype != input._data.dtype:
        raise RuntimeError(f"index_copy(): self and source expected to have the same dtype, but got (self) "
                           f"{input.dtype} and (source) {source.dtype}")
    d, adv = _dim_index(input, dim, index, "index_copy")
    return IndexPut.apply(input, source, (None, adv))


def take(input: Tensor, index: Any) -> Tensor:
    """``input.flatten()[index]``: the result has ``index``'s shape.

    Derivative: ``grad_input`` is ``grad_output`` accumulated into the flattened positions
    ``index`` (derivatives.yaml ``take``: ``put(zeros, index, grad, accumulate=True)``).

    Args:
        input (Tensor): ``(*)``.
        index (Tensor): int64/int32, any shape; entries in ``[-input.numel(), input.numel())``.
    Returns:
        Tensor: ``index.shape``, ``input``'s dtype.
    Raises:
        IndexError: index out of range for the number of elements.
        RuntimeError: non-integer index.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> y = dyngrad.take(x, dyngrad.tensor([[3, 0, 3]]))
        >>> y.detach()
        tensor([[4., 1., 4.]])
        >>> y.sum().backward()
        >>> x.grad
        tensor([[1., 0.],
                [0., 2.]])
    """
    from .indexing import getitem

    if is_wrapper(index):  # differs per example under vmap: Index's rule checks it
        return getitem(input.reshape(-1), index)
    idx = _int_index(index, "take")
    n = input._data.size
    if idx.size and (idx.min() < -n or idx.max() >= n):
        bad = int(idx.max()) if idx.max() >= n else int(idx.min())
        raise IndexError(f"take(): index {bad} out of range for tensor of {n} elements")
    return getitem(input.reshape(-1), wrap(idx))


