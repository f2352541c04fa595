"""Helpers shared by the op families: unwrapping operands, dtype rules, dims, views."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..autograd import grad_mode
from ..autograd.function import size_mismatch
from ..autograd.graph import rebase_retain_grad
from ..tensor import Tensor
from ._view_inplace import mark_nograd_view

_state = grad_mode.state  # the thread's context: grad mode and the interpreter stack


def wrap(arr: Any) -> Tensor:
    """Wrap a NumPy result (array or NumPy scalar) as a fresh Tensor (an array of another
    backend, CuPy, Dask, Array API, is kept as it is: _backend.wrap_result)."""
    if not isinstance(arr, np.ndarray):
        arr = B.wrap_result(arr)
    return Tensor._make(arr)


def data_of(x: Any) -> Any:
    """``x._data`` for a Tensor; an ndarray for lists/arrays; Python scalars unchanged."""
    if isinstance(x, Tensor):
        return x._data
    if isinstance(x, (bool, int, float)):
        return x
    return B.asarray(x)


def to_tensor(x: Any, like: Tensor | None = None) -> Tensor:
    """Coerce an operand to a Tensor (scalars take ``like``'s dtype when given)."""
    if isinstance(x, Tensor):
        return x
    if like is not None and isinstance(x, (bool, int, float)):
        return Tensor._make(B.asarray_any(x, dtype=B.result_type(like, x)))
    return Tensor._make(B.asarray(x))


def binary_operands(a: Any, b: Any) -> tuple[Any, Any, np.dtype]:
    """Unwrap two operands and cast tensors to PyTorch's promoted dtype (Python scalars
    stay Python scalars: NumPy 2 treats them as weakly typed, as PyTorch does)."""
    ta = isinstance(a, Tensor)
    tb = isinstance(b, Tensor)
    if ta and tb:
        ad, bd = a._data, b._data
        if type(ad) is type(bd) and ad.dtype == bd.dtype:
            return ad, bd, (ad.dtype if type(ad) is np.ndarray else B.np_dtype_of(ad))
        B.check_same_backend("binary op", ad, bd)  # (mixing libraries: a TypeError naming both)
        a, b = B.dask_constants(a, b)
    elif ta and type(b) in _SCALARS:
        # fast path: a Python scalar changes the dtype only when of a higher category
        ad = a._data
        if _SCALARS[type(b)] <= _CATEGORY[B.kind(ad)]:
            return ad, b, (ad.dtype if type(ad) is np.ndarray else B.np_dtype_of(ad))
    elif tb and type(a) in _SCALARS:
        bd = b._data
        if _SCALARS[type(a)] <= _CATEGORY[B.kind(bd)]:
            return a, bd, (bd.dtype if type(bd) is np.ndarray else B.np_dtype_of(bd))
    rt = B.result_type(a, b)
    return _cast(a, rt), _cast(b, rt), rt


_SCALARS = {bool: 0, int: 1, float: 2}
_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}


def _cast(x: Any, rt: np.dtype) -> Any:
    if isinstance(x, Tensor):
        d = x._data
        if type(d) is np.ndarray:
            return d if d.dtype == rt else d.astype(rt)
        return B.astype(d, rt, copy=False)
    if isinstance(x, (bool, int, float)):
        return x
    arr = B.asarray(x)
    return B.astype(arr, rt, copy=False)


def cast_to(out: Any, rt: np.dtype) -> Any:
    """``out`` as dtype ``rt`` (a NumPy dtype), in its own library; ``out`` itself when it
    already is (what ops write after a NumPy call whose result dtype may differ)."""
    if type(out) is np.ndarray:
        return out if out.dtype == rt else out.astype(rt)
    return B.astype(out, rt, copy=False)


def xp_of(*arrays: Any) -> Any:
    """The array namespace of ``arrays`` (:func:`dyngrad._backend.namespace`): :mod:`numpy`
    after one type check when the first is a NumPy array and the rest NumPy arrays or
    Python scalars."""
    return B.namespace(*arrays)


