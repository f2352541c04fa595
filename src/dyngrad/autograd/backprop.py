"""``backward()`` and ``grad()``: argument checks, then the engine."""

from __future__ import annotations

from typing import Any

import numpy as np

from .. import _backend as B
from ..tensor import Tensor
from . import engine
from .grad_mode import state as _ctx
from .graph import AccumulateGrad, GradientEdge

__all__ = ["backward", "grad"]


def _as_tuple(x: Any) -> tuple:
    if x is None:
        return ()
    if isinstance(x, Tensor):
        return (x,)
    return tuple(x)


def _make_grads(outputs: tuple, grads: tuple, is_grad: bool) -> list:
    if len(grads) != len(outputs):
        raise RuntimeError(
            f"grad_tensors/grad_outputs has {len(grads)} elements but there are "
            f"{len(outputs)} outputs; give one per output (None for scalar outputs)"
        )
    res = []
    for i, (out, g) in enumerate(zip(outputs, grads)):
        if g is None:
            if out._data.size != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (output {i} has "
                    f"shape {list(out.shape)}); pass a gradient of that shape"
                )
            res.append(Tensor._make(B.ones_like(out._data)))  # (in out's array library)
            continue
        if not isinstance(g, Tensor):
            if isinstance(g, (int, float)):
                g = Tensor._make(B.full_like(out._data, g))
            else:
                raise TypeError(f"gradient {i} must be a Tensor or None, got {type(g).__name__}")
        if g._data.shape != out._data.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[{i}] has a shape of {list(g.shape)} and "
                f"output[{i}] has a shape of {list(out.shape)}."
            )
        if B.kind(g._data) != B.kind(out._data):
            raise RuntimeError(
                f"For output {i}: grad dtype {g.dtype.name} does not match output dtype "
                f"{out.dtype.name}"
            )
        if g._data.dtype != out._data.dtype:  # as PyTorch's engine: cast to the root's dtype
            g = g.to(out.dtype)
        res.append(g)
    return res


def _roots(outputs: tuple, what: str) -> list:
    roots = []
    for i, t in enumerate(outputs):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}: element {i} is a {type(t).__name__}, not a Tensor")
        if t._base is not None and t._vc[0] != t._view_ver:
            t._refresh_view(always=True)  # a view whose base was changed in place since it was made
        if not t._requires_grad:
            raise RuntimeError(
                f"element {i} of tensors does not require grad and does not have a grad_fn "
                "(was it computed under no_grad(), or from tensors without requires_grad=True?)"
            )
        roots.append((t.grad_fn, t._output_nr) if t.grad_fn is not None else (t._accumulator(), 0))
    return roots


def backward(
    tensors: Any,
    grad_tensors: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    grad_variables: Any = None,
    inputs: Any = None,
) -> None:
    """Accumulate into leaves' ``.grad`` the gradient of ``tensors`` (weighted by
    ``grad_tensors``) with respect to them.

    Args:
        tensors: Tensor or sequence of Tensors to differentiate.
        grad_tensors: the vector of the vector-Jacobian product, one per tensor (None
            allowed for one-element tensors: it means 1).
        retain_graph: keep saved tensors for another backward; defaults to create_graph.
        create_graph: record the backward pass so gradients can be differentiated again.
        inputs: if given, accumulate only into these tensors' ``.grad`` (leaves or not).
    Raises:
        RuntimeError: a tensor that does not require grad; implicit gradient of a
            non-scalar; backward a second time through a freed graph.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * x
        >>> dyngrad.autograd.backward(y, grad_tensors=dyngrad.ones(2))   # same as y.backward(ones)
        >>> x.grad
        tensor([2., 4.])
    """
    if grad_variables is not None:
        grad_tensors = grad_variables
    outputs = _as_tuple(tensors)
    grads = _as_tuple(grad_tensors) if grad_tensors is not None else (None,) * len(outputs)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outputs, "backward")
    seeds = _make_grads(outputs, grads, False)
    if create_graph and (inputs is None or any(
            isinstance(t, Tensor) and t.grad_fn is None for t in _as_tuple(inputs))):
        import warnings

        warnings.warn("Using backward() with create_graph=True will create a reference cycle between the parameter "
                      "and its gradient which can cause a memory leak. We recommend using autograd.grad when creating "
                      "the graph to avoid this. If you have to use this function, make sure to reset the .grad fields "
                      "of your parameters to None after use to break the cycle and avoid the leak.", UserWarning,
                      stacklevel=3)
    inp = None
    if inputs is not None:
        # a non-leaf edge is a stopping point whose gradient goes nowhere visible, as PyTorch's
        inp = [_edge_input(t) if isinstance(t, GradientEdge) else t
               for t in ((inputs,) if isinstance(inputs, GradientEdge) else _as_tuple(inputs))]
        if not inp:
            raise RuntimeError("'inputs' argument to backward() cannot be empty.")
        for t in inp:
            if not t._requires_grad:
                raise RuntimeError("One of the differentiated Tensors does not require grad")
    engine.execute(roots, seeds, retain_graph, create_graph, inp, accumulate=True)


def _grad_no_leaf_hooks(outputs: Any, inputs: Any, grad_outputs: Any, **kwargs: Any) -> tuple:
    """``grad()`` whose captured leaves' tensor hooks do not run: a non-reentrant
    checkpoint's inner pass, whose leaves get the result in the outer pass, where their
    hooks run once on the whole gradient (utils/checkpoint.py)."""
    return grad(outputs, inputs, grad_outputs, _leaf_hooks=False, **kwargs)


