"""vmap of the elementwise families beyond the op database's per-op vmap checks
(tests/test_op_db.py over tests/op_db/, including tests/op_db/vmap_pointwise.py): per-example
type promotion of 0-d examples, float predicates, random slopes, and nested vmap.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from dyngrad.func import vmap
from dyngrad.ops import copying as _cp
from tests.func.vmap_checks import T, _fallbacks

D = dyngrad
F = dyngrad.nn.functional


def _vmap_quiet(fn, *args, **kw):  # noqa: ANN001, ANN002, ANN003, ANN202
    """vmap(fn, **kw)(*args) and the fallback warnings it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(fn, **kw)(*args)
    return out, _fallbacks([str(w.message) for w in caught])


def test_nested_vmap_equals_the_double_loop_without_fallbacks() -> None:
    rng = np.random.default_rng(0)
    x, y, w = rng.standard_normal((3, 4, 2, 5)), rng.standard_normal((4, 5)), rng.standard_normal(2)

    def f(a, b, c):  # noqa: ANN001, ANN202
        # a: (2, 5) per inner example, b: (5,), c: (2,) shared by the inner vmap
        h = D.maximum(a, b).exp() * 0.5 + D.clamp(a, -0.5, 0.5) - b.sigmoid() / (1 + a * a)
        h = D.where(D.tensor([True, False, True, True, False]), h, -a)
        return F.prelu(h.unsqueeze(0), c).squeeze(0) ** 2 + D.lerp(a, b, 0.25).tanh()

    inner = vmap(f, in_dims=(0, 0, None))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = vmap(inner, in_dims=(0, None, None))(T(x), T(y), T(w))
    assert not _fallbacks([str(m.message) for m in caught])
    want = np.stack([np.stack([f(T(x[i, j]), T(y[j]), T(w))._data for j in range(4)]) for i in range(3)])
    assert out.shape == (3, 4, 2, 5)
    np.testing.assert_allclose(out._data, want, rtol=1e-12, atol=1e-12)


def test_nested_vmap_gradients_equal_the_double_loop() -> None:
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4))

    def f(a, b):  # noqa: ANN001, ANN202
        return D.hypot(a, b) * a.sin() + D.masked_fill(a, D.tensor([True, False, False, True]), 2.0)

    xt, yt = T(x).requires_grad_(), T(y).requires_grad_()
    out = vmap(vmap(f, in_dims=(0, 0)), in_dims=(0, None))(xt, yt)
    gx, gy = dyngrad.autograd.grad(out, [xt, yt], T(np.ones((2, 3, 4))))
    wx, wy = np.zeros_like(x), np.zeros_like(y)
    for i in range(2):
        for j in range(3):
            a, b = T(x[i, j]).requires_grad_(), T(y[j]).requires_grad_()
            ga, gb = dyngrad.autograd.grad(f(a, b), [a, b], T(np.ones(4)))
            wx[i, j] += ga._data
            wy[j] += gb._data
    np.testing.assert_allclose(gx._data, wx, rtol=1e-12)
    np.testing.assert_allclose(gy._data, wy, rtol=1e-12)


@pytest.mark.parametrize("op", [lambda s, m: s * m, lambda s, m: m - s, lambda s, m: D.maximum(s, m),
                                lambda s, m: D.clamp(m, max=s), lambda s, m: D.where(m > 100.0, s, m)])
def test_a_zero_dim_example_keeps_its_per_example_type_promotion(op) -> None:  # noqa: ANN001
    """float64 0-d example with a float32 matrix: float32 as in each example (the batched
    values (n,) alone would promote to float64)."""
    s = D.tensor([0.5, -1.25, 2.0], dtype=D.float64)
    m = D.tensor([[1.0, -2.0], [3.0, 0.25]], dtype=D.float32)
    out, bad = _vmap_quiet(op, s, m, in_dims=(0, None))
    want = D.stack([op(s[k], m) for k in range(3)])
    assert want.dtype == D.float32
    assert out.dtype == want.dtype
    np.testing.assert_array_equal(out._data, want._data)
    assert not bad


