"""Higher-order autograd on functions (PyTorch's ``torch.autograd.functional``).

``vjp``, ``jvp``, ``jacobian``, ``hessian``, ``vhp`` and ``hvp`` take a function of
Tensors and the point to differentiate at. As in PyTorch, ``inputs`` is a Tensor or a tuple
of Tensors, and every result mirrors that: a single Tensor for a single input/output, a
tuple (or tuple of tuples, ``result[i][j]`` = output ``i`` w.r.t. input ``j``) otherwise.

Results are detached unless ``create_graph=True``, which records them so they can be
differentiated again (inputs that require grad then stay connected). ``strict=True`` makes
an output that does not depend on an input an error instead of returning zeros.
``vectorize=True`` (reverse mode) computes all the rows of a Jacobian in one backward pass
over a batch of basis vectors (``grad(..., is_grads_batched=True)``: the backward formulas
run batched, see transforms/batched_autograd.py); in forward mode, one forward pass carries
all the basis tangents of an input at once. Where an op cannot be batched, it falls back
to the loop (one pass per row/column).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad as fwd
from . import grad_mode
from ..transforms.batched_autograd import _bottom, grad_batched as _grad_batched
from ..transforms.batching import vmap_levels
from ..transforms.dual import current
from ..transforms.dual_apply import _retire, is_retired
from .backprop import grad as _grad

__all__ = ["vjp", "jvp", "jacobian", "hessian", "vhp", "hvp"]


def _as_tuple(x: Any, arg: str, fn: str) -> tuple[bool, tuple]:
    is_tuple = isinstance(x, (tuple, list))
    xs = tuple(x) if is_tuple else (x,)
    for i, t in enumerate(xs):
        if not isinstance(t, Tensor):
            where = f"{arg}[{i}]" if is_tuple else arg
            raise TypeError(
                f"The {where} given to {fn} must be a Tensor (or a tuple of Tensors) but it is "
                f"of type {type(t).__name__}."
            )
    return is_tuple, xs


def _tuple_back(is_tuple: bool, xs: Any) -> Any:
    return tuple(xs) if is_tuple else xs[0]


def _prep(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh inputs that require grad: connected views of inputs that require grad when
    create_graph (so results stay differentiable w.r.t. them), detached leaves otherwise."""
    res = []
    for x in inputs:
        if create_graph and x.requires_grad:
            res.append(x.view_as(x) if hasattr(x, "view_as") else x * 1)
        else:
            t = x.detach()
            if need_graph:
                t.requires_grad_(True)
            fwd._share_tangent(x, t)  # inside an outer forward transform: keep x's tangent
            res.append(t)
    return tuple(res)


def _post(xs: Any, create_graph: bool) -> Any:
    if isinstance(xs, tuple):
        return tuple(_post(x, create_graph) for x in xs)
    if xs is None or create_graph:
        return xs
    return xs.detach()


def _check_v(v: Any, ref: tuple, name: str, fn: str) -> tuple:
    _, vs = _as_tuple(v, name, fn)
    if len(vs) != len(ref):
        raise RuntimeError(
            f"{fn}: {name} is a tuple of invalid length: should be {len(ref)} but got {len(vs)}."
        )
    for i, (a, b) in enumerate(zip(vs, ref)):
        if a.shape != b.shape:
            raise RuntimeError(
                f"{fn}: Entry {i} in {name} has invalid size: should be {list(b.shape)} but got "
                f"{list(a.shape)}."
            )
    return vs


def _one_or_raise(xs: tuple, what: str, fn: str) -> tuple:
    if len(xs) != 1 or xs[0].numel() != 1:
        raise RuntimeError(
            f"{fn}: The vector v can only be None if the {what} is a single Tensor with a single "
            "element."
        )
    return (Tensor._make(np.ones(xs[0]._data.shape, dtype=xs[0]._data.dtype)),)


def _grads(outs: tuple, ins: tuple, gouts: tuple, create_graph: bool, strict: bool, fn: str, retain: bool = True) -> tuple:
    """``autograd.grad`` of the outputs that require grad; zeros (or strict errors) for
    inputs that get no gradient."""
    pairs = [(o, g) for o, g in zip(outs, gouts) if o.requires_grad]
    if not pairs:
        res: tuple = (None,) * len(ins)
    else:
        res = _grad([o for o, _ in pairs], ins, [g for _, g in pairs], retain_graph=retain,
                    create_graph=create_graph, allow_unused=True)
    out = []
    for i, (g, x) in enumerate(zip(res, ins)):
        if g is None:
            g = _zero_grad(fn, i, x.shape, x, strict)
        out.append(g)
    return tuple(out)


