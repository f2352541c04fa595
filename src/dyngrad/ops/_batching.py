"""Batching rules shared by the built-in ops (``Function.vmap``; see transforms/batching.py).

A rule is ``rule(info, in_dims, *args, **kwargs) -> (outputs, out_dims)``: ``args`` are the
Function's arguments with every batched tensor unwrapped (its batch dim of size
``info.batch_size`` sits at ``in_dims[i]``; None for unbatched arguments and non-tensors).
A rule computes the whole batch with ordinary ops, usually by re-applying
``info.function`` to rearranged arguments, and returns where each output's batch dim is.
Returning ``NotImplemented`` makes vmap run the Function once per example instead.

Each op declares its rule in its class (``vmap = pointwise``), next to forward/backward.
The batch dim is always moved to the front first, so a negative ``dim`` argument keeps
its meaning and a non-negative one shifts by one.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor

__all__ = [
    "front", "pad_to", "logical_ndim", "out_dims_like", "pointwise", "unary", "dims_at",
    "shift_dim", "leading_batch", "only_first_batched", "promote_zero_dim", "pointwise_promoting",
]


def front(x: Any, d: Any) -> Any:
    """``x`` with its batch dim (at ``d``) moved to dim 0; unbatched ``x`` unchanged."""
    if d is None or d == 0:
        return x
    from .shape import movedim  # deferred: shape's own rules import this module

    return movedim(x, d, 0)


def logical_ndim(x: Any, d: Any) -> int:
    """The per-example ndim of argument ``x`` whose batch dim is ``d``."""
    if not isinstance(x, Tensor):
        return 0
    return x.ndim - (d is not None)


def pad_to(x: Tensor, rank: int) -> Tensor:
    """Batch-first ``x`` with size-1 dims inserted after the batch dim so that its
    per-example rank is ``rank`` (right-aligned broadcasting then keeps the batch dim
    apart from the per-example dims)."""
    lnd = x.ndim - 1
    if lnd >= rank:
        return x
    shape = tuple(x.shape)
    return x.reshape(shape[:1] + (1,) * (rank - lnd) + shape[1:])


def out_dims_like(out: Any, d: int = 0) -> Any:
    """``d`` for each output (a tuple for tuple outputs)."""
    return tuple(d for _ in out) if isinstance(out, tuple) else d


def pointwise(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
    """Rule of elementwise ops whose tensor arguments broadcast together (right-aligned):
    batch dims to the front, per-example ranks padded to the largest, apply once."""
    if any(d is not None and not isinstance(d, int) for d in in_dims):
        return NotImplemented
    rank = max(logical_ndim(a, d) for a, d in zip(args, in_dims))
    new = [a if d is None else pad_to(front(a, d), rank) for a, d in zip(args, in_dims)]
    out = info.function.apply(*new, **kwargs)
    return out, out_dims_like(out)


def shift_dim(dim: Any) -> Any:
    """A logical dim (int, tuple/list of ints, or None) as a dim of the batch-first tensor."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return type(dim)(shift_dim(x) for x in dim)
    return dim + 1 if dim >= 0 else dim


def only_first_batched(in_dims: tuple) -> bool:
    """True when argument 0 is the only batched argument (the common case of ops with one
    tensor input plus constants)."""
    return in_dims[0] is not None and isinstance(in_dims[0], int) and all(d is None for d in in_dims[1:])


def unary(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
    """Rule of ops applied independently to each element of their one tensor argument
    (argument 0) whatever its shape: apply to the batched tensor as is."""
    if not only_first_batched(in_dims):
        return NotImplemented
    out = info.function.apply(*args, **kwargs)
    return out, out_dims_like(out, in_dims[0])


def dims_at(*positions: int, none_ok: bool = False) -> Callable:
    """Rule factory for ops with one batched tensor (argument 0) and dim arguments at
    ``positions`` (int, tuple of ints; negative allowed): batch dim to the front, shift the
    dims. A None dim (meaning "all dims") is shifted only when ``none_ok`` says the op
    treats None as something else; otherwise the op runs as a loop."""

    def rule(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
        if not only_first_batched(in_dims):
            return NotImplemented
        new = list(args)
        new[0] = front(args[0], in_dims[0])
        for p in positions:
            if p < len(new):
                if new[p] is None and not none_ok:
                    return NotImplemented
                new[p] = shift_dim(new[p])
        out = info.function.apply(*new, **kwargs)
        return out, out_dims_like(out)

    rule.__doc__ = f"Batching rule: batch dim to the front, dim arguments at {positions} shifted by one."
    return rule


def leading_batch(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
    """Rule of ops that already treat leading dims as batch dims (``(*, n, n)`` linear
    algebra, ``(*, in)`` linear layers) and take one batched tensor (argument 0)."""
    if not only_first_batched(in_dims):
        return NotImplemented
    out = info.function.apply(front(args[0], in_dims[0]), *args[1:], **kwargs)
    return out, out_dims_like(out)


def promote_zero_dim(args: list, in_dims: tuple, skip: tuple = ()) -> list:
    """``args`` with each batched per-example 0-d tensor cast to the per-example result dtype.

    PyTorch's type promotion ranks 0-d tensors below dimensioned ones (``float64 0-d *
    float32 (n,)`` is float32), but a batched 0-d example has a dim in its batched value, so
    applying the op to the batched values could promote differently from each example.
    Casting such arguments to the dtype each example would get (computed from the tensor
    arguments' per-example ranks and dtypes; positions in ``skip``, e.g. where's condition,
    do not take part) makes both agree. Other arguments are returned unchanged."""
    from .. import _backend as B

    cands = [i for i, (a, d) in enumerate(zip(args, in_dims))
             if i not in skip and d is not None and isinstance(a, Tensor) and a.ndim == 1]
    if not cands:
        return list(args)
    stand = [np.empty((1,) * min(a.ndim - (d is not None), 1), dtype=a._data.dtype)
             for i, (a, d) in enumerate(zip(args, in_dims)) if i not in skip and isinstance(a, Tensor)]
    rt = B.result_type(*stand)
    out = list(args)
    for i in cands:
        if out[i]._data.dtype != rt:
            from .copying import ToDtype  # deferred: copying's rules import this module

            out[i] = ToDtype.apply(out[i], rt)
    return out


def pointwise_promoting(*skip: int) -> Callable:
    """Rule factory for elementwise ops that promote their tensor arguments together
    (PyTorch type promotion) and broadcast them right-aligned: :func:`pointwise` after
    :func:`promote_zero_dim` (arguments at ``skip`` are broadcast but not promoted)."""

    def rule(info: Any, in_dims: tuple, *args: Any, **kwargs: Any) -> Any:
        if any(d is not None and not isinstance(d, int) for d in in_dims):
            return NotImplemented
        return pointwise(info, in_dims, *promote_zero_dim(list(args), in_dims, skip), **kwargs)

    rule.__doc__ = "Batching rule: elementwise with right-aligned broadcasting and per-example type promotion."
    return rule

