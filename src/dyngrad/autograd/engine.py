"""The backward engine: one iterative pass over the graph, no recursion.

Invariants:
1. Discovery is an explicit-stack walk from the roots; it counts, for every node, the
   number of incoming edges from nodes that will execute (``dependencies``).
2. A node runs once, when its dependency count reaches zero, after all the gradients
   flowing into it were summed in its input buffer. Among ready nodes, the one created
   last (highest ``sequence_nr``) runs first; AccumulateGrad nodes run as soon as ready.
3. Each gradient a node returns is validated against the forward input it belongs to:
   count (trailing Nones dropped), None for non-tensor inputs, shape (a shape the input
   broadcasts to is summed down with ``sum_to_size``, unless strict), dtype (cast).
4. A gradient reaching a tensor whose ``.grad`` already exists is added into it in place
   as soon as it is complete (PyTorch's memory profile: gradient accumulation over
   micro-batches holds no second copy of the gradients). A tensor whose ``.grad`` is None
   gets its gradient only after the whole pass succeeded (staging it costs nothing: it
   becomes ``.grad`` without a copy), so an exception in a backward leaves those tensors
   untouched. Inside ``atomic_accumulation()`` every ``.grad`` is written only after the
   whole pass succeeded (all or nothing, at the cost of holding a second copy of the
   gradients that already existed until the pass ends).
5. Saved tensors of a node are freed after it ran, unless ``retain_graph``.
6. Without ``create_graph`` (and outside transforms), gradients flow between nodes as
   plain ndarrays wherever the node has an array form of its backward
   (``Node._backward_arrays``, the built-in hot ops: ops/_array_backward.py); a Tensor is
   made only where something needs one (a hook, a node without an array form, a leaf's
   ``.grad``, a captured gradient). Validation (invariant 3) is the same for both.
"""

from __future__ import annotations

import heapq
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, NoReturn

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import anomaly_mode, grad_mode, profiler
from ._context import context as _context
from .graph import AccumulateGrad, Node

__all__ = ["execute", "current_pass", "queue_callback", "set_strict_shapes", "atomic_accumulation"]

_state = grad_mode.state
_prof = profiler.state
_anomaly_on = anomaly_mode.any_on  # process-wide count of active anomaly modes


def set_strict_shapes(mode: bool) -> None:
    """In this thread, turn the silent broadcast reduction of custom Functions' gradients
    into an error (built-in ops are unaffected). Per Function: ``strict_shapes = True``.

    Args:
        mode (bool): True: a custom Function's gradient must have its input's shape.

    Raises:
        Nothing itself; with the mode on, a backward whose custom-Function gradient does not have its input's shape raises RuntimeError (naming the Function and both shapes).

    Example:
        >>> import dyngrad
        >>> dyngrad.autograd.set_strict_shapes(True)
        >>> dyngrad.autograd.set_strict_shapes(False)
    """
    _context.strict_shapes = bool(mode)


@contextmanager
def atomic_accumulation(enabled: bool = True) -> Iterator[None]:
    """Backward passes in this block write every ``.grad`` only after the whole pass
    succeeded: a backward that raises leaves every gradient exactly as it was.

    By default (as in PyTorch) a gradient is added into an existing ``.grad`` as soon as it
    is complete, so accumulating over micro-batches costs no second copy of the
    gradients; only tensors whose ``.grad`` was None are guaranteed untouched by a failing
    pass. The all-or-nothing commit holds each finished gradient until the pass ends:
    memory for one more copy of every gradient that already existed (the size of the
    parameters, for gradient accumulation). The mode is per thread, like grad mode.

    Args:
        enabled (bool): turn the all-or-nothing commit on (default) or off in the block.

    Returns:
        A context manager.

    Raises:
        Nothing of its own: an error of a backward inside the block propagates, with every
        .grad left as it was before that backward.

    Example:
        >>> import dyngrad
        >>> w = dyngrad.ones(3, requires_grad=True)
        >>> w.grad = dyngrad.zeros(3)
        >>> with dyngrad.autograd.atomic_accumulation():
        ...     (w * 2).sum().backward()
        >>> w.grad
        tensor([2., 2., 2.])
    """
    ctx = _context
    prev = ctx.atomic_accumulation
    ctx.atomic_accumulation = bool(enabled)
    try:
        yield
    finally:
        ctx.atomic_accumulation = prev




