"""``vmap`` and ``functional_call``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..transforms.batching import RANDOMNESS_ERROR, BatchedTensor, VmapUnsupported, pop_level, push_level, wrap_batched
from ..creation import rng_moved, rng_restore, rng_snapshot
from ..tensor import Tensor
from ._transforms import _flat_primals, _flatten, _to_numpy

__all__ = ["vmap", "functional_call", "stack_module_state"]


def _norm_dims(dims: Any, n: int, what: str) -> tuple:
    if dims is None or isinstance(dims, int):
        return (dims,) * n
    if isinstance(dims, (tuple, list)):
        if len(dims) != n:
            raise ValueError(
                f"vmap: {what} is a tuple of length {len(dims)} but there are {n} "
                f"{'positional inputs' if what == 'in_dims' else 'outputs'}; give one dim (or None) each"
            )
        for i, d in enumerate(dims):
            if d is not None and not isinstance(d, int):
                raise ValueError(f"vmap: {what}[{i}] must be an int or None, got {type(d).__name__}")
        return tuple(dims)
    raise ValueError(f"vmap: {what} must be an int, None or a tuple, got {type(dims).__name__}")


def _take(x: Any, d: int, i: int) -> Any:
    if isinstance(x, Tensor):
        return x.select(d, i)
    return np.take(x, i, axis=d)


def _stack(items: list, d: int) -> Any:
    if isinstance(items[0], Tensor):
        from ..ops import stack

        return stack(items, dim=d)
    return np.stack([np.asarray(t) for t in items], axis=d)


def _flat_args(args: tuple, in_dims: Any) -> tuple[list, list, list, Callable]:
    """The leaves of ``args`` (tuples, lists and dicts are pytrees), one in_dim and one name
    per leaf, and a function rebuilding ``args`` from new leaves.

    Raises:
        ValueError: in_dims of the wrong length or structure, naming the argument."""
    if isinstance(in_dims, (tuple, list)):
        if len(in_dims) != len(args):
            raise ValueError(
                f"vmap: in_dims is a tuple of length {len(in_dims)} but there are {len(args)} "
                "positional inputs; give one dim (or None) each"
            )
        per_arg = list(in_dims)
    elif in_dims is None or isinstance(in_dims, int):
        per_arg = [in_dims] * len(args)
    else:
        raise ValueError(f"vmap: in_dims must be an int, None or a tuple, got {type(in_dims).__name__}")
    pairs, rebuild = _flat_primals(args)  # [(argument index, leaf)], and the inverse
    leaves = [x for _, x in pairs]
    dims, names = [], []
    for i, (a, d) in enumerate(zip(args, per_arg)):
        n = sum(1 for k, _ in pairs if k == i)
        nested = not (n == 1 and _flatten(a)[1] is None)
        if d is None or isinstance(d, int):
            ld = [d] * n
        else:
            ld, dspec = _flatten(d)
            spec = _flatten(a)[1]
            if len(ld) != n or (spec is not None and dspec is not None and dspec[0] is not spec[0]):
                raise ValueError(
                    f"vmap: in_dims[{i}] has the structure {type(d).__name__} of {len(ld)} dims but "
                    f"argument {i} has {n} leaves; give an int/None or a matching structure"
                )
        for x in ld:
            if x is not None and not isinstance(x, int):
                raise ValueError(f"vmap: in_dims[{i}] must hold ints or None, got {type(x).__name__}")
        dims += ld
        names += [f"argument {i} (leaf {j})" if nested else f"argument {i}" for j in range(n)]
    return leaves, dims, names, rebuild


def _check_args(args: list, dims: list, names: list) -> tuple[tuple, int]:
    """Normalised in_dims and the batch size; ValueError naming the argument otherwise."""
    sizes = {}
    for i, (a, d) in enumerate(zip(args, dims)):
        if d is None:
            continue
        if not isinstance(a, (Tensor, np.ndarray)):
            raise ValueError(
                f"vmap: {names[i]} has in_dim {d} but is a {type(a).__name__}; only Tensors "
                "and arrays can be mapped (use in_dims=None for it)"
            )
        nd = a.ndim
        if not -nd <= d < nd:
            raise ValueError(
                f"vmap: {names[i]} has in_dim {d} but only {nd} dimension(s) (shape {list(a.shape)})"
            )
        sizes[names[i]] = a.shape[d]
    if not sizes:
        raise ValueError("vmap: at least one argument must be mapped over (got in_dims all None)")
    if len(set(sizes.values())) > 1:
        desc = ", ".join(f"{k} has size {s}" for k, s in sizes.items())
        raise ValueError(
            f"vmap: Expected all tensors to have the same size in the mapped dimension, got {desc}"
        )
    return tuple(None if d is None else d % args[i].ndim for i, d in enumerate(dims)), next(iter(sizes.values()))


def _rebuild(like: Any, items: list) -> Any:
    """A tuple/list like ``like`` (namedtuples such as ``max``'s (values, indices) too)."""
    return type(like)(*items) if hasattr(like, "_fields") else type(like)(items)


def _map_out(out: Any, out_dims: Any, fn: Callable, what: str = "out_dims") -> Any:
    """Apply ``fn(leaf, out_dim)`` over the (tuple/list/dict) output structure."""
    if isinstance(out, (tuple, list)):
        od = _norm_dims(out_dims, len(out), what)
        return _rebuild(out, [_map_out(o, d, fn) for o, d in zip(out, od)])
    if isinstance(out, dict):
        if isinstance(out_dims, dict):  # one out_dim per key, as PyTorch
            if set(out_dims) != set(out):
                raise ValueError(f"vmap: out_dims has keys {sorted(out_dims)} but the output has {sorted(out)}")
            return {k: _map_out(v, out_dims[k], fn) for k, v in out.items()}
        return {k: _map_out(v, out_dims, fn) for k, v in out.items()}
    if not (out_dims is None or isinstance(out_dims, int)):
        raise ValueError(f"vmap: out_dims for a single output must be an int or None, got {out_dims!r}")
    return fn(out, out_dims)


def _run_batched(func: Callable, args: tuple, kwargs: dict, dims: tuple, n: int, out_dims: Any,
                 randomness: str) -> Any:
    """Run ``func`` once on BatchedTensors (each op dispatches to its batching rule)."""
    from ..ops import movedim

    lvl = push_level(n, randomness)
    try:
        bargs = []
        for a, d in zip(args, dims):
            if d is None:
                bargs.append(Tensor._make(a) if isinstance(a, np.ndarray) else a)
            else:
                bargs.append(wrap_batched(Tensor._make(np.asarray(a)) if isinstance(a, np.ndarray) else a, d, lvl))
        out = func(*bargs, **kwargs)

        def unbatch(o: Any, od: Any) -> Any:
            if isinstance(o, BatchedTensor) and o._level is lvl:
                if od is None:
                    raise ValueError(
                        "vmap: out_dims is None for an output that depends on the mapped inputs; "
                        "give it an int out_dim"
                    )
                od = _out_dim(od, o)
                return o._value if o._bdim == od else movedim(o._value, o._bdim, od)
            if not isinstance(o, Tensor):
                raise VmapUnsupported(f"the function returned a {type(o).__name__}, not a Tensor")
            if od is None:
                return o
            od = _out_dim(od, o)
            shape = list(o.shape)
            shape.insert(od, n)
            return o.unsqueeze(od).expand(*shape)  # the same for every example

        res = _map_out(out, out_dims, unbatch)
    finally:
        pop_level(lvl)
    if lvl.fallbacks:
        names = ", ".join(sorted(lvl.fallbacks))
        warnings.warn(
            f"vmap: no batching rule for {names}; ran once per example ({n} times) for "
            "these (results are exact)",
            UserWarning,
            stacklevel=4,
        )
    return res


def _out_dim(od: int, o: Tensor) -> int:
    """``od`` as a dim of the output with the batch dim added (``o.ndim + 1`` dims).

    Raises:
        IndexError: out of range, naming the output's per-example shape (as PyTorch)."""
    n = o.ndim + 1
    if not -n <= od < n:
        raise IndexError(
            f"vmap: out_dims={od} is out of range for an output with {o.ndim} per-example dims "
            f"(shape {list(o.shape)}): expected a dim in [{-n}, {n - 1}]"
        )
    return od % n


def _run_loop(func: Callable, args: tuple, kwargs: dict, dims: tuple, n: int, out_dims: Any,
              randomness: str) -> Any:
    """The fallback: call ``func`` on each example and stack the results. Random draws then
    happen outside vmap, so the mode is kept by hand: 'same' replays every Generator (the
    default one and the user's) for every example, 'error' refuses a call that moved one
    ('different' needs nothing)."""
    if n == 0:
        raise ValueError("vmap: the mapped dimension has size 0 and the function cannot be batched")
    snap = rng_snapshot() if randomness != "different" else None  # every Generator, not only the default
    results = []
    for k in range(n):
        if randomness == "same":
            rng_restore(snap)
        sl = [a if d is None else _take(a, d, k) for a, d in zip(args, dims)]
        results.append(func(*sl, **kwargs))
        if randomness == "error" and rng_moved(snap):
            raise RuntimeError(RANDOMNESS_ERROR)
    first = results[0]
    return _stack_tree(first, out_dims, results)


def _get(r: Any, path: tuple) -> Any:
    for p in path:
        r = r[p]
    return r


def _stack_tree(first: Any, out_dims: Any, results: list, path: tuple = ()) -> Any:
    if isinstance(first, (tuple, list)):
        od = _norm_dims(out_dims, len(first), "out_dims")
        return _rebuild(first, [_stack_tree(f, d, results, (*path, j)) for j, (f, d) in enumerate(zip(first, od))])
    if isinstance(first, dict):
        return {k: _stack_tree(v, out_dims[k] if isinstance(out_dims, dict) else out_dims, results, (*path, k))
                for k, v in first.items()}
    items = [_get(r, path) for r in results]
    if out_dims is None:
        return items[0]
    return _stack(items, out_dims)


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Any = None) -> Callable:
    """Vectorise ``func`` over a batch dimension of its inputs.

    ``vmap(f)(xs)`` equals ``stack([f(x) for x in xs])`` but runs ``f`` once: inside,
    each mapped input is a BatchedTensor that shows ``f`` the per-example shape, and every
    op computes the whole batch through its Function's batching rule (``Function.vmap``).
    An op with no rule runs once per example (a loop for that op only) and vmap warns
    naming it. Random ops are Functions with batching rules too: ``randomness`` decides
    what they draw (one batched draw for ``"different"``, one shared draw for ``"same"``).
    When ``f`` does what cannot be batched (reads values: ``item()``, ``if x > 0``, NumPy
    functions on a batched tensor; calls ``backward()``; a raw draw that is not a random
    Function with ``randomness="different"``) vmap warns and calls ``f`` once per example
    instead, so ``f`` runs again: it should not have side effects (as for PyTorch's vmap).
    Results, gradients and composition with grad/jvp/jacrev are exact either way.

    Args:
        func (Callable): a function of Tensors (or of ndarrays, written with operators/array methods).
        in_dims (int, None or tuple): int (same dim for every input), None (not mapped) or a tuple with one
            int/None per positional argument.
        out_dims (int, None or tuple): where the batch dim goes in each output (int, None for an output that
            does not depend on the mapped inputs, or a tuple per output).
        randomness (str): ``"error"`` (random ops inside raise, PyTorch's default),
            ``"different"`` (each example draws its own numbers) or ``"same"`` (every
            example gets the same numbers; a random op whose distribution parameters are
            batched, such as ``normal(batched_mean)``, then raises, as in PyTorch).
        chunk_size (int, optional): keyword only; run at most this many examples at a time
            (memory bound). Default: ``None`` (all at once).
    Returns:
        Callable: a function returning ``func``'s outputs with the batch dim added. When every mapped
        input is an ndarray, Tensor outputs come back as ndarrays.
    Raises:
        ValueError: inconsistent batch sizes (naming each argument and its size), no mapped
            input, an in_dim out of range for its argument, or a bad randomness/chunk_size.
        RuntimeError: a random op under ``randomness="error"``.

    Derivative: gradients flow through the batched ops as through ``func`` per example
    (each op's own backward); ``vmap(grad(f))`` gives per-example gradients.

    Example:
        >>> import dyngrad
        >>> x = dyngrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
        >>> dyngrad.vmap(dyngrad.dot, in_dims=(0, None))(x, dyngrad.tensor([1.0, -1.0]))
        tensor([-1., -1., -1.])
        >>> dyngrad.vmap(dyngrad.func.grad(lambda r: (r * r).sum()))(x)
        tensor([[ 2.,  4.],
                [ 6.,  8.],
                [10., 12.]])
    """
    if randomness not in ("error", "different", "same"):
        raise ValueError(f"vmap: randomness must be 'error', 'different' or 'same', got {randomness!r}")
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be None or a positive int, got {chunk_size!r}")
    name = getattr(func, "__name__", "func")

    def run(flat_func: Callable, args: tuple, kwargs: dict, dims: tuple, n: int) -> Any:
        try:
            return _run_batched(flat_func, args, kwargs, dims, n, out_dims, randomness)
        except VmapUnsupported as e:
            warnings.warn(
                f"vmap fell back to a loop over {n} calls of {name}: {e}",
                UserWarning,
                stacklevel=3,
            )
        return _run_loop(flat_func, args, kwargs, dims, n, out_dims, randomness)

    def wrapper(*structured: Any, **kwargs: Any) -> Any:
        leaves, leaf_dims, names, rebuild = _flat_args(structured, in_dims)
        dims, n = _check_args(leaves, leaf_dims, names)
        args = tuple(leaves)

        def flat_func(*flat: Any, **kw: Any) -> Any:  # the user's function on the leaves
            return func(*rebuild(flat), **kw)

        flat_func.__name__ = name
        numpy_io = all(isinstance(a, np.ndarray) for a, d in zip(args, dims) if d is not None)
        if chunk_size is None or chunk_size >= n:
            res = run(flat_func, args, kwargs, dims, n)
        else:
            parts = []
            snap = rng_snapshot() if randomness == "same" else None
            for s in range(0, n, chunk_size):
                if snap is not None:  # "same": every chunk draws what the first drew (every Generator)
                    rng_restore(snap)
                e = min(n, s + chunk_size)
                sub = tuple(a if d is None else _narrow(a, d, s, e) for a, d in zip(args, dims))
                parts.append(run(flat_func, sub, kwargs, dims, e - s))
            res = _cat_tree(parts[0], out_dims, parts)
        return _to_numpy(res) if numpy_io else res

    wrapper.__doc__ = f"vmap of {name}"
    wrapper.__name__ = f"vmap({name})"
    return wrapper


