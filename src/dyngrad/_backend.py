"""The one seam between dyngrad and the array library.

Everything that creates arrays, maps dtypes or reduces a broadcast gradient lives here, so a
later CuPy or Dask backend changes this file and nothing else. Inside ops, call ``np.*``
functions on the arrays you were given (NumPy dispatches them to other array libraries) and
create new arrays only through the helpers below.
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
    out = grad.sum(axis=tuple(axes), keepdims=True) if axes else grad
    if lead:
        out = out.reshape(shape)
    return out


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
    inference: Python floats give the default dtype, ints int64, bools bool."""
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
    return np.zeros(shape, dtype=dtype)


def zeros_like(arr: np.ndarray, dtype: Any = None) -> np.ndarray:
    return np.zeros_like(arr, dtype=dtype)


def ones_like(arr: np.ndarray, dtype: Any = None) -> np.ndarray:
    return np.ones_like(arr, dtype=dtype)


def full(shape: tuple[int, ...], value: Any, dtype: np.dtype) -> np.ndarray:
    return np.full(shape, value, dtype=dtype)


def scalar_array(value: Any, dtype: np.dtype) -> np.ndarray:
    return np.asarray(value, dtype=dtype)


def prod(shape: tuple[int, ...]) -> int:
    return math.prod(shape)
