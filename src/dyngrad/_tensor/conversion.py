"""Tensor methods that convert: to NumPy and Python values (``numpy()``, ``item()``,
``float(x)``, ``bool(x)``, ``len``, iteration), printing, pickling and copying, the dtype and
device conversions (``to()``, ``double()``, ``long()``, ``cpu()``) and new tensors with this
one's dtype (``new_zeros()``, ...).

``to(dtype)`` records a differentiable cast (``dyngrad.ops.to_dtype``, reached as
``_core._ops``: the ops are built on Tensor, so dyngrad/tensor.py imports them at its end,
once Tensor exists; see dyngrad/_tensor/__init__.py). The Tensor class itself is
``_core.Tensor`` for the same reason.
"""

from __future__ import annotations

import builtins
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

import dyngrad.tensor as _core  # its end imports the ops (see _tensor/__init__.py)

from .. import _backend as B
from .._format import format_tensor
from . import numpy_function, numpy_ufunc
from .metadata import MetaArray, check_device, is_meta_device, to_meta

if TYPE_CHECKING:
    from typing_extensions import Self  # for type checkers only (typing.Self is 3.11+)

    from ..autograd.graph import Node
    from ..tensor import Tensor

__all__ = ["ConversionMethods"]



# PyTorch's legacy type names (Tensor.type()), by dtype name.
_LEGACY_NAMES = {
    "float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor",
    "uint8": "ByteTensor", "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
    "complex128": "ComplexDoubleTensor",
}

def _foreign_numpy_check(t: Any) -> None:
    """``numpy()`` of a GPU tensor is a TypeError, as PyTorch's (copy to the host first)."""
    if B.array_device(t._data)[0] == "cuda":
        raise TypeError(
            f"can't convert {t.device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to "
            "host memory first.")