def _narrow(a: Any, d: int, s: int, e: int) -> Any:
    if isinstance(a, Tensor):
        return a.narrow(d, s, e - s)
    return np.take(a, np.arange(s, e), axis=d)


def _cat_tree(first: Any, out_dims: Any, parts: list, path: tuple = ()) -> Any:
    if isinstance(first, (tuple, list)):
        od = _norm_dims(out_dims, len(first), "out_dims")
        return _rebuild(first, [_cat_tree(f, d, parts, (*path, j)) for j, (f, d) in enumerate(zip(first, od))])
    if isinstance(first, dict):
        return {k: _cat_tree(v, out_dims[k] if isinstance(out_dims, dict) else out_dims, parts, (*path, k))
                for k, v in first.items()}
    items = [_get(p, path) for p in parts]
    if out_dims is None:
        return items[0]
    if isinstance(items[0], Tensor):
        from ..ops import cat

        return cat(items, out_dims)
    return np.concatenate([np.asarray(i) for i in items], axis=out_dims)


def _resolve(module: Any, name: str) -> tuple[Any, str]:
    *path, leaf = name.split(".")
    obj = module
    for p in path:
        subs = getattr(obj, "_modules", None)
        obj = subs[p] if isinstance(subs, dict) and p in subs else getattr(obj, p)
    return obj, leaf


