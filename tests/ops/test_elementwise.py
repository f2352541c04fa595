"""Elementwise ops: one OpSpec per op drives golden values (PyTorch 2.13, committed in
tests/golden/elementwise.npz), gradcheck, gradgradcheck, broadcast/0-d/zero-size cases and
dtypes; hand-written tests below cover ties, in-place forms and misuse."""

from __future__ import annotations

import math

import numpy as np
import pytest

import dyngrad as dg


# ------------------------------------------------------------------ hand-written cases
def test_maximum_splits_gradient_evenly_on_ties():
    a = dg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = dg.tensor([1.0, 5.0, 0.0], requires_grad=True)
    dg.maximum(a, b).sum().backward()
    assert a.grad.tolist() == [0.5, 0.0, 1.0]
    assert b.grad.tolist() == [0.5, 1.0, 0.0]


def test_fmax_sends_tied_gradient_to_first_operand():
    a = dg.tensor([1.0, float("nan")], requires_grad=True)
    b = dg.tensor([1.0, 2.0], requires_grad=True)
    out = dg.fmax(a, b)
    assert out.tolist() == [1.0, 2.0]
    out.sum().backward()
    assert a.grad.tolist() == [1.0, 0.0] and b.grad.tolist() == [0.0, 1.0]


def test_rounding_ops_have_zero_gradient_and_frac_passes_it():
    x = dg.tensor([-1.5, 0.25, 2.75], dtype=dg.float64, requires_grad=True)
    for fn in (dg.floor, dg.ceil, dg.trunc, dg.round, dg.sign):
        (g,) = dg.autograd.grad(fn(x).sum(), x)
        assert g.tolist() == [0.0, 0.0, 0.0], fn.__name__
    (g,) = dg.autograd.grad(dg.frac(x).sum(), x)
    assert g.tolist() == [1.0, 1.0, 1.0]
    assert dg.frac(x).tolist() == [-0.5, 0.25, 0.75]


def test_round_uses_half_to_even():
    assert dg.round(dg.tensor([0.5, 1.5, 2.5, -0.5])).tolist() == [0.0, 2.0, 2.0, -0.0]


def test_sign_of_nan_is_zero_as_pytorch():
    assert dg.sign(dg.tensor([float("nan"), -2.0, 0.0])).tolist() == [0.0, -1.0, 0.0]


def test_erf_matches_math_erf_to_1e12():
    xs = np.linspace(-6, 6, 241)
    got = dg.erf(dg.tensor(xs)).numpy()
    want = np.array([math.erf(v) for v in xs])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15)
    got_c = dg.erfc(dg.tensor(xs)).numpy()
    np.testing.assert_allclose(got_c, [math.erfc(v) for v in xs], rtol=1e-12, atol=1e-300)


def test_erf_of_float32_stays_float32_and_handles_non_finite():
    out = dg.erf(dg.tensor([float("-inf"), 0.0, float("inf"), float("nan")]))
    assert out.dtype == dg.float32
    assert out.tolist()[:3] == [-1.0, 0.0, 1.0] and math.isnan(out.tolist()[3])


def test_tensor_methods_forward_to_elementwise_ops():
    x = dg.tensor([0.25, 0.5], dtype=dg.float64)
    np.testing.assert_allclose(x.erf().numpy(), [math.erf(0.25), math.erf(0.5)])
    np.testing.assert_allclose(x.atan2(dg.tensor([1.0, 1.0], dtype=dg.float64)).numpy(), np.arctan2([0.25, 0.5], 1))
    np.testing.assert_allclose(x.lerp(dg.ones(2, dtype=dg.float64), 0.5).numpy(), [0.625, 0.75])
    assert x.maximum(dg.tensor([0.3, 0.3], dtype=dg.float64)).tolist() == [0.3, 0.5]
    assert x.logit().tolist() == pytest.approx([math.log(1 / 3), 0.0])


@pytest.mark.parametrize("name", ["exp2", "expm1", "log2", "log10", "log1p", "rsqrt", "square", "reciprocal",
                                  "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh",
                                  "erf", "erfc", "floor",
                                  "ceil", "trunc", "frac", "sign", "logit", "round", "nan_to_num"])
