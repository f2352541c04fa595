"""The comparison family of the op database (moved from the op lists of
tests/ops/test_comparison.py and tests/autograd/test_batching.py): comparisons, logical and
bitwise ops, whose outputs have no gradient. Golden values in tests/golden/comparison.npz
(tests/golden/gen_comparison.py). The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from tests.op_db.info import OpInfo

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "comparison.npz")


def _rounded(rng: np.random.Generator, shapes: tuple) -> tuple:
    """Values on a half-integer grid: many exact ties between the operands."""
    return tuple(np.round(rng.standard_normal(s) * 2) / 2 for s in shapes)


def _ints(rng: np.random.Generator, shapes: tuple) -> tuple:
    """Non-negative int64 operands (shift counts below 3)."""
    return rng.integers(0, 8, size=shapes[0]), rng.integers(0, 3, size=shapes[1])


def C(name: str, f, shapes: tuple = ((2, 3), (3,)), **kw) -> OpInfo:  # noqa: ANN001
    """A non-differentiable entry written once for both libraries, ``f(module, *inputs)``."""
    kw.setdefault("make_inputs", _rounded)
    kw.setdefault("out_dtype", "bool")
    kw.setdefault("int_result", "bool")
    kw.setdefault("zero_dim", True)
    kw.setdefault("zero_size", True)
    return OpInfo(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), shapes=shapes, differentiable=False,
                  **kw)


def _binary(name: str, **kw) -> OpInfo:
    return C(name, lambda m, a, b: getattr(m, name)(a, b), formerly=(f"comparison_ops:{name}",), **kw)


SPECS = [
    *(_binary(n) for n in ("eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor")),
    *(_binary(n, make_inputs=_ints, out_dtype="int64", int_result="same")
      for n in ("bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift")),
    C("gt_zero_dim_other", lambda m, a, b: a > b, ((2, 3), ()), formerly=("comparison_ops:zero_dim_other",)),
    C("logical_not", lambda m, a: m.logical_not(a), ((2, 3),)),
    C("bitwise_not", lambda m, a: m.bitwise_not(a), ((2, 3),),
      make_inputs=lambda rng, shapes: (rng.integers(-3, 3, size=shapes[0]),), out_dtype="int64", int_result="same"),
    C("isclose", lambda m, a, b: m.isclose(a, b), zero_dim=False, zero_size=False, make_inputs=lambda rng, shapes: (
        rng.standard_normal(shapes[0]), rng.standard_normal(shapes[0]) * np.array([0.0, 1e-9, 1.0]))),
    # the vmap table of tests/autograd/test_batching.py
    C("gt_operator", lambda m, a, b: a > b, ((3, 4), (4,)), formerly=("batching_comparisons:gt",)),
    C("le_operator", lambda m, a, b: a <= b, ((3, 4), (4,)), formerly=("batching_comparisons:le",)),
    C("eq_operator", lambda m, a, b: a == b, ((3, 4), (4,)), formerly=("batching_comparisons:eq",)),
    C("ne_scalar", lambda m, a: a != 0.5, ((3, 4),), formerly=("batching_comparisons:ne_scalar",)),
    C("logical_and_of_masks", lambda m, a, b: m.logical_and(a > 0, b > 0), ((3, 4), (4,)),
      formerly=("batching_comparisons:logical_and",)),
    C("invert_of_a_mask", lambda m, a, b: ~(a > b), ((3, 4), (4,)), formerly=("batching_comparisons:invert",)),
    C("isclose_atol", lambda m, a, b: m.isclose(a, b, atol=0.5), ((3, 4), (4,)),
      formerly=("batching_comparisons:isclose",)),
    C("bitwise_and_of_long_masks", lambda m, a, b: (a > 0).long() & (b > 0).long(), ((3, 4), (4,)),
      out_dtype="int64", int_result=None, formerly=("batching_comparisons:bitwise_and",)),
]
