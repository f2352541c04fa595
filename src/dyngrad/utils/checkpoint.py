"""Activation checkpointing: trade compute for memory.

``checkpoint(fn, *args)`` runs ``fn`` without keeping its intermediate activations; in
backward it re-runs ``fn`` (restoring the random-number state first, so dropout masks are
the same) and backpropagates through the recomputed graph. Gradients are exactly those of
the un-checkpointed computation, because the same NumPy operations run on the same values.

Two variants, selected by ``use_reentrant`` (as in PyTorch):

* ``use_reentrant=False`` (default). The forward records ``fn``'s graph only long enough to
  find the leaves it uses (e.g. a module's parameters closed over by ``fn``), then drops it:
  at most one segment's activations are alive at a time, as during backward. The
  checkpoint node takes those leaves as explicit inputs, and its backward computes the
  gradients with ``autograd.grad`` on the recomputed graph. So gradients flow to inputs and
  parameters through the ordinary engine: ``autograd.grad(loss, params)``,
  ``backward(inputs=...)``, hooks and ``create_graph=True`` (double backward) all work.
  A non-leaf tensor closed over by ``fn`` (computed before the call) is differentiated
  through to its leaves inside the checkpoint's backward, keeping the caller's graph
  (``retain_graph``) for the caller's own backward; the leaves' gradients then equal the
  un-checkpointed ones up to rounding (summed in another order), not bit for bit.
  Difference from PyTorch: PyTorch's non-reentrant variant keeps no graph at all in the
  forward and discovers parameters through saved-tensor hooks during backward; here the
  forward builds (and immediately frees) the segment's graph, costing the bookkeeping of
  recording but not its memory after the call returns.
* ``use_reentrant=True``. The forward runs ``fn`` under ``no_grad``; backward re-runs it and
  calls ``autograd.backward`` on the recomputed outputs, which accumulates straight into the
  ``.grad`` of any closed-over leaves (PyTorch's reentrant semantics). Like PyTorch's, it
  does not support ``autograd.grad`` with respect to closed-over parameters (they get
  ``.grad`` accumulated instead) and needs at least one input that requires grad for the
  parameters to receive gradients.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

from ..autograd.backprop import backward as _backward
from ..autograd.backprop import _grad_no_leaf_hooks as _grad
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, is_grad_enabled, no_grad
from ..autograd.graph import next_sequence_nr
from ..creation import default_generator
from ..tensor import Tensor
from .. import _backend as _B

__all__ = ["checkpoint", "checkpoint_sequential"]


class _Rng:
    """Holds the default Generator's state at the start of a checkpointed forward."""

    def __init__(self, preserve: bool) -> None:
        self.state = default_generator.get_state() if preserve else None

    def __enter__(self) -> None:
        if self.state is not None:
            self._now = default_generator.get_state()
            default_generator.set_state(self.state)

    def __exit__(self, *exc: Any) -> None:
        if self.state is not None:
            default_generator.set_state(self._now)


def _detach_inputs(args: Sequence[Any]) -> list[Any]:
    return [a.detach().requires_grad_(a.requires_grad) if isinstance(a, Tensor) else a for a in args]


def _as_outputs(out: Any) -> tuple[tuple, bool]:
    if isinstance(out, Tensor):
        return (out,), False
    if isinstance(out, tuple) and all(isinstance(o, Tensor) for o in out):
        return out, True
    raise TypeError(
        f"checkpoint: the checkpointed function must return a Tensor or a tuple of Tensors, got {type(out).__name__}"
    )


def _leaves(outputs: Sequence[Tensor], exclude: set[int], start: int) -> tuple[list[Tensor], bool]:
    """Leaf tensors that require grad reachable from ``outputs``' graph (iterative walk),
    and whether the walk entered nodes recorded before sequence number ``start`` (the
    function closed over a non-leaf tensor, so the leaves lie behind the caller's graph)."""
    found: list[Tensor] = []
    crossed = False
    seen: set[int] = set()
    stack = [o.grad_fn for o in outputs if o.grad_fn is not None]
    stack += [o._accumulator() for o in outputs if o.grad_fn is None and o.requires_grad]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            if id(var) not in exclude:
                found.append(var)
        elif getattr(node, "_seq", start) < start:
            crossed = True
        stack.extend(n for n, _ in node.next_functions)
    return found, crossed