def test_inplace_form_matches_out_of_place_and_bumps_version(name):
    x = dg.tensor([0.2, 0.4, 0.7], dtype=dg.float64)
    want = getattr(dg, name)(x).numpy()
    y = x.clone()
    v = y._version
    res = getattr(y, name + "_")()
    assert res is y and y._version > v
    np.testing.assert_allclose(y.numpy(), want)


def test_inplace_form_records_graph_on_non_leaf():
    x = dg.tensor([0.2, 0.4], dtype=dg.float64, requires_grad=True)
    y = x * 1.0
    y.exp2_()
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp2([0.2, 0.4]) * math.log(2))


def test_isposinf_and_isneginf_pick_the_signed_infinity():
    x = dg.tensor([float("inf"), float("-inf"), float("nan"), 1.0])
    assert dg.isposinf(x).tolist() == [True, False, False, False]
    assert dg.isneginf(x).tolist() == [False, True, False, False]
    assert dg.isposinf(dg.tensor([1, 2])).tolist() == [False, False]


def test_where_with_non_bool_condition_raises():
    x = dg.ones(3)
    with pytest.raises(RuntimeError, match="where expected condition to be a boolean tensor.*Float"):
        dg.where(dg.tensor([1.0, 0.0, 1.0]), x, x)


def test_where_with_unbroadcastable_shapes_raises():
    with pytest.raises(RuntimeError, match="not broadcastable"):
        dg.where(dg.tensor([True, False]), dg.ones(3), dg.zeros(3))


def test_where_with_condition_only_returns_nonzero_indices():
    rows, cols = dg.where(dg.tensor([[True, False], [False, True]]))
    assert rows.tolist() == [0, 1] and cols.tolist() == [0, 1] and rows.dtype == dg.int64


def test_where_gradient_flows_only_to_the_chosen_branch():
    x = dg.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = dg.tensor([10.0, 20.0, 30.0], requires_grad=True)
    dg.where(x > 1.5, x, y).sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 1.0] and y.grad.tolist() == [1.0, 0.0, 0.0]


def test_binary_op_with_unbroadcastable_shapes_raises():
    with pytest.raises((RuntimeError, ValueError)):
        dg.maximum(dg.ones(2, 3), dg.ones(4))


def test_binary_op_rejects_non_numeric_operand():
    with pytest.raises(TypeError, match="hypot"):
        dg.hypot(dg.ones(2), "x")


def test_frac_of_integer_tensor_raises_not_implemented():
    with pytest.raises(NotImplementedError, match="frac"):
        dg.frac(dg.tensor([1, 2]))


def test_round_with_decimals_on_integer_tensor_raises():
    with pytest.raises(NotImplementedError, match="round"):
        dg.round(dg.tensor([1, 2]), decimals=1)


def test_addcdiv_of_integer_tensors_raises():
    with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
        dg.addcdiv(dg.ones(2), dg.tensor([1, 2]), dg.tensor([3, 4]))


def test_float_op_on_int_tensor_cannot_require_grad_path():
    # integer inputs compute in the default float dtype and record no graph
    out = dg.exp2(dg.tensor([1, 2]))
    assert out.dtype == dg.float32 and out.tolist() == [2.0, 4.0] and out.grad_fn is None


def test_inplace_op_on_a_saved_output_fails_at_backward():
    x = dg.tensor([0.2, 0.4], dtype=dg.float64, requires_grad=True)
    y = x.exp()  # saves its output for backward
    y.exp2_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_float32_inputs_with_python_scalars_stay_float32():
    x = dg.tensor([0.2, 0.4])
    assert dg.where(x > 0.3, x, 1.0).dtype == dg.float32
    assert dg.lerp(x, dg.ones(2), 0.5).dtype == dg.float32
    assert dg.addcmul(x, x, x, value=0.5).dtype == dg.float32
    assert dg.maximum(x, 0.3).dtype == dg.float32
    assert dg.where(dg.tensor([True, False]), dg.tensor([1, 2]), 0.5).dtype == dg.float32


# ------------------------------------------------- clamp dtype = result_type(input, min, max) (torch 2.13)
def test_clamp_of_int_tensor_with_float_bounds_promotes_to_default_float():
    x = dg.tensor([1, 5])
    r = x.clamp(min=2.5)
    assert r.dtype == dg.float32 and r.tolist() == [2.5, 5.0]
    assert dg.clip(x, max=2.5).tolist() == [1.0, 2.5]
    assert x.clamp_min(2.5).tolist() == [2.5, 5.0] and x.clamp_min(2.5).dtype == dg.float32
    assert x.clamp_max(2.5).tolist() == [1.0, 2.5] and x.clamp_max(2.5).dtype == dg.float32
    assert x.clamp(2, 3).dtype == dg.int64 and x.clamp(2, 3).tolist() == [2, 3]