def test_a_zero_dim_float32_example_with_a_float64_zero_dim_constant_gives_float64() -> None:
    s = D.tensor([0.5, -1.25], dtype=D.float32)
    c = D.tensor(3.0, dtype=D.float64)
    out, bad = _vmap_quiet(lambda a: a + c, s)
    assert out.dtype == D.float64 == (s[0] + c).dtype
    np.testing.assert_array_equal(out._data, s._data.astype(np.float64) + 3.0)
    assert not bad


def test_batched_bool_mask_and_condition_go_through_their_rules() -> None:
    rng = np.random.default_rng(2)
    x = T(rng.standard_normal((2, 3)))
    masks = D.tensor(rng.standard_normal((4, 2, 3)) > 0)
    v = T(rng.standard_normal(4))
    out, bad = _vmap_quiet(lambda m, val: D.masked_fill(x, m, val), masks, v, in_dims=(0, 0))
    want = np.stack([D.masked_fill(x, masks[k], v[k])._data for k in range(4)])
    np.testing.assert_array_equal(out._data, want)
    out2, bad2 = _vmap_quiet(lambda m: D.where(m, x, -x), masks, in_dims=(0,))
    np.testing.assert_array_equal(out2._data, np.where(masks._data, x._data, -x._data))
    assert not bad and not bad2


def test_a_non_bool_batched_mask_raises_like_masked_fill() -> None:
    with pytest.raises(RuntimeError, match="boolean masks"):
        vmap(lambda m: D.masked_fill(T(np.zeros(3)), m, 1.0))(D.ones(2, 3, dtype=D.int64))


def test_copy_of_a_src_of_higher_rank_than_self_fails_as_in_the_loop() -> None:
    a = T(np.zeros((2, 3)))  # each example's target is (3,); src (2, 3) does not fit it
    with pytest.raises(RuntimeError, match="not broadcastable"):
        vmap(lambda t: _cp.Copy.apply(t, T(np.ones((2, 3)))))(a)


def test_casting_to_an_integer_dtype_inside_vmap_needs_no_fallback() -> None:
    x = T(np.array([[1.5, -2.5], [3.7, 0.2]])).requires_grad_()
    out, bad = _vmap_quiet(lambda a: a.to(D.int64) + 1, x, in_dims=(1,))
    assert out.dtype == D.int64 and not out.requires_grad
    np.testing.assert_array_equal(out._data, x._data.T.astype(np.int64) + 1)
    assert not bad


def test_rrelu_in_training_with_randomness_same_draws_one_set_of_slopes_for_every_example() -> None:
    x = T(-np.abs(np.random.default_rng(4).standard_normal((3, 5))) - 0.1)
    out, bad = _vmap_quiet(lambda a: F.rrelu(a, 0.1, 0.3, training=True), x, randomness="same")
    slopes = out._data / x._data
    assert not bad
    assert np.all((slopes >= 0.1) & (slopes <= 0.3))
    np.testing.assert_allclose(slopes, np.broadcast_to(slopes[0], slopes.shape), rtol=1e-12)


def test_rrelu_in_training_with_the_default_randomness_raises() -> None:
    with pytest.raises(RuntimeError, match="randomness"):
        vmap(lambda a: F.rrelu(a, training=True))(T(np.ones((2, 3))))


def test_rrelu_in_eval_mode_is_batched() -> None:
    x = T(np.random.default_rng(5).standard_normal((3, 4)))
    out, bad = _vmap_quiet(lambda a: F.rrelu(a, 0.1, 0.3), x, in_dims=(1,))
    np.testing.assert_allclose(out._data, np.where(x._data > 0, x._data, 0.2 * x._data).T, rtol=1e-12)
    assert not bad


