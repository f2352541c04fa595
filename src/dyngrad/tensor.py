"""The Tensor: an ndarray plus autograd metadata.

A Tensor holds ``_data`` (always a NumPy ndarray, 0-d for scalars; users reach it through
``numpy()`` / ``np.asarray``, and ``.data`` is PyTorch's detached Tensor), ``grad``,
``requires_grad``, ``grad_fn`` (the node that made it, None for leaves) and a version
counter shared with its views that every in-place operation bumps.

This module is the core of the class: its storage, construction, version counter and
autograd state. The other methods come in families, one mixin class per module in
dyngrad/_tensor/ (the map is at the top of the class body below); most are one-line
forwards to :mod:`dyngrad.ops`, which is imported at the end of this module (the one
deferred import, DESIGN.md section 2; dyngrad/_tensor/__init__.py says how the families
reach it).
"""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any
from collections.abc import Callable

import numpy as np

from . import _backend as B
from ._tensor.arithmetic import ArithmeticMethods
from ._tensor.comparison import ComparisonMethods
from ._tensor.conversion import ConversionMethods
from ._tensor.indexing import IndexingMethods
from ._tensor.inplace import InplaceMethods
from ._tensor.random import RandomMethods
from ._tensor.linalg import LinalgMethods
from ._tensor.metadata import MetadataMethods
from ._tensor.metadata import check_device, cpu  # noqa: F401 - imported from here by creation, nn, dyngrad
from ._tensor.pointwise import PointwiseMethods
from ._tensor.reduction import ReductionMethods
from ._tensor.shape import ShapeMethods

if TYPE_CHECKING:
    from .autograd.graph import Node

__all__ = ["Tensor", "is_tensor"]


NOGRAD_VIEW_INPLACE = (
    "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
    "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
    "your code by moving both the view and the inplace either both inside the no_grad block "
    "(if you don't want the inplace to be tracked) or both outside (if you want the inplace "
    "to be tracked)."
)


def legacy_array(args: tuple, np_dtype: Any, who: str, like: Any = None) -> np.ndarray:
    """The array of PyTorch's legacy constructors (``torch.Tensor(...)``,
    ``torch.FloatTensor(...)``, ``x.new(...)``): no argument is an empty ``(0,)`` array; ints
    (or one ``Size``) are a shape, filled with zeros; one Tensor is its array (its dtype must
    be ``np_dtype`` unless ``like`` is None and the call is ``Tensor(t)``); a sequence or
    ndarray is data, cast to ``np_dtype``.

    Raises:
        TypeError: a lone number or other non-sequence, or a Tensor of another dtype.
    """
    if not args:
        return np.empty((0,), dtype=np_dtype)
    if all(type(a) is int or isinstance(a, np.integer) for a in args) or (
        len(args) == 1 and type(args[0]).__name__ == "Size"
    ):
        size = tuple(int(a) for a in (args[0] if len(args) == 1 and isinstance(args[0], tuple) else args))
        if any(n < 0 for n in size):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {list(size)}")
        return np.zeros(size, dtype=np_dtype)
    if len(args) != 1:
        raise TypeError(f"{who}(): expected a sequence, a Tensor or a size (ints), got "
                        f"({', '.join(type(a).__name__ for a in args)})")
    data = args[0]
    if isinstance(data, Tensor):
        if who == "Tensor" and like is None:
            return data._data
        if data._data.dtype != np_dtype:
            raise TypeError(f"expected {B._FROM_NP[np.dtype(np_dtype)]} (got {data.dtype})")
        return data._data
    if isinstance(data, (bool, int, float, complex, np.generic)) or not hasattr(data, "__len__") and not \
            isinstance(data, np.ndarray):
        raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
    return np.array(data, dtype=np_dtype)


