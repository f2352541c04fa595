"""NumPy's array-manipulation functions on Tensors (part of ``Tensor.__array_function__``,
numpy_function.py holds the table): shapes, joining and splitting, rearranging, indexing,
sorting, padding, clipping and the ``*_like`` constructors, with NumPy's argument names and
meaning (``np.repeat`` repeats elements, ``np.split`` takes section counts or split
points, ``np.flip`` without an axis flips every axis, ``np.sort`` returns values only)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

from .numpy_common import _operand, _t, _ts, np_dtype
from .. import _backend as B

_NoValue = np._NoValue


def _o() -> Any:
    return _core._ops


def _ax(axis: int, ndim: int) -> int:
    return axis % ndim if ndim else 0


# ------------------------------------------------------------------ shapes
def transpose(a, axes=None):  # noqa: ANN001, ANN201
    x = _t(a)
    return _o().permute(x, list(reversed(range(x.dim()))) if axes is None else [int(i) for i in axes])


def moveaxis(a, source, destination):  # noqa: ANN001, ANN201
    return _o().moveaxis(_t(a), source, destination)


def swapaxes(a, axis1, axis2):  # noqa: ANN001, ANN201
    return _o().swapaxes(_t(a), axis1, axis2)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):  # noqa: ANN001, ANN201
    if order != "C":
        raise TypeError("numpy.reshape on dyngrad Tensors supports order='C' only")
    shape = newshape if shape is None else shape
    return _o().reshape(_t(a), tuple(shape) if isinstance(shape, (tuple, list)) else (shape,))


def ravel(a, order="C"):  # noqa: ANN001, ANN201
    return reshape(a, -1, order)


def squeeze(a, axis=None):  # noqa: ANN001, ANN201
    x = _t(a)
    if axis is None:
        return _o().squeeze(x)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    for ax in axes:
        if x.shape[ax] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _o().squeeze(x, axes)


def expand_dims(a, axis):  # noqa: ANN001, ANN201
    x = _t(a)
    axes = tuple(axis) if isinstance(axis, (tuple, list)) else (axis,)
    nd = x.dim() + len(axes)
    for ax in sorted(_ax(i, nd) for i in axes):
        x = _o().unsqueeze(x, ax)
    return x


def broadcast_to(array, shape, subok=False):  # noqa: ANN001, ANN201
    return _o().broadcast_to(_t(array), tuple(shape) if isinstance(shape, (tuple, list)) else (shape,))


def atleast_1d(*arys):  # noqa: ANN002, ANN201
    res = [_t(a).reshape(1) if _t(a).dim() == 0 else _t(a) for a in arys]
    return res[0] if len(res) == 1 else tuple(res)


def atleast_2d(*arys):  # noqa: ANN002, ANN201
    res = []
    for a in arys:
        x = _t(a)
        res.append(x.reshape(1, 1) if x.dim() == 0 else x.reshape(1, -1) if x.dim() == 1 else x)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_3d(*arys):  # noqa: ANN002, ANN201
    res = []
    for a in arys:
        x = _t(a)
        if x.dim() == 0:
            x = x.reshape(1, 1, 1)
        elif x.dim() == 1:
            x = x.reshape(1, -1, 1)
        elif x.dim() == 2:
            x = _o().unsqueeze(x, 2)
        res.append(x)
    return res[0] if len(res) == 1 else tuple(res)


# ------------------------------------------------------------------ joining and splitting
def _joined(arrays: Any, dtype: Any) -> list:
    xs = _ts(list(arrays))
    return [x.to(np_dtype(dtype)) for x in xs] if dtype is not None else xs


def concatenate(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):  # noqa: ANN001, ANN201
    xs = _joined(arrays, dtype)
    if axis is None:
        return _o().cat([x.reshape(-1) for x in xs], 0)
    return _o().cat(xs, axis)


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):  # noqa: ANN001, ANN201
    return _o().stack(_joined(arrays, dtype), axis)


def vstack(tup, *, dtype=None, casting="same_kind"):  # noqa: ANN001, ANN201
    return _o().cat([atleast_2d(x) for x in _joined(tup, dtype)], 0)


def hstack(tup, *, dtype=None, casting="same_kind"):  # noqa: ANN001, ANN201
    xs = [atleast_1d(x) for x in _joined(tup, dtype)]
    return _o().cat(xs, 0 if xs[0].dim() == 1 else 1)


def dstack(tup):  # noqa: ANN001, ANN201
    return _o().cat([atleast_3d(x) for x in _joined(tup, None)], 2)


def column_stack(tup):  # noqa: ANN001, ANN201
    return _o().cat([x.reshape(-1, 1) if x.dim() < 2 else x for x in _joined(tup, None)], 1)


def _split_at(x: Any, points: list, axis: int) -> list:
    n = x.shape[axis]
    bounds = [0] + [builtins.min(builtins.max(int(p) if p >= 0 else n + int(p), 0), n) for p in points] + [n]
    pre = (slice(None),) * axis
    return [x[pre + (slice(s, builtins.max(s, e)),)] for s, e in zip(bounds[:-1], bounds[1:])]


def split(ary, indices_or_sections, axis=0):  # noqa: ANN001, ANN201
    x = _t(ary)
    axis = _ax(axis, x.dim())
    if isinstance(indices_or_sections, (int, np.integer)):
        n, k = x.shape[axis], int(indices_or_sections)
        if n % k:
            raise ValueError("array split does not result in an equal division")
        return _split_at(x, [n // k * i for i in range(1, k)], axis)
    return _split_at(x, list(indices_or_sections), axis)


def array_split(ary, indices_or_sections, axis=0):  # noqa: ANN001, ANN201
    x = _t(ary)
    axis = _ax(axis, x.dim())
    if isinstance(indices_or_sections, (int, np.integer)):
        n, k = x.shape[axis], int(indices_or_sections)
        sizes = [n // k + 1] * (n % k) + [n // k] * (k - n % k)
        return _split_at(x, list(np.cumsum(sizes)[:-1]), axis)
    return _split_at(x, list(indices_or_sections), axis)


# ------------------------------------------------------------------ rearranging
def tile(A, reps):  # noqa: ANN001, ANN201, N803
    return _o().tile(_t(A), tuple(reps) if isinstance(reps, (tuple, list)) else (reps,))


def repeat(a, repeats, axis=None):  # noqa: ANN001, ANN201
    x = _t(a)
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = _ax(axis, x.dim())
    idx = np.repeat(np.arange(x.shape[axis]), np.asarray(getattr(repeats, "_data", repeats)))
    return _o().index_select(x, axis, _core.Tensor._make(idx))


def flip(m, axis=None):  # noqa: ANN001, ANN201
    x = _t(m)
    axes = range(x.dim()) if axis is None else (tuple(axis) if isinstance(axis, (tuple, list)) else (axis,))
    return _o().flip(x, *axes) if axes else x


def fliplr(m):  # noqa: ANN001, ANN201
    return flip(m, 1)


def flipud(m):  # noqa: ANN001, ANN201
    return flip(m, 0)


def roll(a, shift, axis=None):  # noqa: ANN001, ANN201
    return _o().roll(_t(a), shift, axis)


def diag(v, k=0):  # noqa: ANN001, ANN201
    return _o().diag(_t(v), k)


def diagonal(a, offset=0, axis1=0, axis2=1):  # noqa: ANN001, ANN201
    return _o().diagonal(_t(a), offset, axis1, axis2)


def tril(m, k=0):  # noqa: ANN001, ANN201
    return _o().tril(_t(m), k)


def triu(m, k=0):  # noqa: ANN001, ANN201
    return _o().triu(_t(m), k)


# ------------------------------------------------------------------ indexing and selection
def where(condition, x=_NoValue, y=_NoValue):  # noqa: ANN001, ANN201
    if x is _NoValue and y is _NoValue:
        return _o().where(_t(condition))
    return _o().where(_t(condition), _operand(x), _operand(y))


def take(a, indices, axis=None, out=None, mode="raise"):  # noqa: ANN001, ANN201
    x = _t(a)
    idx = np.asarray(getattr(indices, "_data", indices))
    if axis is None:
        return _o().getitem(x.reshape(-1), idx)
    return _o().getitem(x, (slice(None),) * _ax(axis, x.dim()) + (idx,))


def take_along_axis(arr, indices, axis=-1):  # noqa: ANN001, ANN201
    x, idx = _t(arr), _t(indices)
    if axis is None:
        return _o().take_along_dim(x.reshape(-1), idx.reshape(-1), 0)
    return _o().take_along_dim(x, idx, axis)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):  # noqa: ANN001, ANN201
    x = _t(a)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return _o().sort(x, axis, stable=True)[0]


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):  # noqa: ANN001, ANN201
    x = _t(a)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return _o().argsort(x, axis, stable=True)


def clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue, **kwargs):  # noqa: A002, ANN001, ANN003, ANN201
    lo = min if a_min is _NoValue else a_min
    hi = max if a_max is _NoValue else a_max
    lo, hi = (None if v is _NoValue else _operand(v) for v in (lo, hi))
    return _o().clamp(_t(a), lo, hi)


def _pad_index(n: int, before: int, after: int, mode: str) -> np.ndarray:
    """Source index of every position of one padded axis (NumPy's modes, as periodic
    extensions: 'reflect' has period 2(n-1), 'symmetric' 2n, 'wrap' n)."""
    i = np.arange(-before, n + after)
    if mode == "edge":
        return np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    if mode == "reflect":
        if n == 1:
            return np.zeros_like(i)
        j = i % (2 * (n - 1))
        return np.where(j >= n, 2 * (n - 1) - j, j)
    j = i % (2 * n)  # symmetric
    return np.where(j >= n, 2 * n - 1 - j, j)


def pad(array, pad_width, mode="constant", **kwargs):  # noqa: ANN001, ANN003, ANN201
    x = _t(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (x.dim(), 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    if mode in ("edge", "wrap", "reflect", "symmetric"):
        if kwargs.get("reflect_type", "even") != "even" or set(kwargs) - {"reflect_type"}:
            raise TypeError(f"numpy.pad(mode={mode!r}) on dyngrad Tensors takes no options but reflect_type='even'")
        for axis, (before, after) in enumerate(widths):
            if before or after:
                n = x.shape[axis]
                if n == 0:
                    raise ValueError(f"can't extend empty axis {axis} using modes other than 'constant' or 'empty'")
                idx = _pad_index(n, int(before), int(after), mode)
                x = _o().index_select(x, axis, _core.Tensor._make(idx))
        return x
    if mode != "constant":
        raise TypeError(f"numpy.pad(mode={mode!r}) is not supported on dyngrad Tensors "
                        "('constant', 'edge', 'wrap', 'reflect' and 'symmetric' are)")
    value = kwargs.pop("constant_values", 0)
    if kwargs or np.ndim(value) != 0:
        raise TypeError("numpy.pad on dyngrad Tensors takes one scalar constant_values")
    flat = [int(w) for pair in widths[::-1] for w in pair]  # PyTorch's order: last axis first
    return _o().pad(x, flat, "constant", float(value))


def round(a, decimals=0, out=None):  # noqa: A001, ANN001, ANN201
    return _o().round(_t(a), decimals=decimals)


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):  # noqa: ANN001, ANN201
    return _o().nan_to_num(_t(x), nan, posinf, neginf)


def isposinf(x, out=None):  # noqa: ANN001, ANN201
    return _o().isposinf(_t(x))


def isneginf(x, out=None):  # noqa: ANN001, ANN201
    return _o().isneginf(_t(x))


def copy(a, order="K", subok=False):  # noqa: ANN001, ANN201
    return _o().clone(_t(a))


# ------------------------------------------------------------------ new tensors like one
def _like(a: Any, fill: Any, dtype: Any, shape: Any) -> Any:
    x = _t(a)
    dt = x._data.dtype if dtype is None else np_dtype(dtype)
    if shape is None and x._is_wrapper:
        return x._full_like(fill, dt)  # batched like x (vmap)
    shp = tuple(x.shape) if shape is None else (tuple(shape) if isinstance(shape, (tuple, list)) else (shape,))
    return _core.Tensor._make(np.full(shp, fill, dtype=dt))


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):  # noqa: ANN001, ANN201
    return _like(a, 0, dtype, shape)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):  # noqa: ANN001, ANN201
    return _like(a, 1, dtype, shape)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):  # noqa: ANN001, ANN201
    return _like(prototype, 0, dtype, shape)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):  # noqa: ANN001, ANN201
    if isinstance(fill_value, _core.Tensor):
        fill_value = fill_value.item()
    return _like(a, fill_value, dtype, shape)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0):  # noqa: ANN001, ANN201
    """``np.linspace`` with Tensor bounds: ``start + step * k`` for ``k = 0 .. num-1``, so the
    result is differentiable in ``start`` and ``stop`` (array bounds broadcast, the new axis
    at ``axis``, as NumPy's)."""
    num = int(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    a, b = _operand(start), _operand(stop)
    a, b = (v if isinstance(v, _core.Tensor) else _core.Tensor._make(np.asarray(v, dtype=np.float64)) for v in (a, b))
    if B.kind(a._data) not in "fc":  # integer bounds: NumPy's float64 (they cannot require grad)
        a = _core.Tensor._make(a._data.astype(np.float64))
    if B.kind(b._data) not in "fc":
        b = _core.Tensor._make(b._data.astype(np.float64))
    div = (num - 1) if endpoint else num
    k = np.arange(num, dtype=np.float64).reshape((num,) + (1,) * max(a.dim(), b.dim()))
    delta = b - a
    step = delta / div if div > 0 else delta * float("nan")
    ks = _core.Tensor._make(k.astype(np.result_type(a._data.dtype, b._data.dtype)))
    y = a + (ks * step if div > 0 else ks * delta)
    if endpoint and num > 1:
        y = _o().cat([y[:-1], b.unsqueeze(0).expand_as(y[-1:])], 0)
    if axis != 0:
        y = _o().movedim(y, 0, axis)
    if dtype is not None:
        y = y.to(np_dtype(dtype))
    return (y, step) if retstep else y
