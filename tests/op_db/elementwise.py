"""The elementwise family of the op database (moved from tests/ops/test_elementwise.py); golden values
in tests/golden/elementwise.npz. The entry type is tests/op_db/info.py."""

from __future__ import annotations

import os

import numpy as np

import dyngrad as dg
from dyngrad.ops import arithmetic as _arithmetic
from dyngrad.ops import elementwise as _elementwise
from dyngrad.ops import pointwise as _pointwise
from dyngrad.ops import rounding as _rounding
from dyngrad.ops import special as _special
from dyngrad.ops import trig as _trig
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
    OpSpec("exp", dg.exp, function=_elementwise.Exp, formerly=('jvp_rules:exp', 'jvp_ops:exp')),
    OpSpec("log", dg.log, domain=(0.1, 3.0), function=_elementwise.Log, formerly=('jvp_rules:log', 'jvp_ops:log')),
    OpSpec("sin", dg.sin, domain=(-4.0, 4.0), function=_elementwise.Sin, formerly=('jvp_rules:sin', 'jvp_ops:sin')),
    OpSpec("cos", dg.cos, domain=(-4.0, 4.0), function=_elementwise.Cos, formerly=('jvp_rules:cos', 'jvp_ops:cos')),
    OpSpec("tanh", dg.tanh, function=_elementwise.Tanh, formerly=('jvp_rules:tanh', 'jvp_ops:tanh')),
    OpSpec("sigmoid", dg.sigmoid, domain=(-6.0, 6.0), function=_elementwise.Sigmoid, formerly=('jvp_rules:sigmoid', 'jvp_ops:sigmoid')),
    OpSpec("sqrt", dg.sqrt, domain=(0.1, 3.0), function=_elementwise.Sqrt, formerly=('jvp_rules:sqrt', 'jvp_ops:sqrt')),
    OpSpec("abs", dg.abs, make_inputs=_signed(0.1, 2.0), int_result="same", function=_elementwise.Abs, formerly=('jvp_rules:abs', 'jvp_ops:abs')),
    OpSpec("relu", dg.relu, make_inputs=_signed(0.1, 2.0), int_result="same", function=_elementwise.Relu, formerly=('jvp_rules:relu', 'jvp_ops:relu')),
    OpSpec("neg", dg.neg, int_result="same", function=_arithmetic.Neg, formerly=('vmap_arith:neg', 'jvp_ops:neg')),
    OpSpec("clamp", dg.clamp, kwargs={"min": -0.5, "max": 0.5}, int_result=None, function=_elementwise.Clamp, formerly=('jvp_rules:clamp', 'jvp_ops:clamp')),
    OpSpec("clamp_tensor_bounds", dg.clamp, "clamp", shapes=((2, 3), (3,), (2, 1)),
           domain=[(-2, 2), (-1, -0.2), (0.2, 1)], broadcast=[((), (2, 3), (2, 3))], int_result=None),
    # exponentials, logarithms, powers
    OpSpec("exp2", dg.exp2, function=_special.Exp2, formerly=('jvp_rules:exp2',)),
    OpSpec("expm1", dg.expm1, domain=(-1.0, 1.0), function=_special.Expm1, formerly=('jvp_rules:expm1',)),
    OpSpec("log2", dg.log2, domain=(0.1, 3.0), function=_special.Log2, formerly=('jvp_rules:log2',)),
    OpSpec("log10", dg.log10, domain=(0.1, 3.0), function=_special.Log10, formerly=('jvp_rules:log10',)),
    OpSpec("log1p", dg.log1p, domain=(-0.9, 3.0), function=_special.Log1p, formerly=('jvp_rules:log1p', 'jvp_ops:log1p')),
    OpSpec("rsqrt", dg.rsqrt, domain=(0.2, 3.0), function=_special.Rsqrt, formerly=('jvp_rules:rsqrt', 'jvp_ops:rsqrt')),
    OpSpec("square", dg.square, int_result="same", function=_special.Square, formerly=('jvp_rules:square', 'jvp_ops:square')),
    OpSpec("reciprocal", dg.reciprocal, make_inputs=_signed(0.3, 2.0), function=_special.Reciprocal, formerly=('jvp_rules:reciprocal', 'jvp_ops:reciprocal')),
    # trigonometric and hyperbolic
    OpSpec("tan", dg.tan, domain=(-1.2, 1.2), function=_trig.Tan, formerly=('jvp_rules:tan', 'jvp_ops:tan')),
    OpSpec("asin", dg.asin, domain=(-0.9, 0.9), function=_trig.Asin, formerly=('jvp_rules:asin', 'jvp_ops:asin')),
    OpSpec("acos", dg.acos, domain=(-0.9, 0.9), function=_trig.Acos, formerly=('jvp_rules:acos',)),
    OpSpec("atan", dg.atan, domain=(-3.0, 3.0), function=_trig.Atan, formerly=('jvp_rules:atan', 'jvp_ops:atan')),
    OpSpec("sinh", dg.sinh, function=_trig.Sinh, formerly=('jvp_rules:sinh', 'jvp_ops:sinh')),
    OpSpec("cosh", dg.cosh, function=_trig.Cosh, formerly=('jvp_rules:cosh',)),
    OpSpec("asinh", dg.asinh, domain=(-3.0, 3.0), function=_trig.Asinh, formerly=('jvp_rules:asinh',)),
    OpSpec("acosh", dg.acosh, domain=(1.1, 3.0), function=_trig.Acosh, formerly=('jvp_rules:acosh',)),
    OpSpec("atanh", dg.atanh, domain=(-0.9, 0.9), function=_trig.Atanh, formerly=('jvp_rules:atanh',)),
    # special functions
    OpSpec("logit", dg.logit, domain=(0.05, 0.95), int_result=None, function=_special.Logit, formerly=('jvp_rules:logit',)),
    OpSpec("logit_eps", dg.logit, "logit", domain=(0.0, 1.0), kwargs={"eps": 0.2}, int_result=None, function=_special.Logit, formerly=('jvp_rules:logit_eps',)),
    OpSpec("erf", dg.erf, domain=(-3.0, 3.0), rtol=1e-12, atol=1e-15, function=_special.Erf, formerly=('jvp_rules:erf', 'jvp_ops:erf')),
    OpSpec("erfc", dg.erfc, domain=(-3.0, 3.0), rtol=1e-12, atol=1e-15, function=_special.Erfc, formerly=('jvp_rules:erfc',)),
    OpSpec("erfc_tail", dg.erfc, "erfc", domain=(3.0, 9.0), rtol=1e-11, atol=0.0, grad_atol=1e-12),
    # rounding and sign (zero gradient; frac passes it through)
    OpSpec("sign", dg.sign, make_inputs=_signed(0.1, 2.0), int_result="same", function=_rounding.Sign, formerly=('jvp_rules:sign',)),
    OpSpec("floor", dg.floor, domain=(-3.0, 3.0), int_result="same", function=_rounding.Floor, formerly=('jvp_rules:floor',)),
    OpSpec("ceil", dg.ceil, domain=(-3.0, 3.0), int_result="same", function=_rounding.Ceil, formerly=('jvp_rules:ceil',)),
    OpSpec("trunc", dg.trunc, domain=(-3.0, 3.0), int_result="same", function=_rounding.Trunc, formerly=('jvp_rules:trunc',)),
    OpSpec("round", dg.round, domain=(-3.0, 3.0), int_result="same", function=_rounding.Round, formerly=('jvp_rules:round',)),
    OpSpec("round_decimals", dg.round, "round", domain=(-3.0, 3.0), kwargs={"decimals": 1}, int_result=None, function=_rounding.RoundDecimals, formerly=('jvp_rules:round_decimals',)),
    OpSpec("round_neg_decimals", dg.round, "round", domain=(-300.0, 300.0), kwargs={"decimals": -1},
           int_result=None),
    OpSpec("frac", dg.frac, domain=(-3.0, 3.0), int_result=None, function=_rounding.Frac, formerly=('jvp_rules:frac',)),
    # non-finite handling
    OpSpec("nan_to_num", dg.nan_to_num, make_inputs=_with_specials, compare_float32=False, int_result="same",
           zero_dim=False, function=_rounding.NanToNum, formerly=('jvp_rules:nan_to_num',)),
    OpSpec("nan_to_num_values", dg.nan_to_num, "nan_to_num", make_inputs=_with_specials,
           kwargs={"nan": 1.5, "posinf": 9.0, "neginf": -9.0}, int_result="same", zero_dim=False),
    OpSpec("isnan", dg.isnan, make_inputs=_with_specials, differentiable=False, out_dtype="bool",
           int_result="bool", zero_dim=False),
    OpSpec("isinf", dg.isinf, make_inputs=_with_specials, differentiable=False, out_dtype="bool",
           int_result="bool", zero_dim=False),
    OpSpec("isfinite", dg.isfinite, make_inputs=_with_specials, differentiable=False, out_dtype="bool",
           int_result="bool", zero_dim=False),
    # binary
    OpSpec("maximum", dg.maximum, shapes=B2, broadcast=B2_VARIANTS, int_result="same", function=_pointwise.Maximum, formerly=('jvp_rules:maximum', 'jvp_ops:maximum')),
    OpSpec("minimum", dg.minimum, shapes=B2, broadcast=B2_VARIANTS, int_result="same", function=_pointwise.Minimum, formerly=('jvp_rules:minimum',)),
    OpSpec("fmax", dg.fmax, shapes=B2, broadcast=B2_VARIANTS, int_result="same", function=_pointwise.Fmax, formerly=('jvp_rules:fmax',)),
    OpSpec("fmin", dg.fmin, shapes=B2, broadcast=B2_VARIANTS, int_result="same", function=_pointwise.Fmin, formerly=('jvp_rules:fmin',)),
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
    OpSpec("atan2", dg.atan2, shapes=B2, broadcast=B2_VARIANTS, function=_pointwise.Atan2, formerly=('jvp_rules:atan2', 'jvp_ops:atan2')),
    OpSpec("hypot", dg.hypot, shapes=B2, broadcast=B2_VARIANTS, make_inputs=_signed(0.2, 2.0), int_result=None, function=_pointwise.Hypot, formerly=('jvp_rules:hypot', 'jvp_ops:hypot')),
    OpSpec("logaddexp", dg.logaddexp, shapes=B2, broadcast=B2_VARIANTS, domain=(-30.0, 30.0), int_result=None, function=_pointwise.Logaddexp, formerly=('jvp_rules:logaddexp',)),
    # ternary
    OpSpec("where", dg.where, shapes=((2, 3), (2, 3), (3,)), make_inputs=_where_inputs,
           broadcast=[((2, 1), (3,), (2, 3)), ((), (2, 3), ())], int_result="same", function=_pointwise.Where, formerly=('jvp_rules:where', 'jvp_ops:where')),
    OpSpec("where_scalar", dg.where, "where", shapes=((2, 3), (2, 3)), make_inputs=_where_scalar,
           int_result="float", function=_pointwise.Where, formerly=('jvp_rules:where_scalar',)),
    OpSpec("lerp", dg.lerp, shapes=((2, 3), (3,), (2, 1)), domain=[(-2, 2), (-2, 2), (-0.5, 1.5)],
           broadcast=[((), (2, 3), ())], int_result=None, function=_pointwise.Lerp, formerly=('jvp_rules:lerp', 'jvp_ops:lerp')),
    OpSpec("lerp_scalar", dg.lerp, "lerp", shapes=((2, 3), (3,)), make_inputs=_lerp_scalar, int_result=None, function=_pointwise.LerpScalar, formerly=('jvp_rules:lerp_scalar',)),
    OpSpec("addcmul", dg.addcmul, shapes=((2, 3), (3,), (2, 1)), kwargs={"value": 0.5},
           broadcast=[((), (2, 3), (3,))], int_result=None, function=_pointwise.Addcmul, formerly=('jvp_rules:addcmul', 'jvp_ops:addcmul')),
    OpSpec("addcdiv", dg.addcdiv, shapes=((2, 3), (3,), (2, 1)), kwargs={"value": -2.0},
           domain=[(-2, 2), (-2, 2), (0.5, 2.0)], broadcast=[((), (2, 3), (3,))], int_result=None, function=_pointwise.Addcdiv, formerly=('jvp_rules:addcdiv',)),
]
