"""Ops that PyTorch users reach for and that are compositions of dyngrad's own ops:
``addmm``/``addmv``/``addr``/``baddbmm``/``addbmm``, ``kron``, ``meshgrid``, ``cross``,
``repeat_interleave``, ``nansum``/``nanmean``, ``median``/``nanmedian``, ``quantile``.

Written with differentiable ops, each gets its gradient, forward-mode rule and batching rule
from the ops it is made of (PyTorch implements several of them the same way, as
``CompositeImplicitAutograd``). Their ``grad_fn`` is therefore the node of the last op
(``AddBackward0`` for ``addmm``, not PyTorch's ``AddmmBackward0``).
"""

from __future__ import annotations

import warnings
from collections import namedtuple
from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._util import norm_dim, require_tensor, to_tensor, wrap

__all__ = ["addmm", "addmv", "addr", "baddbmm", "addbmm", "kron", "meshgrid", "cross", "repeat_interleave",
           "nansum", "nanmean", "median", "nanmedian", "quantile", "nanquantile", "kthvalue", "diff", "mode"]
TENSOR_METHODS = {"addmm", "addmv", "addr", "baddbmm", "addbmm", "kron", "cross", "repeat_interleave",
                  "nansum", "nanmean", "median", "nanmedian", "quantile", "nanquantile", "kthvalue", "diff", "mode"}

MedianResult = namedtuple("median", ["values", "indices"])
NanmedianResult = namedtuple("nanmedian", ["values", "indices"])
KthvalueResult = namedtuple("kthvalue", ["values", "indices"])
ModeResult = namedtuple("mode", ["values", "indices"])


def _scaled_sum(input: Any, product: Tensor, beta: Any, alpha: Any) -> Tensor:
    """``beta * input + alpha * product``; with ``beta == 0`` the input is ignored (NaN and inf
    in it do not propagate), as PyTorch."""
    inp = to_tensor(input, product)
    # beta == 0 (alpha == 0) ignores input (the product), NaN and inf in it included, as
    # PyTorch; where() keeps the ignored tensor in the graph with a zero gradient.
    p = _ignored(product) if alpha == 0 else (product if alpha == 1 else product * alpha)
    if beta == 0:
        return p + _ignored(inp)
    return (inp if beta == 1 else inp * beta) + p


def _ignored(t: Tensor) -> Tensor:
    """Zeros of ``t``'s shape and dtype that depend on ``t`` with gradient 0 (not ``0 * t``,
    which is NaN where ``t`` is inf or NaN)."""
    from .pointwise import where

    return where(Tensor._make(np.zeros(t._data.shape, dtype=bool)), t, 0)


def _check_dims(op: str, **ts: Tensor) -> None:
    want = {"mat1": 2, "mat2": 2, "mat": 2, "vec": 1, "vec1": 1, "vec2": 1, "batch1": 3, "batch2": 3}
    for name, t in ts.items():
        if t._data.ndim != want[name]:
            kind = {1: "a vector", 2: "a matrix", 3: "a 3D tensor"}[want[name]]
            raise RuntimeError(f"{op}: {name} must be {kind}, got {t._data.ndim}-D tensor")


def addmm(input: Any, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat1 @ mat2)``.

    Args:
        input: broadcastable to ``(n, p)``.
        mat1: ``(n, m)``. mat2: ``(m, p)``.
        beta, alpha: scales (``beta=0`` ignores ``input``, also its NaNs).
    Returns:
        ``(n, p)`` tensor.
    Raises:
        RuntimeError: wrong ranks or mismatched inner sizes.

    Example:
        >>> import dyngrad
        >>> M = dyngrad.ones(2, 2)
        >>> dyngrad.addmm(M, dyngrad.eye(2), dyngrad.full((2, 2), 3.0), beta=0.5).tolist()
        [[3.5, 3.5], [3.5, 3.5]]
    """
    _check_dims("addmm", mat1=mat1, mat2=mat2)
    return _scaled_sum(input, mat1.mm(mat2), beta, alpha)


def addmv(input: Any, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (mat @ vec)``; ``mat: (n, m)``, ``vec: (m,)``, result ``(n,)``
    (composed of ``mv``, ``mul`` and ``add``, so its gradients are theirs).

    Args:
        input: broadcastable to ``(n,)``; ignored (NaNs too) when ``beta == 0``.
        mat: ``(n, m)``.
        vec: ``(m,)``.
        beta, alpha: scales of ``input`` and of the product.

    Returns:
        ``(n,)`` tensor.
    Raises:
        RuntimeError: wrong ranks or mismatched sizes.

    Example:
        >>> import dyngrad
        >>> dyngrad.addmv(dyngrad.ones(2), dyngrad.eye(2), dyngrad.tensor([2.0, 3.0]), alpha=2).tolist()
        [5.0, 7.0]
    """
    _check_dims("addmv", mat=mat, vec=vec)
    return _scaled_sum(input, mat.mv(vec), beta, alpha)


