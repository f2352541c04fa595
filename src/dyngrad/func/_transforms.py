"""Function transforms (``torch.func`` / JAX style) built on the autograd engine.

``grad(f)`` returns a new function computing the gradient of ``f``; ``jacrev``/``jacfwd``
its Jacobian (reverse / forward mode); transforms compose (``jacfwd(jacrev(f))`` is the
Hessian). Inputs may be dyngrad Tensors or plain NumPy arrays (or Python floats): a
gradient w.r.t. an ndarray comes back as an ndarray, so NumPy code written with operators
and array methods (``x @ W``, ``x ** 2``, ``x.sum()``) can be differentiated as is.

Composition works because each transform keeps its inputs connected to an outer
transform's graph (inputs that require grad) and records the inner backward pass
(``create_graph``) whenever an outer transform needs it (an input requires grad, or a
forward-AD dual level is active).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..autograd import forward_ad as fwd
from ..autograd import functional as AF
from ..autograd import grad_mode
from ..autograd.backprop import grad as _autograd_grad
from ..transforms.batched_autograd import batch_at_all_levels
from ..transforms.batching import BatchedTensor, vmap_levels
from ..transforms.dual import current as _dual_level
from ..autograd.functional import _reaches_outer
from ..tensor import Tensor
from .. import _backend as B

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "linearize"]


# ------------------------------------------------------------------ tiny pytrees
def _flatten(x: Any) -> tuple[list, Any]:
    """Leaves (anything not a tuple/list/dict) and a spec to rebuild the structure."""
    if isinstance(x, (tuple, list)):
        leaves: list = []
        specs = []
        for item in x:
            lv, sp = _flatten(item)
            leaves += lv
            specs.append((sp, len(lv)))
        return leaves, (type(x), specs)
    if isinstance(x, dict):
        leaves = []
        specs = []
        for k in x:
            lv, sp = _flatten(x[k])
            leaves += lv
            specs.append((k, sp, len(lv)))
        return leaves, (dict, specs)
    return [x], None


def _unflatten(leaves: list, spec: Any) -> Any:
    if spec is None:
        return leaves[0]
    kind, specs = spec
    out = []
    i = 0
    if kind is dict:
        d = {}
        for k, sp, n in specs:
            d[k] = _unflatten(leaves[i:i + n], sp)
            i += n
        return d
    for sp, n in specs:
        out.append(_unflatten(leaves[i:i + n], sp))
        i += n
    return kind(out)


# ------------------------------------------------------------------ conversions
def _is_numpy(x: Any) -> bool:
    return isinstance(x, (np.ndarray, np.generic, float, int)) and not isinstance(x, bool)


def _to_tensor(x: Any, what: str) -> Tensor:
    if isinstance(x, Tensor):
        t = x
    elif _is_numpy(x):
        arr = np.asarray(x)
        if B.kind(arr) in "iub":
            arr = arr.astype(np.float64)
        t = Tensor._make(arr)
    else:
        raise TypeError(f"{what} must be a Tensor, a NumPy array or a float, got {type(x).__name__}")
    if B.kind(t._data) != "f":
        raise TypeError(f"{what} must be floating point to be differentiated, got {t.dtype.name}")
    return t


def _to_numpy(x: Any) -> Any:
    if isinstance(x, Tensor):
        return np.array(x._data, copy=True)
    if isinstance(x, (tuple, list)):
        items = [_to_numpy(i) for i in x]
        return type(x)(*items) if hasattr(x, "_fields") else type(x)(items)  # (namedtuples too)
    if isinstance(x, dict):
        return {k: _to_numpy(v) for k, v in x.items()}
    return x


def _lift(x: Any) -> Any:
    """Non-differentiated arguments: ndarrays (also inside tuples/lists/dicts) become Tensors."""
    if isinstance(x, np.ndarray):
        return Tensor._make(x)
    if isinstance(x, (tuple, list, dict)):
        leaves, spec = _flatten(x)
        return _unflatten([Tensor._make(v) if isinstance(v, np.ndarray) else v for v in leaves], spec)
    return x


def _outer_active(leaves: list) -> bool:
    """True when an outer transform needs the inner derivatives recorded."""
    return _dual_level() is not None or (
        grad_mode.is_grad_enabled() and any(isinstance(t, Tensor) and t.requires_grad for t in leaves)
    )


def _diff_input(t: Tensor) -> Tensor:
    """A tensor that requires grad standing for ``t``: connected to ``t``'s graph when
    ``t`` requires grad, else a fresh leaf sharing its memory (and its tangent, if any)."""
    if vmap_levels():  # inside vmap: one gradient per example, also for
        t = batch_at_all_levels(t)  # inputs shared by every example (transforms/batched_autograd.py)
    if t.requires_grad:
        return fwd._suspended(fwd._Alias.apply, t) if _dual_level() is None else fwd._Alias.apply(t)
    leaf = t.detach().requires_grad_(True)
    fwd._share_tangent(t, leaf)
    return leaf


def _norm_argnums(argnums: Any, nargs: int, fn: str) -> tuple[bool, tuple[int, ...]]:
    is_int = isinstance(argnums, int) and not isinstance(argnums, bool)
    nums = (argnums,) if is_int else argnums
    if not isinstance(nums, tuple) or not nums or not all(isinstance(a, int) and not isinstance(a, bool) for a in nums):
        raise RuntimeError(f"{fn}: argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    out = []
    for a in nums:
        if not -nargs <= a < nargs:
            raise RuntimeError(
                f"{fn}: Got argnums={argnums!r} but only {nargs} positional input"
                f"{'s' if nargs != 1 else ''}; argnums must index the positional arguments"
            )
        out.append(a % nargs)
    if len(set(out)) != len(out):
        raise RuntimeError(f"{fn}: argnums {argnums!r} contains duplicates")
    return is_int, tuple(out)


# ------------------------------------------------------------------ grad
def grad_and_value(func: Callable, argnums: Any = 0, has_aux: bool = False, *, _name: str = "grad_and_value") -> Callable:
    """Like :func:`grad` but the new function returns ``(gradient, value)`` (with ``has_aux``:
    ``(gradient, (value, aux))``), as ``torch.func.grad_and_value``.

    Derivative: one backward pass of ``func``'s graph from its scalar output.

    Args:
        func (callable): returns a scalar Tensor ``()`` (with ``has_aux``: ``(scalar, aux)``).
        argnums (int or tuple of int): the positional arguments to differentiate with respect to.
            Default: ``0``.
        has_aux (bool): ``func`` also returns auxiliary data. Default: ``False``.
    Returns:
        callable: a function returning ``(gradient, value)``; the gradient has the argument's shape
            ``(*)`` (a tuple for tuple argnums), the value is ``()``.
    Raises:
        RuntimeError: (when called) an output that is not a scalar Tensor, or an ``argnums`` that
            does not index the positional arguments.

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import grad_and_value
        >>> grad_and_value(lambda x: (x ** 2).sum())(dyngrad.tensor([1.0, 2.0]))
        (tensor([2., 4.]), tensor(5.))
    """

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        is_int, nums = _norm_argnums(argnums, len(args), _name)
        args = [a if i in nums else _lift(a) for i, a in enumerate(args)]
        specs, leaf_lists, numpy_leaves = [], [], []
        for a in nums:
            leaves, spec = _flatten(args[a])
            ts = [_to_tensor(x, f"{_name}: argument {a} (argnums)") for x in leaves]
            numpy_leaves.append([not isinstance(x, Tensor) for x in leaves])
            leaf_lists.append(ts)
            specs.append(spec)
        cg = _outer_active([t for ts in leaf_lists for t in ts])
        with grad_mode.enable_grad():
            diff = [[_diff_input(t) for t in ts] for ts in leaf_lists]
            for a, spec, ds in zip(nums, specs, diff):
                args[a] = _unflatten(ds, spec)
            out = func(*args, **kwargs)
            aux = None
            if has_aux:
                if not (isinstance(out, tuple) and len(out) == 2):
                    raise RuntimeError(
                        "grad_and_value(f)(*args): output of function f should be a tuple: "
                        "(output, aux) if has_aux is True"
                    )
                out, aux = out
            out = _check_scalar_output(out)
            flat = [d for ds in diff for d in ds]
            cg = cg or _reaches_outer([out], flat)
            if out.requires_grad:
                gs = _autograd_grad(out, flat, create_graph=cg, allow_unused=True)
            else:
                gs = (None,) * len(flat)
        AF._retire(flat)
        gs = [Tensor._make(np.zeros(d.shape, d._data.dtype)) if g is None else (g if cg else g.detach())
              for g, d in zip(gs, flat)]
        all_np = all(all(n) for n in numpy_leaves)
        res, i = [], 0
        for spec, nl in zip(specs, numpy_leaves):
            part = gs[i:i + len(nl)]
            i += len(nl)
            part = [np.array(g._data, copy=True) if isnp else g for g, isnp in zip(part, nl)]
            res.append(_unflatten(part, spec))
        g_out = res[0] if is_int else tuple(res)
        value = out if cg else out.detach()
        if all_np:
            value, aux = _to_numpy(value), _to_numpy(aux)
        elif aux is not None and not cg:
            aux = _detach_tree(aux)
        return (g_out, (value, aux)) if has_aux else (g_out, value)

    wrapper.__doc__ = f"grad_and_value of {getattr(func, '__name__', func)!s}"
    wrapper.__name__ = f"{_name}({getattr(func, '__name__', 'func')})"
    return wrapper


def _split_aux(out: Any, fn: str) -> tuple:
    """``(output, aux)`` of a function called with ``has_aux=True``.

    Raises:
        RuntimeError: when it did not return a 2-tuple (as PyTorch; unpacking a Tensor of
            two rows instead would silently split it)."""
    if not (isinstance(out, tuple) and len(out) == 2):
        raise RuntimeError(
            f"{fn}(f, ..., has_aux=True): output of function f should be a tuple: (output, aux), "
            f"got {type(out).__name__}"
        )
    return out


def _detach_tree(x: Any) -> Any:
    if isinstance(x, Tensor):
        return x.detach()
    if isinstance(x, (tuple, list)):
        return type(x)(_detach_tree(i) for i in x)
    if isinstance(x, dict):
        return {k: _detach_tree(v) for k, v in x.items()}
    return x


def _check_scalar_output(out: Any) -> Tensor:
    if not isinstance(out, Tensor):  # a Python/NumPy number carries no graph: its gradient
        raise RuntimeError(  # would silently be zero (float(), .item() or NumPy inside f?)
            f"grad_and_value(f)(*args): Expected f(*args) to return a Tensor, got "
            f"{type(out).__name__} (a number computed with float(), .item() or NumPy carries no "
            "gradient; keep the computation in dyngrad operations)"
        )
    if out.numel() != 1 or out.dim() != 0 and out.numel() != 1:
        raise RuntimeError(
            "grad_and_value(f)(*args): Expected f(*args) to return a scalar Tensor, got tensor "
            f"with {out.dim()} dims (shape {list(out.shape)}). Maybe you wanted to use the vjp "
            "or jacrev APIs instead?"
        )
    return out


def grad(func: Callable, argnums: Any = 0, has_aux: bool = False) -> Callable:
    """The gradient transform: ``grad(f)(*args)`` is ``df/d args[argnums]``.

    Args:
        func: returns a single-element Tensor (or ``(output, aux)`` with ``has_aux``).
        argnums: int or tuple of ints: which positional arguments to differentiate; each
            may be a Tensor, ndarray, float or a tuple/list/dict of them.
        has_aux: ``func`` returns ``(output, aux)``; the new function then returns
            ``(gradient, aux)``.
    Returns:
        A function with ``func``'s signature returning gradients shaped like the chosen
        arguments (ndarrays for ndarray arguments; a tuple when argnums is a tuple).
    Raises:
        RuntimeError: non-scalar output; argnums out of range (naming them).
        TypeError: a differentiated argument that is not floating point.
    Example:
        >>> dyngrad.func.grad(lambda x: (x ** 2).sum())(np.array([1.0, 2.0]))
        array([2., 4.])
    """
    gv = grad_and_value(func, argnums, has_aux, _name="grad")

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        g, v = gv(*args, **kwargs)
        return (g, v[1]) if has_aux else g

    wrapper.__doc__ = f"grad of {getattr(func, '__name__', func)!s}"
    wrapper.__name__ = f"grad({getattr(func, '__name__', 'func')})"
    return wrapper


# ------------------------------------------------------------------ vjp / jvp / linearize
def _flat_primals(primals: Any) -> tuple[list, Callable]:
    """``[(argument index, leaf), ...]`` of a tuple of pytree arguments, and a function
    rebuilding the arguments from new leaves."""
    leaves, specs = [], []
    for i, p in enumerate(primals):
        lv, spec = _flatten(p)
        leaves += [(i, x) for x in lv]
        specs.append((spec, len(lv)))

    def rebuild(new: Any) -> tuple:
        out, k = [], 0
        for spec, m in specs:
            out.append(_unflatten(list(new[k:k + m]), spec))
            k += m
        return tuple(out)

    return leaves, rebuild


def vjp(func: Callable, *primals: Any, has_aux: bool = False) -> tuple:
    """The vector-Jacobian product of ``func`` at ``primals`` (reverse mode, as ``torch.func.vjp``):
    ``(output, vjp_fn)`` where ``vjp_fn(cotangents)`` returns ``v^T J``, a tuple with one entry per
    primal (ndarrays for ndarray primals).

    Derivative: ``vjp_fn`` runs one backward pass of the recorded graph (each op's backward
    formula); it is itself differentiable, so vjps nest with the other transforms.

    Args:
        func (callable): takes the primals, returns a Tensor or a (nested) tuple of Tensors (with
            ``has_aux``: ``(output, aux)``).
        *primals (Tensor): the point; shapes ``(*)`` of any kind.
        has_aux (bool): ``func`` also returns auxiliary data, passed through undifferentiated.
            Default: ``False``.
    Returns:
        tuple: ``(output, vjp_fn)`` (``(output, vjp_fn, aux)`` with ``has_aux``); ``vjp_fn(v)``
            takes cotangents of the output's structure and shapes and returns a tuple of
            ``len(primals)`` Tensors shaped like the primals, ``(*)``.
    Raises:
        RuntimeError: from ``vjp_fn`` when the cotangent structure or shapes differ from the
            output's (naming the entry).

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import vjp
        >>> out, vjp_fn = vjp(lambda x: x ** 2, dyngrad.tensor([1.0, 2.0]))
        >>> out, vjp_fn(dyngrad.ones(2))
        (tensor([1., 4.]), (tensor([2., 4.]),))
    """
    leaves, rebuild = _flat_primals(primals)  # each primal may be a pytree
    ts = [_to_tensor(x, f"vjp: primals[{i}]") for i, x in leaves]
    isnp = [not isinstance(x, Tensor) for _, x in leaves]
    cg_outer = _outer_active(ts)
    with grad_mode.enable_grad():
        ins = [_diff_input(t) for t in ts]
        out = func(*rebuild(ins))
        aux = None
        if has_aux:
            out, aux = _split_aux(out, "vjp")
    outs, ospec = _flatten(out)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor):
            raise RuntimeError(f"vjp: output {i} of func is a {type(o).__name__}, expected Tensors")
    cg_outer = cg_outer or _reaches_outer(outs, ins)

    def vjp_fn(cotangents: Any) -> tuple:
        cts, _ = _flatten(cotangents)
        if len(cts) != len(outs):
            raise RuntimeError(f"vjp_fn: expected {len(outs)} cotangents (the output's structure), got {len(cts)}")
        cts = [_to_tensor(c, f"vjp_fn: cotangents[{i}]") for i, c in enumerate(cts)]
        for i, (c, o) in enumerate(zip(cts, outs)):
            if c.shape != o.shape:
                raise RuntimeError(
                    f"vjp_fn: cotangents[{i}] has shape {list(c.shape)} but output {i} has shape {list(o.shape)}"
                )
        cg = cg_outer or any(c.requires_grad for c in cts)
        with grad_mode.enable_grad():
            gs = AF._grads(tuple(outs), tuple(ins), tuple(c.to(o.dtype) for c, o in zip(cts, outs)), cg, False, "vjp", retain=True)
        AF._retire(ins)
        return rebuild([np.array(g._data, copy=True) if n else (g if cg else g.detach()) for g, n in zip(gs, isnp)])

    value = out if cg_outer else _detach_tree(out)
    if all(isnp):
        value, aux = _to_numpy(value), _to_numpy(aux)
    return (value, vjp_fn, aux) if has_aux else (value, vjp_fn)


def jvp(func: Callable, primals: Any, tangents: Any, *, has_aux: bool = False) -> tuple:
    """The Jacobian-vector product by forward-mode AD (as ``torch.func.jvp``): ``(func(*primals), J @
    tangents)``.

    Derivative: each op's forward-mode formula (its ``jvp``), propagated with the primal; forward
    transforms nest to any depth.

    Args:
        func (callable): takes the primals, returns a Tensor or a tuple of Tensors (with
            ``has_aux``: ``(output, aux)``).
        primals (tuple of Tensor): the point (a tuple or list).
        tangents (tuple of Tensor): one per primal, each of its primal's shape ``(*)``.
        has_aux (bool): ``func`` also returns auxiliary data; keyword-only. Default: ``False``.
    Returns:
        tuple: ``(output, jvp_out)`` (``(output, jvp_out, aux)`` with ``has_aux``), ``jvp_out``
            shaped like the output.
    Raises:
        RuntimeError: primals/tangents not tuples, of different lengths, or an entry whose shapes
            differ (naming it).

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import jvp
        >>> jvp(lambda x: x ** 2, (dyngrad.tensor([1.0, 2.0]),), (dyngrad.ones(2),))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    if not isinstance(primals, (tuple, list)) or not isinstance(tangents, (tuple, list)):
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to be tuples")
    if len(primals) != len(tangents):
        raise RuntimeError(
            f"jvp(f, primals, tangents): Expected primals and tangents to have the same length, "
            f"got {len(primals)} primals and {len(tangents)} tangents"
        )
    pleaves, rebuild = _flat_primals(primals)  # each primal may be a pytree
    uleaves, _ = _flat_primals(tangents)
    if [i for i, _ in pleaves] != [i for i, _ in uleaves]:
        raise RuntimeError("jvp(f, primals, tangents): each tangent must have its primal's structure")
    ps = [_to_tensor(p, f"jvp: primals[{i}]") for i, p in pleaves]
    us = [_to_tensor(u, f"jvp: tangents[{i}]") for i, u in uleaves]
    for i, (p, u) in zip((i for i, _ in pleaves), zip(ps, us)):
        if p.shape != u.shape:
            raise RuntimeError(
                f"jvp(f, primals, tangents): tangents[{i}] has shape {list(u.shape)} but "
                f"primals[{i}] has shape {list(p.shape)}; each tangent must match its primal"
            )
    cg = grad_mode.is_grad_enabled() and any(t.requires_grad for t in ps + us)
    cg = cg or _dual_level() is not None  # nested in another jvp: keep the outer tangents (detach drops them)
    with fwd.dual_level():
        duals = [fwd.make_dual(p, u) for p, u in zip(ps, us)]
        out = func(*rebuild(duals))
        if not isinstance(out, (Tensor, tuple, list, dict)):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected f to return Tensors, got {type(out).__name__}")
        aux = None
        if has_aux:
            out, aux = _split_aux(out, "jvp")
        outs, spec = _flatten(out)
        prim, tan = [], []
        for o in outs:
            p, t = fwd.unpack_dual(o)
            prim.append(p if cg or _reaches_outer([p], ()) else p.detach())
            t = Tensor._make(np.zeros(o.shape, o._data.dtype)) if t is None else t
            tan.append(t if cg or _reaches_outer([t], ()) else t.detach())
    res = (_unflatten(prim, spec), _unflatten(tan, spec))
    if all(not isinstance(p, Tensor) for _, p in pleaves):
        res = (_to_numpy(res[0]), _to_numpy(res[1]))
        aux = _to_numpy(aux)
    return (*res, aux) if has_aux else res