class GraphTask:
    """One backward pass (what ``current_pass()`` returns to hooks)."""

    __slots__ = ("exec_nodes", "reach", "leaf_targets", "callbacks")

    def __init__(self) -> None:
        self.exec_nodes: set | None = None
        self.reach: set | None = None
        self.callbacks: list | None = None  # queue_callback's functions, run when the pass ends

    def will_compute(self, t: Tensor) -> bool:
        node = t.grad_fn if t.grad_fn is not None else (t._accumulator() if t._requires_grad else None)
        return node is not None and (self.reach is None or node in self.reach)


def current_pass() -> GraphTask | None:
    """The backward pass running in this thread, or None."""
    return _context.passes[-1] if _context.passes else None


def queue_callback(callback: Any) -> None:
    """Run ``callback()`` once the backward pass running in this thread has finished: after
    every gradient of the pass was accumulated and every post-accumulate-grad hook ran
    (PyTorch's ``Variable._execution_engine.queue_callback``; DistributedDataParallel waits
    for its gradient all-reduces there). Callbacks run in the order queued; one may queue
    another. They do not run when the pass raised.

    Args:
        callback: a function of no arguments.
    Raises:
        RuntimeError: when no backward pass is running in this thread (call it from a hook).

    Example:
        >>> import dyngrad
        >>> from dyngrad.autograd.engine import queue_callback
        >>> w = dyngrad.ones(2, requires_grad=True)
        >>> seen = []
        >>> h = w.register_post_accumulate_grad_hook(lambda p: queue_callback(lambda: seen.append(p.grad.sum().item())))
        >>> (w * 3).sum().backward()
        >>> seen
        [6.0]
    """
    task = current_pass()
    if task is None:
        raise RuntimeError("queue_callback: no backward pass is running in this thread; call it from a hook "
                           "that runs during backward()")
    if task.callbacks is None:
        task.callbacks = []
    task.callbacks.append(callback)


def _fmt_args(node: Any) -> str:
    names = getattr(node, "_arg_names", ())
    return f" ({', '.join(names)})" if names else ""


def _validate(node: Node, res: Any, create_graph: bool) -> tuple:
    if type(res) is Tensor:  # fast path: one gradient of the input's exact shape and dtype
        edges = node.next_functions
        if len(edges) == 1:
            m = node._input_meta[0]
            if m is not None and edges[0][0] is not None and res._data.shape == m[0] and res._data.dtype == m[1]:
                return (res,)
    if not isinstance(res, tuple):
        res = tuple(res) if isinstance(res, list) else (res,)
    edges = node.next_functions
    n = len(edges)
    if len(res) != n:
        res = _check_count(node, res, n)
    out = list(res)
    meta = node._input_meta
    for i, g in enumerate(out):
        if g is None:
            continue
        m = meta[i] if i < len(meta) else None
        if m is None:
            _nontensor_grad_error(node, i)
        if edges[i][0] is None:
            out[i] = None
            continue
        if not isinstance(g, Tensor):
            raise TypeError(
                f"{node.name()} returned a {type(g).__name__} as gradient {i}; expected a Tensor "
                "or None"
            )
        shape, dt = m
        gd = g._data
        if gd.shape != shape:
            strict = _strict_for(node)
            if strict or not B.is_broadcastable_to(shape, gd.shape):
                _shape_error(node, i, gd.shape, shape, strict)
            if create_graph or g._is_wrapper:  # (a transform's wrapper: its values are not in ._data)
                g = g.sum_to_size(shape)  # the differentiable op (ops.reduction.SumToSize)
            else:
                g = Tensor._make(B.sum_to_size(gd, shape))
            gd = g._data
        if (gd.dtype != dt) if type(gd) is np.ndarray else B.np_dtype_of(gd) != B.to_np_dtype(dt):
            g = g.to(dt) if create_graph or type(g) is not Tensor else Tensor._make(B.astype(gd, dt))
        out[i] = g
    return tuple(out)


def _as_tensors(buf: list) -> None:
    """Wrap the ndarray gradients of an input buffer as Tensors, in place (invariant 6)."""
    for i, g in enumerate(buf):
        if type(g) is np.ndarray:
            buf[i] = Tensor._make(g)


