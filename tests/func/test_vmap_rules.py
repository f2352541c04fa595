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
from tests.op_db.info import rows
from tests.op_db.rules import RULES, VMAP_ARITH
from tests.func.vmap_checks import WHERE, check_gradients, check_values

D = dyngrad


TABLE = rows(VMAP_ARITH + RULES)


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_vmap_equals_a_loop_and_runs_the_ops_batching_rule(name, fn, shapes, domain, cls, where) -> None:  # noqa: ANN001
    check_values(name, fn, shapes, domain, cls, where)


@pytest.mark.parametrize("name,fn,shapes,domain,cls", TABLE, ids=[r[0] for r in TABLE])
def test_gradients_through_vmap_equal_gradients_through_a_loop(name, fn, shapes, domain, cls) -> None:  # noqa: ANN001
    check_gradients(name, fn, shapes, domain)