class Tensor(
    MetadataMethods,
    ConversionMethods,
    ArithmeticMethods,
    PointwiseMethods,
    ComparisonMethods,
    ReductionMethods,
    LinalgMethods,
    ShapeMethods,
    IndexingMethods,
    InplaceMethods,
    RandomMethods,
):
    """A multi-dimensional array that can record the operations applied to it.

    Create tensors with :func:`dyngrad.tensor` and friends. ``Tensor(...)`` itself is
    PyTorch's legacy constructor: ``Tensor([1, 2])`` (data, cast to the default dtype, so
    float32), ``Tensor(2, 3)`` (a shape, filled with zeros where PyTorch leaves the memory
    uninitialized), ``Tensor()`` (empty); see :func:`legacy_array`.

    Attributes:
        data (Tensor): the values as a Tensor without history sharing this one's memory
            (PyTorch's ``.data``; see :attr:`data`).
        grad (Tensor | None): accumulated gradient, same shape and dtype as ``data``.
        grad_fn (Node | None): the node that created this tensor; None for leaves.
        requires_grad (bool): whether gradients are tracked for this tensor.

    Args:
        data: an ndarray to wrap (not copied), or None for an empty float tensor.
        requires_grad (bool): make the tensor a leaf that requires grad.
    Raises:
        TypeError: ``Tensor(x)`` with a lone number or another non-sequence, or several
            arguments that are not all ints.
        RuntimeError: a negative size, ``Tensor(-1)``.
        ValueError: data holding strings (PyTorch: TypeError).

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        >>> x.shape, x.dtype, x.is_leaf
        (dyngrad.Size([2, 2]), dyngrad.float32, True)
        >>> y = (x @ x).sum()
        >>> y.grad_fn.name()
        'SumBackward0'
        >>> y.backward()
        >>> x.grad
        tensor([[ 7., 11.],
                [ 9., 13.]])
    """

    # Where a method goes. This class body holds the core: storage, construction, the
    # version counter and autograd state (requires_grad, grad, grad_fn, is_leaf, hooks,
    # retain_grad, backward, detach, the in-place check). Every other method lives in the
    # mixin of its family, one module each in dyngrad/_tensor/ (each has ``__slots__ = ()``):
    #   metadata.py    what describes the array: shape, dtype, device, size(), stride()
    #   conversion.py  numpy(), item(), float(x), len, iter, repr, deepcopy, to(), double(), new_*()
    #   arithmetic.py  -x, x + y, x * y, x / y, x ** y, ... and add(), mul(), div(), pow(), ...
    #   pointwise.py   math value by value: abs, exp, log, sin, tanh, clamp, round, maximum, lerp
    #   comparison.py  x == y, x < y, isclose; ~x, x & y (logical, bitwise); isnan; __hash__
    #   reduction.py   sum, mean, max, argmax, any, std, norm, cumsum; softmax; sort, topk
    #   linalg.py      x @ y, matmul, mm, dot, outer, det, inverse; diagonal, trace, tril
    #   shape.py       view, reshape, permute, transpose, x.T, squeeze, expand, split; flip; clone
    #   indexing.py    x[i], x[i] = v, gather, scatter, index_select, masked_fill, where, nonzero
    #   inplace.py     everything else that changes self: x += y, zero_, fill_, copy_, add_, exp_
    #   random.py      random draws: uniform_, normal_, bernoulli_ ... fills, bernoulli, multinomial
    # An op method is a one-line forward, ``x.name(*args)`` -> ``ops.name(x, *args)``
    # (tests/test_tensor.py checks every name in ops.TENSOR_METHODS is one).

    __slots__ = (
        "_data",
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
    # A transform's wrapper tensor (vmap's BatchedTensor) sets this: its ``._data`` does not
    # hold its values, so ops must reach it through Functions (the interpreter stack).
    _is_wrapper = False

    # The slots' types, for readers and type checkers (annotations only: no class attributes).
    _data: np.ndarray  # the values (an ndarray); dyngrad's own code reads this, users read .data / .numpy()
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

    def __init__(self, *args: Any, requires_grad: bool = False, device: Any = None) -> None:
        # PyTorch's legacy constructor (``torch.Tensor(...)``; see legacy_array below)
        check_device(device)
        self._data = legacy_array(args, B.get_default_dtype().np, "Tensor")
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
        if len(args) == 1 and isinstance(args[0], Tensor):  # Tensor(t) aliases t's storage
            self._vc = args[0]._vc
        if requires_grad:
            self.requires_grad = True

    # ------------------------------------------------------------------ .data (PyTorch's)
    @property
    def data(self) -> Tensor:
        """This tensor's values as a new Tensor without history (PyTorch's ``.data``).

        The result shares memory with this tensor (writing into it changes this tensor) but
        has its own version counter, starting at 0: in-place changes through ``.data`` are
        invisible to autograd's saved-tensor check, exactly as in PyTorch (so
        ``x.data.mul_(2)`` after ``x`` was saved for backward is *not* detected; prefer
        ``with dyngrad.no_grad():`` or ``x.detach()``, whose changes are). It is a leaf that
        does not require grad, is never a view, and is a plain Tensor (``p.data`` of a
        Parameter is not a Parameter). Each access makes a new Tensor
        (``x.data is x.data`` is False). The ndarray itself is ``x.numpy()`` /
        ``np.asarray(x)`` (``x._data`` inside dyngrad).

        Assigning ``x.data = other`` makes ``x`` use ``other``'s memory, shape and dtype
        (``other`` is not copied: the two share memory afterwards), keeping ``x``'s identity,
        ``grad``, ``grad_fn``, ``requires_grad`` and version counter (pruning and weight
        surgery: ``p.data = p.data[:, :5]``). Views of ``x`` made before keep the old memory.

        Returns:
            Tensor: ``(*)``, this tensor's shape and dtype, a leaf without history.
        Raises:
            TypeError: assigning something that is not a Tensor.
            RuntimeError: assigning a non-floating tensor to a tensor that requires grad;
                ``del x.data``.

        Example:
            >>> import dyngrad
            >>> p = dyngrad.nn.Parameter(dyngrad.ones(3))
            >>> p.data.mul_(2)
            tensor([2., 2., 2.])
            >>> p.data = p.data[:2]
            >>> p
            Parameter containing:
            tensor([2., 2.], requires_grad=True)
        """
        return Tensor._make(self._data)

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {_type_name(value)}")
        if value._is_wrapper:
            raise RuntimeError(
                "mutating directly with `.data` under vmap transform is not allowed: the new value "
                "is a batched tensor (one value per example); return it from the function instead"
            )
        new = value._data
        old = self._data
        if self._requires_grad and B.kind(new) not in "fc":
            raise RuntimeError(
                "data set to a tensor that requires gradients must be floating point or complex dtype"
            )
        if grad_mode.state.interpreters:  # forward mode: the tangent stays with the tensor
            _keep_tangents(self, value, old)  # (raises before any change when it must)
        else:
            self._data = new
        if new.shape != old.shape or new.dtype != old.dtype:
            _set_data_meta(self, old, new)

    @data.deleter
    def data(self) -> None:
        raise RuntimeError("Deleting tensor data is not allowed. Delete tensor instead!")

    # ------------------------------------------------------------------ construction
    @classmethod
    def _make(cls, data: np.ndarray) -> Tensor:
        """Fast internal constructor: wrap ``data`` (an ndarray) as a fresh leaf."""
        t = object.__new__(cls)
        t._data = data
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
        t = Tensor._make(self._data)
        t._vc = self._vc
        t._requires_grad = self._requires_grad and self.grad_fn is None
        return t

    def _attach(self, node: Any, output_nr: int) -> Tensor:
        """An alias of this (saved output) tensor whose history is ``node``."""
        t = Tensor._make(self._data)
        t._vc = self._vc
        t.grad_fn = node
        t._output_nr = output_nr
        t._requires_grad = True
        return t

    # ------------------------------------------------------------------ version counter
    @property
    def _version(self) -> int:
        """Bumped by every in-place operation on this tensor or a view sharing its memory."""
        return self._vc[0]

    def _bump(self) -> None:
        self._vc[0] += 1

    # ------------------------------------------------------------------ autograd state
    @property
    def requires_grad(self) -> bool:
        """Whether operations on this tensor are recorded for backward (settable on leaves).

        Returns:
            bool: the flag; set it with ``x.requires_grad = True`` or :meth:`requires_grad_`
            (RuntimeError on a non-floating tensor, or clearing it on a non-leaf).

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2)
            >>> x.requires_grad = True
            >>> x.requires_grad, (x * 2).requires_grad
            (True, True)
        """
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
        if value and B.kind(self._data) != "f":
            raise RuntimeError(
                "only Tensors of floating point dtype can require gradients, got "
                f"{B.from_np_dtype(self._data.dtype)!r}"
            )
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        """Set ``requires_grad`` in place (leaves only); returns self.

        Args:
            requires_grad (bool): the new flag (default True).
        Returns:
            Tensor: ``self``, ``(*)``.
        Raises:
            RuntimeError: on a non-leaf tensor (asking to stop tracking it), or asking an
                integer or bool tensor to require grad.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.zeros(2).requires_grad_()
            >>> x.requires_grad, x.is_leaf
            (True, True)
        """
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors created by the user (no ``grad_fn``).

        Returns:
            bool: ``grad_fn is None``.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2, requires_grad=True)
            >>> x.is_leaf, (x * 2).is_leaf
            (True, False)
        """
        return self.grad_fn is None

    @property
    def output_nr(self) -> int:
        """Which output of its ``grad_fn`` this tensor is (0 for leaves and single outputs).

        Returns:
            int: the index into ``grad_fn``'s outputs.

        Example:
            >>> import dyngrad
            >>> a, b = dyngrad.ones(4, requires_grad=True).split(2)
            >>> a.output_nr, b.output_nr
            (0, 1)
        """
        return self._output_nr

    @property
    def grad(self) -> Tensor | None:
        """The accumulated gradient (leaves, and non-leaves after ``retain_grad``).

        Reading it on a non-leaf that does not retain its grad warns (as PyTorch): backward
        never fills it, the usual cause of a silent ``None``.

        Returns:
            Tensor | None: ``(*)``, this tensor's shape and dtype, or None before any backward.
            Assigning checks the value (TypeError for a non-Tensor, RuntimeError for another
            shape or dtype); ``del x.grad`` or ``x.grad = None`` clears it.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2, requires_grad=True)
            >>> x.grad is None
            True
            >>> (3 * x).sum().backward()
            >>> x.grad
            tensor([3., 3.])
        """
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
            if value._data.shape != self._data.shape:
                raise RuntimeError(
                    f"assigned grad has data of a different size: expected {list(self.shape)}, "
                    f"got {list(value.shape)}"
                )
            if value._data.dtype != self._data.dtype:
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
        """Whether :meth:`retain_grad` was called on this non-leaf (leaves: False).

        Returns:
            bool: True when backward will fill this non-leaf's ``.grad``.

        Example:
            >>> import dyngrad
            >>> h = dyngrad.ones(2, requires_grad=True) * 2
            >>> h.retain_grad()
            >>> h.retains_grad
            True
        """
        return self._retains_grad

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward (a no-op on leaves).

        Raises:
            RuntimeError: when the tensor does not require grad.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2, requires_grad=True)
            >>> h = x * 3
            >>> h.retain_grad()
            >>> (h ** 2).sum().backward()
            >>> h.grad                                   # 2h
            tensor([6., 6.])
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
        if always or grad_mode.state.enabled:
            _ops.refresh_view(self)

    def _rebase_dirty_view(self, name: str) -> None:
        """A custom Function ``name`` modified this view in place (``mark_dirty``): its base
        records the change, as PyTorch's CopySlices (ops/_view_inplace.py)."""
        _ops.rebase_dirty_view(self, name)

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

        Args:
            hook (callable): ``hook(grad)``, ``grad`` of this tensor's shape ``(*)``,
                returning None (to observe) or a Tensor ``(*)`` (to replace the gradient).
        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2, requires_grad=True)
            >>> h = x * 2
            >>> handle = h.register_hook(lambda g: g * 10)     # scale the gradient flowing through h
            >>> h.sum().backward()
            >>> x.grad
            tensor([20., 20.])
            >>> handle.remove()
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

        Args:
            hook (callable): ``hook(tensor)`` with this leaf (``tensor.grad`` holds the new sum,
                ``(*)``, this tensor's shape); its return value is ignored.
        Returns:
            RemovableHandle: ``handle.remove()`` unregisters the hook.
        Raises:
            RuntimeError: on a non-leaf tensor or one that does not require grad.

        Example:
            >>> import dyngrad
            >>> w = dyngrad.ones(2, requires_grad=True)
            >>> handle = w.register_post_accumulate_grad_hook(lambda t: print("grad", t.grad))
            >>> (w * 3).sum().backward()
            grad tensor([3., 3.])
            >>> handle.remove()
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
        """Compute the gradient of this tensor with respect to the graph's leaves and add it
        to their ``.grad`` (see :func:`dyngrad.autograd.backward`).

        Args:
            gradient (Tensor, optional): the vector of the vector-Jacobian product, this tensor's
                shape ``(*)``; may be omitted only for a one-element tensor (it means 1).
            retain_graph (bool, optional): keep the saved tensors for another backward
                (default: ``create_graph``).
            create_graph (bool): record the backward pass, for higher-order derivatives.
            inputs (sequence of Tensor, optional): accumulate only into these tensors' ``.grad``.
        Raises:
            RuntimeError: this tensor does not require grad; no ``gradient`` for a tensor of
                more than one element; the graph was already freed by an earlier backward.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
            >>> (x ** 2).sum().backward()
            >>> x.grad                                   # 2x
            tensor([2., 4.])
            >>> (x ** 2).backward(dyngrad.tensor([1.0, 0.0]))   # gradients accumulate
            >>> x.grad
            tensor([4., 4.])
        """
        _ops.backward(self, gradient, retain_graph, create_graph, inputs=inputs)  # autograd.backprop's

    def detach(self) -> Tensor:
        """A new leaf sharing memory and the version counter, with no history.

        Returns:
            Tensor: ``(*)``, the same values and storage (writes show in both),
            ``requires_grad=False``, no ``grad_fn``.

        Example:
            >>> import dyngrad
            >>> x = dyngrad.ones(2, requires_grad=True)
            >>> y = (x * 2).detach()
            >>> y.requires_grad, y.grad_fn, y.is_leaf
            (False, None, True)
        """
        t = Tensor._make(self._data)
        t._vc = self._vc
        return t

    def detach_(self) -> Tensor:
        """Detach in place: drop ``grad_fn`` and ``requires_grad``; returns self.

        Returns:
            Tensor: ``self``, ``(*)``, now a leaf that does not require grad.
        Raises:
            RuntimeError: on a view (its history is its base's; use ``detach()``).

        Note:
            ``retains_grad`` stays True, as in PyTorch 2.13, and a later in-place op that
            records a history for the tensor itself (``x.add_(y)`` with ``y`` requiring
            grad) raises RuntimeError after writing the values, as PyTorch does; written
            through a view (``x[1:].add_(y)``, ``x[0] = y``) it raises nothing and
            ``x.grad`` stays None after backward, again as PyTorch.

        Example:
            >>> import dyngrad
            >>> y = dyngrad.ones(2, requires_grad=True) * 2
            >>> y.detach_() is y, y.grad_fn, y.requires_grad
            (True, None, False)
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

    # ------------------------------------------------------------------ in-place check
    def _check_inplace(self) -> None:
        """Refuse in-place changes that would corrupt autograd state."""
        if self._base is not None and self.grad_fn is not None and grad_mode.state.enabled:
            _check_multi_output_view(self)
        if getattr(self, "_nograd_view", None) == 2 and grad_mode.state.enabled and self.grad_fn is not None:
            raise RuntimeError(
                f"Output {self._output_nr} of {type(self.grad_fn)._forward_cls.__name__} is a view and is being "
                "modified inplace. This view was created inside a custom Function (or because an input was returned "
                "as-is) and the autograd logic to handle view+inplace would override the custom backward associated "
                "with the custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix "
                "this by cloning the output of the custom Function."
            )
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


# PyTorch's view ops with several outputs (an in-place change of one output, or of a view of
# one, is refused while recording) and the single-output view nodes a view of them goes through
_MULTI_OUTPUT_VIEWS = frozenset({"UnbindBackward0", "SplitBackward0", "SplitWithSizesBackward0"})
_VIEW_NODES = frozenset({"ViewBackward0", "SliceBackward0", "SelectBackward0", "TBackward0", "TransposeBackward0",
                         "PermuteBackward0", "UnsqueezeBackward0", "SqueezeBackward0", "SqueezeBackward1",
                         "SqueezeBackward2", "ExpandBackward0", "DiagonalBackward0", "NarrowBackward0",
                         "AliasBackward0", "AsStridedBackward0", "UnfoldBackward0", "ViewAsBackward0"})


def _check_multi_output_view(t: Tensor) -> None:
    """PyTorch's refusal of an in-place change, while recording, of an output of
    ``unbind``/``split``/``chunk`` (or of a view of one): the multi-output node cannot be
    rebased. (dyngrad could rebase it; PyTorch code must not rely on it.)"""
    node = t.grad_fn
    for _ in range(64):
        name = type(node).__name__
        if name in _MULTI_OUTPUT_VIEWS:
            fn = type(t.grad_fn).__name__
            fn = fn[: fn.rindex("Backward")] if "Backward" in fn else fn
            raise RuntimeError(
                f"Output {t._output_nr} of {fn} is a view and is being modified inplace. This view is the output of "
                "a function that returns multiple views. Such functions do not allow the output views to be modified "
                "inplace. You should replace the inplace operation by an out-of-place one."
            )
        if name not in _VIEW_NODES or not node.next_functions:
            return
        node = node.next_functions[0][0]
        if node is None:
            return


def _type_name(obj: Any) -> str:
    """``int``, ``numpy.ndarray``: the type of ``obj`` as PyTorch's messages name it."""
    t = type(obj)
    return t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"


def _set_data_meta(t: Tensor, old: np.ndarray, new: np.ndarray) -> None:
    """``t.data = other`` changed ``t``'s shape or dtype (from ``old`` to ``new``): its
    gradient accumulator (if one is alive) describes the new values, and a dtype change gets
    a new one, as PyTorch's ``set_data``."""
    acc = t._acc() if t._acc is not None else None
    if acc is None:
        return
    if new.dtype != old.dtype:
        t._acc = None
    else:
        acc._output_meta = ((new.shape, new.dtype),)


def _keep_tangents(t: Tensor, value: Tensor, old: np.ndarray) -> None:
    """``t.data = value`` with transforms active: ``t`` keeps its per-level state (forward
    mode's tangent: PyTorch's dual tensors keep theirs). A dual level keys tangents by the
    array, so ``t`` gets a view of ``value``'s memory of its own, handed each level's state
    through a stand-in (``Interpreter.share``, the generic hook: no import of transforms).

    Raises:
        RuntimeError: the shape changes while ``t`` has a tangent."""
    new = value._data
    stack = grad_mode.state.interpreters
    if new.shape != old.shape and any(i.kind == "dual" and i.get(t) is not None for i in stack):
        raise RuntimeError(
            f"cannot set .data of a dual tensor to a tensor of another shape ({list(new.shape)}; "
            f"its tangent has shape {list(old.shape)}); make_dual the new value instead"
        )
    stand_in = Tensor._make(new.view())
    for interp in stack:
        interp.share(t, stand_in)
    t._data = stand_in._data
    for interp in stack:
        interp.share(stand_in, t)


def is_tensor(obj: Any) -> bool:
    """True when ``obj`` is a dyngrad Tensor (also a subclass such as ``nn.Parameter``).

    Args:
        obj (object): anything.
    Returns:
        bool: ``isinstance(obj, dyngrad.Tensor)``.
    Raises:
        Nothing: it cannot fail.

    Example:
        >>> import dyngrad
        >>> dyngrad.is_tensor(dyngrad.zeros(1)), dyngrad.is_tensor(1.0)
        (True, False)
    """
    return isinstance(obj, Tensor)


# The deferred imports: the autograd package and the ops are built on Tensor (they import
# it), and Tensor's methods use them, so they are imported here, once Tensor exists. ``ops``
# is the one upward import DESIGN.md allows (tensor -> ops): the methods of this class and of
# its mixins in dyngrad/_tensor/ reach every op, a stale view's history and backward() as
# ``_ops`` of this module (the mixins import this module as ``_core``).
from .autograd import grad_mode  # noqa: E402
from .autograd.graph import AccumulateGrad, RemovableHandle, _HookDict  # noqa: E402
from . import ops as _ops  # noqa: E402