def addr(input: Any, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * outer(vec1, vec2)``; result ``(n, m)``.

    Args:
        input: broadcastable to ``(n, m)``; ignored (NaNs too) when ``beta == 0``.
        vec1: ``(n,)``.
        vec2: ``(m,)``.
        beta, alpha: scales of ``input`` and of the outer product.

    Returns:
        ``(n, m)`` tensor.
    Raises:
        RuntimeError: inputs that are not vectors.

    Example:
        >>> import dyngrad
        >>> dyngrad.addr(dyngrad.zeros(2, 2), dyngrad.tensor([1.0, 2.0]), dyngrad.tensor([3.0, 4.0])).tolist()
        [[3.0, 4.0], [6.0, 8.0]]
    """
    _check_dims("addr", vec1=vec1, vec2=vec2)
    from .linalg import outer

    return _scaled_sum(input, outer(vec1, vec2), beta, alpha)


def baddbmm(input: Any, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * (batch1 @ batch2)`` per batch: ``(b, n, m) @ (b, m, p) -> (b, n, p)``.

    Args:
        input: broadcastable to ``(b, n, p)``; ignored (NaNs too) when ``beta == 0``.
        batch1: ``(b, n, m)``.
        batch2: ``(b, m, p)``.
        beta, alpha: scales of ``input`` and of the products.

    Returns:
        ``(b, n, p)`` tensor.
    Raises:
        RuntimeError: inputs that are not 3-d, or mismatched sizes.

    Example:
        >>> import dyngrad
        >>> dyngrad.baddbmm(dyngrad.ones(3, 2, 2), dyngrad.ones(3, 2, 4), dyngrad.ones(3, 4, 2), beta=0).shape
        dyngrad.Size([3, 2, 2])
    """
    _check_dims("baddbmm", batch1=batch1, batch2=batch2)
    return _scaled_sum(input, batch1.bmm(batch2), beta, alpha)


def addbmm(input: Any, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1) -> Tensor:
    """``beta * input + alpha * sum_b (batch1[b] @ batch2[b])``: result ``(n, p)``.

    Args:
        input: broadcastable to ``(n, p)``; ignored (NaNs too) when ``beta == 0``.
        batch1: ``(b, n, m)``.
        batch2: ``(b, m, p)``.
        beta, alpha: scales of ``input`` and of the summed products.

    Returns:
        ``(n, p)`` tensor.
    Raises:
        RuntimeError: inputs that are not 3-d, or mismatched sizes.

    Example:
        >>> import dyngrad
        >>> dyngrad.addbmm(dyngrad.zeros(2, 2), dyngrad.ones(3, 2, 4), dyngrad.ones(3, 4, 2)).tolist()
        [[12.0, 12.0], [12.0, 12.0]]
    """
    _check_dims("addbmm", batch1=batch1, batch2=batch2)
    return _scaled_sum(input, batch1.bmm(batch2).sum(0), beta, alpha)


def kron(input: Tensor, other: Tensor) -> Tensor:
    """Kronecker product: ``out[i * other.shape + j] = input[i] * other[j]`` (multi-index;
    the lower-rank operand gets leading 1s). Composed of a broadcast product and a reshape, so
    ``grad_input[i] = sum_j grad[i * other.shape + j] * other[j]`` (and symmetrically).

    Args:
        input: ``(*a)``.
        other: ``(*b)``.

    Returns:
        tensor of shape ``input.shape * other.shape`` (elementwise).
    Raises:
        AttributeError: when an argument is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.kron(dyngrad.eye(2), dyngrad.tensor([[1.0, 2.0]])).tolist()
        [[1.0, 2.0, 0.0, 0.0], [0.0, 0.0, 1.0, 2.0]]
    """
    require_tensor("kron", input)
    require_tensor("kron", other, "other", 2)
    a, b = input, other
    n = max(a._data.ndim, b._data.ndim)
    sa = (1,) * (n - a._data.ndim) + tuple(a.shape)
    sb = (1,) * (n - b._data.ndim) + tuple(b.shape)
    a2 = a.reshape([s for x in sa for s in (x, 1)])
    b2 = b.reshape([s for x in sb for s in (1, x)])
    return (a2 * b2).reshape([x * y for x, y in zip(sa, sb)])


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-d (or 0-d) tensors: ``out[k][i_0, ..., i_n] = tensors[k][i_k]``
    (``indexing="xy"`` swaps the first two dims of the grid, as NumPy's default).

    Args:
        tensors: 1-d or 0-d tensors, or one list of them.
        indexing: ``"ij"`` (matrix indexing) or ``"xy"`` (Cartesian); ``None`` means ``"ij"``
            with PyTorch's warning that the default will change.

    Returns:
        a tuple of expanded views, one per input, each of shape ``(len_0, ..., len_n)``.
    Raises:
        RuntimeError: a tensor of more than one dim; an unknown ``indexing``.

    Example:
        >>> import dyngrad
        >>> gx, gy = dyngrad.meshgrid(dyngrad.tensor([1, 2]), dyngrad.tensor([3, 4, 5]), indexing='ij')
        >>> gx.tolist(), gy.tolist()
        ([[1, 1, 1], [2, 2, 2]], [[3, 4, 5], [3, 4, 5]])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t.shape}")
    ts = [t.reshape(-1) for t in tensors]
    shape = [t.shape[0] for t in ts]
    outs = []
    for k, t in enumerate(ts):
        view = [1] * len(ts)
        view[k] = -1
        grid = t.reshape(view).expand(shape)
        # "xy": the first two grid dims swapped (out[k][i1, i0, ...] = tensors[k][i_k])
        outs.append(grid.transpose(0, 1) if indexing == "xy" and len(ts) >= 2 else grid)
    return tuple(outs)


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """Cross product of 3-vectors along ``dim`` (broadcasting the other dims). Without
    ``dim``, the first dim of size 3 (deprecated in PyTorch, which warns; use
    ``linalg.cross``, whose default is ``dim=-1``). ``grad_input = other x grad``,
    ``grad_other = grad x input``.

    Args:
        input: ``(*, 3, *)``.
        other: broadcastable to ``input``.
        dim: the dimension of size 3.

    Returns:
        tensor of the broadcast shape.
    Raises:
        RuntimeError: ``size(dim) != 3``, or no dim of size 3.

    Example:
        >>> import dyngrad
        >>> dyngrad.cross(dyngrad.tensor([1.0, 0.0, 0.0]), dyngrad.tensor([0.0, 1.0, 0.0]), dim=0).tolist()
        [0.0, 0.0, 1.0]
    """
    require_tensor("cross", input)
    require_tensor("cross", other, "other", 2)
    if dim is None:
        warnings.warn("Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
                      "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
                      "with that of linalg.cross in a future release.", UserWarning, stacklevel=2)
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dims = [i for i, s in enumerate(shape) if s == 3]
        if not dims:
            raise RuntimeError("no dimension of size 3 in input")
        dim = dims[0]
    return linalg_cross(input, other, dim=dim)


def linalg_cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """``linalg.cross``: ``out = (a_1 b_2 - a_2 b_1, a_2 b_0 - a_0 b_2, a_0 b_1 - a_1 b_0)``
    along ``dim``; the other dims broadcast.

    Raises:
        RuntimeError: ``input.size(dim)`` or ``other.size(dim)`` not 3.
    """
    from .shape import broadcast_to

    if input._data.ndim != other._data.ndim:
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    d = norm_dim(dim, len(shape), "linalg.cross")

    def size(t: Tensor) -> int:
        k = d - len(shape)  # from the right: the dim of the broadcast shape
        return t._data.shape[k] if t._data.ndim >= -k else 1

    if size(input) != 3 or size(other) != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got {size(input)} and "
                           f"{size(other)}")
    a, b = broadcast_to(input, shape), broadcast_to(other, shape)
    i1 = wrap(np.array([1, 2, 0], dtype=np.int64))
    i2 = wrap(np.array([2, 0, 1], dtype=np.int64))
    return a.index_select(d, i1) * b.index_select(d, i2) - a.index_select(d, i2) * b.index_select(d, i1)