def _swap(obj: Any, leaf: str, value: Any) -> Any:
    """Set ``obj.leaf = value`` (through ``_parameters``/``_buffers`` when the module keeps
    them there); return a function restoring the old value."""
    for store in ("_parameters", "_buffers"):
        d = getattr(obj, store, None)
        if isinstance(d, dict) and leaf in d:
            old = d[leaf]
            d[leaf] = value

            def restore(d: dict = d, old: Any = old) -> None:
                d[leaf] = old

            return restore
    had = leaf in getattr(obj, "__dict__", {})
    old = getattr(obj, leaf, None)
    object.__setattr__(obj, leaf, value)

    def restore_attr() -> None:
        if had:
            object.__setattr__(obj, leaf, old)
        else:
            object.__delattr__(obj, leaf)

    return restore_attr


def _tie(module: Any, merged: dict) -> dict:
    """With tied weights (one Parameter or buffer under several names), a value given for
    one name stands for all of them, as in ``torch.func.functional_call(tie_weights=True)``.

    Raises:
        ValueError: two names of one tied tensor given different values."""
    groups: dict = {}
    for kind in ("named_parameters", "named_buffers"):
        if hasattr(module, kind):
            for name, t in getattr(module, kind)(remove_duplicate=False):
                groups.setdefault(id(t), []).append(name)
    out = dict(merged)
    for names in groups.values():
        if len(names) < 2:
            continue
        given = [n for n in names if n in merged]
        if not given:
            continue
        v = merged[given[0]]
        for n in given[1:]:
            if merged[n] is not v:
                raise ValueError(
                    f"functional_call: {given[0]!r} and {n!r} are tied (the same tensor) but were "
                    "given different values; give one of them, or pass tie_weights=False"
                )
        for n in names:
            out[n] = v
    return out


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = (), kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Call ``module(*args, **kwargs)`` with some parameters/buffers replaced by the given tensors
    (dotted names, as in ``named_parameters()``); the module is restored afterwards, even on error.
    Gradients flow to the given tensors, so ``grad(lambda p: loss(functional_call(model, p,
    x)))(params)`` differentiates w.r.t. a parameter dict. With ``tie_weights`` (the default), a
    value given for one name of a tied parameter (shared by several submodules) replaces it
    everywhere.

    Gradient flows to the given tensors (the module's own parameters are not used for the replaced
    names).

    Args:
        module (nn.Module): the module to call.
        parameter_and_buffer_dicts (dict or tuple of dict): ``{dotted name: Tensor}``; several dicts
            are merged.
        args (Any): the positional arguments (a single non-tuple value is one argument). Default:
            ``()``.
        kwargs (dict, optional): the keyword arguments. Default: ``None``.
        tie_weights (bool): replace tied parameters everywhere; keyword-only. Default: ``True``.
        strict (bool): require a value for every parameter and buffer; keyword-only. Default:
            ``False``.
    Returns:
        Any: what ``module`` returns.
    Raises:
        AttributeError: a name that does not resolve to a submodule.
        RuntimeError: with strict, when some parameter or buffer of the module is missing.
        ValueError: a name given in more than one dict.

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import functional_call
        >>> m = dyngrad.nn.Linear(2, 1)
        >>> functional_call(m, {"weight": dyngrad.ones(1, 2), "bias": dyngrad.zeros(1)}, (dyngrad.tensor([1.0, 2.0]),))
        tensor([3.])
    """
    dicts = parameter_and_buffer_dicts
    if isinstance(dicts, dict):
        dicts = (dicts,)
    merged: dict = {}
    for d in dicts:
        for k, v in d.items():
            if k in merged:
                raise ValueError(f"functional_call: {k!r} appeared in multiple dictionaries")
            merged[k] = v
    if strict and hasattr(module, "named_parameters"):
        names = {n for n, _ in module.named_parameters()}
        if hasattr(module, "named_buffers"):
            names |= {n for n, _ in module.named_buffers()}
        missing = sorted(names - set(merged))
        if missing:
            raise RuntimeError(f"functional_call: missing key(s) {missing} (strict=True)")
    if tie_weights and hasattr(module, "named_parameters"):
        merged = _tie(module, merged)
    if isinstance(args, (Tensor, np.ndarray)):
        args = (args,)
    restores = []
    try:
        for name, value in merged.items():
            obj, leaf = _resolve(module, name)
            restores.append(_swap(obj, leaf, value))
        return module(*args, **(kwargs or {}))
    finally:
        for r in reversed(restores):
            r()


def stack_module_state(models: Any) -> tuple[dict, dict]:
    """The parameters and buffers of several modules of the same architecture, stacked
    along a new dim 0 (for model ensembling: ``vmap(lambda p, b, x: functional_call(model,
    (p, b), (x,)))(params, buffers, x)``), as ``torch.func.stack_module_state``.

    Args:
        models: a list (or ModuleList) of modules with the same parameter names and shapes.
    Returns:
        ``(params, buffers)``: dicts from dotted names to Tensors of shape ``(len(models),
        *shape)``; the stacked parameters are new leaves that require grad (detached from
        the models' own parameters), the buffers do not.
    Raises:
        RuntimeError: no models, or models whose parameter/buffer names or shapes differ
            (naming the first difference).

    Example:
        >>> import dyngrad
        >>> from dyngrad.func import stack_module_state
        >>> params, buffers = stack_module_state([dyngrad.nn.Linear(2, 1) for _ in range(3)])
        >>> {k: tuple(v.shape) for k, v in params.items()}, buffers
        ({'weight': (3, 1, 2), 'bias': (3, 1)}, {})
    """
    from ..ops import stack

    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if any(m.training != models[0].training for m in models):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")

    def gather(kind: str) -> dict:
        named = [dict(getattr(m, kind)()) for m in models]
        for i, d in enumerate(named[1:], 1):
            if list(d) != list(named[0]):
                raise RuntimeError(
                    f"stack_module_state: model {i} has {kind.replace('named_', '')} {sorted(d)} but "
                    f"model 0 has {sorted(named[0])}; the models must share one architecture"
                )
            for k in d:
                if tuple(d[k].shape) != tuple(named[0][k].shape):
                    raise RuntimeError(
                        f"stack_module_state: {k} has shape {list(d[k].shape)} in model {i} but "
                        f"{list(named[0][k].shape)} in model 0"
                    )
        return {k: stack([d[k].detach() for d in named]) for k in named[0]}

    named = [dict(m.named_parameters()) for m in models]
    for k in named[0]:
        flags = {d[k].requires_grad for d in named}
        if len(flags) > 1:
            raise RuntimeError(f"stack_module_state: Expected {k} from each model to have the same .requires_grad")
    params = {k: v.requires_grad_(named[0][k].requires_grad) for k, v in gather("named_parameters").items()}
    return params, gather("named_buffers")
