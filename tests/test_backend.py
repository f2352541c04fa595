"""_backend: dtypes, promotion, sum_to_size, broadcasting helpers, array coercion."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad
from dyngrad import _backend as B


def test_dtype_names_aliases_and_equality():
    assert dyngrad.float is dyngrad.float32 and dyngrad.double is dyngrad.float64
    assert dyngrad.half is dyngrad.float16 and dyngrad.long is dyngrad.int64
    assert dyngrad.int is dyngrad.int32 and dyngrad.bool.name == "bool"
    assert dyngrad.float32 == np.float32 and dyngrad.float32 == "float32"
    assert dyngrad.float32 != dyngrad.float64
    assert repr(dyngrad.float64) == "dyngrad.float64"
    assert dyngrad.float32.is_floating_point and not dyngrad.int64.is_floating_point
    assert dyngrad.float16.itemsize == 2
    assert len({dyngrad.float32, dyngrad.float32, dyngrad.int64}) == 2


def test_to_np_dtype_accepts_every_form_and_rejects_others():
    assert B.to_np_dtype(dyngrad.int16) == np.int16
    assert B.to_np_dtype(float) == np.float64 and B.to_np_dtype(int) == np.int64
    assert B.to_np_dtype(bool) == np.bool_ and B.to_np_dtype("float32") == np.float32
    with pytest.raises(TypeError):
        B.to_np_dtype(np.complex64)
    with pytest.raises(TypeError):
        B.from_np_dtype(np.dtype("U3"))


def test_result_type_priorities():
    f32 = dyngrad.ones(2)
    i64 = dyngrad.ones(2, dtype=dyngrad.int64)
    assert B.result_type(f32, 2.5) == np.float32
    assert B.result_type(i64, 2.5) == np.float32
    assert B.result_type(i64, 2) == np.int64
    assert B.result_type(dyngrad.ones(2, dtype=dyngrad.uint8), 300) == np.uint8
    assert B.result_type(i64, dyngrad.tensor(1.0, dtype=dyngrad.float64)) == np.float64
    assert B.result_type(f32, dyngrad.tensor(1.0, dtype=dyngrad.float64)) == np.float32
    assert B.result_type(True, dyngrad.ones(1, dtype=dyngrad.bool)) == np.bool_
    assert B.result_type(dyngrad.ones(1, dtype=dyngrad.int32), dyngrad.ones(1, dtype=dyngrad.float16)) == np.float16
    with pytest.raises(TypeError, match="str"):
        B.result_type(f32, "x")


def test_promote_types_keeps_the_floating_dtype_like_pytorch():
    assert B.promote_types(dyngrad.int64, dyngrad.float32) == np.float32
    assert B.promote_types(dyngrad.uint8, dyngrad.int8) == np.int16
    assert B.promote_types(dyngrad.bool, dyngrad.float16) == np.float16
    assert B.promote_types(dyngrad.float16, dyngrad.float64) == np.float64


def test_sum_to_size_examples():
    g = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_allclose(B.sum_to_size(g, (4,)), g.sum(axis=(0, 1)))
    np.testing.assert_allclose(B.sum_to_size(g, (3, 1)), g.sum(axis=(0, 2)).reshape(3, 1))
    np.testing.assert_allclose(B.sum_to_size(g, ()), g.sum())
    assert B.sum_to_size(g, (2, 3, 4)) is g
    with pytest.raises(ValueError, match="cannot be broadcast"):
        B.sum_to_size(g, (5,))
    with pytest.raises(ValueError, match="cannot be broadcast"):
        B.sum_to_size(np.ones(3), (2, 3))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=0, max_size=4), st.data())
def test_sum_to_size_inverts_broadcasting(shape, data):
    shape = tuple(shape)
    lead = tuple(data.draw(st.lists(st.integers(1, 3), max_size=2)))
    small = tuple(1 if data.draw(st.booleans()) else s for s in shape)
    big = lead + shape
    g = np.random.default_rng(0).standard_normal(big)
    out = B.sum_to_size(g, small)
    assert out.shape == small
    # <broadcast(x), g> == <x, sum_to_size(g)> for any x: the adjoint identity
    x = np.random.default_rng(1).standard_normal(small)
    assert np.isclose((np.broadcast_to(x, big) * g).sum(), (x * out).sum())
    assert B.is_broadcastable_to(small, big)


def test_is_broadcastable_to_and_broadcast_shapes():
    assert B.is_broadcastable_to((3, 1), (2, 3, 4))
    assert not B.is_broadcastable_to((2, 3, 4), (3, 4))
    assert not B.is_broadcastable_to((2,), (3,))
    assert B.broadcast_shapes((3, 1), (4,)) == (3, 4)
    with pytest.raises(RuntimeError, match=r"\[2\], \[3\]"):
        B.broadcast_shapes((2,), (3,))


def test_asarray_inference():
    assert B.asarray([1.0]).dtype == np.float32
    assert B.asarray([1]).dtype == np.int64
    assert B.asarray(np.array([1], dtype=np.int32)).dtype == np.int32
    assert B.asarray(np.array([1], dtype=np.uint16)).dtype == np.int64
    assert B.asarray(np.array([1.0], dtype=np.longdouble)).dtype == np.float64
    arr = np.ones(2)
    assert B.asarray(arr) is arr
    with pytest.raises(TypeError):
        B.asarray(["a"])


def test_result_type_of_numpy_scalars_and_arrays():
    f32 = dyngrad.ones(2)
    assert B.result_type(f32, np.float64(1.0)) == np.float32
    assert B.result_type(dyngrad.ones(2, dtype=dyngrad.int32), np.int64(1)) == np.int32
    assert B.result_type(dyngrad.ones(2, dtype=dyngrad.int64), np.float32(1.0)) == np.float32
    assert B.result_type(f32, np.ones(2)) == np.float64  # an ndarray is a dimensioned operand
    with pytest.raises(TypeError, match="complex"):
        B.result_type(f32, np.complex64(1))
