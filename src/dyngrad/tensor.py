"""The Tensor: an ndarray plus autograd metadata.

A Tensor holds ``data`` (always a NumPy ndarray, 0-d for scalars), ``grad``,
``requires_grad``, ``grad_fn`` (the node that made it, None for leaves) and a version
counter shared with its views that every in-place operation bumps. Operator methods are
one-line forwards to :mod:`dyngrad.ops`.
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any
from collections.abc import Callable, Iterator

import numpy as np

from . import _backend as B

if TYPE_CHECKING:
    from .autograd.graph import Node

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

class Tensor:
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
    # A transform's wrapper tensor (vmap's BatchedTensor) sets this: its ``.data`` does not
    # hold its values, so ops must reach it through Functions (the interpreter stack).
    _is_wrapper = False

    # The slots' types, for readers and type checkers (annotations only: no class attributes).
    data: np.ndarray
    _grad: Tensor | None
    _requires_grad: bool
    grad_fn: Node | None
    _output_nr: int
    _vc: list[int]  # the version counter, one cell shared with views
    _retains_grad: bool
    _hooks: _HookDict | None
    _post_acc_hooks: _HookDict | None
    _acc: weakref.ref[AccumulateGrad] | None
    _base: Tensor | None
    _view_ver: int

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

    def _refresh_view(self, always: bool = False) -> None:
        """Regenerate a stale view's history from its base (ops/_view_inplace.py); only
        with grad mode on unless ``always`` (backward() on the view itself)."""
        from .ops import refresh_view  # deferred: ops are built on tensor (ops/_view_inplace.py)

        if always or grad_mode.state.enabled:
            refresh_view(self)

    def _rebase_dirty_view(self, name: str) -> None:
        """A custom Function ``name`` modified this view in place (``mark_dirty``): its base
        records the change, as PyTorch's CopySlices (ops/_view_inplace.py)."""
        from .ops import rebase_dirty_view  # deferred: ops are built on tensor (ops/_view_inplace.py)

        rebase_dirty_view(self, name)

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
        from .ops import backward  # deferred: autograd.backprop's, reached through ops (tensor -> ops)

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

    # ------------------------------------------------------------------ operators
    def __neg__(self) -> Tensor:
        return _ops.neg(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _ops.abs(self)

    def __invert__(self) -> Tensor:
        return _ops.logical_not(self) if self.data.dtype == np.bool_ else _ops.bitwise_not(self)

    def __add__(self, other: Any) -> Tensor:
        return _ops.add(self, other)

    def __radd__(self, other: Any) -> Tensor:
        return _ops.add(other, self)

    def __iadd__(self, other: Any) -> Tensor:
        return _ops.add_(self, other)

    def __sub__(self, other: Any) -> Tensor:
        return _ops.sub(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _ops.sub(other, self)

    def __isub__(self, other: Any) -> Tensor:
        return _ops.sub_(self, other)

    def __mul__(self, other: Any) -> Tensor:
        return _ops.mul(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _ops.mul(other, self)

    def __imul__(self, other: Any) -> Tensor:
        return _ops.mul_(self, other)

    def __truediv__(self, other: Any) -> Tensor:
        return _ops.div(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _ops.div(other, self)

    def __itruediv__(self, other: Any) -> Tensor:
        return _ops.div_(self, other)

    def __floordiv__(self, other: Any) -> Tensor:
        return _ops.floor_divide(self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _ops.floor_divide(other, self)

    def __mod__(self, other: Any) -> Tensor:
        return _ops.remainder(self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return _ops.remainder(other, self)

    def __pow__(self, other: Any) -> Tensor:
        return _ops.pow(self, other)

    def __rpow__(self, other: Any) -> Tensor:
        return _ops.pow(other, self)

    def __ipow__(self, other: Any) -> Tensor:
        return _ops.pow_(self, other)

    def __matmul__(self, other: Any) -> Tensor:
        return _ops.matmul(self, other)

    def __rmatmul__(self, other: Any) -> Tensor:
        return _ops.matmul(other, self)

    def __eq__(self, other: Any) -> Tensor:  # type: ignore[override]
        if other is None:  # PyTorch: ``t == None`` is False
            return False  # type: ignore[return-value]
        return _ops.eq(self, other)

    def __ne__(self, other: Any) -> Tensor:  # type: ignore[override]
        if other is None:
            return True  # type: ignore[return-value]
        return _ops.ne(self, other)

    def __lt__(self, other: Any) -> Tensor:
        return _ops.lt(self, other)

    def __le__(self, other: Any) -> Tensor:
        return _ops.le(self, other)

    def __gt__(self, other: Any) -> Tensor:
        return _ops.gt(self, other)

    def __ge__(self, other: Any) -> Tensor:
        return _ops.ge(self, other)

    def __and__(self, other: Any) -> Tensor:
        return _ops.bitwise_and(self, other)

    def __rand__(self, other: Any) -> Tensor:
        return _ops.bitwise_and(other, self)

    def __iand__(self, other: Any) -> Tensor:
        return _ops.bitwise_and_(self, other)

    def __or__(self, other: Any) -> Tensor:
        return _ops.bitwise_or(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return _ops.bitwise_or(other, self)

    def __ior__(self, other: Any) -> Tensor:
        return _ops.bitwise_or_(self, other)

    def __xor__(self, other: Any) -> Tensor:
        return _ops.bitwise_xor(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return _ops.bitwise_xor(other, self)

    def __ixor__(self, other: Any) -> Tensor:
        return _ops.bitwise_xor_(self, other)

    def __lshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_left_shift(self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_left_shift(other, self)

    def __ilshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_left_shift_(self, other)

    def __rshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_right_shift(self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_right_shift(other, self)

    def __irshift__(self, other: Any) -> Tensor:
        return _ops.bitwise_right_shift_(self, other)

    def where(self, condition: Any, other: Any) -> Tensor:
        """``where(condition, self, other)`` (the method's argument order differs)."""
        return _ops.where(condition, self, other)

    def __getitem__(self, index: Any) -> Tensor:
        return _ops.getitem(self, index)

    def __setitem__(self, index: Any, value: Any) -> None:
        _ops.setitem_(self, index, value)

    @property
    def T(self) -> Tensor:  # noqa: N802
        return _ops.permute(self, tuple(range(self.data.ndim - 1, -1, -1)))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        return _ops.transpose(self, -2, -1)

    @property
    def H(self) -> Tensor:  # noqa: N802
        return self.T

    @property
    def mH(self) -> Tensor:  # noqa: N802
        return self.mT

    @property
    def real(self) -> Tensor:
        return self


    # ------------------------------------------------------------------ op methods
    # One-line forwards, ``x.name(*args)`` is ``ops.name(x, *args)``, grouped by the ops module
    # that defines the op (tests/test_tensor.py checks that every name in ops.TENSOR_METHODS is
    # here and forwards to the op of its name).
    # ---- ops.arg_reduce
    def all(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.all(self, *args, **kwargs)

    def any(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.any(self, *args, **kwargs)

    def argmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argmax(self, *args, **kwargs)

    def argmin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argmin(self, *args, **kwargs)

    def count_nonzero(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.count_nonzero(self, *args, **kwargs)

    # ---- ops.arithmetic
    def add(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.add(self, *args, **kwargs)

    def add_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.add_(self, *args, **kwargs)

    def div(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.div(self, *args, **kwargs)

    def div_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.div_(self, *args, **kwargs)

    def divide(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.divide(self, *args, **kwargs)

    def float_power(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.float_power(self, *args, **kwargs)

    def floor_divide(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.floor_divide(self, *args, **kwargs)

    def fmod(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.fmod(self, *args, **kwargs)

    def mul(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mul(self, *args, **kwargs)

    def mul_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mul_(self, *args, **kwargs)

    def multiply(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.multiply(self, *args, **kwargs)

    def neg(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.neg(self, *args, **kwargs)

    def neg_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.neg_(self, *args, **kwargs)

    def negative(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.negative(self, *args, **kwargs)

    def pow(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.pow(self, *args, **kwargs)

    def pow_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.pow_(self, *args, **kwargs)

    def remainder(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.remainder(self, *args, **kwargs)

    def rsub(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.rsub(self, *args, **kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sub(self, *args, **kwargs)

    def sub_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sub_(self, *args, **kwargs)

    def subtract(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.subtract(self, *args, **kwargs)

    def true_divide(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.true_divide(self, *args, **kwargs)

    # ---- ops.comparison
    def allclose(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.allclose(self, *args, **kwargs)

    def bitwise_and(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_and(self, *args, **kwargs)

    def bitwise_and_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_and_(self, *args, **kwargs)

    def bitwise_left_shift(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_left_shift(self, *args, **kwargs)

    def bitwise_left_shift_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_left_shift_(self, *args, **kwargs)

    def bitwise_not(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_not(self, *args, **kwargs)

    def bitwise_or(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_or(self, *args, **kwargs)

    def bitwise_or_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_or_(self, *args, **kwargs)

    def bitwise_right_shift(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_right_shift(self, *args, **kwargs)

    def bitwise_right_shift_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_right_shift_(self, *args, **kwargs)

    def bitwise_xor(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_xor(self, *args, **kwargs)

    def bitwise_xor_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bitwise_xor_(self, *args, **kwargs)

    def eq(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.eq(self, *args, **kwargs)

    def equal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.equal(self, *args, **kwargs)

    def ge(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.ge(self, *args, **kwargs)

    def greater(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.greater(self, *args, **kwargs)

    def greater_equal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.greater_equal(self, *args, **kwargs)

    def gt(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.gt(self, *args, **kwargs)

    def isclose(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.isclose(self, *args, **kwargs)

    def le(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.le(self, *args, **kwargs)

    def less(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.less(self, *args, **kwargs)

    def less_equal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.less_equal(self, *args, **kwargs)

    def logical_and(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logical_and(self, *args, **kwargs)

    def logical_not(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logical_not(self, *args, **kwargs)

    def logical_or(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logical_or(self, *args, **kwargs)

    def logical_xor(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logical_xor(self, *args, **kwargs)

    def lt(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.lt(self, *args, **kwargs)

    def ne(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.ne(self, *args, **kwargs)

    def not_equal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.not_equal(self, *args, **kwargs)

    # ---- ops.copying
    def clone(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clone(self, *args, **kwargs)

    def contiguous(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.contiguous(self, *args, **kwargs)

    # ---- ops.decomp
    def det(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.det(self, *args, **kwargs)

    def inverse(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.inverse(self, *args, **kwargs)

    def logdet(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logdet(self, *args, **kwargs)

    def slogdet(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.slogdet(self, *args, **kwargs)

    # ---- ops.elementwise
    def abs(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.abs(self, *args, **kwargs)

    def abs_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.abs_(self, *args, **kwargs)

    def absolute(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.absolute(self, *args, **kwargs)

    def clamp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp(self, *args, **kwargs)

    def clamp_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp_(self, *args, **kwargs)

    def clamp_max(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp_max(self, *args, **kwargs)

    def clamp_min(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clamp_min(self, *args, **kwargs)

    def clip(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clip(self, *args, **kwargs)

    def clip_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.clip_(self, *args, **kwargs)

    def cos(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cos(self, *args, **kwargs)

    def cos_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cos_(self, *args, **kwargs)

    def exp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.exp(self, *args, **kwargs)

    def exp_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.exp_(self, *args, **kwargs)

    def log(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log(self, *args, **kwargs)

    def log_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log_(self, *args, **kwargs)

    def relu(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.relu(self, *args, **kwargs)

    def relu_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.relu_(self, *args, **kwargs)

    def sigmoid(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sigmoid(self, *args, **kwargs)

    def sigmoid_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sigmoid_(self, *args, **kwargs)

    def sin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sin(self, *args, **kwargs)

    def sin_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sin_(self, *args, **kwargs)

    def sqrt(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sqrt(self, *args, **kwargs)

    def sqrt_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sqrt_(self, *args, **kwargs)

    def tanh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tanh(self, *args, **kwargs)

    def tanh_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tanh_(self, *args, **kwargs)

    # ---- ops.fused
    def log_softmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log_softmax(self, *args, **kwargs)

    def softmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.softmax(self, *args, **kwargs)

    # ---- ops.gather
    def gather(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.gather(self, *args, **kwargs)

    def index_add(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.index_add(self, *args, **kwargs)

    def index_copy(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.index_copy(self, *args, **kwargs)

    def index_select(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.index_select(self, *args, **kwargs)

    def scatter(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.scatter(self, *args, **kwargs)

    def scatter_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.scatter_(self, *args, **kwargs)

    def scatter_add(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.scatter_add(self, *args, **kwargs)

    def scatter_add_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.scatter_add_(self, *args, **kwargs)

    def take(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.take(self, *args, **kwargs)

    def take_along_dim(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.take_along_dim(self, *args, **kwargs)

    # ---- ops.indexing
    def narrow(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.narrow(self, *args, **kwargs)

    def select(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.select(self, *args, **kwargs)

    # ---- ops.linalg
    def bmm(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.bmm(self, *args, **kwargs)

    def diag(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.diag(self, *args, **kwargs)

    def diag_embed(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.diag_embed(self, *args, **kwargs)

    def diagonal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.diagonal(self, *args, **kwargs)

    def dot(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.dot(self, *args, **kwargs)

    def ger(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.ger(self, *args, **kwargs)

    def inner(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.inner(self, *args, **kwargs)

    def matmul(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.matmul(self, *args, **kwargs)

    def mm(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mm(self, *args, **kwargs)

    def mv(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mv(self, *args, **kwargs)

    def outer(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.outer(self, *args, **kwargs)

    def trace(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.trace(self, *args, **kwargs)

    def tril(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tril(self, *args, **kwargs)

    def triu(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.triu(self, *args, **kwargs)

    # ---- ops.masking
    def index_fill(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.index_fill(self, *args, **kwargs)

    def masked_fill(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.masked_fill(self, *args, **kwargs)

    def masked_fill_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.masked_fill_(self, *args, **kwargs)

    def masked_select(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.masked_select(self, *args, **kwargs)

    # ---- ops.pointwise
    def addcdiv(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.addcdiv(self, *args, **kwargs)

    def addcmul(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.addcmul(self, *args, **kwargs)

    def arctan2(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arctan2(self, *args, **kwargs)

    def atan2(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.atan2(self, *args, **kwargs)

    def fmax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.fmax(self, *args, **kwargs)

    def fmin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.fmin(self, *args, **kwargs)

    def hypot(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.hypot(self, *args, **kwargs)

    def lerp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.lerp(self, *args, **kwargs)

    def logaddexp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logaddexp(self, *args, **kwargs)

    def maximum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.maximum(self, *args, **kwargs)

    def minimum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.minimum(self, *args, **kwargs)

    # ---- ops.rearrange
    def flip(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.flip(self, *args, **kwargs)

    def fliplr(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.fliplr(self, *args, **kwargs)

    def flipud(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.flipud(self, *args, **kwargs)

    def repeat(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.repeat(self, *args, **kwargs)

    def roll(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.roll(self, *args, **kwargs)

    def tile(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tile(self, *args, **kwargs)

    # ---- ops.reduction
    def amax(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.amax(self, *args, **kwargs)

    def amin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.amin(self, *args, **kwargs)

    def max(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.max(self, *args, **kwargs)

    def mean(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mean(self, *args, **kwargs)

    def min(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.min(self, *args, **kwargs)

    def prod(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.prod(self, *args, **kwargs)

    def sum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sum(self, *args, **kwargs)

    def sum_to_size(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sum_to_size(self, *args, **kwargs)

    # ---- ops.rounding
    def ceil(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.ceil(self, *args, **kwargs)

    def ceil_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.ceil_(self, *args, **kwargs)

    def fix(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.fix(self, *args, **kwargs)

    def fix_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.fix_(self, *args, **kwargs)

    def floor(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.floor(self, *args, **kwargs)

    def floor_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.floor_(self, *args, **kwargs)

    def frac(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.frac(self, *args, **kwargs)

    def frac_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.frac_(self, *args, **kwargs)

    def isfinite(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.isfinite(self, *args, **kwargs)

    def isinf(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.isinf(self, *args, **kwargs)

    def isnan(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.isnan(self, *args, **kwargs)

    def isneginf(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.isneginf(self, *args, **kwargs)

    def isposinf(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.isposinf(self, *args, **kwargs)

    def nan_to_num(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.nan_to_num(self, *args, **kwargs)

    def nan_to_num_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.nan_to_num_(self, *args, **kwargs)

    def round(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.round(self, *args, **kwargs)

    def round_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.round_(self, *args, **kwargs)

    def sign(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sign(self, *args, **kwargs)

    def sign_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sign_(self, *args, **kwargs)

    def trunc(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.trunc(self, *args, **kwargs)

    def trunc_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.trunc_(self, *args, **kwargs)

    # ---- ops.shape
    def broadcast_to(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.broadcast_to(self, *args, **kwargs)

    def expand(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expand(self, *args, **kwargs)

    def expand_as(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expand_as(self, *args, **kwargs)

    def flatten(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.flatten(self, *args, **kwargs)

    def moveaxis(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.moveaxis(self, *args, **kwargs)

    def movedim(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.movedim(self, *args, **kwargs)

    def permute(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.permute(self, *args, **kwargs)

    def reshape(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.reshape(self, *args, **kwargs)

    def reshape_as(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.reshape_as(self, *args, **kwargs)

    def squeeze(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.squeeze(self, *args, **kwargs)

    def swapaxes(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.swapaxes(self, *args, **kwargs)

    def swapdims(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.swapdims(self, *args, **kwargs)

    def t(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.t(self, *args, **kwargs)

    def transpose(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.transpose(self, *args, **kwargs)

    def unflatten(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.unflatten(self, *args, **kwargs)

    def unsqueeze(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.unsqueeze(self, *args, **kwargs)

    def view(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.view(self, *args, **kwargs)

    def view_as(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.view_as(self, *args, **kwargs)

    # ---- ops.sorting
    def argsort(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argsort(self, *args, **kwargs)

    def argwhere(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.argwhere(self, *args, **kwargs)

    def msort(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.msort(self, *args, **kwargs)

    def nonzero(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.nonzero(self, *args, **kwargs)

    def sort(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sort(self, *args, **kwargs)

    def topk(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.topk(self, *args, **kwargs)

    # ---- ops.special
    def erf(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.erf(self, *args, **kwargs)

    def erf_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.erf_(self, *args, **kwargs)

    def erfc(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.erfc(self, *args, **kwargs)

    def erfc_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.erfc_(self, *args, **kwargs)

    def exp2(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.exp2(self, *args, **kwargs)

    def exp2_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.exp2_(self, *args, **kwargs)

    def expm1(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expm1(self, *args, **kwargs)

    def expm1_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.expm1_(self, *args, **kwargs)

    def log10(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log10(self, *args, **kwargs)

    def log10_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log10_(self, *args, **kwargs)

    def log1p(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log1p(self, *args, **kwargs)

    def log1p_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log1p_(self, *args, **kwargs)

    def log2(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log2(self, *args, **kwargs)

    def log2_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.log2_(self, *args, **kwargs)

    def logit(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logit(self, *args, **kwargs)

    def logit_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logit_(self, *args, **kwargs)

    def reciprocal(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.reciprocal(self, *args, **kwargs)

    def reciprocal_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.reciprocal_(self, *args, **kwargs)

    def rsqrt(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.rsqrt(self, *args, **kwargs)

    def rsqrt_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.rsqrt_(self, *args, **kwargs)

    def square(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.square(self, *args, **kwargs)

    def square_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.square_(self, *args, **kwargs)

    # ---- ops.splitting
    def chunk(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.chunk(self, *args, **kwargs)

    def split(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.split(self, *args, **kwargs)

    def split_with_sizes(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.split_with_sizes(self, *args, **kwargs)

    def unbind(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.unbind(self, *args, **kwargs)

    # ---- ops.statistics
    def cumprod(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cumprod(self, *args, **kwargs)

    def cumsum(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cumsum(self, *args, **kwargs)

    def logsumexp(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.logsumexp(self, *args, **kwargs)

    def norm(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.norm(self, *args, **kwargs)

    def std(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.std(self, *args, **kwargs)

    def var(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.var(self, *args, **kwargs)

    # ---- ops.thresholding
    def hardshrink(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.hardshrink(self, *args, **kwargs)

    def prelu(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.prelu(self, *args, **kwargs)

    # ---- ops.trig
    def acos(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.acos(self, *args, **kwargs)

    def acos_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.acos_(self, *args, **kwargs)

    def acosh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.acosh(self, *args, **kwargs)

    def acosh_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.acosh_(self, *args, **kwargs)

    def arccos(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arccos(self, *args, **kwargs)

    def arccosh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arccosh(self, *args, **kwargs)

    def arcsin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arcsin(self, *args, **kwargs)

    def arcsinh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arcsinh(self, *args, **kwargs)

    def arctan(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arctan(self, *args, **kwargs)

    def arctanh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.arctanh(self, *args, **kwargs)

    def asin(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.asin(self, *args, **kwargs)

    def asin_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.asin_(self, *args, **kwargs)

    def asinh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.asinh(self, *args, **kwargs)

    def asinh_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.asinh_(self, *args, **kwargs)

    def atan(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.atan(self, *args, **kwargs)

    def atan_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.atan_(self, *args, **kwargs)

    def atanh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.atanh(self, *args, **kwargs)

    def atanh_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.atanh_(self, *args, **kwargs)

    def cosh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cosh(self, *args, **kwargs)

    def cosh_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.cosh_(self, *args, **kwargs)

    def sinh(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sinh(self, *args, **kwargs)

    def sinh_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.sinh_(self, *args, **kwargs)

    def tan(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tan(self, *args, **kwargs)

    def tan_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.tan_(self, *args, **kwargs)

    # --- random (ops/random.py: in-place fills and draws parameterised by this tensor)
    def uniform_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with ``U[from, to)`` samples (``from=0, to=1``); returns self."""
        return _ops.uniform_(self, *args, **kwargs)

    def normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with ``N(mean, std^2)`` samples (``mean=0, std=1``); returns self."""
        return _ops.normal_(self, *args, **kwargs)

    def bernoulli_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with 1 with probability ``p`` (0.5), else 0; returns self."""
        return _ops.bernoulli_(self, *args, **kwargs)

    def random_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with integers uniform on ``[from, to)``; returns self."""
        return _ops.random_(self, *args, **kwargs)

    def exponential_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with exponential samples of rate ``lambd`` (1); returns self."""
        return _ops.exponential_(self, *args, **kwargs)

    def geometric_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with geometric samples of success probability ``p``; returns self."""
        return _ops.geometric_(self, *args, **kwargs)

    def cauchy_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with Cauchy samples (``median=0, sigma=1``); returns self."""
        return _ops.cauchy_(self, *args, **kwargs)

    def log_normal_(self, *args: Any, **kwargs: Any) -> Tensor:
        """Fill in place with ``exp(N(mean, std^2))`` samples (``mean=1, std=2``); returns self."""
        return _ops.log_normal_(self, *args, **kwargs)

    def bernoulli(self, *args: Any, **kwargs: Any) -> Tensor:
        """``dyngrad.bernoulli(self, ...)``."""
        return _ops.bernoulli(self, *args, **kwargs)

    def multinomial(self, *args: Any, **kwargs: Any) -> Tensor:
        """``dyngrad.multinomial(self, ...)``."""
        return _ops.multinomial(self, *args, **kwargs)

    # --- special (ops.gamma, ops.xlogy, ops.special.erfinv)
    def lgamma(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.lgamma(self, *args, **kwargs)

    def lgamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.lgamma_(self, *args, **kwargs)

    def digamma(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.digamma(self, *args, **kwargs)

    def digamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.digamma_(self, *args, **kwargs)

    def polygamma(self, n: int) -> Tensor:
        """``x.polygamma(n)`` is ``polygamma(n, x)`` (PyTorch's argument order)."""
        return _ops.polygamma(n, self)

    def polygamma_(self, n: int) -> Tensor:
        return _ops.gamma.polygamma_(self, n)

    def mvlgamma(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mvlgamma(self, *args, **kwargs)

    def mvlgamma_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.mvlgamma_(self, *args, **kwargs)

    def erfinv(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.erfinv(self, *args, **kwargs)

    def erfinv_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.erfinv_(self, *args, **kwargs)

    def xlogy(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.xlogy(self, *args, **kwargs)

    def xlogy_(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.xlogy_(self, *args, **kwargs)

    def igamma(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.igamma(self, *args, **kwargs)

    def igammac(self, *args: Any, **kwargs: Any) -> Any:
        return _ops.igammac(self, *args, **kwargs)


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
# methods forward to them, so they are imported once Tensor exists. ``ops`` is the one
# upward import DESIGN.md allows (tensor -> ops, for the methods above).
from .autograd import grad_mode  # noqa: E402
from .autograd.graph import AccumulateGrad, RemovableHandle, _HookDict  # noqa: E402
from . import ops as _ops  # noqa: E402