def linearize(func: Callable, *primals: Any) -> tuple:
    """``(func(*primals), jvp_fn)`` with ``jvp_fn(*tangents) = J(primals) @ tangents`` (as
    ``torch.func.linearize``). Each call re-runs forward mode at ``primals``; nothing is cached.

    Derivative: forward mode (each op's jvp formula) at the fixed primals.

    Args:
        func (callable): takes the primals, returns a Tensor or a tuple of Tensors.
        *primals (Tensor): the point.
    Returns:
        tuple: ``(output, jvp_fn)``; ``jvp_fn`` takes one tangent per primal, each of its primal's
            shape ``(*)``, and returns the output's shape.
    Raises:
        RuntimeError: (from ``jvp_fn``) tangents whose number or shapes differ from the primals'
            (naming the entry).

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import linearize
        >>> out, jvp_fn = linearize(lambda x: x ** 2, dyngrad.tensor([1.0, 2.0]))
        >>> out, jvp_fn(dyngrad.ones(2))
        (tensor([1., 4.]), tensor([2., 4.]))
    """
    out = jvp(func, primals, tuple(np.zeros_like(np.asarray(getattr(p, "_data", p))) for p in primals))[0]

    def jvp_fn(*tangents: Any) -> Any:
        return jvp(func, primals, tangents)[1]

    return out, jvp_fn


