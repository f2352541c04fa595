"""``vmap`` and ``functional_call``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = ["vmap", "functional_call"]


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


def vmap(func: Callable, in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", *,
         chunk_size: Any = None) -> Callable:
    """Vectorise ``func`` over a batch dimension of its inputs.

    ``vmap(f)(xs)`` equals ``stack([f(x) for x in xs])``. dyngrad runs exactly that loop
    (it has no per-op batching rules yet) and says so with a UserWarning ("vmap fell back
    to a loop"); results, gradients and composition with grad/jacrev are exact.

    Args:
        in_dims: int (same dim for every input), None (not mapped) or a tuple with one
            int/None per positional argument.
        out_dims: where the batch dim goes in each output (int or tuple per output).
    Returns:
        A function returning ``func``'s outputs with the batch dim added (ndarrays stay
        ndarrays, Tensors stay Tensors and keep their graph).
    Raises:
        ValueError: inconsistent batch sizes (naming each argument and its size), no mapped
            input, or an in_dim out of range for its argument.
    """

    def wrapper(*args: Any) -> Any:
        dims = _norm_dims(in_dims, len(args), "in_dims")
        sizes = {}
        for i, (a, d) in enumerate(zip(args, dims)):
            if d is None:
                continue
            if not isinstance(a, (Tensor, np.ndarray)):
                raise ValueError(
                    f"vmap: argument {i} has in_dim {d} but is a {type(a).__name__}; only Tensors "
                    "and arrays can be mapped (use in_dims=None for it)"
                )
            nd = a.ndim
            if not -nd <= d < nd:
                raise ValueError(
                    f"vmap: argument {i} has in_dim {d} but only {nd} dimension(s) (shape {list(a.shape)})"
                )
            sizes[i] = a.shape[d]
        if not sizes:
            raise ValueError("vmap: at least one argument must be mapped over (got in_dims all None)")
        if len(set(sizes.values())) > 1:
            desc = ", ".join(f"argument {i} has size {s}" for i, s in sizes.items())
            raise ValueError(
                "vmap: Expected all tensors to have the same size in the mapped dimension, got "
                f"{desc}"
            )
        n = next(iter(sizes.values()))
        warnings.warn(
            f"vmap fell back to a loop over {n} slices for {getattr(func, '__name__', 'func')} "
            "(dyngrad has no batching rules yet); results are exact",
            UserWarning,
            stacklevel=2,
        )
        results = []
        for k in range(n):
            sl = [a if d is None else _take(a, d, k) for a, d in zip(args, dims)]
            results.append(func(*sl))
        if n == 0:
            raise ValueError("vmap: the mapped dimension has size 0")
        first = results[0]
        if isinstance(first, tuple):
            od = _norm_dims(out_dims, len(first), "out_dims")
            return tuple(_stack([r[j] for r in results], od[j] or 0) for j in range(len(first)))
        od = out_dims if isinstance(out_dims, int) else 0
        return _stack(results, od)

    return wrapper


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


def functional_call(module: Any, parameter_and_buffer_dicts: Any, args: Any = (), kwargs: Any = None, *,
                    tie_weights: bool = True, strict: bool = False) -> Any:
    """Call ``module(*args, **kwargs)`` with some parameters/buffers replaced by the given
    tensors (dotted names, as in ``named_parameters()``); the module is restored afterwards,
    even on error. Gradients flow to the given tensors, so ``grad(lambda p:
    loss(functional_call(model, p, x)))(params)`` differentiates w.r.t. a parameter dict.

    Raises:
        AttributeError: a name that does not resolve to a submodule.
        RuntimeError: with strict, when some parameter or buffer of the module is missing.
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
