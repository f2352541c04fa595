"""Every built-in op under vmap: values and gradients equal a loop over the examples, and
the op's own batching rule ran (no per-op loop fallback).

The op table is the one that checks the jvp rules (tests/autograd/test_forward_ad.py):
(name, function of tensors, per-example input shapes, domain, the Function whose rule must
run), plus the arithmetic ops below. Each entry is checked with the batch dim first, with
it last, and with only the first input batched (the others shared by every example).
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import dyngrad
from dyngrad.func import vmap
from dyngrad.ops import arithmetic as _ar
from tests.autograd.test_forward_ad import RULES, _rand

D = dyngrad
T = lambda a: dyngrad.tensor(a, dtype=dyngrad.float64)  # noqa: E731

ARITH = [
    ("add", lambda a, b: D.add(a, b, alpha=2), [(3, 4), (4,)], "real", _ar.Add),
    ("add_scalar", lambda a: a + 1.5, [(3,)], "real", _ar.Add),
    ("sub", lambda a, b: a - b, [(3, 4), (3, 1)], "real", _ar.Sub),
    ("rsub_scalar", lambda a: 2.0 - a, [(3,)], "real", _ar.Sub),
    ("mul", lambda a, b: a * b, [(2, 3), (3,)], "real", _ar.Mul),
    ("mul_lower_rank_first", lambda a, b: a * b, [(3,), (2, 3)], "real", _ar.Mul),
    ("div", lambda a, b: a / b, [(2, 3), (3,)], "pos", _ar.Div),
    ("div_floor", lambda a, b: D.div(a, b, rounding_mode="floor"), [(4,), (4,)], "pos", _ar.Div),
    ("neg", lambda a: -a, [(4,)], "real", _ar.Neg),
    ("pow_tensors", lambda a, b: a ** b, [(3,), (3,)], "pos", _ar.Pow),
    ("zero_dim_times_matrix", lambda a, b: a * b, [(), (2, 3)], "real", _ar.Mul),
]

TABLE = ARITH + RULES
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


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_vmap_equals_a_loop_and_runs_the_ops_batching_rule(name, fn, shapes, domain, cls, where) -> None:  # noqa: ANN001
    ex, batched, dims = _setup(shapes, domain, where)
    want = np.stack([fn(*[T(x) for x in e]).data for e in ex])
    _, out, messages = _run_vmap(fn, batched, dims)
    np.testing.assert_allclose(out.data, want, rtol=1e-10, atol=1e-12)
    bad = [m for m in _fallbacks(messages) if cls.__name__ in m or "fell back to a loop" in m]
    assert not bad, f"{name}: {cls.__name__} ran as a loop: {bad}"


@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_gradients_through_vmap_equal_gradients_through_a_loop(name, fn, shapes, domain, cls) -> None:  # noqa: ANN001
    ex, batched, dims = _setup(shapes, domain, "first")
    ts, out, _ = _run_vmap(fn, batched, dims, leaves=True)
    if not out.requires_grad:
        pytest.skip(f"{name} has no gradient")
    v = np.random.default_rng(3).standard_normal(out.shape)
    got = dyngrad.autograd.grad(out, ts, T(v), allow_unused=True)
    for i in range(len(shapes)):
        per = []
        for k, e in enumerate(ex):
            leaves = [T(x).requires_grad_() for x in e]
            (g,) = dyngrad.autograd.grad(fn(*leaves), [leaves[i]], T(v[k]), allow_unused=True)
            per.append(np.zeros(shapes[i]) if g is None else g.data)
        want = np.stack(per)
        have = np.zeros_like(want) if got[i] is None else got[i].data
        np.testing.assert_allclose(have, want, rtol=1e-9, atol=1e-11, err_msg=f"{name}: input {i}")