def _reaches_outer(outs: Any, own: Any) -> bool:
    """True when grad mode is on and the graph of ``outs`` reaches a leaf that requires grad
    other than ``own`` (a tensor captured by closure, an argument not differentiated): the
    derivatives must then be recorded so that an outer gradient reaches it (as
    ``torch.func`` does). An iterative walk over the graph."""
    if not grad_mode.is_grad_enabled():
        return False
    own_ids = {id(_bottom(t)) for t in own}  # (inside vmap: the unwrapped leaves)
    stack = [o.grad_fn for o in outs if isinstance(o, Tensor) and o.grad_fn is not None]
    seen: set = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:  # an AccumulateGrad: a leaf that requires grad
            if id(var) not in own_ids and not is_retired(node):
                return True
            continue
        stack.extend(fn for fn, _ in node.next_functions)
    return False


def _zero_grad(fn: str, i: int, shape: tuple, x: Tensor, strict: bool) -> Tensor:
    """The zero gradient of input ``i``, which the outputs do not depend on (an error with
    ``strict``)."""
    if strict:
        raise RuntimeError(
            f"{fn}: The output of the user-provided function is independent of input {i}. "
            "This is not allowed in strict mode."
        )
    return Tensor._make(np.zeros(shape, x._data.dtype))


def _call(func: Callable, ins: tuple, fn: str) -> tuple[bool, tuple]:
    return _as_tuple(func(*ins), "outputs of the user-provided function", fn)


def vjp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """The vector-Jacobian product ``v^T J`` of ``func`` at ``inputs``.

    Args:
        func: takes Tensors, returns a Tensor or tuple of Tensors.
        inputs: Tensor or tuple of Tensors.
        v: like func's outputs (may be None when func returns one single-element tensor).
    Returns:
        ``(func_output, vjp)``, ``vjp`` shaped like ``inputs``.
    Raises:
        RuntimeError: ``v`` of the wrong length or shape (naming the entry), or, with strict,
            an output independent of an input.
    """
    with grad_mode.enable_grad():
        is_in, ins = _as_tuple(inputs, "inputs", "vjp")
        ins = _prep(ins, create_graph, True)
        is_out, outs = _call(func, ins, "vjp")
        vs = _one_or_raise(outs, "output of the user-provided function", "vjp") if v is None else _check_v(v, outs, "v", "vjp")
        g = _grads(outs, ins, vs, create_graph, strict, "vjp")
    return _post(_tuple_back(is_out, outs), create_graph), _post(_tuple_back(is_in, g), create_graph)


def jvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """The Jacobian-vector product ``J v`` of ``func`` at ``inputs``, by forward-mode AD.

    Args:
        v: like ``inputs`` (may be None when the input is one single-element tensor).
    Returns:
        ``(func_output, jvp)``, ``jvp`` shaped like the outputs.
    Raises:
        RuntimeError: ``v`` of the wrong length or shape (naming the entry); with strict, an
            output independent of the inputs.
    """
    is_in, ins = _as_tuple(inputs, "inputs", "jvp")
    vs = _one_or_raise(ins, "input to the user-provided function", "jvp") if v is None else _check_v(v, ins, "v", "jvp")
    with grad_mode.set_grad_enabled(create_graph):
        ins = _prep(ins, create_graph, False)
        with fwd.dual_level():
            duals = tuple(fwd.make_dual(x, u) for x, u in zip(ins, vs))
            is_out, outs = _call(func, duals, "jvp")
            res = []
            prims = []
            for i, o in enumerate(outs):
                p, t = fwd.unpack_dual(o)
                if t is None:
                    if strict:
                        raise RuntimeError(
                            f"jvp: The output {i} of the user-provided function is independent of "
                            "the inputs. This is not allowed in strict mode."
                        )
                    t = Tensor._make(np.zeros(o.shape, o._data.dtype))
                prims.append(p)
                res.append(t)
    return _post(_tuple_back(is_out, prims), create_graph), _post(_tuple_back(is_out, res), create_graph)


