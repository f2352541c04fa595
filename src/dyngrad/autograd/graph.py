"""Graph objects: nodes, edges, saved tensors and hooks.

A *node* (``grad_fn``) is one recorded operation. It knows its ``next_functions``, the edges
``(node, input_nr)`` toward the producers of its inputs (``(None, 0)`` for inputs that need
no gradient), the tensors it saved for backward, and its hooks. Leaves that require grad are
reached through an :class:`AccumulateGrad` node that owns the leaf. Nodes hold no reference
to their outputs, so a graph is freed by reference counting alone.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Callable
from typing import Any, NamedTuple

from ._context import context
from .grad_mode import no_grad as _no_grad
from .ledger import saved_tensor_report  # noqa: F401 - re-exported: the saved-tensor ledger (issue 5)

__all__ = [
    "Node",
    "AccumulateGrad",
    "GradientEdge",
    "get_gradient_edge",
    "RemovableHandle",
    "SavedTensor",
    "saved_tensors_hooks",
    "disable_saved_tensors_hooks",
    "register_multi_grad_hook",
    "save_on_cpu",
    "increment_version",
]

_seq = itertools.count()
_LEAF_SEQ = 1 << 62  # AccumulateGrad runs as soon as it is ready, as in PyTorch


def next_sequence_nr() -> int:
    return next(_seq)


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` unregisters the hook (idempotent).
    Also a context manager that removes the hook on exit."""

    _ids = itertools.count()
    __slots__ = ("_store", "id")

    def __init__(self, store: dict) -> None:
        self._store = weakref.ref(store)
        self.id = next(RemovableHandle._ids)

    def remove(self) -> None:
        store = self._store()
        if store is not None:
            store.pop(self.id, None)

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.remove()


class _HookDict(dict):
    """A dict of hooks keyed by handle id (weak-referenceable, insertion ordered)."""

    __slots__ = ("__weakref__",)

    def add(self, fn: Callable) -> RemovableHandle:
        if not callable(fn):
            raise TypeError(f"a hook must be callable, got {type(fn).__name__}")
        h = RemovableHandle(self)
        self[h.id] = fn
        return h


class GradientEdge(NamedTuple):
    """An edge of the graph: the gradient flowing into output ``output_nr`` of ``node``."""

    node: Any
    output_nr: int


def get_gradient_edge(tensor: Any) -> GradientEdge:
    """The edge through which ``tensor``'s gradient flows: ``(grad_fn, output_nr)`` for a
    non-leaf, ``(AccumulateGrad, 0)`` for a leaf that requires grad.

    Raises:
        RuntimeError: when ``tensor`` does not require grad.
    """
    if not tensor.requires_grad:
        raise RuntimeError("get_gradient_edge: the tensor does not require grad, it has no edge")
    if tensor.grad_fn is not None:
        return GradientEdge(tensor.grad_fn, tensor._output_nr)
    return GradientEdge(tensor._accumulator(), 0)


class Node:
    """Base of every backward node (``grad_fn``).

    Attributes:
        next_functions: tuple of ``(node or None, input_nr)``, one per forward input.
        metadata: a free dict for the user (as PyTorch's ``grad_fn.metadata``).
    """

    _name = "Node"
    _materialize_grads = True
    # Defaults live on the class so creating a node sets only what differs.
    next_functions: tuple = ()
    _saved: tuple | None = ()
    _freed = False
    _pre_hooks: _HookDict | None = None
    _post_hooks: _HookDict | None = None
    _tensor_pre_hooks: dict | None = None
    _retain_hooks: dict | None = None
    _input_meta: tuple = ()
    _output_meta: tuple = ()
    _site: str | None = None
    _seq = 0
    # Under create_graph, the indices of forward inputs on which all of a built-in op's
    # gradients depend, as if computed in one fused backward (PyTorch's convolution and
    # norm backwards): when one of them requires grad, a gradient that came out constant
    # still requires grad (engine._link_constant_grads). Empty: only saved tensors count.
    _link_zero_grads: tuple = ()
    # First-order backward on ndarrays (engine invariant 6): ``fn(node, *grad_arrays) ->
    # tuple`` (one array or None per forward input) or NotImplemented (use ``apply``).
    _backward_arrays: Callable | None = None

    def __init__(self) -> None:
        self._seq = next(_seq)

    # ----------------------------------------------------------------- inspection
    def name(self) -> str:
        """The node's class name, e.g. ``'MulBackward0'``."""
        return type(self)._name

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"

    @property
    def metadata(self) -> dict:
        d = self.__dict__.get("_metadata")
        if d is None:
            d = self.__dict__["_metadata"] = {}
        return d

    def _num_outputs(self) -> int:
        return len(self._output_meta) or 1

    # ----------------------------------------------------------------- hooks
    def register_hook(self, fn: Callable) -> RemovableHandle:
        """Post hook ``fn(grad_inputs, grad_outputs) -> tuple | None`` run after this node's
        backward; a returned tuple replaces ``grad_inputs``."""
        if self._post_hooks is None:
            self._post_hooks = _HookDict()
        return self._post_hooks.add(fn)

    def register_prehook(self, fn: Callable) -> RemovableHandle:
        """Pre hook ``fn(grad_outputs) -> tuple | None`` run before this node's backward; a
        returned tuple replaces ``grad_outputs``."""
        if self._pre_hooks is None:
            self._pre_hooks = _HookDict()
        return self._pre_hooks.add(fn)

    def _register_tensor_hook(self, output_nr: int, fn: Callable) -> RemovableHandle:
        if self._tensor_pre_hooks is None:
            self._tensor_pre_hooks = {}
        return self._tensor_pre_hooks.setdefault(output_nr, _HookDict()).add(fn)

    def _register_retain_grad(self, output_nr: int, tensor: Any) -> None:
        if self._retain_hooks is None:
            self._retain_hooks = {}
        self._retain_hooks[output_nr] = weakref.ref(tensor)

    # ----------------------------------------------------------------- saved values
    def _release(self) -> None:
        """Free saved tensors (called by the engine after backward unless retain_graph)."""
        if self._saved:
            self._saved = None
            self._freed = True

    def apply(self, *grad_outputs: Any) -> tuple:  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, *grad_outputs: Any) -> Any:
        return self.apply(*grad_outputs)


