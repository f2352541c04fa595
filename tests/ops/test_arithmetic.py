"""Arithmetic ops beyond the op database's per-op checks (the entries of
tests/op_db/arithmetic.py take golden values, gradcheck, gradgradcheck, forward mode and vmap
in tests/test_op_db.py): integer and rounding division against PyTorch 2.13
(tests/golden/core.npz), zero powers, comparisons, in-place forms, errors."""

import os

import numpy as np
import pytest

import dyngrad

GOLD = np.load(os.path.join(os.path.dirname(__file__), "..", "golden", "core.npz"))

def t64(a, rg=True):
    return dyngrad.tensor(a, dtype=dyngrad.float64, requires_grad=rg)


@pytest.mark.parametrize(
    "key,fn",
    [
        ("int_div", lambda: dyngrad.tensor([1, 2, 3]) / 2),
        ("int_floordiv", lambda: dyngrad.tensor([-7, 7, 5]) // 2),
        ("int_remainder", lambda: dyngrad.tensor([-7, 7, 5]) % 3),
        ("int_fmod", lambda: dyngrad.fmod(dyngrad.tensor([-7, 7, 5]), 3)),
        ("float_floordiv", lambda: dyngrad.tensor([-7.5, 7.5, 5.0]) // 2),
        ("div_trunc", lambda: dyngrad.div(dyngrad.tensor([-7.5, 7.5, 5.0]), 2, rounding_mode="trunc")),
        ("int_div_trunc", lambda: dyngrad.div(dyngrad.tensor([-7, 7, 5]), 2, rounding_mode="trunc")),
    ],
)
def test_integer_and_rounding_division_match_pytorch_values_and_dtypes(key, fn):
    out = fn()
    expected = GOLD[f"arith/{key}/out"]
    assert out._data.dtype == expected.dtype
    np.testing.assert_array_equal(out.numpy(), expected)


def test_pow_with_zero_base_and_zero_exponent_gradients():
    x = t64([0.0, 2.0])
    e = t64([2.0, 0.0])
    (x**e).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    np.testing.assert_allclose(e.grad.numpy(), [0.0, np.log(2.0)])


def test_comparisons_return_bool_and_never_require_grad():
    x = t64([1.0, 2.0, 3.0])
    for r in (x < 2, x <= 2, x > 2, x >= 2, x == 2, x != 2, dyngrad.eq(x, 2.0)):
        assert r.dtype == dyngrad.bool and not r.requires_grad and r.grad_fn is None
    assert (x > 1.5).tolist() == [False, True, True]
    assert ((x > 1) & (x < 3)).tolist() == [False, True, False]
    assert ((x < 1.5) | (x > 2.5)).tolist() == [True, False, True]
    assert (~(x > 2)).tolist() == [True, True, False]
    assert dyngrad.equal(x, t64([1.0, 2.0, 3.0]))
    assert dyngrad.allclose(x, x + 1e-9)


def test_in_place_forms_return_self_and_match_out_of_place():
    base = np.array([1.0, -2.0, 3.0], dtype=np.float32)
    for inplace, outplace in [
        (lambda t: t.add_(2), lambda t: t + 2),
        (lambda t: t.sub_(2), lambda t: t - 2),
        (lambda t: t.mul_(2), lambda t: t * 2),
        (lambda t: t.div_(2), lambda t: t / 2),
        (lambda t: t.pow_(2), lambda t: t**2),
        (lambda t: t.neg_(), lambda t: -t),
        (lambda t: t.add_(dyngrad.ones(3), alpha=3), lambda t: t + 3),
    ]:
        t = dyngrad.tensor(base)
        r = inplace(t)
        assert r is t
        np.testing.assert_allclose(t.numpy(), outplace(dyngrad.tensor(base)).numpy())
        assert t.dtype == dyngrad.float32


def test_augmented_assignment_keeps_the_object():
    t = dyngrad.ones(2)
    ident = id(t)
    t += 1
    t *= 3
    t -= 1
    t /= 5
    t **= 2
    assert id(t) == ident and t.tolist() == [1.0, 1.0]


def test_in_place_integer_true_division_is_refused():
    with pytest.raises(RuntimeError, match="can't be cast"):
        dyngrad.tensor([1, 2]).div_(2)
    with pytest.raises(RuntimeError, match="can't be cast"):
        dyngrad.tensor([1, 2]).add_(1.5)


def test_in_place_on_an_expanded_view_is_refused():
    t = dyngrad.ones(3).expand(2, 3)
    with pytest.raises(RuntimeError, match="read-only"):
        t.add_(1)


def test_zero_and_fill_in_place_with_grad_through_non_leaf():
    x = t64([1.0, 2.0])
    v = t64(5.0)
    h = x * 1
    h.fill_(v)
    (h * t64([1.0, 2.0], rg=False)).sum().backward()
    assert v.grad.item() == 3.0
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    with pytest.raises(RuntimeError, match="0-dimension"):
        dyngrad.zeros(2).fill_(dyngrad.ones(2))


def test_copy_in_place_broadcasts_casts_and_is_differentiable():
    src = t64([1.0, 2.0])
    dst = dyngrad.zeros(3, 2)
    with dyngrad.no_grad():
        dst.copy_(src)
    assert dst.dtype == dyngrad.float32 and dst.tolist() == [[1.0, 2.0]] * 3
    h = dyngrad.zeros(3, 2, dtype=dyngrad.float64) * t64(1.0)
    h.copy_(src)
    h.sum().backward()
    np.testing.assert_allclose(src.grad.numpy(), [3.0, 3.0])
    with pytest.raises(RuntimeError, match="not broadcastable"):
        dyngrad.zeros(3).copy_(dyngrad.ones(2))


def test_errors_name_the_problem():
    b = dyngrad.tensor([True, False])
    with pytest.raises(RuntimeError, match="Subtraction.*bool"):
        _ = b - b
    with pytest.raises(RuntimeError, match="Negation.*bool"):
        _ = -b
    with pytest.raises(RuntimeError, match="negative integer powers"):
        dyngrad.tensor([2, 3]) ** -1
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        dyngrad.tensor([1, 2]) // 0
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        dyngrad.tensor([1, 2]) % 0
    with pytest.raises(RuntimeError, match="rounding_mode"):  # torch 2.13: RuntimeError
        dyngrad.div(dyngrad.ones(1), 2, rounding_mode="round")
    with pytest.raises((RuntimeError, ValueError)):
        dyngrad.ones(2) + dyngrad.ones(3)


def test_float32_stays_float32_with_python_scalars_and_grads():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = (2.5 * x + 1) / 3.0 - 0.5
    y = y**2
    assert y.dtype == dyngrad.float32
    y.sum().backward()
    assert x.grad.dtype == dyngrad.float32


def test_mixed_dtype_binary_grads_come_back_in_each_input_dtype():
    a = dyngrad.tensor([1.0, 2.0], dtype=dyngrad.float32, requires_grad=True)
    b = dyngrad.tensor([3.0, 4.0], dtype=dyngrad.float64, requires_grad=True)
    out = a * b
    assert out.dtype == dyngrad.float64
    out.sum().backward()
    assert a.grad.dtype == dyngrad.float32 and b.grad.dtype == dyngrad.float64
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 4.0])


