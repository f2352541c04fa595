"""Module hooks: the identity Functions that give a Module its full backward hooks, and
hook registration helpers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..autograd.function import Function, TransformUnsupported
from ..autograd.graph import RemovableHandle, _HookDict
from ..tensor import Tensor

if TYPE_CHECKING:
    from .module import Module


class _BackwardHookFn(Function):
    """Identity on ``tensors`` whose backward hands the incoming gradients to ``state``
    (which runs a module's full backward hooks and may replace them)."""

    trusted = True
    _node_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx: Any, state: Any, *tensors: Tensor) -> tuple:
        ctx.state = state
        return tuple(Tensor._make(t._data) for t in tensors)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple:
        return (None,) + tuple(ctx.state(grads))

    @staticmethod
    def jvp(ctx: Any, _state: Any, *us: Any) -> tuple:
        """Forward mode: the identity passes the tangents through."""
        return tuple(us)

    @staticmethod
    def vmap(info: Any, in_dims: tuple, state: Any, *tensors: Tensor) -> Any:
        """No batching rule on purpose: a module's full backward hooks must see per-example
        gradients, and one batched node would hand them the whole batch (a per-op loop
        would call them once per example for one forward call). So vmap runs the whole
        function once per example instead (with a warning)."""
        raise TransformUnsupported("a module with full backward hooks (register_full_backward_hook)")


class _HookState:
    """One forward call's link between the output-side and the input-side identity nodes."""

    def __init__(self, module: Module, n_in: int, pos: list) -> None:
        self.module, self.n_in, self.pos = module, n_in, pos
        self.grad_output: tuple = ()

    def on_output(self, grads: tuple) -> tuple:
        m = self.module
        for hook in list(m._backward_pre_hooks.values()):
            r = hook(m, grads)
            if r is not None:
                grads = tuple(r) if isinstance(r, (tuple, list)) else (r,)
        self.grad_output = grads
        if not self.pos:  # no input requires grad: the hooks see grad_input of Nones now
            self._run((None,) * self.n_in)
        return grads

    def on_input(self, grads: tuple) -> tuple:
        full: list = [None] * self.n_in
        for p, g in zip(self.pos, grads):
            full[p] = g
        new = self._run(tuple(full))
        return tuple(new[p] for p in self.pos)

    def _run(self, grad_input: tuple) -> tuple:
        m = self.module
        for hook in list(m._backward_hooks.values()):
            r = hook(m, grad_input, self.grad_output)
            if r is not None:
                r = tuple(r) if isinstance(r, (tuple, list)) else (r,)
                if len(r) != len(grad_input):
                    raise RuntimeError(
                        f"backward hook of {m._get_name()} returned {len(r)} gradients, expected {len(grad_input)}"
                    )
                grad_input = r
        return grad_input


def _wrap_outputs(out: Any, state: _HookState) -> Any:
    single = isinstance(out, Tensor)
    seq = (out,) if single else out
    if not isinstance(seq, (tuple, list)):
        return out
    idx = [i for i, o in enumerate(seq) if isinstance(o, Tensor) and o.requires_grad]
    if not idx:
        return out
    new = _BackwardHookFn.apply(state.on_output, *[seq[i] for i in idx])
    lst = list(seq)
    for i, o in zip(idx, new):
        lst[i] = o
    return lst[0] if single else type(seq)(lst)


def _add_hook(store: _HookDict, hook: Callable, prepend: bool) -> RemovableHandle:
    h = store.add(hook)
    if prepend:
        items = list(store.items())
        store.clear()
        store[h.id] = hook
        for k, v in items:
            if k != h.id:
                store[k] = v
    return h


class _KwargsHook:
    """Marks a forward (pre-)hook registered with ``with_kwargs=True``."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable) -> None:
        self.fn = fn

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)


# --- apisurface: Module.register_backward_hook, PyTorch's deprecated non-full backward hook
def attach_non_full_backward_hooks(module: Module, args: tuple, out: Any) -> None:
    """Register ``module``'s non-full backward hooks on the node of its (first) output, as
    PyTorch's ``Module._call_impl``: each runs as ``hook(module, grad_input, grad_output)``
    with that node's input and output gradients. Warns (FutureWarning, PyTorch's messages)
    where those are not the module's own, as PyTorch's ``_maybe_warn_non_full_backward_hook``."""
    var = out
    while not isinstance(var, Tensor):
        if isinstance(var, dict):
            var = next(v for v in var.values() if isinstance(v, Tensor))
        else:
            var = var[0]
    grad_fn = var.grad_fn
    if grad_fn is None:
        return
    for hook in module.__dict__["_non_full_backward_hooks"].values():
        grad_fn.register_hook(_NonFullHook(hook, module))
    _warn_non_full(args, out, grad_fn)


class _NonFullHook:
    """``node_hook(grad_inputs, grad_outputs)`` calling ``hook(module, grad_inputs, grad_outputs)``."""

    def __init__(self, hook: Callable, module: Module) -> None:
        self.hook, self.module = hook, module

    def __call__(self, grad_inputs: tuple, grad_outputs: tuple) -> Any:
        return self.hook(self.module, grad_inputs, grad_outputs)


def _warn_non_full(inputs: Any, result: Any, grad_fn: Any) -> None:
    import warnings

    if not isinstance(result, Tensor):
        if not (isinstance(result, tuple) and all(isinstance(r, Tensor) for r in result)):
            warnings.warn("Using non-full backward hooks on a Module that does not return a single Tensor or a tuple "
                          "of Tensors is deprecated and will be removed in future versions. This hook will be missing "
                          "some of the grad_output. Please use register_full_backward_hook to get the documented "
                          "behavior.", FutureWarning, stacklevel=3)
            return
    else:
        result = (result,)
    if not (isinstance(inputs, tuple) and all(isinstance(i, Tensor) for i in inputs)):
        warnings.warn("Using non-full backward hooks on a Module that does not take as input a single Tensor or a "
                      "tuple of Tensors is deprecated and will be removed in future versions. This hook will be "
                      "missing some of the grad_input. Please use register_full_backward_hook to get the documented "
                      "behavior.", FutureWarning, stacklevel=3)
        return
    out_fns = {r.grad_fn for r in result if r.grad_fn is not None}
    if not out_fns or (len(out_fns) == 1 and grad_fn not in out_fns):
        warnings.warn("Using a non-full backward hook when outputs are nested in python data structure is deprecated "
                      "and will be removed in future versions. This hook will be missing some grad_output.",
                      FutureWarning, stacklevel=3)
    elif len(out_fns) > 1:
        warnings.warn("Using a non-full backward hook when outputs are generated by different autograd Nodes is "
                      "deprecated and will be removed in future versions. This hook will be missing some grad_output. "
                      "Please use register_full_backward_hook to get the documented behavior.", FutureWarning,
                      stacklevel=3)
    else:
        in_fns = {i.grad_fn for i in inputs if i.grad_fn is not None}
        nexts = {n for n, _ in grad_fn.next_functions}
        if in_fns != nexts:
            warnings.warn("Using a non-full backward hook when the forward contains multiple autograd Nodes is "
                          "deprecated and will be removed in future versions. This hook will be missing some "
                          "grad_input. Please use register_full_backward_hook to get the documented behavior.",
                          FutureWarning, stacklevel=3)