class AccumulateGrad(Node):
    """The node that owns a leaf tensor that requires grad; the engine accumulates the
    gradient reaching it into ``variable.grad``."""

    _name = "AccumulateGrad"

    def __init__(self, variable: Any) -> None:
        self._seq = _LEAF_SEQ
        self._output_meta = ((variable._data.shape, variable._data.dtype),)
        self.variable = variable

    def apply(self, *grad_outputs: Any) -> tuple:
        return ()


class SavedTensor:
    """A tensor saved for backward, stamped with its version.

    Inputs are kept as the tensor itself; outputs are kept as a shallow copy without
    history (so the node does not refer to itself) and re-attached to the node on unpack.
    Unpacking checks the version counter and raises if the tensor was modified in place.
    """

    # An output is kept as its array and version counter (``_odata``, ``_ovc``): the history-less
    # alias (``tensor``) is made only when something asks for it, not once per recorded op.
    __slots__ = ("_tensor", "_odata", "_ovc", "_orq", "version", "is_output", "output_nr", "packed", "unpack_hook",
                 "had_fn", "origin")
    _tensor: Any
    _odata: Any
    _ovc: Any
    _orq: bool

    @property
    def tensor(self) -> Any:
        """The saved Tensor (an output: a history-less alias); None when a pack hook holds it
        (then ``unpack_hook`` is set)."""
        t = self._tensor
        if t is None and self._odata is not None:
            t = self._tensor = _tensor_cls()._make(self._odata)
            t._vc = self._ovc
            t._requires_grad = self._orq
        return t

    @tensor.setter
    def tensor(self, value: Any) -> None:
        self._tensor = value
        self._odata = None

    def __init__(self, tensor: Any, is_output: bool, output_nr: int = 0) -> None:
        self.is_output = is_output
        self.output_nr = output_nr
        hooks = _hooks_state.saved_hooks if _hooks_in_use[0] else None
        if hooks and not _hooks_state.saved_hooks_disabled:
            pack, unpack = hooks[-1]
            version = tensor._vc[0]
            with _no_grad():  # as PyTorch: pack hooks run with grad mode off
                self.packed = pack(tensor)
            if tensor._vc[0] != version:
                raise RuntimeError(
                    f"A saved tensor pack hook ('{getattr(pack, '__name__', pack)}') is modifying "
                    f"its input [{tensor.dtype.name} tensor of shape {list(tensor.shape)}] in "
                    "place. Tensors provided as input to pack hook cannot be modified by in-place "
                    "operations as this can lead to unexpected side-effects (the forward's values "
                    "would change); modify a clone() instead."
                )
            self.unpack_hook = unpack
            self._tensor = self._odata = None
            self.version = -1
            # (a weak reference to what was packed: ``grad_fn._saved_<name>`` finds the saved
            # value of a parameter by the graph edge of the tensor it came from)
            self.origin = weakref.ref(tensor)
            return
        if hooks and _hooks_state.saved_hooks_disabled:  # (the thread-local read only when hooks exist)
            raise RuntimeError(_hooks_state.saved_hooks_disabled)
        self.packed = None
        self.unpack_hook = None
        self.version = tensor._vc[0]
        if is_output:
            self._tensor = None
            self._odata = tensor._data
            self._ovc = tensor._vc
            self._orq = tensor._requires_grad and tensor.grad_fn is None  # (as Tensor._shallow)
            self.had_fn = False
        else:
            self._tensor = tensor
            self._odata = None
            self.had_fn = tensor.grad_fn is not None

    def unpack(self, node: Node) -> Any:
        if self.unpack_hook is not None:
            t = self.unpack_hook(self.packed)
            return t
        t = self._tensor
        if t is None:  # an output kept as its array: the alias with history, made directly
            if self._ovc[0] == self.version:
                t = _tensor_cls()._make(self._odata)
                t._vc = self._ovc
                t.grad_fn = node
                t._output_nr = self.output_nr
                t._requires_grad = True
                return t
            t = self.tensor  # (for the error below)
        if t._vc[0] != self.version:
            raise RuntimeError(
                "one of the variables needed for gradient computation has been modified by an "
                f"inplace operation: [{t.dtype.name} tensor of shape {list(t.shape)}], which is "
                f"{'output ' + str(self.output_nr) + ' of ' if self.is_output else 'saved by '}"
                f"{node.name()}, is at version {t._vc[0]}; expected version {self.version} "
                "instead. Hint: clone() the tensor before modifying it in place, or enable "
                "anomaly detection (dyngrad.autograd.set_detect_anomaly(True)) to find the "
                "operation that created it."
            )
        if self.is_output:
            return t._attach(node, self.output_nr)
        if self.had_fn and t.grad_fn is None:
            raise RuntimeError(
                f"Trying to use a saved tensor [{t.dtype.name} tensor of shape {list(t.shape)}], "
                f"saved by {node.name()}, that has been detached in-place, i.e. with .detach_(). "
                "This is not supported, please use out-of-place `.detach()` instead."
            )
        return t

    def unpack_data(self, node: Node) -> Any:
        """The saved ndarray, with the checks of :meth:`unpack` (version, in-place detach);
        None when only :meth:`unpack` can give it (a pack hook holds it, or it is a
        transform's wrapper whose ``_data`` does not hold its values)."""
        if self.unpack_hook is not None:
            return None
        t = self._tensor
        if t is None:  # an output kept as its array
            if self._ovc[0] != self.version:
                self.unpack(node)  # raises the error unpack raises
            return self._odata
        if t._vc[0] != self.version or (self.had_fn and t.grad_fn is None):
            self.unpack(node)  # raises the error unpack raises
        if t._is_wrapper:
            return None
        return t._data


