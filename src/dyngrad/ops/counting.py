"""Counting and binning, without a gradient: ``unique``, ``bincount``, ``searchsorted``,
``bucketize``, ``histc``.

Their results are integer (or, for ``bincount`` with weights and ``histc``, counts): PyTorch
defines no derivative for them, and neither does dyngrad (the outputs never require grad).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from ._util import data_of, norm_dim, wrap

__all__ = ["unique", "unique_consecutive", "bincount", "searchsorted", "bucketize", "histc"]
TENSOR_METHODS = {"unique", "unique_consecutive", "bincount", "histc"}


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim: int | None = None) -> Any:
    """The distinct values of ``input`` (over ``dim``: the distinct slices), sorted.

    Args:
        input: ``(*)`` tensor.
        sorted: accepted for PyTorch's signature; the result is always sorted (PyTorch's CPU
            kernel sorts too).
        return_inverse: also return, for each element (slice), its index in the result.
        return_counts: also return how often each distinct value occurs.
        dim: compare slices along this dim instead of elements of the flattened input.
    Returns:
        ``output``, or a tuple ``(output, inverse?, counts?)`` in that order; ``inverse`` has
        ``input``'s shape (``(input.size(dim),)`` with ``dim``), int64.
    Raises:
        TypeError: for an Array API tensor (array-api-strict) where the op has no Array API form
            yet (``unique`` has one without ``dim``).
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.unique(dyngrad.tensor([3, 1, 3, 2]), return_counts=True)
        (tensor([1, 2, 3]), tensor([1, 1, 2]))
    """
    d = input._data
    axis = None if dim is None else norm_dim(dim, d.ndim, "unique")
    if not B.native(d):  # an Array API array: the standard's unique_all, sorted here
        if axis is not None:
            _host_only("unique(dim=...)", d)
        return _unique_xp(d, return_inverse, return_counts)
    # equal_nan=False: every NaN is its own value, as PyTorch (NumPy 2 merges them by default)
    out, inv, counts = np.unique(d, return_inverse=True, return_counts=True, axis=axis, equal_nan=False)
    res = [wrap(out)]
    if return_inverse:
        res.append(wrap(inv.reshape(d.shape if axis is None else (-1,)).astype(np.int64)))
    if return_counts:
        res.append(wrap(counts.astype(np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def _host_only(name: str, d: Any) -> None:
    """Raise the TypeError of an op with no Array API form yet (a data-dependent host
    computation in NumPy): naming the op and the array's library."""
    raise TypeError(f"{name} is not available for {B.backend_name(d)} tensors yet (a NumPy computation); move "
                    "the tensor to NumPy first: docs/backends.md")