def _run_node_arrays(node: Node, buf: list) -> list | None:
    """Run a node's array form of backward (invariant 6) on the gradients of ``buf``:
    materialised as zeros where missing (unless the node opted out), validated as
    :func:`_validate` does. None when the array form cannot take this call (a gradient or a
    saved value that is a transform's wrapper, a pack hook): the caller then runs ``apply``.
    An exception is annotated with the node's name and creation site."""
    if len(buf) == 1:  # the common case: one output
        g = buf[0]
        if g is not None and type(g) is not np.ndarray:
            g = g._data if type(g) is Tensor else None
            if type(g) is not np.ndarray:
                return None  # a subclass, a transform's wrapper, a Dask/CuPy array: the Tensor path
        grads = [g]
    else:
        grads = []
        for g in buf:
            if g is not None and type(g) is not np.ndarray:
                g = g._data if type(g) is Tensor else None
                if type(g) is not np.ndarray:
                    return None
            grads.append(g)
    if node._materialize_grads and (grads[0] is None if len(grads) == 1 else any(g is None for g in grads)):
        ometa = node._output_meta
        for i, g in enumerate(grads):
            if g is None and i < len(ometa) and ometa[i] is not None:
                grads[i] = np.zeros(ometa[i][0], dtype=ometa[i][1])
    try:
        res = node._backward_arrays(node, *grads)  # type: ignore[misc]
        if res is NotImplemented:
            return None
        return _validate_arrays(node, res)
    except Exception as exc:
        _annotate(node, exc)
        raise


def _validate_arrays(node: Node, res: Any) -> list:
    """:func:`_validate` for an array form's result: the same checks and messages, the
    same summing down of broadcast gradients and dtype casts, on ndarrays."""
    edges = node.next_functions
    n = len(edges)
    if type(res) is np.ndarray:
        if n == 1:  # fast path: one gradient of the input's exact shape and dtype
            m = node._input_meta[0]
            if m is not None and edges[0][0] is not None and res.shape == m[0] and (
                    res.dtype is m[1] or res.dtype == m[1]):
                return [res]
        res = (res,)
    elif type(res) is not tuple:
        res = tuple(res) if isinstance(res, list) else (res,)
    if len(res) != n:
        res = _check_count(node, res, n)
    out = list(res)
    meta = node._input_meta
    for i, g in enumerate(out):
        if g is None:
            continue
        m = meta[i] if i < len(meta) else None
        if m is None:
            _nontensor_grad_error(node, i)
        if edges[i][0] is None:
            out[i] = None
            continue
        if type(g) is not np.ndarray:
            g = np.asarray(g)  # (a ufunc on 0-d arrays returns a NumPy scalar)
        shape, dt = m
        if g.shape != shape:
            strict = _strict_for(node)
            if strict or not B.is_broadcastable_to(shape, g.shape):
                _shape_error(node, i, g.shape, shape, strict)
            g = B.sum_to_size(g, shape)
        if g.dtype is not dt and g.dtype != dt:
            g = g.astype(dt)
        out[i] = g
    return out


def _check_count(node: Node, res: tuple, n: int) -> tuple:
    """``res`` with trailing Nones beyond the ``n`` inputs dropped; RuntimeError when it holds
    another number of gradients than the forward took inputs."""
    if len(res) > n and all(r is None for r in res[n:]):
        return res[:n]
    fwd = getattr(node, "_forward_cls", None)
    fname = fwd.__name__ if fwd is not None else node.name()
    raise RuntimeError(
        f"{node.name()} returned {len(res)} gradient{'s' if len(res) != 1 else ''} but "
        f"{fname}.forward took {n} input{'s' if n != 1 else ''}{_fmt_args(node)}; return "
        "one gradient per input, None for inputs that need no gradient."
    )


def _nontensor_grad_error(node: Node, i: int) -> NoReturn:
    names = getattr(node, "_arg_names", ())
    arg = f" (argument '{names[i]}')" if i < len(names) else ""
    raise RuntimeError(
        f"{node.name()} returned a gradient different from None at position {i}{arg}, "
        "but the corresponding forward input was not a Tensor; return None for it."
    )


def _strict_for(node: Node) -> bool:
    """Whether a gradient of another shape than its input's is an error for this node
    (``strict_shapes`` of its Function, else the thread's mode for untrusted Functions)."""
    strict = getattr(node, "_strict", None)
    if strict is None:
        strict = _context.strict_shapes and not getattr(node._forward_cls, "trusted", True) if hasattr(node, "_forward_cls") else False
    return bool(strict)


def _shape_error(node: Node, i: int, got: tuple, shape: tuple, strict: bool) -> NoReturn:
    names = getattr(node, "_arg_names", ())
    arg = f" (argument '{names[i]}')" if i < len(names) else ""
    raise RuntimeError(
        f"Function {node.name()} returned an invalid gradient at index {i}{arg} - got "
        f"{list(got)} but expected shape compatible with {list(shape)}"
        + (" (strict shapes: no broadcast reduction)" if strict else "")
    )