def test_clamp_with_tensor_bounds_follows_tensor_type_promotion():
    x = dg.tensor([1.0, 5.0])
    assert x.clamp(dg.tensor(2.0, dtype=dg.float64)).dtype == dg.float32
    assert x.clamp(dg.tensor([2.0], dtype=dg.float64)).dtype == dg.float64
    assert x.clamp(dg.tensor([2.0])).dtype == dg.float32
    assert x.clamp(dg.tensor([2])).dtype == dg.float32
    assert dg.tensor([1, 5], dtype=dg.int32).clamp(dg.tensor([2])).dtype == dg.int64


def test_clamp_int_bound_wraps_into_unsigned_dtype_as_torch():
    r = dg.tensor([1, 5], dtype=dg.uint8).clamp(-1, 3)  # -1 wraps to 255
    assert r.dtype == dg.uint8 and r.tolist() == [3, 3]


def test_clamp_inplace_of_int_tensor_with_float_bound_raises():
    with pytest.raises(RuntimeError, match="can't be cast"):
        dg.tensor([1, 5]).clamp_(min=2.5)


def test_atan2_gradient_at_the_origin_is_zero_as_torch():
    a = dg.tensor([0.0, 0.0, 1.0], dtype=dg.float64, requires_grad=True)
    b = dg.tensor([0.0, -0.0, 2.0], dtype=dg.float64, requires_grad=True)
    ga, gb = dg.autograd.grad(dg.atan2(a, b).sum(), (a, b))
    # torch 2.13: ga = [0, -0, 0.4], gb = [-0, -0, -0.2]
    np.testing.assert_allclose(ga._data, [0.0, -0.0, 0.4])
    np.testing.assert_allclose(gb._data, [-0.0, -0.0, -0.2])
    assert np.signbit(ga._data).tolist() == [False, True, False]


def test_abs_of_a_bool_tensor_raises_as_torch():
    # torch 2.13: NotImplementedError: "abs_cpu" not implemented for 'Bool' (was: a bool copy)
    with pytest.raises(NotImplementedError, match="abs_cpu"):
        dg.abs(dg.tensor([True, False]))
    with pytest.raises(NotImplementedError):
        dg.tensor([True]).abs_()
    assert dg.abs(dg.tensor([-2, 3])).tolist() == [2, 3]


def test_addcmul_casts_value_to_an_integer_result_dtype_as_torch():
    # torch 2.13 truncates value into the integer dtype: 1 + int(0.5) * 6 = 1 (dyngrad gave 4)
    a, b, c = dg.tensor([1, 2]), dg.tensor([2]), dg.tensor([3, 4])
    assert dg.addcmul(a, b, c, value=0.5).tolist() == [1, 2]
    assert dg.addcmul(a, b, c, value=2.7).tolist() == [13, 18]
    assert dg.addcmul(a, b, c, value=-1.5).tolist() == [-5, -6]
    u = dg.tensor([1, 2], dtype=dg.uint8)
    assert dg.addcmul(u, u[:1] * 2, dg.tensor([3, 4], dtype=dg.uint8), value=-1).tolist() == [251, 250]
    assert dg.addcmul(a, dg.tensor([2.0]), c, value=0.5).tolist() == [4.0, 6.0]  # a float result keeps 0.5
    with pytest.raises(NotImplementedError, match="Bool"):
        dg.addcmul(dg.tensor([True]), dg.tensor([True]), dg.tensor([True]))


@pytest.mark.parametrize("name", ["floor", "ceil", "trunc", "fix", "round"])
def test_rounding_a_bool_tensor_raises_as_torch(name):
    # torch 2.13: NotImplementedError "<op>_vml_cpu" not implemented for 'Bool' (was: a bool copy)
    with pytest.raises(NotImplementedError, match="Bool"):
        getattr(dg, name)(dg.tensor([True, False]))
    assert getattr(dg, name)(dg.tensor([-1, 2])).tolist() == [-1, 2]  # integers: a copy


def test_frac_of_inf_is_nan_without_a_numpy_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert math.isnan(dg.frac(dg.tensor([float("inf")])).item())
