"""Every built-in op under vmap: values and gradients equal a loop over the examples, and
the op's own batching rule ran (no per-op loop fallback).

The op table is the one that checks the jvp rules (tests/autograd/test_forward_ad.py):
(name, function of tensors, per-example input shapes, domain, the Function whose rule must
run), plus the arithmetic ops below. Each entry is checked with the batch dim first, with
it last, and with only the first input batched (the others shared by every example).
"""

from __future__ import annotations

import pytest

import dyngrad
from dyngrad.ops import arithmetic as _ar
from tests.autograd.test_forward_ad import RULES
from tests.func.vmap_checks import WHERE, check_gradients, check_values

D = dyngrad

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


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_vmap_equals_a_loop_and_runs_the_ops_batching_rule(name, fn, shapes, domain, cls, where) -> None:  # noqa: ANN001
    check_values(name, fn, shapes, domain, cls, where)


@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_gradients_through_vmap_equal_gradients_through_a_loop(name, fn, shapes, domain, cls) -> None:  # noqa: ANN001
    check_gradients(name, fn, shapes, domain)
