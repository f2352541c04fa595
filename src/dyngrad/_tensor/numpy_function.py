"""NumPy's functions on Tensors (``Tensor.__array_function__``, NEP 18): ``np.sum(t, axis=0)``,
``np.concatenate([t, arr])``, ``np.linalg.solve(A, b)`` ... run dyngrad ops, with NumPy's
argument names and meaning (``axis``, ``keepdims``, ``ddof``; ``np.std`` divides by ``n -
ddof`` with ``ddof=0``, ``np.repeat`` repeats elements, ``np.dot`` of N-d arrays contracts
the last and second-to-last axes, ``np.split`` takes section counts or split points).

One table, :data:`FUNCTIONS`, maps each NumPy function to its implementation here (np.linalg's
are in numpy_linalg.py); docs/numpy.md's coverage table is generated from it.

Dtypes: as for the ufuncs (numpy_ufunc.py): PyTorch's promotion between operands, and
NumPy's float64 where NumPy makes floats of integers (``np.mean``, ``np.std``, ``np.var``,
``np.average``, the np.linalg functions). Results are Tensors where NumPy returns arrays or
scalars (a 0-d Tensor for ``np.sum(t)``); Python ints where NumPy returns ints (a rank).

A function with no entry raises TypeError naming it when an input requires grad, is batched
or a transform is active; otherwise it runs on the arrays and returns what NumPy returns. A
few functions that only read values or shapes (``np.allclose``, ``np.shape``,
``np.array_equal``, ``np.nonzero`` ...) run on the arrays even then: their results carry no
gradient by nature.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

from . import numpy_arrays as A
from . import numpy_linalg as L
from .numpy_common import _floats, _t, _to_arrays, _ts, _walk, _write_out, np_dtype, refuse_or_run
from .numpy_ufunc import UFUNCS, _reduce

__all__ = ["FUNCTIONS", "VALUE_ONLY", "array_function"]

_NoValue = np._NoValue  # NumPy's "argument not given"


def _o() -> Any:
    return _core._ops


def _dims(axis: Any, ndim: int) -> Any:
    if axis is None:
        return tuple(range(ndim))
    return tuple(axis) if isinstance(axis, (tuple, list)) else axis


_SIMPLE = {np.add: "sum", np.maximum: "amax", np.minimum: "amin"}  # their ops take None or a tuple of dims


def _ufunc_reduce(ufunc: np.ufunc, a: Any, axis: Any, dtype: Any, keepdims: Any, initial: Any, where: Any) -> Any:
    if (dtype is None and initial is _NoValue and where is True and ufunc in _SIMPLE
            and isinstance(a, _core.Tensor) and (axis is None or isinstance(axis, int))):
        op = getattr(_core._ops, _SIMPLE[ufunc])  # the plain reduction: straight to the op
        if axis is None:
            return op(a, tuple(range(a.dim())), bool(keepdims)) if keepdims or ufunc is not np.add else op(a)
        return op(a, axis, bool(keepdims))
    kw: dict = {"axis": axis, "keepdims": bool(keepdims), "dtype": dtype, "where": where}
    if initial is not _NoValue:
        kw["initial"] = initial
    return _reduce(UFUNCS[ufunc], ufunc, (_t(a),), kw)


# ------------------------------------------------------------------ reductions and statistics
def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: A001, ANN001, ANN201
    return _ufunc_reduce(np.add, a, axis, dtype, keepdims, initial, where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: ANN001, ANN201
    return _ufunc_reduce(np.multiply, a, axis, dtype, keepdims, initial, where)


def amax(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: ANN001, ANN201
    return _ufunc_reduce(np.maximum, a, axis, None, keepdims, initial, where)


def amin(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):  # noqa: ANN001, ANN201
    return _ufunc_reduce(np.minimum, a, axis, None, keepdims, initial, where)


def all(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001, ANN001, ANN201
    return _ufunc_reduce(np.logical_and, _o().ne(_t(a), 0), axis, None, keepdims, _NoValue, where)


def any(a, axis=None, out=None, keepdims=False, *, where=True):  # noqa: A001, ANN001, ANN201
    return _ufunc_reduce(np.logical_or, _o().ne(_t(a), 0), axis, None, keepdims, _NoValue, where)


def _no_where(name: str, where: Any) -> None:
    if where is not True:
        raise TypeError(f"numpy.{name}(where=...) is not supported on dyngrad Tensors")


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):  # noqa: ANN001, ANN201
    _no_where("mean", where)
    x = _t(a).to(np_dtype(dtype)) if dtype is not None else _floats(a)
    if axis == ():  # NumPy reduces nothing (PyTorch's dim=() would reduce everything)
        return _o().clone(x)
    return _o().mean(x, _dims(axis, x.dim()), bool(keepdims))


def _moment(name: str, a: Any, axis: Any, dtype: Any, ddof: Any, keepdims: Any, where: Any, correction: Any) -> Any:
    _no_where(name, where)
    if correction is not _NoValue:
        ddof = correction
    x = _t(a).to(np_dtype(dtype)) if dtype is not None else _floats(a)
    if axis == ():  # NumPy reduces nothing: each value is its own sample (0 for ddof=0, nan beyond)
        v = (x - x) ** 2 / (1 - ddof) if ddof != 1 else (x - x) * float("nan")
        return v if name == "var" else _o().sqrt(v)
    return getattr(_o(), name)(x, _dims(axis, x.dim()), keepdim=bool(keepdims), correction=ddof)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue, correction=_NoValue):  # noqa: ANN001, ANN201
    return _moment("std", a, axis, dtype, ddof, keepdims, where, correction)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True, mean=_NoValue, correction=_NoValue):  # noqa: ANN001, ANN201
    return _moment("var", a, axis, dtype, ddof, keepdims, where, correction)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):  # noqa: ANN001, ANN201
    x = _floats(a)
    if weights is None:
        r, w = mean(x, axis, keepdims=keepdims), None
    else:
        w = _t(weights)
        if w.dim() == 1 and x.dim() > 1 and axis is not None:  # 1-d weights along axis
            w = w.reshape([-1 if i == axis % x.dim() else 1 for i in range(x.dim())])
        w = _o().broadcast_to(w, x.shape)
        dims = _dims(axis, x.dim())
        r = _o().sum(x * w, dims, bool(keepdims)) / _o().sum(w, dims, bool(keepdims))
    if returned:
        return r, (_o().sum(w, _dims(axis, x.dim()), bool(keepdims)) if w is not None else _t(np.asarray(x.numel() / r.numel())))
    return r


def _arg(name: str, a: Any, axis: Any, keepdims: Any) -> Any:
    x = _t(a)
    if axis is None:
        r = getattr(_o(), name)(x.reshape(-1), 0)
        return r.reshape([1] * x.dim()) if keepdims else r
    return getattr(_o(), name)(x, axis, bool(keepdims))


def argmax(a, axis=None, out=None, *, keepdims=False):  # noqa: ANN001, ANN201
    return _arg("argmax", a, axis, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):  # noqa: ANN001, ANN201
    return _arg("argmin", a, axis, keepdims)


def _scan(name: str, a: Any, axis: Any, dtype: Any) -> Any:
    x = _t(a)
    if dtype is not None:
        x = x.to(np_dtype(dtype))
    return getattr(_o(), name)(x.reshape(-1) if axis is None else x, 0 if axis is None else axis)


def cumsum(a, axis=None, dtype=None, out=None):  # noqa: ANN001, ANN201
    return _scan("cumsum", a, axis, dtype)


def cumprod(a, axis=None, dtype=None, out=None):  # noqa: ANN001, ANN201
    return _scan("cumprod", a, axis, dtype)


def diff(a, n=1, axis=-1, prepend=_NoValue, append=_NoValue):  # noqa: ANN001, ANN201
    x = _t(a)
    axis = axis % x.dim()
    parts = [x]
    if prepend is not _NoValue:
        parts.insert(0, _o().broadcast_to(_t(prepend), x.shape[:axis] + (1,) + x.shape[axis + 1:]) if np.ndim(getattr(prepend, "_data", prepend)) == 0 else _t(prepend))
    if append is not _NoValue:
        parts.append(_o().broadcast_to(_t(append), x.shape[:axis] + (1,) + x.shape[axis + 1:]) if np.ndim(getattr(append, "_data", append)) == 0 else _t(append))
    if len(parts) > 1:
        x = _o().cat(_ts(parts), axis)
    pre = (slice(None),) * axis
    for _ in range(n):
        x = x[pre + (slice(1, None),)] - x[pre + (slice(None, -1),)]
    return x


def count_nonzero(a, axis=None, *, keepdims=False):  # noqa: ANN001, ANN201
    nz = _o().to_dtype(_o().ne(_t(a), 0), np.dtype(np.int64))
    return _ufunc_reduce(np.add, nz, axis, None, keepdims, _NoValue, True)


# ------------------------------------------------------------------ products
def dot(a, b, out=None):  # noqa: ANN001, ANN201
    a, b = _ts((a, b))
    if a.dim() == 0 or b.dim() == 0:
        return a * b
    if b.dim() == 1:
        return _o().tensordot(a, b, ([a.dim() - 1], [0]))
    return _o().tensordot(a, b, ([a.dim() - 1], [b.dim() - 2]))


def vdot(a, b):  # noqa: ANN001, ANN201
    a, b = _ts((a, b))
    return _o().dot(a.reshape(-1), b.reshape(-1))


def inner(a, b):  # noqa: ANN001, ANN201
    a, b = _ts((a, b))
    if a.dim() == 0 or b.dim() == 0:
        return a * b
    return _o().tensordot(a, b, ([a.dim() - 1], [b.dim() - 1]))


def outer(a, b, out=None):  # noqa: ANN001, ANN201
    a, b = _ts((a, b))
    return _o().outer(a.reshape(-1), b.reshape(-1))


def tensordot(a, b, axes=2):  # noqa: ANN001, ANN201
    a, b = _ts((a, b))
    if not isinstance(axes, int):
        axes = tuple([x] if isinstance(x, int) else list(x) for x in axes)
    return _o().tensordot(a, b, axes)


def einsum(*operands, out=None, optimize=False, **kwargs):  # noqa: ANN002, ANN003, ANN001, ANN201
    if not isinstance(operands[0], str):
        raise TypeError("numpy.einsum on dyngrad Tensors takes a subscripts string (not the sublist form)")
    return _o().einsum(operands[0], *_ts(operands[1:]))


def kron(a, b):  # noqa: ANN001, ANN201
    a, b = _ts((a, b))
    nd = max(a.dim(), b.dim())
    sa = (1,) * (nd - a.dim()) + tuple(a.shape)
    sb = (1,) * (nd - b.dim()) + tuple(b.shape)
    a = a.reshape([v for s in sa for v in (s, 1)])
    b = b.reshape([v for s in sb for v in (1, s)])
    return (a * b).reshape([x * y for x, y in zip(sa, sb)])


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):  # noqa: ANN001, ANN201
    r = _o().diagonal(_t(a), offset, axis1, axis2).sum(-1)
    return r if dtype is None else r.to(np_dtype(dtype))


# ------------------------------------------------------------------ the table
def _entries(module: Any, names: str, np_module: Any = np) -> dict:
    return {getattr(np_module, n): getattr(module, n) for n in names.split() if hasattr(np_module, n)}


_HERE = __import__(__name__, fromlist=["_"])
#: NumPy function -> its implementation on Tensors (the one table; docs/numpy.md is generated from it).
FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {
    **_entries(_HERE, "sum prod amax amin all any mean std var average argmax argmin cumsum cumprod "
               "diff count_nonzero dot vdot inner outer tensordot einsum kron trace"),
    np.max: amax, np.min: amin,
    **_entries(A, "transpose moveaxis swapaxes reshape ravel squeeze expand_dims broadcast_to atleast_1d "
               "atleast_2d atleast_3d concatenate stack vstack hstack dstack column_stack split array_split "
               "tile repeat flip fliplr flipud roll diag diagonal tril triu where take take_along_axis sort "
               "argsort clip pad round nan_to_num isposinf isneginf copy zeros_like ones_like empty_like "
               "full_like linspace"),
    **_entries(L, "det slogdet inv solve cholesky qr eigh eigvalsh svd svdvals pinv lstsq matrix_power "
               "norm vector_norm matrix_norm", np.linalg),
}
if hasattr(np, "concat"):  # NumPy >= 2.0 aliases
    FUNCTIONS[np.concat] = A.concatenate
if hasattr(np, "around"):
    FUNCTIONS[np.around] = A.round
if hasattr(np, "permute_dims"):
    FUNCTIONS[np.permute_dims] = A.transpose

#: Functions that read values or shapes only (no differentiable result): they run on the
#: arrays even for tensors that require grad (a batched tensor's values still cannot be read).
VALUE_ONLY = frozenset(f for f in (
    np.shape, np.ndim, np.size, np.result_type, np.allclose, np.isclose, np.array_equal, np.array_equiv,
    np.iscomplexobj, np.isrealobj, np.nonzero, np.argwhere, np.flatnonzero, np.can_cast, np.min_scalar_type,
    np.array_repr, np.array_str, np.array2string, getattr(np, "astype", None),
) if f is not None and f is not np.astype)


def array_function(func: Callable[..., Any], types: Any, args: tuple, kwargs: dict) -> Any:
    """``Tensor.__array_function__``: run the NumPy function ``func`` with dyngrad ops.

    Args:
        func: the NumPy function called (``np.sum``, ``np.linalg.solve``, ...).
        types: the types that implement the protocol among its arguments.
        args: its positional arguments, as given.
        kwargs: its keyword arguments, as given.

    Returns:
        Tensors where NumPy returns arrays (``out=`` a Tensor is written in place).

    Raises:
        TypeError: a NumPy function dyngrad has no rule for, when an input requires grad or
            is transformed (otherwise it runs on the arrays and returns NumPy's results).
    """
    impl = FUNCTIONS.get(func)
    if impl is None:
        if func in VALUE_ONLY:
            for v in _walk_tensors(args, kwargs):
                if v._is_wrapper and func not in (np.shape, np.ndim, np.size, np.result_type):
                    v.__array__()  # a batched tensor's values cannot be read: vmap loops instead
            return func(*_arrays(args), **_arrays(kwargs))
        name = getattr(func, "__module__", "numpy") or "numpy"
        name = ("numpy.linalg" if name.startswith("numpy.linalg") else "numpy") + "." + func.__name__
        return refuse_or_run(name, func, args, kwargs)
    out = None
    if "out" in kwargs:
        kwargs = dict(kwargs)
        out = kwargs.pop("out")
    res = impl(*args, **kwargs)
    if out is None:
        return res
    return _write_out(out if isinstance(out, tuple) else (out,), res if isinstance(res, tuple) else (res,), args)


def _walk_tensors(*objs: Any) -> Any:
    return (v for v in _walk(objs) if isinstance(v, _core.Tensor))


def _arrays(x: Any) -> Any:
    return _to_arrays(x)