@pytest.mark.parametrize("pred", [D.isnan, D.isinf, D.isfinite, D.isposinf, D.isneginf])
def test_float_predicates_of_a_batched_tensor_need_no_fallback(pred) -> None:  # noqa: ANN001
    x = T(np.array([[1.0, np.nan, np.inf], [-np.inf, 0.0, 2.0]])).requires_grad_()
    out, bad = _vmap_quiet(pred, x, in_dims=(1,))
    assert out.dtype == D.bool and not out.requires_grad and not bad
    np.testing.assert_array_equal(out._data, pred(x)._data.T)


def test_where_of_isnan_replaces_nans_per_example_with_gradients() -> None:
    x = T(np.array([[1.0, np.nan], [np.nan, -2.0], [3.0, 4.0]])).requires_grad_()
    out, bad = _vmap_quiet(lambda a: D.where(D.isnan(a), 0.0, a) * 2, x)
    assert not bad
    np.testing.assert_array_equal(out._data, np.nan_to_num(x._data) * 2)
    (g,) = dyngrad.autograd.grad(out, [x], T(np.ones((3, 2))))
    np.testing.assert_array_equal(g._data, np.where(np.isnan(x._data), 0.0, 2.0))


_BINARY = [
    ("mul", lambda a, b: a * b),
    ("sub_alpha", lambda a, b: D.sub(a, b, alpha=0.5)),
    ("pow", lambda a, b: a.abs() ** b),
    ("maximum", D.maximum),
    ("clamp_max", lambda a, b: D.clamp(a, max=b)),
    ("where", lambda a, b: D.where(D.tensor(True), a, b)),
    ("atan2", D.atan2),
    ("lerp", lambda a, b: D.lerp(a, b, 0.3)),
    ("addcmul", lambda a, b: D.addcmul(a, b, a, value=2.0)),
    ("masked_fill_value", lambda a, b: D.masked_fill(a, D.tensor(True), b)),
]


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_binary_ops_under_vmap_match_a_loop_for_any_broadcast_shapes_and_batch_positions(data) -> None:  # noqa: ANN001
    name, op = data.draw(st.sampled_from(_BINARY), label="op")
    full = data.draw(st.lists(st.integers(1, 3), max_size=3), label="broadcast shape")

    def operand(label: str) -> tuple:
        rank = data.draw(st.integers(0, len(full)), label=f"{label} rank")
        shape = tuple(s if data.draw(st.booleans(), label=f"{label} keeps dim") else 1 for s in full[len(full) - rank:])
        return shape, data.draw(st.sampled_from([None, "batched"]), label=f"{label} batched")

    (sa, ba), (sb, bb) = operand("a"), operand("b")
    if name == "masked_fill_value":
        sb = ()  # masked_fill's value is a 0-d tensor
    if ba is None and bb is None:
        ba = "batched"
    n = 2
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16), label="seed"))
    ex = [(rng.standard_normal(sa), rng.standard_normal(sb)) for _ in range(n)]
    if ba is None:
        ex = [(ex[0][0], e[1]) for e in ex]
    if bb is None:
        ex = [(e[0], ex[0][1]) for e in ex]
    args, dims = [], []
    for i, (shape, b) in enumerate(((sa, ba), (sb, bb))):
        if b is None:
            args.append(T(ex[0][i]))
            dims.append(None)
        else:
            d = data.draw(st.integers(0, len(shape)), label=f"in_dim {i}")
            args.append(T(np.stack([e[i] for e in ex], axis=d)))
            dims.append(d)
    out, bad = _vmap_quiet(op, *args, in_dims=tuple(dims))
    want = np.stack([op(T(x), T(y))._data for x, y in ex])
    assert not bad
    np.testing.assert_allclose(out._data, want, rtol=1e-12, atol=1e-12)


def test_rrelu_in_training_with_randomness_different_draws_per_example_without_a_loop() -> None:
    x = T(-np.ones((3, 5)))
    out, bad = _vmap_quiet(lambda a: F.rrelu(a, 0.1, 0.3, training=True), x, randomness="different")
    slopes = out._data / x._data
    assert not bad  # the slopes come from rand_like, a random op with a batching rule
    assert np.all((slopes >= 0.1) & (slopes <= 0.3)) and not np.allclose(slopes[0], slopes[1])
