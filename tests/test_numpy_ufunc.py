"""NumPy ufuncs on Tensors (dyngrad/_tensor/numpy_ufunc.py): every entry of the table agrees
with NumPy on the arrays (values and dtype), is differentiable where the op is, and the ufunc
methods, out=, where=, dtype= and mixed operands follow NumPy's meaning."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import dyngrad
from dyngrad._tensor.numpy_ufunc import UFUNCS
from dyngrad.func import grad, vmap

# input domains: (low, high) of every operand
_DOMAIN = {
    np.log: (0.1, 3), np.log2: (0.1, 3), np.log10: (0.1, 3), np.log1p: (-0.5, 3), np.sqrt: (0.1, 3),
    np.arcsin: (-0.9, 0.9), np.arccos: (-0.9, 0.9), np.arctanh: (-0.9, 0.9), np.arccosh: (1.1, 3),
    np.reciprocal: (0.5, 3), np.true_divide: (0.5, 3), np.power: (0.5, 2), np.float_power: (0.5, 2),
    np.floor_divide: (0.5, 3), np.remainder: (0.5, 3), np.fmod: (0.5, 3), np.divmod: (0.5, 3),
    np.cbrt: (0.2, 3), np.arctan2: (0.2, 2), np.hypot: (0.2, 2),
}
_BITS = {np.bitwise_and, np.bitwise_or, np.bitwise_xor, np.invert, np.left_shift, np.right_shift}
_FLOAT = sorted((u for u in UFUNCS if u not in _BITS and u is not np.matmul and u.__name__ != "vecdot"),
                key=lambda u: u.__name__)
# differentiable where the op is (the rest are piecewise constant or return bools)
_NOGRAD = {np.floor, np.ceil, np.rint, np.trunc, np.sign, np.floor_divide, np.equal, np.not_equal,
           np.less, np.less_equal, np.greater, np.greater_equal, np.isnan, np.isinf, np.isfinite,
           np.logical_and, np.logical_or, np.logical_xor, np.logical_not, np.divmod, np.modf,
           np.remainder, np.fmod}  # (these two jump where x / y is whole)


def _arrays(ufunc: np.ufunc, data: st.DataObject) -> list[np.ndarray]:
    lo, hi = _DOMAIN.get(ufunc, (-2, 2))
    shape = data.draw(hnp.array_shapes(min_dims=0, max_dims=2, max_side=3))
    elems = st.floats(lo, hi, allow_nan=False, width=64)
    return [data.draw(hnp.arrays(np.float64, shape, elements=elems)) for _ in range(ufunc.nin)]


@settings(max_examples=120, deadline=None)
@given(ufunc=st.sampled_from(_FLOAT), data=st.data())
def test_every_float_ufunc_on_tensors_equals_numpy_on_the_arrays(ufunc, data):
    arrays = _arrays(ufunc, data)
    expected = ufunc(*arrays)
    got = ufunc(*(dyngrad.tensor(a) for a in arrays))
    for e, g in zip(expected if ufunc.nout > 1 else (expected,), got if ufunc.nout > 1 else (got,)):
        assert isinstance(g, dyngrad.Tensor)
        assert g._data.dtype == np.asarray(e).dtype
        np.testing.assert_allclose(g._data, e, rtol=1e-10, atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(ufunc=st.sampled_from([u for u in _FLOAT if u not in _NOGRAD]), data=st.data())
def test_every_differentiable_ufunc_passes_gradcheck_through_numpy(ufunc, data):
    arrays = _arrays(ufunc, data)
    if ufunc in (np.maximum, np.minimum, np.fmax, np.fmin, np.absolute, np.fabs, np.copysign):
        arrays = [a + 0.37 * i for i, a in enumerate(arrays)]  # away from ties and kinks (mostly)
        if any(np.any(np.abs(a) < 1e-3) for a in arrays) or (ufunc.nin == 2 and np.any(np.abs(arrays[0] - arrays[1]) < 1e-3)):
            return
    ts = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
    assert dyngrad.autograd.gradcheck(lambda *xs: ufunc(*xs), ts)


@settings(max_examples=40, deadline=None)
@given(ufunc=st.sampled_from(sorted(_BITS, key=lambda u: u.__name__)),
       a=hnp.arrays(np.int64, 4, elements=st.integers(0, 60)), b=hnp.arrays(np.int64, 4, elements=st.integers(0, 5)))
def test_bitwise_ufuncs_on_integer_tensors_equal_numpy(ufunc, a, b):
    args = (a, b)[: ufunc.nin]
    np.testing.assert_array_equal(ufunc(*(dyngrad.tensor(x) for x in args))._data, ufunc(*args))


def test_a_ndarray_or_numpy_scalar_on_the_left_of_an_operator_keeps_pytorchs_dtypes():
    t = dyngrad.ones(3)
    assert (np.float64(2) * t).dtype == dyngrad.float32 == (t * np.float64(2)).dtype  # as torch
    assert (np.ones(3) + t).dtype == dyngrad.float64  # a float64 array operand promotes, as in torch
    assert (np.array(2.0) + t).dtype == dyngrad.float32  # a 0-d array is a 0-d tensor
    np.testing.assert_allclose((np.full(3, 5.0) - t)._data, [4, 4, 4])
    np.testing.assert_allclose((np.ones((2, 3)) @ dyngrad.arange(3.0))._data, [3, 3])


def test_integer_tensors_give_numpys_float64_in_ufuncs_that_make_floats():
    i = dyngrad.tensor([1, 2, 3])
    assert np.exp(i).dtype == dyngrad.float64 and np.true_divide(i, 2).dtype == dyngrad.float64
    np.testing.assert_allclose(np.sqrt(i)._data, np.sqrt([1, 2, 3]), rtol=1e-15)
    assert np.add(i, i).dtype == dyngrad.int64


def test_out_a_tensor_writes_in_place_bumps_the_version_and_stays_differentiable():
    x = dyngrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 1.0
    v = y._version
    r = np.multiply(y, x, out=y)  # y.mul_(x)
    assert r is y and y._version > v
    r.sum().backward()
    np.testing.assert_allclose(x.grad._data, [2.0, 4.0])  # d(x*x)/dx
    z = dyngrad.zeros(2)
    w = dyngrad.tensor([0.0, 1.0], requires_grad=True)
    np.exp(w, out=z)  # out= not an input: copy_
    z.sum().backward()
    np.testing.assert_allclose(w.grad._data, np.exp([0.0, 1.0]))


def test_out_a_leaf_that_requires_grad_raises_pytorchs_in_place_error():
    x = dyngrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        np.add(x, 1.0, out=x)


def test_out_an_ndarray_refuses_a_tensor_that_requires_grad_and_takes_plain_values():
    x = dyngrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="into a NumPy array"):
        np.exp(x, out=np.empty(2))
    a = np.zeros(2)
    assert np.exp(dyngrad.zeros(2), out=a) is a
    np.testing.assert_array_equal(a, [1, 1])
    a += dyngrad.ones(2)  # ndarray += Tensor: values
    np.testing.assert_array_equal(a, [2, 2])


def test_where_keeps_outs_values_where_false_and_is_differentiable():
    x = dyngrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    out = dyngrad.full((3,), -1.0)
    np.exp(x, out=out, where=np.array([True, False, True]))
    np.testing.assert_allclose(out._data, [np.e, -1.0, np.exp(3.0)])
    out.sum().backward()
    np.testing.assert_allclose(x.grad._data, [np.e, 0.0, np.exp(3.0)])


def test_dtype_casts_the_operands_first():
    r = np.add(dyngrad.tensor([1, 2]), 0.5, dtype=np.float64)
    assert r.dtype == dyngrad.float64
    np.testing.assert_allclose(r._data, [1.5, 2.5])


@pytest.mark.parametrize("ufunc,axis,keepdims", [
    (np.add, 0, False), (np.add, None, False), (np.multiply, 1, True), (np.maximum, (0, 1), False),
    (np.minimum, -1, False), (np.logaddexp, 0, False), (np.add, (), False),
])
def test_reduce_equals_numpys_and_is_differentiable(ufunc, axis, keepdims):
    a = np.random.default_rng(0).uniform(0.5, 2.0, (3, 4))
    t = dyngrad.tensor(a, requires_grad=True)
    r = ufunc.reduce(t, axis=axis, keepdims=keepdims)
    np.testing.assert_allclose(r._data, ufunc.reduce(a, axis=axis, keepdims=keepdims), rtol=1e-12)
    assert dyngrad.autograd.gradcheck(lambda x: ufunc.reduce(x, axis=axis, keepdims=keepdims), (t,))


def test_reduce_with_initial_and_where_follows_numpy():
    a = np.arange(6.0).reshape(2, 3)
    m = np.array([True, False, True])
    t = dyngrad.tensor(a)
    np.testing.assert_allclose(np.add.reduce(t, axis=1, where=m)._data, np.add.reduce(a, axis=1, where=m))
    np.testing.assert_allclose(np.maximum.reduce(t, axis=1, initial=4.0)._data, np.maximum.reduce(a, axis=1, initial=4.0))
    with pytest.raises(ValueError, match="identity"):
        np.maximum.reduce(t, axis=1, where=m)
    assert np.logical_and.reduce(dyngrad.tensor([True, False]))._data.item() is False


def test_accumulate_outer_and_at_follow_numpy():
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    t = dyngrad.tensor(a, requires_grad=True)
    np.testing.assert_allclose(np.add.accumulate(t, axis=1)._data, np.add.accumulate(a, axis=1))
    np.testing.assert_allclose(np.multiply.accumulate(t)._data, np.multiply.accumulate(a))
    np.testing.assert_allclose(np.subtract.outer(t, t[0])._data, np.subtract.outer(a, a[0]))
    assert dyngrad.autograd.gradcheck(lambda x: np.multiply.outer(x, x), (t,))
    x = dyngrad.zeros(4, dtype=dyngrad.float64)
    v = dyngrad.tensor([1.0, 2.0, 3.0], dtype=dyngrad.float64, requires_grad=True)
    y = x.clone()
    assert np.add.at(y, [0, 0, 2], v) is None  # duplicates accumulate, as in NumPy
    ref = np.zeros(4)
    np.add.at(ref, [0, 0, 2], [1.0, 2.0, 3.0])
    np.testing.assert_allclose(y._data, ref)
    (y * dyngrad.tensor([1.0, 2.0, 3.0, 4.0], dtype=dyngrad.float64)).sum().backward()
    np.testing.assert_allclose(v.grad._data, [1.0, 1.0, 3.0])
    with pytest.raises(TypeError, match="multiply.at"):
        np.multiply.at(y, [0], 2.0)
    with pytest.raises(TypeError, match="reduceat"):
        np.add.reduceat(dyngrad.ones(4, requires_grad=True), [0, 2])


def test_an_uncovered_ufunc_runs_on_the_arrays_when_nothing_is_traced():
    r = np.heaviside(dyngrad.tensor([-1.0, 0.0, 2.0]), 0.5)
    assert type(r) is np.ndarray
    np.testing.assert_array_equal(r, [0.0, 0.5, 1.0])


def test_func_grad_hessian_and_vmap_go_through_numpy_ufuncs():
    def f(x):
        return np.sum(np.exp(-x) * np.sin(x) + np.logaddexp(x, 0.5)) if False else (np.exp(-x) * np.sin(x) + np.logaddexp(x, 0.5)).sum()

    x = np.array([0.3, -0.7, 1.2])
    g = grad(f)(x)
    assert type(g) is np.ndarray
    exact = np.exp(-x) * (np.cos(x) - np.sin(x)) + 1.0 / (1.0 + np.exp(0.5 - x))
    np.testing.assert_allclose(g, exact, rtol=1e-12)
    H = dyngrad.func.hessian(f)(x)
    np.testing.assert_allclose(np.diag(np.diag(H)), H, atol=1e-12)
    gb = vmap(grad(f))(np.stack([x, 2 * x]))
    np.testing.assert_allclose(gb[1], grad(f)(2 * x), rtol=1e-12)
    _, jv = dyngrad.func.jvp(f, (dyngrad.tensor(x),), (dyngrad.ones(3, dtype=dyngrad.float64),))
    np.testing.assert_allclose(jv._data, exact.sum(), rtol=1e-12)


@settings(max_examples=80, deadline=None)
@given(ufunc=st.sampled_from([u for u in _FLOAT if isinstance(UFUNCS[u].op, str) and UFUNCS[u].nout == 1]), data=st.data())
def test_a_ufunc_call_is_the_dyngrad_op_itself_value_and_graph(ufunc, data):
    arrays = _arrays(ufunc, data)
    ts = [dyngrad.tensor(a, requires_grad=True) for a in arrays]
    via_numpy = ufunc(*ts)
    direct = UFUNCS[ufunc].fn()(*ts)
    np.testing.assert_array_equal(via_numpy._data, direct._data)  # bit for bit
    assert type(via_numpy.grad_fn) is type(direct.grad_fn)
    if via_numpy.requires_grad:
        gn = dyngrad.autograd.grad(via_numpy.sum(), ts, allow_unused=True)
        gd = dyngrad.autograd.grad(direct.sum(), ts, allow_unused=True)
        for a, b in zip(gn, gd):
            assert (a is None) == (b is None)
            if a is not None:
                np.testing.assert_array_equal(a._data, b._data)