# ------------------------------------------------------------------ Jacobians
_LOOP_WARNINGS = (r"vmap: no batching rule", r"grad\(is_grads_batched=True\) fell back")
def _jac(func: Callable, argnums: Any, has_aux: bool, strategy: str, name: str, randomness: str = "error") -> Callable:
    def wrapper(*args: Any) -> Any:
        is_int, nums = _norm_argnums(argnums, len(args), name)
        pairs, rebuild = _flat_primals([args[a] for a in nums])  # each may be a pytree
        raw = [x for _, x in pairs]
        ts = [_to_tensor(x, f"{name}: argument {nums[i]} (argnums)") for i, x in pairs]
        if vmap_levels():  # inside vmap: one Jacobian per example
            ts = [batch_at_all_levels(t) for t in ts]
        aux_box: list = []
        out_box: list = [None]

        def f(*xs: Tensor) -> Any:
            full = [_lift(a) for a in args]
            for a, x in zip(nums, rebuild(xs)):
                full[a] = x
            out = func(*full)
            if has_aux:
                out, aux = _split_aux(out, name)
                aux_box[:] = [aux]
            if _is_numpy(out):
                out = Tensor._make(np.asarray(out, dtype=np.float64))
            leaves, out_box[0] = _flatten(out)  # the output may be a pytree (dict, ...)
            return tuple(leaves)

        def regroup(per_leaf: tuple) -> Any:  # one block per leaf -> the arguments' structure
            parts = rebuild(per_leaf)
            return parts[0] if is_int else parts

        cg = _outer_active(ts)
        with warnings.catch_warnings():  # the batching is ours, not the user's vmap: where an
            for msg in _LOOP_WARNINGS:  # op cannot batch, looping it is silent (results exact)
                warnings.filterwarnings("ignore", message=msg, category=UserWarning)
            res = AF.jacobian(f, tuple(ts), create_graph=cg or None, strategy=strategy,
                              vectorize=True, _randomness=randomness)  # batched rows/columns
        res = _unflatten([regroup(r) for r in res], out_box[0])  # output structure, then inputs
        if aux_box:  # forward mode ran func on a batch of tangents: aux came out batched
            lv, spec = _flatten(aux_box[0])
            aux_box = [_unflatten([x._value.select(x._bdim, 0) if isinstance(x, BatchedTensor) else x
                                   for x in lv], spec)]
            if not cg:  # like the results: attached only when an outer transform needs them
                aux_box = [_detach_tree(aux_box[0])]
        if all(not isinstance(x, Tensor) for x in raw):
            res = _to_numpy(res)
            aux_box = [_to_numpy(a) for a in aux_box]
        return (res, aux_box[0] if aux_box else None) if has_aux else res

    wrapper.__name__ = f"{name}({getattr(func, '__name__', 'func')})"
    return wrapper


