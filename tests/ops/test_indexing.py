"""Indexing: ``x[idx]`` and ``x[idx] = v`` with every index form, PyTorch's placement of
advanced-index dims, gather/scatter family, masked ops, narrow/select. Table-driven (see
tests/ops/harness.py) plus views, versions, errors and a hypothesis test against NumPy."""

from __future__ import annotations

import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg
from tests.ops.harness import (
    OpSpec,
    case_params,
    load_golden,
    run_backward_vs_golden,
    run_dtype_check,
    run_forward_vs_golden,
    run_gradcheck,
    run_gradgradcheck,
)

GOLDEN = os.path.join(os.path.dirname(__file__), "..", "golden", "indexing.npz")


def S(name: str, f, **kw) -> OpSpec:
    """A spec whose op is written once for both libraries: ``f(module, *inputs)``."""
    kw.setdefault("int_result", "same")
    kw.setdefault("zero_dim", False)
    kw.setdefault("zero_size", False)
    kw.setdefault("shapes", ((3, 4, 5),))
    return OpSpec(name, lambda *a: f(dg, *a), lambda torch, *a: f(torch, *a), **kw)


def L(m, v):
    return m.tensor(v)


def _set(idx, value=None):
    """``y = x * 1; y[idx] = v`` (v: an input or a constant) for both libraries."""

    def f(m, x, *v):
        y = x * 1
        y[idx(m) if callable(idx) else idx] = v[0] if v else value
        return y

    return f


def _chained_set(m, x, w):
    y = x * 2
    y[0][1] = w[0] * 5  # y[0] is a view: the assignment rebases y's history
    return y


def _augmented_set(m, x, w):
    y = x * 1
    y[:, 0] += w[:2]  # getitem view, add_ on the view, setitem of the same values
    return y


def _inplace_on_transposed_view(m, x, w):
    y = x.sin() * 2
    y.t()[1:].mul_(w[1])
    return y


def _view_used_after_inplace(m, x, w):
    y = x * 1
    v = y[1]
    v.exp_()
    return y + v.sum()


def _copy_into_view_of_plain_buffer(m, x, w):
    buf = m.zeros(2, 3, dtype=x.dtype)
    buf[1].copy_(w)  # buf had no history; it gets one through its view
    return buf * x


def _strided_view_set(m, x, w):
    y = x * 1
    y.view(-1)[::2] = w
    return y


def _two_inplace_ops_on_view(m, x, w):
    y = x * 1
    v = y[0]
    v *= w
    v.sin_()
    return y * v


def _mask(m, shape, seed=0):
    return m.tensor(np.random.default_rng(seed).random(shape) > 0.5)