class ConversionMethods:
    """Conversions of :class:`dyngrad.Tensor` to NumPy, Python values, other dtypes."""

    __slots__ = ()
    # What these methods read of the rest of Tensor, for type checkers (annotations only).
    _data: np.ndarray  # a slot of Tensor (dyngrad/tensor.py)
    _requires_grad: builtins.bool
    grad_fn: Node | None
    _grad: Tensor | None
    if TYPE_CHECKING:
        @property
        def dtype(self) -> B.dtype: ...  # metadata.py
        def clone(self, *args: Any, **kwargs: Any) -> Any: ...  # shape.py
        def unbind(self, *args: Any, **kwargs: Any) -> Any: ...  # shape.py
        @classmethod
        def _make(cls, data: np.ndarray) -> Tensor: ...  # tensor.py

    # ---- to NumPy and Python values
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying ndarray (shared memory).

        Raises:
            RuntimeError: when the tensor requires grad (use ``detach().numpy()``), unless
                ``force=True``, which returns a copy.

        Args:
            force (bool): return a copy even when the tensor requires grad.
        Returns:
            numpy.ndarray: the tensor's values, sharing memory (unless ``force``).

        Example:
            >>> import dyngrad
            >>> t = dyngrad.zeros(2)
            >>> a = t.numpy()
            >>> a[0] = 1.0
            >>> t
            tensor([1., 0.])
        """
        d = self._data
        if type(d) is not np.ndarray:
            _foreign_numpy_check(self)
        if self._requires_grad:
            if force:
                return B.to_host(d).copy()
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return d if type(d) is np.ndarray or isinstance(d, np.ndarray) else B.to_host(d)

    # ---- Dask (docs/backends.md)
    def compute(self, **kwargs: Any) -> Tensor:
        """The values of a Dask tensor, computed (on the default scheduler or a
        ``dask.distributed`` Client): a Tensor holding a NumPy array, without history. A
        tensor of another backend is returned detached, as is.

        Args:
            **kwargs: passed to ``dask.compute`` (``scheduler=...``).
        Returns:
            Tensor: ``(*)``, same dtype.
        Raises:
            Nothing of its own (Dask's errors from computing propagate).

        Example:
            >>> import dyngrad, dask.array as da
            >>> dyngrad.from_dask(da.ones(2, chunks=1)).mul(3).compute()
            tensor([3., 3.], dtype=dyngrad.float64)
        """
        from ..creation import compute

        return compute(self, **kwargs)[0]  # type: ignore[no-any-return]

    def persist(self, **kwargs: Any) -> Self:
        """Compute a Dask tensor's chunks and keep them (in memory, or on a cluster's workers),
        so later ops start from them; the tensor keeps its history. Returns self (its array
        replaced by the persisted one, same values; a no-op for other backends).

        Args:
            **kwargs: passed to ``dask.persist``.
        Returns:
            Tensor: self.
        Raises:
            Nothing of its own (Dask's errors from computing propagate).

        Example:
            >>> import dyngrad, dask.array as da
            >>> x = dyngrad.from_dask(da.ones(2, chunks=1)).persist()
            >>> type(x._data).__name__
            'Array'
        """
        if B.is_dask(self._data):
            import dask

            (self._data,) = dask.persist(self._data, **kwargs)
            if any(n != n for n in self._data.shape):  # a data-dependent size (nonzero, a mask)
                self._data.compute_chunk_sizes()
        return self

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """NumPy conversion (``np.asarray(t)``, ``np.exp(t)``, ...).

        Raises:
            RuntimeError: when the tensor requires grad, as PyTorch does: a NumPy function
                would silently cut the graph (and e.g. ``dyngrad.func.grad`` would return
                zeros). Use dyngrad ops, or ``t.detach()`` for values.
        """
        if self._requires_grad:
            raise RuntimeError(
                "Can't convert a Tensor that requires grad to a NumPy array (np.asarray, "
                "np.array, or code that builds an ndarray from it): the result would silently "
                "carry no gradient. NumPy functions called on the tensor itself (np.exp(t), "
                "np.sum(t, axis=0)) are differentiable (docs/numpy.md); use "
                "tensor.detach().numpy() if you only want its values."
            )
        d = self._data if isinstance(self._data, np.ndarray) else B.to_host(self._data)
        if dtype is not None:
            return d.astype(dtype, copy=bool(copy))
        return d.copy() if copy else d

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number.

        Raises:
            RuntimeError: when the tensor has more than one element.

        Returns:
            int | float | bool: the value, of the Python type matching the dtype.

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([2.5]).item(), dyngrad.tensor(3).item()
            (2.5, 3)
        """
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        d = self._data
        return (d if isinstance(d, np.ndarray) else B.to_host(d)).reshape(()).item()  # (a Dask one: computed)

    def tolist(self) -> Any:
        """The values as (nested) Python lists of Python numbers; a number for a 0-d tensor.

        Not differentiable (Python numbers carry no history).

        Returns:
            list | number: nested ``len(shape)`` deep, of ``int``, ``float`` or ``bool``.

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([[1, 2], [3, 4]]).tolist(), dyngrad.tensor(2.5).tolist()
            ([[1, 2], [3, 4]], 2.5)
        """
        d = self._data
        return (d if isinstance(d, np.ndarray) else B.to_host(d)).tolist()

    def _one_element(self) -> Any:
        """``item()`` for ``float()``/``int()``: ValueError (PyTorch's type) unless one element."""
        if self.numel() != 1:
            raise ValueError("only one element tensors can be converted to Python scalars "
                             f"(this one has shape {list(self.shape)})")
        return self.item()

    def __float__(self) -> float:
        return float(self._one_element())

    def __int__(self) -> int:
        return int(self._one_element())

    def __index__(self) -> int:
        if B.kind(self._data) not in "iub" or self._data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self._data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self._data.size} elements is ambiguous"
            )
        return bool(self._data.reshape(()))

    def __len__(self) -> int:
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # ---- printing, pickling, copying
    def __repr__(self) -> str:
        if type(self._data) is MetaArray:
            extra = "" if self.dtype == B.get_default_dtype() else f", dtype={self.dtype}"
            extra += ", requires_grad=True" if self._requires_grad else ""
            return f"tensor(..., device='meta', size={tuple(self._data.shape)}{extra})"
        return format_tensor(self)

    def __format__(self, spec: str) -> str:
        if self._data.ndim == 0:  # as PyTorch: f"{t}" of a 0-d tensor formats its value
            return format(self.item(), spec)
        return repr(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(
            "dyngrad tensors are not pickled; use dyngrad.save(), which writes a format that "
            "cannot run code"
        )

    def __setstate__(self, state: Any) -> None:
        # what a pickle's BUILD opcode calls: tensors are never unpickled into (dyngrad.load
        # rebuilds them itself), so a file that tries to set a tensor's state is refused
        import pickle

        raise pickle.UnpicklingError("dyngrad: a pickle tried to set a tensor's state (BUILD); refused")

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment"
            )
        t = type(self)._make(self._data.copy())
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = _core.Tensor._make(self._grad._data.copy())
        memo[id(self)] = t
        return t

    # ---- dtype and device
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``; a no-op
        returns self, as in PyTorch.

        Derivative: a cast is differentiable: ``grad_input = grad_output`` cast back to
        ``self``'s dtype (``ToCopyBackward0``); an integer or bool result has no gradient.

        Args:
            *args: a dtype, a device (``"cpu"``, ``"meta"``), a Tensor (its dtype), or a device
                and a dtype.
            dtype (dtype, optional): keyword form of the dtype.
            device (str or device, optional): keyword form of the device.
            copy (bool): copy even when nothing changes. Default: ``False``.
            non_blocking (bool): accepted and ignored (one device).
        Returns:
            Tensor: ``(*)``, ``self``'s shape: ``self`` itself when nothing changes (and
            ``copy`` is False), else a new tensor of the wanted dtype.
        Raises:
            RuntimeError: for a device other than the CPU or meta.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.tensor([1.5, 2.5], requires_grad=True)
            >>> x.to(dyngrad.float64)
            tensor([1.5000, 2.5000], dtype=dyngrad.float64, grad_fn=<ToCopyBackward0>)
            >>> x.to("cpu") is x, x.to(dyngrad.zeros(1, dtype=dyngrad.int64)).dtype
            (True, dyngrad.int64)
        """
        dtype = kwargs.pop("dtype", None)
        device = kwargs.pop("device", None)
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        for a in args:
            if isinstance(a, _core.Tensor):
                dtype = a.dtype
            elif isinstance(a, (B.dtype, type, np.dtype)):
                dtype = a
            else:
                device = a
        if device is not None or type(self._data) is MetaArray:
            meta = _meta_move(self, device, dtype)
            if meta is not None:
                return meta
        if device is not None and B.parse_device(device)[0] == "cuda" or \
                device is not None and type(self._data) is not np.ndarray:
            moved = _core._ops.device.to_device(self, device)
            return moved if dtype is None else moved.to(dtype, copy=copy)
        check_device(device)
        if dtype is None or B.to_np_dtype(dtype) == self._data.dtype:
            return self.clone() if copy else self  # type: ignore[return-value]  # self: a Tensor
        return _core._ops.to_dtype(self, dtype)

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Any:
        """The legacy type name, or a cast (PyTorch's ``Tensor.type``).

        Args:
            dtype: ``None`` to ask for the name; a dtype or a legacy name such as
                ``"torch.DoubleTensor"`` (``"dyngrad.DoubleTensor"`` too) to cast.
            non_blocking: accepted for PyTorch compatibility (no effect on the CPU).
        Returns:
            str | Tensor: ``"torch.FloatTensor"`` for a float32 tensor (the names PyTorch
            gives, so ``x.type() == "torch.FloatTensor"`` tests work unchanged), or ``self``
            cast to ``dtype`` (``self`` itself when the dtype already matches).
        Raises:
            ValueError: for a name that is not a legacy tensor type.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2)
            >>> x.type(), x.type("torch.DoubleTensor").dtype
            ('torch.FloatTensor', dyngrad.float64)
        """
        if dtype is None:
            return "torch." + _LEGACY_NAMES.get(self.dtype.name, self.dtype.name)
        if isinstance(dtype, str):
            name = dtype.rsplit(".", 1)[-1]
            by_name = {v: k for k, v in _LEGACY_NAMES.items()}
            if name not in by_name:
                raise ValueError(f"invalid type: {dtype!r}")
            dtype = getattr(B, by_name[name])
        if isinstance(dtype, builtins.type):  # x.type(torch.DoubleTensor); torch.Tensor is float32
            dtype = dtype.dtype if isinstance(getattr(dtype, "dtype", None), B.dtype) else B.get_default_dtype()
        return self.to(dtype)

    def type_as(self, other: Tensor) -> Tensor:
        """``self`` cast to ``other``'s dtype: ``self.to(other.dtype)``.

        Args:
            other (Tensor): any shape; only its dtype is read.
        Returns:
            Tensor: ``(*)``, ``self``'s shape, ``other``'s dtype (``self`` itself when they match).
        Raises:
            AttributeError: when ``other`` is not a Tensor (PyTorch: TypeError).

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([1, 2]).type_as(dyngrad.zeros(1))
            tensor([1., 2.])
        """
        return self.to(other.dtype)

    def float(self) -> Tensor:
        return self.to(B.float32)

    def double(self) -> Tensor:
        return self.to(B.float64)

    def half(self) -> Tensor:
        return self.to(B.float16)

    def long(self) -> Tensor:
        return self.to(B.int64)

    def int(self) -> Tensor:
        return self.to(B.int32)

    def short(self) -> Tensor:
        return self.to(B.int16)

    def bool(self) -> Tensor:
        return self.to(B.bool_)

    def byte(self) -> Tensor:
        return self.to(B.uint8)

    def cpu(self) -> Self:
        """The tensor on the host: ``self`` for a NumPy tensor, a copy for a GPU (CuPy) one.

        Differentiable: the copy's gradient flows back to the GPU tensor (``ToCopyBackward0``).

        Returns:
            Tensor: of the same shape ``(*)``, dtype and values, on the CPU.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2)
            >>> x.cpu() is x
            True
        """
        if type(self._data) is np.ndarray:
            return self
        return _core._ops.device.to_device(self, "cpu")  # type: ignore[no-any-return]

    def cuda(self, device: Any = None, non_blocking: builtins.bool = False, **kwargs: Any) -> Self:
        """This tensor on GPU ``device`` (default: the current one), a CuPy array; differentiable.

        Args:
            device (int | str | device, optional): the GPU (``0``, ``"cuda:1"``); default the
                current one.
            non_blocking (bool): accepted for PyTorch compatibility (copies are synchronous).

        Returns:
            Tensor: of the same shape ``(*)`` and dtype, on the GPU.

        Raises:
            RuntimeError: without CuPy or a GPU (docs/backends.md).

        Example:
            >>> import dyngrad
            >>> dyngrad.cuda.is_available() or True  # x.cuda() needs CuPy and a GPU
            True
        """
        if device is None:
            device = "cuda"
        elif isinstance(device, builtins.int):
            device = f"cuda:{device}"
        return _core._ops.device.to_device(self, device)  # type: ignore[no-any-return]

    # ---- new tensors with this one's dtype
    def new_tensor(self, data: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
        """A new leaf copying ``data``, of ``self``'s dtype unless ``dtype`` is given.

        Args:
            data: a number, a (nested) list, an ndarray or a Tensor (its values, copied).
            dtype (dtype, optional): Default: ``None`` (``self.dtype``, also for int ``data``).
            requires_grad (bool): make the result a leaf that requires grad. Default: ``False``.
        Returns:
            Tensor: ``(*)``, ``data``'s shape.
        Raises:
            ValueError: ``data`` that is not numeric (PyTorch: ValueError too).
            RuntimeError: ``requires_grad`` with a non-floating dtype.

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([1.0, 2.0]).new_tensor([[1, 2]])
            tensor([[1., 2.]])
        """
        arr = np.array(getattr(data, "_data", data), dtype=B.to_np_dtype(dtype or self.dtype))
        return _fresh(arr, requires_grad)

    def new_zeros(self, *size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
        return _fresh(np.zeros(_size(size), B.to_np_dtype(dtype or self.dtype)), requires_grad)

    def new_ones(self, *size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
        return _fresh(np.ones(_size(size), B.to_np_dtype(dtype or self.dtype)), requires_grad)

    def new_full(self, size: Any, fill_value: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
        """A new tensor of shape ``size`` filled with ``fill_value``, of ``self``'s dtype unless
        ``dtype`` is given (a new leaf, not part of ``self``'s graph).

        Args:
            size (tuple of int): the shape.
            fill_value (number): the value, cast to the dtype.
            dtype (dtype, optional): Default: ``None`` (``self.dtype``).
            requires_grad (bool): make the result a leaf that requires grad. Default: ``False``.
        Returns:
            Tensor: ``(*size)``.
        Raises:
            ValueError: a ``fill_value`` that is not a number (PyTorch: TypeError).
            RuntimeError: a negative size (as PyTorch), or ``requires_grad`` with a
                non-floating dtype.

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([1.0, 2.0]).new_full((2,), 7)
            tensor([7., 7.])
        """
        arr = np.full(_size((size,)), fill_value, B.to_np_dtype(dtype or self.dtype))
        return _fresh(arr, requires_grad)

    def new_empty(self, *size: Any, dtype: Any = None, requires_grad: builtins.bool = False) -> Tensor:
        return self.new_zeros(*size, dtype=dtype, requires_grad=requires_grad)

    # --- numpy: NumPy's ufuncs and functions on Tensors (NEP 13/18; docs/numpy.md)
    # ``np.exp(t)``, ``arr + t``, ``np.add.reduce(t)``...: dyngrad ops (numpy_ufunc.py; the
    # function itself, not a forwarding method: one frame less on every NumPy call)
    __array_ufunc__ = numpy_ufunc.tensor_array_ufunc

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        """``np.sum(t)``, ``np.linalg.solve(A, b)``...: dyngrad ops (numpy_function.py)."""
        return numpy_function.array_function(func, types, args, kwargs)

    def ravel(self) -> Tensor:
        """``torch.Tensor.ravel`` (and ndarray's, which NumPy code calls): the flattened
        tensor, ``reshape(-1)`` (a view when the memory allows, else a copy).

        Derivative: ``grad_input = grad_output.reshape(self.shape)``.

        Returns:
            Tensor: ``(N,)``, ``N = self.numel()``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).ravel().shape
            dyngrad.Size([6])
        """
        return _core._ops.reshape(self, -1)

    # --- apisurface: PyTorch's legacy constructor on an instance
    def new(self, *args: Any, device: Any = None) -> Tensor:
        """``x.new(...)``: the legacy constructor with this tensor's dtype: ``x.new()`` (empty),
        ``x.new(2, 3)`` (a shape, zero-filled), ``x.new([1, 2])`` (data cast to ``x.dtype``),
        ``x.new(t)`` (``t``'s storage; ``t`` must have ``x``'s dtype). Deprecated in PyTorch in
        favour of ``new_empty``/``new_tensor``; never requires grad.

        Args:
            *args: nothing, ints (a shape), one sequence (data) or one Tensor.
            device: only ``"cpu"`` (or None) is accepted.
        Returns:
            Tensor: ``(0,)`` for ``x.new()``, ``(*args)`` for a shape, the data's shape else.
        Raises:
            TypeError: a lone number, or a Tensor of another dtype.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.tensor([1.0, 2.0])
            >>> x.new([3, 4]), x.new(2, 3).shape
            (tensor([3., 4.]), dyngrad.Size([2, 3]))
        """
        check_device(device)
        arr = _core.legacy_array(args, self._data.dtype, "new", like=self)
        return _core.Tensor._make(arr)

def _fresh(arr: np.ndarray, requires_grad: builtins.bool) -> Tensor:
    """A new leaf holding ``arr`` (its dtype kept)."""
    t = _core.Tensor._make(arr)
    if requires_grad:
        t.requires_grad = True
    return t


def _size(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    out = tuple(int(s) for s in size)
    for s in out:
        if s < 0:  # (NumPy's ValueError; PyTorch's RuntimeError)
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {list(out)}")
    return out


# --- apisurface: moving to and from the meta device
def _meta_move(t: Any, device: Any, dtype: Any) -> Any:
    """``t.to("meta")``: a meta copy (same shape, dtype unless ``dtype``; requires_grad kept
    for a leaf); None when neither side is meta.

    Raises:
        NotImplementedError: moving a meta tensor to a real device ("no data", as PyTorch).
    """
    is_meta = type(t._data) is MetaArray
    if device is not None and not is_meta_device(device):
        if is_meta:
            raise NotImplementedError("Cannot copy out of meta tensor; no data!")
        return None
    if not is_meta_device(device) and not is_meta:
        return None
    arr = t._data if dtype is None else np.empty((), dtype=B.to_np_dtype(dtype))
    out = _core.Tensor._make(to_meta(np.broadcast_to(arr, t._data.shape)))
    if t._requires_grad and B.kind(out._data) == "f":
        out._requires_grad = True
    return out
