"""The one seam between dyngrad and the array library.

Everything that creates arrays, maps dtypes or reduces a broadcast gradient lives here, and
so does the choice of array library (docs/backends.md): a Tensor's array is a NumPy array, a
CuPy array (on a GPU), a Dask array (lazy, chunked, out of core) or any Python Array API
array (array-api-strict in the tests). :func:`namespace` gives the namespace of some arrays
(NumPy itself for NumPy arrays, after one ``type(a) is np.ndarray`` check per array;
array-api-compat's ``array_namespace`` otherwise); :func:`nonstandard` the functions outside
the standard (special functions, some linalg, FFT, the sliding windows of the convolution
kernels) from a small per-backend table. Inside ops, call ``np.*`` functions on the arrays
you were given (NumPy dispatches them to CuPy and Dask through ``__array_function__`` and
``__array_ufunc__``) and create new arrays only through the helpers below (or ``like=``).
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np

__all__ = [
    "dtype",
    "float16",
    "float32",
    "float64",
    "int8",
    "int16",
    "int32",
    "int64",
    "uint8",
    "bool_",
    "to_np_dtype",
    "from_np_dtype",
    "get_default_dtype",
    "set_default_dtype",
    "result_type",
    "sum_to_size",
    "broadcast_shapes",
    "namespace",
    "backend_name",
    "nonstandard",
    "NONSTANDARD",
    "is_numpy",
    "kind",
    "astype",
    "reshape",
    "transpose",
    "swapaxes",
    "moveaxis",
    "asum",
    "like",
    "index_for",
    "is_dask",
    "is_cupy",
    "to_host",
    "may_share_memory",
]


class dtype:  # noqa: N801 - PyTorch's name
    """A dyngrad data type: a thin, hashable name for a NumPy dtype.

    Compares equal to itself, to the NumPy dtype it wraps, and to that dtype's name, so
    ``x.dtype == dyngrad.float32`` and ``x.dtype == np.float32`` both hold.

    The dtypes are the module's instances (``dyngrad.float32``, ``dyngrad.int64``, ...; the
    aliases ``dyngrad.float``, ``dyngrad.long`` ... are the same objects); user code never
    constructs one, as with ``torch.dtype``. Not differentiable (no tensors involved).

    Attributes:
        np: the wrapped ``numpy.dtype``.
        is_floating_point: True for float16/32/64.
        is_signed: True for signed integers and floats.
        itemsize: bytes per element.

    Args:
        np_dtype (numpy.dtype or type): the NumPy dtype to wrap.
        name (str): PyTorch's name for it (``'float32'``).
    Raises:
        TypeError: when ``np_dtype`` is not a NumPy dtype (from ``numpy.dtype``).
        KeyError: for a NumPy dtype kind dyngrad has no category for (complex, strings).

    Example:
        >>> import dyngrad, numpy as np
        >>> dyngrad.float32, dyngrad.float is dyngrad.float32
        (dyngrad.float32, True)
        >>> dyngrad.tensor([1.0]).dtype == np.float32, dyngrad.int8.is_signed, dyngrad.uint8.itemsize
        (True, True, 1)
    """

    __slots__ = ("np", "name", "is_floating_point", "is_signed", "itemsize", "_category")

    def __init__(self, np_dtype: np.dtype, name: str) -> None:
        self.np = np.dtype(np_dtype)
        self.name = name
        self.is_floating_point = self.np.kind == "f"
        self.is_signed = self.np.kind in "fi"
        self.itemsize = self.np.itemsize
        self._category = {"b": 0, "u": 1, "i": 1, "f": 2}[self.np.kind]

    def __repr__(self) -> str:
        return f"dyngrad.{self.name}"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, dtype):
            return other is self
        try:
            return self.np == np.dtype(other)  # type: ignore[arg-type]
        except TypeError:
            return False

    def __hash__(self) -> int:
        return hash(self.np)

    def to_real(self) -> dtype:
        return self


float16 = dtype(np.float16, "float16")
float32 = dtype(np.float32, "float32")
float64 = dtype(np.float64, "float64")
int8 = dtype(np.int8, "int8")
int16 = dtype(np.int16, "int16")
int32 = dtype(np.int32, "int32")
int64 = dtype(np.int64, "int64")
uint8 = dtype(np.uint8, "uint8")
bool_ = dtype(np.bool_, "bool")

_ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool_)
_FROM_NP: dict[np.dtype, dtype] = {d.np: d for d in _ALL}
_PY_TYPES: dict[Any, dtype] = {float: float64, int: int64, bool: bool_}

_default_float = [float32]  # a documented process-wide setting, as in PyTorch


def from_np_dtype(np_dtype: np.dtype) -> dtype:
    """Map a NumPy dtype to the dyngrad dtype; raises TypeError for unsupported ones."""
    try:
        return _FROM_NP[np_dtype]
    except KeyError:
        raise TypeError(
            f"dyngrad does not support arrays of dtype {np_dtype}; supported: "
            + ", ".join(d.name for d in _ALL)
        ) from None


def to_np_dtype(d: Any) -> np.dtype:
    """Accept a dyngrad dtype, a NumPy dtype/type, a dtype name or a Python type
    (``float`` -> float64, ``int`` -> int64, ``bool`` -> bool, as PyTorch) and return the
    NumPy dtype. Raises TypeError for anything else."""
    if isinstance(d, dtype):
        return d.np
    if d in _PY_TYPES:
        return _PY_TYPES[d].np
    nd = getattr(d, "_np_dtype", None)  # an Array API library's dtype object (array-api-strict)
    if nd is not None:
        d = nd
    try:
        nd = np.dtype(d)
    except TypeError:
        raise TypeError(f"dtype must be a dyngrad dtype, got {d!r}") from None
    from_np_dtype(nd)
    return nd


def get_default_dtype() -> dtype:
    """The dtype of floating tensors created from Python floats (float32 unless changed).

    Returns:
        dtype: what :func:`set_default_dtype` last set (``dyngrad.float32`` initially).
    Raises:
        Nothing: it cannot fail.

    Example:
        >>> import dyngrad
        >>> dyngrad.get_default_dtype()
        dyngrad.float32
        >>> dyngrad.tensor([1.0]).dtype
        dyngrad.float32
    """
    return _default_float[0]


def set_default_dtype(d: Any) -> None:
    """Set the default floating dtype (float32 or float64; float16 too).

    It applies to tensors made from Python floats, to ``zeros``/``randn``/... without a
    dtype, and to integer inputs of floating ops.

    Args:
        d (dtype): ``dyngrad.float16``, ``float32`` or ``float64``.
    Raises:
        TypeError: when ``d`` is not a floating dtype.

    Example:
        >>> import dyngrad
        >>> dyngrad.set_default_dtype(dyngrad.float64)
        >>> dyngrad.tensor([1.0]).dtype
        dyngrad.float64
        >>> dyngrad.set_default_dtype(dyngrad.float32)
    """
    nd = from_np_dtype(to_np_dtype(d))
    if not nd.is_floating_point:
        raise TypeError(f"only floating-point types are supported as the default type, got {nd}")
    _default_float[0] = nd
    _scalar_dtype.cache_clear()


@functools.cache
def _scalar_dtype(kind: type) -> np.dtype:
    if kind is bool:
        return np.dtype(np.bool_)
    if kind is int:
        return np.dtype(np.int64)
    return _default_float[0].np


def _category(nd: np.dtype) -> int:
    k = nd.kind
    return 0 if k == "b" else (2 if k == "f" else 1)


def result_type(*operands: Any) -> np.dtype:
    """PyTorch's type promotion for a mix of tensors (anything with ``._data``), arrays and
    Python scalars.

    Dimensioned tensors take priority over 0-d tensors, which take priority over Python
    scalars; a lower-priority operand changes the result only if it is of a higher category
    (bool < integer < floating), and then a Python float gives the default dtype, a Python
    int int64. Returns a NumPy dtype.
    """
    dim = zero = None
    sc = -1
    for op in operands:
        if isinstance(op, np.generic):  # a NumPy scalar counts as a Python scalar (as PyTorch)
            k = op.dtype.kind
            if k not in "biuf":
                raise TypeError(f"unsupported operand of type {type(op).__name__}")
            sc = max(sc, 0 if k == "b" else (2 if k == "f" else 1))
            continue
        # a Tensor's array; an ndarray itself (whose own ``._data`` is a memoryview)
        data = op if isinstance(op, np.ndarray) else getattr(op, "_data", op)
        if isinstance(data, np.ndarray) or hasattr(data, "dtype") and hasattr(data, "ndim"):
            nd = data.dtype
            if not isinstance(nd, np.dtype):  # an Array API library's dtype object
                nd = np_dtype_of(data)
            if data.ndim:
                dim = nd if dim is None else _promote(dim, nd)
            else:
                zero = nd if zero is None else _promote(zero, nd)
        elif isinstance(op, bool):
            sc = max(sc, 0)
        elif isinstance(op, int):
            sc = max(sc, 1)
        elif isinstance(op, float):
            sc = max(sc, 2)
        elif op is None:
            continue
        else:
            raise TypeError(f"unsupported operand of type {type(op).__name__}")
    res = dim
    if zero is not None:
        if res is None or _category(zero) > _category(res):
            res = zero
    if sc >= 0:
        sd = _scalar_dtype((bool, int, float)[sc])
        if res is None or sc > _category(res):
            res = sd
    if res is None:
        raise TypeError("result_type needs at least one operand")
    return res


@functools.cache
def _promote(a: np.dtype, b: np.dtype) -> np.dtype:
    """PyTorch's promote_types: a floating dtype wins over integers and bool unchanged
    (int64 + float32 -> float32; NumPy would give float64); otherwise NumPy's rule."""
    fa, fb = a.kind == "f", b.kind == "f"
    if fa != fb:
        return a if fa else b
    return np.promote_types(a, b)