def jacrev(func: Callable, argnums: Any = 0, *, has_aux: bool = False, chunk_size: Any = None) -> Callable:
    """The Jacobian transform by reverse mode: one backward pass over the batch of all basis vectors
    (vectorised, as ``torch.func.jacrev``; a loop of vjps where an op cannot be batched).

    Derivative: rows of the Jacobian are vjps with the basis cotangents; the returned function is
    differentiable again (``jacrev(jacrev(f))`` is the Hessian).

    Args:
        func (callable): returns a Tensor or a tuple of Tensors (with ``has_aux``: ``(output,
            aux)``).
        argnums (int or tuple of int): the positional arguments to differentiate with respect to.
            Default: ``0``.
        has_aux (bool): ``func`` also returns auxiliary data. Default: ``False``.
        chunk_size (int, optional): basis vectors per batched backward (``None``: all at once).
            Default: ``None``.
    Returns:
        callable: a function returning, for output shape ``(*O)`` and argument shape ``(*I)``, a
            Tensor of shape ``(*O, *I)`` (ndarray for ndarray arguments); tuples for tuple outputs
            or argnums, as ``torch.func.jacrev``.
    Raises:
        RuntimeError: (when called) an ``argnums`` that does not index the positional arguments, or
            contains duplicates.

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import jacrev
        >>> jacrev(lambda x: x ** 2)(dyngrad.tensor([1.0, 2.0]))
        tensor([[2., 0.],
                [0., 4.]])
    """
    return _jac(func, argnums, has_aux, "reverse-mode", "jacrev")