def repeat_interleave(input: Any, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Repeat each element (each slice along ``dim``) ``repeats`` times, in place order:
    ``[a, b]`` with ``repeats=2`` is ``[a, a, b, b]``. ``repeat_interleave(counts)`` alone is
    ``repeat_interleave(arange(len(counts)), counts)``.

    Args:
        input: ``(*)`` tensor (flattened when ``dim`` is None).
        repeats: an int or a ``(n,)`` int64 tensor of per-element counts.
        dim: the dim to repeat along.
        output_size: the total length along ``dim`` (checked when given).
    Returns:
        the repeated tensor (an index_select of ``input``: differentiable).
    Raises:
        RuntimeError: negative repeats, or a repeats tensor of the wrong length.

    Example:
        >>> import dyngrad
        >>> dyngrad.repeat_interleave(dyngrad.tensor([1, 2]), dyngrad.tensor([2, 3])).tolist()
        [1, 1, 2, 2, 2]
    """
    if repeats is None:  # the one-argument form: input holds the counts
        counts = input._data
        if counts.ndim != 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        return wrap(np.repeat(np.arange(counts.shape[0], dtype=np.int64), counts))
    x = input.reshape(-1) if dim is None else input
    d = 0 if dim is None else norm_dim(dim, x._data.ndim, "repeat_interleave")
    if x._data.ndim == 0:
        x = x.reshape(1)
    n = x._data.shape[d]
    r = repeats._data if isinstance(repeats, Tensor) else B.asarray_any(repeats)
    if r.ndim > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if (r < 0).any():
        raise RuntimeError("repeats can not be negative")
    if r.ndim == 1 and r.shape[0] not in (1, n):
        raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                           f"{r.shape[0]} and input.size({d}) = {n}")
    if not B.native(r):  # the counts decide the output's shape: read on the host
        r = B.to_host(r)
    index = np.repeat(np.arange(n, dtype=np.int64), r.reshape(-1) if r.ndim else int(r))
    if output_size is not None and index.shape[0] != output_size:
        raise RuntimeError(f"allocated size does not match required size (output_size={output_size}, "
                           f"needed {index.shape[0]})")
    if not B.native(x._data):  # an Array API array: take_along_axis with the index broadcast
        from .scan import GatherAlong

        xd = x._data
        xp = B.namespace(xd)
        shape = tuple(index.shape[0] if k == d else s for k, s in enumerate(xd.shape))
        idx = B.like(index.reshape(tuple(-1 if k == d else 1 for k in range(xd.ndim))), xd)
        return GatherAlong.apply(x, d, xp.broadcast_to(idx, shape))
    return x.index_select(d, wrap(index))


def _nan_filled(input: Tensor, value: float) -> Tensor:
    from .pointwise import where

    d = input._data
    return where(wrap(np.isnan(d) if type(d) is np.ndarray else B.xp_for(d).isnan(d)), value, input)


def nansum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``sum`` treating NaN as 0 (their gradient is 0).

    Args:
        input: ``(*)``.
        dim: int or tuple of ints to reduce (``None``: all).
        keepdim: keep the reduced dims with size 1.
        dtype: accumulate and return in this dtype.

    Returns:
        the reduced tensor.
    Raises:
        IndexError: a ``dim`` out of range.
        TypeError: a ``dim`` that is not an int or tuple of ints, or a ``dtype`` that is not a
            dyngrad dtype.
        AttributeError: when ``input`` is not a Tensor (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> dyngrad.nansum(dyngrad.tensor([1.0, float('nan'), 2.0])).item()
        3.0
    """
    x = _nan_filled(input, 0.0) if B.kind(input._data) in "fc" else input
    return x.sum(dim, keepdim=keepdim, dtype=dtype) if dim is not None else x.sum(dtype=dtype)


def nanmean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """``mean`` over the non-NaN elements (NaN where all are NaN); NaNs get gradient 0.

    Args:
        input: ``(*)``, floating.
        dim: int or tuple of ints to reduce (``None``: all).
        keepdim: keep the reduced dims with size 1.
        dtype: compute in this dtype.

    Returns:
        the reduced tensor.
    Raises:
        RuntimeError: an integer input (as PyTorch: "nanmean(): expected input to have
            floating point or complex dtype").

    Example:
        >>> import dyngrad
        >>> dyngrad.nanmean(dyngrad.tensor([1.0, float('nan'), 2.0])).item()
        1.5
    """
    if B.kind(input._data) not in "fc":
        raise RuntimeError(f"nanmean(): expected input to have floating point or complex dtype but got "
                           f"{input.dtype}")
    d = input._data
    count = wrap(B.astype(~(np.isnan(d) if type(d) is np.ndarray else B.xp_for(d).isnan(d)), B.np_dtype_of(d)))
    den = count.sum(dim, keepdim=keepdim) if dim is not None else count.sum()
    return nansum(input, dim, keepdim, dtype=dtype) / den


def _median_index(d: np.ndarray, dim: int, ignore_nan: bool) -> np.ndarray:
    """Index (along ``dim``, kept as size 1) of the lower median of each slice; a slice with
    a NaN selects its first NaN (``ignore_nan``: the lower median of the non-NaN values)."""
    if type(d) is not np.ndarray and not B.native(d):
        return _median_index_xp(d, dim, ignore_nan)
    order = np.argsort(d, axis=dim, kind="stable")  # NaN last
    nan = np.isnan(d) if B.kind(d) in "fc" else np.zeros(d.shape, dtype=bool)
    n_ok = d.shape[dim] - nan.sum(axis=dim, keepdims=True)
    if ignore_nan:
        k = np.maximum(n_ok - 1, 0) // 2
    else:
        k = np.where(n_ok < d.shape[dim], n_ok, (d.shape[dim] - 1) // 2)  # first NaN, else lower middle
    return np.take_along_axis(order, k, axis=dim).astype(np.int64)


def _median_index_xp(d: Any, dim: int, ignore_nan: bool) -> Any:
    """:func:`_median_index` with the standard's functions (an Array API array)."""
    xp = B.namespace(d)
    order = xp.argsort(d, axis=dim, stable=True)  # NaN last
    nan = xp.isnan(d) if B.kind(d) in "fc" else xp.zeros(d.shape, dtype=xp.bool)
    n_ok = d.shape[dim] - xp.sum(xp.astype(nan, xp.int64), axis=dim, keepdims=True)
    if ignore_nan:
        k = xp.maximum(n_ok - 1, 0) // 2
    else:
        k = xp.where(n_ok < d.shape[dim], n_ok, (d.shape[dim] - 1) // 2)  # first NaN, else lower middle
    return xp.astype(xp.take_along_axis(order, k, axis=dim), xp.int64)


def _median_all_xp(input: Tensor, ignore_nan: bool) -> Tensor:
    """``median(input)`` over all elements on an Array API array: the mean of the entries
    equal to the median (all NaNs when it is NaN), as ``where`` (no boolean-mask indexing,
    no host read: the value is a 0-d array)."""
    from .pointwise import where

    d = input._data
    xp = B.namespace(d)
    flat = xp.reshape(d, (-1,))
    v = xp.take(flat, _median_index_xp(flat, 0, ignore_nan))  # (1,)
    v = xp.reshape(v, ())
    mask = xp.where(xp.isnan(v), xp.isnan(d), d == v) if B.kind(d) in "fc" else d == v
    k = xp.sum(xp.astype(mask, d.dtype))
    return where(wrap(mask), input, 0.0).sum() / wrap(k)


def _median(input: Tensor, dim: Any, keepdim: bool, ignore_nan: bool, name: str) -> Any:
    d = input._data
    if dim is None and d.size and type(d) is not np.ndarray and not B.native(d):
        return _median_all_xp(input, ignore_nan)
    if dim is None:  # all elements: the gradient is split evenly among the entries equal to the value
        if d.size == 0:
            if B.kind(d) in "fc":  # PyTorch: NaN (the gradient of an empty input is empty)
                return input.sum() + float("nan")
            # PyTorch 2.13 returns its NaN cast to the integer dtype: the most negative int32 /
            # int64, 0 for the narrower and unsigned types, True for bool
            fill = True if d.dtype.kind == "b" else (np.iinfo(d.dtype).min if d.dtype.kind == "i" and
                                                      d.dtype.itemsize >= 4 else 0)
            return wrap(np.array(fill, dtype=d.dtype))
        flat = d.reshape(-1)
        i = int(_median_index(flat, 0, ignore_nan)[0])
        v = flat[i]
        mask = np.isnan(d) if np.isnan(v) else (d == v)
        return input[wrap(mask)].mean()
    dd = norm_dim(dim, d.ndim, name)
    x = input.reshape(1) if d.ndim == 0 else input
    if x._data.shape[dd] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {dd} to have non-zero size.")
    idx = _median_index(x._data, dd, ignore_nan)
    if not B.native(idx):  # an Array API array: take_along_axis, and its one-hot adjoint
        from .scan import GatherAlong

        vals = GatherAlong.apply(x, dd, idx)
        if not keepdim or d.ndim == 0:
            vals, idx = vals.squeeze(dd), B.namespace(idx).squeeze(idx, axis=dd)
        return (MedianResult if name == "median" else NanmedianResult)(vals, wrap(idx))
    vals = x.gather(dd, wrap(idx))
    if not keepdim or d.ndim == 0:
        vals, idx = vals.squeeze(dd), idx.squeeze(dd)
    result = MedianResult if name == "median" else NanmedianResult
    return result(vals, wrap(idx))


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median (for an even count, the smaller of the two middle values); NaN if a
    NaN is present.

    Args:
        input: ``(*)`` tensor.
        dim: without it, the median of all elements (a 0-d tensor whose gradient is split
            evenly among the elements equal to it, as PyTorch); with it, per slice.
        keepdim: keep ``dim`` as size 1.
    Returns:
        a 0-d tensor, or a ``(values, indices)`` namedtuple with ``dim``.
    Raises:
        IndexError: an empty reduced dim; ``dim`` out of range. (An empty input without
            ``dim`` gives NaN, as PyTorch, and for an integer dtype PyTorch's value: the most
            negative int32/int64, 0 for narrower or unsigned types, True for bool.)

    Example:
        >>> import dyngrad
        >>> dyngrad.median(dyngrad.tensor([3.0, 1.0, 4.0, 2.0])).item()  # the lower of the two middle values
        2.0
    """
    return _median(input, dim, keepdim, False, "median")


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """:func:`median` ignoring NaNs (NaN only where a slice is all NaN).

    Args:
        input: ``(*)``.
        dim: reduce along this dim and also return the indices (``None``: the whole tensor).
        keepdim: keep the reduced dim with size 1.

    Returns:
        a 0-d tensor, or ``(values, indices)`` with ``dim``.
    Raises:
        IndexError: a ``dim`` out of range, an empty integer ``input`` (an empty floating
            ``input`` without ``dim`` gives NaN, as PyTorch), or an empty slice along ``dim``.
        TypeError: when ``input`` is not a Tensor (the namespace's face, dyngrad/_out.py).

    Example:
        >>> import dyngrad
        >>> dyngrad.nanmedian(dyngrad.tensor([3.0, float('nan'), 1.0])).item()
        1.0
    """
    return _median(input, dim, keepdim, True, "nanmedian")


def quantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
             interpolation: str = "linear") -> Tensor:
    """The ``q``-th quantiles of ``input`` (over all elements, or along ``dim``).

    With sorted values ``v`` of length ``n`` and ``pos = q * (n - 1)``, ``linear`` gives
    ``v[floor(pos)] + (pos - floor(pos)) * (v[ceil(pos)] - v[floor(pos)])``; ``lower``,
    ``higher``, ``nearest`` (round half to even) and ``midpoint`` pick or average the two
    neighbours. A slice containing NaN gives NaN. Differentiable (through the sort).

    Args:
        input: ``(*)`` floating tensor.
        q: a number in ``[0, 1]`` or a 1-d tensor of them (then the result has a leading dim
            of ``len(q)``).
        dim: the dim to reduce (None: all elements, flattened).
        keepdim: keep the reduced dim as size 1.
        interpolation: ``"linear"``, ``"lower"``, ``"higher"``, ``"nearest"`` or ``"midpoint"``.
    Returns:
        the quantiles, of ``input``'s dtype.
    Raises:
        RuntimeError: ``q`` outside ``[0, 1]``, a non-floating input, an empty input, or a bad
            ``interpolation``.

    Example:
        >>> import dyngrad
        >>> dyngrad.quantile(dyngrad.tensor([0.0, 1.0, 2.0, 3.0]), 0.5).item()
        1.5
    """
    return _quantile(input, q, dim, keepdim, interpolation, "quantile")


def nanquantile(input: Tensor, q: Any, dim: int | None = None, keepdim: bool = False, *,
                interpolation: str = "linear") -> Tensor:
    """:func:`quantile` ignoring NaNs: each slice's quantiles are those of its non-NaN
    values (``pos = q * (k - 1)`` with ``k`` the number of them); a slice of NaNs only gives
    NaN. Differentiable (through the sort), the gradient going to the two values interpolated.

    Derivative: ``grad`` reaches ``v[floor(pos)]`` with weight ``1 - frac`` and
    ``v[ceil(pos)]`` with weight ``frac`` (lerp's; PyTorch's nanquantile is the same
    composition of sort, gather and lerp).

    Args:
        input (Tensor): ``(*)``, floating.
        q (float or Tensor): a number in ``[0, 1]`` or a 1-d tensor of them (then the result
            has a leading dim of ``len(q)``).
        dim (int, optional): the dim to reduce. Default: ``None`` (all elements, flattened).
        keepdim (bool): keep the reduced dim as size 1. Default: ``False``.
        interpolation (str): ``"linear"``, ``"lower"``, ``"higher"``, ``"nearest"`` or
            ``"midpoint"``. Default: ``"linear"``.
    Returns:
        Tensor: ``input``'s shape without ``dim`` (with a leading ``len(q)`` for a 1-d ``q``),
        ``input``'s dtype.
    Raises:
        RuntimeError: ``q`` outside ``[0, 1]`` or of more than one dim, a non-floating or
            empty input, or an unknown ``interpolation``.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, float("nan"), 3.0, 2.0], [4.0, 3.0, 2.0, 1.0]])
        >>> dyngrad.nanquantile(x, 0.5, dim=1).tolist()
        [2.0, 2.5]
    """
    return _quantile(input, q, dim, keepdim, interpolation, "nanquantile")


def _quantile(input: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str, op: str) -> Tensor:
    if B.kind(input._data) not in "f":
        raise RuntimeError(f"{op}() input tensor must be either float or double dtype")
    if interpolation not in ("linear", "lower", "higher", "nearest", "midpoint"):
        raise RuntimeError(f"{op}() interpolation must be one of linear, lower, higher, midpoint or nearest. "
                           f"Found '{interpolation}'")
    qd = q._data if isinstance(q, Tensor) else B.asarray_any(q, dtype=np.float64)
    scalar_q = qd.ndim == 0
    if qd.ndim > 1:
        raise RuntimeError(f"{op}() q must be a scalar or 1D tensor")
    qa = np.atleast_1d(qd).astype(np.float64)
    if ((qa < 0) | (qa > 1)).any():
        raise RuntimeError(f"{op}() q values must be in the range [0, 1]")
    x = input.reshape(-1) if dim is None else (input.reshape(1) if input._data.ndim == 0 else input)
    d = 0 if dim is None else norm_dim(dim, x._data.ndim, op)
    n = x._data.shape[d]
    if n == 0 or x._data.size == 0:  # (PyTorch: any empty input, whichever dim)
        raise RuntimeError(f"{op}() input tensor must be non-empty")
    v = x.sort(d).values  # NaN sorts last
    out_shape = list(v._data.shape)
    out_shape[d] = len(qa)
    along = [1] * v._data.ndim
    along[d] = -1
    if not B.native(x._data):  # an Array API array: the same positions with the standard's functions
        out = _quantile_xp(x, v, qa, d, n, out_shape, along, interpolation, op)
        if keepdim:
            out = out.unsqueeze(d + 1) if dim is not None else out.reshape((len(qa),) + (1,) * input._data.ndim)
        return out.squeeze(0) if scalar_q else out
    nan = np.isnan(x._data)
    if op == "nanquantile":  # each slice's non-NaN values (sorted first); none: NaN
        count = (~nan).sum(axis=d, keepdims=True)
        invalid = count == 0
    else:  # a slice holding a NaN gives NaN
        count = np.full([1 if k == d else s for k, s in enumerate(v._data.shape)], n)
        invalid = nan.any(axis=d, keepdims=True)
    pos = np.broadcast_to(qa.reshape(along) * (count - 1), out_shape)
    lo = np.floor(pos).astype(np.int64)
    hi = np.ceil(pos).astype(np.int64)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = np.round(pos).astype(np.int64)  # half to even, as PyTorch
    # an invalid slice reads its last sorted entry (a NaN) with weight 0 on the other, so the
    # result is NaN and the gradient goes to that entry, as PyTorch
    ilo = np.where(invalid, n - 1, lo)
    ihi = np.where(invalid, n - 1, hi)
    vlo, vhi = v.gather(d, wrap(ilo)), v.gather(d, wrap(ihi))
    from .pointwise import lerp

    # PyTorch interpolates with lerp's two-sided formula (a + w * (b - a) for w < 0.5, else
    # b - (b - a) * (1 - w)), which decides the results with infinities (inf - inf: NaN)
    if interpolation == "linear":
        frac = np.where(invalid, 0.0, pos - lo)
        out = lerp(vlo, vhi, wrap(frac.astype(v._data.dtype)))
    elif interpolation == "midpoint":
        out = lerp(vlo, vhi, wrap(np.full(out_shape, 0.5, dtype=v._data.dtype)))
    else:
        out = vlo
    out = out.movedim(d, 0)  # the q dim first
    if keepdim:
        out = out.unsqueeze(d + 1) if dim is not None else out.reshape((len(qa),) + (1,) * input._data.ndim)
    if scalar_q:
        out = out.squeeze(0)
    return out


def _quantile_xp(x: Tensor, v: Tensor, qa: np.ndarray, d: int, n: int, out_shape: list, along: list,
                 interpolation: str, op: str) -> Tensor:
    """The interpolation step of :func:`_quantile` on an Array API array (``v`` the sorted
    input): positions in float64 (int64 counts cast first: the standard does not mix kinds),
    the two neighbours taken with ``take_along_axis`` (:class:`~dyngrad.ops.scan.GatherAlong`)."""
    from .pointwise import lerp
    from .scan import GatherAlong

    xd = x._data
    xp = B.namespace(xd)
    nan = xp.isnan(xd)
    if op == "nanquantile":  # each slice's non-NaN values (sorted first); none: NaN
        count = xp.sum(xp.astype(~nan, xp.int64), axis=d, keepdims=True)
        invalid = count == 0
    else:  # a slice holding a NaN gives NaN
        count = xp.full(tuple(1 if k == d else s for k, s in enumerate(v._data.shape)), n, dtype=xp.int64)
        invalid = xp.any(nan, axis=d, keepdims=True)
    qr = B.like(qa.reshape(along), xd, dtype=np.float64)  # (q: host values)
    pos = xp.broadcast_to(qr * xp.astype(count - 1, xp.float64), tuple(out_shape))
    lo = xp.astype(xp.floor(pos), xp.int64)
    hi = xp.astype(xp.ceil(pos), xp.int64)
    if interpolation == "lower":
        hi = lo
    elif interpolation == "higher":
        lo = hi
    elif interpolation == "nearest":
        lo = hi = xp.astype(xp.round(pos), xp.int64)  # half to even, as PyTorch
    ilo = xp.where(invalid, n - 1, lo)
    ihi = xp.where(invalid, n - 1, hi)
    vlo, vhi = GatherAlong.apply(v, d, ilo), GatherAlong.apply(v, d, ihi)
    if interpolation == "linear":
        frac = xp.where(invalid, 0.0, pos - xp.astype(lo, xp.float64))
        out = lerp(vlo, vhi, wrap(xp.astype(frac, v._data.dtype)))
    elif interpolation == "midpoint":
        out = lerp(vlo, vhi, wrap(xp.full(tuple(out_shape), 0.5, dtype=v._data.dtype)))
    else:
        out = vlo
    return out.movedim(d, 0)  # the q dim first


def _insertion_order(row: np.ndarray) -> list:
    """The order libstdc++'s ``std::sort`` leaves ``row`` in for 16 elements or fewer (its
    insertion sort with ``<``, which leaves NaNs where the comparisons stop)."""
    a = list(range(len(row)))
    for i in range(1, len(a)):
        v = a[i]
        if row[v] < row[a[0]]:
            a[1:i + 1] = a[0:i]
            a[0] = v
            continue
        j = i
        while row[v] < row[a[j - 1]]:
            a[j] = a[j - 1]
            j -= 1
        a[j] = v
    return a


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """The most frequent value of each slice along ``dim`` and an index where it occurs.

    PyTorch's rule: among the values that occur most often, the smallest; its index is the
    last position holding it (for slices of more than 16 elements PyTorch's index comes
    from an unstable sort and can be another position holding the same value; dyngrad
    always gives the last). NaNs are never equal to each other, so each counts once.

    Derivative: ``grad`` goes to ``input`` at ``indices`` (a gather; PyTorch's
    ``value_selecting_reduction_backward`` in derivatives.yaml); ``indices`` has none.

    Args:
        input (Tensor): ``(*)``, any dtype.
        dim (int): the dim to reduce. Default: ``-1``.
        keepdim (bool): keep ``dim`` as size 1. Default: ``False``.
    Returns:
        (Tensor, Tensor): ``(values, indices)``, a namedtuple; ``input``'s shape without
        ``dim``; ``values`` of ``input``'s dtype, ``indices`` int64.
    Raises:
        IndexError: ``dim`` out of range, or a zero-size ``dim`` (PyTorch's "Expected
            reduction dim ... to have non-zero size").
        TypeError: for a tensor of an Array API library other than NumPy, CuPy and Dask
            (array-api-strict): the order of ties and NaNs is computed on the host.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[3.0, 1.0, 3.0, 1.0, 2.0], [5.0, 5.0, 2.0, 2.0, 9.0]])
        >>> values, indices = dyngrad.mode(x, 1)
        >>> values.tolist(), indices.tolist()
        ([1.0, 2.0], [3, 3])
    """
    nd = input._data.ndim
    d = norm_dim(dim, nd, "mode") if nd else 0
    a = input._data if nd else input._data.reshape(1)
    if a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if not B.native(a):  # its NaN rows follow libstdc++'s sort order, emulated on the host
        raise TypeError(f"mode() is not available for {B.backend_name(a)} tensors (its tie and NaN order is a "
                        "host computation); move the tensor to NumPy first: docs/backends.md")
    x2 = np.moveaxis(a, d, -1)
    lead, n = x2.shape[:-1], x2.shape[-1]
    x2 = x2.reshape(-1, n)
    order = np.argsort(x2, axis=1, kind="stable")  # NaN last, ties in their order
    if B.kind(x2) in "fc":
        for r in np.nonzero(np.isnan(x2).any(axis=1))[0]:
            order[r] = _insertion_order(x2[r])
    s = np.take_along_axis(x2, order, axis=1)
    ar = np.broadcast_to(np.arange(n), s.shape)
    with np.errstate(invalid="ignore"):
        new_run = np.ones(s.shape, dtype=bool)
        new_run[:, 1:] = s[:, 1:] != s[:, :-1]
    start = np.maximum.accumulate(np.where(new_run, ar, 0), axis=1)
    last = np.ones(s.shape, dtype=bool)
    last[:, :-1] = new_run[:, 1:]
    count = np.where(last, ar - start + 1, 0)
    best = np.argmax(count, axis=1)  # the first run of the largest count: the smallest value
    idx = order[np.arange(len(order)), best].reshape(lead)
    if nd == 0:
        return ModeResult(input.reshape(1).gather(0, wrap(np.zeros(1, dtype=np.int64))).reshape(()),
                          wrap(np.zeros((), dtype=np.int64)))
    index = np.expand_dims(idx, d)
    values = input.gather(d, wrap(index))
    if not keepdim:
        values = values.squeeze(d)
        index = idx
    return ModeResult(values, wrap(np.array(index, dtype=np.int64)))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> Any:
    """The ``k``-th smallest element of each slice along ``dim`` and its index: ``sort``
    along ``dim``, then the ``k - 1``-th entry, so the gradient flows to that element
    (through ``sort``'s).

    Args:
        input: ``(*)`` tensor.
        k: which order statistic, ``1 <= k <= input.size(dim)``.
        dim: the dimension to reduce.
        keepdim: keep ``dim`` as size 1.

    Returns:
        a ``(values, indices)`` namedtuple; ``indices`` int64 (among equal values, one of
        their positions).
    Raises:
        RuntimeError: ``k`` out of range for ``dim``.
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.kthvalue(dyngrad.tensor([[1.0, 5.0, 2.0], [3.0, 0.0, 4.0]]), 2, 1).values.tolist()
        [2.0, 3.0]
    """
    from .sorting import sort

    d = norm_dim(dim, max(input.ndim, 1), "kthvalue")
    x = input if input.ndim else input.reshape(1)
    n = x.shape[d]
    if not 1 <= int(k) <= n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = sort(x, d)
    v = values.narrow(d, int(k) - 1, 1)
    i = indices.narrow(d, int(k) - 1, 1)
    if not keepdim or input.ndim == 0:
        v, i = v.squeeze(d), i.squeeze(d)
    return KthvalueResult(v, i)


def diff(input: Tensor, n: int = 1, dim: int = -1, prepend: Tensor | None = None,
         append: Tensor | None = None) -> Tensor:
    """The ``n``-th forward difference along ``dim``: ``out[i] = x[i + 1] - x[i]``, applied
    ``n`` times, after concatenating ``prepend`` and ``append`` (composed of ``cat``,
    ``narrow`` and ``sub``, so ``grad_x[i] = grad[i - 1] - grad[i]`` per step). Boolean
    tensors use ``!=`` (logical xor), as PyTorch.

    Args:
        input: ``(*, m, *)`` tensor, at least 1-d.
        n: how many times to difference (``0`` returns ``input``).
        dim: the dimension to difference along.
        prepend, append: tensors concatenated before / after ``input`` along ``dim``.

    Returns:
        ``(*, m + extra - n, *)`` tensor (``extra``: the sizes of ``prepend`` and ``append``
        along ``dim``).
    Raises:
        RuntimeError: a 0-d input, or a negative ``n``.

    Example:
        >>> import dyngrad
        >>> dyngrad.diff(dyngrad.tensor([1, 4, 9, 16])).tolist()
        [3, 5, 7]
    """
    from .splitting import cat

    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if int(n) < 0:
        raise RuntimeError(f"order must be non-negative but got {int(n)}")
    d = norm_dim(dim, input.ndim, "diff")
    x = input
    parts = [t for t in (prepend, x, append) if t is not None]
    if len(parts) > 1:
        x = cat([t if isinstance(t, Tensor) else to_tensor(t, input) for t in parts], d)
    for _ in range(int(n)):
        m = x.shape[d]
        if m == 0:
            break
        hi, lo = x.narrow(d, 1, m - 1), x.narrow(d, 0, m - 1)
        x = hi != lo if x.dtype == B.bool_ else hi - lo
    return x

