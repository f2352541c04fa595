"""Autograd inside ``vmap``: ``autograd.grad``, forward AD (``make_dual``) and in-place
ops on BatchedTensors; ``vmap_call``, the minimal vmap the autograd layer uses for batched
backward passes (vectorised Jacobians, gradcheck's batched checks); and ``grad_batched``,
``grad(..., is_grads_batched=True)`` (the public ``autograd.grad`` sends it here). See
:mod:`dyngrad.transforms.batching` for BatchedTensor.

The graph is always recorded on the unwrapped (physical) tensors. A batched tensor is
brought to a *canonical* layout, one batch dim per vmap level in front (outermost first)
and then its per-example dims, by ops (so gradients flow through the moves); gradients
come back wrapped like the tensors they belong to.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..autograd.backprop import grad
from ..tensor import Tensor
from .batching import (
    BatchedTensor,
    VmapLevel,
    VmapUnsupported,
    pop_level,
    push_level,
    vmap_levels,
    wrap_batched,
)

__all__ = ["batch_at_all_levels", "batched_grad", "batched_inplace", "batched_make_dual", "grad_batched", "vmap_call",
           "levels_of"]


def levels_of(t: Any) -> list:
    """The vmap levels ``t`` is batched at, outermost first."""
    out: list[VmapLevel] = []
    while isinstance(t, BatchedTensor):
        out.insert(0, t._level)
        t = t._value
    return out


def _canon(t: Any) -> tuple[Tensor, list]:
    """``t`` as a plain tensor with one batch dim per level in front (outermost first),
    then its logical dims; and those levels. The moves are ops, so gradients flow."""
    from ..ops import movedim  # deferred: ops are built on this package

    lv: list[VmapLevel] = []
    while isinstance(t, BatchedTensor):
        v = t._value
        if t._bdim != 0:
            v = movedim(v, t._bdim, 0)
        lv.insert(0, t._level)
        t = v
    return t, lv


def _bottom(t: Any) -> Tensor:
    while isinstance(t, BatchedTensor):
        t = t._value
    return t


def _rewrap_like(g: Tensor, like: Any) -> Any:
    chain = []
    while isinstance(like, BatchedTensor):
        chain.append((like._bdim, like._level))
        like = like._value
    for bdim, lvl in reversed(chain):
        g = wrap_batched(g, bdim, lvl)
    return g


def _broadcast_levels(plain: Tensor, have: list, want: list) -> Tensor:
    """Canonical ``plain`` (batch dims of ``have`` in front) expanded to the batch dims of
    ``want`` (a superset of ``have``; both outermost first)."""
    shape = list(plain.shape)
    changed = False
    for i, lvl in enumerate(want):
        if lvl not in have:
            plain = plain.unsqueeze(i)
            shape.insert(i, lvl.batch_size)
            changed = True
    return plain.expand(*shape) if changed else plain


def batch_at_all_levels(t: Tensor) -> Tensor:
    """``t`` batched at every active vmap level (expanded where it was not), so that its
    gradient is per example: ``grad`` of an unbatched weight inside ``vmap`` is one
    gradient per example, not their sum (PyTorch's ``vmap(grad(f), in_dims=(None, 0))``)."""
    want = list(vmap_levels())
    if not want or levels_of(t) == want:
        return t
    plain, have = _canon(t)
    if any(h not in want for h in have):
        raise VmapUnsupported("a batched tensor of a vmap level that is no longer active")
    plain = _broadcast_levels(plain, have, want)
    for lvl in want:
        plain = wrap_batched(plain, 0, lvl)
    return plain


def batched_grad(grad_fn: Any, outputs: Any, inputs: Any, grad_outputs: Any, **kw: Any) -> tuple:
    """``autograd.grad`` inside vmap: the graph is the batched computation, so the gradient
    of the sum over examples w.r.t. a batched input is the per-example gradient (examples
    never interact). Outputs and their grad_outputs are brought to one layout; the
    gradients come back batched like their inputs.

    Raises:
        VmapUnsupported: an input not batched at a level where an output is (its gradient
            would be the sum over the batch, not one per example).
    """
    outs = (outputs,) if isinstance(outputs, Tensor) else tuple(outputs)
    ins = (inputs,) if isinstance(inputs, Tensor) else tuple(inputs)
    if grad_outputs is None:
        gos: tuple = (None,) * len(outs)
    else:
        gos = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs)
    out_levels = set()
    for o in outs:
        out_levels.update(levels_of(o))
    for i, t in enumerate(ins):
        if out_levels - set(levels_of(t)):
            raise VmapUnsupported(
                f"autograd.grad w.r.t. inputs[{i}], which is not batched like the outputs (its "
                "per-example gradients would be summed)"
            )
    # levels where only grad_outputs are batched (a batched backward nested inside vmap):
    # they stay BatchedTensors around the seeds, and the engine runs the backward batched
    extra = sorted({x for g in gos if isinstance(g, BatchedTensor) for x in levels_of(g)} - out_levels,
                   key=lambda lv: lv.depth)
    known = out_levels.union(*(levels_of(t) for t in ins))
    if extra and known and extra[0].depth < max(x.depth for x in known):
        raise VmapUnsupported("grad_outputs batched at an outer level than the outputs")
    roots, seeds = [], []
    for i, (o, g) in enumerate(zip(outs, gos)):
        plain, lv = _canon(o)
        if g is None:
            if o.numel() != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (output {i} has "
                    f"shape {list(o.shape)}); pass a gradient of that shape"
                )
            seed = Tensor._make(np.ones(plain.shape, plain._data.dtype))
        else:
            if not isinstance(g, Tensor) or tuple(g.shape) != tuple(o.shape):
                raise RuntimeError(
                    f"Mismatch in shape: grad_output[{i}] has a shape of "
                    f"{list(getattr(g, 'shape', ()))} and output[{i}] has a shape of {list(o.shape)}."
                )
            gp, glv = _canon(g)
            if any(x not in lv and x not in extra for x in glv):
                raise VmapUnsupported(f"grad_outputs[{i}] is batched where output {i} is not")
            seed = _broadcast_levels(gp, glv, lv + extra) if extra else _broadcast_levels(gp, glv, lv)
            for e in extra:
                seed = wrap_batched(seed, len(lv), e)
        roots.append(plain)
        seeds.append(seed)
    res = grad_fn(roots, [_bottom(t) for t in ins], seeds, **kw)
    return tuple(None if g is None else _rewrap_inside(g, t) for g, t in zip(res, ins))


