"""The Tensor: an ndarray plus autograd metadata.

A Tensor holds ``data`` (always a NumPy ndarray, 0-d for scalars), ``grad``,
``requires_grad``, ``grad_fn`` (the node that made it, None for leaves) and a version
counter shared with its views that every in-place operation bumps. Operator methods are
one-line forwards to :mod:`dyngrad.ops`.
"""

from __future__ import annotations

import weakref
from typing import Any
from collections.abc import Callable, Iterator

import numpy as np

from . import _backend as B
from . import _tensor_methods
from ._tensor_methods import TensorMethods

__all__ = ["Tensor", "is_tensor"]


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


def check_device(device: Any) -> None:
    """Accept ``None``, ``'cpu'`` or a cpu device; anything else is a RuntimeError."""
    if device is not None and str(device).split(":")[0] != "cpu":
        raise RuntimeError(
            f"dyngrad runs on the CPU (NumPy arrays); device {device!r} is not available"
        )


NOGRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)

class Tensor(TensorMethods):
    """A multi-dimensional array that can record the operations applied to it.

    Create tensors with :func:`dyngrad.tensor` and friends; ``Tensor(ndarray)`` wraps an
    array without copying.

    Attributes:
        data (numpy.ndarray): the values; shape ``(*)``.
        grad (Tensor | None): accumulated gradient, same shape and dtype as ``data``.
        grad_fn (Node | None): the node that created this tensor; None for leaves.
        requires_grad (bool): whether gradients are tracked for this tensor.
    """

    __slots__ = (
        "data",
        "_grad",
        "_requires_grad",
        "grad_fn",
        "_output_nr",
        "_vc",
        "_retains_grad",
        "_hooks",
        "_post_acc_hooks",
        "_acc",
        "_base",
        "_view_ver",
        "_nograd_view",
        "__weakref__",
    )
    __array_priority__ = 1000

    def __init__(self, data: Any = None, requires_grad: bool = False) -> None:
        if data is None:
            data = np.empty((0,), dtype=B.get_default_dtype().np)
        if not isinstance(data, np.ndarray):
            data = B.asarray(data)
        self.data = data
        self._grad = None
        self._requires_grad = False
        self.grad_fn = None
        self._output_nr = 0
        self._vc = [0]
        self._retains_grad = False
        self._hooks = None
        self._post_acc_hooks = None
        self._acc = None
        self._base = None
        if requires_grad:
            self.requires_grad = True

    # ------------------------------------------------------------------ construction
    @classmethod
    def _make(cls, data: np.ndarray) -> Tensor:
        """Fast internal constructor: wrap ``data`` (an ndarray) as a fresh leaf."""
        t = object.__new__(cls)
        t.data = data
        t._grad = None
        t._requires_grad = False
        t.grad_fn = None
        t._output_nr = 0
        t._vc = [0]
        t._retains_grad = False
        t._hooks = None
        t._post_acc_hooks = None
        t._acc = None
        t._base = None
        return t

    def _shallow(self) -> Tensor:
        """A history-less alias: same array and version counter, no grad_fn."""
        t = Tensor._make(self.data)
        t._vc = self._vc
        t._requires_grad = self._requires_grad and self.grad_fn is None
        return t

    def _attach(self, node: Any, output_nr: int) -> Tensor:
        """An alias of this (saved output) tensor whose history is ``node``."""
        t = Tensor._make(self.data)
        t._vc = self._vc
        t.grad_fn = node
        t._output_nr = output_nr
        t._requires_grad = True
        return t

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self) -> tuple[int, ...]:
        """The shape as a tuple of ints (PyTorch returns ``torch.Size``, a tuple too)."""
        return self.data.shape

    @property
    def dtype(self) -> B.dtype:
        return B._FROM_NP[self.data.dtype]

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def device(self) -> _Device:
        return cpu

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def layout(self) -> str:
        return "strided"

    def dim(self) -> int:
        return self.data.ndim

    def ndimension(self) -> int:
        return self.data.ndim

    def size(self, dim: int | None = None) -> Any:
        """The shape, or the size of dimension ``dim`` (negative counts from the end).

        Raises:
            IndexError: when ``dim`` is out of range.
        """
        if dim is None:
            return self.data.shape
        return self.data.shape[_wrap_dim(dim, self.data.ndim, "size")]

    def numel(self) -> int:
        return int(self.data.size)

    def nelement(self) -> int:
        return int(self.data.size)

    def element_size(self) -> int:
        return self.data.itemsize

    def stride(self, dim: int | None = None) -> Any:
        st = tuple(s // self.data.itemsize for s in self.data.strides)
        return st if dim is None else st[_wrap_dim(dim, self.data.ndim, "stride")]

    def is_contiguous(self) -> bool:
        return bool(self.data.flags.c_contiguous)

    def is_floating_point(self) -> bool:
        return self.data.dtype.kind == "f"

    def is_complex(self) -> bool:
        return False

    def data_ptr(self) -> int:
        return int(self.data.__array_interface__["data"][0])

    @property
    def _version(self) -> int:
        """Bumped by every in-place operation on this tensor or a view sharing its memory."""
        return self._vc[0]

    def _bump(self) -> None:
        self._vc[0] += 1

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None:
            if value:
                return
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        if value and self.data.dtype.kind != "f":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients, got "
                f"{B.from_np_dtype(self.data.dtype)!r}"
            )
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only); returns self."""
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors created by the user (no ``grad_fn``)."""
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        return self._output_nr

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad``).

        Reading it on a non-leaf that does not retain its grad warns (as PyTorch): backward
        never fills it, the usual cause of a silent ``None``."""
        g = self._grad
        if g is None and self.grad_fn is not None and not self._retains_grad:
            import warnings

            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "backward() does not populate it; call .retain_grad() on the tensor first if "
                "you want it, or read the .grad of the leaf tensor instead.",
                UserWarning,
                stacklevel=2,
            )
        return g

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        if value is not None:
            if not isinstance(value, Tensor):
                raise TypeError(f"assigned grad must be a Tensor or None, got {type(value).__name__}")
            if value.data.shape != self.data.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: expected {list(self.shape)}, "
                    f"got {list(value.shape)}"
                )
            if value.data.dtype != self.data.dtype:
                raise RuntimeError(
                    f"assigned grad has data of a different type: expected {self.dtype!r}, "
                    f"got {value.dtype!r}"
                )
        self._grad = value

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (a no-op on leaves).

        Raises:
            RuntimeError: when the tensor does not require grad.
        """
        if self._base is not None and self._vc[0] != self._view_ver:
            self._refresh_view()  # retain the gradient of the view's current history
        if not self._requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None or self._retains_grad:
            return
        self.grad_fn._register_retain_grad(self._output_nr, self)
        self._retains_grad = True

    def _refresh_view(self) -> None:
        """Regenerate a stale view's history from its base (ops/_view_inplace.py)."""
        from .ops._view_inplace import refresh_view  # deferred: ops are built on tensor

        if grad_mode.state.enabled:
            refresh_view(self)

    def _accumulator(self) -> AccumulateGrad:
        """The AccumulateGrad node of this leaf (created once, held weakly)."""
        acc = self._acc() if self._acc is not None else None
        if acc is None:
            acc = AccumulateGrad(self)
            self._acc = weakref.ref(acc)
        return acc

    def register_hook(self, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        """Register ``hook(grad) -> Tensor | None`` called with this tensor's gradient each
        time it is computed; a returned tensor replaces the gradient.

        Raises:
            RuntimeError: when the tensor does not require grad.
        """
        if self._base is not None and self._vc[0] != self._view_ver:
            self._refresh_view()  # hook the gradient of the view's current history
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            return self.grad_fn._register_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = _HookDict()
        return self._hooks.add(hook)

    def register_post_accumulate_grad_hook(self, hook: Callable[[Tensor], None]) -> RemovableHandle:
        """Register ``hook(tensor)`` called after a gradient was accumulated into this leaf's
        ``.grad``.

        Raises:
            RuntimeError: on a non-leaf tensor or one that does not require grad.
        """
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._post_acc_hooks is None:
            self._post_acc_hooks = _HookDict()
        return self._post_acc_hooks.add(hook)

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: bool | None = None,
        create_graph: bool = False,
        inputs: Any = None,
    ) -> None:
        """Compute the gradient of this tensor w.r.t. graph leaves; see
        :func:`dyngrad.autograd.backward`."""
        from .autograd.backprop import backward  # deferred: backprop imports tensor

        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def detach(self) -> Tensor:
        """A new leaf sharing memory and the version counter, with no history."""
        t = Tensor._make(self.data)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Detach in place: drop ``grad_fn`` and ``requires_grad``; returns self.

        Raises:
            RuntimeError: on a view (its history is its base's; use ``detach()``).
        """
        if self._base is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead: detach_() on a view of "
                f"another tensor (shape {list(self._base.shape)}) would cut the base's history."
            )
        self.grad_fn = None
        self._requires_grad = False
        self._output_nr = 0
        return self

    # ------------------------------------------------------------------ conversion
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The underlying ndarray (shared memory).

        Raises:
            RuntimeError: when the tensor requires grad (use ``detach().numpy()``), unless
                ``force=True``, which returns a copy.
        """
        if self._requires_grad:
            if force:
                return self.data.copy()
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        return self.data

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """NumPy conversion (``np.asarray(t)``, ``np.exp(t)``, ...).

        Raises:
            RuntimeError: when the tensor requires grad, as PyTorch does: a NumPy function
                would silently cut the graph (and e.g. ``dyngrad.func.grad`` would return
                zeros). Use dyngrad ops, or ``t.detach()`` for values.
        """
        if self._requires_grad:
            raise RuntimeError(
                "Can't convert a Tensor that requires grad to a NumPy array (np.asarray or a "
                "NumPy function applied to it): the result would silently carry no gradient. "
                "Use dyngrad operations (dyngrad.exp, x.sum(), ...) on it, or "
                "tensor.detach().numpy() if you only want its values."
            )
        if dtype is not None:
            return self.data.astype(dtype, copy=bool(copy))
        return self.data.copy() if copy else self.data

    def item(self) -> Any:
        """The value of a one-element tensor as a Python number.

        Raises:
            RuntimeError: when the tensor has more than one element.
        """
        if self.data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self.data.size} elements cannot be converted to Scalar"
            )
        return self.data.reshape(()).item()

    def tolist(self) -> Any:
        return self.data.tolist()

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.data.dtype.kind not in "iub" or self.data.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.data.size != 1:
            raise RuntimeError(
                f"Boolean value of Tensor with {self.data.size} elements is ambiguous"
            )
        return bool(self.data.reshape(()))

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __iter__(self) -> Iterator[Tensor]:
        if self.data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        from ._format import format_tensor

        return format_tensor(self)

    def __format__(self, spec: str) -> str:
        if self.data.ndim == 0:  # as PyTorch: f"{t}" of a 0-d tensor formats its value
            return format(self.item(), spec)
        return repr(self)

    def __reduce_ex__(self, protocol: Any) -> Any:
        raise TypeError(
            "dyngrad tensors are not pickled; use dyngrad.save(), which writes a format that "
            "cannot run code"
        )

    def __deepcopy__(self, memo: dict) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment"
            )
        t = type(self)._make(self.data.copy())
        t._requires_grad = self._requires_grad
        if self._grad is not None:
            t._grad = Tensor._make(self._grad.data.copy())
        memo[id(self)] = t
        return t

    # dtype conversions ---------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(dtype)``, ``to(device)``, ``to(other)``, ``to(device, dtype)``; a no-op
        returns self, as in PyTorch.

        Raises:
            RuntimeError: for a device other than the CPU.
        """
        dtype = kwargs.pop("dtype", None)
        check_device(kwargs.pop("device", None))
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif isinstance(a, (B.dtype, type, np.dtype)):
                dtype = a
            else:
                check_device(a)
        if dtype is None or B.to_np_dtype(dtype) == self.data.dtype:
            return self.clone() if copy else self
        return _ops.to_dtype(self, dtype)

    def type(self, dtype: Any = None) -> Any:
        if dtype is None:
            return f"dyngrad.{self.dtype.name}"
        return self.to(dtype)

    def type_as(self, other: Tensor) -> Tensor:
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

    def cpu(self) -> Tensor:
        return self

    def cuda(self, *args: Any, **kwargs: Any) -> Tensor:
        check_device("cuda")
        return self

    def new_tensor(self, data: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        arr = np.array(getattr(data, "data", data), dtype=B.to_np_dtype(dtype or self.dtype))
        return Tensor(arr, requires_grad=requires_grad)

    def new_zeros(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        return Tensor(np.zeros(_size(size), B.to_np_dtype(dtype or self.dtype)), requires_grad)

    def new_ones(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        return Tensor(np.ones(_size(size), B.to_np_dtype(dtype or self.dtype)), requires_grad)

    def new_full(self, size: Any, fill_value: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        arr = np.full(_size((size,)), fill_value, B.to_np_dtype(dtype or self.dtype))
        return Tensor(arr, requires_grad)

    def new_empty(self, *size: Any, dtype: Any = None, requires_grad: bool = False) -> Tensor:
        return self.new_zeros(*size, dtype=dtype, requires_grad=requires_grad)

    # ------------------------------------------------------------------ in-place helpers
    def _check_inplace(self) -> None:
        """Refuse in-place changes that would corrupt autograd state."""
        if grad_mode.state.enabled and self._requires_grad and self.grad_fn is None:
            if self._base is not None and getattr(self, "_nograd_view", None) == 1:
                if not self._base._requires_grad:  # the base was detached since (detach_)
                    self._requires_grad = False
                    return
                raise RuntimeError(NOGRAD_VIEW_INPLACE)
            raise RuntimeError(
                "a leaf Variable that requires grad is being used in an in-place operation. "
                "Wrap the update in `with dyngrad.no_grad():` or operate on .detach()."
            )

    def zero_(self) -> Tensor:
        """Fill with zeros in place; bumps the version; returns self."""
        return _ops.fill_(self, 0)

    def fill_(self, value: Any) -> Tensor:
        """Fill with ``value`` in place; bumps the version; returns self."""
        return _ops.fill_(self, value)

    def copy_(self, src: Any) -> Tensor:
        """Copy ``src`` (broadcast to this shape) into self in place; returns self."""
        return _ops.copy_(self, src)


def _wrap_dim(dim: int, ndim: int, op: str) -> int:
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"{op}: Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim % n if ndim else 0


def _size(size: tuple) -> tuple[int, ...]:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is a dyngrad Tensor."""
    return isinstance(obj, Tensor)


# Deferred imports: the autograd package and the ops are built on Tensor, and Tensor's
# methods forward to them, so they are imported once Tensor exists.
from .autograd import grad_mode  # noqa: E402
from .autograd.graph import AccumulateGrad, RemovableHandle, _HookDict  # noqa: E402
from . import ops as _ops  # noqa: E402

_tensor_methods._ops = _ops  # the methods forward to the ops, which exist only now