def _hooked(hook: Any, g: Tensor, r: Any) -> Tensor:
    """A tensor hook's replacement gradient must keep the gradient's shape (PyTorch's
    check); raise RuntimeError naming the hook otherwise."""
    if not isinstance(r, Tensor):
        raise TypeError(
            f"hook '{getattr(hook, '__name__', hook)}' returned a {type(r).__name__}; a tensor "
            "hook must return a Tensor or None"
        )
    if r._data.shape != g._data.shape:
        raise RuntimeError(
            f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value: expected "
            f"{list(g._data.shape)}, got {list(r._data.shape)}"
        )
    return r


class _ZeroDerivative(Node):
    """Stands for a gradient that a backward computed from saved tensors requiring grad
    but that, as computed, does not depend on them (relu's ``grad * (out > 0)``): its own
    derivative is zero. PyTorch returns such gradients as tensors that require grad, so
    differentiating them again gives zeros rather than an error; this node does the same."""

    _name = "ZeroDerivativeBackward"

    def __init__(self, source: Node, shape: tuple, dtype: Any) -> None:
        super().__init__()
        self.next_functions = source.next_functions
        self._input_meta = source._input_meta
        self._output_meta = ((shape, dtype),)

    def apply(self, *grads: Any) -> tuple:
        return tuple(
            None if m is None or edge[0] is None else Tensor._make(np.zeros(m[0], dtype=m[1]))
            for edge, m in zip(self.next_functions, self._input_meta)
        )


def _link_constant_grads(node: Node, res: tuple) -> tuple:
    """Under create_graph: a gradient that does not require grad although the node saved
    tensors that do gets a zero-derivative link to the node's inputs (see _ZeroDerivative).
    Built-in ops only: their backwards are written with dyngrad ops, so "does not require
    grad" there means "zero derivative"; a custom backward may have used NumPy, and its
    result must keep saying it cannot be differentiated."""
    if all(g is None or g._requires_grad for g in res):
        return res
    anchor = node._link_zero_grads  # a fused op's inputs that all its gradients depend on
    if not (anchor and any(node.needs_input_grad[i] for i in anchor)) and not any(  # type: ignore[attr-defined]
        s is not None and (s.is_output or (s.tensor is not None and s.tensor._requires_grad)) for s in node._saved or ()
    ):
        return res
    out = []
    for g in res:
        if g is not None and not g._requires_grad:
            g = g.detach()
            g.grad_fn = _ZeroDerivative(node, g._data.shape, g._data.dtype)
            g._requires_grad = True
        out.append(g)
    return tuple(out)


def _zeros(meta: Any) -> Tensor:
    shape, dt = meta
    if isinstance(dt, np.dtype):
        return Tensor._make(np.zeros(shape, dtype=dt))
    return Tensor._make(B.zeros_of_dtype(shape, dt))  # an Array API library's dtype object


def _add(a: Any, b: Any, create_graph: bool) -> Any:
    """The sum of two gradients for one input buffer slot (ndarrays stay ndarrays)."""
    if type(a) is np.ndarray:
        if type(b) is np.ndarray:
            r = a + b
            return r if type(r) is np.ndarray else np.asarray(r)
        a = Tensor._make(a)
    elif type(b) is np.ndarray:
        b = Tensor._make(b)
    if create_graph or a._requires_grad or b._requires_grad or type(a) is not Tensor or type(b) is not Tensor:
        return a + b
    return Tensor._make(a._data + b._data)


