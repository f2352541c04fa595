"""Indexing: ``x[idx]`` and ``x[idx] = v`` with every index form, PyTorch's placement of
advanced-index dims, gather/scatter family, masked ops, narrow/select. Table-driven (see
tests/ops/harness.py) plus views, versions, errors and a hypothesis test against NumPy."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg


# ----------------------------------------------------------------------------- semantics
def _x(*shape, dtype=dg.float64, requires_grad=False):
    return dg.arange(int(np.prod(shape)), dtype=dtype).reshape(*shape).requires_grad_(requires_grad)


def test_int_with_advanced_index_follows_pytorch_not_numpy():
    a = np.arange(60).reshape(3, 4, 5)
    x = dg.tensor(a)
    assert a[0, :, [1, 2]].shape == (2, 4)  # NumPy moves the advanced dims first
    assert x[0, :, [1, 2]].shape == (4, 2)  # PyTorch applies the int first
    np.testing.assert_array_equal(x[0, :, [1, 2]].numpy(), a[0][:, [1, 2]])
    assert x[[0, 1], :, [1, 2]].shape == a[[0, 1], :, [1, 2]].shape == (2, 4)


def test_repeated_indices_accumulate_in_backward():
    x = _x(4, requires_grad=True)
    x[[0, 0, 3, 0, -1]].sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [3, 0, 0, 2])


def test_basic_index_is_a_view_and_advanced_index_a_copy():
    x = _x(3, 4)
    v, c = x[1, 1:], x[[1]]
    assert np.shares_memory(v._data, x._data) and not np.shares_memory(c._data, x._data)
    x.add_(1)
    assert v._version == 1 and c._version == 0
    assert x[1, 2]._version == 1  # 0-d results are views too
    assert np.shares_memory(x[1, 2]._data, x._data)


def test_setitem_bumps_version_of_tensor_and_its_views():
    x = _x(3, 4)
    v = x[0]
    x[1, [0, 2]] = 7.0
    assert x._version == v._version == 1
    v[...] = 0.0
    assert x._version == 2
    assert x[0].sum().item() == 0.0 and x[1, 2].item() == 7.0


def test_setitem_on_leaf_requiring_grad_refuses():
    x = _x(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x[0] = 1.0
    with dg.no_grad():
        x[0] = 1.0  # allowed without recording
    assert x[0, 0].item() == 1.0 and x._version == 1


def test_setitem_gradient_flows_to_untouched_part_and_value():
    x = _x(3, 4, requires_grad=True)
    v = dg.ones(4, dtype=dg.float64, requires_grad=True)
    y = x * 2
    y[[0, 2]] = v * 3  # v broadcast to (2, 4)
    (y * _x(3, 4)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0] * 4, [8, 10, 12, 14], [0] * 4])
    np.testing.assert_array_equal(v.grad.numpy(), 3 * (np.arange(4) + np.arange(8, 12)))


def test_inplace_on_view_of_leaf_requiring_grad_refuses():
    x = _x(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        x[0].add_(1)
    with pytest.raises(RuntimeError, match="view of a leaf Variable that requires grad"):
        x[0][1] = 2.0
    assert x._version == 0


def test_inplace_on_view_of_saved_output_fails_at_backward_as_in_torch():
    x = _x(2, 3, requires_grad=True)
    y = x.exp()  # exp saves its output
    y.t()[1:].mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation|version"):
        y.sum().backward()


def test_inplace_on_view_rebases_base_history_and_bumps_versions():
    x = _x(2, 3, requires_grad=True)
    y = x * 1
    v = y[0]
    v.mul_(3)
    assert y._version == v._version == 1
    assert type(y.grad_fn).__name__ != "MulBackward0"  # y's history now includes the write
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3, 3, 3], [1, 1, 1]])


def test_setitem_while_recording_invalidates_saved_tensors():
    x = _x(3, requires_grad=True)
    y = x * 1
    z = y * y  # saves y
    y[0] = 5.0
    with pytest.raises(RuntimeError, match="modified by an inplace operation|version"):
        z.sum().backward()


def test_setitem_value_is_cast_to_tensor_dtype():
    x = dg.zeros(3, dtype=dg.int64)
    x[1] = dg.tensor(2.7, dtype=dg.float64)
    assert x.dtype == dg.int64 and x.tolist() == [0, 2, 0]


def test_scatter_and_scatter_add_in_place_forms():
    x = dg.zeros(2, 3)
    x.scatter_(1, dg.tensor([[2], [0]]), 1.0)
    x.scatter_add_(1, dg.tensor([[2, 2]]), dg.ones(1, 2))
    np.testing.assert_array_equal(x.numpy(), [[0, 0, 3], [1, 0, 0]])
    assert x._version == 2


def test_scatter_src_larger_than_index_gets_zero_grad_outside_index():
    # PyTorch allows src larger than index in forward but its backward then fails; dyngrad
    # zero-pads grad_src to src's shape.
    x = dg.zeros(2, 3, dtype=dg.float64, requires_grad=True)
    src = dg.tensor(np.arange(8.0).reshape(2, 4), requires_grad=True)
    idx = dg.tensor([[0, 0, 2]])
    out = x.scatter_add(1, idx, src)
    np.testing.assert_array_equal(out.numpy(force=True), [[1, 0, 2], [0, 0, 0]])
    out.sum().backward()
    np.testing.assert_array_equal(src.grad.numpy(), [[1, 1, 1, 0], [0, 0, 0, 0]])
    perm = dg.tensor([[2, 0, 1]])  # scatter's gradient needs indices without repeats
    assert dg.autograd.gradcheck(lambda a, b: a.scatter(1, perm, b), (x, src))
    assert dg.autograd.gradgradcheck(lambda a, b: a.scatter_add(1, idx, b) ** 2, (x, src))


def test_masked_fill_in_place_bumps_version():
    x = _x(2, 2)
    x.masked_fill_(dg.tensor([True, False]), -1.0)
    np.testing.assert_array_equal(x.numpy(), [[-1, 1], [-1, 3]])
    assert x._version == 1


# ----------------------------------------------------------------------------- errors
ERRORS = [
    (lambda x: x[3], IndexError, "index 3 is out of bounds for dimension 0 with size 3"),
    (lambda x: x[:, -5], IndexError, "index -5 is out of bounds for dimension 1 with size 4"),
    (lambda x: x[:, [0, 4]], IndexError, "index 4 is out of bounds for dimension 1 with size 4"),
    (lambda x: x[dg.tensor([-4])], IndexError, "dimension 0 with size 3"),
    (lambda x: x[1.0], IndexError, "only integers, slices"),
    (lambda x: x[dg.tensor([1.0])], IndexError, "must be long, int, byte or bool"),
    (lambda x: x[[0.5]], IndexError, "must be long, int, byte or bool"),
    (lambda x: x["a"], IndexError, "only integers, slices"),
    (lambda x: x[0, 0, 0], IndexError, "too many indices for tensor of dimension 2"),
    (lambda x: x[..., ...], IndexError, "single ellipsis"),
    (lambda x: x[dg.tensor([True, False])], IndexError, "The shape of the mask [2] at index 0 does not match"),
    (lambda x: x[::-1], ValueError, "step must be greater than zero"),
    (lambda x: x[[0, 1], [0, 1, 2]], IndexError, "could not be broadcast together with shapes [2], [3]"),
    (lambda x: x.__setitem__(0, dg.ones(3)), RuntimeError, "index assignment"),
    (lambda x: x.index_select(0, dg.tensor([0.0])), RuntimeError, "Expected dtype int32 or int64"),
    (lambda x: x.index_select(0, dg.tensor([[0]])), IndexError, "Index is supposed to be a vector"),
    (lambda x: x.index_select(0, dg.tensor([3])), IndexError, "index out of range"),
    (lambda x: x.gather(1, dg.tensor([0])), RuntimeError, "same number of dimensions"),
    (lambda x: x.gather(1, dg.tensor([[4]])), RuntimeError, "index 4 is out of bounds for dimension 1 with size 4"),
    (lambda x: x.gather(1, dg.tensor([[0.0]])), RuntimeError, "Expected dtype int32/int64"),
    (lambda x: x.gather(1, dg.zeros(4, 1, dtype=dg.int64)), RuntimeError, "Size does not match at dimension 0"),
    (lambda x: x.gather(2, dg.tensor([[0]])), IndexError, "Dimension out of range"),
    (lambda x: x.scatter(1, dg.tensor([[0]]), dg.ones(1, 1, dtype=dg.float32)), RuntimeError, "self.dtype to be equal to src.dtype"),
    (lambda x: x.scatter_add(1, dg.tensor([[0, 1]]), dg.ones(1, 1, dtype=dg.float64)), RuntimeError, "no larger size than src"),
    (lambda x: x.scatter(1, dg.tensor([[0]])), TypeError, "'src' or 'value'"),
    (lambda x: x.masked_fill(dg.ones(3, 4, dtype=dg.int64), 0.0), RuntimeError, "only supports boolean masks"),
    (lambda x: x.masked_fill(dg.ones(4, dtype=dg.bool), dg.ones(2)), RuntimeError, "0-dimensional value tensor"),
    (lambda x: x.masked_select(dg.ones(4, dtype=dg.int64)), RuntimeError, "expected BoolTensor for mask"),
    (lambda x: x.masked_select(dg.ones(2, dtype=dg.bool)), RuntimeError, "do not broadcast"),
    (lambda x: dg.take_along_dim(x, dg.tensor([[0], [1]]), 1), RuntimeError, "do not broadcast"),
    (lambda x: dg.take_along_dim(x, dg.tensor([0]), 1), RuntimeError, "same number of dimensions"),
    (lambda x: x.narrow(0, 2, 2), RuntimeError, "start (2) + length (2) exceeds dimension size (3)"),
    (lambda x: x.select(0, 3), IndexError, "index 3 out of range for tensor of size [3, 4] at dimension 0"),
    (lambda x: x.select(2, 0), IndexError, "Dimension out of range"),
]


@pytest.mark.parametrize("fn,exc,words", ERRORS, ids=[f"{i}-{e[1].__name__}" for i, e in enumerate(ERRORS)])
def test_misuse_raises_pytorch_type_with_clear_message(fn, exc, words):
    x = _x(3, 4)
    before = x.numpy().copy()
    with pytest.raises(exc) as info:
        fn(x)
    assert words in str(info.value)
    np.testing.assert_array_equal(x.numpy(), before)  # nothing written half-way
    assert x._version == 0


# ----------------------------------------------------------------------------- properties
def _slice(n):
    return st.builds(
        slice,
        st.none() | st.integers(-n - 1, n + 1),
        st.none() | st.integers(-n - 1, n + 1),
        st.none() | st.integers(1, 3),
    )


@st.composite
def basic_index(draw, shape):
    """Index items for the first ``j`` dims, then (with an Ellipsis) for the last ``k - j``."""
    k = draw(st.integers(0, len(shape)))
    ell = draw(st.booleans())
    j = draw(st.integers(0, k)) if ell else k

    def items_for(dims):
        out = []
        for n in dims:
            if draw(st.booleans()):
                out.append(None)  # a new dim; consumes no input dim
            out.append(draw(st.one_of(_slice(n), st.integers(-n, n - 1))))
        return out

    head = items_for(shape[:j])
    tail = items_for(shape[len(shape) - (k - j) :] if k > j else ())
    return tuple(head + ([Ellipsis] if ell else []) + tail)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_getitem_with_random_basic_index_matches_numpy_values_and_grad(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    idx = data.draw(basic_index(shape))
    x = dg.tensor(a, requires_grad=True)
    y = x[idx]
    np.testing.assert_array_equal(y.numpy(force=True), a[idx])
    assert np.shares_memory(y._data, x._data) or y._data.size == 0
    y.sum().backward()
    want = np.zeros_like(a)
    want[idx] += 1
    np.testing.assert_array_equal(x.grad.numpy(), want)


@settings(max_examples=40, deadline=None)
@given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple), data=st.data())
def test_getitem_with_random_int_arrays_accumulates_like_numpy_add_at(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    k = data.draw(st.integers(1, len(shape)))
    n = data.draw(st.integers(0, 5))
    idx = tuple(
        np.array(data.draw(st.lists(st.integers(-s, s - 1), min_size=n, max_size=n)), dtype=np.int64)
        for s in shape[:k]
    )
    x = dg.tensor(a, requires_grad=True)
    y = x[tuple(dg.tensor(i) for i in idx)]
    np.testing.assert_array_equal(y.numpy(force=True), a[idx])
    y.sum().backward()
    want = np.zeros_like(a)
    np.add.at(want, idx, 1)
    np.testing.assert_array_equal(x.grad.numpy(), want)


def test_indexing_with_a_python_range_works_as_in_pytorchs_nn_tutorial():
    dyngrad = dg
    x = dyngrad.tensor(np.arange(12.0).reshape(4, 3), requires_grad=True)
    y = dyngrad.tensor([0, 2, 1, 1])
    v = x[range(4), y]
    np.testing.assert_array_equal(v.detach().numpy(), [0.0, 5.0, 7.0, 10.0])
    v.sum().backward()
    assert x.grad.numpy().sum() == 4.0
    assert x[range(0)].shape == (0, 3)