def jacfwd(func: Callable, argnums: Any = 0, has_aux: bool = False, *, randomness: str = "error") -> Callable:
    """The Jacobian transform by forward mode: one forward pass carrying all basis tangents of an
    argument (vectorised; one jvp per input element where an op cannot be batched); same result
    layout as :func:`jacrev`. Forward transforms nest to any depth (``jacfwd(jacfwd(jacfwd(f)))``,
    mixed with ``jacrev``; see :mod:`dyngrad.autograd.forward_ad`).

    ``randomness`` is the mode of the vmap over the basis tangents, as in ``torch.func``:
    ``'error'`` (random ops inside raise), ``'same'`` (every column sees the same draws: the
    Jacobian of one sampled function) or ``'different'`` (each column draws its own).

    Derivative: columns of the Jacobian are jvps with the basis tangents (each op's forward-mode
    formula).

    Args:
        func (callable): returns a Tensor or a tuple of Tensors (with ``has_aux``: ``(output,
            aux)``).
        argnums (int or tuple of int): the positional arguments to differentiate with respect to.
            Default: ``0``.
        has_aux (bool): ``func`` also returns auxiliary data. Default: ``False``.
        randomness (str): ``'error'``, ``'same'`` or ``'different'``; keyword-only. Default:
            ``'error'``.
    Returns:
        callable: a function returning the Jacobian, shape ``(*O, *I)`` for output shape ``(*O)``
            and argument shape ``(*I)`` (tuples for tuple outputs or argnums).
    Raises:
        ValueError: a randomness other than 'error', 'same' or 'different' (as vmap; PyTorch raises
            RuntimeError when the function is called).
        RuntimeError: (when called) an ``argnums`` that does not index the positional arguments.

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import jacfwd
        >>> jacfwd(lambda x: x.sin().sum())(dyngrad.tensor([1.0, 2.0]))          # cos(x)
        tensor([ 0.5403, -0.4161])
    """
    if randomness not in ("error", "different", "same"):
        raise ValueError(f"jacfwd: randomness must be 'error', 'different' or 'same', got {randomness!r}")
    return _jac(func, argnums, has_aux, "forward-mode", "jacfwd", randomness)


def hessian(func: Callable, argnums: Any = 0) -> Callable:
    """The Hessian of ``func`` w.r.t. the ``argnums`` arguments: ``jacrev(jacrev(func))``.

    PyTorch composes ``jacfwd(jacrev(func))``; both give the same values, and both work in dyngrad,
    but here the vectorised reverse-over-reverse (all rows in one batched backward pass) is the
    faster one (benchmarks/hessian.py).

    Derivative: the second derivatives come from differentiating each op's backward formula again
    (double backward).

    Args:
        func (callable): returns a scalar Tensor ``()``.
        argnums (int or tuple of int): the positional arguments. Default: ``0``.
    Returns:
        callable: a function returning the Hessian, shape ``(*I, *I)`` for an argument of shape
            ``(*I)`` (nested tuples for tuple argnums).
    Raises:
        RuntimeError: (when called) an ``argnums`` that does not index the positional arguments.

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import hessian
        >>> hessian(lambda x: (x ** 3).sum())(dyngrad.tensor([1.0, 2.0]))          # diag(6 x)
        tensor([[ 6.,  0.],
                [ 0., 12.]])
    """
    return jacrev(jacrev(func, argnums), argnums)