def execute(
    roots: Sequence[tuple[Node, int]],
    grads: Sequence[Tensor],
    retain_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor] | None = None,
    accumulate: bool = True,
    leaf_hooks: bool = True,
) -> list[Tensor | None] | None:
    """Run backward from ``roots`` (``(node, output_nr)``) seeded with ``grads``.

    With ``accumulate=True`` (``backward()``), gradients are accumulated into leaves'
    ``.grad`` (only those in ``inputs`` when given). With ``accumulate=False``
    (``autograd.grad``), nothing is accumulated and the gradients reaching ``inputs`` are
    returned in order (None where none arrived); a leaf's tensor hooks run on its captured
    gradient (unless ``leaf_hooks=False``: a checkpoint's inner pass, whose leaves' hooks
    run in the outer pass), its AccumulateGrad node's hooks do not (PyTorch's rule).

    The steps, in order: find the targets, count dependencies (prune to the targets), seed
    the input buffers and the ready queue, run the ready nodes one at a time (hooks, the
    node's backward, validation, routing of its gradients to its inputs' buffers, release
    of its saved tensors), then commit the staged gradients (invariant 4).
    """
    task = GraphTask()
    capture_leaf, capture_nonleaf = _targets(inputs)
    deps, reach = _count_dependencies(roots, capture_leaf, capture_nonleaf, inputs is not None, accumulate, task)
    buffers = _seed_buffers(roots, grads, create_graph)
    heap = _ready_queue(buffers, deps)
    captured: list = [None] * (len(inputs) if inputs is not None else 0)
    pending: list = []  # (tensor, grad, AccumulateGrad node or None) committed at the end (invariant 4)
    exec_nodes = task.exec_nodes
    prev_enabled = _state.enabled
    _state.enabled = create_graph
    _context.passes.append(task)
    counter = len(heap)
    # invariant 6: a first-order pass outside transforms hands ndarrays between nodes that
    # have an array form of their backward; Tensors are made only where one is needed
    arrays = not create_graph and not _state.interpreters
    # the gradient formulas meet inf/NaN silently, as PyTorch's (inf * 0, inf - inf): NumPy's
    # RuntimeWarnings are off for the pass (one errstate per backward, not one per op)
    quiet = np.errstate(all="ignore")
    quiet.__enter__()
    nxt: Node | None = None  # the only ready node, run without a trip through the heap
    try:
        while nxt is not None or heap:
            if nxt is not None:
                node, nxt = nxt, None
            else:
                node = heapq.heappop(heap)[2]
            buf = buffers.pop(node, None)
            if buf is None:
                buf = [None] * node._num_outputs()
            if type(node) is AccumulateGrad:
                if type(buf[0]) is np.ndarray:
                    buf[0] = Tensor._make(buf[0])
                _run_accumulate_grad(node, buf[0], capture_leaf, captured, pending, inputs, accumulate, leaf_hooks,
                                     create_graph)
                continue
            if node._tensor_pre_hooks or node._retain_hooks or node._pre_hooks:
                _as_tensors(buf)
                buf = _run_pre_hooks(node, buf, pending, create_graph)
            if capture_nonleaf:
                _as_tensors(buf)
                _capture(node, buf, capture_nonleaf, captured, pending, inputs, accumulate, create_graph)
            if exec_nodes is not None and node not in exec_nodes:
                continue
            res: Any = None
            if arrays and node._backward_arrays is not None and not (
                    node._post_hooks or _prof.active or _anomaly_on.count):
                res = _run_node_arrays(node, buf)
            if res is None:
                _as_tensors(buf)
                res = _run_node(node, buf, create_graph)
            if not retain_graph and node._saved:
                node._release()
            # each gradient into its producer's input buffer; a producer whose count reaches
            # zero becomes ready
            for (child, nr), g in zip(node.next_functions, res):
                if child is None or (reach is not None and child not in reach):
                    continue
                if g is not None:
                    cbuf = buffers.get(child)
                    if cbuf is None:
                        cbuf = buffers[child] = [None] * child._num_outputs()
                    cbuf[nr] = g if cbuf[nr] is None else _add(cbuf[nr], g, create_graph)
                d = deps[child] - 1
                deps[child] = d
                if d == 0:
                    if nxt is None and not heap:
                        nxt = child
                    else:
                        if nxt is not None:  # (ready first: pushed first, invariant 2)
                            heapq.heappush(heap, (-nxt._seq, counter, nxt))
                            counter += 1
                            nxt = None
                        heapq.heappush(heap, (-child._seq, counter, child))
                        counter += 1
    finally:
        quiet.__exit__(None, None, None)
        _context.passes.pop()
        _state.enabled = prev_enabled
    res = buf = g = cbuf = None  # drop loop references: a gradient nobody else holds can be adopted
    _context.passes.append(task)  # the commit's post-accumulate hooks belong to the pass (queue_callback)
    try:
        _commit(pending, create_graph)
        if task.callbacks is not None:  # queue_callback's functions; one may queue another
            for cb in task.callbacks:
                cb()
    finally:
        _context.passes.pop()
    return captured if not accumulate else None


def _targets(inputs: Sequence[Tensor] | None) -> tuple[dict, dict]:
    """The nodes whose gradient is wanted (``autograd.grad``, ``backward(inputs=...)``):
    ``{AccumulateGrad: k}`` for leaves, ``{(grad_fn, output_nr): k}`` for non-leaves, where
    ``k`` is the input's position."""
    capture_leaf: dict[Node, int] = {}
    capture_nonleaf: dict[tuple[Node, int], int] = {}
    if inputs is not None:
        for k, t in enumerate(inputs):
            if t.grad_fn is not None:
                capture_nonleaf[(t.grad_fn, t._output_nr)] = k
            else:
                capture_leaf[t._accumulator()] = k
    return capture_leaf, capture_nonleaf