def grad(
    outputs: Any,
    inputs: Any,
    grad_outputs: Any = None,
    retain_graph: bool | None = None,
    create_graph: bool = False,
    only_inputs: bool = True,
    allow_unused: bool | None = None,
    *,
    materialize_grads: bool = False,
    _leaf_hooks: bool = True,
) -> tuple:
    """Return the gradients of ``outputs`` with respect to ``inputs`` without touching
    any ``.grad``.

    Args:
        outputs: Tensor or sequence of Tensors.
        inputs: Tensor or sequence of Tensors (leaves or not) that require grad.
        grad_outputs: one vector per output (None means 1 for one-element outputs).
        retain_graph: defaults to create_graph.
        create_graph: make the returned gradients differentiable (higher-order derivatives).
        allow_unused: return None for inputs the outputs do not depend on instead of
            raising (defaults to materialize_grads).
        materialize_grads: return zeros instead of None for unused inputs.
    Returns:
        tuple of Tensors (or None), one per input, shaped like it.
    Raises:
        RuntimeError: an input not used in the graph (unless allow_unused) or that does not
            require grad.

    The public ``dyngrad.autograd.grad`` (autograd/__init__.py) adds ``is_grads_batched``
    (a batch of grad_outputs in one pass) on top of this one, from a layer above.
    """
    for interp in reversed(_ctx.interpreters):  # a transform's wrapped outputs/inputs (vmap)
        out = interp.process_grad(grad, outputs, inputs, grad_outputs, retain_graph=retain_graph,
                                  create_graph=create_graph, allow_unused=allow_unused,
                                  materialize_grads=materialize_grads)
        if out is not NotImplemented:
            return out
    if allow_unused is None:
        allow_unused = materialize_grads
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when materialize_grads=True")
    outs = _as_tuple(outputs)
    ins = tuple(_edge_input(t) if isinstance(t, GradientEdge) else t
                for t in ((inputs,) if isinstance(inputs, GradientEdge) else _as_tuple(inputs)))
    if not ins:
        raise RuntimeError("grad requires non-empty inputs.")
    for i, t in enumerate(ins):
        if not isinstance(t, Tensor):
            raise TypeError(f"grad: inputs[{i}] is a {type(t).__name__}, not a Tensor")
        if not t._requires_grad:
            raise RuntimeError(f"One of the differentiated Tensors (inputs[{i}]) does not require grad")
    grads = _as_tuple(grad_outputs) if grad_outputs is not None else (None,) * len(outs)
    if retain_graph is None:
        retain_graph = create_graph
    roots = _roots(outs, "grad")
    seeds = _make_grads(outs, grads, True)
    # the same tensor (graph edge) twice in inputs: compute it once, return it twice
    slot: dict = {}
    uniq: list[Tensor] = []
    for t in ins:
        key = (t.grad_fn, t._output_nr) if t.grad_fn is not None else (t._accumulator(), 0)
        if key not in slot:
            slot[key] = len(uniq)
            uniq.append(t)
    res = engine.execute(roots, seeds, retain_graph, create_graph, uniq, accumulate=False, leaf_hooks=_leaf_hooks)
    res = [res[slot[(t.grad_fn, t._output_nr) if t.grad_fn is not None else (t._accumulator(), 0)]] for t in ins]  # type: ignore[index]
    assert res is not None
    final = []
    for i, (t, g) in enumerate(zip(ins, res)):
        if g is None:
            if materialize_grads:  # as PyTorch: zeros that require grad under create_graph
                g = Tensor._make(np.zeros_like(t._data))
                g._requires_grad = create_graph
            elif not allow_unused:
                raise RuntimeError(
                    f"One of the differentiated Tensors (inputs[{i}]) appears to not have been "
                    "used in the graph. Set allow_unused=True if this is the desired behavior."
                )
        elif not create_graph and g._requires_grad:
            g = g.detach()
        final.append(g)
    return tuple(final)


# --- apisurface: GradientEdge as an input of grad() / backward()
def _edge_input(edge: GradientEdge, leaf_only: bool = False) -> Tensor:
    """The tensor standing for ``edge`` (``autograd.graph.get_gradient_edge(t)``) among the
    inputs: a leaf's own tensor for an AccumulateGrad edge; for a non-leaf edge (``grad`` only),
    a stand-in tensor with that node and output number, shaped as the node's output (the
    tensor itself may be gone: the edge is what matters).

    Raises:
        RuntimeError: a non-leaf edge in ``backward(inputs=...)`` (there is no ``.grad`` to
            accumulate into); an edge whose node is None.
    """
    node, nr = edge
    if node is None:
        raise RuntimeError("The gradient edge has no node (the tensor does not require grad)")
    if isinstance(node, AccumulateGrad):
        return node.variable
    if leaf_only:
        raise RuntimeError("backward(inputs=...): a GradientEdge of a non-leaf has no .grad to accumulate into; "
                           "use autograd.grad(outputs, inputs=[edge]) to get its gradient")
    shape, dtype = node._output_meta[nr]
    stand_in = Tensor._make(np.zeros(shape, dtype=dtype))
    stand_in.grad_fn = node
    stand_in._output_nr = nr
    stand_in._requires_grad = True
    return stand_in
