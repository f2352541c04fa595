"""Tensor methods that describe the array: shape, dtype, device, strides, element counts.

None of them records anything or reaches the ops: they read ``self._data`` (a NumPy array).
The device is always the CPU (:data:`cpu`); :func:`check_device` refuses any other.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B

__all__ = ["MetadataMethods", "MetaArray", "Size", "check_device", "cpu", "is_meta_device", "meta", "meta_device",
           "to_meta"]


class Size(tuple):
    """PyTorch's ``torch.Size``: the type of ``Tensor.shape`` and ``Tensor.size()``, a tuple of
    ints (it compares equal to a plain tuple). As in PyTorch, a slice (``x.shape[1:]``),
    ``+`` with a tuple on either side and ``*`` by an int give a Size; an index gives an int.
    (dyngrad's own code reads ``_data.shape``, a plain tuple, on its hot paths.)

    Example::

        >>> dyngrad.zeros(2, 3, 4).shape[1:]
        dyngrad.Size([3, 4])
        >>> (1,) + dyngrad.zeros(2, 3).shape
        dyngrad.Size([1, 2, 3])
    """

    __slots__ = ()

    def __getitem__(self, i: Any, _get: Any = tuple.__getitem__) -> Any:
        r = _get(self, i)
        return Size(r) if type(i) is slice else r

    def __radd__(self, other: Any) -> Size:
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n: Any) -> Size:
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__

    def numel(self) -> int:
        """The number of elements of a tensor of this shape."""
        n = 1
        for s in self:
            n *= s
        return n

    def __add__(self, other: Any) -> Size:
        return Size(tuple.__add__(self, other))

    def __repr__(self) -> str:
        return f"dyngrad.Size({list(self)})"

    def __reduce__(self) -> tuple:
        return (Size, (tuple(self),))


class _Device:
    """The only device dyngrad has: the host CPU (NumPy arrays)."""

    type = "cpu"
    index = None

    def __repr__(self) -> str:
        return "device(type='cpu')"

    def __str__(self) -> str:
        return "cpu"

    def __eq__(self, other: object) -> bool:
        return str(other) == "cpu" or isinstance(other, _Device)

    def __hash__(self) -> int:
        return hash("cpu")


cpu = _Device()


class _CudaDevice(_Device):
    """``device(type='cuda', index=n)``: GPU n, whose tensors hold CuPy arrays (docs/backends.md)."""

    type = "cuda"

    def __init__(self, index: int) -> None:
        self.index = index  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"device(type='cuda', index={self.index})"

    def __str__(self) -> str:
        return f"cuda:{self.index}"

    def __eq__(self, other: object) -> bool:
        return str(other) == str(self) or (getattr(other, "type", None) == "cuda" and
                                           getattr(other, "index", None) == self.index)

    def __hash__(self) -> int:
        return hash(str(self))


# --- apisurface: the "meta" device (shape and dtype, no values)
class _MetaDevice(_Device):
    """``device(type='meta')``: tensors with a shape and a dtype but no values."""

    type = "meta"

    def __repr__(self) -> str:
        return "device(type='meta')"

    def __str__(self) -> str:
        return "meta"

    def __eq__(self, other: object) -> bool:
        return str(other) == "meta"

    def __hash__(self) -> int:
        return hash("meta")


meta = _MetaDevice()

#: NumPy functions that only read or rearrange the shape: allowed on a meta array
_META_SHAPE_FUNCTIONS = frozenset(
    getattr(np, n) for n in ("shape", "ndim", "size", "reshape", "transpose", "swapaxes", "moveaxis", "broadcast_to",
                             "expand_dims", "squeeze", "result_type", "may_share_memory", "shares_memory",
                             "broadcast_shapes", "copy", "empty_like", "zeros_like"))


class MetaArray(np.ndarray):
    """The array of a tensor on the ``meta`` device: a read-only, zero-strided array (no memory)
    with the tensor's shape and dtype. Shape methods (``reshape``, ``transpose``, indexing)
    work and stay meta; any NumPy computation raises NotImplementedError, so a meta tensor can
    never give a number (PyTorch computes output shapes on meta tensors instead; dyngrad
    refuses: use meta tensors as shape-only stand-ins, e.g. the model of ``func.functional_call``)."""

    def __array_ufunc__(self, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"dyngrad: '{ufunc.__name__}' needs values, and tensors on the 'meta' device have "
                                  "none (only a shape and a dtype); move real tensors in (functional_call) or use "
                                  "'cpu' tensors")

    def __array_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
        if func in _META_SHAPE_FUNCTIONS:
            return super().__array_function__(func, types, args, kwargs)
        raise NotImplementedError(f"dyngrad: numpy.{func.__name__} needs values, and tensors on the 'meta' device "
                                  "have none (only a shape and a dtype)")


def to_meta(arr: np.ndarray) -> MetaArray:
    """A meta array of ``arr``'s shape and dtype (no memory: one zero broadcast)."""
    return np.broadcast_to(np.zeros((), dtype=arr.dtype), arr.shape).view(MetaArray)


def is_meta_device(device: Any) -> bool:
    """True for ``"meta"`` or ``device("meta")``."""
    return device is not None and str(device) == "meta"


def meta_device(fn: Any, *, like: bool = False, rng: Any = None) -> Any:
    """``fn`` (a creation function taking ``device=``) made to accept ``device="meta"``: the
    tensor is made on the CPU and its array replaced by a :class:`MetaArray` of the same
    shape and dtype (``like=True``: also when ``device`` is None and the first argument is
    a meta tensor, as ``zeros_like`` of a meta tensor). ``rng``: ``(get_state, set_state)``
    restored afterwards, so a meta draw leaves the random stream untouched (PyTorch's meta
    kernels draw nothing)."""
    import functools

    @functools.wraps(fn)
    def create(*args: Any, **kwargs: Any) -> Any:
        device = kwargs.get("device")
        if device is None and like and args and type(getattr(args[0], "_data", None)) is MetaArray:
            device = "meta"
        if device is None and like and args and B.is_cupy(getattr(args[0], "_data", None)):
            device = args[0].device  # zeros_like of a GPU tensor: on its GPU
        if device is not None and B.parse_device(device)[0] == "cuda":
            return _on_cuda(fn, args, kwargs, device)
        if device is None or not is_meta_device(device):
            return fn(*args, **kwargs)
        kwargs["device"] = None
        state = rng[0]() if rng is not None else None
        try:
            t = fn(*args, **kwargs)
        finally:
            if rng is not None:
                rng[1](state)
        t._data = to_meta(t._data)
        return t

    return create


def _on_cuda(fn: Any, args: tuple, kwargs: dict, device: Any) -> Any:
    """A creation function's tensor made on the host, then its array moved to the GPU (CuPy),
    keeping ``requires_grad`` (a leaf on the GPU, as PyTorch's ``device="cuda"``)."""
    B.check_cuda(B.parse_device(device)[1])
    kwargs = dict(kwargs, device=None)
    t = fn(*args, **kwargs)
    t._data = B.to_device(t._data, device)
    return t


def check_device(device: Any) -> None:
    """Accept ``None``, ``'cpu'`` or a cpu device, and ``'cuda'`` / ``'cuda:N'`` when CuPy
    finds that GPU; anything else is a RuntimeError."""
    if device is not None and str(device).split(":")[0] != "cpu":
        if B.parse_device(device)[0] == "cuda":
            B.check_cuda(B.parse_device(device)[1])
            return
        raise RuntimeError(
            f"dyngrad runs on the CPU (NumPy arrays) and on GPUs through CuPy; device {device!r} is not available"
        )


class MetadataMethods:
    """Shape, dtype and device of :class:`dyngrad.Tensor` (read from ``self._data``)."""

    __slots__ = ()
    _data: np.ndarray  # a slot of Tensor (dyngrad/tensor.py): the array described here

    # ---- the array's description
    @property
    def shape(self) -> Size:
        """The shape as a :class:`Size` (a tuple of ints), as PyTorch.

        Returns:
            Size: one int per dim, ``Size([])`` for a 0-d tensor (also :meth:`size`).

        Raises:
            RuntimeError: for a Dask tensor whose size depends on its values (``nonzero``,
                a boolean mask) before ``.persist()`` computed it.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).shape, dyngrad.tensor(1.0).shape
            (dyngrad.Size([2, 3]), dyngrad.Size([]))
        """
        s = self._data.shape
        if type(self._data) is not np.ndarray and any(n != n for n in s):  # NaN: Dask's unknown size
            raise RuntimeError(
                f"the shape of this Dask tensor depends on its values ({s}): call .persist() (which computes "
                "the chunk sizes) or .compute() first; docs/backends.md")
        return Size(s)

    @property
    def dtype(self) -> B.dtype:
        """The element type: ``dyngrad.float32``, ``dyngrad.int64``, ...

        Returns:
            dtype: what the values are stored as (cast with :meth:`to`).

        Example:
            >>> import dyngrad
            >>> dyngrad.tensor([1.0]).dtype, dyngrad.tensor([1]).dtype
            (dyngrad.float32, dyngrad.int64)
        """
        d = self._data.dtype
        if type(self._data) is np.ndarray or isinstance(d, np.dtype):
            return B._FROM_NP[d]
        return B.foreign_dtype(d)  # an Array API library's own dtype object (array-api-strict)

    @property
    def ndim(self) -> int:
        """The number of dimensions (PyTorch's ``ndim``; also :meth:`dim`, :meth:`ndimension`).

        Returns:
            int: ``len(self.shape)``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).ndim, dyngrad.tensor(1.0).ndim
            (2, 0)
        """
        return self._data.ndim

    @property
    def device(self) -> _Device:
        """Where the values live: ``cpu`` (NumPy or Dask), ``cuda:N`` (CuPy) or ``meta``.

        ``meta`` tensors hold shape and dtype only.

        Returns:
            device: ``device(type='cpu')``, ``device(type='cuda', index=N)`` or
            ``device(type='meta')``.

        Example:
            >>> import dyngrad
            >>> dyngrad.ones(2).device
            device(type='cpu')
        """
        d = self._data
        if type(d) is np.ndarray:
            return cpu
        if type(d) is MetaArray:
            return meta
        kind, index = B.array_device(d)
        return _CudaDevice(index or 0) if kind == "cuda" else cpu

    @property
    def is_meta(self) -> bool:
        """True for a tensor on the ``meta`` device (shape and dtype only).

        Returns:
            bool: ``self.device.type == 'meta'``.

        Example:
            >>> import dyngrad
            >>> dyngrad.ones(2).is_meta, dyngrad.ones(2, device="meta").is_meta
            (False, True)
        """
        return type(self._data) is MetaArray

    @property
    def is_cuda(self) -> bool:
        """True for a tensor on a GPU (a CuPy array).

        Returns:
            bool: whether the values live on a GPU.

        Example:
            >>> import dyngrad
            >>> dyngrad.ones(2).is_cuda
            False
        """
        return type(self._data) is not np.ndarray and B.array_device(self._data)[0] == "cuda"

    @property
    def layout(self) -> str:
        """The memory layout: always ``'strided'`` (dyngrad has no sparse tensors).

        Returns:
            str: ``'strided'``.

        Example:
            >>> import dyngrad
            >>> dyngrad.ones(2).layout
            'strided'
        """
        return "strided"

    def dim(self) -> int:
        """The number of dimensions (also :attr:`ndim`).

        Returns:
            int: ``len(self.shape)``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).dim()
            2
        """
        return self._data.ndim

    def ndimension(self) -> int:
        """The number of dimensions: PyTorch's old name of :meth:`dim`.

        Returns:
            int: ``len(self.shape)``.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).ndimension()
            2
        """
        return self._data.ndim

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of dimension ``dim`` (negative counts from the end).

        Args:
            dim (int, optional): the dimension. Default: ``None`` (the whole shape).
        Returns:
            Size | int: the shape (as :attr:`shape`), or ``shape[dim]``.
        Raises:
            IndexError: when ``dim`` is out of range.
            TypeError: when ``dim`` is not an int.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.zeros(2, 3)
            >>> x.size(), x.size(-1)
            (dyngrad.Size([2, 3]), 3)
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim, "size")]

    def numel(self) -> int:
        return int(self._data.size)

    def nelement(self) -> int:
        """The number of elements: PyTorch's old name of :meth:`numel`.

        Returns:
            int: the product of the sizes.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(2, 3).nelement()
            6
        """
        return int(self._data.size)

    def element_size(self) -> int:
        """The size of one element in bytes.

        Returns:
            int: 4 for float32, 8 for int64, 1 for bool.

        Example:
            >>> import dyngrad
            >>> dyngrad.zeros(1).element_size(), dyngrad.zeros(1, dtype=dyngrad.int64).element_size()
            (4, 8)
        """
        return self._data.itemsize

    def stride(self, dim: int | None = None) -> Any:
        """The steps in elements between neighbours along each dim (the array's strides).

        Args:
            dim (int, optional): the dimension. Default: ``None`` (all of them).
        Returns:
            tuple of int | int: one stride per dim, or the stride of ``dim``.
        Raises:
            IndexError: when ``dim`` is out of range.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.zeros(2, 3)
            >>> x.stride(), x.t().stride(), x.stride(0)
            ((3, 1), (1, 3), 3)
        """
        st = tuple(s // self._data.itemsize for s in self._data.strides)
        return st if dim is None else st[_wrap_dim(dim, self._data.ndim, "stride")]

    def is_contiguous(self) -> bool:
        """Whether the values lie in memory in row-major (C) order without gaps.

        Returns:
            bool: False for transposes and strided slices (:meth:`contiguous` copies them).

        Example:
            >>> import dyngrad
            >>> x = dyngrad.zeros(2, 3)
            >>> x.is_contiguous(), x.t().is_contiguous()
            (True, False)
        """
        return bool(self._data.flags.c_contiguous)

    def is_floating_point(self) -> bool:
        return B.kind(self._data) == "f"

    def is_complex(self) -> bool:
        """Always False: dyngrad has no complex dtypes.

        Returns:
            bool: False.

        Example:
            >>> import dyngrad
            >>> dyngrad.ones(2).is_complex()
            False
        """
        return False

    def data_ptr(self) -> int:
        """The address of the first element (views of one array differ by their offset).

        Returns:
            int: the memory address, as NumPy's ``__array_interface__`` gives it.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.zeros(4)
            >>> x[1:].data_ptr() - x.data_ptr()
            4
        """
        return int(self._data.__array_interface__["data"][0])


def _wrap_dim(dim: int, ndim: int, op: str) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n if ndim else 0