def _count_dependencies(
    roots: Sequence[tuple[Node, int]],
    capture_leaf: dict,
    capture_nonleaf: dict,
    pruned: bool,
    accumulate: bool,
    task: GraphTask,
) -> tuple[dict, set | None]:
    """Discovery (invariant 1): an explicit-stack walk from the roots that counts, for
    every node, its incoming edges from nodes that will execute. With targets
    (``pruned``), only nodes that lead to a target execute; they are stored in
    ``task.exec_nodes`` and the nodes that lead to a target in ``task.reach`` (also
    returned)."""
    parents: dict[Node, list[Node]] | None = {} if pruned else None
    deps: dict[Node, int] = {}
    stack = []
    seen = set()
    for node, _ in roots:
        if node not in seen:
            seen.add(node)
            stack.append(node)
    if parents is None:  # no targets: the count doubles as the visited mark
        while stack:
            node = stack.pop()
            for nxt, _ in node.next_functions:
                if nxt is None:
                    continue
                c = deps.get(nxt)
                if c is None:
                    deps[nxt] = 1
                    if nxt not in seen:  # (only roots are in seen)
                        stack.append(nxt)
                else:
                    deps[nxt] = c + 1
        return deps, None
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            if parents is not None:
                parents.setdefault(nxt, []).append(node)
            else:
                deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    if parents is None:
        return deps, None
    # nodes that lead to a target; a node executes when one of its children does
    targets = set(capture_leaf) | {n for n, _ in capture_nonleaf}
    reach: set = set()
    stack = [t for t in targets if t in seen]
    while stack:
        n = stack.pop()
        if n in reach:
            continue
        reach.add(n)
        stack.extend(parents.get(n, ()))
    exec_nodes = {n for n in reach if any(c is not None and c in reach for c, _ in n.next_functions)}
    if accumulate:
        exec_nodes |= set(capture_leaf)
    for n in exec_nodes:
        for c, _ in n.next_functions:
            if c is not None and c in reach:
                deps[c] = deps.get(c, 0) + 1
    task.exec_nodes = exec_nodes
    task.reach = reach
    return deps, reach


def _seed_buffers(roots: Sequence[tuple[Node, int]], grads: Sequence[Tensor], create_graph: bool) -> dict:
    """One input buffer (a list, one slot per output) per root node, holding the seeds
    (summed when a root appears twice)."""
    buffers: dict[Node, list] = {}
    for (node, nr), g in zip(roots, grads):
        buf = buffers.get(node)
        if buf is None:
            buf = buffers[node] = [None] * node._num_outputs()
        buf[nr] = g if buf[nr] is None else _add(buf[nr], g, create_graph)
    return buffers


def _ready_queue(buffers: dict, deps: dict) -> list:
    """The ready heap (invariant 2): root nodes no other node feeds, keyed by descending
    ``sequence_nr`` then insertion order."""
    heap = []
    for counter, node in enumerate(n for n in buffers if deps.get(n, 0) == 0):
        heap.append((-node._seq, counter, node))
    heapq.heapify(heap)
    return heap


def _run_accumulate_grad(
    node: AccumulateGrad,
    g: Tensor | None,
    capture_leaf: dict,
    captured: list,
    pending: list,
    inputs: Sequence[Tensor] | None,
    accumulate: bool,
    leaf_hooks: bool,
    create_graph: bool,
) -> None:
    """A leaf's gradient: run its tensor hooks, then capture it (``autograd.grad``) or run
    the AccumulateGrad node's pre-hooks and deliver it (invariant 4)."""
    if g is None:
        return
    var = node.variable
    if var.grad_fn is not None:  # detach_()ed, then given a history by an in-place op
        raise RuntimeError(
            "leaf variable has been moved into the graph interior: a tensor that was a "
            f"leaf when this graph was recorded (shape {list(var.shape)}) has a grad_fn "
            f"({var.grad_fn.name()}) now; it cannot accumulate a gradient"
        )
    if var._hooks and (accumulate or leaf_hooks):
        for h in tuple(var._hooks.values()):
            r = h(g)
            if r is not None:
                g = _hooked(h, g, r)
    k = capture_leaf.get(node)
    if k is not None and not accumulate:
        captured[k] = g
    elif accumulate and (inputs is None or k is not None) and var._requires_grad:
        # (a leaf detach_()ed since the graph was recorded gets nothing, as in PyTorch)
        if node._pre_hooks:  # the node's own hooks run only when it accumulates
            for h in tuple(node._pre_hooks.values()):
                r = h((g,))
                if r is not None:
                    g = r[0]
        if var._base is None or getattr(var, "_nograd_view", None) != 1:
            _deliver(var, g, node, pending, create_graph)  # (a view made under no_grad has no accumulator)


