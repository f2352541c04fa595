"""Shared checks of the vmap op tables (tests/func/test_vmap_*.py): an op under vmap equals
a loop over the examples, in values, dtype and gradients, and runs through batching rules
only (no per-op or whole-function loop)."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.func import vmap
from tests.autograd.test_forward_ad import _rand

T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731
WHERE = ["first", "last", "only_first"]


def _examples(shapes: list, domain: str, n: int) -> list:
    return [[_rand(s, domain) for s in shapes] for _ in range(n)]


def _setup(shapes: list, domain: str, where: str, n: int = 3) -> tuple:
    """Per-example inputs, the batched arrays and in_dims for one placement of the batch."""
    ex = _examples(shapes, domain, n)
    if where == "only_first":
        for e in ex[1:]:
            e[1:] = ex[0][1:]
        dims = (0,) + (None,) * (len(shapes) - 1)
        batched = [np.stack([e[0] for e in ex])] + list(ex[0][1:])
    else:
        axis = 0 if where == "first" else -1
        dims = tuple(0 if where == "first" else -1 for _ in shapes)
        batched = [np.stack([e[i] for e in ex], axis=axis) for i in range(len(shapes))]
    return ex, batched, dims


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


def check_values(name: str, fn, shapes: list, domain: str, cls: type, where: str) -> None:  # noqa: ANN001
    """vmap(fn) over 3 examples equals stacking fn per example (values, dtype, shape), with
    the batch dim placed as ``where`` says, and nothing ran as a loop."""
    ex, batched, dims = _setup(shapes, domain, where)
    want = np.stack([fn(*[T(x) for x in e]).data for e in ex])
    _, out, messages = _run_vmap(fn, batched, dims)
    assert out.shape == want.shape and out.data.dtype == want.dtype, (out.shape, out.dtype, want.shape)
    np.testing.assert_allclose(out.data, want, rtol=1e-10, atol=1e-12)
    bad = _fallbacks(messages)
    assert not bad, f"{name}: ran as a loop ({cls.__name__} under test): {bad}"


def check_gradients(name: str, fn, shapes: list, domain: str) -> None:  # noqa: ANN001
    """Gradients through vmap(fn) w.r.t. the batched inputs equal per-example gradients."""
    ex, batched, dims = _setup(shapes, domain, "first")
    ts, out, _ = _run_vmap(fn, batched, dims, leaves=True)
    if not out.requires_grad:
        pytest.skip(f"{name} has no gradient")
    v = np.random.default_rng(3).standard_normal(out.shape)
    got = dyngrad.autograd.grad(out, ts, T(v).to(out.dtype), allow_unused=True)
    for i in range(len(shapes)):
        per = []
        for k, e in enumerate(ex):
            leaves = [T(x).requires_grad_() for x in e]
            o = fn(*leaves)
            (g,) = dyngrad.autograd.grad(o, [leaves[i]], T(v[k]).to(o.dtype), allow_unused=True)
            per.append(np.zeros(shapes[i]) if g is None else g.data)
        want = np.stack(per)
        have = np.zeros_like(want) if got[i] is None else got[i].data
        np.testing.assert_allclose(have, want, rtol=1e-9, atol=1e-11, err_msg=f"{name}: input {i}")