def _stack(rows: list, shape: tuple, create_graph: bool) -> Tensor:
    """Rows (one gradient per output element) -> ``out_shape + in_shape`` Tensor."""
    if not rows:
        return Tensor._make(np.zeros(shape))
    if (create_graph and any(r.requires_grad for r in rows)) or current() is not None or vmap_levels():
        from ..ops import stack

        return stack(rows).reshape(shape)
    return Tensor._make(np.stack([r._data for r in rows]).reshape(shape))


def jacobian(
    func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
    vectorize: bool = False, strategy: str = "reverse-mode", *, _randomness: str = "error",
) -> Any:
    """The Jacobian of ``func`` at ``inputs``.

    Args:
        vectorize: one batched backward pass for all rows (reverse mode), or one batched
            forward pass per input (forward mode), instead of one pass per element.
        strategy: ``"reverse-mode"`` (one vjp per output element) or ``"forward-mode"``
            (one forward-AD pass per input element; better when outputs outnumber inputs).
    Returns:
        For output ``i`` (shape ``O_i``) and input ``j`` (shape ``I_j``) a Tensor of shape
        ``O_i + I_j``: a Tensor, a tuple, or a tuple of tuples, following whether
        ``inputs`` and the outputs are tuples.
    Raises:
        ValueError: unknown strategy; RuntimeError: with strict, an output independent of an
            input (strict is not supported with forward mode, as in PyTorch).
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f'jacobian: expected strategy to be either "forward-mode" or "reverse-mode", got {strategy!r}')
    is_in, ins = _as_tuple(inputs, "inputs", "jacobian")
    if strategy == "forward-mode":
        if strict:
            raise RuntimeError("jacobian: strict=True and strategy='forward-mode' are not supported together")
        if vectorize:
            res = _jac_forward_batched(func, ins, is_in, create_graph, _randomness)
            if res is not None:
                return res
        return _jac_forward(func, ins, is_in, create_graph, _randomness)
    if strict and vectorize:  # as PyTorch: strict's unused-input check needs one pass per row
        raise RuntimeError("torch.autograd.functional.jacobian: `strict=True` and `vectorized=True` are not supported "
                           "together. Please either set `strict=False` or `vectorize=False`.")
    with grad_mode.enable_grad():
        ins = _prep(ins, bool(create_graph), True)
        is_out, outs = _call(func, ins, "jacobian")
        if create_graph is None:  # (dyngrad.func) record iff the outputs reach an outer tensor
            create_graph = _reaches_outer(outs, ins)
        jac: list[list] = []
        for o in outs:
            if vectorize:  # all rows in one backward pass on a batch of basis vectors
                jac.append(_jac_rows_batched(o, ins, create_graph, strict))
                continue
            rows: list[list] = [[] for _ in ins]
            n = o.numel()
            for k in range(n):
                e = np.zeros(n, dtype=o._data.dtype)
                e[k] = 1
                gs = _grads((o,), ins, (Tensor._make(e.reshape(o._data.shape)),), create_graph, strict, "jacobian")
                for j, g in enumerate(gs):
                    rows[j].append(g)
            jac.append([_post(_stack(rows[j], o.shape + x.shape, create_graph), create_graph)
                        for j, x in enumerate(ins)])
        _retire(ins)
    return _shape_result(jac, is_out, is_in)


def _jac_rows_batched(o: Tensor, ins: tuple, create_graph: bool, strict: bool) -> list:
    """The Jacobian blocks of output ``o``: ``grad(..., is_grads_batched=True)`` with the
    identity as the batch of grad_outputs (one vectorised backward pass)."""
    n = o.numel()
    if not o.requires_grad:  # an output that depends on no input: zero blocks (or strict error)
        gs: tuple = (None,) * len(ins)
    else:
        eye = Tensor._make(np.eye(n, dtype=o._data.dtype).reshape((n, *o.shape)))
        gs = _grad_batched(o, ins, eye, retain_graph=True, create_graph=create_graph, allow_unused=True)
    out = []
    for i, (g, x) in enumerate(zip(gs, ins)):
        if g is None:
            g = _zero_grad("jacobian", i, (n, *x.shape), x, strict)
        out.append(_post(g.reshape(tuple(o.shape) + tuple(x.shape)), create_graph))
    return out


def _shape_result(jac: list, is_out: bool, is_in: bool) -> Any:
    if is_out:
        return tuple(tuple(r) if is_in else r[0] for r in jac)
    return tuple(jac[0]) if is_in else jac[0][0]


def _replay(randomness: str) -> Callable[[], None]:
    """For ``randomness='same'`` (``func.jacfwd``): a function that puts the default
    Generator back where it is now, so that every pass over ``func`` (one per input, or
    per column when looping) draws the same numbers; a no-op otherwise."""
    if randomness != "same":
        return lambda: None
    from ..creation import default_generator

    bitgen = default_generator.rng.bit_generator
    state = bitgen.state

    def replay() -> None:
        bitgen.state = state

    return replay


def _jac_forward_batched(func: Callable, ins: tuple, is_in: bool, create_graph: bool,
                         randomness: str = "error") -> Any:
    """Forward-mode Jacobian with all basis tangents of an input in one batched pass
    (``make_dual`` with a batch of tangents inside vmap, whose randomness mode is
    ``randomness``: ``func.jacfwd``'s argument); None when some op cannot be batched (the
    caller then loops)."""
    from ..ops import movedim
    from ..transforms.batched_autograd import vmap_call
    from ..transforms.batching import VmapUnsupported

    auto = create_graph is None  # (dyngrad.func) keep results that reach an outer tensor
    with grad_mode.set_grad_enabled(grad_mode.is_grad_enabled() if auto else create_graph):
        ins = _prep(ins, bool(create_graph), False)
        blocks: list = []  # blocks[j] = tangents of every output w.r.t. input j
        meta: list = []
        replay = _replay(randomness)
        for j, x in enumerate(ins):
            replay()
            n = x.numel()
            eye = Tensor._make(np.eye(n, dtype=x._data.dtype).reshape((n, *x.shape)))

            def one(e: Tensor, j: int = j, x: Tensor = x) -> tuple:
                with fwd.dual_level():
                    args = list(ins)
                    args[j] = fwd.make_dual(x, e)
                    is_out, outs = _call(func, tuple(args), "jacobian")
                    meta[:] = [is_out, [o.shape for o in outs]]
                    ts = [fwd.unpack_dual(o).tangent for o in outs]
                    return tuple(Tensor._make(np.zeros(o.shape, o._data.dtype)) if t is None else t
                                 for t, o in zip(ts, outs))

            try:
                ts = vmap_call(one, (eye,), (0,), n, randomness) if n else None
            except VmapUnsupported:
                return None
            if ts is None:
                return None
            blocks.append([movedim(t, 0, -1).reshape(tuple(t.shape[1:]) + tuple(x.shape)) for t in ts])
        is_out, shapes = meta
        jac = [[_post(blocks[j][i], _reaches_outer([blocks[j][i]], ()) if auto else create_graph) for j in range(len(ins))] for i in range(len(shapes))]
    return _shape_result(jac, is_out, is_in)


def _jac_forward(func: Callable, ins: tuple, is_in: bool, create_graph: bool, randomness: str = "error") -> Any:
    auto = create_graph is None  # (dyngrad.func) keep results that reach an outer tensor
    replay = _replay(randomness)
    with grad_mode.set_grad_enabled(grad_mode.is_grad_enabled() if auto else create_graph):
        ins = _prep(ins, bool(create_graph), False)
        cols: list[list[list]] = []  # cols[j][i] -> list of tangents of output i
        is_out = False
        out_shapes: list = []
        for j, x in enumerate(ins):
            per_out: list[list] = []
            n = x.numel()
            for k in range(n):
                e = np.zeros(n, dtype=x._data.dtype)
                e[k] = 1
                replay()
                with fwd.dual_level():
                    args = list(ins)
                    args[j] = fwd.make_dual(x, e.reshape(x._data.shape))
                    is_out, outs = _call(func, tuple(args), "jacobian")
                    out_shapes = [o.shape for o in outs]
                    ts = [fwd.unpack_dual(o).tangent for o in outs]
                    ts = [Tensor._make(np.zeros(o.shape, o._data.dtype)) if t is None else t for t, o in zip(ts, outs)]
                if not per_out:
                    per_out = [[] for _ in outs]
                for i, t in enumerate(ts):
                    per_out[i].append(t)
            cols.append(per_out)
        if not out_shapes:  # no input elements: evaluate once for the output shapes
            is_out, outs = _call(func, ins, "jacobian")
            out_shapes = [o.shape for o in outs]
        jac = []
        for i, osh in enumerate(out_shapes):
            row = []
            for j, x in enumerate(ins):
                cs = cols[j][i] if cols[j] else []
                if not cs:
                    m = Tensor._make(np.zeros(osh + x.shape, dtype=x._data.dtype))
                elif ((create_graph or auto) and any(c.requires_grad for c in cs)) or vmap_levels() \
                        or current() is not None:  # batched, or an outer dual level's tangents: ops
                    # (np.stack of ._data would drop the outer levels' tangents: jacfwd(jacfwd(f))
                    # with f reading a value, which loops here, gave a silent 0)
                    from ..ops import stack

                    m = stack(cs, dim=-1).reshape(osh + x.shape)
                else:
                    m = Tensor._make(np.stack([c._data for c in cs], axis=-1).reshape(osh + x.shape))
                row.append(_post(m, _reaches_outer([m], ()) if auto else create_graph))
            jac.append(row)
    return _shape_result(jac, is_out, is_in)


def hessian(
    func: Callable, inputs: Any, create_graph: bool = False, strict: bool = False,
    vectorize: bool = False, outer_jacobian_strategy: str = "reverse-mode",
) -> Any:
    """The Hessian of a scalar function: the Jacobian of its gradient.

    Args:
        func: returns a single-element Tensor.
        outer_jacobian_strategy: ``"reverse-mode"`` (reverse-over-reverse) or
            ``"forward-mode"`` (forward-over-reverse).
    Returns:
        Tensor ``I + I`` for one input, else a tuple of tuples ``H[i][j]`` of shape ``I_i + I_j``.
    Raises:
        RuntimeError: func returns more than one element or a tuple.
    """
    is_in, ins = _as_tuple(inputs, "inputs", "hessian")
    if outer_jacobian_strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError(f"hessian: unknown outer_jacobian_strategy {outer_jacobian_strategy!r}")

    def jac_func(*xs: Tensor) -> tuple:
        if outer_jacobian_strategy == "forward-mode":
            xs = tuple(x if x.requires_grad else _leaf_like(x) for x in xs)
        with grad_mode.enable_grad():
            out = func(*xs)
            _check_scalar(out)
            return _grads((out,), xs, (None,), True, strict, "hessian")

    res = jacobian(jac_func, ins if is_in else ins[0], create_graph=create_graph, strict=strict, vectorize=vectorize,
                   strategy=outer_jacobian_strategy)
    if not is_in:
        return res[0]
    return res


def _leaf_like(x: Tensor) -> Tensor:
    t = x.detach().requires_grad_(True)
    fwd._share_tangent(x, t)
    return t


def _check_scalar(out: Any) -> None:
    if isinstance(out, tuple) or not isinstance(out, Tensor):
        raise RuntimeError(
            "hessian/vhp/hvp: The function given to hessian should return a single Tensor, got "
            f"{type(out).__name__}"
        )
    if out.numel() != 1:
        raise RuntimeError(
            "The Tensor returned by the function given to hessian should contain a single element "
            f"(got shape {list(out.shape)})"
        )


def vhp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``v^T H`` of a scalar function (reverse-over-reverse).

    Returns:
        ``(func_output, vhp)``, ``vhp`` shaped like ``inputs``.
    Raises:
        RuntimeError: non-scalar output; ``v`` of the wrong shape.
    """
    return _hv(func, inputs, v, create_graph, strict, "vhp")