def _run_pre_hooks(node: Node, buf: list, pending: list, create_graph: bool) -> list:
    """Tensor hooks of the node's outputs, retain_grad (delivered: invariant 4), then the
    node's pre-hooks; returns the (possibly replaced) input buffer."""
    if node._tensor_pre_hooks:
        for nr, hooks in node._tensor_pre_hooks.items():
            g = buf[nr]
            if g is None:
                continue
            for h in tuple(hooks.values()):
                r = h(g)
                if r is not None:
                    g = _hooked(h, g, r)
            buf[nr] = g
    if node._retain_hooks:
        for nr, ref in node._retain_hooks.items():
            t = ref()
            if t is not None and buf[nr] is not None:
                _deliver(t, buf[nr], None, pending, create_graph)
    if node._pre_hooks:
        for h in tuple(node._pre_hooks.values()):
            r = h(tuple(buf))
            if r is not None:
                buf = list(r)
    return buf


def _capture(
    node: Node, buf: list, capture_nonleaf: dict, captured: list, pending: list, inputs: Any, accumulate: bool,
    create_graph: bool,
) -> None:
    """The gradient of a non-leaf target: returned (``autograd.grad``) or queued for its
    ``.grad`` (``backward(inputs=...)``)."""
    for nr in range(len(buf)):
        k = capture_nonleaf.get((node, nr))
        if k is not None:
            if accumulate:
                if buf[nr] is not None:
                    _deliver(inputs[k], buf[nr], None, pending, create_graph)
            else:
                captured[k] = buf[nr]


def _run_node(node: Node, buf: list, create_graph: bool) -> tuple:
    """Run one node: materialise missing gradients as zeros (unless the node opted out),
    call its backward, validate the result (invariant 3), link constant gradients under
    create_graph, then its post-hooks and the anomaly check. An exception is annotated
    with the node's name and creation site."""
    if node._materialize_grads and (buf[0] is None if len(buf) == 1 else any(g is None for g in buf)):
        ometa = node._output_meta
        for i, g in enumerate(buf):
            if g is None and i < len(ometa) and ometa[i] is not None:
                buf[i] = _zeros(ometa[i])
    try:
        res = profiler.run_backward(node, buf) if _prof.active else node.apply(*buf)
        res = _validate(node, res, create_graph)
        if create_graph and getattr(getattr(node, "_forward_cls", None), "trusted", True) and (
            node._saved or node._link_zero_grads
        ):
            res = _link_constant_grads(node, res)
    except Exception as exc:
        _annotate(node, exc)
        raise
    if node._post_hooks:
        for h in tuple(node._post_hooks.values()):
            r = h(res, tuple(buf))
            if r is not None:
                res = tuple(r)
    if _anomaly_on.count:
        _check_anomaly(node, res)
    return res


def _deliver(var: Tensor, g: Tensor, node: AccumulateGrad | None, pending: list, create_graph: bool) -> None:
    """A finished gradient for ``var.grad`` (invariant 4): added in place now when
    ``var.grad`` exists (unless ``atomic_accumulation``), else queued for the commit."""
    if var._grad is None or _context.atomic_accumulation:
        pending.append((var, g, node))
    else:
        _accumulate(var, g, create_graph, node)


def _commit(pending: list, create_graph: bool) -> None:
    """Accumulate the staged gradients into ``.grad`` (invariant 4: only now, after the
    whole pass succeeded), in the order they were computed."""
    pending.reverse()
    while pending:
        var, g, node = pending.pop()
        _accumulate(var, g, create_graph, node)
    var = g = node = None