def _rewrap_inside(g: Tensor, like: Any) -> Any:
    """The gradient ``g`` of ``like``'s bottom tensor, batched like ``like``; levels that
    ``g`` has beyond (a batched backward) stay outermost."""
    if not isinstance(g, BatchedTensor):
        return _rewrap_like(g, like)
    gp, glv = _canon(g)
    chain = []
    while isinstance(like, BatchedTensor):
        chain.append((like._bdim, like._level))
        like = like._value
    for bdim, lvl in reversed(chain):
        gp = wrap_batched(gp, bdim + len(glv), lvl)
    for lvl in glv:
        gp = wrap_batched(gp, 0, lvl)
    return gp


# ------------------------------------------------------------------ in-place ops inside vmap
def batched_inplace(fn: Any, self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """In-place ``fn_`` inside vmap: compute ``fn(self.clone(), *args)`` batched, then copy
    it into ``self``'s values (``copy_`` on the unwrapped tensor, so autograd records it as usual).

    Raises:
        VmapUnsupported: when the result is batched where ``self`` is not (an unbatched
            tensor cannot hold one value per example); vmap then loops.
    """
    alias = self.clone()  # carries self's old history; what the op saves is not overwritten
    result = fn(alias, *(alias if a is self else a for a in args), **kwargs)
    _assign(self, result)
    return self


def _assign(dst: Any, src: Any) -> None:
    from ..ops import movedim  # deferred: ops are built on this package

    if not isinstance(dst, BatchedTensor):
        if isinstance(src, BatchedTensor):
            raise VmapUnsupported(
                "an in-place op writes a batched value into a tensor that is not batched (of shape "
                f"{list(dst.shape)}; it cannot hold one value per example: a buffer such as a running "
                "statistic updated in training mode?)"
            )
        dst.copy_(src)
        return
    lvl, d = dst._level, dst._bdim
    if isinstance(src, BatchedTensor) and src._level is lvl:
        val = movedim(src._value, src._bdim, d) if src._bdim != d else src._value
    else:
        shape = list(dst._value.shape)
        val = src.unsqueeze(d).expand(*shape) if src.ndim + 1 == len(shape) else src.expand(*shape)
    _assign(dst._value, val)


def batched_make_dual(make_dual: Any, tensor: Tensor, tangent: Tensor) -> Tensor:
    """``forward_ad.make_dual`` inside vmap: the dual is made of the values (batch dims in
    front, the primal or tangent expanded where only the other is batched), then wrapped."""
    p, plv = _canon(tensor)
    u, ulv = _canon(tangent)
    want = sorted(set(plv) | set(ulv), key=lambda lv: lv.depth)
    dual = make_dual(_broadcast_levels(p, plv, want), _broadcast_levels(u, ulv, want))
    for lvl in want:
        dual = wrap_batched(dual, 0, lvl)
    return dual


def grad_batched(outputs: Any, inputs: Any, grad_outputs: Any, retain_graph: bool | None = None,
                 create_graph: bool = False, allow_unused: bool | None = None,
                 materialize_grads: bool = False) -> tuple:
    """``autograd.grad(..., is_grads_batched=True)``: dim 0 of every grad_output is a batch of
    ``B`` vectors; one backward pass runs on all of them at once (the backward formulas run
    on BatchedTensors: :func:`vmap_call` over the grad_outputs), or, where a backward cannot
    be batched, one pass per vector (with a warning). The core ``grad``
    (autograd/backprop.py) knows nothing of this: the batched entry lives here, above it.

    Returns:
        one gradient per input, shaped ``(B, *input.shape)`` (or None where unused).
    Raises:
        RuntimeError: grad_outputs that are not all Tensors with a common batch dim 0; and
            what ``grad`` raises.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
        >>> y = x * x
        >>> dyngrad.autograd.grad(y, x, dyngrad.eye(2), is_grads_batched=True)
        (tensor([[2., 0.],
                [0., 4.]]),)
    """
    from ..ops import stack  # deferred: ops are built on this package

    gos = (grad_outputs,) if isinstance(grad_outputs, Tensor) else tuple(grad_outputs or ())
    if not gos or any(not isinstance(g, Tensor) or g.ndim == 0 for g in gos):
        raise RuntimeError("grad(is_grads_batched=True): every grad_output must be a Tensor with a batch dim 0")
    n = gos[0].shape[0]
    if any(g.shape[0] != n for g in gos):
        raise RuntimeError(
            "grad(is_grads_batched=True): the grad_outputs have different batch sizes "
            f"{[g.shape[0] for g in gos]} in dim 0"
        )
    kw: dict[str, Any] = {"create_graph": create_graph, "allow_unused": allow_unused,
                          "materialize_grads": materialize_grads}
    try:
        return vmap_call(lambda *vs: grad(outputs, inputs, vs, retain_graph=True, **kw), gos, (0,) * len(gos), n)
    except VmapUnsupported as e:
        import warnings

        warnings.warn(
            f"grad(is_grads_batched=True) fell back to a loop over {n} vectors: {e}", UserWarning, stacklevel=3
        )
    rows = [grad(outputs, inputs, tuple(g[k] for g in gos), retain_graph=True, **kw) for k in range(n)]
    return tuple(None if r[0] is None else stack(list(r), 0) for r in zip(*rows))


def vmap_call(fn: Any, args: tuple, in_dims: tuple, n: int, randomness: str = "error") -> Any:
    """A minimal vmap for the autograd layer: ``fn(*args)`` with ``args[i]`` batched along
    ``in_dims[i]`` (None: shared), every Tensor output batched at dim 0 (an output that
    does not depend on the batch is expanded), random ops following ``randomness`` (as
    vmap's argument). Raises VmapUnsupported where the batched path cannot go (callers fall
    back to a loop); warns naming the Functions that had to run once per example."""
    from ..ops import movedim  # deferred: ops are built on this package

    lvl = push_level(n, randomness)
    try:
        wrapped = [a if d is None else wrap_batched(a, d, lvl) for a, d in zip(args, in_dims)]
        out = fn(*wrapped)

        def unbatch(o: Any) -> Any:
            if isinstance(o, BatchedTensor) and o._level is lvl:
                return movedim(o._value, o._bdim, 0) if o._bdim else o._value
            if isinstance(o, Tensor):
                return o.unsqueeze(0).expand(n, *o.shape)
            return o

        res = tuple(unbatch(o) for o in out) if isinstance(out, (tuple, list)) else unbatch(out)
    finally:
        pop_level(lvl)
    if lvl.fallbacks:
        import warnings

        warnings.warn(
            f"vmap: no batching rule for {', '.join(sorted(lvl.fallbacks))}; ran once per example "
            f"({n} times) for these (results are exact)",
            UserWarning,
            stacklevel=3,
        )
    return res