# The Tensor class, for the alias of a saved output (tensor.py sits above this module, so
# function.py, which makes every SavedTensor, puts it here when it is imported).
_TENSOR: list = []


def _tensor_cls() -> Any:
    return _TENSOR[0]


_hooks_state = context  # saved-tensor hooks: context.saved_hooks, .saved_hooks_disabled
# Process-wide count of open saved_tensors_hooks blocks: saving a tensor reads the
# (slower) thread-local stack only when some thread has one open.
_hooks_in_use = [0]


class saved_tensors_hooks:  # noqa: N801
    """Context manager: tensors saved for backward inside the block are passed through
    ``pack_hook(tensor) -> Any`` at save time and ``unpack_hook(packed) -> Tensor`` when
    backward needs them (to offload, compress or log them). No version check is made on
    tensors saved through hooks, as in PyTorch.
    """

    def __init__(self, pack_hook: Callable, unpack_hook: Callable) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        if _hooks_state.saved_hooks_disabled:
            raise RuntimeError(_hooks_state.saved_hooks_disabled)
        _hooks_state.saved_hooks.append((self.pack_hook, self.unpack_hook))
        _hooks_in_use[0] += 1
        return self

    def __exit__(self, *exc: Any) -> None:
        _hooks_state.saved_hooks.pop()
        _hooks_in_use[0] -= 1