SPECS = [
    # ---- basic indexing (views)
    S("int", lambda m, x: x[1]),
    S("neg_int", lambda m, x: x[-1, -2]),
    S("int_0d_result", lambda m, x: x[1, 2, 3]),
    S("slices", lambda m, x: x[1:, ::2, -3:-1]),
    S("empty_slice", lambda m, x: x[1:1]),
    S("none_ellipsis", lambda m, x: x[None, ..., None, 1]),
    S("ellipsis_only", lambda m, x: x[...], zero_dim=True, zero_size=True),
    S("bool_true", lambda m, x: x[True]),
    S("bool_false", lambda m, x: x[False]),
    S("bool_in_tuple", lambda m, x: x[1, True]),
    # ---- advanced indexing (copies; repeated indices accumulate)
    S("list", lambda m, x: x[[2, 0, 2, 2]]),
    S("neg_tensor", lambda m, x: x[:, L(m, [-1, 0, -4])]),
    S("tensor_2d", lambda m, x: x[L(m, [[0, 1], [2, 0]])]),
    S("two_adjacent", lambda m, x: x[:, [0, 1, 1], [4, 0, 4]]),
    S("separated_by_slice", lambda m, x: x[[0, 1], :, [1, 2]]),
    S("int_then_slice_then_list", lambda m, x: x[0, :, [1, 2]]),  # NumPy: (2, 4); PyTorch: (4, 2)
    S("tensor0d_then_list", lambda m, x: x[L(m, 1), [0, 2]]),
    S("none_between", lambda m, x: x[:, [0, 1], None, [1, 2]]),
    S("ellipsis_list", lambda m, x: x[..., [3, 0, 3]]),
    S("broadcast_indices", lambda m, x: x[L(m, [[0], [2]]), :, L(m, [1, 4, 4])]),
    S("list_and_bool_scalar", lambda m, x: x[[0, 1], True]),
    S("bool_mask_full", lambda m, x: x[_mask(m, (3, 4, 5))]),
    S("bool_mask_leading", lambda m, x: x[_mask(m, (3, 4), 1)]),
    S("bool_mask_middle", lambda m, x: x[:, _mask(m, (4,), 2), 1:3]),
    S("empty_list", lambda m, x: x[L(m, np.zeros(0, dtype=np.int64))]),
    S("zero_size_input", lambda m, x: x[:, [0, 0]], shapes=((0, 3),)),
    S("scalar_input", lambda m, x: x[None, ..., None], shapes=((),)),
    # ---- __setitem__ (value broadcast, grads to the untouched part and to the value)
    S("set_int", _set(1), shapes=((3, 4), (4,))),
    S("set_slice_bcast", _set((slice(None), slice(1, 3))), shapes=((3, 4), (3, 1))),
    S("set_scalar_value", _set((0, slice(None)), 2.5), shapes=((3, 4),)),
    S("set_list", _set(([2, 0],)), shapes=((3, 4), (2, 4))),
    S("set_mixed", _set((0, slice(None), [1, 2])), shapes=((3, 4, 5), (4, 2))),
    S("set_separated", _set(([0, 1], slice(None), [1, 2])), shapes=((3, 4, 5), (2, 4))),
    S("set_mask", _set(lambda m: _mask(m, (3, 4), 3)), shapes=((3, 4), ())),
    S("set_ellipsis_none", _set((Ellipsis, None, 1)), shapes=((3, 4), (3, 1))),
    S("set_neg_tensor", _set(lambda m: (L(m, [-1, 0]), L(m, [-1, 1]))), shapes=((3, 4), (2,))),
    # ---- in-place ops on views while recording (the base's history is rebased)
    S("view_chained_set", _chained_set, shapes=((2, 3), (3,))),
    S("view_augmented_set", _augmented_set, shapes=((2, 3), (3,))),
    S("view_transposed_mul_", _inplace_on_transposed_view, shapes=((2, 3), (3,)), int_result=None),
    S("view_used_after_exp_", _view_used_after_inplace, shapes=((2, 3), (3,)), int_result=None),
    S("view_copy_into_buffer", _copy_into_view_of_plain_buffer, shapes=((2, 3), (3,))),
    S("view_strided_set", _strided_view_set, shapes=((2, 3), (3,))),
    S("view_two_inplace_ops", _two_inplace_ops_on_view, shapes=((2, 3), (3,)), int_result=None),
    # ---- named ops
    S("index_select", lambda m, x: x.index_select(1, L(m, [3, 0, 3])), zero_size=True),
    S("index_select_0d_index", lambda m, x: m.index_select(x, -1, L(m, 2))),
    S("gather", lambda m, x: x.gather(1, L(m, [[[0, 3], [3, 3]], [[1, 0], [2, 1]]]))),
    S("gather_dim0_dup", lambda m, x: m.gather(x, 0, L(m, [[1, 1, 0, 2], [0, 0, 0, 0]])), shapes=((3, 4),)),
    S("scatter_add", lambda m, x, s: x.scatter_add(1, L(m, [[0, 0, 2], [1, 1, 1]]), s), shapes=((2, 3), (2, 3))),
    S("scatter_src", lambda m, x, s: x.scatter(0, L(m, [[2, 0, 1]]), s), shapes=((3, 3), (1, 3))),
    S("scatter_value", lambda m, x: x.scatter(1, L(m, [[0], [2]]), -1.5), shapes=((2, 3),)),
    S("index_add", lambda m, x, s: x.index_add(1, L(m, [3, 0, 3]), s, alpha=2), shapes=((3, 4, 5), (3, 3, 5))),
    S("index_copy", lambda m, x, s: x.index_copy(0, L(m, [2, 0]), s), shapes=((3, 4), (2, 4))),
    S("index_fill", lambda m, x: x.index_fill(-1, L(m, [1, 4]), -3.0)),
    S("index_fill_tensor_value", lambda m, x, v: x.index_fill(0, L(m, [1]), v), shapes=((3, 4), ())),
    S("take", lambda m, x: m.take(x, L(m, [[0, -1], [7, 7]]))),
    S("take_along_dim", lambda m, x: m.take_along_dim(x, L(m, [[[0], [3]]]), 1)),
    S("take_along_dim_flat", lambda m, x: m.take_along_dim(x, L(m, [59, 0, 7, 7]))),
    S("take_along_dim_bcast", lambda m, x: m.take_along_dim(x, L(m, [[[1, 0]]]), -1), shapes=((2, 1, 3),)),
    S("masked_fill", lambda m, x: x.masked_fill(_mask(m, (4, 5), 4), 0.25), zero_size=False),
    S("masked_fill_bcast_mask", lambda m, x: x.masked_fill(_mask(m, (5,), 5), -2.0)),
    S("masked_fill_tensor_value", lambda m, x, v: x.masked_fill(_mask(m, (3, 4), 6), v), shapes=((3, 4), ())),
    S("masked_select", lambda m, x: x.masked_select(_mask(m, (4, 5), 7))),
    S("masked_select_bcast", lambda m, x: m.masked_select(x, _mask(m, (2, 3), 8)), shapes=((3,),)),
    S("masked_select_0d", lambda m, x: x.masked_select(L(m, True)), shapes=((),)),
    S("gather_0d", lambda m, x: x.gather(0, L(m, 0)), shapes=((),)),
    S("index_select_0d", lambda m, x: x.index_select(0, L(m, [0])), shapes=((),)),
    S("narrow", lambda m, x: x.narrow(-1, 1, 3), zero_size=True),
    S("select", lambda m, x: x.select(1, -1), zero_size=True),
    S("nonzero", lambda m, x: m.nonzero(x > 0), differentiable=False),
    S("nonzero_0d", lambda m, x: m.nonzero(x > -5), shapes=((),), differentiable=False),
    S("argwhere", lambda m, x: m.argwhere(x < 0), differentiable=False),
]
NAMES = {s.name: s for s in SPECS}
NON_FLOAT = {"nonzero", "nonzero_0d", "argwhere"}
# gradcheck cannot perturb zero-size inputs, and gradgradcheck cannot perturb zero-size
# outputs' gradients; their backward is covered by the golden backward test.
GRAD_SPECS = [s for s in SPECS if s.differentiable and s.name not in {"zero_size_input"}]
GRADGRAD_SPECS = [s for s in GRAD_SPECS if s.name not in {"empty_slice", "bool_false", "empty_list"}]
DTYPE_SPECS = [s for s in SPECS if s.name not in NON_FLOAT]


