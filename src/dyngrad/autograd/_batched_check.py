"""gradcheck's ``check_batched_grad`` and ``check_batched_forward_grad``: gradients (and
tangents) computed for a batch of vectors at once under vmap must equal one computation
per vector, and must not need the loop fallback (PyTorch's checks of the same names).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ..tensor import Tensor
from . import forward_ad as fwd
from . import grad_mode
from .backprop import grad as _grad
from ..transforms.batched_autograd import grad_batched as _grad_batched, vmap_call
from ..transforms.batching import VmapUnsupported

_BATCH = 3


def _outputs(func: Callable, inputs: tuple) -> tuple:
    out = func(*inputs)
    return out if isinstance(out, tuple) else (out,)


def _fallbacks(caught: list) -> list:
    return [str(w.message) for w in caught if "loop" in str(w.message) or "no batching rule" in str(w.message)]


def _compare(name: str, got: Any, want: list, atol: float, rtol: float) -> str | None:
    if got is None and all(w is None for w in want):
        return None
    want_arr = np.stack([np.zeros_like(got._data[0]) if w is None else w._data for w in want])
    have = np.zeros_like(want_arr) if got is None else got._data
    if not np.allclose(have, want_arr, atol=atol, rtol=rtol):
        err = float(np.max(np.abs(have - want_arr)))
        return f"{name}: the batched result differs from one computation per vector (max abs error {err:.3g})"
    return None


def check_batched_grad(func: Callable, inputs: tuple, atol: float, rtol: float) -> str | None:
    """Backward with a batch of grad_outputs (``grad(..., is_grads_batched=True)``) vs a
    loop; returns a problem description or None."""
    diff = [t for t in inputs if isinstance(t, Tensor) and t.requires_grad]
    rng = np.random.default_rng(0)
    with grad_mode.enable_grad():
        outs = _outputs(func, inputs)
    for i, o in enumerate(outs):
        if not isinstance(o, Tensor) or not o.requires_grad:
            continue
        gos = Tensor._make(rng.standard_normal((_BATCH, *o.shape)).astype(o._data.dtype))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            got = _grad_batched(o, diff, gos, retain_graph=True, allow_unused=True)
        slow = _fallbacks(caught)
        if slow:
            return f"check_batched_grad: the backward of output {i} could not be batched: {slow[0]}"
        rows = [_grad(o, diff, gos[k], retain_graph=True, allow_unused=True) for k in range(_BATCH)]
        for j, g in enumerate(got):
            p = _compare(f"check_batched_grad: output {i}, input {j}", g, [r[j] for r in rows], atol, rtol)
            if p:
                return p
    return None


def check_batched_forward_grad(func: Callable, inputs: tuple, atol: float, rtol: float) -> str | None:
    """Forward mode with a batch of tangents (one dual pass under vmap) vs a loop."""
    rng = np.random.default_rng(1)
    idx = [k for k, t in enumerate(inputs) if isinstance(t, Tensor) and t.requires_grad]
    us = [Tensor._make(rng.standard_normal((_BATCH, *inputs[k].shape)).astype(inputs[k]._data.dtype)) for k in idx]

    def tangents(*ts: Tensor) -> tuple:
        with fwd.dual_level():
            args = list(inputs)
            for k, t in zip(idx, ts):
                args[k] = fwd.make_dual(inputs[k].detach(), t)
            outs = _outputs(func, tuple(args))
            return tuple(fwd.unpack_dual(o).tangent if isinstance(o, Tensor) else None for o in outs)

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            got = vmap_call(tangents, tuple(us), (0,) * len(us), _BATCH)
        except VmapUnsupported as e:
            return f"check_batched_forward_grad: the forward pass could not be batched: {e}"
    slow = _fallbacks(caught)
    if slow:
        return f"check_batched_forward_grad: {slow[0]}"
    rows = [tangents(*(u[b] for u in us)) for b in range(_BATCH)]
    for i, g in enumerate(got):
        p = _compare(f"check_batched_forward_grad: output {i}", g, [r[i] for r in rows], atol, rtol)
        if p:
            return p
    return None
