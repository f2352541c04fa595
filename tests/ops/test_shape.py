"""Shape ops: reshape/view family, transposes, expand, repeat/tile, flip/roll, cat/stack,
split/chunk/unbind, pad. Table-driven (see tests/ops/harness.py) plus views, dtypes,
errors and hypothesis round trips."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import dyngrad as dg


# ----------------------------------------------------------------------------- views
def _x(*shape, dtype=dg.float32):
    return dg.arange(int(np.prod(shape)), dtype=dtype).reshape(*shape)


@pytest.mark.parametrize(
    "make_view",
    [
        lambda x: x.reshape(4, 3), lambda x: x.view(-1), lambda x: x.t(), lambda x: x.T,
        lambda x: x.transpose(0, 1), lambda x: x.permute(1, 0), lambda x: x.unsqueeze(0),
        lambda x: x[None].squeeze(0), lambda x: x.flatten(), lambda x: x.unflatten(1, (2, 2)),
        lambda x: x.movedim(0, 1), lambda x: x.expand(2, 3, 4), lambda x: x.narrow(1, 1, 2),
        lambda x: x.select(0, 1), lambda x: x.split(2, 1)[1], lambda x: x.chunk(2)[0],
        lambda x: x.unbind(1)[2], lambda x: x[1:, ::2], lambda x: x[...], lambda x: x[0, 0],
    ],
)
def test_view_shares_memory_and_version_counter(make_view):
    x = _x(3, 4)
    v = make_view(x)
    assert np.shares_memory(v._data, x._data)
    before = v._version
    x.add_(1)
    assert v._version == before + 1
    assert np.all(np.isin(v.numpy(), x.numpy()))  # sees the new values


@pytest.mark.parametrize(
    "make_copy",
    [lambda x: x.repeat(1, 1), lambda x: x.flip(0), lambda x: x.roll(1), lambda x: dg.cat([x, x]),
     lambda x: dg.stack([x]), lambda x: dg.pad(x, (1, 1)), lambda x: x.clone()],
)
def test_copying_ops_do_not_share_memory(make_copy):
    x = _x(3, 4)
    y = make_copy(x)
    assert not np.shares_memory(y._data, x._data)
    x.add_(1)
    assert y._version == 0


def test_writing_through_a_view_changes_the_base_and_bumps_both_versions():
    x = _x(2, 3)
    v = x.t()
    v[0, 1] = 100.0
    assert x[1, 0].item() == 100.0
    assert x._version == v._version == 1


def test_expanded_view_refuses_in_place_writes():
    x = _x(1, 3).expand(2, 3)
    with pytest.raises(RuntimeError, match="read-only"):
        x[0, 0] = 1.0


@pytest.mark.parametrize("dtype", [dg.int64, dg.int32, dg.bool, dg.float64])
def test_shape_ops_keep_every_dtype(dtype):
    x = dg.tensor(np.arange(6).reshape(2, 3) % 2, dtype=dtype)
    outs = [x.reshape(3, 2), x.t(), x.flip(0), x.roll(1, 1), x.repeat(2, 1), dg.cat([x, x]),
            dg.stack([x, x]), x.split(1)[0], x.unsqueeze(0), x.expand(2, 2, 3), x.movedim(0, 1),
            dg.pad(x, (1, 1)) if dtype != dg.bool else x, x.unflatten(1, (3, 1)), x.tile((2,))]
    for o in outs:
        assert o.dtype == dtype


@pytest.mark.parametrize(
    "fn,exc,words",
    [
        (lambda x: dg.cat([x, x]), RuntimeError, "zero-dimensional tensor (at position 0) cannot be concatenated"),
        (lambda x: x.roll(1, 0), IndexError, "Dimension specified as 0 but tensor has no dimensions"),
        (lambda x: x.unflatten(0, (1,)), RuntimeError, "tensor has no dimensions"),
        (lambda x: x.split(1), RuntimeError, "at least a 1-dimensional tensor"),
        (lambda x: x.narrow(0, 0, 1), RuntimeError, "0-dim"),
        (lambda x: x.squeeze(1), IndexError, "Dimension out of range"),
    ],
)
def test_zero_dim_misuse_raises(fn, exc, words):
    with pytest.raises(exc) as info:
        fn(dg.tensor(1.0))
    assert words in str(info.value)


def test_zero_dim_shape_ops_match_torch_shapes():
    x = dg.tensor(2.0)
    assert x.flip(0).shape == x.movedim(0, 0).shape == x.t().shape == x.expand(()).shape == ()
    assert x.unsqueeze(-1).shape == (1,) and x.repeat(2, 1).shape == (2, 1)
    assert dg.stack([x, x]).shape == (2,) and dg.hstack([x, x]).shape == (2,)
    assert dg.vstack([x, x]).shape == (2, 1) and x.flatten().shape == (1,)


NODE_NAMES = [  # PyTorch 2.13's grad_fn names for the same calls
    (lambda x: x.squeeze(), "SqueezeBackward0"), (lambda x: x.squeeze(1), "SqueezeBackward1"),
    (lambda x: x.squeeze((0, 1)), "SqueezeBackward2"), (lambda x: x.unsqueeze(0), "UnsqueezeBackward0"),
    (lambda x: x[:, 0].t(), "TBackward0"), (lambda x: x.transpose(0, 2), "TransposeBackward0"),
    (lambda x: x.mT, "TransposeBackward0"), (lambda x: x.movedim(0, 2), "PermuteBackward0"),
    (lambda x: x[0], "SelectBackward0"), (lambda x: x[1:], "SliceBackward0"), (lambda x: x[0, :], "SelectBackward0"),
    (lambda x: x.narrow(2, 0, 1), "SliceBackward0"), (lambda x: x.select(2, 1), "SelectBackward0"),
    (lambda x: x[...], "AliasBackward0"), (lambda x: x[None], "UnsqueezeBackward0"), (lambda x: x[[0]], "IndexBackward0"),
    (lambda x: dg.stack([x, x]), "StackBackward0"), (lambda x: dg.hstack([x, x]), "CatBackward0"),
    (lambda x: x.split(1, 2)[0], "SplitBackward0"), (lambda x: x.chunk(2, 2)[0], "SplitBackward0"),
    (lambda x: x.split([1, 2], 2)[0], "SplitWithSizesBackward0"), (lambda x: x.unbind(2)[0], "UnbindBackward0"),
    (lambda x: x.reshape(6), "ViewBackward0"), (lambda x: x.flatten(), "ViewBackward0"),
    (lambda x: x.unflatten(2, (3, 1)), "ViewBackward0"), (lambda x: x.expand(2, 2, 1, 3), "ExpandBackward0"),
    (lambda x: x.repeat(1, 2, 1), "RepeatBackward0"), (lambda x: x.flip(0), "FlipBackward0"),
    (lambda x: x.roll(1), "RollBackward0"), (lambda x: dg.pad(x, (1, 1)), "ConstantPadNdBackward0"),
    (lambda x: dg.pad(x, (1, 1), mode="reflect"), "ReflectionPad1DBackward0"),
    (lambda x: dg.pad(x[None], (1, 1, 0, 1), mode="replicate"), "ReplicationPad2DBackward0"),
    (lambda x: x.index_select(0, dg.tensor([0])), "IndexSelectBackward0"),
    (lambda x: x.gather(2, dg.tensor([[[0]]])), "GatherBackward0"),
    (lambda x: dg.take_along_dim(x, dg.tensor([[[0]]]), 2), "GatherBackward0"),
]


@pytest.mark.parametrize("fn,name", NODE_NAMES, ids=[n for _, n in NODE_NAMES])
def test_grad_fn_is_named_as_in_pytorch(fn, name):
    x = dg.ones(2, 1, 3, requires_grad=True)
    assert type(fn(x).grad_fn).__name__ == name


def test_nn_functional_pad_uses_the_op_library_pad():
    x = dg.tensor(np.arange(12.0).reshape(1, 3, 4), requires_grad=True)
    for mode in ("constant", "reflect", "replicate", "circular"):
        a = dg.nn.functional.pad(x, (2, 1), mode=mode)
        np.testing.assert_array_equal(a.numpy(force=True), dg.pad(x, (2, 1), mode=mode).numpy(force=True))
        assert a.shape == (1, 3, 7)


def test_cat_and_stack_promote_mixed_dtypes_and_cast_grads_back():
    a = dg.ones(2, dtype=dg.float32, requires_grad=True)
    b = dg.tensor([1, 2])
    c = dg.ones(2, dtype=dg.float64, requires_grad=True)
    assert dg.cat([a, b]).dtype == dg.float32 and dg.stack([b, a]).dtype == dg.float32
    out = dg.cat([a, c])
    assert out.dtype == dg.float64
    out.sum().backward()
    assert a.grad.dtype == dg.float32 and c.grad.dtype == dg.float64


def test_unbind_and_split_grad_fill_zeros_for_unused_pieces():
    x = dg.ones(4, 2, dtype=dg.float64, requires_grad=True)
    a, b = x.split(2)
    (b * 3).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[0, 0], [0, 0], [3, 3], [3, 3]])


def test_split_grad_fn_is_one_node():
    x = dg.ones(4, 2, requires_grad=True)
    a, b = x.split(2)
    assert a.grad_fn is b.grad_fn and type(a.grad_fn).__name__ == "SplitBackward0"


# ----------------------------------------------------------------------------- errors
ERRORS = [
    (lambda x: x.reshape(5), RuntimeError, "invalid for input of size 12"),
    (lambda x: x.reshape(-1, -1), RuntimeError, "only one dimension can be inferred"),
    (lambda x: x.view(5, -1), RuntimeError, "invalid"),
    (lambda x: x.permute(0, 0), RuntimeError, "duplicate"),
    (lambda x: x.permute(0), RuntimeError, "number of dimensions"),
    (lambda x: x.transpose(0, 2), IndexError, "Dimension out of range"),
    (lambda x: x.squeeze(3), IndexError, "Dimension out of range"),
    (lambda x: x.unsqueeze(3), IndexError, "Dimension out of range"),
    (lambda x: x.flatten(1, 0), RuntimeError, "start_dim cannot come after end_dim"),
    (lambda x: x.unflatten(1, (3, 2)), RuntimeError, "don't multiply up to the size of dim 1"),
    (lambda x: x.unflatten(1, ()), RuntimeError, "sizes must be non-empty"),
    (lambda x: x.unflatten(1, (-1, -1)), RuntimeError, "only one dimension can be inferred"),
    (lambda x: x.movedim((0, 1), (0, 0)), RuntimeError, "repeated dim in `destination`"),
    (lambda x: x.movedim((0, 1), 0), RuntimeError, "same number of dims"),
    (lambda x: x.expand(3, 3), RuntimeError, "must match the existing size"),
    (lambda x: x.expand(4), RuntimeError, "number of sizes provided"),
    (lambda x: x.repeat(2), RuntimeError, "can not be smaller than number of dimensions"),
    (lambda x: x.flip(0, 0), RuntimeError, "appears multiple times"),
    (lambda x: x.flip(2), IndexError, "Dimension out of range"),
    (lambda x: x.roll(1, (0, 1)), RuntimeError, "shifts and dimensions must align"),
    (lambda x: dg.cat([x, x.t()]), RuntimeError, "Sizes of tensors must match except in dimension 0"),
    (lambda x: dg.cat(x), TypeError, "tuple or list of Tensors"),
    (lambda x: dg.cat([]), RuntimeError, "non-empty"),
    (lambda x: dg.stack([x, x[:2]]), RuntimeError, "stack expects each tensor to be equal size"),
    (lambda x: x.split([1, 1]), RuntimeError, "split_sizes to sum exactly to 3"),
    (lambda x: x.split(0), RuntimeError, "split_size can only be 0"),
    (lambda x: x.chunk(0), RuntimeError, "greater than 0"),
    (lambda x: x.narrow(1, 3, 2), RuntimeError, "exceeds dimension size"),
    (lambda x: x.narrow(1, 9, 0), IndexError, "start out of range"),
    (lambda x: x.select(1, 4), IndexError, "out of range for tensor of size [3, 4] at dimension 1"),
    (lambda x: x.view(dg.float64), TypeError, "not supported"),
    (lambda x: dg.pad(x, (1,)), RuntimeError, "divisible by 2"),
    (lambda x: dg.pad(x, (1,) * 6), RuntimeError, "Padding length should be less than or equal"),
    (lambda x: dg.pad(x, (4, 0), mode="reflect"), RuntimeError, "Padding size should be less than"),
    (lambda x: dg.pad(x, (5, 0), mode="circular"), RuntimeError, "wrapping around more than once"),
    (lambda x: dg.pad(x, (1, 1), mode="foo"), NotImplementedError, "Unrecognised padding mode foo"),
    (lambda x: dg.pad(x, (1, 1), mode="reflect", value=2), RuntimeError, "doesn't take in value"),
    (lambda x: dg.pad(x[0], (1, 1), mode="reflect"), NotImplementedError, "not supported for 1D"),
    (lambda x: dg.pad(x, (-5, 0)), RuntimeError, "negative"),
]


@pytest.mark.parametrize("fn,exc,words", ERRORS, ids=[f"{e[1].__name__}-{e[2][:30]}" for e in ERRORS])
def test_misuse_raises_pytorch_type_with_clear_message(fn, exc, words):
    with pytest.raises(exc) as info:
        fn(_x(3, 4))
    assert words in str(info.value)


# ----------------------------------------------------------------------------- properties
shapes = st.lists(st.integers(1, 4), min_size=1, max_size=4).map(tuple)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, data=st.data())
def test_reshape_permute_roundtrip_restores_values_and_grad(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    x = dg.tensor(a, requires_grad=True)
    perm = data.draw(st.permutations(range(len(shape))))
    y = x.permute(*perm)
    np.testing.assert_array_equal(y.numpy(force=True), a.transpose(perm))
    back = y.permute(*np.argsort(perm).tolist()).reshape(-1).reshape(shape)
    np.testing.assert_array_equal(back.numpy(force=True), a)
    (back * dg.tensor(a)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), a)


@settings(max_examples=25, deadline=None)
@given(shape=shapes, data=st.data())
def test_split_then_cat_is_identity(shape, data):
    a = np.random.default_rng(0).standard_normal(shape)
    dim = data.draw(st.integers(-len(shape), len(shape) - 1))
    n = shape[dim]
    cuts = sorted(data.draw(st.lists(st.integers(0, n), max_size=3)))
    sizes = [b - a_ for a_, b in zip([0] + cuts, cuts + [n])]
    x = dg.tensor(a)
    parts = x.split(sizes, dim)
    assert [p.shape[dim] for p in parts] == sizes
    np.testing.assert_array_equal(dg.cat(parts, dim).numpy(), a)
    k = data.draw(st.integers(1, 4))
    np.testing.assert_array_equal(dg.cat(x.split(k, dim), dim).numpy(), a)
    size = -(-n // k)  # torch.chunk: pieces of ceil(n / k), the last one smaller
    want = np.split(a, list(range(size, n, size)), axis=dim)
    got = x.chunk(k, dim)
    assert len(got) == len(want) <= k
    for p, q in zip(got, want):
        np.testing.assert_array_equal(p.numpy(), q)


def test_unbind_of_a_1d_tensor_returns_views_sharing_memory_and_version():
    y = dg.arange(1.0, 5.0)
    pieces = y.unbind(0)
    pieces[0].mul_(2)
    assert y.tolist() == [2.0, 2.0, 3.0, 4.0]  # torch 2.13
    y.add_(1)
    assert pieces[1].item() == 3.0 and pieces[1]._version == y._version


def test_unbind_of_a_2d_tensor_along_dim_1_returns_views():
    x = dg.arange(6.0).reshape(2, 3)
    col = x.unbind(1)[2]
    col.zero_()
    assert x.tolist() == [[0.0, 1.0, 0.0], [3.0, 4.0, 0.0]]


_VIEW_MSG = "view size is not compatible with input tensor's size and stride"


@pytest.mark.parametrize(
    "make, shape",
    [
        (lambda: dg.arange(4.0).reshape(2, 2).t(), (4,)),
        (lambda: dg.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2), (3, 8)),
        (lambda: dg.arange(2.0).expand(3, 2), (6,)),
    ],
)
def test_view_of_a_non_viewable_layout_raises_as_torch_and_reshape_copies(make, shape):
    x = make()
    with pytest.raises(RuntimeError, match=_VIEW_MSG):
        x.view(shape)
    with pytest.raises(RuntimeError, match=_VIEW_MSG):
        x.view_as(dg.zeros(shape))
    r = x.reshape(shape)
    assert r.shape == shape and not np.shares_memory(r._data, x._data)


@pytest.mark.parametrize(
    "make, shape",
    [  # non-contiguous inputs that torch 2.13 still views
        (lambda: dg.arange(4.0).reshape(2, 2).t(), (2, 1, 2)),
        (lambda: dg.arange(6.0).reshape(3, 2)[:, :1], (-1,)),
        (lambda: dg.arange(24.0).reshape(2, 3, 4).permute(1, 0, 2), (3, 2, 2, 2)),
        (lambda: dg.arange(8.0).reshape(2, 4)[:, ::2], (4,)),
        (lambda: dg.zeros(0, 3).t(), (0,)),
        (lambda: dg.arange(1.0).expand(3), (3, 1)),
    ],
)
def test_view_of_a_non_contiguous_but_viewable_layout_shares_memory(make, shape):
    x = make()
    v = x.view(shape)
    assert v._data.size == x._data.size and (v._data.size == 0 or np.shares_memory(v._data, x._data))
    if v._data.size:  # make_view links only overlapping memory (a 0-size view gets its own counter)
        assert v._vc is x._vc


def test_chunk_of_an_empty_dim_gives_chunks_empty_pieces_and_checks_its_type_as_torch():
    pieces = dg.chunk(dg.zeros(2, 0), 3, dim=1)  # torch 2.13: three (2, 0) pieces (dyngrad gave one)
    assert [tuple(p.shape) for p in pieces] == [(2, 0)] * 3
    with pytest.raises(TypeError, match="'chunks' must be int, not float"):
        dg.chunk(dg.arange(5), 2.5)
    with pytest.raises(TypeError, match="not bool"):
        dg.chunk(dg.arange(5), True)
    assert [p.tolist() for p in dg.chunk(dg.arange(5), 2)] == [[0, 1, 2], [3, 4]]


def test_expand_to_a_negative_size_is_a_runtimeerror_as_torch():
    with pytest.raises(RuntimeError, match="negative"):  # was NumPy's ValueError
        dg.tensor([1]).expand(-2)
    with pytest.raises(RuntimeError, match="negative"):
        dg.broadcast_to(dg.tensor([[1], [2]]), (2, -3))