def test_node_names_match_pytorch():
    x = t64([1.0])
    names = {
        "AddBackward0": x + 1, "SubBackward0": x - 1, "MulBackward0": x * 2,
        "DivBackward0": x / 2, "NegBackward0": -x, "PowBackward0": x**2,
        "CloneBackward0": x.clone(),
    }
    for name, t in names.items():
        assert t.grad_fn.name() == name


@pytest.mark.parametrize("base", [0.0, "tensor"])
def test_zero_base_power_exponent_gradient_matches_pytorch_without_warnings(base, recwarn):
    x = t64([0.0, 1.0, -1.0, 2.5, -0.5])
    b = 0.0 if base == 0.0 else dyngrad.zeros(5, dtype=dyngrad.float64)
    (b**x).sum().backward()
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]
    # PyTorch 2.13: tensor([0., 0., -inf, 0., -inf]) for both forms
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0, -np.inf, 0.0, -np.inf])


def test_numpy_scalars_act_as_python_scalars():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    for y in (x * np.float32(3.0), np.float32(3.0) * x, x * np.float64(3.0), x + np.int64(2) - 2 + 2 * x):
        assert y.dtype == dyngrad.float32 and y.requires_grad
    (x * np.float32(3.0)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [3.0, 3.0])
    assert (dyngrad.tensor([1, 2]) * np.float32(1.5)).dtype == dyngrad.float32
    assert (dyngrad.tensor([1, 2], dtype=dyngrad.int32) + np.int64(3)).dtype == dyngrad.int32
    assert (x ** np.int64(2)).tolist() == [1.0, 4.0]