@pytest.fixture(scope="module")
def golden():
    if not os.path.exists(GOLDEN):
        pytest.skip("golden file missing: run tests/golden/gen_indexing.py")
    return load_golden(GOLDEN)


@pytest.mark.parametrize("spec,case", case_params(SPECS))
def test_forward_matches_torch(spec, case, golden):
    run_forward_vs_golden(spec, golden, case)


@pytest.mark.parametrize("spec,case", case_params(SPECS))
def test_backward_matches_torch(spec, case, golden):
    run_backward_vs_golden(spec, golden, case)


@pytest.mark.parametrize("spec", GRAD_SPECS, ids=[s.name for s in GRAD_SPECS])
def test_gradcheck(spec):
    run_gradcheck(spec)


@pytest.mark.parametrize("spec", GRADGRAD_SPECS, ids=[s.name for s in GRADGRAD_SPECS])
def test_gradgradcheck(spec):
    run_gradgradcheck(spec)


@pytest.mark.parametrize("spec", DTYPE_SPECS, ids=[s.name for s in DTYPE_SPECS])
def test_dtype_preserved_including_int(spec):
    run_dtype_check(spec)


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
    assert np.shares_memory(v.data, x.data) and not np.shares_memory(c.data, x.data)
    x.add_(1)
    assert v._version == 1 and c._version == 0
    assert x[1, 2]._version == 1  # 0-d results are views too
    assert np.shares_memory(x[1, 2].data, x.data)


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
    assert np.shares_memory(y.data, x.data) or y.data.size == 0
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