def hvp(func: Callable, inputs: Any, v: Any = None, create_graph: bool = False, strict: bool = False) -> tuple:
    """``H v`` of a scalar function (the double-backward trick, as PyTorch).

    Returns:
        ``(func_output, hvp)``, ``hvp`` shaped like ``inputs``.
    """
    return _hv(func, inputs, v, create_graph, strict, "hvp")


def _hv(func: Callable, inputs: Any, v: Any, create_graph: bool, strict: bool, fn: str) -> tuple:
    with grad_mode.enable_grad():
        is_in, ins = _as_tuple(inputs, "inputs", fn)
        ins = _prep(ins, create_graph, True)
        vs = _one_or_raise(ins, "input to the user-provided function", fn) if v is None else _check_v(v, ins, "v", fn)
        out = func(*ins)
        _as_tuple(out, "outputs of the user-provided function", fn)
        _check_scalar(out)
        jac = _grads((out,), ins, (None,), True, strict, fn)
        if fn == "vhp":
            res = _grads(jac, ins, vs, create_graph, strict, fn)
        else:
            gj = tuple(Tensor._make(np.zeros(x.shape, x._data.dtype)).requires_grad_(True) for x in ins)
            back = _grads(jac, ins, gj, True, strict, fn)
            res = _grads(back, gj, vs, create_graph, strict, fn)
    return _post(out, create_graph), _post(_tuple_back(is_in, res), create_graph)
