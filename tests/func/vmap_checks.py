"""Helpers of the vmap tests (tests/func/test_vmap_*.py): run a function under vmap while
recording warnings, and pick out the ones that say a loop ran instead of a batching rule.
(The op-by-op vmap checks are the op database's: tests/test_op_db.py.)"""

from __future__ import annotations

import warnings

import dyngrad
from dyngrad.func import vmap

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731


def _run_vmap(fn, batched: list, dims: tuple, leaves: bool = False):  # noqa: ANN001, ANN202
    ts = [T(b) for b in batched]
    if leaves:
        for t, d in zip(ts, dims):
            if d is not None:
                t.requires_grad_()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(fn, in_dims=dims)(*ts)
    return ts, out, [str(w.message) for w in caught]


def _fallbacks(messages: list) -> list:
    return [m for m in messages if "no batching rule" in m or "fell back to a loop" in m]