def promote_types(a: Any, b: Any) -> np.dtype:
    """The NumPy dtype PyTorch's ``promote_types`` gives for two dtypes (any form)."""
    return _promote(to_np_dtype(a), to_np_dtype(b))


def sum_to_size(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum ``grad`` down to ``shape``, the inverse of broadcasting ``shape`` to grad.shape.

    Leading dimensions are summed away; dimensions of size 1 in ``shape`` are summed with
    keepdims. Raises ValueError if ``shape`` cannot broadcast to ``grad.shape``.
    """
    gshape = grad.shape
    if gshape == shape:
        return grad
    lead = len(gshape) - len(shape)
    if lead < 0:
        raise ValueError(f"shape {list(shape)} cannot be broadcast to {list(gshape)}")
    axes = list(range(lead))
    for i, s in enumerate(shape):
        g = gshape[lead + i]
        if s == 1 and g != 1:
            axes.append(lead + i)
        elif s != g:
            raise ValueError(f"shape {list(shape)} cannot be broadcast to {list(gshape)}")
    if type(grad) is np.ndarray or is_dask(grad) or is_cupy(grad):
        out = grad.sum(axis=tuple(axes), keepdims=True) if axes else grad
        return out.reshape(shape) if lead else out
    xp = namespace(grad)
    out = xp.sum(grad, axis=tuple(axes), keepdims=True, dtype=grad.dtype) if axes else grad
    return xp.reshape(out, shape) if lead else out


def is_broadcastable_to(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True when ``shape`` broadcasts to ``target`` (so a grad of ``target`` sums down)."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def broadcast_shapes(*shapes: tuple[int, ...]) -> tuple[int, ...]:
    """NumPy/PyTorch broadcasting of shapes; raises RuntimeError naming both shapes."""
    try:
        return tuple(np.broadcast_shapes(*shapes))
    except ValueError:
        raise RuntimeError(
            "shapes " + ", ".join(str(list(s)) for s in shapes) + " are not broadcastable"
        ) from None


# ---------------------------------------------------------------------------- creation
def int_fill_value(value: int, dt: np.dtype) -> int:
    """PyTorch's conversion of a Python int for an integer tensor: out of range is an error,
    except that a negative value wraps into an unsigned dtype (``uint8`` ``fill_(-1)`` is 255)."""
    info = np.iinfo(dt)
    if value > info.max or value < (-(2**63) if dt.kind == "u" else info.min):
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    return int(np.array(value).astype(dt)) if value < 0 and dt.kind == "u" else value


def asarray(obj: Any, dtype: Any = None) -> np.ndarray:
    """Make a fresh-or-shared ndarray from user data (lists, scalars, arrays) with PyTorch's
    inference: Python floats give the default dtype, ints int64, bools bool. An array of
    another library (CuPy, Dask, an Array API array) stays in its library (never copied to
    the host): :func:`foreign_asarray`."""
    if not isinstance(obj, np.ndarray) and _is_foreign_array(obj):
        return foreign_asarray(obj, dtype)
    if dtype is not None:
        return np.asarray(obj, dtype=to_np_dtype(dtype))
    if isinstance(obj, np.ndarray):
        if obj.dtype not in _FROM_NP:
            if obj.dtype.kind == "f":
                return obj.astype(np.float64)
            if obj.dtype.kind in "iu":
                return obj.astype(np.int64)
            from_np_dtype(obj.dtype)
        return obj
    arr = np.asarray(obj)
    if arr.dtype.kind == "f":
        return arr.astype(_default_float[0].np, copy=False)
    if arr.dtype.kind in "iu" and arr.dtype != np.int64:
        return arr.astype(np.int64)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"could not make a tensor from {type(obj).__name__} (dtype {arr.dtype})")
    return arr


def zeros(shape: tuple[int, ...], dtype: np.dtype, like: Any = None) -> np.ndarray:
    if like is None or type(like) is np.ndarray:
        return np.zeros(shape, dtype=dtype)
    return namespace(like).zeros(shape, dtype=_dtype_for(like, dtype))


def zeros_like(arr: np.ndarray, dtype: Any = None) -> np.ndarray:
    if type(arr) is np.ndarray or is_dask(arr) or is_cupy(arr):  # (NumPy dispatches to Dask, CuPy)
        return np.zeros_like(arr, dtype=dtype)
    return namespace(arr).zeros(arr.shape, dtype=_dtype_for(arr, dtype) if dtype is not None else arr.dtype)


def ones_like(arr: np.ndarray, dtype: Any = None) -> np.ndarray:
    if type(arr) is np.ndarray or is_dask(arr) or is_cupy(arr):
        return np.ones_like(arr, dtype=dtype)
    return namespace(arr).ones(arr.shape, dtype=_dtype_for(arr, dtype) if dtype is not None else arr.dtype)


def full_like(arr: np.ndarray, value: Any, dtype: Any = None) -> np.ndarray:
    """An array of ``arr``'s shape (and library), every element ``value``."""
    if type(arr) is np.ndarray or is_dask(arr) or is_cupy(arr):
        return np.full_like(arr, value, dtype=dtype)
    return namespace(arr).full(arr.shape, value, dtype=_dtype_for(arr, dtype) if dtype is not None else arr.dtype)


def full(shape: tuple[int, ...], value: Any, dtype: np.dtype) -> np.ndarray:
    return np.full(shape, value, dtype=dtype)


def scalar_array(value: Any, dtype: np.dtype) -> np.ndarray:
    return np.asarray(value, dtype=dtype)


def prod(shape: tuple[int, ...]) -> int:
    return math.prod(shape)


# ---------------------------------------------------------------------------- array libraries
# (docs/backends.md) A Tensor's array is a NumPy array (the default, and the fast path: one
# ``type(a) is np.ndarray`` check), a CuPy array, a Dask array or any Python Array API array.


def is_numpy(arr: Any) -> bool:
    """True for a NumPy array (or NumPy scalar): the default backend."""
    return type(arr) is np.ndarray or isinstance(arr, (np.ndarray, np.generic))


def _module_root(arr: Any) -> str:
    return type(arr).__module__.split(".", 1)[0]


def is_dask(arr: Any) -> bool:
    """True for a Dask array (without importing Dask when it is not loaded)."""
    return type(arr) is not np.ndarray and _module_root(arr) == "dask"


def is_cupy(arr: Any) -> bool:
    """True for a CuPy array (without importing CuPy)."""
    return type(arr) is not np.ndarray and _module_root(arr) == "cupy"


def backend_name(arr: Any) -> str:
    """The array library of ``arr``: ``'numpy'``, ``'cupy'``, ``'dask'``, ``'array_api_strict'``
    or the top-level module of any other Array API array (Python scalars are ``'numpy'``)."""
    if type(arr) is np.ndarray or isinstance(arr, (np.ndarray, np.generic, bool, int, float, complex)):
        return "numpy"
    return _module_root(arr)


def _is_constant(arr: Any) -> bool:
    """NumPy arrays and scalars join any backend's expression as constants (Dask wraps them;
    PyTorch lets a 0-d CPU tensor join a CUDA op the same way)."""
    return isinstance(arr, (bool, int, float, complex, np.generic)) or (
        isinstance(arr, np.ndarray) and arr.ndim == 0) or arr is None


def namespace(*arrays: Any) -> Any:
    """The array namespace of ``arrays``: the module to create and combine arrays with.

    NumPy arrays (checked first, by ``type(a) is np.ndarray``, so the default path costs one
    check per array) give :mod:`numpy` itself; Python scalars, NumPy scalars and ``None`` are
    ignored. Other arrays go to array-api-compat's ``array_namespace`` (``array_api_compat.dask.
    array`` for Dask, ``array_api_compat.cupy`` for CuPy, an Array API library's own namespace
    otherwise). NumPy arrays may join Dask arrays (Dask wraps them as constants, as Dask itself
    does), so ``namespace(dask_array, ndarray)`` is Dask's.

    Args:
        *arrays: arrays (NumPy, CuPy, Dask or Array API), Python or NumPy scalars, None.
    Returns:
        module: :mod:`numpy`, or the array-api-compat namespace of the arrays' library.
    Raises:
        TypeError: when the arrays come from more than one library (naming both: mixing
            backends in one op, as PyTorch refuses tensors on two devices), or an object is
            not an array of any library.

    Example:
        >>> import numpy as np
        >>> from dyngrad import _backend as B
        >>> B.namespace(np.ones(2), 1.0) is np
        True
        >>> import array_api_strict as xp
        >>> B.namespace(xp.ones(2)).__name__
        'array_api_strict'
    """
    for a in arrays:
        t = type(a)
        if t is not np.ndarray and t is not float and t is not int and t is not bool and a is not None:
            break
    else:
        return np  # the fast path: every array is a NumPy array (or a Python scalar)
    foreign = [a for a in arrays if not isinstance(a, np.ndarray) and not _is_constant(a)]
    if not foreign:
        return np
    names = {backend_name(a) for a in foreign}
    has_numpy = any(isinstance(a, np.ndarray) and a.ndim for a in arrays)
    if len(names) > 1 or (has_numpy and names != {"dask"}):
        both = sorted(names | ({"numpy"} if has_numpy else set()))
        raise TypeError(
            f"expected all arrays of one op to come from one array library (backend), but got "
            f"{' and '.join(both)} arrays; move them to one first (.to(device), .cpu(), "
            "dyngrad.from_dask(...)); docs/backends.md")
    import array_api_compat

    return array_api_compat.array_namespace(*foreign)


def check_same_backend(who: str, *arrays: Any) -> None:
    """Raise TypeError naming ``who`` and both libraries when ``arrays`` mix backends (see
    :func:`namespace`); nothing for NumPy arrays (one type check each)."""
    for a in arrays:
        if type(a) is not np.ndarray:
            break
    else:
        return
    try:
        namespace(*arrays)
    except TypeError as e:
        raise TypeError(f"{who}: {e}") from None


def may_share_memory(a: Any, b: Any) -> bool:
    """``np.may_share_memory`` for NumPy and CuPy arrays; False for Dask and other immutable
    Array API arrays (an in-place op on them makes a new array: docs/backends.md)."""
    if type(a) is np.ndarray and type(b) is np.ndarray:
        return np.may_share_memory(a, b)
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return np.may_share_memory(a, b)
    if is_cupy(a) and is_cupy(b):
        import cupy

        return bool(cupy.may_share_memory(a, b))
    return False


def to_host(arr: Any) -> np.ndarray:
    """A NumPy array of ``arr``'s values: computes a Dask array, copies a CuPy array to the
    host, converts an Array API array through DLPack (or ``np.asarray``)."""
    if isinstance(arr, np.ndarray):
        return arr
    if is_dask(arr):
        return to_host(arr.compute())
    if is_cupy(arr):
        return arr.get()
    if isinstance(arr, (np.generic, bool, int, float, complex)):
        return np.asarray(arr)
    try:
        return np.from_dlpack(arr)
    except (TypeError, AttributeError, RuntimeError, BufferError):
        return np.asarray(arr)


def wrap_result(arr: Any) -> Any:
    """An op's result as a Tensor's array: NumPy scalars and Python numbers become 0-d NumPy
    arrays; arrays of other libraries stay as they are (never pulled to the host)."""
    if isinstance(arr, (np.generic, bool, int, float, complex)) or not hasattr(arr, "shape"):
        return np.asarray(arr)
    return arr


def foreign_dtype(d: Any) -> dtype:
    """The dyngrad dtype of a foreign library's dtype object (array-api-strict's, which is
    not a NumPy dtype). Raises KeyError for one dyngrad has no dtype for."""
    nd = getattr(d, "_np_dtype", None)
    if nd is None:
        raise KeyError(d)
    return _FROM_NP[np.dtype(nd)]


def kind(arr: Any) -> str:
    """The NumPy kind character of any backend's array's dtype (``'f'``, ``'i'``, ``'u'``,
    ``'b'``): what ops read where they wrote ``arr.dtype.kind`` (array-api-strict's dtype
    objects have no ``kind``). One attribute read for NumPy, CuPy and Dask."""
    k = getattr(arr.dtype, "kind", None)
    return k if k is not None else np_dtype_of(arr).kind


def astype(arr: Any, nd: Any, copy: bool = True) -> Any:
    """``arr.astype(nd)`` in ``arr``'s library (``nd`` a NumPy dtype or anything
    :func:`to_np_dtype` takes); array-api-strict arrays get their library's ``astype`` and
    dtype object. ``copy=False`` returns ``arr`` itself when the dtype already matches."""
    if type(arr) is np.ndarray or is_dask(arr) or is_cupy(arr) or isinstance(arr, np.generic):
        return arr.astype(nd, copy=copy)
    nd = to_np_dtype(nd)
    if not copy and np_dtype_of(arr) == nd:
        return arr
    return namespace(arr).astype(arr, _dtype_for(arr, nd))


def _native(arr: Any) -> bool:
    """True for the arrays whose methods are NumPy's (NumPy, CuPy, Dask): the fast path of the
    helpers below; an Array API array (array-api-strict) has only the standard's functions."""
    return type(arr) is np.ndarray or isinstance(arr, np.generic) or is_dask(arr) or is_cupy(arr)


def reshape(arr: Any, shape: Any) -> Any:
    """``arr.reshape(shape)`` in any backend (the standard's ``reshape`` function for Array
    API arrays, which have no methods)."""
    if _native(arr):
        return arr.reshape(shape)
    return namespace(arr).reshape(arr, tuple(shape))


def transpose(arr: Any, axes: Any = None) -> Any:
    """``arr.transpose(axes)`` (reversed axes for None) in any backend (``permute_dims``)."""
    if _native(arr):
        return arr.transpose(axes)
    if axes is None:
        axes = tuple(range(arr.ndim))[::-1]
    return namespace(arr).permute_dims(arr, tuple(axes))


def swapaxes(arr: Any, a: int, b: int) -> Any:
    """``arr.swapaxes(a, b)`` in any backend."""
    if _native(arr):
        return arr.swapaxes(a, b)
    axes = list(range(arr.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return namespace(arr).permute_dims(arr, tuple(axes))


def moveaxis(arr: Any, source: Any, destination: Any) -> Any:
    """``np.moveaxis`` in any backend (the standard's ``moveaxis``)."""
    if _native(arr):
        return np.moveaxis(arr, source, destination)
    return namespace(arr).moveaxis(arr, source, destination)


def asum(arr: Any, axis: Any = None, keepdims: bool = False, dtype: Any = None) -> Any:
    """``arr.sum(axis, keepdims=..., dtype=...)`` in any backend. The result keeps ``arr``'s
    dtype for floats when ``dtype`` is None (the standard would too; NumPy does)."""
    if _native(arr):
        return arr.sum(axis=axis, keepdims=keepdims, dtype=dtype)
    xp = namespace(arr)
    if isinstance(axis, list):
        axis = tuple(axis)
    return xp.sum(arr, axis=axis, keepdims=keepdims,
                  dtype=_dtype_for(arr, to_np_dtype(dtype)) if dtype is not None else None)


def like(value: Any, arr: Any, dtype: Any = None) -> Any:
    """``value`` (a NumPy array, a list or a scalar) as an array of ``arr``'s library and
    device (``dtype`` a NumPy dtype, default: the value's own). NumPy arrays are returned as
    they are for NumPy (and joined as constants for Dask)."""
    if type(arr) is np.ndarray or is_dask(arr):
        return np.asarray(value, dtype=dtype)
    if is_cupy(arr):
        import cupy

        return cupy.asarray(value, dtype=dtype)
    v = np.asarray(value, dtype=dtype)
    return namespace(arr).asarray(v)


def np_dtype_of(arr: Any) -> np.dtype:
    """The NumPy dtype of any backend's array."""
    d = arr.dtype
    if isinstance(d, np.dtype):
        return d
    nd = getattr(d, "_np_dtype", None)
    if nd is None:
        raise TypeError(f"dyngrad does not know the dtype {d!r} of a {type(arr).__name__}")
    return np.dtype(nd)


# ---- the functions outside the standard, per backend
def _scipy_special(name: str) -> Any:
    import scipy.special

    return getattr(scipy.special, name)


def _cupy_special(name: str) -> Any:
    import cupyx.scipy.special

    return getattr(cupyx.scipy.special, name)


def _dask_blocks(fn: Any) -> Any:
    """``fn`` (a NumPy function of one array, elementwise) applied block by block, lazily."""

    def apply(x: Any, *args: Any) -> Any:
        return x.map_blocks(fn, *args, dtype=x.dtype)

    return apply


def _np_sliding(x: Any, window: Any, axis: Any) -> Any:
    return np.lib.stride_tricks.sliding_window_view(x, window, axis=axis)


def _cupy_sliding(x: Any, window: Any, axis: Any) -> Any:
    import cupy

    return cupy.lib.stride_tricks.sliding_window_view(x, window, axis=axis)


def _dask_sliding(x: Any, window: Any, axis: Any) -> Any:
    import dask.array as da

    return da.lib.stride_tricks.sliding_window_view(x, window, axis=axis)


def _np_solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    import scipy.linalg

    return scipy.linalg.solve_triangular(a, b, lower=lower)


def _cupy_solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    import cupyx.scipy.linalg

    return cupyx.scipy.linalg.solve_triangular(a, b, lower=lower)


def _dask_solve_triangular(a: Any, b: Any, lower: bool = False) -> Any:
    import dask.array as da

    return da.linalg.solve_triangular(a, b, lower=lower)


def _fft(name: str, lib: str) -> Any:
    def call(x: Any, *args: Any, **kwargs: Any) -> Any:
        if lib == "numpy":
            mod: Any = np.fft
        elif lib == "cupy":
            import cupy

            mod = cupy.fft
        elif lib == "dask":
            import dask.array as da

            mod = da.fft
        else:  # the standard's fft extension
            mod = namespace(x).fft
        return getattr(mod, name)(x, *args, **kwargs)

    return call


_SPECIAL = ("erf", "erfc", "erfinv", "gammaln", "digamma", "i0", "i0e", "i1", "i1e", "ndtri", "expit", "log_ndtr")

#: name -> {backend -> function}: the functions outside the Array API standard that ops may
#: call (through :func:`nonstandard`). Each entry is tested on NumPy and Dask against the
#: NumPy/SciPy function (tests/backends/test_namespace.py) and on CuPy on a GPU.
NONSTANDARD: dict[str, dict[str, Any]] = {
    **{n: {"numpy": functools.partial(lambda n, *a: _scipy_special(n)(*a), n),
           "cupy": functools.partial(lambda n, *a: _cupy_special(n)(*a), n),
           "dask": functools.partial(lambda n, x: _dask_blocks(_scipy_special(n))(x), n)}
       for n in _SPECIAL},
    "sliding_window_view": {"numpy": _np_sliding, "cupy": _cupy_sliding, "dask": _dask_sliding},
    "solve_triangular": {"numpy": _np_solve_triangular, "cupy": _cupy_solve_triangular,
                         "dask": _dask_solve_triangular},
    **{n: {lib: _fft(n, lib) for lib in ("numpy", "cupy", "dask", "array_api")}
       for n in ("fft", "ifft", "rfft", "irfft", "fftn", "ifftn", "rfftn", "irfftn")},
}


def nonstandard(name: str, *arrays: Any) -> Any:
    """The backend's version of a function outside the Array API standard.

    Args:
        name (str): a key of :data:`NONSTANDARD` (``'erf'``, ``'gammaln'``,
            ``'sliding_window_view'``, ``'solve_triangular'``, ``'rfft'``, ...).
        *arrays: the arrays it will be called on (their backend picks the entry).
    Returns:
        callable: scipy.special's / NumPy's function for NumPy arrays, cupyx.scipy's for
        CuPy, a lazy ``map_blocks`` (or dask.array's own) for Dask, the standard's ``fft``
        extension for another Array API library.
    Raises:
        TypeError: when the arrays mix backends, or the backend has no such function
            (naming both).
        KeyError: for a name that is not in the table.

    Example:
        >>> import numpy as np
        >>> from dyngrad import _backend as B
        >>> float(B.nonstandard("erf", np.ones(()))(np.float64(0.5)))  # doctest: +ELLIPSIS
        0.5204998778...
    """
    entry = NONSTANDARD[name]
    xp = namespace(*arrays)
    lib = "numpy" if xp is np else backend_name(next(a for a in arrays if not _is_constant(a) and
                                                     not isinstance(a, np.ndarray)))
    fn = entry.get(lib) or entry.get("array_api")
    if fn is None:
        raise TypeError(f"{name} is not available for {lib} arrays (it is outside the Python Array API "
                        f"standard; dyngrad has it for {', '.join(sorted(entry))}): docs/backends.md")
    return fn


def _is_foreign_array(obj: Any) -> bool:
    """An array of a library other than NumPy (it has ``__array_namespace__``, or is Dask's
    or CuPy's)."""
    return hasattr(obj, "__array_namespace__") or (hasattr(obj, "shape") and hasattr(obj, "dtype") and
                                                   _module_root(obj) in ("dask", "cupy"))


def _dtype_for(like: Any, nd: Any) -> Any:
    """The dtype object of ``like``'s library for the NumPy dtype ``nd`` (NumPy's own for
    NumPy, CuPy and Dask; array-api-strict's for it)."""
    if nd is None or isinstance(like, np.ndarray) or is_dask(like) or is_cupy(like):
        return nd
    return getattr(namespace(like), np.dtype(nd).name)


def foreign_asarray(obj: Any, dtype: Any = None) -> Any:
    """A CuPy, Dask or Array API array as a Tensor's array, in its own library: cast to
    ``dtype`` when given, else float dtypes kept (float16/32/64) and other integers made
    int64, as :func:`asarray` does for NumPy arrays.

    Raises:
        TypeError: for a dtype dyngrad has no category for (complex, strings)."""
    if is_dask(obj):
        fix_dask_tokens()
    cur = np_dtype_of(obj)
    want = to_np_dtype(dtype) if dtype is not None else None
    if want is None:
        if cur not in _FROM_NP:
            if cur.kind == "f":
                want = np.dtype(np.float64)
            elif cur.kind in "iu":
                want = np.dtype(np.int64)
            else:
                from_np_dtype(cur)
    if want is None or want == cur:
        return obj
    return namespace(obj).astype(obj, _dtype_for(obj, want))


def asarray_any(obj: Any, dtype: Any = None) -> Any:
    """``np.asarray(obj, dtype)`` for NumPy data (the same call, after one type check); an
    array of another backend stays there (cast with its own ``astype`` when ``dtype``
    differs). What ops call where they used ``np.asarray`` on a computed result."""
    if type(obj) is np.ndarray or isinstance(obj, (np.ndarray, np.generic, bool, int, float, list, tuple)) \
            or not hasattr(obj, "dtype"):
        return np.asarray(obj, dtype=dtype)
    if dtype is None or np_dtype_of(obj) == np.dtype(to_np_dtype(dtype)):
        return obj
    return namespace(obj).astype(obj, _dtype_for(obj, to_np_dtype(dtype)))


def copy(arr: Any) -> Any:
    """A copy of ``arr`` in its library (a Dask array is immutable: itself)."""
    if is_cupy(arr):
        return arr.copy()
    if isinstance(arr, np.ndarray):
        return np.array(arr, copy=True)
    if is_dask(arr):
        return arr
    return namespace(arr).asarray(arr, copy=True)


def accumulate(old: Any, new: Any) -> Any:
    """``old += new`` for a non-NumPy gradient: in place for CuPy, a new array (lazy for
    Dask) for the immutable ones; returns the array to keep."""
    if is_cupy(old):
        import cupy

        cupy.add(old, new, out=old, casting="unsafe")
        return old
    xp = namespace(old, new)
    out = old + new
    return out if np_dtype_of(out) == np_dtype_of(old) else xp.astype(out, old.dtype)


# ---------------------------------------------------------------------------- devices (CuPy)
def _cupy() -> Any:
    """The cupy module, or None when it is not installed (or fails to load)."""
    try:
        import cupy
    except Exception:  # ImportError, or a CUDA library missing at import
        return None
    return cupy


def cuda_device_count() -> int:
    """How many GPUs CuPy finds (0 without CuPy, or without a driver or a GPU)."""
    cupy = _cupy()
    if cupy is None:
        return 0
    try:
        return int(cupy.cuda.runtime.getDeviceCount())
    except Exception:  # cupy's CUDARuntimeError: no driver, no device
        return 0


def parse_device(device: Any) -> tuple[str, int | None]:
    """``'cpu'``, ``'cuda'``, ``'cuda:1'``, a device object (``.type``, ``.index``) or an int
    (a GPU index, as PyTorch) -> ``(type, index)``. Raises RuntimeError for anything else."""
    if isinstance(device, int) and not isinstance(device, bool):
        return "cuda", device
    typ = getattr(device, "type", None)
    if isinstance(typ, str):
        return typ, getattr(device, "index", None)
    s = str(device)
    kind, _, idx = s.partition(":")
    if kind not in ("cpu", "cuda", "meta") or (idx and not idx.isdigit()):
        raise RuntimeError(f"Expected one of cpu, cuda, meta device type at start of device string: {s}")
    return kind, (int(idx) if idx else None)


def check_cuda(index: int | None) -> int:
    """The GPU index to use for ``cuda`` / ``cuda:index`` (the current device for None).

    Raises:
        RuntimeError: without CuPy or a GPU (as PyTorch's "Torch not compiled with CUDA"),
            or for an index past the last GPU."""
    n = cuda_device_count()
    if n == 0:
        raise RuntimeError(
            "dyngrad: device 'cuda' is not available: it needs CuPy and a GPU (pip install "
            "'dyngrad[cuda]'); dyngrad.cuda.is_available() is False here. docs/backends.md")
    if index is None:
        return int(_cupy().cuda.runtime.getDevice())
    if not 0 <= index < n:
        raise RuntimeError(f"CUDA error: invalid device ordinal (cuda:{index}; {n} GPU(s) found)")
    return index


def array_device(arr: Any) -> tuple[str, int | None]:
    """``('cuda', n)`` for a CuPy array on GPU n (a Dask array of CuPy chunks too); ``('cpu',
    None)`` for NumPy, Dask (of NumPy chunks) and other host arrays."""
    if type(arr) is np.ndarray:
        return "cpu", None
    if is_cupy(arr):
        return "cuda", int(arr.device.id)
    if is_dask(arr) and is_cupy(getattr(arr, "_meta", None)):
        return "cuda", None
    return "cpu", None


def to_device(arr: Any, device: Any) -> Any:
    """``arr`` on ``device``: ``'cpu'`` copies a CuPy array to the host (NumPy), and leaves
    NumPy, Dask and other host arrays as they are; ``'cuda[:n]'`` copies to GPU n as a CuPy
    array (a Dask array gets CuPy chunks, lazily).

    Raises:
        RuntimeError: for ``cuda`` without CuPy or a GPU, or an unknown device."""
    kind, index = parse_device(device)
    if kind == "cpu":
        if is_cupy(arr):
            return arr.get()
        if is_dask(arr) and is_cupy(getattr(arr, "_meta", None)):
            return arr.map_blocks(lambda b: b.get(), dtype=arr.dtype)
        return arr
    if kind != "cuda":
        raise RuntimeError(f"dyngrad: cannot move an array to device {device!r}")
    idx = check_cuda(index)
    cupy = _cupy()
    if is_dask(arr):
        return arr.map_blocks(cupy.asarray, dtype=arr.dtype)
    if is_cupy(arr) and int(arr.device.id) == idx:
        return arr
    with cupy.cuda.Device(idx):
        return cupy.asarray(arr if is_cupy(arr) else to_host(arr))


def _has_dask(args: Any) -> bool:
    for a in args:
        if type(a) is np.ndarray:
            continue
        if isinstance(a, (tuple, list)):
            if _has_dask(a):
                return True
        elif is_dask(a):
            return True
    return False


def lazy_kernel(kernel: Any, shape: tuple[int, ...], dt: Any, *args: Any) -> Any:
    """``kernel(*args)`` (a NumPy function returning a ``shape``, ``dt`` array), as one lazy
    Dask task on the whole arrays when an argument (or an element of a tuple argument) is a
    Dask array; called directly otherwise. For the kernels that have no chunked form in Dask
    (scatter-adds ``np.add.at``, index assignment): correct and lazy, not chunk-parallel."""
    if not _has_dask(args):
        return kernel(*args)
    import dask
    import dask.array as da

    return da.from_delayed(dask.delayed(kernel, pure=True)(*args), shape, dtype=dt)


def c_contiguous(arr: Any) -> bool:
    """``arr.flags.c_contiguous`` for NumPy (and CuPy); True for Dask and Array API arrays,
    which have no memory layout to see (their reshape never fails for layout)."""
    flags = getattr(arr, "flags", None)
    return True if flags is None else bool(flags.c_contiguous)


def writeable(arr: Any) -> bool:
    """``arr.flags.writeable`` for NumPy (and CuPy): what every in-place op checks first.

    Raises:
        RuntimeError: for a Dask or Array API array: they are immutable, and writing into
            one would write into a computed copy and be lost (a silently wrong number), so
            in-place ops refuse them (docs/backends.md)."""
    flags = getattr(arr, "flags", None)
    if flags is None:
        raise RuntimeError(
            f"in-place operations are not supported on {backend_name(arr)} tensors ({backend_name(arr)} arrays are "
            "immutable): use the out-of-place op (x = x + y instead of x += y, dyngrad.where or index_put instead "
            "of x[i] = v); docs/backends.md")
    return bool(flags.writeable)


def _index_shape(shape: tuple[int, ...], idx: Any) -> tuple[int, ...]:
    """The shape of ``a[idx]`` for an array of ``shape`` (no values read: Dask index arrays
    stand in as zeros of their shape; an unknown-length boolean mask raises)."""
    items = idx if isinstance(idx, tuple) else (idx,)
    sub = []
    for i in items:
        if is_dask(i):
            if np.dtype(i.dtype).kind == "b":
                raise NotImplementedError("a Dask boolean mask inside advanced indexing (its length depends on the data)")
            i = np.zeros(i.shape, dtype=np.intp)
        sub.append(i)
    return tuple(np.broadcast_to(np.zeros((), dtype=np.int8), shape)[tuple(sub)].shape)


def take(arr: Any, idx: Any) -> Any:
    """``arr[idx]``; for an index Dask cannot take chunk-wise (several index arrays, an
    n-d index array), one lazy task on the whole array (:func:`lazy_kernel`)."""
    if type(arr) is not np.ndarray and not is_dask(arr) and not is_cupy(arr):
        return arr[index_for(arr, idx)]
    try:
        return arr[idx]
    except NotImplementedError:
        if not is_dask(arr):
            raise
        return lazy_kernel(_getitem, _index_shape(arr.shape, idx), arr.dtype, arr, idx)


def index_for(arr: Any, idx: Any) -> Any:
    """``idx`` (an index: ints, slices, None, Ellipsis, NumPy integer or boolean arrays, or a
    tuple of them) made usable on ``arr``: NumPy index arrays become arrays of ``arr``'s
    library when that is an Array API library that accepts only its own arrays
    (array-api-strict). Unchanged for NumPy, CuPy and Dask."""
    if type(arr) is np.ndarray or is_dask(arr) or is_cupy(arr):
        return idx
    xp = namespace(arr)

    def conv(i: Any) -> Any:
        if isinstance(i, np.ndarray):
            return xp.asarray(i if i.dtype.kind == "b" else i.astype(np.int64))
        if isinstance(i, (list, range)):
            return conv(np.asarray(i))
        if isinstance(i, np.integer):
            return int(i)
        return i

    return tuple(conv(i) for i in idx) if isinstance(idx, tuple) else conv(idx)


def _getitem(a: Any, idx: Any) -> Any:
    return a[idx]


def dask_constant(arr: Any) -> Any:
    """A NumPy array about to join a Dask expression, C-contiguous. Dask names a NumPy
    constant by a hash of its bytes, shape and dtype but not its memory order (dask 2026.8),
    so a Fortran-ordered array (``a.T.astype(...)``) and the C-ordered array with the same
    bytes get the same key, and one silently takes the other's values. A C-ordered copy has
    its own bytes."""
    if isinstance(arr, np.ndarray) and arr.ndim > 1 and not arr.flags.c_contiguous:
        return np.ascontiguousarray(arr)
    return arr


def dask_constants(a: Any, b: Any) -> tuple[Any, Any]:
    """``a`` and ``b`` (Tensors or arrays) with a NumPy one made safe to join the other's Dask
    expression (:func:`dask_constant`); unchanged otherwise."""
    ad, bd = getattr(a, "_data", a), getattr(b, "_data", b)
    if is_dask(ad) and isinstance(bd, np.ndarray) and bd.ndim > 1 and not bd.flags.c_contiguous:
        b = type(b)._make(dask_constant(bd)) if hasattr(b, "_data") else dask_constant(bd)
    elif is_dask(bd) and isinstance(ad, np.ndarray) and ad.ndim > 1 and not ad.flags.c_contiguous:
        a = type(a)._make(dask_constant(ad)) if hasattr(a, "_data") else dask_constant(ad)
    return a, b


_dask_tokens_fixed = [False]


def fix_dask_tokens() -> None:
    """Make Dask's name for a NumPy array include its strides when it is not C-contiguous.

    Dask (2026.8) names a NumPy array by a hash of its bytes, shape and dtype, not its memory
    order, so a square array and its transpose (``a`` and ``a.T``: the same bytes) get the
    same key when they join one graph, and one silently takes the other's values (found by
    the op database: the backward of ``cumprod`` with zeros). dyngrad calls this once, when
    the first Dask tensor is made; arrays that are C-contiguous keep Dask's own name."""
    if _dask_tokens_fixed[0]:
        return
    from dask.tokenize import normalize_token

    own = normalize_token.dispatch(np.ndarray)

    def normalize_array(x: np.ndarray) -> Any:
        t = own(x)
        return t if x.flags.c_contiguous else (t, "strides", x.strides)

    normalize_token.register(np.ndarray)(normalize_array)
    _dask_tokens_fixed[0] = True


# ---- helpers added by strictC

def eye(n: int, m: int | None = None, k: int = 0, dtype: Any = None, like: Any = None) -> Any:
    """``np.eye(n, m, k, dtype)`` in ``like``'s library (NumPy for None, NumPy and Dask
    arrays: a NumPy constant joins a Dask expression)."""
    if like is None or type(like) is np.ndarray or isinstance(like, np.ndarray) or is_dask(like):
        return np.eye(n, m, k, dtype=dtype)
    if is_cupy(like):
        import cupy

        return cupy.eye(n, m, k, dtype=dtype)
    return namespace(like).eye(n, m, k=k, dtype=_dtype_for(like, dtype if dtype is not None else np.float64))


def arange(n: int, like: Any = None, dtype: Any = np.int64) -> Any:
    """``np.arange(n, dtype=dtype)`` in ``like``'s library (NumPy for NumPy and Dask)."""
    if like is None or isinstance(like, np.ndarray) or is_dask(like):
        return np.arange(n, dtype=dtype)
    if is_cupy(like):
        import cupy

        return cupy.arange(n, dtype=dtype)
    return namespace(like).arange(n, dtype=_dtype_for(like, dtype))


def diagonal(arr: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Any:
    """``np.diagonal(arr, offset, axis1, axis2)`` (the diagonal appended last) in any backend:
    the standard's ``linalg.diagonal`` after moving the two axes last."""
    if _native(arr):
        return np.diagonal(arr, offset, axis1, axis2)
    xp = namespace(arr)
    return xp.linalg.diagonal(xp.moveaxis(arr, (axis1, axis2), (-2, -1)), offset=offset)


def all_true(arr: Any) -> bool:
    """``bool(np.all(arr))`` for any backend's array: a host read of one bool (what an op
    that branches on its data does; computes a Dask array)."""
    if type(arr) is np.ndarray or is_cupy(arr) or is_dask(arr):
        return bool(np.all(arr))
    return bool(namespace(arr).all(arr))


def any_true(arr: Any) -> bool:
    """``bool(np.any(arr))`` for any backend's array (a host read of one bool)."""
    if type(arr) is np.ndarray or is_cupy(arr) or is_dask(arr):
        return bool(np.any(arr))
    xp = namespace(arr)
    return bool(xp.any(arr if kind(arr) == "b" else arr != 0))


def zeros_of(shape: tuple[int, ...], dt: Any) -> Any:
    """Zeros of ``shape`` and dtype ``dt``: a NumPy dtype gives a NumPy array; an Array API
    library's dtype object (array-api-strict's) an array of that library (found from the
    dtype object's module), so a gradient materialized from an output's recorded dtype stays
    in the output's library."""
    if isinstance(dt, np.dtype) or not hasattr(dt, "_np_dtype"):
        return np.zeros(shape, dtype=dt)
    import importlib

    return importlib.import_module(type(dt).__module__.split(".", 1)[0]).zeros(shape, dtype=dt)


# ---- helpers added by strictB
def broadcast_to(arr: Any, shape: Any) -> Any:
    """``np.broadcast_to(arr, shape)`` in any backend (the standard's ``broadcast_to`` for
    Array API arrays; NumPy's function, which dispatches to Dask and CuPy, otherwise)."""
    if _native(arr):
        return np.broadcast_to(arr, shape)
    return namespace(arr).broadcast_to(arr, tuple(shape))


def _all_native(arrays: Any) -> bool:
    return all(_native(a) or isinstance(a, (np.ndarray, bool, int, float)) for a in arrays)


def concat(arrays: Any, axis: int = 0) -> Any:
    """``np.concatenate(arrays, axis)`` in any backend (the standard's ``concat``; a NumPy
    array mixed with an Array API array is the mixing TypeError of :func:`namespace`)."""
    arrays = list(arrays)
    if _all_native(arrays):
        return np.concatenate(arrays, axis=axis)
    return namespace(*arrays).concat(arrays, axis=axis)


def stack(arrays: Any, axis: int = 0) -> Any:
    """``np.stack(arrays, axis)`` in any backend (the standard's ``stack``)."""
    arrays = list(arrays)
    if _all_native(arrays):
        return np.stack(arrays, axis=axis)
    return namespace(*arrays).stack(arrays, axis=axis)


def zeros_of_dtype(shape: tuple[int, ...], dt: Any) -> Any:
    """Zeros of ``shape`` in the array library whose dtype object ``dt`` is (a NumPy dtype
    gives NumPy zeros; array-api-strict's dtype object, which names its library, gives
    that library's zeros): what the engine materializes for an output without a gradient."""
    if isinstance(dt, np.dtype):
        return np.zeros(shape, dtype=dt)
    import importlib

    return importlib.import_module(type(dt).__module__.split(".", 1)[0]).zeros(shape, dtype=dt)


def native(arr: Any) -> bool:
    """True for a NumPy, CuPy or Dask array (or a NumPy scalar): the arrays whose methods are
    NumPy's and which ``np.*`` functions take (NumPy dispatches to CuPy and Dask); False for
    an Array API array of another library (array-api-strict), which has only the standard's
    functions (get them from :func:`namespace`). NumPy subclasses (vmap's stand-in arrays)
    count as NumPy."""
    return _native(arr) or isinstance(arr, np.ndarray)


def xp_for(*arrays: Any) -> Any:
    """:mod:`numpy` when every array is native (:func:`native`; ``np.*`` dispatches to CuPy
    and Dask) or a Python scalar, else the Array API namespace of the arrays (raising the
    mixing TypeError of :func:`namespace`). Ops write ``xp = B.xp_for(d)`` and keep their
    NumPy code on the ``xp is np`` branch."""
    for a in arrays:
        if type(a) is not np.ndarray and a is not None and not isinstance(a, (bool, int, float, np.ndarray)) \
                and not _native(a):
            return namespace(*arrays)
    return np


def dtype_for(like: Any, nd: Any) -> Any:
    """The dtype object of ``like``'s library for ``nd`` (a NumPy dtype or anything
    :func:`to_np_dtype` takes; None stays None): NumPy's own for NumPy, CuPy and Dask,
    array-api-strict's dtype object for an array-api-strict array."""
    if nd is None:
        return None
    return _dtype_for(like, to_np_dtype(nd))
# ---- helpers added by strictA (issue 15: elementwise, arithmetic, activation, special ops)
def array_module(*arrays: Any) -> Any:
    """The module whose functions an elementwise op calls on ``arrays``: :mod:`numpy` for
    NumPy arrays (one ``type`` check each), and for CuPy and Dask arrays too (NumPy's
    functions dispatch to them through ``__array_ufunc__``/``__array_function__``, as the ops
    always did); the array's own namespace (:func:`namespace`) for any other Array API array
    (array-api-strict), so only the standard's names may be called on the result (NumPy 2
    has them all: ``pow``, ``divide``, ``concat``, ``permute_dims``, ``astype``...).

    Args:
        *arrays: arrays, Python or NumPy scalars, None.
    Returns:
        module: :mod:`numpy` or an Array API namespace.
    Raises:
        TypeError: when the arrays come from more than one library (:func:`namespace`).

    Example:
        >>> import numpy as np, array_api_strict as xp
        >>> from dyngrad import _backend as B
        >>> B.array_module(np.ones(2), 2.0) is np, B.array_module(xp.ones(2)).__name__
        (True, 'array_api_strict')
    """
    for a in arrays:
        t = type(a)
        if t is not np.ndarray and t is not float and t is not int and t is not bool and a is not None:
            break
    else:
        return np
    xp = namespace(*arrays)
    return np if xp is np or xp.__name__.startswith("array_api_compat") else xp


def std_operand(v: Any, nd: np.dtype, ref: Any) -> Any:
    """An operand of an Array API function on arrays of NumPy dtype ``nd`` (``ref`` one of
    them): an array cast to ``nd`` (itself when it already is), a Python or NumPy scalar as
    the Python number of ``nd``'s kind (the standard promotes a Python scalar only with arrays
    of its own kind: ``True + float_array`` raises there), a NumPy array as a constant of
    ``ref``'s library. ``None`` stays None."""
    if v is None:
        return None
    if isinstance(v, (bool, int, float, np.generic)):
        k = nd.kind
        return bool(v) if k == "b" else (float(v) if k == "f" else int(v))
    if isinstance(v, np.ndarray):
        return like(v, ref, nd)
    return astype(v, nd, copy=False)


def std_operands(a: Any, b: Any, nd: np.dtype) -> tuple[Any, Any, Any]:
    """``(module, a, b)`` for a binary elementwise function computing in NumPy dtype ``nd``:
    :mod:`numpy` and ``a``, ``b`` unchanged for NumPy (CuPy, Dask) operands; for an Array API
    library, its namespace and both operands made acceptable to it (:func:`std_operand`:
    arrays cast to ``nd``, Python scalars of ``nd``'s kind)."""
    xp = array_module(a, b)
    if xp is np:
        return np, a, b
    ref = a if hasattr(a, "shape") and not isinstance(a, np.ndarray) else b
    return xp, std_operand(a, nd, ref), std_operand(b, nd, ref)


def is_api_array(x: Any) -> bool:
    """True for an array of an Array API library other than NumPy, CuPy and Dask (one whose
    arrays have only the standard's functions: array-api-strict)."""
    return type(x) is not np.ndarray and hasattr(x, "__array_namespace__") and not isinstance(x, np.ndarray) \
        and not is_dask(x) and not is_cupy(x)