class _NonReentrant(Function):
    """Checkpoint node: inputs are (holder, *tensor args, *closed-over leaves); its forward
    returns the outputs computed in :func:`checkpoint`; backward recomputes and returns the
    gradients of all of them (``autograd.grad`` on the recomputed graph)."""

    _node_name = "CheckpointFunctionBackward"

    @staticmethod
    def forward(ctx: Any, holder: Any, *tensors: Tensor) -> Any:
        ctx.holder = holder
        ctx.save_for_backward(*tensors[: holder.n_tensor_args])
        outs = tuple(Tensor._make(o._data) for o in holder.outputs)
        nondiff = [t for t, o in zip(outs, holder.outputs) if not o.requires_grad]
        if nondiff:  # e.g. an argmax returned next to the differentiable outputs
            ctx.mark_non_differentiable(*nondiff)
        holder.outputs = None
        return outs if holder.is_tuple else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        h = ctx.holder
        tensor_args = ctx.saved_tensors
        it = iter(tensor_args)
        args = [next(it) if i in h.tensor_pos else a for i, a in enumerate(h.args)]
        create_graph = is_grad_enabled()
        # for double backward the recomputation must hang off the real inputs, so that the
        # gradients we return depend on them; otherwise detached copies suffice
        inputs = args if create_graph else _detach_inputs(args)
        with _Rng(False) if h.rng is None else h.rng, enable_grad():
            outs, _ = _as_outputs(h.fn(*inputs, **h.kwargs))
        wrt = [inputs[i] for i in sorted(h.tensor_pos)] + list(h.params)
        pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad and g is not None]
        need = [i for i, t in enumerate(wrt) if t.requires_grad]
        res: list[Any] = [None] * len(wrt)
        if pairs and need:
            # the leaves' tensor hooks are not run here: these gradients reach the leaves
            # through this node in the outer pass, which runs them once on the sum
            got = _grad([o for o, _ in pairs], [wrt[i] for i in need], [g for _, g in pairs],
                        retain_graph=create_graph or h.retain, create_graph=create_graph, allow_unused=True)
            for i, g in zip(need, got):
                res[i] = g
        return (None, *res)


class _Holder:
    """Non-tensor state of one checkpoint call (kept by the node, not saved for backward)."""


