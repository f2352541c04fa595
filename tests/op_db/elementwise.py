"""The elementwise family of the op database (moved from tests/ops/test_elementwise.py); golden values
in tests/golden/elementwise.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from tests.op_db.info import OpInfo as OpSpec

GOLDEN_PATH = os.path.join(os.path.dirname(__file__), "..", "golden", "elementwise.npz")

B2 = ((2, 3), (3,))  # two operands that broadcast
B2_VARIANTS = [((2, 1), (1, 3)), ((), (2, 3)), ((4, 1, 3), (2, 1))]


def _with_specials(rng, shapes):
    """Uniform values with nan, +inf, -inf planted (when there is room)."""
    x = rng.uniform(-3, 3, size=shapes[0])
    flat = x.reshape(-1)
    for i, v in enumerate((np.nan, np.inf, -np.inf)):
        if i < flat.size:
            flat[i] = v
    return (x,)


def _ties(rng, shapes):
    """Half-integers in [-1, 1]: many exact ties between the operands."""
    return tuple(rng.integers(-2, 3, size=s) / 2.0 for s in shapes)


def _ties_nan(rng, shapes):
    a, b = _ties(rng, shapes)
    a.reshape(-1)[:1] = np.nan
    if b.size > 1:
        b.reshape(-1)[1:2] = np.nan
    return a, b


def _where_inputs(rng, shapes):
    return (rng.random(shapes[0]) > 0.5,) + tuple(rng.uniform(-2, 2, size=s) for s in shapes[1:])


def _where_scalar(rng, shapes):
    return rng.random(shapes[0]) > 0.5, rng.uniform(-2, 2, size=shapes[1]), 0.5


def _lerp_scalar(rng, shapes):
    return rng.uniform(-2, 2, size=shapes[0]), rng.uniform(-2, 2, size=shapes[1]), 0.3


def _signed(lo, hi):
    def make(rng, shapes):
        return tuple(rng.uniform(lo, hi, size=s) * rng.choice([-1.0, 1.0], size=s) for s in shapes)

    return make


SPECS = [
    # existing core unary ops
    OpSpec("exp", dg.exp),
    OpSpec("log", dg.log, domain=(0.1, 3.0)),
    OpSpec("sin", dg.sin, domain=(-4.0, 4.0)),
    OpSpec("cos", dg.cos, domain=(-4.0, 4.0)),
    OpSpec("tanh", dg.tanh),
    OpSpec("sigmoid", dg.sigmoid, domain=(-6.0, 6.0)),
    OpSpec("sqrt", dg.sqrt, domain=(0.1, 3.0)),
    OpSpec("abs", dg.abs, make_inputs=_signed(0.1, 2.0), int_result="same"),
    OpSpec("relu", dg.relu, make_inputs=_signed(0.1, 2.0), int_result="same"),
    OpSpec("neg", dg.neg, int_result="same"),
    OpSpec("clamp", dg.clamp, kwargs={"min": -0.5, "max": 0.5}, int_result=None),
    OpSpec("clamp_tensor_bounds", dg.clamp, "clamp", shapes=((2, 3), (3,), (2, 1)),
           domain=[(-2, 2), (-1, -0.2), (0.2, 1)], broadcast=[((), (2, 3), (2, 3))], int_result=None),
    # exponentials, logarithms, powers
    OpSpec("exp2", dg.exp2),
    OpSpec("expm1", dg.expm1, domain=(-1.0, 1.0)),
    OpSpec("log2", dg.log2, domain=(0.1, 3.0)),
    OpSpec("log10", dg.log10, domain=(0.1, 3.0)),
    OpSpec("log1p", dg.log1p, domain=(-0.9, 3.0)),
    OpSpec("rsqrt", dg.rsqrt, domain=(0.2, 3.0)),
    OpSpec("square", dg.square, int_result="same"),
    OpSpec("reciprocal", dg.reciprocal, make_inputs=_signed(0.3, 2.0)),
    # trigonometric and hyperbolic
    OpSpec("tan", dg.tan, domain=(-1.2, 1.2)),
    OpSpec("asin", dg.asin, domain=(-0.9, 0.9)),
    OpSpec("acos", dg.acos, domain=(-0.9, 0.9)),
    OpSpec("atan", dg.atan, domain=(-3.0, 3.0)),
    OpSpec("sinh", dg.sinh),
    OpSpec("cosh", dg.cosh),
    OpSpec("asinh", dg.asinh, domain=(-3.0, 3.0)),
    OpSpec("acosh", dg.acosh, domain=(1.1, 3.0)),
    OpSpec("atanh", dg.atanh, domain=(-0.9, 0.9)),
    # special functions
    OpSpec("logit", dg.logit, domain=(0.05, 0.95), int_result=None),
    OpSpec("logit_eps", dg.logit, "logit", domain=(0.0, 1.0), kwargs={"eps": 0.2}, int_result=None),
    OpSpec("erf", dg.erf, domain=(-3.0, 3.0), rtol=1e-12, atol=1e-15),
    OpSpec("erfc", dg.erfc, domain=(-3.0, 3.0), rtol=1e-12, atol=1e-15),
    OpSpec("erfc_tail", dg.erfc, "erfc", domain=(3.0, 9.0), rtol=1e-11, atol=0.0, grad_atol=1e-12),
    # rounding and sign (zero gradient; frac passes it through)
    OpSpec("sign", dg.sign, make_inputs=_signed(0.1, 2.0), int_result="same"),
    OpSpec("floor", dg.floor, domain=(-3.0, 3.0), int_result="same"),
    OpSpec("ceil", dg.ceil, domain=(-3.0, 3.0), int_result="same"),
    OpSpec("trunc", dg.trunc, domain=(-3.0, 3.0), int_result="same"),
    OpSpec("round", dg.round, domain=(-3.0, 3.0), int_result="same"),
    OpSpec("round_decimals", dg.round, "round", domain=(-3.0, 3.0), kwargs={"decimals": 1}, int_result=None),
    OpSpec("round_neg_decimals", dg.round, "round", domain=(-300.0, 300.0), kwargs={"decimals": -1},
           int_result=None),
    OpSpec("frac", dg.frac, domain=(-3.0, 3.0), int_result=None),
    # non-finite handling
    OpSpec("nan_to_num", dg.nan_to_num, make_inputs=_with_specials, compare_float32=False, int_result="same",
           zero_dim=False),
    OpSpec("nan_to_num_values", dg.nan_to_num, "nan_to_num", make_inputs=_with_specials,
           kwargs={"nan": 1.5, "posinf": 9.0, "neginf": -9.0}, int_result="same", zero_dim=False),
    OpSpec("isnan", dg.isnan, make_inputs=_with_specials, differentiable=False, out_dtype="bool",
           int_result="bool", zero_dim=False),
    OpSpec("isinf", dg.isinf, make_inputs=_with_specials, differentiable=False, out_dtype="bool",
           int_result="bool", zero_dim=False),
    OpSpec("isfinite", dg.isfinite, make_inputs=_with_specials, differentiable=False, out_dtype="bool",
           int_result="bool", zero_dim=False),
    # binary
    OpSpec("maximum", dg.maximum, shapes=B2, broadcast=B2_VARIANTS, int_result="same"),
    OpSpec("minimum", dg.minimum, shapes=B2, broadcast=B2_VARIANTS, int_result="same"),
    OpSpec("fmax", dg.fmax, shapes=B2, broadcast=B2_VARIANTS, int_result="same"),
    OpSpec("fmin", dg.fmin, shapes=B2, broadcast=B2_VARIANTS, int_result="same"),
    OpSpec("maximum_ties", dg.maximum, "maximum", shapes=((3, 4), (4,)), make_inputs=_ties, check_grad=False,
           int_result=None),
    OpSpec("minimum_ties", dg.minimum, "minimum", shapes=((3, 4), (4,)), make_inputs=_ties, check_grad=False,
           int_result=None),
    OpSpec("fmax_ties_nan", dg.fmax, "fmax", shapes=((3, 4), (3, 4)), make_inputs=_ties_nan, check_grad=False,
           int_result=None, compare_float32=False),
    OpSpec("fmin_ties_nan", dg.fmin, "fmin", shapes=((3, 4), (3, 4)), make_inputs=_ties_nan, check_grad=False,
           int_result=None, compare_float32=False),
    OpSpec("maximum_nan", dg.maximum, "maximum", shapes=((3, 4), (3, 4)), make_inputs=_ties_nan,
           check_grad=False, int_result=None, compare_float32=False),
    OpSpec("atan2", dg.atan2, shapes=B2, broadcast=B2_VARIANTS),
    OpSpec("hypot", dg.hypot, shapes=B2, broadcast=B2_VARIANTS, make_inputs=_signed(0.2, 2.0), int_result=None),
    OpSpec("logaddexp", dg.logaddexp, shapes=B2, broadcast=B2_VARIANTS, domain=(-30.0, 30.0), int_result=None),
    # ternary
    OpSpec("where", dg.where, shapes=((2, 3), (2, 3), (3,)), make_inputs=_where_inputs,
           broadcast=[((2, 1), (3,), (2, 3)), ((), (2, 3), ())], int_result="same"),
    OpSpec("where_scalar", dg.where, "where", shapes=((2, 3), (2, 3)), make_inputs=_where_scalar,
           int_result="float"),
    OpSpec("lerp", dg.lerp, shapes=((2, 3), (3,), (2, 1)), domain=[(-2, 2), (-2, 2), (-0.5, 1.5)],
           broadcast=[((), (2, 3), ())], int_result=None),
    OpSpec("lerp_scalar", dg.lerp, "lerp", shapes=((2, 3), (3,)), make_inputs=_lerp_scalar, int_result=None),
    OpSpec("addcmul", dg.addcmul, shapes=((2, 3), (3,), (2, 1)), kwargs={"value": 0.5},
           broadcast=[((), (2, 3), (3,))], int_result=None),
    OpSpec("addcdiv", dg.addcdiv, shapes=((2, 3), (3,), (2, 1)), kwargs={"value": -2.0},
           domain=[(-2, 2), (-2, 2), (0.5, 2.0)], broadcast=[((), (2, 3), (3,))], int_result=None),
]