def _unique_xp(d: Any, return_inverse: bool, return_counts: bool) -> Any:
    """:func:`unique` of the flattened input with the standard's ``unique_all`` (each NaN
    its own value, as PyTorch), put in ascending order (NaNs last; the standard leaves the
    order unspecified) with the inverse indices renumbered to match."""
    xp = B.namespace(d)
    vals, _, inv, counts = xp.unique_all(xp.reshape(d, (-1,)))
    order = xp.argsort(vals, stable=True)
    res = [wrap(xp.take(vals, order))]
    if return_inverse:
        rank = xp.argsort(order)  # (the inverse permutation)
        res.append(wrap(xp.astype(xp.reshape(xp.take(rank, xp.reshape(inv, (-1,))), d.shape), xp.int64)))
    if return_counts:
        res.append(wrap(xp.astype(xp.take(counts, order), xp.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:
    """Collapse runs of equal consecutive elements (slices along ``dim``) into one.

    Args:
        input: ``(*)``.
        return_inverse: also return, for each element, the index of its run.
        return_counts: also return the length of each run.
        dim: compare slices along this dim instead of elements of the flattened input.

    Returns:
        like :func:`unique` (``output``, ``inverse?``, ``counts?``), without sorting.
    Raises:
        TypeError: for an Array API tensor (array-api-strict) where the op has no Array API form
            yet (``unique`` has one without ``dim``).
        IndexError: ``dim`` out of range.

    Example:
        >>> import dyngrad
        >>> dyngrad.unique_consecutive(dyngrad.tensor([1, 1, 2, 2, 1]), return_counts=True)
        (tensor([1, 2, 1]), tensor([2, 2, 1]))
    """
    d = input._data
    if not B.native(d):
        _host_only("unique_consecutive()", d)
    axis = 0 if dim is None else norm_dim(dim, d.ndim, "unique_consecutive")
    flat = d.reshape(-1) if dim is None else np.moveaxis(d, axis, 0)
    n = flat.shape[0]
    if n == 0:
        starts = np.zeros(0, dtype=np.int64)
    else:
        change = np.any((flat[1:] != flat[:-1]).reshape(n - 1, -1), axis=1)
        starts = np.concatenate([[0], np.nonzero(change)[0] + 1]).astype(np.int64)
    out = flat[starts] if dim is None else np.moveaxis(flat[starts], 0, axis)
    res = [wrap(np.ascontiguousarray(out))]
    if return_inverse:
        inv = np.cumsum(np.isin(np.arange(n), starts)) - 1
        res.append(wrap(inv.reshape(d.shape if dim is None else (-1,)).astype(np.int64)))
    if return_counts:
        res.append(wrap(np.diff(np.append(starts, n)).astype(np.int64)))
    return res[0] if len(res) == 1 else tuple(res)


def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor:
    """Count the occurrences of each value of a 1-d non-negative integer tensor.

    Args:
        input: ``(n,)`` integer tensor, values ``>= 0``.
        weights: optional ``(n,)`` tensor; then ``out[v]`` sums the weights of the elements
            equal to ``v``.
        minlength: the minimum length of the result.
    Returns:
        ``(max(max(input) + 1, minlength),)`` tensor: int64 counts, or of the weights' float
        dtype (float32 weights give float32, others float64, as PyTorch).
    Raises:
        TypeError: for an Array API tensor (array-api-strict) where the op has no Array API form
            yet (``unique`` has one without ``dim``).
        RuntimeError: a non-1-d or non-integer input, negative values, mismatched weights.

    Example:
        >>> import dyngrad
        >>> dyngrad.bincount(dyngrad.tensor([0, 2, 2, 3])).tolist()
        [1, 0, 2, 1]
    """
    d = input._data
    if not B.native(d):
        _host_only("bincount()", d)
    if d.ndim != 1 or B.kind(d) not in "iub":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if d.size and d.min() < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is None:
        return wrap(np.bincount(d, minlength=minlength).astype(np.int64))
    w = data_of(weights)
    if w.shape != d.shape:
        raise RuntimeError("weights should be 1-d and have the same length as input")
    dt = np.float32 if w.dtype == np.float32 else np.float64
    return wrap(np.bincount(d, weights=w.astype(np.float64), minlength=minlength).astype(dt))


def searchsorted(sorted_sequence: Tensor, input: Any, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None) -> Tensor:
    """For each value of ``input``, the index where it would be inserted in
    ``sorted_sequence`` to keep it sorted (along the last dim).

    Args:
        sorted_sequence: ``(*, m)`` tensor sorted along its last dim (or unsorted with
            ``sorter``); a 1-d sequence is shared by every value.
        input: ``(*, k)`` tensor (same leading dims as a multi-dim ``sorted_sequence``) or a
            number.
        out_int32: int32 result instead of int64.
        right: the last suitable index instead of the first (``side="right"``).
        side: ``"left"`` or ``"right"``; overrides ``right`` when given.
        sorter: indices that sort ``sorted_sequence`` along its last dim.
    Returns:
        int64 (int32) tensor of ``input``'s shape.
    Raises:
        TypeError: for an Array API tensor (array-api-strict) where the op has no Array API form
            yet (``unique`` has one without ``dim``).
        RuntimeError: leading dims that do not match; ``side`` and ``right`` disagreeing.

    Example:
        >>> import dyngrad
        >>> dyngrad.searchsorted(dyngrad.tensor([1.0, 3.0, 5.0]), dyngrad.tensor([0.0, 3.0, 6.0])).tolist()
        [0, 1, 3]
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of "
                               "left while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    if not B.native(seq):
        _host_only("searchsorted()", seq)
    if sorter is not None:
        seq = np.take_along_axis(seq, data_of(sorter).astype(np.int64), axis=-1)
    scalar = not isinstance(input, Tensor)
    vals = B.asarray_any(data_of(input))
    how = "right" if right else "left"
    if _has_nan(seq) or _has_nan(vals):  # NumPy sorts NaN last; PyTorch's binary search differs
        out = _bsearch(seq, vals, right, scalar)
    elif seq.ndim == 1:
        out = np.searchsorted(seq, vals, side=how)
    else:
        if scalar or vals.shape[:-1] != seq.shape[:-1]:
            raise RuntimeError(
                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
                f"of boundaries tensor and input value tensor must match, but we got boundaries tensor "
                f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
        s2, v2 = seq.reshape(-1, seq.shape[-1]), vals.reshape(-1, vals.shape[-1])
        out = np.stack([np.searchsorted(s, v, side=how) for s, v in zip(s2, v2)]).reshape(vals.shape) \
            if s2.shape[0] else np.zeros(vals.shape, dtype=np.int64)
    return wrap(B.asarray_any(out).astype(np.int32 if out_int32 else np.int64))


def _has_nan(a: np.ndarray) -> bool:
    return B.kind(a) in "fc" and bool(np.isnan(a).any())


def _bsearch(seq: np.ndarray, vals: np.ndarray, right: bool, scalar: bool) -> np.ndarray:
    """PyTorch's binary search (``cus_lower_bound`` / ``cus_upper_bound``), vectorised: move
    right while ``not (seq[mid] >= v)`` (``right``: ``not (seq[mid] > v)``). With NaNs among
    the boundaries or values every comparison with a NaN is False, so the answer depends on
    the order of the probes, which this reproduces exactly (NumPy's NaN-last order does not)."""
    m = seq.shape[-1]
    if seq.ndim > 1 and (scalar or vals.shape[:-1] != seq.shape[:-1]):
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions "
            f"of boundaries tensor and input value tensor must match, but we got boundaries tensor "
            f"{list(seq.shape)} and input value tensor {list(vals.shape)}")
    start = np.zeros(vals.shape, dtype=np.int64)
    end = np.full(vals.shape, m, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                return start
            mid = start + ((end - start) >> 1)
            probe = np.minimum(mid, m - 1)
            mv = seq[probe] if seq.ndim == 1 else np.take_along_axis(seq, probe, axis=-1)
            go = ~(mv > vals) if right else ~(mv >= vals)
            start = np.where(active & go, mid + 1, start)
            end = np.where(active & ~go, mid, end)


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value of ``input`` given sorted 1-d ``boundaries``: the index ``i``
    with ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x <
    boundaries[i]``).

    Args:
        input: a tensor or a number.
        boundaries: sorted ``(k,)`` tensor.
        out_int32: return int32 instead of int64.
        right: which side of a boundary a value equal to it falls on (above).

    Returns:
        int64 (``out_int32``: int32) tensor of ``input``'s shape.
    Raises:
        TypeError: for an Array API tensor (array-api-strict) where the op has no Array API form
            yet (``unique`` has one without ``dim``).
        RuntimeError: ``boundaries`` not 1-d.

    Example:
        >>> import dyngrad
        >>> dyngrad.bucketize(dyngrad.tensor([0.5, 1.0, 7.0]), dyngrad.tensor([1.0, 3.0, 5.0])).tolist()
        [0, 0, 3]
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def histc(input: Tensor, bins: int = 100, min: float = 0, max: float = 0) -> Tensor:  # noqa: A002
    """Histogram of ``input`` with ``bins`` equal-width bins on ``[min, max]`` (both 0: the
    data's range); values outside are ignored.

    Args:
        input: ``(*)``, floating.
        bins: number of bins.
        min, max: the range (both 0: the data's minimum and maximum).

    Returns:
        ``(bins,)`` tensor of ``input``'s (floating) dtype.
    Raises:
        TypeError: for an Array API tensor (array-api-strict) where the op has no Array API form
            yet (``unique`` has one without ``dim``).
        NotImplementedError: an integer or bool input (``"histogram_cpu" not implemented for
            'Long'``, PyTorch's error; a subclass of RuntimeError).
        RuntimeError: ``bins <= 0``; ``max < min``.

    Example:
        >>> import dyngrad
        >>> dyngrad.histc(dyngrad.tensor([1.0, 2.0, 1.0, 4.0]), bins=4, min=0, max=4).tolist()
        [0.0, 2.0, 1.0, 1.0]
    """
    d = input._data
    if B.kind(d) not in "fc":
        names = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
        # (NotImplementedError, a RuntimeError, as PyTorch raises)
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{names.get(d.dtype.name, d.dtype.name)}'")
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0")
    if not B.native(d):
        _host_only("histc()", d)
    lo, hi = float(min), float(max)
    if lo == hi and d.size:
        lo, hi = float(d.min()), float(d.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if hi < lo:
        raise RuntimeError("torch.histc: max must be larger than min")
    counts, _ = np.histogram(d, bins=bins, range=(lo, hi))
    return wrap(counts.astype(d.dtype))