def checkpoint(
    function: Callable[..., Any],
    *args: Any,
    use_reentrant: bool | None = None,
    preserve_rng_state: bool = True,
    determinism_check: str = "default",
    debug: bool = False,
    **kwargs: Any,
) -> Any:
    """Run ``function(*args, **kwargs)`` without keeping its activations; recompute them in
    backward.

    Args:
        function: returns a Tensor or a tuple of Tensors.
        *args: its positional inputs (Tensors or anything else).
        use_reentrant: False (default; see the module docstring) or True (PyTorch's
            reentrant variant: no ``autograd.grad`` w.r.t. closed-over parameters).
        preserve_rng_state: restore the default Generator's state before recomputing so
            random ops (dropout) draw the same values; the current state is restored after.
        **kwargs: keyword arguments for ``function``.
    Returns:
        what ``function`` returns, with a ``CheckpointFunctionBackward`` history.
    Raises:
        TypeError: ``function`` returns something other than a Tensor or tuple of Tensors.
    Example:
        >>> import dyngrad
        >>> x = dyngrad.randn(4, requires_grad=True)
        >>> y = checkpoint(lambda x: (x.tanh() * 2).exp(), x, use_reentrant=False)
        >>> y.sum().backward()
        >>> expected = 2 * (1 - x.tanh() ** 2) * (x.tanh() * 2).exp()
        >>> bool(dyngrad.allclose(x.grad, expected.detach()))
        True
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
                      "use_reentrant=False is recommended (dyngrad's default when it is not passed; PyTorch 2.13's "
                      "default is use_reentrant=True). Refer to docs for more details on the differences between the "
                      "two variants.", UserWarning, stacklevel=2)
        use_reentrant = False
    rng = _Rng(True) if preserve_rng_state else None
    if use_reentrant:
        if kwargs:
            raise ValueError("checkpoint(use_reentrant=True) does not support keyword arguments; use use_reentrant=False")
        return _Reentrant.apply(function, rng, *args)
    h = _Holder()
    h.fn, h.kwargs, h.rng = function, kwargs, rng
    h.tensor_pos = {i for i, a in enumerate(args) if isinstance(a, Tensor)}
    h.args = [None if i in h.tensor_pos else a for i, a in enumerate(args)]
    h.n_tensor_args = len(h.tensor_pos)
    inputs = _detach_inputs(args)
    if is_grad_enabled():
        start = next_sequence_nr()
        with enable_grad():
            outs, h.is_tuple = _as_outputs(function(*inputs, **kwargs))
        exclude = {id(inputs[i]) for i in h.tensor_pos}
        h.params, h.retain = _leaves(outs, exclude, start)
    else:
        outs, h.is_tuple = _as_outputs(function(*args, **kwargs))
        return outs if h.is_tuple else outs[0]
    h.outputs = outs
    del outs
    tensors = [a for a in args if isinstance(a, Tensor)]
    return _NonReentrant.apply(h, *tensors, *h.params)


class _Reentrant(Function):
    """PyTorch's reentrant checkpoint: no_grad forward, recompute + backward() in backward."""

    _node_name = "CheckpointFunctionBackward"

    @staticmethod
    def forward(ctx: Any, fn: Callable, rng: Any, *args: Any) -> Any:
        ctx.fn, ctx.rng = fn, rng
        ctx.tensor_pos = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*(a for a in args if isinstance(a, Tensor)))
        with no_grad():
            out = fn(*args)
        outs, is_tuple = _as_outputs(out)
        outs = tuple(Tensor._make(o._data) for o in outs)
        nondiff = [t for t in outs if _B.kind(t._data) not in "fc"]
        if nondiff:
            ctx.mark_non_differentiable(*nondiff)
        return outs if is_tuple else outs[0]

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple:
        args = list(ctx.args)
        for i, t in zip(ctx.tensor_pos, ctx.saved_tensors):
            args[i] = t
        inputs = _detach_inputs(args)
        with _Rng(False) if ctx.rng is None else ctx.rng, enable_grad():
            outs, _ = _as_outputs(ctx.fn(*inputs))
        pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad and g is not None]
        if pairs:
            _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, *(x.grad if isinstance(x, Tensor) else None for x in inputs))


def checkpoint_sequential(
    functions: Any,
    segments: int,
    input: Tensor,
    use_reentrant: bool | None = None,
    **kwargs: Any,
) -> Tensor:
    """Run a sequence of functions/modules in ``segments`` checkpointed chunks (the last
    chunk runs normally, as in PyTorch).

    Args:
        functions: a list of callables or a ``Sequential`` (anything with ``children()``).
        segments: number of chunks (1 <= segments <= len(functions)).
        input: ``(*)``, the input of the first function (any shape it takes).
    Returns:
        Tensor: the output of the last function, of whatever shape it returns, ``(*)``.
    Raises:
        ValueError: ``segments`` out of range.

    Example:
        >>> import dyngrad
        >>> from dyngrad import nn
        >>> model = nn.Sequential(nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh())
        >>> x = dyngrad.randn(2, 4, requires_grad=True)
        >>> y = checkpoint_sequential(model, 2, x, use_reentrant=False)
        >>> bool(dyngrad.allclose(y, model(x)))
        True
        >>> y.sum().backward()
        >>> tuple(x.grad.shape)
        (2, 4)
    """
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be passed "
                      "explicitly. use_reentrant=False is recommended (dyngrad's default when it is not passed; "
                      "PyTorch 2.13's default is use_reentrant=True). Refer to docs for more details on the "
                      "differences between the two variants.", UserWarning, stacklevel=2)
        use_reentrant = False
    if hasattr(functions, "children") and not isinstance(functions, (list, tuple)):
        functions = list(functions.children())
    functions = list(functions)
    if not 1 <= segments <= max(len(functions), 1):
        raise ValueError(f"checkpoint_sequential: segments must be in [1, {len(functions)}], got {segments}")

    def run(start: int, end: int) -> Callable[[Tensor], Tensor]:
        def forward(x: Tensor) -> Tensor:
            for f in functions[start : end + 1]:
                x = f(x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, **kwargs)
    return run(end + 1, len(functions) - 1)(input)