# ----------------------------------------------------------------- bitwise (values from torch 2.13)
def test_bitwise_operators_on_int_tensors_are_bitwise_not_logical():
    a, b = dyngrad.tensor([6, -3]), dyngrad.tensor([3, 5])
    assert (a & b).tolist() == [2, 5] and (a & b).dtype == dyngrad.int64
    assert (a | b).tolist() == [7, -3]
    assert (a ^ b).tolist() == [5, -8]
    assert (a << 1).tolist() == [12, -6]
    assert (a >> 1).tolist() == [3, -2]
    assert (1 << dyngrad.tensor([2, 3])).tolist() == [4, 8]
    assert (dyngrad.tensor([5]) & 1).tolist() == [1]
    assert (1 & dyngrad.tensor([5])).tolist() == [1]
    assert (6 | dyngrad.tensor([1])).tolist() == [7]
    assert (6 ^ dyngrad.tensor([3])).tolist() == [5]
    assert dyngrad.bitwise_and(a, b).tolist() == [2, 5]
    assert a.bitwise_xor(b).tolist() == [5, -8]


def test_bitwise_ops_on_bool_tensors_stay_logical_and_promote_with_ints():
    t, m = dyngrad.tensor([True, False]), dyngrad.tensor([True, True])
    assert (t & m).tolist() == [True, False] and (t & m).dtype == dyngrad.bool
    assert (t | m).tolist() == [True, True] and (t ^ m).tolist() == [False, True]
    r = dyngrad.tensor([True]) | 2
    assert r.tolist() == [3] and r.dtype == dyngrad.int64
    u = dyngrad.tensor([6], dtype=dyngrad.uint8) & dyngrad.tensor([3])
    assert u.tolist() == [2] and u.dtype == dyngrad.int64


def test_shifts_wrap_in_the_dtype_and_out_of_range_shifts_match_torch():
    r = dyngrad.tensor([1, 2], dtype=dyngrad.int8) << 7
    assert r.tolist() == [-128, 0] and r.dtype == dyngrad.int8
    assert (dyngrad.tensor([1, 2]) << dyngrad.tensor([70, -1])).tolist() == [0, 0]
    assert (dyngrad.tensor([16, -16]) >> dyngrad.tensor([70, -1])).tolist() == [0, -1]


def test_bitwise_inplace_operators_write_into_self():
    x = dyngrad.tensor([6])
    v = x._version
    x &= 3
    assert x.tolist() == [2] and x._version == v + 1
    x |= 8
    x ^= 1
    x <<= 1
    x >>= 2
    assert x.tolist() == [5]
    with pytest.raises(RuntimeError, match="can't be cast"):
        y = dyngrad.tensor([True])
        y |= 2