def float_dtype(dt: np.dtype) -> np.dtype:
    """Integer and bool inputs of floating ops compute in the default float dtype."""
    return dt if dt.kind == "f" else B.get_default_dtype().np


def float_data(x: Tensor) -> np.ndarray:
    d = x._data
    if type(d) is np.ndarray:
        return d if d.dtype.kind == "f" else d.astype(B.get_default_dtype().np)
    return d if B.kind(d) == "f" else B.astype(d, B.get_default_dtype().np)


def norm_dim(dim: int, ndim: int, op: str) -> int:
    """Wrap a possibly negative dim; IndexError naming the op and the valid range."""
    n = max(ndim, 1)
    if not isinstance(dim, (int, np.integer)) or isinstance(dim, bool):
        raise TypeError(f"{op}(): argument 'dim' must be int, not {type(dim).__name__}")
    if not -n <= dim < n:
        raise IndexError(
            f"{op}(): Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return int(dim) % n


def norm_dims(dim: Any, ndim: int, op: str) -> tuple[int, ...] | None:
    """None (all dims), an int or a sequence of ints -> a sorted tuple of wrapped dims."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        return (norm_dim(dim, ndim, op),)
    dims = tuple(norm_dim(d, ndim, op) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"{op}(): dim {list(dim)} appears multiple times in the list of dims")
    if not dims:
        return None
    return tuple(sorted(dims))


def make_view(out: Tensor, base: Tensor) -> Tensor:
    """Mark ``out`` as a view of ``base`` when their memory overlaps: they share the
    version counter, so an in-place change of either invalidates saved copies of both."""
    od, bd = out._data, base._data
    if np.may_share_memory(od, bd) if type(od) is np.ndarray and type(bd) is np.ndarray else \
            B.may_share_memory(od, bd):
        out._vc = base._vc
        # A leaf that requires grad is the root of its views' autograd history, even when
        # it is itself a view of a plain tensor (``arange(6).reshape(2, 3).requires_grad_()``).
        root = base._base is None or (base._requires_grad and base.grad_fn is None)
        out._base = base if root else base._base
        out._view_ver = out._vc[0]  # the version its history belongs to (see refresh_view)
        if base._requires_grad:  # (no_grad: no history will be recorded; _view_inplace.py)
            mark_nograd_view(out, base)
    return out


def shape_arg(shape: tuple) -> tuple[int, ...]:
    """Accept ``f(2, 3)`` and ``f((2, 3))`` as PyTorch does."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    try:
        return tuple(int(s) for s in shape)
    except TypeError:
        raise TypeError(f"shape must be ints, got {shape!r}") from None


def is_wrapper(x: Any) -> bool:
    """True for a transform's wrapper tensor (vmap's batched tensors): its ``._data`` does not
    hold its values, which only its Functions' rules can read."""
    return isinstance(x, Tensor) and x._is_wrapper


def recording(*args: Any) -> bool:
    """True when an op on ``args`` records a graph (grad mode on, some input requires grad).

    Also True for a transform's wrapper tensor (``Tensor._is_wrapper``: vmap's batched
    tensors), whatever the grad mode: the no-graph fast paths write into ``._data``, which
    does not hold a wrapper's values, so its ops must go through their Functions."""
    if _state.interpreters:
        for a in args:
            if isinstance(a, Tensor) and a._is_wrapper:
                return True
    if not _state.enabled:
        return False
    for a in args:
        if isinstance(a, Tensor):
            if a._requires_grad:
                return True
            if a._base is not None and a._base._requires_grad:  # a stale view (_view_inplace.py)
                return True
    return False


def inplace(fn: Any, self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Run out-of-place ``fn(self, *args)`` and write the result into ``self``'s memory.

    When a graph is recorded, the op is applied to a copy that carries ``self``'s old
    history and ``self`` takes over the new history (its ``grad_fn`` becomes the op's node,
    whose input edge is the old history). The version counter is bumped either way.

    Raises:
        RuntimeError: on a leaf (or a view of a leaf) that requires grad (outside no_grad),
            when the result's dtype cannot be cast to ``self``'s, or when an input partially
            overlaps ``self``'s memory (:func:`check_no_partial_overlap`). In-place ops on views
            rebase the base's history (see ``ops/_view_inplace.py``).
    """
    if not getattr(fn, "_own_overlap_check", False):  # (setitem_ compares the written region)
        check_no_partial_overlap(self, args, kwargs)
    stack = _state.interpreters
    if stack:  # a transform may own these tensors (vmap's batched values): it writes them
        for interp in reversed(stack):
            out = interp.process_inplace(fn, self, args, kwargs)
            if out is not NotImplemented:
                return out
    rec = recording(self, *args)
    if rec:
        self._check_inplace()
        if self._base is not None:  # rebase the base's history (ops/_view_inplace.py)
            from ._view_inplace import inplace_on_view  # deferred: it imports ops.indexing

            return inplace_on_view(fn, self, *args, **kwargs)
        alias = Tensor._make(self._data.copy())
        alias.grad_fn = self.grad_fn
        alias._output_nr = self._output_nr
        alias._requires_grad = self._requires_grad
        alias._acc = self._acc
        if self.grad_fn is None and self._requires_grad:  # pragma: no cover - refused above
            alias._acc = self._acc
        for interp in stack:  # (forward mode: the copy carries self's tangent)
            interp.after_inplace(self, alias)
        result = fn(alias, *args, **kwargs)
        _write(self, result._data, fn)
        for interp in stack:  # (forward mode: self takes the result's tangent)
            interp.after_inplace(result, self)
        self.grad_fn = result.grad_fn
        self._output_nr = result._output_nr
        self._requires_grad = result._requires_grad
        rebase_retain_grad(self, alias.grad_fn, alias._output_nr)
        if result.grad_fn is not None:
            _retarget_saved_output(result.grad_fn, result, self)
        return self
    enabled = _state.enabled
    _state.enabled = False
    try:
        result = fn(self, *args, **kwargs)
    finally:
        _state.enabled = enabled
    _write(self, result._data, fn)
    for interp in stack:  # (forward mode: self takes the result's tangent)
        interp.after_inplace(result, self)
    return self


def _write(self: Tensor, value: np.ndarray, fn: Any) -> None:
    if value.dtype != self._data.dtype and not np.can_cast(value.dtype, self._data.dtype, "same_kind"):
        raise RuntimeError(
            f"{getattr(fn, '__name__', 'op')}_: result type {B.from_np_dtype(value.dtype).name} "
            f"can't be cast to the desired output type {self.dtype.name}"
        )
    if not B.writeable(self._data):
        raise RuntimeError(
            f"{getattr(fn, '__name__', 'op')}_: the tensor's memory is read-only (an expanded or "
            "broadcast view); clone() it first"
        )
    try:
        np.copyto(self._data, value, casting="unsafe")
    except ValueError:
        raise RuntimeError(inplace_shape_error(self._data.shape, value.shape)) from None
    self._vc[0] += 1


def inplace_shape_error(out: tuple, other: tuple) -> str:
    """PyTorch's message for an in-place op whose operands do not broadcast to ``out``."""
    msg = size_mismatch(tuple(out), tuple(other))
    if msg is not None:
        return msg
    return f"output with shape {list(out)} doesn't match the broadcast shape {list(np.broadcast_shapes(out, other))}"


def _retarget_saved_output(node: Any, result: Tensor, self: Tensor) -> None:
    """The op may have saved its output (``result``); it lives on in ``self``'s memory
    now, so point the saved copy at ``self``'s array and version counter."""
    saved = node._saved
    if not saved:
        return
    for s in saved:
        if s is not None and s.is_output and s.tensor is not None and s.tensor._data is result._data:
            s.tensor._data = self._data
            s.tensor._vc = self._vc
            s.version = self._vc[0]


def require_tensor(op: str, value: Any, name: str = "input", position: int = 1) -> None:
    """PyTorch's argument check of an op whose ``name`` argument must be a Tensor (a Python
    number there is refused, as by PyTorch's argument parser): a TypeError naming the
    function, the argument and its position, and the type given."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")


_TORCH_DTYPE_NAMES = {"b": "Bool", "i1": "Char", "i2": "Short", "i4": "Int", "i8": "Long", "u1": "Byte", "u2": "UInt16",
                      "u4": "UInt32", "u8": "UInt64"}


def require_floating(op: str, input: Any) -> None:
    """PyTorch's dtype check of an op with floating-point kernels only (``silu``, ``gelu``,
    ``softmax``, ...): a bool or integer ``input`` is a NotImplementedError naming the op and
    the dtype (PyTorch's: ``"silu_cpu" not implemented for 'Long'``)."""
    a = getattr(input, "_data", None)
    d = None if a is None else B.np_dtype_of(a)
    if d is not None and d.kind in "biu":
        name = _TORCH_DTYPE_NAMES.get("b" if d.kind == "b" else f"{d.kind}{d.itemsize}", str(d))
        raise NotImplementedError(f"{op}(): not implemented for '{name}' (dtype {d}): it takes floating-point "
                                  "tensors only, as PyTorch")


def refuse_bool(op: str, input: Any, kernel: str | None = None, exc: type = RuntimeError) -> None:
    """PyTorch's refusal of a bool ``input`` (``relu``, ``hardtanh``: a RuntimeError;
    ``threshold``, ``softsign``: a NotImplementedError, ``exc``)."""
    a = getattr(input, "_data", None)
    if a is not None and B.kind(a) == "b":
        raise exc(f"{op}(): Boolean inputs not supported for {kernel or op}")


_OVERLAP_MESSAGE = ("unsupported operation: some elements of the input tensor and the written-to tensor refer to a "
                    "single memory location. Please clone() the tensor before performing the operation.")


def _dense_extent(a: np.ndarray) -> tuple[int, int] | None:
    """The byte range ``[start, end)`` of ``a`` when its elements tile it without gaps or
    repeats (PyTorch's "non-overlapping and dense"), else None (PyTorch then does not check)."""
    if a.size == 0:
        return None
    start = a.__array_interface__["data"][0]
    if a.flags.c_contiguous or a.flags.f_contiguous:
        return start, start + a.nbytes
    expected = a.itemsize
    for st, n in sorted((s, n) for s, n in zip(a.strides, a.shape) if n != 1):
        if st != expected:
            return None
        expected *= n
    return start, start + a.nbytes


def check_no_partial_overlap(self: Tensor, args: tuple, kwargs: dict) -> None:
    """PyTorch's check of an in-place op (and of ``copy_``): an input that shares memory with
    the written-to tensor must be laid out exactly as it (``x.add_(x)``), not partially
    overlap it (``x[1:].add_(x[:-1])``, ``x.add_(x.t())``): the result would depend on the
    order the elements are written in. As PyTorch, only tensors whose elements tile their
    memory densely are compared.

    Raises:
        RuntimeError: PyTorch's message ("unsupported operation: some elements of the input
            tensor and the written-to tensor refer to a single memory location ...").
    """
    out = self._data
    if type(out) is not np.ndarray:
        return
    ext = None
    for a in (*args, *kwargs.values()) if kwargs else args:
        if not isinstance(a, Tensor) or a is self:
            continue
        d = a._data
        if type(d) is not np.ndarray or d is out or (d.base is None and out.base is None) or \
                not np.may_share_memory(d, out):  # (two arrays owning their memory: none shared)
            continue
        if d.shape == out.shape and d.strides == out.strides and \
                d.__array_interface__["data"][0] == out.__array_interface__["data"][0]:
            continue  # the same elements in the same order: a full overlap is fine
        if ext is None:
            ext = _dense_extent(out)
            if ext is None:
                return
        other = _dense_extent(d)
        if other is not None and other[0] < ext[1] and ext[0] < other[1]:
            raise RuntimeError(_OVERLAP_MESSAGE)