def _accumulate(var: Tensor, g: Tensor, create_graph: bool, node: AccumulateGrad | None = None) -> None:
    """``var.grad += g`` (or adopt/copy ``g``), then the leaf's post-accumulate hooks and
    its AccumulateGrad node's post hooks ``hook((), (g,))``, in PyTorch's order."""
    old = var._grad
    if old is None:
        if create_graph:  # a differentiable copy, as PyTorch: never alias another tensor's grad
            with grad_mode.set_grad_enabled(True):
                var._grad = g.clone()
        elif _unshared(g):
            var._grad = Tensor._make(g._data)  # adopt: no copy (PyTorch steals such grads too)
        else:
            d = g._data
            var._grad = Tensor._make(np.array(d, copy=True) if type(d) is np.ndarray else B.copy(d))
    elif create_graph or old._requires_grad:
        with grad_mode.set_grad_enabled(create_graph):
            var._grad = old + g
    else:
        try:
            if type(old._data) is np.ndarray:
                np.add(old._data, g._data, out=old._data, casting="unsafe")
            else:  # CuPy in place; Dask and Array API arrays are immutable (docs/backends.md)
                old._data = B.accumulate(old._data, g._data)
        except ValueError:  # .grad no longer fits the tensor: its .data was replaced
            raise RuntimeError(
                f"a gradient of shape {list(g._data.shape)} cannot be accumulated into the .grad of "
                f"shape {list(old._data.shape)} of a tensor of shape {list(var._data.shape)}; after "
                "changing a tensor's shape with `t.data = ...`, set `t.grad = None` first "
                "(optimizer.zero_grad())"
            ) from None
        old._vc[0] += 1
    if var._post_acc_hooks:
        # grad mode inside the hooks is create_graph, as in PyTorch's engine (off for a plain backward)
        with grad_mode.set_grad_enabled(create_graph):
            for h in tuple(var._post_acc_hooks.values()):
                if h(var) is not None:
                    raise TypeError(
                        f"post accumulate grad hook '{getattr(h, '__name__', h)}' returned a "
                        "value; such hooks must return None (modify tensor.grad instead)"
                    )
    if node is not None and node._post_hooks:
        for h in tuple(node._post_hooks.values()):
            h((), (g,))


# References to a gradient Tensor that nobody else holds, seen from _unshared: the commit
# loop's variable, _accumulate's and _unshared's parameters, getrefcount's argument.
_UNSHARED_TENSOR_REFS = 4
_UNSHARED_ARRAY_REFS = 3  # g._data, the local d, getrefcount's argument


def _unshared(g: Tensor) -> bool:
    """True when ``g`` and its array are referenced only by the engine, own their memory and
    are writable, so the leaf may adopt the array without copying it."""
    d = g._data
    return (
        sys.getrefcount(g) <= _UNSHARED_TENSOR_REFS
        and isinstance(d, np.ndarray)  # (a CuPy or Dask array is never adopted: docs/backends.md)
        and d.base is None
        and d.flags.owndata
        and d.flags.writeable
        and sys.getrefcount(d) <= _UNSHARED_ARRAY_REFS
        and type(g) is Tensor
    )


def _calibrate_unshared() -> None:
    """Compiled build only (docs/compiled-build.md): compiled code holds fewer references
    than the interpreter, so the counts above would call a shared gradient unshared (a leaf
    adopting a retained grad's array: silently wrong sums). Count them through the real
    ``_commit`` path instead: the smallest thresholds at which a gradient nobody else holds
    is adopted, checked to refuse one held by another Tensor or array; else never adopt."""
    global _UNSHARED_TENSOR_REFS, _UNSHARED_ARRAY_REFS

    def adopts(t_refs: int, a_refs: int, hold: str = "") -> bool:
        global _UNSHARED_TENSOR_REFS, _UNSHARED_ARRAY_REFS
        _UNSHARED_TENSOR_REFS, _UNSHARED_ARRAY_REFS = t_refs, a_refs
        var = Tensor._make(np.zeros(2))
        g = Tensor._make(np.zeros(2))
        arr_id = id(g._data)
        held = g if hold == "tensor" else Tensor._make(g._data) if hold == "array" else None
        pending = [(var, g, None)]
        del g
        _commit(pending, False)
        del held
        grad = var._grad
        return grad is not None and id(grad._data) == arr_id

    try:
        t = next(n for n in range(16) if adopts(n, 16))
        a = next(n for n in range(16) if adopts(t, n))
        ok = not adopts(t, a, "tensor") and not adopts(t, a, "array") and adopts(t, a)
    except StopIteration:
        ok = False
    _UNSHARED_TENSOR_REFS, _UNSHARED_ARRAY_REFS = (t, a) if ok else (0, 0)


if not __file__.endswith((".py", ".pyc")):
    _calibrate_unshared()


def _annotate(node: Node, exc: Exception) -> None:
    """Add the node's name and creation site to an exception raised in its backward."""
    site = node._site
    note = f"raised in the backward of {node.name()}"
    if site:
        note += f", created at {site}"
    if hasattr(exc, "add_note"):
        exc.add_note(note)
    anomaly_mode.annotate(node, exc)  # + the forward stack, when anomaly mode recorded it


def _check_anomaly(node: Node, res: tuple) -> None:
    if anomaly_mode.any_on.count and anomaly_mode.state.anomaly and anomaly_mode.state.anomaly_check_nan:
        anomaly_mode.check_node_output(node, res)