@pytest.mark.parametrize(
    "f",
    [
        lambda: dyngrad.tensor([1.0]) & 1,
        lambda: dyngrad.tensor([1]) | 1.5,
        lambda: dyngrad.tensor([1.0]) << 1,
        lambda: dyngrad.bitwise_xor(dyngrad.tensor([1]), dyngrad.tensor([1.0])),
    ],
)
def test_bitwise_ops_on_floats_raise_not_implemented(f):
    with pytest.raises(NotImplementedError, match="not implemented for 'Float'"):
        f()


# ------------------ Python ints outside an integer tensor's dtype wrap into it (torch 2.13 values)
def test_comparisons_with_out_of_range_python_ints_wrap_into_the_dtype():
    u = dyngrad.tensor([1, 200], dtype=dyngrad.uint8)
    assert (u < -1).tolist() == [True, True]  # -1 -> 255
    assert (u == 256).tolist() == [False, False]  # 256 -> 0
    assert (u == 257).tolist() == [True, False]  # 257 -> 1
    assert (u > 300).tolist() == [False, True]  # 300 -> 44
    assert (-1 > u).tolist() == [True, True]
    assert u.eq(-1).tolist() == [False, False]


def test_arithmetic_with_out_of_range_python_ints_wraps_as_torch():
    u = dyngrad.tensor([1, 200], dtype=dyngrad.uint8)
    i = dyngrad.tensor([1, 100], dtype=dyngrad.int8)
    cases = {
        "i*200": (i * 200, [-56, 32]),
        "i+200": (i + 200, [-55, 44]),
        "i-200": (i - 200, [57, -100]),
        "200-i": (200 - i, [-57, 100]),
        "u+-1": (u + (-1), [0, 199]),
        "u*-1": (u * -1, [255, 56]),
        "i//200": (i // 200, [-1, -2]),
        "i%200": (i % 200, [-55, -12]),
        "u&257": (u & 257, [1, 0]),
        "u.add(1000)": (u.add(1000), [233, 176]),
    }
    for name, (r, want) in cases.items():
        assert r.tolist() == want, name
        assert r.dtype in (dyngrad.int8, dyngrad.uint8), name
    assert (dyngrad.tensor([1], dtype=dyngrad.int32) + 2**40).tolist() == [1]
    np.testing.assert_allclose((i / 200)._data, [0.005, 0.5])  # true division: no wrapping
    x = u.clone()
    x += 1000
    assert x.tolist() == [233, 176]
    y = i.clone()
    y *= 200
    assert y.tolist() == [-56, 32]


def test_add_and_sub_check_alpha_as_torch():
    # torch 2.13 refuses a float alpha for an integral result (dyngrad truncated it: 1 + 0.5 * 1 gave 1)
    i = dyngrad.tensor([1, 2])
    for f in (dyngrad.add, dyngrad.sub):
        with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
            f(i, dyngrad.tensor([1, 1]), alpha=0.5)
        with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
            f(dyngrad.tensor([True]), dyngrad.tensor([True]), alpha=0.5)
        with pytest.raises(RuntimeError, match="Boolean alpha"):
            f(dyngrad.tensor([1.0]), dyngrad.tensor([1.0]), alpha=True)
    with pytest.raises(RuntimeError, match="alpha must not be a floating point"):
        i.clone().add_(dyngrad.tensor([1, 1]), alpha=0.5)
    # what torch allows: a float alpha when the result is floating, an int alpha for ints
    assert dyngrad.add(i, 2.0, alpha=0.5).tolist() == [2.0, 3.0]
    assert dyngrad.add(i, i, alpha=2).tolist() == [3, 6]
    assert dyngrad.sub(dyngrad.tensor([1.0]), dyngrad.tensor([1.0]), alpha=0.5).tolist() == [0.5]
    assert dyngrad.add(dyngrad.tensor([True]), dyngrad.tensor([False]), alpha=True).tolist() == [True]