class disable_saved_tensors_hooks:  # noqa: N801
    """Context manager: inside it, using ``saved_tensors_hooks`` raises RuntimeError with
    ``error_message``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message

    def __enter__(self) -> None:
        self.prev = _hooks_state.saved_hooks_disabled
        _hooks_state.saved_hooks_disabled = self.error_message

    def __exit__(self, *exc: Any) -> None:
        _hooks_state.saved_hooks_disabled = self.prev


def register_multi_grad_hook(tensors: Any, fn: Callable, *, mode: str = "all") -> Any:
    """Call ``fn`` once per backward pass after the gradients of ``tensors`` are computed.

    Args:
        tensors: a sequence of tensors that require grad.
        fn: with ``mode="all"``, ``fn(grads)`` gets a tuple with each tensor's gradient
            (None where it got none) after all that will be computed were; with
            ``mode="any"``, ``fn(grad)`` is called with the first gradient computed.
    Returns:
        a handle whose ``remove()`` unregisters the hooks.
    """
    if mode not in ("all", "any"):
        raise ValueError(f"register_multi_grad_hook: mode must be 'all' or 'any', got {mode!r}")
    tensors = tuple(tensors)
    n = len(tensors)
    state: dict[str, Any] = {"grads": [None] * n, "count": 0, "fired": False, "pass": None}
    def make(i: int) -> Callable:
        def hook(grad: Any) -> None:
            p = context.passes[-1] if context.passes else None  # the running backward pass
            if state["pass"] is not p:
                state.update(grads=[None] * n, count=0, fired=False, **{"pass": p})
                expected = sum(1 for t in tensors if p is not None and p.will_compute(t))
                state["expected"] = expected or n
            if mode == "any":
                if not state["fired"]:
                    state["fired"] = True
                    fn(grad)
                return
            state["grads"][i] = grad
            state["count"] += 1
            if state["count"] == state["expected"]:
                fn(tuple(state["grads"]))

        return hook

    handles = [t.register_hook(make(i)) for i, t in enumerate(tensors)]

    class _Multi:
        def remove(self) -> None:
            for h in handles:
                h.remove()

    return _Multi()


def rebase_retain_grad(tensor: Any, old_fn: Any, old_nr: int, *, through_view: bool = False) -> None:
    """An in-place op gave ``tensor`` a new ``grad_fn``: move its ``retain_grad`` from the
    old node to the new one, so ``.grad`` holds the gradient of the current value (as in
    PyTorch). Tensor hooks stay on the old node: they see the old value's gradient.

    Raises:
        RuntimeError: ``tensor`` called ``retain_grad()``, was then detached in place
            (``detach_()``, so it had no ``grad_fn``), and an in-place op on the tensor
            itself (not through a view of it, ``through_view``) now gives it a history
            again. PyTorch 2.13 refuses this (an internal assertion at the same step, after
            the values were written); dyngrad raises at the same point, the tensor keeps
            the new values and history. Changed through a view instead (``x[1:].add_(y)``,
            ``x[0] = y``), PyTorch raises nothing and ``x.grad`` stays None after backward:
            so does dyngrad.
    """
    if not tensor._retains_grad or tensor.grad_fn is old_fn:
        return
    if old_fn is None and through_view:
        return  # detach_()ed, then changed through a view: PyTorch retains nothing (.grad None)
    if old_fn is None and tensor.grad_fn is not None:
        raise RuntimeError(
            f"in-place operation ({type(tensor.grad_fn).__name__}) on a tensor that called "
            "retain_grad() and was then detached in place with detach_(): the in-place op "
            "records a new history for it, and which gradient .grad should retain is "
            "ambiguous (PyTorch 2.13 refuses this too). Use x = x.detach() instead of "
            "x.detach_(), or call retain_grad() only after the in-place op."
        )
    hooks = old_fn._retain_hooks if old_fn is not None else None
    if hooks:
        ref = hooks.get(old_nr)
        if ref is not None and ref() is tensor:
            del hooks[old_nr]
    if tensor.grad_fn is not None:
        tensor.grad_fn._register_retain_grad(tensor._output_nr, tensor)



# --- apisurface: save_on_cpu, increment_version
class save_on_cpu(saved_tensors_hooks):  # noqa: N801
    """``torch.autograd.graph.save_on_cpu``: tensors saved for backward inside the block are
    kept on the CPU and moved back at unpack. dyngrad's tensors always live on the CPU
    (NumPy), so packing keeps the tensor as it is; the context still counts as an active
    saved-tensor hook (no version check at unpack, as PyTorch).

    Args:
        pin_memory: accepted (there is no pinned memory on the host-only backend).
        device_type: accepted (``"cuda"`` in PyTorch).
    """

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(_pack_on_cpu, _unpack_from_cpu)


def _pack_on_cpu(t: Any) -> Any:
    return t


def _unpack_from_cpu(t: Any) -> Any:
    return t


def increment_version(tensor: Any) -> None:
    """Bump the version counter of ``tensor`` (or of each tensor of an iterable), as an
    in-place change does: a saved copy of it then fails its version check at backward. For
    code that changes a tensor's memory behind autograd's back (``t.numpy()[...] = v``).
    """
    ts = (tensor,) if hasattr(tensor, "_vc") else tuple(tensor)
    for t in ts:
        t._vc[0] += 1
